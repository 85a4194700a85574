package runtime

import (
	"math"
	"slices"
)

// enqueue adds an arriving job to the queue, keeping queue order.
func (s *sim) enqueue(j int32) {
	p := s.pol
	if !s.q.init {
		s.queueInit()
	}
	s.q.arrived = j + 1
	s.q.nwait++
	if (s.prio != nil || s.order != nil) && j >= s.q.keyed {
		s.setJobEnv(j, fields(p.Priority, p.Order))
		if s.prio != nil {
			s.prio[j] = p.Priority.Num(&s.env)
		}
		if s.order != nil {
			s.order[j] = p.Order.Num(&s.env)
		}
	}
	if s.indexed() && int(j) >= s.q.ix.n && !s.growIndex() {
		// (a job read after the index was built: see toIndex)
		s.toScan()
	}
	if s.indexed() {
		s.queued(j)
		return
	}
	if s.q.allocs != nil {
		s.q.allocs.add(int(s.alloc[j]))
	}
	if s.dynamicOrder() || (s.prio == nil && s.order == nil) {
		// Arrival order is queue order (jobs arrive by submit time, then
		// trace order); a dynamic order is re-sorted every pass anyway.
		s.queue = append(s.queue, j)
	} else {
		i, _ := slices.BinarySearchFunc(s.queue, j, func(q, j int32) int {
			if s.staticBefore(q, j) {
				return -1
			}
			return 1
		})
		if i < len(s.queue) {
			s.changed = true // not at the end: an incremental pass would miss it
		}
		s.queue = slices.Insert(s.queue, i, j)
	}
	if s.indexDue(false) {
		s.toIndex() // (before a long queue costs its inserts)
	}
}

// dynamicOrder reports whether the queue order can change while jobs wait.
func (s *sim) dynamicOrder() bool {
	p := s.pol
	return (p.Priority != nil && p.Priority.Deps.Dynamic()) || (p.Order != nil && p.Order.Deps.Dynamic())
}

// staticBefore orders two jobs by static priority, order key, trace order.
func (s *sim) staticBefore(a, b int32) bool {
	if s.prio != nil && s.prio[a] != s.prio[b] {
		return s.prio[a] > s.prio[b]
	}
	if s.order != nil && s.order[a] != s.order[b] {
		return s.order[a] < s.order[b]
	}
	return a < b
}

// queueKey orders jobs: higher priority first (k0 = −priority), then the
// order key, then trace order. NaN keys sort last, so the order is total.
type queueKey struct {
	k0, k1 float64
	j      int32
}

func (a queueKey) less(b queueKey) bool {
	if a.k0 != b.k0 {
		return a.k0 < b.k0
	}
	if a.k1 != b.k1 {
		return a.k1 < b.k1
	}
	return a.j < b.j
}

func cmpQueueKey(a, b queueKey) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

func notNaN(x float64) float64 {
	if x != x {
		return math.Inf(1)
	}
	return x
}

// sortQueue re-sorts the queue by rules that depend on time: each key is
// evaluated once per job per pass into a slice, never in the comparator.
func (s *sim) sortQueue() {
	p := s.pol
	dynPrio := p.Priority != nil && p.Priority.Deps.Dynamic()
	dynOrder := p.Order != nil && p.Order.Deps.Dynamic()
	keys := s.keys[:0]
	f := fields(p.Priority, p.Order)
	for _, j := range s.queue {
		s.setJobEnv(j, f)
		var pr, ord float64
		switch {
		case dynPrio:
			pr = p.Priority.Num(&s.env)
		case s.prio != nil:
			pr = s.prio[j]
		}
		switch {
		case dynOrder:
			ord = p.Order.Num(&s.env)
		case s.order != nil:
			ord = s.order[j]
		default:
			ord = s.jobs[j].Submit
		}
		keys = append(keys, queueKey{k0: notNaN(-pr), k1: notNaN(ord), j: j})
	}
	s.keys = keys
	// The queue is still in the last pass's order, and rules that depend
	// on time mostly change it little from one pass to the next: an
	// insertion sort is then near-linear. If it moves too much, pdqsort.
	moves, limit := 0, 8*len(keys)+64
	for i := 1; i < len(keys); i++ {
		x := keys[i]
		k := i
		for k > 0 && x.less(keys[k-1]) {
			keys[k] = keys[k-1]
			k--
		}
		keys[k] = x
		if moves += i - k; moves > limit {
			slices.SortFunc(keys, cmpQueueKey)
			break
		}
	}
	for i, k := range keys {
		s.queue[i] = k.j
	}
}

// passEnv reports whether some rule reads the pass's environment: rules
// that read only the job (job.wait included, which setJobEnv computes)
// need none, and filling it costs the machine's power.
func (s *sim) passEnv() bool { return s.deps&^(DepJob|DepWait) != 0 || s.defers != nil }

// setPassEnv fills the parts of the environment that are fixed for a pass.
func (s *sim) setPassEnv() {
	e := &s.env
	e.Now.Seconds = s.now
	e.Now.Day = (s.now - s.firstT) / 86400
	if s.deps&DepNow != 0 {
		w := s.clock.Time(s.now)
		e.Now.Hour = float64(w.Hour()) + float64(w.Minute())/60 + float64(w.Second())/3600
		e.Now.Weekday = int(w.Weekday())
	}
	price, period := s.led.Price()
	e.Peak = period == s.peakIdx
	e.Price.Now = price
	e.Price.Mean = s.priceMean
	c := s.cnt
	e.System = SystemEnv{
		Nodes: s.nodes, Free: s.free(), Idle: c.Idle, Off: c.Off, Busy: c.Busy,
		Power: s.model.Power(c, s.watts), Queue: s.q.nwait, JobPower: c.JobW, Budget: math.Inf(1),
		Infrastructure: s.infra,
	}
	if s.carbon != nil && s.deps&DepCarbon != 0 {
		e.Carbon.Now, _, _ = s.carbon.At(s.now)
	}
	if s.wt != nil {
		e.System.JobPower = s.commitW
	}
}

// fields is the union of the job fields the given rules read.
func fields(es ...*Expr) JobFields {
	var f JobFields
	for _, e := range es {
		if e != nil {
			f |= e.Fields
		}
	}
	return f
}

// admitted evaluates the admit rule for job j (a static rule's answers
// are kept once the queue has been indexed).
func (s *sim) admitted(j int32) bool {
	if s.pol.Admit == nil {
		return true
	}
	return s.admitRule(j)
}

// admitRule is admitted with an admit rule (apart, so that admitted is
// inlined).
func (s *sim) admitRule(j int32) bool {
	if ix := s.q.ix; ix != nil {
		return ix.admit[j]
	}
	s.setJobEnv(j, s.pol.Admit.Fields)
	return s.pol.Admit.Bool(&s.env)
}

// pass runs one scheduling pass and reports whether any job started.
func (s *sim) pass() bool {
	if s.q.nwait == 0 {
		s.blocked, s.changed = false, false
		return false
	}
	free := s.free()
	if free == 0 {
		// Nothing can start, whatever the order. `changed` stays as it is,
		// so the next pass still knows whether it may be incremental.
		return false
	}
	if s.q.ix != nil || s.q.nwait >= s.tune.indexAt {
		s.queueMode()
	}
	if (s.q.ix != nil || s.q.allocs != nil) && s.minWaitingAlloc() > free {
		// No waiting job fits in the free nodes: likewise, whatever the
		// order, the budget or the admit rule say.
		return false
	}
	defer func() { s.changed = false }()
	if !s.changed && s.blocked && s.incremental() {
		return s.arrivalPass()
	}
	if s.passEnv() {
		s.setPassEnv()
	}
	capped := s.caps != nil && s.caps.constrains(s)
	if s.dynamicOrder() && !capped && s.pol.Budget != nil && s.budgetHeld() {
		return false // (before re-sorting the queue for nothing)
	}
	if s.dynamicOrder() {
		s.sortQueue()
	}
	if capped {
		s.env.System.Budget = math.Inf(1)
		return s.cappedPass()
	}
	if s.pol.Budget != nil {
		s.budgetOn = s.budgetActive()
		s.env.System.Budget = math.Inf(1)
		if s.budgetOn {
			s.env.System.Budget = s.budget
			return s.budgetedPass()
		}
	}
	// FCFS: start heads while they fit.
	// (In scan mode the one batch is the queue: k is a position in it.)
	head, headAt, first, heads := int32(-1), -1, -1, 0
heads:
	for b := s.cands(walkAll, 0, -1, free); len(b) > 0; b = s.more(free) {
		for k, j := range b {
			if !s.admitted(j) {
				continue
			}
			if int(s.alloc[j]) > free {
				if s.defers != nil {
					s.defers.release(j, s.now) // waits for nodes now, not for a price
				}
				head, headAt = j, k
				break heads
			}
			if s.defers != nil && s.holds(j) {
				head, headAt = j, k
				break heads
			}
			if first < 0 {
				first = k
			}
			s.startJob(j)
			free -= int(s.alloc[j])
			heads++
		}
	}
	s.blocked = head >= 0
	backfilled := 0
	if head >= 0 && free > 0 {
		switch s.pol.Backfill {
		case EASY:
			s.reserve(int(s.alloc[head]), free)
			backfilled = s.backfillEASY(s.cands(walkEASY, headAt+1, head, free), free)
		case Greedy:
			s.skipped, s.depthHit = 1, false // the head did not fit
			backfilled = s.backfillGreedy(s.walkFrom(walkFits, headAt+1, head), free)
		}
	}
	switch {
	case s.indexed() || heads+backfilled == 0:
	case backfilled == 0 && first == 0 && s.pol.Admit == nil:
		// Exactly the first jobs started, as under plain FCFS: a short
		// queue moves to the front of its backing array (no allocation);
		// a long one is resliced, so that it is not moved at every pass
		// (appends copy it once the array is full: O(1) a job).
		if len(s.queue)-heads <= 256 {
			n := copy(s.queue, s.queue[heads:])
			s.queue = s.queue[:n]
		} else {
			s.queue = s.queue[heads:]
		}
	default:
		if first < 0 {
			first = headAt + 1
		}
		s.compactQueue(first)
	}
	s.markScanned()
	return heads+backfilled > 0
}

// budgetHeld is the budgeted pass's first test, made before a dynamic
// order is re-sorted: the budget applies and its headroom is below the
// lightest job, so the pass ends at once, as budgetedPass would end it. A
// budget's while rule that fails here is left to fail where it always
// has, after the sort.
func (s *sim) budgetHeld() (held bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*EvalError); !ok {
				panic(r)
			}
			held = false
		}
	}()
	if !s.budgetActive() || s.headroom() >= s.bp.minWeight {
		return false
	}
	s.budgetOn = true
	s.env.System.Budget = s.budget
	s.blocked, s.bp.idle = true, false
	return true
}

// incremental reports whether this pass may look at new arrivals only.
// Since the last pass only jobs arriving at the end of the queue have
// changed anything, the policy's rules do not depend on time, the last
// pass left its head waiting, and every stage allows it (arrivalOnly).
// Then free nodes, running jobs and the head's reservation are as the last
// pass left them, and every job it passed over would be passed over again:
// fits and extra nodes are unchanged, and an end by the shadow time only
// gets harder as time moves on.
func (s *sim) incremental() bool {
	if s.tune.fullPassesOnly || s.changed || !s.blocked || s.q.dynRules {
		return false // (pass tests the first two before calling)
	}
	if !s.indexed() && s.scanned > len(s.queue) {
		return false
	}
	for _, st := range s.stages {
		if !st.arrivalOnly(s) {
			return false
		}
	}
	return true
}

// arrivalPass is a pass over the jobs that arrived since the last one.
func (s *sim) arrivalPass() bool {
	free := s.free()
	started := 0
	fresh := s.fresh()
	if s.pol.Budget != nil && s.budgetOn {
		switch s.pol.Backfill {
		case EASY:
			started = s.backfillBudgetEASY(fresh, free)
		case Greedy:
			started = s.backfillBudgetGreedy(s.listWalk(fresh), free)
		}
		if started > 0 {
			s.bp.idle = false
		}
	} else {
		switch s.pol.Backfill {
		case EASY:
			started = s.backfillEASY(fresh, free)
		case Greedy:
			if !s.depthHit {
				started = s.backfillGreedy(s.listWalk(fresh), free)
			}
		}
	}
	if started > 0 && !s.indexed() {
		s.compactQueue(s.scanned)
	}
	s.markScanned()
	return started > 0
}

// reserve computes the reservation of a waiting head of need nodes: the
// shadow time is the earliest estimated end at which enough nodes are free,
// and extra counts the nodes free at that instant (every job whose estimate
// ends by then) beyond need.
func (s *sim) reserve(need, free int) { s.shadow, s.extra = s.run.reserve(need, free) }

// backfillEASY starts the candidates (a first batch, see cands) that fit
// now and do not delay the reservation: they end by the shadow time, or
// fit in the extra nodes.
func (s *sim) backfillEASY(b []int32, free int) int {
	started := 0
	boot := s.machine.BootTime
	for ; len(b) > 0; b = s.more(free) {
		// (The per-job arrays in locals: a long queue is mostly jobs that
		// do not fit, each a few loads.)
		alloc, status := s.alloc, s.status
		for _, j := range b {
			nn := int(alloc[j])
			if nn > free || status[j] != 0 || !s.admitted(j) {
				continue
			}
			endEst := s.now + s.estimate(j)
			if boot > 0 && nn > s.cnt.Idle {
				endEst += boot // it waits for off nodes to boot
			}
			switch {
			case endEst <= s.shadow:
				// Ends by the shadow time: cannot delay the reservation.
			case nn <= s.extra:
				s.extra -= nn
			default:
				continue
			}
			s.startJob(j)
			free -= nn
			started++
			if free == 0 {
				return started
			}
		}
	}
	return started
}

// backfillGreedy starts every candidate that fits now, without protecting
// the first waiting job (Kunkel's BackfillDelay); it gives up once depth
// jobs have not fit. (An indexed walk skips the jobs that do not fit and
// says how many.)
func (s *sim) backfillGreedy(w *walk, free int) int {
	started := 0
	for {
		if s.skipped > s.pol.Depth {
			s.depthHit = true
			break
		}
		if free == 0 {
			break
		}
		j := w.next(free)
		n := w.skipped
		if n > 0 {
			if s.skipped+n > s.pol.Depth {
				s.skipped, s.depthHit = s.pol.Depth+1, true
				break
			}
			s.skipped += n
		}
		if j < 0 {
			break
		}
		if s.status[j] != 0 || !s.admitted(j) {
			continue
		}
		nn := int(s.alloc[j])
		if nn > free {
			s.skipped++
			continue
		}
		s.startJob(j)
		free -= nn
		started++
	}
	return started
}

// compactQueue drops started jobs from the queue; none lie before first.
func (s *sim) compactQueue(first int) {
	out := s.queue[:first]
	for _, j := range s.queue[first:] {
		if s.status[j] == 0 {
			out = append(out, j)
		}
	}
	s.queue = out
}
