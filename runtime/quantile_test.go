package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// selectQuantiles gives what quantile gives on the sorted values, for
// values drawn from a few or many distinct ones, sorted, reversed or
// shuffled, and any length.
func TestSelectQuantiles(t *testing.T) {
	qs := []float64{0.25, 0.50, 0.75, 0.90, 0.99, 1}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		for _, shape := range []string{"random", "few", "sorted", "reversed", "equal"} {
			x := make([]float64, n*7)
			for i := range x {
				switch shape {
				case "few":
					x[i] = float64(rng.IntN(4))
				case "equal":
					x[i] = 3600
				default:
					x[i] = rng.Float64() * 1e6
				}
			}
			switch shape {
			case "sorted":
				slices.Sort(x)
			case "reversed":
				slices.Sort(x)
				slices.Reverse(x)
			}
			sorted := slices.Clone(x)
			slices.Sort(sorted)
			got := selectQuantiles(x, qs)
			for i, q := range qs {
				if want := quantile(sorted, q); got[i] != want {
					t.Fatalf("%s, %d values: quantile %v is %v, want %v", shape, len(x), q, got[i], want)
				}
			}
			if !slices.Equal(slices.Sorted(slices.Values(x)), sorted) {
				t.Fatalf("%s, %d values: values changed, not only reordered", shape, len(x))
			}
		}
	}
}
