package runtime

import (
	"math"
	"sort"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// When conditions change. A condition that reads the clock, the tariff or
// the carbon intensity can change its answer only at instants the engine
// computes: the tariff's changes of price and period, the changes of
// intensity, the top of each local hour (and each change of the local
// zone's offset), and the instants at which a clock field reaches a
// number the rule compares it with. Stages whose conditions read them
// wake at those instants, so that what depends on the clock acts at that
// instant, not at the next job event.

// condition is when a budget or a cap set for now applies: always, during
// the tariff's peak hours, or while a rule holds.
type condition struct {
	when  BudgetWhen
	while *Expr
}

// holds reports whether the condition holds now (a while rule reads the
// pass's environment, which the caller has set).
func (c condition) holds(s *sim) bool {
	switch c.when {
	case BudgetDuringPeak:
		_, period := s.led.Price()
		return period == s.peakIdx
	case BudgetWhile:
		return c.while.Bool(&s.env)
	}
	return true
}

// next is the next instant after now at which the condition may change:
// the tariff's next change for `during peak`, what a while rule reads
// (nextChange); +Inf for always.
func (c condition) next(s *sim) float64 {
	switch c.when {
	case BudgetDuringPeak:
		return s.led.NextPrice()
	case BudgetWhile:
		return s.nextChange(c.while)
	}
	return math.Inf(1)
}

// nextChange is the next instant after now at which rule e may change its
// answer, by what it reads of the clock, the tariff and the carbon
// intensity (+Inf: never, or only with the machine's state).
func (s *sim) nextChange(e *Expr) float64 {
	t := math.Inf(1)
	if e == nil {
		return t
	}
	if e.Deps&(DepPeak|DepPrice) != 0 {
		t = s.led.NextPrice()
	}
	if e.Deps&DepCarbon != 0 && s.carbon != nil {
		t = min(t, s.led.NextCarbon())
	}
	if e.Deps&DepNow != 0 {
		t = min(t, nextHour(s.clock, s.now))
	}
	for _, c := range e.Clock {
		t = min(t, edgeAt(s.clock, s.now, s.firstT, c))
	}
	return t
}

// nextHour is the next top of a local hour after now, or the next change
// of the local zone's offset if that comes first (a clock that goes back
// or jumps ahead changes now.hour and now.weekday there).
func nextHour(clock tariff.Clock, now float64) float64 {
	w := clock.Time(now)
	into := float64(w.Minute()*60+w.Second()) + float64(w.Nanosecond())/1e9
	t := now + 3600 - into
	if _, end := w.ZoneBounds(); !end.IsZero() {
		if z := clock.Sim(end); z > now && z < t {
			t = z
		}
	}
	return t
}

// hourOf is now.hour at k whole seconds after local midnight, as the
// rule environment computes it (setPassEnv).
func hourOf(k int) float64 {
	return float64(k/3600) + float64(k%3600/60)/60 + float64(k%60)/3600
}

// passes reports whether a clock field's value x has reached (strict:
// passed) v.
func (c ClockEdge) passes(x float64) bool {
	if c.Strict {
		return x > c.Value
	}
	return x >= c.Value
}

// edgeAt is the next instant after now at which clock edge c's field
// reaches (or passes) its value: exactly the first instant at which the
// rule environment's value of the field does, to the engine's resolution
// (whole seconds for now.hour, as the environment reads the local clock;
// float64 seconds for the others).
func edgeAt(clock tariff.Clock, now, firstT float64, c ClockEdge) float64 {
	switch c.Field {
	case ClockHour:
		// now.hour rises through the local day in whole seconds: the
		// first second of the day at which it passes, today or tomorrow.
		k := sort.Search(86400, func(k int) bool { return c.passes(hourOf(k)) })
		if k == 86400 {
			return math.Inf(1) // (24 or more: never)
		}
		w := clock.Time(now)
		tod := w.Hour()*3600 + w.Minute()*60 + w.Second()
		d := float64(k-tod) - float64(w.Nanosecond())/1e9
		if d <= 0 {
			d += 86400
		}
		t := now + d
		// A change of the zone's offset before then moves the local
		// clock: wake there and count again.
		if _, end := w.ZoneBounds(); !end.IsZero() {
			if z := clock.Sim(end); z > now && z < t {
				return z
			}
		}
		return t
	case ClockSeconds:
		return firstPassing(now, c, c.Value, func(t float64) float64 { return t })
	case ClockDay:
		return firstPassing(now, c, firstT+c.Value*86400, func(t float64) float64 { return (t - firstT) / 86400 })
	}
	return math.Inf(1)
}

// firstPassing is the first instant after now at which the rising field
// f passes edge c, searched from guess among the neighbouring float64
// instants (f is the environment's own arithmetic, whose rounding the
// guess does not know); +Inf if it has passed already.
func firstPassing(now float64, c ClockEdge, guess float64, f func(float64) float64) float64 {
	if c.passes(f(now)) || math.IsNaN(guess) || math.IsInf(guess, 0) {
		return math.Inf(1)
	}
	t := max(guess, math.Nextafter(now, math.Inf(1)))
	for i := 0; i < 64 && !c.passes(f(t)); i++ {
		t = math.Nextafter(t, math.Inf(1))
	}
	for i := 0; i < 64; i++ {
		p := math.Nextafter(t, math.Inf(-1))
		if p <= now || !c.passes(f(p)) {
			break
		}
		t = p
	}
	if !c.passes(f(t)) {
		return math.Inf(1) // (no float near the guess reaches it: not a number a clock can show)
	}
	return t
}
