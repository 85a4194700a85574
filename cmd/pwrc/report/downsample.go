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
	b := Bins{X0: x0, X1: x1, Mean: make([]float64, n), Min: make([]float64, n), Max: make([]float64, n), Covered: make([]float64, n)}
	for i := range n {
		b.Min[i], b.Max[i] = math.Inf(1), math.Inf(-1)
	}
	w := (x1 - x0) / float64(n)
	if n > 0 && w > 0 {
		for i := range t {
			a, z := t[i], end
			if i+1 < len(t) {
				z = t[i+1]
			}
			a, z = max(a, x0), min(z, x1)
			val := v(i)
			if z < a || (z == a && (a < x0 || a >= x1)) {
				continue
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
				b.Mean[k] += val * ov
				b.Covered[k] += ov
				// A value in force for an instant only (a row overwritten
				// at the same time is never recorded) still counts as an
				// extreme where it holds for any time.
				if ov > 0 || z == a {
					b.Min[k], b.Max[k] = min(b.Min[k], val), max(b.Max[k], val)
				}
				if hi >= z {
					break
				}
			}
		}
	}
	for k := range n {
		if b.Covered[k] > 0 {
			b.Mean[k] /= b.Covered[k]
		} else {
			b.Mean[k] = math.NaN()
		}
		if math.IsInf(b.Min[k], 0) {
			b.Min[k], b.Max[k] = math.NaN(), math.NaN()
		}
	}
	return b
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
