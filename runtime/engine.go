package runtime

import (
	"fmt"
	"math"

	"github.com/pwrc/pwrc/runtime/alloc"
	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The discrete-event engine. Semantics (DESIGN §5), which tests check
// against an independent simulator:
//
//   - At each distinct event time, all job ends (and node transitions) are
//     applied first, then all arrivals, then exactly one scheduling pass.
//   - The queue is ordered by priority (higher first, when the policy has
//     one), then by the order key (default: submit time), then trace order.
//   - FCFS starts queue heads while they fit and stops at the first that
//     does not. Jobs the admit rule refuses are passed over in this pass.
//   - EASY then gives the first waiting job a reservation: the shadow time
//     S is the earliest estimated end at which enough nodes are free, and
//     extra is the number of nodes free at S (counting every job whose
//     estimated end is ≤ S) beyond what it needs. A later job starts now if
//     it fits now and either ends by S (start + estimate ≤ S) or fits in
//     extra; in the second case extra shrinks by its size.
//   - A job's nodes are freed at its actual end.
//   - With shutdown, nodes idle for the given time are switched off after
//     the pass; off nodes count as free and are booted when a job needs
//     them (the job starts when the boot ends).
//
// The engine owns time and the order of events; the machine's node state
// lives in a machine.Nodes (the one place node states change), energy and
// cost in a ledger.Ledger fed by the machine's counts at every change, and
// node choices in the alloc kernels.

// event kinds, in the order they are applied at equal times.
const (
	evEnd         = iota // a job ends
	evBootDone           // a job's nodes finished booting: it starts running
	evShutDone           // a batch of nodes finished shutting down
	evBootIdle           // nodes booted without a job (a powercap window's end)
	evCapShutDone        // reserved nodes finished shutting down (a powercap window)
	evActShutDone        // nodes a capacity controller lowered finished shutting down
	evActBootDone        // nodes a capacity controller raised finished booting
)

type event struct {
	t    float64
	kind uint8
	job  int32 // job index; for evShutDone, the pseudo-entry id
	n    int32 // evBootDone: nodes that booted; evShutDone: nodes
}

// running is a job (or nodes shutting down) holding nodes until est, its
// estimated end; the list is kept sorted by est for EASY's shadow time.
type running struct {
	est   float64
	nodes int32
	id    int32 // job index, or −1−k for the k-th shutdown batch
}

// sim holds one run's state, grouped by lifetime (as go/types groups its
// checker's): the per-job tables, fixed once a job is read and filled as
// it runs; the machine; the queue and the running jobs; what the last
// pass left for the next; the clock; the accounting, which observes the
// machine; the stages, each owning its state; and what the run was asked
// for. The engine's own state is the queue, the events and the pass.
type sim struct {
	jobTable

	pol     *Policy
	deps    Deps // what the policy's rules read
	nodes   int
	machine *Machine

	// The machine: node states (counted or identified), their counts, and
	// the power model over them.
	mach  machine.Nodes
	cnt   *machine.Counts
	model *machine.Model
	freq  pstateChoice
	ids   []int32 // scratch for node lists

	// The pass's room in watts: the budget (or, in a capped pass, the
	// head's cap as headNeed sets it; +Inf for none) and the weights of
	// the running jobs charged against it.
	budget  float64
	commitW float64    // Σ weight of started jobs still running (or booting)
	bp      budgetPass // the weights, values and knapsack of bounded passes

	queue   []int32    // waiting jobs, in queue order (scan mode: see queue.go)
	q       queueState // the queue's length, mode and index
	keys    []queueKey // per queued job: sort keys, recomputed per pass by dynamic rules
	run     runList    // running jobs by estimated end
	heap    []event
	shutSeq int32

	passState // what the last pass left (see incremental)

	now    float64
	done   int
	firstT float64
	env    Env
	clock  tariff.Clock
	infra  float64 // the machine's infrastructure power, W

	accounting

	// The stages (stage.go), and those the scheduler consults in its
	// pass; nil when the policy has none of them.
	stages stageHooks
	caps   *capStage
	capa   *capacity
	defers *deferStage
	bud    *budgetStage

	stream streamState // a run that simulates while its trace is read (feed.go)

	runOptions
}

// jobTable holds the per-job state, struct of arrays, in queue order of
// arrival (submit, then trace order): what is fixed once a job is read,
// and what it did.
type jobTable struct {
	jobs   []workload.Job
	est    []float64 // backfill estimate per job (stretched to its pstate when fixed)
	pw     []float64 // W per working node while running, at the highest pstate
	alloc  []int32   // nodes allocated: the request, rounded up to the contiguous unit
	jw     []float64 // W of a running job: its working nodes plus the idle rest of its allocation
	wt     []float64 // budget weight, fixed when the job starts (with a budget or a powercap)
	prio   []float64 // static priority (nil: none, or a dynamic one)
	order  []float64 // static order key (likewise)
	pstate []uint8   // the pstate a job runs at, set when it starts
	start  []float64
	end    []float64
	status []uint8  // 0 waiting/not arrived, 1 started
	held   []string // its nodes as ranges (recordNodes)

	// How a job runs on the machine: its run time and estimate stretch
	// by s(f) at pstate f, its working nodes draw the busy power there.
	stretch []float64      // s(f) per pstate
	power   *machine.Model // the machine's: its busy power per node, per pstate
	idleW   float64        // a node's idle power (the unused rest of an allocation)
	fixedP  int            // the pstate every job runs at (0 when a rule decides): est is at it
	exact   bool           // estimates are run times, not walltimes
}

// jobPower is job j's power running at pstate p: its working nodes at
// their power there (the workload's power at the highest pstate, scaled
// by the machine's busy power at p relative to it) plus the idle rest of
// its allocation.
func (t *jobTable) jobPower(j int32, p int) float64 {
	jb := &t.jobs[j]
	pw := t.pw[j]
	if p > 0 {
		pw = pw * t.power.BusyPower(p) / t.power.BusyPower(0) // exact for the machine's own busy power
	}
	return float64(jb.Nodes)*pw + float64(int(t.alloc[j])-jb.Nodes)*t.idleW
}

// use is what job j holds while it runs.
func (t *jobTable) use(j int32) machine.Use {
	u := machine.Use{N: int(t.alloc[j]), Work: t.jobs[j].Nodes, W: t.jw[j]}
	if len(t.stretch) > 1 {
		u.PState = int(t.pstate[j])
	}
	return u
}

// runEst is job j's estimated run time at the pstate it runs at.
func (t *jobTable) runEst(j int32) float64 { return t.estAt(j, int(t.pstate[j])) }

// estAt is job j's estimated run time at pstate p: its walltime (or run
// time, with exact estimates) × s(p). A job runs its run time × s(f), and
// its walltime stretches with it (a job's requested time is for its
// nominal frequency), so every estimate of a job at p — a running job's
// end for EASY, a backfill candidate's end, a planner's free time — is
// stretched alike, whoever chose p.
func (t *jobTable) estAt(j int32, p int) float64 {
	if p == t.fixedP {
		return t.est[j] // (estOf at the fixed pstate, kept per job)
	}
	return t.estOf(j, p)
}

// estOf computes estAt.
func (t *jobTable) estOf(j int32, p int) float64 {
	e := t.jobs[j].Walltime
	if t.exact {
		e = t.jobs[j].Runtime
	}
	if p > 0 {
		e *= t.stretch[p]
	}
	return e
}

// passState is what a pass leaves for the next: whether it may look at
// new arrivals only, and with which reservation.
type passState struct {
	changed bool        // something besides arrivals at the queue's end happened since
	blocked bool        // the last pass left a head waiting
	scanned int         // queue length after the last pass
	res     reservation // EASY: the head's reservation
	skipped int         // greedy: jobs that did not fit (beyond its depth: it gave up)

	bootMarks bootMarks // the boots as the accounting window opened and closed (boots.go)
}

// accounting observes the machine: the ledger it feeds at every change
// (and the twins' ledgers), the state series, and the window it counts.
type accounting struct {
	led    *ledger.Ledger
	sample ledger.Sample
	stale  bool          // the machine changed since sample.Power was computed
	watts  []float64     // scratch: power by component for rules and series
	states *stateSeries  // --series: the machine's state at every change; nil if not asked
	twins  []*book       // twin runs' accounting, fed what s.led is (twins.go)
	tar    tariff.Tariff // the contract's energy price
	bill   *Contract     // the contract, when its bill goes beyond the energy price
	carbon tariff.Tariff // grid carbon intensity, g/kWh; nil: none

	priceMean float64 // price.mean: see initPrice
	peakIdx   int     // the tariff's peak period, −1 if none

	// The accounting window: energy, cost and the node-time behind
	// utilization are integrated over [accFrom, accTo] only. Without one
	// (windowed false) it is the run's span, first submission to last end.
	windowed       bool
	accFrom, accTo float64
	measured       bool    // a measure window: the jobs' figures are clipped to it too
	lastEnd        float64 // when the last job ended
}

// runOptions are what the run was asked to record, where its powercaps
// count from, and how the engine finds its schedule (see simOption).
type runOptions struct {
	identified  bool     // nodes have identities even where nothing needs them
	recordNodes bool     // keep every job's node list (for --jobs)
	keepStates  bool     // keep the machine's state at every change (--series)
	origin      float64  // offsets in powercap times count from here
	notice      *float64 // powercap notices default to this (the measure window's start)
	tune        engineTuning
}

// engineTuning are choices of the engine's own that change how it finds a
// schedule, never which: tests vary them to compare the paths. Runs use
// defaultTuning.
type engineTuning struct {
	fullPassesOnly bool        // no arrival-only passes (see incremental)
	indexAt        int         // the queue length at which an eligible queue is indexed
	buildWork      int         // scan work per job of the run before the index is first built
	active         *activeTest // hooks into the capacity controller's decisions
}

var defaultTuning = engineTuning{indexAt: defaultIndexAt, buildWork: defaultBuildWork}

// fullPasses makes every pass a full one (tests compare it with
// arrival-only passes).
func fullPasses() simOption { return func(s *sim) { s.tune.fullPassesOnly = true } }

// indexQueueAt indexes an eligible queue from at waiting jobs, after work
// jobs visited per job of the run (tests: 1 and 0 index at once;
// math.MaxInt never does).
func indexQueueAt(at, work int) simOption {
	return func(s *sim) { s.tune.indexAt, s.tune.buildWork = at, work }
}

// activeHooks hooks tests into the capacity controller's decisions.
func activeHooks(h *activeTest) simOption { return func(s *sim) { s.tune.active = h } }

// simOption adjusts a run before it starts.
type simOption func(*sim)

// accountOver integrates energy and cost over [from, to] (trace seconds)
// instead of the run's own span: the machine is on from `from` if that
// comes before the first submission, and is followed past the last job
// end (shutdowns included) up to `to`.
func accountOver(from, to float64) simOption {
	return func(s *sim) { s.windowed, s.accFrom, s.accTo = true, from, to }
}

// recordNodes keeps each job's node list; nodes then have identities even
// on a machine where nothing else needs them (the most-recently-idle
// allocation, which gives the counted fast path's schedule and energy).
func recordNodes() simOption {
	return func(s *sim) { s.identified, s.recordNodes = true, true }
}

// keepNodeLists keeps each job's node list where nodes have identities
// (levels, or an allocator); a counted machine records none, since its
// lists would say nothing and, fragmented by the most-recent reuse, could
// fill gigabytes for a large machine.
func keepNodeLists() simOption { return func(s *sim) { s.recordNodes = true } }

// capOrigin sets where offsets in powercap times count from: the cleaned
// trace's first submission, before any cut.
func capOrigin(t float64) simOption { return func(s *sim) { s.origin = t } }

// measureOver is accountOver for a measure window: the jobs' figures are
// clipped to it too, and powercaps are noticed at its start by default.
func measureOver(from, to float64) simOption {
	return func(s *sim) {
		s.windowed, s.accFrom, s.accTo, s.measured = true, from, to, true
		s.notice = &from
	}
}

// withBill meters the power for a contract's band and demand charge and
// integrates the carbon intensity, when the contract has them.
func withBill(k *Contract, carbon tariff.Tariff) simOption {
	return func(s *sim) { s.bill, s.carbon = k, carbon }
}

// recordStates keeps the machine's state at every change (--series).
func recordStates() simOption { return func(s *sim) { s.keepStates = true } }

// withNames gives the rules the run's answers to their name tests (Slurm
// accounting: names.go).
func withNames(ns *NameSets) simOption { return func(s *sim) { s.env.Names = ns } }

// simulate replays jobs under the run's machine, contract and policy.
//
// pw gives each job's power per working node; budget is the power budget
// in W (+Inf for none).
func simulate(jobs []workload.Job, m *Machine, nodes int, pol *Policy, pw []float64, budget float64, clock tariff.Clock, tar tariff.Tariff, opts ...simOption) (*sim, error) {
	s := &sim{pol: pol, nodes: nodes, machine: m, clock: clock, budget: budget}
	s.jobs, s.pw, s.tar, s.tune = jobs, pw, tar, defaultTuning
	for _, o := range opts {
		o(s)
	}
	spec := machineSpec(m, nodes)
	s.model = machine.NewModel(spec)
	s.infra = spec.Infrastructure
	s.stretch = make([]float64, s.model.PStates())
	for p := range s.stretch {
		s.stretch[p] = m.Stretch(p)
	}
	s.freq = newPStateChoice(pol.Frequency, m)
	s.fixedP, s.exact, s.idleW = s.freq.fixedPState(), pol.Estimate == Exact, m.Power.Idle
	s.power = s.model
	n := len(jobs)
	if s.stream.feed != nil {
		// (the per-job state grows as jobs come: see add)
		s.jobs, s.pw = nil, nil
		if err := s.stream.add(s, jobs); err != nil {
			return nil, err
		}
	} else {
		s.est = make([]float64, n)
		s.alloc = make([]int32, n)
		s.jw = make([]float64, n)
		s.pstate = make([]uint8, n)
		s.start = make([]float64, n)
		s.end = make([]float64, n)
		s.status = make([]uint8, n)
		if err := s.initJobs(0); err != nil {
			return nil, err
		}
	}
	if pol.Budget != nil || len(pol.Powercaps) > 0 {
		s.wt = make([]float64, n)
	}
	if pol.Budget != nil {
		s.bp.staticWeights(s)
	}
	s.peakIdx = peakIndex(tar)
	s.initPrice(s.jobs, &s.env, &s.now)
	s.deps = pol.passDeps()
	if pol.Priority != nil && !pol.Priority.Deps.Dynamic() {
		s.prio = make([]float64, n)
	}
	if pol.Order != nil && !pol.Order.Deps.Dynamic() {
		s.order = make([]float64, n)
	}
	switch {
	case s.stream.feed == nil:
		s.staticKeys()
	case !s.dynamicOrder():
		// A stream goes on only if the static keys order the jobs as the
		// trace does: staticKeys then leaves the queue in trace order.
		s.prio, s.order = nil, nil
		if !s.stream.keysInTraceOrder(s, 0) {
			return nil, errFeedAbandoned
		}
	}
	// (Under a dynamic order, the static keys are set as jobs arrive.)
	t0 := 0.0
	if n > 0 {
		t0 = jobs[0].Submit
		if s.windowed && s.accFrom < t0 {
			t0 = s.accFrom // the machine is on, idle, from the window's start
		}
	}
	if err := s.newMachine(t0); err != nil {
		return nil, err
	}
	s.now = t0
	if err := newStages(s); err != nil {
		return nil, err
	}
	s.led = s.newLedger(s.model, s.clock, tar, s.carbon, s.bill, t0)
	for _, b := range s.twins {
		b.led = s.newLedger(s.model, s.clock, b.tar, b.carbon, b.bill, t0)
	}
	s.sample = ledger.Sample{Power: make([]float64, len(s.model.Components())),
		On: s.cnt.LevelsOn, BusyAt: s.cnt.BusyAt, JobWAt: s.cnt.JobWAt}
	s.stale = true
	s.watts = make([]float64, len(s.model.Components()))
	if n == 0 {
		// (runOne never gets here: the loader fails such runs, saying why.)
		return s, nil
	}
	s.firstT = jobs[0].Submit
	if s.keepStates {
		var freqs []float64
		for _, ps := range s.machine.PStates {
			freqs = append(freqs, ps.Freq)
		}
		// (s.states: a sink from streamStates, or nil)
		s.states = newStateSeries(s.model, s.states, freqs, s.machine.Cores, s.caps != nil)
		s.observe()
	}
	s.changed = true
	if err := s.loop(); err != nil {
		return s, err
	}
	return s, nil
}

// initJobs sets the per-job state of jobs from on that does not change
// until they start: allocation, pstate, power and estimate at the fixed
// pstate.
func (s *sim) initJobs(from int) error {
	unit := max(1, s.pol.Contiguous)
	fixed := s.freq.fixedPState()
	wide, firstWide := 0, -1
	for i := from; i < len(s.jobs); i++ {
		a := (s.jobs[i].Nodes + unit - 1) / unit * unit
		if a > s.nodes {
			if wide++; wide == 1 {
				firstWide = i
			}
			continue
		}
		s.alloc[i] = int32(a)
		s.pstate[i] = uint8(fixed)
		s.jw[i] = s.jobPower(int32(i), fixed)
		s.est[i] = s.estOf(int32(i), fixed)
	}
	if wide > 0 {
		// (A streamed run fails on the jobs read so far: it then runs
		// again on the whole trace, whose error counts every such job.)
		return wideError(s.jobs[firstWide], wide, s.nodes, unit)
	}
	return nil
}

// FullPower is the machine's maximum power on nodes nodes (P_full: every
// node busy at the top pstate, every level on, the infrastructure), what
// a powercap's share is of.
func (m *Machine) FullPower(nodes int) float64 {
	return machine.NewModel(machineSpec(m, nodes)).Full()
}

// machineSpec is what the machine model needs of a plan's machine.
func machineSpec(m *Machine, nodes int) machine.Spec {
	sp := machine.Spec{
		Nodes:          nodes,
		Power:          machine.NodePower(m.Power),
		Infrastructure: m.Infrastructure + m.InfrastructurePerNode*float64(nodes),
	}
	for _, p := range m.PStates {
		sp.PStates = append(sp.PStates, p.Power)
	}
	for _, l := range m.Levels {
		ml := machine.Level{Name: l.Name, Size: l.Size}
		for _, c := range l.Components {
			ml.Components = append(ml.Components, machine.Component{Name: c.Name, Power: c.Power})
		}
		sp.Levels = append(sp.Levels, ml)
	}
	return sp
}

// newMachine sets up the node state: counted where nothing needs node
// identities, else a table of nodes with the policy's allocator (the
// default, on a machine with levels, is first_available: reusing the most
// recently idle nodes, as the counted machine does, keeps most racks on).
func (s *sim) newMachine(t0 float64) error {
	a := s.pol.Allocate.Name
	if a == "any" {
		a = ""
	}
	if len(s.machine.Levels) == 0 && (a == "" || a == "most_recent") && !s.identified && !plansSwitchOff(s.pol) {
		c := machine.NewCounted(s.model, s.nodes, t0)
		if switchesOff(s.pol) {
			c.TrackBoots() // each node's boots (Metrics.BootsPerNodeDayMax)
		}
		s.mach, s.cnt = c, c.Counts()
		return nil
	}
	var pick alloc.Picker
	switch {
	case a == "most_recent":
	case a == "" && len(s.machine.Levels) == 0:
		// most recently idle first, as the counted machine
	case a == "":
		pick = alloc.FirstAvailable{}
	default:
		lv := s.pol.Allocate.Level
		if lv < 0 {
			lv = 0
		}
		if a == "rack_aware" && len(s.machine.Levels) == 0 {
			return fmt.Errorf("policy %s: rack_aware needs a machine with levels, and machine %s has none", s.pol.Name, s.machine.Name)
		}
		p, err := alloc.NewPicker(a, lv)
		if err != nil {
			return err
		}
		pick = p
	}
	t, err := machine.NewTable(s.model, s.nodes, len(s.jobs), pick, s.pol.Shutdown != nil || s.pol.Active != nil, t0)
	if err != nil {
		return fmt.Errorf("machine %s: %w", s.machine.Name, err)
	}
	s.mach, s.cnt = t, t.Counts()
	if s.recordNodes {
		s.held = make([]string, len(s.jobs))
	}
	return nil
}

// eachPassRule calls f with each rule a pass may read: the scheduler's,
// the budget's and the powercaps' conditions (the defer stage's are
// walked ahead, not waited for). (A callback, not a slice: deps is asked
// in every run's set-up, which allocates nothing it need not.)
func (p *Policy) eachPassRule(f func(*Expr)) {
	for _, e := range [...]*Expr{p.Order, p.Priority, p.Admit, p.Value, p.Weight, p.Frequency.Rule} {
		if e != nil {
			f(e)
		}
	}
	if p.Budget != nil && p.Budget.While != nil {
		f(p.Budget.While)
	}
	for i := range p.Powercaps {
		if w := p.Powercaps[i].While; w != nil {
			f(w)
		}
	}
}

func (p *Policy) deps() Deps {
	var d Deps
	p.eachPassRule(func(e *Expr) { d |= e.Deps })
	for _, pc := range p.Powercaps {
		if pc.While == nil && pc.When == BudgetDuringPeak {
			d |= DepPeak // a pass when the cap starts and ends
		}
	}
	return d
}

// passDeps is what the policy's passes depend on: its rules, and the peak
// under a budget during peak (a pass when peak ends starts what the budget
// held back).
func (p *Policy) passDeps() Deps {
	d := p.deps()
	if b := p.Budget; b != nil && b.When == BudgetDuringPeak {
		d |= DepPeak
	}
	return d
}

// maxIdleSpan bounds simulated time without progress, so a policy that
// never admits a waiting job ends with an error instead of looping.
const maxIdleSpan = 20 * 365 * 86400.0

// loop runs the run's instants until its last job ends and, with an
// accounting window, on to the window's end: the tail, where the machine
// idles, shuts nodes down and follows its stages (a powercap window, say)
// with no job left.
func (s *sim) loop() error {
	next := 0
	lastProgress := s.now
	s.lastEnd = math.NaN()
	for {
		if s.stream.abandoned {
			return errFeedAbandoned
		}
		if s.stream.feed != nil && next == len(s.jobs) {
			if err := s.stream.pull(s); err != nil {
				return err
			}
		}
		n := len(s.jobs)
		tail := s.done >= n
		if tail {
			if s.lastEnd != s.lastEnd { // (NaN: the instant just done ended the last job)
				s.lastEnd = s.now
			}
			if !s.windowed || s.now >= s.accTo {
				break
			}
		}
		t := math.Inf(1)
		if next < n {
			t = s.jobs[next].Submit
		}
		if len(s.heap) > 0 && s.heap[0].t < t {
			t = s.heap[0].t
		}
		if len(s.stages.wakers) > 0 {
			t = min(t, s.wakeStages())
		}
		if tail {
			t = min(t, s.accTo)
		}
		if math.IsInf(t, 1) {
			s.flatQueue()
			return s.neverStarted(fmt.Sprintf("%s never started, and nothing else is left to happen", jobCount(s.q.nwait)), true)
		}
		s.advance(t)
		events := len(s.heap) > 0 && s.heap[0].t == t
		for len(s.heap) > 0 && s.heap[0].t == t {
			s.apply(s.pop())
			lastProgress = t
		}
		arrived := next
		for {
			if s.stream.feed != nil && next == len(s.jobs) {
				// (jobs submitted at t may be still to come)
				if err := s.stream.pull(s); err != nil {
					return err
				}
			}
			if next == len(s.jobs) || s.jobs[next].Submit != t {
				break
			}
			s.enqueue(int32(next))
			next++
			lastProgress = t
		}
		if s.stream.abandoned {
			return errFeedAbandoned
		}
		if len(s.stages.befores)+len(s.stages.gates)+len(s.stages.afters) == 0 {
			if s.pass() {
				lastProgress = t
			}
		} else if started, err := s.stagedPass(arrived, next, events); err != nil {
			return err
		} else if started {
			lastProgress = t
		}
		s.observe()
		if !tail && t-lastProgress > maxIdleSpan {
			s.flatQueue()
			return s.neverStarted(fmt.Sprintf("%s never started: nothing happened for %.0f days", jobCount(s.q.nwait), maxIdleSpan/86400), false)
		}
	}
	return nil
}

// peakIndex is the index of the tariff's "peak" period, −1 if none.
func peakIndex(tar tariff.Tariff) int {
	i := -1
	for k, p := range tar.Periods() {
		if p == "peak" {
			i = k
		}
	}
	return i
}

// newLedger is the run's accounting under a tariff, a carbon intensity
// and a bill (see withBill), from t0.
func (a *accounting) newLedger(model *machine.Model, clock tariff.Clock, tar, carbon tariff.Tariff, bill *Contract, t0 float64) *ledger.Ledger {
	return ledger.New(ledger.Options{
		Components: len(model.Components()), Levels: len(model.Spec().Levels), PStates: model.PStates(),
		Tariff: tar, Clock: clock, Windowed: a.windowed, From: a.accFrom, To: a.accTo,
		Carbon: carbon, Meter: meterOf(bill),
	}, t0)
}

// observe ends an instant: level changes are counted, and the machine's
// state recorded when asked for.
func (s *sim) observe() {
	if len(s.cnt.LevelsOn) > 0 {
		s.led.Observe(s.cnt.LevelsOn)
		for _, b := range s.twins {
			b.led.Observe(s.cnt.LevelsOn)
		}
	}
	if s.states != nil {
		s.model.Power(s.cnt, s.watts)
		capW := math.NaN()
		if s.caps != nil {
			if c := s.caps.capAt(s); !math.IsInf(c, 1) {
				capW = c
			}
		}
		s.states.record(s.now, s.cnt, s.watts, capW)
	}
}

// advance integrates power up to time t: the machine's state since the
// last change.
func (s *sim) advance(t float64) {
	if t <= s.now {
		return
	}
	if s.stale {
		s.sample.Total = s.model.Power(s.cnt, s.sample.Power)
		s.sample.Busy, s.sample.Work, s.sample.Off = s.cnt.Busy, s.cnt.Work, s.cnt.Off
		s.stale = false
	}
	if s.caps != nil {
		s.caps.observe(s, t, s.sample.Total)
	}
	if s.windowed {
		s.bootMarks.mark(s, t)
	}
	s.led.Advance(t, &s.sample)
	for _, b := range s.twins {
		b.led.Advance(t, &s.sample)
	}
	s.now = t
}

// apply handles one event.
func (s *sim) apply(e event) {
	s.changed, s.stale = true, true
	switch e.kind {
	case evEnd:
		j := e.job
		if s.caps != nil && s.caps.gone[j] {
			return // a powercap killed it earlier
		}
		if s.wt != nil {
			s.commitW -= s.wt[j]
		}
		s.removeRunning(s.start[j]+s.runEst(j), j)
		s.mach.Release(j, s.use(j), s.now)
		s.done++
	case evBootDone:
		s.mach.Booted(e.job, s.use(e.job), int(e.n))
	case evBootIdle:
		s.caps.table.BootDone(int(e.n), s.now)
		s.removeRunning(e.t, e.job)
	case evCapShutDone:
		s.mach.ShutDone(int(e.n))
	case evShutDone:
		s.mach.ShutDone(int(e.n))
		s.removeRunning(e.t, e.job)
	case evActShutDone, evActBootDone:
		s.capa.applyEvent(s, e)
	}
}

// free is the number of nodes a job could take now.
func (s *sim) free() int {
	if s.capa != nil {
		return s.capa.free(s)
	}
	return s.cnt.Free()
}

// startJob starts job j now (or when its nodes have booted).
func (s *sim) startJob(j int32) {
	if s.caps != nil {
		w, p, ok := s.weigh(j)
		if !ok { // (a pass starts a job here on free nodes only when no cap bears on it)
			p = s.freq.at(s, j)
			w = s.caps.delta(s, j, p, 0)
		}
		s.startAt(j, w, p)
		return
	}
	if s.wt != nil {
		s.startWeighted(j, s.bp.weightOf(s, j))
		return
	}
	s.startNodes(j)
}

// startWeighted starts job j, charging weight w against the budget.
func (s *sim) startWeighted(j int32, w float64) {
	s.wt[j] = w
	s.commitW += w
	s.startNodes(j)
}

func (s *sim) startNodes(j int32) {
	s.dequeue(j)
	if s.freq.kind == FreqRule && s.caps == nil { // (under caps, weigh chose it)
		p := s.freq.at(s, j)
		s.pstate[j] = uint8(p)
		s.jw[j] = s.jobPower(j, p)
	}
	s.stale = true
	ts := s.now
	boot := s.machine.BootTime > 0
	estEnd := ts + s.runEst(j)
	if boot && int(s.alloc[j]) > s.cnt.Idle {
		estEnd += s.machine.BootTime
	}
	u := s.use(j)
	if s.caps != nil {
		_, _, u.Avoid, _ = s.caps.capOf(s, j, int(s.pstate[j]))
	}
	if booting := s.mach.Take(j, u, estEnd, boot); booting > 0 {
		ts += s.machine.BootTime
		s.push(event{t: ts, kind: evBootDone, job: j, n: int32(booting)})
	}
	s.start[j] = ts
	s.end[j] = ts + s.jobs[j].Runtime
	if len(s.stretch) > 1 {
		s.end[j] = ts + s.jobs[j].Runtime*s.stretch[s.pstate[j]]
	}
	s.status[j] = 1
	s.push(event{t: s.end[j], kind: evEnd, job: j})
	s.run.insert(running{est: ts + s.runEst(j), nodes: s.alloc[j], id: j})
	if s.held != nil {
		s.ids = s.mach.Held(s.ids[:0], j)
		s.held[j] = nodeRanges(s.ids)
	}
	if s.caps != nil {
		s.caps.power = s.model.Power(s.cnt, s.watts)
	}
}

// estimate is job j's estimated run time if it started now at the pstate
// the frequency stage gives it. (Under a powercap, a capped pass asks
// runEst once Alg. 2 has chosen the pstate: see backfillEASY.)
func (s *sim) estimate(j int32) float64 {
	if s.freq.kind == FreqRule {
		return s.ruleEstimate(j)
	}
	return s.est[j]
}

// ruleEstimate is estimate under a frequency rule (apart, so that
// estimate is inlined).
func (s *sim) ruleEstimate(j int32) float64 { return s.estAt(j, s.freq.at(s, j)) }

func (s *sim) removeRunning(est float64, id int32) {
	if !s.run.remove(est, id) {
		panic(fmt.Sprintf("pwrc: internal error: running entry %d (est %g) not found", id, est))
	}
}

// heap of events ordered by time, then kind, then job index, so equal
// times are applied in a fixed order. (Events equal in all three are
// batches of nodes shutting down, whose order changes nothing.) Entries
// move into a hole rather than swap; a pop takes the hole down along the
// lesser children to a leaf and brings the last entry up from there (it
// mostly belongs near the bottom): about half the comparisons.
func (s *sim) push(e event) {
	s.heap = append(s.heap, e)
	siftUp(s.heap, len(s.heap)-1, e)
}

func (s *sim) pop() event {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	if n > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && evLess(h[r], h[c]) {
				c = r
			}
			h[i] = h[c]
			i = c
		}
		siftUp(h, i, last)
	}
	s.heap = h
	return top
}

// siftUp puts e in the heap h at the hole i or above it, moving down the
// entries it goes past.
func siftUp(h []event, i int, e event) {
	for i > 0 {
		p := (i - 1) / 2
		if !evLess(e, h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func evLess(a, b event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.job < b.job
}

// meterOf is the metered interval a contract's band or demand charge
// needs (0: none).
func meterOf(k *Contract) float64 {
	if k != nil && (k.Band != nil || k.Demand != nil) {
		return k.Meter
	}
	return 0
}
