package reflawson

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// job builds a job with an exact estimate: submit, width, run.
func job(submit float64, width int, run float64) Job {
	return Job{Submit: submit, Width: width, Run: run, Estimate: run}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// lawson.md §2.1 (and §6 item 1): Lawson's s against the usual bsld.
func TestSlowdownValues(t *testing.T) {
	bsld := func(d, v float64) float64 { return math.Max(1, (d+v)/math.Max(10, v)) }
	for _, c := range []struct{ d, v, s, bsld float64 }{
		{0, 5, 1, 1},
		{100, 5, 11, 10.5},
		{50, 10, 6, 6},
		{3600, 3600, 2, 2},
	} {
		if got := Slowdown(c.d, c.v); got != c.s {
			t.Errorf("Slowdown(%g, %g) = %g, want %g", c.d, c.v, got, c.s)
		}
		if got := bsld(c.d, c.v); got != c.bsld {
			t.Errorf("bsld(%g, %g) = %g, want %g", c.d, c.v, got, c.bsld)
		}
		if differ := Slowdown(c.d, c.v) != bsld(c.d, c.v); differ != (c.v < 10 && c.d > 0) {
			t.Errorf("d=%g v=%g: the two forms differ = %v", c.d, c.v, differ)
		}
	}
}

// The §2.2 toy: U = 4, L = 2.
var toy22 = []Job{
	job(0, 1, 100), // 1
	job(0, 1, 50),  // 2
	job(10, 3, 20), // 3
	job(200, 2, 30),
	job(300, 3, 10),
	job(300, 1, 100),
	job(310, 2, 10), // 7
}

func TestTwoLevelToy(t *testing.T) {
	cases := []struct {
		name     string
		policy   Policy
		starts   []float64
		timeline []Change
		util     float64
		savings  float64
		meanS    float64
		span     float64
	}{
		{
			// lawson.md §2.2, recommended reading (lowering after the pass):
			// t=0: 1, 2 start on U; busy 2 ≤ L, queue empty → 2.
			// t=10: 3 (3 > L) → 4; 3 waits (free 2), reserved at 50.
			// t=50: 3 starts. t=70: 3 ends, busy 1 → 2. t=200: 4 starts.
			// t=300: 5 (3 > L) → 4; 5, 6 start. t=310: 5 ends, 7 starts
			// (busy 3 > L). t=320: 7 ends, busy 1 → 2. t=400: 6 ends.
			name:   "after pass",
			policy: TwoLevel{L: 2, U: 4},
			starts: []float64{0, 0, 50, 200, 300, 300, 310},
			timeline: []Change{
				{0, 2}, {10, 4}, {70, 2}, {300, 4}, {320, 2},
			},
			util: 0.4375, savings: 0.4, meanS: 9.0 / 7, span: 400,
		},
		{
			// Alternative reading: at t=310, 5's end leaves busy 1 and only
			// 7 (width 2) queued → 2 before the pass; 7 waits for 6 (400).
			name:   "before pass",
			policy: TwoLevel{L: 2, U: 4, LowerBeforePass: true},
			starts: []float64{0, 0, 50, 200, 300, 300, 400},
			timeline: []Change{
				{0, 2}, {10, 4}, {70, 2}, {300, 4}, {310, 2},
			},
			util: 0.4375, savings: 1 - 960.0/1640, meanS: 18.0 / 7, span: 410,
		},
		{
			// All processors: only job 3 waits (t=10 → 50, s = 3).
			name:   "all processors",
			policy: All{U: 4},
			starts: []float64{0, 0, 50, 200, 300, 300, 310},
			util:   0.2625, savings: 0, meanS: 9.0 / 7, span: 400,
		},
		{
			// Two-level with L = U never changes anything.
			name:   "two-level L = U",
			policy: TwoLevel{L: 4, U: 4},
			starts: []float64{0, 0, 50, 200, 300, 300, 310},
			util:   0.2625, savings: 0, meanS: 9.0 / 7, span: 400,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(toy22, c.policy)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Metrics
			if !slices.Equal(res.Start, c.starts) {
				t.Errorf("starts = %v, want %v", res.Start, c.starts)
			}
			if !slices.Equal(res.Timeline, c.timeline) {
				t.Errorf("timeline = %v, want %v", res.Timeline, c.timeline)
			}
			if m.Changes != len(c.timeline) {
				t.Errorf("changes = %d, want %d", m.Changes, len(c.timeline))
			}
			if m.Work != 420 {
				t.Errorf("work = %g, want 420", m.Work)
			}
			if m.Span != c.span {
				t.Errorf("span = %g, want %g", m.Span, c.span)
			}
			if !near(m.ActiveUtil, c.util) || !near(m.Savings, c.savings) || !near(m.MeanSlowdown, c.meanS) {
				t.Errorf("util %g savings %g mean s %g, want %g %g %g",
					m.ActiveUtil, m.Savings, m.MeanSlowdown, c.util, c.savings, c.meanS)
			}
			if m.Decisions != 0 || m.Simulations != 0 {
				t.Errorf("decisions %d simulations %d, want 0", m.Decisions, m.Simulations)
			}
		})
	}
}

// The §2.3 toy: A, B, C each (0, 2, 100) on U = 4, decided at t = 0.
var toy23 = []Job{job(0, 2, 100), job(0, 2, 100), job(0, 2, 100)}

func toy23Snapshot() Snapshot {
	s := Snapshot{Time: 0}
	for _, j := range toy23 {
		s.Queue = append(s.Queue, QueuedJob{Submit: j.Submit, Width: j.Width, Estimate: j.Estimate})
	}
	return s
}

func TestOLSToyKernel(t *testing.T) {
	s := toy23Snapshot()
	if s.Lower() != 2 {
		t.Fatalf("L(0) = %d, want 2", s.Lower())
	}
	// l = 2: 0, 100, 200. l = 3: A at 0; B reserved at 100; C (2) cannot
	// backfill on the 1 free processor: 0, 100, 200. Mean s = 2 both times.
	for _, l := range []int{2, 3} {
		mean, starts := Forecast(s, l)
		if mean != 2 || !slices.Equal(starts, []float64{0, 100, 200}) {
			t.Errorf("forecast l=%d: mean %g starts %v, want 2 [0 100 200]", l, mean, starts)
		}
	}
	if mean, starts := Forecast(s, 4); !near(mean, 4.0/3) || !slices.Equal(starts, []float64{0, 0, 100}) {
		t.Errorf("forecast l=4: mean %g starts %v, want 4/3 [0 0 100]", mean, starts)
	}
	for _, c := range []struct {
		sla       float64
		chosen    int
		simulated []int
	}{
		{1.5, 4, []int{2, 3}}, // both fail; ⌈(3+4)/2⌉ = 4 = U: no simulation
		{2, 2, []int{2}},      // the first simulation meets the SLA
	} {
		chosen, sim := Decide(s, 4, c.sla, TowardMax)
		if chosen != c.chosen || !slices.Equal(sim, c.simulated) {
			t.Errorf("S=%g: chosen %d after %v, want %d after %v", c.sla, chosen, sim, c.chosen, c.simulated)
		}
	}
	// Empty queue: the SLA is met at L = busy without a simulation.
	empty := Snapshot{Time: 5, Running: []RunningJob{{Start: 0, Width: 3, Estimate: 10}}}
	if chosen, sim := Decide(empty, 4, 1, TowardMax); chosen != 3 || len(sim) != 0 {
		t.Errorf("empty queue: chosen %d after %v, want 3 after none", chosen, sim)
	}
}

func TestOLSToyAppliedAtStart(t *testing.T) {
	for _, c := range []struct {
		sla                  float64
		starts               []float64
		meanS, util, savings float64
		span                 float64
		timeline             []Change
		simulations          int
	}{
		// S = 1.5: chosen U (no change); A, B at 0, C at 100.
		{1.5, []float64{0, 0, 100}, 4.0 / 3, 600.0 / 800, 0, 200, nil, 2},
		// S = 2: chosen 2; starts 0/100/200; span 300; area 600.
		{2, []float64{0, 100, 200}, 2, 1, 0.5, 300, []Change{{0, 2}}, 1},
	} {
		res, err := Run(toy23, OLS{U: 4, S: c.sla, K: 1e9, DecideAtStart: true})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics
		if !slices.Equal(res.Start, c.starts) || !slices.Equal(res.Timeline, c.timeline) {
			t.Errorf("S=%g: starts %v timeline %v, want %v %v", c.sla, res.Start, res.Timeline, c.starts, c.timeline)
		}
		if !near(m.MeanSlowdown, c.meanS) || !near(m.ActiveUtil, c.util) || !near(m.Savings, c.savings) || m.Span != c.span {
			t.Errorf("S=%g: mean s %g util %g savings %g span %g, want %g %g %g %g",
				c.sla, m.MeanSlowdown, m.ActiveUtil, m.Savings, m.Span, c.meanS, c.util, c.savings, c.span)
		}
		if m.Decisions != 1 || m.Simulations != c.simulations {
			t.Errorf("S=%g: %d decisions, %d simulations, want 1, %d", c.sla, m.Decisions, m.Simulations, c.simulations)
		}
	}
	// Without DecideAtStart the first decision would be at 0 + K: none here.
	res, err := Run(toy23, OLS{U: 4, S: 2, K: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Decisions != 0 || !slices.Equal(res.Start, []float64{0, 0, 100}) {
		t.Errorf("no decision at start: %d decisions, starts %v", res.Metrics.Decisions, res.Start)
	}
}

// lawson.md §2.4: the search sequence alone.
func TestSearchSequences(t *testing.T) {
	for _, c := range []struct {
		name     string
		lower, u int
		mode     Search
		meets    func(int) bool
		chosen   int
		asked    []int
	}{
		{"U=100 L=60 meets at 87", 60, 100, TowardMax, func(l int) bool { return l >= 87 }, 90, []int{60, 80, 90}},
		{"U=1152 L=922 never", 922, 1152, TowardMax, func(int) bool { return false }, 1152,
			[]int{922, 1037, 1095, 1124, 1138, 1145, 1149, 1151}},
		{"L=U", 100, 100, TowardMax, func(int) bool { return true }, 100, nil},
		{"L meets", 60, 100, TowardMax, func(int) bool { return true }, 60, []int{60}},
		{"U-1", 99, 100, TowardMax, func(int) bool { return false }, 100, []int{99}},
		// Binary: least l in [L, U] assuming monotonicity; U never asked.
		{"binary meets at 87", 60, 100, Binary, func(l int) bool { return l >= 87 }, 87,
			[]int{80, 90, 85, 88, 87, 86}},
		{"binary never", 60, 100, Binary, func(int) bool { return false }, 100,
			[]int{80, 90, 95, 98, 99}},
		{"binary always", 60, 100, Binary, func(int) bool { return true }, 60,
			[]int{80, 70, 65, 62, 61, 60}},
		{"binary L=U", 100, 100, Binary, func(int) bool { return true }, 100, nil},
	} {
		chosen, asked := SearchLevels(c.lower, c.u, c.mode, c.meets)
		if chosen != c.chosen || !slices.Equal(asked, c.asked) {
			t.Errorf("%s: chosen %d after %v, want %d after %v", c.name, chosen, asked, c.chosen, c.asked)
		}
	}
	// For every l < U, ⌈(l+U)/2⌉ > l: the sequence always reaches U, and
	// binary search finds the threshold of any monotone predicate.
	for u := 1; u <= 40; u++ {
		for lower := 0; lower <= u; lower++ {
			for th := lower; th <= u+1; th++ {
				meets := func(l int) bool { return l >= th }
				chosen, asked := SearchLevels(lower, u, TowardMax, meets)
				if want := min(u, th); chosen < want || slices.Contains(asked, u) {
					t.Fatalf("toward max L=%d U=%d th=%d: chosen %d after %v", lower, u, th, chosen, asked)
				}
				chosen, asked = SearchLevels(lower, u, Binary, meets)
				if want := min(u, th); chosen != want || slices.Contains(asked, u) {
					t.Fatalf("binary L=%d U=%d th=%d: chosen %d after %v", lower, u, th, chosen, asked)
				}
			}
		}
	}
}

func TestRunRejects(t *testing.T) {
	ok := []Job{job(0, 1, 1)}
	for _, c := range []struct {
		name   string
		jobs   []Job
		policy Policy
	}{
		{"no jobs", nil, All{U: 4}},
		{"U = 0", ok, All{U: 0}},
		{"too wide", []Job{job(0, 5, 1)}, All{U: 4}},
		{"wider than fixed", []Job{job(0, 3, 1)}, Fixed{U: 4, N: 2}},
		{"zero width", []Job{job(0, 0, 1)}, All{U: 4}},
		{"zero run", []Job{job(0, 1, 0)}, All{U: 4}},
		{"zero estimate", []Job{{Submit: 0, Width: 1, Run: 1}}, All{U: 4}},
		{"NaN submit", []Job{job(math.NaN(), 1, 1)}, All{U: 4}},
		{"L > U", ok, TwoLevel{L: 5, U: 4}},
		{"fixed 0", ok, Fixed{U: 4, N: 0}},
		{"K = 0", ok, OLS{U: 4, S: 200}},
		{"bad search", ok, OLS{U: 4, S: 200, K: 1, Search: 7}},
	} {
		if _, err := Run(c.jobs, c.policy); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// A job whose run exceeds its estimate is killed at the estimate; one whose
// run is shorter frees its processors early.
func TestKilledAtEstimate(t *testing.T) {
	jobs := []Job{
		{Submit: 0, Width: 4, Run: 50, Estimate: 20}, // killed at 20
		{Submit: 1, Width: 4, Run: 10, Estimate: 10},
	}
	res, err := Run(jobs, All{U: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Start, []float64{0, 20}) || res.Metrics.Work != 4*20+4*10 || res.Metrics.Span != 30 {
		t.Errorf("starts %v work %g span %g", res.Start, res.Metrics.Work, res.Metrics.Span)
	}
}

// An OLS decision on an empty system with arrivals to come sets 0 active
// processors (lawson.md §5.10); the next arrival raises to its width. A
// decision at the instant of an arrival sees the arrival.
func TestOLSEmptySystemAndCoincidingArrival(t *testing.T) {
	jobs := []Job{job(0, 1, 10), job(100, 3, 10)}
	res, err := Run(jobs, OLS{U: 4, S: 200, K: 50})
	if err != nil {
		t.Fatal(err)
	}
	// t=0: job 0 on U. t=50: decision, nothing in the system → 0.
	// t=100: the arrival raises to 3, then the decision (queue: the new
	// job, L = 3, one simulation, s = 1) keeps 3; it starts. t=150: the
	// last job has ended, no decision.
	m := res.Metrics
	if !slices.Equal(res.Start, []float64{0, 100}) || !slices.Equal(res.Timeline, []Change{{50, 0}, {100, 3}}) {
		t.Errorf("starts %v timeline %v", res.Start, res.Timeline)
	}
	if m.Decisions != 2 || m.Simulations != 1 || res.Decisions[1].Lower != 3 || len(res.Decisions[1].Snapshot.Queue) != 1 {
		t.Errorf("decisions %+v", res.Decisions)
	}
	if m.Span != 110 || m.ActiveArea != 4*50+3*10 {
		t.Errorf("span %g area %g, want 110 and 230", m.Span, m.ActiveArea)
	}
}

func TestReadSWF(t *testing.T) {
	const trace = `; Version: 2.2
; MaxProcs: 8
    1   10  0   100   4  -1 -1   4   200 -1 1 1 1 -1 -1 -1 -1 -1
    2   20  0   300  -1  -1 -1   2   200 -1 1 1 1 -1 -1 -1 -1 -1

    3   30  0     0   2  -1 -1   2   200 -1 0 1 1 -1 -1 -1 -1 -1
    4   40  0    50  -1  -1 -1  -1   200 -1 0 1 1 -1 -1 -1 -1 -1
    5   50  0    50   1  -1 -1   1    -1 -1 1 1 1 -1 -1 -1 -1 -1
`
	for _, c := range []struct {
		exact bool
		want  []Job
	}{
		{true, []Job{
			{Submit: 10, Width: 4, Run: 100, Estimate: 100},
			{Submit: 20, Width: 2, Run: 200, Estimate: 200}, // capped at its request
			{Submit: 50, Width: 1, Run: 50, Estimate: 50},
		}},
		{false, []Job{
			{Submit: 10, Width: 4, Run: 100, Estimate: 200},
			{Submit: 20, Width: 2, Run: 200, Estimate: 200},
			{Submit: 50, Width: 1, Run: 50, Estimate: 50}, // no request: its run time
		}},
	} {
		got, err := ReadSWF(strings.NewReader(trace), c.exact)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("exact %v: %+v, want %+v", c.exact, got, c.want)
		}
	}
	if _, err := ReadSWF(strings.NewReader("1 2 3\n"), true); err == nil {
		t.Error("short record accepted")
	}
}
