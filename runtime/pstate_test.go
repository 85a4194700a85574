package runtime

import (
	"math"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

func curiePStates() []PState {
	var ps []PState
	for i, w := range []float64{358, 317, 289, 269, 248, 234, 213, 193} {
		ps = append(ps, PState{Freq: []float64{2.7e9, 2.4e9, 2.2e9, 2.0e9, 1.8e9, 1.6e9, 1.4e9, 1.2e9}[i], Power: w})
	}
	return ps
}

// TestStretch checks s(f) per pstate (georgiou.md §2.6), linear in
// frequency: 1.294 at 2.0 GHz, Georgiou et al.'s 1.29 for MIX.
func TestStretch(t *testing.T) {
	m := Machine{PStates: curiePStates(), Slowdown: 1.63}
	want := []float64{1, 1.126, 1.210, 1.294, 1.378, 1.462, 1.546, 1.630}
	for p, w := range want {
		if got := m.Stretch(p); math.Abs(got-w) > 5e-4 {
			t.Errorf("s(%.1f GHz) = %.4f, want %.3f", m.PStates[p].Freq/1e9, got, w)
		}
	}
}

// TestPStateRuns runs jobs at a fixed pstate and by a rule: each runs
// runtime × s(f), draws its pstate's power, and energy per pstate adds up.
func TestPStateRuns(t *testing.T) {
	m := Machine{Nodes: 4, PStates: curiePStates(), Slowdown: 1.63, Power: NodePower{Off: 14, Idle: 117, Busy: 358}}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 2000, Nodes: 2, Procs: 2},
		{ID: 2, Submit: 10, Runtime: 500, Walltime: 500, Nodes: 1, Procs: 1},
	}
	pw := []float64{358, 358}
	// Job 1 at 1.2 GHz (a rule on its id), job 2 at the top.
	rule := &Expr{Source: "job.id == 1 ? 1.2e9 : 3e9", Deps: DepJob, Fields: FieldID,
		Num: func(e *Env) float64 {
			if e.Job.ID == 1 {
				return 1.2e9
			}
			return 3e9
		}}
	for _, c := range []struct {
		name   string
		f      Frequency
		ps     [2]int
		energy func(s *sim) float64
	}{
		{"fixed 2.0 GHz", Frequency{Kind: FreqPState, PState: 3}, [2]int{3, 3}, nil},
		{"rule", Frequency{Kind: FreqRule, Rule: rule}, [2]int{7, 0}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol := Policy{Name: c.name, Backfill: EASY, Frequency: c.f}
			s, err := simulate(jobs, &m, 4, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
			if err != nil {
				t.Fatal(err)
			}
			var busyJ float64
			for i, j := range jobs {
				p := c.ps[i]
				if int(s.pstate[i]) != p {
					t.Fatalf("job %d runs at pstate %d, want %d", j.ID, s.pstate[i], p)
				}
				if got, want := s.end[i]-s.start[i], j.Runtime*m.Stretch(p); got != want {
					t.Errorf("job %d runs %v s, want %v × %.3f = %v", j.ID, got, j.Runtime, m.Stretch(p), want)
				}
				if got, want := s.jw[i], float64(j.Nodes)*m.PStates[p].Power; got != want {
					t.Errorf("job %d draws %v W, want %v", j.ID, got, want)
				}
				busyJ += s.jw[i] * (s.end[i] - s.start[i])
				if e := s.led.PStateEnergy[p]; e < s.jw[i]*(s.end[i]-s.start[i])*(1-1e-12) {
					t.Errorf("pstate %d energy %v J, below job %d's", p, e, j.ID)
				}
			}
			var sum float64
			for _, e := range s.led.PStateEnergy {
				sum += e
			}
			if math.Abs(sum-busyJ) > 1e-6 || math.Abs(s.led.Energy[compBusy]-busyJ) > 1e-6 {
				t.Errorf("energy per pstate sums to %v J, busy %v J; the jobs drew %v J", sum, s.led.Energy[compBusy], busyJ)
			}
		})
	}
}
