package report

import (
	"math"
	"slices"
	"strings"
	"time"

	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// Run is one run to draw: its result, its name in legends and the price
// it paid over time (nil: none drawn). The time-series figures draw its
// machine-state series, States or else the one its result kept; the wait
// distributions its result's jobs, or else its waits.
type Run struct {
	Result *pwrt.Result
	Label  string
	Price  tariff.Tariff
	States States
	// From and To, if To > From, are the time (trace seconds) its time
	// plots show; else Window chooses.
	From, To float64
}

// Colours: components and machine states keep theirs in every figure;
// runs take the categorical palette in order.
var (
	palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}
	partCol = map[string]string{
		"busy": "#d95f02", "idle": "#7570b3", "off": "#b0b0b0", "boot": "#e6ab02", "shutdown": "#a6761d",
		"infrastructure": "#666666", "reserved": "#fdae6b", "booting": "#e6ab02", "shutting_down": "#a6761d",
	}
	levelCols = []string{"#1b9e77", "#66a61e", "#a6d854", "#238b45", "#41ab5d", "#74c476"}
)

const (
	priceColor  = "#1f4e9c"
	budgetColor = "#c0143c"
	capColor    = "#6a1b9a"
	jobsColor   = "#4a2100"
	bandColor   = "#c8c8c8"
	windowColor = "#e07b00"
)

func runColor(i int) string { return palette[i%len(palette)] }

// runDashes tell runs apart past the palette's ten colours: the 11th to
// 20th run take the colours again with long dashes, then short ones, then
// dash-dots (40 distinct lines).
var runDashes = []string{"", "7,3", "2,2", "7,2,2,2"}

// runStroke is the stroke of run i's line: its colour and dashes.
func runStroke(i int) string {
	s := `stroke="` + runColor(i) + `"`
	if d := runDashes[(i/len(palette))%len(runDashes)]; d != "" {
		s += ` stroke-dasharray="` + d + `"`
	}
	return s
}

// runLegend is run i's legend entry.
func runLegend(i int, label string) legendItem {
	return legendItem{name: label, color: runColor(i), kind: "line", dash: runDashes[(i/len(palette))%len(runDashes)]}
}

func partColor(name string, level int) string {
	if c, ok := partCol[name]; ok {
		return c
	}
	return levelCols[level%len(levelCols)]
}

// Span is the whole time of a run's time plots (see span), trace seconds.
func Span(r Run) (from, to float64) {
	if !hasStates(r) {
		return 0, 1
	}
	return span(r)
}

// span is the time a run's state series is drawn over: from its first row
// to the end of its accounting (its last job end, or the window's end).
func span(r Run) (from, to float64) {
	from, to = statesOf(r).Span()
	if r.Result.Metrics.AccountTo > to {
		to = r.Result.Metrics.AccountTo
	}
	if to <= from {
		to = from + 1
	}
	return from, to
}

// Window is the time a run's time plots show, trace seconds, and whether
// it is a part of the run (focused: the plots then show the whole in an
// overview strip): the run's From–To if set; else its measure or account
// window, or else the time its powercaps applied (the state series'
// cap_w), with a quarter of that before and after for context, when that
// is at most half of the run; else the whole run.
func Window(r Run) (x0, x1 float64, focused bool) {
	if !hasStates(r) {
		return 0, 0, false
	}
	s0, s1 := span(r)
	if r.To > r.From {
		return r.From, r.To, r.From > s0 || r.To < s1
	}
	a, b := math.Inf(1), math.Inf(-1)
	if m := &r.Result.Metrics; m.Windowed {
		a, b = m.AccountFrom, m.AccountTo
	} else if hasStates(r) {
		ss := statesOf(r)
		if c := column(ss, "cap_w"); c >= 0 {
			on, since := false, 0.0
			for t, row := range ss.Rows() {
				switch capped := !math.IsNaN(row[c]); {
				case capped && !on:
					on, since = true, t
				case !capped && on:
					on = false
					a, b = math.Min(a, since), math.Max(b, t)
				}
			}
			if on {
				a, b = math.Min(a, since), s1
			}
		}
	}
	if !(b > a) || b-a > (s1-s0)/2 {
		return s0, s1, false
	}
	pad := (b - a) / 4
	return math.Max(s0, a-pad), math.Min(s1, b+pad), true
}

// bins is the number of time bins of a time-series figure: one per pixel
// column of its plot area.
const bins = plotW - marginL - marginR

// column is the index of a named column of a state series, or -1.
func column(ss States, name string) int { return slices.Index(ss.Columns(), name) }

// binColumns bins columns of a state series, in one pass over its rows.
func binColumns(ss States, cols []int, end, x0, x1 float64, n int) []Bins {
	return binRows(ss, len(cols), func(row, out []float64) {
		for j, c := range cols {
			out[j] = row[c]
		}
	}, end, x0, x1, n)
}

// nonzero says, per column of a series, whether any row has a value other
// than 0 there.
func nonzero(ss States) []bool {
	nz := make([]bool, len(ss.Columns()))
	for _, row := range ss.Rows() {
		for c, v := range row {
			if v != 0 {
				nz[c] = true
			}
		}
	}
	return nz
}

// powerParts lists the power columns of a series (power_C_w) and their
// component names, leaving out components that never draw anything.
func powerParts(ss States) (cols []int, names []string) {
	nz := nonzero(ss)
	for c, name := range ss.Columns() {
		part, ok := pwrt.PowerColumn(name)
		if !ok {
			continue
		}
		if nz[c] {
			cols, names = append(cols, c), append(names, part)
		}
	}
	return cols, names
}

// stackOrder puts the parts that change least at the bottom of a stack:
// infrastructure, then levels, then the node states.
func stackOrder(cols []int, names []string) ([]int, []string) {
	rank := func(name string) int {
		switch name {
		case "infrastructure":
			return 0
		case "busy", "idle", "off", "boot", "shutdown":
			return 2
		}
		return 1
	}
	var oc []int
	var on []string
	for r := range 3 {
		for i, name := range names {
			if rank(name) == r {
				oc, on = append(oc, cols[i]), append(on, name)
			}
		}
	}
	return oc, on
}

// powerUnit picks W, kW or MW for a maximum in W.
func powerUnit(maxW float64) (float64, string) {
	switch {
	case maxW >= 2e6:
		return 1e6, "MW"
	case maxW >= 2e3:
		return 1e3, "kW"
	}
	return 1, "W"
}

// currency is the symbol of a run's currency.
func currency(code string) string {
	if s, ok := map[string]string{"EUR": "€", "USD": "$", "GBP": "£"}[code]; ok {
		return s
	}
	if code == "" {
		return "€"
	}
	return code
}

// timeAxis sets a time chart's x axis: seconds on the trace's clock over
// [x0, x1]; labelled with the local time of day where that is at most
// four days of a trace whose clock is known, else in days since x0.
func timeAxis(ch *chart, r *pwrt.Result, x0, x1 float64) {
	ch.time = true
	if x1-x0 <= 4*86400 && (r.Workload.Epoch != 0 || r.Run != nil && r.Run.Workload.Start != "") {
		if c, err := Clock(r); err == nil {
			ch.x = scale{lo: x0, hi: x1}
			step := 3600.0
			for _, h := range []float64{1, 2, 3, 6, 12, 24} {
				if step = h * 3600; (x1-x0)/step <= 10 {
					break
				}
			}
			// Ticks at multiples of step from local midnight before x0.
			t0 := c.Time(x0)
			mid := time.Date(t0.Year(), t0.Month(), t0.Day(), 0, 0, 0, 0, c.Loc)
			for k := 0; k < 200; k++ {
				t := mid.Add(time.Duration(float64(k) * step * float64(time.Second)))
				x := x0 + t.Sub(t0).Seconds()
				if x > x1+1e-9 {
					break
				}
				if x >= x0-1e-9 {
					label := t.Format("15:04")
					if t.Hour() == 0 && t.Minute() == 0 {
						label = t.Format("Jan 2")
					}
					ch.xTicks = append(ch.xTicks, tick{x, label})
				}
			}
			ch.xLabel = "local time, " + t0.Format("2006-01-02") + " – " + c.Time(x1).Format("2006-01-02 MST")
			return
		}
	}
	daysAxis(ch, r, x0, x1)
}

// daysAxis sets a time chart's x axis: seconds on the trace's clock,
// labelled in days since x0, and says what day 0 is.
func daysAxis(ch *chart, r *pwrt.Result, x0, x1 float64) {
	ch.x = scale{lo: x0, hi: x1}
	for _, d := range niceTicks(0, (x1-x0)/86400, 9) {
		ch.xTicks = append(ch.xTicks, tick{x0 + d*86400, fmtNum(d)})
	}
	ch.xLabel = "days since the first submission"
	if r.Workload.Epoch != 0 || r.Run.Workload.Start != "" {
		if c, err := Clock(r); err == nil {
			ch.xLabel += " (day 0: " + c.Time(x0).Format("2006-01-02 15:04 MST") + ")"
		}
	}
}

// noStates is the message of a time-series figure of a run without a
// machine-state series.
const noStates = "no machine-state series for this run"

// PowerSVG draws a run's power over its Window, stacked by component
// (the mean over each pixel column, so the area is the energy), with the
// total's lowest and highest value in each column as a band, the powercap
// in force (the series' cap_w: a step line, absent while no cap applies)
// and the power budget where it applies, over the jobs' power it limits;
// the price in a panel of its own under it, on the same time axis (its
// range in each column, and its mean), never over the power; a measure or
// account window's edges; and, when the window is a part of the run, the
// whole run's power in an overview strip with that part marked.
func PowerSVG(r Run) []byte {
	res := r.Result
	ch := &chart{kind: "power", title: "Power by component · " + r.Label}
	if !hasStates(r) {
		ch.noData = noStates
		ch.begin()
		return ch.finish()
	}
	ss := statesOf(r)
	x0, x1, focused := Window(r)
	s0, s1 := span(r)
	end := s1
	cols, names := powerParts(ss)
	cols, names = stackOrder(cols, names)
	budget, hasBudget := budgetOf(r, x0, x1)
	capCol := column(ss, "cap_w")
	busyCol := column(ss, "power_busy_w")
	// The total of every component, for its extremes, binned after the
	// components in the same pass; then the jobs' power (under a budget)
	// and the cap in force (NaN while none: a gap).
	var all []int
	for c, name := range ss.Columns() {
		if _, ok := pwrt.PowerColumn(name); ok {
			all = append(all, c)
		}
	}
	total := func(row []float64) float64 {
		var s float64
		for _, c := range all {
			s += row[c]
		}
		return s
	}
	extra := []int{}
	iJobs, iCap := -1, -1
	if hasBudget && busyCol >= 0 {
		iJobs, extra = len(cols)+1+len(extra), append(extra, busyCol)
	}
	if capCol >= 0 {
		iCap, extra = len(cols)+1+len(extra), append(extra, capCol)
	}
	binned := binRows(ss, len(cols)+1+len(extra), func(row, out []float64) {
		for j, c := range cols {
			out[j] = row[c]
		}
		out[len(cols)] = total(row)
		for j, c := range extra {
			out[len(cols)+1+j] = row[c]
		}
	}, end, x0, x1, bins)
	parts, tot := binned[:len(cols)], binned[len(cols)]
	top := 0.0
	for _, v := range tot.Max {
		if !math.IsNaN(v) {
			top = math.Max(top, v)
		}
	}
	var capB, jobsB, budgetB *Bins
	if iCap >= 0 {
		if capB = &binned[iCap]; slices.Max(capB.Covered) > 0 {
			_, hi := minMax(capB.Min, capB.Max)
			top = math.Max(top, hi)
		} else {
			capB = nil // no cap in force here
		}
	}
	if hasBudget {
		b := binStep(budget.ts, func(i int) float64 { return budget.ws[i] }, x1, x0, x1, bins)
		budgetB = &b
		top = math.Max(top, budget.w)
		if iJobs >= 0 {
			jobsB = &binned[iJobs]
		}
	}
	var overview Bins
	if focused {
		// The whole run, for the strip; the axis fits its highs too.
		overview = binRows(ss, 1, func(row, out []float64) { out[0] = total(row) }, end, s0, s1, bins)[0]
	}
	div, unit := powerUnit(top)
	var price Bins
	if r.Price != nil {
		ts, ps, _ := priceSteps(r.Price, x0, x1)
		price = binStep(ts, func(i int) float64 { return ps[i] }, x1, x0, x1, bins)
	}
	for i, name := range names {
		ch.legend = append(ch.legend, legendItem{name, partColor(name, i), "box", ""})
	}
	ch.legend = append(ch.legend, legendItem{"total: lowest–highest in each column", bandColor, "box", ""})
	ch.nSeries = len(names) + 1
	cur := currency(res.Metrics.Currency)
	if r.Price != nil {
		ch.legend = append(ch.legend, legendItem{"price (" + cur + "/kWh, the panel below)", priceColor, "line", ""})
		ch.nSeries++
		lo, hi := minMax(price.Min, price.Max)
		ch.y2 = scale{lo: niceMin(lo, hi), hi: niceMax(hi)}
		ch.panelH, ch.panelLabel = 70, cur+"/kWh"
	}
	if capB != nil {
		ch.legend = append(ch.legend, legendItem{"powercap in force (the whole machine's power; lowest in each column)", capColor, "line", ""})
		ch.nSeries++
	}
	if jobsB != nil {
		ch.legend = append(ch.legend, legendItem{"jobs' power (busy): highest in each column", jobsColor, "hair", ""})
		ch.nSeries++
	}
	if budgetB != nil {
		ch.legend = append(ch.legend, legendItem{budget.label, budgetColor, "dash", ""})
		ch.nSeries++
	}
	m := &res.Metrics
	if m.Windowed {
		what := "account"
		if m.Measured {
			what = "measure"
		}
		ch.legend = append(ch.legend, legendItem{what + " window", windowColor, "dash", ""})
	}
	if focused {
		ch.stripH = 44
	}
	ch.y = scale{lo: 0, hi: niceMax(top / div)}
	ch.yLabel = "power, " + unit
	timeAxis(ch, res, x0, x1)
	ch.begin()
	ys := ch.y
	// The total's range behind the stack: above the stacked means shows
	// the highest power in each column; a thin line marks the lowest.
	ch.c.series("total")
	ch.stepBand(&tot, func(k int) float64 { return tot.Min[k] / div }, func(k int) float64 { return tot.Max[k] / div }, ys,
		`fill="`+bandColor+`"`)
	ch.stepLine(&tot, func(k int) float64 { return tot.Min[k] / div }, ys, `stroke="#333" stroke-width="0.6" stroke-opacity="0.6"`)
	ch.c.end()
	// Stacked means, in W scaled to the axis: each component is drawn
	// from the axis to the top of its layer, the highest first, so that
	// each path has one edge that moves (the next one down covers the
	// rest).
	cums := make([][]float64, len(parts))
	cum := make([]float64, bins)
	for i := range parts {
		b := &parts[i]
		for k := range cum {
			if b.Covered[k] > 0 {
				cum[k] += b.Mean[k] / div
			}
		}
		cums[i] = slices.Clone(cum)
	}
	zero := func(int) float64 { return 0 }
	for i := len(parts) - 1; i >= 0; i-- {
		upper := cums[i]
		ch.c.series(names[i])
		ch.stepBand(&parts[i], zero, func(k int) float64 { return upper[k] }, ys, `fill="`+partColor(names[i], i)+`"`)
		ch.c.end()
	}
	if r.Price != nil {
		ch.c.series("price")
		ch.stepBand(&price, func(k int) float64 { return price.Min[k] }, func(k int) float64 { return price.Max[k] }, ch.y2,
			`fill="`+priceColor+`" fill-opacity="0.18"`)
		ch.stepLine(&price, func(k int) float64 { return price.Mean[k] }, ch.y2, `stroke="`+priceColor+`" stroke-width="0.9"`)
		ch.c.end()
	}
	if capB != nil {
		ch.c.series("cap")
		ch.stepLine(capB, func(k int) float64 { return capB.Min[k] / div }, ys, `stroke="#ffffff" stroke-width="3.5" stroke-opacity="0.8"`)
		ch.stepLine(capB, func(k int) float64 { return capB.Min[k] / div }, ys, `stroke="`+capColor+`" stroke-width="1.8"`)
		ch.c.end()
	}
	if jobsB != nil {
		ch.c.series("jobs' power")
		ch.stepLine(jobsB, func(k int) float64 { return jobsB.Max[k] / div }, ys, `stroke="`+jobsColor+`" stroke-width="0.9"`)
		ch.c.end()
	}
	if budgetB != nil {
		ch.c.series("budget")
		ch.stepLine(budgetB, func(k int) float64 { return budgetB.Mean[k] / div }, ys, `stroke="`+budgetColor+`" stroke-width="1.5" stroke-dasharray="6,4"`)
		ch.c.end()
	}
	if m.Windowed {
		ch.windowEdges(m.AccountFrom, m.AccountTo)
	}
	if focused {
		ch.overview(&overview, s0, s1, x0, x1, res, func(k int) float64 { return overview.Mean[k] })
	}
	return ch.finish()
}

// windowEdges marks a measure or account window's start and end (where
// they are in the plot) with dashed lines over the plot area and panel.
func (ch *chart) windowEdges(from, to float64) {
	bottom := ch.py + ch.ph
	if ch.panelH > 0 {
		bottom = ch.panelY + ch.panelH
	}
	for _, t := range []float64{from, to} {
		if t < ch.x.lo || t > ch.x.hi {
			continue
		}
		x := ch.x.px(t)
		ch.c.line(x, ch.py, x, bottom, `stroke="`+windowColor+`" stroke-width="1.2" stroke-dasharray="4,3" class="window"`)
	}
}

// overview draws the whole run [s0, s1] in the strip under the chart (the
// mean per column, b binned over it, as an area on its own scale) and
// marks the part the chart shows, [x0, x1].
func (ch *chart) overview(b *Bins, s0, s1, x0, x1 float64, r *pwrt.Result, val func(k int) float64) {
	c := ch.c
	y0, h := ch.stripY, ch.stripH
	c.rect(ch.px, y0, ch.pw, h, `fill="#fafafa" stroke="#ccc"`)
	hi := 0.0
	for k := range b.N() {
		if b.Covered[k] > 0 {
			hi = math.Max(hi, val(k))
		}
	}
	xs := scale{lo: s0, hi: s1, a: ch.px, b: ch.px + ch.pw}
	ys := scale{lo: 0, hi: math.Max(hi, 1e-9), a: y0 + h, b: y0 + 2}
	var p path
	for k := range b.N() {
		if b.Covered[k] == 0 {
			p.to(math.NaN(), 0)
			continue
		}
		p.to(xs.px(b.Edge(k)), ys.px(val(k)))
		p.to(xs.px(b.Edge(k+1)), ys.px(val(k)))
	}
	c.path(&p, `fill="none" stroke="#555" stroke-width="0.8" class="overview"`)
	fx0, fx1 := xs.px(x0), xs.px(x1)
	c.rect(fx0, y0, math.Max(1.5, fx1-fx0), h, `fill="`+windowColor+`" fill-opacity="0.25" stroke="`+windowColor+`" class="focus"`)
	days := (s1 - s0) / 86400
	c.text(ch.px, y0+h+13, "start", "the whole run, "+fmtNum(math.Round(days*10)/10)+" days: the shaded part is drawn above", `fill="#555" font-size="11"`)
}

// budgetLine is a run's power budget to draw: w (W) where it applies,
// as a step function (times ts, values ws: w, or NaN where it does not
// apply), and its legend.
type budgetLine struct {
	w      float64
	ts, ws []float64
	label  string
}

// budgetOf is the run's power budget over [x0, x1], where it applies:
// always; during the contract's peak periods (from the price drawn, the
// tariff the simulator charged); or, when the series cannot tell (a
// `while` rule, or no scenario to say when), throughout, with a legend
// that says so. ok is false without a budget, or when it never applies
// (`during peak` on a contract without peak periods).
func budgetOf(r Run, x0, x1 float64) (bl budgetLine, ok bool) {
	res := r.Result
	bl.w = res.Metrics.Budget
	if !(bl.w > 0) || math.IsInf(bl.w, 0) {
		return bl, false
	}
	var pol *pwrt.Budget
	limits := "the jobs' power"
	if res.Run != nil {
		pol = res.Run.Policy.Budget
		if w := res.Run.Policy.Weight; w != nil && strings.TrimSpace(w.Source) != "job.power" {
			limits = "the jobs' weights, " + w.Source
		}
	}
	bl.ts, bl.ws = []float64{x0}, []float64{bl.w}
	switch {
	case pol == nil:
		bl.label = "power budget (limits " + limits + "; when it applies is unknown without the scenario: drawn throughout)"
	case pol.When == pwrt.BudgetAlways:
		bl.label = "power budget (limits " + limits + ", not the total)"
	case pol.When == pwrt.BudgetDuringPeak && r.Price != nil:
		peak := slices.Index(r.Price.Periods(), "peak")
		if peak < 0 {
			return bl, false // the run said so: it never triggers
		}
		var periods []int
		bl.ts, _, periods = priceSteps(r.Price, x0, x1)
		bl.ws = make([]float64, len(periods))
		for i, period := range periods {
			bl.ws[i] = math.NaN()
			if period == peak {
				bl.ws[i] = bl.w
			}
		}
		bl.label = "power budget during peak (limits " + limits + ", not the total)"
	case pol.When == pwrt.BudgetDuringPeak:
		bl.label = "power budget during peak (limits " + limits + "; no price drawn to place the peaks: drawn throughout)"
	default:
		src := ""
		if pol.While != nil {
			src = " " + pol.While.Source
		}
		bl.label = "power budget while" + src + " (limits " + limits + "; when the rule held is not recorded: drawn throughout)"
	}
	return bl, true
}

// minMax is the range of the non-NaN values of lo and hi.
func minMax(lo, hi []float64) (float64, float64) {
	a, b := math.Inf(1), math.Inf(-1)
	for i := range lo {
		if !math.IsNaN(lo[i]) {
			a = math.Min(a, lo[i])
		}
		if !math.IsNaN(hi[i]) {
			b = math.Max(b, hi[i])
		}
	}
	if math.IsInf(a, 0) {
		return 0, 1
	}
	return a, b
}

// stateLayers are the node states, stacked from the bottom.
var stateLayers = []string{"busy", "reserved", "idle", "booting", "shutting_down", "off"}

// StatesSVG draws the nodes in each state over time, stacked (the mean
// over each pixel column), the busy nodes' lowest and highest value in
// each column as a band, and the level instances on (right axis).
func StatesSVG(r Run) []byte {
	res := r.Result
	ch := &chart{kind: "states", title: "Machine states · " + r.Label}
	if !hasStates(r) {
		ch.noData = noStates
		ch.begin()
		return ch.finish()
	}
	ss := statesOf(r)
	x0, x1, _ := Window(r)
	_, end := span(r)
	nz := nonzero(ss)
	var cols []int
	var names []string
	for _, name := range stateLayers {
		c := column(ss, name)
		if c >= 0 && (nz[c] || name == "busy") {
			cols, names = append(cols, c), append(names, name)
		}
	}
	nLayers := len(cols)
	var lnames []string
	for c, name := range ss.Columns() {
		if l, ok := strings.CutSuffix(name, "_on"); ok {
			cols, lnames = append(cols, c), append(lnames, l)
		}
	}
	binned := binColumns(ss, cols, end, x0, x1, bins)
	layers, levels := binned[:nLayers], binned[nLayers:]
	lmax := 0.0
	for i := range levels {
		_, hi := minMax(levels[i].Min, levels[i].Max)
		lmax = math.Max(lmax, hi)
	}
	for _, name := range names {
		ch.legend = append(ch.legend, legendItem{strings.ReplaceAll(name, "_", " "), partColor(name, 0), "box", ""})
	}
	ch.legend = append(ch.legend, legendItem{"busy: lowest and highest in each column", "#3a1c00", "thin", ""})
	for i, l := range lnames {
		ch.legend = append(ch.legend, legendItem{l + " on (right axis)", levelCols[i%len(levelCols)], "line", ""})
	}
	ch.nSeries = len(names) + 1 + len(lnames)
	nodes := float64(res.Metrics.Nodes)
	if nodes <= 0 {
		nodes = 1
	}
	ch.y = scale{lo: 0, hi: nodes}
	ch.yLabel = "nodes"
	if len(levels) > 0 {
		ch.hasY2 = true
		ch.y2 = scale{lo: 0, hi: niceMax(lmax)}
		ch.y2Label = "instances on"
		ch.y2Fmt = fmtNum
	}
	timeAxis(ch, res, x0, x1)
	ch.begin()
	// Stacked from the axis, the highest layer first (as the power plot).
	cums := make([][]float64, len(layers))
	cum := make([]float64, bins)
	for i := range layers {
		b := &layers[i]
		for k := range cum {
			if b.Covered[k] > 0 {
				cum[k] += b.Mean[k]
			}
		}
		cums[i] = slices.Clone(cum)
	}
	for i := len(layers) - 1; i >= 0; i-- {
		upper := cums[i]
		ch.c.series(names[i])
		ch.stepBand(&layers[i], func(int) float64 { return 0 }, func(k int) float64 { return upper[k] }, ch.y, `fill="`+partColor(names[i], 0)+`"`)
		ch.c.end()
	}
	busy := &layers[0]
	ch.c.series("busy range")
	for _, v := range [][]float64{busy.Min, busy.Max} {
		ch.stepLine(busy, func(k int) float64 { return v[k] }, ch.y, `stroke="#3a1c00" stroke-width="0.6" stroke-opacity="0.55"`)
	}
	ch.c.end()
	for i := range levels {
		b := &levels[i]
		col := levelCols[i%len(levelCols)]
		ch.c.series(lnames[i] + " on")
		ch.stepBand(b, func(k int) float64 { return b.Min[k] }, func(k int) float64 { return b.Max[k] }, ch.y2, `fill="`+col+`" fill-opacity="0.12"`)
		ch.stepLine(b, func(k int) float64 { return b.Mean[k] }, ch.y2, `stroke="`+col+`" stroke-width="1.1"`)
		ch.c.end()
	}
	if m := &res.Metrics; m.Windowed {
		ch.windowEdges(m.AccountFrom, m.AccountTo)
	}
	return ch.finish()
}

// withStates are the runs that have a state series.
func withStates(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if r.Result.Err == nil && hasStates(r) {
			out = append(out, r)
		}
	}
	return out
}

// UtilizationSVG draws each run's utilization per day (the share of node
// time allocated to jobs), all runs on one chart; with more days than
// pixel columns, each column keeps its first, lowest, highest and last day.
func UtilizationSVG(runs []Run) []byte {
	ch := &chart{kind: "utilization", title: "Utilization per day"}
	rs := withStates(runs)
	if len(rs) == 0 {
		ch.noData = noStates
		ch.begin()
		return ch.finish()
	}
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		a, b := span(r)
		x0, x1 = math.Min(x0, a), math.Max(x1, b)
	}
	days := max(1, int(math.Ceil((x1-x0)/86400-1e-9)))
	var g groups
	for _, r := range rs {
		ss := statesOf(r)
		_, end := span(r)
		b := binColumns(ss, []int{column(ss, "busy")}, end, x0, x0+float64(days)*86400, days)[0]
		var xs, ys []float64
		for k := range days {
			if b.Covered[k] > 0 {
				xs = append(xs, x0+(float64(k)+0.5)*86400)
				ys = append(ys, 100*b.Mean[k]/float64(max(1, r.Result.Metrics.Nodes)))
			}
		}
		g.add(r.Label, xs, ys)
	}
	for i, l := range g.labels {
		ch.legend = append(ch.legend, runLegend(i, l))
	}
	ch.nSeries = len(g.labels)
	ch.y = scale{lo: 0, hi: 100}
	ch.yLabel = "utilization, % of node time"
	daysAxis(ch, rs[0].Result, x0, x0+float64(days)*86400)
	ch.begin()
	for i, l := range g.labels {
		ch.c.series(l)
		ch.polyline(g.xs[i], g.ys[i], ch.y, runStroke(i)+` stroke-width="1.3" stroke-opacity="0.85"`)
		ch.c.end()
	}
	return ch.finish()
}

// groups gathers the runs of a chart that would draw the very same line:
// one line, named after all of them ("a = b"), so that no run hides
// another.
type groups struct {
	labels []string
	xs, ys [][]float64
}

func (g *groups) add(label string, xs, ys []float64) {
	for i := range g.labels {
		if slices.Equal(g.xs[i], xs) && slices.Equal(g.ys[i], ys) {
			g.labels[i] += " = " + label
			return
		}
	}
	g.labels, g.xs, g.ys = append(g.labels, label), append(g.xs, xs), append(g.ys, ys)
}

// waitTicks label the wait axis (minutes, log scale).
var waitTicks = []tick{{0, "0"}, {1, "1 min"}, {10, "10 min"}, {60, "1 h"}, {600, "10 h"}, {1440, "1 d"}, {14400, "10 d"}, {144000, "100 d"}}

// WaitsSVG draws the distribution (CDF) of the jobs' waits of every run
// that kept its jobs, on a logarithmic axis of minutes; runs with the same
// waits share a curve.
func WaitsSVG(runs []Run) []byte {
	ch := &chart{kind: "waits", title: "Waiting times: share of jobs that waited at most x"}
	// Runs whose jobs waited exactly alike share one curve.
	var g groups
	hi := 1.0
	for _, r := range runs {
		jobs, waits := r.Result.Jobs, r.Result.Waits
		if r.Result.Err != nil || len(jobs) == 0 && len(waits) == 0 {
			continue
		}
		var w []float64
		if len(jobs) > 0 {
			w = make([]float64, len(jobs))
			for i, j := range jobs {
				w[i] = math.Max(0, j.Start-j.Submit) / 60
			}
		} else {
			w = make([]float64, len(waits))
			for i, x := range waits {
				w[i] = math.Max(0, x) / 60
			}
		}
		slices.Sort(w)
		hi = math.Max(hi, w[len(w)-1])
		g.add(r.Label, w, nil)
	}
	labels, waits := g.labels, g.xs
	if len(waits) == 0 {
		ch.noData = "no per-job records for these runs"
		ch.begin()
		return ch.finish()
	}
	for i, l := range labels {
		ch.legend = append(ch.legend, runLegend(i, l))
	}
	ch.nSeries = len(waits)
	top := 1.0
	for _, t := range waitTicks {
		if t.v > 0 {
			top = t.v
			if t.v >= hi {
				break
			}
		}
	}
	ch.x = scale{lo: 0, hi: math.Max(top, hi), log: true}
	for _, t := range waitTicks {
		if t.v <= ch.x.hi {
			ch.xTicks = append(ch.xTicks, t)
		}
	}
	ch.y = scale{lo: 0, hi: 100}
	ch.yLabel = "jobs, %"
	ch.xLabel = "wait (start − submit), logarithmic"
	ch.begin()
	for i, w := range waits {
		xs := make([]float64, 0, 2*len(w))
		ys := make([]float64, 0, 2*len(w))
		total := float64(len(w))
		for k := 0; k < len(w); {
			j := k // w[k..j] are one distinct wait: the CDF steps up there
			for j+1 < len(w) && w[j+1] == w[k] {
				j++
			}
			xs, ys = append(xs, w[k], w[k]), append(ys, 100*float64(k)/total, 100*float64(j+1)/total)
			k = j + 1
		}
		ch.c.series(labels[i])
		ch.polyline(xs, ys, ch.y, runStroke(i)+` stroke-width="1.6"`)
		ch.c.end()
	}
	return ch.finish()
}

// HoursSVG draws each run's mean power by local hour of day.
func HoursSVG(runs []Run) []byte {
	ch := &chart{kind: "hours", title: "Mean power by local hour of day"}
	var rs []Run
	top := 0.0
	for _, r := range runs {
		if r.Result.Err != nil {
			continue
		}
		rs = append(rs, r)
		for _, h := range r.Result.Metrics.Hours {
			if h.Seconds > 0 {
				top = math.Max(top, h.Energy/h.Seconds)
			}
		}
	}
	if len(rs) == 0 {
		ch.noData = "no successful runs"
		ch.begin()
		return ch.finish()
	}
	div, unit := powerUnit(top)
	var g groups
	for _, r := range rs {
		var xs, ys []float64
		for h, st := range r.Result.Metrics.Hours {
			if st.Seconds > 0 {
				xs, ys = append(xs, float64(h)), append(ys, st.Energy/st.Seconds/div)
			}
		}
		g.add(r.Label, xs, ys)
	}
	for i, l := range g.labels {
		ch.legend = append(ch.legend, runLegend(i, l))
	}
	ch.nSeries = len(g.labels)
	ch.x = scale{lo: 0, hi: 24}
	for h := 0; h <= 24; h += 3 {
		ch.xTicks = append(ch.xTicks, tick{float64(h), fmtNum(float64(h)) + ":00"})
	}
	ch.y = scale{lo: 0, hi: niceMax(top / div)}
	ch.yLabel = "mean power, " + unit
	ch.xLabel = "local hour of day (the trace's time zone)"
	ch.begin()
	for i, l := range g.labels {
		var p path
		for k, h := range g.xs[i] {
			if k > 0 && g.xs[i][k-1] != h-1 {
				p.to(math.NaN(), 0) // an hour the run never saw
			}
			p.to(ch.x.px(h), ch.y.px(g.ys[i][k]))
			p.to(ch.x.px(h+1), ch.y.px(g.ys[i][k]))
		}
		ch.c.series(l)
		ch.c.path(&p, `fill="none" stroke="`+runColor(i)+`" stroke-width="1.8"`)
		ch.c.end()
	}
	return ch.finish()
}

// bootsPerDay counts a run's node boots per day from its state series:
// where the nodes down (off or shutting down) fall from one row to the
// next, that many switched on (an instant that switched some nodes off
// and booted others would show only the difference; the engine does not
// make such instants under a shutdown, the runs this is drawn for). Day
// k is [x0 + k·86400, x0 + (k+1)·86400).
func bootsPerDay(ss States, x0 float64, days int) []float64 {
	off, shut := column(ss, "off"), column(ss, "shutting_down")
	out := make([]float64, days)
	first, prev := true, 0.0
	for t, row := range ss.Rows() {
		down := row[off]
		if shut >= 0 {
			down += row[shut]
		}
		if !first && down < prev {
			if k := int((t - x0) / 86400); k >= 0 && k < days {
				out[k] += prev - down
			}
		}
		first, prev = false, down
	}
	return out
}

// BootsSVG draws the nodes switched on per day by each run whose nodes
// may switch off, all on one chart (runs with the same boots share a
// line); nil when no run's nodes switch off.
func BootsSVG(runs []Run) []byte {
	var rs []Run
	for _, r := range withStates(runs) {
		if r.Result.Metrics.HasBoots && column(statesOf(r), "off") >= 0 {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	ch := &chart{kind: "boots", title: "Node power cycles: nodes switched on per day"}
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		a, b := span(r)
		x0, x1 = math.Min(x0, a), math.Max(x1, b)
	}
	days := max(1, int(math.Ceil((x1-x0)/86400-1e-9)))
	var g groups
	top := 1.0
	for _, r := range rs {
		per := bootsPerDay(statesOf(r), x0, days)
		xs := make([]float64, days)
		for k := range xs {
			xs[k] = x0 + (float64(k)+0.5)*86400
			top = math.Max(top, per[k])
		}
		g.add(r.Label, xs, per)
	}
	for i, l := range g.labels {
		ch.legend = append(ch.legend, runLegend(i, l))
	}
	ch.nSeries = len(g.labels)
	ch.y = scale{lo: 0, hi: niceMax(top)}
	ch.yLabel = "nodes switched on per day"
	daysAxis(ch, rs[0].Result, x0, x0+float64(days)*86400)
	ch.begin()
	for i, l := range g.labels {
		ch.c.series(l)
		ch.polyline(g.xs[i], g.ys[i], ch.y, runStroke(i)+` stroke-width="1.3" stroke-opacity="0.85"`)
		ch.c.end()
	}
	return ch.finish()
}
