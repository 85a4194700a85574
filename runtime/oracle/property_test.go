package oracle

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Property tests: the oracle and Bounds against brute force on small
// series with negative prices and ties, and Eq. 5–7 as lower bounds of
// random schedules.

// randomPrices draws h prices in [−0.05, 0.30) €/kWh, about one in ten
// negative; half the series are quantized to 0.05 so that ties are common.
func randomPrices(r *rand.Rand, h int) []float64 {
	p := make([]float64, h)
	q := r.IntN(2) == 0
	for i := range p {
		p[i] = -0.05 + 0.35*r.Float64()
		if q {
			p[i] = math.Round(p[i]*20) / 20
		}
	}
	return p
}

// subsets calls f with every subset of {0, …, n−1} as a bit mask.
func subsets(n int, f func(mask int)) {
	for m := range 1 << n {
		f(m)
	}
}

func bits(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// Listing 1 against every whole-hour schedule: over all sets S of Busy
// hours, the mean price of S is at least Best and that of the other hours at
// most Worst, and some S reaches both.
func TestAnalyzeBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		h := 1 + r.IntN(10)
		p := randomPrices(r, h)
		u := r.Float64()
		if n%3 == 0 {
			u = float64(r.IntN(h+1)) / float64(h)
		}
		th := mustAnalyze(t, p, u)
		k := int(math.Floor(float64(h) * u))
		if n%3 == 0 {
			k = int(math.Round(float64(h) * u)) // exact fractions: no float surprises
		}
		if th.Busy != k || th.Hours != h {
			t.Fatalf("%v at U %v: busy %d hours %d, want %d %d", p, u, th.Busy, th.Hours, k, h)
		}
		minBusy, maxIdle := math.Inf(1), math.Inf(-1)
		subsets(h, func(m int) {
			if bits(m) != k {
				return
			}
			var in, out float64
			for i, v := range p {
				if m&(1<<i) != 0 {
					in += v
				} else {
					out += v
				}
			}
			if k > 0 {
				minBusy = min(minBusy, in/float64(k))
			}
			if k < h {
				maxIdle = max(maxIdle, out/float64(h-k))
			}
		})
		if k == 0 {
			minBusy = slices.Min(p)
		}
		if k == h {
			maxIdle = slices.Max(p)
		}
		if !near(th.Best, minBusy, 1e-12) || !near(th.Worst, maxIdle, 1e-12) {
			t.Fatalf("%v at U %v (k %d): best %v worst %v, brute force %v %v", p, u, k, th.Best, th.Worst, minBusy, maxIdle)
		}
		// The busy and empty hours make up the series.
		if !near(th.Best*float64(k)+th.Worst*float64(h-k), th.Mean*float64(h), 1e-12) && k > 0 && k < h {
			t.Fatalf("%v at U %v: k·Best + (H−k)·Worst ≠ H·Mean", p, u)
		}
		if !(th.Best <= th.Mean+1e-15 && th.Mean <= th.Worst+1e-15) {
			t.Fatalf("%v at U %v: best %v mean %v worst %v not ordered", p, u, th.Best, th.Mean, th.Worst)
		}
	}
}

// Busy = ⌊H·U⌋ for U = k/H even where the float product falls just short
// of k (100 × 0.29 = 28.999999999999996).
func TestBusyHoursExactFractions(t *testing.T) {
	if h, u := 100.0, 0.29; h*u >= 29 {
		t.Fatal("the float product no longer falls short; pick another example")
	}
	for h := 1; h <= 400; h++ {
		p := flat(h, 0.1)
		for k := 0; k <= h; k++ {
			if th := mustAnalyze(t, p, float64(k)/float64(h)); th.Busy != k {
				t.Fatalf("U = %d/%d: busy %d", k, h, th.Busy)
			}
		}
	}
	if th := mustAnalyze(t, flat(100, 0.1), 0.29); th.Busy != 29 {
		t.Errorf("U 0.29 over 100 h: busy %d, want 29", th.Busy)
	}
	// Just below a whole hour stays below.
	if th := mustAnalyze(t, flat(100, 0.1), 0.2899); th.Busy != 28 {
		t.Errorf("U 0.2899 over 100 h: busy %d, want 28", th.Busy)
	}
}

// fill spreads energy over h hours at random with 0 ≤ x ≤ c and Σx = energy:
// random amounts, scaled down, or moved up towards c, to the total.
func fill(r *rand.Rand, h int, energy, c float64) []float64 {
	x := make([]float64, h)
	s := 0.0
	for i := range x {
		if r.IntN(4) > 0 {
			x[i] = c * r.Float64()
		}
		s += x[i]
	}
	switch {
	case s > energy:
		for i := range x {
			x[i] *= energy / s
		}
	case s < energy:
		a := (energy - s) / (float64(h)*c - s) // share of the headroom to use
		for i := range x {
			x[i] += a * (c - x[i])
		}
	}
	return x
}

func dot(p, x []float64) float64 {
	s := 0.0
	for i := range p {
		s += p[i] * x[i]
	}
	return s
}

// Bounds against brute force over the vertices of {0 ≤ x ≤ c, Σx = E}
// (every hour full or empty but at most one), and random assignments in
// between; Listing 1's Best·E never exceeds the exact best.
func TestBoundsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 3000 {
		h := 1 + r.IntN(8)
		p := randomPrices(r, h)
		c := 0.5 + 10*r.Float64()
		u := r.Float64()
		if n%3 == 0 {
			u = float64(r.IntN(h+1)) / float64(h)
		}
		e := u * float64(h) * c
		best, worst, err := Bounds(p, e, c)
		if err != nil {
			t.Fatal(err)
		}
		full := int(math.Floor(e/c + 1e-12))
		rest := max(e-float64(full)*c, 0)
		lo, hi := math.Inf(1), math.Inf(-1)
		subsets(h, func(m int) {
			if bits(m) != full {
				return
			}
			base := 0.0
			for i, v := range p {
				if m&(1<<i) != 0 {
					base += v * c
				}
			}
			if rest < 1e-9 || full == h {
				lo, hi = min(lo, base), max(hi, base)
				return
			}
			for j, v := range p {
				if m&(1<<j) == 0 {
					lo, hi = min(lo, base+v*rest), max(hi, base+v*rest)
				}
			}
		})
		if !near(best, lo, 1e-9) || !near(worst, hi, 1e-9) {
			t.Fatalf("%v, E %v, c %v: bounds %v %v, brute force %v %v", p, e, c, best, worst, lo, hi)
		}
		for range 20 {
			x := fill(r, h, e, c)
			if cost := dot(p, x); cost < best-1e-9 || cost > worst+1e-9 {
				t.Fatalf("%v, E %v: assignment %v costs %v outside [%v, %v]", p, e, x, cost, best, worst)
			}
		}
		th := mustAnalyze(t, p, u)
		listing := th.Best * e
		if listing > best+1e-9 {
			t.Fatalf("%v at U %v: Listing 1's Best·E %v above the exact best %v", p, u, listing, best)
		}
		if n%3 == 0 && !near(listing, best, 1e-9) {
			t.Fatalf("%v at U = k/H %v: Best·E %v, exact best %v", p, u, listing, best)
		}
	}
}

// Eq. 5–7 are lower bounds of every schedule of the same busy node-time,
// under any prices, and the uniform schedule costs exactly the paper's
// mean-price scenarios (Tables 3, 5 and 6).
func TestCostsBoundSchedules(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 2000 {
		h := 1 + r.IntN(48)
		p := randomPrices(r, h)
		m := Machine{Nodes: 1 + r.IntN(2000), Infra: 1e5 * r.Float64(), Idle: 20 + 80*r.Float64()}
		m.Busy = m.Idle + 300*r.Float64()
		u := r.Float64()
		if n%4 == 0 {
			u = float64(r.IntN(h+1)) / float64(h)
		}
		e := m.Energy(float64(h), u) // kWh
		th := mustAnalyze(t, p, u)
		nodes := float64(m.Nodes)

		// hourly cost of a schedule with busy share x[i] in hour i, in €.
		costAll := func(x []float64) float64 { // nodes and infrastructure scale with use
			return dot(p, x) * (m.Infra + nodes*m.Busy) / 1000
		}
		costClient := func(x []float64) float64 { // infrastructure always on
			return (Mean(p)*float64(h)*m.Infra + dot(p, x)*nodes*m.Busy) / 1000
		}
		costOn := func(x []float64) float64 { // every node on
			return (Mean(p)*float64(h)*(m.Infra+nodes*m.Idle) + dot(p, x)*nodes*(m.Busy-m.Idle)) / 1000
		}
		tol := 1e-9 * (1 + math.Abs(th.Baseline(e)) + e.Total())

		uniform := flat(h, u)
		if !near(costOn(uniform), th.Baseline(e), tol) ||
			!near(costClient(uniform), th.Baseline(e)-th.ShutdownSaving(e), tol) ||
			!near(costAll(uniform), th.Baseline(e)-th.ShutdownSaving(e)-th.InfraSaving(e), tol) {
			t.Fatalf("uniform schedule: %v %v %v, paper %v %v %v", costOn(uniform), costClient(uniform), costAll(uniform),
				th.Baseline(e), th.Baseline(e)-th.ShutdownSaving(e), th.Baseline(e)-th.ShutdownSaving(e)-th.InfraSaving(e))
		}
		for range 20 {
			x := fill(r, h, u*float64(h), 1)
			if a, c := costAll(x), costClient(x); a < th.CostAll(e)-tol || c < th.CostClient(e)-tol {
				t.Fatalf("%v at U %v: schedule %v costs %v / %v, below the oracle's %v / %v",
					p, u, x, a, c, th.CostAll(e), th.CostClient(e))
			}
		}
		// The exact optimum, from Bounds, lies between the oracle and any
		// schedule; with whole busy hours it is the oracle.
		lo, _, err := Bounds(p, u*float64(h), 1)
		if err != nil {
			t.Fatal(err)
		}
		optAll := lo * (m.Infra + nodes*m.Busy) / 1000
		optClient := (Mean(p)*float64(h)*m.Infra + lo*nodes*m.Busy) / 1000
		if optAll < th.CostAll(e)-tol || optClient < th.CostClient(e)-tol {
			t.Fatalf("%v at U %v: optimum %v / %v below the oracle's %v / %v", p, u, optAll, optClient, th.CostAll(e), th.CostClient(e))
		}
		if n%4 == 0 && (!near(optAll, th.CostAll(e), tol) || !near(optClient, th.CostClient(e), tol)) {
			t.Fatalf("%v at U = k/H %v: optimum %v / %v, oracle %v / %v", p, u, optAll, optClient, th.CostAll(e), th.CostClient(e))
		}
	}
}

// Best and Worst grow with U (the busy hours take dearer prices, the empty
// hours lose their cheapest), and do not depend on the order of the hours.
func TestMonotoneAndOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		h := 1 + r.IntN(100)
		p := randomPrices(r, h)
		orig := slices.Clone(p)
		prev := Theory{Best: math.Inf(-1), Worst: math.Inf(-1)}
		for k := 0; k <= h; k++ {
			th := mustAnalyze(t, p, float64(k)/float64(h))
			if th.Best < prev.Best-1e-12 || th.Worst < prev.Worst-1e-12 {
				t.Fatalf("%v: k %d best %v worst %v after %v %v", p, k, th.Best, th.Worst, prev.Best, prev.Worst)
			}
			prev = th
		}
		if !slices.Equal(p, orig) {
			t.Fatal("Analyze modified its input")
		}
		u := r.Float64()
		a := mustAnalyze(t, p, u)
		q := slices.Clone(p)
		r.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
		b := mustAnalyze(t, q, u)
		if a.Busy != b.Busy || !near(a.Best, b.Best, 1e-12) || !near(a.Worst, b.Worst, 1e-12) || !near(a.Mean, b.Mean, 1e-12) {
			t.Fatalf("%v: shuffled %+v, original %+v", p, b, a)
		}
		lo, hi, err := Bounds(p, u*float64(h), 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p, orig) {
			t.Fatal("Bounds modified its input")
		}
		if lo2, hi2, _ := Bounds(q, u*float64(h), 1); !near(lo, lo2, 1e-12) || !near(hi, hi2, 1e-12) {
			t.Fatalf("%v: bounds depend on order", p)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	p := []float64{0.3, -0.02, 0.1, 0.2}
	th := mustAnalyze(t, p, 0)
	if th.Busy != 0 || th.Best != -0.02 || !near(th.Worst, 0.145, 1e-15) {
		t.Errorf("U 0: %+v, want busy 0, best = the cheapest, worst = the mean", th)
	}
	th = mustAnalyze(t, p, 0.2) // 0.8 h of work: less than one hour
	if th.Busy != 0 || th.Best != -0.02 {
		t.Errorf("U 0.2: %+v, want busy 0 and best −0.02", th)
	}
	th = mustAnalyze(t, p, 1)
	if th.Busy != 4 || th.Worst != 0.3 || !near(th.Best, 0.145, 1e-15) {
		t.Errorf("U 1: %+v, want busy 4, worst = the dearest, best = the mean", th)
	}
	th = mustAnalyze(t, []float64{0.2}, 0.5)
	if th.Busy != 0 || th.Best != 0.2 || th.Worst != 0.2 || th.Mean != 0.2 {
		t.Errorf("one hour: %+v", th)
	}
	// At U = 0 no schedule costs anything but the infrastructure in CostClient.
	e := Energy{Infra: 10, Idle: 5, Job: 0}
	if th := mustAnalyze(t, p, 0); th.CostAll(e) != 0 || !near(th.CostClient(e), 10*th.Worst, 1e-15) {
		t.Errorf("U 0: all %v client %v", th.CostAll(e), th.CostClient(e))
	}

	for _, c := range []struct {
		name   string
		prices []float64
		u      float64
	}{
		{"no prices", nil, 0.5},
		{"negative U", p, -0.01},
		{"U above 1", p, 1.0000001},
		{"NaN U", p, math.NaN()},
		{"NaN price", []float64{0.1, math.NaN()}, 0.5},
		{"infinite price", []float64{math.Inf(-1), 0.1}, 0.5},
	} {
		if _, err := Analyze(c.prices, c.u); err == nil {
			t.Errorf("Analyze, %s: no error", c.name)
		}
	}

	for _, c := range []struct {
		name            string
		prices          []float64
		energy, perHour float64
	}{
		{"no prices", nil, 0, 1},
		{"NaN price", []float64{math.NaN()}, 0, 1},
		{"zero per hour", p, 0, 0},
		{"infinite per hour", p, 1, math.Inf(1)},
		{"negative energy", p, -1, 1},
		{"too much energy", p, 4.01, 1},
		{"NaN energy", p, math.NaN(), 1},
	} {
		if _, _, err := Bounds(c.prices, c.energy, c.perHour); err == nil {
			t.Errorf("Bounds, %s: no error", c.name)
		}
	}
	if lo, hi, err := Bounds(p, 4, 1); err != nil || !near(lo, 0.58, 1e-15) || !near(hi, 0.58, 1e-15) {
		t.Errorf("Bounds at full capacity: %v %v %v, want 0.58 both", lo, hi, err)
	}
	if lo, hi, err := Bounds(p, 0, 1); err != nil || lo != 0 || hi != 0 {
		t.Errorf("Bounds of no energy: %v %v %v", lo, hi, err)
	}
	// 1.5 h of energy: the cheapest hour and half the next; the dearest and
	// half the next.
	if lo, hi, err := Bounds(p, 1.5, 1); err != nil || !near(lo, -0.02+0.05, 1e-15) || !near(hi, 0.3+0.1, 1e-15) {
		t.Errorf("Bounds(1.5): %v %v %v", lo, hi, err)
	}
}
