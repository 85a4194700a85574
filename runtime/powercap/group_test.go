package powercap

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// power evaluates the machine node by node, independently of the package's
// bonus arithmetic: a node draws 0 if the lowest level instance holding it is
// off, else Off if it is off, else busy[i]; a level instance draws its Watts
// while any node under it is not off.
func power(m *Machine, off []bool, busy func(i int) float64) float64 {
	p := 0.0
	levelOff := func(l, k int) bool {
		size := m.Levels[l].Size
		return !slices.Contains(off[k*size:(k+1)*size], false)
	}
	for i := range m.Nodes {
		switch {
		case !off[i]:
			p += busy(i)
		case len(m.Levels) == 0 || !levelOff(0, i/m.Levels[0].Size):
			p += m.Off
		}
	}
	for l, lv := range m.Levels {
		for k := range m.Nodes / lv.Size {
			if !levelOff(l, k) {
				p += lv.Watts
			}
		}
	}
	return p
}

// saving is what switching off the nodes in off saves from full load, every
// node drawing Off + s when on.
func saving(m *Machine, off []bool, s float64) float64 {
	busy := func(int) float64 { return m.Off + s }
	return power(m, make([]bool, m.Nodes), busy) - power(m, off, busy)
}

// offSet marks the nodes of c.
func offSet(m *Machine, c Choice) []bool {
	off := make([]bool, m.Nodes)
	for _, i := range c.Nodes(m, nil) {
		off[i] = true
	}
	return off
}

// bruteMin is the fewest nodes whose switch-off saves at least shed, and
// the most such a set saves, by exhaustive search over shapes: a number of
// whole instances per level (top first, each outside those chosen above) and
// single nodes outside them, placed at the lowest free indices and evaluated
// node by node. Every subset of nodes saves what its shape saves or less (its
// maximal off instances and leftover nodes; the canonical placement can only
// complete more instances), so this is the optimum. It returns -1 if no set
// saves shed.
func bruteMin(m *Machine, shed, s float64) (nodes int, most float64) {
	best := -1
	var rec func(l int, off []bool)
	rec = func(l int, off []bool) {
		if l < 0 {
			free := []int{}
			for i, o := range off {
				if !o {
					free = append(free, i)
				}
			}
			set := slices.Clone(off)
			for c := 0; c <= len(free); c++ {
				if c > 0 {
					set[free[c-1]] = true
				}
				n := m.Nodes - len(free) + c
				if best >= 0 && n > best {
					return
				}
				if sv := saving(m, set, s); sv >= shed {
					if best < 0 || n < best {
						best, most = n, sv
					}
					most = max(most, sv)
					return
				}
			}
			return
		}
		size := m.Levels[l].Size
		var avail []int
		for k := range m.Nodes / size {
			if !off[k*size] {
				avail = append(avail, k)
			}
		}
		set := slices.Clone(off)
		for a := 0; a <= len(avail); a++ {
			if a > 0 {
				k := avail[a-1]
				for i := k * size; i < (k+1)*size; i++ {
					set[i] = true
				}
			}
			rec(l-1, set)
		}
	}
	rec(len(m.Levels)-1, make([]bool, m.Nodes))
	return best, most
}

// subsetMin is bruteMin by enumerating every subset of nodes (tiny machines).
func subsetMin(m *Machine, shed, s float64) (nodes int, most float64) {
	best := -1
	off := make([]bool, m.Nodes)
	for mask := range 1 << m.Nodes {
		n := 0
		for i := range off {
			off[i] = mask>>i&1 == 1
			if off[i] {
				n++
			}
		}
		if best >= 0 && n > best {
			continue
		}
		if sv := saving(m, off, s); sv >= shed {
			if best < 0 || n < best {
				best, most = n, sv
			}
			most = max(most, sv)
		}
	}
	return best, most
}

// randomHierarchy draws a machine of at most maxNodes nodes with up to three
// levels and integer powers (so that the float arithmetic is exact).
func randomHierarchy(r *rand.Rand, maxNodes int) *Machine {
	m := &Machine{Off: float64(r.IntN(21)), Idle: 0, Deg: 1}
	size := 1
	for range r.IntN(4) {
		next := size * (2 + r.IntN(3))
		if next > maxNodes {
			break
		}
		size = next
		m.Levels = append(m.Levels, Level{Size: size, Watts: float64(r.IntN(60))})
	}
	m.Nodes = size * max(1, r.IntN(maxNodes/size+1))
	m.PStates = []PState{{1e9, m.Off + 1 + float64(r.IntN(40))}}
	return m
}

// §2.2 and acceptance check 2: to shed 6,600 W, one chassis (18 nodes,
// 6,692 W) rather than 20 single nodes (6,880 W; 19 give only 6,536 W).
func Test6600(t *testing.T) {
	m := curie(true)
	g := m.Group(6600, 344)
	if !slices.Equal(g.Count, []int{1, 0}) || g.Singles != 0 || m.NodesOff(g) != 18 {
		t.Errorf("Group(6600) = %+v (%d nodes), want 1 chassis = 18 nodes", g, m.NodesOff(g))
	}
	if got := m.Saving(g, 344); got != 6692 {
		t.Errorf("saving = %v, want 6692", got)
	}
	flat := curie(false)
	g = flat.Group(6600, 344)
	if g.Singles != 20 || flat.Saving(g, 344) != 6880 || flat.Saving(Groups{Singles: 19}, 344) != 6536 {
		t.Errorf("levels-free Group(6600) = %+v saving %v, want 20 nodes saving 6880", g, flat.Saving(g, 344))
	}
}

// The shed targets of §2.8, grouped.
func TestGroupCurie(t *testing.T) {
	m := curie(true)
	for _, c := range []struct {
		shed, s        float64
		racks, chassis int
		singles, nodes int
	}{
		{384_832, 344, 11, 1, 1, 1009},   // SHUT 80 %
		{769_664, 344, 22, 2, 2, 2018},   // SHUT 60 %
		{1_154_496, 344, 33, 3, 2, 3026}, // SHUT 40 %
		{321_104, 255, 12, 1, 0, 1098},   // MIX 60 %
		{705_936, 255, 26, 4, 2, 2414},   // MIX 40 %
		{322_896, 179, 16, 3, 0, 1494},   // auto 40 % (not in the spec: computed by hand)
		{0, 344, 0, 0, 0, 0},
		{-5, 344, 0, 0, 0, 0},
		{6692, 344, 0, 1, 0, 18},                // exactly one chassis
		{6693, 344, 0, 1, 1, 19},                // one watt more
		{34_360 - 344, 344, 1, 0, 0, 90},        // needs 90 nodes either way: the rack saves more than 5 chassis
		{1_924_160, 344, 56, 0, 0, 5040},        // the whole machine
		{1_924_161, 344, 56, 0, 0, 5040},        // beyond it: everything, short by 1 W
		{5 * 6692, 344, 1, 0, 0, 90},            // 5 chassis' worth: a rack (same nodes, more saving)
		{4*6692 + 17*344, 344, 0, 4, 17, 89},    // fits below a rack
		{4*6692 + 17*344 + 1, 344, 1, 0, 0, 90}, // 18 singles would complete a chassis: a rack
	} {
		g := m.Group(c.shed, c.s)
		want := Groups{Count: []int{c.chassis, c.racks}, Singles: c.singles}
		if !slices.Equal(g.Count, want.Count) || g.Singles != want.Singles || m.NodesOff(g) != c.nodes {
			t.Errorf("Group(%v, %v) = %+v (%d nodes), want %+v (%d nodes)", c.shed, c.s, g, m.NodesOff(g), want, c.nodes)
		}
		if c.shed <= m.FullPower() && m.Saving(g, c.s) < c.shed {
			t.Errorf("Group(%v, %v) saves only %v", c.shed, c.s, m.Saving(g, c.s))
		}
	}
}

// The bonus keeps 110 / 220 / 331 more nodes on than the ungrouped count
// (SHUT at 80/60/40 %) and 162 / 355 (MIX at 60/40 %), §2.8.
func TestGroupKeepsNodesOn(t *testing.T) {
	m := curie(true)
	for _, c := range []struct {
		shed, s         float64
		ungrouped, more int
	}{
		{384_832, 344, 1119, 110},
		{769_664, 344, 2238, 220},
		{1_154_496, 344, 3357, 331},
		{321_104, 255, 1260, 162},
		{705_936, 255, 2769, 355},
	} {
		if got := curie(false).Group(c.shed, c.s).Singles; got != c.ungrouped {
			t.Errorf("ungrouped(%v) = %d, want %d", c.shed, got, c.ungrouped)
		}
		if got := c.ungrouped - m.NodesOff(m.Group(c.shed, c.s)); got != c.more {
			t.Errorf("bonus keeps %d more nodes on at S = %v, want %d", got, c.shed, c.more)
		}
	}
}

// The exhaustive oracle agrees with plain subset enumeration on tiny machines.
func TestBruteMinAgreesWithSubsets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		m := randomHierarchy(r, 12)
		s := m.Max() - m.Off
		full := saving(m, slices.Repeat([]bool{true}, m.Nodes), s)
		shed := float64(r.IntN(int(full) + 10))
		n1, most1 := bruteMin(m, shed, s)
		n2, most2 := subsetMin(m, shed, s)
		if n1 != n2 || most1 != most2 {
			t.Fatalf("machine %+v shed %v: shapes %d nodes saving %v, subsets %d saving %v", m, shed, n1, most1, n2, most2)
		}
	}
}

// Group is optimal: against exhaustive search on random hierarchies of up to
// three levels and 30 nodes, it switches off the fewest nodes, saves the most
// among the plans with that many nodes, and its instances, placed by Choose,
// save at least the target (evaluated node by node).
func TestGroupOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 5000 {
		m := randomHierarchy(r, 30)
		if i%2 == 1 { // small level powers: near-ties between levels
			for l := range m.Levels {
				m.Levels[l].Watts = float64(r.IntN(3))
			}
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		s := m.Max() - m.Off
		full := saving(m, slices.Repeat([]bool{true}, m.Nodes), s)
		shed := float64(r.IntN(int(full)+10)) - 5
		if r.IntN(4) == 0 { // land on sums of instance savings, where rounding bites
			shed = 0
			for l := range m.Levels {
				shed += float64(r.IntN(3)) * m.GroupSaving(l, s)
			}
			shed += float64(r.IntN(3)-1) * s
		}
		g := m.Group(shed, s)
		got := m.NodesOff(g)
		want, most := bruteMin(m, shed, s)
		if want < 0 { // infeasible: everything off
			if got != m.Nodes {
				t.Fatalf("machine %+v shed %v > %v: Group = %+v, want every node", m, shed, full, g)
			}
			continue
		}
		if got != want {
			t.Fatalf("machine %+v shed %v: Group = %+v (%d nodes), optimum %d", m, shed, g, got, want)
		}
		if sv := m.Saving(g, s); sv != most {
			t.Fatalf("machine %+v shed %v: Group = %+v saves %v, but %d nodes can save %v", m, shed, g, sv, want, most)
		}
		c, err := m.Choose(g, make([]float64, m.Nodes))
		if err != nil {
			t.Fatalf("Choose(%+v): %v", g, err)
		}
		if sv := saving(m, offSet(m, c), s); sv < shed || sv != m.Saving(g, s) {
			t.Fatalf("machine %+v shed %v: %+v saves %v node by node, %v by formula", m, shed, g, sv, m.Saving(g, s))
		}
	}
}

// ceilDiv and floorDiv are exact where x/d rounds across an integer: with
// x = k·d as computed, both give k, whichever way x/d rounds.
func TestDivExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	across := 0
	for range 100_000 {
		d := r.Float64() * 1000
		k := r.IntN(10_000)
		x := float64(k) * d
		if x/d != float64(k) {
			across++
		}
		if got := ceilDiv(x, d, 1<<30); got != k {
			t.Fatalf("ceilDiv(%v, %v) = %d, want %d", x, d, got, k)
		}
		if got := floorDiv(x, d, 1<<30); got != k {
			t.Fatalf("floorDiv(%v, %v) = %d, want %d", x, d, got, k)
		}
		// One ulp above k·d needs k+1; one ulp below allows only k−1.
		if got := ceilDiv(math.Nextafter(x, math.Inf(1)), d, 1<<30); got != k+1 {
			t.Fatalf("ceilDiv just above %d·%v = %d", k, d, got)
		}
		if got := floorDiv(math.Nextafter(x, 0), d, 1<<30); k > 0 && got != k-1 {
			t.Fatalf("floorDiv just below %d·%v = %d", k, d, got)
		}
	}
	if across == 0 {
		t.Fatal("no case where x/d rounds away from k: the test exercises nothing")
	}
	for _, c := range []struct {
		x, d        float64
		limit, want int
	}{
		{5, 0, 7, 7},           // nothing saves: everything
		{math.Inf(1), 3, 7, 7}, // beyond the limit
		{math.NaN(), 3, 7, 7},  // NaN never fits
		{100, 3, 10, 10},       // capped
	} {
		if got := ceilDiv(c.x, c.d, c.limit); got != c.want {
			t.Errorf("ceilDiv(%v, %v, %d) = %d, want %d", c.x, c.d, c.limit, got, c.want)
		}
	}
}
