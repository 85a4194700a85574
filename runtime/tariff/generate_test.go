package tariff

import (
	"math"
	"testing"
)

// t1 and t3 are generators written as kunkel.md §1.4 describes T1 and T3
// (in cents): T1 an AR(1, 24) with a sine of period 2π² h; T3 T2's AR(1, 2,
// 24) with a day profile of +10 ct 06–22 h and +3 ct 22–24 h.
var (
	t1 = Generator{Hours: 12000, Seed: 1, Unit: 0.01, First: 24, Lo: 0, Hi: 1,
		AR: []Lag{{0.8, 1}, {0.2, 24}}, Sine: 0.25, Period: 2 * math.Pi * math.Pi, Noise: 1, Mean: 0.14}
	t3 = Generator{Hours: 12000, Seed: 3, Unit: 0.01, First: 24, Lo: 0, Hi: 1,
		AR: []Lag{{0.4, 1}, {0.4, 2}, {0.2, 24}}, Noise: 0.5, Mean: 0.14,
		Adds: []Add{{6, 22, 10}, {22, 24, 3}}}
)

// TestGenerateStructure checks the structural facts of kunkel.md §1.4 on
// generated series (not R's numbers): length, the exact mean, the same
// series for the same seed and another for another seed, T3's day
// profile, and the unit root's slow swings (a large spread of daily means).
func TestGenerateStructure(t *testing.T) {
	a, b := Generate(t1), Generate(t1)
	if len(a.Prices) != 12000 {
		t.Fatalf("%d hours", len(a.Prices))
	}
	for i := range a.Prices {
		if a.Prices[i] != b.Prices[i] {
			t.Fatalf("the same seed gave another series at hour %d", i)
		}
	}
	other := t1
	other.Seed = 2
	if c := Generate(other); c.Prices[100] == a.Prices[100] {
		t.Error("another seed gave the same series")
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	if m := mean(a.Prices); math.Abs(m-0.14) > 1e-12 {
		t.Errorf("mean %v EUR/kWh, want 0.14", m)
	}
	s3 := Generate(t3)
	var byHour [24][]float64
	for i, p := range s3.Prices {
		byHour[i%24] = append(byHour[i%24], p)
	}
	night := mean(append(append([]float64(nil), byHour[0]...), byHour[5]...))
	day := mean(byHour[12])
	late := mean(byHour[23])
	// The AR part is the same on average at every hour: the profile shows
	// through, 10 and 3 ct, up to the AR's drift within a day.
	if d := day - night; math.Abs(d-0.10) > 0.02 {
		t.Errorf("T3: hours 6–21 above hours 0–5 by %.4f EUR/kWh, want about 0.10", d)
	}
	if d := late - night; math.Abs(d-0.03) > 0.02 {
		t.Errorf("T3: hours 22–23 above hours 0–5 by %.4f EUR/kWh, want about 0.03", d)
	}
	// A unit root wanders: daily means spread far beyond the noise's.
	var days []float64
	for d := 0; d+24 <= len(a.Prices); d += 24 {
		days = append(days, mean(a.Prices[d:d+24]))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range days {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if hi-lo < 0.05 {
		t.Errorf("T1's daily means span only %.4f EUR/kWh: no slow swings", hi-lo)
	}
}

// TestGenerateT3Pattern is acceptance check 5's second half: a t3_like
// series (T2's AR terms, +10 ct 06–22 h, +3 ct 22–24 h, mean 0.14) shows
// T3's day pattern within ±0.005 EUR/kWh: hours 6–21 above hours 0–5 by
// 0.1000 and hours 22–23 by 0.0306 (the file's own figures; the generator
// adds 0.10 and 0.03, its AR part is the same at every hour on average),
// over the full hour ranges, for several seeds; and its mean is 0.14.
func TestGenerateT3Pattern(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		g := t3
		g.Seed = seed
		p := Generate(g).Prices
		var sum [3]float64
		var n [3]int
		var all float64
		for i, v := range p {
			k := 0 // hours 0–5
			switch h := i % 24; {
			case h >= 6 && h < 22:
				k = 1
			case h >= 22:
				k = 2
			}
			sum[k] += v
			n[k]++
			all += v
		}
		if n[0] != 6*500 || n[1] != 16*500 || n[2] != 2*500 {
			t.Fatalf("hours per range %v", n)
		}
		night := sum[0] / float64(n[0])
		day, late := sum[1]/float64(n[1])-night, sum[2]/float64(n[2])-night
		if math.Abs(day-0.1000) > 0.005 || math.Abs(late-0.0306) > 0.005 {
			t.Errorf("seed %d: hours 6–21 +%.4f, hours 22–23 +%.4f above hours 0–5; want +0.1000 and +0.0306 (±0.005)", seed, day, late)
		}
		if m := all / float64(len(p)); math.Abs(m-0.14) > 1e-12 {
			t.Errorf("seed %d: mean %v, want 0.14", seed, m)
		}
	}
}
