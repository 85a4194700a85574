package knapsack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// eligible reports whether it can ever be chosen, per the package's
// pre-filter, ignoring the capacities.
func eligible(it Item) bool {
	return it.Value > 0 && it.Nodes >= 1 && !math.IsNaN(it.Weight)
}

// sums returns the total value, weight (negative counted as 0) and nodes of
// the items in mask, summed in index order, and whether nodes overflowed.
func sums(items []Item, mask uint32) (v, w float64, n int, overflow bool) {
	for i := range items {
		if mask>>i&1 == 0 {
			continue
		}
		v += items[i].Value
		w += max(items[i].Weight, 0)
		if n > math.MaxInt-items[i].Nodes {
			overflow = true
		}
		n += items[i].Nodes
	}
	return v, w, n, overflow
}

// earlier reports whether subset a precedes subset b in the tie order: at
// the lowest index where they differ, a includes the item.
func earlier(a, b uint32) bool {
	d := a ^ b
	return d != 0 && a&(d&-d) != 0
}

// bruteForce returns the lexicographically first optimal subset: among the
// feasible subsets of eligible items with maximum total value, the one that
// earlier prefers over all others.
func bruteForce(items []Item, capWeight float64, capNodes int) (mask uint32, value float64) {
	if len(items) > 16 {
		panic("bruteForce: too many items")
	}
	if !(capWeight >= 0) || capNodes <= 0 {
		return 0, 0
	}
	var ok uint32
	for i, it := range items {
		if eligible(it) {
			ok |= 1 << i
		}
	}
	for m := uint32(0); m < 1<<len(items); m++ {
		if m&^ok != 0 {
			continue
		}
		v, w, n, overflow := sums(items, m)
		if overflow || n > capNodes || !(w <= capWeight) {
			continue
		}
		if v > value || v == value && earlier(m, mask) {
			mask, value = m, v
		}
	}
	return mask, value
}

func maskOf(idx []int) uint32 {
	var m uint32
	for _, i := range idx {
		m |= 1 << i
	}
	return m
}

func indices(mask uint32) []int {
	var idx []int
	for i := 0; mask != 0; i++ {
		if mask&1 != 0 {
			idx = append(idx, i)
		}
		mask >>= 1
	}
	return idx
}

// checkFeasible checks what must hold for any result: ascending unique
// in-range indices of eligible items within both capacities. The weight may
// exceed capWeight by the documented relative noise of 1e-12 (plus rounding
// of the sum).
func checkFeasible(items []Item, got []int, capWeight float64, capNodes int) error {
	for k, i := range got {
		if i < 0 || i >= len(items) {
			return fmt.Errorf("index %d out of range", i)
		}
		if k > 0 && got[k-1] >= i {
			return fmt.Errorf("indices not ascending and unique: %v", got)
		}
		if !eligible(items[i]) {
			return fmt.Errorf("chose ineligible item %d %+v", i, items[i])
		}
	}
	if len(got) == 0 {
		return nil
	}
	if !(capWeight >= 0) || capNodes <= 0 {
		return fmt.Errorf("chose %v with capWeight %v, capNodes %d", got, capWeight, capNodes)
	}
	_, w, n, overflow := sums(items, maskOf(got))
	if overflow || n > capNodes {
		return fmt.Errorf("chose %v: %d nodes > capNodes %d (overflow %v)", got, n, capNodes, overflow)
	}
	if !(w <= capWeight*(1+1e-12)) {
		return fmt.Errorf("chose %v: weight %v > capWeight %v", got, w, capWeight)
	}
	return nil
}

// exactInstance draws an instance in exact mode (whole weights,
// capWeight <= 1024, at most 256 node units) with many ties, zero weights,
// ineligible items and items that do not fit.
func exactInstance(r *rand.Rand) (items []Item, capWeight float64, capNodes int) {
	n := r.IntN(13)
	if n == 0 && r.IntN(2) == 0 {
		n = 12
	}
	vmax := []int{1, 2, 3, 10, 1000}[r.IntN(5)]
	wmax := []int{0, 3, 20, 20, 300, 300}[r.IntN(6)]
	nmax := []int{1, 3, 8, 20}[r.IntN(4)]
	g := 1
	if r.IntN(4) == 0 {
		g = 2 + r.IntN(4) // exercises the gcd reduction
	}
	totalW, totalN := 0, 0
	for range n {
		it := Item{
			Value:  float64(1 + r.IntN(vmax)),
			Weight: float64(r.IntN(wmax + 1)),
			Nodes:  g * (1 + r.IntN(nmax)),
		}
		switch r.IntN(20) {
		case 0:
			it.Value = 0
		case 1:
			it.Value = -1
		case 2:
			it.Weight = 0
		case 3:
			it.Weight = -2 // treated as 0
		case 4:
			it.Nodes = 0
		}
		totalW += int(max(it.Weight, 0))
		totalN += it.Nodes
		items = append(items, it)
	}
	capWeight = float64(min(1024, r.IntN(totalW*3/4+2)))
	if r.IntN(10) == 0 {
		capWeight = 1024
	}
	capNodes = 1 + r.IntN(totalN*3/4+1)
	switch r.IntN(20) {
	case 0:
		capNodes = 0
	case 1, 2:
		capNodes = 1 + r.IntN(3)
	}
	if capNodes > 256 {
		capNodes = 256 // stays exact: at most DefaultMaxUnits units
	}
	return items, capWeight, capNodes
}

// TestSolveMatchesBruteForceExact checks both the exact search (small
// instances, the default) and the table (forced with ExactItems −1).
func TestSolveMatchesBruteForceExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var dst []int
	for iter := range 12000 {
		s := Solver{ExactItems: []int{0, -1}[iter%2]}
		items, capWeight, capNodes := exactInstance(r)
		dst = s.Solve(dst, items, capWeight, capNodes)
		if err := checkFeasible(items, dst, capWeight, capNodes); err != nil {
			t.Fatalf("instance %d %+v capWeight %v capNodes %d: %v", iter, items, capWeight, capNodes, err)
		}
		wantMask, wantV := bruteForce(items, capWeight, capNodes)
		gotV, _, _, _ := sums(items, maskOf(dst))
		if gotV != wantV {
			t.Fatalf("instance %d %+v capWeight %v capNodes %d: value %v, brute force %v (got %v, want %v)",
				iter, items, capWeight, capNodes, gotV, wantV, dst, indices(wantMask))
		}
		if maskOf(dst) != wantMask {
			t.Fatalf("instance %d %+v capWeight %v capNodes %d: got %v, want lexicographically first optimum %v",
				iter, items, capWeight, capNodes, dst, indices(wantMask))
		}
	}
}

func TestSolveNearOptimalRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var dst []int
	for iter := range 3000 {
		s := Solver{Buckets: []int{0, 64, 16}[r.IntN(3)], ExactItems: []int{0, -1}[iter%2]}
		buckets := s.Buckets
		if buckets == 0 {
			buckets = DefaultBuckets
		}
		n := r.IntN(11)
		scale := []float64{1e3, 2e4, 1e5}[r.IntN(3)]
		items := make([]Item, n)
		totalW, totalN := 0.0, 0
		for i := range items {
			items[i] = Item{
				Value:  float64(1 + r.IntN(4)),
				Weight: r.Float64() * scale,
				Nodes:  1 + r.IntN(8),
			}
			totalW += items[i].Weight
			totalN += items[i].Nodes
		}
		capWeight := totalW*(0.1+0.8*r.Float64()) + 0.5 // large and fractional
		capNodes := 1 + r.IntN(totalN+1)
		q := capWeight / float64(buckets)

		dst = s.Solve(dst, items, capWeight, capNodes)
		if err := checkFeasible(items, dst, capWeight, capNodes); err != nil {
			t.Fatalf("instance %d: %v", iter, err)
		}
		gotV, _, _, _ := sums(items, maskOf(dst))
		_, upper := bruteForce(items, capWeight, capNodes)
		_, lower := bruteForce(items, capWeight-float64(n)*q, capNodes)
		if gotV > upper || gotV < lower {
			t.Fatalf("instance %d %+v capWeight %v capNodes %d Buckets %d: value %v outside [%v, %v]",
				iter, items, capWeight, capNodes, s.Buckets, gotV, lower, upper)
		}
	}
}

// TestSolveMaxUnits forces the node rounding with a small MaxUnits: the
// result must stay feasible and be at least as good as the exact optimum
// with g·(r−1)·(n+1) fewer nodes, and exact when r = 1.
func TestSolveMaxUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var dst []int
	rounded := 0
	for iter := range 3000 {
		s := Solver{MaxUnits: 1 + r.IntN(16), ExactItems: []int{0, -1}[iter%2]}
		n := 1 + r.IntN(10)
		items := make([]Item, n)
		totalN := 0
		for i := range items {
			items[i] = Item{Value: float64(1 + r.IntN(50)), Weight: float64(r.IntN(10)), Nodes: 1 + r.IntN(60)}
			totalN += items[i].Nodes
		}
		capNodes := 1 + r.IntN(totalN)
		capWeight := float64(r.IntN(60))

		dst = s.Solve(dst, items, capWeight, capNodes)
		if err := checkFeasible(items, dst, capWeight, capNodes); err != nil {
			t.Fatalf("instance %d: %v", iter, err)
		}
		gotV, _, _, _ := sums(items, maskOf(dst))
		wantMask, upper := bruteForce(items, capWeight, capNodes)
		// g, r as the solver derives them from the items that can fit.
		g, eligibleN := 0, 0
		for _, it := range items {
			if it.Nodes <= capNodes && it.Weight <= capWeight {
				g = gcd(g, it.Nodes)
				eligibleN += it.Nodes
			}
		}
		ru := 1
		if g > 0 {
			capU := min(capNodes, eligibleN) / g
			ru = max(1, (capU+s.MaxUnits-1)/s.MaxUnits)
		}
		_, lower := bruteForce(items, capWeight, capNodes-g*(ru-1)*(n+1))
		if gotV > upper || gotV < lower {
			t.Fatalf("instance %d %+v capWeight %v capNodes %d MaxUnits %d: value %v outside [%v, %v]",
				iter, items, capWeight, capNodes, s.MaxUnits, gotV, lower, upper)
		}
		if ru == 1 && maskOf(dst) != wantMask {
			t.Fatalf("instance %d: r = 1 but got %v, want %v", iter, dst, indices(wantMask))
		}
		if ru > 1 {
			rounded++
		}
	}
	if rounded < 1000 {
		t.Errorf("only %d instances exercised node rounding", rounded)
	}
}

// TestFig1 is a worked example in the spirit of Fig. 1 of Zhou et al.: a
// 9-node machine with a 150 W power budget and five queued jobs.
//
//	job  nodes  power  W/node
//	J1     4     75 W   18.75
//	J2     4     65 W   16.25
//	J3     2     40 W   20
//	J4     3     55 W   18.33
//	J5     4     50 W   12.5
//
// FCFS starts J1 and J2 (8 nodes, 140 W) and then blocks on J3, which needs
// 2 nodes with 1 free: one node idles. The knapsack (value = nodes) starts
// J3, J4 and J5 instead: 9 nodes, 145 W. No other subset uses all 9 nodes
// within 150 W: {J1,J3,J4} draws 170 W and {J2,J3,J4} 160 W.
func TestFig1(t *testing.T) {
	jobs := []Item{
		{Value: 4, Weight: 75, Nodes: 4},
		{Value: 4, Weight: 65, Nodes: 4},
		{Value: 2, Weight: 40, Nodes: 2},
		{Value: 3, Weight: 55, Nodes: 3},
		{Value: 4, Weight: 50, Nodes: 4},
	}
	const capWeight, capNodes = 150, 9

	// FCFS: start jobs in queue order until one does not fit.
	var fcfs []int
	w, n := 0.0, 0
	for i, j := range jobs {
		if n+j.Nodes > capNodes || w+j.Weight > capWeight {
			break
		}
		fcfs = append(fcfs, i)
		w += j.Weight
		n += j.Nodes
	}
	if !slices.Equal(fcfs, []int{0, 1}) || n != 8 || w != 140 {
		t.Fatalf("FCFS started %v (%d nodes, %v W), want [0 1] (8 nodes, 140 W)", fcfs, n, w)
	}

	// Exactly one subset reaches 9 nodes within 150 W.
	var nine []uint32
	for m := range uint32(1 << len(jobs)) {
		_, w, n, _ := sums(jobs, m)
		if n == capNodes && w <= capWeight {
			nine = append(nine, m)
		}
	}
	if len(nine) != 1 || nine[0] != maskOf([]int{2, 3, 4}) {
		t.Fatalf("9-node subsets within 150 W: %v, want only {J3,J4,J5}", nine)
	}

	var s Solver
	got := s.Solve(nil, jobs, capWeight, capNodes)
	if !slices.Equal(got, []int{2, 3, 4}) {
		t.Fatalf("knapsack chose %v, want [2 3 4] (J3, J4, J5)", got)
	}
	if _, w, n, _ := sums(jobs, maskOf(got)); n != 9 || w != 145 {
		t.Fatalf("knapsack uses %d nodes, %v W; want 9 nodes, 145 W", n, w)
	}
}

// TestTieRule: several subsets reach the optimum; the one that takes the
// earliest job wins, even when it skips the next one.
func TestTieRule(t *testing.T) {
	tests := []struct {
		name      string
		items     []Item
		capWeight float64
		capNodes  int
		want      []int
	}{
		{
			name:      "identical jobs",
			items:     []Item{{1, 1, 1}, {1, 1, 1}},
			capWeight: 10, capNodes: 1,
			want: []int{0},
		},
		{
			// {0,3} and {1,2} both fill the 4 nodes: {0,3} takes job 0.
			name:      "earliest job beats more early jobs",
			items:     []Item{{3, 1, 3}, {2, 1, 2}, {2, 1, 2}, {1, 1, 1}},
			capWeight: 10, capNodes: 4,
			want: []int{0, 3},
		},
		{
			// {0,3}, {1,2} and {2,3} all have value 5 within 10 W.
			name:      "weight binds",
			items:     []Item{{3, 6, 1}, {2, 5, 1}, {3, 5, 1}, {2, 4, 1}},
			capWeight: 10, capNodes: 4,
			want: []int{0, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Solver
			got := s.Solve(nil, tt.items, tt.capWeight, tt.capNodes)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if m, _ := bruteForce(tt.items, tt.capWeight, tt.capNodes); !slices.Equal(indices(m), tt.want) {
				t.Errorf("brute force %v disagrees with want %v", indices(m), tt.want)
			}
		})
	}
}

func TestSolveEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	nan := math.NaN()
	q := 0.1 // a variable, so that 6*q rounds as at run time
	tests := []struct {
		name      string
		solver    Solver
		items     []Item
		capWeight float64
		capNodes  int
		want      []int
	}{
		{name: "nil items", capWeight: 10, capNodes: 10},
		{name: "empty items", items: []Item{}, capWeight: 10, capNodes: 10},
		{name: "capNodes 0", items: []Item{{1, 0, 1}}, capWeight: 10, capNodes: 0},
		{name: "capNodes negative", items: []Item{{1, 0, 1}}, capWeight: 10, capNodes: -3},
		{name: "capWeight NaN", items: []Item{{1, 0, 1}}, capWeight: nan, capNodes: 10},
		{name: "capWeight negative", items: []Item{{1, 0, 1}}, capWeight: -1, capNodes: 10},
		{
			name:      "capWeight 0 takes zero-weight items",
			items:     []Item{{1, 0, 1}, {1, 1, 1}, {1, 0, 1}, {1, -1, 1}},
			capWeight: 0, capNodes: 10,
			want: []int{0, 2, 3},
		},
		{
			name:      "capWeight 0, nodes bind",
			items:     []Item{{1, 0, 2}, {1, 0, 2}, {1, 0, 1}},
			capWeight: 0, capNodes: 3,
			want: []int{0, 2},
		},
		{
			name:      "ineligible values",
			items:     []Item{{nan, 1, 1}, {0, 1, 1}, {-1, 1, 1}, {math.Inf(-1), 1, 1}, {1, 1, 1}},
			capWeight: 10, capNodes: 10,
			want: []int{4},
		},
		{
			name:      "ineligible nodes",
			items:     []Item{{5, 1, 0}, {5, 1, -1}, {5, 1, 11}, {1, 1, 10}},
			capWeight: 10, capNodes: 10,
			want: []int{3},
		},
		{
			name:      "infinite value wins",
			items:     []Item{{1, 1, 1}, {inf, 1, 1}},
			capWeight: 10, capNodes: 1,
			want: []int{1},
		},
		{
			name:      "NaN and infinite weights never fit a finite capacity",
			items:     []Item{{9, nan, 1}, {9, inf, 1}, {1, 1, 1}},
			capWeight: 1e308, capNodes: 10,
			want: []int{2},
		},
		{
			name:      "infinite capWeight: nodes only",
			items:     []Item{{3, 1e308, 3}, {2, 1e308, 2}, {2, inf, 2}, {9, nan, 1}},
			capWeight: inf, capNodes: 4,
			want: []int{1, 2},
		},
		{
			name:      "weights overflow to +Inf",
			items:     []Item{{1, math.MaxFloat64 / 2, 1}, {1, math.MaxFloat64 / 2, 1}, {1, math.MaxFloat64 / 2, 1}},
			capWeight: math.MaxFloat64, capNodes: 10,
			want: []int{0, 1},
		},
		{
			name:      "negative weight counts as 0",
			items:     []Item{{1, -5, 1}, {1, 3, 1}, {1, 2, 1}},
			capWeight: 3, capNodes: 3,
			want: []int{0, 1},
		},
		{
			name:      "weights only: nodes cannot bind",
			items:     []Item{{5, 60, 1}, {4, 50, 1}, {4, 50, 1}},
			capWeight: 100, capNodes: 1 << 40,
			want: []int{1, 2},
		},
		{
			// The gcd 512 turns capNodes 20580 into exactly MaxUnits = 40
			// units; without it the nodes would be rounded to units of
			// 515 and the two 10240-node jobs would no longer fit together.
			name:      "gcd reduction keeps nodes exact",
			solver:    Solver{MaxUnits: 40},
			items:     []Item{{10240, 1, 10240}, {10240, 1, 10240}, {512, 1, 512}},
			capWeight: 100, capNodes: 20580,
			want: []int{0, 1},
		},
		{
			// 7 nodes in units of r = 4 leave 1 unit, so only one job fits
			// although {0, 1} uses exactly 7 nodes: feasible, suboptimal.
			name:      "MaxUnits rounding is conservative",
			solver:    Solver{MaxUnits: 2, ExactItems: -1},
			items:     []Item{{3, 1, 3}, {4, 1, 4}, {2, 1, 2}},
			capWeight: 100, capNodes: 7,
			want: []int{1},
		},
		{
			// Node totals overflow int. With r = 2^55, capNodes = MaxInt is
			// 255 units and a MaxInt-node job 256: only the 1-node job fits.
			name:      "huge node counts",
			solver:    Solver{ExactItems: -1},
			items:     []Item{{1, 0, math.MaxInt}, {1, 0, math.MaxInt}, {1, 0, 1}},
			capWeight: 1, capNodes: math.MaxInt,
			want: []int{2},
		},
		{
			name:      "huge capacities, everything fits",
			items:     []Item{{1, 1e300, 1 << 40}, {1, 1e300, 1 << 40}},
			capWeight: math.MaxFloat64, capNodes: math.MaxInt,
			want: []int{0, 1},
		},
		{
			name:      "negative Buckets and MaxUnits mean the defaults",
			solver:    Solver{Buckets: -1, MaxUnits: -1},
			items:     []Item{{1, 0.6, 2}, {1, 0.5, 1}, {1, 0.5, 1}},
			capWeight: 1.0, capNodes: 3,
			want: []int{1, 2},
		},
		{
			// With q = 0.1, 6·q = 0.6000000000000001 and 6·q/1.0·10 =
			// 6.000000000000001: without the snap it would take 7 buckets
			// and jobs 0 and 1 (4 + 6 buckets, exactly 1.0) would not fit.
			name:      "weights at bucket boundaries are not rounded up",
			solver:    Solver{Buckets: 10},
			items:     []Item{{1, 4 * q, 1}, {1, 6 * q, 1}, {1, 0.5, 1}},
			capWeight: 1.0, capNodes: 2,
			want: []int{0, 1},
		},
		{
			// 0.4·(1+1e-9) is beyond the snap: 5 buckets, and jobs 0 and
			// 1 together would exceed capWeight by 4e-10.
			name:      "weights just above bucket boundaries are rounded up",
			solver:    Solver{Buckets: 10},
			items:     []Item{{1, 0.4 * (1 + 1e-9), 1}, {1, 0.6, 1}, {1, 0.5, 1}},
			capWeight: 1.0, capNodes: 2,
			want: []int{0, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.solver
			dst := []int{-7, -7, -7}
			got := s.Solve(dst, tt.items, tt.capWeight, tt.capNodes)
			if len(got) == 0 {
				got = nil
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if len(got) > 0 && &got[0] != &dst[0] && len(got) <= cap(dst) {
				t.Errorf("result does not reuse dst")
			}
			if err := checkFeasible(tt.items, got, tt.capWeight, tt.capNodes); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSolveNoAllocs checks that a warm solver does not allocate on each
// path: all fit, weight only, nodes only, exact and rounded 2-D.
func TestSolveNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	items := make([]Item, 60)
	for i := range items {
		items[i] = Item{Value: float64(1 + r.IntN(9)), Weight: 1 + 50*r.Float64(), Nodes: 1 + r.IntN(600)}
	}
	whole := make([]Item, len(items))
	for i, it := range items {
		whole[i] = Item{Value: it.Value, Weight: math.Round(it.Weight), Nodes: it.Nodes % 20}
	}
	tests := []struct {
		name      string
		items     []Item
		capWeight float64
		capNodes  int
	}{
		{"all fit", items, 1e9, 1 << 30},
		{"weight only", items, 500.5, 1 << 30},
		{"nodes only", items, 1e9, 5000},
		{"exact 2-D", whole, 700, 300},
		{"rounded 2-D", items, 500.5, 5000},
	}
	var s Solver
	dst := make([]int, 0, len(items))
	for _, tt := range tests {
		dst = s.Solve(dst, tt.items, tt.capWeight, tt.capNodes) // warm up
	}
	for _, tt := range tests {
		allocs := testing.AllocsPerRun(20, func() {
			dst = s.Solve(dst, tt.items, tt.capWeight, tt.capNodes)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per call, want 0", tt.name, allocs)
		}
	}
}

// fuzzInstance decodes data into a small instance with special values:
// NaN, infinities, negatives and zeros in every field.
func fuzzInstance(data []byte) (s Solver, items []Item, capWeight float64, capNodes int) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	capNodes = int(int8(next()))
	switch b := next(); b {
	case 0:
		capWeight = math.NaN()
	case 1:
		capWeight = math.Inf(1)
	case 2:
		capWeight = -1
	case 3:
		capWeight = 0
	case 4:
		capWeight = math.MaxFloat64
	default:
		capWeight = float64(b)
		if b&1 == 0 {
			capWeight *= 37.7
		}
	}
	s.Buckets = int(next()%64) - 1
	s.MaxUnits = int(next()%32) - 1
	if next()%2 == 1 {
		s.ExactItems = -1 // the table, not the search
	}
	for len(data) >= 3 && len(items) < 12 {
		var it Item
		switch v := next(); v {
		case 0:
			it.Value = math.NaN()
		case 1:
			it.Value = -1
		case 2:
			it.Value = 0
		case 3:
			it.Value = math.Inf(1)
		default:
			it.Value = float64(v % 16)
		}
		switch w := next(); w {
		case 0:
			it.Weight = math.NaN()
		case 1:
			it.Weight = math.Inf(1)
		case 2:
			it.Weight = -3
		default:
			it.Weight = float64(w)
			if w&1 == 0 {
				it.Weight *= 1.7
			}
		}
		it.Nodes = int(next()%20) - 1
		items = append(items, it)
	}
	return s, items, capWeight, capNodes
}

// exactExpected reports whether the documented semantics promise the
// lexicographically first optimum: finite values, no node rounding and an
// exact or non-binding weight dimension. With an infinite value every
// subset containing it ties at +Inf for bruteForce, while the DP still
// maximizes the finite rest, so the two may pick different subsets.
func exactExpected(s Solver, items []Item, capWeight float64, capNodes int) bool {
	if !(capWeight >= 0) || capNodes <= 0 {
		return true
	}
	buckets, maxUnits := s.Buckets, s.MaxUnits
	if buckets <= 0 {
		buckets = DefaultBuckets
	}
	if maxUnits <= 0 {
		maxUnits = DefaultMaxUnits
	}
	totalW, totalN, g, integral := 0.0, 0, 0, true
	for _, it := range items {
		w := max(it.Weight, 0)
		if !eligible(it) || it.Nodes > capNodes || !(w <= capWeight) {
			continue
		}
		if math.IsInf(it.Value, 1) {
			return false
		}
		totalW += w
		totalN += it.Nodes
		g = gcd(g, it.Nodes)
		integral = integral && w == math.Trunc(w)
	}
	weightOK := totalW <= capWeight ||
		integral && capWeight <= float64(buckets) && capWeight == math.Trunc(capWeight)
	if s.ExactItems >= 0 {
		return true // at most 12 items: the exact search
	}
	nodesOK := totalN <= capNodes || min(capNodes, totalN)/g <= maxUnits
	return weightOK && nodesOK
}

func FuzzSolve(f *testing.F) {
	f.Add([]byte{9, 150, 0, 0, 4, 75, 4, 4, 65, 4, 2, 40, 2, 3, 55, 3, 4, 50, 4})
	f.Add([]byte{20, 5, 11, 3, 3, 1, 5, 7, 2, 5, 0, 0, 9, 4, 7, 4, 2, 2, 2})
	f.Add([]byte{127, 1, 0, 0, 3, 1, 19, 3, 1, 19, 5, 0, 3})
	f.Add([]byte{100, 200, 3, 2, 15, 18, 19, 14, 30, 17, 13, 40, 19, 12, 66, 19})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, items, capWeight, capNodes := fuzzInstance(data)
		got := s.Solve(nil, items, capWeight, capNodes)
		if err := checkFeasible(items, got, capWeight, capNodes); err != nil {
			t.Fatalf("%+v capWeight %v capNodes %d: %v", items, capWeight, capNodes, err)
		}
		gotV, _, _, _ := sums(items, maskOf(got))
		wantMask, wantV := bruteForce(items, capWeight, capNodes)
		if gotV > wantV {
			t.Fatalf("%+v capWeight %v capNodes %d: value %v beats brute force %v", items, capWeight, capNodes, gotV, wantV)
		}
		if exactExpected(s, items, capWeight, capNodes) && maskOf(got) != wantMask {
			t.Fatalf("%+v capWeight %v capNodes %d Buckets %d MaxUnits %d: got %v, want %v",
				items, capWeight, capNodes, s.Buckets, s.MaxUnits, got, indices(wantMask))
		}
	})
}
