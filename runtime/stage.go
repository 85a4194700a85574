package runtime

import (
	"fmt"
	"math"
)

// Stages. A policy is a scheduler (queue order, admission, backfilling,
// allocation, frequency) plus stages that act on a timeline of their own:
// switching idle nodes off, the scheduler's clock, powercaps, the capacity
// controller, the price-aware start and the power budget. Each stage is a
// value built once per run that owns its state and tells the engine, by
// the hooks it implements (each optional: the engine keeps, per hook, the
// stages that implement it, so a hook a stage lacks costs nothing)
//
//   - wake: the next instant it must act, even if nothing else happens
//     there (a cap coming into force, a deferral's chosen start, a node
//     idle long enough to switch off);
//   - before: what it does at an instant after the instant's job ends and
//     arrivals and before the scheduling pass;
//   - gate: whether the instant gets a pass at all;
//   - after: what it does after the pass;
//   - arrivalOnly: whether this pass may look at new arrivals only (see
//     incremental), by what it changed since the last pass.
//
// What a stage lets the engine do before any run starts (stream the trace,
// share a simulation between contracts, index the queue, be dropped from
// the look-ahead's clone) is declared per kind, from the plan's policy,
// in stageKinds: the engine asks that table instead of naming policy
// fields.
//
// Within an instant the engine calls every stage's before in the order of
// stageKinds, then the pass if every gate allows it, then every after; the
// accounting tail after the last job is the same loop without arrivals.
type stage any

// The hooks a stage may implement (see above).
type (
	waker interface {
		wake(s *sim) float64
	}
	beforePass interface {
		before(s *sim, from, to int)
	}
	gater interface {
		gate(s *sim, events bool) bool
	}
	afterPass interface {
		after(s *sim)
	}
	arrivalRule interface {
		arrivalOnly(s *sim) bool
	}
)

// stageHooks are a run's stages by hook, each list in stageKinds' order.
// (The lists start in arrays of their own, so that filing a run's stages
// allocates nothing.)
type stageHooks struct {
	wakers   []waker
	befores  []beforePass
	gates    []gater
	afters   []afterPass
	arrivals []arrivalRule

	wakerBuf   [8]waker
	beforeBuf  [8]beforePass
	gateBuf    [8]gater
	afterBuf   [8]afterPass
	arrivalBuf [8]arrivalRule
}

// add files stage st under each hook it implements, reporting whether it
// implements any.
func (h *stageHooks) add(st stage) bool {
	if h.wakers == nil {
		h.wakers, h.befores, h.gates, h.afters, h.arrivals = h.wakerBuf[:0], h.beforeBuf[:0], h.gateBuf[:0], h.afterBuf[:0], h.arrivalBuf[:0]
	}
	n := 0
	if x, ok := st.(waker); ok {
		h.wakers, n = append(h.wakers, x), n+1
	}
	if x, ok := st.(beforePass); ok {
		h.befores, n = append(h.befores, x), n+1
	}
	if x, ok := st.(gater); ok {
		h.gates, n = append(h.gates, x), n+1
	}
	if x, ok := st.(afterPass); ok {
		h.afters, n = append(h.afters, x), n+1
	}
	if x, ok := st.(arrivalRule); ok {
		h.arrivals, n = append(h.arrivals, x), n+1
	}
	return n > 0
}

// allowances are what a kind of stage lets a run do; a run may do a thing
// only if every stage of its policy allows it.
type allowances struct {
	// stream: the run may simulate while its trace is read (it needs
	// nothing of the jobs not yet read).
	stream bool
	// contractBlind: the stage's decisions ignore the contract's prices
	// and carbon intensity, so runs that differ only in their contract
	// share one simulation (twins.go).
	contractBlind bool
	// fixedPower: waiting jobs keep the power they have; a stage that
	// changes it (Alg. 2 choosing pstates) keeps an admit rule reading
	// job.power out of the queue index.
	fixedPower bool
}

// everything is what a policy without stages allows.
var everything = allowances{stream: true, contractBlind: true, fixedPower: true}

func (a allowances) and(b allowances) allowances {
	return allowances{stream: a.stream && b.stream, contractBlind: a.contractBlind && b.contractBlind, fixedPower: a.fixedPower && b.fixedPower}
}

// stageKind is one kind of stage: whether a policy has it, what it
// allows, and how a run builds it (nil stage: nothing to do in this run).
type stageKind struct {
	name   string
	has    func(p *Policy) bool
	allows allowances
	build  func(s *sim) (stage, error)
	// clear removes the stage from a policy: the look-ahead's clone
	// (lookahead.go) runs the scheduler alone.
	clear func(p *Policy)
}

// stageKinds lists every kind of stage in the order the engine calls them
// within an instant. A new stage is a file of its own with its kind here,
// its plan type (plan.go) and its decoder in the compiler.
var stageKinds = []stageKind{
	capacityKind,
	powercapKind,
	deferKind,
	budgetKind,
	clockKind,
	shutdownKind,
}

// stageAllowances is what a policy's stages allow together.
func stageAllowances(p *Policy) allowances {
	a := everything
	for i := range stageKinds {
		if k := &stageKinds[i]; k.has(p) {
			a = a.and(k.allows)
		}
	}
	return a
}

// newStages builds run s's stages, in stageKinds' order.
func newStages(s *sim) error {
	for i := range stageKinds {
		k := &stageKinds[i]
		if !k.has(s.pol) {
			continue
		}
		st, err := k.build(s)
		if err != nil {
			return err
		}
		if st != nil && !s.stages.add(st) {
			return fmt.Errorf("pwrc: internal error: the %s stage implements no hook", k.name)
		}
	}
	return nil
}

// stagedPass is an instant's work with stages: each stage's before, the
// pass if every gate allows it, each stage's after. It reports whether
// the pass started a job, and a stage's error that ends the run.
func (s *sim) stagedPass(from, to int, events bool) (started bool, err error) {
	for _, st := range s.stages.befores {
		st.before(s, from, to)
	}
	passes := true
	for _, st := range s.stages.gates {
		if !st.gate(s, events) {
			passes = false
			break
		}
	}
	if passes {
		started = s.pass()
		if s.defers != nil && s.defers.err != nil {
			return started, s.defers.err
		}
	}
	for _, st := range s.stages.afters {
		st.after(s)
	}
	return started, nil
}

// wakeStages is the earliest instant a stage must act, +Inf if none.
func (s *sim) wakeStages() float64 {
	t := math.Inf(1)
	for _, st := range s.stages.wakers {
		if w := st.wake(s); w < t {
			t = w
		}
	}
	return t
}
