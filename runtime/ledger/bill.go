package ledger

import (
	"math"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// The parts of a bill beyond the energy price (kunkel.md §1.9, §4.5): a
// power band, a demand charge and an energy budget, all computed from the
// metered intervals after the run.

// PenaltyKind says how a band violation is charged.
type PenaltyKind int

// Band penalties.
const (
	PerInterval  PenaltyKind = iota // Fee × intervals out of the band
	PerViolation                    // Fee × runs of consecutive intervals out
	Once                            // Fee once per period with a violation
	Rebill                          // a period with a violation: all its energy at the rebill price
)

// Period is a billing period, in the trace's local time.
type Period int

// Billing periods.
const (
	PeriodRun Period = iota
	PeriodMonth
	PeriodYear
)

// Band is a power band [Lo, Hi] (W) on metered means.
type Band struct {
	Lo, Hi float64
	Kind   PenaltyKind
	Fee    float64 // currency per interval, per violation, or once
	Rebill float64 // currency per kWh (Rebill)
	Period Period  // for Once and Rebill
}

// BandResult is what a band did over a run.
type BandResult struct {
	Violations int     // intervals out of the band
	Episodes   int     // runs of consecutive intervals out
	SecondsOut float64 // time covered by intervals out
	MaxOver    float64 // W above Hi, at most
	MaxUnder   float64 // W below Lo, at most
	Penalty    float64 // currency
}

// periodOf is the start of the billing period holding t.
func periodOf(p Period, clock tariff.Clock, t float64) float64 {
	w := clock.Time(t)
	switch p {
	case PeriodMonth:
		return clock.Sim(time.Date(w.Year(), w.Month(), 1, 0, 0, 0, 0, w.Location()))
	case PeriodYear:
		return clock.Sim(time.Date(w.Year(), 1, 1, 0, 0, 0, 0, w.Location()))
	}
	return math.Inf(-1)
}

// BandCharge applies a band to metered intervals (in time order).
func BandCharge(iv []Interval, b Band, clock tariff.Clock) BandResult {
	var r BandResult
	out := false
	type per struct {
		bad         bool
		energy, cst float64
	}
	var periods []per
	last := math.NaN()
	for _, x := range iv {
		if p := periodOf(b.Period, clock, x.Start); p != last {
			periods = append(periods, per{})
			last = p
		}
		pd := &periods[len(periods)-1]
		pd.energy += x.Mean * x.Seconds
		pd.cst += x.Cost
		bad := x.Mean > b.Hi || x.Mean < b.Lo
		if bad {
			r.Violations++
			r.SecondsOut += x.Seconds
			r.MaxOver = math.Max(r.MaxOver, x.Mean-b.Hi)
			r.MaxUnder = math.Max(r.MaxUnder, b.Lo-x.Mean)
			if !out {
				r.Episodes++
			}
			pd.bad = true
		}
		out = bad
	}
	switch b.Kind {
	case PerInterval:
		r.Penalty = b.Fee * float64(r.Violations)
	case PerViolation:
		r.Penalty = b.Fee * float64(r.Episodes)
	case Once, Rebill:
		for _, p := range periods {
			if !p.bad {
				continue
			}
			if b.Kind == Once {
				r.Penalty += b.Fee
			} else {
				r.Penalty += p.energy/joulesPerKWh*b.Rebill - p.cst
			}
		}
	}
	return r
}

// Demand charges the highest metered mean of each period: Price per W.
type Demand struct {
	Price  float64 // currency per W (per period)
	Period Period
}

// DemandCharge is the charge and the highest metered mean over the run.
func DemandCharge(iv []Interval, d Demand, clock tariff.Clock) (charge, peak float64) {
	last := math.NaN()
	periodPeak := 0.0
	for _, x := range iv {
		if p := periodOf(d.Period, clock, x.Start); p != last {
			charge += periodPeak * d.Price
			periodPeak, last = 0, p
		}
		periodPeak = math.Max(periodPeak, x.Mean)
		peak = math.Max(peak, x.Mean)
	}
	return charge + periodPeak*d.Price, peak
}
