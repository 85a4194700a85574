package runtime

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

func TestCutJobs(t *testing.T) {
	paris, err := tariff.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	// Trace time 0 is 2012-09-05 00:00 in Paris (UTC+2 in summer).
	epoch := time.Date(2012, 9, 5, 0, 0, 0, 0, paris).Unix()
	clock := tariff.Clock{Epoch: epoch, Loc: paris}
	const day = 86400.0
	// Job k is submitted k/2 days after 10 s (the first submission) and
	// runs in partition k % 3.
	var jobs []workload.Job
	for k := range 8 {
		jobs = append(jobs, workload.Job{ID: int64(k + 1), Submit: 10 + float64(k)*day/2, Runtime: 1, Walltime: 1, Procs: 1, Nodes: 1, Partition: int32(k % 3)})
	}
	partition := func(p int) *Expr {
		return &Expr{Source: "job.partition == " + string(rune('0'+p)), Fields: FieldPartition,
			Bool: func(e *Env) bool { return e.Job.Partition == p }}
	}
	ids := func(js []workload.Job) []int64 {
		out := []int64{}
		for _, j := range js {
			out = append(out, j.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		w     Workload
		ids   []int64
		stats CutStats
		err   string
	}{
		{name: "no cuts", ids: []int64{1, 2, 3, 4, 5, 6, 7, 8}},
		{name: "keep", w: Workload{Keep: partition(1)}, ids: []int64{2, 5, 8}, stats: CutStats{Keep: 5}},
		{name: "keep none", w: Workload{Keep: partition(7)}, ids: []int64{}, stats: CutStats{Keep: 8}},
		{
			// [first + 1 d, first + 2.5 d): the jobs submitted 1, 1.5 and 2
			// days after the first; the one at 2.5 days is out (half-open).
			name: "offsets", w: Workload{Submitted: &Window{From: Instant{Offset: day}, To: Instant{Offset: 2.5 * day}}},
			ids: []int64{3, 4, 5}, stats: CutStats{Submitted: 5},
		},
		{
			// A job fails keep first: counted there, not under submitted.
			name: "keep then submitted", w: Workload{Keep: partition(0), Submitted: &Window{From: Instant{Offset: 0}, To: Instant{Offset: 2 * day}}},
			ids: []int64{1, 4}, stats: CutStats{Keep: 5, Submitted: 1},
		},
		{
			// Local dates in Paris: from 2012-09-06 00:00 (trace time 1 d) to
			// 2012-09-07 00:00:10 (trace time 2 d + 10 s), which takes the
			// job submitted then only if the end were inclusive.
			name: "dates", w: Workload{Submitted: &Window{From: Instant{Date: "2012-09-06T00:00:00"}, To: Instant{Date: "2012-09-07T00:00:10"}}},
			ids: []int64{3, 4}, stats: CutStats{Submitted: 6},
		},
		{
			name: "date and offset", w: Workload{Submitted: &Window{From: Instant{Date: "2012-09-08T00:00:00"}, To: Instant{Offset: 100 * day}}},
			ids: []int64{7, 8}, stats: CutStats{Submitted: 6},
		},
		{
			name: "empty window", w: Workload{Submitted: &Window{From: Instant{Date: "2012-09-08T00:00:00"}, To: Instant{Offset: day}}},
			err: `the submission window "2012-09-08 00:00" .. 1 d is empty on this trace's clock`,
		},
		{
			name: "rule fails",
			w: Workload{Keep: &Expr{Source: "boom", Bool: func(e *Env) bool {
				if e.Job.ID == 3 {
					panic(&EvalError{Expr: &Expr{Source: "boom", Where: "x.pwr:1:1"}, Err: errors.New("no")})
				}
				return true
			}}},
			err: "x.pwr:1:1: rule `boom` failed: no",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]workload.Job(nil), jobs...)
			kept, stats, err := cutJobs(jobs, &tc.w, 10, clock, nil)
			if !reflect.DeepEqual(jobs, orig) {
				t.Fatal("cutJobs changed its input")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(kept); !reflect.DeepEqual(got, tc.ids) {
				t.Errorf("kept %v, want %v", got, tc.ids)
			}
			if stats != tc.stats || stats.Dropped() != len(jobs)-len(kept) {
				t.Errorf("stats %+v (%d dropped), want %+v", stats, stats.Dropped(), tc.stats)
			}
		})
	}
}

// TestCutJobsFillsPartition: the keep rule reads the fields fillJob sets,
// job.partition included.
func TestCutJobsFillsPartition(t *testing.T) {
	jobs := []workload.Job{{ID: 1, Partition: 10, Queue: 2}, {ID: 2, Partition: 10, Queue: 3}, {ID: 3, Partition: 4, Queue: 2}}
	rule := &Expr{Fields: FieldPartition | FieldQueue, Bool: func(e *Env) bool { return e.Job.Partition == 10 && e.Job.Queue == 2 }}
	kept, stats, err := cutJobs(jobs, &Workload{Keep: rule}, 0, tariff.Clock{}, nil)
	if err != nil || len(kept) != 1 || kept[0].ID != 1 || stats.Keep != 2 {
		t.Errorf("kept %+v, stats %+v, err %v", kept, stats, err)
	}
}
