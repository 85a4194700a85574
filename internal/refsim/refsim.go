// Package refsim is an independent reference implementation of the batch
// scheduling rules of DESIGN §5 (FCFS and EASY backfilling), written from the
// specification alone so that tests can compare the main engine with it job
// for job. It favours plain, obviously-correct code over speed, and it also
// provides property checks (check.go) that judge a finished schedule without
// re-simulating it.
package refsim

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
)

// Job is one job to replay. Times are seconds.
type Job struct {
	Submit   float64 // submit time
	Runtime  float64 // actual run time (> 0); the job frees its nodes at start + Runtime
	Estimate float64 // requested time (>= Runtime); used only for EASY's reservation and backfill decisions
	Nodes    int     // width, 1 ≤ Nodes ≤ machine nodes
}

// Simulate replays jobs on a machine of nodes identical nodes under policy
// ("fcfs" or "easy") and returns each job's start time, by index. Jobs must be
// in queue order: non-decreasing submit time, ties in trace order.
//
// Simulate rejects what the rules leave undefined rather than guess: an
// unknown policy, a job that is empty, wider than the machine or has a
// non-positive run time, a job whose estimate is below its run time (the
// reservation would rely on an end already past), and jobs out of queue order.
func Simulate(jobs []Job, nodes int, policy string) ([]float64, error) {
	var easy bool
	switch policy {
	case "fcfs":
	case "easy":
		easy = true
	default:
		return nil, fmt.Errorf("refsim: unknown policy %q (want fcfs or easy)", policy)
	}
	if err := validate(jobs, nodes); err != nil {
		return nil, err
	}
	s := &sim{jobs: jobs, free: nodes, easy: easy, start: make([]float64, len(jobs))}
	s.run()
	return s.start, nil
}

func validate(jobs []Job, nodes int) error {
	if nodes < 1 {
		return fmt.Errorf("refsim: machine has %d nodes, want at least 1", nodes)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for i, j := range jobs {
		switch {
		case !finite(j.Submit) || !finite(j.Runtime) || !finite(j.Estimate):
			return fmt.Errorf("refsim: job %d has a non-finite time", i)
		case j.Nodes < 1:
			return fmt.Errorf("refsim: job %d has %d nodes, want at least 1", i, j.Nodes)
		case j.Nodes > nodes:
			return fmt.Errorf("refsim: job %d needs %d nodes, machine has %d", i, j.Nodes, nodes)
		case j.Runtime <= 0:
			return fmt.Errorf("refsim: job %d has run time %g, want > 0", i, j.Runtime)
		case j.Estimate < j.Runtime:
			return fmt.Errorf("refsim: job %d has estimate %g below its run time %g", i, j.Estimate, j.Runtime)
		case i > 0 && j.Submit < jobs[i-1].Submit:
			return fmt.Errorf("refsim: job %d submitted at %g, before job %d at %g: jobs must be in queue order",
				i, j.Submit, i-1, jobs[i-1].Submit)
		}
	}
	return nil
}

// sim is the state of one replay.
type sim struct {
	jobs  []Job
	easy  bool
	start []float64 // result, by job index

	free    int      // nodes not in use
	waiting []int    // submitted, not started, in queue order
	running []int    // started, not ended, sorted by (estimated end, index)
	ends    endQueue // actual ends of running jobs
}

// run processes event times in increasing order. At each one, every end is
// applied before any arrival, and then exactly one scheduling pass runs.
func (s *sim) run() {
	next := 0 // first job not yet submitted
	for next < len(s.jobs) || len(s.ends) > 0 {
		t := math.Inf(1)
		if next < len(s.jobs) {
			t = s.jobs[next].Submit
		}
		if len(s.ends) > 0 && s.ends[0].at < t {
			t = s.ends[0].at
		}
		for len(s.ends) > 0 && s.ends[0].at == t {
			s.finish(heap.Pop(&s.ends).(end).job)
		}
		for next < len(s.jobs) && s.jobs[next].Submit == t {
			s.waiting = append(s.waiting, next)
			next++
		}
		s.pass(t)
	}
	// With nothing running, the head always fits (no job is wider than the
	// machine), so the queue drains before the events run out.
	if len(s.waiting) > 0 {
		panic("refsim: jobs still waiting after the last event")
	}
}

// pass is one scheduling pass at time t.
func (s *sim) pass(t float64) {
	// FCFS part: start queue heads while they fit.
	n := 0
	for n < len(s.waiting) && s.jobs[s.waiting[n]].Nodes <= s.free {
		s.startJob(s.waiting[n], t)
		n++
	}
	s.waiting = s.waiting[n:]
	// With no free node nothing can backfill, so the reservation is moot.
	if !s.easy || len(s.waiting) == 0 || s.free == 0 {
		return
	}

	// EASY part: the head gets a reservation at the shadow time; later jobs
	// may jump ahead only if they cannot delay it. The shadow time is fixed
	// for the whole pass; extra shrinks as backfilled jobs claim the nodes
	// the head will not need.
	shadow, extra := s.reservation(s.jobs[s.waiting[0]].Nodes)
	kept := s.waiting[:1] // filtered in place: kept never overtakes the reader
	for k := 1; k < len(s.waiting); k++ {
		if s.free == 0 {
			kept = append(kept, s.waiting[k:]...)
			break
		}
		i := s.waiting[k]
		j := s.jobs[i]
		endsByShadow := t+j.Estimate <= shadow // ≤: ends at S are applied before the pass at S
		if j.Nodes <= s.free && (endsByShadow || j.Nodes <= extra) {
			s.startJob(i, t)
			if !endsByShadow {
				extra -= j.Nodes
			}
			continue
		}
		kept = append(kept, i)
	}
	s.waiting = kept
}

// reservation returns the shadow time for a head of the given width (the
// earliest estimated end at which the nodes free now plus those freed by
// running jobs reach the width) and the extra nodes: those free at the shadow
// time, counting every job whose estimated end is at or before it, beyond the
// head's width.
func (s *sim) reservation(width int) (shadow float64, extra int) {
	avail := s.free
	for k, i := range s.running {
		avail += s.jobs[i].Nodes
		if avail < width {
			continue
		}
		shadow = s.estEnd(i)
		// Jobs tied at the shadow time free their nodes then too.
		for _, i2 := range s.running[k+1:] {
			if s.estEnd(i2) != shadow {
				break
			}
			avail += s.jobs[i2].Nodes
		}
		return shadow, avail - width
	}
	panic("refsim: head wider than the machine")
}

func (s *sim) estEnd(i int) float64 { return s.start[i] + s.jobs[i].Estimate }

// cmpRunning orders running jobs by estimated end, then index, so that every
// job has a unique position and can be found by binary search.
func (s *sim) cmpRunning(a, b int) int {
	if c := cmpFloat(s.estEnd(a), s.estEnd(b)); c != 0 {
		return c
	}
	return a - b
}

func (s *sim) startJob(i int, t float64) {
	s.start[i] = t
	s.free -= s.jobs[i].Nodes
	pos, _ := slices.BinarySearchFunc(s.running, i, s.cmpRunning)
	s.running = slices.Insert(s.running, pos, i)
	heap.Push(&s.ends, end{at: t + s.jobs[i].Runtime, job: i})
}

func (s *sim) finish(i int) {
	s.free += s.jobs[i].Nodes
	pos, found := slices.BinarySearchFunc(s.running, i, s.cmpRunning)
	if !found {
		panic("refsim: ending a job that is not running")
	}
	s.running = slices.Delete(s.running, pos, pos+1)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// end is a running job's actual end time.
type end struct {
	at  float64
	job int
}

// endQueue is a min-heap of actual ends (container/heap).
type endQueue []end

func (q endQueue) Len() int           { return len(q) }
func (q endQueue) Less(a, b int) bool { return q[a].at < q[b].at }
func (q endQueue) Swap(a, b int)      { q[a], q[b] = q[b], q[a] }
func (q *endQueue) Push(x any)        { *q = append(*q, x.(end)) }
func (q *endQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
