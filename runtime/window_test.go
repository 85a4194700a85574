package runtime

import (
	"context"
	"math"
	"testing"

	"github.com/pwrc/pwrc/runtime/workload"
)

// TestAccountWindow checks energy integrated over an experiment's
// `account` window against ∫P dt recomputed from the per-job records,
// clipped to the window, for windows that start before the first
// submission, end after the last job, or cut through the run.
func TestAccountWindow(t *testing.T) {
	w := Workload{Kind: Synthetic, Name: "synthetic", Synthetic: workload.Synthetic{Jobs: 1500, Load: 0.8, Seed: 5}}
	flat := Contract{Name: "flat", Kind: Flat, Price: 0.1, Currency: "EUR"}
	plain := energyRun(w, Policy{Name: "easy", Backfill: EASY}, flat)
	base := Execute(context.Background(), &Plan{Runs: []*Run{plain}}, Options{KeepJobs: true})[0]
	if base.Err != nil {
		t.Fatal(base.Err)
	}
	span := base.Metrics.RunDays * 86400
	for _, tc := range []struct {
		name     string
		from, to float64 // offsets after the first submission
	}{
		{"the run's own span", 0, span},
		{"a day before to a week after", -86400, span + 7*86400},
		{"the first half", 0, span / 2},
		{"a slice in the middle", span / 3, span / 2},
		{"after every job", span + 86400, span + 2*86400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := *plain
			run.Account = &Window{From: Instant{Offset: tc.from}, To: Instant{Offset: tc.to}}
			res := Execute(context.Background(), &Plan{Runs: []*Run{&run}}, Options{KeepJobs: true})[0]
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			first := res.Jobs[0].Submit
			a, b := first+tc.from, first+tc.to
			var busyJ, busyNodeSec float64
			for _, j := range res.Jobs {
				d := math.Max(0, math.Min(j.End, b)-math.Max(j.Start, a))
				busyJ += j.Power * d
				busyNodeSec += float64(j.Nodes) * d
			}
			m := res.Metrics
			mach := run.Machine
			want := [nComponents]float64{}
			want[compBusy] = busyJ
			want[compIdle] = mach.Power.Idle * (float64(m.Nodes)*(b-a) - busyNodeSec)
			want[compInfra] = mach.Infrastructure * (b - a)
			for c := range nComponents {
				if !near(m.EnergyBy[c], want[c]) {
					t.Errorf("%s energy: got %.6g J, want %.6g J", ComponentNames[c], m.EnergyBy[c], want[c])
				}
			}
			if !near(m.Cost, m.Energy/3.6e6*0.1) {
				t.Errorf("cost %.6g, want energy × price %.6g", m.Cost, m.Energy/3.6e6*0.1)
			}
			if !near(m.Utilization, busyNodeSec/(float64(m.Nodes)*(b-a))) {
				t.Errorf("utilization %.6g over the window, want %.6g", m.Utilization, busyNodeSec/(float64(m.Nodes)*(b-a)))
			}
			if m.RunDays != base.Metrics.RunDays || m.WaitMean != base.Metrics.WaitMean {
				t.Errorf("the window must not change the schedule: run days %v vs %v", m.RunDays, base.Metrics.RunDays)
			}
			if !m.Windowed || m.AccountFrom != a || m.AccountTo != b {
				t.Errorf("window reported as %v %v..%v, want %v..%v", m.Windowed, m.AccountFrom, m.AccountTo, a, b)
			}
		})
	}
	// Past the last job, a shutdown policy switches the idle nodes off:
	// the tail draws off power once they have been idle for the delay.
	t.Run("shutdown in the tail", func(t *testing.T) {
		run := *plain
		run.Policy = Policy{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 3600}}
		run.Account = &Window{From: Instant{Offset: 0}, To: Instant{Offset: span + 10*86400}}
		own := run
		own.Account = nil
		rs := Execute(context.Background(), &Plan{Runs: []*Run{&run, &own}}, Options{})
		for _, r := range rs {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		win, self := rs[0].Metrics, rs[1].Metrics
		// Every node is off within an hour of the last end; before that the
		// tail's idle energy is at most an hour of every node.
		mach := run.Machine
		tailOff := win.EnergyBy[compOff] - self.EnergyBy[compOff]
		if tailOff < mach.Power.Off*float64(win.Nodes)*(10*86400-3600)*(1-1e-9) {
			t.Errorf("tail off energy %.6g J, want at least every node off for 10 days less an hour", tailOff)
		}
		if extra := win.EnergyBy[compIdle] - self.EnergyBy[compIdle]; extra < 0 || extra > mach.Power.Idle*float64(win.Nodes)*3600*(1+1e-9) {
			t.Errorf("tail idle energy %.6g J, want between 0 and an hour of every node", extra)
		}
	})
}
