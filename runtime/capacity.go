package runtime

import (
	"fmt"
	"math"

	"github.com/pwrc/pwrc/runtime/machine"
)

// The capacity controller (Lawson & Smirni, ICS 2005; design/lawson.md): a
// policy stage that sets how many of the machine's nodes are active —
// powered and schedulable. The scheduling pass sees only the active nodes
// (free = active − held, EASY's shadow time included); the others are in
// the machine's off state. Three controllers:
//
//   - fixed N: a constant level (Kunkel's "procure for normal operation").
//   - two_level {low L; high U}: start at U; an arrival wider than the
//     active count raises to U before the pass; after the pass, at U with
//     the nodes held by jobs ≤ L and the widest queued job ≤ L (an empty
//     queue counts 0), lower to L (lawson.md §1.3, §5.1's after-pass
//     reading).
//   - online {sla mean bsld <= S; every K; search; raise}: Lawson's OLS.
//     At first submission + n·K (n ≥ 1), while work remains, after the
//     instant's ends and arrivals and before its pass, the controller
//     clones the scheduling state and simulates the same pass code on
//     levels l from L(t) = max(widest queued, held) toward U (lookahead.go)
//     and keeps the first l whose simulated mean Lawson slowdown of the
//     queued jobs is ≤ S (U without a simulation). An empty queue chooses
//     L(t) without simulating. Between decisions an arrival wider than the
//     active count raises it to its width (or to U: `raise to max`).
//
// At one instant: ends → arrivals (raises) → decision → pass → two-level
// lowering; the timeline records the active count after the instant when
// it differs from before it (one entry per instant at most). A change
// never stops a running job and never sets active below the nodes held.
// Lowering switches off idle nodes (oldest idle first; with the machine's
// shutdown time they shut down first); a raise powers off nodes on (with a
// boot time they boot, and jobs wait for them: EASY sees them as nodes
// that become free at the boot's end).

// ActiveKind is the kind of capacity controller.
type ActiveKind uint8

const (
	ActiveFixed ActiveKind = iota
	ActiveTwoLevel
	ActiveOnline
)

// ActiveKindNames are the keywords of `active`, by kind.
var ActiveKindNames = [...]string{"fixed", "two_level", "online"}

// NodeLevel is a number of nodes: a count, a share of the machine's nodes
// (rounded up), or all of them.
type NodeLevel struct {
	Nodes int
	Share float64 // > 0: ⌈Share × nodes⌉
	All   bool
}

// Of resolves the level on a machine of n nodes.
func (l NodeLevel) Of(n int) int {
	switch {
	case l.All:
		return n
	case l.Share > 0:
		return int(math.Ceil(l.Share*float64(n) - 1e-9))
	}
	return l.Nodes
}

func (l NodeLevel) String() string {
	switch {
	case l.All:
		return "all"
	case l.Share > 0:
		return fmt.Sprintf("%g%%", l.Share*100)
	}
	return fmt.Sprint(l.Nodes)
}

// ActiveSearch is how an online decision searches the level.
type ActiveSearch uint8

const (
	// SearchTowardMax is Lawson §3.3.1: l = L, ⌈(l+U)/2⌉, …, the first
	// meeting the SLA; U without a simulation.
	SearchTowardMax ActiveSearch = iota
	// SearchBinary is the least l in [L, U] meeting the SLA, assuming
	// meeting it is monotone in l (U is never simulated).
	SearchBinary
)

// ActiveSearchNames are the keywords of `search`.
var ActiveSearchNames = [...]string{"toward_max", "binary"}

// ActiveRaise is what an online controller does, between decisions, for
// an arrival wider than the active count.
type ActiveRaise uint8

const (
	RaiseToWidth ActiveRaise = iota // active := the job's width (lawson.md §5.2 (a))
	RaiseToMax                      // active := all nodes
)

// ActiveRaiseNames are the keywords of `raise to`.
var ActiveRaiseNames = [...]string{"width", "max"}

// Active is a policy's capacity controller.
type Active struct {
	Kind      ActiveKind
	Fixed     NodeLevel // ActiveFixed
	Low, High NodeLevel // ActiveTwoLevel: L and U
	// ActiveOnline: the SLA on the simulated mean Lawson bounded slowdown
	// of the queued jobs, the period between decisions (s), the search
	// and the raise between decisions.
	SLA    float64
	Every  float64
	Search ActiveSearch
	Raise  ActiveRaise
}

// activeTest are hooks for tests (the activeHooks option).
type activeTest struct {
	decideAtStart bool                   // also decide at the first submission
	fresh         bool                   // a new look-ahead engine for every simulation
	record        func(d decisionRecord) // every online decision
	// probe is called after every simulation with the look-ahead engine.
	probe func(s *sim, l int, la *lookahead)
}

// ActiveChange is a change of the active count.
type ActiveChange struct {
	T      float64
	Active int
}

// ActiveStat is what a capacity controller did over a run (lawson.md
// §1.2, §4.3); areas are over the run's span, first submission to last
// end.
type ActiveStat struct {
	Kind         ActiveKind
	Nodes        int // the machine's (U, unless two_level's high is below)
	Initial      int
	Timeline     []ActiveChange
	Mean         float64 // time-average active nodes
	Min, Max     int
	Changes      int
	Area         float64 // ∫ active dt, node-seconds
	Util         float64 // Σ alloc × run / Area
	Savings      float64 // 1 − Area / (Nodes · span)
	NodeHoursOff float64 // (Nodes · span − Area) / 3600
	SLA          float64 // the online controller's, else 0
	Decisions    int
	Simulations  int
}

// capacity is a run's controller state.
type capacity struct {
	a        *Active
	u        int // all nodes (U)
	low      int // two-level: L; fixed: N
	high     int // two-level: U'
	active   int
	inact    int // nodes the controller holds inactive: off, or shutting down
	inShut   int // of those, still shutting down
	actShut  int // nodes shutting down for a lowering, taken back by a raise
	boot     int // nodes booting for a raise (active, not yet free)
	at0      int // active when the instant began
	initial  int
	timeline []ActiveChange
	t0       float64
	decN     int
	la       *lookahead
	fresh    bool // tests: a new look-ahead engine for every simulation

	decisions, sims int
	record          func(d decisionRecord) // tests: every decision
	probe           func(s *sim, l int, la *lookahead)
}

func (c *capacity) applyTest(t *activeTest) {
	if t == nil {
		return
	}
	if t.decideAtStart {
		c.decN = 0
	}
	c.fresh, c.record, c.probe = t.fresh, t.record, t.probe
}

// decisionRecord is one online decision, for tests.
type decisionRecord struct {
	T         float64
	Lower     int
	Chosen    int
	Simulated []int
	Means     []float64
}

var capacityKind = stageKind{
	name:   "active",
	has:    func(p *Policy) bool { return p.Active != nil },
	allows: allowances{fixedPower: true}, // (its look-ahead needs every queued job, and reads the price at decisions)
	build: func(s *sim) (stage, error) {
		if len(s.jobs) == 0 {
			return nil, nil
		}
		return newCapacity(s, s.now)
	},
	clear: func(p *Policy) { p.Active = nil },
}

// newCapacity sets up the policy's controller at t0, the first submission
// (or the accounting window's start, if earlier).
func newCapacity(s *sim, t0 float64) (*capacity, error) {
	a := s.pol.Active
	c := &capacity{a: a, u: s.nodes, active: s.nodes, t0: s.jobs[0].Submit, decN: 1}
	widest := 0
	for j := range s.jobs {
		widest = max(widest, int(s.alloc[j]))
	}
	switch a.Kind {
	case ActiveFixed:
		c.low = a.Fixed.Of(s.nodes)
		if c.low < 1 || c.low > s.nodes {
			return nil, fmt.Errorf("policy %s: `active fixed %s` is %d nodes, and machine %s has %d", s.pol.Name, a.Fixed, c.low, s.machine.Name, s.nodes)
		}
		if widest > c.low {
			return nil, fmt.Errorf("policy %s: `active fixed %s` keeps %d nodes active, and a job needs %d: it could never start", s.pol.Name, a.Fixed, c.low, widest)
		}
	case ActiveTwoLevel:
		c.low, c.high = a.Low.Of(s.nodes), a.High.Of(s.nodes)
		if c.high < 1 || c.high > s.nodes || c.low < 0 || c.low > c.high {
			return nil, fmt.Errorf("policy %s: two_level { low %s; high %s } is %d..%d nodes, and machine %s has %d", s.pol.Name, a.Low, a.High, c.low, c.high, s.machine.Name, s.nodes)
		}
		if widest > c.high {
			return nil, fmt.Errorf("policy %s: two_level's high level is %d nodes, and a job needs %d: it could never start", s.pol.Name, c.high, widest)
		}
		c.u = c.high
	case ActiveOnline:
		if !(a.Every > 0) {
			return nil, fmt.Errorf("policy %s: `active online` needs `every` above 0", s.pol.Name)
		}
	}
	c.initial = c.u
	if a.Kind == ActiveFixed {
		c.initial = c.low
	}
	// Nodes beyond the initial level are off from the start.
	if off := s.nodes - c.initial; off > 0 {
		n := s.mach.SwitchOff(t0, 0, s.cnt.Idle-off, false)
		if n != off {
			return nil, fmt.Errorf("policy %s: internal error: %d of %d nodes switched off at the start", s.pol.Name, n, off)
		}
		c.inact = off
	}
	c.active = c.initial
	c.applyTest(s.tune.active)
	s.capa = c
	return c, nil
}

// free is the number of active nodes a job could take now.
func (c *capacity) free(s *sim) int {
	return s.cnt.Free() - (c.inact - c.inShut)
}

// held is the number of nodes jobs hold (running, booting for a job, or
// reserved while others boot).
func (c *capacity) held(s *sim) int {
	return s.cnt.Busy + s.cnt.Booting - c.boot + s.cnt.Reserved
}

// widestQueued is the widest waiting job (0 for an empty queue).
func (*capacity) widestQueued(s *sim) int {
	w := 0
	if s.indexed() {
		for _, j := range s.q.ix.waiting(nil) {
			w = max(w, int(s.alloc[j]))
		}
		return w
	}
	for _, j := range s.queue {
		w = max(w, int(s.alloc[j]))
	}
	return w
}

// wake is the next instant the controller needs: its next decision.
func (c *capacity) wake(*sim) float64 {
	if c.a.Kind != ActiveOnline {
		return math.Inf(1)
	}
	return c.t0 + float64(c.decN)*c.a.Every
}

// before runs after the instant's ends and arrivals (jobs arrived from
// index from up to, not including, to) and before its pass: raises, then
// an online decision if one falls now.
func (c *capacity) before(s *sim, from, to int) {
	c.at0 = c.active
	target := c.active
	for j := from; j < to; j++ {
		w := int(s.alloc[j])
		if w <= target {
			continue
		}
		switch {
		case c.a.Kind == ActiveTwoLevel, c.a.Kind == ActiveOnline && c.a.Raise == RaiseToMax:
			target = c.u
		case c.a.Kind == ActiveOnline:
			target = w
		}
	}
	if c.a.Kind == ActiveOnline && s.now == c.wake(s) {
		c.decN++
		if s.done < len(s.jobs) {
			target = c.decide(s)
		}
	}
	c.set(s, target)
}

// after runs after the instant's pass: two-level lowering, and the
// timeline.
func (c *capacity) after(s *sim) {
	if c.a.Kind == ActiveTwoLevel && c.active == c.u && c.low < c.u && c.held(s) <= c.low && c.widestQueued(s) <= c.low {
		c.set(s, c.low)
	}
	if c.active != c.at0 {
		c.timeline = append(c.timeline, ActiveChange{T: s.now, Active: c.active})
	}
	c.at0 = c.active
}

// set changes the active count to target (never below the nodes held):
// a raise powers inactive nodes on, a lowering switches active ones off.
func (c *capacity) set(s *sim, target int) {
	target = max(target, c.held(s))
	if target == c.active {
		return
	}
	s.changed, s.stale = true, true
	m := s.machine
	if target > c.active {
		d := target - c.active
		// Nodes still shutting down for an earlier lowering come back
		// first, as active nodes that will be off (booted when a job needs
		// them); then off nodes power on.
		if k := min(d, c.inShut); k > 0 {
			c.inShut -= k
			c.actShut += k
			c.inact -= k
			d -= k
		}
		if d > 0 {
			boot := m.BootTime > 0
			powerOn(s.mach, d, boot, s.now)
			c.inact -= d
			if boot {
				c.boot += d
				s.shutSeq++
				id := -s.shutSeq
				s.run.insert(running{est: s.now + m.BootTime, nodes: int32(d), id: id})
				s.push(event{t: s.now + m.BootTime, kind: evActBootDone, job: id, n: int32(d)})
			}
		}
		c.active = target
		return
	}
	d := c.active - target
	// Active nodes already off (a shutdown stage's) become inactive as
	// they are; then idle nodes switch off, those idle longest first.
	activeOff := s.cnt.Off - (c.inact - c.inShut)
	if k := min(d, activeOff); k > 0 {
		c.inact += k
		d -= k
	}
	if k := min(d, s.cnt.Idle); k > 0 {
		transit := m.ShutdownTime > 0
		n := s.mach.SwitchOff(s.now, 0, s.cnt.Idle-k, transit)
		c.inact += n
		d -= n
		if transit && n > 0 {
			c.inShut += n
			s.push(event{t: s.now + m.ShutdownTime, kind: evActShutDone, n: int32(n)})
		}
	}
	// What is left (nodes booting or shutting down for other stages) stays
	// active.
	c.active = target + d
}

// powerOn boots n off nodes without a job.
func powerOn(m machine.Nodes, n int, boot bool, now float64) {
	switch k := m.(type) {
	case *machine.Counted:
		k.PowerOn(n, boot, now)
	case *machine.Table:
		k.PowerOn(n, boot, now)
	default:
		panic(fmt.Sprintf("pwrc: internal error: %T cannot power nodes on", m))
	}
}

// applyEvent handles the controller's events.
func (c *capacity) applyEvent(s *sim, e event) {
	switch e.kind {
	case evActShutDone:
		s.mach.ShutDone(int(e.n))
		n := int(e.n)
		k := min(n, c.actShut)
		c.actShut -= k
		c.inShut -= n - k
	case evActBootDone:
		s.removeRunning(e.t, e.job)
		c.boot -= int(e.n)
		switch k := s.mach.(type) {
		case *machine.Counted:
			k.BootDone(int(e.n), s.now)
		case *machine.Table:
			k.BootDone(int(e.n), s.now)
		}
	}
}

// decide is one online decision on the state after the instant's ends and
// arrivals: the level it chooses.
func (c *capacity) decide(s *sim) int {
	lower := max(c.widestQueued(s), c.held(s))
	c.decisions++
	rec := decisionRecord{T: s.now, Lower: lower}
	var chosen int
	if s.q.nwait == 0 {
		chosen = lower
	} else {
		if c.la == nil || c.fresh {
			c.la = newLookahead(s)
		}
		chosen = searchLevels(lower, c.u, c.a.Search, func(l int) bool {
			if c.fresh {
				c.la = newLookahead(s)
			}
			mean := c.la.forecast(s, l)
			c.sims++
			if c.probe != nil {
				c.probe(s, l, c.la)
			}
			if c.record != nil {
				rec.Simulated = append(rec.Simulated, l)
				rec.Means = append(rec.Means, mean)
			}
			return mean <= c.a.SLA
		})
	}
	rec.Chosen = chosen
	if c.record != nil {
		c.record(rec)
	}
	return chosen
}

// searchLevels searches a level in [lower, u] asking meets(l) whether l
// meets the SLA; meets is never asked about u.
func searchLevels(lower, u int, mode ActiveSearch, meets func(l int) bool) int {
	if lower >= u {
		return max(lower, u)
	}
	switch mode {
	case SearchBinary:
		lo, hi := lower, u
		for lo < hi {
			mid := lo + (hi-lo)/2
			if meets(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo
	default:
		for l := lower; l < u; l = (l + u + 1) / 2 {
			if meets(l) {
				return l
			}
		}
		return u
	}
}

// stat sums up the controller over [from, to] with work node-seconds.
// Savings count against all the machine's nodes: those above a two-level
// high are inactive too, and in the off state like the others.
func (c *capacity) stat(nodes int, from, to, work float64) *ActiveStat {
	st := &ActiveStat{Kind: c.a.Kind, Nodes: nodes, Initial: c.initial, Timeline: c.timeline, Min: c.initial, Max: c.initial,
		Changes: len(c.timeline), Decisions: c.decisions, Simulations: c.sims}
	if c.a.Kind == ActiveOnline {
		st.SLA = c.a.SLA
	}
	level, at := c.initial, from
	for _, ch := range c.timeline {
		if ch.T > at {
			st.Area += float64(level) * (min(ch.T, to) - at)
			at = min(ch.T, to)
		}
		level = ch.Active
		st.Min, st.Max = min(st.Min, level), max(st.Max, level)
	}
	if to > at {
		st.Area += float64(level) * (to - at)
	}
	span := to - from
	if span > 0 {
		st.Mean = st.Area / span
		st.Savings = 1 - st.Area/(float64(nodes)*span)
		st.NodeHoursOff = (float64(nodes)*span - st.Area) / 3600
	}
	if st.Area > 0 {
		st.Util = work / st.Area
	}
	return st
}
