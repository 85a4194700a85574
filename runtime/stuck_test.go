package runtime

import (
	"math"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// stuckJobs are four one-node jobs of 100 s on a 4-node machine.
func stuckJobs(widths ...int) []workload.Job {
	var jobs []workload.Job
	for i, w := range widths {
		jobs = append(jobs, workload.Job{ID: int64(101 + i), Submit: float64(10 * i), Runtime: 100, Walltime: 200, Procs: w, Nodes: w})
	}
	return jobs
}

// TestNeverStartedNamesTheStage: when jobs can never start, the error says
// which stage refuses them, how many, and gives an example job; it never
// blames a stage the policy does not have.
func TestNeverStartedNamesTheStage(t *testing.T) {
	narrow := &Expr{Source: "job.nodes   <\n 2", Where: "f.pwr:3:9", Deps: DepJob, Fields: FieldNodes,
		Bool: func(e *Env) bool { return e.Job.Nodes < 2 }}
	never := &Expr{Source: "now.hour > 25", Where: "f.pwr:4:9", Deps: DepNow,
		Bool: func(e *Env) bool { return e.Now.Hour > 25 }}
	noValue := &Expr{Source: "job.nodes - 2", Where: "f.pwr:5:9", Deps: DepJob, Fields: FieldNodes,
		Num: func(e *Env) float64 { return float64(e.Job.Nodes - 2) }}
	nanWeight := &Expr{Source: "0/0", Where: "f.pwr:6:9", Deps: DepJob,
		Num: func(e *Env) float64 { return math.NaN() }}
	pwOf := func(ws ...float64) []float64 { return ws }
	tests := []struct {
		name   string
		jobs   []workload.Job
		pol    Policy
		pw     []float64 // W per node
		budget float64
		want   []string // in the error, in order
		not    []string
	}{
		{
			name:   "budget below every job",
			jobs:   stuckJobs(1, 2, 1),
			pol:    Policy{Backfill: EASY, Budget: &Budget{Power: 50}},
			pw:     pwOf(300, 100, 260),
			budget: 50,
			want:   []string{"3 jobs never started, and nothing else is left to happen: 3 weigh more than the whole power budget, 50 W: the lightest of them, job 102, weighs 200 W"},
			not:    []string{"admit"},
		},
		{
			name:   "budget of zero",
			jobs:   stuckJobs(1),
			pol:    Policy{Budget: &Budget{Power: 0}},
			pw:     pwOf(1500),
			budget: 0,
			want:   []string{"1 job never started", "1 weighs more than the whole power budget, 0 W: the lightest of them, job 101, weighs 1.5 kW"},
		},
		{
			name:   "admit rule",
			jobs:   stuckJobs(1, 2, 3, 1),
			pol:    Policy{Backfill: EASY, Admit: narrow},
			pw:     pwOf(100, 100, 100, 100),
			budget: math.Inf(1),
			want:   []string{"2 jobs never started, and nothing else is left to happen: 2 are refused by the admit rule `job.nodes < 2` (f.pwr:3:9), e.g. job 102"},
			not:    []string{"budget"},
		},
		{
			name:   "budget, admit rule and a queue without backfilling",
			jobs:   stuckJobs(1, 2, 1, 1),
			pol:    Policy{Admit: narrow, Budget: &Budget{Power: 150}},
			pw:     pwOf(100, 100, 200, 100),
			budget: 150,
			want: []string{"3 jobs never started",
				"1 is refused by the admit rule `job.nodes < 2` (f.pwr:3:9), e.g. job 102",
				"1 weighs more than the whole power budget, 150 W: the lightest of them, job 103, weighs 200 W",
				"1 waits behind those in the queue, which a policy without backfilling does not get past, e.g. job 104"},
		},
		{
			name:   "greedy backfilling gives up",
			jobs:   stuckJobs(1, 1, 1, 1),
			pol:    Policy{Backfill: Greedy, Depth: 1, Budget: &Budget{Power: 150}},
			pw:     pwOf(200, 200, 200, 100),
			budget: 150,
			want:   []string{"3 weigh more than the whole power budget", "1 waits behind those in the queue, which greedy backfilling (depth 1) does not get past, e.g. job 104"},
		},
		{
			name:   "knapsack values",
			jobs:   stuckJobs(1, 2, 3),
			pol:    Policy{Select: SelectKnapsack, Window: 2, Value: noValue, Budget: &Budget{Power: 1e6}},
			pw:     pwOf(100, 100, 100),
			budget: 1e6,
			want: []string{"3 jobs never started", "2 have no value for the knapsack, which never picks a job whose value is 0 or less (or not a number): its value rule `job.nodes - 2` (f.pwr:5:9) gives that, e.g. for job 101",
				"1 waits behind those in the queue"}, // outside the window the others fill
		},
		{
			// Found by FuzzRun: a lone job's wait is 0 when it arrives,
			// and nothing else happens to make it grow.
			name:   "a rule on job.wait and nothing left to happen",
			jobs:   stuckJobs(1),
			pol:    Policy{Admit: &Expr{Source: "job.wait > 60", Where: "f.pwr:8:9", Deps: DepWait, Fields: FieldWait, Bool: func(e *Env) bool { return e.Job.Wait > 60 }}},
			pw:     pwOf(100),
			budget: math.Inf(1),
			want:   []string{"1 is refused by the admit rule `job.wait > 60` (f.pwr:8:9), e.g. job 101 (the rule reads job.wait, which pwrc re-reads only when something happens"},
		},
		{
			name:   "weight NaN",
			jobs:   stuckJobs(1),
			pol:    Policy{Weight: nanWeight, Budget: &Budget{Power: 1e6}},
			pw:     pwOf(100),
			budget: 1e6,
			want:   []string{"the lightest of them, job 101, has no finite weight (its weight rule gives NaN)"},
		},
		{
			name:   "a budget while a rule",
			jobs:   stuckJobs(2),
			pol:    Policy{Budget: &Budget{Power: 1e3, When: BudgetWhile, While: &Expr{Source: "true", Where: "f.pwr:7:20", Bool: func(*Env) bool { return true }}}},
			pw:     pwOf(800),
			budget: 1e3,
			want:   []string{"1 weighs more than the whole power budget, 1 kW while `true` (f.pwr:7:20): the lightest of them, job 101, weighs 1.6 kW"},
		},
		{
			name:   "a rule on the clock: nothing happens for years",
			jobs:   stuckJobs(1, 1),
			pol:    Policy{Admit: never},
			pw:     pwOf(100, 100),
			budget: math.Inf(1),
			want:   []string{"2 jobs never started: nothing happened for 7300 days: 2 are refused by the admit rule `now.hour > 25` (f.pwr:4:9), e.g. job 101"},
		},
		{
			name:   "wider than the machine in contiguous units",
			jobs:   stuckJobs(1, 3, 4, 2, 4),
			pol:    Policy{Contiguous: 3},
			pw:     pwOf(100, 100, 100, 100, 100),
			budget: math.Inf(1),
			want:   []string{"2 jobs can never start: in whole units of 3 nodes (allocate contiguous 3) they need more than the machine's 4 nodes, e.g. job 103 needs 4 nodes, 6 in units; give the machine a multiple of 3 nodes"},
		},
		{
			name:   "wider than the machine",
			jobs:   stuckJobs(1, 5),
			pol:    Policy{},
			pw:     pwOf(100, 100),
			budget: math.Inf(1),
			want:   []string{"1 job can never start: it needs more nodes than the machine's 4, e.g. job 102 needs 5"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testMachine(4)
			pol := tc.pol
			_, err := simulate(tc.jobs, &m, 4, &pol, tc.pw, tc.budget, tariff.Clock{}, tariff.Flat(0.1))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error lacks %q (in order):\n%s", w, msg)
				}
				at += i + len(w)
			}
			for _, w := range tc.not {
				if strings.Contains(msg, w) {
					t.Errorf("error mentions %q:\n%s", w, msg)
				}
			}
		})
	}
}
