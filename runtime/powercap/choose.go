package powercap

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Choice names the instances and nodes a grouped plan switches off.
type Choice struct {
	Instances [][]int // per level (as Machine.Levels), chosen instance indices, ascending
	Singles   []int   // chosen single nodes, ascending
}

// Nodes appends every node c switches off to dst, in ascending order.
func (c Choice) Nodes(m *Machine, dst []int) []int {
	start := len(dst)
	for l, idx := range c.Instances {
		size := m.Levels[l].Size
		for _, k := range idx {
			for i := k * size; i < (k+1)*size; i++ {
				dst = append(dst, i)
			}
		}
	}
	dst = append(dst, c.Singles...)
	slices.Sort(dst[start:])
	return dst
}

// Choose picks which instances and nodes realise g, given for each node the
// time it becomes free (0 if idle or off now, else its job's estimated end).
// Switching off nodes that are free earliest makes the fewest jobs wait for
// the reservation; nodes still busy at the window's start go off when their
// jobs end.
//
// The rule, top level first: an instance's free time is the latest free time
// of its nodes; among the instances not inside an instance already chosen,
// take g.Count[l] with the earliest free times, ties to the lower index. Then
// take g.Singles nodes outside every chosen instance the same way. Callers
// that count every node free by the window's start as equally good should
// clamp freeAt to the window's start, so that ties keep the plan contiguous.
// O(N + I log I) for I instances of all levels together.
func (m *Machine) Choose(g Groups, freeAt []float64) (Choice, error) {
	if len(freeAt) != m.Nodes {
		return Choice{}, fmt.Errorf("powercap: %d free times for %d nodes", len(freeAt), m.Nodes)
	}
	if len(g.Count) > len(m.Levels) {
		return Choice{}, fmt.Errorf("powercap: counts for %d levels, machine has %d", len(g.Count), len(m.Levels))
	}
	for i, t := range freeAt {
		if math.IsNaN(t) {
			return Choice{}, fmt.Errorf("powercap: node %d free at NaN", i)
		}
	}

	// key[l][k]: latest free time of instance k of level l, from the level below.
	keys := make([][]float64, len(m.Levels))
	below := freeAt
	for l, lv := range m.Levels {
		ratio := lv.Size / m.size(l-1)
		keys[l] = make([]float64, m.Instances(l))
		for k := range keys[l] {
			keys[l][k] = slices.Max(below[k*ratio : (k+1)*ratio])
		}
		below = keys[l]
	}

	taken := make([]bool, m.Nodes) // nodes inside a chosen instance
	c := Choice{Instances: make([][]int, len(m.Levels))}
	var cand []int
	for l := len(m.Levels) - 1; l >= 0; l-- {
		size := m.Levels[l].Size
		cand = cand[:0]
		for k := range keys[l] {
			if !taken[k*size] { // instances nest: all of it is outside or none
				cand = append(cand, k)
			}
		}
		pick, err := earliest(cand, keys[l], g.count(l), m.Levels[l].Name)
		if err != nil {
			return Choice{}, err
		}
		for _, k := range pick {
			for i := k * size; i < (k+1)*size; i++ {
				taken[i] = true
			}
		}
		c.Instances[l] = pick
	}
	cand = cand[:0]
	for i, t := range taken {
		if !t {
			cand = append(cand, i)
		}
	}
	pick, err := earliest(cand, freeAt, g.Singles, "node")
	if err != nil {
		return Choice{}, err
	}
	c.Singles = pick
	return c, nil
}

// earliest returns, ascending, the want candidates with the smallest key,
// ties to the lower index. It reorders cand.
func earliest(cand []int, key []float64, want int, what string) ([]int, error) {
	if want < 0 || want > len(cand) {
		return nil, fmt.Errorf("powercap: %d %s(s) wanted, %d available", want, what, len(cand))
	}
	slices.SortFunc(cand, func(a, b int) int {
		return cmp.Or(cmp.Compare(key[a], key[b]), cmp.Compare(a, b))
	})
	pick := slices.Clone(cand[:want])
	slices.Sort(pick)
	return pick, nil
}
