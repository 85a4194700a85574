package runtime

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The queue index (queue.go) must give exactly the schedule of the plain
// scan, and incremental passes exactly that of full passes. These tests
// run each workload and policy with the index never on (the truth: a scan
// over the queue, full passes), always on, switching on and off around a
// small queue length, and at its default length, each with incremental
// passes and with full passes only, and compare start and end times,
// pstates, energy by component, and the error if the run fails.

// queueModes are the ways a run may hold its queue and pass over it; the
// first is the reference.
type queueMode struct {
	name     string
	at, work int  // indexQueueAt's
	full     bool // fullPasses
}

var queueModes = []queueMode{
	{"scan/full", math.MaxInt, 0, true},
	{"scan/incremental", math.MaxInt, 0, false},
	{"index/full", 1, 0, true},
	{"index/incremental", 1, 0, false},
	{"switching/incremental", 16, 0, false},
	{"default/incremental", defaultIndexAt, defaultBuildWork, false},
	{"default/full", defaultIndexAt, defaultBuildWork, true},
}

// options are the run options of the mode.
func (mode queueMode) options() []simOption {
	o := []simOption{indexQueueAt(mode.at, mode.work)}
	if mode.full {
		o = append(o, fullPasses())
	}
	return o
}

// diffCase is one policy on one machine.
type diffCase struct {
	name   string
	m      Machine
	pol    Policy
	budget float64 // W, +Inf for none
	tar    tariff.Tariff
	opts   []simOption
	fails  bool // the run ends with jobs that never start
}

// checkQueueModes runs jobs under c in every queue mode and compares each
// with the reference, and returns the longest queue of the reference's
// schedule.
func checkQueueModes(t *testing.T, jobs []workload.Job, pw []float64, c diffCase) int {
	t.Helper()
	var ref *sim
	var refErr string
	for k, mode := range queueModes {
		if k > 0 && ref.q.scanOnly && mode.at != math.MaxInt {
			continue // (dynamic orders and admit rules are never indexed)
		}
		m, pol := c.m, c.pol
		tar := c.tar
		if tar == nil {
			tar = tariff.Flat(0.1)
		}
		s, err := simulateOrFail(jobs, &m, m.Nodes, &pol, pw, c.budget, tar, append(c.opts[:len(c.opts):len(c.opts)], mode.options()...)...)
		errs := ""
		if err != nil {
			errs = err.Error()
		}
		if s == nil {
			if k == 0 && c.fails {
				refErr = errs
				ref = &sim{jobTable: jobTable{start: make([]float64, len(jobs)), end: make([]float64, len(jobs)), pstate: make([]uint8, len(jobs))}}
				continue
			}
			if errs != refErr {
				t.Fatalf("%s: error %q, the scan's %q", mode.name, errs, refErr)
			}
			continue
		}
		if mode.at == 1 && !s.q.scanOnly && s.q.ix == nil {
			t.Fatalf("%s: the queue was never indexed", mode.name)
		}
		if k == 0 {
			if err != nil && !c.fails {
				t.Fatal(err)
			}
			if err == nil && c.fails {
				t.Fatal("the run does not fail")
			}
			ref, refErr = s, errs
			continue
		}
		if errs != refErr {
			t.Fatalf("%s: error %q, the scan's %q", mode.name, errs, refErr)
		}
		for j := range jobs {
			if s.start[j] != ref.start[j] || s.end[j] != ref.end[j] || s.pstate[j] != ref.pstate[j] {
				t.Fatalf("%s: job %d runs %v–%v at pstate %d; the scan runs it %v–%v at pstate %d",
					mode.name, jobs[j].ID, s.start[j], s.end[j], s.pstate[j], ref.start[j], ref.end[j], ref.pstate[j])
			}
		}
		if !slices.Equal(s.led.Energy, ref.led.Energy) {
			t.Fatalf("%s: energy %v, the scan's %v", mode.name, s.led.Energy, ref.led.Energy)
		}
	}
	return longestQueue(jobs, ref.start)
}

// simulateOrFail is simulate, with a rule that fails (panics with an
// EvalError, as compiled rules do) turned into the run's error.
func simulateOrFail(jobs []workload.Job, m *Machine, nodes int, pol *Policy, pw []float64, budget float64, tar tariff.Tariff, opts ...simOption) (s *sim, err error) {
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(*EvalError)
			if !ok {
				panic(r)
			}
			s, err = nil, ee
		}
	}()
	return simulate(jobs, m, nodes, pol, pw, budget, tariff.Clock{}, tar, opts...)
}

// Rules for the differential tests, as the compiler would give them.
var (
	ruleBigFirst = &Expr{Source: "job.nodes", Deps: DepJob, Fields: FieldNodes,
		Num: func(e *Env) float64 { return float64(e.Job.Nodes) }}
	// The standard policies' order: the trace's own (ranked without a sort).
	ruleSubmit = &Expr{Source: "job.submit", Deps: DepJob, Fields: FieldSubmit,
		Num: func(e *Env) float64 { return e.Job.Submit }}
	ruleShortFirst = &Expr{Source: "job.walltime", Deps: DepJob, Fields: FieldWalltime,
		Num: func(e *Env) float64 { return e.Job.Walltime }}
	// Ties: two priority classes, then the order key, then trace order.
	ruleWideClass = &Expr{Source: "job.nodes > 4 ? 1 : 0", Deps: DepJob, Fields: FieldNodes,
		Num: func(e *Env) float64 { return b2f(e.Job.Nodes > 4) }}
	// NaN for some jobs: the queue has no total order and stays a scan.
	ruleSomeNaN = &Expr{Source: "job.id % 7 == 0 ? nan : job.nodes", Deps: DepJob, Fields: FieldID | FieldNodes,
		Num: func(e *Env) float64 {
			if e.Job.ID%7 == 0 {
				return math.NaN()
			}
			return float64(e.Job.Nodes)
		}}
	// Fails for job 300: the run fails, at that job's arrival.
	ruleFailsAt300 = &Expr{Source: "300 / (job.id - 300)", Deps: DepJob, Fields: FieldID,
		Num: func(e *Env) float64 {
			if e.Job.ID == 300 {
				panic(&EvalError{Expr: &Expr{Source: "300 / (job.id - 300)"}, Err: errors.New("job 300: division by zero")})
			}
			return 300 / float64(e.Job.ID-300)
		}}
	ruleAll = &Expr{Source: "job.nodes > 0", Deps: DepJob, Fields: FieldNodes,
		Bool: func(e *Env) bool { return e.Job.Nodes > 0 }}
	// Refuses every 97th job for ever: the run ends with them waiting.
	ruleNot97 = &Expr{Source: "job.id % 97 != 0", Deps: DepJob, Fields: FieldID,
		Bool: func(e *Env) bool { return e.Job.ID%97 != 0 }}
	// Reads the time: wide jobs wait ten minutes before they may start.
	ruleWideWait = &Expr{Source: "job.nodes <= 4 || job.wait >= 600", Deps: DepJob | DepWait, Fields: FieldNodes | FieldWait,
		Bool: func(e *Env) bool { return e.Job.Nodes <= 4 || e.Job.Wait >= 600 }}
	ruleWaited = &Expr{Source: "job.wait", Deps: DepWait, Fields: FieldWait,
		Num: func(e *Env) float64 { return e.Job.Wait }}
	ruleMorning = &Expr{Source: "now.hour < 12", Deps: DepNow,
		Bool: func(e *Env) bool { return e.Now.Hour < 12 }}
	ruleNodeWeight = &Expr{Source: "job.nodes * 250", Deps: DepJob, Fields: FieldNodes,
		Num: func(e *Env) float64 { return float64(e.Job.Nodes) * 250 }}
	ruleWaitWeight = &Expr{Source: "job.wait > 3600 ? job.power / 2 : job.power", Deps: DepJob | DepWait, Fields: FieldWait | FieldPower,
		Num: func(e *Env) float64 {
			if e.Job.Wait > 3600 {
				return e.Job.Power / 2
			}
			return e.Job.Power
		}}
	// std/zhou's knapsack: the defaults, written out.
	ruleJobPower = &Expr{Source: "job.power", Deps: DepJob, Fields: FieldPower,
		Num: func(e *Env) float64 { return e.Job.Power }}
	ruleJobNodes = &Expr{Source: "job.nodes", Deps: DepJob, Fields: FieldNodes,
		Num: func(e *Env) float64 { return float64(e.Job.Nodes) }}
	ruleShortValue = &Expr{Source: "1 / job.walltime", Deps: DepJob, Fields: FieldWalltime,
		Num: func(e *Env) float64 { return 1 / e.Job.Walltime }}
	ruleFreqByID = &Expr{Source: "job.id % 3 == 0 ? 1.8e9 : 2.7e9", Deps: DepJob, Fields: FieldID,
		Num: func(e *Env) float64 {
			if e.Job.ID%3 == 0 {
				return 1.8e9
			}
			return 2.7e9
		}}
)

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// overloadedJobs makes n jobs arriving several times faster than a machine
// of the given width runs them: the queue grows to most of n.
func overloadedJobs(rng *rand.Rand, n, nodes int, grain float64) []workload.Job {
	jobs := randomJobs(rng, n, nodes, grain)
	for i := range jobs {
		jobs[i].Submit /= 8
	}
	return jobs
}

// plainCases are the policies on machines without pstates.
func plainCases(nodes int) []diffCase {
	instant := Machine{Name: "instant", Nodes: nodes, Power: NodePower{Off: 5, Idle: 70, Busy: 260, Boot: 100, Shutdown: 90}}
	slow := instant
	slow.Name, slow.BootTime, slow.ShutdownTime = "slow", 120, 45
	inf := math.Inf(1)
	var cs []diffCase
	for _, p := range []Policy{
		{Name: "fcfs"},
		{Name: "easy", Backfill: EASY},
		{Name: "easy_exact", Backfill: EASY, Estimate: Exact},
		{Name: "greedy3", Backfill: Greedy, Depth: 3},
		{Name: "greedy_huge", Backfill: Greedy, Depth: 1 << 30},
		{Name: "easy_bigfirst", Backfill: EASY, Priority: ruleBigFirst},
		{Name: "easy_sjf", Backfill: EASY, Order: ruleShortFirst},
		{Name: "easy_submit", Backfill: EASY, Order: ruleSubmit},
		{Name: "greedy_submit", Backfill: Greedy, Depth: 25, Order: ruleSubmit},
		{Name: "greedy_classes_sjf", Backfill: Greedy, Depth: 40, Priority: ruleWideClass, Order: ruleShortFirst},
		{Name: "easy_nan_prio", Backfill: EASY, Priority: ruleSomeNaN},
		{Name: "easy_failing_order", Backfill: EASY, Order: ruleFailsAt300},
		{Name: "easy_dynamic_prio", Backfill: EASY, Priority: ruleWaited},
		{Name: "fcfs_dynamic_prio", Priority: ruleWaited},
		{Name: "fcfs_admit_all", Admit: ruleAll},
		{Name: "easy_admit_not97", Backfill: EASY, Admit: ruleNot97, Order: ruleShortFirst},
		{Name: "greedy_admit_not97", Backfill: Greedy, Depth: 20, Admit: ruleNot97},
		{Name: "easy_admit_wait", Backfill: EASY, Admit: ruleWideWait},
		{Name: "easy_contiguous", Backfill: EASY, Contiguous: 4},
		{Name: "easy_interval", Backfill: EASY, Interval: 900},
	} {
		cs = append(cs, diffCase{name: p.Name, m: instant, pol: p, budget: inf, fails: p.Admit == ruleNot97 || p.Order == ruleFailsAt300})
	}
	for _, p := range []Policy{
		{Name: "easy_off0", Backfill: EASY, Shutdown: &Shutdown{After: 0}},
		{Name: "greedy_off600", Backfill: Greedy, Depth: 8, Shutdown: &Shutdown{After: 600, Keep: 3}},
	} {
		cs = append(cs, diffCase{name: p.Name + "/slow", m: slow, pol: p, budget: inf})
		cs = append(cs, diffCase{name: p.Name + "/identified", m: slow, pol: p, budget: inf, opts: []simOption{recordNodes()}})
	}
	// The capacity controller (Lawson & Smirni) changes the free nodes
	// between passes, and its look-ahead copies the queue out of either
	// mode; the defer stage holds FIFO's head.
	half := NodeLevel{Share: 0.5}
	for _, p := range []Policy{
		{Name: "easy_exact_two_level", Backfill: EASY, Estimate: Exact, Active: &Active{Kind: ActiveTwoLevel, Low: half, High: NodeLevel{All: true}}},
		{Name: "easy_exact_ols", Backfill: EASY, Estimate: Exact, Active: &Active{Kind: ActiveOnline, Low: half, High: NodeLevel{All: true}, SLA: 50, Every: 2 * 86400}},
		{Name: "greedy_ols_binary", Backfill: Greedy, Depth: 10, Active: &Active{Kind: ActiveOnline, Low: half, High: NodeLevel{All: true}, SLA: 20, Every: 86400, Search: SearchBinary, Raise: RaiseToMax}},
		{Name: "easy_two_level/slow", Backfill: EASY, Active: &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Share: 0.25}, High: NodeLevel{All: true}}},
	} {
		m := instant
		if strings.HasSuffix(p.Name, "/slow") {
			m = slow
		}
		cs = append(cs, diffCase{name: p.Name, m: m, pol: p, budget: inf})
	}
	hourly := tariff.Hourly(tariff.Clock{}, &tariff.Series{Name: "p", Prices: []float64{0.3, 0.1, 0.25, 0.05, 0.2, 0.4, 0.15}}, time.Unix(0, 0).UTC())
	for _, then := range []DeferThen{DeferCommit, DeferRecompute, DeferRecomputeOnEnds} {
		p := Policy{Name: "fcfs_defer_" + DeferThenNames[then], Shutdown: &Shutdown{After: 0},
			Defer: &Defer{Lookahead: 12 * 3600, Runtime: Exact, Then: then, Deadline: 12 * 3600, PreferNow: 0.001, Waiting: ruleZero}}
		cs = append(cs, diffCase{name: p.Name, m: instant, pol: p, budget: inf, tar: hourly})
	}
	return cs
}

// ruleZero is a waiting power of 0 W (deferrals weigh only running).
var ruleZero = &Expr{Source: "0", Num: func(*Env) float64 { return 0 }}

// budgetCases are the budget and knapsack stages under a budget of W
// watts: always, during peak hours, while a rule on the time holds.
func budgetCases(nodes int, w float64) []diffCase {
	m := Machine{Name: "m", Nodes: nodes, Power: NodePower{Off: 5, Idle: 70, Busy: 260, Boot: 100, Shutdown: 90}}
	slow := m
	slow.BootTime, slow.ShutdownTime = 120, 45
	peak := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 23 * 3600}}, 0.3, 0.1)
	always := &Budget{Power: w, When: BudgetAlways}
	duringPeak := &Budget{Power: w, When: BudgetDuringPeak}
	morning := &Budget{Power: w, When: BudgetWhile, While: ruleMorning}
	var cs []diffCase
	for _, c := range []struct {
		p   Policy
		tar tariff.Tariff
	}{
		{Policy{Name: "fcfs_budget", Budget: always}, nil},
		{Policy{Name: "easy_budget", Backfill: EASY, Budget: always}, nil},
		{Policy{Name: "easy_knapsack_submit", Backfill: EASY, Budget: always, Select: SelectKnapsack, Window: 10, Order: ruleSubmit}, nil},
		{Policy{Name: "easy_exact_budget_peak", Backfill: EASY, Estimate: Exact, Budget: duringPeak}, peak},
		{Policy{Name: "greedy_budget", Backfill: Greedy, Depth: 6, Budget: always}, nil},
		{Policy{Name: "greedy_huge_budget_morning", Backfill: Greedy, Depth: 1 << 30, Budget: morning}, nil},
		{Policy{Name: "easy_knapsack8", Backfill: EASY, Budget: always, Select: SelectKnapsack, Window: 8}, nil},
		{Policy{Name: "easy_knapsack_zhou", Backfill: EASY, Budget: duringPeak, Select: SelectKnapsack, Window: 10, Weight: ruleJobPower, Value: ruleJobNodes, Contiguous: 4}, peak},
		{Policy{Name: "greedy_knapsack40_peak", Backfill: Greedy, Depth: 30, Budget: duringPeak, Select: SelectKnapsack, Window: 40, Value: ruleShortValue}, peak},
		{Policy{Name: "easy_knapsack_admit_sjf", Backfill: EASY, Budget: always, Select: SelectKnapsack, Window: 12, Admit: ruleAll, Order: ruleShortFirst}, nil},
		{Policy{Name: "easy_budget_nodeweight_prio", Backfill: EASY, Budget: always, Weight: ruleNodeWeight, Priority: ruleBigFirst}, nil},
		{Policy{Name: "easy_budget_waitweight", Backfill: EASY, Budget: always, Weight: ruleWaitWeight}, nil},
		{Policy{Name: "easy_budget_admit_wait", Backfill: EASY, Budget: duringPeak, Admit: ruleWideWait}, peak},
		{Policy{Name: "easy_budget_contiguous", Backfill: EASY, Budget: always, Contiguous: 2}, nil},
	} {
		cs = append(cs, diffCase{name: c.p.Name, m: m, pol: c.p, budget: w, tar: c.tar})
	}
	off := Policy{Name: "easy_budget_off/slow", Backfill: EASY, Budget: duringPeak, Shutdown: &Shutdown{After: 60, Keep: 2}}
	cs = append(cs, diffCase{name: off.Name, m: slow, pol: off, budget: w, tar: peak})
	cs = append(cs, diffCase{name: "easy_budget_off/identified", m: slow, pol: off, budget: w, tar: peak, opts: []simOption{recordNodes()}})
	return cs
}

// curieCases are the frequency stage and powercaps on a machine with
// pstates and levels (whose nodes have identities).
func curieCases(nodes int, last float64) []diffCase {
	m := curieLike(nodes)
	notice := Instant{Offset: last / 4}
	from := Instant{Offset: last / 3}
	later := Instant{Offset: last/3 + 2*3600}
	first := Instant{Offset: 0}
	inf := math.Inf(1)
	var cs []diffCase
	for _, p := range []Policy{
		{Name: "easy_2.0GHz", Backfill: EASY, Frequency: Frequency{Kind: FreqPState, PState: 3}},
		{Name: "easy_freq_rule", Backfill: EASY, Frequency: Frequency{Kind: FreqRule, Rule: ruleFreqByID}},
		{Name: "greedy_freq_rule_sjf", Backfill: Greedy, Depth: 10, Frequency: Frequency{Kind: FreqRule, Rule: ruleFreqByID}, Order: ruleShortFirst},
		{Name: "easy_off_levels", Backfill: EASY, Shutdown: &Shutdown{After: 300}},
		{Name: "easy_cap_dvfs", Backfill: EASY, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapDVFS}}},
		{Name: "easy_cap_auto", Backfill: EASY, Powercaps: []Powercap{{Share: 0.5, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapAuto}}},
		{Name: "easy_cap_shut", Backfill: EASY, Powercaps: []Powercap{{Share: 0.5, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapShut}}},
		{Name: "easy_cap_now", Backfill: EASY, Powercaps: []Powercap{{Share: 0.7, When: BudgetAlways, Mode: CapMix, Lowest: 2e9}}},
		// Noticed at the first submission (the default without a measure
		// window): every pass until the window ends is capped.
		{Name: "easy_cap_mix_first", Backfill: EASY, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &first, Mode: CapMix, Lowest: 2e9}}},
		{Name: "easy_exact_cap_fit_job", Backfill: EASY, Estimate: Exact, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &first, Mode: CapDVFS, Fit: FitJob}}},
		{Name: "easy_cap_two_windows", Backfill: EASY, Powercaps: []Powercap{
			{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapShut},
			{Share: 0.4, Start: &later, Duration: 4 * 3600, Notice: &notice, Mode: CapMix, Lowest: 2e9}}},
		{Name: "easy_cap_optimal", Backfill: EASY, Powercaps: []Powercap{{Share: 0.5, Start: &from, Duration: 4 * 3600, Notice: &first, Mode: CapAuto, Optimal: true}}},
		{Name: "greedy_cap_mix", Backfill: Greedy, Depth: 20, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapMix, Lowest: 2e9}}},
		{Name: "easy_2.0GHz_cap_dvfs", Backfill: EASY, Frequency: Frequency{Kind: FreqPState, PState: 3}, Powercaps: []Powercap{{Share: 0.5, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapDVFS}}},
		{Name: "easy_freq_rule_cap", Backfill: EASY, Frequency: Frequency{Kind: FreqRule, Rule: ruleFreqByID}, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 4 * 3600, Notice: &notice, Mode: CapMix, Lowest: 2e9}}},
		{Name: "easy_cap_while_morning", Backfill: EASY, Powercaps: []Powercap{{Share: 0.6, When: BudgetWhile, While: ruleMorning, Mode: CapDVFS}}},
	} {
		cs = append(cs, diffCase{name: p.Name, m: m, pol: p, budget: inf})
	}
	peak := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 23 * 3600}}, 0.3, 0.1)
	p := Policy{Name: "easy_cap_peak_kill", Backfill: EASY, Powercaps: []Powercap{{Share: 0.5, When: BudgetDuringPeak, Mode: CapIdle, Kill: true}}}
	cs = append(cs, diffCase{name: p.Name, m: m, pol: p, budget: inf, tar: peak})
	slow := m
	slow.BootTime, slow.ShutdownTime = 120, 45
	p = Policy{Name: "easy_cap_shut/slow", Backfill: EASY, Powercaps: []Powercap{{Share: 0.5, Start: &from, Duration: 4 * 3600, Notice: &first, Mode: CapShut}}}
	cs = append(cs, diffCase{name: p.Name, m: slow, pol: p, budget: inf})
	return cs
}

// budgetJobs drops the jobs heavier than the budget (they could never
// start while it applies) and renumbers the rest.
func budgetJobs(jobs []workload.Job, pw []float64, w float64) ([]workload.Job, []float64) {
	var js []workload.Job
	var ps []float64
	for i, j := range jobs {
		if float64(j.Nodes+1)*400 <= w && float64(j.Nodes)*250 <= w {
			j.ID = int64(len(js) + 1)
			js = append(js, j)
			ps = append(ps, pw[i])
		}
	}
	return js, ps
}

// runDiff checks every case on jobs.
func runDiff(t *testing.T, name string, jobs []workload.Job, pw []float64, cs []diffCase) {
	runDiffQueued(t, name, jobs, pw, cs, 0)
}

// runDiffQueued checks every case on jobs, and that each case's schedule
// (the scan's) has a queue of at least minQueue waiting jobs at some
// instant, so that the index is tested on the queues it is for.
func runDiffQueued(t *testing.T, name string, jobs []workload.Job, pw []float64, cs []diffCase, minQueue int) {
	for _, c := range cs {
		t.Run(name+"/"+c.name, func(t *testing.T) {
			if q := checkQueueModes(t, jobs, pw, c); q < minQueue && !c.fails {
				t.Errorf("the longest queue is %d waiting jobs, want %d or more", q, minQueue)
			}
		})
	}
}

// longestQueue is the most jobs waiting at once in a schedule: submitted
// and not started (a job starting at its submission never waits).
func longestQueue(jobs []workload.Job, start []float64) int {
	type ev struct {
		t float64
		d int
	}
	var evs []ev
	for j := range jobs {
		if start[j] > jobs[j].Submit {
			evs = append(evs, ev{jobs[j].Submit, 1}, ev{start[j], -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.d, b.d)) })
	n, most := 0, 0
	for _, e := range evs {
		n += e.d
		most = max(most, n)
	}
	return most
}

// TestQueueIndexSmallQueues: short queues, which cross the switching
// length often, and many ties (coarse time grains).
func TestQueueIndexSmallQueues(t *testing.T) {
	seeds := uint64(6)
	if !testenv.Long() {
		seeds = 2
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 31))
		nodes := 16 + rng.IntN(48)
		nodes -= nodes % 4 // (contiguous units of 4)
		grain := []float64{1, 60, 300}[seed%3]
		jobs := randomJobs(rng, 700, nodes, grain)
		pw := randomPower(rng, len(jobs))
		name := fmt.Sprintf("seed%d", seed)
		runDiff(t, name, jobs, pw, plainCases(nodes))
		w := float64(nodes) * 200
		bj, bpw := budgetJobs(jobs, pw, w)
		runDiff(t, name, bj, bpw, budgetCases(nodes, w))
		cj := randomJobs(rng, 500, 90, grain)
		runDiff(t, name, cj, constPower(len(cj), 358), curieCases(180, cj[len(cj)-1].Submit))
	}
}

// TestQueueIndexOverloaded: queues of 10,000 and more waiting jobs (a few
// thousand unless PWRC_LONG=1).
func TestQueueIndexOverloaded(t *testing.T) {
	n := 13000
	if !testenv.Long() {
		n = 2500
	}
	rng := rand.New(rand.NewPCG(4, 31))
	nodes := 64
	jobs := overloadedJobs(rng, n, nodes, 60)
	pw := randomPower(rng, len(jobs))
	// (Dynamic orders are never indexed: the small queues cover them, and
	// re-sorting 11,000 jobs at every pass takes seconds.)
	plain := slices.DeleteFunc(plainCases(nodes), func(c diffCase) bool { return c.pol.Priority == ruleWaited })
	// The longest queues asserted: 10,000 and more where the index is the
	// point (plain and budgeted passes); capped passes weigh every job
	// that fits by Alg. 2 in every mode, so their workload is smaller.
	long, longCap := 10000, 1500
	if !testenv.Long() {
		long, longCap = 1500, 300
	}
	runDiffQueued(t, "plain", jobs, pw, plain, long)
	w := float64(nodes) * 200
	// (The budget keeps jobs of up to 31 nodes: draw more to queue as many.)
	more := overloadedJobs(rng, n*4/3, nodes, 60)
	bj, bpw := budgetJobs(more, randomPower(rng, len(more)), w)
	runDiffQueued(t, "budget", bj, bpw, budgetCases(nodes, w), long)
	cj := overloadedJobs(rng, n/6, 90, 60)
	runDiffQueued(t, "curie", cj, constPower(len(cj), 358), curieCases(180, cj[len(cj)-1].Submit), longCap)
}
