package reflawson

import (
	"container/heap"
	"fmt"
	"slices"
)

// rec is one job as the EASY core sees it. The core is shared by the real
// run and the online simulation, so that both use the same scheduler.
type rec struct {
	submit float64
	width  int
	est    float64 // estimate: used for the reservation and backfill decisions
	dur    float64 // actual duration: the job frees its processors at start + dur
	start  float64 // set when the job starts
}

// easy is an EASY backfilling scheduler on a capacity of active processors
// that the caller may change between passes (free = active − busy).
type easy struct {
	recs    []rec
	active  int
	busy    int
	queue   []int   // submitted, not started, in queue order
	running []int   // started, not ended, sorted by (estimated end, index)
	ends    endHeap // actual ends of running jobs
}

func (e *easy) estEnd(i int) float64 { return e.recs[i].start + e.recs[i].est }

func (e *easy) cmpRunning(a, b int) int {
	ea, eb := e.estEnd(a), e.estEnd(b)
	switch {
	case ea < eb:
		return -1
	case ea > eb:
		return 1
	}
	return a - b
}

// place marks job i as running from its recorded start (it must be set).
func (e *easy) place(i int) {
	e.busy += e.recs[i].width
	pos, _ := slices.BinarySearchFunc(e.running, i, e.cmpRunning)
	e.running = slices.Insert(e.running, pos, i)
	heap.Push(&e.ends, end{at: e.recs[i].start + e.recs[i].dur, job: i})
}

func (e *easy) startJob(i int, t float64) {
	e.recs[i].start = t
	e.place(i)
}

// nextEnd is the earliest actual end of a running job (ok false if none).
func (e *easy) nextEnd() (float64, bool) {
	if len(e.ends) == 0 {
		return 0, false
	}
	return e.ends[0].at, true
}

// finishAt applies every end at time t.
func (e *easy) finishAt(t float64) {
	for len(e.ends) > 0 && e.ends[0].at == t {
		i := heap.Pop(&e.ends).(end).job
		e.busy -= e.recs[i].width
		pos, found := slices.BinarySearchFunc(e.running, i, e.cmpRunning)
		if !found {
			panic("reflawson: ending a job that is not running")
		}
		e.running = slices.Delete(e.running, pos, pos+1)
	}
}

// widestQueued is the width of the widest waiting job (0 if none).
func (e *easy) widestQueued() int {
	w := 0
	for _, i := range e.queue {
		w = max(w, e.recs[i].width)
	}
	return w
}

// pass is one EASY scheduling pass at time t on the active capacity.
func (e *easy) pass(t float64) {
	if e.busy > e.active {
		panic(fmt.Sprintf("reflawson: busy %d above active %d at t=%g", e.busy, e.active, t))
	}
	// FCFS part: start queue heads while they fit.
	n := 0
	for n < len(e.queue) && e.recs[e.queue[n]].width <= e.active-e.busy {
		e.startJob(e.queue[n], t)
		n++
	}
	e.queue = e.queue[n:]
	if len(e.queue) == 0 || e.active == e.busy {
		return // nothing waits, or nothing can backfill
	}

	// EASY part: the head gets a reservation at the shadow time (computed on
	// the active capacity); a later job may start now if it fits now and
	// either ends (by estimate) by the shadow time or uses only extra
	// processors. The shadow time is fixed for the pass; extra shrinks as
	// backfilled jobs that outlive the shadow time claim it.
	shadow, extra := e.reservation(e.recs[e.queue[0]].width)
	kept := e.queue[:1]
	for k := 1; k < len(e.queue); k++ {
		if e.active == e.busy {
			kept = append(kept, e.queue[k:]...)
			break
		}
		i := e.queue[k]
		r := e.recs[i]
		endsByShadow := t+r.est <= shadow // ends at the shadow time are applied before its pass
		if r.width <= e.active-e.busy && (endsByShadow || r.width <= extra) {
			e.startJob(i, t)
			if !endsByShadow {
				extra -= r.width
			}
			continue
		}
		kept = append(kept, i)
	}
	e.queue = kept
}

// reservation returns the shadow time for a head of the given width (the
// earliest estimated end at which the free processors plus those released by
// running jobs reach the width) and the extra processors at that time beyond
// the head's width (every job estimated to end at the shadow time counts).
func (e *easy) reservation(width int) (shadow float64, extra int) {
	avail := e.active - e.busy
	for k, i := range e.running {
		avail += e.recs[i].width
		if avail < width {
			continue
		}
		shadow = e.estEnd(i)
		for _, i2 := range e.running[k+1:] {
			if e.estEnd(i2) != shadow {
				break
			}
			avail += e.recs[i2].width
		}
		return shadow, avail - width
	}
	panic(fmt.Sprintf("reflawson: queue head of width %d wider than the active capacity %d", width, e.active))
}

// end is a running job's actual end.
type end struct {
	at  float64
	job int
}

type endHeap []end

func (q endHeap) Len() int           { return len(q) }
func (q endHeap) Less(a, b int) bool { return q[a].at < q[b].at }
func (q endHeap) Swap(a, b int)      { q[a], q[b] = q[b], q[a] }
func (q *endHeap) Push(x any)        { *q = append(*q, x.(end)) }
func (q *endHeap) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
