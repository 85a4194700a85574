package workload

import (
	"math"
	"reflect"
	"testing"
)

// rec is a record with sane defaults for the fields a test does not set.
func rec(line int, submit, runtime float64, alloc, req int, reqTime float64) Record {
	return Record{ID: int64(line), Submit: submit, Wait: -1, Runtime: runtime, AllocProcs: alloc,
		ReqProcs: req, ReqTime: reqTime, Status: 1, User: 3, Group: 4, Queue: 5, Partition: 6, Line: line}
}

func TestCleanRules(t *testing.T) {
	tests := []struct {
		name  string
		c     Cleaning
		r     Record
		job   *Job // nil: dropped
		stats CleanStats
	}{
		{"kept as is", Cleaning{Cores: 1}, rec(1, 10, 100, 4, 4, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 4, Nodes: 4, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"procs from requested", Cleaning{Cores: 1}, rec(1, 10, 100, -1, 6, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 6, Nodes: 6, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{ProcsFromRequested: 1}},
		{"allocated zero uses requested", Cleaning{Cores: 1}, rec(1, 10, 100, 0, 6, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 6, Nodes: 6, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{ProcsFromRequested: 1}},
		{"allocated wins over requested", Cleaning{Cores: 1}, rec(1, 10, 100, 3, 6, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 3, Nodes: 3, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"no procs at all", Cleaning{Cores: 1}, rec(1, 10, 100, -1, -1, 200), nil, CleanStats{DroppedProcs: 1}},
		{"zero run time", Cleaning{Cores: 1}, rec(1, 10, 0, 4, 4, 200), nil, CleanStats{DroppedRuntime: 1}},
		{"unknown run time", Cleaning{Cores: 1}, rec(1, 10, -1, 4, 4, 200), nil, CleanStats{DroppedRuntime: 1}},
		{"NaN run time", Cleaning{Cores: 1}, rec(1, 10, math.NaN(), 4, 4, 200), nil, CleanStats{DroppedRuntime: 1}},
		{"first rule only", Cleaning{Cores: 1}, rec(1, -5, 0, -1, -1, 200), nil, CleanStats{DroppedRuntime: 1}},
		{"procs before submit", Cleaning{Cores: 1}, rec(1, -5, 10, -1, -1, 200), nil, CleanStats{DroppedProcs: 1}},
		{"negative submit", Cleaning{Cores: 1}, rec(1, -5, 10, 1, 1, 200), nil, CleanStats{DroppedSubmit: 1}},
		{"submit zero is fine", Cleaning{Cores: 1}, rec(1, 0, 10, 1, 1, 200),
			&Job{ID: 1, Submit: 0, Runtime: 10, Walltime: 200, Procs: 1, Nodes: 1, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"nodes round up", Cleaning{Cores: 8}, rec(1, 10, 100, 17, 17, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 17, Nodes: 3, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"nodes exact", Cleaning{Cores: 8}, rec(1, 10, 100, 16, 16, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 16, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"cores below one count as one", Cleaning{Cores: 0}, rec(1, 10, 100, 5, 5, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 5, Nodes: 5, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"too wide", Cleaning{Cores: 8, Nodes: 2}, rec(1, 10, 100, 17, 17, 200), nil, CleanStats{DroppedWide: 1}},
		{"exactly as wide", Cleaning{Cores: 8, Nodes: 3}, rec(1, 10, 100, 17, 17, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 17, Nodes: 3, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"no width limit", Cleaning{Cores: 1, Nodes: 0}, rec(1, 10, 100, 1<<20, 1, 200),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 200, Procs: 1 << 20, Nodes: 1 << 20, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"wide counted after fallback", Cleaning{Cores: 1, Nodes: 4}, rec(1, 10, 100, -1, 6, 200), nil, CleanStats{DroppedWide: 1}},
		{"missing requested time", Cleaning{Cores: 1}, rec(1, 10, 100, 2, 2, -1),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 100, Procs: 2, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{WalltimeFromRuntime: 1}},
		{"zero requested time", Cleaning{Cores: 1}, rec(1, 10, 100, 2, 2, 0),
			&Job{ID: 1, Submit: 10, Runtime: 100, Walltime: 100, Procs: 2, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{WalltimeFromRuntime: 1}},
		{"killed at limit", Cleaning{Cores: 1}, rec(1, 10, 250.5, 2, 2, 200),
			&Job{ID: 1, Submit: 10, Runtime: 200, Walltime: 200, Procs: 2, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1, Capped: true},
			CleanStats{RuntimeCapped: 1}},
		{"ends at its limit", Cleaning{Cores: 1}, rec(1, 10, 200, 2, 2, 200),
			&Job{ID: 1, Submit: 10, Runtime: 200, Walltime: 200, Procs: 2, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1},
			CleanStats{}},
		{"every adjustment at once", Cleaning{Cores: 4, Nodes: 2}, rec(1, 10, 300, -1, 5, 200),
			&Job{ID: 1, Submit: 10, Runtime: 200, Walltime: 200, Procs: 5, Nodes: 2, User: 3, Group: 4, Queue: 5, Partition: 6, Line: 1, Capped: true},
			CleanStats{ProcsFromRequested: 1, RuntimeCapped: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jobs, st := Clean(&Trace{Records: []Record{tc.r}}, tc.c)
			want := tc.stats
			want.Records = 1
			if tc.job != nil {
				want.Jobs = 1
			}
			if st != want {
				t.Errorf("stats %+v, want %+v", st, want)
			}
			if st.Jobs+st.Dropped() != st.Records {
				t.Errorf("%d jobs + %d dropped != %d records", st.Jobs, st.Dropped(), st.Records)
			}
			switch {
			case tc.job == nil && len(jobs) != 0:
				t.Errorf("kept %+v, want it dropped", jobs)
			case tc.job != nil && (len(jobs) != 1 || jobs[0] != *tc.job):
				t.Errorf("got %+v, want %+v", jobs, *tc.job)
			}
		})
	}
}

func TestCleanStableSort(t *testing.T) {
	tr := &Trace{Records: []Record{
		rec(10, 5, 1, 1, 1, 10), rec(11, 3, 1, 1, 1, 10), rec(12, 5, 1, 1, 1, 10),
		rec(13, 0, 0, 1, 1, 10), // dropped: must not disturb the order
		rec(14, 3, 1, 1, 1, 10), rec(15, 4.5, 1, 1, 1, 10), rec(16, 3, 1, 1, 1, 10),
	}}
	jobs, st := Clean(tr, Cleaning{Cores: 1})
	var lines []int
	for _, j := range jobs {
		lines = append(lines, int(j.Line))
	}
	if want := []int{11, 14, 16, 15, 10, 12}; !reflect.DeepEqual(lines, want) || st.Jobs != 6 || st.DroppedRuntime != 1 {
		t.Fatalf("lines %v, want %v (stats %+v)", lines, want, st)
	}
	// The input is left alone.
	if tr.Records[0].Line != 10 || tr.Records[1].Line != 11 {
		t.Fatal("Clean reordered the trace's records")
	}
}

func TestCleanEmpty(t *testing.T) {
	jobs, st := Clean(&Trace{}, Cleaning{Cores: 1, Nodes: 10})
	if len(jobs) != 0 || st != (CleanStats{}) || st.Dropped() != 0 {
		t.Fatalf("%v %+v", jobs, st)
	}
}

// checkCleaned asserts what every cleaned job list must satisfy.
func checkCleaned(t *testing.T, tr *Trace, c Cleaning, jobs []Job, st CleanStats) {
	t.Helper()
	if st.Records != len(tr.Records) || st.Jobs != len(jobs) || st.Jobs+st.Dropped() != st.Records {
		t.Fatalf("counts do not add up: %+v, %d jobs", st, len(jobs))
	}
	for i, j := range jobs {
		if !(j.Runtime > 0) || j.Walltime < j.Runtime || j.Procs <= 0 || j.Submit < 0 ||
			j.Nodes != (j.Procs+max(c.Cores, 1)-1)/max(c.Cores, 1) || c.Nodes > 0 && j.Nodes > c.Nodes || j.Line <= 0 {
			t.Fatalf("job %d invalid: %+v", i, j)
		}
		if i > 0 {
			p := jobs[i-1]
			if j.Submit < p.Submit || j.Submit == p.Submit && j.Line < p.Line {
				t.Fatalf("jobs %d and %d out of order: %+v, %+v", i-1, i, p, j)
			}
		}
	}
}

func TestCleanKTH(t *testing.T) {
	tr := loadTrace(t, "KTH-SP2-1996-2.1-cln.swf.gz")
	c := Cleaning{Cores: 1, Nodes: 100}
	jobs, st := Clean(tr, c)
	checkCleaned(t, tr, c, jobs, st)
	// The README: 8 jobs with run time 0, 1 without a processor count, 475
	// that ran longer than requested.
	want := CleanStats{Records: 28476, Jobs: 28467, DroppedRuntime: 8, DroppedProcs: 1, RuntimeCapped: 475}
	if st != want || st.Dropped() != 9 {
		t.Fatalf("got %+v, want %+v", st, want)
	}
}

func TestCleanRealTraces(t *testing.T) {
	for file, info := range traceInfo {
		t.Run(file, func(t *testing.T) {
			tr := loadTrace(t, file)
			c := Cleaning{Cores: info.cores, Nodes: info.nodes}
			jobs, st := Clean(tr, c)
			checkCleaned(t, tr, c, jobs, st)
			switch file {
			case "NASA-iPSC-1993-3.1-cln.swf.gz", "lublin_256.swf.gz":
				// No requested times at all.
				if st.WalltimeFromRuntime != st.Jobs || st.RuntimeCapped != 0 {
					t.Errorf("%+v: every job should take its run time as walltime", st)
				}
				if file == "lublin_256.swf.gz" && st.Jobs != 10000 {
					t.Errorf("%+v: the model's jobs should all be kept", st)
				}
			case "LLNL-Thunder-2007-1.1-cln.swf.gz":
				// No waits; many requested times missing; not sorted.
				for _, r := range tr.Records {
					if r.Wait != -1 {
						t.Fatalf("line %d has a wait %g", r.Line, r.Wait)
					}
				}
				if st.WalltimeFromRuntime < st.Jobs/2 || st.WalltimeFromRuntime == st.Jobs {
					t.Errorf("%+v: expected many (not all) jobs without requested time", st)
				}
				sorted := true
				for i := 1; i < len(tr.Records); i++ {
					sorted = sorted && tr.Records[i].Submit >= tr.Records[i-1].Submit
				}
				if sorted {
					t.Errorf("the file is known to be unsorted; this test no longer tests sorting")
				}
			}
		})
	}
}

// A Cleaner fed a trace in pieces gives what Clean gives for the whole,
// and says whether the jobs so far are in submit order.
func TestCleanerInPieces(t *testing.T) {
	tr := &Trace{Records: []Record{
		rec(10, 5, 1, 1, 1, 10), rec(11, 5, 1, 1, 1, 10), rec(12, 6, 0, 1, 1, 10),
		rec(13, 7, 1, 1, 1, 10), rec(14, 3, 1, 1, 1, 10), rec(15, 8, 1, 1, 1, 10),
	}}
	want, wantSt := Clean(tr, Cleaning{Cores: 1, Nodes: 4})
	for cut := range len(tr.Records) + 1 {
		cl := NewCleaner(Cleaning{Cores: 1, Nodes: 4}, 0)
		cl.Add(tr.Records[:cut])
		if sorted := cut < 5; cl.Sorted() != sorted {
			t.Errorf("after %d records: Sorted %v, want %v", cut, cl.Sorted(), sorted)
		}
		cl.Add(tr.Records[cut:])
		jobs, st := cl.Finish()
		if !reflect.DeepEqual(jobs, want) || st != wantSt {
			t.Fatalf("cut at %d: got %+v %+v, want %+v %+v", cut, jobs, st, want, wantSt)
		}
	}
}
