package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
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

// batsimDocumentedSchedule are the columns of Batsim 4's _schedule.csv in
// its order: the fields docs/output-schedule.rst of Batsim 4.2 lists ("in
// lexicographic order of the fields name"), with nb_jobs_rejected and
// time_unavailable, which its src/export.cpp writes too (and Batsim 5's
// documentation lists).
var batsimDocumentedSchedule = []string{
	"batsim_version",        // Batsim's --version; pwrc writes "pwrc VERSION"
	"consumed_joules",       // J, from the first submission to the last finish
	"makespan",              // the completion time of the last job
	"max_slowdown",          // turnaround / execution
	"max_turnaround_time",   // finish − submission
	"max_waiting_time",      // start − submission
	"mean_slowdown",         //
	"mean_turnaround_time",  //
	"mean_waiting_time",     //
	"nb_computing_machines", // machines
	"nb_grouped_switches",   // power-state transitions the scheduler asked for
	"nb_jobs",               //
	"nb_jobs_finished",      //
	"nb_jobs_killed",        //
	"nb_jobs_rejected",      //
	"nb_jobs_success",       //
	"nb_machine_switches",   // power-state transitions done by machines
	"scheduling_time",       // real-world seconds in the scheduler
	"simulation_time",       // real-world seconds of the simulation
	"success_rate",          // nb_jobs_success / nb_jobs
	"time_computing",        // machine-seconds in each state
	"time_idle",             //
	"time_sleeping",         //
	"time_switching_off",    //
	"time_switching_on",     //
	"time_unavailable",      //
}

// --jobs-format batsim also writes <run>_schedule.csv, Batsim 4's
// aggregates: a header of the documented columns and one row, whose
// values are recomputed here from the jobs file beside it, pwrc's own
// state series and its metrics; the columns pwrc cannot compute honestly
// are empty. The file is listed in the manifest with its hash (it was
// written whole, atomically) and read back.
func TestBatsimSchedule(t *testing.T) {
	for _, c := range []struct{ scenario, run string }{
		{"../../examples/quickstart.pwr", "kunkel_basepeak-easy_shutdown"},
		{"../../runtime/testdata/digest_levels.pwr", "ra_off"},
	} {
		tmp := t.TempDir()
		bat, own := filepath.Join(tmp, "batsim"), filepath.Join(tmp, "pwrc")
		if o, e, code := pwrc(t, "run", c.scenario, "--jobs", bat, "--jobs-format", "batsim", "--format", "json", "-o", filepath.Join(tmp, "results.json")); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, o, e)
		}
		if o, e, code := pwrc(t, "run", c.scenario, "--series", own); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, o, e)
		}
		path := filepath.Join(bat, c.run+"_schedule.csv")
		recs := readCSV(t, path)
		if len(recs) != 2 || !slices.Equal(recs[0], batsimDocumentedSchedule) {
			t.Fatalf("%s: want a header of Batsim's columns and one row, got %q", path, recs)
		}
		s := map[string]string{}
		for i, h := range recs[0] {
			s[h] = recs[1][i]
		}
		for _, empty := range []string{"nb_grouped_switches", "nb_machine_switches", "scheduling_time", "simulation_time"} {
			if s[empty] != "" {
				t.Errorf("%s: %s is %q; pwrc cannot compute it and leaves it empty", c.run, empty, s[empty])
			}
			delete(s, empty)
		}
		if s["batsim_version"] != "pwrc "+version || s["nb_jobs_rejected"] != "0" || s["time_unavailable"] != "0" {
			t.Errorf("%s: %v", c.run, s)
		}
		_, jobs := readCSVRows(t, filepath.Join(bat, c.run+"_jobs.csv"))
		var wait, turn, slow, maxWait, maxTurn, maxSlow, first, last float64
		success := 0
		first = math.Inf(1)
		for _, j := range jobs {
			w, tu, sl := num(t, j["waiting_time"]), num(t, j["turnaround_time"]), num(t, j["stretch"])
			wait, turn, slow = wait+w, turn+tu, slow+sl
			maxWait, maxTurn, maxSlow = math.Max(maxWait, w), math.Max(maxTurn, tu), math.Max(maxSlow, sl)
			first, last = math.Min(first, num(t, j["submission_time"])), math.Max(last, num(t, j["finish_time"]))
			if j["success"] == "1" {
				success++
			}
		}
		n := float64(len(jobs))
		near := func(name string, want float64) {
			t.Helper()
			if got := num(t, s[name]); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %s %s, want %g", c.run, name, s[name], want)
			}
		}
		near("nb_jobs", n)
		near("nb_jobs_finished", n)
		near("nb_jobs_success", float64(success))
		near("nb_jobs_killed", n-float64(success))
		near("success_rate", float64(success)/n)
		near("makespan", last)
		near("mean_waiting_time", wait/n)
		near("mean_turnaround_time", turn/n)
		near("mean_slowdown", slow/n)
		near("max_waiting_time", maxWait)
		near("max_turnaround_time", maxTurn)
		near("max_slowdown", maxSlow)
		// Energy and machine time: the nodes' components of the run's
		// energy (accounted over the same span here), and the time in each
		// state adding up to the machine over that span.
		var runs []struct {
			Run     string
			Metrics map[string]any
		}
		data, _ := os.ReadFile(filepath.Join(tmp, "results.json"))
		if err := json.Unmarshal(data, &runs); err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Run != c.run {
				continue
			}
			var mwh float64
			for _, comp := range []string{"busy", "idle", "off", "boot", "shutdown"} {
				v, _ := r.Metrics["energy_"+comp+"_mwh"].(float64)
				mwh += v
			}
			near("consumed_joules", mwh*3.6e9)
			nodes, _ := r.Metrics["nodes"].(float64)
			near("nb_computing_machines", nodes)
			var sum float64
			for _, st := range []string{"time_computing", "time_idle", "time_sleeping", "time_switching_off", "time_switching_on"} {
				sum += num(t, s[st])
			}
			if math.Abs(sum-nodes*(last-first)) > 1e-6*nodes*(last-first) {
				t.Errorf("%s: %g machine-seconds in all states, want %g nodes × %g s", c.run, sum, nodes, last-first)
			}
			if num(t, s["time_sleeping"]) == 0 {
				t.Errorf("%s: no time sleeping: the mapping of off nodes is untested", c.run)
			}
		}
		sum := sha256.Sum256(mustRead(t, path))
		listed := false
		for _, f := range readManifest(t, bat).Files {
			if f.Name == c.run+"_schedule.csv" {
				listed = f.Kind == "schedule" && f.SHA256 == hex.EncodeToString(sum[:])
			}
		}
		if !listed {
			t.Errorf("%s: the manifest does not list %s as read back", c.run, path)
		}
		if left, _ := filepath.Glob(filepath.Join(bat, ".*")); len(left) > 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A job's Batsim state follows what it did: done before its walltime (at
// its pstate: a stretched job's walltime stretches too), ran into it, or
// killed by a powercap.
func TestBatsimJobStates(t *testing.T) {
	for _, c := range []struct {
		name    string
		j       pwrt.JobRecord
		success bool
		killed  bool
	}{
		{"done in time", pwrt.JobRecord{Start: 0, End: 90, Walltime: 100}, true, false},
		{"stretched, done in its stretched walltime", pwrt.JobRecord{Start: 0, End: 140, Walltime: 150, PState: 2}, true, false},
		{"ran into its walltime", pwrt.JobRecord{Start: 0, End: 100, Walltime: 100}, false, false},
		{"killed by a cap", pwrt.JobRecord{Start: 0, End: 30, Walltime: 100, Killed: true}, false, true},
	} {
		bj := batsimJobOf(&c.j)
		if bj.success != c.success || bj.killed != c.killed {
			t.Errorf("%s: success %v killed %v, want %v %v", c.name, bj.success, bj.killed, c.success, c.killed)
		}
	}
	var b bytes.Buffer
	writeBatsimJobs(&b, "w", []pwrt.JobRecord{{ID: 1, Start: 0, End: 30, Walltime: 100, Killed: true}})
	if !strings.Contains(b.String(), ",0,COMPLETED_KILLED,") {
		t.Errorf("a killed job's row: %s", b.String())
	}
}
