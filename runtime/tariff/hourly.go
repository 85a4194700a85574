package tariff

import (
	"math"
	"time"
)

// Series is a sequence of hourly prices; Prices[0] is the first hour.
type Series struct {
	Name   string
	Prices []float64
}

// hourly is immutable after construction, hence safe for concurrent use.
type hourly struct {
	start  float64   // sim time of hour 0
	prices []float64 // a private copy
	// runEnd[k] is the first index j > k with prices[j] != prices[k], or
	// len(prices): it lets At skip hours that do not change the price.
	runEnd []int32
}

// Hourly returns a tariff following s: series hour k covers
// [start + k h, start + (k+1) h). Before start the price of hour 0 applies;
// after the last hour the series repeats cyclically, and Horizon reports
// where the real data ends. Periods() = {"hourly"}.
//
// Hours are counted from a wall-clock instant, normally LocalMidnight of
// the trace's first day, not from the first job's submission as schedsim
// does (DESIGN §4.1, §8): market prices belong to clock hours, and counting
// from a submission at, say, 14:37 would shift a day/night series such as
// T3 by 14.6 hours against the jobs and make the cost depend on when the
// first job happened to arrive. Hours are real hours (3600 s), so a local
// day has 23 or 25 of them on DST-change days, as in day-ahead markets.
//
// Hourly copies s.Prices. With an empty series every price is NaN.
func Hourly(c Clock, s *Series, start time.Time) Tariff {
	h := &hourly{start: c.Sim(start)}
	if s == nil || len(s.Prices) == 0 {
		return h
	}
	n := len(s.Prices)
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	h.prices = append([]float64(nil), s.Prices[:n]...)
	h.runEnd = make([]int32, n)
	h.runEnd[n-1] = int32(n)
	for k := n - 2; k >= 0; k-- {
		if h.prices[k+1] != h.prices[k] {
			h.runEnd[k] = int32(k + 1)
		} else {
			h.runEnd[k] = h.runEnd[k+1]
		}
	}
	return h
}

func (h *hourly) Periods() []string { return []string{"hourly"} }

func (h *hourly) Horizon() float64 { return h.start + 3600*float64(len(h.prices)) }

func (h *hourly) At(t float64) (float64, int, float64) {
	n := int64(len(h.prices))
	if n == 0 || t != t {
		return math.NaN(), 0, inf
	}
	x := (t - h.start) / 3600
	if x < 0 {
		// Before the start the series is extended backwards with hour 0.
		return h.prices[0], 0, h.changeAfter(0, 0)
	}
	if x >= maxSim/3600 {
		return h.prices[0], 0, inf
	}
	k := int64(x)
	i, base := k, int64(0)
	if k >= n {
		i = k % n
		base = k - i
	}
	next := h.changeAfter(i, base)
	if next <= t { // only if t is so large that hours lose precision
		next = inf
	}
	return h.prices[i], 0, next
}

// changeAfter returns the sim time at which the price of series hour i of
// the cycle starting at absolute hour base next changes, or +Inf if it
// never does.
func (h *hourly) changeAfter(i, base int64) float64 {
	n := int64(len(h.prices))
	if r := int64(h.runEnd[i]); r < n {
		return h.start + 3600*float64(base+r)
	}
	// The run lasts to the end of the cycle; the next cycle starts at hour 0.
	switch {
	case h.prices[0] != h.prices[i]:
		return h.start + 3600*float64(base+n)
	case h.runEnd[0] < int32(n):
		return h.start + 3600*float64(base+n+int64(h.runEnd[0]))
	}
	return inf // constant series
}
