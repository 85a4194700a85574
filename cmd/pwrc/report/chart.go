package report

import (
	"math"
	"strings"

	"github.com/pwrc/pwrc/internal/numfmt"
)

// Plot geometry, px.
const (
	plotW     = 900 // whole figure
	plotH     = 300 // plot area height
	marginL   = 70
	marginR   = 70
	marginB   = 44
	charW     = 6.8 // mean glyph width at 12 px, to lay out legends
	legendRow = 17
	panelGap  = 10 // between the plot area and a panel under it
	stripFoot = 18 // under an overview strip: its caption
)

// scale maps data values to pixels; log scales (for waits) map log10(1+v).
type scale struct {
	lo, hi float64
	log    bool
	a, b   float64 // pixel range
}

func (s scale) f(v float64) float64 {
	if s.log {
		return math.Log10(1 + math.Max(0, v))
	}
	return v
}

func (s scale) px(v float64) float64 {
	lo, hi := s.f(s.lo), s.f(s.hi)
	if hi == lo {
		return (s.a + s.b) / 2
	}
	return s.a + (s.f(v)-lo)/(hi-lo)*(s.b-s.a)
}

type legendItem struct {
	name, color string
	kind        string // box, line, hair, thin, dash, band
	dash        string // a line's dashes, if any
}

// chart is one figure: a title, a legend, a plot area with a left and
// optionally a right axis.
type chart struct {
	c            *canvas
	px, py       float64 // plot area's top left
	pw, ph       float64
	x, y, y2     scale
	hasY2        bool
	legend       []legendItem
	xLabel       string
	yLabel       string
	y2Label      string
	kind, title  string
	nSeries      int
	noData       string
	xTicks       []tick // if set, instead of nice ticks
	yFmt, y2Fmt  func(float64) string
	xFmt         func(float64) string
	categoricalX bool
	// A time chart keeps the right margin whether or not it has a right
	// axis, so that its plot area is one pixel per time bin and the time
	// charts of a run line up.
	time bool
	// panelH, if not 0, is a panel under the plot area that shares its
	// x axis, on the y2 scale with its ticks on the left (the price);
	// stripH an overview strip under the x axis's label.
	panelH, stripH float64
	panelY, stripY float64
	panelLabel     string
}

type tick struct {
	v     float64
	label string
}

// legendRows lays the legend out in rows that fit the figure; an item too
// long for a row (runs that share a line: "a = b = c") takes a row of its
// own, wrapped after its " = ".
func legendRows(items []legendItem, width float64) [][]legendItem {
	var rows [][]legendItem
	var row []legendItem
	used := 0.0
	for _, it := range items {
		w := 26 + charW*float64(len([]rune(it.name))) + 14
		if w > width {
			if len(row) > 0 {
				rows = append(rows, row)
				row, used = nil, 0
			}
			for _, line := range wrap(it.name, int((width-40)/charW)) {
				rows = append(rows, []legendItem{{line, it.color, it.kind, it.dash}})
				it.kind = "none" // the swatch once, on the first line
			}
			continue
		}
		if len(row) > 0 && used+w > width {
			rows = append(rows, row)
			row, used = nil, 0
		}
		row = append(row, it)
		used += w
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	return rows
}

// wrap breaks s into lines of at most width runes, after " = " where it
// can, else after a space.
func wrap(s string, width int) []string {
	var lines []string
	for len([]rune(s)) > width {
		r := []rune(s)
		cut := strings.LastIndex(string(r[:width]), " = ")
		if cut > 0 {
			cut += len(" =")
		} else if cut = strings.LastIndex(string(r[:width]), " "); cut <= 0 {
			cut = len(string(r[:width]))
		}
		lines = append(lines, strings.TrimSpace(s[:cut]))
		s = strings.TrimSpace(s[cut:])
	}
	return append(lines, s)
}

// begin opens the figure: it sizes it for the legend and draws the title,
// the legend, the grid and the axes; series are drawn next, then finish.
func (ch *chart) begin() {
	rows := legendRows(ch.legend, plotW-marginL-marginR+40)
	top := 30.0 + float64(len(rows))*legendRow + 8
	right := 20.0
	if ch.hasY2 || ch.time {
		right = marginR
	}
	ch.px, ch.py = marginL, top
	ch.pw, ch.ph = plotW-marginL-right, plotH
	axisY := ch.py + ch.ph // where the x axis's ticks hang
	if ch.panelH > 0 {
		ch.panelY = axisY + panelGap
		axisY = ch.panelY + ch.panelH
	}
	height := axisY + marginB
	if ch.stripH > 0 {
		ch.stripY = height + 6
		height = ch.stripY + ch.stripH + stripFoot
	}
	ch.c = newCanvas(plotW, height, ch.kind, ch.nSeries, ch.title)
	c := ch.c
	c.text(marginL, 19, "start", ch.title, `font-size="15" font-weight="bold" fill="#222"`)
	for r, row := range rows {
		x := marginL - 10.0
		y := 30 + float64(r)*legendRow + 10
		for _, it := range row {
			switch it.kind {
			case "none": // a wrapped item's next line
			case "line":
				dash := ""
				if it.dash != "" {
					dash = ` stroke-dasharray="` + it.dash + `"`
				}
				c.line(x, y-4, x+20, y-4, `stroke="`+it.color+`" stroke-width="2.5"`+dash)
			case "hair":
				c.line(x, y-4, x+20, y-4, `stroke="`+it.color+`" stroke-width="1"`)
			case "thin":
				c.line(x, y-7, x+20, y-7, `stroke="`+it.color+`" stroke-width="0.8"`)
				c.line(x, y-1, x+20, y-1, `stroke="`+it.color+`" stroke-width="0.8"`)
			case "dash":
				c.line(x, y-4, x+20, y-4, `stroke="`+it.color+`" stroke-width="2" stroke-dasharray="5,3"`)
			case "band":
				c.rect(x, y-10, 20, 12, `fill="`+it.color+`" fill-opacity="0.3"`)
			default:
				c.rect(x, y-10, 20, 12, `fill="`+it.color+`"`)
			}
			c.text(x+26, y, "start", it.name, `fill="#333"`)
			x += 26 + charW*float64(len([]rune(it.name))) + 14
		}
	}
	ch.x.a, ch.x.b = ch.px, ch.px+ch.pw
	ch.y.a, ch.y.b = ch.py+ch.ph, ch.py
	ch.y2.a, ch.y2.b = ch.py+ch.ph, ch.py
	if ch.panelH > 0 {
		ch.y2.a, ch.y2.b = ch.panelY+ch.panelH, ch.panelY
	}
	c.rect(ch.px, ch.py, ch.pw, ch.ph, `fill="#fafafa" stroke="#ccc"`)
	if ch.noData != "" {
		c.text(ch.px+ch.pw/2, ch.py+ch.ph/2, "middle", ch.noData, `fill="#888"`)
		return
	}
	if ch.panelH > 0 {
		// The panel first: its tick labels are not the power axis's.
		c.rect(ch.px, ch.panelY, ch.pw, ch.panelH, `fill="#fafafa" stroke="#ccc"`)
		for _, t := range niceTicks(ch.y2.lo, ch.y2.hi, 3) {
			y := ch.y2.px(t)
			c.line(ch.px, y, ch.px+ch.pw, y, `stroke="#e3e3e3"`)
			c.text(ch.px-6, y+4, "end", fmtWith(ch.y2Fmt, t), `fill="#444"`)
		}
		c.text(0, 0, "middle", ch.panelLabel, `fill="#444" transform="translate(16,`+n(ch.panelY+ch.panelH/2)+`) rotate(-90)"`)
	}
	// Grid and tick labels.
	for _, t := range ch.yTicks() {
		y := ch.y.px(t.v)
		c.line(ch.px, y, ch.px+ch.pw, y, `stroke="#e3e3e3"`)
		c.text(ch.px-6, y+4, "end", t.label, `fill="#444"`)
	}
	for _, t := range ch.xTicksAll() {
		x := ch.x.px(t.v)
		if !ch.categoricalX {
			c.line(x, ch.py, x, ch.py+ch.ph, `stroke="#e3e3e3"`)
			if ch.panelH > 0 {
				c.line(x, ch.panelY, x, ch.panelY+ch.panelH, `stroke="#e3e3e3"`)
			}
		}
		c.line(x, axisY, x, axisY+4, `stroke="#888"`)
		c.text(x, axisY+17, "middle", t.label, `fill="#444"`)
	}
	if ch.hasY2 {
		for _, t := range niceTicks(ch.y2.lo, ch.y2.hi, 6) {
			y := ch.y2.px(t)
			c.line(ch.px+ch.pw, y, ch.px+ch.pw+4, y, `stroke="#888"`)
			c.text(ch.px+ch.pw+7, y+4, "start", fmtWith(ch.y2Fmt, t), `fill="#444"`)
		}
		c.text(0, 0, "middle", ch.y2Label, `fill="#444" transform="translate(`+n(plotW-12)+`,`+n(ch.py+ch.ph/2)+`) rotate(90)"`)
	}
	c.text(ch.px+ch.pw/2, axisY+36, "middle", ch.xLabel, `fill="#444"`)
	c.text(0, 0, "middle", ch.yLabel, `fill="#444" transform="translate(16,`+n(ch.py+ch.ph/2)+`) rotate(-90)"`)
}

func (ch *chart) yTicks() []tick {
	var out []tick
	for _, v := range niceTicks(ch.y.lo, ch.y.hi, 6) {
		out = append(out, tick{v, fmtWith(ch.yFmt, v)})
	}
	return out
}

func (ch *chart) xTicksAll() []tick {
	if ch.xTicks != nil {
		return ch.xTicks
	}
	var out []tick
	for _, v := range niceTicks(ch.x.lo, ch.x.hi, 9) {
		out = append(out, tick{v, fmtWith(ch.xFmt, v)})
	}
	return out
}

// finish draws the frames over the series and returns the SVG.
func (ch *chart) finish() []byte {
	ch.c.rect(ch.px, ch.py, ch.pw, ch.ph, `fill="none" stroke="#999"`)
	if ch.panelH > 0 && ch.noData == "" {
		ch.c.rect(ch.px, ch.panelY, ch.pw, ch.panelH, `fill="none" stroke="#999"`)
	}
	return ch.c.bytes()
}

func fmtWith(f func(float64) string, v float64) string {
	if f != nil {
		return f(v)
	}
	return fmtNum(v)
}

// fmtNum writes a tick value: thousands separators, few decimals.
func fmtNum(v float64) string {
	a := math.Abs(v)
	d := 0
	switch {
	case a == 0:
	case a < 0.01:
		d = 4
	case a < 0.1:
		d = 3
	case a < 1:
		d = 2
	case a < 10:
		d = 1
	}
	s := numfmt.Fixed(v, d)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return numfmt.Group(s)
}

// niceTicks returns round values (1, 2, 2.5 or 5 × 10^k apart) in [lo, hi].
func niceTicks(lo, hi float64, want int) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(max(1, want))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

// niceMax rounds a data maximum up to the next tick, for an axis's top.
func niceMax(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	t := niceTicks(0, v, 6)
	step := v
	if len(t) > 1 {
		step = t[1] - t[0]
	}
	return math.Ceil(v/step-1e-9) * step
}

// niceMin rounds a data minimum (≤ 0) down to a tick.
func niceMin(v, top float64) float64 {
	if v >= 0 {
		return 0
	}
	t := niceTicks(v, top, 6)
	step := -v
	if len(t) > 1 {
		step = t[1] - t[0]
	}
	return math.Floor(v/step+1e-9) * step
}

// stepBand draws bins as a step band between lower and upper values per
// bin (a filled polygon), skipping bins that are not covered.
func (ch *chart) stepBand(b *Bins, lower, upper func(i int) float64, ys scale, attrs string) {
	var p path
	i := 0
	for i < b.N() {
		for i < b.N() && b.Covered[i] == 0 {
			i++
		}
		j := i
		for j < b.N() && b.Covered[j] > 0 {
			j++
		}
		if j > i {
			for k := i; k < j; k++ {
				p.to(ch.x.px(b.Edge(k)), ys.px(upper(k)))
				p.to(ch.x.px(b.Edge(k+1)), ys.px(upper(k)))
			}
			for k := j - 1; k >= i; k-- {
				p.to(ch.x.px(b.Edge(k+1)), ys.px(lower(k)))
				p.to(ch.x.px(b.Edge(k)), ys.px(lower(k)))
			}
			p.close()
		}
		i = j
	}
	ch.c.path(&p, attrs)
}

// stepLine draws a step line through the bins' values.
func (ch *chart) stepLine(b *Bins, val func(i int) float64, ys scale, attrs string) {
	var p path
	for k := range b.N() {
		if b.Covered[k] == 0 {
			p.to(math.NaN(), 0)
			continue
		}
		p.to(ch.x.px(b.Edge(k)), ys.px(val(k)))
		p.to(ch.x.px(b.Edge(k+1)), ys.px(val(k)))
	}
	ch.c.path(&p, `fill="none" `+attrs)
}

// polyline draws points, downsampled to four per pixel column.
func (ch *chart) polyline(xs, ys []float64, s scale, attrs string) {
	px := make([]float64, len(xs))
	for i, x := range xs {
		px[i] = ch.x.px(x)
	}
	py := make([]float64, len(ys))
	for i, y := range ys {
		py[i] = s.px(y)
	}
	px, py = m4(px, py, ch.px, ch.px+ch.pw, int(ch.pw))
	var p path
	for i := range px {
		p.to(px[i], py[i])
	}
	ch.c.path(&p, `fill="none" `+attrs)
}
