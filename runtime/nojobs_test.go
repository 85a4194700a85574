package runtime

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// TestTraceWithoutJobs: a trace that gives no job (empty, header only,
// malformed lines skipped, every record dropped by cleaning) fails its run
// with what was read and why each record was dropped; the other runs of the
// plan are unaffected. It used to panic, losing every run's output.
func TestTraceWithoutJobs(t *testing.T) {
	dir := t.TempDir()
	job := func(id, submit, run, procs, req string) string {
		return id + " " + submit + " 0 " + run + " " + procs + " -1 -1 -1 " + req + " -1 1 1 1 -1 1 -1 -1 -1\n"
	}
	traces := []struct {
		name, text string
		skip       bool
		want       string
	}{
		{"empty", "", false, "trace empty.swf has no jobs to simulate: it has no job records (the file is empty, or holds only its header)"},
		{"header", "; MaxNodes: 8\n; UnixStartTime: 0\n", false, "trace header.swf has no jobs to simulate: it has no job records"},
		{"bad", "; MaxNodes: 8\n1 2 3\n\nx\n", true, "trace bad.swf has no jobs to simulate: it has no valid job records, only 2 malformed lines skipped (bad_lines skip), the first at line 2"},
		{"dropped", "; MaxNodes: 8\n" + job("1", "0", "0", "1", "10") + job("2", "0", "-1", "1", "10") +
			job("3", "5", "10", "-1", "10") + job("4", "-5", "10", "1", "10") + job("5", "0", "10", "9", "10"), false,
			"trace dropped.swf has no jobs to simulate: all 5 records were dropped by the cleaning rules (2 with run time ≤ 0, 1 without processors, 1 with negative submit time, 1 wider than the machine's 8 nodes)"},
		{"one", job("1", "0", "0", "1", "10"), false, "its only record was dropped by the cleaning rules (1 with run time ≤ 0)"},
		{"good", job("1", "0", "100", "2", "200") + job("2", "10", "50", "8", "60"), false, ""},
	}
	p := &Plan{}
	for i, tr := range traces {
		path := filepath.Join(dir, tr.name+".swf")
		if err := os.WriteFile(path, []byte(tr.text), 0o644); err != nil {
			t.Fatal(err)
		}
		p.Runs = append(p.Runs, &Run{Index: i, Name: tr.name, Baseline: -1, Policy: Policy{Backfill: EASY}, Machine: testMachine(8),
			Workload: Workload{Kind: SWF, Name: tr.name, Path: path, SkipBadLines: tr.skip},
			Contract: Contract{Name: "flat", Kind: Flat, Price: 0.1}})
	}
	res := Execute(context.Background(), p, Options{Workers: 2, KeepJobs: true})
	for i, tr := range traces {
		r := res[i]
		if tr.want == "" {
			if r.Err != nil {
				t.Errorf("%s: %v", tr.name, r.Err)
			} else if r.Metrics.Jobs != 2 || math.IsNaN(r.Metrics.Cost) || r.Metrics.Cost <= 0 {
				t.Errorf("%s: %d jobs, cost %g", tr.name, r.Metrics.Jobs, r.Metrics.Cost)
			}
			continue
		}
		if r.Err == nil {
			t.Errorf("%s: no error; metrics %+v", tr.name, r.Metrics)
			continue
		}
		if !strings.Contains(r.Err.Error(), tr.want) {
			t.Errorf("%s:\n got %s\nwant %s", tr.name, r.Err, tr.want)
		}
		if tr.name == "dropped" && (r.Workload.Records != 5 || r.Workload.Clean.Dropped() != 5) {
			t.Errorf("%s: the result's workload says %d records, %d dropped", tr.name, r.Workload.Records, r.Workload.Clean.Dropped())
		}
	}
}

// TestSimulateWithoutJobs: the engine itself, given no job, reports zero
// jobs and no energy rather than indexing what it never set up.
func TestSimulateWithoutJobs(t *testing.T) {
	m := testMachine(4)
	s, err := simulate(nil, &m, 4, &Policy{}, nil, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.record().metrics(); got.Jobs != 0 || got.Energy != 0 || len(got.Periods) != 1 {
		t.Errorf("metrics without jobs: %+v", got)
	}
}
