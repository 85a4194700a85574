package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/pwrc/pwrc/internal/testenv"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// chromium finds the browser the browser test drives: $PWRC_CHROMIUM, or
// Debian's chromium on the PATH.
func chromium(t *testing.T) string {
	if p := os.Getenv("PWRC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("PWRC_BROWSER=1 but no chromium on the PATH (apt-get install chromium, or set PWRC_CHROMIUM)")
	return ""
}

// plotInfo is what the browser says of one plot: its kind, the run whose
// section holds it (the id of the heading before it), the series it
// announces and the names of those it draws.
type plotInfo struct {
	Plot   string   `json:"plot"`
	Run    string   `json:"run"`
	Series int      `json:"series"`
	Groups int      `json:"groups"`
	Names  []string `json:"names"`
	W      float64  `json:"w"`
	H      float64  `json:"h"`
	Shapes int      `json:"shapes"`
	// In plot coordinates: the main plot area's bottom and width, the
	// top of the price's drawing (0: none), the width of the cap's
	// drawing (0: none), and whether an overview strip marks a focus.
	AreaBottom float64 `json:"areaBottom"`
	AreaW      float64 `json:"areaW"`
	PriceTop   float64 `json:"priceTop"`
	CapW       float64 `json:"capW"`
	Focus      bool    `json:"focus"`
}

// runSeries are the series the power and states plots of each run must
// draw, by the id of the run's heading, worked out from the run's
// metrics (results.json) and its states file (--series) rather than by
// the report's code: the power plot draws each component that ever draws
// power, the total's range, the price (every contract of a scenario has
// one), the cap in force when cap_w ever has one, and the budget with the
// jobs' power it limits when the run has a budget; the states plot each
// node state ever held (busy always), the busy range and each level.
func runSeries(t *testing.T, dir string, runs []jsonRun) map[string]map[string][]string {
	t.Helper()
	out := map[string]map[string][]string{}
	for _, r := range runs {
		rows := readCSV(t, filepath.Join(dir, r.Run+".states.csv"))
		used := make([]bool, len(rows[0]))
		for _, row := range rows[1:] {
			for c, v := range row {
				used[c] = used[c] || v != "" && v != "0"
			}
		}
		power := []string{"total", "price"}
		var states []string
		for c, h := range rows[0] {
			switch part, ok := pwrt.PowerColumn(h); {
			case ok && used[c]:
				power = append(power, part)
			case h == "cap_w" && used[c]:
				power = append(power, "cap")
			case strings.HasSuffix(h, "_on"):
				states = append(states, strings.TrimSuffix(h, "_on")+" on")
			case slices.Contains([]string{"busy", "reserved", "idle", "booting", "shutting_down", "off"}, h) && (used[c] || h == "busy"):
				states = append(states, h)
			}
		}
		if b, _ := r.Metrics["budget_kw"].(float64); b > 0 {
			power = append(power, "budget", "jobs' power")
		}
		states = append(states, "busy range")
		slices.Sort(power)
		slices.Sort(states)
		id := "experiment-" + r.Experiment + "-" + r.Run
		out[id] = map[string][]string{"power": power, "states": states}
	}
	return out
}

// checkRunPlots says how the power and states plots differ from what
// runSeries wants: a plot that lost a series, or drew one too many, or
// announces other than it draws, or a run without its plots.
func checkRunPlots(plots []plotInfo, want map[string]map[string][]string) []string {
	var problems []string
	seen := map[string]int{}
	for i, p := range plots {
		if p.Plot != "power" && p.Plot != "states" {
			continue
		}
		seen[p.Run+" "+p.Plot]++
		w, ok := want[p.Run][p.Plot]
		if !ok {
			problems = append(problems, fmt.Sprintf("plot %d (%s) under %q: no such run", i, p.Plot, p.Run))
			continue
		}
		names := slices.Sorted(slices.Values(p.Names))
		if p.Series != len(w) || p.Groups != len(w) || !slices.Equal(names, w) {
			problems = append(problems, fmt.Sprintf("plot %d (%s of %s): %d series announced, %d drawn %q; want %d: %q", i, p.Plot, p.Run, p.Series, p.Groups, names, len(w), w))
		}
	}
	for run := range want {
		for _, plot := range []string{"power", "states"} {
			if n := seen[run+" "+plot]; n != 1 {
				problems = append(problems, fmt.Sprintf("%s: %d %s plots, want 1", run, n, plot))
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// TestReportInBrowser opens the report of examples/kunkel_billing.pwr on
// KTH-SP2 in headless Chromium: it must load with no console error, no
// exception and no request beyond the file itself; every plot must have a
// rendered size and draw the series it announces, as many as the runs
// call for; the table must have a row per run. It saves a screenshot in
// the test's temporary directory, and to $PWRC_SCREENSHOT if set.
//
// It runs only with PWRC_BROWSER=1 (.ci/run sets it after installing
// chromium), as it needs a browser.
func TestReportInBrowser(t *testing.T) {
	if os.Getenv("PWRC_BROWSER") != "1" {
		t.Skip("browser test: set PWRC_BROWSER=1 to run it (needs chromium: apt-get install -y chromium); .ci/run does")
	}
	exe := chromium(t)
	trace := testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")
	prices := testenv.Data(t, "prices/T1.csv")
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	results := filepath.Join(dir, "results.json")
	out, errOut, code := pwrc(t, "run", "../../examples/kunkel_billing.pwr", "--set", "trace="+trace, "--set", "kunkel_prices="+prices,
		"--format", "json", "-o", results, "--series", dir, "--report", page)
	if code != 0 {
		t.Fatalf("pwrc run: exit %d\n%s%s", code, out, errOut)
	}
	// What the page must show, from the JSON of the same runs.
	var runs []jsonRun
	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	// Runs that draw the same line share it: count the distinct lines by
	// what sets them apart (waits by their quantiles; utilization by them
	// and the node-hours; power by hour of day by them and the energy).
	parts := map[string]bool{} // components with energy in some run
	waits, util, hours := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		var q []string
		for k, v := range r.Metrics {
			if strings.HasPrefix(k, "energy_") && strings.HasSuffix(k, "_mwh") && !strings.HasSuffix(k, "_period_mwh") && k != "energy_mwh" && v.(float64) != 0 {
				parts[k] = true
			}
		}
		for _, k := range []string{"wait_mean_s", "wait_q25_s", "wait_q50_s", "wait_q75_s", "wait_q90_s", "wait_q99_s", "wait_max_s"} {
			q = append(q, fmt.Sprint(r.Metrics[k]))
		}
		waits[strings.Join(q, ",")] = true
		util[fmt.Sprint(q, r.Metrics["busy_node_hours"])] = true
		hours[fmt.Sprint(q, r.Metrics["energy_mwh"])] = true
	}

	plots, rows, shot, problems := browse(t, exe, filepath.Join(dir, "profile"), page)
	for _, p := range problems {
		t.Error(p)
	}
	if rows != len(runs) {
		t.Errorf("the table has %d rows, want %d", rows, len(runs))
	}
	count := map[string]int{}
	for i, p := range plots {
		count[p.Plot]++
		if p.W <= 0 || p.H <= 0 {
			t.Errorf("plot %d (%s): rendered %gx%g px", i, p.Plot, p.W, p.H)
		}
		if p.Groups != p.Series {
			t.Errorf("plot %d (%s): %d series drawn, %d announced", i, p.Plot, p.Groups, p.Series)
		}
		if p.Shapes == 0 {
			t.Errorf("plot %d (%s): nothing drawn", i, p.Plot)
		}
		var want int
		switch p.Plot {
		case "utilization":
			want = len(util)
		case "hours":
			want = len(hours)
		case "waits":
			want = len(waits)
		case "energy", "cost":
			want = len(parts)
		case "savings":
			want = 2
		case "power":
			// The price in its panel, under the power's plot area.
			if p.PriceTop < p.AreaBottom {
				t.Errorf("plot %d (power of %s): the price reaches y=%g, into the power's area (bottom %g)", i, p.Run, p.PriceTop, p.AreaBottom)
			}
			want = -1
		default: // states, decision, boots: checkRunPlots and below
			want = -1
		}
		if want >= 0 && p.Series != want {
			t.Errorf("plot %d (%s): %d series, want %d", i, p.Plot, p.Series, want)
		}
	}
	for plot, want := range map[string]int{"decision": 1, "power": len(runs), "states": len(runs), "waits": 1, "utilization": 1, "hours": 1, "energy": 1, "cost": 1, "savings": 1, "boots": 1} {
		if count[plot] != want {
			t.Errorf("%d %s plots, want %d", count[plot], plot, want)
		}
	}
	for _, p := range checkRunPlots(plots, runSeries(t, dir, runs)) {
		t.Error(p)
	}
	if i := slices.IndexFunc(plots, func(p plotInfo) bool { return p.Plot != "" }); i < 0 || plots[i].Plot != "decision" {
		t.Error("the experiment does not start with the decision summary")
	}
	png := filepath.Join(dir, "report.png")
	if err := os.WriteFile(png, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("PWRC_SCREENSHOT"); p != "" {
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep(t, "kunkel_billing.png", shot)
	t.Logf("%d plots checked; screenshot %s (%d bytes)", len(plots), png, len(shot))

	// Printed to PDF as a reader would (Chromium's print, the page's own
	// A4 landscape): every column of every table is on the page.
	checkPrint(t, exe, filepath.Join(dir, "profile-print"), page, tableHeaders(t, page), "kunkel_billing")
}

// keep saves a test artifact (a screenshot, a printed page) in
// $PWRC_ARTIFACTS, if set.
func keep(t *testing.T, name string, data []byte) {
	t.Helper()
	dir := os.Getenv("PWRC_ARTIFACTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tableHeaders reads the first line of each column header of each table
// of a report.
func tableHeaders(t *testing.T, page string) [][]string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, tab := range regexp.MustCompile(`(?s)<thead>.*?</thead>`).FindAll(data, -1) {
		var hs []string
		for _, m := range regexp.MustCompile(`<th[^>]*>([^<]*)`).FindAllSubmatch(tab, -1) {
			hs = append(hs, html.UnescapeString(string(m[1])))
		}
		out = append(out, hs)
	}
	return out
}

// pdfWord is a word of a printed page, its box in PDF points.
type pdfWord struct {
	page       int
	pageW      float64
	xMin, xMax float64
	text       string
}

// pdfWords reads a PDF's words and their boxes with poppler's pdftotext
// -bbox (Debian's poppler-utils).
func pdfWords(t *testing.T, pdf string) []pdfWord {
	t.Helper()
	out, err := exec.Command("pdftotext", "-bbox", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext (apt-get install poppler-utils): %v", err)
	}
	var words []pdfWord
	page, w := 0, 0.0
	pageRE := regexp.MustCompile(`<page width="([0-9.]+)"`)
	wordRE := regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="[0-9.]+" xMax="([0-9.]+)" yMax="[0-9.]+">([^<]*)</word>`)
	for _, line := range strings.Split(string(out), "\n") {
		if m := pageRE.FindStringSubmatch(line); m != nil {
			page++
			w, _ = strconv.ParseFloat(m[1], 64)
		}
		if m := wordRE.FindStringSubmatch(line); m != nil {
			a, _ := strconv.ParseFloat(m[1], 64)
			b, _ := strconv.ParseFloat(m[2], 64)
			words = append(words, pdfWord{page, w, a, b, html.UnescapeString(m[3])})
		}
	}
	return words
}

// checkPrint prints a report to PDF in headless Chromium (its own @page
// size), renders its first pages to PNG with pdftoppm (kept as
// artifacts), and checks that the pages are A4 landscape and that every
// word of every table's headers is printed inside the page.
func checkPrint(t *testing.T, exe, profile, page string, headers [][]string, name string) {
	t.Helper()
	pdf := printPDF(t, exe, profile, page)
	file := filepath.Join(t.TempDir(), name+".pdf")
	if err := os.WriteFile(file, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	keep(t, name+".pdf", pdf)
	words := pdfWords(t, file)
	if len(words) == 0 {
		t.Fatal("the printed report has no text")
	}
	if w := words[0].pageW; math.Abs(w-841.89) > 2 {
		t.Errorf("the printed page is %g pt wide, want A4 landscape (842 pt)", w)
	}
	for _, hs := range headers {
		for _, h := range hs {
			for _, part := range strings.Fields(h) {
				found := false
				for _, w := range words {
					if strings.Contains(w.text, part) || strings.Contains(part, w.text) && len(w.text) > 2 {
						found = true
						if w.xMax > w.pageW+0.5 || w.xMin < -0.5 {
							t.Errorf("%s: the header word %q is printed at x %g..%g pt, off the page (%g pt)", name, part, w.xMin, w.xMax, w.pageW)
						}
					}
				}
				if !found {
					t.Errorf("%s: the header word %q is not on the printed page", name, part)
				}
			}
		}
	}
	// The first pages as images, for a reader of the test's artifacts.
	prefix := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "3", file, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
	pngs, _ := filepath.Glob(prefix + "*.png")
	if len(pngs) == 0 {
		t.Fatal("pdftoppm rendered no page")
	}
	for _, p := range pngs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		keep(t, filepath.Base(p), data)
	}
}

// printPDF prints a page to PDF in headless Chromium, on the page size
// its stylesheet asks for.
func printPDF(t *testing.T, exe, profile, page string) []byte {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(profile))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(func(p *cdppage.PrintToPDFParams) {
		css := true
		p.PreferCSSPageSize = &css
	}))
	if err != nil {
		t.Fatalf("chromium: print to PDF: %v", err)
	}
	return pdf
}

// TestCapAndBudgetInBrowser opens the report of a run under a powercap
// and one under a budget during peak: their power plots draw the cap, and
// the budget with the jobs' power, beside the components and the price.
func TestCapAndBudgetInBrowser(t *testing.T) {
	if os.Getenv("PWRC_BROWSER") != "1" {
		t.Skip("browser test: set PWRC_BROWSER=1 to run it (needs chromium)")
	}
	dir, page, runs := limitsReport(t)
	plots, _, _, problems := browse(t, chromium(t), filepath.Join(dir, "profile"), page)
	for _, p := range problems {
		t.Error(p)
	}
	for _, p := range checkRunPlots(plots, runSeries(t, dir, runs)) {
		t.Error(p)
	}
	var capped, budgeted bool
	for _, p := range plots {
		capped = capped || slices.Contains(p.Names, "cap")
		budgeted = budgeted || slices.Contains(p.Names, "budget") && slices.Contains(p.Names, "jobs' power")
		// The capped run's plots show its cap's hour with a quarter hour
		// either side, as the browser lays them out: the cap spans two
		// thirds of the plot area, and an overview strip marks the part.
		if p.Plot == "power" && slices.Contains(p.Names, "cap") {
			if r := p.CapW / p.AreaW; math.Abs(r-2.0/3) > 0.01 || !p.Focus {
				t.Errorf("the capped run's power plot: the cap spans %.3f of the plot (want 2/3), overview strip %v", r, p.Focus)
			}
		}
		if p.Plot == "power" && p.PriceTop < p.AreaBottom {
			t.Errorf("power of %s: the price reaches y=%g, into the power's area (bottom %g)", p.Run, p.PriceTop, p.AreaBottom)
		}
	}
	if !capped || !budgeted {
		t.Errorf("cap drawn: %v; budget and jobs' power drawn: %v", capped, budgeted)
	}
}

// limitsReport runs limitsScenario with --series and results.json into a
// directory, and --report.
func limitsReport(t *testing.T) (dir, page string, runs []jsonRun) {
	t.Helper()
	scen := limitsScenario(t)
	dir = t.TempDir()
	page = filepath.Join(dir, "r.html")
	results := filepath.Join(dir, "results.json")
	if o, e, code := pwrc(t, "run", scen, "--format", "json", "-o", results, "--series", dir, "--report", page); code != 0 {
		t.Fatalf("pwrc run: exit %d\n%s%s", code, o, e)
	}
	data, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	return dir, page, runs
}

// pagePlots reads what the browser test reads of each plot from the page
// itself, without a browser.
func pagePlots(page []byte) []plotInfo {
	var plots []plotInfo
	run := ""
	tok := regexp.MustCompile(`<h3( id="([^"]*)")?>|<svg [^>]*data-plot="([^"]*)" data-series="([0-9]+)"|<g class="series" data-name="([^"]*)">`)
	for _, m := range tok.FindAllSubmatch(page, -1) {
		switch {
		case bytes.HasPrefix(m[0], []byte("<h3")):
			run = string(m[2])
		case bytes.HasPrefix(m[0], []byte("<svg")):
			n, _ := strconv.Atoi(string(m[4]))
			plots = append(plots, plotInfo{Plot: string(m[3]), Run: run, Series: n})
		default:
			p := &plots[len(plots)-1]
			p.Groups++
			p.Names = append(p.Names, html.UnescapeString(string(m[5])))
		}
	}
	return plots
}

// checkRunPlots passes the report of the cap and budget runs, and fails
// it when a plot loses a series — dropped alone, or with the count it
// announces — or gains one.
func TestCheckRunPlotsCatchesLostSeries(t *testing.T) {
	dir, page, runs := limitsReport(t)
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	want := runSeries(t, dir, runs)
	plots := pagePlots(data)
	if p := checkRunPlots(plots, want); len(p) != 0 {
		t.Fatalf("the report's plots: %q", p)
	}
	for i, p := range plots {
		if p.Plot != "power" && p.Plot != "states" {
			continue
		}
		for k := range p.Names {
			lost := slices.Clone(plots)
			q := &lost[i]
			q.Names = slices.Delete(slices.Clone(p.Names), k, k+1)
			q.Groups, q.Series = p.Groups-1, p.Series-1
			if len(checkRunPlots(lost, want)) == 0 {
				t.Errorf("plot %d (%s of %s) without its series %q passes", i, p.Plot, p.Run, p.Names[k])
			}
		}
		more := slices.Clone(plots)
		q := &more[i]
		q.Names = append(slices.Clone(p.Names), "price")
		q.Groups, q.Series = p.Groups+1, p.Series+1
		if len(checkRunPlots(more, want)) == 0 {
			t.Errorf("plot %d (%s of %s) with a series too many passes", i, p.Plot, p.Run)
		}
	}
	if len(checkRunPlots(plots[:len(plots)-1], want)) == 0 {
		t.Error("a report without its last run's states plot passes")
	}
}

// browse opens a page in headless Chromium and returns what its plots
// look like, the rows of its tables, a full-page screenshot (PNG) and the
// problems seen while loading it: console errors and warnings, uncaught
// exceptions, log errors, requests beyond the page itself, failed loads.
func browse(t *testing.T, exe, profile, page string) (plots []plotInfo, rows int, shot []byte, problems []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1100, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	url := "file://" + page
	// Listeners run on the tab's reading goroutine: they only append
	// under a lock.
	var mu sync.Mutex
	add := func(format string, a ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				add("console %s: %s", ev.Type, strings.Join(args, " "))
			}
		case *cdpruntime.EventExceptionThrown:
			add("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				add("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != url {
				add("the page requests %s", ev.Request.URL)
			}
		case *network.EventLoadingFailed:
			add("loading failed: %s", ev.ErrorText)
		}
	})
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// A reader opens the runs' sections (closed on a page of many runs)
	// to see their plots; the test opens them all.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("details").forEach(d => d.open = true); 0`)); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	plots, err = chromedp.Run(ctx, chromedp.Evaluate[[]plotInfo](`Array.from(document.querySelectorAll("svg.plot")).map(s => {
			const r = s.getBoundingClientRect();
			const d = s.closest("details");
			const h = d ? d.querySelector("summary h3") : null;
			const area = s.querySelector('rect[height="300"]');
			const price = s.querySelector('g.series[data-name="price"]');
			const cap = s.querySelector('g.series[data-name="cap"] path:last-child');
			return {plot: s.dataset.plot, run: h ? h.id : "", series: +s.dataset.series, groups: s.querySelectorAll("g.series").length,
				names: Array.from(s.querySelectorAll("g.series")).map(g => g.dataset.name),
				w: r.width, h: r.height, shapes: s.querySelectorAll("g.series path, g.series rect, g.series line, g.series circle").length,
				areaBottom: area ? area.y.baseVal.value + area.height.baseVal.value : 0, areaW: area ? area.width.baseVal.value : 0,
				priceTop: price ? price.getBBox().y : 0, capW: cap ? cap.getBBox().width : 0,
				focus: s.querySelector("rect.focus") !== null};
		})`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	rows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table tbody tr").length`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return plots, rows, shot, problems
}

// The browser test's own check: a page with a console error, an
// exception and a missing image gives three problems, so a report without
// any did load cleanly.
func TestBrowseSeesProblems(t *testing.T) {
	if os.Getenv("PWRC_BROWSER") != "1" {
		t.Skip("browser test: set PWRC_BROWSER=1 to run it (needs chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "bad.html")
	html := `<!DOCTYPE html><html><body><script>console.error("boom"); null.x;</script><img src="missing.png"></body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, problems := browse(t, chromium(t), filepath.Join(dir, "profile"), page)
	var console, exception, request bool
	for _, p := range problems {
		console = console || strings.Contains(p, "boom")
		exception = exception || strings.HasPrefix(p, "exception")
		request = request || strings.Contains(p, "missing.png")
	}
	if !console || !exception || !request {
		t.Errorf("problems seen: %q; want a console error, an exception and a request for missing.png", problems)
	}
}
