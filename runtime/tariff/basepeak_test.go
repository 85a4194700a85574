package tariff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	h        = 3600
	weekdays = 1<<time.Monday | 1<<time.Tuesday | 1<<time.Wednesday | 1<<time.Thursday | 1<<time.Friday
	pPeak    = 0.2113
	pBase    = 0.0871
)

func clockAt(t testing.TB, zone, local string) Clock {
	t.Helper()
	loc := mustLoad(t, zone)
	at, err := time.ParseInLocation("2006-01-02 15:04", local, loc)
	if err != nil {
		t.Fatal(err)
	}
	return Clock{Epoch: at.Unix(), Loc: loc}
}

// segments walks tf over [from, to) and returns the changes as
// "15:04 period" in local time (the first entry is the period at from).
func segments(c Clock, tf Tariff, from, to float64) (changes []string, dur map[string]float64) {
	dur = map[string]float64{}
	names := tf.Periods()
	for t := from; t < to; {
		_, per, next := tf.At(t)
		end := math.Min(next, to)
		dur[names[per]] += end - t
		changes = append(changes, c.Time(t).Format("Mon 15:04")+" "+names[per])
		t = end
	}
	return changes, dur
}

func TestFlat(t *testing.T) {
	f := Flat(0.14)
	for _, x := range []float64{-1e12, 0, 1, 1e12, math.Inf(1)} {
		p, per, next := f.At(x)
		if p != 0.14 || per != 0 || !math.IsInf(next, 1) {
			t.Errorf("At(%v) = %v, %v, %v", x, p, per, next)
		}
	}
	if p, _, next := f.At(math.NaN()); !math.IsNaN(p) || !math.IsInf(next, 1) {
		t.Errorf("At(NaN) = %v, next %v", p, next)
	}
	if got := f.Periods(); len(got) != 1 || got[0] != "flat" {
		t.Errorf("Periods() = %v", got)
	}
	if a, b := f.Span(); !math.IsInf(a, -1) || !math.IsInf(b, 1) {
		t.Errorf("Span() = %v, %v", a, b)
	}
}

func TestBasePeakDays(t *testing.T) {
	day := Window{From: 6 * h, To: 22 * h}
	night := Window{From: 22 * h, To: 6 * h}
	cases := []struct {
		name       string
		zone, date string // local date; the walk covers that local day
		wins       []Window
		peak, base float64 // hours of each period within the day
		changes    string
	}{
		{"ordinary", "Europe/Stockholm", "2024-03-20", []Window{day}, 16, 8,
			"Wed 00:00 base|Wed 06:00 peak|Wed 22:00 base"},
		{"utc", "UTC", "2024-03-31", []Window{day}, 16, 8,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"stockholm spring forward", "Europe/Stockholm", "2024-03-31", []Window{day}, 16, 7,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"stockholm fall back", "Europe/Stockholm", "2024-10-27", []Window{day}, 16, 9,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"pacific spring forward", "US/Pacific", "2024-03-10", []Window{day}, 16, 7,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"pacific fall back", "US/Pacific", "2024-11-03", []Window{day}, 16, 9,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"pacific 2007 (new US rules)", "US/Pacific", "2007-03-11", []Window{day}, 16, 7,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		{"mountain 1994 fall back", "US/Mountain", "1994-10-30", []Window{day}, 16, 9,
			"Sun 00:00 base|Sun 06:00 peak|Sun 22:00 base"},
		// The night window spans the DST change: its real length changes.
		{"night over spring forward", "Europe/Paris", "2024-03-31", []Window{night}, 7, 16,
			"Sun 00:00 peak|Sun 06:00 base|Sun 22:00 peak"},
		{"night over fall back", "Europe/Paris", "2024-10-27", []Window{night}, 9, 16,
			"Sun 00:00 peak|Sun 06:00 base|Sun 22:00 peak"},
		// Skipped clock times move later by the gap, in every zone.
		{"stockholm window in skipped hour", "Europe/Stockholm", "2024-03-31",
			[]Window{{From: 2*h + 15*60, To: 2*h + 45*60}}, 0.5, 22.5, "Sun 00:00 base|Sun 03:15 peak|Sun 03:45 base"},
		{"pacific window in skipped hour", "US/Pacific", "2024-03-10",
			[]Window{{From: 2*h + 15*60, To: 2*h + 45*60}}, 0.5, 22.5, "Sun 00:00 base|Sun 03:15 peak|Sun 03:45 base"},
		{"pacific window from 02:00", "US/Pacific", "2024-03-10",
			[]Window{{From: 2 * h, To: 6 * h}}, 3, 20, "Sun 00:00 base|Sun 03:00 peak|Sun 06:00 base"},
		{"pacific window to 02:00", "US/Pacific", "2024-03-10",
			[]Window{{From: 23 * h, To: 2 * h}}, 3, 20, "Sun 00:00 peak|Sun 03:00 base|Sun 23:00 peak"},
		// Repeated clock times take their first occurrence, in every zone.
		{"pacific window in repeated hour", "US/Pacific", "2024-11-03",
			[]Window{{From: 1 * h, To: 1*h + 30*60}}, 0.5, 24.5, "Sun 00:00 base|Sun 01:00 peak|Sun 01:30 base"},
		{"pacific window from repeated hour", "US/Pacific", "2024-11-03",
			[]Window{{From: 1*h + 30*60, To: 3 * h}}, 2.5, 22.5, "Sun 00:00 base|Sun 01:30 peak|Sun 03:00 base"},
		{"stockholm window from repeated hour", "Europe/Stockholm", "2024-10-27",
			[]Window{{From: 2*h + 30*60, To: 4 * h}}, 2.5, 22.5, "Sun 00:00 base|Sun 02:30 peak|Sun 04:00 base"},
		{"stockholm window to repeated hour", "Europe/Stockholm", "2024-10-27",
			[]Window{{From: 1 * h, To: 2*h + 30*60}}, 1.5, 23.5, "Sun 00:00 base|Sun 01:00 peak|Sun 02:30 base"},
		{"wrap", "Europe/Stockholm", "2024-03-20", []Window{{From: 23 * h, To: 1 * h}}, 2, 22,
			"Wed 00:00 peak|Wed 01:00 base|Wed 23:00 peak"},
		{"to midnight", "Europe/Stockholm", "2024-03-20", []Window{{From: 20 * h, To: 24 * h}}, 4, 20,
			"Wed 00:00 base|Wed 20:00 peak"},
		{"overlap merges", "Europe/Stockholm", "2024-03-20",
			[]Window{{From: 8 * h, To: 12 * h}, {From: 10 * h, To: 14 * h}, {From: 14 * h, To: 15 * h}, {From: 9 * h, To: 11 * h}}, 7, 17,
			"Wed 00:00 base|Wed 08:00 peak|Wed 15:00 base"},
		{"two windows", "Europe/Stockholm", "2024-03-20",
			[]Window{{From: 17 * h, To: 20 * h}, {From: 7 * h, To: 9*h + 30*60}}, 5.5, 18.5,
			"Wed 00:00 base|Wed 07:00 peak|Wed 09:30 base|Wed 17:00 peak|Wed 20:00 base"},
		{"weekday window on saturday", "Europe/Stockholm", "2024-03-23",
			[]Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, 0, 24, "Sat 00:00 base"},
		{"weekday window on friday", "Europe/Stockholm", "2024-03-22",
			[]Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, 16, 8,
			"Fri 00:00 base|Fri 06:00 peak|Fri 22:00 base"},
		// A wrapping window belongs to the weekday it starts on.
		{"friday night on saturday", "Europe/Stockholm", "2024-03-23",
			[]Window{{From: 22 * h, To: 6 * h, Days: 1 << time.Friday}}, 6, 18,
			"Sat 00:00 peak|Sat 06:00 base"},
		{"friday night on friday", "Europe/Stockholm", "2024-03-22",
			[]Window{{From: 22 * h, To: 6 * h, Days: 1 << time.Friday}}, 2, 22,
			"Fri 00:00 base|Fri 22:00 peak"},
		{"friday night on thursday", "Europe/Stockholm", "2024-03-21",
			[]Window{{From: 22 * h, To: 6 * h, Days: 1 << time.Friday}}, 0, 24, "Thu 00:00 base"},
		// Zhou et al.: off-peak 23:00-09:00, i.e. peak 09:00-23:00.
		{"zhou", "US/Central", "2024-11-03", []Window{{From: 9 * h, To: 23 * h}}, 14, 11,
			"Sun 00:00 base|Sun 09:00 peak|Sun 23:00 base"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clockAt(t, tc.zone, tc.date+" 00:00")
			tf := BasePeak(c, tc.wins, pPeak, pBase)
			end := c.Sim(LocalMidnight(c, 30*h))
			changes, dur := segments(c, tf, 0, end)
			if got := strings.Join(changes, "|"); got != tc.changes {
				t.Errorf("changes %s\n           want %s", got, tc.changes)
			}
			if dur["peak"] != tc.peak*h || dur["base"] != tc.base*h {
				t.Errorf("peak %v h, base %v h; want %v, %v", dur["peak"]/h, dur["base"]/h, tc.peak, tc.base)
			}
			// The same day walked from a week earlier (another cache state).
			_, _, _ = tf.At(-7 * 86400)
			if _, dur2 := segments(c, tf, 0, end); dur2["peak"] != dur["peak"] {
				t.Errorf("walk depends on the cache: %v vs %v", dur2, dur)
			}
		})
	}
}

func TestBasePeakNext(t *testing.T) {
	c := clockAt(t, "Europe/Stockholm", "2024-03-22 00:00") // a Friday
	at := func(local string) float64 {
		w, err := time.ParseInLocation("2006-01-02 15:04", local, c.Loc)
		if err != nil {
			t.Fatal(err)
		}
		return c.Sim(w)
	}
	cases := []struct {
		name      string
		wins      []Window
		at        string
		period    int
		nextLocal string
	}{
		// A wrapping window does not change at midnight.
		{"night", []Window{{From: 22 * h, To: 6 * h}}, "2024-03-22 23:00", Peak, "2024-03-23 06:00"},
		// Over a weekend the base period runs from Friday to Monday.
		{"weekend", []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, "2024-03-22 23:00", Base, "2024-03-25 06:00"},
		{"weekend saturday", []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, "2024-03-23 12:00", Base, "2024-03-25 06:00"},
		// Windows that chain across midnight merge into one peak period.
		{"chain", []Window{{From: 20 * h, To: 24 * h}, {From: 0, To: 2 * h}}, "2024-03-22 21:00", Peak, "2024-03-23 02:00"},
		// Once a week: the next change is six days and 16 hours away.
		{"weekly", []Window{{From: 6 * h, To: 22 * h, Days: 1 << time.Monday}}, "2024-03-18 22:00", Base, "2024-03-25 06:00"},
		// Across the DST change (2024-03-31): Sunday 22:00 CET to Monday 06:00 CEST.
		{"over dst", []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}, "2024-03-29 23:00", Base, "2024-04-01 06:00"},
		{"at boundary", []Window{{From: 6 * h, To: 22 * h}}, "2024-03-22 06:00", Peak, "2024-03-22 22:00"},
	}
	for _, tc := range cases {
		tf := BasePeak(c, tc.wins, pPeak, pBase)
		x := at(tc.at)
		p, per, next := tf.At(x)
		want := at(tc.nextLocal)
		if per != tc.period || next != want || p != [2]float64{pPeak, pBase}[per] {
			t.Errorf("%s: At(%s) = %v, %v, %v; want period %v, next %s (%v)",
				tc.name, tc.at, p, per, c.Time(next), tc.period, tc.nextLocal, want)
		}
	}
}

func TestBasePeakConstant(t *testing.T) {
	c := clockAt(t, "Europe/Stockholm", "2024-03-22 00:00")
	cases := []struct {
		name   string
		wins   []Window
		period int
	}{
		{"no windows", nil, Base},
		{"all day", []Window{{From: 0, To: 24 * h}}, Peak},
		{"day and night", []Window{{From: 6 * h, To: 22 * h}, {From: 22 * h, To: 6 * h}}, Peak},
		{"per weekday", []Window{{From: 0, To: 24 * h, Days: weekdays}, {From: 0, To: 24 * h, Days: 1<<time.Saturday | 1<<time.Sunday}}, Peak},
	}
	for _, tc := range cases {
		tf := BasePeak(c, tc.wins, pPeak, pBase)
		for _, x := range []float64{-1e9, 0, 12345, 1e9} {
			if _, per, next := tf.At(x); per != tc.period || !math.IsInf(next, 1) {
				t.Errorf("%s: At(%v) = period %v, next %v", tc.name, x, per, next)
			}
		}
	}
	// Not constant: a gap on Sundays only.
	tf := BasePeak(c, []Window{{From: 0, To: 24 * h, Days: 0x7f &^ (1 << time.Sunday)}}, pPeak, pBase)
	if _, _, next := tf.At(0); math.IsInf(next, 1) {
		t.Error("six-day peak reported as constant")
	}
}

func TestWindowValidate(t *testing.T) {
	good := []Window{{0, 1, 0}, {0, 86400, 0}, {86399, 0, 0}, {22 * h, 6 * h, weekdays}, {1, 2, 0x7f}}
	for _, w := range good {
		if err := w.Validate(); err != nil {
			t.Errorf("%+v: %v", w, err)
		}
	}
	bad := map[Window]string{
		{-1, 5, 0}:        "start -1 s",
		{86400, 5, 0}:     "start 86400 s",
		{5, 86401, 0}:     "end 86401 s",
		{5, -3, 0}:        "end -3 s",
		{6 * h, 6 * h, 0}: "06:00..06:00 is empty",
		{1, 2, 0x80}:      "bit 7",
	}
	for w, want := range bad {
		err := w.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want %q", w, err, want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "window 1") {
			t.Errorf("BasePeak with a bad window: recover() = %v", r)
		}
	}()
	BasePeak(Clock{}, []Window{{1, 2, 0}, {3, 3, 0}}, 1, 1)
}

// oraclePeak decides the period at t straight from the definition: some
// window started on t's local date or a neighbouring one contains t. (A
// window edge in a skipped hour just after midnight can move into the
// previous date, hence the day after.)
func oraclePeak(c Clock, wins []Window, t float64) bool {
	w := c.Time(t)
	y, m, d := w.Date()
	loc := w.Location()
	for k := -1; k <= 1; k++ {
		noon := time.Date(y, m, d+k, 12, 0, 0, 0, loc)
		ay, am, ad := noon.Date()
		for _, win := range wins {
			if win.Days != 0 && win.Days&(1<<noon.Weekday()) == 0 {
				continue
			}
			a := clockTime(ay, am, ad, win.From, loc)
			b := clockTime(ay, am, ad, win.To, loc)
			if win.To < win.From {
				b = clockTime(ay, am, ad+1, win.To, loc)
			}
			if c.Sim(a) <= t && t < c.Sim(b) {
				return true
			}
		}
	}
	return false
}

func randomWindows(r *rand.Rand) []Window {
	var wins []Window
	for range 1 + r.IntN(3) {
		from := 60 * r.IntN(1440)
		to := 60 * r.IntN(1441)
		if to == from {
			to = (from + 3600) % 86400
		}
		var days uint8
		if r.IntN(2) == 0 {
			days = uint8(r.IntN(128))
		}
		wins = append(wins, Window{From: from, To: to, Days: days})
	}
	return wins
}

// TestBasePeakOracle checks At against the definition at random times, in
// zones with DST (some changing clocks at midnight), for random windows.
func TestBasePeakOracle(t *testing.T) {
	zones := []string{"Europe/Stockholm", "Europe/Paris", "US/Pacific", "US/Mountain",
		"America/Havana", "America/Sao_Paulo", "Australia/Lord_Howe", "Asia/Tehran", "UTC"}
	r := rand.New(rand.NewPCG(1, 2))
	for _, zone := range zones {
		loc := mustLoad(t, zone)
		for range 20 {
			c := Clock{Epoch: 700_000_000 + r.Int64N(900_000_000), Loc: loc}
			wins := randomWindows(r)
			tf := BasePeak(c, wins, pPeak, pBase)
			x := r.Float64() * 1e7
			for range 300 {
				// Mostly forward, sometimes back: exercises the cache.
				switch r.IntN(10) {
				case 0:
					x -= r.Float64() * 3e6
				case 1:
					x += r.Float64() * 3e6
				default:
					x += r.Float64() * 20 * h
				}
				p, per, next := tf.At(x)
				want := Base
				if oraclePeak(c, wins, x) {
					want = Peak
				}
				if per != want || p != [2]float64{pPeak, pBase}[per] {
					t.Fatalf("%s %+v: At(%v = %v) = period %v, want %v", zone, wins, x, c.Time(x), per, want)
				}
				if !(next > x) {
					t.Fatalf("%s %+v: At(%v): next %v <= t", zone, wins, x, next)
				}
				if math.IsInf(next, 1) {
					continue
				}
				// Constant up to next, and next is a real change.
				before := math.Nextafter(next, math.Inf(-1))
				if _, p2, _ := tf.At(before); p2 != per || oraclePeak(c, wins, before) != (per == Peak) {
					t.Fatalf("%s %+v: period changes before next %v (t=%v)", zone, wins, c.Time(next), c.Time(x))
				}
				if oraclePeak(c, wins, next) == (per == Peak) {
					t.Fatalf("%s %+v: no change at next %v (t=%v)", zone, wins, c.Time(next), c.Time(x))
				}
			}
		}
	}
}

// walkIntegral integrates tf's price over [from, to) by walking segments.
func walkIntegral(tf Tariff, from, to float64) (sum float64, calls int) {
	for t := from; t < to; calls++ {
		p, _, next := tf.At(t)
		end := math.Min(next, to)
		sum += p * (end - t)
		t = end
	}
	return sum, calls
}

// minuteIntegral integrates by sampling the middle of every wall-clock
// minute; exact when every price change falls on a whole minute.
func minuteIntegral(tf Tariff, from, to float64) float64 {
	sum := 0.0
	for t := from; t < to; t += 60 {
		p, _, _ := tf.At(t + 30)
		sum += p * 60
	}
	return sum
}

func TestBasePeakIntegralYear(t *testing.T) {
	cases := []struct {
		zone  string
		epoch int64
		wins  []Window
	}{
		{"Europe/Stockholm", 1027839845, []Window{{From: 6 * h, To: 22 * h}}},                                                       // HPC2N
		{"US/Pacific", 956700003, []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}},                                              // SDSC-BLUE
		{"Europe/Paris", 1296571124, []Window{{From: 23 * h, To: 9 * h}, {From: 12 * h, To: 13*h + 30*60, Days: 1 << time.Sunday}}}, // Curie
		{"US/Mountain", 781275672, []Window{{From: 7 * h, To: 11 * h}, {From: 17 * h, To: 21 * h, Days: weekdays}}},                 // LANL
	}
	for _, tc := range cases {
		c := Clock{Epoch: tc.epoch, Loc: mustLoad(t, tc.zone)}
		tf := BasePeak(c, tc.wins, pPeak, pBase)
		// Start on a wall-clock minute so the per-minute grid is aligned.
		from := c.Sim(LocalMidnight(c, 0))
		to := from + 365*86400
		walk, calls := walkIntegral(tf, from, to)
		brute := minuteIntegral(BasePeak(c, tc.wins, pPeak, pBase), from, to)
		if rel := math.Abs(walk-brute) / brute; rel > 1e-9 {
			t.Errorf("%s: walk %v (%d segments), per-minute %v: rel. diff %g", tc.zone, walk, calls, brute, rel)
		}
	}
}

// TestBasePeakConcurrent shares one tariff between goroutines walking
// different years (run with -race).
func TestBasePeakConcurrent(t *testing.T) {
	c := Clock{Epoch: 1027839845, Loc: mustLoad(t, "Europe/Stockholm")}
	wins := []Window{{From: 6 * h, To: 22 * h, Days: weekdays}}
	shared := BasePeak(c, wins, pPeak, pBase)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			from := float64(g) * 365 * 86400
			got, _ := walkIntegral(shared, from, from+365*86400)
			want, _ := walkIntegral(BasePeak(c, wins, pPeak, pBase), from, from+365*86400)
			if got != want {
				t.Errorf("goroutine %d: %v, alone %v", g, got, want)
			}
		})
	}
	wg.Wait()
}

func TestBasePeakExtremes(t *testing.T) {
	tf := BasePeak(Clock{Loc: mustLoad(t, "Europe/Paris")}, []Window{{From: 6 * h, To: 22 * h}}, pPeak, pBase)
	for _, x := range []float64{math.Inf(1), math.Inf(-1), 1e300, -1e300, 1e15, -1e15, 9.99e14} {
		p, _, next := tf.At(x)
		if !(next > x || math.IsInf(x, 1) && math.IsInf(next, 1)) || math.IsNaN(p) {
			t.Errorf("At(%v) = %v, next %v", x, p, next)
		}
	}
	if p, _, next := tf.At(math.NaN()); !math.IsNaN(p) || !math.IsInf(next, 1) {
		t.Errorf("At(NaN) = %v, next %v", p, next)
	}
	if got := tf.Periods(); len(got) != 2 || got[Peak] != "peak" || got[Base] != "base" {
		t.Errorf("Periods() = %v", got)
	}
	if a, b := tf.Span(); !math.IsInf(a, -1) || !math.IsInf(b, 1) {
		t.Errorf("Span() = %v, %v", a, b)
	}
}
