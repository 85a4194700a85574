package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the stdout sections of testdata/run/*.txtar")

func pwrc(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	ctx := context.Background()
	if h, ok := testHooks.Load(t); ok {
		ctx = withHooks(ctx, h.(hooks))
	}
	code = runContext(ctx, args, &o, &e)
	return o.String(), e.String(), code
}

// testHooks are the hooks each test set for its pwrc calls (setHooks).
var testHooks sync.Map // *testing.T → hooks

// setHooks gives t's pwrc calls hooks h.
func setHooks(t *testing.T, h hooks) {
	testHooks.Store(t, h)
	t.Cleanup(func() { testHooks.Delete(t) })
}

// TestRunGolden compares the output of whole commands with golden files.
// Each testdata/run/*.txtar holds:
//
//	-- args --     the command line, split on white space
//	-- stdout --   the expected standard output
//	-- stderr --   optional: the expected standard error (not compared without it)
//	-- exit --     optional: the expected exit code (default 0)
//	-- NAME --     any other file: written to a fresh temporary directory
//
// The command always runs with that temporary directory as its working
// directory, so relative paths in args name the archive's own files (e.g.
// `run sweep.pwr` with a `-- sweep.pwr --` section). In args, $ROOT is the
// repository root and $WORK the temporary directory; $DATA is the shared
// data directory (the case is skipped without it). In stdout and stderr the
// values of $WORK, $ROOT and $DATA are written as those names.
//
// -update rewrites stdout and (if the archive has one) stderr; the exit
// code is never rewritten: a case that fails unexpectedly fails, -update
// or not.
func TestRunGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/run/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			var args []string
			stdoutIdx, stderrIdx, wantCode := -1, -1, 0
			for i, f := range ar.Files {
				switch f.Name {
				case "args":
					args = strings.Fields(string(f.Data))
				case "stdout":
					stdoutIdx = i
				case "stderr":
					stderrIdx = i
				case "exit":
					if wantCode, err = strconv.Atoi(strings.TrimSpace(string(f.Data))); err != nil {
						t.Fatalf("exit section: %v", err)
					}
				default:
					name := filepath.Join(work, filepath.FromSlash(f.Name))
					if !filepath.IsLocal(f.Name) {
						t.Fatalf("file %q is not a relative path inside the work directory", f.Name)
					}
					if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(name, f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if args == nil || stdoutIdx < 0 {
				t.Fatalf("%s needs an args and a stdout section", path)
			}
			vars := [][2]string{{"$WORK", work}, {"$ROOT", root}}
			if strings.Contains(strings.Join(args, " "), "$DATA") {
				d := testenv.DataDir()
				if d == "" {
					t.Skip("shared data not found (set PWRC_DATA)")
				}
				vars = append(vars, [2]string{"$DATA", d})
			}
			for i := range args {
				for _, v := range vars {
					args[i] = strings.ReplaceAll(args[i], v[0], v[1])
				}
			}
			t.Chdir(work)
			out, errOut, code := pwrc(t, args...)
			for _, v := range vars { // $WORK first: it may lie under $ROOT or $DATA, never the reverse
				out = strings.ReplaceAll(out, v[1], v[0])
				errOut = strings.ReplaceAll(errOut, v[1], v[0])
			}
			if code != wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, errOut)
			}
			if *update {
				ar.Files[stdoutIdx].Data = []byte(out)
				if stderrIdx >= 0 {
					ar.Files[stderrIdx].Data = []byte(errOut)
				}
				if err := os.WriteFile(filepath.Join(root, "cmd/pwrc", path), txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(ar.Files[stdoutIdx].Data); out != want {
				t.Errorf("stdout differs from %s (run with -update to accept):\n--- got\n%s--- want\n%s", path, out, want)
			}
			if stderrIdx >= 0 {
				if want := string(ar.Files[stderrIdx].Data); errOut != want {
					t.Errorf("stderr differs from %s (run with -update to accept):\n--- got\n%s--- want\n%s", path, errOut, want)
				}
			}
		})
	}
}

// TestRunDeterministic: same scenario and seed give byte-identical output
// for any -j.
func TestRunDeterministic(t *testing.T) {
	args := []string{"run", "../../examples/quickstart.pwr", "--format", "json"}
	if d := testenv.DataDir(); d != "" {
		args = []string{"run", "../../examples/kunkel_billing.pwr", "--format", "json",
			"--set", "trace=" + filepath.Join(d, "traces/KTH-SP2-1996-2.1-cln.swf.gz"),
			"--set", "kunkel_prices=" + filepath.Join(d, "prices/T1.csv")}
	}
	a, _, c1 := pwrc(t, append(args, "-j", "1")...)
	b, _, c2 := pwrc(t, append(args, "-j", "2")...)
	c, _, c3 := pwrc(t, append(args, "-j", "2")...)
	if c1 != 0 || c2 != 0 || c3 != 0 {
		t.Fatalf("exit codes %d %d %d", c1, c2, c3)
	}
	if a != b || b != c {
		t.Error("output differs between runs or between -j 1 and -j 2")
	}
}

func TestRunJSON(t *testing.T) {
	out, errOut, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var runs []struct {
		Experiment string
		Run        string
		Params     map[string]string
		Metrics    map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 6 {
		t.Fatalf("%d runs, want 6", len(runs))
	}
	for _, k := range []string{"run_days", "utilization", "energy_mwh", "cost", "saving", "wait_mean_s", "wait_q50_s",
		"wait_q99_s", "wait_max_s", "bsld_mean", "jobs", "jobs_dropped"} {
		if _, ok := runs[0].Metrics[k]; !ok {
			t.Errorf("metric %q missing", k)
		}
	}
	for _, r := range runs {
		if r.Params["policy"] == "easy" && r.Metrics["saving"] != 0.0 {
			t.Errorf("baseline run %s saves %v against itself", r.Run, r.Metrics["saving"])
		}
		if r.Params["policy"] == "easy_shutdown" && !(r.Metrics["saving"].(float64) > 0) {
			t.Errorf("%s: shutting idle nodes down saves nothing", r.Run)
		}
	}
}

// TestJobsCSV checks --jobs: one file per run, one row per job.
func TestJobsCSV(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--jobs", dir)
	if code != 0 {
		t.Fatal(errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	if len(files) != 6 {
		t.Fatalf("%d CSV files, want 6: %v", len(files), files)
	}
	rows := readCSV(t, filepath.Join(dir, "kunkel_fixed-easy.csv"))
	if got := strings.Join(rows[0], ","); got != jobsHeader {
		t.Errorf("header %s, want %s", got, jobsHeader)
	}
	for _, row := range rows[1:] { // synthetic jobs: a user and a group, no queue or partition
		if row[10] == "" || row[11] == "" || row[12] != "" || row[13] != "" || row[9] != row[4] {
			t.Fatalf("row %v", row)
		}
	}
	if len(rows) != 5001 {
		t.Errorf("%d rows, want a header and 5000 jobs", len(rows))
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCheckShippedScenarios: every example and stdlib module is clean,
// warnings included.
// (The standard modules have no experiment, which check --strict refuses
// as run does: they are checked without it, for no warning.)
func TestCheckShippedScenarios(t *testing.T) {
	examples, _ := filepath.Glob("../../examples/*.pwr")
	std, _ := filepath.Glob("../../stdlib/*.pwr")
	if len(examples) < 6 || len(std) < 4 {
		t.Fatalf("found only %v and %v", examples, std)
	}
	// Examples name the shared data set where it lies beside the
	// repository (../shared/data); check reads every input, so where the
	// data lies elsewhere ($PWRC_DATA) they are checked with their paths
	// pointing there, and without it they are left out.
	const beside = "../../shared/data"
	if _, err := os.Stat(filepath.Join("../../examples", beside)); err != nil {
		data := testenv.DataDir()
		moved := t.TempDir()
		for i, ex := range examples {
			b, err := os.ReadFile(ex)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), beside) {
				continue
			}
			if data == "" {
				t.Logf("%s left out: it reads the shared data set, which is not here", ex)
				examples[i] = ""
				continue
			}
			abs, _ := filepath.Abs(data)
			examples[i] = filepath.Join(moved, filepath.Base(ex))
			if err := os.WriteFile(examples[i], []byte(strings.ReplaceAll(string(b), beside, abs)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		examples = slices.DeleteFunc(examples, func(s string) bool { return s == "" })
	}
	for _, args := range [][]string{append([]string{"check", "--strict"}, examples...), append([]string{"check"}, std...)} {
		out, _, code := pwrc(t, args...)
		if code != 0 {
			t.Fatalf("check failed:\n%s", out)
		}
		if strings.Contains(out, "warning") {
			t.Errorf("warnings:\n%s", out)
		}
	}
}

// TestBrokenScenarios: each broken input gives file:line:col diagnostics
// with a caret and exit 1 — never a panic or a stack trace.
func TestBrokenScenarios(t *testing.T) {
	cases := map[string]string{
		"missing_brace.pwr": "machine m {\n  nodes 4\n  power { idle 1 W; busy 2 W }\n\nexperiment e {\n  machine m\n}\n",
		"misspelled.pwr":    "import \"std/policies\"\nexperiment e {\n  workload synthetic { jobs 10 }\n  machine mistrl\n  contract c\n  policy eazy\n}\n",
		"unit.pwr":          "machine m {\n  nodes 4\n  power { idle 70 s; busy 2 W }\n}\n",
		"rule.pwr":          "policy p {\n  priority job.nodez * 2\n}\n",
		"truncated.pwr":     "machine m {\n  nodes 4\n  power { idle 7",
		"garbage.pwr":       "\x1f\x8b\x08\x00\xff\xfe garbage \x00\x01",
		"empty.pwr":         "",
	}
	dir := t.TempDir()
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := pwrc(t, "check", path)
			if name == "empty.pwr" {
				if code != 0 {
					t.Errorf("an empty file is a valid scenario; exit %d: %s", code, out)
				}
				return
			}
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(out, path+":") || !strings.Contains(out, "^") {
				t.Errorf("no file:line:col and caret:\n%s", out)
			}
			if strings.Contains(out+errOut, "goroutine") || strings.Contains(out+errOut, "panic") {
				t.Errorf("stack trace:\n%s%s", out, errOut)
			}
			_, errRun, code := pwrc(t, "run", path)
			if code != 1 || !strings.Contains(errRun, path+":") {
				t.Errorf("run: exit %d:\n%s", code, errRun)
			}
		})
	}
}

func TestVersionAndUsage(t *testing.T) {
	out, _, code := pwrc(t, "version")
	if code != 0 || !strings.HasPrefix(out, "pwrc ") {
		t.Errorf("version: %q, exit %d", out, code)
	}
	_, errOut, code := pwrc(t, "run")
	if code != 2 || !strings.Contains(errOut, "arg") {
		t.Errorf("run without a file: exit %d, %q", code, errOut)
	}
	_, errOut, code = pwrc(t, "run", "../../examples/quickstart.pwr", "--set", "nope=1")
	if code != 1 || !strings.Contains(errOut, "unknown param") {
		t.Errorf("unknown --set: exit %d, %q", code, errOut)
	}
}

// --series writes one CSV per run: 24 local hours whose seconds add up to
// the run's span and whose utilization stays in [0, 1].
func TestSeriesFiles(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--series", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.hours.csv"))
	if len(files) != 6 {
		t.Fatalf("%d series files, want one per run (6)", len(files))
	}
	data, err := os.ReadFile(filepath.Join(dir, "kunkel_fixed-easy.hours.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 25 || lines[0] != "hour,seconds,power_w,job_power_w,utilization" {
		t.Fatalf("want a header and 24 hours, got:\n%s", data)
	}
	var seconds float64
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[0] != strconv.Itoa(i) {
			t.Fatalf("row %d is hour %s", i, f[0])
		}
		s, _ := strconv.ParseFloat(f[1], 64)
		u, _ := strconv.ParseFloat(f[4], 64)
		p, _ := strconv.ParseFloat(f[2], 64)
		jp, _ := strconv.ParseFloat(f[3], 64)
		if u < 0 || u > 1 || jp > p || s <= 0 {
			t.Errorf("hour %d: %s", i, l)
		}
		seconds += s
	}
	if days := seconds / 86400; math.Abs(days-107.0) > 0.06 { // the table's run days for this run
		t.Errorf("hours add up to %.2f days, the run lasts 107.0", days)
	}
}
