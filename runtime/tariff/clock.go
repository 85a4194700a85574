package tariff

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// maxSim bounds the simulation times the package converts to wall-clock
// time (about 31 million years): beyond it float64 seconds lose sub-second
// resolution and int64 conversions would overflow.
const maxSim = 1e15

// Clock maps simulation seconds to wall-clock time.
type Clock struct {
	Epoch int64          // Unix seconds at simulation time 0
	Loc   *time.Location // local zone for peak windows and hour indexing; nil = UTC
}

func (c Clock) loc() *time.Location {
	if c.Loc == nil {
		return time.UTC
	}
	return c.Loc
}

// Time returns the wall-clock instant of sim time t, in c's zone.
// t is clamped to ±1e15 s; NaN maps to sim time 0.
func (c Clock) Time(t float64) time.Time {
	switch {
	case t != t:
		t = 0
	case t > maxSim:
		t = maxSim
	case t < -maxSim:
		t = -maxSim
	}
	sec := math.Floor(t)
	ns := int64(math.Round((t - sec) * 1e9))
	if ns >= 1e9 {
		sec++
		ns -= 1e9
	}
	return time.Unix(c.Epoch+int64(sec), ns).In(c.loc())
}

// Sim returns the sim time of wall-clock instant w; it is exact (an integer)
// for whole-second instants, which keeps price boundaries free of rounding.
func (c Clock) Sim(w time.Time) float64 {
	return float64(w.Unix()-c.Epoch) + float64(w.Nanosecond())*1e-9
}

// LocalMidnight returns the start of the local day containing sim time t:
// the first instant whose local date is t's. It is DST-correct, also in
// zones whose clocks change at midnight (then the day may start at 01:00).
// It is the default start of an hourly price series.
func LocalMidnight(c Clock, t float64) time.Time {
	return startOfDay(c.Time(t))
}

// startOfDay returns the first instant of w's local date.
func startOfDay(w time.Time) time.Time {
	y, m, d := w.Date()
	s := clockTime(y, m, d, 0, w.Location())
	if s.After(w) { // unreachable unless transitions crowd together
		return w
	}
	return s
}

// clockTime returns the instant at which clocks in loc show sec seconds
// after midnight of y-m-d (out-of-range values normalize as in time.Date).
// A clock time skipped by a DST change is shifted later by the gap, and a
// repeated one takes its first occurrence (RFC 5545, java.time, Python's
// fold=0). time.Date alone resolves both cases by the sign of the UTC
// offset: in Europe it moves 02:30 of the skipped hour to 03:30, in the US
// to 01:30, and it would put a window edge at 02:00 an hour early in US
// zones only.
func clockTime(y int, m time.Month, d, sec int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, sec, 0, loc)
	if loc == time.UTC {
		return t
	}
	wall := time.Date(y, m, d, 0, 0, sec, 0, time.UTC).Unix()
	start, end := t.ZoneBounds()
	_, off := t.Zone()
	offPrev, offNext := off, off
	if !start.IsZero() {
		_, offPrev = start.Add(-time.Second).Zone()
	}
	if !end.IsZero() {
		_, offNext = end.Zone()
	}
	// The earliest instant whose clock shows wall, among the offsets of t's
	// zone period and its neighbours.
	best, found := int64(0), false
	for _, o := range [3]int{offPrev, off, offNext} {
		u := wall - int64(o)
		if _, ou := time.Unix(u, 0).In(loc).Zone(); ou == o && (!found || u < best) {
			best, found = u, true
		}
	}
	if !found {
		// wall lies in a gap; use the offset in force before the gap.
		switch {
		case !end.IsZero() && wall >= end.Unix()+int64(off) && wall < end.Unix()+int64(offNext):
			best = wall - int64(off)
		case !start.IsZero() && wall >= start.Unix()+int64(offPrev) && wall < start.Unix()+int64(off):
			best = wall - int64(offPrev)
		default:
			return t
		}
	}
	return time.Unix(best, 0).In(loc)
}

// legacyZones maps the pre-1993 zone names found in SWF headers (Parallel
// Workloads Archive) to their canonical IANA names. The embedded database
// still carries them as links, but some distributions have moved them to
// optional packages (Debian's tzdata-legacy), so keep a fallback.
var legacyZones = map[string]string{
	"US/Alaska":   "America/Anchorage",
	"US/Arizona":  "America/Phoenix",
	"US/Central":  "America/Chicago",
	"US/Eastern":  "America/New_York",
	"US/Hawaii":   "Pacific/Honolulu",
	"US/Mountain": "America/Denver",
	"US/Pacific":  "America/Los_Angeles",
	"Israel":      "Asia/Jerusalem",
	"Japan":       "Asia/Tokyo",
	"GB":          "Europe/London",
	"Eire":        "Europe/Dublin",
}

// LoadLocation is time.LoadLocation for scenario and SWF zone names
// (e.g. "Europe/Stockholm", "US/Pacific", "UTC"). Surrounding blanks are
// ignored. "" and "Local" are rejected: results must not depend on the zone
// of the machine running the simulation.
func LoadLocation(name string) (*time.Location, error) {
	n := strings.TrimSpace(name)
	if n == "" || n == "Local" {
		return nil, fmt.Errorf("time zone %q: give an IANA zone name such as \"Europe/Paris\" or \"UTC\"", name)
	}
	loc, err := time.LoadLocation(n)
	if err == nil {
		return loc, nil
	}
	if alt, ok := legacyZones[n]; ok {
		if loc, err2 := time.LoadLocation(alt); err2 == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("unknown time zone %q", name)
}

// ParseLocal reads a local date and time, "2006-01-02T15:04:05", in loc
// (nil means UTC). A clock time skipped by a DST change moves later by the
// gap and a repeated one takes its first occurrence, as peak window edges
// do.
func ParseLocal(s string, loc *time.Location) (time.Time, error) {
	t, err := time.Parse("2006-01-02T15:04:05", s)
	if err != nil {
		return time.Time{}, err
	}
	if loc == nil {
		loc = time.UTC
	}
	return clockTime(t.Year(), t.Month(), t.Day(), t.Hour()*3600+t.Minute()*60+t.Second(), loc), nil
}
