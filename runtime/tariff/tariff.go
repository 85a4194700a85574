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
	// Horizon returns the sim time up to which prices are known; beyond it
	// a tariff repeats known prices (+Inf when prices are known forever).
	Horizon() float64
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

func (flat) Periods() []string { return []string{"flat"} }
func (flat) Horizon() float64  { return inf }
