package alloc

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// machine builds a keyed state with the given jobs started: each job is
// its nodes and its estimated end.
type job struct {
	ids []int32
	end float64
}

func machine(t *testing.T, g Geometry, keyLevel int, jobs ...job) *State {
	t.Helper()
	s, err := NewState(g, keyLevel)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		s.Take(j.ids, j.end)
	}
	return s
}

func pick(t *testing.T, name string, level int, s *State, n int) []int32 {
	t.Helper()
	p, err := NewPicker(name, level)
	if err != nil {
		t.Fatal(err)
	}
	return p.Pick(nil, s, n)
}

// racksInUse is the number of racks with a busy node once ids are taken.
func racksInUse(t *testing.T, s *State, ids []int32) int {
	t.Helper()
	c := new(State)
	c.CopyFrom(s)
	c.Take(ids, 100)
	return c.Utilized(0)
}

// Patil's Table I (patil.md §2.1): 3 racks of 3 nodes, a 3-node job.
func TestTableI(t *testing.T) {
	g := Geometry{Nodes: 9, Levels: []Level{{"rack", 3}}}
	const pRack = 633 // W per rack on
	// rack 1 = nodes 0–2 empty, rack 2 = 3–5 with 4, 5 busy, rack 3 = 6–8 with 8 busy.
	// Whatever the remaining times, rack_aware uses racks 2 and 3 only.
	for _, ends := range [][2]float64{{10, 5}, {5, 10}, {7, 7}} {
		s := machine(t, g, 0, job{[]int32{4, 5}, ends[0]}, job{[]int32{8}, ends[1]})
		got := pick(t, "rack_aware", 0, s, 3)
		if !slices.Equal(slices.Sorted(slices.Values(got)), []int32{3, 6, 7}) {
			t.Errorf("ends %v: rack_aware took %v, want 3 (rack 2) and 6, 7 (rack 3)", ends, got)
		}
		if n := racksInUse(t, s, got); n != 2 || (3-n)*pRack != 633 {
			t.Errorf("ends %v: rack_aware leaves %d racks in use, want 2 (633 W saved)", ends, n)
		}
	}
	s := machine(t, g, 0, job{[]int32{4, 5}, 10}, job{[]int32{8}, 5})
	if got := pick(t, "first_available", 0, s, 3); !slices.Equal(got, []int32{0, 1, 2}) || racksInUse(t, s, got) != 3 {
		t.Errorf("first_available took %v, want 0, 1, 2 (3 racks)", got)
	}
	if got := pick(t, "last_available", 0, s, 3); !slices.Equal(got, []int32{7, 6, 3}) || racksInUse(t, s, got) != 2 {
		t.Errorf("last_available took %v, want 7, 6, 3 (2 racks)", got)
	}
	// The reversed state: rack 1 with 0, 1 busy, rack 2 with 3 busy, rack 3 empty.
	for _, ends := range [][2]float64{{10, 5}, {5, 10}} {
		s = machine(t, g, 0, job{[]int32{0, 1}, ends[0]}, job{[]int32{3}, ends[1]})
		if got := pick(t, "last_available", 0, s, 3); !slices.Equal(got, []int32{8, 7, 6}) || racksInUse(t, s, got) != 3 {
			t.Errorf("reversed: last_available took %v, want 8, 7, 6 (3 racks)", got)
		}
		if got := pick(t, "first_available", 0, s, 3); !slices.Equal(got, []int32{2, 4, 5}) || racksInUse(t, s, got) != 2 {
			t.Errorf("reversed: first_available took %v, want 2, 4, 5 (2 racks)", got)
		}
		got := pick(t, "rack_aware", 0, s, 3)
		if !slices.Equal(slices.Sorted(slices.Values(got)), []int32{2, 4, 5}) || racksInUse(t, s, got) != 2 {
			t.Errorf("reversed, ends %v: rack_aware took %v, want 2, 4, 5 (2 racks)", ends, got)
		}
	}
}

// Remaining-time ordering (patil.md §2.3): racks of 4; rack A has 3 nodes
// of job X (5 h left) and 1 free, rack B 2 nodes of job Y (1 h) and 2
// free, rack C is empty. Run with A before B and with B before A in index
// order, so the key, not the index, decides.
func TestRemainingTimeOrder(t *testing.T) {
	g := Geometry{Nodes: 12, Levels: []Level{{"rack", 4}}}
	const now, h = 1000.0, 3600.0
	for _, layout := range []struct {
		name          string
		x, y          []int32 // job X in A, job Y in B
		a, b1, b2, c0 int32   // A's free node, B's free nodes, C's first node
	}{
		{"A=0 B=1 C=2", []int32{0, 1, 2}, []int32{4, 5}, 3, 6, 7, 8},
		{"B=0 A=1 C=2", []int32{4, 5, 6}, []int32{0, 1}, 7, 2, 3, 8},
	} {
		s := machine(t, g, 0, job{layout.x, now + 5*h}, job{layout.y, now + h})
		for _, tc := range []struct {
			n    int
			want []int32
		}{
			{1, []int32{layout.a}},
			{2, []int32{layout.a, layout.b1}}, // no best fit: not both from B
			{4, []int32{layout.a, layout.b1, layout.b2, layout.c0}},
		} {
			if got := pick(t, "rack_aware", 0, s, tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("%s: %d-node job took %v, want %v", layout.name, tc.n, got, tc.want)
			}
		}
		if n := racksInUse(t, s, pick(t, "rack_aware", 0, s, 2)); n != 2 {
			t.Errorf("%s: 2-node job leaves %d racks in use, want 2", layout.name, n)
		}
	}
	// Jobs started earlier in the same pass count: after a 1-node job
	// ending at +9 h takes B's node, B leads.
	s := machine(t, g, 0, job{[]int32{0, 1, 2}, now + 5*h}, job{[]int32{4, 5}, now + h}, job{[]int32{6}, now + 9*h})
	if got := pick(t, "rack_aware", 0, s, 2); !slices.Equal(got, []int32{7, 3}) {
		t.Errorf("after a long job joins B: took %v, want 7 (B), 3 (A)", got)
	}
}

// On identical nodes Maui's policies reduce to two (patil.md §1.5): every
// pick of max_balance and fastest equals first_available's, and of
// min_resource and cpu_load last_available's, along random workloads.
func TestPickerEquivalences(t *testing.T) {
	groups := [][]string{{"first_available", "max_balance", "fastest"}, {"last_available", "min_resource", "cpu_load"}}
	r := rand.New(rand.NewPCG(3, 4))
	for _, g := range []Geometry{testGeometries[4], testGeometries[7]} {
		d := newDriver(t, g, 0)
		for range 400 {
			d.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
			free := d.s.Free().Count()
			if free == 0 {
				continue
			}
			n := 1 + r.IntN(free)
			for _, grp := range groups {
				want := pick(t, grp[0], 0, d.s, n)
				for _, name := range grp[1:] {
					if got := pick(t, name, 0, d.s, n); !slices.Equal(got, want) {
						t.Fatalf("%s picked %v, %s %v", name, got, grp[0], want)
					}
				}
			}
		}
	}
}

// The mirror property (patil.md §1.5): with equal instances and a
// schedule that does not depend on placement, first_available's and
// last_available's busy sets are mirror images, so the number of
// instances with a busy node (and, with every idle node switched off at
// once, the number on) is the same at every step.
func TestMirror(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, g := range []Geometry{
		{Nodes: 320, Levels: []Level{{"rack", 16}}},
		{Nodes: 300, Levels: []Level{{"chassis", 6}, {"rack", 30}, {"row", 150}}},
	} {
		fa, _ := NewState(g, -1)
		la, _ := NewState(g, -1)
		var jobsA, jobsB [][]int32
		shutdown := g.Nodes == 300
		for step := range 3000 {
			if free := fa.Free().Count(); free > 0 && (len(jobsA) == 0 || r.IntN(2) == 0) {
				n := 1 + r.IntN(min(free, 40))
				a := FirstAvailable{}.Pick(nil, fa, n)
				b := LastAvailable{}.Pick(nil, la, n)
				fa.Take(a, 0)
				la.Take(b, 0)
				jobsA, jobsB = append(jobsA, a), append(jobsB, b)
			} else {
				k := r.IntN(len(jobsA))
				fa.Release(jobsA[k])
				la.Release(jobsB[k])
				jobsA, jobsB = slices.Delete(jobsA, k, k+1), slices.Delete(jobsB, k, k+1)
				if shutdown {
					idle := slices.Collect(fa.IdleSet().All())
					fa.SwitchedOff(toIDs(idle))
					idle = slices.Collect(la.IdleSet().All())
					la.SwitchedOff(toIDs(idle))
				}
			}
			for i := range g.Nodes {
				if (fa.Node(int32(i)) == Busy) != (la.Node(int32(g.Nodes-1-i)) == Busy) {
					t.Fatalf("step %d: node %d busy %v under first_available, node %d %v under last_available",
						step, i, fa.Node(int32(i)), g.Nodes-1-i, la.Node(int32(g.Nodes-1-i)))
				}
			}
			for l := range g.Levels {
				if fa.Utilized(l) != la.Utilized(l) || fa.On(l) != la.On(l) {
					t.Fatalf("step %d level %d: utilized %d vs %d, on %d vs %d", step, l, fa.Utilized(l), la.Utilized(l), fa.On(l), la.On(l))
				}
			}
		}
	}
}

func toIDs(v []int) []int32 {
	ids := make([]int32, len(v))
	for k, i := range v {
		ids[k] = int32(i)
	}
	return ids
}

func TestNewPicker(t *testing.T) {
	for _, name := range PickerNames() {
		p, err := NewPicker(name, 1)
		if err != nil || p == nil {
			t.Errorf("NewPicker(%q): %v", name, err)
			continue
		}
		want := -1
		if name == "rack_aware" {
			want = 1
		}
		if KeyLevel(p) != want {
			t.Errorf("KeyLevel(%s) = %d, want %d", name, KeyLevel(p), want)
		}
	}
	if len(PickerNames()) != 7 {
		t.Errorf("PickerNames = %v, want the 7 of patil.md §1.5", PickerNames())
	}
	for _, c := range []struct {
		name  string
		level int
	}{{"first_avail", 0}, {"", 0}, {"rack_aware", -1}, {"most_recent", 0}} {
		if _, err := NewPicker(c.name, c.level); err == nil {
			t.Errorf("NewPicker(%q, %d): no error", c.name, c.level)
		}
	}
}
