package runtime

import "slices"

// inversePairs counts the job pairs whose start order flips between a
// baseline schedule and another (Zhou et al.'s fairness metric): pairs with
// base[i] < base[k] and run[i] > run[k], given order = startOrder(base).
// Pairs tied in either schedule are not counted, so simultaneous starts
// are not inversions. O(n log n): in the baseline's order (ties by the
// other start, so they add nothing), count strict inversions of the other
// starts by merge sort.
func inversePairs(base []float64, order []int32, run []float64) int64 {
	n := len(base)
	if n != len(run) || n < 2 {
		return 0
	}
	xs := make([]float64, n)
	for i := 0; i < n; {
		k := i + 1
		for k < n && base[order[k]] == base[order[i]] {
			k++
		}
		for p := i; p < k; p++ {
			xs[p] = run[order[p]]
		}
		if k-i > 1 {
			slices.Sort(xs[i:k]) // (tied in the baseline: no pair counts)
		}
		i = k
	}
	return countInversions(xs, make([]float64, n))
}

// startOrder is the jobs in order of their starts (ties in trace order):
// what every run compared with a baseline orders by, sorted once.
func startOrder(start []float64) []int32 {
	order := make([]int32, len(start))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		switch {
		case start[a] < start[b]:
			return -1
		case start[a] > start[b]:
			return 1
		}
		return int(a - b)
	})
	return order
}

// countInversions counts pairs i < k with xs[i] > xs[k], sorting xs; buf
// has len(xs).
func countInversions(xs, buf []float64) int64 {
	var count int64
	n := len(xs)
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n-width; lo += 2 * width {
			mid, hi := lo+width, min(lo+2*width, n)
			i, k, o := lo, mid, lo
			for i < mid && k < hi {
				if xs[k] < xs[i] {
					count += int64(mid - i) // xs[k] is below every left element from i on
					buf[o] = xs[k]
					k++
				} else {
					buf[o] = xs[i]
					i++
				}
				o++
			}
			o += copy(buf[o:], xs[i:mid])
			copy(buf[o:], xs[k:hi])
			copy(xs[lo:hi], buf[lo:hi])
		}
	}
	return count
}
