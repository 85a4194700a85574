package tariff

import "math"

// Tariff is a price per kWh (in the contract's currency) that changes at
// discrete instants. Implementations in this package are safe for
// concurrent use.
type Tariff interface {
	// At returns the price in force at sim time t, the index of its period
	// in Periods(), and the sim time of the next change of price or period
	// (> t; +Inf if none). The engine integrates cost by calling At again
	// at next, so At must be cheap for increasing t. At(NaN) returns a NaN
	// price and next = +Inf, so a bad time poisons the cost instead of
	// hanging the walk.
	At(t float64) (price float64, period int, next float64)
	// Periods returns the period labels, e.g. {"flat"}, {"peak", "base"}.
	Periods() []string
	// Span returns the sim times [from, to) for which prices are known:
	// (-Inf, +Inf) for flat and base/peak tariffs, the series' hours for an
	// hourly one. Outside it an hourly tariff repeats its series; whether a
	// run may use those hours is the caller's decision.
	Span() (from, to float64)
}

var inf = math.Inf(1)

type flat float64

// Flat returns a tariff with one price at all times.
func Flat(price float64) Tariff { return flat(price) }

func (f flat) At(t float64) (float64, int, float64) {
	if t != t {
		return math.NaN(), 0, inf
	}
	return float64(f), 0, inf
}

func (flat) Periods() []string               { return []string{"flat"} }
func (flat) Span() (float64, float64)        { return -inf, inf }
func (f flat) integral(a, b float64) float64 { return float64(f) * (b - a) }

// integrator is implemented by tariffs that integrate their price in
// closed form (flat) or from prefix sums (hourly), for a ≤ b.
type integrator interface {
	integral(a, b float64) float64
}

// maxWalk bounds the price segments a generic integral walks, so that an
// absurd span fails (NaN) instead of hanging.
const maxWalk = 1 << 24

// Integral returns ∫ price dt over [a, b], in currency·s/kWh (divide by
// 3600 for currency·h/kWh). It is exact up to floating-point rounding: flat
// tariffs in closed form, hourly series from prefix sums of their prices,
// others by walking their price changes with At. It is −Integral(b, a) for
// b < a, and NaN if a or b is not finite.
func Integral(t Tariff, a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0):
		return math.NaN()
	case a == b:
		return 0
	case b < a:
		return -Integral(t, b, a)
	}
	if in, ok := t.(integrator); ok {
		return in.integral(a, b)
	}
	return walk(t, a, b)
}

// walk integrates t over [a, b] (a < b) segment by segment, with
// compensated summation.
func walk(t Tariff, a, b float64) float64 {
	var sum kahan
	x := a
	for range maxWalk {
		p, _, next := t.At(x)
		if !(next > x) {
			return math.NaN()
		}
		next = min(next, b)
		sum.add(p * (next - x))
		if x = next; x >= b {
			return sum.value()
		}
	}
	return math.NaN()
}

// Mean returns the time-weighted mean price over [a, b]; for a == b, the
// price in force at a.
func Mean(t Tariff, a, b float64) float64 {
	if a == b {
		p, _, _ := t.At(a)
		return p
	}
	return Integral(t, a, b) / (b - a)
}

// kahan is Neumaier's compensated sum: the rounding error of each addition
// is carried, so a long sum is accurate to about one rounding.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) value() float64 { return k.s + k.c }
