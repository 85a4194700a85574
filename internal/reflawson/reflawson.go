// Package reflawson is an independent reference implementation of Lawson &
// Smirni's node-sleeping policies (two-level and online simulation, OLS) as
// specified in design/lawson.md, on top of EASY backfilling with the event
// semantics of DESIGN §5. It is written from the specifications alone, to
// serve as a test oracle for the main engine, and favours plain code over
// speed. Units: processors (Lawson counts processors) and seconds.
//
// Readings fixed here where lawson.md leaves a choice:
//   - At one instant: apply every job end, then every arrival (raising the
//     active count per arrival), then the OLS decision if one falls at that
//     instant (it sees the state after the ends and arrivals), then one EASY
//     pass, then the two-level lowering check (after-pass reading, unless
//     TwoLevel.LowerBeforePass).
//   - The timeline records at most one change per instant: the active count
//     after the instant's processing, when it differs from the count before
//     it. Changes counts those entries.
//   - OLS decisions fall at first submit + n·K, n ≥ 1 (n ≥ 0 with
//     DecideAtStart), and are taken only while some job is running, queued
//     or still to arrive after the ends and arrivals of that instant. With an
//     empty queue a decision chooses L(t) = busy without a simulation (may be
//     0); simulations are counted only when run.
//   - A job whose run exceeds its estimate ends at its estimate; the reported
//     slowdown uses that (capped) run time.
package reflawson

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Job is one job of a trace. Times are seconds; Width is in processors.
type Job struct {
	Submit   float64
	Width    int
	Run      float64 // actual run time (> 0)
	Estimate float64 // the scheduler's estimate (> 0); the job is killed at it
}

// dur is the time the job really holds its processors.
func (j Job) dur() float64 { return math.Min(j.Run, j.Estimate) }

// Policy sets the number of active processors over time.
type Policy interface {
	machine() int // U
}

// All keeps all U processors active.
type All struct{ U int }

// Fixed keeps N of the machine's U processors active.
type Fixed struct{ U, N int }

// TwoLevel is Lawson's two-level policy: start at U; an arrival wider than
// L while at L raises to U before the pass; after the pass, at U with busy
// ≤ L and widest queued ≤ L, lower to L. LowerBeforePass checks the
// lowering before the pass instead (lawson.md §5.1's alternative).
type TwoLevel struct {
	L, U            int
	LowerBeforePass bool
}

// Raise is how OLS answers an arrival wider than the active count between
// decisions.
type Raise int

const (
	ToWidth Raise = iota // active := the job's width (lawson.md §5.2 (a))
	ToMax                // active := U
)

// OLS is Lawson's online-simulation policy with power-aware adjustment.
type OLS struct {
	U             int
	S             float64 // SLA on the simulated mean slowdown of the queued jobs
	K             float64 // period between decisions, seconds
	Search        Search
	Raise         Raise
	DecideAtStart bool // also decide at the first submission (tests)
}

func (p All) machine() int      { return p.U }
func (p Fixed) machine() int    { return p.U }
func (p TwoLevel) machine() int { return p.U }
func (p OLS) machine() int      { return p.U }

// Change is a change of the active count.
type Change struct {
	Time   float64
	Active int
}

// Decision is one OLS decision.
type Decision struct {
	Time      float64
	Lower     int   // L(t)
	Chosen    int   // the active count set
	Simulated []int // levels simulated, in order
	Snapshot  Snapshot
}

// Metrics are a run's results (lawson.md §1.2).
type Metrics struct {
	Jobs         int
	MeanSlowdown float64 // mean Lawson s over all jobs
	ActiveUtil   float64 // Σ width·run / ∫ active dt
	Savings      float64 // 1 − ∫ active dt / (U · span)
	Span         float64 // last completion − first submit
	ActiveArea   float64 // ∫ active dt over the span
	Work         float64 // Σ width·run
	Changes      int
	Decisions    int
	Simulations  int
}

// Result is a run's output.
type Result struct {
	Start     []float64 // start time of each job, by input index
	Timeline  []Change  // every change of the active count
	Decisions []Decision
	Metrics   Metrics
}

// Run replays jobs under EASY backfilling and policy p. Jobs may be in any
// order; the queue is in submission order, ties in input order.
func Run(jobs []Job, p Policy) (*Result, error) {
	u := p.machine()
	if err := validate(jobs, p); err != nil {
		return nil, err
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmpFloat(jobs[a].Submit, jobs[b].Submit)
	})

	e := &easy{recs: make([]rec, len(jobs)), active: u}
	for i, j := range jobs {
		e.recs[i] = rec{submit: j.Submit, width: j.Width, est: j.Estimate, dur: j.dur()}
	}
	ols, isOLS := p.(OLS)
	two, isTwo := p.(TwoLevel)
	if f, ok := p.(Fixed); ok {
		e.active = f.N
	}
	initial := e.active
	res := &Result{}

	t0 := jobs[order[0]].Submit
	decN := 1
	if isOLS && ols.DecideAtStart {
		decN = 0
	}
	decAt := func() float64 {
		if !isOLS {
			return math.Inf(1)
		}
		return t0 + float64(decN)*ols.K
	}
	next := 0
	for next < len(order) || len(e.running) > 0 || len(e.queue) > 0 {
		t := decAt()
		if next < len(order) {
			t = math.Min(t, jobs[order[next]].Submit)
		}
		if at, ok := e.nextEnd(); ok {
			t = math.Min(t, at)
		}
		before := e.active

		e.finishAt(t)
		for next < len(order) && jobs[order[next]].Submit == t {
			i := order[next]
			next++
			e.queue = append(e.queue, i)
			w := jobs[i].Width
			switch {
			case isTwo && w > e.active:
				e.active = u
			case isOLS && w > e.active && ols.Raise == ToWidth:
				e.active = w
			case isOLS && w > e.active:
				e.active = u
			}
		}
		if isOLS && t == decAt() {
			decN++
			if next < len(order) || len(e.running) > 0 || len(e.queue) > 0 {
				d := Decision{Time: t, Snapshot: snapshot(e, t)}
				d.Lower = d.Snapshot.Lower()
				d.Chosen, d.Simulated = Decide(d.Snapshot, u, ols.S, ols.Search)
				e.active = d.Chosen
				res.Decisions = append(res.Decisions, d)
			}
		}
		lower := func() {
			if e.active == u && e.busy <= two.L && e.widestQueued() <= two.L {
				e.active = two.L
			}
		}
		if isTwo && two.LowerBeforePass {
			lower()
		}
		e.pass(t)
		if isTwo && !two.LowerBeforePass {
			lower()
		}
		if e.active != before {
			res.Timeline = append(res.Timeline, Change{Time: t, Active: e.active})
		}
	}

	res.Start = make([]float64, len(jobs))
	m := &res.Metrics
	m.Jobs = len(jobs)
	sum, lastEnd := 0.0, t0
	for i, r := range e.recs {
		res.Start[i] = r.start
		lastEnd = math.Max(lastEnd, r.start+r.dur)
		sum += Slowdown(r.start-r.submit, r.dur)
		m.Work += float64(r.width) * r.dur
	}
	m.MeanSlowdown = sum / float64(len(jobs))
	m.Span = lastEnd - t0
	m.ActiveArea = activeArea(initial, res.Timeline, t0, lastEnd)
	m.ActiveUtil = m.Work / m.ActiveArea
	m.Savings = 1 - m.ActiveArea/(float64(u)*m.Span)
	m.Changes = len(res.Timeline)
	m.Decisions = len(res.Decisions)
	for _, d := range res.Decisions {
		m.Simulations += len(d.Simulated)
	}
	return res, nil
}

// activeArea integrates the active count over [from, to], starting at
// initial and following the timeline.
func activeArea(initial int, tl []Change, from, to float64) float64 {
	area, level, at := 0.0, initial, from
	for _, c := range tl {
		area += float64(level) * (c.Time - at)
		level, at = c.Active, c.Time
	}
	return area + float64(level)*(to-at)
}

// snapshot clones the scheduler's state at t for an online simulation.
func snapshot(e *easy, t float64) Snapshot {
	s := Snapshot{Time: t}
	for _, i := range e.running {
		r := e.recs[i]
		s.Running = append(s.Running, RunningJob{Start: r.start, Width: r.width, Estimate: r.est})
	}
	for _, i := range e.queue {
		r := e.recs[i]
		s.Queue = append(s.Queue, QueuedJob{Submit: r.submit, Width: r.width, Estimate: r.est})
	}
	return s
}

func validate(jobs []Job, p Policy) error {
	u := p.machine()
	if u < 1 {
		return fmt.Errorf("reflawson: U = %d, want at least 1", u)
	}
	capacity := u
	switch p := p.(type) {
	case All:
	case Fixed:
		if p.N < 1 || p.N > u {
			return fmt.Errorf("reflawson: fixed level %d outside [1, %d]", p.N, u)
		}
		capacity = p.N
	case TwoLevel:
		if p.L < 0 || p.L > u {
			return fmt.Errorf("reflawson: two-level L = %d outside [0, %d]", p.L, u)
		}
	case OLS:
		if !(p.K > 0) || math.IsInf(p.K, 0) {
			return fmt.Errorf("reflawson: OLS period %g, want finite and > 0", p.K)
		}
		if math.IsNaN(p.S) {
			return errors.New("reflawson: OLS SLA is NaN")
		}
		if p.Search != TowardMax && p.Search != Binary {
			return fmt.Errorf("reflawson: unknown search %v", p.Search)
		}
		if p.Raise != ToWidth && p.Raise != ToMax {
			return fmt.Errorf("reflawson: unknown raise %d", p.Raise)
		}
	default:
		return fmt.Errorf("reflawson: unknown policy %T", p)
	}
	if len(jobs) == 0 {
		return errors.New("reflawson: no jobs")
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for i, j := range jobs {
		switch {
		case !finite(j.Submit) || !finite(j.Run) || !finite(j.Estimate):
			return fmt.Errorf("reflawson: job %d has a non-finite time", i)
		case j.Width < 1 || j.Width > capacity:
			return fmt.Errorf("reflawson: job %d has width %d, want 1..%d", i, j.Width, capacity)
		case j.Run <= 0 || j.Estimate <= 0:
			return fmt.Errorf("reflawson: job %d has run %g and estimate %g, want both > 0", i, j.Run, j.Estimate)
		}
	}
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
