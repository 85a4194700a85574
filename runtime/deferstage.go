package runtime

import (
	"errors"
	"fmt"
	"math"

	"github.com/pwrc/pwrc/runtime/deferral"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// deferStage is a run's price-aware start (Kunkel et al., kunkel.md §1.6):
// it decides when the job a FIFO pass would start next should start, and
// holds the job it deferred, if any, with its chosen start. The engine
// asks it three things: when to wake (wakeAt), whether an instant gets a
// pass at all (passes), and, in the pass, whether a job that fits waits
// (holds).
type deferStage struct {
	cfg  *Defer
	prof deferral.Profile
	plan deferral.Plan
	// What prof and plan were made for; noProfile and noPlan match none.
	profKey profileKey
	planKey planKey
	job     int32     // the deferred job; -1: none
	until   float64   // its chosen start
	since   float64   // when the pending deferral was decided
	seen    []bool    // per job: some decision deferred it
	fields  JobFields // what the stage's rules read of a job
	err     error     // a decision that failed ends the run

	// What the run reports.
	decisions      int     // decisions that weighed later starts
	deferred       int     // jobs some decision deferred
	held           float64 // Σ time jobs waited under a pending deferral, s
	deadlineStarts int     // jobs started because they had waited the deadline
}

// profileKey is what a window's profile depends on: its start, and the
// job when a rule objective reads the job's fields.
type profileKey struct {
	from float64
	job  int32
}

// planKey is what a job's plan depends on besides its profile.
type planKey struct {
	job                   int32
	run, waiting, running float64
}

// Keys that match no profile and no plan (NaN equals nothing).
var (
	noProfile = profileKey{from: math.NaN()}
	noPlan    = planKey{job: -1}
)

var deferKind = stageKind{
	name:   "defer",
	has:    func(p *Policy) bool { return p.Defer != nil },
	allows: allowances{stream: true, fixedPower: true}, // (it weighs the contract's prices)
	build: func(s *sim) (stage, error) {
		d := s.pol.Defer
		s.defers = newDeferStage(d, len(s.jobs))
		// Its rules need the pass's environment, but do not wake the
		// scheduler: the objective is walked ahead, not waited for.
		for _, e := range []*Expr{d.Waiting, d.Running, d.Rule} {
			if e != nil {
				s.deps |= e.Deps
			}
		}
		return s.defers, nil
	},
	clear: func(p *Policy) { p.Defer = nil },
}

// wake is the pending deferral's chosen start, or the deferred job's
// deadline if that comes first: a deadline is an instant of its own.
func (d *deferStage) wake(s *sim) float64 {
	t := d.wakeAt(s.now)
	if dl := d.deadline(s); dl > s.now {
		t = min(t, dl)
	}
	return t
}

// deadline is when the deferred job has waited its deadline (+Inf: no
// deferral pending, or no deadline).
func (d *deferStage) deadline(s *sim) float64 {
	if d.job < 0 || d.cfg.Deadline <= 0 {
		return math.Inf(1)
	}
	return s.jobs[d.job].Submit + d.cfg.Deadline
}

// gate: see passes; a deferred job's deadline always gets a pass.
func (d *deferStage) gate(s *sim, events bool) bool {
	return d.passes(s.now, events) || s.now >= d.deadline(s)
}

// arrivalOnly: a deferral decision reads the time, so a held head is
// decided again at every pass.
func (d *deferStage) arrivalOnly(*sim) bool { return false }

func newDeferStage(cfg *Defer, jobs int) *deferStage {
	return &deferStage{cfg: cfg, job: -1, seen: make([]bool, jobs), profKey: noProfile, planKey: noPlan,
		fields: fields(cfg.Waiting, cfg.Running, cfg.Rule)}
}

// wakeAt is the chosen start of the pending deferral, +Inf if none: a
// pass must run then even if nothing else happens.
func (d *deferStage) wakeAt(now float64) float64 {
	if d.job >= 0 && d.until > now {
		return d.until
	}
	return math.Inf(1)
}

// passes reports whether the instant now gets a scheduling pass, given
// whether anything but arrivals happened (a job ended, a node booted).
// Under commit no pass runs before the chosen start; under
// recompute_on_ends arrivals alone do not wake the scheduler while a
// deferral is pending.
func (d *deferStage) passes(now float64, events bool) bool {
	if d.job < 0 || now >= d.until {
		return true
	}
	switch d.cfg.Then {
	case DeferCommit:
		return false
	case DeferRecomputeOnEnds:
		return events
	}
	return true
}

// release ends the pending deferral of job j, if any, at now (it starts,
// is decided again, or no longer fits).
func (d *deferStage) release(j int32, now float64) {
	if d.job == j {
		d.held += now - d.since
		d.job = -1
	}
}

// holds reports whether job j, which fits the free nodes in a FIFO pass
// at s.now, waits for a later start; the committed start of a job whose
// time has come is not decided again.
func (d *deferStage) holds(s *sim, j int32) bool {
	if d.job == j && d.cfg.Then == DeferCommit && s.now >= d.until {
		d.release(j, s.now)
		return false
	}
	start, err := s.defers.decide(s, j)
	if err != nil {
		d.err = fmt.Errorf("job %d at %.0f s: %w", s.jobs[j].ID, s.now, err)
		return true
	}
	d.release(j, s.now)
	if start <= s.now {
		return false
	}
	if d.job >= 0 { // another job's deferral (a new head under a priority)
		d.release(d.job, s.now)
	}
	d.job, d.until, d.since = j, start, s.now
	if !d.seen[j] {
		d.seen[j] = true
		d.deferred++
	}
	return true
}

// hourStart is the start of the local clock hour containing t: prices are
// known for it and the next hours (a series' rows are local hours). It
// counts back the local minutes and seconds, so that in the hour a
// return from summer time repeats it is the hour t is in, not its twin.
func hourStart(clock tariff.Clock, t float64) float64 {
	w := clock.Time(t)
	return t - float64(w.Minute()*60+w.Second()) - float64(w.Nanosecond())/1e9
}

// decide returns when job j, which a FIFO pass at s.now is about to
// start (it fits), should start: s.now or later (steps 2–7 of §1.6).
func (d *deferStage) decide(s *sim, j int32) (float64, error) {
	cfg := d.cfg
	jb := &s.jobs[j]
	run := jb.Runtime // at the highest pstate: check keeps frequency stages out
	if cfg.Runtime == Requested && jb.Walltime > 0 {
		run = jb.Walltime
	}
	// Too long for the window: the job could not end inside it (step 2).
	if math.Floor(run/3600)+2 >= cfg.Lookahead/3600 {
		return s.now, nil
	}
	// Waited its deadline (step 3): it starts at the deadline at the latest.
	if cfg.Deadline > 0 && s.now-jb.Submit >= cfg.Deadline {
		d.deadlineStarts++
		return s.now, nil
	}
	from := hourStart(s.clock, s.now)
	end := from + cfg.Lookahead
	latest := end - run
	if latest <= s.now {
		return s.now, nil
	}
	if d.fields != 0 {
		s.setJobEnv(j, d.fields)
	}
	share := float64(jb.Nodes) * s.infra / float64(s.nodes)
	waiting, running := share, s.jw[j]+share
	if cfg.Waiting != nil {
		waiting = cfg.Waiting.Num(&s.env)
	}
	if cfg.Running != nil {
		running = cfg.Running.Num(&s.env)
	}
	// The window's profile and the job's plan are kept while they hold: a
	// deferred head is decided again at every pass, usually in the same
	// hour with the same powers.
	pk := profileKey{from: from, job: -1}
	if r := cfg.Rule; cfg.Objective == MinimizeRule && r.Deps&DepJob != 0 {
		pk.job = j
	}
	if d.profKey != pk {
		d.profKey, d.planKey = noProfile, noPlan
		if err := s.defers.profile(s, from, end); err != nil {
			return 0, err
		}
		d.profKey = pk
	}
	key := planKey{job: j, run: run, waiting: waiting, running: running}
	if d.planKey != key {
		job := deferral.Job{Latest: latest, Run: run, Waiting: waiting, Running: running, PreferNow: cfg.PreferNow}
		if err := d.plan.Reset(&d.prof, job); err != nil {
			return 0, err
		}
		d.planKey = key
	}
	dec, err := d.plan.Decide(s.now)
	if err != nil {
		return 0, err
	}
	d.decisions++
	return dec.Start, nil
}

// profile fills the stage's profile with the objective over [from,
// to]: the price, the carbon intensity, or the rule of both, each constant
// between the change points of the tariffs it reads.
func (d *deferStage) profile(s *sim, from, to float64) error {
	p := &d.prof
	p.Reset()
	p.End = to
	var price, carbon tariff.Tariff
	switch d.cfg.Objective {
	case MinimizePrice:
		price = s.tar
	case MinimizeCarbon:
		carbon = s.carbon
	default:
		price, carbon = s.tar, s.carbon
	}
	keepP, keepC := s.env.Price.Now, s.env.Carbon.Now
	defer func() { s.env.Price.Now, s.env.Carbon.Now = keepP, keepC }()
	for t, n := from, 0; t < to; n++ {
		if n > 1<<20 {
			return errDeferSegments
		}
		next := math.Inf(1)
		var pv, cv float64
		if price != nil {
			var nx float64
			pv, _, nx = price.At(t)
			next = min(next, nx)
		}
		if carbon != nil {
			var nx float64
			cv, _, nx = carbon.At(t)
			next = min(next, nx)
		}
		v := pv
		switch d.cfg.Objective {
		case MinimizeCarbon:
			v = cv
		case MinimizeRule:
			s.env.Price.Now, s.env.Carbon.Now = pv, cv
			v = d.cfg.Rule.Num(&s.env)
		}
		p.Add(t, v)
		if !(next > t) {
			return errDeferSegments
		}
		t = next
	}
	return nil
}

// errDeferSegments: a tariff whose changes do not advance, or change too
// often to walk.
var errDeferSegments = errors.New("defer: the price or carbon series changes too often to walk the look-ahead")
