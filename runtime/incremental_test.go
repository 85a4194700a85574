package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// bootMachines switch nodes on and off at once, or with boot and shutdown
// delays: the differential tests' two machines.
var bootMachines = []Machine{
	{Name: "instant", Power: NodePower{Off: 5, Idle: 70, Busy: 260, Boot: 100, Shutdown: 90}},
	{Name: "slow", BootTime: 120, ShutdownTime: 45, Power: NodePower{Off: 5, Idle: 70, Busy: 260, Boot: 100, Shutdown: 90}},
}

// randomCases is a differential test's grid: seeds random workloads of
// jobs jobs (PCG stream stream) on 8 to 7+span nodes, rounded down to a
// multiple of unit, each on every one of bootMachines under every policy.
type randomCases struct {
	seeds, stream    uint64
	jobs, span, unit int
}

// run runs check on each case as a subtest named seed/machine/policy; m is
// the machine sized for the workload.
func (rc randomCases) run(t *testing.T, policies []Policy, check func(t *testing.T, seed uint64, jobs []workload.Job, m *Machine, pol *Policy)) {
	for seed := range rc.seeds {
		rng := rand.New(rand.NewPCG(seed, rc.stream))
		nodes := 8 + rng.IntN(rc.span)
		nodes -= nodes % max(rc.unit, 1)
		jobs := randomJobs(rng, rc.jobs, nodes, []float64{1, 60, 300}[seed%3])
		for _, m := range bootMachines {
			for _, pol := range policies {
				t.Run(fmt.Sprintf("seed%d/%s/%s", seed, m.Name, pol.Name), func(t *testing.T) {
					m.Nodes = nodes
					check(t, seed, jobs, &m, &pol)
				})
			}
		}
	}
}

// TestIncrementalPassesChangeNothing replays random workloads with and
// without incremental passes (arrival-only passes that look at new jobs
// only) under every policy feature: each must give the same schedule and
// the same energy. The reference simulator covers FCFS and EASY; this
// covers greedy backfill, static priorities and order keys, admit rules,
// shutdown, and boot and shutdown delays.
func TestIncrementalPassesChangeNothing(t *testing.T) {
	bigFirst := &Expr{Source: "job.nodes", Deps: DepJob, Fields: FieldNodes, Num: func(e *Env) float64 { return float64(e.Job.Nodes) }}
	shortFirst := &Expr{Source: "job.walltime", Deps: DepJob, Fields: FieldWalltime, Num: func(e *Env) float64 { return e.Job.Walltime }}
	// A static admit rule that refused a job would refuse it forever (the
	// run then fails); this one admits all, exercising the code path.
	anyJob := &Expr{Source: "job.nodes > 0", Deps: DepJob, Fields: FieldNodes, Bool: func(e *Env) bool { return e.Job.Nodes > 0 }}
	policies := []Policy{
		{Name: "fcfs"},
		{Name: "easy", Backfill: EASY},
		{Name: "easy_exact", Backfill: EASY, Estimate: Exact},
		{Name: "greedy", Backfill: Greedy, Depth: 3},
		{Name: "greedy_deep", Backfill: Greedy, Depth: 1000},
		{Name: "easy_bigfirst", Backfill: EASY, Priority: bigFirst},
		{Name: "easy_sjf", Backfill: EASY, Order: shortFirst},
		{Name: "easy_admit", Backfill: EASY, Admit: anyJob},
		{Name: "greedy_admit_prio", Backfill: Greedy, Depth: 5, Admit: anyJob, Priority: bigFirst},
		{Name: "easy_shutdown", Backfill: EASY, Shutdown: &Shutdown{After: 0}},
		{Name: "easy_shutdown_later", Backfill: EASY, Shutdown: &Shutdown{After: 600}},
	}
	randomCases{seeds: 12, stream: 99, jobs: 800, span: 60}.run(t, policies, func(t *testing.T, _ uint64, jobs []workload.Job, m *Machine, pol *Policy) {
		var got [2]*sim
		for k, full := range []bool{false, true} {
			var opts []simOption
			if full {
				opts = append(opts, fullPasses())
			}
			s, err := simulate(jobs, m, m.Nodes, pol, constPower(len(jobs), 260), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), opts...)
			if err != nil {
				t.Fatal(err)
			}
			got[k] = s
		}
		if !slices.Equal(got[0].start, got[1].start) || !slices.Equal(got[0].led.Energy, got[1].led.Energy) {
			for i := range jobs {
				if got[0].start[i] != got[1].start[i] {
					t.Fatalf("job %d starts at %v with incremental passes, %v with full passes", jobs[i].ID, got[0].start[i], got[1].start[i])
				}
			}
			t.Fatalf("energy differs: %v vs %v", got[0].led.Energy, got[1].led.Energy)
		}
	})
}

// TestDynamicPriorityPath: a time-dependent priority that happens to order
// jobs as the default does (priority job.wait: the longest waiting first,
// i.e. by submit time, ties by trace order) must give exactly the default
// schedule, though it goes through per-pass evaluation and sorting.
func TestDynamicPriorityPath(t *testing.T) {
	waited := &Expr{Source: "job.wait", Deps: DepWait, Fields: FieldWait, Num: func(e *Env) float64 { return e.Job.Wait }}
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 5))
		nodes := 16 + rng.IntN(48)
		var jobs []workload.Job
		tm := 0.0
		for i := range 1500 {
			tm += float64(rng.IntN(3) * 60)
			run := float64(60 * (1 + rng.IntN(30)))
			n := 1 + rng.IntN(nodes/2)
			jobs = append(jobs, workload.Job{ID: int64(i + 1), Submit: tm, Runtime: run, Walltime: 2 * run, Procs: n, Nodes: n})
		}
		for _, bf := range []BackfillKind{NoBackfill, EASY, Greedy} {
			plain := replay(t, jobs, nodes, Policy{Backfill: bf, Depth: 50})
			dyn := replay(t, jobs, nodes, Policy{Backfill: bf, Depth: 50, Priority: waited})
			if !slices.Equal(plain.start, dyn.start) {
				t.Errorf("seed %d, backfill %d: priority job.wait changes the schedule", seed, bf)
			}
		}
	}
}
