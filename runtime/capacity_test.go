package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/internal/reflawson"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Lawson & Smirni's capacity controllers (capacity.go) against
// lawson.md's worked examples (§2, §6 items 1–7) and, job for job, against
// the independent reference implementation internal/reflawson.

// toyJobs are jobs (submit s, nodes, run s) with exact estimates.
func toyJobs(spec [][3]float64) []workload.Job {
	jobs := make([]workload.Job, len(spec))
	for i, x := range spec {
		jobs[i] = workload.Job{ID: int64(i + 1), Submit: x[0], Nodes: int(x[1]), Procs: int(x[1]), Runtime: x[2], Walltime: x[2]}
	}
	return jobs
}

var easyExact = Policy{Name: "easy_exact", Backfill: EASY, Estimate: Exact}

// runActive simulates jobs on u nodes under EASY (exact estimates) with a
// capacity controller (nil: none).
func runActive(t testing.TB, jobs []workload.Job, u int, a *Active, opts ...simOption) *sim {
	t.Helper()
	pol := easyExact
	pol.Active = a
	m := testMachine(u)
	s, err := simulate(jobs, &m, u, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Item 1: Lawson's slowdown, and where it differs from bsld.
func TestLawsonSlowdown(t *testing.T) {
	for _, c := range []struct{ d, v, s, bsld float64 }{
		{0, 5, 1, 1}, {100, 5, 11, 10.5}, {50, 10, 6, 6}, {3600, 3600, 2, 2},
	} {
		if got := lawsonSlowdown(c.d, c.v); got != c.s {
			t.Errorf("s(d=%g, v=%g) = %g, want %g", c.d, c.v, got, c.s)
		}
		if got := math.Max(1, (c.d+c.v)/math.Max(10, c.v)); got != c.bsld {
			t.Errorf("bsld(d=%g, v=%g) = %g, want %g", c.d, c.v, got, c.bsld)
		}
	}
}

// lawson22 is §2.2's toy: U = 4, L = 2.
var lawson22 = [][3]float64{{0, 1, 100}, {0, 1, 50}, {10, 3, 20}, {200, 2, 30}, {300, 3, 10}, {300, 1, 100}, {310, 2, 10}}

// Item 2: §2.2 under the after-pass reading. The timeline written out:
//
//	t=0   1, 2 start on 4; busy 2 ≤ L, queue empty → active 2
//	t=10  3 (3 > L) arrives → active 4; 3 waits (free 2), reserved at 50
//	t=50  3 starts; t=70 3 ends, busy 1, queue empty → active 2
//	t=100 1 ends; t=200 4 starts on 2
//	t=300 5 (3 > L) → active 4; 5 and 6 start
//	t=310 5 ends, 7 arrives and starts on 4 (busy 3 > L: stay)
//	t=320 7 ends, busy 1 → active 2; t=400 6 ends
func TestTwoLevelToy(t *testing.T) {
	s := runActive(t, toyJobs(lawson22), 4, &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 2}, High: NodeLevel{All: true}})
	wantStart := []float64{0, 0, 50, 200, 300, 300, 310}
	if !slices.Equal(s.start, wantStart) {
		t.Errorf("starts %v, want %v", s.start, wantStart)
	}
	st := s.record().activeStat()
	want := []ActiveChange{{0, 2}, {10, 4}, {70, 2}, {300, 4}, {320, 2}}
	if !slices.Equal(st.Timeline, want) {
		t.Errorf("timeline %v, want %v", st.Timeline, want)
	}
	if !near(st.Util, 0.4375) || !near(st.Savings, 0.4) || !near(s.record().lawsonMean(), 9.0/7) || st.Changes != 5 || st.Area != 960 {
		t.Errorf("util %g savings %g mean s %g changes %d area %g; want 0.4375, 0.4, 9/7, 5, 960", st.Util, st.Savings, s.record().lawsonMean(), st.Changes, st.Area)
	}
	if v := s.record().slaViolations(2); !near(v, 1.0/7) {
		t.Errorf("SLA violations at S = 2: %g, want 1/7 (job 3's s is 3)", v)
	}
	all := runActive(t, toyJobs(lawson22), 4, nil)
	if !near(all.record().lawsonMean(), 9.0/7) {
		t.Errorf("all processors: mean s %g, want 9/7", all.record().lawsonMean())
	}
	// On 5 nodes with high 4 the schedule is the same, and the fifth node,
	// inactive throughout, counts among the savings: 1 − 960 / (5 · 400).
	five := runActive(t, toyJobs(lawson22), 5, &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 2}, High: NodeLevel{Nodes: 4}})
	if st5 := five.record().activeStat(); !slices.Equal(five.start, wantStart) || !slices.Equal(st5.Timeline, want) ||
		!near(st5.Savings, 0.52) || !near(st5.NodeHoursOff, 1040.0/3600) || !near(st5.Util, 0.4375) {
		t.Errorf("5 nodes, high 4: starts %v, timeline %v, savings %g, node-h off %g, util %g; want the 4-node schedule, 0.52, 1040/3600, 0.4375",
			five.start, st5.Timeline, st5.Savings, st5.NodeHoursOff, st5.Util)
	}
}

// Item 3: §2.3's OLS toy, U = 4: A, B, C each (0, 2, 100).
//
//	l = 2: starts 0, 100, 200 → s 1, 2, 3 → mean 2
//	l = 3: A at 0; B reserved at 100; C cannot backfill → mean 2
//	l = 4 = U: no simulation
func TestOnlineToy(t *testing.T) {
	jobs := toyJobs([][3]float64{{0, 2, 100}, {0, 2, 100}, {0, 2, 100}})
	for _, c := range []struct {
		sla       float64
		chosen    int
		simulated []int
		meanS     float64
		util, sav float64
	}{
		{1.5, 4, []int{2, 3}, 4.0 / 3, 0.75, 0},
		{2, 2, []int{2}, 2, 1, 0.5},
	} {
		var recs []decisionRecord
		a := &Active{Kind: ActiveOnline, SLA: c.sla, Every: 7 * 86400}
		s := runActive(t, jobs, 4, a, activeHooks(&activeTest{decideAtStart: true, record: func(d decisionRecord) { recs = append(recs, d) }}))
		if len(recs) != 1 || recs[0].T != 0 || recs[0].Lower != 2 || recs[0].Chosen != c.chosen || !slices.Equal(recs[0].Simulated, c.simulated) {
			t.Fatalf("S = %g: decisions %+v, want one at 0 with L 2 choosing %d after simulating %v", c.sla, recs, c.chosen, c.simulated)
		}
		for _, m := range recs[0].Means {
			if m != 2 {
				t.Errorf("S = %g: simulated means %v, want 2 each", c.sla, recs[0].Means)
			}
		}
		st := s.record().activeStat()
		if !near(s.record().lawsonMean(), c.meanS) || !near(st.Util, c.util) || !near(st.Savings, c.sav) {
			t.Errorf("S = %g: mean s %g util %g savings %g, want %g %g %g", c.sla, s.record().lawsonMean(), st.Util, st.Savings, c.meanS, c.util, c.sav)
		}
	}
}

// Item 4: §2.4's search sequences.
func TestSearchSequences(t *testing.T) {
	var asked []int
	meets := func(ok func(int) bool) func(int) bool {
		asked = asked[:0]
		return func(l int) bool { asked = append(asked, l); return ok(l) }
	}
	if got := searchLevels(60, 100, SearchTowardMax, meets(func(l int) bool { return l >= 87 })); got != 90 || !slices.Equal(asked, []int{60, 80, 90}) {
		t.Errorf("U 100, L 60, SLA met from 87: chose %d after %v, want 90 after [60 80 90]", got, asked)
	}
	if got := searchLevels(922, 1152, SearchTowardMax, meets(func(int) bool { return false })); got != 1152 || !slices.Equal(asked, []int{922, 1037, 1095, 1124, 1138, 1145, 1149, 1151}) {
		t.Errorf("U 1152, L 922, never met: chose %d after %v", got, asked)
	}
	if got := searchLevels(100, 100, SearchTowardMax, meets(func(int) bool { return true })); got != 100 || len(asked) != 0 {
		t.Errorf("L = U: chose %d after %v, want 100 without a simulation", got, asked)
	}
	if got := searchLevels(60, 100, SearchBinary, meets(func(l int) bool { return l >= 87 })); got != 87 {
		t.Errorf("binary: chose %d, want 87", got)
	}
}

// randomToyJobs draws n jobs for u nodes at about the given load; times are
// multiples of grain so that events coincide.
func randomToyJobs(r *rand.Rand, n, u int, load, grain float64) []workload.Job {
	spec := make([][3]float64, n)
	work := 0.0
	for i := range spec {
		w := 1 + r.IntN(min(u, 8))
		if r.IntN(3) == 0 {
			w = min(u, 1<<r.IntN(1+int(math.Log2(float64(u)))))
		}
		run := math.Max(grain, math.Ceil(30*math.Exp(r.Float64()*math.Log(1200))/grain)*grain)
		spec[i] = [3]float64{0, float64(w), run}
		work += run * float64(w)
	}
	gap := work / float64(n) / (float64(u) * load)
	tt := 0.0
	for i := range spec {
		tt += r.ExpFloat64() * gap
		spec[i][0] = math.Floor(tt/grain) * grain
	}
	return toyJobs(spec)
}

func refJobs(jobs []workload.Job) []reflawson.Job {
	out := make([]reflawson.Job, len(jobs))
	for i, j := range jobs {
		out[i] = reflawson.Job{Submit: j.Submit, Width: j.Nodes, Run: j.Runtime, Estimate: j.Runtime}
	}
	return out
}

// refPolicy is a's reading in internal/reflawson.
func refPolicy(a *Active, u int) reflawson.Policy {
	if a == nil {
		return reflawson.All{U: u}
	}
	switch a.Kind {
	case ActiveFixed:
		return reflawson.Fixed{U: u, N: a.Fixed.Of(u)}
	case ActiveTwoLevel:
		return reflawson.TwoLevel{U: a.High.Of(u), L: a.Low.Of(u)}
	}
	p := reflawson.OLS{U: u, S: a.SLA, K: a.Every, Search: reflawson.TowardMax, Raise: reflawson.ToWidth}
	if a.Search == SearchBinary {
		p.Search = reflawson.Binary
	}
	if a.Raise == RaiseToMax {
		p.Raise = reflawson.ToMax
	}
	return p
}

// compareReflawson runs jobs through the engine and reflawson and wants
// the same starts, timeline, decisions and metrics.
func compareReflawson(t *testing.T, name string, jobs []workload.Job, u int, a *Active) {
	t.Helper()
	var recs []decisionRecord
	s := runActive(t, jobs, u, a, activeHooks(&activeTest{record: func(d decisionRecord) { recs = append(recs, d) }}))
	ref, err := reflawson.Run(refJobs(jobs), refPolicy(a, u))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range jobs {
		if s.start[i] != ref.Start[i] {
			if bad < 3 {
				t.Errorf("%s: job %d starts at %v, reflawson at %v", name, i, s.start[i], ref.Start[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d starts differ", name, bad, len(jobs))
	}
	if !near(s.record().lawsonMean(), ref.Metrics.MeanSlowdown) {
		t.Errorf("%s: mean s %g, reflawson %g", name, s.record().lawsonMean(), ref.Metrics.MeanSlowdown)
	}
	if a == nil {
		return
	}
	st := s.record().activeStat()
	tl := make([]ActiveChange, len(ref.Timeline))
	for i, c := range ref.Timeline {
		tl[i] = ActiveChange{T: c.Time, Active: c.Active}
	}
	if !slices.Equal(st.Timeline, tl) {
		t.Errorf("%s: timeline differs: engine %d changes, reflawson %d\n%v\n%v", name, len(st.Timeline), len(tl), head(st.Timeline), head(tl))
	}
	if !near(st.Util, ref.Metrics.ActiveUtil) || !near(st.Savings, ref.Metrics.Savings) || st.Changes != ref.Metrics.Changes ||
		st.Decisions != ref.Metrics.Decisions || st.Simulations != ref.Metrics.Simulations {
		t.Errorf("%s: util %g savings %g changes %d decisions %d sims %d; reflawson %+v", name, st.Util, st.Savings, st.Changes, st.Decisions, st.Simulations, ref.Metrics)
	}
	if testing.Verbose() {
		t.Logf("%s: %d changes, %d decisions, %d sims, savings %.3f", name, st.Changes, st.Decisions, st.Simulations, st.Savings)
	}
	if len(recs) == len(ref.Decisions) {
		for i, d := range recs {
			r := ref.Decisions[i]
			if d.T != r.Time || d.Lower != r.Lower || d.Chosen != r.Chosen || !slices.Equal(d.Simulated, r.Simulated) {
				t.Errorf("%s: decision %d: engine %+v, reflawson t=%g L=%d chose %d after %v", name, i, d, r.Time, r.Lower, r.Chosen, r.Simulated)
				break
			}
		}
	}
}

func head[T any](x []T) []T { return x[:min(len(x), 12)] }

// The engine agrees with reflawson on random workloads under every
// controller.
func TestCapacityAgainstReflawson(t *testing.T) {
	compareReflawson(t, "toy two-level", toyJobs(lawson22), 4, &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 2}, High: NodeLevel{All: true}})
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 10))
		u := []int{4, 16, 64, 100}[seed%4]
		grain := []float64{1, 60, 600}[seed%3]
		load := 0.5 + 0.15*float64(seed%5)
		jobs := randomToyJobs(r, 400, u, load, grain)
		l := max(1, int(float64(u)*0.75))
		widest := 0
		for _, j := range jobs {
			widest = max(widest, j.Nodes)
		}
		for _, a := range []*Active{
			nil,
			{Kind: ActiveFixed, Fixed: NodeLevel{Nodes: widest + (u-widest)/2}},
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: l}, High: NodeLevel{All: true}},
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 0}, High: NodeLevel{All: true}},
			{Kind: ActiveOnline, SLA: 3, Every: 3600},
			{Kind: ActiveOnline, SLA: 1.5, Every: 1800, Raise: RaiseToMax},
			{Kind: ActiveOnline, SLA: 2, Every: 7200, Search: SearchBinary},
			{Kind: ActiveOnline, SLA: math.Inf(1), Every: 900},
		} {
			name := fmt.Sprintf("seed %d u %d grain %g: %+v", seed, u, grain, a)
			compareReflawson(t, name, jobs, u, a)
		}
	}
}

// Item 6: `active fixed 100%` and two-level with L = U are plain EASY.
func TestCapacityFullIsEASY(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 6))
		u := []int{16, 100, 128}[seed%3]
		jobs := randomToyJobs(r, 600, u, 0.9, []float64{1, 60}[seed%2])
		plain := runActive(t, jobs, u, nil)
		for _, a := range []*Active{
			{Kind: ActiveFixed, Fixed: NodeLevel{Share: 1}},
			{Kind: ActiveTwoLevel, Low: NodeLevel{All: true}, High: NodeLevel{All: true}},
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: u}, High: NodeLevel{Nodes: u}},
		} {
			s := runActive(t, jobs, u, a)
			if !slices.Equal(s.start, plain.start) || !slices.Equal(s.end, plain.end) {
				t.Fatalf("seed %d %+v: starts differ from plain EASY", seed, a)
			}
			if st := s.record().activeStat(); st.Changes != 0 || st.Savings != 0 {
				t.Errorf("seed %d %+v: %d changes, savings %g", seed, a, st.Changes, st.Savings)
			}
			if e, pe := s.record().metrics().Energy, plain.record().metrics().Energy; e != pe {
				t.Errorf("seed %d %+v: energy %g, plain %g", seed, a, e, pe)
			}
		}
	}
}

// Item 5: a decision never changes a running job nor sets active below
// the nodes held; with S = +∞ it sets L(t); when every simulation fails
// (S < 1) with jobs queued it sets U.
func TestOnlineDecisionProperties(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 5))
		u := []int{16, 64, 100}[seed%3]
		jobs := randomToyJobs(r, 500, u, 0.8, 60)
		for _, sla := range []float64{math.Inf(1), 0.5, 3} {
			var recs []decisionRecord
			a := &Active{Kind: ActiveOnline, SLA: sla, Every: 3600}
			s := runActive(t, jobs, u, a, activeHooks(&activeTest{record: func(d decisionRecord) { recs = append(recs, d) }}))
			// Replaying the timeline: active ≥ busy at every instant.
			checkActiveCovers(t, s, fmt.Sprintf("seed %d S %g", seed, sla))
			for _, d := range recs {
				switch {
				case d.Chosen < d.Lower:
					t.Fatalf("seed %d S %g: decision %+v below its lower bound", seed, sla, d)
				case math.IsInf(sla, 1) && d.Chosen != d.Lower:
					t.Fatalf("seed %d S = +Inf: decision %+v, want L(t)", seed, d)
				case sla < 1 && len(d.Simulated) > 0 && d.Chosen != u:
					t.Fatalf("seed %d S %g: decision %+v, want U = %d", seed, sla, d, u)
				}
			}
		}
	}
}

// checkActiveCovers checks that the jobs running never need more nodes
// than are active, at every start and every change of the active count.
func checkActiveCovers(t *testing.T, s *sim, name string) {
	t.Helper()
	st := s.record().activeStat()
	active := func(at float64) int {
		a := st.Initial
		for _, c := range st.Timeline {
			if c.T > at {
				break
			}
			a = c.Active
		}
		return a
	}
	var instants []float64
	for j := range s.jobs {
		instants = append(instants, s.start[j])
	}
	for _, c := range st.Timeline {
		instants = append(instants, c.T)
	}
	for _, at := range instants {
		busy := 0
		for j := range s.jobs {
			if s.start[j] <= at && s.end[j] > at {
				busy += int(s.alloc[j])
			}
		}
		if busy > active(at) {
			t.Fatalf("%s: at %g jobs hold %d nodes, %d active", name, at, busy, active(at))
		}
	}
}

// KTH-SP2 (EASY, exact estimates, Table 1's L = 75, OLS S = 200 weekly)
// job for job against reflawson, under PWRC_DATA.
func TestCapacityKTHAgainstReflawson(t *testing.T) {
	jobs, nodes := loadTrace(t, "KTH-SP2-1996-2.1-cln.swf.gz")
	const week = 7 * 86400.0
	for _, c := range []struct {
		name string
		a    *Active
	}{
		{"all", nil},
		{"fixed 100%", &Active{Kind: ActiveFixed, Fixed: NodeLevel{Share: 1}}},
		{"two-level", &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 75}, High: NodeLevel{All: true}}},
		{"ols", &Active{Kind: ActiveOnline, SLA: 200, Every: week}},
		{"ols 14 d", &Active{Kind: ActiveOnline, SLA: 200, Every: 2 * week}},
		{"ols binary", &Active{Kind: ActiveOnline, SLA: 200, Every: week, Search: SearchBinary}},
	} {
		t.Run(c.name, func(t *testing.T) {
			compareReflawson(t, "KTH "+c.name, jobs, nodes, c.a)
			s := runActive(t, jobs, nodes, c.a)
			if st := s.record().activeStat(); st != nil {
				t.Logf("mean s %.2f  active util %.4f  savings %.4f  changes %d  decisions %d  sims %d", s.record().lawsonMean(), st.Util, st.Savings, st.Changes, st.Decisions, st.Simulations)
			} else {
				t.Logf("mean s %.2f", s.record().lawsonMean())
			}
		})
	}
}

// Item 6 on KTH: `active fixed 100%` and two-level with L = U give plain
// EASY's schedule, job for job, under PWRC_DATA.
func TestCapacityKTHFullIsEASY(t *testing.T) {
	jobs, nodes := loadTrace(t, "KTH-SP2-1996-2.1-cln.swf.gz")
	plain := runActive(t, jobs, nodes, nil)
	for _, a := range []*Active{
		{Kind: ActiveFixed, Fixed: NodeLevel{Share: 1}},
		{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: nodes}, High: NodeLevel{All: true}},
	} {
		s := runActive(t, jobs, nodes, a)
		if !slices.Equal(s.start, plain.start) || !slices.Equal(s.end, plain.end) {
			t.Errorf("%+v: the schedule differs from plain EASY", a)
		}
		if e, pe := s.record().metrics().Energy, plain.record().metrics().Energy; e != pe {
			t.Errorf("%+v: energy %g J, plain EASY %g J", a, e, pe)
		}
	}
}

// With boot and shutdown times, a lowering shuts nodes down and a raise
// boots them; jobs wait for them. Every run completes, jobs never hold
// more nodes than are active, and the machine's states add up.
func TestCapacityWithTransitions(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		u := []int{8, 32, 100}[seed%3]
		jobs := randomToyJobs(r, 400, u, 0.7, 60)
		for _, a := range []*Active{
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: u / 2}, High: NodeLevel{All: true}},
			{Kind: ActiveOnline, SLA: 3, Every: 3600},
			{Kind: ActiveOnline, SLA: 3, Every: 3600, Raise: RaiseToMax},
			{Kind: ActiveFixed, Fixed: NodeLevel{All: true}},
		} {
			for _, shut := range []bool{false, true} {
				pol := easyExact
				pol.Active = a
				if shut {
					pol.Shutdown = &Shutdown{After: 600}
				}
				m := testMachine(u)
				m.BootTime, m.ShutdownTime = 120, 60
				s, err := simulate(jobs, &m, u, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("seed %d %+v shutdown %v", seed, a, shut)
				if s.done != len(jobs) {
					t.Fatalf("%s: %d of %d jobs done", name, s.done, len(jobs))
				}
				checkActiveCovers(t, s, name)
				c := s.cnt
				if c.Busy != 0 || c.Booting != s.capa.boot || c.Idle+c.Off+c.Shutting+c.Booting != u || c.Idle < 0 || c.Off < 0 {
					t.Fatalf("%s: counts at the end %+v (controller: %d booting)", name, *c, s.capa.boot)
				}
				if s.capa.inact < 0 || s.capa.inShut < 0 || s.capa.actShut < 0 || s.capa.inact > u {
					t.Fatalf("%s: controller %+v", name, *s.capa)
				}
			}
		}
	}
}

// A raise boots nodes, and jobs wait exactly for them. Two-level on 4
// nodes, L = 2, boot 100 s, shutdown 0:
//
//	t=0   A (1 node, 1000 s) starts; busy 1 ≤ L, queue empty → active 2
//	      (two idle nodes off at once)
//	t=10  B (3 nodes, 50 s) > L → active 4: two nodes boot until 110; B
//	      is the head, reserved at 110 (1 idle + 2 booting)
//	t=20  C (1 node, 30 s) ends by 50 ≤ 110 on the idle node: backfilled
//	t=110 the nodes are up, B starts; t=160 B ends, busy 1 → active 2
//
// With boot 0 the raise is immediate: B starts at 10, C waits for B's end
// at 60, and after that pass busy 2 ≤ L → active 2.
func TestCapacityJobsWaitForBoots(t *testing.T) {
	jobs := toyJobs([][3]float64{{0, 1, 1000}, {10, 3, 50}, {20, 1, 30}})
	for _, c := range []struct {
		boot      float64
		start     []float64
		timeline  []ActiveChange
		bootNodes float64 // node-seconds booting
	}{
		{100, []float64{0, 110, 20}, []ActiveChange{{0, 2}, {10, 4}, {160, 2}}, 200},
		{0, []float64{0, 10, 60}, []ActiveChange{{0, 2}, {10, 4}, {60, 2}}, 0},
	} {
		pol := easyExact
		pol.Active = &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 2}, High: NodeLevel{All: true}}
		m := testMachine(4)
		m.BootTime = c.boot
		s, err := simulate(jobs, &m, 4, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.start, c.start) {
			t.Errorf("boot %g s: starts %v, want %v", c.boot, s.start, c.start)
		}
		if tl := s.record().activeStat().Timeline; !slices.Equal(tl, c.timeline) {
			t.Errorf("boot %g s: timeline %v, want %v", c.boot, tl, c.timeline)
		}
		if got := s.record().metrics().EnergyBy[machine.Boot] / m.Power.Boot; math.Abs(got-c.bootNodes) > 1e-9 {
			t.Errorf("boot %g s: %g node-seconds booting, want %g", c.boot, got, c.bootNodes)
		}
	}
}

// SDSC-BLUE (Blue Horizon at processor granularity, U = 1152, Table 1's
// L = 922): two-level and weekly OLS job for job against reflawson, under
// PWRC_DATA and PWRC_LONG=1.
func TestCapacityBlueAgainstReflawson(t *testing.T) {
	if !testenv.Long() {
		t.Skip("a large trace: a long test (set PWRC_LONG=1)")
	}
	jobs, nodes := loadTrace(t, "SDSC-BLUE-2000-4.2-cln.swf.gz")
	for _, c := range []struct {
		name string
		a    *Active
	}{
		{"two-level", &Active{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: 922}, High: NodeLevel{All: true}}},
		{"ols", &Active{Kind: ActiveOnline, SLA: 200, Every: 7 * 86400}},
	} {
		t.Run(c.name, func(t *testing.T) { compareReflawson(t, "SDSC-BLUE "+c.name, jobs, nodes, c.a) })
	}
}

// Requested estimates: the engine's backfilling uses them and its
// look-ahead lasts them; reflawson agrees job for job.
func TestCapacityRequestedAgainstReflawson(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 13))
		u := []int{16, 64, 100}[seed%3]
		jobs := randomToyJobs(r, 400, u, 0.8, 60)
		for i := range jobs { // estimates 1 to 4 times the run, rounded to 15 min
			jobs[i].Walltime = math.Max(900, math.Ceil(jobs[i].Runtime*(1+3*r.Float64())/900)*900)
		}
		for _, a := range []*Active{
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: u * 3 / 4}, High: NodeLevel{All: true}},
			{Kind: ActiveOnline, SLA: 3, Every: 3600},
			{Kind: ActiveOnline, SLA: 10, Every: 7200, Search: SearchBinary},
		} {
			pol := Policy{Name: "easy", Backfill: EASY, Active: a}
			m := testMachine(u)
			s, err := simulate(jobs, &m, u, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
			if err != nil {
				t.Fatal(err)
			}
			in := refJobs(jobs)
			for i := range in {
				in[i].Estimate = jobs[i].Walltime
			}
			ref, err := reflawson.Run(in, refPolicy(a, u))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.start, ref.Start) {
				t.Fatalf("seed %d %+v: starts differ from reflawson's", seed, a)
			}
			st := s.record().activeStat()
			if st.Changes != ref.Metrics.Changes || st.Decisions != ref.Metrics.Decisions || st.Simulations != ref.Metrics.Simulations || !near(st.Savings, ref.Metrics.Savings) {
				t.Fatalf("seed %d %+v: %+v, reflawson %+v", seed, a, st, ref.Metrics)
			}
		}
	}
}

// The controller gives the same schedule, timeline and energy on counted
// nodes, on identified nodes (a Table) and with full passes only, with
// and without boot and shutdown times.
func TestCapacityNodeModelsAgree(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 12))
		u := []int{16, 64}[seed%2]
		jobs := randomToyJobs(r, 300, u, 0.75, 60)
		for _, a := range []*Active{
			{Kind: ActiveTwoLevel, Low: NodeLevel{Nodes: u / 2}, High: NodeLevel{All: true}},
			{Kind: ActiveOnline, SLA: 3, Every: 3600},
		} {
			for _, transit := range []bool{false, true} {
				run := func(opts ...simOption) *sim {
					pol := easyExact
					pol.Active = a
					m := testMachine(u)
					if transit {
						m.BootTime, m.ShutdownTime = 120, 60
					}
					s, err := simulate(jobs, &m, u, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), opts...)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				counted := run()
				table := run(recordNodes())
				full := run(fullPasses())
				name := fmt.Sprintf("seed %d %+v transit %v", seed, a, transit)
				for _, other := range []*sim{table, full} {
					if !slices.Equal(counted.start, other.start) || fmt.Sprint(counted.record().activeStat()) != fmt.Sprint(other.record().activeStat()) ||
						!near(counted.record().metrics().Energy, other.record().metrics().Energy) {
						t.Fatalf("%s: counted and identified nodes or full passes differ", name)
					}
				}
			}
		}
	}
}

// Rules see the active nodes as the free ones: system.free counts only
// active nodes a job could take.
func TestCapacitySystemFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 14))
	jobs := randomToyJobs(r, 300, 64, 0.6, 60)
	checked := 0
	a := &Active{Kind: ActiveOnline, SLA: 5, Every: 3600}
	h := &activeTest{}
	h.probe = func(s *sim, l int, la *lookahead) {
		s.setPassEnv()
		if got, want := s.env.System.Free, s.capa.free(s); got != want || want > s.capa.active {
			t.Fatalf("at %g: system.free %d, want %d (active %d)", s.now, got, want, s.capa.active)
		}
		checked++
	}
	runActive(t, jobs, 64, a, activeHooks(h))
	if checked == 0 {
		t.Fatal("no simulation ran")
	}
}
