package tariff

import (
	"math"
	"math/rand/v2"
)

// Generator describes a synthetic hourly price series in the manner of
// Kunkel et al.'s T1–T3 (kunkel.md §1.4, §4.6): values in Unit (currency
// per kWh per unit: 0.01 for cents), the first First values uniform on
// [Lo, Hi), then an autoregression over earlier hours plus a sine and
// Gaussian noise, then a daily profile added by hour of day, then the
// whole series shifted to a mean. The random numbers come from Go's PCG
// seeded with Seed: portable and the same on every machine (not R's).
type Generator struct {
	Hours  int
	Seed   uint64
	Unit   float64 // currency per kWh of one unit of the values
	First  int     // initial values drawn uniform on [Lo, Hi)
	Lo, Hi float64
	AR     []Lag   // Y[t] += Σ Coef·Y[t−Lag]
	Sine   float64 // amplitude: Y[t] += Sine·sin(2π·t/Period), t the 1-based hour
	Period float64 // hours
	Noise  float64 // sd of the N(0, sd²) term
	Adds   []Add   // daily profile, by local hour of day (the series starts at local midnight)
	Mean   float64 // currency per kWh the series is shifted to; NaN keeps the mean
}

// Lag is one autoregressive term.
type Lag struct {
	Coef float64
	Lag  int // hours
}

// Add raises the hours of day [From, To) by Value (in Unit).
type Add struct {
	From, To int // hours of day, 0..24
	Value    float64
}

// Generate draws the series.
func Generate(g Generator) *Series {
	rng := rand.New(rand.NewPCG(g.Seed, 0x9e3779b97f4a7c15))
	y := make([]float64, g.Hours)
	for t := range y {
		if t < g.First {
			y[t] = g.Lo + (g.Hi-g.Lo)*rng.Float64()
			continue
		}
		v := 0.0
		for _, a := range g.AR {
			if t-a.Lag >= 0 {
				v += a.Coef * y[t-a.Lag]
			}
		}
		if g.Period > 0 {
			v += g.Sine * math.Sin(2*math.Pi*float64(t+1)/g.Period)
		}
		if g.Noise > 0 {
			v += g.Noise * rng.NormFloat64()
		}
		y[t] = v
	}
	for t := range y {
		h := t % 24
		for _, a := range g.Adds {
			if h >= a.From && h < a.To {
				y[t] += a.Value
			}
		}
	}
	unit := g.Unit
	if unit == 0 {
		unit = 1
	}
	for t := range y {
		y[t] *= unit
	}
	if !math.IsNaN(g.Mean) && len(y) > 0 {
		var sum float64
		for _, v := range y {
			sum += v
		}
		shift := g.Mean - sum/float64(len(y))
		for t := range y {
			y[t] += shift
		}
	}
	return &Series{Name: "generated", Prices: y}
}
