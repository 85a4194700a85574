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

// Band is a power band [Lo, Hi] (W) on metered means: of the facility, or
// with Jobs of the running jobs alone. Whatever it meters, a rebill
// re-prices the facility's energy: that is the bill.
type Band struct {
	Lo, Hi float64
	Jobs   bool // meter the jobs' power (`of jobs`), else the facility's
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
	from, _ := periodBounds(p, clock, t)
	return from
}

// periodBounds are the sim times [from, to) of the billing period holding
// t: a calendar month or year of local time, or (PeriodRun) all time.
func periodBounds(p Period, clock tariff.Clock, t float64) (from, to float64) {
	w := clock.Time(t)
	switch p {
	case PeriodMonth:
		a := time.Date(w.Year(), w.Month(), 1, 0, 0, 0, 0, w.Location())
		return clock.Sim(a), clock.Sim(a.AddDate(0, 1, 0))
	case PeriodYear:
		a := time.Date(w.Year(), 1, 1, 0, 0, 0, 0, w.Location())
		return clock.Sim(a), clock.Sim(a.AddDate(1, 0, 0))
	}
	return math.Inf(-1), math.Inf(1)
}

// BandCharge applies a band to metered intervals (in time order): to the
// facility's means, or with b.Jobs to the jobs'. A rebill charges, for
// each period with a violation, what the facility's energy in it costs at
// the rebill price beyond what it cost at the contract's: never less than
// nothing (a rebill price below the contract's does not refund).
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
		mean := x.Mean
		if b.Jobs {
			mean = x.Jobs
		}
		bad := mean > b.Hi || mean < b.Lo
		if bad {
			r.Violations++
			r.SecondsOut += x.Seconds
			r.MaxOver = max(r.MaxOver, mean-b.Hi)
			r.MaxUnder = max(r.MaxUnder, b.Lo-mean)
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
				r.Penalty += max(0, p.energy/joulesPerKWh*b.Rebill-p.cst)
			}
		}
	}
	return r
}

// Demand charges the highest metered mean of the facility in each
// period: Price per W per period. A period the run covers only in part
// pays its share: Price × its peak × the part of the period covered, so a
// run of 401 days pays 401 days' worth of a yearly charge, not two years'.
type Demand struct {
	Price  float64 // currency per W (per period)
	Period Period
}

// DemandCharge is the charge and the facility's highest metered mean over
// the run.
func DemandCharge(iv []Interval, d Demand, clock tariff.Clock) (charge, peak float64) {
	from, to := math.NaN(), math.NaN()
	periodPeak, covered := 0.0, 0.0
	bill := func() {
		if covered > 0 {
			share := 1.0 // a charge per run (PeriodRun) is the run's whole
			if span := to - from; !math.IsInf(span, 1) {
				share = min(1, covered/span)
			}
			charge += d.Price * periodPeak * share
		}
	}
	for _, x := range iv {
		if !(x.Start >= from && x.Start < to) {
			bill()
			from, to = periodBounds(d.Period, clock, x.Start)
			periodPeak, covered = 0, 0
		}
		periodPeak = max(periodPeak, x.Mean)
		covered += x.Seconds
		peak = max(peak, x.Mean)
	}
	bill()
	return charge, peak
}
