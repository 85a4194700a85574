package alloc

import (
	"slices"
	"testing"
)

// layout builds a state from one letter per node: i idle, o off, b busy
// (one job per letter), s shutting down, u booting (up).
func layout(t *testing.T, g Geometry, nodes string) *State {
	t.Helper()
	if len(nodes) != g.Nodes {
		t.Fatalf("layout %q for %d nodes", nodes, g.Nodes)
	}
	s, err := NewState(g, -1)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range nodes {
		id := []int32{int32(i)}
		switch c {
		case 'b':
			s.Take(id, 1)
		case 'o':
			s.SwitchedOff(id)
		case 's':
			s.SwitchingOff(id)
		case 'u':
			s.SwitchedOff(id)
			s.Booting(id)
		}
	}
	return s
}

func TestToSwitchOff(t *testing.T) {
	racks := Geometry{Nodes: 12, Levels: []Level{{"rack", 4}}}
	two := Geometry{Nodes: 8, Levels: []Level{{"chassis", 2}, {"rack", 4}}}
	tests := []struct {
		name  string
		g     Geometry
		nodes string
		cands []int32 // nil: every idle node
		n     int
		want  []int32
	}{
		{"whole rack off first, then fewest left on", racks, "biii" + "iiii" + "bbbi", nil, 8, []int32{4, 5, 6, 7, 1, 2, 3, 11}},
		{"n cuts the order", racks, "biii" + "iiii" + "bbbi", nil, 5, []int32{4, 5, 6, 7, 1}},
		// Both racks have 4 nodes on; rack 1 keeps 1 on after, rack 0 keeps 3:
		// rack 1 goes, so rack 0's idle node stays as a reserve where a
		// rack is on anyway.
		{"closest to off", racks, "bbbi" + "biii" + "bbbb", nil, 3, []int32{5, 6, 7}},
		{"among racks that go off, the smaller first", racks, "ooii" + "iiii" + "bbbb", nil, 2, []int32{2, 3}},
		{"only candidates count", racks, "iiii" + "iiii" + "bbbb", []int32{6, 7, 1, 0, 2}, 5, []int32{0, 1, 2, 6, 7}},
		{"ties by index", racks, "biii" + "biii" + "biii", nil, 4, []int32{1, 2, 3, 5}},
		{"shutting down counts as on", racks, "siii" + "iiii" + "bbbb", nil, 4, []int32{4, 5, 6, 7}},
		{"rack first, then chassis inside", two, "bi" + "ii" + "ib" + "bb", nil, 4, []int32{2, 3, 1, 4}},
		{"no levels: by index", Geometry{Nodes: 6}, "ibiiob", []int32{3, 0, 2}, 2, []int32{0, 2}},
		{"n above candidates", Geometry{Nodes: 6}, "ibiiob", []int32{3}, 5, []int32{3}},
		{"n zero", Geometry{Nodes: 6}, "ibiiob", []int32{3}, 0, nil},
	}
	var sl Sleeper
	for _, tc := range tests {
		s := layout(t, tc.g, tc.nodes)
		cands := tc.cands
		if cands == nil {
			cands = toIDs(slices.Collect(s.IdleSet().All()))
		}
		got := sl.ToSwitchOff([]int32{99}, s, cands, tc.n)
		if !slices.Equal(got, append([]int32{99}, tc.want...)) {
			t.Errorf("%s: %v, want 99 (kept) then %v", tc.name, got, tc.want)
		}
	}
}

func TestToBoot(t *testing.T) {
	racks := Geometry{Nodes: 12, Levels: []Level{{"rack", 4}}}
	two := Geometry{Nodes: 8, Levels: []Level{{"chassis", 2}, {"rack", 4}}}
	tests := []struct {
		name  string
		g     Geometry
		nodes string
		n     int
		want  []int32
	}{
		{"racks on first, fullest first", racks, "oooo" + "iooo" + "bbbo", 3, []int32{11, 5, 6}},
		{"then racks off by index", racks, "oooo" + "iooo" + "bbbo", 6, []int32{11, 5, 6, 7, 0, 1}},
		{"booting and shutting down count as on", racks, "oooo" + "sooo" + "uooo", 2, []int32{5, 6}},
		{"rack first, then chassis inside", two, "oo" + "oo" + "bo" + "oo", 3, []int32{5, 6, 7}},
		{"n above off nodes", two, "bo" + "bb" + "bb" + "bb", 3, []int32{1}},
		{"no levels: by index", Geometry{Nodes: 6}, "iobooo", 2, []int32{1, 3}},
		{"nothing off", Geometry{Nodes: 3}, "ibi", 2, nil},
	}
	var sl Sleeper
	for _, tc := range tests {
		s := layout(t, tc.g, tc.nodes)
		if got := sl.ToBoot([]int32{99}, s, tc.n); !slices.Equal(got, append([]int32{99}, tc.want...)) {
			t.Errorf("%s: %v, want 99 (kept) then %v", tc.name, got, tc.want)
		}
	}
}
