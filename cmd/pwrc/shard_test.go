package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

// runShards runs a scenario in n shards into dir and returns the files.
func runShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		f := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.json", i, n))
		a := append(append([]string{"run"}, args...), "--shard", fmt.Sprintf("%d/%d", i, n), "-o", f)
		if o, e, code := pwrc(t, a...); code != 0 && code != 1 {
			t.Fatalf("pwrc %s: exit %d\n%s%s", strings.Join(a, " "), code, o, e)
		}
		files = append(files, f)
	}
	return files
}

// A sweep run in shards and merged prints, byte for byte, what one run
// of the whole sweep prints, in every format: in 3 shards (zhou_bgp: a
// pricing ratio each) and in one shard per run (every baseline then in a
// shard of its own, and simulated again in each shard that compares with
// it).
func TestShardsMergeAsOneRun(t *testing.T) {
	cases := []struct {
		args   []string
		shards []int
	}{
		{[]string{"../../examples/zhou_bgp.pwr"}, []int{3, 18}},
		{[]string{"../../examples/quickstart.pwr"}, []int{1, 4}},
	}
	if testenv.DataDir() != "" {
		cases = append(cases, struct {
			args   []string
			shards []int
		}{[]string{"../../examples/kunkel_billing.pwr", "--set", "trace=" + testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz"),
			"--set", "kunkel_prices=" + testenv.Data(t, "prices/T1.csv")}, []int{3}})
	}
	for _, c := range cases {
		want := map[string]string{}
		for _, format := range []string{"table", "json", "csv", "markdown"} {
			o, e, code := pwrc(t, append(append([]string{"run"}, c.args...), "--format", format)...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s", c.args[0], code, e)
			}
			want[format] = o
		}
		for _, n := range c.shards {
			files := runShards(t, t.TempDir(), n, c.args...)
			for format, w := range want {
				o, e, code := pwrc(t, append([]string{"merge", "--format", format}, files...)...)
				if code != 0 || o != w {
					t.Errorf("%s in %d shards, --format %s: exit %d, merged output differs from one run's\n%s", c.args[0], n, format, code, e)
				}
			}
		}
	}
}

// Runs that fail in a shard fail in the merge as in one run: the same
// tables, the same message on stderr, exit 1.
func TestShardsMergeFailures(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "bad.pwr")
	if err := os.WriteFile(scen, []byte(`import "std/policies"
import "std/kunkel"
param trace = ["good.swf", "bad.swf"]
machine m { nodes 8; power { idle 1 W; busy 2 W } }
experiment e {
  workload swf trace
  machine m
  contract kunkel_fixed
  policy [fcfs, easy] baseline fcfs
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "; MaxProcs: 8\n1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 30 8 -1 -1 8 40 -1 1 1 1 -1 1 -1 -1 -1\n3 6 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n"
	for name, text := range map[string]string{"good.swf": good, "bad.swf": "; MaxProcs: 8\n2 x 0 10 1\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantOut, wantErr, wantCode := pwrc(t, "run", scen)
	if wantCode != 1 {
		t.Fatalf("the scenario does not fail: exit %d\n%s", wantCode, wantErr)
	}
	files := runShards(t, dir, 2, scen)
	o, e, code := pwrc(t, append([]string{"merge"}, files...)...)
	if o != wantOut || e != wantErr || code != 1 {
		t.Errorf("merge: exit %d, stderr %q\nwant exit 1, stderr %q, and one run's tables", code, e, wantErr)
	}
}

// merge names the runs that no shard file has, and those two have; it
// refuses shards of different sweeps and files that are not shards.
func TestMergeChecksShards(t *testing.T) {
	dir := t.TempDir()
	files := runShards(t, dir, 3, "../../examples/zhou_bgp.pwr")
	_, e, code := pwrc(t, "merge", files[0], files[1])
	if code != 1 || !strings.Contains(e, "6 runs in no shard file: zhou_pr5-bgp_easy, zhou_pr5-zhou_pb50") || !strings.Contains(e, "no shard 3 of 3 given") {
		t.Errorf("missing shard: exit %d, %q", code, e)
	}
	copyOf := filepath.Join(dir, "copy.json")
	data, _ := os.ReadFile(files[1])
	if err := os.WriteFile(copyOf, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, e, code = pwrc(t, "merge", files[0], files[1], files[2], copyOf)
	if code != 1 || !strings.Contains(e, "6 runs in two shard files: zhou_pr4-bgp_easy (in "+files[1]+" and "+copyOf+")") {
		t.Errorf("duplicated shard: exit %d, %q", code, e)
	}
	if _, e, code = pwrc(t, "merge", files[0], files[0]); code != exitUsage || !strings.Contains(e, "given twice") {
		t.Errorf("a file given twice: exit %d, %q", code, e)
	}
	other := runShards(t, t.TempDir(), 1, "../../examples/quickstart.pwr")
	if _, e, code = pwrc(t, "merge", files[0], other[0]); code != 1 || !strings.Contains(e, "shards of different sweeps") {
		t.Errorf("shards of two sweeps: exit %d, %q", code, e)
	}
	if _, e, code = pwrc(t, "merge", "../../examples/quickstart.pwr"); code != 1 || !strings.Contains(e, "not a shard file") {
		t.Errorf("a scenario as a shard: exit %d, %q", code, e)
	}
	if _, e, code = pwrc(t, "merge", files[0], files[1], files[2], "-o", files[2]); code != exitUsage || !strings.Contains(e, "is the shard file") {
		t.Errorf("-o over a shard: exit %d, %q", code, e)
	}
}

// --shard takes i/n with 1 ≤ i ≤ n, writes a shard file only, and says so.
func TestShardFlag(t *testing.T) {
	q := "../../examples/quickstart.pwr"
	for _, args := range [][]string{
		{"run", q, "--shard", "0/3"}, {"run", q, "--shard", "4/3"}, {"run", q, "--shard", "two"},
		{"run", q, "--shard", "1/2", "--jobs", t.TempDir()}, {"run", q, "--shard", "1/2", "--report", filepath.Join(t.TempDir(), "r.html")},
		{"run", q, "--shard", "1/2", "--format", "table"},
	} {
		if _, e, code := pwrc(t, args...); code != exitUsage || !strings.Contains(e, "--shard") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, e)
		}
	}
	// More shards than runs: the last are empty, and merge still works.
	files := runShards(t, t.TempDir(), 8, q)
	want, _, _ := pwrc(t, "run", q)
	if o, e, code := pwrc(t, append([]string{"merge"}, files...)...); code != 0 || o != want {
		t.Errorf("8 shards of 6 runs: exit %d\n%s", code, e)
	}
}

// merge --report writes the report of the merged runs: the tables and the
// plots of their metrics as one run's report draws them, byte for byte,
// the plots that need series or jobs empty, and a note that says why.
func TestMergeReport(t *testing.T) {
	dir := t.TempDir()
	files := runShards(t, dir, 3, "../../examples/quickstart.pwr")
	single := filepath.Join(dir, "single.html")
	if o, e, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--report", single); code != 0 {
		t.Fatalf("pwrc run --report: exit %d\n%s%s", code, o, e)
	}
	page := filepath.Join(dir, "merged.html")
	tables := filepath.Join(dir, "tables.txt")
	if o, e, code := pwrc(t, append([]string{"merge", "--report", page, "-o", tables}, files...)...); code != 0 {
		t.Fatalf("pwrc merge --report: exit %d\n%s%s", code, o, e)
	}
	want, _ := os.ReadFile(single)
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	plot := func(page []byte, kind string) [][]byte {
		return regexp.MustCompile(`(?s)<svg [^>]*data-plot="`+kind+`".*?</svg>`).FindAll(page, -1)
	}
	for _, kind := range []string{"decision", "energy", "cost", "savings", "hours"} {
		g, w := plot(got, kind), plot(want, kind)
		if len(g) != 1 || len(w) != 1 || !bytes.Equal(g[0], w[0]) {
			t.Errorf("%s: the merged report's plot differs from one run's report's", kind)
		}
	}
	for _, kind := range []string{"power", "states", "utilization", "waits"} {
		for _, p := range plot(got, kind) {
			if !bytes.Contains(p, []byte("no machine-state series")) && !bytes.Contains(p, []byte("no per-job records")) {
				t.Errorf("%s: a merged report's plot draws something: %.200s", kind, p)
			}
		}
	}
	// The decision summary, six of all runs (no boots per day: merged
	// runs have no state series), two per run.
	if n := bytes.Count(got, []byte(`class="plot"`)); n != 1+6+2*6 {
		t.Errorf("%d plots, want 19", n)
	}
	table := func(page []byte) []byte { return regexp.MustCompile(`(?s)<table>.*?</table>`).Find(page) }
	if !bytes.Equal(table(got), table(want)) {
		t.Error("the merged report's table differs from one run's report's")
	}
	if !bytes.Contains(got, []byte("Merged from 3 shard files")) {
		t.Error("the merged report does not say why plots are empty")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", "--report", files[0], files[0], files[1], files[2]}, "is the shard file"},
		{[]string{"merge", "--report", tables, "-o", tables, files[0], files[1], files[2]}, "is -o"},
		{[]string{"merge", "--report", filepath.Join(dir, "nowhere", "r.html"), files[0], files[1], files[2]}, "does not exist"},
	} {
		if _, e, code := pwrc(t, c.args...); code != exitUsage || !strings.Contains(e, c.want) {
			t.Errorf("pwrc %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, e, exitUsage, c.want)
		}
	}
}
