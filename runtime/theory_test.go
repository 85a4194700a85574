package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// theoryMachine is Mistral-like in proportion: nodes that draw nothing off
// and boot for free, so that switching them off saves exactly their idle
// power, and infrastructure a fifth of the busy machine.
func theoryMachine(nodes int) Machine {
	return Machine{Name: "m", Nodes: nodes, Power: NodePower{Off: 0, Idle: 70, Busy: 260}, Infrastructure: 52 * float64(nodes)}
}

// TestTheoryFlatPrice is kunkel.md §6 checks 1 and 10 on random
// workloads: under a flat price the mean, best and worst prices are the
// price; the always-on EASY run costs the theory's baseline; and what
// switching idle nodes off saves in the engine (EASY with shutdown, same
// schedule) is Eq. 4 with the run's own utilization and span.
func TestTheoryFlatPrice(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 11))
		nodes := 16 + rng.IntN(48)
		jobs := randomJobs(rng, 800, nodes, []float64{1, 60}[seed%2])
		m := theoryMachine(nodes)
		run := func(pol Policy) Metrics {
			s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), 260), math.Inf(1), clock, tariff.Flat(0.145))
			if err != nil {
				t.Fatal(err)
			}
			return s.record().metrics()
		}
		on := run(Policy{Name: "easy", Backfill: EASY})
		off := run(Policy{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 0}})
		if !on.HasTheory || !off.HasTheory {
			t.Fatal("no theory")
		}
		th := on.Theory
		if th.MeanPrice != 0.145 || th.Best != 0.145 || th.Worst != 0.145 {
			t.Errorf("seed %d: mean, best, worst %v %v %v under a flat 0.145", seed, th.MeanPrice, th.Best, th.Worst)
		}
		if !nearRel(th.Baseline, on.Cost, 1e-9) {
			t.Errorf("seed %d: baseline %v, always-on cost %v", seed, th.Baseline, on.Cost)
		}
		if !nearRel(th.ShutdownSaving, on.Cost-off.Cost, 1e-9) {
			t.Errorf("seed %d: Eq. 4 %v, engine's saving %v", seed, th.ShutdownSaving, on.Cost-off.Cost)
		}
		if !nearRel(th.ShutdownSaving, on.CostBy[machine.Idle], 1e-9) {
			t.Errorf("seed %d: Eq. 4 %v, idle cost %v", seed, th.ShutdownSaving, on.CostBy[machine.Idle])
		}
		// Shutting down changes neither the schedule nor the theory.
		if off.Theory != on.Theory {
			t.Errorf("seed %d: theory differs with shutdown:\n%+v\n%+v", seed, off.Theory, on.Theory)
		}
		// Flat: the oracles save what shutdown (and infrastructure off) saves.
		if !nearRel(th.CostAll, th.Baseline-th.ShutdownSaving-th.InfraSaving, 1e-9) || !nearRel(th.CostClient, th.Baseline-th.ShutdownSaving, 1e-9) {
			t.Errorf("seed %d: oracle all %v, client %v; baseline %v, savings %v, %v", seed, th.CostAll, th.CostClient, th.Baseline, th.ShutdownSaving, th.InfraSaving)
		}
	}
}

// TestOracleLowerBound is kunkel.md §6 check 11: under hourly prices
// (negative ones too) no schedule that switches idle nodes off (FCFS, EASY,
// greedy backfilling, the three defer commitments) costs less than the
// client oracle, up to the part of the first and last clock hours
// the run does not cover, and the all-off oracle costs no more than the
// client's.
func TestOracleLowerBound(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 13))
		nodes := 16 + rng.IntN(48)
		jobs := randomJobs(rng, 1500, nodes, 60)
		tar := randomHourly(rng, clock, 7, 0.06, 0.2, 30, 0.05)
		m := theoryMachine(nodes)
		for _, pol := range []Policy{
			{Name: "fcfs_off", Shutdown: &Shutdown{After: 0}},
			{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 600}},
			{Name: "greedy_off", Backfill: Greedy, Depth: 1000, Shutdown: &Shutdown{After: 0}},
			named("pa_12", deferPolicy(12, DeferCommit, 0)),
			named("pad_24", deferPolicy(24, DeferRecompute, 24*3600)),
			named("epa_12", deferPolicy(12, DeferRecomputeOnEnds, 0)),
		} {
			s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), 260), math.Inf(1), clock, tar)
			if err != nil {
				t.Fatal(err)
			}
			r := s.record().metrics()
			th := r.Theory
			// The oracle prices whole clock hours; the run covers the first
			// and last only in part. Allow the dearest price on their share
			// of the machine's full power.
			edge := (float64(th.Hours)*3600 - (r.AccountTo - r.AccountFrom)) / 3.6e6 * (m.Infrastructure + float64(nodes)*m.Power.Busy) * 0.26
			if r.Cost < th.CostClient-edge {
				t.Errorf("seed %d %s: cost %v below the client oracle %v (edge allowance %v)", seed, pol.Name, r.Cost, th.CostClient, edge)
			}
			if th.CostAll > th.CostClient {
				t.Errorf("seed %d %s: oracle all %v above client %v", seed, pol.Name, th.CostAll, th.CostClient)
			}
			if th.Best > th.MeanPrice || th.MeanPrice > th.Worst {
				t.Errorf("seed %d %s: best %v, mean %v, worst %v out of order", seed, pol.Name, th.Best, th.MeanPrice, th.Worst)
			}
		}
	}
}

func named(name string, p Policy) Policy {
	p.Name = name
	return p
}

func nearRel(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestTheoryTCO: Table 15's three yearly costs from a machine's costs and
// the run's theory (kunkel.md §1.8).
func TestTheoryTCO(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	rng := rand.New(rand.NewPCG(5, 5))
	jobs := randomJobs(rng, 600, 32, 60)
	m := theoryMachine(32)
	m.Costs = &MachineCosts{System: 16.5e6, Lifetime: 5 * 365 * 86400, Annual: 4e6, Currency: "EUR"}
	pol := Policy{Name: "easy", Backfill: EASY}
	s, err := simulate(jobs, &m, 32, &pol, constPower(len(jobs), 260), math.Inf(1), clock, tariff.Flat(0.145))
	if err != nil {
		t.Fatal(err)
	}
	r := s.record().metrics()
	th := r.Theory
	if !th.HasTCO {
		t.Fatal("no TCO with machine costs")
	}
	perYear := 16.5e6/5 + 4e6 // 7,300 k€: DKRZ's system expenditure
	if !nearRel(th.TCOCurrent, perYear+th.Baseline, 1e-12) || !nearRel(th.TCOOptimalEnergy, perYear+th.CostAll, 1e-12) {
		t.Errorf("TCO current %v, optimal energy %v; want %v + %v, + %v", th.TCOCurrent, th.TCOOptimalEnergy, perYear, th.Baseline, th.CostAll)
	}
	// Flat: the optimal schedule's energy at the mean price is CostAll.
	if want := 16.5e6*th.U/5 + 4e6 + th.CostAll; !nearRel(th.TCOProcurement, want, 1e-12) {
		t.Errorf("TCO procurement %v, want %v", th.TCOProcurement, want)
	}
	if th.U != r.Utilization {
		t.Errorf("theory's U %v, run's utilization %v", th.U, r.Utilization)
	}
	// The same costs per node of the 32 give the same TCO.
	m.Costs = &MachineCosts{SystemPerNode: 16.5e6 / 32, Lifetime: 5 * 365 * 86400, AnnualPerNode: 4e6 / 32, Currency: "EUR"}
	s, err = simulate(jobs, &m, 32, &pol, constPower(len(jobs), 260), math.Inf(1), clock, tariff.Flat(0.145))
	if err != nil {
		t.Fatal(err)
	}
	if pn := s.record().metrics().Theory; !nearRel(pn.TCOCurrent, th.TCOCurrent, 1e-12) || !nearRel(pn.TCOProcurement, th.TCOProcurement, 1e-12) {
		t.Errorf("per node: TCO %v, %v; for the machine %v, %v", pn.TCOCurrent, pn.TCOProcurement, th.TCOCurrent, th.TCOProcurement)
	}
}

// TestOracleBoundsEveryRun is kunkel.md §6 check 11 as a property over
// random workloads, every kind of contract and every kind of scheduler.
//
// What is bounded: the client oracle (Eq. 7) is the least that the energy
// price can charge for a run's work when its idle nodes draw nothing —
// the infrastructure on throughout, the jobs' energy packed into the
// cheapest hours. A run whose idle nodes stay on pays for them besides, so
// the bounded quantity is the run's energy cost less its idle nodes'
// (exactly the energy cost of the same schedule with idle nodes off: the
// machine draws 0 W off and boots for free). That bound holds under any
// prices, negative hours included; an always-on run's whole energy cost
// is bounded too when no price is negative (with negative hours, idle
// power earns money and can take it below). The band, demand charge and
// overrun are billed on top of the energy and are never negative, so the
// total cost is at least the energy cost. Under a flat price the bound is
// an equality.
//
// Each run is accounted over whole clock hours (a window from the hour
// of its first submission to past its last end), so the oracle's hours are
// exactly the accounted span and the bound is exact, up to rounding.
// (TestOracleLowerBound checks runs over their own spans, with an
// allowance for the hours they cover in part.)
func TestOracleBoundsEveryRun(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	defers := func(then DeferThen, deadline float64) Policy {
		return named("defer_"+DeferThenNames[then], deferPolicy(12, then, deadline))
	}
	policies := []Policy{
		{Name: "fcfs"},
		{Name: "fcfs_off", Shutdown: &Shutdown{After: 0}},
		{Name: "easy", Backfill: EASY},
		{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 600}},
		{Name: "greedy", Backfill: Greedy, Depth: 1000},
		{Name: "greedy_100_off", Backfill: Greedy, Depth: 100, Shutdown: &Shutdown{After: 0}},
		defers(DeferCommit, 0),
		defers(DeferRecompute, 12*3600),
		defers(DeferRecomputeOnEnds, 0),
	}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 17))
		nodes := 16 + rng.IntN(48)
		jobs := randomJobs(rng, 500, nodes, 60)
		m := theoryMachine(nodes)
		// Hourly prices, about one hour in twenty negative, repeated past
		// their fortnight.
		hourly := randomHourly(rng, clock, 14, 0.04, 0.25, 20, 0.06)
		contracts := []struct {
			name     string
			tar      tariff.Tariff
			bill     *Contract
			negative bool
		}{
			{"flat", tariff.Flat(0.145), nil, false},
			{"basepeak", tariff.BasePeak(clock, []tariff.Window{{From: 6 * 3600, To: 22 * 3600}}, 0.16675, 0.10), nil, false},
			{"hourly", hourly, nil, true},
			{"hourly+band+demand+budget", hourly, &Contract{Name: "k", Kind: Hourly, Currency: "EUR",
				Band:   &ledger.Band{Lo: 0.3 * 260 * float64(nodes), Hi: 0.7 * 260 * float64(nodes), Kind: ledger.Rebill, Rebill: 0.35, Period: ledger.PeriodMonth},
				Demand: &ledger.Demand{Price: 0.01, Period: ledger.PeriodMonth}, Meter: 900, EnergyBudget: 1e8, Overrun: 0.2}, true},
		}
		for _, k := range contracts {
			for _, pol := range policies {
				name := k.name + "/" + pol.Name
				var opts []simOption
				if k.bill != nil {
					opts = append(opts, withBill(k.bill, nil))
				}
				sim := func(opts ...simOption) *sim {
					s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), 260), math.Inf(1), clock, k.tar, opts...)
					if err != nil {
						t.Fatalf("seed %d %s: %v", seed, name, err)
					}
					return s
				}
				end := sim(opts...).lastEnd
				from, to := math.Floor(jobs[0].Submit/3600)*3600, (math.Ceil(end/3600)+1)*3600
				s := sim(append(opts, accountOver(from, to))...)
				if s.lastEnd > to {
					t.Fatalf("seed %d %s: the run ends at %v, after its window %v", seed, name, s.lastEnd, to)
				}
				r := s.record().metrics()
				th := r.Theory
				if !r.HasTheory || th.Hours != int((to-from)/3600) {
					t.Fatalf("seed %d %s: theory %v over %d hours, want %v", seed, name, r.HasTheory, th.Hours, (to-from)/3600)
				}
				var energyCost float64
				for _, c := range r.CostBy {
					energyCost += c
				}
				offCost := energyCost - r.CostBy[machine.Idle]
				if offCost < th.CostClient-1e-9*math.Abs(th.CostClient) {
					t.Errorf("seed %d %s: energy cost with idle nodes off %v below the client oracle %v", seed, name, offCost, th.CostClient)
				}
				if k.name == "flat" && !nearRel(offCost, th.CostClient, 1e-9) {
					t.Errorf("seed %d %s: flat price: energy cost with idle nodes off %v, client oracle %v: want equal", seed, name, offCost, th.CostClient)
				}
				if !k.negative && energyCost < th.CostClient-1e-9*th.CostClient {
					t.Errorf("seed %d %s: energy cost %v below the client oracle %v", seed, name, energyCost, th.CostClient)
				}
				if th.Worst >= 0 && th.CostAll > th.CostClient {
					t.Errorf("seed %d %s: oracle all %v above client %v", seed, name, th.CostAll, th.CostClient)
				}
				charges := r.Band.Penalty + r.DemandCharge + r.OverrunCost
				if !nearRel(r.Cost, energyCost+charges, 1e-12) || r.Band.Penalty < 0 || r.DemandCharge < 0 || r.OverrunCost < 0 {
					t.Errorf("seed %d %s: cost %v; energy %v, band %v, demand %v, overrun %v", seed, name, r.Cost, energyCost, r.Band.Penalty, r.DemandCharge, r.OverrunCost)
				}
				if k.bill != nil && (r.DemandCharge <= 0 || r.OverrunCost <= 0) {
					t.Errorf("seed %d %s: demand %v, overrun %v: the composed contract charges nothing", seed, name, r.DemandCharge, r.OverrunCost)
				}
			}
		}
	}
}

// randomHourly is days of hourly prices from 1970-01-01 UTC, repeated
// past them: each uniform on [lo, lo+spread), except about one hour in
// negOneIn, uniform on (−neg, 0].
func randomHourly(rng *rand.Rand, clock tariff.Clock, days int, lo, spread float64, negOneIn int, neg float64) tariff.Tariff {
	prices := make([]float64, 24*days)
	for i := range prices {
		prices[i] = lo + spread*rng.Float64()
		if rng.IntN(negOneIn) == 0 {
			prices[i] = -neg * rng.Float64()
		}
	}
	return tariff.Hourly(clock, &tariff.Series{Name: "p", Prices: prices}, time.Unix(0, 0).UTC())
}
