package report

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// testdata/limits.pwr (the main package's report tests run it too): a
// machine with pstates under a 60 % powercap for an hour (60 % of P_full =
// 0.6 × 32 × 300 W = 5,760 W), and the same machine under power budgets
// that apply always, during the contract's peak (06:00..22:00) and while a
// rule holds.

const limitsCap = 0.6 * 32 * 300 // W

func limitsRuns(t *testing.T) map[string]Run {
	t.Helper()
	res := compiler.Compile(filepath.Join("testdata", "limits.pwr"), compiler.Options{})
	if res.Diags.HasErrors() {
		t.Fatalf("does not compile: %v", res.Diags)
	}
	rs := pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2, KeepStates: true})
	out := map[string]Run{}
	for _, r := range runsOf(t, rs) {
		out[r.Result.Run.Policy.Name] = r
	}
	return out
}

// plotGeom reads a power plot's geometry back from its SVG: the plot
// area's top (y of the axis's top value), and W per pixel.
func plotGeom(t *testing.T, svg []byte) (top, wPerPx float64) {
	t.Helper()
	yTop, unit := axisTop(svg)
	div := map[string]float64{"W": 1, "kW": 1e3, "MW": 1e6}[unit]
	return topOfPlot(t, svg), yTop * div / plotH
}

// subpaths splits a path's data into its pieces (one per M), each as its
// points.
func subpaths(d string) [][][2]float64 {
	subs, _ := pathPoints(d)
	return subs
}

func seriesNamed(d svgDoc, name string) *svgSeries {
	for i := range d.Series {
		if d.Series[i].Name == name {
			return &d.Series[i]
		}
	}
	return nil
}

// The power plot of a capped run draws the cap in force as a step line
// at the run's cap (60 % of P_full), over the cap's hour only; a run
// without a cap draws none.
func TestPowerPlotDrawsCap(t *testing.T) {
	runs := limitsRuns(t)
	r := runs["capped"]
	ss := r.Result.States
	c := column(Kept(ss), "cap_w")
	if c < 0 {
		t.Fatalf("no cap_w column in %v", ss.Columns)
	}
	for i := range ss.Times {
		if v := ss.Values[i*len(ss.Columns)+c]; !math.IsNaN(v) && v != limitsCap {
			t.Fatalf("cap_w %g in the series, want %g", v, float64(limitsCap))
		}
	}
	svg := PowerSVG(r)
	d := parseSVG(t, svg)
	s := seriesNamed(d, "cap")
	if s == nil {
		t.Fatal("no cap series in the power plot")
	}
	top, wPerPx := plotGeom(t, svg)
	from := ss.Times[0] + 10*3600
	// The plot shows the capped hour with a quarter hour either side.
	x0, x1, focused := Window(r)
	if !focused || math.Abs(x0-(from-900)) > 1e-6 || math.Abs(x1-(from+3600+900)) > 1e-6 {
		t.Errorf("the capped run's plot spans %g..%g s (focused %v), want the hour %g..%g with 900 s either side", x0, x1, focused, from, from+3600)
	}
	pxOf := func(tm float64) float64 { return marginL + (tm-x0)/(x1-x0)*bins }
	var lo, hi = math.Inf(1), math.Inf(-1)
	pieces := subpaths(s.Paths[len(s.Paths)-1].D)
	if len(pieces) != 1 {
		t.Errorf("cap drawn in %d pieces, want 1 (one hour)", len(pieces))
	}
	for _, p := range pieces {
		for _, pt := range p {
			if w := (top + plotH - pt[1]) * wPerPx; math.Abs(w-limitsCap) > wPerPx*0.01 {
				t.Errorf("cap drawn at %g W, want %g", w, float64(limitsCap))
			}
			lo, hi = math.Min(lo, pt[0]), math.Max(hi, pt[0])
		}
	}
	// Drawn from the hour's pixel column to the next one's end: no more.
	if lo < math.Floor(pxOf(from)-marginL)+marginL-0.01 || hi > math.Ceil(pxOf(from+3600)-marginL)+marginL+0.01 || hi-lo < pxOf(from+3600)-pxOf(from)-0.01 {
		t.Errorf("cap drawn over x %g..%g px, the hour is %g..%g px", lo, hi, pxOf(from), pxOf(from+3600))
	}
	if !strings.Contains(string(svg), "powercap in force") {
		t.Error("no legend for the cap")
	}
	if seriesNamed(parseSVG(t, PowerSVG(runs["always"])), "cap") != nil {
		t.Error("a run without a cap draws one")
	}
}

// A budget during peak is drawn during the contract's peak hours only,
// at its value, beside the jobs' power it limits (the busy component's
// highest value in each pixel column); a budget that always applies is
// drawn throughout; one under a rule is drawn throughout with a legend
// that says when it applied is not recorded.
func TestPowerPlotDrawsBudgetWhereItApplies(t *testing.T) {
	runs := limitsRuns(t)
	r := runs["peak"]
	if r.Result.Metrics.Budget != 6000 {
		t.Fatalf("budget %g W, want 6000", r.Result.Metrics.Budget)
	}
	svg := PowerSVG(r)
	d := parseSVG(t, svg)
	top, wPerPx := plotGeom(t, svg)
	x0, x1, _ := Window(r)
	tOf := func(px float64) float64 { return x0 + (px-marginL)/bins*(x1-x0) }
	clock, err := Clock(r.Result)
	if err != nil {
		t.Fatal(err)
	}
	peak := func(tm float64) bool { h := clock.Time(tm).Hour(); return h >= 6 && h < 22 }
	s := seriesNamed(d, "budget")
	if s == nil {
		t.Fatal("no budget series")
	}
	pieces := subpaths(s.Paths[0].D)
	days := (x1 - x0) / 86400
	if float64(len(pieces)) < days-1 || float64(len(pieces)) > days+2 {
		t.Errorf("budget drawn in %d pieces over %.1f days: want one per day's peak", len(pieces), days)
	}
	col := (x1 - x0) / bins // one pixel column, s
	for _, p := range pieces {
		for _, pt := range p {
			if w := (top + plotH - pt[1]) * wPerPx; math.Abs(w-6000) > wPerPx*0.01 {
				t.Errorf("budget drawn at %g W, want 6000", w)
			}
		}
		// Inside a piece, away from its ends by a column, is peak time.
		a, b := tOf(p[0][0]), tOf(p[len(p)-1][0])
		for tm := a + col; tm < b-col; tm += 600 {
			if !peak(tm) {
				t.Fatalf("budget drawn at %s, off-peak", clock.Time(tm).Format("2006-01-02 15:04"))
			}
		}
	}
	// Every off-peak instant a column away from peak has no budget drawn.
	for tm := x0; tm < x1; tm += 600 {
		if peak(tm) || peak(tm-col) || peak(tm+col) {
			continue
		}
		px := marginL + (tm-x0)/(x1-x0)*bins
		for _, p := range pieces {
			if px > p[0][0] && px < p[len(p)-1][0] {
				t.Fatalf("budget drawn at %s, off-peak", clock.Time(tm).Format("2006-01-02 15:04"))
			}
		}
	}
	// The jobs' power it limits: the busy component, its highest value.
	j := seriesNamed(d, "jobs' power")
	if j == nil {
		t.Fatal("no jobs' power series beside the budget")
	}
	ss := r.Result.States
	bc := column(Kept(ss), "power_busy_w")
	maxBusy := 0.0
	for i := range ss.Times {
		maxBusy = math.Max(maxBusy, ss.Values[i*len(ss.Columns)+bc])
	}
	hiDrawn := 0.0
	for _, p := range subpaths(j.Paths[0].D) {
		for _, pt := range p {
			hiDrawn = math.Max(hiDrawn, (top+plotH-pt[1])*wPerPx)
		}
	}
	if math.Abs(hiDrawn-maxBusy) > wPerPx*0.01 {
		t.Errorf("jobs' power drawn up to %g W, the series' busy power up to %g W", hiDrawn, maxBusy)
	}
	if !strings.Contains(string(svg), "power budget during peak (limits the jobs&#39; power, not the total)") {
		t.Error("the budget's legend does not say it limits the jobs' power during peak")
	}

	// Always: one piece across the whole plot.
	svg = PowerSVG(runs["always"])
	d = parseSVG(t, svg)
	if s := seriesNamed(d, "budget"); s == nil || len(subpaths(s.Paths[0].D)) != 1 {
		t.Error("a budget that always applies is not one line across the plot")
	}
	// While a rule: drawn throughout, and the legend says why.
	svg = PowerSVG(runs["busy"])
	if s := seriesNamed(parseSVG(t, svg), "budget"); s == nil || !strings.Contains(string(svg), "power budget while price.now &gt; 0.12 (limits the jobs&#39; power;") ||
		!strings.Contains(string(svg), "when the rule held is not recorded") {
		t.Error("a budget under a rule is not drawn with its legend")
	}
}
