package runtime

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/internal/refsim"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// randomPower gives each job a power per node in [100, 400) W.
func randomPower(rng *rand.Rand, n int) []float64 {
	pw := make([]float64, n)
	for i := range pw {
		pw[i] = 100 + 300*rng.Float64()
	}
	return pw
}

func budgetRun(t *testing.T, jobs []workload.Job, nodes int, pol Policy, pw []float64, budget float64, tar tariff.Tariff) *sim {
	t.Helper()
	m := testMachine(nodes)
	s, err := simulate(jobs, &m, nodes, &pol, pw, budget, tariff.Clock{}, tar)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A budget that never binds must leave the base policy's schedule exactly
// as it is: the budgeted pass (with in-order selection) reduces to FCFS,
// EASY and greedy backfilling, which tests the budgeted code path against
// the plain one, itself checked against refsim.
func TestBudgetThatNeverBindsChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	bases := map[string]Policy{
		"fcfs":   {Backfill: NoBackfill},
		"easy":   {Backfill: EASY},
		"greedy": {Backfill: Greedy, Depth: 3},
	}
	for name, base := range bases {
		for iter := range 30 {
			nodes := 4 + rng.IntN(60)
			jobs := randomJobs(rng, 300, nodes, 10)
			pw := randomPower(rng, len(jobs))
			plain := budgetRun(t, jobs, nodes, base, pw, math.Inf(1), tariff.Flat(0.1))
			pol := base
			pol.Budget = &Budget{Power: 1e15, When: BudgetAlways}
			if iter%2 == 1 {
				pol.Contiguous = 1 // no effect either
			}
			budgeted := budgetRun(t, jobs, nodes, pol, pw, 1e15, tariff.Flat(0.1))
			for i := range jobs {
				if plain.start[i] != budgeted.start[i] {
					t.Fatalf("%s #%d: job %d starts at %g under a loose budget, %g without", name, iter, jobs[i].ID, budgeted.start[i], plain.start[i])
				}
			}
		}
	}
}

// powerAt is the power of the jobs running at instant t (started by t,
// ending after).
func powerAt(s *sim, t float64) float64 {
	var p float64
	for i := range s.jobs {
		if s.start[i] <= t && s.end[i] > t {
			p += s.jw[i]
		}
	}
	return p
}

// Under a budget, every job that starts while it applies leaves the power
// of the running jobs within it, whatever the selection and backfilling;
// the schedule stays valid (capacity on allocated nodes, causality), all
// jobs run, and the knapsack never starts fewer nodes in a pass than it
// could have by taking its window's jobs in order.
func TestBudgetIsNeverExceeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	peak := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 23 * 3600}}, 0.3, 0.1)
	for iter := range 120 {
		nodes := 8 + rng.IntN(56)
		jobs := randomJobs(rng, 250, nodes, 600)
		pw := randomPower(rng, len(jobs))
		pol := Policy{
			Backfill:   []BackfillKind{NoBackfill, EASY, Greedy}[iter%3],
			Depth:      5,
			Select:     []SelectKind{SelectInOrder, SelectKnapsack}[iter/3%2],
			Window:     1 + rng.IntN(12),
			Contiguous: []int{0, 2, 4}[iter/6%3],
		}
		if pol.Contiguous > 0 {
			nodes = nodes / pol.Contiguous * pol.Contiguous
		}
		// Between the lightest job and about half the machine's busy power.
		budget := float64(nodes) * 250 * (0.2 + 0.5*rng.Float64())
		var tar tariff.Tariff = tariff.Flat(0.1)
		pol.Budget = &Budget{Power: budget, When: BudgetAlways}
		if iter%2 == 1 {
			pol.Budget.When, tar = BudgetDuringPeak, peak
		}
		// Jobs heavier than the budget could never start under BudgetAlways.
		jobs = slices.DeleteFunc(jobs, func(j workload.Job) bool {
			a := (j.Nodes + max(1, pol.Contiguous) - 1) / max(1, pol.Contiguous) * max(1, pol.Contiguous)
			return a > nodes || float64(a)*400 > budget
		})
		for i := range jobs {
			jobs[i].ID = int64(i + 1)
		}
		pw = pw[:len(jobs)]
		s := budgetRun(t, jobs, nodes, pol, pw, budget, tar)
		applies := func(tm float64) bool {
			if pol.Budget.When == BudgetAlways {
				return true
			}
			_, period, _ := tar.At(tm)
			return period == tariff.Peak
		}
		sched := make([]refsim.Scheduled, len(jobs))
		for i, j := range jobs {
			if s.status[i] != 1 {
				t.Fatalf("#%d: job %d never started", iter, j.ID)
			}
			sched[i] = refsim.Scheduled{Submit: j.Submit, Start: s.start[i], End: s.end[i], Estimate: s.est[i], Nodes: int(s.alloc[i])}
			if applies(s.start[i]) {
				if p := powerAt(s, s.start[i]); p > budget*(1+1e-9) {
					t.Fatalf("#%d %+v: at %g, when job %d starts, jobs draw %g W over the budget %g W", iter, pol, s.start[i], j.ID, p, budget)
				}
			}
		}
		if err := refsim.CheckCapacity(sched, nodes); err != nil {
			t.Fatalf("#%d: %v", iter, err)
		}
		if err := refsim.CheckCausality(sched); err != nil {
			t.Fatalf("#%d: %v", iter, err)
		}
	}
}

// Zhou et al.'s Fig. 1, with the numbers of the knapsack package's worked
// example: a 9-node machine, a 150 W budget, five jobs queued at once.
//
//	job  nodes  power
//	J1   4      75 W
//	J2   4      65 W
//	J3   2      40 W
//	J4   3      55 W
//	J5   4      50 W
//
// In order, J1 and J2 start (8 nodes, 140 W) and J3 does not fit in the
// last node. The knapsack over a window of 5 starts J3, J4 and J5 instead:
// 9 nodes, 145 W. J1 and J2 then wait for them to end.
func TestZhouFig1(t *testing.T) {
	nodes := []int{4, 4, 2, 3, 4}
	watts := []float64{75, 65, 40, 55, 50}
	var jobs []workload.Job
	var pw []float64
	for i, n := range nodes {
		jobs = append(jobs, workload.Job{ID: int64(i + 1), Runtime: 100, Walltime: 100, Procs: n, Nodes: n})
		pw = append(pw, watts[i]/float64(n))
	}
	started := func(s *sim) []int64 {
		var ids []int64
		for i, j := range jobs {
			if s.start[i] == 0 {
				ids = append(ids, j.ID)
			}
		}
		return ids
	}
	for _, tc := range []struct {
		sel  SelectKind
		want []int64
	}{{SelectInOrder, []int64{1, 2}}, {SelectKnapsack, []int64{3, 4, 5}}} {
		pol := Policy{Backfill: EASY, Select: tc.sel, Window: 5, Budget: &Budget{Power: 150, When: BudgetAlways}}
		m := Machine{Name: "atom", Nodes: 9, Cores: 1, Power: NodePower{Idle: 10, Busy: 20}}
		s, err := simulate(jobs, &m, 9, &pol, pw, 150, tariff.Clock{}, tariff.Flat(0.1))
		if err != nil {
			t.Fatal(err)
		}
		if got := started(s); !slices.Equal(got, tc.want) {
			t.Errorf("select %d: jobs started at 0: %v, want %v", tc.sel, got, tc.want)
		}
	}
}

// A contiguous allocation rounds a job up to whole units: the leftover
// nodes are held by the job, draw idle power, count in utilization but not
// in work, and the energy still balances.
func TestContiguousAllocation(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Procs: 3, Nodes: 3},
		{ID: 2, Submit: 0, Runtime: 100, Walltime: 100, Procs: 2, Nodes: 2},
		{ID: 3, Submit: 0, Runtime: 50, Walltime: 50, Procs: 1, Nodes: 1},
	}
	m := Machine{Name: "bgp", Nodes: 8, Cores: 1, Power: NodePower{Idle: 10, Busy: 30}}
	pol := Policy{Backfill: EASY, Contiguous: 4}
	s, err := simulate(jobs, &m, 8, &pol, constPower(3, 30), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	// Jobs 1 and 2 take a 4-node unit each; job 3 waits for job 1 or 2.
	if want := []float64{0, 0, 100}; !slices.Equal(s.start, want) {
		t.Fatalf("starts %v, want %v", s.start, want)
	}
	if s.jw[0] != 3*30+10 || s.jw[1] != 2*30+2*10 || s.jw[2] != 30+3*10 {
		t.Fatalf("job powers %v", s.jw)
	}
	m2 := s.record().metrics()
	// Span 150 s: allocated 4+4 nodes for 100 s, then 4 for 50 s.
	if got, want := m2.BusyNodeHours*3600, 8*100.0+4*50; got != want {
		t.Errorf("allocated node-seconds %g, want %g", got, want)
	}
	if got, want := m2.WorkNodeHours*3600, 3*100.0+2*100+1*50; got != want {
		t.Errorf("work node-seconds %g, want %g", got, want)
	}
	// Busy: (100+80)·100 + 60·50 J; idle: 4 free nodes ·10 W for 50 s.
	if got, want := m2.EnergyBy[compBusy], 180*100.0+60*50; got != want {
		t.Errorf("busy energy %g, want %g", got, want)
	}
	if got, want := m2.EnergyBy[compIdle], 4*10*50.0; got != want {
		t.Errorf("idle energy %g, want %g", got, want)
	}
	wide := []workload.Job{{ID: 1, Runtime: 1, Walltime: 1, Procs: 5, Nodes: 5}}
	if _, err := simulate(wide, &Machine{Nodes: 6, Cores: 1}, 6, &Policy{Contiguous: 4}, constPower(1, 30), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1)); err == nil {
		t.Error("a 5-node job takes 8 nodes in units of 4, more than the machine's 6; want an error")
	}
}

func TestInversePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for iter := range 500 {
		n := rng.IntN(40)
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = float64(rng.IntN(8)), float64(rng.IntN(8)) // many ties
		}
		var want int64
		for i := range n {
			for k := range n {
				if a[i] < a[k] && b[i] > b[k] {
					want++
				}
			}
		}
		if got := inversePairs(a, startOrder(a), b); got != want {
			t.Fatalf("#%d %v %v: %d inverse pairs, want %d", iter, a, b, got, want)
		}
	}
	base := []float64{1, 2, 3}
	if got := inversePairs(base, startOrder(base), []float64{3, 2, 1}); got != 3 {
		t.Errorf("a reversed order has 3 inverse pairs, got %d", got)
	}
}

// The profile by hour of day partitions the run: its seconds, energy and
// node-seconds add up to the run's.
func TestHourProfileAddsUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	jobs := randomJobs(rng, 400, 32, 900)
	loc, err := tariff.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	clock := tariff.Clock{Epoch: 1711846800 - 6*3600, Loc: loc} // a DST change in the run
	m := testMachine(32)
	pol := Policy{Backfill: EASY}
	s, err := simulate(jobs, &m, 32, &pol, constPower(len(jobs), 260), math.Inf(1), clock, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	mt := s.record().metrics()
	var sec, e, ns float64
	for _, h := range mt.Hours {
		sec += h.Seconds
		e += h.Energy
		ns += h.NodeSeconds
	}
	span := mt.RunDays * 86400
	if math.Abs(sec-span) > 1e-6*span || math.Abs(e-mt.Energy) > 1e-9*mt.Energy || math.Abs(ns-mt.BusyNodeHours*3600) > 1e-9*ns {
		t.Errorf("hours: %g s, %g J, %g node-s; run: %g s, %g J, %g node-s", sec, e, ns, span, mt.Energy, mt.BusyNodeHours*3600)
	}
}

// Zhou et al.'s claims, on a real trace (HPC2N, with job power drawn per
// job): under a budget of 50% of EASY's mean job power during peak hours,
// the jobs governed by the budget (started while it applied) never draw
// more than it, so their on-peak mean stays within it (jobs started before
// the peak window are the only excess); power moves to off-peak hours; the
// same work is done; and the saving grows with the pricing ratio.
func TestZhouOnRealTrace(t *testing.T) {
	jobs, nodes := loadTrace(t, "HPC2N-2002-2.1-cln.swf.gz")
	m := Machine{Name: "hpc2n", Nodes: nodes, Cores: 1, Power: NodePower{Idle: 50, Busy: 200}}
	pw := jobPowers(jobs, JobPower{Kind: NormalPower, PerNodes: 1, Mean: 200, SD: 40, Lo: 100, Hi: 350, Seed: 7}, &m, nil)
	run := func(pol Policy, budget float64, ratio float64) (*sim, Metrics) {
		tar := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 23 * 3600}}, 0.05*ratio, 0.05)
		s, err := simulate(jobs, &m, nodes, &pol, pw, budget, tariff.Clock{}, tar)
		if err != nil {
			t.Fatal(err)
		}
		return s, s.record().metrics()
	}
	_, base := run(Policy{Backfill: EASY}, math.Inf(1), 3)
	budget := 0.5 * base.JobPowerMean
	zhou := Policy{Backfill: EASY, Select: SelectKnapsack, Window: 10, Budget: &Budget{OfBaseline: 0.5, When: BudgetDuringPeak}}
	var savings []float64
	for _, ratio := range []float64{3, 4, 5} {
		s, got := run(zhou, budget, ratio)
		// Energy in peak hours of the jobs started off-peak.
		var carried float64
		for i := range jobs {
			if _, p, _ := s.tar.At(s.start[i]); p == tariff.Peak {
				continue
			}
			for x := s.start[i]; x < s.end[i]; {
				_, p, next := s.tar.At(x)
				next = math.Min(next, s.end[i])
				if p == tariff.Peak {
					carried += s.jw[i] * (next - x)
				}
				x = next
			}
		}
		peakSeconds := got.Periods[tariff.Peak].Seconds
		governed := (got.Periods[tariff.Peak].JobEnergy - carried) / peakSeconds
		if governed > budget*(1+1e-9) {
			t.Errorf("ratio %g: jobs started on-peak draw %.0f W on average on-peak, over the budget %.0f W", ratio, governed, budget)
		}
		t.Logf("ratio %g: budget %.0f W; on-peak job power %.0f W (%.0f W from jobs started on-peak, %.0f W carried over); off-peak %.0f W (EASY: %.0f W)",
			ratio, budget, got.JobPowerPeak, governed, got.JobPowerPeak-governed, got.JobPowerOffPeak, base.JobPowerOffPeak)
		if got.JobPowerOffPeak <= base.JobPowerOffPeak {
			t.Errorf("ratio %g: off-peak job power %.0f W, not above EASY's %.0f W", ratio, got.JobPowerOffPeak, base.JobPowerOffPeak)
		}
		if got.JobPowerPeak >= base.JobPowerPeak {
			t.Errorf("ratio %g: on-peak job power %.0f W, not below EASY's %.0f W", ratio, got.JobPowerPeak, base.JobPowerPeak)
		}
		if got.WorkNodeHours != base.WorkNodeHours || got.Jobs != base.Jobs {
			t.Errorf("ratio %g: work %g node-h in %d jobs, EASY %g in %d", ratio, got.WorkNodeHours, got.Jobs, base.WorkNodeHours, base.Jobs)
		}
		_, b := run(Policy{Backfill: EASY}, math.Inf(1), ratio)
		savings = append(savings, 100*(b.JobCost()-got.JobCost())/b.JobCost())
	}
	t.Logf("jobs' savings at ratios 3, 4, 5: %.1f%%", savings)
	if !(0 < savings[0] && savings[0] < savings[1] && savings[1] < savings[2]) {
		t.Errorf("jobs' savings %v %% should be positive and grow with the pricing ratio", savings)
	}
}
