package knapsack

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// bgpInstance draws a Blue Gene/P-like window: partitions of 512..8192
// nodes (gcd 512), 20..33 kW per 1024 nodes (non-integer watts, so the
// weight dimension is rounded), about 20480 free nodes and a power headroom
// of 40% of the window's total power. Both constraints bind at window 10;
// from window 50 on, 40% of the window's power exceeds what 20480 nodes
// draw, so only nodes bind in the optimum, but the DP still runs in 2-D and
// costs the same.
func bgpInstance(r *rand.Rand, window int) (items []Item, capWeight float64, capNodes int) {
	sizes := []int{512, 1024, 2048, 4096, 8192}
	items = make([]Item, window)
	total := 0.0
	for i := range items {
		n := sizes[r.IntN(len(sizes))]
		w := float64(n) * (20000 + 13000*r.Float64()) / 1024
		items[i] = Item{Value: float64(n), Weight: w, Nodes: n}
		total += w
	}
	return items, 0.4 * total, 18432 + r.IntN(4097)
}

// anyNodesInstance draws a window of jobs of 1..512 nodes on a pool of 5000
// free nodes: the gcd is almost always 1, so the node dimension is rounded
// to DefaultMaxUnits units.
func anyNodesInstance(r *rand.Rand, window int) (items []Item, capWeight float64, capNodes int) {
	items = make([]Item, window)
	total := 0.0
	for i := range items {
		n := 1 + r.IntN(512)
		w := float64(n) * (20000 + 13000*r.Float64()) / 1024
		items[i] = Item{Value: float64(n), Weight: w, Nodes: n}
		total += w
	}
	return items, 0.4 * total, 5000
}

type instance struct {
	items     []Item
	capWeight float64
	capNodes  int
}

func benchSolve(b *testing.B, window int, gen func(*rand.Rand, int) ([]Item, float64, int)) {
	r := rand.New(rand.NewPCG(uint64(window), 42))
	insts := make([]instance, 32)
	for i := range insts {
		items, capWeight, capNodes := gen(r, window)
		insts[i] = instance{items, capWeight, capNodes}
	}
	var s Solver
	dst := make([]int, 0, window)
	for _, in := range insts {
		dst = s.Solve(dst, in.items, in.capWeight, in.capNodes) // warm up
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		in := &insts[i%len(insts)]
		dst = s.Solve(dst, in.items, in.capWeight, in.capNodes)
		i++
	}
}

// BenchmarkSolve times one scheduling decision over windows of waiting
// jobs; allocs/op must stay 0.
func BenchmarkSolve(b *testing.B) {
	windows := []int{10, 50, 200}
	for _, w := range windows {
		b.Run(fmt.Sprintf("window=%d", w), func(b *testing.B) { benchSolve(b, w, bgpInstance) })
	}
	b.Run("nodes=1", func(b *testing.B) {
		for _, w := range windows {
			b.Run(fmt.Sprintf("window=%d", w), func(b *testing.B) { benchSolve(b, w, anyNodesInstance) })
		}
	})
}
