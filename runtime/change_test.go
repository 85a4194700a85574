package runtime

import (
	"math"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// The instants at which the clock's fields change: the top of each local
// hour and each change of the zone's offset, and the first instant at
// which now.hour, now.seconds or now.day reach (or pass) a number.
func TestClockChanges(t *testing.T) {
	load := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Skip("no zone data:", err)
		}
		return loc
	}
	paris, kolkata := load("Europe/Paris"), load("Asia/Kolkata")
	at := func(loc *time.Location, s string) time.Time {
		w, err := time.ParseInLocation("2006-01-02 15:04:05", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, c := range []struct {
		name  string
		loc   *time.Location
		now   string
		edge  *ClockEdge // nil: the next hour
		want  string     // local wall time, or "" for never
		wantD float64    // or, if set, seconds after now
	}{
		{name: "next hour", loc: time.UTC, now: "2024-03-04 10:20:30", want: "2024-03-04 11:00:00"},
		{name: "next hour, a half hour off UTC", loc: kolkata, now: "2024-03-04 10:20:30", want: "2024-03-04 11:00:00"},
		{name: "next hour, clocks go forward", loc: paris, now: "2024-03-31 01:30:00", wantD: 1800},
		{name: "next hour, clocks go back", loc: paris, now: "2024-10-27 02:30:00", wantD: 1800},
		{name: "17:30 today", loc: time.UTC, now: "2024-03-04 10:00:00", edge: &ClockEdge{Field: ClockHour, Value: 17.5}, want: "2024-03-04 17:30:00"},
		{name: "17:30 tomorrow", loc: time.UTC, now: "2024-03-04 18:00:00", edge: &ClockEdge{Field: ClockHour, Value: 17.5}, want: "2024-03-05 17:30:00"},
		{name: "17:30 exactly: tomorrow", loc: time.UTC, now: "2024-03-04 17:30:00", edge: &ClockEdge{Field: ClockHour, Value: 17.5}, want: "2024-03-05 17:30:00"},
		{name: "past 17:30: a second later", loc: time.UTC, now: "2024-03-04 10:00:00", edge: &ClockEdge{Field: ClockHour, Value: 17.5, Strict: true}, want: "2024-03-04 17:30:01"},
		{name: "17:30 in India", loc: kolkata, now: "2024-03-04 10:00:00", edge: &ClockEdge{Field: ClockHour, Value: 17.5}, want: "2024-03-04 17:30:00"},
		{name: "hour 24: never", loc: time.UTC, now: "2024-03-04 10:00:00", edge: &ClockEdge{Field: ClockHour, Value: 24}},
		{name: "across a zone change: wake there first", loc: paris, now: "2024-03-30 20:00:00", edge: &ClockEdge{Field: ClockHour, Value: 5}, want: "2024-03-31 03:00:00"},
	} {
		clock := tariff.Clock{Epoch: at(c.loc, c.now).Unix() - 1000, Loc: c.loc}
		now := 1000.0
		var got float64
		if c.edge == nil {
			got = nextHour(clock, now)
		} else {
			got = edgeAt(clock, now, 0, *c.edge)
		}
		switch {
		case c.wantD > 0:
			if got-now != c.wantD {
				t.Errorf("%s: %g s later, want %g", c.name, got-now, c.wantD)
			}
		case c.want == "":
			if !math.IsInf(got, 1) {
				t.Errorf("%s: at %v, want never", c.name, clock.Time(got))
			}
		default:
			if w := clock.Time(got); !w.Equal(at(c.loc, c.want)) {
				t.Errorf("%s: at %v, want %s", c.name, w, c.want)
			}
		}
	}
	// Seconds and days: the first float64 instant at which the field
	// passes, as the rule environment computes it.
	clock := tariff.Clock{Loc: time.UTC}
	if got := edgeAt(clock, 0, 0, ClockEdge{Field: ClockSeconds, Value: 5000}); got != 5000 {
		t.Errorf("now.seconds >= 5000 at %v", got)
	}
	if got := edgeAt(clock, 0, 0, ClockEdge{Field: ClockSeconds, Value: 5000, Strict: true}); got != math.Nextafter(5000, 1e9) {
		t.Errorf("now.seconds > 5000 at %v", got)
	}
	if got := edgeAt(clock, 6000, 0, ClockEdge{Field: ClockSeconds, Value: 5000}); !math.IsInf(got, 1) {
		t.Errorf("now.seconds >= 5000, already past, at %v", got)
	}
	firstT := 100.0
	for _, v := range []float64{1.5, 0.1, 2.0 / 3} {
		got := edgeAt(clock, firstT, firstT, ClockEdge{Field: ClockDay, Value: v})
		day := func(x float64) float64 { return (x - firstT) / 86400 }
		if !(day(got) >= v) || day(math.Nextafter(got, 0)) >= v {
			t.Errorf("now.day >= %g: at %v, whose day is %v", v, got, day(got))
		}
	}
}
