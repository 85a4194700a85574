package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pwrcIn runs pwrc with stdin as its standard input.
func pwrcIn(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = runIn(context.Background(), args, strings.NewReader(stdin), &o, &e)
	return o.String(), e.String(), code
}

// pwrc --version prints what pwrc version prints.
func TestVersionFlag(t *testing.T) {
	want, _, _ := pwrc(t, "version")
	for _, flag := range []string{"--version", "-v"} {
		if out, e, code := pwrc(t, flag); code != 0 || out != want {
			t.Errorf("pwrc %s: exit %d, %q%q; want %q", flag, code, out, e, want)
		}
	}
}

// A param given twice with --set is a usage error (the last one no longer
// silently wins), in every command that takes --set.
func TestSetGivenTwice(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", paramSweep)
	for _, args := range [][]string{
		{"run", scen, "--set", "c=kunkel_fixed", "--set", "c=kunkel_basepeak"},
		{"run", scen, "--set", "p=easy", "--set", " p =easy"},
		{"plan", scen, "--set", "c=kunkel_fixed", "--set", "c=kunkel_fixed"},
		{"slurm", scen, "--shards", "2", "--pwrc", "/opt/pwrc", "--set", "c=kunkel_fixed", "--set", "c=kunkel_basepeak"},
	} {
		noSimulation(t)
		_, e, code := pwrc(t, args...)
		if code != exitUsage || !strings.Contains(e, "is given twice") || !strings.Contains(e, "give each param once; to sweep several values, give a list") {
			t.Errorf("pwrc %s: exit %d\n%s", strings.Join(args, " "), code, e)
		}
	}
}

// run -, check - and plan - read the scenario from the standard input,
// named <stdin> in diagnostics; relative paths are the current
// directory's. A command that must read the scenario again (--shard,
// slurm) refuses it, and - may be given once.
func TestScenarioFromStdin(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, inputScenario)
	t.Chdir(dir)
	src := inputScenario["e.pwr"]
	for _, cmd := range [][]string{{"run"}, {"run", "--format", "json"}, {"plan"}, {"check"}} {
		want, _, wcode := pwrc(t, append(cmd, "e.pwr")...)
		got, e, code := pwrcIn(t, src, append(cmd, "-")...)
		if code != 0 || wcode != 0 || strings.ReplaceAll(want, "e.pwr", "<stdin>") != got {
			t.Errorf("pwrc %s -: exit %d\n%s%s\nwant\n%s", strings.Join(cmd, " "), code, got, e, want)
		}
	}
	if _, e, code := pwrcIn(t, "", "run", "-"); code != 1 || e != "pwrc: <stdin>: no experiments to run\n" {
		t.Errorf("an empty standard input: exit %d, %q", code, e)
	}
	_, e, code := pwrcIn(t, "machine m {\n  nodes x\n}\n", "run", "-")
	if code != 1 || !strings.Contains(e, "<stdin>:2:") || !strings.Contains(e, "^") {
		t.Errorf("a broken scenario on stdin: exit %d\n%s", code, e)
	}
	// A manifest names it, and its --jobs directory is its own.
	if _, e, code := pwrcIn(t, src, "run", "-", "--jobs", "out"); code != 0 {
		t.Fatalf("run - --jobs: exit %d\n%s", code, e)
	}
	if m := readManifest(t, "out"); m.Scenario != "<stdin>" || !m.Complete {
		t.Errorf("manifest of a scenario from stdin: %+v", m)
	}
	if _, e, code := pwrcIn(t, src, "run", "-", "--jobs", "out"); code != 0 {
		t.Errorf("the same scenario on stdin again: exit %d\n%s", code, e)
	}
	if _, e, code := pwrcIn(t, strings.Replace(src, "policy easy", "policy fcfs", 1), "run", "-", "--jobs", "out"); code != exitUsage || !strings.Contains(e, "holds the files of <stdin>") {
		t.Errorf("another scenario on stdin into the same directory: exit %d\n%s", code, e)
	}
	for _, args := range [][]string{{"run", "-", "--shard", "1/2"}, {"slurm", "-", "--shards", "2", "--pwrc", "/opt/pwrc"}, {"check", "-", "-"}} {
		noSimulation(t)
		if _, e, code := pwrcIn(t, src, args...); code != exitUsage {
			t.Errorf("pwrc %s: exit %d, want %d\n%s", strings.Join(args, " "), code, exitUsage, e)
		}
	}
}

// --jobs N or --series N, a directory named like a count, is most likely
// meant as -j N: a usage error that says so, with how to name such a
// directory; nothing is created.
func TestJobsLooksLikeACount(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	t.Chdir(t.TempDir())
	for _, flag := range []string{"--jobs", "--series"} {
		t.Run(flag, func(t *testing.T) {
			noSimulation(t)
			_, e, code := pwrc(t, "run", scen, flag, "2")
			if code != exitUsage || !strings.Contains(e, "write -j 2") || !strings.Contains(e, flag+" ./2") {
				t.Errorf("%s 2: exit %d\n%s", flag, code, e)
			}
			if _, err := os.Stat("2"); err == nil {
				t.Errorf("%s 2 created a directory", flag)
			}
		})
	}
	if _, e, code := pwrc(t, "run", scen, "--jobs", "./2"); code != 0 {
		t.Errorf("--jobs ./2: exit %d\n%s", code, e)
	}
}

// check --strict fails on a file without experiments, as run does (exit 1,
// in text and JSON); check without --strict accepts it (a file other
// scenarios import).
func TestCheckStrictNoExperiments(t *testing.T) {
	lib := writeScenario(t, "lib.pwr", "import \"std/policies\"\nmachine m {\n  nodes 4\n  power { idle 1 W; busy 2 W }\n}\n")
	if out, _, code := pwrc(t, "check", lib); code != 0 || !strings.Contains(out, "ok (0 runs)") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	out, _, code := pwrc(t, "check", "--strict", lib)
	if code != 1 || !strings.Contains(out, lib+": error: no experiments to run") || !strings.Contains(out, "pwrc run refuses a file without experiments") {
		t.Errorf("check --strict: exit %d\n%s", code, out)
	}
	out, _, code = pwrc(t, "check", "--strict", "--format", "json", lib)
	var diags []struct{ Severity, Summary, File string }
	if err := json.Unmarshal([]byte(out), &diags); err != nil || code != 1 || len(diags) != 1 || diags[0].Severity != "error" || diags[0].File != lib {
		t.Errorf("check --strict --format json: exit %d, %v\n%s", code, err, out)
	}
	if _, e, code := pwrc(t, "run", lib); code != 1 || !strings.Contains(e, "no experiments to run") {
		t.Errorf("run: exit %d\n%s", code, e)
	}
}

// -o may name a file in the directory --jobs (or --series) creates; a
// refused destination leaves no directory created behind.
func TestOutputIntoNewJobsDirectory(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	t.Chdir(t.TempDir())
	if _, e, code := pwrc(t, "run", scen, "--format", "json", "-o", "out/r.json", "--jobs", "out"); code != 0 {
		t.Fatalf("exit %d\n%s", code, e)
	}
	if _, err := os.Stat("out/r.json"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat("out/kunkel_fixed-easy.csv"); err != nil {
		t.Error(err)
	}
	if _, e, code := pwrc(t, "run", scen, "--format", "json", "-o", "new/r.json", "--series", "new/a/b"); code != 0 {
		t.Fatalf("exit %d\n%s", code, e)
	}
	noSimulation(t)
	if _, e, code := pwrc(t, "run", scen, "-o", "missing/r.json", "--jobs", "made/a/b"); code != exitUsage || !strings.Contains(e, "-o missing/r.json: directory missing does not exist") {
		t.Errorf("exit %d\n%s", code, e)
	}
	if _, err := os.Stat("made"); err == nil {
		t.Error("a refused run left the directories it created")
	}
}

// run --help describes every file --jobs and --series write.
func TestRunHelpNamesEveryFile(t *testing.T) {
	out, _, code := pwrc(t, "run", "--help")
	if code != 0 {
		t.Fatal(out)
	}
	for _, want := range []string{"<run>.csv", "<run>_jobs.csv", "<run>_machine_states.csv", "<run>_schedule.csv",
		"<run>.hours.csv", "<run>.states.csv", "<run>.weeks.csv", "<run>.active.csv", "MANIFEST.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --help does not name %s", want)
		}
	}
}

// A flag value that does not parse is said in pwrc's words, not Go's
// ("strconv.ParseInt: parsing …").
func TestFlagValueMessages(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	for _, c := range []struct{ args []string }{
		{[]string{"run", scen, "-j", "x"}}, {[]string{"run", scen, "--jobs-parallel", "1.5"}},
		{[]string{"run", scen, "--theory=maybe"}}, {[]string{"slurm", scen, "--shards", "99999999999999999999"}},
	} {
		noSimulation(t)
		_, e, code := pwrc(t, c.args...)
		if code != exitUsage || strings.Contains(e, "strconv") || strings.Contains(e, "invalid argument") || !strings.Contains(e, ": give ") {
			t.Errorf("pwrc %s: exit %d\n%s", strings.Join(c.args, " "), code, e)
		}
	}
	if _, e, _ := pwrc(t, "run", scen, "-j", "x"); !strings.HasPrefix(e, "pwrc: -j (--jobs-parallel) x: give a whole number\n") {
		t.Errorf("-j x: %q", e)
	}
}

// pwrc report and pwrc plot find the scenario a saved directory's
// manifest names — and the relative paths of its --set values — from the
// directory pwrc run ran in, wherever they are run; plot says nothing of
// a missing scenario unless its figure draws a price, and then once, in
// one sentence.
func TestSavedScenarioFoundFromAnywhere(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for k, v := range inputScenario {
		files["in/"+k] = v
	}
	files["in/e.pwr"] = strings.Replace(inputScenario["e.pwr"], `workload swf "trace.swf"`, "workload swf trace", 1)
	files["in/e.pwr"] = strings.Replace(files["in/e.pwr"], "experiment e {", "param trace = \"nothing.swf\"\nexperiment e {", 1)
	writeFiles(t, dir, files)
	t.Chdir(dir)
	// The trace by a path relative to where pwrc run runs, not to the scenario.
	args := []string{"run", "in/e.pwr", "--set", "trace=in/trace.swf", "--format", "json", "-o", "saved/results.json", "--jobs", "saved", "--series", "saved", "--report", "want.html"}
	if _, e, code := pwrc(t, args...); code != 0 {
		t.Fatalf("exit %d\n%s", code, e)
	}
	want := mustRead(t, "want.html")
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	saved := filepath.Join(dir, "saved")
	if _, e, code := pwrc(t, "report", saved, "-o", "got.html"); code != 0 || e != "" {
		t.Fatalf("report from elsewhere: exit %d\n%s", code, e)
	}
	if got := mustRead(t, "got.html"); !bytes.Equal(got, want) {
		t.Error("the report from another directory differs from pwrc run --report's")
	}
	if _, e, code := pwrc(t, "plot", filepath.Join(saved, "e.states.csv"), "--what", "power", "-o", "p.svg"); code != 0 || e != "" {
		t.Errorf("plot from elsewhere: exit %d\n%s", code, e)
	}
	if !strings.Contains(string(mustRead(t, "p.svg")), `data-name="price"`) {
		t.Error("plot from elsewhere drew no price")
	}
	// Without the scenario: plot says so only for the figure with a price.
	if err := os.Rename(filepath.Join(dir, "in", "e.pwr"), filepath.Join(dir, "in", "gone.pwr")); err != nil {
		t.Fatal(err)
	}
	if _, e, code := pwrc(t, "plot", filepath.Join(saved, "e.states.csv"), "--what", "states", "-o", "s.svg"); code != 0 || e != "" {
		t.Errorf("plot --what states without the scenario: exit %d\n%s", code, e)
	}
	_, e, code := pwrc(t, "plot", filepath.Join(saved, "e.states.csv"), "--what", "power", "-o", "p.svg")
	if code != 0 || e != "pwrc: no price drawn for the runs in "+saved+": scenario in/e.pwr not found (no such file or directory)\n" {
		t.Errorf("plot --what power without the scenario: exit %d\n%q", code, e)
	}
}
