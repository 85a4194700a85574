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
// A sub-path starts at an absolute point (M); each next point is written
// relative to the last, as rounded (so no error accumulates), as a
// horizontal (h) or vertical (v) move where it is one, and successive
// moves the same way merge: a step line over a pixel column is a few
// bytes, not two absolute points.
type path struct {
	b    []byte
	pen  bool
	x, y float64 // the last point, rounded
	cmd  byte    // the last command written: 'h' or 'v' may grow
	at   int     // where its value starts in b
	run  float64 // its value so far
}

// r2 rounds to 0.01.
func r2(v float64) float64 { return math.Round(v*100) / 100 }

func (p *path) to(x, y float64) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		p.pen = false
		return
	}
	x, y = r2(x), r2(y)
	if !p.pen {
		if len(p.b) > 0 {
			p.b = append(p.b, ' ')
		}
		p.b = append(p.b, 'M')
		p.b = append(p.b, n(x)...)
		p.b = append(p.b, ',')
		p.b = append(p.b, n(y)...)
		p.pen, p.x, p.y, p.cmd = true, x, y, 'M'
		return
	}
	dx, dy := r2(x-p.x), r2(y-p.y)
	p.x, p.y = x, y
	switch {
	case dx == 0 && dy == 0:
		return
	case dy == 0:
		p.line('h', dx)
	case dx == 0:
		p.line('v', dy)
	default:
		p.b = append(p.b, 'l')
		p.b = append(p.b, n(dx)...)
		p.b = append(p.b, ',')
		p.b = append(p.b, n(dy)...)
		p.cmd = 'l'
	}
}

// line writes a horizontal or vertical move, merged into the last one if
// that went the same way in the same direction.
func (p *path) line(cmd byte, d float64) {
	if p.cmd == cmd && (p.run > 0) == (d > 0) {
		p.run = r2(p.run + d)
		p.b = append(p.b[:p.at], n(p.run)...)
		return
	}
	p.b = append(p.b, cmd)
	p.cmd, p.at, p.run = cmd, len(p.b), d
	p.b = append(p.b, n(d)...)
}

func (p *path) close() {
	if p.pen {
		p.b = append(p.b, 'z')
		p.pen, p.cmd = false, 'z'
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

// pathPoints reads back the path data this package writes (M, and the
// relative l, h, v, z; absolute L, H, V and Z too): each sub-path as its
// points, and whether it was closed.
func pathPoints(d string) (subs [][][2]float64, closed []bool) {
	var cur [][2]float64
	var x, y float64
	i := 0
	num := func() float64 {
		for i < len(d) && (d[i] == ' ' || d[i] == ',') {
			i++
		}
		j := i
		for j < len(d) && (d[j] == '-' || d[j] == '.' || d[j] >= '0' && d[j] <= '9' || d[j] == 'e') {
			j++
		}
		v, _ := strconv.ParseFloat(d[i:j], 64)
		i = j
		return v
	}
	flush := func(c bool) {
		if len(cur) > 0 {
			subs, closed = append(subs, cur), append(closed, c)
		}
		cur = nil
	}
	for i < len(d) {
		c := d[i]
		i++
		switch c {
		case 'M':
			flush(false)
			x = num()
			y = num()
		case 'L':
			x = num()
			y = num()
		case 'l':
			x += num()
			y += num()
		case 'H':
			x = num()
		case 'h':
			x += num()
		case 'V':
			y = num()
		case 'v':
			y += num()
		case 'Z', 'z':
			if len(cur) > 0 {
				x, y = cur[0][0], cur[0][1]
			}
			flush(true)
			continue
		default:
			continue
		}
		cur = append(cur, [2]float64{r2(x), r2(y)})
	}
	flush(false)
	return subs, closed
}

func (c *canvas) circle(x, y, r float64, attrs string) {
	fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="%s" %s/>`+"\n", n(x), n(y), n(r), attrs)
}
