package report

import (
	"math"

	"github.com/pwrc/pwrc/internal/numfmt"
)

// hbars is a horizontal bar chart: one bar per run, stacked by part.
type hbars struct {
	kind, title, unit string
	rows              []string    // run labels, top to bottom
	parts             []string    // stack order, left to right
	colors            []string    // per part
	values            [][]float64 // [row][part]
	notes             []string    // per row, written after the bar ("" for none)
	totals            []float64
}

func (h *hbars) svg() []byte {
	labelW := 0.0
	for _, r := range h.rows {
		labelW = math.Max(labelW, charW*float64(len([]rune(r))))
	}
	labelW = math.Min(labelW+16, 320)
	var legend []legendItem
	for i, p := range h.parts {
		legend = append(legend, legendItem{p, h.colors[i], "box", ""})
	}
	left := math.Max(marginL, labelW)
	right := 90.0 // room for the notes after the bars
	lrows := legendRows(legend, plotW-marginL-right)
	if len(h.parts) == 1 {
		lrows = nil // one part: the title says what it is
	}
	top := 30.0 + float64(len(lrows))*legendRow + 8
	const barH, gap = 18.0, 8.0
	ph := float64(len(h.rows))*(barH+gap) + gap
	c := newCanvas(plotW, top+ph+marginB, h.kind, len(h.parts), h.title)
	c.text(marginL, 19, "start", h.title, `font-size="15" font-weight="bold" fill="#222"`)
	for r, row := range lrows {
		x := marginL - 10.0
		y := 30 + float64(r)*legendRow + 10
		for _, it := range row {
			c.rect(x, y-10, 20, 12, `fill="`+it.color+`"`)
			c.text(x+26, y, "start", it.name, `fill="#333"`)
			x += 26 + charW*float64(len([]rune(it.name))) + 14
		}
	}
	// The axis covers every bar's negative and positive sums.
	lo, hi := 0.0, 0.0
	for _, vs := range h.values {
		var neg, pos float64
		for _, v := range vs {
			if v < 0 {
				neg += v
			} else {
				pos += v
			}
		}
		lo, hi = math.Min(lo, neg), math.Max(hi, pos)
	}
	if hi == 0 && lo == 0 {
		hi = 1
	}
	hiN := niceMax(hi)
	if hi <= 0 {
		hiN = 0
	}
	x := scale{lo: niceMin(lo, hiN), hi: hiN, a: left, b: plotW - right}
	pw := x.b - x.a
	c.rect(left, top, pw, ph, `fill="#fafafa" stroke="#ccc"`)
	for _, t := range niceTicks(x.lo, x.hi, 7) {
		px := x.px(t)
		c.line(px, top, px, top+ph, `stroke="#e3e3e3"`)
		c.line(px, top+ph, px, top+ph+4, `stroke="#888"`)
		c.text(px, top+ph+17, "middle", fmtNum(t), `fill="#444"`)
	}
	c.text(left+pw/2, top+ph+36, "middle", h.unit, `fill="#444"`)
	for r, label := range h.rows {
		y := top + gap + float64(r)*(barH+gap)
		c.text(left-8, y+barH/2+4, "end", label, `fill="#333"`)
	}
	for p, part := range h.parts {
		c.series(part)
		for r := range h.rows {
			y := top + gap + float64(r)*(barH+gap)
			// Where this part starts: after the earlier parts of its sign.
			var before float64
			v := h.values[r][p]
			for q := range p {
				if w := h.values[r][q]; (w < 0) == (v < 0) {
					before += w
				}
			}
			a, b := x.px(before), x.px(before+v)
			if b < a {
				a, b = b, a
			}
			if b-a > 0 {
				c.rect(a, y, b-a, barH, `fill="`+h.colors[p]+`"`)
			}
		}
		c.end()
	}
	if x.lo < 0 {
		c.line(x.px(0), top, x.px(0), top+ph, `stroke="#555"`)
	}
	for r := range h.rows {
		if r < len(h.notes) && h.notes[r] != "" {
			y := top + gap + float64(r)*(barH+gap)
			var pos float64
			for _, v := range h.values[r] {
				if v > 0 {
					pos += v
				}
			}
			c.text(x.px(pos)+5, y+barH/2+4, "start", h.notes[r], `fill="#333"`)
		}
	}
	c.rect(left, top, pw, ph, `fill="none" stroke="#999"`)
	return c.bytes()
}

// okRuns are the runs that succeeded.
func okRuns(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if r.Result.Err == nil {
			out = append(out, r)
		}
	}
	return out
}

// partsSVG draws energy (or cost) by component per run, stacked bars.
func partsSVG(runs []Run, cost bool) []byte {
	rs := okRuns(runs)
	kind, title, unit := "energy", "Energy by component", "MWh"
	scale := 3.6e9
	if cost {
		kind, title = "cost", "Cost by component"
		scale, unit = 1, currency("")
		if len(rs) > 0 {
			unit = currency(rs[0].Result.Metrics.Currency)
		}
	}
	h := &hbars{kind: kind, title: title, unit: unit}
	// Parts in component order, only those any run has a share of.
	seen := map[string]bool{}
	for _, r := range rs {
		m := &r.Result.Metrics
		for i, name := range m.Components {
			if !seen[name] && (m.EnergyBy[i] != 0 || m.CostBy[i] != 0) {
				seen[name] = true
				h.parts = append(h.parts, name)
				h.colors = append(h.colors, partColor(name, len(h.parts)))
			}
		}
	}
	if cost && len(rs) > 0 {
		s, u := moneyScale(rs)
		scale, h.unit = s, u
	}
	for _, r := range rs {
		m := &r.Result.Metrics
		vs := make([]float64, len(h.parts))
		for i, name := range m.Components {
			for p, part := range h.parts {
				if part == name {
					if cost {
						vs[p] += m.CostBy[i] / scale
					} else {
						vs[p] += m.EnergyBy[i] / scale
					}
				}
			}
		}
		total := m.Energy / scale
		if cost {
			total = m.Cost / scale
		}
		h.rows = append(h.rows, r.Label)
		h.values = append(h.values, vs)
		h.totals = append(h.totals, total)
	}
	big := 0.0
	for _, v := range h.totals {
		big = math.Max(big, math.Abs(v))
	}
	for _, v := range h.totals {
		h.notes = append(h.notes, decimals(v, tableDecimals(big)))
	}
	return h.svg()
}

// moneyScale picks the currency or thousands of it, as the tables do.
func moneyScale(rs []Run) (float64, string) {
	big := 0.0
	for _, r := range rs {
		big = math.Max(big, math.Abs(r.Result.Metrics.Cost))
	}
	cur := currency(rs[0].Result.Metrics.Currency)
	if big >= 10000 {
		return 1000, "k" + cur
	}
	return 1, cur
}

// tableDecimals are the decimals pwrc's tables give a column whose largest
// value is big: three or four significant digits.
func tableDecimals(big float64) int {
	switch {
	case big >= 1000:
		return 0
	case big >= 100:
		return 1
	case big >= 1:
		return 2
	}
	return 3
}

// decimals writes v with d decimals and thousands separators.
func decimals(v float64, d int) string { return numfmt.Thousands(v, d) }

// EnergySVG draws the energy by component of each run, stacked bars.
func EnergySVG(runs []Run) []byte { return partsSVG(runs, false) }

// CostSVG draws the cost by component of each run, stacked bars.
func CostSVG(runs []Run) []byte { return partsSVG(runs, true) }

// SavingsSVG draws each run's saving against its baseline (the baseline's
// cost minus its own; negative: it costs more), with the saving in %.
func SavingsSVG(runs []Run) []byte {
	var rs []Run
	for _, r := range okRuns(runs) {
		if r.Result.Metrics.HasSaving {
			rs = append(rs, r)
		}
	}
	h := &hbars{kind: "savings", title: "Saving against the baseline", parts: []string{"saving", "extra cost"}, colors: []string{"#2a9d5c", "#c0392b"}}
	if len(rs) == 0 {
		h.unit = "no baseline"
		return h.svg()
	}
	scale, unit := moneyScale(rs)
	h.unit = unit + " (the baseline's cost minus the run's)"
	for _, r := range rs {
		m := &r.Result.Metrics
		h.rows = append(h.rows, r.Label)
		h.values = append(h.values, []float64{math.Max(0, m.Saving/scale), math.Min(0, m.Saving/scale)})
		h.notes = append(h.notes, numfmt.Fixed(m.SavingPct, 1)+" %")
	}
	return h.svg()
}
