package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inputScenario reads every kind of input a run can have: an imported
// file, a trace, an hourly price file and an hourly carbon file. Its one
// run is named e, so --jobs . would write e.csv, the price file's name.
var inputScenario = map[string]string{
	"e.pwr": `import "std/policies"
import "common.pwr"
contract c { hourly "e.csv" { repeat }; carbon hourly "carbon.csv" }
experiment e {
  workload swf "trace.swf"
  machine m
  contract c
  policy easy
}
`,
	"common.pwr": "machine m { nodes 4; cores 1; power { off 0 W; idle 10 W; busy 20 W } }\n",
	"trace.swf": "; MaxNodes: 4\n; MaxProcs: 4\n1 0 0 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 10 0 100 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1\n3 20 0 300 4 -1 -1 4 400 -1 1 1 1 -1 1 -1 -1 -1\n",
	"e.csv":      hourlyCSV("price", func(h int) float64 { return 0.1 + 0.01*float64(h%24) }),
	"carbon.csv": hourlyCSV("intensity", func(h int) float64 { return 300 + float64(h) }),
}

func hourlyCSV(col string, f func(int) float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "time,%s\n", col)
	for h := range 48 {
		fmt.Fprintf(&b, "%g,%g\n", float64(h)/24, f(h))
	}
	return b.String()
}

// writeFiles writes files into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unchanged fails the test if a file of files no longer holds its data.
func unchanged(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s was changed or removed (%v)", name, err)
		}
	}
}

// No output of any command replaces a file the command reads: the
// scenario and its imports, traces, sacct files, price and carbon files
// (run's -o, --cpuprofile, --report, --jobs and --series; slurm -o; merge
// -o and --report; report -o on the saved files). Each is a usage error
// (exit 2) that names the flag and what the file is, before anything is
// simulated.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	root := testRoot(t)
	dir := t.TempDir()
	writeFiles(t, dir, inputScenario)
	t.Chdir(dir)
	if err := os.Symlink("trace.swf", "link.swf"); err != nil {
		t.Fatal(err)
	}
	// A saved directory and a shard, for report and merge.
	if err := os.Mkdir("saved", 0o755); err != nil {
		t.Fatal(err)
	}
	if o, e, code := pwrc(t, "run", "e.pwr", "--format", "json", "-o", "saved/results.json", "--jobs", "saved", "--series", "saved"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	if o, e, code := pwrc(t, "run", "e.pwr", "--shard", "1/1", "-o", "shard.json"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	saved := map[string]string{}
	for _, f := range []string{"saved/results.json", "saved/MANIFEST.json", "saved/e.csv", "saved/e.states.csv", "shard.json"} {
		saved[f] = string(mustRead(t, f))
	}
	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"run", "e.pwr", "-o", "trace.swf"}, "-o trace.swf: is the trace of workload trace"},
		{[]string{"run", "e.pwr", "-o", "link.swf"}, "-o link.swf: is the trace of workload trace"},
		{[]string{"run", "e.pwr", "-o", "e.csv"}, "-o e.csv: is the price file of contract c"},
		{[]string{"run", "e.pwr", "-o", "carbon.csv"}, "-o carbon.csv: is the carbon file of contract c"},
		{[]string{"run", "e.pwr", "-o", "common.pwr"}, "-o common.pwr: is the scenario source common.pwr"},
		{[]string{"run", "e.pwr", "-o", "e.pwr"}, "-o e.pwr: is the scenario source e.pwr"},
		{[]string{"run", "e.pwr", "--cpuprofile", "trace.swf"}, "--cpuprofile trace.swf: is the trace of workload trace"},
		{[]string{"run", "e.pwr", "--report", "e.csv"}, "--report e.csv: is the price file of contract c"},
		{[]string{"run", "e.pwr", "--jobs", "."}, "--jobs .: e.csv is the price file of contract c, which this run reads, and run e would write e.csv"},
		{[]string{"run", "e.pwr", "--jobs", "sub/.."}, "--jobs sub/..: e.csv is the price file"},
		{[]string{"slurm", "e.pwr", "--shards", "1", "--pwrc", "/opt/pwrc", "-o", "e.pwr"}, "-o e.pwr: is the scenario source e.pwr"},
		{[]string{"slurm", "e.pwr", "--shards", "1", "--pwrc", "/opt/pwrc", "-o", "carbon.csv"}, "-o carbon.csv: is the carbon file"},
		{[]string{"merge", "shard.json", "-o", "trace.swf"}, "-o trace.swf: is the trace of workload trace"},
		{[]string{"merge", "shard.json", "-o", "shard.json"}, "-o shard.json: is the shard file shard.json"},
		{[]string{"merge", "shard.json", "--report", "common.pwr"}, "--report common.pwr: is the scenario source common.pwr"},
		{[]string{"report", "saved", "-o", "saved/results.json"}, "-o saved/results.json: is the saved runs' results.json"},
		{[]string{"report", "saved", "-o", "saved/MANIFEST.json"}, "-o saved/MANIFEST.json: is the saved runs' MANIFEST.json"},
		{[]string{"report", "saved", "-o", "saved/e.states.csv"}, "-o saved/e.states.csv: is the saved file saved/e.states.csv"},
		{[]string{"report", "saved", "-o", "e.csv"}, "-o e.csv: is the price file of contract c"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			noSimulation(t)
			if err := os.MkdirAll("sub", 0o755); err != nil {
				t.Fatal(err)
			}
			_, e, code := pwrc(t, c.args...)
			if code != exitUsage || !strings.Contains(e, c.what) || !strings.Contains(e, "never writes over its inputs") {
				t.Errorf("exit %d, want %d; stderr should say %q:\n%s", code, exitUsage, c.what, e)
			}
			unchanged(t, ".", inputScenario)
			unchanged(t, ".", saved)
		})
	}
	// A sacct file is an input too.
	sample := string(mustRead(t, filepath.Join(root, "runtime/workload/testdata/sacct/jobs.txt")))
	writeFiles(t, dir, map[string]string{"jobs.txt": sample, "s.pwr": `import "std/policies"
import "std/kunkel"
machine cluster { nodes 16; cores 128; power { off 5 W; idle 90 W; busy 350 W } }
experiment s {
  workload sacct "jobs.txt"
  machine  cluster
  contract kunkel_basepeak
  policy   easy
}
`})
	noSimulation(t)
	if _, e, code := pwrc(t, "run", "s.pwr", "-o", "jobs.txt"); code != exitUsage || !strings.Contains(e, "-o jobs.txt: is the sacct file of workload jobs") {
		t.Errorf("-o over the sacct file: exit %d\n%s", code, e)
	}
	unchanged(t, ".", map[string]string{"jobs.txt": sample})
}

func testRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// A --jobs or --series directory: pwrc replaces only files a manifest of
// its own lists. A file of the user's in the way, or a MANIFEST.json pwrc
// did not write, is a usage error before anything is simulated; the files
// stay as they were, and no directory is left created.
func TestDirectoryKeepsUnlistedFiles(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	for _, c := range []struct {
		name  string
		flag  string
		files map[string]string
		want  string
	}{
		{"user's jobs file", "--jobs", map[string]string{"kunkel_fixed-easy.csv": "mine\n"},
			"kunkel_fixed-easy.csv is not a file pwrc wrote (no MANIFEST.json lists it), and run kunkel_fixed-easy would replace it: move it away"},
		{"several", "--jobs", map[string]string{"kunkel_fixed-easy.csv": "mine\n", "kunkel_basepeak-easy.csv": "mine too\n"},
			"would replace it (and 1 more like it): move it away"},
		{"user's series file", "--series", map[string]string{"kunkel_fixed-easy.hours.csv": "mine\n", "notes.txt": "x"},
			"kunkel_fixed-easy.hours.csv is not a file pwrc wrote"},
		{"a directory in the way", "--series", map[string]string{"kunkel_fixed-easy.states.csv/x": "mine\n"},
			"kunkel_fixed-easy.states.csv is not a regular file, and run kunkel_fixed-easy would write a file of that name"},
		{"foreign manifest", "--jobs", map[string]string{"MANIFEST.json": "{\"project\": \"mine\"}\n"},
			"MANIFEST.json is not a manifest pwrc wrote"},
		{"broken manifest", "--jobs", map[string]string{"MANIFEST.json": "not json\n"},
			"MANIFEST.json is not a manifest pwrc wrote"},
	} {
		t.Run(c.name, func(t *testing.T) {
			noSimulation(t)
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			_, e, code := pwrc(t, "run", scen, c.flag, dir)
			if code != exitUsage || !strings.Contains(e, c.flag+" "+dir+": ") || !strings.Contains(e, c.want) {
				t.Errorf("exit %d, want %d; stderr should say %q:\n%s", code, exitUsage, c.want, e)
			}
			for name, want := range c.files {
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
					t.Errorf("%s changed (%v)", name, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "MANIFEST.json")); err == nil && c.files["MANIFEST.json"] == "" {
				t.Error("a manifest was written")
			}
		})
	}
	// A file a manifest lists is replaced.
	dir := t.TempDir()
	if _, e, code := pwrc(t, "run", scen, "--jobs", dir); code != 0 {
		t.Fatal(e)
	}
	if _, e, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir); code != 0 {
		t.Fatalf("a second run into its own directory: %s", e)
	}
}

// A directory that holds another sweep's files — another scenario, or
// another --experiment — is refused (exit 2) before anything is simulated,
// its files and manifest left as they were. The same scenario found by
// another path (from another directory) is the same sweep. A file of an
// earlier run of the sweep that the user changed since is kept, and said.
func TestDirectoryOfAnotherSweep(t *testing.T) {
	a := writeScenario(t, "a.pwr", paramSweep)
	b := writeScenario(t, "b.pwr", sweepScenario)
	dir := t.TempDir()
	if _, e, code := pwrc(t, "run", a, "--jobs", dir, "--series", dir); code != 0 {
		t.Fatal(e)
	}
	before := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		before[e.Name()] = string(mustRead(t, filepath.Join(dir, e.Name())))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", b, "--jobs", dir}, "holds the files of " + a + " (" + filepath.Join(dir, "MANIFEST.json") + " says so), which this run of " + b + " would replace or remove"},
		{[]string{"run", a, "--jobs", dir, "--experiment", "sweep"}, "which this run of experiment sweep of " + a + " would replace or remove"},
		{[]string{"run", b, "--series", dir}, "holds the files of " + a},
	} {
		t.Run(strings.Join(c.args[2:], " "), func(t *testing.T) {
			noSimulation(t)
			_, e, code := pwrc(t, c.args...)
			if code != exitUsage || !strings.Contains(e, c.want) || !strings.Contains(e, "write into another directory, or remove "+dir+" first") {
				t.Errorf("pwrc %s: exit %d, want %d; stderr should say %q:\n%s", strings.Join(c.args, " "), code, exitUsage, c.want, e)
			}
			unchanged(t, dir, before)
		})
	}
	// The same scenario by a relative path, from its own directory (the
	// manifest then says where it ran; the files are the same).
	t.Chdir(filepath.Dir(a))
	_, e, code := pwrc(t, "run", "a.pwr", "--jobs", dir, "--series", dir)
	if code != 0 || strings.Contains(e, "removed") {
		t.Errorf("the same sweep from another directory: exit %d\n%s", code, e)
	}
	delete(before, "MANIFEST.json")
	unchanged(t, dir, before)
	// The user edits a file; a narrower sweep keeps it, and says so.
	edited := filepath.Join(dir, "kunkel_basepeak-easy.hours.csv")
	if err := os.WriteFile(edited, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, e, code = pwrc(t, "run", "a.pwr", "--jobs", dir, "--series", dir, "--set", "c=kunkel_fixed")
	if code != 0 || !strings.Contains(e, "kept 1 file that an earlier run listed and this run did not write: kunkel_basepeak-easy.hours.csv (changed since)") ||
		!strings.Contains(e, "removed 15 files") || strings.Contains(e, "left as it was") {
		t.Errorf("narrower sweep: exit %d\n%s", code, e)
	}
	if got, _ := os.ReadFile(edited); string(got) != "my notes\n" {
		t.Error("the user's edited file was removed")
	}
}
