package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLabelledSweep: two traces of the same base name, labelled, run as
// two workloads; the labels name the runs in the table, the JSON and the
// files of --jobs (issue 24, item 11).
func TestLabelledSweep(t *testing.T) {
	dir := t.TempDir()
	for site, jobs := range map[string]string{
		"site_a": "1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n",
		"site_b": "1 0 -1 500 4 -1 -1 4 600 -1 1 1 1 -1 1 -1 -1 -1\n2 30 -1 300 2 -1 -1 2 400 -1 1 1 1 -1 1 -1 -1 -1\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, site), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, site, "trace.swf"), []byte("; MaxNodes: 4\n"+jobs), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `import "std/policies"
machine m { nodes 4; power { idle 1 W; busy 2 W } }
contract fixed { flat 0.1 EUR/kWh }
experiment sites {
  workload swf [site_a = "site_a/trace.swf", site_b = "site_b/trace.swf"]
  machine  m
  contract fixed
  policy   [fcfs, easy] baseline easy
}
`
	path := filepath.Join(dir, "sites.pwr")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	table, errOut, code := pwrc(t, "run", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"site_a · fcfs", "site_b · easy", "Workload site_a: 1 record", "Workload site_b: 2 records"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table has no %q:\n%s", want, table)
		}
	}
	jobs := filepath.Join(dir, "jobs")
	out, errOut, code := pwrc(t, "run", path, "--format", "json", "--jobs", jobs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []struct {
		Run      string
		Params   map[string]string
		Workload struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Run+":"+r.Params["workload"]+":"+r.Workload.Name)
	}
	if want := "site_a-fcfs:site_a:site_a site_a-easy:site_a:site_a site_b-fcfs:site_b:site_b site_b-easy:site_b:site_b"; strings.Join(got, " ") != want {
		t.Errorf("JSON runs %q, want %q", strings.Join(got, " "), want)
	}
	for _, run := range []string{"site_a-fcfs", "site_a-easy", "site_b-fcfs", "site_b-easy"} {
		b, err := os.ReadFile(filepath.Join(jobs, run+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(b), "\n")
		if want := map[bool]int{true: 2, false: 3}[strings.HasPrefix(run, "site_a")]; lines != want {
			t.Errorf("%s.csv has %d lines, want %d (a header and the site's jobs)", run, lines, want)
		}
	}
	entries, _ := os.ReadDir(jobs)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, "site_a-easy.csv") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "trace") }) {
		t.Errorf("--jobs files %v", names)
	}
}
