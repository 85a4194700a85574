package tariff

import (
	"math"
	"sort"
)

// Integrator integrates one tariff over many windows that move forward in
// time, such as the trailing means rules read (price.mean_past): for flat
// and hourly tariffs in O(1) (closed form, prefix sums), for others from a
// tape of the cumulative integral at each price change, extended as
// windows reach new times and searched in O(log n). It is exact up to
// floating-point rounding. An Integrator is for one run: it is not safe
// for concurrent use.
type Integrator struct {
	t    Tariff
	fast integrator // set for flat and hourly tariffs
	// The tape: price changes xs, the integral F from xs[0] to each, and
	// the price from each to the next. F(x) is exact between xs[0] and
	// xs[len-1], where the walk stopped.
	xs, fs, ps []float64
	sum        kahan // F at the last point, compensated
}

// NewIntegrator returns an Integrator for t. A base/peak tariff is copied,
// so that its walks do not evict the cache of the engine's copy.
func NewIntegrator(t Tariff) *Integrator {
	in := &Integrator{t: t}
	if f, ok := t.(integrator); ok {
		in.fast = f
	}
	if bp, ok := t.(*basePeak); ok {
		in.t = bp.fork()
	}
	return in
}

// tapeSlack is how far past a query the tape grows when the tariff will
// not change again, so that queries creeping forward do not add a point
// each.
const tapeSlack = 30 * 86400

// Integral returns ∫ price dt over [a, b] in currency·s/kWh, as the
// package function Integral does.
func (in *Integrator) Integral(a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return math.NaN()
	case a == b:
		return 0
	case b < a:
		return -in.Integral(b, a)
	case in.fast != nil:
		return in.fast.integral(a, b)
	}
	if !in.cover(a, b) {
		return math.NaN()
	}
	return in.at(b) - in.at(a)
}

// Mean returns the mean price over [a, b]; for a == b the price at a.
func (in *Integrator) Mean(a, b float64) float64 {
	if a == b {
		p, _, _ := in.t.At(a)
		return p
	}
	return in.Integral(a, b) / (b - a)
}

// at returns F(x) for x on the tape.
func (in *Integrator) at(x float64) float64 {
	i := sort.SearchFloat64s(in.xs, x) // first xs[i] >= x
	if i < len(in.xs) && in.xs[i] == x {
		return in.fs[i]
	}
	i--
	return in.fs[i] + in.ps[i]*(x-in.xs[i])
}

// cover extends the tape to [a, b]. It reports false if the tariff cannot
// be walked there (a bad time, or too many segments).
func (in *Integrator) cover(a, b float64) bool {
	if len(in.xs) == 0 {
		in.xs, in.fs = []float64{a}, []float64{0}
		in.sum = kahan{}
	}
	if lo := in.xs[0]; a < lo {
		if !in.prepend(a - (lo - a)) { // twice as far as needed: rarely again
			return false
		}
	}
	for n := 0; in.xs[len(in.xs)-1] < b; n++ {
		if n >= maxWalk {
			return false
		}
		x := in.xs[len(in.xs)-1]
		p, _, next := in.t.At(x)
		if !(next > x) {
			return false
		}
		if math.IsInf(next, 1) {
			next = b + tapeSlack
		}
		in.sum.add(p * (next - x))
		in.ps = append(in.ps, p)
		in.xs = append(in.xs, next)
		in.fs = append(in.fs, in.sum.value())
	}
	return true
}

// prepend extends the tape back to from, keeping F's origin.
func (in *Integrator) prepend(from float64) bool {
	lo := in.xs[0]
	var xs, ps []float64
	for x := from; x < lo; {
		if len(xs) >= maxWalk {
			return false
		}
		p, _, next := in.t.At(x)
		if !(next > x) {
			return false
		}
		xs, ps = append(xs, x), append(ps, p)
		x = min(next, lo)
	}
	// F at each new point: F(lo) minus the integral from it to lo.
	fs := make([]float64, len(xs))
	var back kahan
	end := lo
	for i := len(xs) - 1; i >= 0; i-- {
		back.add(ps[i] * (end - xs[i]))
		fs[i] = in.fs[0] - back.value()
		end = xs[i]
	}
	in.xs = append(xs, in.xs...)
	in.fs = append(fs, in.fs...)
	in.ps = append(ps, in.ps...)
	return true
}
