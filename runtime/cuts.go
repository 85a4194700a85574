package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// CutStats counts the jobs a workload's cuts dropped, after cleaning. A
// job is counted under the first cut that drops it: `keep`, then
// `submitted`.
type CutStats struct {
	Keep      int // the keep rule was false
	Submitted int // submitted outside the submission window
}

// Dropped is the number of jobs the cuts dropped.
func (s CutStats) Dropped() int { return s.Keep + s.Submitted }

// cutJobs applies a workload's cuts to its cleaned jobs (in submit order):
// `keep RULE` keeps the jobs the rule is true for, and `submitted A .. B`
// those submitted in [A, B). Offsets count from first, the first
// submission of the cleaned trace before any cut, so that `submitted 0 d
// .. 547.5 d` means the trace's first 547.5 days whatever keep drops;
// dates are local times in the trace's zone (clock); names answers the
// rule's name tests (Slurm accounting). jobs is not modified:
// when a cut drops a job, kept is a new slice. A rule that cannot be
// evaluated, or a window that is empty on this trace's clock, is an error.
func cutJobs(jobs []workload.Job, w *Workload, first float64, clock tariff.Clock, names *NameSets) (kept []workload.Job, stats CutStats, err error) {
	if w.Keep == nil && w.Submitted == nil {
		return jobs, stats, nil
	}
	from, to := -1.0, -1.0
	if s := w.Submitted; s != nil {
		if from, to, err = s.submitWindow(clock, first); err != nil {
			return nil, stats, err
		}
	}
	defer func() {
		if x := recover(); x != nil {
			var ee *EvalError
			if e, ok := x.(error); ok && errors.As(e, &ee) {
				kept, err = nil, ee
				return
			}
			panic(x)
		}
	}()
	env := Env{Names: names}
	for i := range jobs {
		j := &jobs[i]
		var drop *int
		switch {
		case w.Keep != nil && !keeps(w.Keep, &env, j):
			drop = &stats.Keep
		case w.Submitted != nil && !(j.Submit >= from && j.Submit < to):
			drop = &stats.Submitted
		}
		if drop == nil {
			if kept != nil {
				kept = append(kept, *j)
			}
			continue
		}
		*drop++
		if kept == nil {
			kept = make([]workload.Job, i, len(jobs)-1)
			copy(kept, jobs[:i])
		}
	}
	if kept == nil {
		return jobs, stats, nil
	}
	return kept, stats, nil
}

func keeps(rule *Expr, env *Env, j *workload.Job) bool {
	fillJob(&env.Job, j)
	return rule.Bool(env)
}

// on places an instant on a trace's clock: a date in the trace's zone, an
// offset after the first submission.
func (i Instant) on(clock tariff.Clock, first float64) (float64, error) {
	if i.Date == "" {
		return first + i.Offset, nil
	}
	loc := clock.Loc
	if loc == nil {
		loc = time.UTC
	}
	t, err := tariff.ParseLocal(i.Date, loc)
	if err != nil {
		return 0, err
	}
	return clock.Sim(t), nil
}

// submitWindow places a submission window on the trace's clock: dates in
// the trace's zone, offsets after the first submission.
func (w *Window) submitWindow(clock tariff.Clock, first float64) (from, to float64, err error) {
	at := func(i Instant) (float64, error) {
		t, err := i.on(clock, first)
		if err != nil {
			return 0, fmt.Errorf("submitted %s: %v", i, err)
		}
		return t, nil
	}
	if from, err = at(w.From); err != nil {
		return 0, 0, err
	}
	if to, err = at(w.To); err != nil {
		return 0, 0, err
	}
	if !(to > from) {
		return 0, 0, fmt.Errorf("the submission window %s .. %s is empty on this trace's clock", w.From, w.To)
	}
	return from, to, nil
}
