package runtime

import (
	"math"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Rules that read carbon.now or carbon.mean wake the scheduler when the
// intensity changes, as rules on the price do at price changes: a job the
// rule holds back starts at the first hour whose intensity it accepts
// (the machine has room for every job), never earlier and never later.
// Without those wake-ups nothing else happens once the last job arrived,
// and the run fails with jobs that never started.
func TestCarbonRulesWakeTheScheduler(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	// Six hours, repeated: clean only in hours 2 and 5 of each cycle.
	ci := []float64{400, 380, 100, 420, 390, 120}
	var jobs []workload.Job
	for i := range 40 {
		sub := float64(i) * 1300 // every 21 min 40 s, across hours
		jobs = append(jobs, workload.Job{ID: int64(i + 1), Submit: sub, Runtime: 600, Walltime: 600, Nodes: 1, Procs: 1})
	}
	// The intensity in force at sim time x (the series starts at 0).
	at := func(x float64) float64 { return ci[int(math.Floor(x/3600))%len(ci)] }
	// The mean over the submissions' span, first to last, hour by hour.
	last := jobs[len(jobs)-1].Submit
	var sum float64
	for a := 0.0; a < last; {
		b := math.Min(last, (math.Floor(a/3600)+1)*3600)
		sum += at(a) * (b - a)
		a = b
	}
	mean := sum / last // 301.6…: every hour but 2 and 5 is above it
	for _, tc := range []struct {
		name  string
		admit *Expr
		ok    func(float64) bool
	}{
		{"carbon.now < 300", &Expr{Source: "carbon.now < 300", Deps: DepCarbon, Bool: func(e *Env) bool { return e.Carbon.Now < 300 }},
			func(c float64) bool { return c < 300 }},
		{"carbon.now < carbon.mean", &Expr{Source: "carbon.now < carbon.mean", Deps: DepCarbon, Bool: func(e *Env) bool {
			if math.Abs(e.Carbon.Mean-mean) > 1e-9*mean {
				t.Fatalf("carbon.mean %v, recomputed %v", e.Carbon.Mean, mean)
			}
			return e.Carbon.Now < e.Carbon.Mean
		}}, func(c float64) bool { return c < mean }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Machine{Name: "m", Nodes: 64, Power: NodePower{Off: 5, Idle: 60, Busy: 250}}
			k := Contract{Name: "k", Kind: Flat, Price: 0.15, Currency: "EUR", HasCarbon: true}
			carbon := tariff.Hourly(clock, &tariff.Series{Name: "ci", Prices: ci}, time.Unix(0, 0).UTC())
			pol := Policy{Name: "green", Admit: tc.admit}
			s, err := simulate(jobs, &m, 64, &pol, constPower(len(jobs), 250), math.Inf(1), clock, tariff.Flat(0.15), withBill(&k, carbon))
			if err != nil {
				t.Fatal(err)
			}
			held := 0
			for i, j := range jobs {
				// The first instant at or after the submission the rule accepts.
				want := j.Submit
				for !tc.ok(at(want)) {
					want = (math.Floor(want/3600) + 1) * 3600
				}
				if want > j.Submit {
					held++
				}
				if s.start[i] != want {
					t.Errorf("job %d submitted at %v (intensity %v) started at %v, want %v", j.ID, j.Submit, at(j.Submit), s.start[i], want)
				}
			}
			if held < 20 {
				t.Errorf("only %d jobs were held back: the test does not test waking", held)
			}
		})
	}
}
