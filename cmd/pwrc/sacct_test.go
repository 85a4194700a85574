package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
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
	for _, want := range []string{"14 jobs simulated", "24 job steps folded", "1 pending", "3 ended without starting", "1 still running", "11 jobs with measured power", "1 had energy not taken", "2 jobs reported no energy"} {
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
	if sacct["measured_power"] != 11.0 || sacct["steps_folded"] != 24.0 || sacct["dropped_not_started"] != 3.0 {
		t.Errorf("workload.sacct in JSON: %v", sacct)
	}
	// Every job simulated is in one of the energy counts.
	if n := sacct["measured_power"].(float64) + sacct["energy_not_used"].(float64) + sacct["energy_none"].(float64); n != 14 {
		t.Errorf("energy counts add up to %g jobs, of 14: %v", n, sacct)
	}
	// The names behind the jobs' numbers, in the order the trace numbers
	// them.
	names, _ := json.Marshal(runs[0].Workload["names"])
	if want := `{"account":["p-chem","p-phys","p-clim","p-bio","p-ml"],"group":["chem","phys","climate","bio"],` +
		`"partition":["compute","shared","debug","bigmem","scavenger","gpu"],"qos":["normal","high","low"],` +
		`"user":["alice","bob","carol","dave","erin","heidi","ivan","judy","kim"]}`; string(names) != want {
		t.Errorf("workload.names in JSON: %s\nwant %s", names, want)
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
	// The jobs file carries the names: user, group, partition, account
	// and QOS; Slurm has no queue number.
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	byID := map[string][]string{}
	for _, r := range rows[1:] {
		byID[r[0]] = r
		if r[col["queue"]] != "" {
			t.Errorf("job %s has a queue %q", r[0], r[col["queue"]])
		}
	}
	for id, want := range map[string][5]string{
		"4100140": {"alice", "chem", "gpu", "p-ml", "high"},
		"4100020": {"carol", "climate", "compute", "p-clim", "high"},
		"4100110": {"judy", "phys", "scavenger", "p-phys", "low"},
	} {
		r := byID[id]
		if r == nil {
			t.Fatalf("no job %s in the jobs file", id)
		}
		if got := [5]string{r[col["user"]], r[col["group"]], r[col["partition"]], r[col["account"]], r[col["qos"]]}; got != want {
			t.Errorf("job %s: user, group, partition, account, QOS %q, want %q", id, got, want)
		}
	}
}

// A saved directory of a run on Slurm accounting reads back with its
// jobs' names (pwrc report), and shards of it merge into the JSON one run
// prints, names included.
func TestSacctNamesReadBack(t *testing.T) {
	sample, err := filepath.Abs("../../runtime/workload/testdata/sacct/jobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	scen := writeScenario(t, "slurm.pwr", `import "std/policies"
import "std/kunkel"
machine cluster { nodes 16; cores 128; power { off 5 W; idle 90 W; busy 350 W } }
policy alice_first from easy { priority job.user == "alice" ? 1 : 0 }
experiment slurm {
  workload sacct "`+sample+`" { timezone "Europe/Berlin"; keep job.qos != "low" }
  machine  cluster
  contract kunkel_basepeak
  policy   [easy, alice_first]
}
`)
	dir := filepath.Join(t.TempDir(), "saved")
	whole, errOut, code := pwrc(t, "run", scen, "--format", "json", "--jobs", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, resultsName), []byte(whole), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "easy.csv"))
	s, err := loadSaved(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	r := s.results[0]
	if r.Workload.Names == nil || len(r.Jobs) != len(rows)-1 {
		t.Fatalf("read back %d jobs, names %v", len(r.Jobs), r.Workload.Names)
	}
	n := r.Workload.Names
	for i, j := range r.Jobs {
		row := rows[i+1]
		got := []string{n.Name(workload.NameUser, j.User), n.Name(workload.NameGroup, j.Group), n.Name(workload.NamePartition, j.Partition),
			n.Name(workload.NameAccount, j.Account), n.Name(workload.NameQOS, j.QOS)}
		if want := []string{row[10], row[11], row[13], row[14], row[15]}; !slices.Equal(got, want) || j.Queue != -1 {
			t.Errorf("job %d read back as %q (queue %d), written %q", j.ID, got, j.Queue, want)
		}
	}
	if _, e, code := pwrc(t, "report", dir, "-o", filepath.Join(t.TempDir(), "r.html")); code != 0 {
		t.Errorf("report: exit %d: %s", code, e)
	}
	shards := runShards(t, t.TempDir(), 2, scen, "--format", "json")
	merged, e, code := pwrc(t, append([]string{"merge", "--format", "json"}, shards...)...)
	if code != 0 || merged != whole {
		t.Errorf("merge: exit %d: %s\n%s\nwant\n%s", code, e, merged, whole)
	}
}

// Names of any form — commas, quotes, digits, spaces, non-ASCII, none —
// are written to a jobs file and read back as they were.
func TestJobsCSVNamesRoundTrip(t *testing.T) {
	names := workload.Names{
		workload.NameUser:      {"alice", "o'brien, jr", `say "hi"`, "1001", "zoë"},
		workload.NameGroup:     {" lead space"},
		workload.NameAccount:   {"p-chem"},
		workload.NamePartition: {"gpu,debug"},
		workload.NameQOS:       {"normal"},
	}
	var jobs []pwrt.JobRecord
	for u := -1; u <= 5; u++ {
		if u == 0 {
			continue
		}
		jobs = append(jobs, pwrt.JobRecord{ID: int64(10 + u), Submit: 1, Start: 2, End: 3, Nodes: 1, Procs: 1, Alloc: 1,
			User: u, Group: 1, Queue: -1, Partition: 1, Account: -1, QOS: 1})
	}
	var b bytes.Buffer
	writeJobsCSV(&b, jobs, &names)
	back := workload.Names{}
	got, err := readJobsCSV(&b, &back)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(jobs) {
		t.Fatalf("%d jobs read back of %d", len(got), len(jobs))
	}
	for i, j := range jobs {
		g := got[i]
		for f, pair := range [][2]int{{j.User, g.User}, {j.Group, g.Group}, {j.Account, g.Account}, {j.Partition, g.Partition}, {j.QOS, g.QOS}} {
			field := workload.NameField(f)
			if a, b := names.Name(field, pair[0]), back.Name(field, pair[1]); a != b {
				t.Errorf("job %d: %s %q read back as %q", j.ID, workload.NameFieldKeys[f], a, b)
			}
		}
	}
	// Without names (SWF), a name where a number goes is an error.
	b.Reset()
	writeJobsCSV(&b, jobs, &names)
	if _, err := readJobsCSV(&b, nil); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("names read as numbers: %v", err)
	}
}
