package compiler_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestKunkelSchedulersOnTheGreedyExample runs kunkel.md §2.8 through the
// schedulers of std/kunkel and std/policies as compiled: J1 (submit 0,
// 3 nodes, 100 s), J2 (10, 4, 50), J3 (20, 1, 200) on 4 nodes, requested
// times exact. The greedy first fits (BackfillDelay and the biggest- and
// longest-first orders, which all see J2 not fit and J3 fit at 20) start J3
// at once and J2 at 220; EASY refuses J3 (it would end after J2's shadow
// time, 100) and FIFO waits: J2 at 100, J3 at 150.
func TestKunkelSchedulersOnTheGreedyExample(t *testing.T) {
	trace := "; MaxProcs: 4\n" +
		"1 0 -1 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 10 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"3 20 -1 200 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n"
	policies := []string{"backfill_delay", "biggest_first_backfill", "longest_first_backfill", "backfill_shutdown_delay", "easy", "fifo"}
	want := map[string][]float64{
		"backfill_delay": {0, 220, 20}, "biggest_first_backfill": {0, 220, 20}, "longest_first_backfill": {0, 220, 20},
		"backfill_shutdown_delay": {0, 220, 20}, "easy": {0, 100, 150}, "fifo": {0, 100, 150},
	}
	scenario := header + `
		experiment e { workload swf "t.swf"; machine m; contract kunkel_fixed; policy [` + strings.Join(policies, ", ") + `] }`
	res := compileFiles("main.pwr", map[string]string{"main.pwr": scenario, "t.swf": trace}, compiler.Options{})
	if res.Plan == nil {
		t.Fatalf("no plan: %v", res.Diags)
	}
	for _, r := range res.Plan.Runs {
		switch r.Policy.Name {
		case "backfill_delay", "backfill_shutdown_delay":
			if r.Policy.Backfill != runtime.Greedy || r.Policy.Depth != 1000 {
				t.Errorf("%s: backfill %v depth %d, want greedy depth 1000", r.Policy.Name, r.Policy.Backfill, r.Policy.Depth)
			}
		case "biggest_first_backfill", "longest_first_backfill":
			if r.Policy.Backfill != runtime.Greedy || r.Policy.Depth != 100 {
				t.Errorf("%s: backfill %v depth %d, want greedy depth 100", r.Policy.Name, r.Policy.Backfill, r.Policy.Depth)
			}
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	writeFile(t, "t.swf", trace)
	for i, r := range runtime.Execute(context.Background(), res.Plan, runtime.Options{KeepJobs: true}) {
		name := res.Plan.Runs[i].Policy.Name
		if r.Err != nil {
			t.Fatalf("%s: %v", name, r.Err)
		}
		var starts []float64
		for _, j := range r.Jobs {
			starts = append(starts, j.Start)
		}
		if !slices.Equal(starts, want[name]) {
			t.Errorf("%s: starts %v, want %v", name, starts, want[name])
		}
	}
}
