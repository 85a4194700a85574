package runtime

import (
	"errors"
	"io"
	"math"
	"slices"

	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Part is the part of a run's scenario that a problem with its inputs lies
// in, so that `pwrc check` can point at the words that name it.
type Part uint8

// Parts of a run.
const (
	PartWorkload   Part = iota // the workload: its trace (reading, cleaning, clock) or its synthetic model
	PartCuts                   // the workload's cuts, `keep` and `submitted`
	PartAccount                // the experiment's accounting (or measure) window
	PartPrices                 // the contract's prices
	PartCarbon                 // the contract's carbon intensity
	PartBudget                 // the policy's power budget
	PartAllocation             // the policy's allocation unit (`allocate contiguous N`)
)

// InputError is a problem with a run's inputs that the run meets before it
// simulates anything: its Error is what the run fails with, and Part where
// the problem lies. Reading errors wrap the readers' located errors
// (*workload.LineError, *tariff.LineError).
type InputError struct {
	Part Part
	Err  error
}

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// InputCheck reads the inputs of runs as Execute does, with the same
// loader, readers, cleaning, cuts, clock and tariffs, for `pwrc check`: what
// a run would fail with before simulating, check reports. Each file is
// read once, however many runs name it. An InputCheck is not safe for
// concurrent use.
type InputCheck struct {
	ld *loader
	// recent are the traces read, most recently used last; older ones are
	// dropped, so that checking a sweep over many traces holds few.
	recent []traceKey
}

// maxCheckedSynthetic is the most jobs of a synthetic workload that
// InputCheck generates, to check its cuts and the policy against them
// (80 MB of jobs); a larger one's model is only validated, so that check
// stays light.
const maxCheckedSynthetic = 1_000_000

// keptTraces is how many traces an InputCheck keeps read.
const keptTraces = 2

// NewInputCheck returns an InputCheck that opens data files with open (nil:
// os.Open).
func NewInputCheck(open func(string) (io.ReadCloser, error)) *InputCheck {
	ld := newLoader(&Plan{}, nil, nil)
	if open != nil {
		ld.open = open
	}
	ld.lastCut = &madeCut{}
	return &InputCheck{ld: ld}
}

// RunInputs is what reading a run's inputs found.
type RunInputs struct {
	// Err is what the run would fail with before it simulates (an
	// *InputError), or, found here, a contract's series that cannot cover
	// the run's jobs; nil if nothing.
	Err   error
	Notes []string
	// Nodes is the machine's width, `nodes auto` resolved; 0 if unknown.
	Nodes int
	// Span is when the trace's cleaned jobs are submitted, before the
	// cuts, on its clock; nil if unknown.
	Span *TraceSpan
	Jobs int      // the jobs the run simulates
	Cut  CutStats // those its cuts dropped
	// Names are the names of the trace's jobs (Slurm accounting); nil
	// for other workloads.
	Names *workload.Names
	// First and Last are the first and last submissions of the jobs the
	// run simulates; Window, when Windowed, its accounting (or measure)
	// window; all in trace seconds.
	First, Last float64
	Windowed    bool
	Window      [2]float64
	// Widest is the most nodes a job of the run is allocated (its nodes
	// rounded up to the policy's contiguous unit).
	Widest int
	// Floor is what the machine draws with no job running: its
	// infrastructure alone, and with every node idle; Full is its most.
	Infrastructure, Idle, Full float64
	// OverBudget counts the jobs that weigh more than the policy's budget
	// (which always applies, weights job.power) at any pstate they may
	// run at: they can never start. Lightest is the lightest of them and
	// LightestW its weight; HeaviestW is the heaviest's.
	OverBudget int
	Lightest   int64
	LightestW  float64
	HeaviestW  float64
}

// unknownBaseline stands for a baseline not yet run: a budget relative to
// it is unknown, hence unbounded, at check time.
var unknownBaseline = &Result{Metrics: Metrics{JobPowerMean: math.Inf(1)}}

// Run reads run's inputs.
func (ic *InputCheck) Run(run *Run) (ri RunInputs) {
	defer func() {
		if x := recover(); x != nil {
			var ee *EvalError
			if e, ok := x.(error); ok && errors.As(e, &ee) {
				ri.Err = &InputError{Part: PartWorkload, Err: ee}
				return
			}
			panic(x)
		}
	}()
	w := &run.Workload
	if w.Kind == Synthetic && w.Synthetic.Jobs > maxCheckedSynthetic {
		spec := w.Synthetic
		spec.Nodes = run.Machine.Nodes
		if err := spec.Validate(); err != nil {
			ri.Err = &InputError{Part: PartWorkload, Err: err}
		}
		return ri
	}
	jobs, info, err := ic.ld.jobs(run)
	defer ic.forget(run)
	if err != nil {
		ri.Err = err
		return ri
	}
	ri.Nodes, ri.Names = info.Nodes, info.Names
	m := &run.Machine
	model := machine.NewModel(machineSpec(m, info.Nodes))
	ri.Infrastructure = model.Spec().Infrastructure
	ri.Idle = ri.Infrastructure + float64(info.Nodes)*m.Power.Idle + model.AllLevelsOn()
	ri.Full = model.Full()
	su, err := setUp(run, info, jobs, ic.ld, unknownBaseline)
	ri.Notes, ri.Cut = su.notes, su.cut
	if len(jobs) > 0 {
		ri.Span = &TraceSpan{First: jobs[0].Submit, Last: jobs[len(jobs)-1].Submit, Clock: su.clock}
	}
	if err != nil {
		ri.Err = err
		return ri
	}
	jobs = su.jobs
	ri.Jobs = len(jobs)
	if len(jobs) > 0 {
		ri.First, ri.Last = jobs[0].Submit, jobs[len(jobs)-1].Submit
	}
	ri.Windowed, ri.Window = su.windowed, [2]float64{su.from, su.to}
	// Jobs wider than the machine in whole allocation units: the run
	// fails on them before it simulates (initJobs).
	unit := max(1, run.Policy.Contiguous)
	wide, firstWide := 0, -1
	for i := range jobs {
		a := (jobs[i].Nodes + unit - 1) / unit * unit
		if a > info.Nodes {
			if wide++; wide == 1 {
				firstWide = i
			}
			continue
		}
		ri.Widest = max(ri.Widest, a)
	}
	if wide > 0 {
		ri.Err = &InputError{Part: PartAllocation, Err: wideError(jobs[firstWide], wide, info.Nodes, unit)}
		return ri
	}
	ri.Err = coversJobs(run, &su)
	ri.OverBudget, ri.Lightest, ri.LightestW, ri.HeaviestW = overBudget(run, jobs, model, info.Nodes, su.acct.budget, su.names)
	return ri
}

// coversJobs checks that the contract's hourly series cover what any
// simulation of the run spans: from its first submission (or accounting
// window) to its last submission, the end of its accounting window and,
// unless a powercap kills jobs, the earliest end of each job. A run whose
// series do not fails once simulated; check says so before.
func coversJobs(run *Run, su *setup) error {
	jobs := su.jobs
	if len(jobs) == 0 {
		return nil
	}
	end := jobs[len(jobs)-1].Submit
	if su.windowed {
		end = max(end, su.to)
	}
	if !slices.ContainsFunc(run.Policy.Powercaps, func(pc Powercap) bool { return pc.Kill }) {
		for i := range jobs {
			end = max(end, jobs[i].Submit+jobs[i].Runtime)
		}
	}
	const ends = "the run's last job ends, at the earliest"
	if _, err := coverage(pricesOf(&run.Contract), su.clock, su.acct.book.tar, su.priceFrom, end, ends); err != nil {
		return &InputError{Part: PartPrices, Err: err}
	}
	if c := su.acct.book.carbon; c != nil {
		if _, err := coverage(carbonOf(&run.Contract), su.clock, c, su.priceFrom, end, ends); err != nil {
			return &InputError{Part: PartCarbon, Err: err}
		}
	}
	return nil
}

// overBudget counts the jobs that can never start under the policy's
// budget: it always applies, a job's weight is its power (the default),
// and the job's power at the lowest pstate it may run at, on the nodes it
// is given, is above the budget. It returns their number, the lightest
// and its weight, and the heaviest's weight.
func overBudget(run *Run, jobs []workload.Job, model *machine.Model, nodes int, budget float64, names *NameSets) (n int, lightest int64, weight, heaviest float64) {
	p := &run.Policy
	b := p.Budget
	if b == nil || b.When != BudgetAlways || b.OfBaseline > 0 || p.Weight != nil || len(p.Powercaps) > 0 || math.IsInf(budget, 1) {
		return 0, 0, 0, 0
	}
	m := &run.Machine
	// The share of the highest pstate's busy power a job draws at the
	// lowest pstate it may run at.
	low := 1.0
	choice := newPStateChoice(p.Frequency, m)
	switch {
	case choice.kind == FreqPState:
		low = model.BusyPower(choice.fixed) / model.BusyPower(0)
	case choice.kind == FreqRule:
		for ps := range model.PStates() {
			low = min(low, model.BusyPower(ps)/model.BusyPower(0))
		}
	}
	unit := max(1, p.Contiguous)
	pw := jobPowers(jobs, run.Workload.Power, m, names)
	for i := range jobs {
		j := &jobs[i]
		alloc := (j.Nodes + unit - 1) / unit * unit
		if alloc > nodes {
			continue // (the run fails on it anyway: too wide)
		}
		w := float64(j.Nodes)*pw[i]*low + float64(alloc-j.Nodes)*m.Power.Idle
		if w > budget {
			if n == 0 || w < weight {
				lightest, weight = j.ID, w
			}
			heaviest = max(heaviest, w)
			n++
		}
	}
	return n, lightest, weight, heaviest
}

// SwitchesOff reports whether the powercap switches nodes off for its
// window (a reserved window whose mode is not dvfs or idle).
func (pc *Powercap) SwitchesOff() bool { return pc.switchesOff() }

// forget drops what the check holds beyond the run's own trace and its
// cleaned jobs: the cleaned jobs of other shapes, and the traces read
// least recently past the last keptTraces.
func (ic *InputCheck) forget(run *Run) {
	ld := ic.ld
	tk := keyOf(run)
	if run.Workload.Kind == Synthetic {
		tk = traceKey{}
	}
	spec := run.Workload.Synthetic
	spec.Nodes = run.Machine.Nodes
	for k := range ld.cleaned {
		if k.trace != tk || run.Workload.Kind == Synthetic && k.synth != spec {
			delete(ld.cleaned, k)
		}
	}
	if run.Workload.Kind == Synthetic {
		return
	}
	ic.recent = append(slices.DeleteFunc(ic.recent, func(k traceKey) bool { return k == tk }), tk)
	for len(ic.recent) > keptTraces {
		delete(ld.traces, ic.recent[0])
		ic.recent = ic.recent[1:]
	}
}

// Trace is the trace run reads, as the check read it; nil if it could not
// be read (Run says why) or the run's workload is synthetic.
func (ic *InputCheck) Trace(run *Run) *workload.Trace {
	if run.Workload.Kind == Synthetic {
		return nil
	}
	tr, err := getOnce(&ic.ld.mu, ic.ld.traces, keyOf(run), func() (*workload.Trace, error) {
		return ic.ld.read(&run.Workload, keyOf(run))
	})
	if err != nil {
		return nil
	}
	return tr
}
