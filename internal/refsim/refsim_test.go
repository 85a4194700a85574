package refsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// j builds a job: submit, run time, estimate, nodes.
func j(submit, runtime, estimate float64, nodes int) Job {
	return Job{Submit: submit, Runtime: runtime, Estimate: estimate, Nodes: nodes}
}

// Each case gives the expected start times under both policies, worked by
// hand in the comment. Notation: free = free nodes, S = shadow time, extra =
// extra nodes at S.
var handCases = []struct {
	name       string
	nodes      int
	jobs       []Job
	fcfs, easy []float64
}{
	{name: "empty", nodes: 4, jobs: nil, fcfs: []float64{}, easy: []float64{}},
	{
		// Nothing else on the machine: starts on submission.
		name: "one job", nodes: 4,
		jobs: []Job{j(5, 10, 20, 3)},
		fcfs: []float64{5}, easy: []float64{5},
	},
	{
		// t=0: A, B start (free 0); C (4 nodes) does not fit.
		// FCFS: t=5 B ends (free 2), C still waits; t=10 A ends, C starts;
		//   t=13 C ends, D starts.
		// EASY: t=0 S=10 (B at 5 frees 2, A at 10 frees 2 more), extra 0;
		//   D cannot fit (free 0). t=5 B ends (free 2): S=10, extra 0;
		//   D fits and 5+1 ≤ 10, so it backfills at 5. t=10 C starts.
		name: "every job at t=0", nodes: 4,
		jobs: []Job{j(0, 10, 10, 2), j(0, 5, 5, 2), j(0, 3, 3, 4), j(0, 1, 1, 1)},
		fcfs: []float64{0, 0, 10, 13}, easy: []float64{0, 0, 10, 5},
	},
	{
		// A and B both end at t=10 (B early: estimate 20); L and M arrive at
		// t=10. Both ends are applied before the one pass at 10, so H
		// starts at 10. (A pass after A's end alone would see free 2 and
		// S=20 from B's estimate, backfill K at 10 and delay H.)
		// t=0: A, B start. t=1: H waits (S=20, extra 0), K cannot fit.
		// t=10: free 4, H starts; K waits (free 0). t=15: H ends, K
		//   starts (free 2); L (4) waits.
		// FCFS: stop at L; t=18 K ends, L starts; t=20 L ends, M starts.
		// EASY at 15: S=18 (K's estimate), extra 2+2-4 = 0; M fits and
		//   15+1 ≤ 18, so it backfills at 15. t=18: L starts.
		name: "simultaneous ends and arrivals", nodes: 4,
		jobs: []Job{
			j(0, 10, 10, 2), // A
			j(0, 10, 20, 2), // B
			j(1, 5, 5, 4),   // H
			j(1, 3, 3, 2),   // K
			j(10, 2, 2, 4),  // L
			j(10, 1, 1, 1),  // M
		},
		fcfs: []float64{0, 0, 10, 15, 18, 20}, easy: []float64{0, 0, 10, 15, 18, 15},
	},
	{
		// A is estimated at 100 but ends at 5; its nodes are free at 5,
		// so H starts at 5 under both policies.
		name: "early end frees nodes for the head", nodes: 4,
		jobs: []Job{j(0, 5, 100, 4), j(1, 10, 10, 4)},
		fcfs: []float64{0, 5}, easy: []float64{0, 5},
	},
	{
		// Decisions use the estimate, not the real end. t=0: A starts
		// (free 1). t=1: H (4) waits.
		// FCFS: t=5 A ends, H starts; t=15 K starts.
		// EASY: t=1 S=100 (A's estimate), extra 0; K fits and 1+50 ≤ 100,
		//   so it backfills at 1. A really ends at 5, but K holds a node
		//   until 51, so H starts at 51: still before its shadow time.
		name: "early end after a backfill", nodes: 4,
		jobs: []Job{j(0, 5, 100, 3), j(1, 10, 10, 4), j(1, 50, 50, 1)},
		fcfs: []float64{0, 5, 15}, easy: []float64{0, 51, 1},
	},
	{
		// t=0: A starts (free 2). t=1: H (4) waits, S=10, extra 0.
		// t=2 (EASY): K fits, but 2+20 > 10 and 2 > extra 0: refused.
		// t=10: H starts; t=15: K starts. Same under FCFS.
		name: "backfill refused: would delay the head", nodes: 4,
		jobs: []Job{j(0, 10, 10, 2), j(1, 5, 5, 4), j(2, 20, 20, 2)},
		fcfs: []float64{0, 10, 15}, easy: []float64{0, 10, 15},
	},
	{
		// As above, but K ends exactly at S: 2+8 = 10 ≤ 10, so EASY starts
		// it at 2. At t=10 A's and K's ends are applied before the pass, so
		// H still starts at 10. FCFS: K waits for H, starts at 15.
		name: "backfill allowed: ends exactly at the shadow time", nodes: 4,
		jobs: []Job{j(0, 10, 10, 2), j(1, 5, 5, 4), j(2, 8, 8, 2)},
		fcfs: []float64{0, 10, 15}, easy: []float64{0, 10, 2},
	},
	{
		// t=0: A starts (free 4). t=1: H (6) waits; S=10, extra 4+4-6 = 2.
		// EASY, in queue order: K1 fits, 1+20 > 10 but 2 ≤ extra 2: starts,
		//   extra 0, free 2. K2 fits (1 ≤ 2) but 1+20 > 10 and 1 > extra 0:
		//   refused. K3 fits, 1+9 ≤ 10: starts regardless of extra, free 0.
		//   t=10: A and K3 end, free 6: H starts. t=15: H ends, K2 starts.
		// FCFS: t=10 H starts (free 2), K1 starts (free 0); t=15 H ends
		//   (free 6), K2 and K3 start.
		name: "backfill on extra nodes, then extra used up", nodes: 8,
		jobs: []Job{
			j(0, 10, 10, 4), // A
			j(1, 5, 5, 6),   // H
			j(1, 20, 20, 2), // K1
			j(1, 20, 20, 1), // K2
			j(1, 9, 9, 2),   // K3
		},
		fcfs: []float64{0, 10, 10, 15, 15}, easy: []float64{0, 10, 1, 15, 1},
	},
	{
		// t=0: A, B start (free 2). t=1: H (4) waits. A alone reaches 4
		// nodes at 10, so S=10; B also ends (by estimate) at 10, so extra =
		// 2+3+3-4 = 4, not 1. K (2 nodes, 1+20 > 10) uses extra: starts at
		// 1. t=10: A and B end, free 6 ≥ 4: H starts.
		// FCFS: t=10 H starts (free 2) and K starts too.
		name: "tie of estimated ends at the shadow time", nodes: 8,
		jobs: []Job{j(0, 10, 10, 3), j(0, 10, 10, 3), j(1, 5, 5, 4), j(1, 20, 20, 2)},
		fcfs: []float64{0, 0, 10, 10}, easy: []float64{0, 0, 10, 1},
	},
	{
		// t=0: A starts (free 1); H (2) does not fit.
		// FCFS stops at H though K (1) would fit; t=10: H and K start.
		// EASY: S=10, extra 4-2 = 2; K fits and 0+5 ≤ 10: starts at 0.
		name: "FCFS stops at the first job that does not fit", nodes: 4,
		jobs: []Job{j(0, 10, 10, 3), j(0, 5, 5, 2), j(0, 5, 5, 1)},
		fcfs: []float64{0, 10, 10}, easy: []float64{0, 10, 0},
	},
}

func TestSimulateHandWorked(t *testing.T) {
	for _, c := range handCases {
		for _, p := range []struct {
			policy string
			want   []float64
		}{{"fcfs", c.fcfs}, {"easy", c.easy}} {
			t.Run(c.name+"/"+p.policy, func(t *testing.T) {
				got, err := Simulate(c.jobs, c.nodes, p.policy)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, p.want) {
					t.Fatalf("starts = %v, want %v", got, p.want)
				}
				checkAll(t, c.jobs, got, c.nodes, p.policy)
			})
		}
	}
}

func TestSimulateRejects(t *testing.T) {
	ok := []Job{j(0, 1, 1, 1)}
	cases := []struct {
		name   string
		jobs   []Job
		nodes  int
		policy string
		want   string
	}{
		{"unknown policy", ok, 4, "sjf", "unknown policy"},
		{"no nodes", ok, 0, "fcfs", "machine has 0 nodes"},
		{"wider than machine", []Job{j(0, 1, 1, 5)}, 4, "fcfs", "needs 5 nodes"},
		{"zero nodes", []Job{j(0, 1, 1, 0)}, 4, "easy", "has 0 nodes"},
		{"negative nodes", []Job{j(0, 1, 1, -2)}, 4, "easy", "has -2 nodes"},
		{"zero run time", []Job{j(0, 0, 1, 1)}, 4, "easy", "run time 0"},
		{"estimate below run time", []Job{j(0, 5, 4, 1)}, 4, "easy", "below its run time"},
		{"NaN submit", []Job{j(math.NaN(), 1, 1, 1)}, 4, "easy", "non-finite"},
		{"out of queue order", []Job{j(5, 1, 1, 1), j(4, 1, 1, 1)}, 4, "fcfs", "queue order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Simulate(c.jobs, c.nodes, c.policy)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// sched builds a schedule entry: submit, start, end, estimate, nodes.
func sched(submit, start, end, estimate float64, nodes int) Scheduled {
	return Scheduled{Submit: submit, Start: start, End: end, Estimate: estimate, Nodes: nodes}
}

func TestCheckersCatchBrokenSchedules(t *testing.T) {
	cases := []struct {
		name  string
		check func([]Scheduled) error
		good  []Scheduled
		bad   []Scheduled
		want  string
	}{
		{
			// 3 + 2 nodes overlap during [5, 10) on 4 nodes. Touching
			// intervals are fine: the end at 10 frees before the start.
			name:  "capacity",
			check: func(s []Scheduled) error { return CheckCapacity(s, 4) },
			good:  []Scheduled{sched(0, 0, 10, 10, 4), sched(0, 10, 20, 10, 4), sched(0, 20, 20, 0, 4)},
			bad:   []Scheduled{sched(0, 0, 10, 10, 3), sched(0, 5, 15, 10, 2)},
			want:  "t=5 job 1 starts and 5 nodes",
		},
		{
			name:  "start before submit",
			check: CheckCausality,
			good:  []Scheduled{sched(3, 3, 4, 1, 1)},
			bad:   []Scheduled{sched(3, 2, 4, 2, 1)},
			want:  "before its submission",
		},
		{
			name:  "end before start",
			check: CheckCausality,
			good:  []Scheduled{sched(3, 3, 4, 1, 1)},
			bad:   []Scheduled{sched(3, 5, 4, 1, 1)},
			want:  "before its start",
		},
		{
			name:  "FCFS order",
			check: CheckFCFSOrder,
			good:  []Scheduled{sched(0, 0, 10, 10, 3), sched(0, 10, 15, 5, 2), sched(0, 10, 15, 5, 1)},
			bad:   []Scheduled{sched(0, 0, 10, 10, 3), sched(0, 10, 15, 5, 2), sched(0, 0, 5, 5, 1)},
			want:  "job 2 starts at 0, before job 1 at 10",
		},
		{
			// A (2 nodes, est. end 10); H (4) is head from t=1 with S=10.
			// Bad: K backfilled at 2 for 20 s on A's free nodes, pushing H
			// to 22. At t=2 H's shadow is 22, but at t=1 it was 10.
			name:  "head delayed past its reservation",
			check: func(s []Scheduled) error { return CheckEASYReservation(s, 4) },
			good:  []Scheduled{sched(0, 0, 10, 10, 2), sched(1, 10, 15, 5, 4), sched(2, 15, 35, 20, 2)},
			bad:   []Scheduled{sched(0, 0, 10, 10, 2), sched(1, 22, 27, 5, 4), sched(2, 2, 22, 20, 2)},
			want:  "job 1 is head at t=1 with shadow time 10, but starts at 22",
		},
		{
			// H fits at 10, when A ends, but is left waiting until 12.
			name:  "head not started when it fits",
			check: func(s []Scheduled) error { return CheckEASYReservation(s, 4) },
			good:  []Scheduled{sched(0, 0, 10, 10, 4), sched(10, 10, 12, 2, 4)},
			bad:   []Scheduled{sched(0, 0, 10, 10, 4), sched(10, 12, 14, 2, 4)},
			want:  "job 1 is head at t=10 with shadow time 10, but starts at 12",
		},
		{
			// A and B (3 nodes each) end by estimate at 10, really at 6
			// and 10. H (6 of 8 nodes) needs both: its shadow is 10 from
			// t=1, and still 10 after A's early end at 6 (B's estimate).
			name:  "head reservation after an early end",
			check: func(s []Scheduled) error { return CheckEASYReservation(s, 8) },
			good: []Scheduled{
				sched(0, 0, 6, 10, 3), sched(0, 0, 10, 10, 3), sched(1, 10, 15, 5, 6),
			},
			bad: []Scheduled{
				sched(0, 0, 6, 10, 3), sched(0, 0, 10, 10, 3), sched(1, 11, 16, 5, 6),
			},
			want: "job 2 is head at t=1 with shadow time 10, but starts at 11",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(c.good); err != nil {
				t.Errorf("good schedule rejected: %v", err)
			}
			err := c.check(c.bad)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("bad schedule: err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestCheckersReportFirstFew(t *testing.T) {
	var s []Scheduled
	for i := range 20 {
		s = append(s, sched(100, float64(i), float64(i)+1, 1, 1))
	}
	err := CheckCausality(s)
	if err == nil || !strings.Contains(err.Error(), "20 violation(s)") || strings.Count(err.Error(), "before its submission") != maxReported {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckersOnEmptySchedule(t *testing.T) {
	for _, err := range []error{
		CheckCapacity(nil, 1), CheckCausality(nil), CheckFCFSOrder(nil), CheckEASYReservation(nil, 1),
	} {
		if err != nil {
			t.Error(err)
		}
	}
}

// schedule joins jobs with the start times Simulate gave them.
func schedule(jobs []Job, starts []float64) []Scheduled {
	s := make([]Scheduled, len(jobs))
	for i, jb := range jobs {
		s[i] = Scheduled{Submit: jb.Submit, Start: starts[i], End: starts[i] + jb.Runtime, Estimate: jb.Estimate, Nodes: jb.Nodes}
	}
	return s
}

// checkAll runs every check that applies to policy. The reservation check
// applies to FCFS too: with no backfilling the head starts as soon as enough
// nodes are free, which is never after its shadow time.
func checkAll(t *testing.T, jobs []Job, starts []float64, nodes int, policy string) {
	t.Helper()
	s := schedule(jobs, starts)
	errs := []error{CheckCapacity(s, nodes), CheckCausality(s), CheckEASYReservation(s, nodes)}
	if policy == "fcfs" {
		errs = append(errs, CheckFCFSOrder(s))
	}
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// randomJobs is a seeded synthetic workload offered at about load times the
// machine's capacity. Widths mix small jobs with powers of two up to the
// whole machine; run times are log-uniform from 30 s to 10 h. Times are
// whole multiples of grain, so a coarse grain makes many events coincide.
// With exact estimates, Estimate = Runtime; otherwise it is 1 to 4 times the
// run time, rounded up to 15 minutes the way users request walltimes.
func randomJobs(r *rand.Rand, n, nodes int, load, grain float64, exact bool) []Job {
	roundUp := func(x, step float64) float64 { return math.Ceil(x/step) * step }
	jobs := make([]Job, n)
	work := 0.0
	for i := range jobs {
		w := 1 + r.IntN(min(nodes, 8))
		if r.IntN(3) == 0 {
			w = min(nodes, 1<<r.IntN(1+int(math.Log2(float64(nodes)))))
		}
		run := roundUp(30*math.Exp(r.Float64()*math.Log(1200)), grain)
		est := run
		if !exact {
			est = roundUp(run*(1+3*r.Float64()), 900)
		}
		jobs[i] = Job{Runtime: run, Estimate: est, Nodes: w}
		work += run * float64(w)
	}
	meanGap := work / float64(n) / (float64(nodes) * load)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() * meanGap
		jobs[i].Submit = roundUp(t, grain)
	}
	return jobs
}

func TestSimulateRandomPassesChecks(t *testing.T) {
	for seed := range uint64(3) {
		for _, grain := range []float64{1, 300} {
			for _, exact := range []bool{true, false} {
				for _, policy := range []string{"fcfs", "easy"} {
					name := fmt.Sprintf("seed%d/grain%g/exact=%v/%s", seed, grain, exact, policy)
					t.Run(name, func(t *testing.T) {
						r := rand.New(rand.NewPCG(seed, 42))
						nodes := 64
						jobs := randomJobs(r, 3000, nodes, 0.95, grain, exact)
						starts, err := Simulate(jobs, nodes, policy)
						if err != nil {
							t.Fatal(err)
						}
						checkAll(t, jobs, starts, nodes, policy)
						// Make sure the workload exercises backfilling.
						if policy == "easy" && CheckFCFSOrder(schedule(jobs, starts)) == nil {
							t.Error("EASY schedule never backfilled")
						}
					})
				}
			}
		}
	}
}

// The checkers must also notice corruption of a large realistic schedule,
// not just of hand-made ones.
func TestCheckersCatchPerturbedRandomSchedule(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 42))
	nodes := 64
	jobs := randomJobs(r, 3000, nodes, 0.95, 1, false)
	starts, err := Simulate(jobs, nodes, "easy")
	if err != nil {
		t.Fatal(err)
	}
	// Delay one job that waited (so it was head at some point) well past
	// everything: it was promised a reservation it now misses.
	late := slices.Clone(starts)
	for i := range jobs {
		if starts[i] > jobs[i].Submit {
			late[i] = starts[len(starts)-1] + 1e6
			break
		}
	}
	if err := CheckEASYReservation(schedule(jobs, late), nodes); err == nil {
		t.Error("delayed head not caught")
	}
	// Start every job on submission: the machine overflows.
	eager := make([]float64, len(jobs))
	for i := range jobs {
		eager[i] = jobs[i].Submit
	}
	if err := CheckCapacity(schedule(jobs, eager), nodes); err == nil {
		t.Error("overflow not caught")
	}
}

func BenchmarkSimulate(b *testing.B) {
	for _, n := range []int{30_000, 300_000} {
		for _, policy := range []string{"fcfs", "easy"} {
			b.Run(fmt.Sprintf("%s/%dk", policy, n/1000), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 42))
				nodes := 128
				jobs := randomJobs(r, n, nodes, 0.9, 1, false)
				for b.Loop() {
					if _, err := Simulate(jobs, nodes, policy); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
