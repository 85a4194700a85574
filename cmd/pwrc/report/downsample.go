package report

import "math"

// Bins summarise a step function over n equal bins of [X0, X1): in each
// bin its time-weighted mean (so the area under the drawn means is the
// function's integral, exactly), its smallest and largest value (so a
// one-second spike in a three-year series survives the drawing), and the
// time of the bin the function is defined on.
type Bins struct {
	X0, X1   float64
	Mean     []float64 // time-weighted mean over the covered part; NaN if uncovered
	Min, Max []float64 // NaN if uncovered
	Covered  []float64 // seconds of the bin the function is defined on
}

// N is the number of bins.
func (b *Bins) N() int { return len(b.Mean) }

// Width is a bin's width.
func (b *Bins) Width() float64 { return (b.X1 - b.X0) / float64(len(b.Mean)) }

// Edge is the left edge of bin i (i = N gives X1).
func (b *Bins) Edge(i int) float64 {
	if i >= len(b.Mean) {
		return b.X1
	}
	return b.X0 + float64(i)*b.Width()
}

// Integral is ∫ f over the covered parts of every bin: the area under the
// drawn means.
func (b *Bins) Integral() float64 {
	var s float64
	for i, c := range b.Covered {
		if c > 0 {
			s += b.Mean[i] * c
		}
	}
	return s
}

// binStep bins the step function that takes value v(i) on [t[i], t[i+1])
// (the last value until end) over n equal bins of [x0, x1). It reads each
// row once and touches each bin a row covers: O(rows + n).
func binStep(t []float64, v func(i int) float64, end, x0, x1 float64, n int) Bins {
	b := newBinner(x0, x1, n, 1)
	val := []float64{0}
	for i := range t {
		z := end
		if i+1 < len(t) {
			z = t[i+1]
		}
		val[0] = v(i)
		b.add(t[i], z, val)
	}
	return b.finish()[0]
}

// binner bins k step functions at once over n equal bins of [x0, x1),
// a step at a time, as binStep does one.
type binner struct {
	x0, x1, w float64
	n         int
	bins      []Bins
}

func newBinner(x0, x1 float64, n, k int) *binner {
	b := &binner{x0: x0, x1: x1, w: (x1 - x0) / float64(n), n: n, bins: make([]Bins, k)}
	for j := range b.bins {
		bj := Bins{X0: x0, X1: x1, Mean: make([]float64, n), Min: make([]float64, n), Max: make([]float64, n), Covered: make([]float64, n)}
		for i := range n {
			bj.Min[i], bj.Max[i] = math.Inf(1), math.Inf(-1)
		}
		b.bins[j] = bj
	}
	return b
}

// add bins the step that holds vals[j] for function j on [a, z); a NaN
// value leaves the step out of function j's bins (a cap while none is in
// force, a budget where it does not apply), so they draw a gap.
func (b *binner) add(a, z float64, vals []float64) {
	n, w, x0, x1 := b.n, b.w, b.x0, b.x1
	if !(n > 0 && w > 0) {
		return
	}
	a, z = max(a, x0), min(z, x1)
	if z < a || (z == a && (a < x0 || a >= x1)) {
		return
	}
	k := min(n-1, max(0, int((a-x0)/w)))
	for ; k < n; k++ {
		lo, hi := x0+float64(k)*w, x0+float64(k+1)*w
		if k == n-1 {
			hi = x1
		}
		if lo > z || (lo == z && z > a) {
			break
		}
		ov := min(hi, z) - max(lo, a)
		if ov < 0 {
			ov = 0
		}
		for j := range b.bins {
			bj, val := &b.bins[j], vals[j]
			if val != val {
				continue // NaN: the function is not defined here (a gap)
			}
			bj.Mean[k] += val * ov
			bj.Covered[k] += ov
			// A value in force for an instant only (a row overwritten
			// at the same time is never recorded) still counts as an
			// extreme where it holds for any time.
			if ov > 0 || z == a {
				bj.Min[k], bj.Max[k] = min(bj.Min[k], val), max(bj.Max[k], val)
			}
		}
		if hi >= z {
			break
		}
	}
}

// finish turns the sums into means, and marks bins nothing covers.
func (b *binner) finish() []Bins {
	for j := range b.bins {
		bj := &b.bins[j]
		for k := range b.n {
			if bj.Covered[k] > 0 {
				bj.Mean[k] /= bj.Covered[k]
			} else {
				bj.Mean[k] = math.NaN()
			}
			if math.IsInf(bj.Min[k], 0) {
				bj.Min[k], bj.Max[k] = math.NaN(), math.NaN()
			}
		}
	}
	return b.bins
}

// binRows bins k functions of a series' rows (vals fills out, of length
// k, from a row) over n bins of [x0, x1), the last row lasting until end:
// one pass over the rows for all of them.
func binRows(ss States, k int, vals func(row, out []float64), end, x0, x1 float64, n int) []Bins {
	b := newBinner(x0, x1, n, k)
	cur, next := make([]float64, k), make([]float64, k)
	prev, started := 0.0, false
	for t, row := range ss.Rows() {
		vals(row, next)
		if started {
			b.add(prev, t, cur)
		}
		prev, started = t, true
		cur, next = next, cur
	}
	if started {
		b.add(prev, end, cur)
	}
	return b.finish()
}

// m4 downsamples the points (xs[i], ys[i]), xs ascending, to at most four
// per pixel column of a plot of width cols over [x0, x1]: the first, the
// lowest, the highest and the last point of the column, in their order, so
// the polyline through them touches every extreme of the original one.
func m4(xs, ys []float64, x0, x1 float64, cols int) (ox, oy []float64) {
	if len(xs) <= 4*cols || cols <= 0 || x1 <= x0 {
		return xs, ys
	}
	w := (x1 - x0) / float64(cols)
	col := func(x float64) int { return min(cols-1, max(0, int((x-x0)/w))) }
	for i := 0; i < len(xs); {
		c := col(xs[i])
		j := i
		lo, hi := i, i
		for j+1 < len(xs) && col(xs[j+1]) == c {
			j++
			if ys[j] < ys[lo] {
				lo = j
			}
			if ys[j] > ys[hi] {
				hi = j
			}
		}
		keep := []int{i, lo, hi, j}
		if hi < lo {
			keep[1], keep[2] = hi, lo
		}
		last := -1
		for _, k := range keep {
			if k != last {
				ox, oy = append(ox, xs[k]), append(oy, ys[k])
				last = k
			}
		}
		i = j + 1
	}
	return ox, oy
}
