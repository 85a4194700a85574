package runtime

import (
	"fmt"
	"slices"
)

// ShardRuns is shard i's part of the plan (1 ≤ i ≤ n), in plan order:
// the plan's runs, ordered by comparison group (a baseline with the runs
// compared with it and the runs whose budgets depend on them; groups in
// the order of their first run), cut into n contiguous parts as equal in
// number as they can be. It depends on the plan alone, so every shard of
// a sweep computes the same cut, and a group is split only where a cut
// falls in it. A shard simulates its runs and what they need
// (Options.Runs): a baseline is simulated in every shard that has a run
// compared with it.
func ShardRuns(p *Plan, i, n int) ([]int, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want 1 ≤ i ≤ n", i, n)
	}
	parent := make([]int, len(p.Runs))
	for k := range parent {
		parent[k] = k
	}
	find := func(k int) int {
		for parent[k] != k {
			parent[k] = parent[parent[k]]
			k = parent[k]
		}
		return k
	}
	join := func(a, b int) {
		if a < 0 || b < 0 || a >= len(parent) || b >= len(parent) {
			return
		}
		ra, rb := find(a), find(b)
		if ra > rb {
			ra, rb = rb, ra
		}
		parent[rb] = ra // the root is the group's first run
	}
	for k, r := range p.Runs {
		join(k, r.Baseline)
		for _, d := range r.DependsOn {
			join(k, d)
		}
	}
	var groups [][]int
	at := map[int]int{}
	for k := range p.Runs {
		root := find(k)
		g, ok := at[root]
		if !ok {
			g = len(groups)
			at[root] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], k)
	}
	var order []int
	for _, g := range groups {
		order = append(order, g...)
	}
	size, extra := len(order)/n, len(order)%n
	from := (i-1)*size + min(i-1, extra)
	to := from + size
	if i <= extra {
		to++
	}
	part := slices.Clone(order[from:to])
	slices.Sort(part)
	return part, nil
}

// CompleteComparisons finishes the comparisons of results merged from
// shards: a baseline has inverse pairs (none, against itself) when a run
// compared with it has them, which the baseline's own shard may not
// have simulated. Each run's own savings and pairs are complete in its
// shard, which simulates its baseline.
func CompleteComparisons(p *Plan, res []*Result) {
	for _, r := range res {
		if r == nil || r.Err != nil || r.Run.Baseline < 0 || !r.Metrics.HasInversePairs {
			continue
		}
		if b := res[r.Run.Baseline]; b != nil && b.Err == nil {
			b.Metrics.HasInversePairs = true
		}
	}
}
