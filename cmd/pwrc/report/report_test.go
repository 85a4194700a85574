package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// A one-second spike in a long series lands in its bin's maximum, and a
// one-second dip in its minimum, however many rows share the bin.
func TestBinStepKeepsExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows = 200000
	ts := make([]float64, rows)
	vs := make([]float64, rows)
	x := 0.0
	for i := range ts {
		ts[i] = x
		vs[i] = 100 + 10*r.Float64()
		x += 1 + 600*r.Float64()
	}
	end := x
	spike, dip := 123456, 65432
	vs[spike], vs[dip] = 1e6, -5
	ts[spike+1] = ts[spike] + 1 // the spike lasts one second
	b := binStep(ts, func(i int) float64 { return vs[i] }, end, 0, end, 800)
	hi, lo := math.Inf(-1), math.Inf(1)
	for k := range b.N() {
		hi, lo = math.Max(hi, b.Max[k]), math.Min(lo, b.Min[k])
	}
	if hi != 1e6 || lo != -5 {
		t.Errorf("extremes over the bins: %g .. %g, want -5 .. 1e6", lo, hi)
	}
	// The means integrate to the step function's integral.
	var want float64
	for i := range ts {
		z := end
		if i+1 < rows {
			z = ts[i+1]
		}
		want += vs[i] * (z - ts[i])
	}
	if got := b.Integral(); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("integral of the binned means %g, want %g", got, want)
	}
}

// Bins cover only where the function is defined; a window inside the
// series integrates just that window.
func TestBinStepWindow(t *testing.T) {
	ts := []float64{10, 20, 30}
	vs := []float64{1, 2, 3}
	b := binStep(ts, func(i int) float64 { return vs[i] }, 40, 0, 40, 4)
	if b.Covered[0] != 0 || !math.IsNaN(b.Mean[0]) {
		t.Errorf("bin before the series: covered %g, mean %g", b.Covered[0], b.Mean[0])
	}
	if got := b.Integral(); got != 10+20+30 {
		t.Errorf("integral %g, want 60", got)
	}
	b = binStep(ts, func(i int) float64 { return vs[i] }, 40, 15, 25, 3)
	if got := b.Integral(); math.Abs(got-(5*1+5*2)) > 1e-12 {
		t.Errorf("integral over [15, 25): %g, want 15", got)
	}
}

// m4 keeps every column's first, lowest, highest and last point.
func TestM4KeepsExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 100000
	xs := make([]float64, n)
	ys := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
		ys[i] = r.NormFloat64()
	}
	ys[777] = 50
	ys[99998] = -50
	ox, oy := m4(xs, ys, 0, float64(n), 500)
	if len(ox) > 4*500 {
		t.Errorf("%d points kept for 500 columns", len(ox))
	}
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, y := range oy {
		hi, lo = math.Max(hi, y), math.Min(lo, y)
	}
	if hi != 50 || lo != -50 {
		t.Errorf("kept range %g..%g, want -50..50", lo, hi)
	}
	if ox[0] != 0 || ox[len(ox)-1] != float64(n-1) {
		t.Errorf("first and last points not kept: %g, %g", ox[0], ox[len(ox)-1])
	}
}

var (
	quickOnce sync.Once
	quickRes  []*pwrt.Result
	quickPlan *pwrt.Plan
)

// quickstart runs examples/quickstart.pwr with states and jobs kept.
func quickstart(t *testing.T) (*pwrt.Plan, []*pwrt.Result) {
	t.Helper()
	quickOnce.Do(func() {
		res := compiler.Compile("../../../examples/quickstart.pwr", compiler.Options{})
		if res.Diags.HasErrors() {
			return
		}
		quickPlan = res.Plan
		quickRes = pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2, KeepStates: true, KeepJobs: true})
	})
	if quickPlan == nil {
		t.Fatal("quickstart.pwr does not compile")
	}
	return quickPlan, quickRes
}

func runsOf(t *testing.T, rs []*pwrt.Result) []Run {
	var out []Run
	for _, r := range rs {
		if r.Err != nil {
			t.Fatalf("run %s: %v", r.Run.Name, r.Err)
		}
		run := Run{Result: r, Label: r.Run.Label()}
		tar, err := Tariff(run, tariff.OpenPrices)
		if err != nil {
			t.Fatal(err)
		}
		run.Price = tar
		out = append(out, run)
	}
	return out
}

// svgSeries is one series of a figure: a <g class="series">.
type svgSeries struct {
	Name  string `xml:"data-name,attr"`
	Paths []struct {
		D string `xml:"d,attr"`
	} `xml:"path"`
}

// svgDoc is what the tests read back from a figure.
type svgDoc struct {
	Series []svgSeries `xml:"g"`
	Plot   string      `xml:"data-plot,attr"`
	NSer   int         `xml:"data-series,attr"`
	Width  string      `xml:"width,attr"`
	Height string      `xml:"height,attr"`
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var d svgDoc
	if err := xml.Unmarshal(b, &d); err != nil {
		t.Fatalf("SVG does not parse: %v\n%.300s", err, b)
	}
	if len(d.Series) != d.NSer {
		t.Errorf("%s: %d series drawn, data-series says %d", d.Plot, len(d.Series), d.NSer)
	}
	return d
}

// polygonArea is the area enclosed by the closed sub-paths of d (shoelace).
func polygonArea(d string) float64 {
	var area float64
	subs, closed := pathPoints(d)
	for k, m := range subs {
		if !closed[k] {
			continue
		}
		var a float64
		for i := range m {
			j := (i + 1) % len(m)
			a += m[i][0]*m[j][1] - m[j][0]*m[i][1]
		}
		area += math.Abs(a) / 2
	}
	return area
}

// The stacked layers of a power plot enclose the run's energy: each is
// drawn from the axis to its top, so the largest polygon, the top of the
// stack, converted back from pixels, is the energy in the table (to the
// rounding of coordinates to 0.01 px); each layer is no lower than the
// one under it.
func TestPowerPlotIntegratesToEnergy(t *testing.T) {
	_, rs := quickstart(t)
	for _, r := range runsOf(t, rs) {
		svg := PowerSVG(r)
		d := parseSVG(t, svg)
		x0, x1, focused := Window(r)
		if focused {
			t.Fatalf("%s: a run without a window or caps is drawn over %g..%g", r.Label, x0, x1)
		}
		_, parts := powerParts(statesOf(r))
		var px2, last float64
		for _, s := range d.Series {
			if slices.Contains(parts, s.Name) {
				a := polygonArea(s.Paths[0].D)
				if last > 0 && a > last+1e-6 {
					t.Errorf("%s: layer %s (%g px²) is drawn after a smaller one (%g px²)", r.Label, s.Name, a, last)
				}
				px2, last = math.Max(px2, a), a
			}
		}
		// Pixels per second and per W, from the chart's scales.
		m := r.Result.Metrics
		yTop, unit := axisTop(svg)
		div := map[string]float64{"W": 1, "kW": 1e3, "MW": 1e6}[unit]
		pxPerS := float64(bins) / (x1 - x0)
		pxPerW := plotH / (yTop * div)
		energy := px2 / pxPerS / pxPerW
		if rel := math.Abs(energy-m.Energy) / m.Energy; rel > 2e-4 {
			t.Errorf("%s: plotted energy %.6g J, table %.6g J (%.2g relative)", r.Label, energy, m.Energy, rel)
		}
	}
}

// axisTop reads the power axis's top value and unit back from the SVG:
// the last y tick and the axis label.
func axisTop(svg []byte) (float64, string) {
	s := string(svg)
	unit := regexp.MustCompile(`>power, (\w+)<`).FindStringSubmatch(s)[1]
	ticks := regexp.MustCompile(`<text x="[0-9.]+" y="[0-9.]+" text-anchor="end" fill="#444">([0-9,.]+)</text>`).FindAllStringSubmatch(s, -1)
	v, _ := strconv.ParseFloat(strings.ReplaceAll(ticks[len(ticks)-1][1], ",", ""), 64)
	return v, unit
}

// Power × price over the state series is the run's cost: the price drawn
// is the price the simulator charged.
func TestPriceIsTheRunsPrice(t *testing.T) {
	_, rs := quickstart(t)
	for _, r := range runsOf(t, rs) {
		checkCost(t, r)
	}
}

func checkCost(t *testing.T, r Run) {
	t.Helper()
	res := r.Result
	ss := res.States
	w := len(ss.Columns)
	m := res.Metrics
	var energy, cost float64
	for i, t0 := range ss.Times {
		t1 := m.AccountTo
		if i+1 < len(ss.Times) {
			t1 = ss.Times[i+1]
		}
		t0, t1 = math.Max(t0, m.AccountFrom), math.Min(t1, m.AccountTo)
		if t1 <= t0 {
			continue
		}
		var p float64
		for c, name := range ss.Columns {
			if _, ok := pwrt.PowerColumn(name); ok {
				p += ss.Values[i*w+c]
			}
		}
		energy += p * (t1 - t0)
		cost += p / 3.6e6 * tariff.Integral(r.Price, t0, t1)
	}
	if math.Abs(energy-m.Energy) > 1e-6*m.Energy {
		t.Errorf("%s: series energy %.9g J, metrics %.9g J", r.Label, energy, m.Energy)
	}
	if math.Abs(cost-m.Cost) > 1e-6*math.Abs(m.Cost) {
		t.Errorf("%s: power × drawn price %.9g, cost %.9g", r.Label, cost, m.Cost)
	}
}

// Every figure parses as SVG, draws the series it announces, and the same
// runs give the same bytes.
func TestFiguresParseAndAreDeterministic(t *testing.T) {
	_, rs := quickstart(t)
	runs := runsOf(t, rs)
	figs := map[string]func() []byte{
		"power":       func() []byte { return PowerSVG(runs[0]) },
		"states":      func() []byte { return StatesSVG(runs[2]) },
		"utilization": func() []byte { return UtilizationSVG(runs) },
		"waits":       func() []byte { return WaitsSVG(runs) },
		"hours":       func() []byte { return HoursSVG(runs) },
		"energy":      func() []byte { return EnergySVG(runs) },
		"cost":        func() []byte { return CostSVG(runs) },
		"savings":     func() []byte { return SavingsSVG(runs) },
	}
	// Quickstart schedules alike under both contracts, and easy_shutdown
	// (no boot time) as easy: runs that draw the same line share it. Two
	// distinct waits and utilizations; three power profiles (shutting
	// nodes down changes the power, not the schedule).
	want := map[string]int{"utilization": 2, "waits": 2, "hours": 3, "savings": 2}
	for name, f := range figs {
		a, b := f(), f()
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two drawings differ", name)
		}
		d := parseSVG(t, a)
		if d.Plot != name {
			t.Errorf("%s: data-plot %q", name, d.Plot)
		}
		if n, ok := want[name]; ok && d.NSer != n {
			t.Errorf("%s: %d series, want %d", name, d.NSer, n)
		}
		if bytes.Contains(a, []byte("url(")) || bytes.Contains(a, []byte("@font-face")) || bytes.Contains(a, []byte("href")) {
			t.Errorf("%s: refers to something outside the SVG", name)
		}
	}
}

// The energy bars are the runs' energies by component.
func TestEnergyBars(t *testing.T) {
	_, rs := quickstart(t)
	runs := runsOf(t, rs)
	svg := string(EnergySVG(runs))
	for _, r := range runs {
		want := decimals(r.Result.Metrics.Energy/3.6e9, 1)
		if !strings.Contains(svg, ">"+want+"</text>") {
			t.Errorf("energy bars: no label %s for %s", want, r.Label)
		}
	}
}

// The wait CDF reaches 100 % at the run's longest wait.
func TestWaitsCDF(t *testing.T) {
	_, rs := quickstart(t)
	runs := runsOf(t, rs)[:1]
	d := parseSVG(t, WaitsSVG(runs))
	subs, _ := pathPoints(d.Series[0].Paths[0].D)
	pts := subs[len(subs)-1]
	y := pts[len(pts)-1][1]
	// 100 % is the plot area's top edge.
	if math.Abs(y-topOfPlot(t, WaitsSVG(runs))) > 0.01 {
		t.Errorf("CDF ends at y=%g px, not at the top of the plot", y)
	}
}

func topOfPlot(t *testing.T, svg []byte) float64 {
	m := regexp.MustCompile(`<rect x="70" y="([0-9.]+)" width="[0-9.]+" height="300" fill="#fafafa"`).FindSubmatch(svg)
	if m == nil {
		t.Fatal("no plot area")
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// The page is one file: no script, no link, no external resource, and it
// holds every experiment's table and figures.
func TestHTMLSelfContained(t *testing.T) {
	p, rs := quickstart(t)
	e := p.Experiments[0]
	x := Experiment{Name: e.Name, Table: Table{Title: "t", Header: []string{"Run\nname", "Energy\nMWh"}, Rows: [][]string{{"a<b", "1"}}, Left: []bool{true}}, Runs: runsOf(t, rs)}
	page := HTML(Page{Title: "examples/quickstart.pwr", Generator: "pwrc test", Experiments: []Experiment{x}})
	for _, bad := range []string{"<script", "<link", "src=", "href=\"http", "url(", "@import", "@font-face"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page contains %q", bad)
		}
	}
	if !bytes.Contains(page, []byte("<td class=\"l\">a&lt;b</td>")) {
		t.Error("table cell not escaped")
	}
	plots := bytes.Count(page, []byte(`class="plot"`))
	// the decision summary; energy, cost, savings, waits, utilization,
	// hours, boots per day (easy_shutdown switches nodes off); power and
	// states per run
	if want := 1 + 7 + 2*len(rs); plots != want {
		t.Errorf("%d plots, want %d", plots, want)
	}
	if !bytes.Equal(page, HTML(Page{Title: "examples/quickstart.pwr", Generator: "pwrc test", Experiments: []Experiment{x}})) {
		t.Error("two pages of the same runs differ")
	}
	if dir := os.Getenv("PWRC_REPORT_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, "unit.html"), page, 0o644)
	}
}

// PNG renders a figure at twice its size, with its colours and its text,
// the same bytes every time.
func TestPNG(t *testing.T) {
	_, rs := quickstart(t)
	runs := runsOf(t, rs)
	svg := EnergySVG(runs)
	a, err := PNG(svg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PNG(svg)
	if !bytes.Equal(a, b) {
		t.Error("two renderings differ")
	}
	img, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	d := parseSVG(t, svg)
	w, _ := strconv.ParseFloat(d.Width, 64)
	h, _ := strconv.ParseFloat(d.Height, 64)
	if got := img.Bounds().Size(); got.X != int(2*w) || got.Y != int(2*h) {
		t.Errorf("PNG of %gx%g px is %v", w, h, got)
	}
	// The busy bars' colour, and dark text, are there.
	var busy, dark int
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == 0xd9 && g>>8 == 0x5f && b>>8 == 0x02 {
				busy++
			}
			if r>>8 < 0x50 && g>>8 < 0x50 && b>>8 < 0x50 {
				dark++
			}
		}
	}
	if busy < 1000 || dark < 500 {
		t.Errorf("%d busy-coloured and %d dark pixels: bars or text missing", busy, dark)
	}
	if _, err := PNG([]byte("<html/>")); err == nil {
		t.Error("PNG of something else than an SVG: no error")
	}
}

// On real traces: an hourly tariff's price drawn is the price charged
// (KTH-SP2, Kunkel's T1 series), and a machine with levels plots energy
// that integrates to the table's, level components included (HPC2N on
// Patil's racks).
func TestRealTraces(t *testing.T) {
	kth := testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")
	t1 := testenv.Data(t, "prices/T1.csv")
	hpc2n := testenv.Data(t, "traces/HPC2N-2002-2.1-cln.swf.gz")
	for _, c := range []struct {
		file string
		sets []compiler.Set
	}{
		{"../../../examples/kunkel_billing.pwr", []compiler.Set{{Name: "trace", Value: kth}, {Name: "kunkel_prices", Value: t1}}},
		{"../../../examples/patil_racks.pwr", []compiler.Set{{Name: "trace", Value: hpc2n}}},
	} {
		res := compiler.Compile(c.file, compiler.Options{Sets: c.sets})
		if res.Diags.HasErrors() {
			t.Fatalf("%s does not compile", c.file)
		}
		rs := pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2, KeepStates: true})
		hourly := false
		for _, r := range runsOf(t, rs) {
			checkCost(t, r)
			hourly = hourly || r.Result.Run.Contract.Kind == pwrt.Hourly
			d := parseSVG(t, PowerSVG(r))
			_, parts := powerParts(statesOf(r))
			for _, p := range parts {
				if !slices.ContainsFunc(d.Series, func(s svgSeries) bool { return s.Name == p }) {
					t.Errorf("%s: no series for component %s", r.Label, p)
				}
			}
			states := string(StatesSVG(r))
			for _, l := range r.Result.Metrics.Levels {
				if !strings.Contains(states, `data-name="`+l.Name+` on"`) {
					t.Errorf("%s: states plot without level %s", r.Label, l.Name)
				}
			}
		}
		if strings.Contains(c.file, "kunkel") && !hourly {
			t.Error("no hourly contract checked")
		}
	}
}

// With an accounting window that starts before the first submission, the
// series starts there too, and the price drawn is still the price charged.
func TestAccountWindow(t *testing.T) {
	src := `import "std/policies"
import "std/kunkel"
machine cluster {
  nodes 64
  cores 1
  power { off 0 W; idle 70 W; busy 260 W }
  infrastructure 5 kW
}
experiment acc {
  workload synthetic { jobs 500; load 80%; seed 3 }
  machine  cluster
  contract [kunkel_basepeak]
  policy   [easy, easy_shutdown] baseline easy
  account  -2 d .. 40 d
}
`
	path := filepath.Join(t.TempDir(), "acc.pwr")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := compiler.Compile(path, compiler.Options{})
	if res.Diags.HasErrors() {
		t.Fatal("does not compile")
	}
	rs := pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2, KeepStates: true})
	for _, r := range runsOf(t, rs) {
		if !r.Result.Metrics.Windowed || r.Result.States.Times[0] != r.Result.Metrics.AccountFrom {
			t.Fatalf("%s: series from %g, window from %g", r.Label, r.Result.States.Times[0], r.Result.Metrics.AccountFrom)
		}
		checkCost(t, r)
	}
}

// A legend item too long for the figure wraps after its " = ", and every
// line fits.
func TestLegendWraps(t *testing.T) {
	long := strings.Repeat("kunkel_basepeak · easy_shutdown = ", 6) + "kunkel_hourly · easy"
	rows := legendRows([]legendItem{{"short", "#000000", "line", ""}, {long, "#111111", "line", ""}}, 700)
	if len(rows) < 3 {
		t.Fatalf("%d legend rows, want the short item and the long one wrapped", len(rows))
	}
	var joined []string
	for i, row := range rows[1:] {
		if len(row) != 1 || 26+charW*float64(len([]rune(row[0].name)))+14 > 700 {
			t.Errorf("row %d: %q does not fit", i+1, row[0].name)
		}
		if (i == 0) != (row[0].kind == "line") {
			t.Errorf("row %d: swatch %q", i+1, row[0].kind)
		}
		joined = append(joined, row[0].name)
	}
	if got := strings.Join(joined, " "); got != long {
		t.Errorf("wrapped legend reads %q, want %q", got, long)
	}
}

// A Series gives back every row it was sent, bit for bit: whole numbers,
// fractions, minus zero, infinities and NaN, above and below 2^53, and more
// than 63 columns.
func TestSeriesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cols := make([]string, 70)
	for i := range cols {
		cols[i] = "c" + strconv.Itoa(i)
	}
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1 << 53, 1<<53 + 2, -(1 << 60), 0.5, 1e-300, math.Inf(1), math.Inf(-1), math.NaN(), 123456.789}
	var s Series
	s.Begin(cols)
	var ts []float64
	var rows [][]float64
	row := make([]float64, len(cols))
	tm := 1e9
	for range 2000 {
		for c := range row {
			switch r.IntN(4) {
			case 0:
				row[c] = special[r.IntN(len(special))]
			case 1:
				row[c] = float64(r.IntN(5000) - 100)
			}
		}
		if r.IntN(10) == 0 {
			tm += r.Float64()
		} else {
			tm += float64(r.IntN(1000))
		}
		s.Record(tm, row)
		ts, rows = append(ts, tm), append(rows, slices.Clone(row))
	}
	if s.Len() != len(rows) {
		t.Fatalf("%d rows, want %d", s.Len(), len(rows))
	}
	if a, b := s.Span(); a != ts[0] || b != ts[len(ts)-1] {
		t.Errorf("span %g..%g, want %g..%g", a, b, ts[0], ts[len(ts)-1])
	}
	i := 0
	for tm, got := range s.Rows() {
		if math.Float64bits(tm) != math.Float64bits(ts[i]) {
			t.Fatalf("row %d: time %v, want %v", i, tm, ts[i])
		}
		for c := range got {
			if math.Float64bits(got[c]) != math.Float64bits(rows[i][c]) {
				t.Fatalf("row %d column %d: %v, want %v", i, c, got[c], rows[i][c])
			}
		}
		i++
	}
	if i != len(rows) {
		t.Fatalf("read %d rows back, want %d", i, len(rows))
	}
}

// Figures drawn from a streamed Series are those drawn from the kept
// series, byte for byte, and the Series is much smaller.
func TestSeriesDrawsAsKept(t *testing.T) {
	_, rs := quickstart(t)
	for _, run := range runsOf(t, rs) {
		ss := run.Result.States
		var s Series
		s.Begin(ss.Columns)
		w := len(ss.Columns)
		for i, tm := range ss.Times {
			s.Record(tm, ss.Values[i*w:(i+1)*w])
		}
		streamed := run
		streamed.States = &s
		streamed.Result = new(pwrt.Result)
		*streamed.Result = *run.Result
		streamed.Result.States = nil
		for name, f := range map[string]func(Run) []byte{"power": PowerSVG, "states": StatesSVG,
			"utilization": func(r Run) []byte { return UtilizationSVG([]Run{r}) }} {
			if !bytes.Equal(f(run), f(streamed)) {
				t.Errorf("%s: %s figure differs when drawn from a Series", run.Label, name)
			}
		}
		if full := 8 * (len(ss.Times) + len(ss.Values)); s.Bytes()*4 > full {
			t.Errorf("%s: Series takes %d bytes for %d of rows", run.Label, s.Bytes(), full)
		}
	}
}
