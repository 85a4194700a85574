package tariff

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

const daySeconds = 86400

// Window is a daily peak window in local clock time. From and To are
// seconds after local midnight; To < From wraps midnight (22:00..06:00
// ends at 06:00 the next day), To = 86400 ends at the next midnight.
// On DST-change days a window keeps its clock-time boundaries, so its real
// length changes; a boundary in the skipped hour moves later by the gap (a
// window 02:00..06:00 starts at 03:00) and one in the repeated hour takes
// its first occurrence.
type Window struct {
	From, To int
	// Days is a bitmask of time.Weekday (1<<time.Monday | ...) selecting the
	// local weekdays on which the window starts; 0 means every day. A
	// wrapping window set for Friday runs Friday 22:00 to Saturday 06:00.
	Days uint8
}

// Validate reports why w cannot be used; BasePeak requires valid windows.
func (w Window) Validate() error {
	switch {
	case w.From < 0 || w.From >= daySeconds:
		return fmt.Errorf("window start %d s is outside a day (0 <= from < 86400)", w.From)
	case w.To < 0 || w.To > daySeconds:
		return fmt.Errorf("window end %d s is outside a day (0 <= to <= 86400)", w.To)
	case w.From == w.To:
		return fmt.Errorf("window %s..%s is empty", clockString(w.From), clockString(w.To))
	case w.Days&0x80 != 0:
		return fmt.Errorf("window day mask %#x has bit 7 set, which is not a weekday", w.Days)
	}
	return nil
}

func clockString(s int) string {
	if s%60 != 0 {
		return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/3600, s/60%60)
}

func (w Window) on(wd time.Weekday) bool { return w.Days == 0 || w.Days&(1<<wd) != 0 }

// Period indices of a base/peak tariff.
const (
	Peak = 0
	Base = 1
)

// basePeak answers At from a cached chunk of merged peak intervals covering
// a week. Recomputing a chunk costs a few time.Date calls per window and
// day, so a walk over a year recomputes 53 times; the chunk is immutable
// and swapped atomically, which keeps a shared tariff safe for concurrent
// runs (they may evict each other's chunk, costing speed, not correctness).
type basePeak struct {
	c        Clock
	wins     []Window
	price    [2]float64
	constant int // Peak or Base if the period never changes, else -1
	cache    atomic.Pointer[bpChunk]
}

// bpChunk holds the peak intervals around [lo, hi). For t in [lo, hi) the
// intervals are exact up to exact, so every interval end below exact is a
// true change; exact itself is returned as next only when the period does
// not change for more than a week (a harmless extra boundary).
type bpChunk struct {
	lo, hi, exact float64
	iv            []float64 // a0, b0, a1, b1, ...: sorted, disjoint, non-touching
}

// BasePeak returns a tariff charging peakPrice inside the peak windows and
// basePrice elsewhere; Periods() = {"peak", "base"}. Windows are evaluated in
// c's local time, DST included; overlapping or touching windows merge into
// one peak period. BasePeak panics if a window fails Validate (callers
// validate user input first).
func BasePeak(c Clock, peak []Window, peakPrice, basePrice float64) Tariff {
	bp := &basePeak{c: c, price: [2]float64{peakPrice, basePrice}, constant: -1}
	for i, w := range peak {
		if err := w.Validate(); err != nil {
			panic(fmt.Sprintf("tariff.BasePeak: window %d: %v", i, err))
		}
		bp.wins = append(bp.wins, w)
	}
	switch {
	case len(bp.wins) == 0:
		bp.constant = Base
	case coversWeek(bp.wins):
		bp.constant = Peak
	}
	return bp
}

// coversWeek reports whether the windows cover every clock second of every
// weekday, i.e. the tariff is peak forever. Clock coverage implies real-time
// coverage on DST days too, since touching clock times map to one instant.
func coversWeek(wins []Window) bool {
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		var iv [][2]int
		for _, w := range wins {
			if w.on(wd) {
				if w.From < w.To {
					iv = append(iv, [2]int{w.From, w.To})
				} else {
					iv = append(iv, [2]int{w.From, daySeconds})
				}
			}
			if w.To < w.From && w.on((wd+6)%7) {
				iv = append(iv, [2]int{0, w.To})
			}
		}
		slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
		end := 0
		for _, x := range iv {
			if x[0] > end {
				break
			}
			end = max(end, x[1])
		}
		if end < daySeconds {
			return false
		}
	}
	return true
}

func (bp *basePeak) Periods() []string        { return []string{"peak", "base"} }
func (bp *basePeak) Span() (float64, float64) { return -inf, inf }

// fork returns a copy with a cache of its own, for a walk at other times
// than the engine's (a trailing mean) that must not evict its chunk.
func (bp *basePeak) fork() Tariff {
	return &basePeak{c: bp.c, wins: bp.wins, price: bp.price, constant: bp.constant}
}

func (bp *basePeak) At(t float64) (float64, int, float64) {
	switch {
	case t != t:
		return math.NaN(), Base, inf
	case bp.constant >= 0:
		return bp.price[bp.constant], bp.constant, inf
	case t >= maxSim:
		return bp.price[Base], Base, inf
	case t < -maxSim:
		return bp.price[Base], Base, -maxSim
	}
	ch := bp.cache.Load()
	if ch == nil || t < ch.lo || t >= ch.hi {
		ch = bp.chunk(t)
		bp.cache.Store(ch)
	}
	// First interval ending after t.
	iv := ch.iv
	lo, hi := 0, len(iv)/2
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if iv[2*m+1] > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(iv)/2 {
		return bp.price[Base], Base, ch.exact
	}
	if a := iv[2*lo]; a > t {
		return bp.price[Base], Base, a
	}
	return bp.price[Peak], Peak, iv[2*lo+1]
}

// chunk computes the peak intervals for the local week starting on t's
// local date D: windows anchored on D-1 (which may wrap into D) to D+14,
// making intervals exact up to the start of D+15.
func (bp *basePeak) chunk(t float64) *bpChunk {
	w := bp.c.Time(t)
	loc := w.Location()
	y, m, d := w.Date()
	ch := &bpChunk{
		lo:    min(bp.c.Sim(startOfDay(w)), t),
		hi:    bp.c.Sim(startOfDay(time.Date(y, m, d+7, 12, 0, 0, 0, loc))),
		exact: bp.c.Sim(startOfDay(time.Date(y, m, d+15, 12, 0, 0, 0, loc))),
	}
	if !(ch.hi > t) { // unreachable for sane zones; keeps the walk moving
		ch.hi = math.Nextafter(t, inf)
	}
	ch.exact = max(ch.exact, ch.hi)

	iv := make([][2]float64, 0, 16*len(bp.wins))
	for k := -1; k <= 14; k++ {
		// Noon is never skipped by DST, so it names the date and weekday.
		noon := time.Date(y, m, d+k, 12, 0, 0, 0, loc)
		ay, am, ad := noon.Date()
		wd := noon.Weekday()
		for _, win := range bp.wins {
			if !win.on(wd) {
				continue
			}
			a := bp.c.Sim(clockTime(ay, am, ad, win.From, loc))
			var b float64
			if win.From < win.To {
				b = bp.c.Sim(clockTime(ay, am, ad, win.To, loc))
			} else {
				b = bp.c.Sim(clockTime(ay, am, ad+1, win.To, loc))
			}
			if a < b && a < ch.exact {
				iv = append(iv, [2]float64{a, min(b, ch.exact)})
			}
		}
	}
	slices.SortFunc(iv, func(p, q [2]float64) int {
		switch {
		case p[0] < q[0]:
			return -1
		case p[0] > q[0]:
			return 1
		}
		return 0
	})
	ch.iv = make([]float64, 0, 2*len(iv))
	for _, x := range iv {
		if n := len(ch.iv); n > 0 && x[0] <= ch.iv[n-1] {
			ch.iv[n-1] = max(ch.iv[n-1], x[1])
			continue
		}
		ch.iv = append(ch.iv, x[0], x[1])
	}
	return ch
}
