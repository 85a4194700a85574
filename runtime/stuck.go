package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pwrc/pwrc/runtime/workload"
)

// Why jobs never start. When the engine finds jobs waiting and nothing left
// that could start them (or nothing started for maxIdleSpan), it asks each
// waiting job which stage of the policy refuses it, and the run's error
// names every such stage with how many jobs it holds and an example, so the
// user is never told about an admit rule they did not write.

// stuckReason is the stage that keeps a waiting job from starting.
type stuckReason int

const (
	stuckAdmit  stuckReason = iota // the admit rule refuses it
	stuckBudget                    // it weighs more than the whole budget
	stuckValue                     // the knapsack's value rule gives it no value
	stuckCap                       // it fits under its powercap at no pstate the mode allows
	stuckBehind                    // startable alone, but queued behind the above
	stuckOther                     // none of the above: an engine bug
	nStuck
)

// stuckGroup gathers the waiting jobs a stage refuses.
type stuckGroup struct {
	n     int
	first int32   // an example: the first in queue order
	light int32   // stuckBudget: the lightest job
	w     float64 // its weight
}

// neverStarted explains why the waiting jobs cannot start; lead says what
// was observed ("5 jobs never started, and nothing else is left to happen").
// frozen says that nothing at all is left to happen, so the clock stops
// and rules that read job.wait will never see it grow.
func (s *sim) neverStarted(lead string, frozen bool) error {
	if s.passEnv() {
		s.setPassEnv()
	}
	budgetOn := s.pol.Budget != nil && s.bud.active(s)
	var g [nStuck]stuckGroup
	ahead := false // a job ahead in the queue is refused by a stage that blocks the queue
	for _, j := range s.queue {
		r := s.stuckReason(j, budgetOn)
		switch {
		case r == stuckOther && ahead:
			// It could start alone: something refused is ahead of it in
			// a queue the policy does not backfill past.
			r = stuckBehind
		case r != stuckAdmit && r != stuckOther:
			ahead = true // a job the admit rule refuses is passed over
		}
		e := &g[r]
		if e.n == 0 {
			e.first = j
		}
		e.n++
		if r == stuckBudget {
			if w := s.bp.weightOf(s, j); e.n == 1 || w < e.w {
				e.light, e.w = j, w
			}
		}
	}
	var parts []string
	id := func(j int32) int64 { return s.jobs[j].ID }
	if e := g[stuckAdmit]; e.n > 0 {
		a := s.pol.Admit
		parts = append(parts, fmt.Sprintf("%s by the admit rule `%s` (%s), e.g. job %d%s",
			verb(e.n, "is refused", "are refused"), clipRule(a.Source), a.Where, id(e.first), waitHint(a, frozen)))
	}
	if e := g[stuckBudget]; e.n > 0 {
		weighs := "weighs " + Watts(e.w)
		if math.IsInf(e.w, 1) {
			weighs = "has no finite weight (its weight rule gives NaN)"
		}
		parts = append(parts, fmt.Sprintf("%s more than the whole power budget, %s: the lightest of them, job %d, %s%s",
			verb(e.n, "weighs", "weigh"), s.bud.describe(s), id(e.light), weighs, waitHint(s.pol.Weight, frozen)))
	}
	if e := g[stuckValue]; e.n > 0 {
		parts = append(parts, fmt.Sprintf("%s no value for the knapsack, which never picks a job whose value is 0 or less (or not a number): its value rule `%s` (%s) gives that, e.g. for job %d%s",
			verb(e.n, "has", "have"), clipRule(s.pol.Value.Source), s.pol.Value.Where, id(e.first), waitHint(s.pol.Value, frozen)))
	}
	if e := g[stuckCap]; e.n > 0 {
		parts = append(parts, fmt.Sprintf("%s under the powercap at no pstate the mode allows (the machine draws %s with nothing running), e.g. job %d needing %d nodes",
			verb(e.n, "fits", "fit"), Watts(s.caps.power), id(e.first), s.alloc[e.first]))
	}
	if e := g[stuckBehind]; e.n > 0 {
		parts = append(parts, fmt.Sprintf("%s behind those in the queue, which %s does not get past, e.g. job %d",
			verb(e.n, "waits", "wait"), s.pol.backfillWords(), id(e.first)))
	}
	if e := g[stuckOther]; e.n > 0 {
		parts = append(parts, fmt.Sprintf("%s for no reason pwrc can name, e.g. job %d (a bug in pwrc: please report it)",
			verb(e.n, "waits", "wait"), id(e.first)))
	}
	return errors.New(lead + ": " + strings.Join(parts, "; "))
}

// waitHint explains, for a rule that reads job.wait, why its answer will
// not change: the engine re-reads rules only when something happens.
func waitHint(e *Expr, frozen bool) string {
	if !frozen || e == nil || e.Deps&DepWait == 0 {
		return ""
	}
	return " (the rule reads job.wait, which pwrc re-reads only when something happens: a job arrives or ends, a price changes, or an hour passes if a rule reads `now`; none of these is left)"
}

// wideError says that n jobs can never start because they need more nodes
// than the machine has, naming the first, j.
func wideError(j workload.Job, n, nodes, unit int) error {
	they := "they need"
	if n == 1 {
		they = "it needs"
	}
	if unit > 1 {
		a := (j.Nodes + unit - 1) / unit * unit
		return fmt.Errorf("%s can never start: in whole units of %d nodes (allocate contiguous %d) %s more than the machine's %d nodes, e.g. job %d needs %d nodes, %d in units; give the machine a multiple of %d nodes",
			jobCount(n), unit, unit, they, nodes, j.ID, j.Nodes, a, unit)
	}
	return fmt.Errorf("%s can never start: %s more nodes than the machine's %d, e.g. job %d needs %d",
		jobCount(n), they, nodes, j.ID, j.Nodes)
}

// stuckReason is the stage that refuses waiting job j as a pass sees it
// now, with nothing running (the engine gives up only then); stuckOther if
// none does.
func (s *sim) stuckReason(j int32, budgetOn bool) stuckReason {
	// (Jobs wider than the machine never get here: simulate refuses them.)
	switch {
	case !s.admitted(j):
		return stuckAdmit
	case budgetOn && !(s.bp.weightOf(s, j) <= s.budget):
		return stuckBudget
	case budgetOn && s.pol.Select == SelectKnapsack && !(s.bp.valueOf(s, j) > 0):
		return stuckValue
	case s.caps != nil:
		s.caps.power = s.model.Power(s.cnt, s.watts)
		if _, _, ok := s.caps.fit(s, j, backfillLimit{endBy: math.Inf(1)}); !ok {
			return stuckCap
		}
	}
	return stuckOther
}

// describeBudget is the budget as the scenario set it and in watts.
func (st *budgetStage) describe(s *sim) string {
	b := st.b
	out := Watts(s.budget)
	if b.OfBaseline > 0 {
		out += fmt.Sprintf(" (%s%% of the baseline's mean job power)", strconv.FormatFloat(100*b.OfBaseline, 'g', 4, 64))
	}
	switch b.When {
	case BudgetDuringPeak:
		out += " during peak hours"
	case BudgetWhile:
		out += fmt.Sprintf(" while `%s` (%s)", clipRule(b.While.Source), b.While.Where)
	}
	return out
}

// backfillWords names the policy's backfilling for messages.
func (p *Policy) backfillWords() string {
	switch p.Backfill {
	case EASY:
		return "EASY backfilling"
	case Greedy:
		return fmt.Sprintf("greedy backfilling (depth %d)", p.Depth)
	}
	return "a policy without backfilling"
}

// jobCount is "1 job" or "n jobs".
func jobCount(n int) string {
	if n == 1 {
		return "1 job"
	}
	return strconv.Itoa(n) + " jobs"
}

// verb is "1 job is …" or "n jobs are …", for the count of a group.
func verb(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Watts formats a power as scenarios write it, for messages: 950 W,
// 1.5 kW, 2.3 MW.
func Watts(w float64) string {
	switch a := math.Abs(w); {
	case a >= 1e6:
		return strconv.FormatFloat(w/1e6, 'g', 4, 64) + " MW"
	case a >= 1e3:
		return strconv.FormatFloat(w/1e3, 'g', 4, 64) + " kW"
	}
	return strconv.FormatFloat(w, 'g', 4, 64) + " W"
}

// clipRule shortens a rule's source for a one-line message.
func clipRule(src string) string {
	const n = 60
	src = strings.Join(strings.Fields(src), " ")
	if utf8.RuneCountInString(src) <= n {
		return src
	}
	return string([]rune(src)[:n-1]) + "…"
}
