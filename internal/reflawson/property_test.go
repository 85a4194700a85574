package reflawson

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomJobs draws n jobs for a machine of u processors at offered load
// load: widths mostly small with some powers of two up to the whole
// machine, run times log-uniform from 30 s to 10 h, Poisson arrivals. Times
// are whole multiples of grain, so a coarse grain makes many events
// coincide. With exact, Estimate = Run; otherwise it is 1 to 4 times the run
// time rounded up to 15 minutes, and one job in ten overruns it.
func randomJobs(r *rand.Rand, n, u int, load, grain float64, exact bool) []Job {
	roundUp := func(x, step float64) float64 { return math.Max(step, math.Ceil(x/step)*step) }
	jobs := make([]Job, n)
	work := 0.0
	for i := range jobs {
		w := 1 + r.IntN(min(u, 8))
		if r.IntN(3) == 0 {
			w = min(u, 1<<r.IntN(1+int(math.Log2(float64(u)))))
		}
		run := roundUp(30*math.Exp(r.Float64()*math.Log(1200)), grain)
		est := run
		if !exact {
			est = roundUp(run*(1+3*r.Float64()), 900)
			if r.IntN(10) == 0 {
				run = est * 1.5 // killed at its estimate
			}
		}
		jobs[i] = Job{Width: w, Run: run, Estimate: est}
		work += math.Min(run, est) * float64(w)
	}
	gap := work / float64(n) / (float64(u) * load)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() * gap
		jobs[i].Submit = math.Floor(t/grain) * grain
	}
	return jobs
}

// plainEASY is a second, deliberately different formulation of EASY on a
// fixed capacity: a job may jump the queue when it fits now and the profile
// of free processors (running jobs released at their estimated ends, the
// head's reservation from the shadow time on) stays non-negative over its
// whole estimated run.
func plainEASY(jobs []Job, capacity int) []float64 {
	type run struct {
		width       int
		estEnd, end float64
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(jobs[a].Submit, jobs[b].Submit) })
	start := make([]float64, len(jobs))
	var running []run
	var queue []int
	// freeAt is the number of free processors at τ ≥ now by estimates.
	freeAt := func(tau float64) int {
		f := capacity
		for _, r := range running {
			if r.estEnd > tau {
				f -= r.width
			}
		}
		return f
	}
	next := 0
	for next < len(order) || len(running) > 0 {
		t := math.Inf(1)
		if next < len(order) {
			t = jobs[order[next]].Submit
		}
		for _, r := range running {
			t = math.Min(t, r.end)
		}
		running = slices.DeleteFunc(running, func(r run) bool { return r.end == t })
		for next < len(order) && jobs[order[next]].Submit == t {
			queue = append(queue, order[next])
			next++
		}
		begin := func(i int) {
			j := jobs[i]
			start[i] = t
			running = append(running, run{j.Width, t + j.Estimate, t + math.Min(j.Run, j.Estimate)})
		}
		for len(queue) > 0 && jobs[queue[0]].Width <= freeAt(t) {
			begin(queue[0])
			queue = queue[1:]
		}
		if len(queue) == 0 {
			continue
		}
		head := jobs[queue[0]].Width
		shadow := math.Inf(1)
		for _, r := range running {
			if r.estEnd < shadow && freeAt(r.estEnd) >= head {
				shadow = r.estEnd
			}
		}
		var kept []int
		for _, i := range queue[1:] {
			j := jobs[i]
			ok := j.Width <= freeAt(t)
			points := []float64{t, shadow}
			for _, r := range running {
				points = append(points, r.estEnd)
			}
			for _, tau := range points {
				if tau < t || tau >= t+j.Estimate {
					continue
				}
				need := j.Width
				if tau >= shadow {
					need += head
				}
				ok = ok && freeAt(tau) >= need
			}
			if ok {
				begin(i)
			} else {
				kept = append(kept, i)
			}
		}
		queue = append(queue[:1], kept...)
	}
	return start
}

// checkCapacity checks that busy ≤ active at every instant, from the
// starts and the timeline alone.
func checkCapacity(t *testing.T, jobs []Job, res *Result, initial int) {
	t.Helper()
	activeAt := func(tau float64) int {
		a := initial
		for _, c := range res.Timeline {
			if c.Time <= tau {
				a = c.Active
			}
		}
		return a
	}
	busyAt := func(tau float64) int {
		b := 0
		for i, j := range jobs {
			if res.Start[i] <= tau && tau < res.Start[i]+math.Min(j.Run, j.Estimate) {
				b += j.Width
			}
		}
		return b
	}
	points := slices.Clone(res.Start)
	for _, c := range res.Timeline {
		points = append(points, c.Time)
	}
	for _, tau := range points {
		if b, a := busyAt(tau), activeAt(tau); b > a {
			t.Fatalf("t=%g: busy %d above active %d", tau, b, a)
		}
	}
	for i, j := range jobs {
		if res.Start[i] < j.Submit {
			t.Fatalf("job %d starts at %g before its submission %g", i, res.Start[i], j.Submit)
		}
	}
}

// EASY cases worked by hand (from refsim's tests, in this package's terms).
func TestEASYHandWorked(t *testing.T) {
	j := func(submit, run, est float64, width int) Job {
		return Job{Submit: submit, Width: width, Run: run, Estimate: est}
	}
	for _, c := range []struct {
		name  string
		u     int
		jobs  []Job
		start []float64
	}{
		{"every job at t=0", 4, []Job{j(0, 10, 10, 2), j(0, 5, 5, 2), j(0, 3, 3, 4), j(0, 1, 1, 1)}, []float64{0, 0, 10, 5}},
		{"simultaneous ends and arrivals", 4, []Job{
			j(0, 10, 10, 2), j(0, 10, 20, 2), j(1, 5, 5, 4), j(1, 3, 3, 2), j(10, 2, 2, 4), j(10, 1, 1, 1),
		}, []float64{0, 0, 10, 15, 18, 15}},
		{"early end after a backfill", 4, []Job{j(0, 5, 100, 3), j(1, 10, 10, 4), j(1, 50, 50, 1)}, []float64{0, 51, 1}},
		{"backfill refused", 4, []Job{j(0, 10, 10, 2), j(1, 5, 5, 4), j(2, 20, 20, 2)}, []float64{0, 10, 15}},
		{"ends exactly at the shadow time", 4, []Job{j(0, 10, 10, 2), j(1, 5, 5, 4), j(2, 8, 8, 2)}, []float64{0, 10, 2}},
		{"extra used up", 8, []Job{
			j(0, 10, 10, 4), j(1, 5, 5, 6), j(1, 20, 20, 2), j(1, 20, 20, 1), j(1, 9, 9, 2),
		}, []float64{0, 10, 1, 15, 1}},
		{"tie at the shadow time", 8, []Job{j(0, 10, 10, 3), j(0, 10, 10, 3), j(1, 5, 5, 4), j(1, 20, 20, 2)}, []float64{0, 0, 10, 1}},
		{"FCFS head blocks", 4, []Job{j(0, 10, 10, 3), j(0, 5, 5, 2), j(0, 5, 5, 1)}, []float64{0, 10, 0}},
	} {
		for _, p := range []Policy{All{U: c.u}, Fixed{U: c.u + 3, N: c.u}} {
			res, err := Run(c.jobs, p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Start, c.start) {
				t.Errorf("%s %T: starts %v, want %v", c.name, p, res.Start, c.start)
			}
		}
		if got := plainEASY(c.jobs, c.u); !slices.Equal(got, c.start) {
			t.Errorf("%s: plainEASY starts %v, want %v", c.name, got, c.start)
		}
	}
}

// lawson.md §6 item 6: all processors, a fixed level equal to U and
// two-level with L = U are plain EASY, job for job.
func TestFixedUIsPlainEASY(t *testing.T) {
	for seed := range uint64(6) {
		for _, grain := range []float64{1, 600} {
			for _, exact := range []bool{true, false} {
				r := rand.New(rand.NewPCG(seed, 1))
				u := 8 << r.IntN(3)
				jobs := randomJobs(r, 300, u, 0.95, grain, exact)
				want := plainEASY(jobs, u)
				for _, p := range []Policy{All{U: u}, Fixed{U: u, N: u}, TwoLevel{L: u, U: u}} {
					res, err := Run(jobs, p)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(res.Start, want) {
						t.Fatalf("seed %d grain %g exact %v %#v: starts differ from plain EASY", seed, grain, exact, p)
					}
					if res.Metrics.Changes != 0 || res.Metrics.Savings != 0 {
						t.Fatalf("%#v: %d changes, savings %g", p, res.Metrics.Changes, res.Metrics.Savings)
					}
				}
				// A fixed level below U is plain EASY on that many processors.
				n := u - u/4
				res, err := Run(jobs, Fixed{U: u, N: n})
				if err != nil {
					continue // some job is wider than n
				}
				if !slices.Equal(res.Start, plainEASY(jobs, n)) {
					t.Fatalf("seed %d: Fixed{%d, %d} differs from plain EASY on %d", seed, u, n, n)
				}
			}
		}
	}
}

func TestTwoLevelRandom(t *testing.T) {
	changes := 0
	defer func() {
		if changes < 50 {
			t.Errorf("only %d changes in all runs", changes)
		}
	}()
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 2))
		u := 16 << r.IntN(2)
		l := u/2 + r.IntN(u/2)
		jobs := randomJobs(r, 300, u, 0.4+0.6*r.Float64(), []float64{1, 300}[seed%2], seed%3 != 0)
		for _, before := range []bool{false, true} {
			res, err := Run(jobs, TwoLevel{L: l, U: u, LowerBeforePass: before})
			if err != nil {
				t.Fatal(err)
			}
			checkCapacity(t, jobs, res, u)
			changes += res.Metrics.Changes
			prev := u
			for _, c := range res.Timeline {
				if c.Active != l && c.Active != u || c.Active == prev {
					t.Fatalf("seed %d: timeline %v", seed, res.Timeline)
				}
				if c.Active == u && !slices.ContainsFunc(jobs, func(j Job) bool { return j.Submit == c.Time && j.Width > l }) {
					t.Fatalf("seed %d: raise at %g without an arrival wider than L", seed, c.Time)
				}
				prev = c.Active
			}
		}
	}
}

// lawson.md §6 item 5 on random workloads.
func TestOLSRandom(t *testing.T) {
	between := 0 // decisions choosing L(t) < l < U: the search went past L
	defer func() {
		if between < 20 {
			t.Errorf("only %d decisions chose a level strictly between L(t) and U", between)
		}
	}()
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 3))
		u := 16 << r.IntN(2)
		jobs := randomJobs(r, 250, u, 0.5+0.5*r.Float64(), []float64{1, 60}[seed%2], seed%3 != 0)
		k := []float64{600, 3600, 20000}[seed%3]
		for _, sla := range []float64{math.Inf(1), 0.5, 3, 30} {
			for _, search := range []Search{TowardMax, Binary} {
				for _, raise := range []Raise{ToWidth, ToMax} {
					p := OLS{U: u, S: sla, K: k, Search: search, Raise: raise}
					name := fmt.Sprintf("seed %d S %g %v raise %d", seed, sla, search, raise)
					res, err := Run(jobs, p)
					if err != nil {
						t.Fatal(err)
					}
					checkOLS(t, name, jobs, p, res)
					for _, d := range res.Decisions {
						if d.Lower < d.Chosen && d.Chosen < u {
							between++
						}
					}
				}
			}
		}
	}
}

func checkOLS(t *testing.T, name string, jobs []Job, p OLS, res *Result) {
	t.Helper()
	checkCapacity(t, jobs, res, p.U)
	if res.Metrics.Decisions == 0 {
		t.Fatalf("%s: no decision", name)
	}
	decided := map[float64]bool{}
	for _, d := range res.Decisions {
		decided[d.Time] = true
		s := d.Snapshot
		busy, queued := s.Busy(), len(s.Queue) > 0
		switch {
		case d.Lower != max(busy, s.Widest()):
			t.Fatalf("%s t=%g: lower %d", name, d.Time, d.Lower)
		case d.Chosen < busy || d.Chosen < d.Lower || d.Chosen > p.U:
			t.Fatalf("%s t=%g: chosen %d, busy %d, lower %d", name, d.Time, d.Chosen, busy, d.Lower)
		case math.IsInf(p.S, 1) && d.Chosen != d.Lower:
			t.Fatalf("%s t=%g: S=+Inf chose %d, not L(t) = %d", name, d.Time, d.Chosen, d.Lower)
		case p.S < 1 && queued && d.Chosen != p.U:
			t.Fatalf("%s t=%g: S<1 with %d queued chose %d, not U", name, d.Time, len(s.Queue), d.Chosen)
		case p.S < 1 && !queued && d.Chosen != busy:
			t.Fatalf("%s t=%g: S<1 with an empty queue chose %d, not busy %d", name, d.Time, d.Chosen, busy)
		case !queued && len(d.Simulated) > 0:
			t.Fatalf("%s t=%g: simulated an empty queue", name, d.Time)
		case slices.Contains(d.Simulated, p.U):
			t.Fatalf("%s t=%g: simulated at U", name, d.Time)
		}
		// The choice is consistent with the simulations it ran.
		for _, l := range d.Simulated {
			mean, _ := Forecast(s, l)
			if meets := mean <= p.S; meets != (l >= d.Chosen) && (p.Search == TowardMax || l == d.Chosen) {
				t.Fatalf("%s t=%g: level %d (mean %g) against chosen %d", name, d.Time, l, mean, d.Chosen)
			}
		}
		// The same decision twice gives the same answer.
		again, sim := Decide(s, p.U, p.S, p.Search)
		if again != d.Chosen || !slices.Equal(sim, d.Simulated) {
			t.Fatalf("%s t=%g: decision not repeatable", name, d.Time)
		}
	}
	// Between decisions the count only rises, to an arrival's width or U.
	for _, c := range res.Timeline {
		if decided[c.Time] {
			continue
		}
		widest := 0
		for _, j := range jobs {
			if j.Submit == c.Time {
				widest = max(widest, j.Width)
			}
		}
		want := widest
		if p.Raise == ToMax {
			want = p.U
		}
		if widest == 0 || c.Active != want {
			t.Fatalf("%s t=%g: change to %d between decisions (widest arrival %d)", name, c.Time, c.Active, widest)
		}
	}
}

// lawson.md §6 item 7: with exact estimates and no arrival after a
// decision, the real run follows the forecast at the chosen level until the
// next decision.
func TestOLSExactForecast(t *testing.T) {
	compared, drained := 0, 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 4))
		u := 16
		jobs := randomJobs(r, 60, u, 1.5+r.Float64(), []float64{1, 60}[seed%2], true)
		last := jobs[len(jobs)-1].Submit
		k := 200 + r.Float64()*2000
		sla := []float64{1.5, 3, 10, 50}[seed%4]
		p := OLS{U: u, S: sla, K: k, Search: []Search{TowardMax, Binary}[seed%3%2]}
		res, err := Run(jobs, p)
		if err != nil {
			t.Fatal(err)
		}
		for n, d := range res.Decisions {
			if d.Time < last {
				continue // later arrivals would change the outcome
			}
			nextDec := d.Time + k // also beyond the run if it is the last one
			if n+1 < len(res.Decisions) {
				nextDec = res.Decisions[n+1].Time
			}
			_, fc := Forecast(d.Snapshot, d.Chosen)
			// The queued jobs, in queue order, are the jobs submitted by
			// d.Time and not started before it.
			var queued []int
			for i, j := range jobs {
				if j.Submit <= d.Time && res.Start[i] >= d.Time {
					queued = append(queued, i)
				}
			}
			if len(queued) != len(fc) {
				t.Fatalf("seed %d t=%g: %d queued jobs, forecast has %d", seed, d.Time, len(queued), len(fc))
			}
			all := true
			for k, i := range queued {
				if fc[k] < nextDec || res.Start[i] < nextDec {
					compared++
					if fc[k] != res.Start[i] {
						t.Fatalf("seed %d t=%g l=%d: job %d forecast at %g, starts at %g", seed, d.Time, d.Chosen, i, fc[k], res.Start[i])
					}
				} else {
					all = false
				}
			}
			if all && len(queued) > 0 {
				drained++
			}
		}
	}
	t.Logf("%d starts compared, %d decisions forecast in full", compared, drained)
	if compared < 100 || drained < 5 {
		t.Fatalf("too few cases: %d starts compared, %d full forecasts", compared, drained)
	}
}
