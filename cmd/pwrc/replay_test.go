package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pwrc/pwrc/internal/refsim"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/workload"
)

// TestReplayMatchesReference runs the whole path a user runs —
// examples/replay.pwr through the compiler, runtime and --jobs CSV — and
// checks every job's start time against the independent reference
// simulator, for each basic policy.
func TestReplayMatchesReference(t *testing.T) {
	trace := testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")
	tr, err := workload.OpenSWF(trace, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 1, Nodes: tr.Header.MaxProcs})
	for _, c := range []struct{ policy, ref string }{{"easy_exact", "easy"}, {"easy", "easy"}, {"fcfs", "fcfs"}} {
		t.Run(c.policy, func(t *testing.T) {
			dir := t.TempDir()
			_, errOut, code := pwrc(t, "run", "../../examples/replay.pwr", "--set", "trace="+trace, "--set", "policy="+c.policy, "--jobs", dir)
			if code != 0 {
				t.Fatal(errOut)
			}
			rows := readCSV(t, filepath.Join(dir, "replay.csv"))
			if len(rows)-1 != len(jobs) {
				t.Fatalf("%d job rows, want %d", len(rows)-1, len(jobs))
			}
			in := make([]refsim.Job, len(jobs))
			for i, j := range jobs {
				est := j.Walltime
				if c.policy == "easy_exact" {
					est = j.Runtime
				}
				in[i] = refsim.Job{Submit: j.Submit, Runtime: j.Runtime, Estimate: est, Nodes: j.Nodes}
			}
			want, err := refsim.Simulate(in, tr.Header.MaxProcs, c.ref)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, row := range rows[1:] {
				id, _ := strconv.ParseInt(row[0], 10, 64)
				start, _ := strconv.ParseFloat(row[2], 64)
				if id != jobs[i].ID || start != want[i] {
					if bad < 5 {
						t.Errorf("row %d: job %s starts at %s; the reference says job %d at %v", i+1, row[0], row[2], jobs[i].ID, want[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d jobs differ", bad, len(jobs))
			}
		})
	}
}
