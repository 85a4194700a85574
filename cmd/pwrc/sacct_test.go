package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSacctReplays replays the hand-written Slurm accounting sample end to
// end: what reading it folded and dropped is reported, and jobs on whole
// nodes run at their measured power while the rest take the model's.
func TestSacctReplays(t *testing.T) {
	sample, err := filepath.Abs("../../runtime/workload/testdata/sacct/jobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	scen := writeScenario(t, "slurm.pwr", `import "std/policies"
import "std/kunkel"
machine cluster {
  nodes 16
  cores 128
  power { off 5 W; idle 90 W; busy 350 W }
}
experiment slurm {
  workload sacct "`+sample+`" { timezone "Europe/Berlin" }
  machine  cluster
  contract kunkel_basepeak
  policy   easy
}
`)
	out, errOut, code := pwrc(t, "run", scen)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"13 jobs simulated", "23 job steps folded", "1 pending", "1 still running", "10 jobs with measured power", "1 had energy not taken", "2 jobs reported no energy"} {
		if !strings.Contains(out, want) {
			t.Errorf("the notes do not say %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	out, errOut, code = pwrc(t, "run", scen, "--format", "json", "--jobs", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []struct {
		Workload map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	sacct, _ := runs[0].Workload["sacct"].(map[string]any)
	if sacct["measured_power"] != 10.0 || sacct["steps_folded"] != 23.0 {
		t.Errorf("workload.sacct in JSON: %v", sacct)
	}
	// Every job simulated is in one of the energy counts.
	if n := sacct["measured_power"].(float64) + sacct["energy_not_used"].(float64) + sacct["energy_none"].(float64); n != 13 {
		t.Errorf("energy counts add up to %g jobs, of 13: %v", n, sacct)
	}
	rows := readCSV(t, filepath.Join(dir, "slurm.csv"))
	model := 0
	for _, r := range rows[1:] {
		nodes, _ := strconv.Atoi(r[4])
		w, _ := strconv.ParseFloat(r[8], 64)
		if w == 350*float64(nodes) {
			model++
		}
	}
	if model != 3 {
		t.Errorf("%d of %d jobs draw the model's 350 W per node; want the 3 without a measured power", model, len(rows)-1)
	}
}
