package runtime_test

import (
	"slices"
	"testing"

	"github.com/pwrc/pwrc/runtime"
)

// Shards cut the plan into parts as equal as they can be, each run in
// exactly one, the same parts every time; a cut into as many shards as
// there are comparison groups (zhou_bgp: one per pricing ratio) keeps
// every baseline with the runs compared with it.
func TestShardRuns(t *testing.T) {
	p := compile(t, "../examples/zhou_bgp.pwr")
	for n := 1; n <= len(p.Runs)+2; n++ {
		seen := make([]int, len(p.Runs))
		small, big := len(p.Runs), 0
		for i := 1; i <= n; i++ {
			part, err := runtime.ShardRuns(p, i, n)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := runtime.ShardRuns(p, i, n)
			if !slices.Equal(part, again) || !slices.IsSorted(part) {
				t.Fatalf("shard %d/%d: %v, then %v", i, n, part, again)
			}
			for _, k := range part {
				seen[k]++
			}
			small, big = min(small, len(part)), max(big, len(part))
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("%d shards: run %s in %d of them", n, p.Runs[k].Name, c)
			}
		}
		if big-small > 1 {
			t.Errorf("%d shards: from %d to %d runs", n, small, big)
		}
	}
	for i := 1; i <= 3; i++ {
		part, _ := runtime.ShardRuns(p, i, 3)
		for _, k := range part {
			if b := p.Runs[k].Baseline; b >= 0 && !slices.Contains(part, b) {
				t.Errorf("shard %d/3: run %s without its baseline %s", i, p.Runs[k].Name, p.Runs[b].Name)
			}
		}
	}
	for _, bad := range [][2]int{{0, 3}, {4, 3}, {1, 0}} {
		if _, err := runtime.ShardRuns(p, bad[0], bad[1]); err == nil {
			t.Errorf("shard %d/%d accepted", bad[0], bad[1])
		}
	}
}
