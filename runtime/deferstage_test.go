package runtime

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// hourlyFrom is an hourly price series from t = 0 (UTC): prices, then
// the last one for two days more (the series repeats after its end).
func hourlyFrom(prices ...float64) tariff.Tariff {
	p := slices.Clone(prices)
	for range 48 {
		p = append(p, prices[len(prices)-1])
	}
	return tariff.Hourly(tariff.Clock{Loc: time.UTC}, &tariff.Series{Name: "p", Prices: p}, time.Unix(0, 0).UTC())
}

func deferPolicy(h float64, then DeferThen, deadline float64) Policy {
	return Policy{Name: "pa", Shutdown: &Shutdown{After: 0},
		Defer: &Defer{Lookahead: h * 3600, Runtime: Exact, Then: then, Deadline: deadline, PreferNow: 0.001}}
}

func runDefer(t *testing.T, jobs []workload.Job, m Machine, pol Policy, pw float64, tar tariff.Tariff) *sim {
	t.Helper()
	s, err := simulate(jobs, &m, m.Nodes, &pol, constPower(len(jobs), pw), math.Inf(1), tariff.Clock{Loc: time.UTC}, tar)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeferExampleA is kunkel.md §2.7 example A: A (2 nodes, 1 h) waits
// for the cheap third hour; B (1 node, 30 min), behind it under FIFO,
// starts with it, since now is then the cheapest.
func TestDeferExampleA(t *testing.T) {
	m := Machine{Name: "m", Nodes: 4, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 400}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 3600, Walltime: 3600, Nodes: 2, Procs: 2},
		{ID: 2, Submit: 0, Runtime: 1800, Walltime: 1800, Nodes: 1, Procs: 1},
	}
	tar := hourlyFrom(0.30, 0.20, 0.10, 0.10, 0.40, 0.40)
	for _, then := range []DeferThen{DeferCommit, DeferRecompute, DeferRecomputeOnEnds} {
		s := runDefer(t, jobs, m, deferPolicy(6, then, 0), 300, tar)
		if want := []float64{7200, 7200}; !slices.Equal(s.start, want) {
			t.Errorf("then %s: starts %v, want %v", DeferThenNames[then], s.start, want)
		}
		r := s.record().metrics()
		if !r.HasDefer || r.DeferredJobs != 1 || r.DeferralHours != 2 || r.DeferDecisions < 2 {
			t.Errorf("then %s: deferred %d jobs for %v h in %d decisions, want 1 job, 2 h, ≥ 2 decisions",
				DeferThenNames[then], r.DeferredJobs, r.DeferralHours, r.DeferDecisions)
		}
	}
}

// TestDeferExampleB is §2.7 example B (the paper's Fig. 6): price-aware
// starts make both jobs later and their energy dearer than FIFO.
func TestDeferExampleB(t *testing.T) {
	m := Machine{Name: "m", Nodes: 1, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 20}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1},
		{ID: 2, Submit: 0, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1},
	}
	tar := hourlyFrom(0.30, 0.25, 0.20, 0.15, 0.50)
	fifo := runDefer(t, jobs, m, Policy{Name: "fifo", Shutdown: &Shutdown{After: 0}}, 300, tar)
	pa := runDefer(t, jobs, m, deferPolicy(6, DeferCommit, 0), 300, tar)
	if want := []float64{0, 3600}; !slices.Equal(fifo.start, want) {
		t.Errorf("FIFO starts %v, want %v", fifo.start, want)
	}
	if want := []float64{3 * 3600, 4 * 3600}; !slices.Equal(pa.start, want) {
		t.Errorf("PriceAware starts %v, want %v", pa.start, want)
	}
	// The jobs' energy cost: 0.3 kWh per job-hour at the hours' prices.
	jobsCost := func(s *sim) float64 {
		c := 0.0
		for _, st := range s.start {
			c += 0.3 * tariff.Integral(tar, st, st+3600) / 3600
		}
		return c
	}
	if got := jobsCost(fifo); math.Abs(got-0.165) > 1e-12 {
		t.Errorf("FIFO jobs' cost %v, want 0.165", got)
	}
	if got := jobsCost(pa); math.Abs(got-0.195) > 1e-12 {
		t.Errorf("PriceAware jobs' cost %v, want 0.195", got)
	}
}

// TestDeferDeadline is §2.7 example C: a job that has waited longer than
// the deadline starts at once whatever the prices; without the deadline
// the same job is deferred.
func TestDeferDeadline(t *testing.T) {
	m := Machine{Name: "m", Nodes: 1, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 20}
	jobs := []workload.Job{
		// Too long for a 6 h window (⌊7⌋ + 2 ≥ 6): starts now.
		{ID: 1, Submit: 0, Runtime: 7 * 3600, Walltime: 7 * 3600, Nodes: 1, Procs: 1},
		{ID: 2, Submit: 0, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1},
	}
	prices := make([]float64, 12)
	for i := range prices {
		prices[i] = 0.40
	}
	prices[9] = 0.05 // cheap two hours after job 2 could start
	tar := hourlyFrom(prices...)
	with := runDefer(t, jobs, m, deferPolicy(6, DeferRecompute, 6*3600), 300, tar)
	if want := []float64{0, 7 * 3600}; !slices.Equal(with.start, want) {
		t.Errorf("with a 6 h deadline: starts %v, want %v", with.start, want)
	}
	if r := with.record().metrics(); r.DeadlineStarts != 1 || r.DeferredJobs != 0 {
		t.Errorf("with a 6 h deadline: %d deadline starts, %d deferred jobs; want 1, 0", r.DeadlineStarts, r.DeferredJobs)
	}
	without := runDefer(t, jobs, m, deferPolicy(6, DeferRecompute, 0), 300, tar)
	if want := []float64{0, 9 * 3600}; !slices.Equal(without.start, want) {
		t.Errorf("without a deadline: starts %v, want %v", without.start, want)
	}
}

// TestDeferFlatPriceNeverDefers: under a flat price starting now always
// wins (the 0.1 % preference), so every variant gives FIFO with shutdown's
// schedule and energy exactly.
func TestDeferFlatPriceNeverDefers(t *testing.T) {
	m := Machine{Name: "m", Power: NodePower{Idle: 70, Busy: 260}, Infrastructure: 1000}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 21))
		m.Nodes = 8 + rng.IntN(40)
		jobs := randomJobs(rng, 600, m.Nodes, 60)
		base := runDefer(t, jobs, m, Policy{Name: "fifo", Shutdown: &Shutdown{After: 0}}, 260, tariff.Flat(0.145))
		for _, then := range []DeferThen{DeferCommit, DeferRecompute, DeferRecomputeOnEnds} {
			s := runDefer(t, jobs, m, deferPolicy(24, then, 24*3600), 260, tariff.Flat(0.145))
			if !slices.Equal(s.start, base.start) || !slices.Equal(s.led.Energy, base.led.Energy) {
				t.Fatalf("seed %d, then %s: a flat price changed the schedule", seed, DeferThenNames[then])
			}
			if r := s.record().metrics(); r.DeferredJobs != 0 || r.DeferDecisions == 0 {
				t.Errorf("seed %d, then %s: %d deferred jobs in %d decisions", seed, DeferThenNames[then], r.DeferredJobs, r.DeferDecisions)
			}
		}
	}
}

// TestDeferCommitments checks what each commitment does to the passes on
// one story. Job 1 starts at once (its half hour now costs less than
// waiting for hour 3); job 2 fits when job 1 ends at 30 min and is
// deferred to 3 h; job 3 arrives at 1.5 h behind it; job 4 arrives at
// 3:20. Starts are the same under every commitment; the decisions differ:
// commit decides at 0 and 30 min and starts job 2 at 3 h undecided;
// recompute decides again on job 3's arrival and at 3 h; recompute_on_ends
// ignores the arrival.
func TestDeferCommitments(t *testing.T) {
	m := Machine{Name: "m", Nodes: 2, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 40}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 1800, Walltime: 1800, Nodes: 1, Procs: 1},
		{ID: 2, Submit: 60, Runtime: 3600, Walltime: 3600, Nodes: 2, Procs: 2},
		{ID: 3, Submit: 5400, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1},
		{ID: 4, Submit: 12000, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1},
	}
	tar := hourlyFrom(0.10, 0.40, 0.35, 0.05, 0.50)
	want := []float64{0, 10800, 14400, 14400}
	for then, decisions := range map[DeferThen]int{DeferCommit: 4, DeferRecompute: 6, DeferRecomputeOnEnds: 5} {
		s := runDefer(t, jobs, m, deferPolicy(6, then, 0), 300, tar)
		if !slices.Equal(s.start, want) {
			t.Errorf("then %s: starts %v, want %v", DeferThenNames[then], s.start, want)
		}
		r := s.record().metrics()
		if r.DeferDecisions != decisions || r.DeferredJobs != 1 || r.DeferralHours != 2.5 {
			t.Errorf("then %s: %d decisions, %d deferred jobs, %v h; want %d, 1, 2.5 h",
				DeferThenNames[then], r.DeferDecisions, r.DeferredJobs, r.DeferralHours, decisions)
		}
	}
}

// TestDeferHourStartAcrossDST: the window starts at the start of the
// local hour now is in, also in the hour that the return from summer time
// repeats (Berlin, 2011-10-30: 02:00–03:00 twice). Counting from a
// wall-clock date would give the twin hour, after now, for the first.
func TestDeferHourStartAcrossDST(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	s := &sim{clock: tariff.Clock{Epoch: time.Date(2011, 10, 30, 0, 0, 0, 0, time.UTC).Unix(), Loc: loc}}
	for _, c := range []struct{ now, want float64 }{
		{1800, 0},           // 02:30 CEST
		{3600 + 1800, 3600}, // 02:30 CET, an hour later
		{3600, 3600},        // 02:00 CET exactly
		{2*3600 + 59, 2 * 3600},
	} {
		if got := hourStart(s.clock, c.now); got != c.want {
			t.Errorf("hour start of %v s: %v, want %v", c.now, got, c.want)
		}
	}
}

// TestBackfillDelayVsEASY is kunkel.md §2.8 (acceptance check 7): on 4
// nodes, J1 (submit 0, 3 nodes, 100 s), J2 (10, 4, 50), J3 (20, 1, 200).
// BackfillDelay (greedy first fit, `backfill greedy depth 1000`) starts J3
// on the free node at once, delaying the head J2 to 220 (waits 0/210/0);
// EASY refuses J3 (it would end after J2's shadow time 100 with no extra
// nodes), so J2 starts at 100 and J3 at 150 (waits 0/90/130). Estimates
// are the run times (the paper has none).
func TestBackfillDelayVsEASY(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Nodes: 3, Procs: 3},
		{ID: 2, Submit: 10, Runtime: 50, Walltime: 50, Nodes: 4, Procs: 4},
		{ID: 3, Submit: 20, Runtime: 200, Walltime: 200, Nodes: 1, Procs: 1},
	}
	m := Machine{Name: "m", Nodes: 4, Power: NodePower{Idle: 70, Busy: 260}}
	for _, tc := range []struct {
		name          string
		pol           Policy
		starts, waits []float64
	}{
		{"backfill_delay", Policy{Name: "backfill_delay", Backfill: Greedy, Depth: 1000}, []float64{0, 220, 20}, []float64{0, 210, 0}},
		{"easy", Policy{Name: "easy", Backfill: EASY}, []float64{0, 100, 150}, []float64{0, 90, 130}},
		{"easy, exact estimates", Policy{Name: "easy", Backfill: EASY, Estimate: Exact}, []float64{0, 100, 150}, []float64{0, 90, 130}},
	} {
		s := runDefer(t, jobs, m, tc.pol, 260, tariff.Flat(0.145))
		var waits []float64
		for i, j := range jobs {
			waits = append(waits, s.start[i]-j.Submit)
		}
		if !slices.Equal(s.start, tc.starts) || !slices.Equal(waits, tc.waits) {
			t.Errorf("%s: starts %v, waits %v; want %v and %v", tc.name, s.start, waits, tc.starts, tc.waits)
		}
	}
}

// TestDeferRuntimeRequested: `runtime requested` plans with the walltime,
// `exact` (the paper) with the run time. One node (P_w 20 W, running
// 320 W), prices 0.30, 0.10, 0.50, 0.50, 0.20, … and a job of 1 h asking
// for 2 h, look-ahead 8 h. Exact: 1 h at 0.10 after an hour's wait costs
// 0.038 € — less than now (0.0959) or 4 h (0.092): it starts at 1 h.
// Requested: 2 h from 1 h would cross the 0.50 hour (0.198), from 4 h cost
// 0.156, from now 0.128 × 0.999: it starts now.
func TestDeferRuntimeRequested(t *testing.T) {
	m := Machine{Name: "m", Nodes: 1, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 20}
	jobs := []workload.Job{{ID: 1, Submit: 0, Runtime: 3600, Walltime: 7200, Nodes: 1, Procs: 1}}
	tar := hourlyFrom(0.30, 0.10, 0.50, 0.50, 0.20, 0.20, 0.40)
	for _, tc := range []struct {
		kind  EstimateKind
		start float64
	}{{Exact, 3600}, {Requested, 0}} {
		pol := deferPolicy(8, DeferCommit, 0)
		pol.Defer.Runtime = tc.kind
		if s := runDefer(t, jobs, m, pol, 300, tar); s.start[0] != tc.start {
			t.Errorf("runtime %v: starts at %v, want %v", tc.kind, s.start[0], tc.start)
		}
	}
}

// TestDeferObjectives: the same job under the same prices waits for a
// different hour as it minimizes the price, the carbon intensity or a rule
// of both (cost = waiting × ∫objective + running × ∫objective, 20 W and
// 320 W). Hours: price 0.30, 0.10, 0.30, 0.30, 0.30, 0.12, 0.30, …;
// carbon 500, 500, 500, 100, 500, 150, 500, … g/kWh.
//
//	price:  1 h costs 0.040 €, 5 h 0.064: starts at 1 h
//	carbon: 3 h costs 62 g, 5 h 90, 1 h 170: starts at 3 h
//	price.now + 0.001 × carbon.now (0.80, 0.60, 0.80, 0.40, 0.80, 0.27, …):
//	        5 h costs 0.1544, 3 h 0.172, 1 h 0.208: starts at 5 h
func TestDeferObjectives(t *testing.T) {
	m := Machine{Name: "m", Nodes: 1, Power: NodePower{Idle: 100, Busy: 300}, Infrastructure: 20}
	jobs := []workload.Job{{ID: 1, Submit: 0, Runtime: 3600, Walltime: 3600, Nodes: 1, Procs: 1}}
	tar := hourlyFrom(0.30, 0.10, 0.30, 0.30, 0.30, 0.12, 0.30)
	carbon := hourlyFrom(500, 500, 500, 100, 500, 150, 500)
	k := Contract{Name: "k", Kind: Hourly, Currency: "EUR", HasCarbon: true}
	rule := &Expr{Source: "price.now + 0.001 * carbon.now", Deps: DepPrice | DepCarbon,
		Num: func(e *Env) float64 { return e.Price.Now + 0.001*e.Carbon.Now }}
	for _, tc := range []struct {
		name  string
		obj   DeferObjective
		rule  *Expr
		start float64
	}{{"price", MinimizePrice, nil, 3600}, {"carbon", MinimizeCarbon, nil, 3 * 3600}, {"rule", MinimizeRule, rule, 5 * 3600}} {
		pol := deferPolicy(8, DeferCommit, 0)
		pol.Defer.Objective, pol.Defer.Rule = tc.obj, tc.rule
		s, err := simulate(jobs, &m, 1, &pol, constPower(1, 300), math.Inf(1), tariff.Clock{Loc: time.UTC}, tar, withBill(&k, carbon))
		if err != nil {
			t.Fatal(err)
		}
		if s.start[0] != tc.start {
			t.Errorf("%s: starts at %v, want %v", tc.name, s.start[0], tc.start)
		}
	}
}
