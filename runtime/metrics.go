package runtime

import (
	"math"
	"slices"

	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// Metrics summarise one run (DESIGN §4.7). Energies are in J, powers in W,
// times in s, money in the contract's currency.
type Metrics struct {
	Jobs        int     // jobs simulated
	Dropped     int     // records dropped by cleaning
	Capped      int     // jobs simulated whose run times were capped at their requested time
	RunDays     float64 // (last end − first submit) / 1 day
	Utilization float64 // busy node-seconds / (nodes · accounted span)
	// The accounted span, trace seconds: the run's own (first submission
	// to last end) unless the experiment gives an `account` window.
	AccountFrom, AccountTo float64
	Windowed               bool
	// The accounted span as local times (RFC 3339, with the zone's
	// offset), on the run's clock.
	AccountFromLocal, AccountToLocal string
	// SavingAgainst names the run its saving (and inverse pairs) were
	// computed against, when it has a baseline.
	SavingAgainst string
	Nodes         int
	Energy        float64 // total, J
	// Components name the entries of EnergyBy and CostBy: busy, idle,
	// off, boot, shutdown, one per level component, infrastructure.
	Components []string
	EnergyBy   []float64
	Cost       float64
	CostBy     []float64
	Periods    []PeriodStat
	Currency   string
	PeakPower  float64
	Saving     float64 // baseline cost − cost; valid when HasSaving
	SavingPct  float64 // Saving as % of the baseline cost
	HasSaving  bool
	// The same for the cost of the energy running jobs draw (their nodes,
	// with the idle rest of contiguous allocations), without idle nodes or
	// infrastructure: the cost Zhou et al. report.
	JobSaving    float64
	JobSavingPct float64
	WaitMean     float64
	WaitQ25      float64
	WaitQ50      float64
	WaitQ75      float64
	WaitQ90      float64
	WaitQ99      float64
	WaitMax      float64
	BsldMean     float64 // mean bounded slowdown, τ = 10 s, over the time each job ran
	// TurnaroundMean is the mean response time, end − submit, s.
	TurnaroundMean float64
	BusyNodeHours  float64 // node-hours allocated to jobs
	WorkNodeHours  float64 // node-hours jobs asked for (less than busy with contiguous allocation)

	PowerMean    float64 // W, everything, over the run
	JobPowerMean float64 // W drawn by running jobs, over the run
	// Means inside and outside the contract's peak periods (HasPeak).
	HasPeak                       bool
	PowerPeak, PowerOffPeak       float64
	JobPowerPeak, JobPowerOffPeak float64
	Budget                        float64 // W; 0 without a budget
	InversePairs                  int64   // job pairs whose start order flips against the baseline
	HasInversePairs               bool
	Hours                         [24]HourStat // by local hour of day
	Levels                        []LevelStat  // per level of the machine, lowest first
	// Powercaps (HasCaps): time and most W above the cap in force, jobs
	// killed at a cap's start (running kill).
	HasCaps          bool
	CapExcessSeconds float64
	CapExcessW       float64
	Killed           int
	// The rest of the bill (contracts with a band, a demand charge, an
	// energy budget; HasBill), in the contract's currency, included in
	// Cost; and the carbon emitted (HasCarbon).
	HasBill          bool
	Band             ledger.BandResult
	HasBand          bool
	PeakMeteredW     float64 // highest metered mean
	UtilizationHours float64 // energy / highest metered mean (LRZ's yearly-energy/peak rule)
	DemandCharge     float64
	EnergyOverrun    float64 // J above the energy budget
	OverrunCost      float64
	HasCarbon        bool
	CO2              float64 // g
	// Over a measure window (Measured; Georgiou et al.'s figures): jobs
	// started in it, core-seconds allocated inside it (the paper's
	// "work"; DVFS stretches it), the same divided by each job's s(f)
	// (work at full speed), and the means of nodes off and of the level
	// power saved against all levels on (the "bonus").
	Measured                  bool
	Launched                  int
	CPUSeconds, UsefulSeconds float64
	CPUPct, EnergyPct         float64 // of the machine's cores × window, of P_full × window
	NodesOffMean, BonusW      float64
	// Node power cycles (HasBoots: the policy may switch nodes off): the
	// nodes switched on over the accounted span, and that per node and
	// day, on average and for the node switched on most.
	HasBoots                            bool
	Boots                               int
	BootsPerNodeDay, BootsPerNodeDayMax float64
	PStateShare                         []float64    // share of busy node-time per pstate
	PStateCoreShare                     []float64    // share of the jobs' core-time per pstate, over the accounted span
	PStates                             []PStateStat // per pstate, highest first (machines with pstates)
	Theory                              Theory       // Kunkel et al.'s analysis of the run, if HasTheory
	HasTheory                           bool
	// Price-aware starts (HasDefer): decisions that weighed later starts,
	// the jobs some decision deferred and the hours they waited under a
	// pending deferral, and jobs started because they had waited past the
	// deadline.
	HasDefer       bool
	DeferDecisions int
	DeferredJobs   int
	DeferralHours  float64
	DeadlineStarts int

	// Lawson & Smirni (lawson_metrics.go): their mean bounded slowdown,
	// SLA-violation shares, and the capacity controller (nil without one).
	BsldLawson    float64
	SLAViolations SLAShares
	// SLAViolationsAt are the shares at the bounds the report asks for
	// (Run.SLAs), in their order.
	SLAViolationsAt []SLAShares `json:",omitempty"`
	Active          *ActiveStat
	Weeks           []WeekStat // per week from the first submission; only for runs that keep their states (--series)
}

// HourStat integrates one local hour of day over a run.
type HourStat = ledger.HourStat

// LevelStat is what one level kind did over the accounted span.
type LevelStat struct {
	Name      string
	Instances int
	OnMean    float64 // time-average of the instances on
	Energy    float64 // J drawn by the level's instances (all its components)
	// AllOn is the energy of every instance on all the time, the
	// counterfactual of Patil & Chaudhary's savings; Saving = AllOn − Energy.
	AllOn, Saving float64
	// Changes counts the instants at which the number of instances on
	// changed, Switches the instances switched on or off.
	Changes, Switches int
	// Components are the figures of each power component of the level
	// (Patil's fans and interconnect), named as in Metrics.Components.
	Components []ComponentStat
}

// ComponentStat is one component of a level: its energy and what it would
// have drawn with every instance on.
type ComponentStat struct {
	Name          string
	Energy, AllOn float64
}

// PStateStat is the jobs' use of one pstate.
type PStateStat struct {
	Freq        float64 // Hz
	Energy      float64 // J drawn by jobs running at it
	NodeSeconds float64 // busy nodes there × s
}

// Part is the energy (or, with cost, the cost) of one part of the
// machine: a node-state component (busy, idle, off, boot, shutdown),
// infrastructure, or levels (every level component).
func (m *Metrics) Part(part string, cost bool) float64 {
	v := m.EnergyBy
	if cost {
		v = m.CostBy
	}
	var sum float64
	for i, name := range m.Components {
		isLevel := i > machine.Shutdown && i < len(m.Components)-1
		if name == part && !isLevel || part == "levels" && isLevel {
			sum += v[i]
		}
	}
	return sum
}

// Level is the figures of the level called name ("" for the lowest), and
// whether the machine has it.
func (m *Metrics) Level(name string) (*LevelStat, bool) {
	for i := range m.Levels {
		if m.Levels[i].Name == name || name == "" {
			return &m.Levels[i], true
		}
	}
	return nil, false
}

// LevelEnergy is the energy of all levels, J.
func (m *Metrics) LevelEnergy() float64 {
	var e float64
	for _, l := range m.Levels {
		e += l.Energy
	}
	return e
}

// LevelSaving is the level energy avoided against every level always on, J.
func (m *Metrics) LevelSaving() (saving, allOn float64) {
	for _, l := range m.Levels {
		saving += l.Saving
		allOn += l.AllOn
	}
	return saving, allOn
}

// PeriodStat is energy and cost in one tariff period (peak, base, ...).
type PeriodStat struct {
	Name      string
	Energy    float64
	Cost      float64
	Seconds   float64 // time spent in the period
	JobEnergy float64 // J drawn by running jobs
}

// bsldTau is the bounded-slowdown threshold: runs shorter than this count as this long.
const bsldTau = 10.0

// runRecord is a finished run as its figures read it: the per-job tables,
// the accounting (a twin's, once useBook has switched it), the machine,
// and what each stage did. The engine hands it over when the run ends
// (record); computing figures from it changes nothing of the run.
type runRecord struct {
	jobTable
	*accounting
	pol       *Policy
	machine   *Machine
	model     *machine.Model
	nodes     int
	firstT    float64
	clock     tariff.Clock
	budget    float64
	caps      *capStage
	capa      *capacity
	defers    *deferStage
	boots     runBoots
	keepWeeks bool    // --series: Lawson's weeks too
	until     float64 // when the run ended (the last instant simulated)
}

// record is the run as its figures read it (see runRecord).
func (s *sim) record() *runRecord {
	return &runRecord{jobTable: s.jobTable, accounting: &s.accounting, pol: s.pol, machine: s.machine, model: s.model,
		nodes: s.nodes, firstT: s.firstT, clock: s.clock, budget: s.budget,
		caps: s.caps, capa: s.capa, defers: s.defers, keepWeeks: s.keepStates, until: s.now,
		boots: runBoots{total: s.cnt.Boots, perNode: nodeBoots(s.mach), marks: s.bootMarks}}
}

func (r *runRecord) metrics() Metrics {
	m := Metrics{Jobs: len(r.jobs), Nodes: r.nodes}
	l := r.led
	m.Components = r.model.Components()
	m.EnergyBy = l.Energy
	m.CostBy = l.Cost
	for c := range m.EnergyBy {
		m.Energy += l.Energy[c]
		m.Cost += l.Cost[c]
	}
	var on, off PeriodStat
	for i, name := range r.tar.Periods() {
		ps := PeriodStat{Name: name, Energy: l.PeriodEnergy[i], Cost: l.PeriodCost[i],
			Seconds: l.PeriodSeconds[i], JobEnergy: l.PeriodJobEnergy[i]}
		m.Periods = append(m.Periods, ps)
		acc := &off
		if i == r.peakIdx {
			acc = &on
			m.HasPeak = true
		}
		acc.Energy += ps.Energy
		acc.JobEnergy += ps.JobEnergy
		acc.Seconds += ps.Seconds
	}
	m.PowerPeak, m.JobPowerPeak = perSecond(on.Energy, on.Seconds), perSecond(on.JobEnergy, on.Seconds)
	m.PowerOffPeak, m.JobPowerOffPeak = perSecond(off.Energy, off.Seconds), perSecond(off.JobEnergy, off.Seconds)
	m.PeakPower = l.PeakPower
	m.BusyNodeHours = l.BusyNodeSeconds / 3600
	m.WorkNodeHours = l.WorkNodeSeconds / 3600
	m.Hours = l.Hours
	if r.pol.Budget != nil {
		m.Budget = r.budget
	}
	if len(r.jobs) == 0 {
		return m
	}
	span := r.lastEnd - r.firstT
	m.RunDays = span / 86400
	m.AccountFrom, m.AccountTo = r.firstT, r.lastEnd
	if r.windowed {
		m.Windowed, m.AccountFrom, m.AccountTo = true, r.accFrom, r.accTo
		span = r.accTo - r.accFrom
	}
	if span > 0 {
		m.Utilization = l.BusyNodeSeconds / (float64(r.nodes) * span)
		m.PowerMean = m.Energy / span
		m.JobPowerMean = m.EnergyBy[machine.Busy] / span
	}
	r.levelMetrics(&m, span)
	r.bootMetrics(&m, span)
	r.billMetrics(&m)
	if d := r.defers; d != nil {
		m.HasDefer = true
		m.DeferDecisions, m.DeferredJobs, m.DeadlineStarts = d.decisions, d.deferred, d.deadlineStarts
		m.DeferralHours = d.held / 3600
	}
	r.theory(&m, m.AccountFrom, m.AccountTo)
	if span > 0 {
		m.NodesOffMean = l.OffNodeSeconds / span
		if sv, _ := m.LevelSaving(); len(m.Levels) > 0 {
			m.BonusW = sv / span
		}
	}
	var busy float64
	for _, x := range l.PStateSeconds {
		busy += x
	}
	for _, x := range l.PStateSeconds {
		if busy > 0 && len(r.machine.PStates) > 1 {
			m.PStateShare = append(m.PStateShare, x/busy)
		}
	}
	r.coreShares(&m)
	if r.measured {
		r.measureJobs(&m)
	}
	if c := r.caps; c != nil {
		m.HasCaps, m.CapExcessSeconds, m.CapExcessW, m.Killed = true, c.excessSeconds, c.excessMax, c.killed
	}
	// The waits' quantiles sort every job's wait: beside Lawson's
	// figures, on another core (both only read the run).
	var w waitStats
	done := make(chan struct{})
	go func() {
		w = r.waitStats()
		close(done)
	}()
	r.lawsonMetrics(&m)
	<-done
	m.WaitMean, m.BsldMean, m.TurnaroundMean = w.mean, w.bsld, w.turnaround
	m.WaitQ25, m.WaitQ50, m.WaitQ75, m.WaitQ90, m.WaitQ99, m.WaitMax = w.q[0], w.q[1], w.q[2], w.q[3], w.q[4], w.max
	return m
}

type waitStats struct {
	mean, bsld, max, turnaround float64
	q                           [5]float64 // quantiles 0.25, 0.5, 0.75, 0.9, 0.99
}

func (r *runRecord) waitStats() waitStats {
	waits := make([]float64, len(r.jobs))
	var sumWait, sumBsld, sumTurn float64
	for i := range r.jobs {
		w := r.start[i] - r.jobs[i].Submit
		waits[i] = w
		sumWait += w
		run := r.end[i] - r.start[i] // (its run time at its pstate, or until a cap killed it)
		sumBsld += max(1, (w+run)/max(bsldTau, run))
		sumTurn += r.end[i] - r.jobs[i].Submit
	}
	n := float64(len(waits))
	st := waitStats{mean: sumWait / n, bsld: sumBsld / n, turnaround: sumTurn / n}
	qs := selectQuantiles(waits, []float64{0.25, 0.50, 0.75, 0.90, 0.99, 1})
	copy(st.q[:], qs)
	st.max = qs[5]
	return st
}

// selectQuantiles returns quantile(sorted x, q) for each of qs (in
// ascending order) without sorting x: it only moves into place the order
// statistics they read (quickselect, O(len(x)) on average), reordering x.
func selectQuantiles(x []float64, qs []float64) []float64 {
	out := make([]float64, len(qs))
	if len(x) == 0 {
		return out
	}
	from := 0 // x[:from] holds the from least values, x[from-1] the greatest of them
	for i, q := range qs {
		h := q * float64(len(x)-1)
		lo := int(math.Floor(h))
		for _, k := range []int{lo, lo + 1} {
			if k >= from && k < len(x) {
				nthElement(x, from, k)
				from = k + 1
			}
		}
		out[i] = quantile(x, q)
	}
	return out
}

// nthElement reorders x[from:] so that x[k] is the value sorted x[from:]
// would hold there, with none greater before it and none less after it.
func nthElement(x []float64, from, k int) {
	lo, hi := from, len(x)-1
	for hi-lo > 16 {
		// Median of three as the pivot, then Hoare's partition.
		m := int(uint(lo+hi) >> 1)
		if x[m] < x[lo] {
			x[m], x[lo] = x[lo], x[m]
		}
		if x[hi] < x[lo] {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if x[hi] < x[m] {
			x[hi], x[m] = x[m], x[hi]
		}
		p := x[m]
		i, j := lo, hi
		for i <= j {
			for x[i] < p {
				i++
			}
			for x[j] > p {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // x[j+1:i] all equal the pivot
		}
	}
	slices.Sort(x[lo : hi+1])
}

// quantile is the linearly interpolated quantile of sorted data (type 7 in
// Hyndman & Fan, the default of R and NumPy).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// perSecond is a mean power: energy over time, 0 for no time.
func perSecond(energy, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return energy / seconds
}

// JobCost is the cost of the energy running jobs draw: their nodes, with the
// idle rest of contiguous allocations.
func (m *Metrics) JobCost() float64 { return m.CostBy[machine.Busy] }

// levelMetrics fills the per-level and per-pstate figures over the
// accounted span.
func (r *runRecord) levelMetrics(m *Metrics, span float64) {
	l := r.led
	c, _ := r.model.LevelComponents()
	for i, lv := range r.machine.Levels {
		st := LevelStat{Name: lv.Name, Instances: r.model.Instances(i),
			Changes: l.LevelChanges[i], Switches: l.LevelSwitches[i]}
		for _, comp := range lv.Components {
			st.Energy += l.Energy[c]
			st.Components = append(st.Components, ComponentStat{Name: m.Components[c], Energy: l.Energy[c],
				AllOn: float64(st.Instances) * comp.Power * span})
			c++
		}
		if span > 0 {
			st.OnMean = l.LevelOnSeconds[i] / span
		}
		st.AllOn = float64(st.Instances) * r.model.LevelPower(i) * span
		st.Saving = st.AllOn - st.Energy
		m.Levels = append(m.Levels, st)
	}
	if len(r.machine.PStates) > 1 {
		for p, ps := range r.machine.PStates {
			m.PStates = append(m.PStates, PStateStat{Freq: ps.Freq, Energy: l.PStateEnergy[p], NodeSeconds: l.PStateSeconds[p]})
		}
	}
}

// coreShares is each pstate's share of the jobs' core-time (procs × time)
// over the accounted span, on a machine with pstates.
func (r *runRecord) coreShares(m *Metrics) {
	if len(r.machine.PStates) < 2 {
		return
	}
	a, b := m.AccountFrom, m.AccountTo
	by := make([]float64, len(r.machine.PStates))
	var all float64
	for j := range r.jobs {
		if o := min(r.end[j], b) - max(r.start[j], a); o > 0 {
			x := float64(r.jobs[j].Procs) * o
			by[r.pstate[j]] += x
			all += x
		}
	}
	for p := range by {
		if all > 0 {
			by[p] /= all
		}
	}
	m.PStateCoreShare = by
}

// measureJobs clips the jobs' figures to the measure window.
func (r *runRecord) measureJobs(m *Metrics) {
	a, b := r.accFrom, r.accTo
	m.Measured = true
	for j := range r.jobs {
		if r.start[j] >= a && r.start[j] < b {
			m.Launched++
		}
		if o := min(r.end[j], b) - max(r.start[j], a); o > 0 {
			cores := float64(r.jobs[j].Procs)
			m.CPUSeconds += cores * o
			m.UsefulSeconds += cores * o / r.stretch[r.pstate[j]]
		}
	}
	if d := b - a; d > 0 {
		m.CPUPct = 100 * m.CPUSeconds / (float64(r.nodes) * float64(max(1, r.machine.Cores)) * d)
		m.EnergyPct = 100 * m.Energy / (r.model.Full() * d)
	}
}

// billMetrics computes the bill beyond the energy price from the metered
// intervals and adds it to the cost.
func (r *runRecord) billMetrics(m *Metrics) {
	if r.carbon != nil {
		m.HasCarbon, m.CO2 = true, r.led.CO2
	}
	k := r.bill
	if k == nil || k.Band == nil && k.Demand == nil && k.EnergyBudget == 0 {
		return
	}
	m.HasBill = true
	iv := r.led.Intervals()
	for _, x := range iv {
		m.PeakMeteredW = max(m.PeakMeteredW, x.Mean)
	}
	if m.PeakMeteredW > 0 {
		m.UtilizationHours = m.Energy / m.PeakMeteredW / 3600
	}
	if k.Band != nil {
		m.HasBand = true
		m.Band = ledger.BandCharge(iv, *k.Band, r.clock)
	}
	if k.Demand != nil {
		m.DemandCharge, _ = ledger.DemandCharge(iv, *k.Demand, r.clock)
	}
	if k.EnergyBudget > 0 && m.Energy > k.EnergyBudget {
		m.EnergyOverrun = m.Energy - k.EnergyBudget
		m.OverrunCost = m.EnergyOverrun / 3.6e6 * k.Overrun
	}
	m.Cost += m.Band.Penalty + m.DemandCharge + m.OverrunCost
}
