package runtime

import (
	"fmt"
	"math"
	"slices"
	"time"

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

// event kinds, in the order they are applied at equal times.
const (
	evEnd      = iota // a job ends
	evBootDone        // a job's nodes finished booting: it starts running
	evShutDone        // a batch of nodes finished shutting down
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

// idleBatch is a group of nodes idle since the same time.
type idleBatch struct {
	since float64
	n     int
}

// sim holds one run's state.
type sim struct {
	// jobs, struct of arrays, in queue order of arrival (submit, then trace order)
	jobs   []workload.Job
	est    []float64 // backfill estimate per job
	pw     []float64 // W per working node while running
	alloc  []int32   // nodes allocated: the request, rounded up to the contiguous unit
	jw     []float64 // W of a running job: its working nodes plus the idle rest of its allocation
	wt     []float64 // budget weight, fixed when the job starts (only with a budget)
	start  []float64
	end    []float64
	status []uint8 // 0 waiting/not arrived, 1 started

	pol     *Policy
	deps    Deps // what the policy's rules read
	nodes   int
	machine *Machine

	// node states (counts)
	idle     []idleBatch // stack: most recently idle last; allocation pops from the end
	idleHead int         // index of the oldest batch still in idle (shutdown pops from the front)
	nIdle    int         // free idle nodes
	reserved int         // idle nodes held by jobs waiting for others to boot
	off      int
	booting  int
	shutting int
	busy     int     // nodes allocated to running jobs
	work     int     // nodes running jobs asked for (busy minus partition leftovers)
	busyW    float64 // power of running jobs, W

	// Power budget (Zhou et al.): the weights of started jobs against it.
	budget   float64 // W; +Inf without a budget
	budgetOn bool    // the budget applies in this pass
	commitW  float64 // Σ weight of started jobs still running (or booting)
	bp       budgetPass

	queue   []int32    // waiting jobs, in queue order
	keys    []queueKey // per queued job: sort keys, recomputed per pass by dynamic rules
	prio    []float64  // per job: static priority
	order   []float64  // per job: static order key
	run     []running
	heap    []event
	shutSeq int32

	// Incremental passes (see incremental): state the last pass left.
	changed  bool    // something besides arrivals at the queue's end happened since
	blocked  bool    // the last pass left a head waiting
	scanned  int     // queue length after the last pass
	shadow   float64 // EASY: the head's reservation
	extra    int     // EASY: nodes free at the shadow time beyond the head's need
	skipped  int     // greedy: jobs that did not fit
	depthHit bool    // greedy: gave up after depth jobs

	now       float64
	done      int
	firstT    float64
	acc       accounting
	env       Env
	clock     tariff.Clock
	tar       tariff.Tariff
	wakeDeps  bool // rules read time or tariff: pass at every price change
	wakeHours bool // rules read now.*: pass every hour
	price     float64
	period    int
	nextPrice float64
	priceMean float64
	peakIdx   int
	hour      int     // local hour of day of now
	nextHour  float64 // when the next local hour starts

	// The accounting window: energy, cost and the node-time behind
	// utilization are integrated over [accFrom, accTo] only. Without one
	// (windowed false) it is the run's span, first submission to last end.
	windowed       bool
	accFrom, accTo float64
	lastEnd        float64 // when the last job ended
}

// simOption adjusts a run before it starts.
type simOption func(*sim)

// accountOver integrates energy and cost over [from, to] (trace seconds)
// instead of the run's own span: the machine is on from `from` if that
// comes before the first submission, and is followed past the last job
// end (shutdowns included) up to `to`.
func accountOver(from, to float64) simOption {
	return func(s *sim) { s.windowed, s.accFrom, s.accTo = true, from, to }
}

// simulate replays jobs under the run's machine, contract and policy.
//
// pw gives each job's power per working node; budget is the power budget
// in W (+Inf for none).
func simulate(jobs []workload.Job, m *Machine, nodes int, pol *Policy, pw []float64, budget float64, clock tariff.Clock, tar tariff.Tariff, opts ...simOption) (*sim, error) {
	s := &sim{jobs: jobs, pol: pol, nodes: nodes, machine: m, clock: clock, tar: tar, pw: pw, budget: budget}
	for _, o := range opts {
		o(s)
	}
	n := len(jobs)
	s.est = make([]float64, n)
	s.alloc = make([]int32, n)
	s.jw = make([]float64, n)
	s.start = make([]float64, n)
	s.end = make([]float64, n)
	s.status = make([]uint8, n)
	if pol.Budget != nil {
		s.wt = make([]float64, n)
	}
	unit := max(1, pol.Contiguous)
	wide, firstWide := 0, -1
	for i, j := range jobs {
		a := (j.Nodes + unit - 1) / unit * unit
		if a > nodes {
			if wide++; wide == 1 {
				firstWide = i
			}
			continue
		}
		s.alloc[i] = int32(a)
		s.jw[i] = float64(j.Nodes)*pw[i] + float64(a-j.Nodes)*m.Power.Idle
		s.est[i] = j.Walltime
		if pol.Estimate == Exact {
			s.est[i] = j.Runtime
		}
	}
	if wide > 0 {
		return nil, wideError(jobs[firstWide], wide, nodes, unit)
	}
	if pol.Budget != nil {
		s.staticWeights()
	}
	s.peakIdx = -1
	for i, p := range tar.Periods() {
		if p == "peak" {
			s.peakIdx = i
		}
	}
	s.initPrice()
	s.deps = pol.deps()
	if b := pol.Budget; b != nil && b.When == BudgetDuringPeak {
		s.deps |= DepPeak // a pass when peak ends starts what the budget held back
	}
	s.wakeDeps = s.deps&(DepNow|DepPeak|DepPrice) != 0
	s.wakeHours = s.deps&DepNow != 0
	if pol.Priority != nil && !pol.Priority.Deps.Dynamic() {
		s.prio = make([]float64, n)
	}
	if pol.Order != nil && !pol.Order.Deps.Dynamic() {
		s.order = make([]float64, n)
	}
	s.acc.init(len(tar.Periods())) // metrics() reads it, jobs or not
	if n == 0 {
		// (runOne never gets here: the loader fails such runs, saying why.)
		return s, nil
	}
	s.firstT = jobs[0].Submit
	s.now = s.firstT
	if s.windowed && s.accFrom < s.now {
		s.now = s.accFrom // the machine is on, idle, from the window's start
	}
	s.idle = append(s.idle, idleBatch{since: s.now, n: nodes})
	s.nIdle = nodes
	s.price, s.period, s.nextPrice = tar.At(s.now)
	s.hour, s.nextHour = s.localHour(s.now)
	s.changed = true
	if err := s.loop(); err != nil {
		return s, err
	}
	s.lastEnd = s.now
	if s.windowed {
		s.tail()
	}
	return s, nil
}

// tail follows the machine after the last job ends, up to the end of the
// accounting window: idle nodes, and the shutdowns the policy makes.
func (s *sim) tail() {
	for s.now < s.accTo {
		t := s.accTo
		if len(s.heap) > 0 && s.heap[0].t < t {
			t = s.heap[0].t
		}
		if d := s.shutdownDue(); d < t {
			t = d
		}
		s.advance(t)
		for len(s.heap) > 0 && s.heap[0].t == t {
			s.apply(s.pop())
		}
		s.shutdownIdle()
	}
}

func (p *Policy) deps() Deps {
	var d Deps
	var while *Expr
	if p.Budget != nil {
		while = p.Budget.While
	}
	for _, e := range []*Expr{p.Order, p.Priority, p.Admit, p.Value, p.Weight, while} {
		if e != nil {
			d |= e.Deps
		}
	}
	return d
}

// maxIdleSpan bounds simulated time without progress, so a policy that
// never admits a waiting job ends with an error instead of looping.
const maxIdleSpan = 20 * 365 * 86400.0

func (s *sim) loop() error {
	n := len(s.jobs)
	next := 0
	lastProgress := s.now
	for s.done < n {
		t := math.Inf(1)
		if next < n {
			t = s.jobs[next].Submit
		}
		if len(s.heap) > 0 && s.heap[0].t < t {
			t = s.heap[0].t
		}
		if d := s.shutdownDue(); d < t {
			t = d
		}
		if len(s.queue) > 0 && s.wakeDeps {
			if w := s.wakeAt(); w < t {
				t = w
			}
		}
		if iv := s.pol.Interval; iv > 0 && len(s.queue) > 0 {
			// The next tick of the scheduler's cycle strictly after now.
			if w := s.firstT + (math.Floor((s.now-s.firstT)/iv)+1)*iv; w < t {
				t = w
			}
		}
		if math.IsInf(t, 1) {
			return s.neverStarted(fmt.Sprintf("%s never started, and nothing else is left to happen", jobCount(len(s.queue))), true)
		}
		s.advance(t)
		for len(s.heap) > 0 && s.heap[0].t == t {
			s.apply(s.pop())
			lastProgress = t
		}
		for next < n && s.jobs[next].Submit == t {
			s.enqueue(int32(next))
			next++
			lastProgress = t
		}
		started := s.pass()
		if started {
			lastProgress = t
		}
		s.shutdownIdle()
		if t-lastProgress > maxIdleSpan {
			return s.neverStarted(fmt.Sprintf("%s never started: nothing happened for %.0f days", jobCount(len(s.queue)), maxIdleSpan/86400), false)
		}
	}
	return nil
}

// wakeAt is the next time a rule that reads the clock or the tariff may
// change its mind: the next price change, or the next hour.
func (s *sim) wakeAt() float64 {
	w := s.nextPrice
	if s.wakeHours {
		h := s.clock.Time(s.now)
		top := h.Truncate(3600e9).Add(3600e9)
		if x := s.clock.Sim(top); x > s.now && x < w {
			w = x
		}
	}
	return w
}

// advance integrates power up to time t.
func (s *sim) advance(t float64) {
	if t <= s.now {
		return
	}
	m := s.machine
	var p [nComponents]float64
	p[compBusy] = s.busyW
	p[compIdle] = float64(s.nIdle+s.reserved) * m.Power.Idle
	p[compOff] = float64(s.off) * m.Power.Off
	p[compBoot] = float64(s.booting) * m.Power.Boot
	p[compShutdown] = float64(s.shutting) * m.Power.Shutdown
	p[compInfra] = s.infraW()
	if !s.windowed {
		s.acc.busyNodeSeconds += float64(s.busy) * (t - s.now)
		s.acc.workNodeSeconds += float64(s.work) * (t - s.now)
	}
	for s.now < t {
		seg := math.Min(t, math.Min(s.nextPrice, s.nextHour))
		inside := true
		if s.windowed {
			// Cut at the window's ends; integrate only inside it.
			if s.now < s.accFrom && seg > s.accFrom {
				seg = s.accFrom
			}
			if s.now < s.accTo && seg > s.accTo {
				seg = s.accTo
			}
			inside = s.now >= s.accFrom && seg <= s.accTo
		}
		if dt := seg - s.now; inside {
			if s.windowed {
				s.acc.busyNodeSeconds += float64(s.busy) * dt
				s.acc.workNodeSeconds += float64(s.work) * dt
			}
			total := s.acc.add(&p, dt, s.price, s.period)
			h := &s.acc.hours[s.hour]
			h.Seconds += dt
			h.Energy += total * dt
			h.JobEnergy += p[compBusy] * dt
			h.NodeSeconds += float64(s.busy) * dt
		}
		s.now = seg
		if seg == s.nextPrice {
			s.price, s.period, s.nextPrice = s.tar.At(seg)
		}
		if seg == s.nextHour {
			s.hour, s.nextHour = s.localHour(seg)
		}
	}
}

// localHour returns the local hour of day at t and when the next one
// starts, so power can be profiled by hour of day (Zhou et al.'s Fig. 5).
func (s *sim) localHour(t float64) (int, float64) {
	w := s.clock.Time(t)
	top := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), 0, 0, 0, w.Location())
	next := s.clock.Sim(top.Add(time.Hour))
	if next <= t { // defensive: always move forward
		next = t + 3600
	}
	return w.Hour(), next
}

func (s *sim) infraW() float64 {
	return s.machine.Infrastructure + s.machine.InfrastructurePerNode*float64(s.nodes)
}

// apply handles one event.
func (s *sim) apply(e event) {
	s.changed = true
	switch e.kind {
	case evEnd:
		j := e.job
		nn := int(s.alloc[j])
		s.busy -= nn
		s.work -= s.jobs[j].Nodes
		s.busyW -= s.jw[j]
		if s.wt != nil {
			s.commitW -= s.wt[j]
		}
		s.removeRunning(s.start[j]+s.est[j], j)
		s.pushIdle(nn)
		s.done++
	case evBootDone:
		j := e.job
		nn := int(s.alloc[j])
		s.booting -= int(e.n)
		s.reserved -= nn - int(e.n)
		s.busy += nn
		s.work += s.jobs[j].Nodes
		s.busyW += s.jw[j]
	case evShutDone:
		s.shutting -= int(e.n)
		s.off += int(e.n)
		s.removeRunning(e.t, e.job)
	}
}

func (s *sim) pushIdle(n int) {
	if k := len(s.idle); k > s.idleHead && s.idle[k-1].since == s.now {
		s.idle[k-1].n += n
	} else {
		s.idle = append(s.idle, idleBatch{since: s.now, n: n})
	}
	s.nIdle += n
}

// takeIdle removes up to n idle nodes, most recently idle first, so the
// nodes idle longest are the ones shutdown switches off.
func (s *sim) takeIdle(n int) int {
	took := 0
	for took < n && len(s.idle) > s.idleHead {
		top := &s.idle[len(s.idle)-1]
		k := min(top.n, n-took)
		top.n -= k
		took += k
		if top.n == 0 {
			s.idle = s.idle[:len(s.idle)-1]
		}
	}
	s.nIdle -= took
	if len(s.idle) == s.idleHead { // reuse the backing array
		s.idle, s.idleHead = s.idle[:0], 0
	}
	return took
}

func (s *sim) shutdownDue() float64 {
	if s.pol.Shutdown == nil || len(s.idle) == s.idleHead {
		return math.Inf(1)
	}
	return s.idle[s.idleHead].since + s.pol.Shutdown.After
}

// shutdownIdle switches off nodes that have been idle long enough.
func (s *sim) shutdownIdle() {
	if s.pol.Shutdown == nil {
		return
	}
	for len(s.idle) > s.idleHead && s.idle[s.idleHead].since+s.pol.Shutdown.After <= s.now {
		s.changed = true
		n := s.idle[s.idleHead].n
		s.idleHead++
		s.nIdle -= n
		if d := s.machine.ShutdownTime; d > 0 {
			s.shutting += n
			s.shutSeq++
			id := -s.shutSeq
			s.insertRunning(running{est: s.now + d, nodes: int32(n), id: id})
			s.push(event{t: s.now + d, kind: evShutDone, job: id, n: int32(n)})
		} else {
			s.off += n
		}
	}
	if len(s.idle) == s.idleHead {
		s.idle, s.idleHead = s.idle[:0], 0
	}
}

// free is the number of nodes a job could take now.
func (s *sim) free() int { return s.nIdle + s.off }

// startJob starts job j now (or when its nodes have booted).
func (s *sim) startJob(j int32) {
	if s.wt != nil {
		s.startWeighted(j, s.weightOf(j))
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
	nn := int(s.alloc[j])
	fromIdle := s.takeIdle(nn)
	fromOff := nn - fromIdle
	s.off -= fromOff
	ts := s.now
	if fromOff > 0 && s.machine.BootTime > 0 {
		ts += s.machine.BootTime
		s.booting += fromOff
		s.reserved += fromIdle
		s.push(event{t: ts, kind: evBootDone, job: j, n: int32(fromOff)})
	} else {
		s.busy += nn
		s.work += s.jobs[j].Nodes
		s.busyW += s.jw[j]
	}
	s.start[j] = ts
	s.end[j] = ts + s.jobs[j].Runtime
	s.status[j] = 1
	s.push(event{t: s.end[j], kind: evEnd, job: j})
	s.insertRunning(running{est: ts + s.est[j], nodes: int32(nn), id: j})
}

func (s *sim) insertRunning(r running) {
	i, _ := slices.BinarySearchFunc(s.run, r.est, func(a running, t float64) int {
		if a.est <= t { // equal estimates keep insertion order
			return -1
		}
		return 1
	})
	s.run = slices.Insert(s.run, i, r)
}

func (s *sim) removeRunning(est float64, id int32) {
	i, _ := slices.BinarySearchFunc(s.run, est, func(a running, t float64) int {
		if a.est < t {
			return -1
		}
		return 1
	})
	for ; i < len(s.run); i++ {
		if s.run[i].id == id {
			s.run = slices.Delete(s.run, i, i+1)
			return
		}
	}
	panic(fmt.Sprintf("pwrc: internal error: running entry %d (est %g) not found", id, est))
}

// heap of events ordered by time, then kind, then job index, so equal
// times are applied in a fixed order.
func (s *sim) push(e event) {
	s.heap = append(s.heap, e)
	i := len(s.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !evLess(s.heap[i], s.heap[p]) {
			break
		}
		s.heap[i], s.heap[p] = s.heap[p], s.heap[i]
		i = p
	}
}

func (s *sim) pop() event {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && evLess(h[r], h[l]) {
			c = r
		}
		if !evLess(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	s.heap = h
	return top
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
