package powercap

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// twelve is 12 nodes in 4 chassis of 3 and 2 racks of 6.
func twelve() *Machine {
	return &Machine{Nodes: 12, Off: 1, PStates: []PState{{1e9, 10}}, Deg: 1,
		Levels: []Level{{"chassis", 3, 2}, {"rack", 6, 5}}}
}

func TestChoose(t *testing.T) {
	m := twelve()
	for _, c := range []struct {
		name     string
		free     []float64
		count    []int
		singles  int
		chassis  []int
		racks    []int
		nodes    []int // singles
		allNodes []int
	}{
		{
			name:  "nothing",
			free:  make([]float64, 12),
			count: []int{0, 0},
		},
		{
			// chassis free at 5, 0, 1, 9; racks at 5, 9.
			name:  "earliest rack, then chassis, then nodes",
			free:  []float64{5, 0, 0, 0, 0, 0, 1, 1, 1, 9, 0, 0},
			count: []int{1, 1}, singles: 2,
			racks: []int{0}, chassis: []int{2}, nodes: []int{10, 11},
			allNodes: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11},
		},
		{
			name:  "all free: lowest indices, contiguous",
			free:  make([]float64, 12),
			count: []int{2, 0}, singles: 1,
			chassis: []int{0, 1}, nodes: []int{6},
			allNodes: []int{0, 1, 2, 3, 4, 5, 6},
		},
		{
			// A rack's free time is its latest node's: rack 0 ends at 7
			// (node 1), rack 1 at 3.
			name:  "rack by its latest node",
			free:  []float64{0, 7, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3},
			count: []int{0, 1},
			racks: []int{1}, allNodes: []int{6, 7, 8, 9, 10, 11},
		},
		{
			// Chassis free at 7, 2, 4, 4: the one at 2, then 4 with the lower index.
			name:    "chassis by free time, ties to the lower index",
			free:    []float64{0, 7, 0, 2, 2, 2, 4, 4, 4, 4, 4, 4},
			count:   []int{2, 0},
			chassis: []int{1, 2}, allNodes: []int{3, 4, 5, 6, 7, 8},
		},
		{
			name:  "singles by their own time, ties to the lower index",
			free:  []float64{3, 1, 2, 1, 9, 9, 9, 9, 9, 9, 9, 0},
			count: []int{0, 0}, singles: 4,
			nodes: []int{1, 2, 3, 11}, allNodes: []int{1, 2, 3, 11},
		},
		{
			name:  "negative and infinite times order as numbers",
			free:  []float64{math.Inf(1), 0, 0, -4, 0, 0, 0, 0, 0, 0, 0, 0},
			count: []int{0, 0}, singles: 2,
			nodes: []int{1, 3}, allNodes: []int{1, 3},
		},
		{
			name:  "everything",
			free:  make([]float64, 12),
			count: []int{0, 2},
			racks: []int{0, 1}, allNodes: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		},
	} {
		g := Groups{Count: c.count, Singles: c.singles}
		ch, err := m.Choose(g, c.free)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(ch.Instances[0], c.chassis) && len(ch.Instances[0])+len(c.chassis) > 0 ||
			!slices.Equal(ch.Instances[1], c.racks) && len(ch.Instances[1])+len(c.racks) > 0 ||
			!slices.Equal(ch.Singles, c.nodes) && len(ch.Singles)+len(c.nodes) > 0 {
			t.Errorf("%s: chassis %v racks %v nodes %v, want %v %v %v", c.name, ch.Instances[0], ch.Instances[1], ch.Singles, c.chassis, c.racks, c.nodes)
		}
		if got := ch.Nodes(m, nil); !slices.Equal(got, c.allNodes) && len(got)+len(c.allNodes) > 0 {
			t.Errorf("%s: nodes %v, want %v", c.name, got, c.allNodes)
		}
	}
	// Levels-free: single nodes only.
	flat := &Machine{Nodes: 5, PStates: []PState{{1e9, 10}}, Deg: 1}
	ch, err := flat.Choose(Groups{Singles: 2}, []float64{4, 3, 2, 1, 2})
	if err != nil || !slices.Equal(ch.Singles, []int{2, 3}) {
		t.Errorf("levels-free: %+v, %v", ch, err)
	}
	// Nodes appends.
	if got := ch.Nodes(flat, []int{-1}); !slices.Equal(got, []int{-1, 2, 3}) {
		t.Errorf("Nodes appends: %v", got)
	}
}

func TestChooseErrors(t *testing.T) {
	m := twelve()
	free := make([]float64, 12)
	for _, c := range []struct {
		name string
		g    Groups
		free []float64
		want string
	}{
		{"short free", Groups{}, free[:11], "11 free times"},
		{"NaN", Groups{}, append(slices.Clone(free[:11]), math.NaN()), "node 11"},
		{"too many racks", Groups{Count: []int{0, 3}}, free, "3 rack(s) wanted, 2 available"},
		{"too many chassis", Groups{Count: []int{3, 1}}, free, "3 chassis(s) wanted, 2 available"},
		{"too many singles", Groups{Count: []int{1, 1}, Singles: 4}, free, "4 node(s) wanted, 3 available"},
		{"negative", Groups{Singles: -1}, free, "-1 node(s)"},
		{"too many levels", Groups{Count: []int{0, 0, 0}}, free, "3 levels"},
	} {
		_, err := m.Choose(c.g, c.free)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// On random machines and free times, a choice realises its groups exactly
// (disjoint instances, singles outside them, as many nodes as NodesOff), and
// at every level no candidate left out is free earlier than one chosen (ties:
// a lower index is never left out for a higher one).
func TestChooseRule(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		m := randomHierarchy(r, 60)
		free := make([]float64, m.Nodes)
		for i := range free {
			free[i] = float64(r.IntN(5))
		}
		// Random feasible groups: top down, within what is left.
		g := Groups{Count: make([]int, len(m.Levels))}
		left := m.Nodes
		for l := len(m.Levels) - 1; l >= 0; l-- {
			g.Count[l] = r.IntN(left/m.Levels[l].Size + 1)
			left -= g.Count[l] * m.Levels[l].Size
		}
		g.Singles = r.IntN(left + 1)

		c, err := m.Choose(g, free)
		if err != nil {
			t.Fatalf("%+v %+v: %v", m, g, err)
		}
		nodes := c.Nodes(m, nil)
		if len(nodes) != m.NodesOff(g) || len(slices.Compact(slices.Clone(nodes))) != len(nodes) {
			t.Fatalf("%+v %+v: nodes %v", m, g, nodes)
		}
		if len(c.Singles) != g.Singles {
			t.Fatalf("%d singles, want %d", len(c.Singles), g.Singles)
		}
		taken := make([]bool, m.Nodes)
		key := func(lo, hi int) float64 { return slices.Max(free[lo:hi]) }
		for l := len(m.Levels) - 1; l >= -1; l-- {
			size, chosen := 1, c.Singles
			if l >= 0 {
				size, chosen = m.Levels[l].Size, c.Instances[l]
				if len(chosen) != g.Count[l] {
					t.Fatalf("level %d: %d chosen, want %d", l, len(chosen), g.Count[l])
				}
			}
			worst, worstIdx := math.Inf(-1), -1 // latest chosen (key, index)
			for _, k := range chosen {
				if taken[k*size] {
					t.Fatalf("level %d instance %d inside a chosen instance", l, k)
				}
				if kk := key(k*size, (k+1)*size); kk > worst || kk == worst && k > worstIdx {
					worst, worstIdx = kk, k
				}
			}
			for k := range m.Nodes / size {
				if taken[k*size] || slices.Contains(chosen, k) {
					continue
				}
				if kk := key(k*size, (k+1)*size); kk < worst || kk == worst && k < worstIdx {
					t.Fatalf("level %d: left %d (free %v) for %d (free %v); free %v", l, k, kk, worstIdx, worst, free)
				}
			}
			for _, k := range chosen {
				for i := k * size; i < (k+1)*size; i++ {
					taken[i] = true
				}
			}
		}
	}
}
