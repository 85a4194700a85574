package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// batsimDocumentedJobs are the columns of Batsim's jobs.csv, in order, as
// Batsim's documentation lists them (docs/output-jobs.rst of
// github.com/oar-team/batsim, "Jobs": "This file has the following fields
// in this order"). evalys's JobSet.columns (evalys/jobset.py) are among
// them, allocated_resources read with ProcSet.from_str.
var batsimDocumentedJobs = []string{
	"job_id",                        // the job identifier
	"workload_name",                 // the name of the workload the job belongs to
	"profile",                       // the profile that defines how the job is simulated
	"submission_time",               // s
	"requested_number_of_resources", // resources requested
	"requested_time",                // walltime
	"success",                       // completed before its walltime, exit 0
	"final_state",                   // COMPLETED_SUCCESSFULLY, COMPLETED_FAILED, COMPLETED_WALLTIME_REACHED, COMPLETED_KILLED, REJECTED
	"starting_time",                 // s
	"execution_time",                // finish_time − starting_time
	"finish_time",                   // s
	"waiting_time",                  // starting_time − submission_time
	"turnaround_time",               // finish_time − submission_time
	"stretch",                       // turnaround_time / execution_time
	"consumed_energy",               // J, by allocated_resources during the job
	"allocated_resources",           // interval set: "1-3 5 7"
	"metadata",                      // user metadata, empty by default
}

// evalysJobColumns are evalys's JobSet.columns.
var evalysJobColumns = []string{"job_id", "workload_name", "submission_time", "requested_number_of_resources", "requested_time",
	"success", "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources"}

// batsimDocumentedMachines are the columns of machine_states.csv, as
// docs/output-machines.rst lists them and evalys's MachineStatesChanges
// (evalys/mstates.py) expects them.
var batsimDocumentedMachines = []string{"time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing"}

func readCSVRows(t *testing.T, path string) ([]string, []map[string]string) {
	t.Helper()
	recs := readCSV(t, path)
	if len(recs) == 0 {
		t.Fatalf("%s: empty", path)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		rows = append(rows, m)
	}
	return recs[0], rows
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: not a number", s)
	}
	return v
}

// parseIntervalSet reads Batsim's canonical interval set ("0-3 5 7-9"):
// disjoint, maximal, ascending, single ids without "-". It returns the ids.
func parseIntervalSet(t *testing.T, s string) []int {
	t.Helper()
	var ids []int
	last := -2
	for _, part := range strings.Split(s, " ") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || lo < 0 || (isRange && hi <= lo) || lo <= last+1 {
			t.Fatalf("%q is not a canonical interval set (at %q)", s, part)
		}
		for i := lo; i <= hi; i++ {
			ids = append(ids, i)
		}
		last = hi
	}
	return ids
}

// --jobs-format batsim writes, per run, Batsim's jobs.csv (the documented
// columns in their order, each row consistent with itself and with pwrc's
// own record of the job) and machine_states.csv (the documented columns,
// the host counts summing to the machine at every row, a row where they
// change); on a counted machine too every job gets its nodes. pwrc report
// reads such a directory.
func TestBatsimOutputs(t *testing.T) {
	for _, c := range []struct{ scenario, run string }{
		{"../../examples/quickstart.pwr", "kunkel_basepeak-easy_shutdown"}, // counted nodes, switched off
		{"../../runtime/testdata/digest_levels.pwr", "ra_off"},             // racks, boot and shutdown delays
	} {
		tmp := t.TempDir()
		bat, own := filepath.Join(tmp, "batsim"), filepath.Join(tmp, "pwrc")
		if err := os.Mkdir(bat, 0o755); err != nil {
			t.Fatal(err)
		}
		if o, e, code := pwrc(t, "run", c.scenario, "--jobs", bat, "--jobs-format", "batsim", "--format", "json", "-o", filepath.Join(bat, "results.json")); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, o, e)
		}
		if o, e, code := pwrc(t, "run", c.scenario, "--jobs", own, "--series", own); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, o, e)
		}
		head, jobs := readCSVRows(t, filepath.Join(bat, c.run+"_jobs.csv"))
		if !slices.Equal(head, batsimDocumentedJobs) {
			t.Fatalf("%s: jobs columns\n%v\nwant Batsim's\n%v", c.run, head, batsimDocumentedJobs)
		}
		for _, col := range evalysJobColumns {
			if !slices.Contains(head, col) {
				t.Errorf("no column %s, which evalys reads", col)
			}
		}
		_, mine := readCSVRows(t, filepath.Join(own, c.run+".csv"))
		if len(jobs) != len(mine) || len(jobs) == 0 {
			t.Fatalf("%s: %d Batsim jobs, %d pwrc jobs", c.run, len(jobs), len(mine))
		}
		killed := 0
		for i, j := range jobs {
			p := mine[i]
			sub, start, fin, exec := num(t, j["submission_time"]), num(t, j["starting_time"]), num(t, j["finish_time"]), num(t, j["execution_time"])
			if j["job_id"] != p["id"] || sub != num(t, p["submit"]) || start != num(t, p["start"]) || fin != num(t, p["end"]) {
				t.Fatalf("%s job %s: Batsim's times differ from pwrc's record %v", c.run, j["job_id"], p)
			}
			if exec != fin-start || num(t, j["waiting_time"]) != start-sub || num(t, j["turnaround_time"]) != fin-sub ||
				num(t, j["stretch"]) != (fin-sub)/exec {
				t.Fatalf("%s job %s: inconsistent times %v", c.run, j["job_id"], j)
			}
			if j["requested_number_of_resources"] != p["nodes"] || j["requested_time"] != p["walltime"] || j["workload_name"] != "synthetic" || j["profile"] != "delay" || j["metadata"] != "" {
				t.Fatalf("%s job %s: %v, pwrc's %v", c.run, j["job_id"], j, p)
			}
			if e := num(t, p["power_w"]) * exec; num(t, j["consumed_energy"]) != e {
				t.Fatalf("%s job %s: consumed_energy %s J, want %g", c.run, j["job_id"], j["consumed_energy"], e)
			}
			ids := parseIntervalSet(t, j["allocated_resources"])
			if strconv.Itoa(len(ids)) != p["alloc"] {
				t.Fatalf("%s job %s: %d resources, allocated %s", c.run, j["job_id"], len(ids), p["alloc"])
			}
			if p["node_list"] != "" && j["allocated_resources"] != strings.ReplaceAll(p["node_list"], ",", " ") {
				t.Fatalf("%s job %s: resources %q, pwrc's nodes %q", c.run, j["job_id"], j["allocated_resources"], p["node_list"])
			}
			switch walltime := exec >= num(t, p["walltime"]); {
			case walltime && j["success"] == "0" && j["final_state"] == "COMPLETED_WALLTIME_REACHED":
				killed++
			case !walltime && j["success"] == "1" && j["final_state"] == "COMPLETED_SUCCESSFULLY":
			default:
				t.Fatalf("%s job %s: success %s, %s, ran %g s of %s", c.run, j["job_id"], j["success"], j["final_state"], exec, p["walltime"])
			}
		}
		if killed == 0 || killed == len(jobs) {
			t.Errorf("%s: %d of %d jobs reached their walltime: both kinds untested", c.run, killed, len(jobs))
		}

		head, states := readCSVRows(t, filepath.Join(bat, c.run+"_machine_states.csv"))
		if !slices.Equal(head, batsimDocumentedMachines) {
			t.Fatalf("%s: machine states columns %v, want Batsim's %v", c.run, head, batsimDocumentedMachines)
		}
		// The same counts as pwrc's own states, rows where they change.
		_, series := readCSVRows(t, filepath.Join(own, c.run+".states.csv"))
		var want [][]string
		for _, r := range series {
			idle := num(t, r["idle"]) + num(t, r["reserved"])
			row := []string{r["time"], r["off"], r["booting"], r["shutting_down"], strconv.FormatFloat(idle, 'f', -1, 64), r["busy"]}
			if len(want) == 0 || !slices.Equal(want[len(want)-1][1:], row[1:]) {
				want = append(want, row)
			}
		}
		if len(states) != len(want) {
			t.Fatalf("%s: %d machine-state rows, want %d", c.run, len(states), len(want))
		}
		total, sleeping, switching := -1.0, 0.0, 0.0
		for i, r := range states {
			var sum float64
			for k, col := range batsimDocumentedMachines {
				if k > 0 {
					sum += num(t, r[col])
				}
				if num(t, r[col]) != num(t, want[i][k]) {
					t.Fatalf("%s row %d: %s %s, pwrc's states say %s", c.run, i, col, r[col], want[i][k])
				}
			}
			if total >= 0 && sum != total {
				t.Fatalf("%s row %d: %g hosts, earlier rows %g", c.run, i, sum, total)
			}
			total = sum
			sleeping += num(t, r["nb_sleeping"])
			switching += num(t, r["nb_switching_on"]) + num(t, r["nb_switching_off"])
		}
		if sleeping == 0 {
			t.Errorf("%s: no host ever sleeping: the mapping of off nodes is untested", c.run)
		}
		if strings.Contains(c.run, "ra_off") && switching == 0 {
			t.Errorf("%s: no host ever switching: the mapping of booting nodes is untested", c.run)
		}

		// pwrc report reads the Batsim files back.
		page := filepath.Join(tmp, "r.html")
		if o, e, code := pwrc(t, "report", bat, "-o", page); code != 0 {
			t.Fatalf("pwrc report on Batsim files: exit %d\n%s%s", code, o, e)
		}
		if data, _ := os.ReadFile(page); strings.Contains(string(data), "no per-job records") {
			t.Error("the report of Batsim files has no waits")
		}
	}
	if _, _, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--jobs-format", "batsim"); code != exitUsage {
		t.Errorf("--jobs-format batsim without --jobs: exit %d, want %d", code, exitUsage)
	}
	if _, _, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--jobs", t.TempDir(), "--jobs-format", "swf"); code != exitUsage {
		t.Errorf("--jobs-format swf: exit %d, want %d", code, exitUsage)
	}
}
