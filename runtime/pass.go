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
//
// One scheduler serves every policy: its room is the free nodes and, while
// a budget applies or a powercap bears on the pass (bounded), the watts
// the budget or the cap leaves; without either the watts are unbounded and
// the pass never weighs a job. A bounded pass weighs each job it would
// start (its budget weight, or under a cap its power increment at the
// pstate Alg. 2 gives it) and stops, reserves and backfills by nodes and
// watts alike; the knapsack chooses the heads while a budget applies.
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
	if s.dynamicOrder() && !capped && s.pol.Budget != nil && s.bud.held(s) {
		return false // (before re-sorting the queue for nothing)
	}
	if s.dynamicOrder() {
		s.sortQueue()
	}
	bounded := false
	switch {
	case capped:
		// Each job's cap is checked by weigh; EASY's head sets the budget
		// (headNeed).
		s.env.System.Budget = math.Inf(1)
		s.caps.power = s.model.Power(s.cnt, s.watts)
		s.budget = math.Inf(1)
		bounded = true
	case s.pol.Budget != nil:
		s.bud.on = s.bud.active(s)
		s.env.System.Budget = math.Inf(1)
		if s.bud.on {
			s.env.System.Budget = s.budget
			bounded = true
		}
	}
	if bounded {
		s.bp.idle = false
		if s.headroom() < s.bp.minWeight {
			// No job fits in what is left of the budget. Only an end (or
			// the budget ending) changes that, and either brings another
			// pass.
			s.blocked = true
			return false
		}
	}
	// The heads: start them in queue order while they fit (in scan mode
	// the one batch is the queue: k is a position in it), or the
	// knapsack's choice from the window while a budget applies.
	head, headAt, first, heads := int32(-1), -1, -1, 0
	full := true                                                    // the knapsack's window is full
	if bounded && s.pol.Select == SelectKnapsack && s.caps == nil { // (check refuses a knapsack under a powercap)
		heads, first, full = s.bp.knapsack(s, &free)
		head, headAt = s.firstWaiting()
	} else {
	loop:
		for b := s.cands(walkAll, 0, -1, free); len(b) > 0; b = s.more(free) {
			for k, j := range b {
				if !s.admitted(j) {
					continue
				}
				nn := int(s.alloc[j])
				if nn > free {
					if s.defers != nil {
						s.defers.release(j, s.now) // waits for nodes now, not for a price
					}
					head, headAt = j, k
					break loop
				}
				if s.defers != nil && s.defers.holds(s, j) {
					head, headAt = j, k
					break loop
				}
				if bounded {
					wt, p, ok := s.weigh(j)
					if !ok {
						head, headAt = j, k
						break loop
					}
					s.startAt(j, wt, p)
				} else {
					s.startJob(j)
				}
				if first < 0 {
					first = k
				}
				free -= nn
				heads++
			}
		}
	}
	s.blocked = head >= 0
	backfilled := 0
	if head >= 0 && free > 0 {
		switch s.pol.Backfill {
		case EASY:
			s.reserve(head, free, bounded)
			kind := walkEASY
			if bounded {
				kind = walkBudgetEASY
			}
			backfilled = s.backfillEASY(s.cands(kind, headAt+1, head, free), free, bounded)
		case Greedy:
			s.skipped = 1 // the head did not fit
			kind := walkFits
			if bounded {
				kind = walkBudgetFits
			}
			backfilled = s.backfillGreedy(s.walkFrom(kind, headAt+1, head), free, bounded)
		}
		if bounded {
			// Nothing started, the reservation lies ahead, the window
			// holds only jobs that were there: an arrival-only pass may
			// look at the new jobs alone (see budgetStage.arrivalOnly).
			s.bp.idle = heads+backfilled == 0 && full && s.caps == nil && (s.pol.Backfill != EASY || s.res.shadow > s.now)
		}
	}
	switch {
	case s.indexed() || heads+backfilled == 0:
	case backfilled == 0 && first == 0 && s.pol.Admit == nil && !bounded:
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
		if first < 0 || backfilled > 0 && headAt+1 < first {
			first = headAt + 1
		}
		s.compactQueue(first)
	}
	s.markScanned()
	return heads+backfilled > 0
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
	for _, st := range s.stages.arrivals {
		if !st.arrivalOnly(s) {
			return false
		}
	}
	return true
}

// arrivalPass is a pass over the jobs that arrived since the last one:
// they can only be backfilled, under the reservation the last pass left
// (bounded by the budget if it applied then, as it does now).
func (s *sim) arrivalPass() bool {
	free := s.free()
	bounded := s.pol.Budget != nil && s.bud.on
	started := 0
	fresh := s.fresh()
	switch s.pol.Backfill {
	case EASY:
		started = s.backfillEASY(fresh, free, bounded)
	case Greedy:
		started = s.backfillGreedy(s.listWalk(fresh), free, bounded)
	}
	if bounded && started > 0 {
		s.bp.idle = false
	}
	if started > 0 && !s.indexed() {
		s.compactQueue(s.scanned)
	}
	s.markScanned()
	return started > 0
}

// reservation is EASY's reservation for the first waiting job: the shadow
// time, the earliest estimated end by which enough nodes (and, in a
// bounded pass, enough watts) are free for it, and what is free at that
// instant beyond its need: extra nodes and extraW watts (+Inf unbounded).
type reservation struct {
	shadow float64
	extra  int
	extraW float64
}

// reserve computes the reservation of waiting head j with free nodes free
// (see reservation). Its watts, in a bounded pass, are its budget weight,
// or under a powercap its increment at the lowest pstate it may run at
// against a budget that is its cap less the machine's power without its
// running jobs' increments (headNeed).
func (s *sim) reserve(j int32, free int, bounded bool) {
	need := int(s.alloc[j])
	if !bounded {
		s.res.shadow, s.res.extra = s.run.reserve(need, free)
		s.res.extraW = math.Inf(1)
		return
	}
	needW := s.headNeed(j)
	s.res.shadow, s.res.extra, s.res.extraW = s.run.reserveW(s.now, need, free, needW, s.headroom(), s.wt)
}

// backfillEASY starts the candidates (a first batch, see cands) that fit
// now and do not delay the reservation: they end by the shadow time, or
// fit in the extra nodes (and, bounded, the extra watts). A bounded pass
// weighs each candidate that fits the free nodes: within the headroom,
// and under a powercap at the pstate Alg. 2 gives it, which it must end
// by the shadow time at (Alg. 2 may slow it down, never speed it up: it
// is not weighed once it can neither end in time nor fit the extra nodes
// and watts, as each increment costs a walk over the nodes it would get).
func (s *sim) backfillEASY(b []int32, free int, bounded bool) int {
	started := 0
	boot := s.machine.BootTime
	r := &s.res
	for ; len(b) > 0; b = s.more(free) {
		// (The per-job arrays in locals: a long queue is mostly jobs that
		// do not fit, each a few loads.)
		alloc, status := s.alloc, s.status
		for _, j := range b {
			nn := int(alloc[j])
			if nn > free || status[j] != 0 || !s.admitted(j) {
				continue
			}
			wait := 0.0
			if boot > 0 && nn > s.cnt.Idle {
				wait = boot // it waits for off nodes to boot
			}
			var endEst, wt float64
			p := 0
			if bounded {
				lim := backfillLimit{endBy: math.Inf(1)}
				if s.caps != nil {
					lim = backfillLimit{endBy: r.shadow, boot: wait, extraW: math.Inf(-1)}
					if nn <= r.extra {
						lim.extraW = r.extraW
					}
				} else {
					endEst = s.now + s.estimate(j) + wait
				}
				var ok bool
				if wt, p, ok = s.weighBy(j, lim); !ok {
					continue
				}
				if s.caps != nil {
					endEst = s.now + s.estAt(j, p) + wait // at the pstate Alg. 2 chose
				}
			} else {
				endEst = s.now + s.estimate(j) + wait
			}
			switch {
			case endEst <= r.shadow:
				// Ends by the shadow time: cannot delay the reservation.
			case nn <= r.extra && wt <= r.extraW:
				r.extra -= nn
				r.extraW -= wt
			default:
				continue
			}
			if bounded {
				s.startAt(j, wt, p)
			} else {
				s.startJob(j)
			}
			free -= nn
			started++
			if free == 0 || bounded && s.headroom() < s.bp.minWeight {
				return started // nothing else fits
			}
		}
	}
	return started
}

// backfillGreedy starts every candidate that fits now (bounded: in nodes
// and watts), without protecting the first waiting job (Kunkel's
// BackfillDelay); it gives up once depth jobs have not fit. (An indexed
// walk skips the jobs that do not fit and says how many.)
func (s *sim) backfillGreedy(w *walk, free int, bounded bool) int {
	started := 0
	for s.skipped <= s.pol.Depth && free > 0 && !(bounded && s.headroom() < s.bp.minWeight) {
		j := w.next(free)
		if n := w.skipped; n > 0 {
			if s.skipped+n > s.pol.Depth {
				s.skipped = s.pol.Depth + 1
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
		if bounded {
			wt, p, ok := s.weigh(j)
			if !ok {
				s.skipped++
				continue
			}
			s.startAt(j, wt, p)
		} else {
			s.startJob(j)
		}
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
