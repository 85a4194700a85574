package machine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pwrc/pwrc/runtime/alloc"
)

// TestPowerDelta checks, through random starts, ends and switch-offs on
// machines with and without levels, that PowerDelta is exactly the rise
// of the machine's power when the job then starts (Georgiou's P_after
// from the machine's actual state), with and without a reservation the
// job must avoid; and that an avoiding job never takes a reserved node.
func TestPowerDelta(t *testing.T) {
	specs := []Spec{
		{Nodes: 24, Power: NodePower{Off: 3, Idle: 50, Busy: 200}},
		{Nodes: 24, Power: NodePower{Off: 14, Idle: 117, Busy: 358}, Levels: []Level{
			{Name: "chassis", Size: 4, Components: []Component{{Power: 248}}},
			{Name: "rack", Size: 12, Components: []Component{{Name: "fans", Power: 500}, {Name: "door", Power: 400}}},
		}},
	}
	picks := []func() alloc.Picker{
		func() alloc.Picker { return nil },
		func() alloc.Picker { return alloc.FirstAvailable{} },
		func() alloc.Picker { return alloc.LastAvailable{} },
		func() alloc.Picker { return &alloc.RackAware{Level: 0} },
	}
	for si, sp := range specs {
		for pi, mk := range picks {
			pick := mk()
			if _, ra := pick.(*alloc.RackAware); ra && len(sp.Levels) == 0 {
				continue
			}
			m := NewModel(sp)
			const jobs = 400
			tb, err := NewTable(m, sp.Nodes, jobs, pick, true, 0)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float64, len(m.Components()))
			rng := rand.New(rand.NewPCG(uint64(si), uint64(pi)))
			var running []int32
			now := 0.0
			for j := int32(0); j < jobs; j++ {
				now += float64(rng.IntN(50))
				switch rng.IntN(4) {
				case 0:
					tb.SwitchOff(now, 0, rng.IntN(4), false)
				case 1:
					if len(running) > 0 {
						k := rng.IntN(len(running))
						r := running[k]
						n := len(tb.Held(nil, r))
						tb.Release(r, Use{N: n, Work: n, W: 150 * float64(n)}, now)
						running = append(running[:k], running[k+1:]...)
					}
				case 2:
					if k := rng.IntN(3); rng.IntN(3) == 0 {
						var ids []int32
						for i := range sp.Nodes {
							if rng.IntN(3) == 0 {
								ids = append(ids, int32(i))
							}
						}
						tb.Reserve(k, ids)
					} else {
						tb.Unreserve(k)
					}
				}
				avoid := uint64(rng.IntN(8)) // any of three reservations
				free := tb.Available(avoid)
				if free == 0 {
					continue
				}
				n := 1 + rng.IntN(free)
				u := Use{N: n, Work: n, W: 150 * float64(n), Avoid: avoid}
				before := m.Power(tb.Counts(), out)
				d := tb.PowerDelta(u, false)
				tb.Take(j, u, now+100, false)
				after := m.Power(tb.Counts(), out)
				if math.Abs(after-before-d) > 1e-9 {
					t.Fatalf("spec %d pick %d job %d: power rose %v W, PowerDelta said %v", si, pi, j, after-before, d)
				}
				for k := range 3 {
					if r := tb.Reserved(1 << k); avoid&(1<<k) != 0 && r != nil {
						for _, i := range tb.Held(nil, j) {
							if r.Has(int(i)) {
								t.Fatalf("job %d avoids reservation %d but holds its node %d", j, k, i)
							}
						}
					}
				}
				running = append(running, j)
			}
		}
	}
}

// TestReservationsCoexist: two reservations sharing nodes. Each switches
// off only its own idle nodes; booting one at its window's end leaves off
// the nodes the other (still open) holds; a job avoiding one may take the
// other's nodes, one avoiding both takes neither's.
func TestReservationsCoexist(t *testing.T) {
	m := NewModel(Spec{Nodes: 12, Power: NodePower{Off: 5, Idle: 50, Busy: 200}})
	tb, err := NewTable(m, 12, 4, alloc.FirstAvailable{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	tb.Reserve(0, []int32{0, 1, 2, 3})
	tb.Reserve(1, []int32{2, 3, 4, 5})
	if got := tb.Available(1); got != 8 {
		t.Errorf("avoiding reservation 0: %d nodes available, want 8", got)
	}
	if got := tb.Available(3); got != 6 {
		t.Errorf("avoiding both: %d nodes available, want 6", got)
	}
	if r := tb.Reserved(3); r == nil || r.Count() != 6 {
		t.Fatalf("the union holds %v, want nodes 0–5", r)
	}
	u := Use{N: 2, Work: 2, W: 400, Avoid: 2}
	tb.Take(0, u, 100, false)
	if got := tb.Held(nil, 0); got[0] != 0 || got[1] != 1 {
		t.Errorf("a job avoiding reservation 1 got nodes %v, want 0 and 1", got)
	}
	if n := tb.SwitchOffReserved(1, false); n != 4 {
		t.Errorf("reservation 1 switched off %d nodes, want 4", n)
	}
	if n := tb.SwitchOffReserved(0, false); n != 0 {
		t.Errorf("reservation 0 switched off %d more nodes, want 0 (0 and 1 busy, 2 and 3 off)", n)
	}
	// Reservation 1's window ends while 0's is open: 2 and 3 stay off.
	if n := tb.BootReserved(1, 3, false, 50); n != 2 {
		t.Errorf("reservation 1 booted %d nodes, want 2 (4 and 5)", n)
	}
	tb.Unreserve(1)
	off := tb.State().OffSet()
	for i := range 12 {
		if want := i == 2 || i == 3; off.Has(i) != want {
			t.Errorf("node %d off %v, want %v", i, off.Has(i), want)
		}
	}
	if n := tb.BootReserved(0, 1, false, 60); n != 2 {
		t.Errorf("reservation 0 booted %d nodes, want 2", n)
	}
	tb.Unreserve(0)
	if tb.Reserved(3) != nil || tb.Counts().Off != 0 {
		t.Errorf("after both windows: reservations %v, %d nodes off", tb.Reserved(3), tb.Counts().Off)
	}
}
