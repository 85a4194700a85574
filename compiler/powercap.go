package compiler

import (
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
	case rest[0].Text() == "during":
		if len(rest) != 2 || rest[1].Text() != "peak" {
			c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "expected `during peak`").
				With("For other times write `while RULE`, or a reserved window `from TIME for DURATION`.")
			return nil, false
		}
		pc.When = runtime.BudgetDuringPeak
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
	r := capRefs{at: s}
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
		freqs = append(freqs, fmtFreq(ps.Freq))
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
				d := c.diags.Errorf(r.lowest.Range(), "machine `%s` has no pstate at %s", m.Name, fmtFreq(pc.Lowest))
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
