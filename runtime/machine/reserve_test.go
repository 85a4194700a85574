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
					if rng.IntN(3) == 0 {
						var ids []int32
						for i := range sp.Nodes {
							if rng.IntN(3) == 0 {
								ids = append(ids, int32(i))
							}
						}
						tb.Reserve(ids)
					} else {
						tb.Unreserve()
					}
				}
				avoid := rng.IntN(2) == 0
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
				if r := tb.Reserved(); avoid && r != nil {
					for _, i := range tb.Held(nil, j) {
						if r.Has(int(i)) {
							t.Fatalf("job %d avoids the reservation but holds reserved node %d", j, i)
						}
					}
				}
				running = append(running, j)
			}
		}
	}
}
