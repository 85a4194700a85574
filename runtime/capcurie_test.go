package runtime_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// TestPowercapOnCurie checks georgiou.md §6 items 9–13 on CEA-Curie's thin
// partition (45 days of its summer, 5,040 × 16 cores, Curie's levels and
// pstates, EASY) with one-hour caps at day 215, noticed at day 210: a 100 %
// cap is EASY job for job; until the notice every mode schedules as EASY;
// the machine never draws more than the cap in the window except through
// jobs started before the notice (cap_excess is 0 when every job that is
// still running then started after it, else it is reported); energy adds
// up by component; every job runs its run time × s(its frequency).
func TestPowercapOnCurie(t *testing.T) {
	dir := testenv.DataDir()
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("shared data not found in CI")
		}
		t.Skip("no shared data (set PWRC_DATA)")
	}
	src := `import "std/georgiou"
import "std/kunkel"
param trace = "t"
param cap = [100%, 60%, 40%]
policy shut from easy { powercap cap from 215 d for 1 h { mode shut; notice 210 d } }
policy dvfs from easy { powercap cap from 215 d for 1 h { mode dvfs; notice 210 d } }
policy mix  from easy { powercap cap from 215 d for 1 h { mode mix; lowest 2.0 GHz; notice 210 d } }
experiment c {
  workload swf trace { keep job.partition == 10; submitted 180 d .. 225 d }
  machine  curie
  contract kunkel_fixed
  policy   [easy, shut, dvfs, mix]
}
`
	file := filepath.Join(t.TempDir(), "c.pwr")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := compiler.Compile(file, compiler.Options{Sets: []compiler.Set{{Name: "trace", Value: filepath.Join(dir, "traces/CEA-Curie-2011-2.1-cln.swf.gz")}}})
	if res.Plan == nil {
		var b strings.Builder
		_ = res.Diags.Write(&b, res.Sources)
		t.Fatal(b.String())
	}
	results := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 2, KeepJobs: true})
	var easy *runtime.Result
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Run.Name, r.Err)
		}
		if r.Run.Name == "easy" {
			easy = r
		}
	}
	origin := firstSubmission(t, filepath.Join(dir, "traces/CEA-Curie-2011-2.1-cln.swf.gz"))
	notice := origin + 210*86400
	from, to := origin+215*86400, origin+215*86400+3600
	slowdown := func(r *runtime.Result, freq float64) float64 {
		m := &r.Run.Machine
		for p, ps := range m.PStates {
			if ps.Freq == freq {
				return m.Stretch(p)
			}
		}
		return 1
	}
	for _, r := range results {
		if r == easy {
			continue
		}
		hundred := strings.Contains(r.Run.Name, "100")
		bound := false // some job started before the notice still runs in the window
		for i, j := range r.Jobs {
			e := easy.Jobs[i]
			if hundred && (j.Start != e.Start || j.End != e.End) {
				t.Fatalf("%s: job %d at %v–%v, under EASY %v–%v", r.Run.Name, j.ID, j.Start, j.End, e.Start, e.End)
			}
			if e.Start < notice && j.Start != e.Start {
				t.Fatalf("%s: job %d starts at %v before the notice, EASY at %v", r.Run.Name, j.ID, j.Start, e.Start)
			}
			if got, want := j.End-j.Start, (e.End-e.Start)*slowdown(r, j.Freq); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("%s: job %d runs %v s at %v Hz, want %v", r.Run.Name, j.ID, got, j.Freq, want)
			}
			if j.Start < notice && j.End > from {
				bound = true
			}
		}
		m := r.Metrics
		var sum float64
		for _, e := range m.EnergyBy {
			sum += e
		}
		if math.Abs(sum-m.Energy) > 1e-9*m.Energy {
			t.Errorf("%s: components sum to %v J, total %v J", r.Run.Name, sum, m.Energy)
		}
		if !bound && m.CapExcessSeconds != 0 {
			t.Errorf("%s: above the cap for %v s with no job started before the notice running", r.Run.Name, m.CapExcessSeconds)
		}
		if m.CapExcessSeconds > to-from {
			t.Errorf("%s: above the cap for %v s, longer than the window", r.Run.Name, m.CapExcessSeconds)
		}
		if !hundred && slices.EqualFunc(r.Jobs, easy.Jobs, func(a, b runtime.JobRecord) bool { return a.Start == b.Start }) && m.CapExcessSeconds == 0 {
			t.Errorf("%s: the cap changed nothing", r.Run.Name)
		}
	}
}

// firstSubmission is the first submission of the cleaned trace (offsets
// in scenarios count from it, before any cut).
func firstSubmission(t *testing.T, path string) float64 {
	tr, err := workload.OpenSWF(path, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 16, Nodes: 5040})
	return jobs[0].Submit
}
