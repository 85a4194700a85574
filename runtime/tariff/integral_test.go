package tariff

import (
	"math"
	"math/rand/v2"
	"testing"
)

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1e-300, math.Max(math.Abs(a), math.Abs(b)))
}

// The hourly integral from prefix sums agrees with walking the hours, over
// windows before the series, across its start and end, inside one hour and
// over many cycles.
func TestHourlyIntegralMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	c := Clock{Epoch: 1483228800, Loc: mustLoad(t, "Europe/Berlin")}
	start := LocalMidnight(c, 5000)
	s0 := c.Sim(start)
	for _, n := range []int{1, 2, 5, 48, 1000} {
		prices := make([]float64, n)
		for k := range prices {
			prices[k] = math.Round(r.NormFloat64()*40+140) / 1000 // negative now and then, repeats too
		}
		tf := Hourly(c, &Series{Prices: prices}, start)
		span := float64(n) * h
		windows := [][2]float64{
			{s0, s0 + span},                    // the whole series: Σ prices hours
			{s0 + 0.25*h, s0 + 0.75*h},         // inside hour 0
			{s0 - 3.5*h, s0 + 2.25*h},          // across the start
			{s0 + span - 2*h, s0 + span + 5*h}, // across the end
			{s0 - 7*span - 123, s0 - 5*span},   // cycles before the start
			{s0 - 2*span + 17, s0 + 3*span - 1},
		}
		for range 200 {
			a := s0 + (r.Float64()*6-3)*span
			windows = append(windows, [2]float64{a, a + r.Float64()*2*span})
		}
		sum := 0.0
		for _, p := range prices {
			sum += p
		}
		if got := Integral(tf, s0, s0+span); relDiff(got, sum*h) > 1e-13 {
			t.Errorf("n=%d: whole series %v, Σ prices·3600 %v", n, got, sum*h)
		}
		for _, w := range windows {
			want, _ := walkIntegral(tf, w[0], w[1])
			got := Integral(tf, w[0], w[1])
			if relDiff(got, want) > 1e-12 && math.Abs(got-want) > 1e-9 {
				t.Fatalf("n=%d: ∫ over [%v, %v] = %v from prefix sums, %v walking", n, w[0]-s0, w[1]-s0, got, want)
			}
			if back := Integral(tf, w[1], w[0]); back != -got {
				t.Errorf("reversed window gives %v, want %v", back, -got)
			}
		}
	}
}

func TestIntegralFlatAndBasePeak(t *testing.T) {
	if got := Integral(Flat(0.145), -100, 3500); got != 0.145*3600 {
		t.Errorf("flat: %v", got)
	}
	c := clockAt(t, "Europe/Stockholm", "2024-03-30 00:00")
	bp := BasePeak(c, []Window{{From: 6 * h, To: 22 * h}}, pPeak, pBase)
	// Sat 30 March (24 h) and Sun 31 March (23 h: the clocks go forward at 02:00).
	want := 2*16*h*pPeak + (8+7)*h*pBase
	if got := Integral(bp, 0, 47*h); relDiff(got, want) > 1e-14 {
		t.Errorf("base/peak over two days: %v, want %v", got, want)
	}
	if got := Mean(bp, 0, 47*h); relDiff(got, want/(47*h)) > 1e-14 {
		t.Errorf("base/peak mean %v", got)
	}
	if got := Mean(bp, 7*h, 7*h); got != pPeak {
		t.Errorf("mean over an instant %v, want the price then", got)
	}
	for _, x := range [][2]float64{{math.NaN(), 0}, {0, math.Inf(1)}, {math.Inf(-1), 0}} {
		if got := Integral(bp, x[0], x[1]); !math.IsNaN(got) {
			t.Errorf("Integral(%v, %v) = %v, want NaN", x[0], x[1], got)
		}
	}
	if got := Integral(bp, 0, 0); got != 0 {
		t.Errorf("empty window %v", got)
	}
}

// An Integrator gives what Integral gives, for windows sliding forward, a
// window reaching further back than any before, and every kind of tariff.
func TestIntegratorMatchesIntegral(t *testing.T) {
	c := Clock{Epoch: 1027839845, Loc: mustLoad(t, "Europe/Stockholm")}
	prices := make([]float64, 500)
	for k := range prices {
		prices[k] = 0.14 + 0.05*math.Sin(float64(k)/7)
	}
	tariffs := map[string]Tariff{
		"flat":     Flat(0.12),
		"basepeak": BasePeak(c, []Window{{From: 6 * h, To: 22 * h, Days: weekdays}, {From: 12 * h, To: 13 * h}}, pPeak, pBase),
		"constant": BasePeak(c, nil, pPeak, pBase),
		"hourly":   Hourly(c, &Series{Prices: prices}, LocalMidnight(c, 0)),
	}
	r := rand.New(rand.NewPCG(1, 9))
	for name, tf := range tariffs {
		in := NewIntegrator(tf)
		now := 0.0
		for i := range 3000 {
			now += r.ExpFloat64() * 1800
			w := []float64{86400, 7 * 86400, 3600, 30 * 86400}[i%4]
			if i == 2000 {
				w = 400 * 86400 // further back than ever: the tape grows backwards
			}
			got, want := in.Integral(now-w, now), Integral(tf, now-w, now)
			if relDiff(got, want) > 1e-12 {
				t.Fatalf("%s: window %v s at %v: %v, want %v", name, w, now, got, want)
			}
			if m := in.Mean(now-w, now); relDiff(m, want/w) > 1e-12 {
				t.Fatalf("%s: mean %v, want %v", name, m, want/w)
			}
		}
		if name == "basepeak" && len(in.xs) > 2*int(now/86400)*3+2*400*3+100 {
			t.Errorf("tape of %d points for %.0f days", len(in.xs), now/86400)
		}
	}
}
