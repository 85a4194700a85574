// Package refplace is an independent reference implementation of node
// placement and rack accounting for the Patil & Chaudhary model
// (design/patil.md §1.2, §1.4, §1.5, §5 P5, P6, P15), written from the
// specification alone so that tests can check the engine's node lists and
// rack figures. Like refsim it favours plain arrays and O(N) scans over speed.
//
// Place takes a finished schedule (start, actual end and estimated end of
// every job, and its width) and replays node placement over it on a machine of
// N identical nodes in R racks of equal size, node i in rack ⌊i/(N/R)⌋. On a
// homogeneous machine with zero boot time placement cannot change the
// schedule (patil.md §4.2 item 4), so the schedule can come from any engine
// run, whatever allocator that run used.
//
// Semantics, and the choices made where patil.md leaves room:
//
//   - Events. A job holds its nodes during [Start, End). At a shared instant
//     every end is applied first, then the jobs starting then are placed one
//     at a time in the order of the jobs slice (DESIGN §5: ends, then one
//     scheduling pass). Jobs starting at the same time are therefore placed in
//     job order; pass them in the order the engine started them, which for
//     FCFS and EASY is queue order (a pass starts heads, then backfills, both
//     in queue order).
//   - Allocators (§1.5): first_available takes the lowest-numbered free
//     nodes; last_available the highest-numbered, taken from the top down.
//     max_balance and fastest are first_available on a homogeneous machine,
//     min_resource and cpu_load are last_available; they are accepted as
//     aliases.
//   - rack_aware (§1.4): a rack is utilized iff at least one of its nodes is
//     busy. Its key is the maximum estimated end (Start + estimate) of the
//     jobs holding its nodes, which orders racks exactly as the maximum
//     remaining time does (the current time is common to all racks); jobs
//     placed earlier at the same instant count, since the key is recomputed
//     before every allocation. Racks are visited utilized first, by
//     decreasing key, ties by increasing rack index, then unutilized racks by
//     increasing index; inside a rack free nodes are taken by increasing
//     index, and the job takes every free node of a rack before moving on (no
//     best fit).
//   - Racks on (P5): a rack is on iff at least one of its nodes is busy;
//     switching is instantaneous and free. Before the first event every rack
//     is off. The series records the count after all events of an instant, so
//     a rack switched off and another switched on at the same instant leave
//     no step (see Series).
//
// A note on rack_aware's same-instant rule: because a job exhausts each rack
// before moving on, and keys only grow when a job is added, the order of the
// racks that still have free nodes is the same whether or not jobs placed
// earlier at the same instant are counted. The rule is implemented, but it
// cannot change a placement (it would under a best-fit variant).
//
// Place rejects what the model leaves undefined rather than guess: a job with
// End ≤ Start (cleaning drops run times ≤ 0), an estimated end before the
// actual end (cleaning kills a job at its requested time, so the remaining
// time of a running job is never negative), non-finite times, widths outside
// [1, N], and schedules that need more nodes than are free.
package refplace

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Machine is N identical nodes in R racks of equal size: node i is in rack
// i / (N/R).
type Machine struct {
	Nodes int // N ≥ 1
	Racks int // R ≥ 1, dividing N
}

// RackSize is the number of nodes per rack, N/R.
func (m Machine) RackSize() int { return m.Nodes / m.Racks }

// RackOf is the rack holding node i.
func (m Machine) RackOf(i int) int { return i / m.RackSize() }

func (m Machine) validate() error {
	switch {
	case m.Nodes < 1:
		return fmt.Errorf("refplace: machine has %d nodes, want at least 1", m.Nodes)
	case m.Racks < 1:
		return fmt.Errorf("refplace: machine has %d racks, want at least 1", m.Racks)
	case m.Nodes%m.Racks != 0:
		return fmt.Errorf("refplace: %d racks do not divide %d nodes", m.Racks, m.Nodes)
	}
	return nil
}

// Allocator names a node-allocation policy (patil.md §1.5, §4.1).
type Allocator string

const (
	FirstAvailable Allocator = "first_available" // lowest-numbered free nodes
	LastAvailable  Allocator = "last_available"  // highest-numbered free nodes
	RackAware      Allocator = "rack_aware"      // patil.md §1.4

	// Maui's other policies, which collapse onto the two above on a
	// homogeneous machine with whole-node jobs (patil.md §1.5).
	MaxBalance  Allocator = "max_balance"  // = first_available
	Fastest     Allocator = "fastest"      // = first_available (stable sort on equal speeds)
	MinResource Allocator = "min_resource" // = last_available
	CPULoad     Allocator = "cpu_load"     // = last_available
)

// base maps an allocator to the one it behaves as: first_available,
// last_available or rack_aware.
func (a Allocator) base() (Allocator, error) {
	switch a {
	case FirstAvailable, MaxBalance, Fastest:
		return FirstAvailable, nil
	case LastAvailable, MinResource, CPULoad:
		return LastAvailable, nil
	case RackAware:
		return RackAware, nil
	}
	return "", fmt.Errorf("refplace: unknown allocator %q (want first_available, last_available, rack_aware, "+
		"max_balance, fastest, min_resource or cpu_load)", string(a))
}

// State is the machine as an allocator sees it.
type State struct {
	Machine
	Busy []bool // by node id: true if a job holds the node
	// Key, by rack, orders the utilized racks for rack_aware: the maximum
	// remaining time of the jobs on the rack's nodes, or anything ordered
	// like it (Place uses the maximum estimated end). Read only for racks
	// with a busy node.
	Key []float64
}

// Allocate chooses n free nodes under allocator a and returns them in the
// order the allocator takes them (last_available: from the top down;
// rack_aware: rack by rack in visiting order). It does not change s.
func Allocate(a Allocator, s State, n int) ([]int, error) {
	b, err := a.base()
	if err != nil {
		return nil, err
	}
	if err := s.Machine.validate(); err != nil {
		return nil, err
	}
	if len(s.Busy) != s.Nodes {
		return nil, fmt.Errorf("refplace: state has %d node flags for %d nodes", len(s.Busy), s.Nodes)
	}
	free := 0
	for _, busy := range s.Busy {
		if !busy {
			free++
		}
	}
	if n < 0 || n > free {
		return nil, fmt.Errorf("refplace: cannot allocate %d nodes, %d free", n, free)
	}

	taken := make([]int, 0, n)
	take := func(i int) bool { // reports whether the request is satisfied
		if len(taken) < n && !s.Busy[i] {
			taken = append(taken, i)
		}
		return len(taken) == n
	}
	switch b {
	case FirstAvailable:
		for i := 0; i < s.Nodes && !take(i); i++ {
		}
	case LastAvailable:
		for i := s.Nodes - 1; i >= 0 && !take(i); i-- {
		}
	case RackAware:
		order, err := rackOrder(s)
		if err != nil {
			return nil, err
		}
		size := s.RackSize()
	racks:
		for _, r := range order {
			for i := r * size; i < (r+1)*size; i++ {
				if take(i) {
					break racks
				}
			}
		}
	}
	if len(taken) != n { // cannot happen: n ≤ free and every node is visited
		panic("refplace: allocator fell short")
	}
	return taken, nil
}

// rackOrder is the order in which rack_aware visits the racks: utilized racks
// by decreasing key, ties by increasing index, then the others by increasing
// index.
func rackOrder(s State) ([]int, error) {
	if len(s.Key) != s.Racks {
		return nil, fmt.Errorf("refplace: state has %d rack keys for %d racks", len(s.Key), s.Racks)
	}
	utilized := make([]bool, s.Racks)
	for i, busy := range s.Busy {
		if busy {
			utilized[s.RackOf(i)] = true
		}
	}
	var used, unused []int // each by increasing index
	for r := range s.Racks {
		if !utilized[r] {
			unused = append(unused, r)
			continue
		}
		if math.IsNaN(s.Key[r]) {
			return nil, fmt.Errorf("refplace: utilized rack %d has a NaN key", r)
		}
		used = append(used, r)
	}
	// Stable, so equal keys keep increasing index.
	slices.SortStableFunc(used, func(a, b int) int { return cmp.Compare(s.Key[b], s.Key[a]) })
	return append(used, unused...), nil
}

// Job is one job of a finished schedule. Times are seconds.
type Job struct {
	Start  float64 // start time
	End    float64 // actual end (> Start): the job frees its nodes then
	EstEnd float64 // Start + estimate (≥ End): rack_aware's key
	Nodes  int     // width, 1 ≤ Nodes ≤ machine nodes
}

// Placement is the result of Place.
type Placement struct {
	Nodes [][]int // by job index: the job's node ids, ascending
	Racks Series  // racks on, a step at every event time where the count changed
}

// Place replays node placement for the schedule jobs on machine m under
// allocator a (see the package documentation for the semantics).
func Place(m Machine, jobs []Job, a Allocator) (Placement, error) {
	if _, err := a.base(); err != nil {
		return Placement{}, err
	}
	if err := m.validate(); err != nil {
		return Placement{}, err
	}
	if err := validateJobs(jobs, m.Nodes); err != nil {
		return Placement{}, err
	}

	owner := make([]int, m.Nodes) // job holding each node, -1 if free
	for i := range owner {
		owner[i] = -1
	}
	busyInRack := make([]int, m.Racks)
	on := 0 // racks with busyInRack > 0

	byStart := sortedBy(len(jobs), func(i int) float64 { return jobs[i].Start })
	byEnd := sortedBy(len(jobs), func(i int) float64 { return jobs[i].End })
	var times []float64
	for _, j := range jobs {
		times = append(times, j.Start, j.End)
	}
	slices.Sort(times)
	times = slices.Compact(times)

	p := Placement{Nodes: make([][]int, len(jobs))}
	nextStart, nextEnd := 0, 0
	for _, t := range times {
		// Ends first. A job ending at t started before t (End > Start),
		// at an earlier event time, so it holds its nodes now.
		for ; nextEnd < len(byEnd) && jobs[byEnd[nextEnd]].End <= t; nextEnd++ {
			for _, id := range p.Nodes[byEnd[nextEnd]] {
				owner[id] = -1
				r := m.RackOf(id)
				busyInRack[r]--
				if busyInRack[r] == 0 {
					on--
				}
			}
		}
		// Then starts, in job order (byStart is stable).
		for ; nextStart < len(byStart) && jobs[byStart[nextStart]].Start <= t; nextStart++ {
			i := byStart[nextStart]
			ids, err := Allocate(a, state(m, jobs, owner), jobs[i].Nodes)
			if err != nil {
				return Placement{}, fmt.Errorf("refplace: job %d starting at t=%g: %w", i, t, err)
			}
			for _, id := range ids {
				owner[id] = i
				r := m.RackOf(id)
				if busyInRack[r] == 0 {
					on++
				}
				busyInRack[r]++
			}
			slices.Sort(ids)
			p.Nodes[i] = ids
		}
		p.Racks = p.Racks.record(t, on)
	}
	return p, nil
}

// state builds the allocator's view: busy flags, and per rack the maximum
// estimated end of the jobs holding its nodes (-Inf for an empty rack).
func state(m Machine, jobs []Job, owner []int) State {
	s := State{Machine: m, Busy: make([]bool, m.Nodes), Key: make([]float64, m.Racks)}
	for r := range s.Key {
		s.Key[r] = math.Inf(-1)
	}
	for id, j := range owner {
		if j >= 0 {
			s.Busy[id] = true
			r := m.RackOf(id)
			s.Key[r] = max(s.Key[r], jobs[j].EstEnd)
		}
	}
	return s
}

func validateJobs(jobs []Job, nodes int) error {
	for i, j := range jobs {
		switch {
		case !finite(j.Start) || !finite(j.End) || !finite(j.EstEnd):
			return fmt.Errorf("refplace: job %d has a non-finite time", i)
		case j.Nodes < 1 || j.Nodes > nodes:
			return fmt.Errorf("refplace: job %d has %d nodes, machine has %d", i, j.Nodes, nodes)
		case j.End <= j.Start:
			return fmt.Errorf("refplace: job %d ends at %g, not after its start at %g", i, j.End, j.Start)
		case j.EstEnd < j.End:
			return fmt.Errorf("refplace: job %d has estimated end %g before its end %g", i, j.EstEnd, j.End)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// sortedBy returns 0..n-1 sorted by key, ties by index.
func sortedBy(n int, key func(int) float64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	return idx
}
