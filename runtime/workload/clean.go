package workload

import (
	"cmp"
	"math"
	"slices"
)

// Cleaning describes the machine a trace is replayed on.
type Cleaning struct {
	Cores int // cores (SWF processors) per node; values below 1 count as 1
	Nodes int // machine width in nodes; 0 (or less) = no width limit
}

// CleanStats counts what each cleaning rule did, for the user to see. The
// Dropped* counts partition the dropped records (each counts under the first
// rule that applies); the other counts describe kept jobs only.
type CleanStats struct {
	Records             int // data records read
	Jobs                int // jobs kept
	DroppedRuntime      int // run time ≤ 0 (or unknown)
	DroppedProcs        int // procs ≤ 0 after the fallback
	DroppedSubmit       int // submit < 0
	DroppedWide         int // nodes > machine width
	ProcsFromRequested  int // field 5 missing (≤ 0) so field 8 was used
	WalltimeFromRuntime int // requested time missing (≤ 0) so the run time was used
	RuntimeCapped       int // run time > requested time: killed at the requested time
	MeasuredPower       int // with a measured power (Record.Power, from sacct)
}

// Dropped is the number of records not turned into jobs.
func (s CleanStats) Dropped() int {
	return s.DroppedRuntime + s.DroppedProcs + s.DroppedSubmit + s.DroppedWide
}

// Clean applies the default cleaning of DESIGN §4.2 to t's records, in this
// order: procs = field 5, else field 8; drop run time ≤ 0, else procs ≤ 0,
// else submit < 0; nodes = the record's Nodes if > 0 (sacct), else
// ceil(procs / cores); drop nodes > c.Nodes; a
// missing requested time becomes the run time; a run time above the
// requested time is cut to it (the job was killed at its limit). Recorded
// waits are ignored. Jobs come out sorted by submit time, ties in file order
// (some traces are not sorted).
func Clean(t *Trace, c Cleaning) ([]Job, CleanStats) {
	cl := NewCleaner(c, len(t.Records))
	cl.Add(t.Records)
	return cl.Finish()
}

// Cleaner applies Clean to records as they are read, so that jobs can be
// simulated while the rest of the trace is still being parsed.
type Cleaner struct {
	c      Cleaning
	cores  int
	st     CleanStats
	jobs   []Job
	sorted bool
}

// NewCleaner cleans for machine c; size is the expected number of records
// (0 if unknown).
func NewCleaner(c Cleaning, size int) *Cleaner {
	return &Cleaner{c: c, cores: max(c.Cores, 1), jobs: make([]Job, 0, size), sorted: true}
}

// Jobs returns the jobs cleaned so far, in file order. Later Adds append
// to the slice's array beyond its length, or move it to a new one, so
// the slice stays valid.
func (cl *Cleaner) Jobs() []Job { return cl.jobs }

// Sorted reports whether the jobs so far are sorted by submit time, as
// Finish would leave them without sorting.
func (cl *Cleaner) Sorted() bool { return cl.sorted }

// Finish returns every job, sorted by submit time (ties in file order),
// and what the rules did.
func (cl *Cleaner) Finish() ([]Job, CleanStats) {
	jobs, st := cl.jobs, cl.st
	st.Jobs = len(jobs)
	if !cl.sorted {
		slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
	}
	return jobs, st
}

// Add cleans records, the next ones of the trace.
func (cl *Cleaner) Add(rs []Record) {
	c, cores, st, jobs := cl.c, cl.cores, &cl.st, cl.jobs
	st.Records += len(rs)
	for i := range rs {
		r := &rs[i]
		procs, fromReq := r.AllocProcs, false
		if procs <= 0 {
			procs, fromReq = r.ReqProcs, true
		}
		// Negated comparisons so that a NaN in a hand-built Trace is
		// dropped, not simulated.
		switch {
		case !(r.Runtime > 0):
			st.DroppedRuntime++
			continue
		case procs <= 0:
			st.DroppedProcs++
			continue
		case !(r.Submit >= 0):
			st.DroppedSubmit++
			continue
		}
		nodes := (procs-1)/cores + 1
		if r.Nodes > 0 {
			nodes = r.Nodes
		}
		if c.Nodes > 0 && nodes > c.Nodes {
			st.DroppedWide++
			continue
		}
		if fromReq {
			st.ProcsFromRequested++
		}
		runtime, walltime := r.Runtime, r.ReqTime
		capped := false
		if !(walltime > 0) {
			walltime = runtime
			st.WalltimeFromRuntime++
		} else if runtime > walltime {
			runtime, capped = walltime, true
			st.RuntimeCapped++
		}
		power := 0.0
		if r.Power > 0 && r.Power <= math.MaxFloat64 {
			power = r.Power
			st.MeasuredPower++
		}
		jobs = append(jobs, Job{
			ID:        r.ID,
			Submit:    r.Submit,
			Runtime:   runtime,
			Walltime:  walltime,
			Procs:     procs,
			Nodes:     nodes,
			User:      int32(r.User),
			Group:     int32(r.Group),
			Queue:     int32(r.Queue),
			Partition: int32(r.Partition),
			Account:   int32(r.Account),
			QOS:       int32(r.QOS),
			Line:      int32(r.Line),
			Power:     power,
			Capped:    capped,
		})
		// (cmp.Compare's order: a NaN sorts first; Clean drops those.)
		if n := len(jobs); cl.sorted && n > 1 && jobs[n-1].Submit < jobs[n-2].Submit {
			cl.sorted = false
		}
	}
	cl.jobs = jobs
}
