package runtime

import (
	"fmt"
	"math"
	"strings"

	"github.com/pwrc/pwrc/runtime/alloc"
	"github.com/pwrc/pwrc/runtime/machine"
	pcap "github.com/pwrc/pwrc/runtime/powercap"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// Powercaps (Georgiou, Glesser & Trystram). A cap limits the whole
// machine's power: nodes in every state, levels, transitions and
// infrastructure. Two kinds:
//
//   - A reserved window (`powercap CAP from T for D`) is planned at its
//     notice: Alg. 1 (runtime/powercap) decides how many nodes to switch
//     off for the window, grouped into whole chassis and racks to collect
//     their bonus, and which (those free earliest). From the notice on,
//     jobs whose walltime overlaps the window may not take the reserved
//     nodes; at the window's start the reserved nodes go off (busy ones
//     when their jobs end), at its end they boot and are released.
//   - A cap set for now (`powercap CAP`, `during peak`, `while RULE`)
//     applies while its condition holds, without planning.
//
// Alg. 2, at every start (FCFS head, backfill alike): a job is constrained
// when a cap applies now or its walltime (unstretched) overlaps a noticed
// window; its cap is the lowest of those. Its pstate is chosen among those
// the mode allows (shut and idle: the top one; dvfs, mix, auto: down to
// `lowest`) so that the machine's power after the start, P_now plus the
// job's exact increment on the nodes it would get (machine.PowerDelta),
// stays under its cap: `fit_job` takes the fastest such pstate, `fit_idle`
// (SLURM's) no faster than every idle node could run under the cap. A job
// that fits at no allowed pstate waits. EASY's reservation counts power as
// budgets do: a constrained pass is a budgeted pass whose budget is the
// head's cap less the machine's power without its running jobs'
// increments, and whose weights are those increments.

// capWindow is one powercap of a run, its times on the trace clock.
type capWindow struct {
	pc       *Powercap
	cap      float64 // W
	planned  bool    // a reserved window
	notice   float64
	from, to float64 // the window; set-for-now caps: −Inf..+Inf, gated by applies
	lowest   int     // the lowest pstate jobs may run at under this cap
	phase    uint8   // planned windows: 0 before the notice, 1 noticed, 2 open, 3 over
	plan     pcap.Plan
	hasPlan  bool    // a plan was made
	id       int     // its switch-off reservation's id in the machine (−1: none)
	reserved []int32 // the nodes it reserved, nil if none
	// on: a cap set for now applies, as its condition read at the last
	// instant (every instant at which the condition may change is one).
	on bool
}

// capStage holds a run's powercaps and what they have done.
type capStage struct {
	wins  []capWindow
	table *machine.Table // nil: counted nodes (no planned switch-off)
	full  float64        // P_full, W
	power float64        // the machine's power now, kept up to date in capped passes
	freed float64        // the most a free node draws (idle or off), W
	// The caps set for now that apply in this pass (constrains sets it at
	// every pass: their rules read no job field and the pass's
	// environment is fixed): the binding one's index (−1: none).
	nowWin int
	read   bool // the conditions of caps set for now have been read once

	// Figures for metrics.
	excessSeconds float64 // time above the cap in force
	excessMax     float64 // W above it, at most
	killed        int
	gone          []bool // per job: a cap killed it (its end event is void)
	notes         []string
	holder        []int32
	freeAt        []float64
}

var powercapKind = stageKind{
	name:   "powercap",
	has:    func(p *Policy) bool { return len(p.Powercaps) > 0 },
	allows: allowances{}, // (Alg. 2 reads the machine's power and changes waiting jobs' pstates)
	build: func(s *sim) (stage, error) {
		if len(s.jobs) == 0 {
			return nil, nil
		}
		if s.origin == 0 {
			s.origin = s.jobs[0].Submit
		}
		cs, err := newCapStage(s, s.origin, s.clock)
		if err != nil {
			return nil, err
		}
		cs.gone = make([]bool, len(s.jobs))
		s.caps = cs
		return cs, nil
	},
	clear: func(p *Policy) { p.Powercaps = nil },
}

// wake is the next instant a planned window changes phase or the
// condition of a cap set for now may change (a change of the tariff's
// period for `during peak`; for `while RULE`, what the rule reads of the
// clock, the tariff and the carbon intensity: see nextChange). The first
// call, at the run's start, reads the conditions as they are then.
func (cs *capStage) wake(s *sim) float64 {
	if !cs.read {
		cs.readConditions(s)
	}
	t := cs.next(s.now)
	for i := range cs.wins {
		w := &cs.wins[i]
		if w.planned {
			continue
		}
		t = min(t, condition{w.pc.When, w.pc.While}.next(s))
	}
	return t
}

// before reads the conditions of the caps set for now (a while rule sees
// now) and moves the windows through their phases.
func (cs *capStage) before(s *sim, _, _ int) {
	cs.readConditions(s)
	cs.step(s)
}

// readConditions reads whether each cap set for now applies at this
// instant.
func (cs *capStage) readConditions(s *sim) {
	if s.passEnv() {
		s.setPassEnv()
	}
	cs.read = true
	for i := range cs.wins {
		w := &cs.wins[i]
		if w.planned {
			continue
		}
		w.on = condition{w.pc.When, w.pc.While}.holds(s)
	}
}

// arrivalOnly: Alg. 2 reads the machine's power and the time, so no pass
// a cap bears on is arrival-only. (Whether a cap bears changes only with
// a window's phase, which makes the pass a full one, or by a rule that
// reads the time, which never lets it be incremental: the last pass was
// not capped either.)
func (cs *capStage) arrivalOnly(s *sim) bool { return !cs.constrains(s) }

// newCapStage resolves a policy's powercaps on the run's clock (offsets
// count from origin, the cleaned trace's first submission) and checks them
// against the machine.
func newCapStage(s *sim, origin float64, clock tariff.Clock) (*capStage, error) {
	cs := &capStage{full: s.model.Full(), freed: max(s.machine.Power.Idle, s.machine.Power.Off), nowWin: -1}
	cs.table, _ = s.mach.(*machine.Table)
	first := s.jobs[0].Submit
	ids := 0
	for i := range s.pol.Powercaps {
		pc := &s.pol.Powercaps[i]
		w := capWindow{pc: pc, cap: pc.Power, from: math.Inf(-1), to: math.Inf(1), notice: math.Inf(-1), id: -1}
		if pc.Share > 0 {
			w.cap = pc.Share * cs.full
		}
		w.lowest = len(s.machine.PStates) - 1
		if pc.Lowest > 0 {
			for p, ps := range s.machine.PStates {
				if math.Abs(ps.Freq-pc.Lowest) <= 1e-6*pc.Lowest {
					w.lowest = p
				}
			}
		}
		if pc.Mode == CapShut || pc.Mode == CapIdle || w.lowest < 0 {
			w.lowest = 0
		}
		if pc.Start != nil {
			from, err := pc.Start.on(clock, origin)
			if err != nil {
				return nil, fmt.Errorf("policy %s: powercap: %v", s.pol.Name, err)
			}
			w.planned, w.from, w.to = true, from, from+pc.Duration
			w.notice = first
			if s.notice != nil {
				w.notice = *s.notice
			}
			if pc.Notice != nil {
				if w.notice, err = pc.Notice.on(clock, origin); err != nil {
					return nil, fmt.Errorf("policy %s: powercap notice: %v", s.pol.Name, err)
				}
			}
			w.notice = min(w.notice, w.from)
			switch {
			case w.from > s.jobs[len(s.jobs)-1].Submit:
				cs.notes = append(cs.notes, fmt.Sprintf("policy %s: the powercap window from %s starts after the last submission", s.pol.Name, pc.Start))
			case w.to <= first:
				cs.notes = append(cs.notes, fmt.Sprintf("policy %s: the powercap window from %s ends before the first submission: it caps nothing", s.pol.Name, pc.Start))
			}
			if pc.switchesOff() {
				if ids == 64 {
					return nil, fmt.Errorf("policy %s: more than 64 powercap windows switch nodes off", s.pol.Name)
				}
				w.id = ids
				ids++
			}
		}
		cs.wins = append(cs.wins, w)
	}
	// Overlapping windows: the lowest cap applies while several are open.
	for i := range cs.wins {
		a := &cs.wins[i]
		for k := i + 1; k < len(cs.wins); k++ {
			b := &cs.wins[k]
			if a.planned && b.planned && a.from < b.to && b.from < a.to && a.cap != b.cap {
				lo := a
				if b.cap < a.cap {
					lo = b
				}
				cs.notes = append(cs.notes, fmt.Sprintf("policy %s: the powercap windows at %s (%s) and at %s (%s) overlap; while both are open the lower, %s, applies",
					s.pol.Name, a.pc.Start, Watts(a.cap), b.pc.Start, Watts(b.cap), Watts(lo.cap)))
			}
		}
	}
	return cs, nil
}

// switchesOff reports whether a powercap is a reserved window whose mode
// may switch nodes off (shut, mix, auto).
func (pc *Powercap) switchesOff() bool {
	return pc.Start != nil && pc.Mode != CapDVFS && pc.Mode != CapIdle
}

// plansSwitchOff reports whether a policy's powercaps reserve nodes to
// switch off, which needs node identities.
func plansSwitchOff(pol *Policy) bool {
	for i := range pol.Powercaps {
		if pol.Powercaps[i].switchesOff() {
			return true
		}
	}
	return false
}

// applies reports whether w caps the machine now: a reserved window
// while it is open, a cap set for now while its condition holds (as read
// at this instant).
func (w *capWindow) applies(s *sim) bool {
	if w.planned {
		return s.now >= w.from && s.now < w.to
	}
	return w.on
}

// next is the next time after now at which a planned window changes phase.
func (cs *capStage) next(now float64) float64 {
	t := math.Inf(1)
	for i := range cs.wins {
		w := &cs.wins[i]
		if !w.planned {
			continue
		}
		for _, x := range []float64{w.notice, w.from, w.to} {
			if x > now && x < t {
				t = x
			}
		}
	}
	return t
}

// step moves planned windows through their phases at now: plan and
// reserve at the notice, switch off at the start (and kill jobs if the
// cap says so), boot and release at the end; while a window is open,
// its reserved nodes switch off as soon as they are idle. Each phase is
// taken by every window before the next, so that a window ending as
// another starts leaves their shared nodes off.
func (cs *capStage) step(s *sim) {
	for i := range cs.wins {
		if w := &cs.wins[i]; !w.planned && w.pc.Kill && w.applies(s) {
			cs.kill(s, w.cap)
		}
	}
	for i := range cs.wins {
		if w := &cs.wins[i]; w.planned && w.phase == 0 && s.now >= w.notice {
			w.phase = 1
			s.changed = true
			cs.reserve(s, w)
		}
	}
	for i := range cs.wins {
		if w := &cs.wins[i]; w.planned && w.phase == 1 && s.now >= w.from {
			w.phase = 2
			s.changed = true
			if w.pc.Kill {
				cs.kill(s, w.cap)
			}
		}
	}
	for i := range cs.wins {
		if w := &cs.wins[i]; w.planned && w.phase == 2 && s.now >= w.to {
			w.phase = 3
			s.changed = true
			if w.reserved != nil { // (only a machine's table holds reservations)
				if n := cs.table.BootReserved(w.id, cs.open(), s.machine.BootTime > 0, s.now); n > 0 && s.machine.BootTime > 0 {
					s.shutSeq++
					id := -s.shutSeq
					s.run.insert(running{est: s.now + s.machine.BootTime, nodes: int32(n), id: id})
					s.push(event{t: s.now + s.machine.BootTime, kind: evBootIdle, job: id, n: int32(n)})
				}
				cs.table.Unreserve(w.id)
				s.stale = true
			}
		}
	}
	for i := range cs.wins {
		if w := &cs.wins[i]; w.planned && w.phase == 2 && w.reserved != nil {
			d := s.machine.ShutdownTime
			if n := cs.table.SwitchOffReserved(w.id, d > 0); n > 0 {
				s.changed, s.stale = true, true
				if d > 0 { // (they come back only after the window: no entry for EASY)
					s.push(event{t: s.now + d, kind: evCapShutDone, n: int32(n)})
				}
			}
		}
	}
}

// open is the mask of the reservations of the windows open now.
func (cs *capStage) open() uint64 {
	var m uint64
	for i := range cs.wins {
		if w := &cs.wins[i]; w.phase == 2 && w.reserved != nil {
			m |= 1 << w.id
		}
	}
	return m
}

// machineOf is the machine as the planner sees it.
func (cs *capStage) machineOf(s *sim) pcap.Machine {
	m := s.machine
	pm := pcap.Machine{Nodes: s.nodes, Off: m.Power.Off, Idle: m.Power.Idle, Deg: m.Slowdown}
	for _, ps := range m.PStates {
		pm.PStates = append(pm.PStates, pcap.PState{Hz: ps.Freq, Watts: ps.Power})
	}
	if len(pm.PStates) == 0 {
		pm.PStates = []pcap.PState{{Hz: 1, Watts: m.Power.Busy}}
	}
	if pm.Deg < 1 {
		pm.Deg = 1
	}
	for l, lv := range m.Levels {
		pm.Levels = append(pm.Levels, pcap.Level{Name: lv.Name, Size: lv.Size, Watts: s.model.LevelPower(l)})
	}
	return pm
}

// reserve plans window w (Alg. 1) and reserves the nodes to switch off,
// those free earliest.
func (cs *capStage) reserve(s *sim, w *capWindow) {
	if !w.pc.switchesOff() || cs.table == nil {
		return
	}
	pm := cs.machineOf(s)
	req := pcap.Request{Cap: w.cap, Mode: pcap.Mode(w.pc.Mode), Lowest: w.lowest}
	if w.pc.Optimal {
		req.Planner = pcap.PlannerOptimal
	}
	if req.Lowest == 0 {
		req.Lowest = len(pm.PStates) - 1
	}
	if len(pm.PStates) < 2 && req.Mode != pcap.ModeShut {
		req.Mode = pcap.ModeShut // nothing to scale: switch-off is all there is
	}
	plan, err := pm.Plan(req)
	if err != nil {
		cs.notes = append(cs.notes, fmt.Sprintf("policy %s: the powercap at %s cannot be planned: %v", s.pol.Name, w.pc.Start, err))
		return
	}
	w.plan, w.hasPlan = plan, true
	if plan.Off == 0 {
		return
	}
	// Free times: idle and off nodes now, busy ones at their jobs'
	// estimated ends; anything free by the window's start is as good.
	// Nodes another window reserves while this one is open come first:
	// they are off then anyway.
	var shared uint64
	for k := range cs.wins {
		if v := &cs.wins[k]; v != w && v.reserved != nil && v.phase <= 2 && v.from < w.to && w.from < v.to {
			shared |= 1 << v.id
		}
	}
	other := cs.table.Reserved(shared)
	cs.holder = cs.table.HolderOf(cs.holder)
	cs.freeAt = cs.freeAt[:0]
	for i, j := range cs.holder {
		t := w.from
		switch {
		case other != nil && other.Has(i):
			t = math.Inf(-1)
		case j >= 0:
			t = max(t, s.start[j]+s.runEst(j))
		}
		cs.freeAt = append(cs.freeAt, t)
	}
	ch, err := pm.Choose(plan.Groups, cs.freeAt)
	if err != nil {
		cs.notes = append(cs.notes, fmt.Sprintf("policy %s: powercap: %v", s.pol.Name, err))
		return
	}
	var ids []int32
	for _, i := range ch.Nodes(&pm, nil) {
		ids = append(ids, int32(i))
	}
	w.reserved = ids
	cs.table.Reserve(w.id, ids)
}

// kill stops the most recently started jobs until the machine's power is
// at most cap (Georgiou et al.'s "extreme actions"; which jobs is not
// said: those that lose the least work).
func (cs *capStage) kill(s *sim, cap float64) {
	for s.run.len() > 0 {
		if s.model.Power(s.cnt, s.watts) <= cap {
			return
		}
		// The most recently started running job.
		k := -1
		run := s.run.items()
		for i, r := range run {
			if r.id >= 0 && s.start[r.id] <= s.now && (k < 0 || s.start[r.id] > s.start[run[k].id]) {
				k = i
			}
		}
		if k < 0 {
			return
		}
		j := run[k].id
		if s.start[j] > s.now { // still booting: the most recent running job is older
			return
		}
		cs.gone[j] = true
		s.end[j] = s.now
		if s.wt != nil {
			s.commitW -= s.wt[j]
		}
		s.run.deleteAt(k)
		s.mach.Release(j, s.use(j), s.now)
		s.done++
		s.changed, s.stale = true, true
		if !s.measured || s.now >= s.accFrom && s.now < s.accTo {
			cs.killed++ // (over a measure window, those killed in it)
		}
	}
}

// constrains reports whether some cap bears on this pass: one applies
// now, or a planned window has been noticed and is not over.
func (cs *capStage) constrains(s *sim) bool {
	bears := false
	cs.nowWin = -1
	for i := range cs.wins {
		w := &cs.wins[i]
		if w.planned {
			bears = bears || w.phase >= 1 && w.phase <= 2
		} else if w.applies(s) {
			bears = true
			if cs.nowWin < 0 || w.cap < cs.wins[cs.nowWin].cap {
				cs.nowWin = i
			}
		}
	}
	return bears
}

// capOf is job j's cap if it started now at pstate p, the mode's lowest
// pstate under it, and the reservations it must avoid: the lowest cap
// applying now or over a noticed window its walltime at p (× s(p))
// overlaps (+Inf: none), and those windows' reservations. At the top
// pstate the walltime is the trace's (SLURM's test); a job slowed down
// holds its nodes longer and must keep off the windows it then reaches.
//
// bind is the binding window's index (−1: none); of windows with the same
// cap the first binds.
func (cs *capStage) capOf(s *sim, j int32, p int) (cap float64, lowest int, avoid uint64, bind int) {
	cap, lowest, bind = math.Inf(1), 0, cs.nowWin
	if bind >= 0 {
		cap, lowest = cs.wins[bind].cap, cs.wins[bind].lowest
	}
	end := s.now + s.jobs[j].Walltime*s.stretch[p] // (stretch[0] is 1)
	for i := range cs.wins {
		w := &cs.wins[i]
		if !w.planned || !(w.phase >= 1 && w.phase <= 2 && s.now < w.to && end > w.from) {
			continue
		}
		if w.reserved != nil {
			avoid |= 1 << w.id
		}
		if w.cap < cap || w.cap == cap && i < bind {
			cap, lowest, bind = w.cap, w.lowest, i
		}
	}
	return cap, lowest, avoid, bind
}

// slowest is the slowest pstate any job may run at under the caps and
// the frequency stage.
func (cs *capStage) slowest(s *sim) int {
	p := 0
	for i := range cs.wins {
		p = max(p, cs.wins[i].lowest)
	}
	switch s.freq.kind {
	case FreqPState:
		p = max(p, s.freq.fixed)
	case FreqRule:
		p = len(s.stretch) - 1
	}
	return p
}

// leastIncrement is a lower bound on job j's power increment under any
// cap: its least power over the pstates 0..slowest less the most its
// nodes draw now. The queue index prunes capped walks on it (room), as it
// does on budget weights; fit's own bound is at least this.
func (cs *capStage) leastIncrement(s *sim, j int32, slowest int) float64 {
	least := s.jobPower(j, 0)
	for q := 1; q <= slowest; q++ {
		least = min(least, s.jobPower(j, q))
	}
	return least - float64(s.alloc[j])*cs.freed
}

// room is what every job may add to the machine's power in this capped
// pass: the lowest cap applying now less the power now (+Inf if none
// applies now: a job whose walltime reaches no window is unconstrained).
func (cs *capStage) room() float64 {
	if cs.nowWin < 0 {
		return math.Inf(1)
	}
	return cs.wins[cs.nowWin].cap - cs.power
}

// capAt is the cap in force on the machine now (+Inf if none).
func (cs *capStage) capAt(s *sim) float64 {
	c := math.Inf(1)
	for i := range cs.wins {
		if w := &cs.wins[i]; w.applies(s) && w.cap < c {
			c = w.cap
		}
	}
	return c
}

// delta is job j's power increment at pstate p on the nodes it would get.
func (cs *capStage) delta(s *sim, j int32, p int, avoid uint64) float64 {
	u := s.use(j)
	u.W, u.PState, u.Avoid = s.jobPower(j, p), p, avoid
	return s.mach.PowerDelta(u, s.machine.BootTime > 0)
}

// fit is Alg. 2: the pstate job j starts at now, and its increment, or
// ok false if it fits at none (or, avoiding reserved nodes, lacks nodes)
// or lim shows that the first it fits at would neither end in time nor
// fit the extra budget.
// Unconstrained jobs start at the frequency stage's pstate. At each
// pstate q the job's cap and the reservations it avoids are those of its
// walltime at q (capOf): a slower pstate may reach a window the top one
// does not, whose cap then applies too.
func (cs *capStage) fit(s *sim, j int32, lim backfillLimit) (w float64, p int, ok bool) {
	top := s.freq.at(s, j)
	if s.now+s.estAt(j, top)+lim.boot > lim.endBy && lim.extraW == math.Inf(-1) {
		return 0, 0, false
	}
	cap, lowest, avoid, bind := cs.capOf(s, j, top)
	if bind < 0 {
		if int(s.alloc[j]) > s.cnt.Free() {
			return 0, 0, false
		}
		return cs.delta(s, j, top, 0), top, true
	}
	lowest = max(lowest, top)
	// A bound first: at any pstate its increment is at least its least
	// power over the pstates it may run at less the most its nodes draw
	// now (idle, or off), and its cap is at most the one at the top pstate.
	// (A machine's power may not fall with frequency: `check` only warns.)
	least := s.jobPower(j, lowest)
	for q := top; q < lowest; q++ {
		least = min(least, s.jobPower(j, q))
	}
	least -= float64(s.alloc[j]) * cs.freed
	if least > cap-cs.power {
		return 0, 0, false
	}
	from := top
	if cs.wins[bind].pc.Fit == FitIdle {
		// SLURM's "optimal CPU frequency": the fastest at which every idle
		// node could run under the cap; then down until the job fits.
		from = lowest
		for q := top; q <= lowest; q++ {
			c, _, av, _ := cs.capOf(s, j, q)
			idle := float64(s.cnt.Idle)
			if r := cs.reservedOf(av); r != nil {
				idle -= float64(cs.table.State().IdleSet().AndCount(r))
			}
			if cs.power+idle*(s.model.BusyPower(q)-s.machine.Power.Idle) <= c {
				from = q
				break
			}
		}
	}
	for q := from; q <= lowest; q++ {
		if s.now+s.estAt(j, q)+lim.boot > lim.endBy && least > lim.extraW {
			// Too late here and at every slower pstate, and too much
			// for the extra budget at any.
			return 0, 0, false
		}
		if q > top {
			cap, _, avoid, _ = cs.capOf(s, j, q)
		}
		if s.jobPower(j, q)-float64(s.alloc[j])*cs.freed > cap-cs.power {
			continue // (its increment is at least this: not worth a walk over nodes)
		}
		if !cs.hasNodes(s, j, avoid) {
			continue
		}
		if d := cs.delta(s, j, q, avoid); d <= cap-cs.power {
			return d, q, true
		}
	}
	return 0, 0, false
}

// hasNodes reports whether job j finds its nodes now avoiding the
// reservations in avoid.
func (cs *capStage) hasNodes(s *sim, j int32, avoid uint64) bool {
	if avoid != 0 && cs.table != nil {
		return int(s.alloc[j]) <= cs.table.Available(avoid)
	}
	return int(s.alloc[j]) <= s.cnt.Free()
}

// reservedOf is the union of the reservations in avoid (nil: none).
func (cs *capStage) reservedOf(avoid uint64) *alloc.Bitset {
	if avoid == 0 || cs.table == nil {
		return nil
	}
	return cs.table.Reserved(avoid)
}

// planNotes describe each planned window's decision, for the table.
func (cs *capStage) planNotes(s *sim) []string {
	out := append([]string(nil), cs.notes...)
	for i := range cs.wins {
		w := &cs.wins[i]
		if !w.hasPlan {
			continue
		}
		p := &w.plan
		var groups []string
		for l := len(p.Groups.Count) - 1; l >= 0; l-- {
			if n := p.Groups.Count[l]; n > 0 {
				name := s.machine.Levels[l].Name
				if n > 1 && !strings.HasSuffix(name, "s") { // (11 racks, 2 chassis)
					name += "s"
				}
				groups = append(groups, fmt.Sprintf("%d %s", n, name))
			}
		}
		if n := p.Groups.Singles; n == 1 {
			groups = append(groups, "1 node")
		} else if n > 1 {
			groups = append(groups, fmt.Sprintf("%d nodes", n))
		}
		g := "none"
		if len(groups) > 0 {
			g = strings.Join(groups, " + ")
		}
		out = append(out, fmt.Sprintf("policy %s: powercap %s at %s (%s, planner %s): branch %s, ρ %.4f, N_off formula %.2f, switched off %s (%d nodes), full load %s",
			s.pol.Name, Watts(w.cap), w.pc.Start, CapModeNames[w.pc.Mode], map[bool]string{false: "paper", true: "optimal"}[w.pc.Optimal],
			p.Branch, p.Rho, p.OffFormula, g, p.Off, Watts(p.FullLoad)))
	}
	return out
}

// observe accounts the time the machine spends above the cap in force,
// from now to t at power p (only jobs started before a notice, or before
// a cap set for now began, can put it there).
// Over a measure window, only the time inside it counts, like the other
// measure metrics.
func (cs *capStage) observe(s *sim, t, p float64) {
	a, b := s.now, t
	if s.measured {
		a, b = max(a, s.accFrom), min(b, s.accTo)
	}
	if b <= a {
		return
	}
	if c := cs.capAt(s); p > c*(1+1e-9) {
		cs.excessSeconds += b - a
		cs.excessMax = max(cs.excessMax, p-c)
	}
}
