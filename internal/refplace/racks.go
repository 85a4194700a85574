package refplace

import (
	"fmt"
	"slices"
)

// Step says that RacksOn racks are on from At until the next step.
type Step struct {
	At      float64 // an event time, seconds
	RacksOn int
}

// Series is the racks-on step function: steps at strictly increasing times,
// one at every event time where the count of racks on (after all events of
// that instant) differs from the count before it. Every rack is off before
// the first step. A rack switched off and another switched on at the same
// instant leave the count, hence the series, unchanged.
type Series []Step

// record appends a step for time t (later than every step) if the count
// of racks on changed.
func (s Series) record(t float64, on int) Series {
	prev := 0
	if len(s) > 0 {
		prev = s[len(s)-1].RacksOn
	}
	if on == prev {
		return s
	}
	return append(s, Step{At: t, RacksOn: on})
}

// Placed is one job with the node ids it ran on, from any source (Place, or
// an engine's --jobs CSV read with ParseNodes).
type Placed struct {
	Start, End float64 // the job holds its nodes during [Start, End), End > Start
	Nodes      []int   // distinct node ids; empty = no nodes
}

// RacksOn recomputes the racks-on series from the node lists of jobs, with
// the same event order as Place (ends, then starts) but without allocating:
// it tracks which job holds each node and, after each event time, counts the
// racks holding a busy node by a plain scan. It reports node ids out of
// range, ids repeated within a job, and any node held by two jobs at once.
func RacksOn(m Machine, jobs []Placed) (Series, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	for i, j := range jobs {
		if !finite(j.Start) || !finite(j.End) {
			return nil, fmt.Errorf("refplace: job %d has a non-finite time", i)
		}
		if j.End <= j.Start {
			return nil, fmt.Errorf("refplace: job %d ends at %g, not after its start at %g", i, j.End, j.Start)
		}
		seen := map[int]bool{}
		for _, id := range j.Nodes {
			if id < 0 || id >= m.Nodes {
				return nil, fmt.Errorf("refplace: job %d has node %d, machine has nodes 0-%d", i, id, m.Nodes-1)
			}
			if seen[id] {
				return nil, fmt.Errorf("refplace: job %d lists node %d twice", i, id)
			}
			seen[id] = true
		}
	}

	var times []float64
	for _, j := range jobs {
		times = append(times, j.Start, j.End)
	}
	slices.Sort(times)
	times = slices.Compact(times)

	holder := make([]int, m.Nodes) // -1 if free
	for i := range holder {
		holder[i] = -1
	}
	byStart := sortedBy(len(jobs), func(i int) float64 { return jobs[i].Start })
	byEnd := sortedBy(len(jobs), func(i int) float64 { return jobs[i].End })
	nextStart, nextEnd := 0, 0
	var s Series
	for _, t := range times {
		for ; nextEnd < len(byEnd) && jobs[byEnd[nextEnd]].End == t; nextEnd++ {
			i := byEnd[nextEnd]
			for _, id := range jobs[i].Nodes {
				if holder[id] == i {
					holder[id] = -1
				}
			}
		}
		for ; nextStart < len(byStart) && jobs[byStart[nextStart]].Start == t; nextStart++ {
			i := byStart[nextStart]
			for _, id := range jobs[i].Nodes {
				if h := holder[id]; h >= 0 {
					return nil, fmt.Errorf("refplace: node %d is held by job %d and job %d at t=%g", id, h, i, t)
				}
				holder[id] = i
			}
		}
		on := 0
		for r := range m.Racks {
			for id := r * m.RackSize(); id < (r+1)*m.RackSize(); id++ {
				if holder[id] >= 0 {
					on++
					break
				}
			}
		}
		s = s.record(t, on)
	}
	return s, nil
}

// Summary is the rack accounting of a series over a span [From, To]
// (patil.md §1.2, §4.3). Energies are joules; see MWh.
type Summary struct {
	From, To float64
	Racks    int     // R
	PRack    float64 // watts drawn by a rack while on
	// RackSeconds is ∫ racks_on dt over the span.
	RackSeconds float64
	// MeanRacksOn is RackSeconds / (To − From); 0 for an empty span.
	MeanRacksOn float64
	// Utilization is MeanRacksOn / R (patil.md's rack utilization, as a
	// fraction).
	Utilization float64
	Energy      float64 // PRack × RackSeconds
	AllOn       float64 // R × PRack × (To − From): every rack always on
	// Saving is the rack energy avoided against AllOn, integrated on its own
	// as PRack × ∫ (R − racks_on) dt; Energy + Saving = AllOn.
	Saving float64
	// Changes is the number of steps in [From, To] at which the count
	// differs from the one before (the first start counts, from 0);
	// Switches is Σ |Δ racks on| over those steps.
	Changes, Switches int
}

// Summarize accounts for series s on a machine of racks racks drawing pRack
// watts each while on, over [from, to]. Steps before from set the count at
// from; steps after to are ignored. With integer times and an integer pRack
// (below 2^53 in all products) every figure is exact.
func Summarize(s Series, racks int, pRack, from, to float64) (Summary, error) {
	switch {
	case racks < 1:
		return Summary{}, fmt.Errorf("refplace: %d racks, want at least 1", racks)
	case !finite(pRack) || pRack < 0:
		return Summary{}, fmt.Errorf("refplace: rack power %g W, want a finite value ≥ 0", pRack)
	case !finite(from) || !finite(to) || to < from:
		return Summary{}, fmt.Errorf("refplace: span [%g, %g] is not a finite interval", from, to)
	}
	for k, st := range s {
		if !finite(st.At) || (k > 0 && !(st.At > s[k-1].At)) {
			return Summary{}, fmt.Errorf("refplace: step %d at %g: steps must be at finite, increasing times", k, st.At)
		}
		if st.RacksOn < 0 || st.RacksOn > racks {
			return Summary{}, fmt.Errorf("refplace: step %d has %d racks on, machine has %d", k, st.RacksOn, racks)
		}
	}

	sum := Summary{From: from, To: to, Racks: racks, PRack: pRack}
	span := to - from
	on := integrate(s, from, to, func(n int) float64 { return float64(n) })
	off := integrate(s, from, to, func(n int) float64 { return float64(racks - n) })
	sum.RackSeconds = on
	if span > 0 {
		sum.MeanRacksOn = on / span
	}
	sum.Utilization = sum.MeanRacksOn / float64(racks)
	sum.Energy = pRack * on
	sum.AllOn = float64(racks) * pRack * span
	sum.Saving = pRack * off

	prev := 0
	for _, st := range s {
		if st.At >= from && st.At <= to && st.RacksOn != prev {
			sum.Changes++
			sum.Switches += abs(st.RacksOn - prev)
		}
		prev = st.RacksOn
	}
	return sum, nil
}

// integrate is ∫ f(racks_on(t)) dt over [from, to].
func integrate(s Series, from, to float64, f func(int) float64) float64 {
	total, t, on := 0.0, from, 0
	for _, st := range s {
		if st.At <= from {
			on = st.RacksOn
			continue
		}
		if st.At >= to {
			break
		}
		total += f(on) * (st.At - t)
		t, on = st.At, st.RacksOn
	}
	return total + f(on)*(to-t)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// JoulesPerMWh converts joules (watt-seconds) to megawatt-hours.
const JoulesPerMWh = 3.6e9

// MWh converts joules to megawatt-hours.
func MWh(joules float64) float64 { return joules / JoulesPerMWh }
