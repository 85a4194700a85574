package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/runtime/workload"
)

// burstJobs are n jobs of 1 to wide nodes, 30 s to 10 h, submitted at
// random over span (multiples of grain): queues build up.
func burstJobs(r *rand.Rand, n, wide int, span, grain float64) []workload.Job {
	spec := make([][3]float64, n)
	for i := range spec {
		spec[i] = [3]float64{math.Floor(r.Float64()*span/grain) * grain, float64(1 + r.IntN(wide)),
			math.Max(grain, math.Ceil(30*math.Exp(r.Float64()*math.Log(1200))/grain)*grain)}
	}
	slices.SortStableFunc(spec, func(a, b [3]float64) int { return int(a[0] - b[0]) })
	return toyJobs(spec)
}

// heldThenBurst: long jobs holding a quarter of u nodes from 0, then a
// burst of n narrow jobs at `at`.
func heldThenBurst(r *rand.Rand, u, n int, at, grain float64) []workload.Job {
	var spec [][3]float64
	for held := 0; held < u/4; {
		w := 1 + r.IntN(u/8+1)
		spec = append(spec, [3]float64{0, float64(w), at + 1000 + math.Floor(r.Float64()*1e5/grain)*grain})
		held += w
	}
	for _, j := range burstJobs(r, n, u/4, 0, grain) {
		spec = append(spec, [3]float64{at, float64(j.Nodes), j.Runtime})
	}
	return toyJobs(spec)
}

// Item 7: under exact estimates, with no arrivals after a decision, the
// real starts after it equal the simulated starts at the chosen level.
// The workload: long jobs holding part of the machine from 0, then a
// burst of narrow jobs at `at`, where the only decision before the queue
// drains falls (the next one is `at` later).
func TestForecastIsExact(t *testing.T) {
	tested := 0
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 7))
		u := []int{16, 64, 100, 128}[seed%4]
		grain := []float64{1, 60}[seed%2]
		at := 1e7
		jobs := heldThenBurst(r, u, 40, at, grain)
		var queued []int32
		var simStart []float64
		chosen := -1
		a := &Active{Kind: ActiveOnline, SLA: []float64{math.Inf(1), 50, 200}[seed%3], Every: at}
		h := &activeTest{record: func(d decisionRecord) {
			if d.T == at {
				chosen = d.Chosen
			}
		}}
		h.probe = func(s *sim, l int, la *lookahead) {
			if s.now != at {
				return // (the last level simulated is the chosen one, unless U)
			}
			queued = append(queued[:0], s.queue...)
			simStart = simStart[:0]
			for _, j := range s.queue {
				simStart = append(simStart, la.Start(j))
			}
		}
		s := runActive(t, jobs, u, a, activeHooks(h))
		if chosen < 0 || len(queued) == 0 {
			t.Fatalf("seed %d: no decision with a queue at %g", seed, at)
		}
		if s.lastEnd >= 2*at {
			t.Fatalf("seed %d: a later decision fell before the queue drained", seed)
		}
		if chosen == u {
			continue // U is never simulated
		}
		tested++
		bad := 0
		for k, j := range queued {
			if s.start[j] != simStart[k] {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("seed %d: %d of %d queued jobs start away from the forecast at %d nodes", seed, bad, len(queued), chosen)
		}
	}
	t.Logf("%d of 10 decisions chose a level below U", tested)
	if tested < 3 {
		t.Errorf("only %d decisions chose a level below U", tested)
	}
}

// A decision run twice on the same state gives the same answer, and the
// look-ahead leaves the run's state untouched; the real run is identical
// whether the look-ahead engine is reused or built anew every time.
func TestLookaheadDeterministic(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 8))
		u := []int{16, 64, 100}[seed%3]
		jobs := randomToyJobs(r, 400, u, 0.9, 60)
		twice := 0
		a := &Active{Kind: ActiveOnline, SLA: 2, Every: 3600}
		h := &activeTest{}
		h.probe = func(s *sim, l int, la *lookahead) {
			q := slices.Clone(s.queue)
			run := slices.Clone(s.run.items())
			st := slices.Clone(s.start)
			again := la.forecast(s, l)
			if !slices.Equal(q, s.queue) || !slices.Equal(run, s.run.items()) || !slices.Equal(st, s.start) {
				t.Fatalf("seed %d: the forecast changed the run's state", seed)
			}
			fresh := newLookahead(s).forecast(s, l)
			if again != fresh {
				t.Fatalf("seed %d at %g, l %d: forecast %g, again on a new engine %g", seed, s.now, l, again, fresh)
			}
			twice++
		}
		reused := runActive(t, jobs, u, a, activeHooks(h))
		fresh := runActive(t, jobs, u, a, activeHooks(&activeTest{fresh: true}))
		if !slices.Equal(reused.start, fresh.start) || !slices.Equal(reused.end, fresh.end) ||
			fmt.Sprint(reused.record().activeStat()) != fmt.Sprint(fresh.record().activeStat()) || reused.record().metrics().Energy != fresh.record().metrics().Energy {
			t.Fatalf("seed %d: the run differs with a fresh look-ahead engine per simulation", seed)
		}
		if twice == 0 {
			t.Fatalf("seed %d: no simulation ran", seed)
		}
	}
}

// Once warm, the look-ahead allocates nothing.
func TestLookaheadNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	jobs := heldThenBurst(r, 100, 100, 1e6, 60)
	checked := false
	a := &Active{Kind: ActiveOnline, SLA: math.Inf(1), Every: 1e6}
	h := &activeTest{}
	h.probe = func(s *sim, l int, la *lookahead) {
		if checked || len(s.queue) < 20 {
			return
		}
		checked = true
		la.forecast(s, l) // warm
		if n := testing.AllocsPerRun(20, func() { la.forecast(s, l) }); n != 0 {
			t.Errorf("forecast with %d queued, %d running: %g allocations per simulation", len(s.queue), s.run.len(), n)
		}
	}
	runActive(t, jobs, 100, a, activeHooks(h))
	if !checked {
		t.Fatal("no decision with a queue of 20")
	}
}

func BenchmarkLookahead(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 9))
	jobs := heldThenBurst(r, 128, 200, 1e6, 60)
	var la *lookahead
	var st *sim
	l := 0
	a := &Active{Kind: ActiveOnline, SLA: math.Inf(1), Every: 1e6}
	h := &activeTest{}
	h.probe = func(s *sim, lv int, x *lookahead) {
		if st == nil && len(s.queue) >= 50 {
			st, la, l = s, x, lv
			b.ResetTimer()
			for range b.N {
				la.forecast(s, l)
			}
			b.ReportMetric(float64(len(s.queue)), "queued")
		}
	}
	runActive(b, jobs, 128, a, activeHooks(h))
	if st == nil {
		b.Skip("no decision with 50 queued")
	}
}
