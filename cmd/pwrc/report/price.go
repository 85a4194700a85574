package report

import (
	"fmt"
	"time"

	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// PriceLoader reads an hourly price file (tariff.OpenPrices, or a cache
// of it shared by the runs that read the same file).
type PriceLoader func(path string, f tariff.Format) (*tariff.Series, error)

// Clock is the wall clock of a run's trace: the trace header's start time
// and zone unless the workload overrides them, as the simulator sets it.
func Clock(r *pwrt.Result) (tariff.Clock, error) {
	c := tariff.Clock{Epoch: r.Workload.Epoch, Loc: time.UTC}
	zone := r.Run.Workload.TimeZone
	if zone == "" {
		zone = r.Workload.Zone
	}
	if zone != "" {
		loc, err := tariff.LoadLocation(zone)
		if err != nil {
			return c, fmt.Errorf("time zone %q: %w", zone, err)
		}
		c.Loc = loc
	}
	if s := r.Run.Workload.Start; s != "" {
		t, err := time.ParseInLocation("2006-01-02T15:04:05", s, c.Loc)
		if err != nil {
			return c, err
		}
		c.Epoch = t.Unix()
	}
	return c, nil
}

// Tariff rebuilds the price a run paid over time from its contract, the
// way the simulator builds it: a flat price, base/peak windows on the
// trace's local clock, or an hourly series placed at local midnight of
// the day the run's machine state starts (its first submission, or the
// start of its accounting window), at the contract's start or at the
// file's own time stamps. A run without a state series gets none. The
// report's tests check that power × this price integrates to the run's
// cost.
func Tariff(run Run, load PriceLoader) (tariff.Tariff, error) {
	r := run.Result
	if r.Err != nil || !hasStates(run) {
		return nil, nil
	}
	first, _ := statesOf(run).Span()
	k := r.Run.Contract
	switch k.Kind {
	case pwrt.Flat:
		return tariff.Flat(k.Price), nil
	}
	clock, err := Clock(r)
	if err != nil {
		return nil, err
	}
	if k.Kind == pwrt.BasePeak {
		return tariff.BasePeak(clock, k.Peak, k.PeakPrice, k.BasePrice), nil
	}
	if k.Prices == "" {
		return nil, fmt.Errorf("contract %s: no price file", k.Name)
	}
	series, err := load(k.Prices, k.PriceFormat)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", k.Name, err)
	}
	start := tariff.LocalMidnight(clock, first)
	switch {
	case series.Timed():
		if start, err = series.Start(clock.Loc); err != nil {
			return nil, fmt.Errorf("contract %s: %w", k.Name, err)
		}
	case k.SeriesStart != "":
		if start, err = tariff.ParseLocal(k.SeriesStart, clock.Loc); err != nil {
			return nil, fmt.Errorf("contract %s: start %q: %w", k.Name, k.SeriesStart, err)
		}
	}
	return tariff.Hourly(clock, series.Scaled(k.PriceScale), start), nil
}

// priceSteps walks a tariff's price changes over [from, to]: times,
// prices and tariff periods of a step function. It stops after maxSteps
// changes (a price that changes every second for years is drawn only so
// far).
func priceSteps(t tariff.Tariff, from, to float64) (ts, ps []float64, periods []int) {
	const maxSteps = 1 << 20
	x := from
	for range maxSteps {
		p, period, next := t.At(x)
		ts, ps, periods = append(ts, x), append(ps, p), append(periods, period)
		if !(next > x) || next >= to {
			break
		}
		x = next
	}
	return ts, ps, periods
}
