package runtime

import (
	"math"
	"math/bits"
	"slices"
)

// The waiting queue, and an index over it so that a pass finds the jobs
// that can start now without visiting the others.
//
// A queue is held one of two ways:
//
//   - scan mode: s.queue lists the waiting jobs in queue order, and every
//     pass walks it (the engine's original form, cheapest while the queue
//     is short);
//   - index mode (queueIndex): when the queue order is a fixed total order
//     (submit time and trace order, or static priority and order keys,
//     ranked once per run) and the admit rule, if any, reads fixed job
//     fields, the waiting jobs are marked by their rank in
//       - a bitset over ranks (three levels), which gives the next waiting
//         job after any rank: queue heads, the knapsack's window, the
//         first waiting job;
//       - under greedy backfilling, a Fenwick tree of counts over ranks:
//         how many wait between two ranks, for its depth;
//       - one segment tree per size class (quarter octaves of allocated
//         nodes) over that class's jobs in queue order, in blocks of 64,
//         holding the least allocation, least estimate and least budget
//         weight of the waiting jobs under each node. A backfilling pass
//         asks each class for its first job after the first waiting one
//         that may pass the pass's test — fits the free nodes (and the
//         budget's headroom), and ends by the shadow time or fits in the
//         extra nodes (and extra budget) — descending only into subtrees
//         whose minima allow one, and takes the earliest of the classes'
//         answers. Each condition is monotone in these minima; within a
//         class sizes differ by at most a quarter octave, so a subtree
//         whose least allocation fits while its short jobs do not is rare.
//
// A pass's tests only grow stricter while it runs (free nodes, extra nodes
// and headroom shrink, the shadow time stays), so the earliest job that
// passes the test now is the next job the scan would start: the index
// visits what the scan would, less jobs the scan passes over without
// evaluating anything. Where a pass evaluates a rule or changes state
// before deciding (a frequency rule's estimate, a weight rule that reads
// the time, Alg. 2's fit under a powercap), the index prunes by free nodes
// only, which the scan checks first. Dynamic orders (re-sorted every pass)
// and admit rules that read the time stay in scan mode, as does FCFS
// without an admit rule (its passes stop at the first job that does not
// fit); so does a run whose static keys or admit rule fail or give NaN
// for some job, so that its rules are evaluated exactly when and where the
// scan evaluates them.
//
// An eligible run switches to index mode when defaultIndexAt jobs wait, and
// back when fewer than a quarter of that do: each mode does what it is
// fastest at, and a switch is followed by a full pass. Building the index
// visits every job of the run, so the first switch waits until passes over
// long queues have visited as many (a trace whose queue is long only for a
// moment never pays for it); later switches reuse the index.

// defaultIndexAt is the queue length at which an eligible run indexes its
// queue (tests vary it with the queueIndex option: 1, always; math.MaxInt,
// never). Measured
// in instructions of the engine alone (EASY, scripts/instructions.sh), 128
// against 512: CEA-Curie on 70,000 processors 1,678 M against 2,279 M
// (its queue stays in the hundreds, scanned in every pass at 512), on
// 60,000 1,752 M against 1,816 M, on its own machine 1,226 M against
// 1,306 M, SDSC-BLUE 946 M against 972 M, HPC2N 726 M against 739 M; 64
// was no better. (When the index cost more to keep, 256 had cost
// SDSC-BLUE 8 %.)
const defaultIndexAt = 128

// defaultBuildWork is the scan work, in jobs visited per job of the run,
// after which a long queue is first indexed (tests set it to 0).
const defaultBuildWork = 1

// queueState is what the engine keeps about its queue besides s.queue.
type queueState struct {
	init     bool
	arrived  int32 // jobs enqueued so far (they arrive in index order)
	keyed    int32 // jobs whose static keys are known (all, once the index has ranked them)
	work     int   // jobs visited by passes over long queues before the index is built
	nwait    int   // jobs waiting
	scanOnly bool  // the queue cannot be indexed (see above)
	dynRules bool  // some rule of the policy reads more than fixed job fields
	ix       *queueIndex
	builds   int       // times the index was built (a streamed run's may grow instead)
	allocs   *allocSet // scan-only runs: allocations of the waiting jobs
	walk     walk      // the walk of the pass (one at a time)
}

// queueIndex indexes the waiting jobs (index mode).
type queueIndex struct {
	on       bool    // the index holds the queue (s.queue is empty)
	n        int     // jobs of the run (ranks)
	rank     []int32 // per job, its place in the queue order; nil: the job's index
	jobAt    []int32 // per rank, the job; nil with rank
	admit    []bool  // per job, a static admit rule's answer; nil: no rule
	base     int32   // jobs from this one on are indexed (submit order: earlier ones have all started)
	loc      []int32 // per indexed job (from base), its place in its class …
	cls      []uint8 // … and its class
	classes  []qclass
	tops     []classTop // per class that has jobs, smallest first: what a pass reads of each first, side by side
	topOf    []int32    // per class, its place in tops
	nonEmpty []uint64   // bit i: some admitted job of tops[i] waits
	set      rankSet    // admitted waiting jobs by rank
	fen      *fenwick   // greedy backfilling: the same, counted
	refused  []int32    // waiting jobs the static admit rule refuses (they never start)
	seen     int32      // incremental passes: jobs from this one on arrived since the last pass
	growable bool       // a streamed run's index takes the jobs read later in place (see growIndex)
	pruneE   bool       // estimates are fixed per job (no frequency rule)
	pruneW   bool       // weights are fixed per job: budget weights (no weight rule on time), or powercaps' least increments
	// For the pass's candidate walk: the classes that may still hold a
	// candidate and, per class, its next candidate or the place to search
	// from.
	live      []int
	cur, from []int32
	buf       []int32 // a walk's batch
	// EASY walks: the classes (bit i: tops[i]) that may pass the e/X part
	// of the test, as the last walks found them (see easyClasses).
	maybeE []uint64
	lastS  float64 // the shadow time and …
	lastX  int     // … the extra nodes of the last EASY walk
	// and per class, the place before which no waiting job can pass the
	// test of an EASY walk (see searchEASY).
	passed []int32
}

// qclass is one size class: its jobs in queue order, what the tests read
// of each (in place order, for the scans of a leaf block), and a tree of
// what waits: level 0 sums up each block of 64 places, each level above
// groups of fan nodes of the one below, up to the root. (Sixteen
// children to a node, not two: a search visits a quarter as many levels,
// and a node's children share cache lines. On CEA-Curie on 60,000
// processors the search took a third of the time it took in a binary
// tree; eight children were a little slower than sixteen.)
type qclass struct {
	jobs []int32
	a    []int32   // per place: allocation
	e    []float32 // estimate, rounded down
	w    []float32 // budget weight, rounded down (nil where weights are not pruned on)
	bits []uint64  // per block: which of its jobs wait
	lv   [][]qnode // lv[0][b]: block b; lv[h+1][x]: lv[h][x*fan:][:fan]; the last level is the root alone
	held []minCount
	maxA int32 // the widest allocation in the class
}

// minCount counts the waiting jobs of a block that hold each of its
// minima: a job that starts leaves the block's node as it is unless it
// was the last to hold one. (A class is mostly one size, and walltimes
// are round numbers: on CEA-Curie on 60,000 processors two drops in three
// then change nothing, where without the counts nearly every one scanned
// its block.)
type minCount struct{ a, e, w uint8 }

// classTop is a class as a pass first sees it: its least allocation and
// its tree's root.
type classTop struct {
	class, low int32
	root       qnode
}

// qnode holds the minima over the waiting jobs under a tree node
// (MaxInt32 and +Inf: none waits).
type qnode struct {
	a    int32   // allocation
	e, w float32 // estimate, budget weight (rounded down)
}

var noneWaits = qnode{a: math.MaxInt32, e: float32(math.Inf(1)), w: float32(math.Inf(1))}

// below is x in float32, rounded down: the index's tests are necessary
// conditions (the caller tests each job it gets exactly), so what it
// keeps of estimates and weights may be low, never high.
func below(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

const (
	blockBits = 6 // 64 places per leaf block
	fanBits   = 4 // fan children per tree node
	fan       = 1 << fanBits
)

// classOf is the size class of an allocation: 1 to 8 nodes each alone,
// then quarter octaves. (Octaves above 4 nodes made CEA-Curie on 60,000
// processors 5 % faster and the synthetic queue on 256 nodes 20 %
// slower; one class for all made CEA-Curie 6 % slower.)
func classOf(a int32) int {
	v := uint32(a - 1)
	if v < 8 {
		return int(v)
	}
	e := bits.Len32(v)
	return 4*(e-2) + int(v>>(e-3))&3
}

// classLow is the smallest allocation in class c.
func classLow(c int) int {
	if c < 8 {
		return c + 1
	}
	e := c/4 + 2
	return 1<<(e-1) + (c%4)<<(e-3) + 1
}

// queueInit sets up the queue's state at the first arrival.
func (s *sim) queueInit() {
	q := &s.q
	q.init = true
	p := s.pol
	q.dynRules = p.deps().Dynamic()
	if p.Backfill == NoBackfill && p.Admit == nil && !s.dynamicOrder() {
		// FCFS passes stop at the first job that does not fit, the
		// knapsack at the end of its window: a scan costs what the pass
		// starts, and an index would only add its upkeep. (A dynamic
		// order keeps the least allocation below, not to sort the queue
		// for passes where nothing fits.)
		q.scanOnly = true
		return
	}
	q.scanOnly = s.dynamicOrder() || p.Admit != nil && p.Admit.Deps.Dynamic() ||
		// Alg. 2 changes the power of waiting jobs it tries; an admit rule
		// reading it is not fixed then.
		p.Admit != nil && !stageAllowances(p).fixedPower && p.Admit.Fields&FieldPower != 0
	// The least allocation waiting, kept while the queue is scanned (the
	// index keeps its own): a pass in which nothing fits is skipped.
	q.allocs = newAllocSet(s.nodes)
}

// indexed reports whether the queue is in index mode.
func (s *sim) indexed() bool { return s.q.ix != nil && s.q.ix.on }

// queued adds an arriving job to the index, noting when it does not come
// last in the queue (an incremental pass would miss it).
func (s *sim) queued(j int32) {
	ix := s.q.ix
	if ix.rank != nil && ix.rankOf(j) < ix.lastRank() {
		s.changed = true
	}
	ix.insert(j)
}

// dequeue takes job j, which is starting, off the queue.
func (s *sim) dequeue(j int32) {
	s.q.nwait--
	if s.q.ix != nil || s.q.allocs != nil {
		s.unindex(j)
	}
}

func (s *sim) unindex(j int32) {
	switch {
	case s.indexed():
		s.q.ix.remove(j)
	case s.q.allocs != nil:
		s.q.allocs.remove(int(s.alloc[j]))
	}
}

// queueMode switches between scan and index mode by the queue's length.
// A switch makes the next pass a full one.
func (s *sim) queueMode() {
	q := &s.q
	switch {
	case q.scanOnly:
	case q.ix != nil && q.ix.on:
		if q.nwait*4 < s.tune.indexAt {
			s.toScan()
		}
	case s.indexDue(true):
		s.toIndex()
	}
}

// indexDue reports whether a long queue in scan mode should move into the
// index: once built, as soon as it is long; before, once passes over long
// queues have visited as many jobs as building it would (a pass counts
// its queue).
func (s *sim) indexDue(pass bool) bool {
	q := &s.q
	if q.scanOnly || q.nwait < s.tune.indexAt {
		return false
	}
	if q.ix != nil {
		return true
	}
	if pass {
		q.work += q.nwait
	}
	return q.work >= s.tune.buildWork*len(s.jobs)
}

// toIndex moves the queue into the index, building it on first use.
func (s *sim) toIndex() {
	q := &s.q
	if q.ix != nil && q.ix.n < len(s.jobs) && !s.growIndex() {
		// A streamed run's index holds the jobs read when it was built:
		// where they cannot join it in place, build it again, on twice as
		// many (or all), so that rebuilding costs O(jobs) in all.
		if err := s.stream.readUpTo(s, 2*q.ix.n); err != nil {
			s.stream.abandoned = true
			return
		}
		q.ix = nil
	}
	if q.ix == nil {
		q.builds++
		ix, ok := s.buildIndex()
		if !ok {
			q.scanOnly = true
			q.allocs = newAllocSet(s.nodes)
			for _, j := range s.queue {
				q.allocs.add(int(s.alloc[j]))
			}
			return
		}
		q.ix = ix
	}
	ix := q.ix
	for _, j := range s.queue {
		ix.insert(j)
	}
	s.queue = s.queue[:0]
	ix.on = true
	q.allocs = nil
	s.changed = true
}

// growIndex extends a streamed run's index to the jobs read since it was
// built, if it can (see buildIndex): in trace order each comes after
// every job indexed, last in its class. (Building the index again on
// twice as many jobs had to wait for the reader to get that far: on
// CEA-Curie on 60,000 processors, where the queue is long long before
// the trace is read, 20 to 30 ms of a run of 350 ms.)
func (s *sim) growIndex() bool {
	ix := s.q.ix
	n := len(s.jobs)
	if !ix.growable {
		return false
	}
	for _, a := range s.alloc[ix.n:n] {
		if classOf(a) >= len(ix.classes) {
			return false // (wider than the machine: the run will say so)
		}
	}
	for j := int32(ix.n); j < int32(n); j++ {
		a := s.alloc[j]
		c := classOf(a)
		k := &ix.classes[c]
		ix.cls = push(ix.cls, uint8(c))
		ix.loc = push(ix.loc, int32(len(k.jobs)))
		k.jobs = push(k.jobs, j)
		k.a = push(k.a, a)
		k.e = push(k.e, below(s.est[j]))
		k.maxA = max(k.maxA, a)
	}
	for c := range ix.classes {
		ix.classes[c].grow(len(ix.classes[c].jobs))
	}
	ix.set.grow(n)
	if ix.fen != nil {
		ix.fen.grow(n)
	}
	ix.n = n
	return true
}

// push appends v to a, doubling its capacity where it must grow (append
// grows long slices by a quarter at a time: a class of CEA-Curie grown a
// few jobs at a time copied itself over and over, 10 ms of a run).
func push[T any](a []T, v T) []T {
	if len(a) == cap(a) {
		a = slices.Grow(a, max(len(a), 8))
	}
	return append(a, v)
}

// toScan moves the queue back into s.queue, in queue order.
func (s *sim) toScan() {
	ix := s.q.ix
	s.queue = ix.waiting(s.queue[:0])
	for _, j := range s.queue {
		if ix.admit == nil || ix.admit[j] {
			ix.remove(j)
		}
	}
	ix.refused = ix.refused[:0]
	ix.on = false
	s.q.allocs = newAllocSet(s.nodes)
	for _, j := range s.queue {
		s.q.allocs.add(int(s.alloc[j]))
	}
	s.changed = true
}

// waiting appends the waiting jobs in queue order to out, in either mode
// (for the look-ahead and the capacity controller, which read the queue
// without changing it).
func (s *sim) waiting(out []int32) []int32 {
	if s.indexed() {
		return s.q.ix.waiting(out)
	}
	return append(out, s.queue...)
}

// scanCopy puts sim x's queue in scan mode holding queue (in queue order),
// with run s's record of which jobs have arrived and have keys: a scratch
// engine takes the queue as it is and never indexes it.
func (x *sim) scanCopy(s *sim, queue []int32) {
	x.queue = append(x.queue[:0], queue...)
	x.q = queueState{init: true, scanOnly: true, arrived: s.q.arrived, keyed: s.q.keyed,
		nwait: len(queue), dynRules: s.q.dynRules, walk: x.q.walk}
}

// flatQueue fills s.queue with the waiting jobs in queue order, for the
// explanation of a run that cannot go on.
func (s *sim) flatQueue() {
	if s.indexed() {
		s.queue = s.q.ix.waiting(s.queue[:0])
	}
}

// buildIndex ranks every job of the run in queue order and sorts them
// into size classes. It fails (ok false) if a static key or admit rule
// cannot be evaluated for some job, or gives NaN.
func (s *sim) buildIndex() (ix *queueIndex, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isEval := r.(*EvalError); !isEval {
				panic(r)
			}
			ix, ok = nil, false
		}
	}()
	n := len(s.jobs)
	ix = &queueIndex{n: n}
	p := s.pol
	if a := p.Admit; a != nil {
		ix.admit = make([]bool, n)
		for j := range n {
			s.setJobEnv(int32(j), a.Fields)
			ix.admit[j] = a.Bool(&s.env)
		}
	}
	if s.prio != nil || s.order != nil {
		// Jobs not yet arrived get their keys as enqueue will give them
		// (unless staticKeys has).
		f := fields(p.Priority, p.Order)
		for j := int(max(s.q.arrived, s.q.keyed)); j < n; j++ {
			s.setJobEnv(int32(j), f)
			if s.prio != nil {
				s.prio[j] = p.Priority.Num(&s.env)
			}
			if s.order != nil {
				s.order[j] = p.Order.Num(&s.env)
			}
		}
		for j := range n {
			if s.prio != nil && s.prio[j] != s.prio[j] || s.order != nil && s.order[j] != s.order[j] {
				return nil, false // NaN keys have no total order
			}
		}
		s.q.keyed = int32(n) // (enqueue need not evaluate them again)
	}
	if (s.prio != nil || s.order != nil) && !s.inTraceOrder() {
		ix.jobAt = make([]int32, n)
		for j := range ix.jobAt {
			ix.jobAt[j] = int32(j)
		}
		slices.SortFunc(ix.jobAt, func(a, b int32) int {
			switch {
			case s.staticBefore(a, b):
				return -1
			case s.staticBefore(b, a):
				return 1
			}
			return 0
		})
		ix.rank = make([]int32, n)
		for r, j := range ix.jobAt {
			ix.rank[j] = int32(r)
		}
	}
	ix.pruneE = s.freq.kind != FreqRule
	// Walks prune on a weight fixed per job: its budget weight, or under
	// powercaps a lower bound on its power increment.
	ix.pruneW = s.caps != nil || p.Budget != nil && s.bp.fixedWeights(s)
	// Size classes, each listing its jobs in queue order: slices of flat
	// arrays, class by class. In submit order, jobs before the first
	// waiting one have all started and never wait again: they are left
	// out.
	if ix.rank == nil && len(s.queue) > 0 {
		ix.base = s.queue[0]
	}
	m := n - int(ix.base)
	// A streamed run's jobs read later join the index in place (see
	// growIndex): in trace order, with nothing to evaluate for them, into
	// every class of the machine, with room for as many jobs as the
	// reader expects (fresh memory costs: a page's first touch cost as
	// much as 2 µs here), each class's in its share of those read.
	ix.growable = s.stream.feed != nil && ix.rank == nil && ix.admit == nil && !ix.pruneW && s.prio == nil && s.order == nil
	room := m
	if ix.growable {
		room = max(m, cap(s.jobs)-int(ix.base))
	}
	var count [128]int32 // (classOf < 128 for every int32)
	ix.cls = make([]uint8, m, room)
	for i, a := range s.alloc[ix.base:] {
		c := classOf(a)
		ix.cls[i] = uint8(c)
		count[c]++
	}
	classes := 0
	if ix.growable {
		classes = classOf(int32(max(s.nodes, 1))) + 1
	}
	for c := len(count) - 1; c >= 0; c-- {
		if count[c] > 0 {
			classes = max(classes, c+1)
			break
		}
	}
	ix.classes = make([]qclass, classes)
	share := func(c int) int { return int(int64(count[c]) * int64(room) / int64(max(m, 1))) }
	all := 0
	for c := range classes {
		all += share(c)
	}
	jobs, as, es := make([]int32, all), make([]int32, all), make([]float32, all)
	var ws []float32
	if ix.pruneW {
		ws = make([]float32, all)
	}
	off := 0
	ix.topOf = make([]int32, len(ix.classes))
	for c := range ix.classes {
		if count[c] == 0 && !ix.growable {
			continue
		}
		ix.topOf[c] = int32(len(ix.tops))
		ix.tops = append(ix.tops, classTop{class: int32(c), low: int32(classLow(c)), root: noneWaits})
		k := &ix.classes[c]
		end := off + share(c)
		k.jobs, k.a, k.e = jobs[off:off:end], as[off:off:end], es[off:off:end]
		if ws != nil {
			k.w = ws[off:off:end]
		}
		off = end
		k.makeTree(int(count[c]))
	}
	ix.loc = make([]int32, m, room)
	weight := func(j int32) float64 { return s.bp.weightOf(s, j) }
	if s.caps != nil {
		slowest := s.caps.slowest(s)
		weight = func(j int32) float64 { return s.caps.leastIncrement(s, j, slowest) }
	}
	for r := int(ix.base); r < n; r++ {
		j := ix.jobOf(int32(r))
		k := &ix.classes[ix.cls[j-ix.base]]
		ix.loc[j-ix.base] = int32(len(k.jobs))
		k.jobs = append(k.jobs, j)
		k.a = append(k.a, s.alloc[j])
		k.maxA = max(k.maxA, s.alloc[j])
		k.e = append(k.e, below(s.est[j]))
		if k.w != nil {
			k.w = append(k.w, below(weight(j)))
		}
	}
	ix.set = newRankSet(n)
	if p.Backfill == Greedy {
		ix.fen = newFenwick(n)
	}
	ix.cur = make([]int32, len(ix.classes))
	ix.from = make([]int32, len(ix.classes))
	ix.maybeE = make([]uint64, (len(ix.tops)+63)>>6)
	ix.nonEmpty = make([]uint64, len(ix.maybeE))
	ix.passed = make([]int32, len(ix.classes))
	ix.lastS = math.NaN() // (the first EASY walk tests every class)
	return ix, true
}

// staticKeys evaluates static priority and order keys for every job
// before the run. Where they order the jobs as the trace does (the
// standard policies' `order job.submit`), the queue needs no keys: it is
// kept in arrival order, as without them. A rule that fails or gives NaN
// for some job leaves the keys to enqueue, so that it fails where and
// when it would have.
func (s *sim) staticKeys() {
	if s.prio == nil && s.order == nil || s.dynamicOrder() {
		return
	}
	if s.submitOrder() {
		s.prio, s.order = nil, nil
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if _, isEval := r.(*EvalError); !isEval {
				panic(r)
			}
		}
	}()
	p := s.pol
	f := fields(p.Priority, p.Order)
	for j := range s.jobs {
		s.setJobEnv(int32(j), f)
		if s.prio != nil {
			if s.prio[j] = p.Priority.Num(&s.env); s.prio[j] != s.prio[j] {
				return
			}
		}
		if s.order != nil {
			if s.order[j] = p.Order.Num(&s.env); s.order[j] != s.order[j] {
				return
			}
		}
	}
	if s.inTraceOrder() {
		s.prio, s.order = nil, nil
		return
	}
	s.q.keyed = int32(len(s.jobs))
}

// submitOrder reports whether the policy orders its queue by `order
// job.submit` alone, which orders jobs as the trace does, since they come
// sorted by submission (ties in trace order): what staticKeys would find
// by evaluating the rule for every job.
func (s *sim) submitOrder() bool {
	return s.pol.Priority == nil && s.pol.Order != nil && s.pol.Order.Field == FieldSubmit
}

// inTraceOrder reports whether the static keys order the jobs as the
// trace does (`order job.submit` on a trace sorted by submit time, as
// the standard policies say): the index then ranks each job by its place
// in the trace, without sorting them all.
func (s *sim) inTraceOrder() bool {
	for j := 1; j < len(s.jobs); j++ {
		if s.staticBefore(int32(j), int32(j-1)) {
			return false
		}
	}
	return true
}

func (ix *queueIndex) rankOf(j int32) int32 {
	if ix.rank == nil {
		return j
	}
	return ix.rank[j]
}

func (ix *queueIndex) jobOf(r int32) int32 {
	if ix.jobAt == nil {
		return r
	}
	return ix.jobAt[r]
}

// lastRank is the rank of the last waiting job, −1 if none.
func (ix *queueIndex) lastRank() int32 {
	last := ix.set.prev(int32(ix.n - 1))
	for _, j := range ix.refused {
		last = max(last, ix.rankOf(j))
	}
	return last
}

// first is the first admitted waiting job at rank r or later, −1 if none.
func (ix *queueIndex) first(r int32) int32 {
	if r = ix.set.next(r); r < 0 {
		return -1
	}
	return ix.jobOf(r)
}

// waiting appends the waiting jobs in queue order.
func (ix *queueIndex) waiting(out []int32) []int32 {
	for j := ix.first(0); j >= 0; j = ix.first(ix.rankOf(j) + 1) {
		out = append(out, j)
	}
	if len(ix.refused) > 0 {
		out = append(out, ix.refused...)
		slices.SortFunc(out, func(a, b int32) int { return int(ix.rankOf(a)) - int(ix.rankOf(b)) })
	}
	return out
}

// weight is the budget weight at place i of class k, as the index keeps it.
func (k *qclass) weight(i int) float32 {
	if k.w == nil {
		return 0
	}
	return k.w[i]
}

func (ix *queueIndex) insert(j int32) {
	if ix.admit != nil && !ix.admit[j] {
		ix.refused = append(ix.refused, j)
		return
	}
	r := ix.rankOf(j)
	ix.set.add(r)
	if ix.fen != nil {
		ix.fen.add(int(r), 1)
	}
	c := ix.cls[j-ix.base]
	if k := &ix.classes[c]; k.add(int(ix.loc[j-ix.base])) {
		t := ix.topOf[c]
		ix.tops[t].root = k.root()
		ix.maybeE[t>>6] |= 1 << (t & 63) // (its minima fell: test it again)
		ix.nonEmpty[t>>6] |= 1 << (t & 63)
	}
	if l := ix.loc[j-ix.base]; l < ix.passed[c] {
		ix.passed[c] = l
	}
}

func (ix *queueIndex) remove(j int32) {
	r := ix.rankOf(j)
	ix.set.remove(r)
	if ix.fen != nil {
		ix.fen.add(int(r), -1)
	}
	c := ix.cls[j-ix.base]
	if k := &ix.classes[c]; k.drop(int(ix.loc[j-ix.base])) {
		t := ix.topOf[c]
		if ix.tops[t].root = k.root(); ix.tops[t].root.a == math.MaxInt32 {
			ix.nonEmpty[t>>6] &^= 1 << (t & 63)
		}
	}
}

// makeTree sets up the class's tree over places places, none waiting.
func (k *qclass) makeTree(places int) {
	blocks := (places + 1<<blockBits - 1) >> blockBits
	k.bits = make([]uint64, blocks)
	k.held = make([]minCount, blocks)
	k.lv = k.lv[:0]
	for n := max(blocks, 1); ; n = (n + fan - 1) >> fanBits {
		lv := make([]qnode, n)
		for i := range lv {
			lv[i] = noneWaits
		}
		k.lv = append(k.lv, lv)
		if n == 1 {
			return
		}
	}
}

// grow makes room in the class's tree for places places, none of the new
// ones waiting.
func (k *qclass) grow(places int) {
	blocks := (places + 1<<blockBits - 1) >> blockBits
	if blocks <= len(k.bits) {
		return
	}
	k.bits = append(k.bits, make([]uint64, blocks-len(k.bits))...)
	k.held = append(k.held, make([]minCount, blocks-len(k.held))...)
	for h, n := 0, blocks; ; h, n = h+1, (n+fan-1)>>fanBits {
		if h == len(k.lv) {
			k.lv = append(k.lv, nil) // (a level above the old root)
		}
		lv := k.lv[h]
		for x := len(lv); x < n; x++ {
			m := noneWaits
			if h > 0 {
				m = k.minOf(k.lv[h-1][x<<fanBits : min((x+1)<<fanBits, len(k.lv[h-1]))])
			}
			lv = append(lv, m)
		}
		k.lv[h] = lv
		if n == 1 {
			return
		}
	}
}

// minOf is a node over the nodes of group.
func (k *qclass) minOf(group []qnode) qnode {
	m := noneWaits
	for _, o := range group {
		m.a = min(m.a, o.a)
		if o.e < m.e {
			m.e = o.e
		}
	}
	switch {
	case k.w != nil:
		for _, o := range group {
			if o.w < m.w {
				m.w = o.w
			}
		}
	case m.a != math.MaxInt32:
		m.w = 0 // (without weights a node's is 0 while a job under it waits)
	}
	return m
}

// least is the least of vals over the waiting places of block b (bits
// bs), none if no place waits, and how many places hold it.
func least[T int32 | float32](vals []T, b int, bs uint64, none T) (T, uint8) {
	m, n := none, uint8(0)
	for x := bs; x != 0; x &= x - 1 {
		switch v := vals[b<<blockBits+bits.TrailingZeros64(x)]; {
		case v < m:
			m, n = v, 1
		case v == m:
			n++
		}
	}
	return m, n
}

// hold counts a job joining a block with value v for a minimum m held by
// c jobs: it holds the minimum alone, or one more holds it.
func hold[T int32 | float32](v, m T, c *uint8) {
	switch {
	case v < m:
		*c = 1
	case v == m:
		*c++
	}
}

// dec decrements a count and reports whether it reached zero.
func dec(n *uint8) bool {
	*n--
	return *n == 0
}

// waits reports whether the job at place i waits.
func (k *qclass) waits(i int32) bool { return k.bits[i>>blockBits]&(1<<(i&63)) != 0 }

// root is the node over every place of the class.
func (k *qclass) root() qnode { return k.lv[len(k.lv)-1][0] }

// add marks the job at place i waiting; it reports whether the root
// changed.
func (k *qclass) add(i int) bool {
	x := i >> blockBits
	k.bits[x] |= 1 << (i & 63)
	a, e, w := k.a[i], k.e[i], k.weight(i)
	n, c := &k.lv[0][x], &k.held[x]
	hold(a, n.a, &c.a)
	hold(e, n.e, &c.e)
	hold(w, n.w, &c.w)
	for _, lv := range k.lv {
		n := &lv[x]
		changed := false
		if a < n.a {
			n.a, changed = a, true
		}
		if e < n.e {
			n.e, changed = e, true
		}
		if w < n.w {
			n.w, changed = w, true
		}
		if !changed {
			return false // (the nodes above hold no more than this one)
		}
		x >>= fanBits
	}
	return true
}

// drop marks the job at place i no longer waiting; it reports whether the
// root changed.
func (k *qclass) drop(i int) bool {
	b := i >> blockBits
	k.bits[b] &^= 1 << (i & 63)
	n, c := &k.lv[0][b], &k.held[b]
	// Which of the block's minima it was the last to hold.
	lostA := k.a[i] == n.a && dec(&c.a)
	lostE := k.e[i] == n.e && dec(&c.e)
	lostW := k.weight(i) == n.w && dec(&c.w) // (without weights: when it empties)
	if !lostA && !lostE && !lostW {
		return false
	}
	// The block's node and counts anew, each lost minimum from the
	// block's waiting jobs; then each node from its children while that
	// changes it.
	m := *n
	switch bs := k.bits[b]; {
	case bs == 0:
		m, *c = noneWaits, minCount{}
	default:
		if lostA {
			m.a, c.a = least(k.a, b, bs, math.MaxInt32)
		}
		if lostE {
			m.e, c.e = least(k.e, b, bs, float32(math.Inf(1)))
		}
		if lostW && k.w != nil { // (without weights only an empty block loses its)
			m.w, c.w = least(k.w, b, bs, float32(math.Inf(1)))
		}
	}
	x := b
	for h, lv := range k.lv {
		old := lv[x]
		if old == m {
			return false
		}
		lv[x] = m
		if h == len(k.lv)-1 {
			return true
		}
		if p := &k.lv[h+1][x>>fanBits]; old.a > p.a && old.e > p.e && old.w > p.w {
			return false // it held none of its parent's minima, which stand (m only grew)
		}
		g := x &^ (fan - 1) // its group
		m = k.minOf(lv[g:min(g+fan, len(lv))])
		x >>= fanBits
	}
	return false
}

// minAlloc is the least allocation of an admitted waiting job
// (math.MaxInt32 if none).
func (ix *queueIndex) minAlloc() int32 {
	for w, m := range ix.nonEmpty {
		if m != 0 {
			return ix.tops[w<<6+bits.TrailingZeros64(m)].root.a
		}
	}
	return math.MaxInt32
}

// minWaitingAlloc is the least allocation of a waiting job, or 0 where the
// queue keeps no such figure (short queues in scan mode).
func (s *sim) minWaitingAlloc() int {
	switch {
	case s.indexed():
		return int(s.q.ix.minAlloc())
	case s.q.allocs != nil:
		return s.q.allocs.min()
	}
	return 0
}

// A pass's test for the jobs it may start, as the index sees it: the
// prunable part of what the pass checks, with +Inf for what it cannot
// prune on.
type filter struct {
	now    float64
	free   int     // fits now
	room   float64 // weight within the headroom
	shadow float64 // EASY: ends by then …
	extra  int     // … or fits in the extra nodes …
	extraW float64 // … and the extra budget
}

// maybe reports whether the subtree whose minima n holds may hold a job
// passing f.
func (f *filter) maybe(n *qnode) bool {
	a, w := int(n.a), float64(n.w)
	return a <= f.free && w <= f.room && (f.now+float64(n.e) <= f.shadow || a <= f.extra && w <= f.extraW)
}

// pass reports whether the job at place i of class k passes f.
func (f *filter) pass(k *qclass, i int) bool {
	a, w := int(k.a[i]), float64(k.weight(i))
	return a <= f.free && w <= f.room && (f.now+float64(k.e[i]) <= f.shadow || a <= f.extra && w <= f.extraW)
}

// search is the first place ≥ from in class k whose job waits and passes
// f, −1 if none: depth first, leftmost first, over the nodes that reach
// past from and may hold such a job.
func (k *qclass) search(f *filter, from int32) int32 {
	top := len(k.lv) - 1
	if !f.maybe(&k.lv[top][0]) {
		return -1
	}
	return k.descend(f, top, 0, int(from))
}

// descend searches under node x of level h.
func (k *qclass) descend(f *filter, h, x, from int) int32 {
	if h == 0 {
		m := k.bits[x]
		if d := from - x<<blockBits; d > 0 {
			m &^= 1<<d - 1
		}
		for ; m != 0; m &= m - 1 {
			if i := x<<blockBits + bits.TrailingZeros64(m); f.pass(k, i) {
				return int32(i)
			}
		}
		return -1
	}
	lv := k.lv[h-1]
	lo := x << fanBits
	hi := min(lo+fan, len(lv))
	// (children wholly before from's block are passed over)
	lo = max(lo, from>>(blockBits+fanBits*(h-1)))
	for y := lo; y < hi; y++ {
		if f.maybe(&lv[y]) {
			if i := k.descend(f, h-1, y, from); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// walkKind is what a walk over the queue looks for.
type walkKind uint8

const (
	walkAll        walkKind = iota // every waiting job
	walkFits                       // greedy: jobs that fit the free nodes
	walkBudgetFits                 // greedy under a budget: … and its headroom
	walkEASY                       // EASY's backfill candidates
	walkBudgetEASY                 // EASY's under a budget
	curNone        int32    = -1   // (cursor) no more candidates in the class
	curStale       int32    = -2   // (cursor) search from the class's from
)

// walk visits waiting jobs in queue order: in scan mode a slice of
// s.queue, each job; in index mode the jobs from a rank on that may pass
// the pass's test (the caller still tests each one fully).
type walk struct {
	s       *sim
	list    []int32 // scan mode
	i       int     // scan mode: the next to visit
	ix      *queueIndex
	kind    walkKind
	pos     int32 // index mode: the next rank
	head    int32 // index mode: the job the walk starts after, or −1
	n       bool  // index mode: count the waiting jobs passed over …
	skipped int   // … by the last call of next
	grow    int   // index mode: the length of the last batch
	init    bool  // index mode: the classes to look in are set (ix.live)
}

// walkFrom walks from position i of s.queue; in index mode from the start
// of the queue (head −1) or after head, the first waiting job: every
// other waiting job comes after it. (The walk lives in the queue's state:
// one at a time.)
func (s *sim) walkFrom(kind walkKind, i int, head int32) *walk {
	w := &s.q.walk
	if s.q.ix == nil {
		w.s, w.list, w.i, w.ix, w.skipped = s, s.queue, i, nil, 0
		return w
	}
	return w.set(s, kind, i, head)
}

func (w *walk) set(s *sim, kind walkKind, i int, head int32) *walk {
	w.s, w.i, w.skipped = s, i, 0
	ix := s.q.ix
	if !ix.on {
		w.list, w.ix = s.queue, nil
		return w
	}
	w.list, w.ix, w.kind, w.head, w.pos, w.grow, w.init = nil, ix, kind, head, 0, 0, false
	if head >= 0 {
		w.pos = ix.rankOf(head) + 1
	}
	w.n = kind == walkFits || kind == walkBudgetFits
	return w
}

// cands is the first batch of jobs a pass looks at in a walk of kind: in
// scan mode, the queue from position i on; in index mode, the first few
// after head (see walkFrom) that pass the test with free nodes free. more
// gives the next batches. (A walk over every waiting job hands out
// batches twice as long as the one before, up to 64, so that a pass that
// ends early has not looked far; a walk that tests its jobs, one job at a
// time, which the caller's later tests, stricter, may still refuse.)
func (s *sim) cands(kind walkKind, i int, head int32, free int) []int32 {
	if s.q.ix == nil || !s.q.ix.on {
		return s.queue[i:]
	}
	return s.firstBatch(kind, head, free)
}

func (s *sim) firstBatch(kind walkKind, head int32, free int) []int32 {
	return s.walkFrom(kind, 0, head).fill(free)
}

// more is the walk's next batch (empty: none left); in scan mode, and for
// the list of fresh jobs, the first batch was all.
func (s *sim) more(free int) []int32 {
	// (The walk's index is the queue's, set by an index-mode walk; a scan
	// or a list walk clears it, and toScan turns it off.)
	if w := &s.q.walk; w.ix != nil && w.ix.on {
		return w.fill(free)
	}
	return nil
}

func (w *walk) fill(free int) []int32 {
	// A walk over every waiting job batches; a walk that tests its jobs
	// hands them out one at a time, each found with the free nodes left (a
	// batch made before a job started held jobs that no longer fit, each
	// found by a search: on CEA-Curie on 60,000 processors, 1 in 7).
	ix := w.ix
	buf := ix.buf[:0]
	if w.kind == walkAll {
		// (the waiting jobs in rank order, straight from the rank set)
		w.grow = min(max(2*w.grow, 1), 64)
		for len(buf) < w.grow {
			j := ix.first(w.pos)
			if j < 0 {
				break
			}
			w.pos = ix.rankOf(j) + 1
			buf = append(buf, j)
		}
	} else if j := w.indexed(free); j >= 0 {
		buf = append(buf, j)
	}
	ix.buf = buf
	return buf
}

// next is the next job to look at (−1: none left), given the free nodes
// now. In index mode, w.skipped says how many waiting jobs it passed over
// for failing the test (counted for greedy walks only).
func (w *walk) next(free int) int32 {
	if w.i < len(w.list) { // (scan mode; in index mode list is empty)
		w.i++
		return w.list[w.i-1]
	}
	return w.indexed(free)
}

// indexed is the next candidate of an index-mode walk that tests its jobs
// (fill hands out a walk over every waiting job from the rank set).
func (w *walk) indexed(free int) int32 {
	s, ix := w.s, w.ix
	w.skipped = 0
	if ix == nil {
		return -1 // (scan mode: the end of the list)
	}
	f := s.filterFor(w.kind, free)
	if !w.init {
		// The classes that may hold a candidate now: only they ever will.
		w.init = true
		if w.kind == walkEASY && ix.pruneE {
			ix.easyClasses(&f, free)
		} else {
			ix.live = ix.live[:0]
			for i := range ix.tops {
				t := &ix.tops[i]
				if int(t.low) > free {
					break // (classes come smallest first)
				}
				if c := int(t.class); f.maybe(&t.root) {
					ix.live = append(ix.live, c)
					ix.cur[c], ix.from[c] = curStale, 0
				}
			}
		}
		// Every waiting job but the head comes after it (see walkAfter).
		if w.head >= 0 {
			ix.from[ix.cls[w.head-ix.base]] = ix.loc[w.head-ix.base] + 1
		}
	}
	// The earliest of the classes' next candidates.
	easy := w.kind == walkEASY && ix.pruneE
	best, bestRank, bestClass, bestAt := int32(-1), int32(math.MaxInt32), -1, int32(0)
	live := ix.live[:0]
	for _, c := range ix.live {
		if classLow(c) > free {
			continue // (for good: free nodes only shrink)
		}
		k := &ix.classes[c]
		cur := ix.cur[c]
		switch {
		case cur == curStale && easy:
			cur = ix.searchEASY(c, &f, ix.from[c])
		case cur == curStale:
			cur = k.search(&f, ix.from[c])
		case !k.waits(cur) || !f.pass(k, int(cur)):
			// The test grew stricter since (or the job started): nothing
			// before it passed a looser one.
			cur = k.search(&f, cur+1)
		}
		if cur < 0 {
			continue // no more candidates in the class
		}
		ix.cur[c] = cur
		live = append(live, c)
		if r := ix.rankOf(k.jobs[cur]); r < bestRank {
			best, bestRank, bestClass, bestAt = k.jobs[cur], r, c, cur
		}
	}
	ix.live = live
	if best < 0 {
		if w.n {
			w.skipped = ix.fen.total - ix.fen.prefix(int(w.pos))
		}
		w.pos = int32(ix.n)
		return -1
	}
	if w.n {
		w.skipped = ix.fen.prefix(int(bestRank)) - ix.fen.prefix(int(w.pos))
	}
	ix.cur[bestClass] = curStale
	ix.from[bestClass] = bestAt + 1
	w.pos = bestRank + 1
	return best
}

// easyClasses sets the classes an EASY walk looks in (ix.live), as the
// general walk's set-up would, without testing the classes that the last
// walks found unable to pass. A class whose least estimate does not end
// by the shadow time and whose least allocation exceeds the extra nodes
// cannot pass while the shadow time and the extra nodes do not grow, time
// goes on, and its minima do not fall (a job joining it clears its mark):
// each walk tests only the others. (On CEA-Curie on 60,000 processors,
// where a wide head waits for hours, a walk had tested 25 classes, 22 of
// them for nothing.)
func (ix *queueIndex) easyClasses(f *filter, free int) {
	switch {
	case !(f.shadow <= ix.lastS):
		clear(ix.passed)
		for i := range ix.maybeE {
			ix.maybeE[i] = ^uint64(0)
		}
	case f.extra > ix.lastX:
		// Only jobs whose allocations lie in (lastX, extra] may pass where
		// they failed (on CEA-Curie on 60,000 processors the extra nodes
		// grow in one walk in six, as jobs end before their estimates;
		// clearing every class's place then made two in three searches
		// start from the first place). A marked class's least allocation
		// exceeds the last extra nodes (it only grows, or an arrival
		// unmarks the class): those that fit in the extra nodes now may
		// pass again.
		for i := range ix.tops {
			t := &ix.tops[i]
			if int(t.low) > f.extra {
				break
			}
			a := int(t.root.a)
			if a > f.extra {
				continue // (no waiting job fits in the extra nodes; none waits: MaxInt32)
			}
			if int(ix.classes[t.class].maxA) > ix.lastX {
				ix.passed[t.class] = 0
			}
			if a > ix.lastX {
				ix.maybeE[i>>6] |= 1 << (i & 63)
			}
		}
	}
	ix.lastS, ix.lastX = f.shadow, f.extra
	ix.live = ix.live[:0]
	for wi, m := range ix.maybeE {
		for ; m != 0; m &= m - 1 {
			i := wi<<6 + bits.TrailingZeros64(m)
			if i >= len(ix.tops) {
				break
			}
			t := &ix.tops[i]
			if int(t.low) > free {
				return // (classes come smallest first)
			}
			switch {
			case !(f.now+float64(t.root.e) <= f.shadow || int(t.root.a) <= f.extra):
				ix.maybeE[wi] &^= 1 << (i & 63)
			case f.maybe(&t.root):
				c := int(t.class)
				ix.live = append(ix.live, c)
				ix.cur[c], ix.from[c] = curStale, 0
			}
		}
	}
}

// searchEASY is class c's search of an EASY walk, from place from on.
// Before the class's passed place no waiting job can pass the walk's test:
// every job of the class fitted the free nodes of the searches that moved
// it there (and no weight is kept), so the jobs they passed over failed
// the rest of EASY's test — their estimates end past the shadow time and
// their allocations exceed the extra nodes — and they go on failing it
// while time goes on and the shadow time and the extra nodes do not grow
// past the walk's (when they do, easyClasses clears the place of every
// class, or of those that may hold a job fitting the extra nodes now and
// not then; the extra nodes shrink as a walk starts jobs in them, so only
// searches before that move places), and no job joins the class before
// its place (insert moves the place back). A search starts there; if the
// job there still waits and passes, it is the one (on CEA-Curie on 60,000
// processors two in three searches of a walk's start find what the last
// walk had found and then had no nodes left for). The place moves on to
// what a search finds, and past it once it no longer waits (it started; a
// job found may also be refused, and then stays).
func (ix *queueIndex) searchEASY(c int, f *filter, from int32) int32 {
	k := &ix.classes[c]
	at := ix.passed[c]
	if from == at+1 && int(at) < len(k.jobs) && !k.waits(at) {
		at = from // (the job found there started)
	}
	start := max(from, at)
	if start == at && int(at) < len(k.jobs) && k.waits(at) && f.pass(k, int(at)) {
		return at // (what the last search found, still waiting and passing)
	}
	p := k.search(f, start)
	if start == at && int(f.free) >= int(k.maxA) && k.w == nil && f.extra == ix.lastX {
		// (A walk's extra nodes shrink as it starts jobs in them: a
		// search after that moves no place, which holds while they do not
		// grow past those of the walk's start.)
		if p < 0 {
			at = int32(len(k.jobs))
		} else {
			at = p
		}
	}
	ix.passed[c] = at
	return p
}

// filterFor is the test of a walk of kind with free nodes free.
func (s *sim) filterFor(kind walkKind, free int) filter {
	ix := s.q.ix
	inf := math.Inf(1)
	f := filter{now: s.now, free: free, room: inf, shadow: inf, extraW: inf}
	// Under powercaps the room is the lowest cap applying now less the
	// power now: Alg. 2's fit refuses every job whose least increment (its
	// weight in the index) is above it.
	room := s.headroom()
	if s.caps != nil {
		room = s.caps.room()
	}
	switch kind {
	case walkBudgetFits:
		if ix.pruneW {
			f.room = room
		}
	case walkEASY:
		if ix.pruneE {
			f.shadow, f.extra = s.res.shadow, s.res.extra
		}
	case walkBudgetEASY:
		if ix.pruneE {
			f.shadow, f.extra = s.res.shadow, s.res.extra
		}
		if ix.pruneW {
			f.room, f.extraW = room, s.res.extraW
		}
	}
	return f
}

// markScanned records where the next incremental pass starts.
func (s *sim) markScanned() {
	if s.q.ix == nil {
		s.scanned = len(s.queue)
		return
	}
	s.markIndexed()
}

func (s *sim) markIndexed() {
	if !s.q.ix.on {
		s.scanned = len(s.queue)
		return
	}
	s.q.ix.seen = s.q.arrived
}

// fresh is the jobs that arrived since the last pass, in queue order (an
// incremental pass knows they all come after the others).
func (s *sim) fresh() []int32 {
	if !s.indexed() {
		return s.queue[s.scanned:]
	}
	ix := s.q.ix
	b := ix.buf[:0]
	for j := ix.seen; j < s.q.arrived; j++ {
		b = append(b, j)
	}
	if ix.rank != nil {
		slices.SortFunc(b, func(a, b int32) int { return int(ix.rank[a]) - int(ix.rank[b]) })
	}
	ix.buf = b
	s.listWalk(nil) // (a list, not an index walk: more has no more)
	return b
}

// listWalk walks a list of jobs, each in turn.
func (s *sim) listWalk(list []int32) *walk {
	w := &s.q.walk
	w.s, w.list, w.i, w.ix, w.skipped = s, list, 0, nil, 0
	return w
}

// rankSet is a set of ranks, in three levels of bits: bit r of l0, bit r/64
// of l1 (word r/64 of l0 is not zero), bit r/4096 of l2.
type rankSet struct{ l0, l1, l2 []uint64 }

func newRankSet(n int) rankSet {
	w0, w1, w2 := rankWords(n)
	return rankSet{l0: make([]uint64, w0), l1: make([]uint64, w1), l2: make([]uint64, w2)}
}

// rankWords is the length of each level of a set of ranks below n.
func rankWords(n int) (w0, w1, w2 int) {
	w0 = (n + 63) >> 6
	w1 = (w0 + 63) >> 6
	return w0, w1, (w1 + 63) >> 6
}

// grow makes room for ranks below n.
func (t *rankSet) grow(n int) {
	w0, w1, w2 := rankWords(n)
	t.l0 = append(t.l0, make([]uint64, w0-len(t.l0))...)
	t.l1 = append(t.l1, make([]uint64, w1-len(t.l1))...)
	t.l2 = append(t.l2, make([]uint64, w2-len(t.l2))...)
}

func (t *rankSet) add(r int32) {
	t.l0[r>>6] |= 1 << (r & 63)
	t.l1[r>>12] |= 1 << ((r >> 6) & 63)
	t.l2[r>>18] |= 1 << ((r >> 12) & 63)
}

func (t *rankSet) remove(r int32) {
	if t.l0[r>>6] &^= 1 << (r & 63); t.l0[r>>6] == 0 {
		if t.l1[r>>12] &^= 1 << ((r >> 6) & 63); t.l1[r>>12] == 0 {
			t.l2[r>>18] &^= 1 << ((r >> 12) & 63)
		}
	}
}

// next is the least rank in the set at or after r, −1 if none.
func (t *rankSet) next(r int32) int32 {
	i := int(r >> 6) // word of l0
	if i >= len(t.l0) {
		return -1
	}
	if m := t.l0[i] &^ (1<<(r&63) - 1); m != 0 {
		return int32(i<<6 + bits.TrailingZeros64(m))
	}
	i++ // the next word of l0 that is not zero, through l1 and l2
	k := i >> 6
	if k < len(t.l1) {
		if m := t.l1[k] &^ (1<<(i&63) - 1); m != 0 {
			i = k<<6 + bits.TrailingZeros64(m)
			return int32(i<<6 + bits.TrailingZeros64(t.l0[i]))
		}
	}
	for h := (k + 1) >> 6; h < len(t.l2); h++ {
		m := t.l2[h]
		if h == (k+1)>>6 {
			m &^= 1<<((k+1)&63) - 1
		}
		if m != 0 {
			k = h<<6 + bits.TrailingZeros64(m)
			i = k<<6 + bits.TrailingZeros64(t.l1[k])
			return int32(i<<6 + bits.TrailingZeros64(t.l0[i]))
		}
	}
	return -1
}

// prev is the greatest rank in the set at or before r, −1 if none.
func (t *rankSet) prev(r int32) int32 {
	if r < 0 {
		return -1
	}
	i := int(r >> 6)
	if m := t.l0[i] & (2<<(r&63) - 1); m != 0 {
		return int32(i<<6 + 63 - bits.LeadingZeros64(m))
	}
	i-- // the previous word of l0 that is not zero
	if i < 0 {
		return -1
	}
	k := i >> 6
	if m := t.l1[k] & (2<<(i&63) - 1); m != 0 {
		i = k<<6 + 63 - bits.LeadingZeros64(m)
		return int32(i<<6 + 63 - bits.LeadingZeros64(t.l0[i]))
	}
	for h := (k - 1) >> 6; k > 0 && h >= 0; h-- {
		m := t.l2[h]
		if h == (k-1)>>6 {
			m &= 2<<((k-1)&63) - 1
		}
		if m != 0 {
			k = h<<6 + 63 - bits.LeadingZeros64(m)
			i = k<<6 + 63 - bits.LeadingZeros64(t.l1[k])
			return int32(i<<6 + 63 - bits.LeadingZeros64(t.l0[i]))
		}
	}
	return -1
}

// fenwick counts waiting jobs by rank.
type fenwick struct {
	t     []int32 // 1-based
	total int
}

func newFenwick(n int) *fenwick { return &fenwick{t: make([]int32, n+1)} }

// grow makes room for ranks below n, none counted: a new node i covers
// ranks from i − (i & −i) to i − 1, of which only those before the old
// end may count.
func (f *fenwick) grow(n int) {
	n0 := len(f.t) - 1
	f.t = append(f.t, make([]int32, n-n0)...)
	for i := n0 + 1; i <= n; i++ {
		if lo := i - i&-i; lo < n0 {
			f.t[i] = int32(f.prefix(n0) - f.prefix(lo))
		}
	}
}

func (f *fenwick) add(i int, d int32) {
	f.total += int(d)
	for i++; i < len(f.t); i += i & -i {
		f.t[i] += d
	}
}

// prefix counts the jobs at ranks below i.
func (f *fenwick) prefix(i int) int {
	s := 0
	for ; i > 0; i -= i & -i {
		s += int(f.t[i])
	}
	return s
}

// allocSet holds the allocations of the waiting jobs of a scan-only run,
// for their least: a pass in which none fits starts nothing, whatever the
// order or the admit rule say.
type allocSet struct {
	cnt []int32  // by allocation
	lo  []uint64 // bit a: some waiting job allocates a nodes
	hi  []uint64 // bit i: word i of lo is not zero
}

func newAllocSet(nodes int) *allocSet {
	w := nodes/64 + 1
	return &allocSet{cnt: make([]int32, nodes+1), lo: make([]uint64, w), hi: make([]uint64, w/64+1)}
}

func (a *allocSet) add(x int) {
	if a.cnt[x]++; a.cnt[x] == 1 {
		a.lo[x>>6] |= 1 << (x & 63)
		a.hi[x>>12] |= 1 << ((x >> 6) & 63)
	}
}

func (a *allocSet) remove(x int) {
	if a.cnt[x]--; a.cnt[x] == 0 {
		if a.lo[x>>6] &^= 1 << (x & 63); a.lo[x>>6] == 0 {
			a.hi[x>>12] &^= 1 << ((x >> 6) & 63)
		}
	}
}

// min is the least allocation held, math.MaxInt32 if none.
func (a *allocSet) min() int {
	for i, h := range a.hi {
		if h != 0 {
			w := i<<6 + bits.TrailingZeros64(h)
			return w<<6 + bits.TrailingZeros64(a.lo[w])
		}
	}
	return math.MaxInt32
}
