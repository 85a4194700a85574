// Package deferral chooses when to start a job within a look-ahead
// window so that its cost is least: Kunkel et al.'s price-aware decision
// (Listing 3) made exact. The cost of starting at s, for a job that waits
// from now and then runs for r seconds, is
//
//	C(s) = waiting·∫[now, s] o(τ) dτ + running·∫[s, s+r] o(τ) dτ
//
// for a piecewise-constant objective o (a price, a carbon intensity, or a
// rule of both) and the job's powers while waiting and running. C is
// piecewise linear in s, with breakpoints where s or s + r crosses a
// change of o, so its minimum over [now, latest] is at one of those
// breakpoints or an end; Cheapest evaluates exactly those, and no early
// stop assumes the objective is positive (negative prices exist).
package deferral

import (
	"errors"
	"math"
	"slices"
)

// Profile is a piecewise-constant objective: Values[i] holds on
// [Times[i], Times[i+1]), the last up to End. Times increase strictly.
type Profile struct {
	Times  []float64
	Values []float64
	End    float64
	prefix []float64 // ∫ from Times[0] to Times[i]
}

// Reset empties p for reuse, keeping its memory.
func (p *Profile) Reset() {
	p.Times, p.Values, p.prefix = p.Times[:0], p.Values[:0], p.prefix[:0]
	p.End = 0
}

// Add appends a segment starting at t with value v; a segment with the
// value of the one before merges into it (its start is no breakpoint).
func (p *Profile) Add(t, v float64) {
	if n := len(p.Times); n > 0 && p.Values[n-1] == v {
		return
	}
	p.Times = append(p.Times, t)
	p.Values = append(p.Values, v)
}

// seal computes the prefix integrals; false if a value is not finite.
func (p *Profile) seal() bool {
	p.prefix = append(p.prefix[:0], 0)
	for i := 1; i < len(p.Times); i++ {
		p.prefix = append(p.prefix, p.prefix[i-1]+p.Values[i-1]*(p.Times[i]-p.Times[i-1]))
	}
	for _, v := range p.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// at returns ∫ from Times[0] to x, for Times[0] ≤ x ≤ End.
func (p *Profile) at(x float64) float64 {
	i, found := slices.BinarySearch(p.Times, x)
	if found {
		return p.prefix[i]
	}
	i--
	return p.prefix[i] + p.Values[i]*(x-p.Times[i])
}

// Integral returns ∫ o over [a, b] within the profile.
func (p *Profile) Integral(a, b float64) float64 { return p.at(b) - p.at(a) }

// Job is what the decision needs of a job and its window.
type Job struct {
	Now     float64 // the decision's time
	Latest  float64 // the last allowed start: the window's end minus Run
	Run     float64 // s
	Waiting float64 // W while waiting (the paper: its share of the infrastructure)
	Running float64 // W while running
	// PreferNow discounts starting now (the paper: 0.1 %, schedsim's 0.999
	// factor), so a flat objective never defers.
	PreferNow float64
}

// Decision is the chosen start and what it costs, in the objective's
// unit times kWh (currency for a price, g for a carbon intensity).
type Decision struct {
	Start      float64
	Cost       float64 // C(Start), discounted if Start is Now
	CostNow    float64 // C(Now), undiscounted
	Candidates int     // starts evaluated
}

// Errors of Cheapest.
var (
	ErrWindow = errors.New("deferral: the profile does not cover the window")
	ErrValue  = errors.New("deferral: the objective is not a finite number in the window")
)

// Cheapest returns the start in [j.Now, j.Latest] of least cost, the
// earliest on ties. cand is scratch space for the candidates (may be nil).
func Cheapest(p *Profile, j Job, cand []float64) (Decision, []float64, error) {
	end := j.Latest + j.Run
	if len(p.Times) == 0 || p.Times[0] > j.Now || p.End < end || !(j.Latest >= j.Now) || !(j.Run >= 0) || math.IsInf(j.Run, 0) {
		return Decision{}, cand, ErrWindow
	}
	if !p.seal() {
		return Decision{}, cand, ErrValue
	}
	cand = append(cand[:0], j.Now, j.Latest)
	for _, b := range p.Times {
		if b > j.Now && b <= j.Latest {
			cand = append(cand, b)
		}
		if s := b - j.Run; s > j.Now && s <= j.Latest {
			cand = append(cand, s)
		}
	}
	slices.Sort(cand)
	cand = slices.Compact(cand)
	const kWh = 3.6e6
	cost := func(s float64) float64 {
		return (j.Waiting*p.Integral(j.Now, s) + j.Running*p.Integral(s, s+j.Run)) / kWh
	}
	now := cost(j.Now)
	d := Decision{Start: j.Now, Cost: now * (1 - j.PreferNow), CostNow: now, Candidates: len(cand)}
	for _, s := range cand[1:] {
		if c := cost(s); c < d.Cost {
			d.Start, d.Cost = s, c
		}
	}
	return d, cand, nil
}
