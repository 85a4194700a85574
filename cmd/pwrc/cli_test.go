package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// noSimulation makes the test fail if anything is simulated.
func noSimulation(t *testing.T) {
	t.Helper()
	setHooks(t, hooks{execute: func(ctx context.Context, p *pwrt.Plan, o pwrt.Options) []*pwrt.Result {
		t.Errorf("simulated %d runs; the command should have stopped before", len(p.Runs))
		return pwrt.Execute(ctx, p, o)
	}})
}

// TestExitCodes: 0 success, 1 scenario errors or failed runs, 2 usage
// errors, 130 interrupted.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pwr")
	noExp := filepath.Join(dir, "noexp.pwr")
	broken := filepath.Join(dir, "broken.pwr")
	for name, src := range map[string]string{
		empty:  "",
		noExp:  "import \"std/policies\"\nmachine m {\n  nodes 4\n  power { idle 1 W; busy 2 W }\n}\n",
		broken: "machine m {\n  nodes 4\n",
	} {
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ok := writeScenario(t, "sweep.pwr", sweepScenario)
	cases := []struct {
		name     string
		args     []string
		code     int
		stderr   string // a substring of stderr
		simulate bool
	}{
		{"ok", []string{"run", ok}, 0, "", true},
		{"-j 0 means all CPUs", []string{"run", ok, "-j", "0"}, 0, "", true},
		{"-j -1", []string{"run", ok, "-j", "-1"}, 2, "-j", false},
		{"-j -8 long form", []string{"run", ok, "--jobs-parallel=-8"}, 2, "-j", false},
		{"bad format", []string{"run", ok, "--format", "xml"}, 2, "--format", false},
		{"unknown flag", []string{"run", ok, "--nope"}, 2, "unknown flag", false},
		{"unknown command", []string{"runn", ok}, 2, "unknown command", false},
		{"no file", []string{"run"}, 2, "arg", false},
		{"bad --set", []string{"run", ok, "--set", "x"}, 2, "--set", false},
		{"scenario error", []string{"run", broken}, 1, "broken.pwr:", false},
		{"unknown param", []string{"run", ok, "--set", "nope=1"}, 1, "unknown param", false},
		{"empty file", []string{"run", empty}, 1, "no experiments", false},
		{"no experiment", []string{"run", noExp}, 1, "no experiments", false},
		{"plan of no experiment", []string{"plan", noExp}, 0, "no experiments", false},
		{"check format", []string{"check", "--format", "xml", ok}, 2, "--format", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.simulate {
				noSimulation(t)
			}
			_, errOut, code := pwrc(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.stderr) {
				t.Errorf("pwrc %s: exit %d, want %d; stderr should say %q:\n%s", strings.Join(c.args, " "), code, c.code, c.stderr, errOut)
			}
		})
	}
}

// TestBadDestinations: an output path that cannot be written fails at
// once, before anything is simulated, naming the flag and the path as the
// user wrote it (not a temporary file).
func TestBadDestinations(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("file", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("adir", 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, flag, path string
	}{
		{"-o in a missing directory", "-o", "missing/out.txt"},
		{"-o under a file", "-o", "file/out.txt"},
		{"-o is a directory", "-o", "adir"},
		{"-o is the scenario", "-o", scen},
		{"--jobs is a file", "--jobs", "file"},
		{"--jobs under a file", "--jobs", "file/jobs/"},
		{"--series is a file", "--series", "file"},
		{"--cpuprofile in a missing directory", "--cpuprofile", "missing/cpu.prof"},
		{"--cpuprofile is a directory", "--cpuprofile", "adir"},
		{"-o is a --jobs file", "-o", "adir/kunkel_fixed-easy.csv --jobs adir"},
		{"-o is a --series file", "-o", "adir/kunkel_fixed-easy.hours.csv --series adir/"},
		{"-o is a manifest", "-o", "adir/MANIFEST.json --series adir"},
		{"--cpuprofile is -o", "--cpuprofile", "adir/x -o ./adir/x"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		if err := os.Mkdir("ro", 0o555); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, flag, path string }{"--jobs not writable", "--jobs", "ro"},
			struct{ name, flag, path string }{"-o not writable", "-o", "ro/out.txt"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			noSimulation(t)
			path, more, _ := strings.Cut(c.path, " ")
			out, errOut, code := pwrc(t, append([]string{"run", scen, c.flag, path}, strings.Fields(more)...)...)
			c.path = path
			if code != 2 {
				t.Errorf("exit %d, want 2 (usage)", code)
			}
			if !strings.Contains(errOut, c.flag+" "+c.path+":") {
				t.Errorf("stderr does not name %s %s:\n%s", c.flag, c.path, errOut)
			}
			if strings.Contains(errOut, ".pwrc-") || strings.Contains(errOut, "/.") || out != "" {
				t.Errorf("stderr names a temporary file, or something went to stdout:\n%s%s", errOut, out)
			}
		})
	}
	if data, err := os.ReadFile("file"); err != nil || string(data) != "x" {
		t.Errorf("the file in the way was changed: %q, %v", data, err)
	}
	if left, _ := filepath.Glob(".*"); len(left) > 0 {
		t.Errorf("probe files left behind: %v", left)
	}
	if _, err := os.Stat("missing"); err == nil {
		t.Error("-o created a missing directory")
	}
}

// TestOutputFileAndProfile: -o holds exactly what stdout would; a
// --jobs directory that does not exist yet is created, parents included;
// --cpuprofile writes a gzipped profile.
func TestOutputFileAndProfile(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	want, errOut, code := pwrc(t, "run", scen, "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	out := filepath.Join(dir, "result.json")
	prof := filepath.Join(dir, "cpu.prof")
	jobs := filepath.Join(dir, "a", "b", "jobs")
	stdout, errOut, code := pwrc(t, "run", scen, "--format", "json", "-o", out, "--cpuprofile", prof, "--jobs", jobs)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, errOut)
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != want {
		t.Errorf("-o file differs from stdout (%v):\n%s", err, got)
	}
	p, err := os.ReadFile(prof)
	if err != nil || len(p) < 2 || p[0] != 0x1f || p[1] != 0x8b {
		t.Errorf("--cpuprofile: not a gzipped profile (%v): % x", err, p[:min(len(p), 8)])
	}
	if files, _ := filepath.Glob(filepath.Join(jobs, "*.csv")); len(files) != 4 {
		t.Errorf("--jobs in a new directory: %v", files)
	}
	// Through a symbolic link, pwrc writes the link's target.
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := pwrc(t, "run", scen, "--format", "json", "-o", link); code != 0 {
		t.Fatal(errOut)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != want {
		t.Errorf("-o through a link: the target holds %q (%v)", got, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o replaced the link itself: %v", err)
	}
	// A device is written, not replaced.
	if _, errOut, code := pwrc(t, "run", scen, "-o", os.DevNull); code != 0 {
		t.Fatal(errOut)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v", os.DevNull, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// manifestBack is MANIFEST.json as tests read it back.
type manifestBack struct {
	Pwrc       string   `json:"pwrc"`
	Complete   bool     `json:"complete"`
	Scenario   string   `json:"scenario"`
	Workdir    string   `json:"workdir"`
	Experiment string   `json:"experiment"`
	Sets       []string `json:"sets"`
	Inputs     string   `json:"inputs_sha256"`
	Runs       []struct {
		Name       string            `json:"name"`
		Experiment string            `json:"experiment"`
		Params     map[string]string `json:"params"`
		Baseline   string            `json:"baseline"`
		Account    *struct {
			From, To string
			Measure  bool
		} `json:"account"`
		Error string `json:"error"`
	} `json:"runs"`
	Files []struct {
		Name   string `json:"name"`
		Run    string `json:"run"`
		Kind   string `json:"kind"`
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	} `json:"files"`
}

func readManifest(t *testing.T, dir string) manifestBack {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifestBack
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("MANIFEST.json: %v\n%s", err, data)
	}
	return m
}

// TestManifest: a directory written by --jobs and --series (here the
// same one) ends with MANIFEST.json, which names the scenario, hashes its
// inputs and lists every run and every file with its size and SHA-256 —
// and nothing else in the directory; it is the same for any -j.
func TestManifest(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	_, errOut, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir, "-j", "1")
	if code != 0 {
		t.Fatal(errOut)
	}
	m := readManifest(t, dir)
	first, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if !m.Complete || m.Pwrc != version || m.Scenario != scen || len(m.Inputs) != 64 {
		t.Errorf("manifest header: %+v", m)
	}
	var runs []string
	for _, r := range m.Runs {
		runs = append(runs, r.Name)
		if r.Experiment != "sweep" || r.Params["contract"] == "" || r.Params["policy"] == "" || r.Error != "" {
			t.Errorf("run %+v", r)
		}
	}
	if want := []string{"kunkel_fixed-easy", "kunkel_fixed-easy_shutdown", "kunkel_basepeak-easy", "kunkel_basepeak-easy_shutdown"}; !slices.Equal(runs, want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
	listed := map[string]bool{"MANIFEST.json": true}
	kinds := map[string]int{}
	for _, f := range m.Files {
		listed[f.Name] = true
		kinds[f.Kind]++
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Error(err)
			continue
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: %d bytes, sha256 %x; the manifest says %d, %s", f.Name, len(data), sum, f.Bytes, f.SHA256)
		}
		if want := f.Run + map[string]string{"jobs": ".csv", "series": ".hours.csv", "states": ".states.csv", "weeks": ".weeks.csv", "active": ".active.csv"}[f.Kind]; f.Name != want {
			t.Errorf("file %s of run %s, kind %s", f.Name, f.Run, f.Kind)
		}
	}
	if kinds["jobs"] != 4 || kinds["series"] != 4 || kinds["states"] != 4 || kinds["weeks"] != 4 || kinds["active"] != 0 {
		t.Errorf("files by kind: %v", kinds)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !listed[e.Name()] {
			t.Errorf("%s is in the directory but not in the manifest", e.Name())
		}
	}
	// Same inputs, any -j: the same manifest. Other inputs: another hash.
	if _, errOut, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir, "-j", "2"); code != 0 {
		t.Fatal(errOut)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.json")); string(again) != string(first) {
		t.Errorf("manifest differs between -j 1 and -j 2:\n%s\n%s", first, again)
	}
	other := t.TempDir()
	if _, errOut, code := pwrc(t, "run", scen, "--jobs", other, "--experiment", "sweep"); code != 0 {
		t.Fatal(errOut)
	}
	if m2 := readManifest(t, other); m2.Inputs == m.Inputs || m2.Experiment != "sweep" {
		t.Errorf("--experiment changes neither the inputs hash nor the manifest: %s %q", m2.Inputs, m2.Experiment)
	}
}

// paramSweep is sweepScenario with its swept values in params, so that
// --set can narrow the sweep.
const paramSweep = `import "std/policies"
import "std/kunkel"

param c = [kunkel_fixed, kunkel_basepeak]
param p = [easy, easy_shutdown]

machine m {
  nodes 16
  cores 1
  power { off 0 W; idle 70 W; busy 260 W }
}

experiment sweep {
  workload synthetic { jobs 200; load 80%; seed 3 }
  machine  m
  contract c
  policy   p
}
`

// TestStaleFilesRemoved: a second run of the same sweep into the same
// directory removes the files the first run's manifest lists and it does
// not write again, says which, and leaves files pwrc did not write alone
// (saying so for CSV files).
func TestStaleFilesRemoved(t *testing.T) {
	sweep := writeScenario(t, "sweep.pwr", paramSweep)
	dir := t.TempDir()
	if _, errOut, code := pwrc(t, "run", sweep, "--jobs", dir); code != 0 {
		t.Fatal(errOut)
	}
	for _, name := range []string{"notes.txt", "mine.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("user data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code := pwrc(t, "run", sweep, "--jobs", dir, "--set", "c=kunkel_fixed", "--set", "p=easy")
	if code != 0 {
		t.Fatal(errOut)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"MANIFEST.json", "mine.csv", "notes.txt", "sweep.csv"}; !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v", names, want)
	}
	if !strings.Contains(errOut, "mine.csv") || strings.Contains(errOut, "notes.txt") {
		t.Errorf("stderr should mention the CSV file pwrc did not write, only:\n%s", errOut)
	}
	removed := "removed 4 files that an earlier run of this sweep wrote and this run did not (its runs failed or are no longer in the sweep): " +
		"kunkel_fixed-easy.csv, kunkel_fixed-easy_shutdown.csv, kunkel_basepeak-easy.csv, kunkel_basepeak-easy_shutdown.csv"
	if !strings.Contains(errOut, removed) {
		t.Errorf("stderr does not say which files were removed:\n%s", errOut)
	}
	if m := readManifest(t, dir); len(m.Files) != 1 || m.Files[0].Name != "sweep.csv" || !m.Complete {
		t.Errorf("manifest %+v", m)
	}
	rows := readCSV(t, filepath.Join(dir, "sweep.csv"))
	if len(rows) != 201 {
		t.Errorf("sweep.csv has %d rows, want a header and 200 jobs", len(rows))
	}
}

// TestInterruptWhileSimulating: Ctrl-C during the simulation stops at
// once with exit 130, even if the simulation does not notice it, and
// writes nothing.
func TestInterruptWhileSimulating(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	ctx = withHooks(ctx, hooks{execute: func(_ context.Context, p *pwrt.Plan, _ pwrt.Options) []*pwrt.Result {
		cancel()  // Ctrl-C…
		<-release // …while a run goes on regardless
		return nil
	}})
	defer close(release)
	var o, e strings.Builder
	code := runContext(ctx, []string{"run", scen, "--jobs", dir, "-o", filepath.Join(dir, "out.txt")}, &o, &e)
	if code != 130 || o.Len() != 0 || !strings.Contains(e.String(), "interrupted") {
		t.Errorf("exit %d, want 130; stdout %q; stderr %q", code, o.String(), e.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("interrupted before any output, yet %d files written", len(entries))
	}
}

// TestInterruptWhileWriting: Ctrl-C after the first --jobs file stops the
// writing with exit 130; the manifest says the directory is incomplete and
// lists every file that may be there; a later run completes it.
func TestInterruptWhileWriting(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "out.txt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wrote := 0
	hooked := withHooks(ctx, hooks{wrote: func(string) {
		if wrote++; wrote == 1 {
			cancel()
		}
	}})
	var o, e strings.Builder
	code := runContext(hooked, []string{"run", scen, "--jobs", dir, "-o", out}, &o, &e)
	if code != 130 || !strings.Contains(e.String(), "interrupted") || !strings.Contains(e.String(), "--jobs "+dir) {
		t.Errorf("exit %d, want 130; stderr %q", code, e.String())
	}
	if wrote != 1 {
		t.Errorf("%d files written after the interrupt, want it to stop after the first", wrote-1)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("-o written after the interrupt")
	}
	m := readManifest(t, dir)
	if m.Complete || len(m.Files) != 4 {
		t.Errorf("interrupted manifest: complete %v, %d files (want false, the 4 planned)", m.Complete, len(m.Files))
	}
	if _, errOut, code := pwrc(t, "run", scen, "--jobs", dir); code != 0 {
		t.Fatal(errOut)
	}
	if m := readManifest(t, dir); !m.Complete || len(m.Files) != 4 {
		t.Errorf("after a complete run: %+v", m)
	}
}

// TestInterruptBeforeStart: a signal that comes before or during a command
// that does not watch for it still ends in exit 130, never success, and
// `run` then simulates nothing.
func TestInterruptBeforeStart(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	jobs := filepath.Join(t.TempDir(), "jobs")
	for _, args := range [][]string{{"run", scen, "--jobs", jobs}, {"plan", scen}, {"check", scen}} {
		noSimulation(t)
		var o, e strings.Builder
		if code := runContext(ctx, args, &o, &e); code != 130 || !strings.Contains(e.String(), "interrupted") {
			t.Errorf("pwrc %s: exit %d, want 130; stderr %q", args[0], code, e.String())
		}
	}
	if _, err := os.Stat(jobs); err == nil {
		t.Error("run created --jobs after the interrupt")
	}
}

// Provenance: the JSON says over which window each run was accounted and
// against which run its saving was computed, and the manifest says the
// same of the plan; a saved run directory reads them back.
func TestProvenance(t *testing.T) {
	scen := writeScenario(t, "prov.pwr", `
import "std/policies"
machine m { nodes 32; power { off 5 W; idle 60 W; busy 250 W } }
contract flat { flat 0.10 EUR/kWh }
experiment own {
  workload synthetic { jobs 300; load 50%; seed 2 }
  machine m
  contract flat
  policy [easy, easy_shutdown]
  baseline policy = easy
}
experiment window {
  workload synthetic { jobs 300; load 50%; seed 2 }
  machine m
  contract flat
  policy easy_shutdown
  account "1970-01-02" .. "1970-01-09"
}
`)
	dir := t.TempDir()
	out, errOut, code := pwrc(t, "run", scen, "--format", "json", "--jobs", dir)
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if name, ok := x["run"].(string); ok {
				got[x["experiment"].(string)+"/"+name], _ = x["metrics"].(map[string]any)
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(doc)
	for key, want := range map[string][3]any{
		"own/own-easy":          {"run", "own-easy", nil},
		"own/own-easy_shutdown": {"run", "own-easy", nil},
		"window/window":         {"account", nil, "1970-01-02T00:00:00Z"},
	} {
		r := got[key]
		if r == nil {
			t.Fatalf("no run %s in %v", key, slices.Collect(maps.Keys(got)))
		}
		if r["accounted_over"] != want[0] || r["saving_against"] != want[1] {
			t.Errorf("%s: accounted over %v, saving against %v; want %v, %v", key, r["accounted_over"], r["saving_against"], want[0], want[1])
		}
		if want[2] != nil && r["accounted_from"] != want[2] {
			t.Errorf("%s: accounted from %v, want %v", key, r["accounted_from"], want[2])
		}
		if _, ok := r["accounted_from_s"].(float64); !ok {
			t.Errorf("%s: no accounted_from_s", key)
		}
	}
	m := readManifest(t, dir)
	for _, r := range m.Runs {
		switch r.Experiment + "/" + r.Name {
		case "own/own-easy_shutdown":
			if r.Baseline != "own-easy" || r.Account != nil {
				t.Errorf("manifest %s: baseline %q, account %+v", r.Name, r.Baseline, r.Account)
			}
		case "window/window":
			if r.Baseline != "" || r.Account == nil || r.Account.From != `"1970-01-02 00:00"` {
				t.Errorf("manifest %s: baseline %q, account %+v", r.Name, r.Baseline, r.Account)
			}
		}
	}
}
