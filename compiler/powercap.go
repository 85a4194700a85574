package compiler

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// capRefs are what a powercap says about the machine it runs on, checked
// when a run pairs the policy with a machine (pairPolicy).
type capRefs struct {
	at     *lang.Stmt // the powercap statement
	modeAt lang.Value // its `mode` value, if given
	lowest lang.Value // its `lowest` value, if given
	start  lang.Value // a reserved window's start
	during lang.Range // `during peak`
}

// powercap reads `powercap CAP from TIME for DURATION [{ … }]`, `powercap
// CAP [during peak | while RULE] [{ … }]` or `powercap none`.
func (c *compiler) powercap(s *lang.Stmt, b binding, refs *[]capRefs) (*runtime.Powercap, bool) {
	const usage = "powercap 60% from \"2012-09-07 13:00\" for 1 h { mode mix }`, `powercap 1.2 MW during peak` or `powercap none"
	a := s.Args
	if len(a) == 1 && a[0].Text() == "none" {
		return nil, true
	}
	if !c.args(s, 1, -1, usage) {
		return nil, false
	}
	pc := &runtime.Powercap{}
	r := capRefs{at: s}
	if num, ok := c.val(a[0], b).(*lang.Number); ok && num.Unit == "%" {
		f, _, ok := c.quantity(a[0], b, lang.Fraction, "powercap")
		if !ok {
			return nil, false
		}
		if !(f > 0) {
			c.diags.Errorf(a[0].Range(), "a powercap must be above 0%%").With("`powercap 60%%` caps the machine at 60 %% of its maximum power (P_full: every node busy at the top pstate, every level on).")
			return nil, false
		}
		pc.Share = f
		if f > 1 && b == nil {
			c.diags.Warnf(a[0].Range(), "a powercap of %s never binds", c.file(s).Sub(a[0].Range())).
				With("The machine never draws more than its maximum power (100 %%: every node busy at the top pstate, every level on); give a share up to 100%%.")
		}
	} else {
		v, ok := c.nonNegative(a[0], b, lang.Power, "powercap")
		if !ok {
			return nil, false
		}
		if v == 0 {
			c.diags.Errorf(a[0].Range(), "a powercap of 0 W lets nothing run").With("Give a power, e.g. `powercap 1.2 MW`, or a share of the maximum, `powercap 60%%`.")
			return nil, false
		}
		pc.Power = v
	}
	rest := a[1:]
	planned := false
	switch {
	case len(rest) == 0:
		pc.When = runtime.BudgetAlways
	case rest[0].Text() == "from":
		if len(rest) != 4 || rest[2].Text() != "for" {
			c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "expected `from TIME for DURATION`").
				With("A reserved window: `powercap 60%% from \"2012-09-07 13:00\" for 1 h` (a local date) or `from 2 d for 1 h` (after the first submission).")
			return nil, false
		}
		start, ok := c.instant(rest[1], b, "powercap")
		if !ok {
			return nil, false
		}
		d, ok := c.nonNegative(rest[3], b, lang.Time, "powercap … for")
		if !ok {
			return nil, false
		}
		if d == 0 {
			c.diags.Errorf(rest[3].Range(), "a powercap window of 0 s caps nothing").With("Give its length, e.g. `for 1 h`.")
			return nil, false
		}
		pc.Start, pc.Duration, planned = &start, d, true
		r.start = rest[1]
	case rest[0].Text() == "during":
		if len(rest) != 2 || rest[1].Text() != "peak" {
			c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "expected `during peak`").
				With("For other times write `while RULE`, or a reserved window `from TIME for DURATION`.")
			return nil, false
		}
		pc.When = runtime.BudgetDuringPeak
		r.during = rest[0].Range().Cover(rest[1].Range())
	case rest[0].Text() == "while":
		e := c.ruleExpr(s, 2, boolExpr, b)
		if e == nil {
			return nil, false
		}
		if e.Fields != 0 || e.Deps&(runtime.DepJob|runtime.DepWait) != 0 {
			_, r := c.file(s).ArgsSource(s, 2)
			c.diags.Errorf(r, "a powercap's condition cannot read `job`").
				With("It caps the whole machine: use `now`, `peak`, `price` or `system`.")
			return nil, false
		}
		pc.When, pc.While = runtime.BudgetWhile, e
	default:
		d := c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "unexpected `%s` in `powercap`", c.file(s).Sub(rest[0].Range().Cover(rest[len(rest)-1].Range()))).
			With("Write `%s`.", usage)
		if id, ok := rest[0].(*lang.Ident); ok {
			d.DidYouMean(lang.Suggest(id.Name, []string{"from", "during", "while"}))
		}
		return nil, false
	}
	ok := true
	c.decodeBlock("the powercap", s.Body, []fieldSpec{
		{name: "mode", usage: "mode shut`, `mode dvfs`, `mode mix`, `mode idle` or `mode auto", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "mode mix") {
				if k, good := c.keyword(s.Args[0], "mode", runtime.CapModeNames[:]...); good {
					pc.Mode = runtime.CapMode(indexOf(runtime.CapModeNames[:], k))
					r.modeAt = s.Args[0]
				} else {
					ok = false
				}
			}
		}},
		{name: "lowest", usage: "lowest 2.0 GHz", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "lowest 2.0 GHz") {
				if f, _, good := c.quantity(s.Args[0], b, lang.Frequency, "lowest"); good {
					pc.Lowest, r.lowest = f, s.Args[0]
				} else {
					ok = false
				}
			}
		}},
		{name: "frequency", usage: "frequency fit_idle` or `frequency fit_job", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "frequency fit_idle") {
				if k, good := c.keyword(s.Args[0], "frequency", "fit_idle", "fit_job"); good {
					pc.Fit = map[string]runtime.FitRule{"fit_idle": runtime.FitIdle, "fit_job": runtime.FitJob}[k]
				}
			}
		}},
		{name: "notice", usage: `notice "2012-09-07 11:00"`, decode: func(s *lang.Stmt) {
			if !planned {
				c.diags.Errorf(s.Range, "only a reserved window has a notice").
					With("`notice TIME` says when a window `powercap CAP from TIME for DURATION` is planned; a cap set for now (`during peak`, `while …`) is never planned ahead.")
				ok = false
				return
			}
			if c.args(s, 1, 1, `notice "2012-09-07 11:00"`) {
				if t, good := c.instant(s.Args[0], b, "notice"); good {
					pc.Notice = &t
				}
			}
		}},
		{name: "running", usage: "running wait` or `running kill", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "running wait") {
				if k, good := c.keyword(s.Args[0], "running", "wait", "kill"); good {
					pc.Kill = k == "kill"
				}
			}
		}},
		{name: "planner", usage: "planner paper` or `planner optimal", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "planner paper") {
				if k, good := c.keyword(s.Args[0], "planner", "paper", "optimal"); good {
					pc.Optimal = k == "optimal"
				}
			}
		}},
	})
	if !ok {
		return nil, false
	}
	if r.lowest != nil && (pc.Mode == runtime.CapShut || pc.Mode == runtime.CapIdle) && b == nil {
		c.diags.Warnf(r.lowest.Range(), "`lowest` is ignored under `mode %s`: its jobs run at the top pstate", runtime.CapModeNames[pc.Mode]).
			With("Remove `lowest`, or use `mode mix` (switch-off and frequencies down to `lowest`) or `mode dvfs`.")
	}
	if pc.Start != nil && pc.Notice != nil && pc.Notice.Date == "" && pc.Start.Date == "" && pc.Notice.Offset > pc.Start.Offset {
		c.diags.Errorf(s.Range, "the powercap's notice comes after its window starts").
			With("The reservation is planned at the notice; give a notice at or before the window's start.")
		return nil, false
	}
	*refs = append(*refs, r)
	return pc, true
}

// instant reads a point of the trace's time: a local date in the trace's
// zone (a string) or a duration after the first submission.
func (c *compiler) instant(v lang.Value, b binding, field string) (runtime.Instant, bool) {
	if _, ok := c.val(v, b).(*lang.String); ok {
		d, ok := c.localTime(v, b, field)
		return runtime.Instant{Date: d}, ok
	}
	t, _, ok := c.quantity(v, b, lang.Time, field)
	return runtime.Instant{Offset: t}, ok
}

// pairPowercaps checks a policy's powercaps against the machine of a run:
// DVFS modes need pstates, `lowest` must be one of them.
func (c *compiler) pairPowercaps(m *runtime.Machine, caps []runtime.Powercap, refs []capRefs) bool {
	ok := true
	var freqs []string
	for _, ps := range m.PStates {
		freqs = append(freqs, runtime.FreqLabel(ps.Freq))
	}
	for i := range min(len(caps), len(refs)) {
		pc, r := &caps[i], refs[i]
		if (pc.Mode == runtime.CapDVFS || pc.Mode == runtime.CapMix) && len(m.PStates) < 2 {
			at := r.at.Range
			if r.modeAt != nil {
				at = r.modeAt.Range()
			}
			c.diags.Errorf(at, "`mode %s` lowers jobs' frequencies, but machine `%s` has no pstates to lower them to", runtime.CapModeNames[pc.Mode], m.Name).
				With("Give the machine pstates (`pstate 2.7 GHz 358 W`, `pstate 2.0 GHz 269 W`, …), or use `mode shut` or `mode idle`.")
			ok = false
			continue
		}
		if r.lowest != nil {
			found := false
			for _, ps := range m.PStates {
				found = found || sameFreq(ps.Freq, pc.Lowest)
			}
			if !found {
				d := c.diags.Errorf(r.lowest.Range(), "machine `%s` has no pstate at %s", m.Name, runtime.FreqLabel(pc.Lowest))
				if len(freqs) > 0 {
					d.With("Its pstates: %s.", strings.Join(freqs, ", "))
				} else {
					d.With("It has no pstates; remove `lowest`.")
				}
				ok = false
			}
		}
	}
	return ok
}

// pairCapContract warns of a `during peak` powercap under a contract
// without peak hours: it never applies.
func (c *compiler) pairCapContract(run *runtime.Run, refs []capRefs) {
	if run.Contract.Kind == runtime.BasePeak {
		return
	}
	for i := range min(len(run.Policy.Powercaps), len(refs)) {
		pc, r := &run.Policy.Powercaps[i], refs[i]
		if pc.When != runtime.BudgetDuringPeak || !c.once(fmt.Sprintf("peak\x00%v\x00%s", r.during, run.Contract.Name)) {
			continue
		}
		c.diags.Warnf(r.during, "contract `%s` has no peak hours, so this powercap never applies", run.Contract.Name).
			With("`during peak` follows the contract's peak hours (`peak 06:00..22:00 at 0.17 EUR/kWh` in a base/peak contract); under a flat or hourly price write `while RULE`, e.g. `while now.hour >= 8 && now.hour < 20`.")
	}
}

// spanOf is the span of the submissions of run's trace, as the runtime
// reads it, once per compilation (nil: it could not be read; the check of
// the run's inputs says why).
func (c *compiler) spanOf(run *runtime.Run) *runtime.TraceSpan {
	w := &run.Workload
	key := w.Path + "\x00" + w.TimeZone + "\x00" + w.Start
	if sp, ok := c.spans[key]; ok {
		return sp
	}
	c.spans[key] = nil
	tr := c.inputCheck().Trace(run)
	if tr == nil {
		return nil
	}
	sp, err := runtime.SpanOf(w, tr)
	if err != nil || math.IsInf(sp.First, 1) {
		return nil
	}
	c.spans[key] = &sp
	return &sp
}

// pairCapTrace warns of a reserved powercap window that lies entirely
// before the first submission of the run's trace (it caps nothing) or
// after its last (it caps only the queue's tail).
func (c *compiler) pairCapTrace(run *runtime.Run, refs []capRefs, b binding) {
	if !c.opts.Lint {
		return
	}
	w := &run.Workload
	if !slices.ContainsFunc(run.Policy.Powercaps, func(pc runtime.Powercap) bool { return pc.Start != nil }) {
		return
	}
	var sp *runtime.TraceSpan
	if w.Kind != runtime.Synthetic && c.data[w.Path] != nil && c.data[w.Path].err == nil {
		sp = c.spanOf(run)
	}
	if sp == nil {
		// Without the trace's clock only offsets compare.
		c.capOverlaps(run, refs, func(i runtime.Instant) (float64, bool) { return i.Offset, i.Date == "" })
		return
	}
	c.capOverlaps(run, refs, func(i runtime.Instant) (float64, bool) {
		t, err := sp.At(i)
		return t, err == nil
	})
	first, last := sp.First, sp.Last
	what := "the trace's"
	if sw := w.Submitted; sw != nil {
		if f, err := sp.At(sw.From); err == nil && f > first {
			first, what = f, "the workload's"
		}
		if t, err := sp.At(sw.To); err == nil && t < last {
			last, what = t, "the workload's"
		}
	}
	for i := range min(len(run.Policy.Powercaps), len(refs)) {
		pc, r := &run.Policy.Powercaps[i], refs[i]
		if pc.Start == nil || r.start == nil {
			continue
		}
		from, err := sp.At(*pc.Start)
		if err != nil {
			continue
		}
		to := from + pc.Duration
		var msg string
		switch {
		case to <= first:
			msg = fmt.Sprintf("this powercap window (%s .. %s) ends before %s first submission (%s): it caps nothing", sp.Local(from), sp.Local(to), what, sp.Local(first))
		case from > last:
			msg = fmt.Sprintf("this powercap window (%s .. %s) starts after %s last submission (%s): it caps at most the jobs still queued then", sp.Local(from), sp.Local(to), what, sp.Local(last))
		default:
			continue
		}
		if !c.once(fmt.Sprintf("span\x00%v\x00%s\x00%v", r.start.Range(), w.Path, from)) {
			continue
		}
		d := c.diags.Warnf(r.start.Range(), "%s", msg).
			With("Place it among the jobs: they are submitted from %s to %s (local time; %.1f d .. %.1f d after the first submission).", sp.Local(first), sp.Local(last), (first-sp.First)/86400, (last-sp.First)/86400)
		if v := c.val(r.start, b); v != r.start {
			d.Note(v.Range(), "the value of `%s`", r.start.Text())
		}
	}
}

// capOverlaps warns of reserved windows with different caps that overlap
// (allowed: the lower cap applies while both are open). at places a
// window's start on the trace's clock (false: it cannot say).
func (c *compiler) capOverlaps(run *runtime.Run, refs []capRefs, at func(runtime.Instant) (float64, bool)) {
	caps := run.Policy.Powercaps
	full := 0.0
	if run.Machine.Nodes > 0 {
		full = run.Machine.FullPower(run.Machine.Nodes)
	}
	watts := func(pc *runtime.Powercap) (float64, string) {
		if pc.Share > 0 {
			return pc.Share * full, fmt.Sprintf("%g%%", 100*pc.Share)
		}
		return pc.Power, runtime.Watts(pc.Power)
	}
	for i := range min(len(caps), len(refs)) {
		for k := i + 1; k < min(len(caps), len(refs)); k++ {
			a, b := &caps[i], &caps[k]
			if a.Start == nil || b.Start == nil || refs[k].start == nil {
				continue
			}
			fa, ok1 := at(*a.Start)
			fb, ok2 := at(*b.Start)
			if !ok1 || !ok2 || !(fa < fb+b.Duration && fb < fa+a.Duration) {
				continue
			}
			wa, na := watts(a)
			wb, nb := watts(b)
			if a.Share > 0 && b.Share > 0 {
				wa, wb = a.Share, b.Share
			} else if (a.Share > 0 || b.Share > 0) && full == 0 {
				continue
			}
			if wa == wb {
				continue
			}
			low := na
			if wb < wa {
				low = nb
			}
			if !c.once(fmt.Sprintf("overlap\x00%v\x00%v\x00%s", refs[i].at.Range, refs[k].at.Range, low)) {
				continue
			}
			c.diags.Warnf(refs[k].start.Range(), "this powercap window (%s) overlaps an earlier one (%s) of policy `%s`", nb, na, run.Policy.Name).
				With("Overlapping windows are allowed: while both are open the lower cap, %s, applies; each switches off its own nodes.", low).
				Note(refs[i].start.Range(), "the earlier window")
		}
	}
}
