package runtime

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
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

// A rule that compares a name with a string (on Slurm accounting) reads
// the run's answer by the job's number: a dynamic priority on it, read for
// every waiting job in every pass, allocates no more than the same rule on
// a number.
func TestNameRuleAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 71))
	const nodes = 128
	jobs := randomJobs(rng, 2000, nodes, 60)
	names := workload.Names{workload.NameUser: {"alice", "bob", "carol"}}
	for i := range jobs {
		jobs[i].User = int32(1 + rng.IntN(3))
	}
	pw := constPower(len(jobs), 260)
	test := &NameTest{Slot: 0, Field: workload.NameUser, Source: `job.user == "alice"`, Names: []string{"alice"},
		Match: func(n string) (bool, error) { return n == "alice", nil }}
	ns, err := AnswerNames([]*NameTest{test}, &names)
	if err != nil {
		t.Fatal(err)
	}
	byName := &Expr{Source: `job.user == "alice" ? job.wait : 0`, Deps: DepJob | DepWait, Fields: FieldUser | FieldWait, NameTests: []*NameTest{test},
		Num: func(e *Env) float64 {
			if e.Names.Has(0, e.Job.User) {
				return e.Job.Wait
			}
			return 0
		}}
	byNumber := &Expr{Source: `job.user == 1 ? job.wait : 0`, Deps: DepJob | DepWait, Fields: FieldUser | FieldWait,
		Num: func(e *Env) float64 {
			if e.Job.User == 1 {
				return e.Job.Wait
			}
			return 0
		}}
	allocs := func(rule *Expr, opts ...simOption) float64 {
		m := testMachine(nodes)
		pol := Policy{Name: "easy", Backfill: EASY, Priority: rule}
		return testing.AllocsPerRun(3, func() {
			if _, err := simulate(jobs, &m, nodes, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), opts...); err != nil {
				t.Fatal(err)
			}
		})
	}
	n, s := allocs(byNumber), allocs(byName, withNames(ns))
	t.Logf("allocations per simulation: %g by number, %g by name", n, s)
	if s > n {
		t.Errorf("a priority on a name allocates %g per simulation, on a number %g", s, n)
	}
	// And they order the queue alike.
	m := testMachine(nodes)
	pa := Policy{Name: "easy", Backfill: EASY, Priority: byName}
	pb := Policy{Name: "easy", Backfill: EASY, Priority: byNumber}
	a, err := simulate(jobs, &m, nodes, &pa, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), withNames(ns))
	if err != nil {
		t.Fatal(err)
	}
	b, err := simulate(jobs, &m, nodes, &pb, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.start {
		if a.start[i] != b.start[i] {
			t.Fatalf("job %d starts at %g by name, %g by number", i, a.start[i], b.start[i])
		}
	}
}
