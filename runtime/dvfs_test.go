package runtime_test

import (
	"math"
	"testing"
)

// Under DVFS a job's run time and walltime stretch alike: its record
// gives the walltime the engine used, which it never runs past; bsld and
// Lawson's slowdown read the same run (the time the job ran) and differ
// only for jobs that ran less than 10 s; turnaround is the wait plus it.
func TestStretchedJobsRecords(t *testing.T) {
	src := `
import "std/policies"
machine m {
  nodes 32
  power { off 10 W; idle 90 W; pstate 2.6 GHz 300 W; pstate 2.0 GHz 230 W; pstate 1.4 GHz 170 W; slowdown 1.5 at 1.4 GHz }
}
contract flat { flat 0.10 EUR/kWh }
policy slow from easy { frequency 1.4 GHz }
experiment e {
  workload synthetic { jobs 2000; load 80%; seed 4 }
  machine m
  contract flat
  policy [easy, slow]
}
`
	rs := runScenario(t, src, nil)
	for _, r := range rs {
		var bsld, lawson, turn float64
		short := 0
		stretched := 0
		for _, j := range r.Jobs {
			run, wait := j.End-j.Start, j.Start-j.Submit
			if run > j.Walltime*(1+1e-12) {
				t.Fatalf("%s: job %d ran %g s past its walltime %g s", r.Run.Name, j.ID, run, j.Walltime)
			}
			if j.PState > 0 {
				stretched++
			}
			bsld += math.Max(1, (wait+run)/math.Max(10, run))
			lawson += 1 + wait/math.Max(10, run)
			turn += j.End - j.Submit
			if run < 10 {
				short++
			}
		}
		n := float64(len(r.Jobs))
		if r.Run.Name == "slow" && stretched != len(r.Jobs) {
			t.Fatalf("slow: %d of %d jobs at a lower pstate", stretched, len(r.Jobs))
		}
		if got := r.Metrics.BsldMean; math.Abs(got-bsld/n) > 1e-9*got {
			t.Errorf("%s: bsld %g, recomputed from the records %g", r.Run.Name, got, bsld/n)
		}
		if got := r.Metrics.BsldLawson; math.Abs(got-lawson/n) > 1e-9*got {
			t.Errorf("%s: Lawson's slowdown %g, recomputed %g", r.Run.Name, got, lawson/n)
		}
		if short == 0 && math.Abs(r.Metrics.BsldMean-r.Metrics.BsldLawson) > 1e-9*r.Metrics.BsldMean {
			t.Errorf("%s: no job ran under 10 s, yet bsld %g and Lawson's %g differ", r.Run.Name, r.Metrics.BsldMean, r.Metrics.BsldLawson)
		}
		if got := r.Metrics.TurnaroundMean; math.Abs(got-turn/n) > 1e-9*got {
			t.Errorf("%s: turnaround %g, recomputed %g", r.Run.Name, got, turn/n)
		}
	}
}
