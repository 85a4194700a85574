package runtime

import (
	"errors"
	"slices"
	"sync"

	"github.com/pwrc/pwrc/runtime/workload"
)

// A jobFeed hands a run its trace's cleaned jobs while the trace is still
// being read, so that the simulation overlaps reading: a replay then
// costs about what its simulation costs. The reader appends jobs; the
// simulation takes what is there and waits when it has caught up.
//
// The simulation may only run ahead on what a run with the whole trace
// would decide alike: jobs in submit order (the cleaned order), the header
// read before the first job, no stage that needs every job up front. When
// any of that fails the feed ends "not ok", the run is abandoned
// (errFeedAbandoned) and run again on the whole trace: streaming is an
// optimisation that never changes a result.
type jobFeed struct {
	mu     sync.Mutex
	cond   sync.Cond
	jobs   []workload.Job // cleaned so far, in trace order
	header workload.Header
	ended  bool
	ok     bool // ended with every job, as the loader cleans them
	waits  int  // times the simulation caught up and waited
}

// streamState is what a run fed its jobs as the trace is read keeps.
type streamState struct {
	feed *jobFeed   // nil once every job is in
	draw *powerDraw // each new job's power
	// abandoned: a stage that needed every job found the run must be run
	// again on the whole trace.
	abandoned bool
	lastKey   [2]float64 // static priority and order of the last job in
}

// errFeedAbandoned stops a streamed run that must be run again on the
// whole trace.
var errFeedAbandoned = errors.New("pwrc: internal: streamed run abandoned")

func newJobFeed() *jobFeed {
	f := &jobFeed{}
	f.cond.L = &f.mu
	return f
}

// publish makes the jobs cleaned so far visible; jobs extends what was
// published before (the reader only appends).
func (f *jobFeed) publish(h *workload.Header, jobs []workload.Job) {
	f.mu.Lock()
	if len(f.jobs) == 0 {
		f.header = *h
	}
	f.jobs = jobs
	f.mu.Unlock()
	f.cond.Broadcast()
}

// end closes the feed: ok says the jobs are every job of the trace.
func (f *jobFeed) end(jobs []workload.Job, ok bool) {
	f.mu.Lock()
	if !f.ended {
		f.ended, f.ok = true, ok
		if ok {
			f.jobs = jobs
		}
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

// wait blocks until there are more than have jobs or the feed has ended,
// and returns the jobs so far and how it ended.
func (f *jobFeed) wait(have int) (jobs []workload.Job, ended, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waitLocked(have)
	return f.jobs, f.ended, f.ok
}

// waitLocked is wait with f.mu held.
func (f *jobFeed) waitLocked(have int) {
	for len(f.jobs) <= have && !f.ended {
		f.waits++
		f.cond.Wait()
	}
}

// settle waits for the feed to end: a run on the whole trace then finds
// what the stream left in the loader's caches.
func (f *jobFeed) settle() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.ended {
		f.cond.Wait()
	}
}

// first waits for the first jobs and returns them with the header read
// before them; ok is false if the feed ended before any or failed.
func (f *jobFeed) first() (jobs []workload.Job, h workload.Header, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waitLocked(0)
	if len(f.jobs) == 0 || f.ended && !f.ok {
		return nil, workload.Header{}, false
	}
	return f.jobs, f.header, true
}

// streams reports whether a run can simulate while its trace is read:
// the only run of the plan to read the trace (others would wait for it
// anyway), cleaned without scaling or cuts, under a policy and machine
// that need nothing of the jobs not yet read. Others read the whole trace
// first.
func streams(run *Run, o Options) bool {
	w, p, m := &run.Workload, &run.Policy, &run.Machine
	if w.Kind != SWF || w.ScaleToMachine || w.Keep != nil || w.Submitted != nil || run.Contract.HasCarbon {
		return false
	}
	// Stages that weigh jobs against each other or the machine's future
	// (the budget's knapsack, powercaps, the capacity controller's
	// look-ahead, admission) are left to whole traces; so is price.mean,
	// a mean from the first submission to the last.
	if !stageAllowances(p).stream || p.Admit != nil ||
		p.Select != SelectInOrder || p.Frequency.Kind == FreqRule || p.ReadsPriceMean() {
		return false
	}
	// The counted machine: a table of nodes is sized for every job.
	a := p.Allocate.Name
	return len(m.Levels) == 0 && (a == "" || a == "any" || a == "most_recent") && !o.NodeIDs
}

// stream reads run's trace in the background, handing its cleaned jobs to
// the feed it returns as they come. The reader keeps no records: if the
// run goes on, the trace (without them) and the cleaned jobs land in the
// loader's caches as a whole read would leave them; if the stream fails,
// it stops at once and leaves the caches alone, and the run again on the
// whole trace reads it afresh.
func (ld *loader) stream(run *Run) *jobFeed {
	f := newJobFeed()
	w := run.Workload
	tk := keyOf(run)
	go func() {
		var (
			cl     *workload.Cleaner
			header workload.Header
			key    cleanKey
		)
		onRecords := func(h *workload.Header, recs []workload.Record, expected int) error {
			if cl == nil {
				k, err := cleanKeyOf(run, tk, *h)
				if err != nil {
					return err
				}
				header, key = *h, k
				cl = workload.NewCleaner(workload.Cleaning{Cores: run.Machine.Cores, Nodes: k.nodes}, expected)
			}
			cl.Add(recs)
			// A header line after the first data line, or jobs out of
			// submit order, would change what the first jobs meant.
			if *h != header || !cl.Sorted() {
				return errFeedAbandoned
			}
			if jobs := cl.Jobs(); len(jobs) > 0 {
				f.publish(h, jobs)
			}
			return nil
		}
		tr, err := workload.OpenSWF(w.Path, workload.ReadOptions{SkipBadLines: w.SkipBadLines, OnRecords: onRecords, HandOnly: true})
		if err != nil || cl == nil || tr.Header != header { // (a header line after the last job)
			f.end(nil, false)
			return
		}
		jobs, st := cl.Finish()
		getOnce(&ld.mu, ld.traces, tk, func() (*workload.Trace, error) {
			ld.mu.Lock()
			ld.records[tk] = tr.Handed
			ld.mu.Unlock()
			return tr, nil
		})
		c, _ := getOnce(&ld.mu, ld.cleaned, key, func() (cleaned, error) { return cleaned{jobs: jobs, stats: st}, nil })
		f.end(c.jobs, len(c.jobs) == len(jobs))
	}()
	return f
}

// streamFrom makes the run take its jobs from a feed as the trace is
// read: simulate's jobs are the first ones, and draw gives each its power.
func streamFrom(f *jobFeed, draw *powerDraw) simOption {
	return func(s *sim) { s.stream.feed, s.stream.draw = f, draw }
}

// pull waits for more jobs of a streamed trace, or its end: the run then
// has every job, as it would have had from the start.
func (st *streamState) pull(s *sim) error {
	jobs, ended, ok := s.stream.feed.wait(len(s.jobs))
	if ended && !ok {
		return errFeedAbandoned
	}
	if err := s.stream.add(s, jobs); err != nil {
		return err
	}
	if ended {
		s.stream.feed = nil
		s.initPrice(s.jobs, &s.env, &s.now) // (price.mean is over every submission)
	}
	return nil
}

// readUpTo waits until a streamed trace has n jobs read, or has ended.
func (st *streamState) readUpTo(s *sim, n int) error {
	for s.stream.feed != nil && len(s.jobs) < n {
		if err := s.stream.pull(s); err != nil {
			return err
		}
	}
	return nil
}

// add takes a streamed trace's jobs so far, which extend s.jobs.
func (st *streamState) add(s *sim, jobs []workload.Job) error {
	from := len(s.jobs)
	if len(jobs) == from {
		return nil
	}
	n := len(jobs)
	s.jobs = jobs
	// The reader sizes its jobs for the whole trace: so do these.
	size := max(n, cap(jobs))
	s.est = extend(s.est, n, size)
	s.alloc = extend(s.alloc, n, size)
	s.jw = extend(s.jw, n, size)
	s.pstate = extend(s.pstate, n, size)
	s.start = extend(s.start, n, size)
	s.end = extend(s.end, n, size)
	s.status = extend(s.status, n, size)
	if cap(s.pw) < n {
		s.pw = slices.Grow(s.pw, size-len(s.pw))
	}
	s.pw = s.stream.draw.append(s.pw, jobs[from:])
	if s.defers != nil {
		s.defers.seen = extend(s.defers.seen, n, size)
	}
	if s.prio != nil {
		s.prio = extend(s.prio, n, size)
	}
	if s.order != nil {
		s.order = extend(s.order, n, size)
	}
	if err := s.initJobs(from); err != nil {
		return err
	}
	if from > 0 && !s.stream.keysInTraceOrder(s, from) {
		return errFeedAbandoned
	}
	return nil
}

// extend lengthens a to n with zero values, to a capacity of size when
// it must move.
func extend[T any](a []T, n, size int) []T {
	if cap(a) < n {
		a = slices.Grow(a, size-len(a))
	}
	return append(a, make([]T, n-len(a))...)
}

// keysInTraceOrder reports whether the policy's static priority and order
// keep jobs from on in trace order (each after the one before it), as
// staticKeys finds before it leaves the queue in trace order. A key that
// is NaN or fails counts as out of order: staticKeys keeps such keys.
func (st *streamState) keysInTraceOrder(s *sim, from int) (in bool) {
	p := s.pol
	if p.Priority == nil && p.Order == nil || s.dynamicOrder() || s.submitOrder() {
		return true // (a dynamic order is sorted every pass)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, isEval := r.(*EvalError); !isEval {
				panic(r)
			}
			in = false
		}
	}()
	f := fields(p.Priority, p.Order)
	for j := from; j < len(s.jobs); j++ {
		s.setJobEnv(int32(j), f)
		var k [2]float64
		if p.Priority != nil {
			k[0] = p.Priority.Num(&s.env)
		}
		if p.Order != nil {
			k[1] = p.Order.Num(&s.env)
		}
		if k[0] != k[0] || k[1] != k[1] {
			return false
		}
		if j > 0 {
			// j before j-1: a higher priority, or an equal one and a
			// lower order key (staticBefore).
			if last := s.stream.lastKey; k[0] > last[0] || k[0] == last[0] && k[1] < last[1] {
				return false
			}
		}
		s.stream.lastKey = k
	}
	return true
}
