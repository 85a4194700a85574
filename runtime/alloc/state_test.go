package alloc

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestStateModel(t *testing.T) {
	for gi, g := range testGeometries {
		for key := -1; key < len(g.Levels); key++ {
			t.Run(geometryName(g), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(gi), uint64(key+1)))
				d := newDriver(t, g, key)
				d.m.check(t, d.s)
				steps := 1500
				if g.Nodes > 1000 {
					steps = 150
				}
				for range steps {
					d.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
					d.m.check(t, d.s)
				}
			})
		}
	}
}

// A long job pins an instance's key while many short ones come and go on
// it: their ends pile up as lazy deletions until compaction, and the key
// must stay right throughout.
func TestKeysCompact(t *testing.T) {
	g := Geometry{Nodes: 16, Levels: []Level{{"rack", 16}}}
	s, _ := NewState(g, 0)
	m := newModel(g)
	s.Take([]int32{0}, 1e9)
	m.set([]int32{0}, Busy)
	m.end[0] = 1e9
	for k := range 500 {
		a := []int32{int32(1 + k%15)}
		s.Take(a, float64(k%7))
		m.set(a, Busy)
		m.end[a[0]] = float64(k % 7)
		m.check(t, s)
		s.Release(a)
		m.set(a, Idle)
		m.check(t, s)
	}
	if k := &s.lv[0].keys[0]; len(k.live) > 40 || len(k.gone) > 40 {
		t.Errorf("no compaction: %d live, %d gone", len(k.live), len(k.gone))
	}
	s.Release([]int32{0})
	if _, ok := s.Key(0, 0); ok {
		t.Errorf("key left after the last job ended")
	}
}

func TestStateMisuse(t *testing.T) {
	g := Geometry{Nodes: 8, Levels: []Level{{"rack", 4}}}
	cases := map[string]func(s *State){
		"Take busy":            func(s *State) { s.Take([]int32{1}, 1); s.Take([]int32{1}, 2) },
		"Take twice in a call": func(s *State) { s.Take([]int32{1, 1}, 1) },
		"Take NaN":             func(s *State) { s.Take([]int32{1}, math.NaN()) },
		"Take booting":         func(s *State) { s.SwitchedOff([]int32{2}); s.Booting([]int32{2}); s.Take([]int32{2}, 1) },
		"Release idle":         func(s *State) { s.Release([]int32{3}) },
		"SwitchingOff busy":    func(s *State) { s.Take([]int32{1}, 1); s.SwitchingOff([]int32{1}) },
		"SwitchedOff off":      func(s *State) { s.SwitchedOff([]int32{1}); s.SwitchedOff([]int32{1}) },
		"Booting idle":         func(s *State) { s.Booting([]int32{1}) },
		"Booted busy":          func(s *State) { s.Take([]int32{1}, 1); s.Booted([]int32{1}) },
		"Key wrong level":      func(s *State) { s.Key(1, 0) },
		"Pick too many":        func(s *State) { FirstAvailable{}.Pick(nil, s, 9) },
		"Pick negative":        func(s *State) { LastAvailable{}.Pick(nil, s, -1) },
		"rack_aware unkeyed":   func(s *State) { (&RackAware{Level: 1}).Pick(nil, s, 1) },
		"switch off busy":      func(s *State) { s.Take([]int32{1}, 1); new(Sleeper).ToSwitchOff(nil, s, []int32{1}, 1) },
		"switch off twice":     func(s *State) { new(Sleeper).ToSwitchOff(nil, s, []int32{2, 2}, 1) },
	}
	for name, f := range cases {
		s, err := NewState(g, 0)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(s)
		}()
	}
	for _, k := range []int{-2, 1} {
		if _, err := NewState(g, k); err == nil {
			t.Errorf("NewState with key level %d on 1 level: no error", k)
		}
	}
}

// CopyFrom gives an independent state: after copying, the two evolve
// apart and each still matches its own model, including into a warm
// destination of another geometry.
func TestCopyFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, g := range testGeometries[:7] {
		t.Run(geometryName(g), func(t *testing.T) {
			key := len(g.Levels) - 1
			a := newDriver(t, g, key)
			for range 200 {
				a.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
			}
			b := newDriver(t, testGeometries[5], 1) // other geometry, warm
			for range 50 {
				b.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
			}
			b.s.CopyFrom(a.s)
			b.m, b.jobs = a.m.clone(), slices.Clone(a.jobs)
			b.pick = a.pick
			b.m.check(t, b.s)
			for range 300 {
				a.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
				b.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
				a.m.check(t, a.s)
				b.m.check(t, b.s)
			}
		})
	}
}

func FuzzState(f *testing.F) {
	f.Add(uint8(4), []byte{0, 5, 1, 0, 9, 2, 3, 0, 1, 2, 0, 0, 5, 3, 4, 6, 1, 1})
	f.Add(uint8(5), []byte{0, 200, 2, 1, 7, 3, 3, 1, 9, 4, 0, 0})
	f.Fuzz(func(t *testing.T, gi uint8, data []byte) {
		g := testGeometries[int(gi)%(len(testGeometries)-1)] // the large one is too slow to check per step
		d := newDriver(t, g, int(gi/8)%(len(g.Levels)+1)-1)
		for k := 0; k+2 < len(data); k += 3 {
			d.step(int(data[k]), int(data[k+1])*31+k, int(data[k+2])*17+k)
			d.m.check(t, d.s)
		}
	})
}

// Marks are stamped; when the stamp wraps around, old marks must not be
// taken for this call's: every mark is left at 1, the stamp a wrap comes
// back to.
func TestStampWrap(t *testing.T) {
	g := Geometry{Nodes: 90, Levels: []Level{{"chassis", 3}, {"rack", 15}}}
	d := newDriver(t, g, 1)
	r := rand.New(rand.NewPCG(9, 9))
	for range 100 {
		d.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
	}
	d.step(3, 0, 1) // warm the sleeper's scratch
	for l := range d.s.lv {
		for k := range d.s.lv[l].mark {
			d.s.lv[l].mark[k] = 1
		}
		for k := range d.sl.mark[l] {
			d.sl.mark[l][k], d.sl.cnt[l][k] = 1, int32(k*7%13)
		}
	}
	d.s.stamp, d.sl.stamp = math.MaxUint32, math.MaxUint32
	cands := toIDs(slices.Collect(d.s.IdleSet().All()))
	if got, want := d.sl.ToSwitchOff(nil, d.s, cands, len(cands)), d.m.refSwitchOff(cands, len(cands)); !slices.Equal(got, want) {
		t.Fatalf("after the stamp wrapped: ToSwitchOff = %v, want %v", got, want)
	}
	for range 300 {
		d.step(r.IntN(7), r.IntN(1<<20), r.IntN(1<<20))
		d.m.check(t, d.s)
	}
}

// The state keeps its own copy of the geometry.
func TestStateGeometry(t *testing.T) {
	levels := []Level{{"rack", 4}}
	s, _ := NewState(Geometry{Nodes: 8, Levels: levels}, 0)
	levels[0].Size = 2
	if g := s.Geometry(); g.Nodes != 8 || len(g.Levels) != 1 || g.Levels[0] != (Level{"rack", 4}) || s.Nodes() != 8 {
		t.Errorf("Geometry() = %+v after the caller's levels changed", g)
	}
}
