package tariff

import (
	"math"
	"strings"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestLoadLocation(t *testing.T) {
	// The zones of the Parallel Workloads Archive traces we use, plus names
	// scenarios are likely to give.
	for _, name := range []string{
		"Europe/Stockholm", "Europe/Paris", "US/Pacific", "US/Mountain",
		"US/Eastern", "US/Central", "Israel", "America/Los_Angeles",
		"Europe/Berlin", "UTC", " Europe/Paris ",
	} {
		loc, err := LoadLocation(name)
		if err != nil {
			t.Errorf("LoadLocation(%q): %v", name, err)
			continue
		}
		if loc == nil {
			t.Errorf("LoadLocation(%q) = nil", name)
		}
	}
	for _, name := range []string{"", "Local", "Mars/Olympus", "../etc/passwd", "US/Nowhere"} {
		if loc, err := LoadLocation(name); err == nil {
			t.Errorf("LoadLocation(%q) = %v, want error", name, loc)
		}
	}
	// The legacy name and the canonical one must agree (same rules).
	a, b := mustLoad(t, "US/Pacific"), mustLoad(t, "America/Los_Angeles")
	for _, u := range []int64{749458803, 956700003, 1170175078, 1710064800} {
		_, oa := time.Unix(u, 0).In(a).Zone()
		_, ob := time.Unix(u, 0).In(b).Zone()
		if oa != ob {
			t.Errorf("offset at %d: US/Pacific %d, America/Los_Angeles %d", u, oa, ob)
		}
	}
}

func TestClock(t *testing.T) {
	sto := mustLoad(t, "Europe/Stockholm")
	c := Clock{Epoch: 1027839845, Loc: sto} // HPC2N's UnixStartTime
	if got := c.Time(0); got.Unix() != 1027839845 || got.Location() != sto {
		t.Errorf("Time(0) = %v", got)
	}
	for _, s := range []float64{0, 1, -1, 86399, 1e8, -1e8, 0.5, 12.25, 1e9 + 0.125} {
		if got := c.Sim(c.Time(s)); got != s {
			t.Errorf("Sim(Time(%v)) = %v", s, got)
		}
	}
	if got := (Clock{}).Time(3600); got.Location() != time.UTC || got.Unix() != 3600 {
		t.Errorf("zero Clock: Time(3600) = %v", got)
	}
	// Rounding of the fraction must carry into the seconds.
	if got := (Clock{}).Time(0.9999999999); got.Unix() != 1 || got.Nanosecond() != 0 {
		t.Errorf("Time(0.9999999999) = %v", got)
	}
	// Absurd inputs are clamped, not panics.
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300} {
		_ = c.Time(s)
		_ = LocalMidnight(c, s)
	}
}

func TestLocalMidnight(t *testing.T) {
	cases := []struct {
		zone, at  string // at: a local time on the day
		wantHours float64
		wantStart string // local clock of the first instant of the day
	}{
		{"Europe/Stockholm", "2024-03-30 12:00", 24, "00:00"},
		{"Europe/Stockholm", "2024-03-31 12:00", 23, "00:00"}, // spring forward
		{"Europe/Stockholm", "2024-10-27 12:00", 25, "00:00"}, // fall back
		{"US/Pacific", "2024-03-10 23:59", 23, "00:00"},
		{"US/Pacific", "2024-11-03 00:30", 25, "00:00"},
		{"US/Mountain", "1994-10-30 05:00", 25, "00:00"},
		// Havana changes its clocks at midnight: 00:00 does not exist on
		// 2023-03-12 (day starts 01:00) and occurs twice on 2023-11-05.
		{"America/Havana", "2023-03-12 12:00", 23, "01:00"},
		{"America/Havana", "2023-11-05 00:30", 25, "00:00"},
		{"America/Havana", "2023-11-05 23:00", 25, "00:00"},
		{"America/Sao_Paulo", "2018-11-04 12:00", 23, "01:00"},
		{"UTC", "2024-03-31 12:00", 24, "00:00"},
	}
	for _, tc := range cases {
		loc := mustLoad(t, tc.zone)
		at, err := time.ParseInLocation("2006-01-02 15:04", tc.at, loc)
		if err != nil {
			t.Fatal(err)
		}
		c := Clock{Epoch: at.Unix() - 12345, Loc: loc}
		m := LocalMidnight(c, 12345)
		if got := m.Format("15:04"); got != tc.wantStart || m.Format("2006-01-02") != tc.at[:10] {
			t.Errorf("%s %s: LocalMidnight = %v, want %s %s", tc.zone, tc.at, m, tc.at[:10], tc.wantStart)
		}
		if prev := m.Add(-time.Second); prev.Format("2006-01-02") == tc.at[:10] {
			t.Errorf("%s %s: %v is still on the same day", tc.zone, tc.at, prev)
		}
		next := LocalMidnight(c, c.Sim(m)+30*3600)
		if h := next.Sub(m).Hours(); h != tc.wantHours {
			t.Errorf("%s %s: day lasts %v h, want %v", tc.zone, tc.at, h, tc.wantHours)
		}
	}
}

func TestLoadLocationErrorMessage(t *testing.T) {
	_, err := LoadLocation("Mars/Olympus")
	if err == nil || !strings.Contains(err.Error(), `"Mars/Olympus"`) {
		t.Errorf("error %v does not name the zone", err)
	}
}

func TestClockTime(t *testing.T) {
	cases := []struct {
		zone, date string
		sec        int
		want       string // RFC 3339 in the zone
	}{
		{"Europe/Stockholm", "2024-03-31", 6 * 3600, "2024-03-31T06:00:00+02:00"},
		{"Europe/Stockholm", "2024-03-31", 2*3600 + 1800, "2024-03-31T03:30:00+02:00"}, // skipped
		{"Europe/Stockholm", "2024-03-31", 2 * 3600, "2024-03-31T03:00:00+02:00"},
		{"Europe/Stockholm", "2024-03-31", 3 * 3600, "2024-03-31T03:00:00+02:00"},
		{"Europe/Stockholm", "2024-10-27", 2*3600 + 1800, "2024-10-27T02:30:00+02:00"}, // repeated
		{"Europe/Stockholm", "2024-10-27", 3 * 3600, "2024-10-27T03:00:00+01:00"},
		{"US/Pacific", "2024-03-10", 2*3600 + 1800, "2024-03-10T03:30:00-07:00"},
		{"US/Pacific", "2024-03-10", 2 * 3600, "2024-03-10T03:00:00-07:00"},
		{"US/Pacific", "2024-11-03", 1*3600 + 1800, "2024-11-03T01:30:00-07:00"},
		{"US/Pacific", "2024-11-03", 2 * 3600, "2024-11-03T02:00:00-08:00"},
		{"US/Pacific", "2024-11-03", 86400, "2024-11-04T00:00:00-08:00"},
		{"America/Havana", "2023-03-12", 0, "2023-03-12T01:00:00-04:00"},
		{"America/Havana", "2023-11-05", 0, "2023-11-05T00:00:00-04:00"},
		{"Australia/Lord_Howe", "2024-10-06", 2*3600 + 10*60, "2024-10-06T02:40:00+11:00"}, // 30-min gap
		{"UTC", "2024-03-31", 90000, "2024-04-01T01:00:00Z"},
	}
	for _, tc := range cases {
		loc := mustLoad(t, tc.zone)
		d, _ := time.Parse("2006-01-02", tc.date)
		got := clockTime(d.Year(), d.Month(), d.Day(), tc.sec, loc).Format(time.RFC3339)
		if got != tc.want {
			t.Errorf("%s %s +%ds = %s, want %s", tc.zone, tc.date, tc.sec, got, tc.want)
		}
	}
}

func TestParseLocal(t *testing.T) {
	berlin := mustLoad(t, "Europe/Berlin")
	for _, tc := range []struct{ in, want string }{
		{"2017-01-01T00:00:00", "2016-12-31T23:00:00Z"},
		{"2017-03-26T02:30:00", "2017-03-26T01:30:00Z"}, // skipped: moved later by the gap (03:30 CEST)
		{"2017-10-29T02:30:00", "2017-10-29T00:30:00Z"}, // repeated: the first occurrence (CEST)
	} {
		got, err := ParseLocal(tc.in, berlin)
		if err != nil || got.UTC().Format(time.RFC3339) != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.in, got.UTC(), err, tc.want)
		}
	}
	if got, err := ParseLocal("2017-01-01T05:00:00", nil); err != nil || got.Unix() != 1483246800 {
		t.Errorf("nil zone: %v %v", got, err)
	}
	if _, err := ParseLocal("2017-02-30T00:00:00", berlin); err == nil {
		t.Error("no error for February 30")
	}
}
