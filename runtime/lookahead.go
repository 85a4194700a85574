package runtime

import (
	"math"

	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The look-ahead kernel: "what happens if the machine had l nodes from
// now on, and nobody else submitted?" A scratch engine (a second sim)
// takes a copy of the run's scheduling state — the running jobs with
// their estimated ends, the queue in its order — and runs the same pass
// code as the real engine (sim.pass, startJob, apply) until the queue
// drains, every job lasting its estimate. It shares the run's immutable
// job tables (estimates, allocations, static queue keys) and copies only
// what it changes, O(queued + running) per simulation; its buffers are
// kept from one simulation to the next, so once warm it allocates
// nothing per simulated event.
//
// What it clones: the policy's base stages (queue order, priority and
// admit rules, backfilling and its depth, the estimate kind, the
// frequency stage). What it does not: arrivals after now, budgets,
// powercaps, shutdown timers, the defer stage, a scheduler's interval,
// boot and shutdown times (its l nodes are all on), the capacity
// controller itself (its capacity is fixed at l) and the run's
// accounting. Rules that read the clock see the simulated clock; rules
// that read the price see the price at the decision; a rule reading
// job.runtime sees the job's estimate (the scheduler cannot know more).
// It never touches the run's state: it reads the run's sim and writes
// only its own.
type lookahead struct {
	x     *sim
	queue []int32 // the run's queue at the last simulation, in order
	pol   Policy
	mach  Machine
	nm    *machine.Counted
}

// newLookahead builds the scratch engine for run s (once per run).
func newLookahead(s *sim) *lookahead {
	la := &lookahead{pol: *s.pol, mach: *s.machine}
	p := &la.pol
	for i := range stageKinds {
		stageKinds[i].clear(p) // (the clone runs the scheduler alone)
	}
	la.mach.BootTime, la.mach.ShutdownTime = 0, 0
	n := len(s.jobs)
	jobs := make([]workload.Job, n)
	copy(jobs, s.jobs)
	for i := range jobs {
		if s.pol.Estimate != Exact {
			jobs[i].Runtime = jobs[i].Walltime
		}
	}
	x := &sim{
		jobTable: jobTable{jobs: jobs, est: s.est, pw: s.pw, alloc: s.alloc, prio: s.prio, order: s.order,
			jw: make([]float64, n), pstate: make([]uint8, n),
			start: make([]float64, n), end: make([]float64, n), status: make([]uint8, n),
			stretch: s.stretch, power: s.power, idleW: s.idleW, fixedP: s.fixedP, exact: s.exact},
		pol: p, nodes: s.nodes, machine: &la.mach, model: s.model, freq: s.freq,
		budget: math.Inf(1), clock: s.clock, firstT: s.firstT,
		accounting: accounting{tar: s.tar, led: s.led, priceMean: s.priceMean, peakIdx: s.peakIdx,
			watts: make([]float64, len(s.model.Components()))},
		runOptions: runOptions{tune: s.tune},
	}
	x.deps = p.deps()
	la.nm = machine.NewCounted(s.model, s.nodes, s.now)
	x.mach, x.cnt = la.nm, la.nm.Counts()
	la.x = x
	return la
}

// simulate runs run s's scheduling state from now on l nodes, with no
// further arrivals, until the queue drains; it reports false if it cannot
// (an admit rule that refuses a job while nothing runs). Afterwards
// Start and End give the simulated schedule of every job queued at s.now
// (and of the running ones: their start and estimated end).
func (la *lookahead) simulate(s *sim, l int) bool {
	x := la.x
	la.nm.Reset(l, s.now)
	x.nodes = l
	x.now = s.now
	x.done = 0
	x.passState = passState{changed: true}
	x.stale = true
	x.env = s.env
	x.heap = x.heap[:0]
	x.run.clear()
	for _, r := range s.run.items() {
		if r.id < 0 {
			continue // nodes shutting down or booting without a job: not in the clone
		}
		j := r.id
		x.status[j], x.start[j], x.pstate[j], x.jw[j] = 1, s.start[j], s.pstate[j], s.jw[j]
		x.end[j] = r.est
		x.mach.Take(j, x.use(j), r.est, false)
		x.run.push(r)
		x.push(event{t: r.est, kind: evEnd, job: j})
	}
	la.queue = s.waiting(la.queue[:0])
	x.scanCopy(s, la.queue)
	for _, j := range la.queue {
		x.status[j], x.pstate[j], x.jw[j] = 0, s.pstate[j], s.jw[j]
	}
	x.pass()
	for x.q.nwait > 0 {
		if len(x.heap) == 0 {
			return false
		}
		t := x.heap[0].t
		x.now = t
		for len(x.heap) > 0 && x.heap[0].t == t {
			x.apply(x.pop())
		}
		x.pass()
	}
	return true
}

// Start and End are job j's simulated start and end after simulate.
func (la *lookahead) Start(j int32) float64 { return la.x.start[j] }
func (la *lookahead) End(j int32) float64   { return la.x.end[j] }

// forecast is Lawson's probe: the mean Lawson bounded slowdown, 1 + wait /
// max(10 s, v), of the jobs queued now when run s continues on l nodes
// (v: their simulated run time); +Inf if the queue cannot drain.
func (la *lookahead) forecast(s *sim, l int) float64 {
	if !la.simulate(s, l) {
		return math.Inf(1)
	}
	if len(la.queue) == 0 {
		return 1
	}
	sum := 0.0
	for _, j := range la.queue {
		sum += lawsonSlowdown(la.Start(j)-s.jobs[j].Submit, la.End(j)-la.Start(j))
	}
	return sum / float64(len(la.queue))
}

// lawsonSlowdown is Lawson's bounded slowdown 1 + d / max(10 s, v).
func lawsonSlowdown(d, v float64) float64 { return 1 + d/max(10, v) }
