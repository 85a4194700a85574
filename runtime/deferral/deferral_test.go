package deferral

import (
	"math"
	"testing"
)

// hourly builds a profile of hourly values from 0 to len·3600 s.
func hourly(vals ...float64) *Profile {
	p := &Profile{}
	for i, v := range vals {
		p.Add(float64(i)*3600, v)
	}
	p.End = float64(len(vals)) * 3600
	return p
}

// TestKunkelExamples are kunkel.md §2.7's worked decisions.
func TestKunkelExamples(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prices    []float64
		job       Job
		start     float64
		cost, now float64
	}{
		// Example A, job A: 2 of 4 nodes, 1 h, P_w 200 W, running 800 W,
		// H 6 h: costs 0.24 (×0.999), 0.22, 0.18, 0.20, 0.46, 0.54.
		{"A/job A", []float64{0.30, 0.20, 0.10, 0.10, 0.40, 0.40}, Job{Now: 0, Latest: 5 * 3600, Run: 3600, Waiting: 200, Running: 800, PreferNow: 0.001}, 7200, 0.18, 0.24},
		// Job B, 1 node, 30 min, at 7,200 s: now 0.02 × 0.999 wins.
		{"A/job B", []float64{0.30, 0.20, 0.10, 0.10, 0.40, 0.40, 0.40, 0.40}, Job{Now: 7200, Latest: 8*3600 - 1800, Run: 1800, Waiting: 100, Running: 400, PreferNow: 0.001}, 7200, 0.01998, 0.02},
		// Example B, job A: one node, P_w 20 W, 300 W + 20 W running.
		{"B/job A", []float64{0.30, 0.25, 0.20, 0.15, 0.50, 0.50}, Job{Now: 0, Latest: 5 * 3600, Run: 3600, Waiting: 20, Running: 320, PreferNow: 0.001}, 3 * 3600, 0.063, 0.096},
		// Job B at 4 h: every option costs 0.5 per kWh; now wins.
		{"B/job B", []float64{0.30, 0.25, 0.20, 0.15, 0.50, 0.50, 0.50, 0.50, 0.50, 0.50}, Job{Now: 4 * 3600, Latest: 9 * 3600, Run: 3600, Waiting: 20, Running: 320, PreferNow: 0.001}, 4 * 3600, 0.15984, 0.16},
		// Example C: a flat price never defers.
		{"C/flat", []float64{0.145, 0.145, 0.145, 0.145}, Job{Now: 100, Latest: 3 * 3600, Run: 3600, Waiting: 50, Running: 500, PreferNow: 0.001}, 100, 0.145 * 500 / 1000 * 0.999, 0.145 * 500 / 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _, err := Cheapest(hourly(tc.prices...), tc.job, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Start != tc.start || math.Abs(d.Cost-tc.cost) > 1e-12 || math.Abs(d.CostNow-tc.now) > 1e-12 {
				t.Errorf("start %v cost %v (now %v), want %v, %v (now %v)", d.Start, d.Cost, d.CostNow, tc.start, tc.cost, tc.now)
			}
		})
	}
}

// TestCheapestIsTheMinimum compares the candidates' minimum with a dense
// scan of C(s) over the window on random profiles with negative values:
// no start on a fine grid is cheaper, and the chosen one's cost is C's.
func TestCheapestIsTheMinimum(t *testing.T) {
	seed := uint64(1)
	rnd := func() float64 { // xorshift: the test needs no more
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return float64(seed%10000) / 10000
	}
	for trial := range 300 {
		p := &Profile{}
		tm := 0.0
		for range 30 {
			p.Add(tm, rnd()*0.4-0.08)
			tm += 600 + math.Floor(rnd()*6000)
		}
		p.End = tm
		j := Job{Now: rnd() * 3000, Run: 60 + math.Floor(rnd()*20000), Waiting: rnd() * 300, Running: 100 + rnd()*2000}
		j.Latest = j.Now + rnd()*(p.End-j.Run-j.Now)
		if j.Latest < j.Now {
			continue
		}
		d, _, err := Cheapest(p, j, nil)
		if err != nil {
			t.Fatal(trial, err)
		}
		c := func(s float64) float64 {
			return (j.Waiting*p.Integral(j.Now, s) + j.Running*p.Integral(s, s+j.Run)) / 3.6e6
		}
		if math.Abs(c(d.Start)-d.Cost) > 1e-9 && d.Start != j.Now {
			t.Fatalf("trial %d: cost %v, C(start) %v", trial, d.Cost, c(d.Start))
		}
		for s := j.Now; s <= j.Latest; s += 7 {
			if c(s) < d.Cost-1e-9 && !(s == j.Now) {
				t.Fatalf("trial %d: start %v costs %v, below the chosen %v at %v", trial, s, c(s), d.Cost, d.Start)
			}
		}
	}
}

func TestCheapestRejects(t *testing.T) {
	p := hourly(0.1, 0.2)
	for _, j := range []Job{
		{Now: 0, Latest: 3600, Run: 7200},    // ends past the profile
		{Now: -1, Latest: 0, Run: 60},        // starts before it
		{Now: 100, Latest: 50, Run: 60},      // latest before now
		{Now: 0, Latest: 0, Run: math.NaN()}, // NaN run
	} {
		if _, _, err := Cheapest(p, j, nil); err == nil {
			t.Errorf("%+v: no error", j)
		}
	}
	if _, _, err := Cheapest(hourly(0.1, math.NaN(), 0.1), Job{Now: 0, Latest: 3600, Run: 60}, nil); err != ErrValue {
		t.Errorf("NaN value: %v", err)
	}
}

// TestPlanIsCheapest: a plan made once for a window decides, at every
// later time in it, exactly what Cheapest decides from scratch — start,
// cost and candidates — on random profiles with ties and negative values.
func TestPlanIsCheapest(t *testing.T) {
	seed := uint64(7)
	rnd := func() float64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return float64(seed%10000) / 10000
	}
	var pl Plan
	var cand []float64
	for trial := range 800 {
		p := &Profile{}
		tm := 0.0
		low := -0.08 // half the trials: all values positive (a bounded horizon)
		if trial%2 == 1 {
			low = 0.01
		}
		for range 40 {
			v := math.Round((low+rnd()*0.4)*20) / 20 // few values: ties
			if low > 0 {
				v = math.Max(v, 0.01)
			}
			p.Add(tm, v)
			tm += 3600
		}
		p.End = tm
		j := Job{Run: 60 + math.Floor(rnd()*20000), Waiting: math.Floor(rnd()*3) * 50, Running: 100 + math.Floor(rnd()*20)*100, PreferNow: 0.001 * math.Floor(rnd()*2)}
		j.Latest = math.Floor(rnd() * (p.End - j.Run))
		if err := pl.Reset(p, j); err != nil {
			t.Fatal(trial, err)
		}
		for k := range 30 {
			now := math.Floor(rnd() * j.Latest)
			if k == 0 {
				now = j.Latest
			}
			if k == 1 && len(p.Times) > 1 {
				now = math.Min(p.Times[1], j.Latest) // on a candidate
			}
			j.Now = now
			want, c, err := Cheapest(p, j, cand)
			cand = c
			if err != nil {
				t.Fatal(trial, err)
			}
			got, err := pl.Decide(now)
			if err != nil {
				t.Fatal(trial, err)
			}
			// (A plan may evaluate fewer starts: those past its horizon
			// cannot win.)
			if got.Start != want.Start || got.Cost != want.Cost || got.CostNow != want.CostNow || got.Candidates > want.Candidates {
				t.Fatalf("trial %d at %v: plan %+v, Cheapest %+v", trial, now, got, want)
			}
		}
	}
	if _, err := pl.Decide(-1); err == nil {
		t.Error("a plan decides before its window")
	}
}

// TestTiesGoToTheEarliest: with no cost of waiting, every start whose run
// lies in one cheap stretch costs the same, and the earliest must win —
// not whichever rounding favours. The stretch's first start (on its
// change) and its last (ending on the next change) tie exactly.
func TestTiesGoToTheEarliest(t *testing.T) {
	for _, off := range []float64{0, 0.1, 17.3, 1234.567} {
		p := &Profile{}
		p.Add(0, 0.3137)
		p.Add(3600.7+off, 0.1013)
		p.Add(30000.3+off, 0.3137)
		p.Add(35000+off, 0.2)
		p.End = 90000
		j := Job{Now: 11.1, Latest: 60000, Run: 1000.9, Waiting: 0, Running: 777.7}
		d, _, err := Cheapest(p, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pl Plan
		if err := pl.Reset(p, j); err != nil {
			t.Fatal(err)
		}
		first, _ := pl.Decide(j.Now)
		again, _ := pl.Decide(j.Now)
		for _, got := range []Decision{d, first, again} {
			if got.Start != 3600.7+off {
				t.Errorf("offset %v: start %v, want the stretch's first %v", off, got.Start, 3600.7+off)
			}
		}
	}
}

// TestHorizonKeepsTheWinner: where waiting costs little against running,
// the cheapest start lies far ahead, near the horizon a first decision
// stops at; it must still be found (the plan's first answer is
// Cheapest's), and the horizon must prune something in these trials.
func TestHorizonKeepsTheWinner(t *testing.T) {
	seed := uint64(11)
	rnd := func() float64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return float64(seed%10000) / 10000
	}
	pruned, far := 0, 0
	for trial := range 2000 {
		p := &Profile{}
		for h := range 96 {
			p.Add(float64(h)*3600, 0.02+0.3*rnd())
		}
		p.End = 96 * 3600
		j := Job{Now: math.Floor(rnd() * 3600), Run: 60 + math.Floor(rnd()*4*3600),
			Waiting: 1 + math.Floor(rnd()*40), Running: 200 + math.Floor(rnd()*3000), PreferNow: 0.001}
		j.Latest = p.End - j.Run
		want, _, err := Cheapest(p, j, nil)
		if err != nil {
			t.Fatal(err)
		}
		var pl Plan
		if err := pl.Reset(p, j); err != nil {
			t.Fatal(err)
		}
		got, _ := pl.Decide(j.Now)
		if got.Start != want.Start || got.Cost != want.Cost {
			t.Fatalf("trial %d: plan %+v, Cheapest %+v", trial, got, want)
		}
		if got.Candidates < want.Candidates {
			pruned++
		}
		if want.Start-j.Now > 12*3600 {
			far++
		}
	}
	if pruned == 0 || far == 0 {
		t.Errorf("%d decisions pruned, %d chose a start over 12 h ahead: the trials do not exercise the horizon", pruned, far)
	}
}
