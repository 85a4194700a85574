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
	cores := max(c.Cores, 1)
	st := CleanStats{Records: len(t.Records)}
	jobs := make([]Job, 0, len(t.Records))
	for i := range t.Records {
		r := &t.Records[i]
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
		if !(walltime > 0) {
			walltime = runtime
			st.WalltimeFromRuntime++
		} else if runtime > walltime {
			runtime = walltime
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
			Line:      int32(r.Line),
			Power:     power,
		})
	}
	st.Jobs = len(jobs)
	bySubmit := func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) }
	if !slices.IsSortedFunc(jobs, bySubmit) {
		slices.SortStableFunc(jobs, bySubmit)
	}
	return jobs, st
}
