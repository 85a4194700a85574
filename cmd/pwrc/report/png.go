package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// pngScale renders figures at twice their size, for print.
const pngScale = 2

// PNG renders a figure of this package as a PNG image, at twice its size.
// It reads the SVG this package writes — rectangles, lines, paths of
// straight segments, text in the Go fonts, opacities and dashes — not SVG
// in general.
func PNG(svg []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var r *raster
	var text *xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("PNG: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			a := attrs(el)
			if el.Name.Local == "svg" {
				w, h := a.num("width"), a.num("height")
				if !(w > 0 && h > 0 && w < 1e4 && h < 1e4) {
					return nil, errors.New("PNG: the SVG has no size")
				}
				r = newRaster(w, h)
				continue
			}
			if r == nil {
				return nil, errors.New("PNG: not an SVG")
			}
			switch el.Name.Local {
			case "rect":
				r.rect(a)
			case "line":
				r.line(a)
			case "path":
				r.path(a)
			case "text":
				e := el.Copy()
				text = &e
			}
		case xml.CharData:
			if text != nil {
				if err := r.text(attrs(*text), string(el)); err != nil {
					return nil, err
				}
				text = nil
			}
		case xml.EndElement:
			text = nil
		}
	}
	if r == nil {
		return nil, errors.New("PNG: not an SVG")
	}
	var b bytes.Buffer
	if err := png.Encode(&b, r.img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type attrMap map[string]string

func attrs(el xml.StartElement) attrMap {
	m := attrMap{}
	for _, a := range el.Attr {
		m[a.Name.Local] = a.Value
	}
	return m
}

func (a attrMap) num(k string) float64 {
	v, err := strconv.ParseFloat(a[k], 64)
	if err != nil {
		return 0
	}
	return v
}

// paint is a's colour k ("fill" or "stroke") with its opacity; ok is
// false for none.
func (a attrMap) paint(k string) (color.NRGBA, bool) {
	s, ok := a[k]
	if !ok && k == "fill" {
		s = "#000000"
	}
	if len(s) == 4 && s[0] == '#' { // #rgb
		s = string([]byte{'#', s[1], s[1], s[2], s[2], s[3], s[3]})
	}
	if len(s) != 7 || s[0] != '#' {
		return color.NRGBA{}, false
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.NRGBA{}, false
	}
	op := 1.0
	if o, ok := a[k+"-opacity"]; ok {
		op, _ = strconv.ParseFloat(o, 64)
	}
	return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), uint8(math.Round(255 * math.Max(0, math.Min(1, op))))}, true
}

type raster struct {
	img *image.RGBA
	z   vector.Rasterizer
}

func newRaster(w, h float64) *raster {
	img := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(w*pngScale)), int(math.Ceil(h*pngScale))))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &raster{img: img}
}

// fill fills polygons (in SVG px) with c, the non-zero rule, rasterizing
// only their bounding box.
func (r *raster) fill(polys [][][2]float64, c color.NRGBA) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range polys {
		for _, q := range p {
			minX, minY = math.Min(minX, q[0]*pngScale), math.Min(minY, q[1]*pngScale)
			maxX, maxY = math.Max(maxX, q[0]*pngScale), math.Max(maxY, q[1]*pngScale)
		}
	}
	box := image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1).Intersect(r.img.Bounds())
	if box.Empty() || c.A == 0 {
		return
	}
	r.z.Reset(box.Dx(), box.Dy())
	r.z.DrawOp = draw.Over
	ox, oy := float32(box.Min.X), float32(box.Min.Y)
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		r.z.MoveTo(float32(p[0][0]*pngScale)-ox, float32(p[0][1]*pngScale)-oy)
		for _, q := range p[1:] {
			r.z.LineTo(float32(q[0]*pngScale)-ox, float32(q[1]*pngScale)-oy)
		}
		r.z.ClosePath()
	}
	r.z.Draw(r.img, box, image.NewUniform(c), box.Min)
}

// stroke draws polylines of width w as one quad per segment, all wound
// alike so that overlaps add up instead of cancelling.
func (r *raster) stroke(lines [][][2]float64, w float64, c color.NRGBA) {
	var quads [][][2]float64
	h := math.Max(w, 0.5) / 2
	for _, l := range lines {
		for i := 1; i < len(l); i++ {
			a, b := l[i-1], l[i]
			dx, dy := b[0]-a[0], b[1]-a[1]
			n := math.Hypot(dx, dy)
			if n == 0 {
				continue
			}
			// Extend by h at both ends, so joints close.
			ex, ey := dx/n*h, dy/n*h
			px, py := -ey, ex
			q := [][2]float64{{a[0] - ex + px, a[1] - ey + py}, {b[0] + ex + px, b[1] + ey + py}, {b[0] + ex - px, b[1] + ey - py}, {a[0] - ex - px, a[1] - ey - py}}
			if signedArea(q) < 0 {
				q[1], q[3] = q[3], q[1]
			}
			quads = append(quads, q)
		}
	}
	if len(quads) > 0 {
		r.fill(quads, c)
	}
}

func signedArea(p [][2]float64) float64 {
	var s float64
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i][0]*p[j][1] - p[j][0]*p[i][1]
	}
	return s / 2
}

func (r *raster) rect(a attrMap) {
	x, y, w, h := a.num("x"), a.num("y"), a.num("width"), a.num("height")
	box := [][2]float64{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}
	if c, ok := a.paint("fill"); ok {
		r.fill([][][2]float64{box}, c)
	}
	if c, ok := a.paint("stroke"); ok {
		sw := a.num("stroke-width")
		if sw == 0 {
			sw = 1
		}
		r.stroke([][][2]float64{append(box, box[0])}, sw, c)
	}
}

func (r *raster) line(a attrMap) {
	c, ok := a.paint("stroke")
	if !ok {
		return
	}
	w := a.num("stroke-width")
	if w == 0 {
		w = 1
	}
	p := [][2]float64{{a.num("x1"), a.num("y1")}, {a.num("x2"), a.num("y2")}}
	r.stroke(dashes(p, a["stroke-dasharray"]), w, c)
}

// dashes cuts a segment into the dashes of an SVG dash array ("6,4").
func dashes(p [][2]float64, spec string) [][][2]float64 {
	var pat []float64
	for f := range strings.SplitSeq(spec, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && v > 0 {
			pat = append(pat, v)
		}
	}
	if len(pat) == 0 {
		return [][][2]float64{p}
	}
	if len(pat)%2 == 1 {
		pat = append(pat, pat...)
	}
	a, b := p[0], p[1]
	n := math.Hypot(b[0]-a[0], b[1]-a[1])
	var out [][][2]float64
	at := func(t float64) [2]float64 { return [2]float64{a[0] + (b[0]-a[0])*t/n, a[1] + (b[1]-a[1])*t/n} }
	for t, i := 0.0, 0; t < n; i++ {
		d := pat[i%len(pat)]
		if i%2 == 0 {
			out = append(out, [][2]float64{at(t), at(math.Min(n, t+d))})
		}
		t += d
	}
	return out
}

func (r *raster) path(a attrMap) {
	subs, closed := pathPoints(a["d"])
	if c, ok := a.paint("fill"); ok && a["fill"] != "none" {
		r.fill(subs, c)
	}
	if c, ok := a.paint("stroke"); ok {
		w := a.num("stroke-width")
		if w == 0 {
			w = 1
		}
		lines := make([][][2]float64, len(subs))
		for i, s := range subs {
			lines[i] = s
			if closed[i] {
				lines[i] = append(s, s[0])
			}
		}
		r.stroke(lines, w, c)
	}
}

var (
	facesMu sync.Mutex
	faces   = map[[2]float64]font.Face{}
)

// face is the Go font (bold or regular) at a size in px, scaled.
func face(size float64, bold bool) (font.Face, error) {
	facesMu.Lock()
	defer facesMu.Unlock()
	k := [2]float64{size, 0}
	if bold {
		k[1] = 1
	}
	if f, ok := faces[k]; ok {
		return f, nil
	}
	ttf := goregular.TTF
	if bold {
		ttf = gobold.TTF
	}
	ft, err := opentype.Parse(ttf)
	if err != nil {
		return nil, err
	}
	f, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: size * pngScale, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	faces[k] = f
	return f, nil
}

var transformRE = regexp.MustCompile(`translate\((-?[0-9.]+),(-?[0-9.]+)\)\s*rotate\((-?[0-9.]+)\)`)

func (r *raster) text(a attrMap, s string) error {
	size := a.num("font-size")
	if size == 0 {
		size = 12
	}
	f, err := face(size, a["font-weight"] == "bold")
	if err != nil {
		return err
	}
	c, ok := a.paint("fill")
	if !ok {
		return nil
	}
	x, y := a.num("x"), a.num("y")
	rot := 0.0
	if m := transformRE.FindStringSubmatch(a["transform"]); m != nil {
		tx, _ := strconv.ParseFloat(m[1], 64)
		ty, _ := strconv.ParseFloat(m[2], 64)
		rot, _ = strconv.ParseFloat(m[3], 64)
		x, y = x+tx, y+ty
	}
	w := font.MeasureString(f, s).Ceil()
	if rot == 0 {
		switch a["text-anchor"] {
		case "middle":
			x -= float64(w) / 2 / pngScale
		case "end":
			x -= float64(w) / pngScale
		}
	}
	src := image.NewUniform(c)
	if rot == 0 {
		d := font.Drawer{Dst: r.img, Src: src, Face: f, Dot: fixed.P(int(math.Round(x*pngScale)), int(math.Round(y*pngScale)))}
		d.DrawString(s)
		return nil
	}
	// Rotated text (axis titles, centred on their point): drawn level,
	// then turned by a quarter.
	m := f.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	tmp := image.NewRGBA(image.Rect(0, 0, w, asc+desc))
	(&font.Drawer{Dst: tmp, Src: src, Face: f, Dot: fixed.P(0, asc)}).DrawString(s)
	cx, cy := int(math.Round(x*pngScale)), int(math.Round(y*pngScale))
	for ty := 0; ty < asc+desc; ty++ {
		for tx := 0; tx < w; tx++ {
			px := tmp.RGBAAt(tx, ty)
			if px.A == 0 {
				continue
			}
			// Offsets from the text's anchor: its middle, on the baseline.
			u, v := tx-w/2, ty-asc
			var dx, dy int
			if rot < 0 { // reads upwards
				dx, dy = v, -u
			} else { // reads downwards
				dx, dy = -v, u
			}
			blend(r.img, cx+dx, cy+dy, px)
		}
	}
	return nil
}

// blend puts a premultiplied pixel over the image at (x, y).
func blend(img *image.RGBA, x, y int, p color.RGBA) {
	if !(image.Point{x, y}.In(img.Bounds())) {
		return
	}
	d := img.RGBAAt(x, y)
	k := 255 - uint32(p.A)
	mix := func(s, d uint8) uint8 { return uint8(uint32(s) + uint32(d)*k/255) }
	img.SetRGBA(x, y, color.RGBA{mix(p.R, d.R), mix(p.G, d.G), mix(p.B, d.B), mix(p.A, d.A)})
}
