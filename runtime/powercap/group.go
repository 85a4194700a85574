package powercap

import "math"

// Groups is a grouped switch-off plan: how many whole instances of each
// level go off, and how many single nodes outside those instances.
type Groups struct {
	Count   []int // whole instances per level, indexed like Machine.Levels (nil: none)
	Singles int   // single nodes outside the chosen instances
}

func (g Groups) count(l int) int {
	if l < len(g.Count) {
		return g.Count[l]
	}
	return 0
}

// NodesOff is the number of nodes g switches off.
func (m *Machine) NodesOff(g Groups) int {
	n := g.Singles
	for l, lv := range m.Levels {
		n += g.count(l) * lv.Size
	}
	return n
}

// Saving is the power g saves from full load when each node would otherwise
// draw nodeSaving more than when off.
func (m *Machine) Saving(g Groups, nodeSaving float64) float64 {
	s := float64(g.Singles) * nodeSaving
	for l := range m.Levels {
		s += float64(g.count(l)) * m.GroupSaving(l, nodeSaving)
	}
	return s
}

// Group chooses how many whole instances of each level and single nodes to
// switch off so that they save at least shed watts with as few nodes off as
// possible, a node saving nodeSaving (> 0) and an instance its nodes' saving
// plus its bonus. It is georgiou.md §1.4's f(S, level), top level first:
//
//	f(S, node)  = ⌈S / nodeSaving⌉
//	f(S, level) = k·size + f(S − k·saving, level below),  k = ⌊S / saving⌋,
//	              or (k+1)·size if the lower levels would need ≥ size nodes
//
// The greedy is optimal (fewest nodes), for any non-negative level powers: a
// level's per-node saving is then at least the level below's, and covering
// one more instance's saving with lower pieces costs at least its size more
// nodes, so taking fewer than k instances never helps. On ties it takes the
// whole instance, which saves more. The tests check against exhaustive
// search on random small hierarchies that it switches off the fewest nodes
// and, among such plans, saves the most (the latter is observed, not proved).
//
// If shed exceeds what switching everything off saves, Group returns the
// whole machine; the caller sees the shortfall in [Machine.Saving].
func (m *Machine) Group(shed, nodeSaving float64) Groups {
	g := Groups{Count: make([]int, len(m.Levels))}
	m.cover(&g, shed, nodeSaving, len(m.Levels)-1, m.Nodes/m.size(len(m.Levels)-1))
	return g
}

// size is the number of nodes of an instance of level l, 1 for l = −1 (a node).
func (m *Machine) size(l int) int {
	if l < 0 {
		return 1
	}
	return m.Levels[l].Size
}

// cover fills g's counts at levels ≤ l (−1: single nodes) to save shed,
// taking at most limit units of level l, and returns the nodes used.
func (m *Machine) cover(g *Groups, shed, s float64, l, limit int) int {
	if !(shed > 0) {
		m.reset(g, l)
		return 0
	}
	if l < 0 {
		g.Singles = ceilDiv(shed, s, limit)
		return g.Singles
	}
	size := m.Levels[l].Size
	saving := m.GroupSaving(l, s)
	k := floorDiv(shed, saving, limit)
	sub := 0
	if k < limit {
		sub = m.cover(g, shed-float64(k)*saving, s, l-1, size/m.size(l-1))
		if sub >= size { // one more whole instance is no worse, and saves more
			k++
			m.reset(g, l-1)
			sub = 0
		}
	} else {
		m.reset(g, l-1)
	}
	g.Count[l] = k
	return k*size + sub
}

// reset zeroes g's counts at levels ≤ l and its single nodes.
func (m *Machine) reset(g *Groups, l int) {
	clear(g.Count[:l+1])
	g.Singles = 0
}

// ceilDiv is the smallest n ≤ limit with n·d ≥ x (limit if none), exact
// despite the rounding of x/d.
func ceilDiv(x, d float64, limit int) int {
	q := x / d
	if !(d > 0) || !(q < float64(limit)) {
		return limit
	}
	n := int(math.Ceil(q))
	if n > 0 && float64(n-1)*d >= x {
		n--
	}
	if float64(n)*d < x {
		n++
	}
	return min(n, limit)
}

// floorDiv is the largest k ≤ limit with k·d ≤ x (x > 0), exact despite the
// rounding of x/d.
func floorDiv(x, d float64, limit int) int {
	q := x / d
	if !(d > 0) || !(q < float64(limit)) {
		return limit
	}
	k := int(math.Floor(q))
	if k > 0 && float64(k)*d > x {
		k--
	}
	if k < limit && float64(k+1)*d <= x {
		k++
	}
	return k
}
