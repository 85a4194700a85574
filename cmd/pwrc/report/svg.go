package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
)

// fontFamily is a list of fonts every desktop has one of; nothing is
// loaded from anywhere, so the SVG is self-contained.
const fontFamily = "DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif"

// canvas writes one SVG document. Coordinates are rounded to 0.01 px and
// written without exponents, so the same drawing gives the same bytes.
type canvas struct {
	b    bytes.Buffer
	w, h float64
}

func newCanvas(w, h float64, kind string, series int, title string) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-plot="%s" data-series="%d" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="12" role="img">`,
		kind, series, n(w), n(h), n(w), n(h), fontFamily)
	fmt.Fprintf(&c.b, "\n<title>%s</title>\n", esc(title))
	c.rect(0, 0, w, h, `fill="#ffffff"`)
	return c
}

// bytes ends the document.
func (c *canvas) bytes() []byte {
	c.b.WriteString("</svg>\n")
	return c.b.Bytes()
}

// n formats a coordinate or value: at most 2 decimals, no trailing zeros,
// no negative zero.
func n(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func esc(s string) string { return html.EscapeString(s) }

func (c *canvas) rect(x, y, w, h float64, attrs string) {
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" %s/>`+"\n", n(x), n(y), n(math.Max(0, w)), n(math.Max(0, h)), attrs)
}

func (c *canvas) line(x1, y1, x2, y2 float64, attrs string) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", n(x1), n(y1), n(x2), n(y2), attrs)
}

// text writes s at (x, y); anchor is start, middle or end.
func (c *canvas) text(x, y float64, anchor, s, attrs string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" text-anchor="%s" %s>%s</text>`+"\n", n(x), n(y), anchor, attrs, esc(s))
}

// path is an SVG path's data built from points; NaN points break it.
type path struct {
	b    []byte
	pen  bool
	last [2]string
}

func (p *path) to(x, y float64) {
	if math.IsNaN(x) || math.IsNaN(y) {
		p.pen = false
		return
	}
	xs, ys := n(x), n(y)
	if p.pen && xs == p.last[0] && ys == p.last[1] {
		return
	}
	cmd := byte('L')
	if !p.pen {
		cmd = 'M'
	}
	if len(p.b) > 0 {
		p.b = append(p.b, ' ')
	}
	p.b = append(p.b, cmd)
	p.b = append(p.b, xs...)
	p.b = append(p.b, ',')
	p.b = append(p.b, ys...)
	p.pen, p.last = true, [2]string{xs, ys}
}

func (p *path) close() {
	if p.pen {
		p.b = append(p.b, " Z"...)
		p.pen = false
	}
}

func (p *path) empty() bool { return len(p.b) == 0 }

func (c *canvas) path(p *path, attrs string) {
	if p.empty() {
		return
	}
	fmt.Fprintf(&c.b, `<path d="%s" %s/>`+"\n", p.b, attrs)
}

// group opens a <g> for one series, which the browser test counts.
func (c *canvas) series(name string) {
	fmt.Fprintf(&c.b, `<g class="series" data-name="%s">`+"\n", esc(name))
}

func (c *canvas) end() { c.b.WriteString("</g>\n") }
