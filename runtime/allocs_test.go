package runtime

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// TestSimulateAllocations pins the allocations of one simulation under
// the plain schedulers (and a few stages) on a fixed random workload.
// Allocations per run, never per event, are the engine's rule: a count
// that grows means a new per-run table or, worse, an allocation on a hot
// path. A change that lowers a count lowers its pin. (A stage costs its
// value: one for the shutdown stage.)
func TestSimulateAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 70))
	const nodes = 128
	jobs := randomJobs(rng, 20000, nodes, 60)
	pw := constPower(len(jobs), 260)
	for _, c := range []struct {
		name string
		pol  Policy
		max  float64
	}{
		{"fcfs", Policy{Name: "fcfs"}, 69},
		{"easy", Policy{Name: "easy", Backfill: EASY}, 248},
		{"easy_exact", Policy{Name: "easy_exact", Backfill: EASY, Estimate: Exact}, 246},
		{"greedy", Policy{Name: "greedy", Backfill: Greedy, Depth: 50}, 247},
		// Nodes that switch off have identities for their boots per node:
		// the running jobs' node lists (buffers reused), the idle order.
		{"easy_shutdown", Policy{Name: "easy_shutdown", Backfill: EASY, Shutdown: &Shutdown{After: 600}}, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := testMachine(nodes)
			got := testing.AllocsPerRun(3, func() {
				if _, err := simulate(jobs, &m, nodes, &c.pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1)); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%s: %g allocations per simulation", c.name, got)
			switch {
			case got > c.max:
				t.Errorf("%s: %g allocations per simulation, pinned at %g", c.name, got, c.max)
			case got < c.max:
				t.Logf("%s: below its pin %g: lower the pin", c.name, c.max)
			}
		})
	}
}
