// Package knapsack implements the 0-1 knapsack kernel of Zhou et al.,
// "Reducing Energy Costs for IBM Blue Gene/P via Power-Aware Job
// Scheduling": during on-peak hours the scheduler starts, from a window of
// waiting jobs, the subset that maximizes total value (by default nodes)
// subject to two constraints, total weight (power, W) within a power
// headroom and total nodes within the free nodes. FCFS order would leave
// nodes idle behind a job that does not fit; the knapsack fills them with
// the jobs that fit the power budget best. Ties prefer earlier jobs, so
// queue order still decides between equally good choices.
//
// [Solver.Solve] works in five steps.
//
//  1. Pre-filter. An item that can never be chosen is dropped: Value <= 0
//     or NaN, Nodes < 1, Nodes > capNodes, Weight > capWeight or NaN. A
//     negative Weight counts as 0. If capWeight is NaN or negative, or
//     capNodes <= 0, nothing is chosen; a Weight of 0 still fits
//     capWeight 0.
//  2. Fast paths. If the remaining items fit both constraints together, all
//     are chosen. If they fit one constraint together, only the other can
//     bind and the DP runs over that dimension alone; an infinite capWeight
//     thus never costs a weight dimension.
//  3. Weight discretization. If capWeight and every remaining weight are
//     whole numbers and capWeight <= Buckets, the bucket width q is 1 and
//     the weight dimension is exact. Otherwise q = capWeight/Buckets and
//     each weight is rounded up to whole buckets; a weight within a
//     relative 1e-12 of k·q counts as k buckets, so weights computed as
//     multiples of q are not pushed up a bucket by floating-point error.
//     Rounding up keeps the chosen set within capWeight (up to that 1e-12
//     relative noise) at the price of optimality: the result is at least as
//     good as the true optimum for capacity capWeight − n·q, n being the
//     number of items, and never better than the optimum for capWeight.
//  4. Node dimension. Exact after dividing node counts by their gcd g and
//     capNodes by g (rounded down, and capped at the items' total). If that
//     still leaves more than MaxUnits units, node counts are rounded up to
//     units of r = ceil(units/MaxUnits) and the capacity down: the chosen
//     set stays feasible but may be suboptimal, at least as good as the
//     optimum with g·(r−1)·(n+1) fewer free nodes.
//  5. DP. A table over (node units, weight buckets) holds the best total
//     value, O(J·U·B) time for J items, U node units and B buckets. Items
//     are added last to first, so a cell holds the best value of items
//     i..J-1 within that capacity, and one bit per (item, cell) records
//     whether taking item i is at least as good as skipping it there. The
//     solution is rebuilt from item 0 at full capacity, taking every item
//     whose bit is set: among optimal subsets, this is the one that takes
//     the earliest possible items (lexicographically first by index).
//     Values are compared with a plain >= on float64 sums, no tolerance:
//     whole-number values such as node counts sum exactly, so ties are
//     real ties; with fractional values rounding may decide a near-tie,
//     and with an infinite Value all totals containing it tie at +Inf.
//
// The table takes (U+1)·(B+1) float64s plus J·(U+1)·(B+1) bits: about 2 MB
// plus 33 kB per item with the defaults, 8.7 MB for a window of 200 jobs.
package knapsack

import "math"

// Item is one candidate job.
type Item struct {
	Value  float64 // what to maximize (e.g. nodes); items with Value <= 0 are never chosen
	Weight float64 // e.g. W; must be >= 0 (negative is treated as 0)
	Nodes  int     // >= 1
}

// DefaultBuckets keeps whole-watt budgets up to ~1 kW exact and bounds the
// rounding loss of larger ones to 1/1024 of the budget per chosen job.
const DefaultBuckets = 1024

// DefaultExactItems is the largest number of candidates solved by exact
// search: up to 2^16 subsets, at worst about as costly as one table with
// the default buckets for 80 node units, and usually far less thanks to
// pruning.
const DefaultExactItems = 16

// DefaultMaxUnits keeps the node dimension exact for up to 131,072 free
// nodes in 512-node partitions (Blue Gene/P Intrepid has 40,960) while the
// table stays at 33 kB of decision bits per job.
const DefaultMaxUnits = 256

// snapTol is the relative slack under which a weight just above k buckets
// still counts as k: large enough to absorb the few ulps of error of a
// weight computed as k·q, small enough that the chosen set's true weight
// can exceed capWeight only by capWeight·snapTol.
const snapTol = 1e-12

// Solver solves repeatedly without allocating once its buffers have grown,
// because a scheduler calls it at every on-peak scheduling event. The zero
// value is ready to use. Not safe for concurrent use.
type Solver struct {
	// Buckets is the number of steps the weight capacity is divided into
	// (0 = DefaultBuckets). More buckets lose less to rounding but cost
	// time and memory linearly.
	Buckets int
	// ExactItems is the largest number of candidates (after the
	// pre-filter) solved by exact search instead of the table: 0 =
	// DefaultExactItems, negative = always the table.
	ExactItems int
	// MaxUnits bounds the node dimension of the table (0 =
	// DefaultMaxUnits), so that a large pool of free nodes with unrelated
	// job sizes cannot blow up time and memory.
	MaxUnits int

	cands []cand
	best  []float64 // best[u*(B+1)+b]: best value of the items added so far
	take  []uint64  // take[j*stride:]: decision bits of candidate j, one per cell
}

// cand is an item that survived the pre-filter, in table units.
type cand struct {
	idx   int     // index into items
	nodes int     // node count, then node units
	w     float64 // weight, negative clamped to 0
	wb    int     // weight buckets
	v     float64
}

// Solve returns the indices, ascending, of the chosen items into dst[:0],
// so that a caller reusing dst does not allocate.
func (s *Solver) Solve(dst []int, items []Item, capWeight float64, capNodes int) []int {
	dst = dst[:0]
	if !(capWeight >= 0) || capNodes <= 0 {
		return dst
	}

	// 1. Pre-filter, gathering what the fast paths and scaling need.
	c := s.cands[:0]
	totalW := 0.0
	totalN := 0
	nodesOverflow := false
	integral := true
	g := 0
	for i := range items {
		it := &items[i]
		w := max(it.Weight, 0) // max keeps NaN, which the next test drops
		if !(it.Value > 0) || it.Nodes < 1 || it.Nodes > capNodes || !(w <= capWeight) {
			continue
		}
		c = append(c, cand{idx: i, nodes: it.Nodes, w: w, v: it.Value})
		totalW += w
		if totalN > math.MaxInt-it.Nodes {
			nodesOverflow = true
		} else {
			totalN += it.Nodes
		}
		integral = integral && w == math.Trunc(w)
		g = gcd(g, it.Nodes)
	}
	s.cands = c
	if len(c) == 0 {
		return dst
	}

	// 2. Fast paths. Weights are >= 0 and not NaN, so totalW is not NaN.
	weightBinds := totalW > capWeight
	nodesBind := nodesOverflow || totalN > capNodes
	if !weightBinds && !nodesBind {
		for j := range c {
			dst = append(dst, c[j].idx)
		}
		return dst
	}

	// Small instances (every window of Zhou's size 10) are solved exactly,
	// in true weights, by a search that is cheaper than the table.
	exact := s.ExactItems
	if exact == 0 {
		exact = DefaultExactItems
	}
	if len(c) <= min(exact, 63) {
		return s.search(dst, c, capWeight, capNodes)
	}

	// 3. Weight buckets. A binding weight means capWeight is finite, and
	// positive unless every weight is 0 (then it cannot bind), so the
	// ratio below lies in [0, 1] without overflow or division by zero.
	B := 0
	if weightBinds {
		buckets := s.Buckets
		if buckets <= 0 {
			buckets = DefaultBuckets
		}
		if integral && capWeight <= float64(buckets) && capWeight == math.Trunc(capWeight) {
			B = int(capWeight)
			for j := range c {
				c[j].wb = int(c[j].w)
			}
		} else {
			B = buckets
			fb := float64(B)
			for j := range c {
				c[j].wb = int(math.Ceil(c[j].w / capWeight * fb * (1 - snapTol)))
			}
		}
	} else {
		for j := range c {
			c[j].wb = 0
		}
	}

	// 4. Node units.
	U := 0
	if nodesBind {
		maxUnits := s.MaxUnits
		if maxUnits <= 0 {
			maxUnits = DefaultMaxUnits
		}
		capU := capNodes / g
		if !nodesOverflow {
			capU = min(capU, totalN/g)
		}
		r := 1
		if capU > maxUnits {
			r = (capU-1)/maxUnits + 1
			capU /= r
		}
		U = capU
		for j := range c {
			c[j].nodes = (c[j].nodes/g-1)/r + 1
		}
	} else {
		for j := range c {
			c[j].nodes = 0
		}
	}

	// 5. DP over (node units, weight buckets), items last to first.
	W := B + 1
	cells := (U + 1) * W
	stride := (cells + 63) >> 6
	s.best = grow(s.best, cells)
	s.take = grow(s.take, len(c)*stride)
	best := s.best[:cells]
	clear(best)
	for j := len(c) - 1; j >= 0; j-- {
		bits := s.take[j*stride : (j+1)*stride]
		clear(bits)
		nu, wb, v := c[j].nodes, c[j].wb, c[j].v
		if nu > U || wb > B {
			continue // possible after rounding node units up
		}
		d := nu*W + wb
		for u := U; u >= nu; u-- {
			lo, hi := u*W+wb, u*W+W
			dstRow := best[lo:hi]
			srcRow := best[lo-d : hi-d]
			for x := len(dstRow) - 1; x >= 0; x-- {
				t := srcRow[x] + v
				if t >= dstRow[x] {
					dstRow[x] = t
					k := lo + x
					bits[k>>6] |= 1 << (k & 63)
				}
			}
		}
	}

	// Rebuild forward: take item j whenever taking it is still optimal.
	k := cells - 1
	for j := range c {
		if s.take[j*stride+k>>6]>>(k&63)&1 != 0 {
			dst = append(dst, c[j].idx)
			k -= c[j].nodes*W + c[j].wb
		}
	}
	return dst
}

// grow returns buf with length at least n, reallocating only when its
// capacity is too small, so warm solvers do not allocate.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// search solves a small instance exactly: a depth-first search that tries
// taking each item before skipping it, in item order, pruning branches
// whose remaining values cannot beat the best found. Every item has a
// positive value, so a subset is worth less than any subset extending it,
// and the first subset found with the best value is the preferred one:
// the search meets subsets in the tie rule's order (taking earlier items
// first). Weights and nodes are compared exactly, without buckets.
func (s *Solver) search(dst []int, c []cand, capWeight float64, capNodes int) []int {
	rem := s.best[:0] // rem[i]: total value of items i.. (reusing the table's buffer)
	rem = append(rem, make([]float64, len(c)+1)...)
	for i := len(c) - 1; i >= 0; i-- {
		rem[i] = rem[i+1] + c[i].v
	}
	s.best = rem
	st := searchState{c: c, rem: rem, capW: capWeight, capN: capNodes, bestV: math.Inf(-1)}
	st.visit(0, 0, 0, 0, 0)
	for i := range c {
		if st.bestMask&(1<<i) != 0 {
			dst = append(dst, c[i].idx)
		}
	}
	return dst
}

type searchState struct {
	c        []cand
	rem      []float64
	capW     float64
	capN     int
	bestV    float64
	bestMask uint64
}

func (st *searchState) visit(i int, v, w float64, n int, mask uint64) {
	if v > st.bestV {
		st.bestV, st.bestMask = v, mask
	}
	for ; i < len(st.c); i++ {
		if !(v+st.rem[i] > st.bestV) {
			return // even taking everything left cannot beat the best
		}
		ci := &st.c[i]
		if w+ci.w <= st.capW && ci.nodes <= st.capN-n {
			st.visit(i+1, v+ci.v, w+ci.w, n+ci.nodes, mask|1<<i)
		}
		// then skip item i: continue with i+1 at the same subset
	}
}
