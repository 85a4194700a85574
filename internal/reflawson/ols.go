package reflawson

import (
	"fmt"
	"math"
)

// Search is how an OLS decision searches the level l in [L(t), U].
type Search int

const (
	// TowardMax is Lawson §3.3.1's procedure: l = L, ⌈(l+U)/2⌉, …, U; the
	// first l whose simulated mean slowdown is ≤ S; U is chosen without a
	// simulation.
	TowardMax Search = iota
	// Binary is the least l in [L, U] meeting the SLA found by binary search
	// under the assumption that meeting it is monotone in l (U is assumed to
	// meet it and never simulated).
	Binary
)

func (s Search) String() string {
	switch s {
	case TowardMax:
		return "toward_max"
	case Binary:
		return "binary"
	}
	return fmt.Sprintf("Search(%d)", int(s))
}

// RunningJob is a running job in a snapshot.
type RunningJob struct {
	Start    float64
	Width    int
	Estimate float64 // the simulation ends it at Start + Estimate
}

// QueuedJob is a waiting job in a snapshot.
type QueuedJob struct {
	Submit   float64
	Width    int
	Estimate float64 // its duration in the simulation and its v in s
}

// Snapshot is the scheduler's state at a decision instant: after the ends
// and arrivals of that instant, before its scheduling pass.
type Snapshot struct {
	Time    float64
	Running []RunningJob
	Queue   []QueuedJob // in queue order
}

// Busy is the number of processors held by running jobs.
func (s Snapshot) Busy() int {
	b := 0
	for _, r := range s.Running {
		b += r.Width
	}
	return b
}

// Widest is the width of the widest queued job (0 for an empty queue).
func (s Snapshot) Widest() int {
	w := 0
	for _, q := range s.Queue {
		w = max(w, q.Width)
	}
	return w
}

// Lower is the OLS lower bound L(t) = max(widest queued, busy).
func (s Snapshot) Lower() int { return max(s.Widest(), s.Busy()) }

// Forecast is the online simulation: it clones the snapshot, runs the EASY
// scheduler on l processors with no further arrivals until the queue has
// drained (every job lasting its estimate), and returns the simulated start
// of each queued job (in snapshot order) and their mean Lawson slowdown
// 1 + (start − submit)/max(10 s, estimate). An empty queue gives mean 1 and
// no starts. l must be at least Lower().
func Forecast(s Snapshot, l int) (mean float64, starts []float64) {
	if l < s.Lower() {
		panic(fmt.Sprintf("reflawson: forecast on %d processors below the lower bound %d", l, s.Lower()))
	}
	e := &easy{active: l, recs: make([]rec, 0, len(s.Running)+len(s.Queue))}
	for _, r := range s.Running {
		e.recs = append(e.recs, rec{width: r.Width, est: r.Estimate, dur: r.Estimate, start: r.Start})
		e.place(len(e.recs) - 1)
	}
	first := len(e.recs)
	for _, q := range s.Queue {
		e.recs = append(e.recs, rec{submit: q.Submit, width: q.Width, est: q.Estimate, dur: q.Estimate})
		e.queue = append(e.queue, len(e.recs)-1)
	}
	t := s.Time
	e.pass(t)
	for len(e.queue) > 0 {
		next, ok := e.nextEnd()
		if !ok {
			panic("reflawson: forecast queue cannot drain")
		}
		t = next
		e.finishAt(t)
		e.pass(t)
	}
	if len(s.Queue) == 0 {
		return 1, nil
	}
	starts = make([]float64, len(s.Queue))
	sum := 0.0
	for k := range s.Queue {
		r := e.recs[first+k]
		starts[k] = r.start
		sum += Slowdown(r.start-r.submit, r.est)
	}
	return sum / float64(len(s.Queue)), starts
}

// SearchLevels runs the search of an OLS decision from lower to u, asking
// meets(l) whether level l meets the SLA, and returns the chosen level and
// the levels asked, in order. meets is never asked about u.
func SearchLevels(lower, u int, mode Search, meets func(l int) bool) (chosen int, asked []int) {
	switch mode {
	case TowardMax:
		for l := lower; l < u; l = (l + u + 1) / 2 { // ⌈(l+U)/2⌉
			asked = append(asked, l)
			if meets(l) {
				return l, asked
			}
		}
		return u, asked
	case Binary:
		lo, hi := lower, u // the answer is in [lo, hi]; hi is taken to meet the SLA
		for lo < hi {
			mid := lo + (hi-lo)/2
			asked = append(asked, mid)
			if meets(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo, asked
	}
	panic(fmt.Sprintf("reflawson: unknown search %v", mode))
}

// Decide is one OLS decision on a snapshot for a machine of u processors and
// an SLA of mean slowdown ≤ sla over the queued jobs. It returns the chosen
// level and the levels simulated, in order. With an empty queue the SLA is
// met without a simulation, so the choice is L(t) = busy.
func Decide(s Snapshot, u int, sla float64, mode Search) (chosen int, simulated []int) {
	lower := s.Lower()
	if lower > u {
		panic(fmt.Sprintf("reflawson: lower bound %d above U = %d", lower, u))
	}
	if len(s.Queue) == 0 {
		return lower, nil
	}
	return SearchLevels(lower, u, mode, func(l int) bool {
		mean, _ := Forecast(s, l)
		return mean <= sla
	})
}

// Slowdown is Lawson's bounded slowdown s = 1 + d / max(10 s, v).
func Slowdown(d, v float64) float64 { return 1 + d/math.Max(10, v) }
