package tariff

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestHourly(t *testing.T) {
	c := Clock{Epoch: 1_000_000, Loc: time.UTC}
	start := c.Time(7200) // hour 0 starts 2 h into the simulation
	s0 := 7200.0
	cases := []struct {
		name   string
		prices []float64
		at     float64
		price  float64
		next   float64
	}{
		{"before start: cyclic", []float64{1, 2, 3}, s0 - 0.5*h, 3, s0},
		{"two hours before start", []float64{1, 2, 3}, s0 - 2*h, 2, s0 - h},
		{"long before start", []float64{1, 2, 3}, s0 - 3e6*h - 1, 3, s0 - 3e6*h},
		{"at start", []float64{1, 2, 3}, s0, 1, s0 + h},
		{"inside hour 1", []float64{1, 2, 3}, s0 + 1.5*h, 2, s0 + 2*h},
		{"last hour wraps to hour 0", []float64{1, 2, 3}, s0 + 2*h, 3, s0 + 3*h},
		{"after end: cyclic", []float64{1, 2, 3}, s0 + 3*h, 1, s0 + 4*h},
		{"after end: cyclic 2", []float64{1, 2, 3}, s0 + 3007*h + 5, 2, s0 + 3008*h},
		{"equal hours merge", []float64{1, 1, 2, 2}, s0, 1, s0 + 2*h},
		{"equal hours merge, before start", []float64{1, 1, 2, 2}, s0 - 5, 2, s0},
		{"equal hours merge across the start", []float64{1, 1, 2, 1}, s0 - 5, 1, s0 + 2*h},
		{"equal run wraps", []float64{2, 1, 2}, s0 + 2*h, 2, s0 + 4*h},
		{"equal run wraps twice", []float64{2, 2, 1, 2, 2}, s0 + 3*h, 2, s0 + 7*h},
		{"constant", []float64{5, 5, 5}, s0 + 10*h, 5, math.Inf(1)},
		{"single", []float64{5}, s0 - 10*h, 5, math.Inf(1)},
		{"negative price", []float64{0.1, -0.02}, s0 + h, -0.02, s0 + 2*h},
	}
	for _, tc := range cases {
		tf := Hourly(c, &Series{Name: "x", Prices: tc.prices}, start)
		p, per, next := tf.At(tc.at)
		if p != tc.price || per != 0 || next != tc.next {
			t.Errorf("%s: At(%v) = %v, %v, %v; want %v, 0, %v", tc.name, tc.at, p, per, next, tc.price, tc.next)
		}
		if a, b := tf.Span(); a != s0 || b != s0+float64(len(tc.prices))*h {
			t.Errorf("%s: Span() = %v, %v", tc.name, a, b)
		}
	}
	tf := Hourly(c, &Series{Prices: []float64{1, 2}}, start)
	if got := tf.Periods(); len(got) != 1 || got[0] != "hourly" {
		t.Errorf("Periods() = %v", got)
	}
	for _, x := range []float64{math.Inf(1), 1e300, 1e15} {
		if p, _, next := tf.At(x); math.IsNaN(p) || !(next > x || math.IsInf(next, 1)) {
			t.Errorf("At(%v) = %v, next %v", x, p, next)
		}
	}
	if p, _, next := tf.At(math.NaN()); !math.IsNaN(p) || !math.IsInf(next, 1) {
		t.Errorf("At(NaN) = %v, next %v", p, next)
	}
}

func TestHourlyCopiesPrices(t *testing.T) {
	s := &Series{Prices: []float64{1, 2}}
	tf := Hourly(Clock{}, s, time.Unix(0, 0))
	s.Prices[0] = 9
	if p, _, _ := tf.At(0); p != 1 {
		t.Errorf("price changed with the caller's slice: %v", p)
	}
}

func TestHourlyEmpty(t *testing.T) {
	for _, s := range []*Series{nil, {Name: "empty"}} {
		tf := Hourly(Clock{}, s, time.Unix(0, 0))
		if p, _, next := tf.At(0); !math.IsNaN(p) || !math.IsInf(next, 1) {
			t.Errorf("%v: At(0) = %v, next %v", s, p, next)
		}
	}
}

// Series hours are real hours counted from a wall-clock start: a local day
// has 23 or 25 of them on DST-change days.
func TestHourlyLocalDays(t *testing.T) {
	for _, tc := range []struct {
		zone, day string
		hours     int
	}{
		{"Europe/Stockholm", "2024-03-31 00:00", 23},
		{"Europe/Stockholm", "2024-10-27 00:00", 25},
		{"US/Pacific", "2024-03-10 00:00", 23},
		{"US/Pacific", "2024-11-03 00:00", 25},
		{"Europe/Paris", "2024-06-01 00:00", 24},
	} {
		c := clockAt(t, tc.zone, tc.day)
		c.Epoch -= 5*3600 + 17 // sim time 0 somewhere in the previous day
		prices := make([]float64, 100)
		for k := range prices {
			prices[k] = float64(k)
		}
		start := LocalMidnight(c, 5*3600+17)
		tf := Hourly(c, &Series{Prices: prices}, start)
		nextDay := LocalMidnight(c, c.Sim(start)+30*3600)
		p, _, _ := tf.At(c.Sim(nextDay))
		if int(p) != tc.hours {
			t.Errorf("%s %s: next local midnight is in series hour %v, want %d", tc.zone, tc.day, p, tc.hours)
		}
		// 06:00 local is series hour 6 before a spring change, 5 after it...
		six := clockTime(nextDay.Year(), nextDay.Month(), nextDay.Day(), 6*3600, c.Loc)
		if p, _, _ := tf.At(c.Sim(six)); int(p) != tc.hours+6 {
			t.Errorf("%s %s: 06:00 the next day is series hour %v, want %d", tc.zone, tc.day, p, tc.hours+6)
		}
		// ... and hour boundaries fall on local whole hours.
		_, _, next := tf.At(c.Sim(six) + 1234)
		if m := c.Time(next).Format("04:05"); m != "00:00" {
			t.Errorf("%s: hour boundary at %v", tc.zone, c.Time(next))
		}
	}
}

func TestHourlyIntegral(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	prices := make([]float64, 500)
	for k := range prices {
		prices[k] = math.Round(r.NormFloat64()*40+140) / 1000 // repeats happen
	}
	c := Clock{Epoch: 1170175078, Loc: mustLoad(t, "US/Pacific")}
	start := LocalMidnight(c, 0)
	tf := Hourly(c, &Series{Prices: prices}, start)
	from := c.Sim(start) - 3*86400 // before start, through the data, then cyclic
	to := from + 60*86400
	walk, calls := walkIntegral(tf, from, to)
	brute := minuteIntegral(tf, from, to)
	if rel := math.Abs(walk-brute) / math.Abs(brute); rel > 1e-9 {
		t.Errorf("walk %v, per-minute %v: rel. diff %g", walk, brute, rel)
	}
	if calls >= 60*24 {
		t.Errorf("%d segments: equal hours not merged", calls)
	}
}
