package runtime

import (
	"math"
	"slices"
)

// enqueue adds an arriving job to the queue, keeping queue order.
func (s *sim) enqueue(j int32) {
	p := s.pol
	if s.prio != nil || s.order != nil {
		s.setJobEnv(j)
		if s.prio != nil {
			s.prio[j] = p.Priority.Num(&s.env)
		}
		if s.order != nil {
			s.order[j] = p.Order.Num(&s.env)
		}
	}
	if s.dynamicOrder() || (s.prio == nil && s.order == nil) {
		// Arrival order is queue order (jobs arrive by submit time, then
		// trace order); a dynamic order is re-sorted every pass anyway.
		s.queue = append(s.queue, j)
		return
	}
	i, _ := slices.BinarySearchFunc(s.queue, j, func(q, j int32) int {
		if s.staticBefore(q, j) {
			return -1
		}
		return 1
	})
	s.queue = slices.Insert(s.queue, i, j)
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

// sortQueue re-sorts the queue by rules that depend on time: each key is
// evaluated once per job per pass into a slice, never in the comparator.
func (s *sim) sortQueue() {
	p := s.pol
	n := len(s.queue)
	s.keys = s.keys[:0]
	dynPrio := p.Priority != nil && p.Priority.Deps.Dynamic()
	dynOrder := p.Order != nil && p.Order.Deps.Dynamic()
	for _, j := range s.queue {
		s.setJobEnv(j)
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
		s.keys = append(s.keys, -pr, ord)
	}
	idx := s.idxBuf[:0]
	for i := range n {
		idx = append(idx, int32(i))
	}
	s.idxBuf = idx
	keys, q := s.keys, s.queue
	slices.SortFunc(idx, func(a, b int32) int {
		ka, kb := keys[2*a:2*a+2], keys[2*b:2*b+2]
		switch {
		case ka[0] < kb[0] || (math.IsNaN(kb[0]) && !math.IsNaN(ka[0])):
			return -1
		case ka[0] > kb[0] || (math.IsNaN(ka[0]) && !math.IsNaN(kb[0])):
			return 1
		case ka[1] < kb[1]:
			return -1
		case ka[1] > kb[1]:
			return 1
		}
		return int(q[a] - q[b])
	})
	sorted := s.sortBuf[:0]
	for _, k := range idx {
		sorted = append(sorted, q[k])
	}
	s.sortBuf = sorted
	copy(s.queue, sorted)
}

// setPassEnv fills the parts of the environment that are fixed for a pass.
func (s *sim) setPassEnv() {
	e := &s.env
	e.Now.Seconds = s.now
	e.Now.Day = (s.now - s.firstT) / 86400
	if s.pol.deps()&DepNow != 0 {
		w := s.clock.Time(s.now)
		e.Now.Hour = float64(w.Hour()) + float64(w.Minute())/60 + float64(w.Second())/3600
		e.Now.Weekday = int(w.Weekday())
	}
	e.Peak = s.period == s.peakIdx
	e.Price.Now = s.price
	e.Price.Mean = s.priceMean
	e.System = SystemEnv{
		Nodes: s.nodes, Free: s.free(), Idle: s.nIdle, Off: s.off, Busy: s.busy,
		Power: s.powerNow(), Queue: len(s.queue),
	}
}

func (s *sim) powerNow() float64 {
	m := s.machine
	return s.busyW + float64(s.nIdle+s.reserved)*m.Power.Idle + float64(s.off)*m.Power.Off +
		float64(s.booting)*m.Power.Boot + float64(s.shutting)*m.Power.Shutdown + s.infraW()
}

// setJobEnv fills env.Job for job j.
func (s *sim) setJobEnv(j int32) {
	jb := &s.jobs[j]
	s.env.Job = JobEnv{
		ID: int(jb.ID), User: jb.User, Group: jb.Group, Queue: jb.Queue,
		Submit: jb.Submit, Wait: s.now - jb.Submit, Nodes: jb.Nodes, Procs: jb.Procs,
		Runtime: jb.Runtime, Walltime: jb.Walltime, Estimate: s.est[j],
		Power: float64(jb.Nodes) * s.pw[j], PowerPerNode: s.pw[j],
	}
}

// admitted evaluates the admit rule for job j.
func (s *sim) admitted(j int32) bool {
	if s.pol.Admit == nil {
		return true
	}
	s.setJobEnv(j)
	return s.pol.Admit.Bool(&s.env)
}

// pass runs one scheduling pass and reports whether any job started.
func (s *sim) pass() bool {
	if len(s.queue) == 0 {
		return false
	}
	if s.pol.deps() != 0 {
		s.setPassEnv()
	}
	if s.dynamicOrder() {
		s.sortQueue()
	}
	free := s.free()
	// FCFS: start heads while they fit.
	head, first, heads := -1, -1, 0
	for i, j := range s.queue {
		if !s.admitted(j) {
			continue
		}
		if s.jobs[j].Nodes > free {
			head = i
			break
		}
		if first < 0 {
			first = i
		}
		s.startJob(j)
		free -= s.jobs[j].Nodes
		heads++
	}
	backfilled := 0
	if head >= 0 && free > 0 {
		switch s.pol.Backfill {
		case EASY:
			backfilled = s.easy(head, free)
		case Greedy:
			backfilled = s.greedy(head, free)
		}
	}
	switch {
	case heads+backfilled == 0:
		return false
	case backfilled == 0 && first == 0 && s.pol.Admit == nil:
		// Exactly the first jobs started, as under plain FCFS: one memmove,
		// keeping the queue's backing array.
		n := copy(s.queue, s.queue[heads:])
		s.queue = s.queue[:n]
	default:
		if first < 0 {
			first = head + 1
		}
		s.compactQueue(first)
	}
	return true
}

// easy backfills around a reservation for the job at queue position head.
func (s *sim) easy(head, free int) int {
	need := s.jobs[s.queue[head]].Nodes
	// Shadow time: walk running jobs by estimated end until enough nodes
	// are free; extra counts all nodes free at that instant.
	avail := free
	shadow := math.Inf(1)
	k := 0
	for ; k < len(s.run); k++ {
		avail += int(s.run[k].nodes)
		if avail >= need {
			shadow = s.run[k].est
			k++
			break
		}
	}
	for ; k < len(s.run) && s.run[k].est == shadow; k++ {
		avail += int(s.run[k].nodes)
	}
	extra := avail - need
	started := 0
	for _, j := range s.queue[head+1:] {
		nn := s.jobs[j].Nodes
		if nn > free || s.status[j] != 0 || !s.admitted(j) {
			continue
		}
		endEst := s.now + s.est[j]
		if s.machine.BootTime > 0 && nn > s.nIdle {
			endEst += s.machine.BootTime // it waits for off nodes to boot
		}
		switch {
		case endEst <= shadow:
			// Ends by the shadow time: cannot delay the reservation.
		case nn <= extra:
			extra -= nn
		default:
			continue
		}
		s.startJob(j)
		free -= nn
		started++
		if free == 0 {
			break
		}
	}
	return started
}

// greedy starts every later job that fits now, without protecting the
// first waiting job (Kunkel's BackfillDelay); it gives up after depth jobs
// that did not fit.
func (s *sim) greedy(head, free int) int {
	started, skipped := 0, 1
	for _, j := range s.queue[head+1:] {
		if skipped > s.pol.Depth || free == 0 {
			break
		}
		if s.status[j] != 0 || !s.admitted(j) {
			continue
		}
		nn := s.jobs[j].Nodes
		if nn > free {
			skipped++
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
