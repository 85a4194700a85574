package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// save runs the quickstart into a saved run directory (results.json,
// --series and --jobs) and writes its report with --report.
func save(t *testing.T, extra ...string) (dir, page string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "saved")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page = filepath.Join(t.TempDir(), "r.html")
	args := append([]string{"run", "../../examples/quickstart.pwr", "--format", "json", "-o", filepath.Join(dir, "results.json"),
		"--series", dir, "--jobs", dir, "--report", page}, extra...)
	if out, errOut, code := pwrc(t, args...); code != 0 {
		t.Fatalf("pwrc %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return dir, page
}

// --report writes one self-contained page with the tables and plots of
// every run, the same bytes whatever -j.
func TestRunReport(t *testing.T) {
	_, page := save(t, "-j", "1")
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(data, []byte("</html>\n")) {
		t.Errorf("not a whole HTML page: %.60q … %q", data, data[max(0, len(data)-20):])
	}
	for _, want := range []string{"<h2>experiment quickstart</h2>", "kunkel_basepeak · easy_shutdown", `data-plot="power"`, `data-plot="waits"`, "Saving against the baseline"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("report has no %q", want)
		}
	}
	if n := bytes.Count(data, []byte("<tr>")); n != 1+6 {
		t.Errorf("%d table rows, want a header and 6 runs", n)
	}
	for _, bad := range []string{"<script", "<link", "<img", "url("} {
		if bytes.Contains(data, []byte(bad)) {
			t.Errorf("the page has %q: not self-contained", bad)
		}
	}
	_, page2 := save(t, "-j", "2")
	data2, _ := os.ReadFile(page2)
	if !bytes.Equal(data, data2) {
		t.Error("reports of -j 1 and -j 2 differ")
	}
}

// pwrc report DIR draws, from the saved files, the same page as --report.
func TestReportFromDir(t *testing.T) {
	dir, page := save(t)
	want, _ := os.ReadFile(page)
	out := filepath.Join(t.TempDir(), "again.html")
	if o, e, code := pwrc(t, "report", dir, "-o", out); code != 0 {
		t.Fatalf("pwrc report: exit %d\n%s%s", code, o, e)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("pwrc report DIR differs from pwrc run --report")
	}
	// Default: DIR/report.html.
	if o, e, code := pwrc(t, "report", dir); code != 0 {
		t.Fatalf("pwrc report: exit %d\n%s%s", code, o, e)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.html")); !bytes.Equal(got, want) {
		t.Error("DIR/report.html differs from pwrc run --report")
	}
}

// --report alone streams each run's machine states into a compact series
// and keeps only its jobs' waits, and draws the page --report draws beside
// --series and --jobs, which keep them whole.
func TestRunReportStreams(t *testing.T) {
	_, page := save(t)
	want, _ := os.ReadFile(page)
	alone := filepath.Join(t.TempDir(), "alone.html")
	if o, e, code := pwrc(t, "run", "../../examples/quickstart.pwr", "--report", alone); code != 0 {
		t.Fatalf("pwrc run --report: exit %d\n%s%s", code, o, e)
	}
	got, err := os.ReadFile(alone)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("--report alone differs from --report with --series and --jobs")
	}
}

// Without its scenario, a saved directory still gives a report: default
// columns, no price, and a note that says why.
func TestReportFromDirWithoutScenario(t *testing.T) {
	dir, _ := save(t)
	mpath := filepath.Join(dir, manifestName)
	data, _ := os.ReadFile(mpath)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["scenario"] = "gone.pwr"
	data, _ = json.Marshal(m)
	if err := os.WriteFile(mpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	o, e, code := pwrc(t, "report", dir, "-o", out)
	if code != 0 {
		t.Fatalf("pwrc report: exit %d\n%s%s", code, o, e)
	}
	if !strings.Contains(e, "Scenario gone.pwr not found") {
		t.Errorf("stderr does not say the scenario is gone: %q", e)
	}
	page, _ := os.ReadFile(out)
	if bytes.Contains(page, []byte(`data-name="price"`)) {
		t.Error("a price drawn without the contract")
	}
	// The decision summary, six of all runs and boots per day (its
	// easy_shutdown runs switch nodes off), two per run.
	if n := bytes.Count(page, []byte(`class="plot"`)); n != 1+7+2*6 {
		t.Errorf("%d plots, want 20", n)
	}
	if !bytes.Contains(page, []byte("<td class=\"l\">kunkel_fixed · easy</td>")) {
		t.Error("runs not laid out from results.json")
	}
}

// The errors of pwrc report and of --report.
func TestReportErrors(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", tmp}, 1, "results.json"},
		{[]string{"report", filepath.Join(tmp, "none")}, 2, "no such file"},
		{[]string{"run", "../../examples/quickstart.pwr", "--report", filepath.Join(tmp, "no", "r.html")}, 2, "--report"},
		{[]string{"run", "../../examples/quickstart.pwr", "--report", tmp}, 2, "is a directory"},
		{[]string{"run", "../../examples/quickstart.pwr", "--report", filepath.Join(tmp, "x"), "-o", filepath.Join(tmp, "x")}, 2, "writes that file too"},
		{[]string{"run", "../../examples/quickstart.pwr", "--report", "../../examples/quickstart.pwr"}, 2, "scenario source"},
		{[]string{"run", "../../examples/quickstart.pwr", "--series", tmp, "--report", filepath.Join(tmp, "MANIFEST.json")}, 2, "writes that file too"},
	} {
		o, e, code := pwrc(t, c.args...)
		if code != c.code || !strings.Contains(e, c.want) {
			t.Errorf("pwrc %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, e, c.code, c.want)
		}
		if c.code == 2 && o != "" {
			t.Errorf("pwrc %s: printed %q before failing", strings.Join(c.args, " "), o)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "x")); err == nil {
		t.Error("a failed run wrote its report")
	}
}

// pwrc plot draws each figure of saved runs as SVG.
func TestPlot(t *testing.T) {
	dir, _ := save(t)
	out := t.TempDir()
	run := filepath.Join(dir, "kunkel_basepeak-easy_shutdown")
	for _, c := range []struct {
		what string
		args []string
	}{
		{"power", []string{run + ".states.csv"}},
		{"states", []string{run}},
		{"waits", []string{run + ".csv", filepath.Join(dir, "kunkel_fixed-fcfs.csv")}},
		{"utilization", []string{run, filepath.Join(dir, "kunkel_fixed-fcfs")}},
		{"hours", []string{run + ".hours.csv"}},
		{"energy", []string{run, filepath.Join(dir, "kunkel_fixed-fcfs")}},
		{"cost", []string{run}},
		{"savings", []string{run}},
	} {
		file := filepath.Join(out, c.what+".svg")
		args := append(append([]string{"plot"}, c.args...), "--what", c.what, "-o", file)
		if o, e, code := pwrc(t, args...); code != 0 {
			t.Errorf("pwrc %s: exit %d\n%s%s", strings.Join(args, " "), code, o, e)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var svg struct {
			Plot   string `xml:"data-plot,attr"`
			Series int    `xml:"data-series,attr"`
			Groups []struct {
				Class string `xml:"class,attr"`
			} `xml:"g"`
		}
		if err := xml.Unmarshal(data, &svg); err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		if svg.Plot != c.what || len(svg.Groups) != svg.Series {
			t.Errorf("%s: data-plot %q, %d series drawn of %d", c.what, svg.Plot, len(svg.Groups), svg.Series)
		}
	}
	png := filepath.Join(out, "power.png")
	if o, e, code := pwrc(t, "plot", run, "--what", "power", "-o", png); code != 0 {
		t.Errorf("pwrc plot -o power.png: exit %d\n%s%s", code, o, e)
	} else if data, _ := os.ReadFile(png); !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("power.png is not a PNG")
	}
	power, _ := os.ReadFile(filepath.Join(out, "power.svg"))
	if !bytes.Contains(power, []byte(`data-name="price"`)) {
		t.Error("power plot without the contract's price")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", run, "--what", "pie", "-o", filepath.Join(out, "x.svg")}, "--what must be"},
		{[]string{"plot", run, run, "--what", "power", "-o", filepath.Join(out, "x.svg")}, "draws one run"},
		{[]string{"plot", run, "--what", "power", "-o", filepath.Join(out, "x.pdf")}, ".svg or .png"},
		{[]string{"plot", run, "--what", "power"}, "-o FILE.svg or FILE.png is required"},
		{[]string{"plot", filepath.Join(dir, "nope.csv"), "-o", filepath.Join(out, "x.svg")}, "no run nope"},
	} {
		if _, e, code := pwrc(t, c.args...); code != 2 || !strings.Contains(e, c.want) {
			t.Errorf("pwrc %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, e, c.want)
		}
	}
}

// The README's figure is pwrc's own output: regenerate it with
//
//	go test ./cmd/pwrc -run TestREADMEFigure -update
func TestREADMEFigure(t *testing.T) {
	dir, _ := save(t)
	golden := "../../docs/figures/quickstart-power.svg"
	out := filepath.Join(t.TempDir(), "fig.svg")
	if o, e, code := pwrc(t, "plot", filepath.Join(dir, "kunkel_basepeak-easy_shutdown.states.csv"), "--what", "power", "-o", out); code != 0 {
		t.Fatalf("pwrc plot: exit %d\n%s%s", code, o, e)
	}
	got, _ := os.ReadFile(out)
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (write it with go test ./cmd/pwrc -run TestREADMEFigure -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: go test ./cmd/pwrc -run TestREADMEFigure -update", golden)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("(docs/figures/quickstart-power.svg)")) {
		t.Error("README.md does not show docs/figures/quickstart-power.svg")
	}
}

// limitsScenario is the report package's scenario of a powercap and
// power budgets (report/testdata/limits.pwr, runs capped, always, peak
// and busy), written where a test runs it.
func limitsScenario(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("report", "testdata", "limits.pwr"))
	if err != nil {
		t.Fatal(err)
	}
	return writeScenario(t, "limits.pwr", string(data))
}

// The cap in force and the budget reach the power plots of --report, of
// pwrc report DIR (cap_w read back from the states files, empty where
// no cap applies) and of pwrc plot, the same bytes in all three.
func TestReportCapAndBudget(t *testing.T) {
	scen := limitsScenario(t)
	dir := t.TempDir()
	page := filepath.Join(t.TempDir(), "r.html")
	if o, e, code := pwrc(t, "run", scen, "--format", "json", "-o", filepath.Join(dir, "results.json"), "--series", dir, "--jobs", dir, "--report", page); code != 0 {
		t.Fatalf("pwrc run: exit %d\n%s%s", code, o, e)
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "again.html")
	if o, e, code := pwrc(t, "report", dir, "-o", again); code != 0 {
		t.Fatalf("pwrc report: exit %d\n%s%s", code, o, e)
	}
	if got, _ := os.ReadFile(again); !bytes.Equal(got, want) {
		t.Error("pwrc report DIR differs from pwrc run --report")
	}
	for run, names := range map[string][]string{"capped": {`data-name="cap"`}, "peak": {`data-name="budget"`, `data-name="jobs&#39; power"`}} {
		out := filepath.Join(t.TempDir(), run+".svg")
		if o, e, code := pwrc(t, "plot", filepath.Join(dir, run+".states.csv"), "--what", "power", "-o", out); code != 0 {
			t.Fatalf("pwrc plot: exit %d\n%s%s", code, o, e)
		}
		svg, _ := os.ReadFile(out)
		for _, n := range names {
			if !bytes.Contains(svg, []byte(n)) {
				t.Errorf("%s: power plot without %s", run, n)
			}
		}
		if !bytes.Contains(want, svg) {
			t.Errorf("%s: pwrc plot's power figure is not the report's", run)
		}
	}
}
