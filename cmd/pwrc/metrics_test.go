package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

const (
	metricsBegin = "<!-- pwrc metrics --format markdown: go test ./cmd/pwrc -run TestMetricsREADME -update -->\n"
	metricsEnd   = "<!-- end of pwrc metrics -->\n"
)

// The README's table of report metrics is pwrc metrics --format markdown:
// regenerate it with go test ./cmd/pwrc -run TestMetricsREADME -update.
func TestMetricsREADME(t *testing.T) {
	path := "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i, j := strings.Index(text, metricsBegin), strings.Index(text, metricsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no block between %q and %q", metricsBegin, metricsEnd)
	}
	want := metricsMarkdown()
	if got := text[i+len(metricsBegin) : j]; got != want {
		if !*update {
			t.Fatal("README.md's table of report metrics is out of date: go test ./cmd/pwrc -run TestMetricsREADME -update")
		}
		text = text[:i+len(metricsBegin)] + want + text[j:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"metrics", "--format", "markdown"}, &out, &out); code != 0 || out.String() != want {
		t.Errorf("pwrc metrics --format markdown: exit %d, differs from the README's table", code)
	}
}

// allMetrics has a machine with levels, pstates off, a base/peak
// contract, a budget and a baseline, so that every metric has a value.
const allMetrics = `import "std/policies"
import "std/kunkel"
machine racked {
  nodes 64
  level rack { size 16 node; power { fans 400 W; switch 60 W } }
  power { off 6 W; idle 80 W; pstate 2.7 GHz 250 W; pstate 2.0 GHz 190 W; slowdown 1.3 at 2.0 GHz }
  infrastructure 2 kW
}
policy capped from easy { budget 8 kW during peak; shutdown idle after 10 min }
experiment all {
  workload synthetic { jobs 600; load 70%; seed 2 }
  machine  racked
  contract kunkel_basepeak
  policy   [easy, capped] baseline easy
  report   REPORT
}
`

// Every column of the catalogue is one `report` accepts, shows with the
// catalogue's header and a value (not "?"), and names a JSON key the runs
// have; the compiler and the tables know no metric it does not list.
func TestMetricsCatalogue(t *testing.T) {
	var calls, keys []string
	for _, c := range pwrt.ReportCatalog {
		call, key := metricCall(c), c.Key
		switch c.Arg {
		case pwrt.ArgLevel:
			call, key = c.Name+"(rack)", c.Key+":rack"
		case pwrt.ArgBound:
			call, key = c.Name+"(3.5)", c.Key+":3.5"
		case pwrt.ArgPState:
			call, key = c.Name+"(2.7 GHz)", c.Key+":2700"
		}
		calls, keys = append(calls, call), append(keys, key)
	}
	path := filepath.Join(t.TempDir(), "all.pwr")
	if err := os.WriteFile(path, []byte(strings.Replace(allMetrics, "REPORT", strings.Join(calls, ", "), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := compiler.Compile(path, compiler.Options{})
	if res.Diags.HasErrors() {
		var b bytes.Buffer
		_ = res.Diags.Write(&b, res.Sources)
		t.Fatalf("a report of every catalogue metric does not compile:\n%s", b.String())
	}
	e := res.Plan.Experiments[0]
	if strings.Join(e.Report, " ") != strings.Join(keys, " ") {
		t.Fatalf("report keys\n%v\nwant\n%v", e.Report, keys)
	}
	results := pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2})
	for i, key := range e.Report {
		c := pwrt.ReportCatalog[i]
		col := metricColumn(key, results)
		arg := "rack"
		switch c.Arg {
		case pwrt.ArgBound:
			arg = "3.5"
		case pwrt.ArgPState:
			arg = "2700"
		}
		if want := c.HeaderFor("€", arg); col.header != want && col.header != c.HeaderFor("k€", arg) {
			t.Errorf("%s: header %q, want %q", key, col.header, want)
		}
		for _, r := range results {
			if r.Err != nil {
				t.Fatalf("run %s: %v", r.Run.Name, r.Err)
			}
			if cell := col.cell(r); cell == "?" || cell == "" {
				t.Errorf("%s: run %s shows %q", key, r.Run.Name, cell)
			}
		}
		// A run that shows a value has the JSON key too.
		if c.JSON == "" {
			continue
		}
		jk := strings.Replace(strings.Replace(c.JSON, "_L", "_rack", 1), "_Fmhz", "_2700mhz", 1)
		if c.Arg == pwrt.ArgBound {
			jk = strings.TrimSuffix(c.JSON, "S") + "3.5"
		}
		for _, r := range results {
			if _, found := metricsMap(r)[jk]; !found && col.cell(r) != "–" {
				t.Errorf("%s: run %s shows %s, but its JSON has no %s", key, r.Run.Name, col.cell(r), jk)
			}
		}
	}
	// Every part of energy(...) with a JSON key has its cost(...) twin's,
	// and the other way round.
	for _, c := range pwrt.ReportCatalog {
		if c.Name != "energy" && c.Name != "cost" {
			continue
		}
		twin := map[string]string{"energy": "cost", "cost": "energy"}[c.Name]
		for _, d := range pwrt.ReportCatalog {
			if d.Name == twin && d.Arg == c.Arg && (c.JSON == "") != (d.JSON == "") {
				t.Errorf("%s(%s) has JSON key %q, %s(%s) %q", c.Name, c.Arg, c.JSON, d.Name, d.Arg, d.JSON)
			}
		}
	}
	// The levels' cost is their components' (rack here): in the JSON,
	// and read back from it as the report's tables do.
	for _, r := range results {
		mm := metricsMap(r)
		data, err := json.Marshal(mm)
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]any
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		got, ok := back["cost_levels"].(float64)
		var want float64
		for _, c := range r.Metrics.Components {
			if strings.HasPrefix(c, "rack_") {
				want += back["cost_"+c].(float64)
			}
		}
		if !ok || math.Abs(got-want) > 1e-9*want || got <= 0 {
			t.Errorf("run %s: cost_levels %v, the rack components' cost_ keys sum to %g (components %v)", r.Run.Name, back["cost_levels"], want, r.Metrics.Components)
		}
		if m := metricsFromMap(back, nil); m.Part("levels", true) != got {
			t.Errorf("run %s: cost of the levels read back %g, JSON %g", r.Run.Name, m.Part("levels", true), got)
		}
	}
	// Every key render_more.go formats is the catalogue's (which gives
	// its header).
	for _, key := range moreReportNames() {
		if _, _, ok := pwrt.ReportColumnOf(key); !ok {
			t.Errorf("%s: not in the catalogue", key)
		}
	}
	// A name the catalogue does not list is refused, with a suggestion.
	bad := strings.Replace(allMetrics, "REPORT", "wiat(q50)", 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	res = compiler.Compile(path, compiler.Options{})
	var b bytes.Buffer
	_ = res.Diags.Write(&b, res.Sources)
	if !res.Diags.HasErrors() || !strings.Contains(b.String(), "did you mean `wait`") {
		t.Errorf("wiat: %s", b.String())
	}
}

// pwrc metrics lists every catalogue column, as text and as JSON.
func TestMetricsCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"metrics"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+len(pwrt.ReportCatalog) || !strings.HasPrefix(lines[0], "METRIC") {
		t.Errorf("%d lines, want a header and %d metrics", len(lines), len(pwrt.ReportCatalog))
	}
	out.Reset()
	if code := run([]string{"metrics", "--format", "json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var ms []struct {
		Metric, Unit, Definition string
	}
	if err := json.Unmarshal(out.Bytes(), &ms); err != nil || len(ms) != len(pwrt.ReportCatalog) {
		t.Fatalf("%d metrics in JSON (%v)", len(ms), err)
	}
	for i, m := range ms {
		if m.Metric != metricCall(pwrt.ReportCatalog[i]) || m.Definition == "" {
			t.Errorf("metric %d: %+v", i, m)
		}
	}
	if code := run([]string{"metrics", "--format", "yaml"}, &out, &errOut); code != exitUsage {
		t.Errorf("--format yaml: exit %d, want %d", code, exitUsage)
	}
}

// The compiler's names are the catalogue's, in its order.
func TestReportNamesAreTheCatalogue(t *testing.T) {
	var names []string
	for _, c := range pwrt.ReportCatalog {
		if len(names) == 0 || names[len(names)-1] != c.Name {
			names = append(names, c.Name)
		}
	}
	if strings.Join(names, ",") != strings.Join(compiler.ReportNames, ",") {
		t.Errorf("compiler.ReportNames %v\ncatalogue %v", compiler.ReportNames, names)
	}
}
