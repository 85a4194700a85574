package tariff

import (
	"math"
	"time"
)

// hourly is immutable after construction, hence safe for concurrent use.
type hourly struct {
	start  float64   // sim time of hour 0
	prices []float64 // a private copy
	// runEnd[k] is the first index j > k with prices[j] != prices[k], or
	// len(prices): it lets At skip hours that do not change the price.
	runEnd []int32
	// prefix[k] is Σ prices[:k], compensated, so prefix[n] is the sum of
	// one cycle: integrals cost O(1).
	prefix []float64
}

// Hourly returns a tariff following s: series hour k covers
// [start + k h, start + (k+1) h). The series repeats cyclically in both
// directions: hour k outside the file takes the price of hour k mod n.
// Span reports where the real data is; callers decide whether a run may
// use the hours outside it. Periods() = {"hourly"}.
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
	h.prefix = make([]float64, n+1)
	var sum kahan
	for k, p := range h.prices {
		h.prefix[k] = sum.value()
		sum.add(p)
	}
	h.prefix[n] = sum.value()
	return h
}

func (h *hourly) Periods() []string { return []string{"hourly"} }

func (h *hourly) Span() (float64, float64) {
	return h.start, h.start + 3600*float64(len(h.prices))
}

// maxHours bounds the hour index At and integral compute (maxSim in hours).
const maxHours = maxSim / 3600

func (h *hourly) At(t float64) (float64, int, float64) {
	n := int64(len(h.prices))
	if n == 0 || t != t {
		return math.NaN(), 0, inf
	}
	x := (t - h.start) / 3600
	switch {
	case x >= maxHours:
		return h.prices[0], 0, inf
	case x < -maxHours:
		return h.prices[0], 0, h.start - maxSim // > t: the walk moves on
	}
	k := int64(math.Floor(x))
	i := k % n
	if i < 0 {
		i += n
	}
	next := h.changeAfter(i, k-i)
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

// integral is ∫ price dt over [a, b] for a < b, from the prefix sums: the
// whole cycles between a and b, the whole hours of a partial cycle, and
// the fractions of the first and last hours.
func (h *hourly) integral(a, b float64) float64 {
	n := len(h.prices)
	if n == 0 {
		return math.NaN()
	}
	ua, ub := (a-h.start)/3600, (b-h.start)/3600
	if math.Abs(ua) >= maxHours || math.Abs(ub) >= maxHours {
		return math.NaN()
	}
	qa, ka, fa := h.locate(ua)
	qb, kb, fb := h.locate(ub)
	// Σ over whole hours from (qa, ka) to (qb, kb), then the fractions.
	hours := float64(qb-qa)*h.prefix[n] + (h.prefix[kb] - h.prefix[ka])
	return 3600 * (hours + fb*h.prices[kb] - fa*h.prices[ka])
}

// locate splits u hours after the start into a cycle q, an hour k of the
// series and the fraction f of that hour: u = q·n + k + f.
func (h *hourly) locate(u float64) (q int64, k int, f float64) {
	n := int64(len(h.prices))
	abs := math.Floor(u)
	f = u - abs
	ka := int64(abs)
	i := ka % n
	if i < 0 {
		i += n
	}
	return (ka - i) / n, int(i), f
}
