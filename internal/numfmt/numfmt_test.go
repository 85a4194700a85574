package numfmt

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{
		{4.5, 0, "5"}, {3.5, 0, "4"}, {-4.5, 0, "-5"}, {4.49, 0, "4"}, {2.675, 2, "2.68"}, {0.125, 2, "0.13"},
		{9.95, 1, "10.0"}, {99.5, 0, "100"}, {-0.4, 0, "0"}, {-0.04, 1, "0.0"}, {1e21, 0, "1000000000000000000000"},
		{1.5e-7, 3, "0.000"}, {123.456, 5, "123.45600"}, {0, 2, "0.00"}, {math.Inf(1), 1, "+Inf"},
	} {
		if got := Fixed(c.v, c.d); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{
		{1234567.85, 1, "1,234,567.9"}, {-999.5, 0, "-1,000"}, {999.4, 0, "999"}, {4.5, 0, "5"},
	} {
		if got := Thousands(c.v, c.d); got != c.want {
			t.Errorf("Thousands(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

// Fixed is within half a unit of its last decimal of v, and well formed.
func FuzzFixed(f *testing.F) {
	f.Add(1.2345, 2)
	f.Add(-4.5, 0)
	f.Fuzz(func(t *testing.T, v float64, d int) {
		d = ((d % 6) + 6) % 6
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 {
			return
		}
		got := Fixed(v, d)
		p, err := strconv.ParseFloat(got, 64)
		if err != nil || got == "-0" || strings.HasPrefix(got, ".") {
			t.Fatalf("Fixed(%v, %d) = %q", v, d, got)
		}
		if math.Abs(p-v) > 0.5*math.Pow10(-d)*(1+1e-9)+1e-12*math.Abs(v) {
			t.Fatalf("Fixed(%v, %d) = %q: off by %g", v, d, got, p-v)
		}
	})
}
