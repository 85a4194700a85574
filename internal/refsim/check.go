package refsim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Scheduled is one job of a finished schedule. Slices of Scheduled are in
// queue order (non-decreasing submit time, ties in trace order).
type Scheduled struct {
	Submit, Start, End, Estimate float64
	Nodes                        int
}

// The checks below judge a schedule by properties that any correct engine's
// output must have; none of them re-simulates, so a bug shared by Simulate and
// the engine cannot hide from them.

// maxReported bounds how many violations an error spells out.
const maxReported = 5

// violations collects the first few problems a check finds and counts all.
type violations struct {
	check string
	first []string
	total int
}

func (v *violations) add(format string, args ...any) {
	v.total++
	if len(v.first) < maxReported {
		v.first = append(v.first, fmt.Sprintf(format, args...))
	}
}

func (v *violations) err() error {
	if v.total == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: %d violation(s): %s", v.check, v.total, strings.Join(v.first, "; "))
	if v.total > len(v.first) {
		msg += "; …"
	}
	return errors.New(msg)
}

// CheckCapacity reports every instant at which more than nodes nodes are in
// use. A job occupies [Start, End): at a shared instant, ends free their
// nodes before starts take theirs. Jobs with End ≤ Start occupy nothing here
// (CheckCausality reports End < Start).
func CheckCapacity(s []Scheduled, nodes int) error {
	v := violations{check: "capacity"}
	type change struct {
		at    float64
		delta int // +Nodes at a start, -Nodes at an end
		job   int
	}
	var changes []change
	for i, j := range s {
		if j.Nodes < 1 || j.Nodes > nodes {
			v.add("job %d has %d nodes, machine has %d", i, j.Nodes, nodes)
		}
		if math.IsNaN(j.Start) || math.IsNaN(j.End) {
			v.add("job %d has a NaN start or end", i)
			continue
		}
		if j.End > j.Start {
			changes = append(changes, change{j.Start, j.Nodes, i}, change{j.End, -j.Nodes, i})
		}
	}
	slices.SortFunc(changes, func(a, b change) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta) // ends (negative) first
	})
	used := 0
	for _, c := range changes {
		used += c.delta
		if c.delta > 0 && used > nodes {
			v.add("at t=%g job %d starts and %d nodes are in use, machine has %d", c.at, c.job, used, nodes)
		}
	}
	return v.err()
}

// CheckCausality reports jobs that start before they are submitted or end
// before they start. NaN times fail too.
func CheckCausality(s []Scheduled) error {
	v := violations{check: "causality"}
	for i, j := range s {
		if !(j.Start >= j.Submit) {
			v.add("job %d starts at %g, before its submission at %g", i, j.Start, j.Submit)
		}
		if !(j.End >= j.Start) {
			v.add("job %d ends at %g, before its start at %g", i, j.End, j.Start)
		}
	}
	return v.err()
}

// CheckFCFSOrder reports jobs that start before a job ahead of them in the
// queue: under FCFS, starts are non-decreasing in queue order.
func CheckFCFSOrder(s []Scheduled) error {
	if err := checkQueueOrder(s); err != nil {
		return err
	}
	v := violations{check: "FCFS order"}
	for i := 1; i < len(s); i++ {
		if !(s[i].Start >= s[i-1].Start) {
			v.add("job %d starts at %g, before job %d at %g", i, s[i].Start, i-1, s[i-1].Start)
		}
	}
	return v.err()
}

// CheckEASYReservation reports jobs that started later than the reservation
// they held as head of the queue.
//
// The state is constant between the instants at which something is
// submitted, starts or ends, so it is examined just after each such instant
// t, once everything at t has happened. Then a job is waiting if
// Submit ≤ t < Start, and running if Start ≤ t < End; the head is the waiting
// job earliest in queue order. Its shadow time is the earliest time ≥ t at
// which the nodes of running jobs still expected to run (Start + Estimate
// later than it) leave room for the head: t itself if the head fits now. A
// correct EASY engine never lets that shadow time move later (backfilled jobs
// avoid it by construction; early ends only bring it forward), so the head
// must start by every shadow time it is ever given.
//
// This holds when estimates bound run times (End ≤ Start + Estimate), as they
// do after the cleaning of DESIGN §4.2. Each job is reported at most once.
func CheckEASYReservation(s []Scheduled, nodes int) error {
	if err := checkQueueOrder(s); err != nil {
		return err
	}
	v := violations{check: "EASY reservation"}

	var times []float64
	for _, j := range s {
		times = append(times, j.Submit, j.Start, j.End)
	}
	slices.Sort(times)
	times = slices.Compact(times)

	byStart := sortedIndices(s, func(j Scheduled) float64 { return j.Start })
	byEnd := sortedIndices(s, func(j Scheduled) float64 { return j.End })
	estEnd := func(i int) float64 { return s[i].Start + s[i].Estimate }
	cmpRunning := func(a, b int) int {
		if c := cmp.Compare(estEnd(a), estEnd(b)); c != 0 {
			return c
		}
		return a - b
	}

	var running []int // sorted by (estimated end, index)
	used := 0         // nodes of running jobs
	nextStart, nextEnd := 0, 0
	head := 0 // every job before head has started
	lastReported := -1
	for _, t := range times {
		for ; nextStart < len(byStart) && s[byStart[nextStart]].Start <= t; nextStart++ {
			i := byStart[nextStart]
			if s[i].End <= t { // started and ended by t: not running now
				continue
			}
			pos, _ := slices.BinarySearchFunc(running, i, cmpRunning)
			running = slices.Insert(running, pos, i)
			used += s[i].Nodes
		}
		for ; nextEnd < len(byEnd) && s[byEnd[nextEnd]].End <= t; nextEnd++ {
			i := byEnd[nextEnd]
			if pos, found := slices.BinarySearchFunc(running, i, cmpRunning); found {
				running = slices.Delete(running, pos, pos+1)
				used -= s[i].Nodes
			}
		}
		for head < len(s) && s[head].Start <= t {
			head++
		}
		// In queue order, a head not yet submitted means nobody is waiting.
		if head == len(s) || s[head].Submit > t || head == lastReported {
			continue
		}
		shadow := shadowTime(s, running, used, nodes, s[head].Nodes, t)
		if s[head].Start > shadow {
			v.add("job %d is head at t=%g with shadow time %g, but starts at %g", head, t, shadow, s[head].Start)
			lastReported = head
		}
	}
	return v.err()
}

// shadowTime is the earliest time ≥ t at which a job of width nodes fits,
// judged by the estimated ends of the running jobs. It walks back from the
// latest estimated end: the shadow time is the latest estimated end E such
// that the jobs ending (by estimate) at or after E hold more nodes than the
// head can leave busy; from E on they no longer do.
func shadowTime(s []Scheduled, running []int, used, nodes, width int, t float64) float64 {
	canStayBusy := nodes - width
	if used <= canStayBusy {
		return t
	}
	// Ties need no grouping: once the jobs seen so far hold too many nodes,
	// the whole tie (seen or not) does too, and it shares the same end.
	busy := 0
	for _, i := range slices.Backward(running) {
		busy += s[i].Nodes
		if busy > canStayBusy {
			return s[i].Start + s[i].Estimate
		}
	}
	return math.Inf(1) // only when the head is wider than the machine
}

// checkQueueOrder rejects a schedule whose submits decrease: the order checks
// are meaningless unless the slice is in queue order.
func checkQueueOrder(s []Scheduled) error {
	for i := 1; i < len(s); i++ {
		if !(s[i].Submit >= s[i-1].Submit) {
			return fmt.Errorf("schedule not in queue order: job %d submitted at %g, before job %d at %g",
				i, s[i].Submit, i-1, s[i-1].Submit)
		}
	}
	return nil
}

func sortedIndices(s []Scheduled, key func(Scheduled) float64) []int {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(s[a]), key(s[b])) })
	return idx
}
