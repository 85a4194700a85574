package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sweepScenario sweeps a flat and a base/peak contract on a small
// synthetic workload: the runs have different tariff-period metrics.
const sweepScenario = `import "std/policies"
import "std/kunkel"

machine m {
  nodes 16
  cores 1
  power { off 0 W; idle 70 W; busy 260 W }
}

experiment sweep {
  workload synthetic { jobs 200; load 80%; seed 3 }
  machine  m
  contract [kunkel_fixed, kunkel_basepeak]
  policy   [easy, easy_shutdown] baseline easy
}
`

// writeScenario writes src as NAME in a fresh directory and returns its path.
func writeScenario(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCSVHasEveryRunsKeys: the CSV header is the union of the metric keys
// of all runs (a flat contract first, base/peak after), and every run's
// row holds exactly its JSON metrics: the same values, and empty cells for
// keys the run does not have or that are null.
func TestCSVHasEveryRunsKeys(t *testing.T) {
	path := writeScenario(t, "sweep.pwr", sweepScenario)
	csvOut, errOut, code := pwrc(t, "run", path, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	jsonOut, errOut, code := pwrc(t, "run", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		Run     string
		Metrics map[string]any
	}
	if err := json.Unmarshal([]byte(jsonOut), &runs); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(runs) || len(runs) != 4 {
		t.Fatalf("%d CSV rows for %d runs, want a header and 4 runs", len(rows), len(runs))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		if _, dup := col[h]; dup {
			t.Errorf("column %q twice", h)
		}
		col[h] = i
	}
	for _, k := range []string{"energy_flat_period_mwh", "energy_peak_period_mwh", "energy_base_period_mwh", "cost_peak_period", "cost_flat_period"} {
		if _, ok := col[k]; !ok {
			t.Errorf("column %s missing from the header", k)
		}
	}
	for i, r := range runs {
		row := rows[i+1]
		if row[col["run"]] != r.Run {
			t.Fatalf("row %d is run %s, JSON has %s", i+1, row[col["run"]], r.Run)
		}
		for k, v := range r.Metrics {
			c, ok := col[k]
			if !ok {
				t.Errorf("%s: metric %s not in the CSV", r.Run, k)
				continue
			}
			want := ""
			if v != nil {
				want = csvValue(v)
			}
			if row[c] != want {
				t.Errorf("%s: %s = %q in the CSV, %q in JSON", r.Run, k, row[c], want)
			}
		}
		for k, c := range col {
			if _, ok := r.Metrics[k]; !ok && row[c] != "" && !map[string]bool{"experiment": true, "run": true, "contract": true, "policy": true}[k] {
				t.Errorf("%s: %s = %q, but the run has no such metric", r.Run, k, row[c])
			}
		}
	}
}

// TestPowerKeyNames: the mean power in tariff peak hours is
// power_peak_hours_kw, the maximum power_max_kw; the old names stay as
// deprecated aliases with the same values for one release.
func TestPowerKeyNames(t *testing.T) {
	path := writeScenario(t, "sweep.pwr", sweepScenario)
	out, errOut, code := pwrc(t, "run", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []struct {
		Run     string
		Params  map[string]string
		Metrics map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	aliases := map[string]string{
		"power_peak_hours_kw":        "power_peak_kw",
		"power_offpeak_hours_kw":     "power_offpeak_kw",
		"job_power_peak_hours_kw":    "job_power_peak_kw",
		"job_power_offpeak_hours_kw": "job_power_offpeak_kw",
		"power_max_kw":               "peak_power_kw",
	}
	for _, r := range runs {
		basepeak := r.Params["contract"] == "kunkel_basepeak"
		for key, old := range aliases {
			v, ok := r.Metrics[key]
			if !ok {
				t.Errorf("%s: no %s", r.Run, key)
				continue
			}
			if r.Metrics[old] != v {
				t.Errorf("%s: %s = %v but its alias %s = %v", r.Run, key, v, old, r.Metrics[old])
			}
			if f, isNum := v.(float64); key != "power_max_kw" && isNum != basepeak || isNum && !(f > 0) {
				t.Errorf("%s: %s = %v (null exactly when the contract has no peak hours)", r.Run, key, v)
			}
		}
		mx, _ := r.Metrics["power_max_kw"].(float64)
		if mean, _ := r.Metrics["power_mean_kw"].(float64); !(mx >= mean && mean > 0) {
			t.Errorf("%s: power_max_kw %v below the mean %v", r.Run, mx, mean)
		}
		if basepeak {
			if pk, _ := r.Metrics["power_peak_hours_kw"].(float64); !(pk <= mx) {
				t.Errorf("%s: mean power in peak hours %v above the maximum %v", r.Run, pk, mx)
			}
		}
	}
}

// TestCSVColumnsUnique: a swept param named like a metric (nodes, jobs)
// gets its own column, param_NAME, rather than a second column of the
// same name that readers keyed by name would confuse with the metric.
func TestCSVColumnsUnique(t *testing.T) {
	path := writeScenario(t, "clash.pwr", `import "std/policies"
import "std/kunkel"
param nodes = [8, 16]
param jobs = [100, 150]
machine m {
  nodes nodes
  cores 1
  power { off 0 W; idle 70 W; busy 260 W }
}
experiment e {
  workload synthetic { jobs jobs; load 80%; seed 3; unit 1 }
  machine  m
  contract kunkel_fixed
  policy   easy
}
`)
	out, errOut, code := pwrc(t, "run", path, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		if _, dup := col[h]; dup {
			t.Errorf("column %q twice: %v", h, rows[0])
		}
		col[h] = i
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want a header and 4 runs", len(rows))
	}
	for _, row := range rows[1:] {
		n, j := row[col["param_nodes"]], row[col["param_jobs"]]
		if row[col["run"]] != j+"-"+n || row[col["nodes"]] != n || row[col["jobs"]] != j {
			t.Errorf("run %s: param_nodes %s, nodes %s, param_jobs %s, jobs %s", row[col["run"]], n, row[col["nodes"]], j, row[col["jobs"]])
		}
	}
}

// jobsHeader is the header of every --jobs CSV.
const jobsHeader = "id,submit,start,end,nodes,procs,walltime,wait,power_w,alloc,user,group,queue,partition,account,qos,node_list,pstate,freq_hz"

// TestJobsCSVTraceFields: --jobs carries each job's user, group, queue and
// partition (SWF fields 12, 13, 15, 16), empty where the trace says -1
// (unknown), and the nodes allocated.
func TestJobsCSVTraceFields(t *testing.T) {
	dir := t.TempDir()
	// job submit wait run procs cpu mem reqprocs reqtime reqmem status user group exe queue partition prec think
	swf := `; MaxNodes: 64
; MaxProcs: 64
1 0 0 100 4 -1 -1 4 200 -1 1 12 3 -1 2 7 -1 -1
2 10 0 100 8 -1 -1 8 200 -1 1 -1 -1 -1 -1 -1 -1 -1
3 20 0 50 2 -1 -1 2 100 -1 1 5 0 -1 0 0 -1 -1
`
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "t.pwr")
	if err := os.WriteFile(scen, []byte(`import "std/policies"
import "std/kunkel"
machine m {
  nodes auto
  cores 1
  power { idle 70 W; busy 260 W }
}
experiment t {
  workload swf "t.swf"
  machine  m
  contract kunkel_fixed
  policy   { allocate contiguous 16 }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "jobs")
	if _, errOut, code := pwrc(t, "run", scen, "--jobs", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, filepath.Join(out, "t.csv"))
	want := [][]string{
		strings.Split(jobsHeader, ","),
		// Nodes are counted, not placed (no levels, no allocator): no node lists.
		// SWF has no account or QOS.
		{"1", "0", "0", "100", "4", "4", "200", "0", "1880", "16", "12", "3", "2", "7", "", "", "", "0", ""},
		{"2", "10", "10", "110", "8", "8", "200", "0", "2640", "16", "", "", "", "", "", "", "", "0", ""},
		{"3", "20", "20", "70", "2", "2", "100", "0", "1500", "16", "5", "0", "0", "0", "", "", "", "0", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%v", len(rows), len(want), rows)
	}
	for i := range want {
		if strings.Join(rows[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("row %d:\n got %s\nwant %s", i, strings.Join(rows[i], ","), strings.Join(want[i], ","))
		}
	}
}
