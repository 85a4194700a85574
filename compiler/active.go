package compiler

import (
	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// activeUsage is how `active` is written, for messages.
const activeUsage = "active fixed 85%`, `active two_level { low 75; high all }`, `active online { sla mean bsld <= 200; every 7 d }` or `active none"

// activeStage reads the capacity controller (lawson.md §4.1): `active
// fixed N|P%|all`, `active two_level { low L; high U }`, `active online {
// sla mean bsld <= S; every K; search toward_max|binary; raise to
// width|to max }` or `active none`. A block changes only the fields it
// sets of a controller of the same kind inherited from the base policy.
func (c *compiler) activeStage(s *lang.Stmt, b binding, base *runtime.Active) (*runtime.Active, bool) {
	a := s.Args
	if len(a) == 0 {
		c.args(s, 1, -1, activeUsage)
		return nil, false
	}
	kinds := append([]string{"none"}, runtime.ActiveKindNames[:]...)
	k, ok := c.keyword(a[0], "active", kinds...)
	if !ok {
		return nil, false
	}
	if k == "none" {
		if len(a) > 1 || s.Body != nil {
			c.diags.Errorf(s.Range, "`active none` takes nothing more").With("It makes every node schedulable again.")
			return nil, false
		}
		return nil, true
	}
	act := runtime.Active{Kind: runtime.ActiveKind(indexOf(runtime.ActiveKindNames[:], k))}
	if base != nil && base.Kind == act.Kind {
		act = *base
	}
	switch act.Kind {
	case runtime.ActiveFixed:
		if s.Body != nil {
			c.diags.Errorf(s.Body.Range, "`active fixed` takes no block").With("Write `active fixed 85%%` or `active fixed 100` (nodes).")
			return nil, false
		}
		if len(a) != 2 {
			c.diags.Errorf(s.Range, "expected `active fixed N`, `active fixed P%%` or `active fixed all`").With("N counts nodes; P%% is a share of the machine's, rounded up.")
			return nil, false
		}
		lv, ok := c.nodeLevel(a[1], b, "active fixed")
		if !ok {
			return nil, false
		}
		act.Fixed = lv
		return &act, true
	case runtime.ActiveTwoLevel:
		if len(a) > 1 {
			c.diags.Errorf(a[1].Range().Cover(a[len(a)-1].Range()), "unexpected %s after `active two_level`", describeValue(a[1])).With("Write `active two_level { low 75; high all }`.")
			return nil, false
		}
		if base == nil || base.Kind != act.Kind {
			act.High = runtime.NodeLevel{All: true}
		}
		lowSet := base != nil && base.Kind == act.Kind
		var lowAt, highAt *lang.Stmt
		ok := true
		c.decodeBlock("the two-level controller", s.Body, []fieldSpec{
			{name: "low", usage: "low 75` or `low 75%", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "low 75` or `low 75%") {
					ok = false
					return
				}
				lv, good := c.nodeLevel(s.Args[0], b, "low")
				if !good {
					ok = false
					return
				}
				act.Low, lowSet, lowAt = lv, true, s
			}},
			{name: "high", usage: "high all`, `high 100` or `high 100%", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "high all`, `high 100` or `high 100%") {
					ok = false
					return
				}
				lv, good := c.nodeLevel(s.Args[0], b, "high")
				if !good {
					ok = false
					return
				}
				act.High, highAt = lv, s
			}},
		})
		if !ok {
			return nil, false
		}
		if !lowSet {
			if s.Body == nil || !c.guessed(s.Body, "low") {
				c.diags.Errorf(s.Range, "`active two_level` needs its `low` level").With("Write e.g. `active two_level { low 75; high all }` (Lawson & Smirni's Table 1: KTH 75 of 100).")
			}
			return nil, false
		}
		// Levels of the same kind compare here; a count against a share
		// when a run pairs the policy with its machine.
		if lo, hi, same := comparable(act.Low, act.High); same && lo > hi {
			at := s.Range
			if lowAt != nil {
				at = lowAt.Args[0].Range()
			}
			d := c.diags.Errorf(at, "the low level %s is above the high level %s", act.Low, act.High).With("Two-level lowers to `low` when the machine is quiet and raises to `high` for a wide job: low ≤ high.")
			if highAt != nil {
				d.Note(highAt.Args[0].Range(), "the high level")
			}
			return nil, false
		}
		return &act, true
	default: // online
		if len(a) > 1 {
			c.diags.Errorf(a[1].Range().Cover(a[len(a)-1].Range()), "unexpected %s after `active online`", describeValue(a[1])).With("Write `active online { sla mean bsld <= 200; every 7 d }`.")
			return nil, false
		}
		if s.Body == nil {
			c.diags.Errorf(s.Range, "`active online` needs a block with its `sla` and `every`").With("Write `active online { sla mean bsld <= 200; every 7 d }` (Lawson & Smirni's OLS).")
			return nil, false
		}
		slaSet, everySet := base != nil && base.Kind == act.Kind, base != nil && base.Kind == act.Kind
		ok := true
		c.decodeBlock("the online controller", s.Body, []fieldSpec{
			{name: "sla", usage: "sla mean bsld <= 200", decode: func(s *lang.Stmt) {
				v, good := c.sla(s, b)
				if !good {
					ok = false
					return
				}
				act.SLA, slaSet = v, true
			}},
			{name: "every", usage: "every 7 d", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "every 7 d") {
					ok = false
					return
				}
				v, _, good := c.quantity(s.Args[0], b, lang.Time, "every")
				if !good {
					ok = false
					return
				}
				act.Every, everySet = v, true
			}},
			{name: "search", usage: "search toward_max` or `search binary", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "search toward_max` or `search binary") {
					ok = false
					return
				}
				k, good := c.keyword(s.Args[0], "search", runtime.ActiveSearchNames[:]...)
				if !good {
					ok = false
					return
				}
				act.Search = runtime.ActiveSearch(indexOf(runtime.ActiveSearchNames[:], k))
			}},
			{name: "raise", usage: "raise to width` or `raise to max", decode: func(s *lang.Stmt) {
				if len(s.Args) != 2 || s.Args[0].Text() != "to" {
					c.diags.Errorf(s.Range, "expected `raise to width` or `raise to max`").With("Between decisions an arrival wider than the active count raises it to its width (Lawson & Smirni), or to every node.")
					ok = false
					return
				}
				k, good := c.keyword(s.Args[1], "raise to", runtime.ActiveRaiseNames[:]...)
				if !good {
					ok = false
					return
				}
				act.Raise = runtime.ActiveRaise(indexOf(runtime.ActiveRaiseNames[:], k))
			}},
		})
		if !ok {
			return nil, false
		}
		for _, f := range []struct {
			set  bool
			name string
		}{{slaSet, "sla"}, {everySet, "every"}} {
			if !f.set && !c.guessed(s.Body, f.name) {
				c.diags.Errorf(s.Range, "`active online` needs `%s`", f.name).With("Write e.g. `active online { sla mean bsld <= 200; every 7 d }`.")
				ok = false
			}
		}
		if !ok {
			return nil, false
		}
		return &act, true
	}
}

// sla reads `sla mean bsld <= S`: the only SLA in this version.
func (c *compiler) sla(s *lang.Stmt, b binding) (float64, bool) {
	a := s.Args
	if len(a) != 4 || a[0].Text() != "mean" || a[1].Text() != "bsld" || a[2].Text() != "<=" {
		r := s.Key.R
		if len(a) > 0 {
			r = argsRange(s)
		}
		d := c.diags.Errorf(r, "expected `sla mean bsld <= S`").
			With("The SLA bounds the simulated mean of Lawson's bounded slowdown, 1 + wait / max(10 s, run), of the queued jobs; no other metric is supported yet.")
		for _, v := range a[:min(len(a), 2)] {
			if id, ok := v.(*lang.Ident); ok && id.Name != "mean" && id.Name != "bsld" {
				d.DidYouMean(lang.Suggest(id.Name, []string{"mean", "bsld"}))
				break
			}
		}
		return 0, false
	}
	v, ok := c.nonNegative(a[3], b, lang.Dimensionless, "sla mean bsld <=")
	if ok && v < 1 {
		c.diags.Warnf(c.val(a[3], b).Range(), "no schedule meets an SLA below 1").With("Lawson's slowdown is at least 1: every simulation fails and each decision with jobs waiting keeps every node on.")
	}
	return v, ok
}

// nodeLevel reads a level of nodes: a count (in the range of its bound), a
// share of the machine (`75%`, above 0 if the count must be, and at most
// 100 %) or `all`.
func (c *compiler) nodeLevel(v lang.Value, b binding, field string) (runtime.NodeLevel, bool) {
	lo := boundOf(field, lang.Dimensionless).lo
	if v.Text() == "all" {
		return runtime.NodeLevel{All: true}, true
	}
	if n, ok := c.val(v, b).(*lang.Number); ok && n.Unit == "%" {
		f, _, ok := c.quantity(v, b, lang.Fraction, field)
		if !ok {
			return runtime.NodeLevel{}, false
		}
		if f < 0 || f > 1 || f == 0 && lo > 0 {
			c.diags.Errorf(n.R, "`%s` must be a share above 0%% and at most 100%%, not %s", field, n.Src).With("Or write a number of nodes, or `all`.")
			return runtime.NodeLevel{}, false
		}
		if f == 1 {
			return runtime.NodeLevel{All: true}, true
		}
		if f == 0 {
			return runtime.NodeLevel{}, true
		}
		return runtime.NodeLevel{Share: f}, true
	}
	n, ok := c.count(v, b, field)
	return runtime.NodeLevel{Nodes: n}, ok
}

// comparable returns two levels in the same terms when they can be
// compared without the machine.
func comparable(a, b runtime.NodeLevel) (x, y float64, ok bool) {
	switch {
	case b.All:
		return 0, 0, false // nothing is above all
	case a.All && b.Share > 0:
		return 1, b.Share, true
	case a.Share > 0 && b.Share > 0:
		return a.Share, b.Share, true
	case a.Share == 0 && !a.All && b.Share == 0:
		return float64(a.Nodes), float64(b.Nodes), true
	}
	return 0, 0, false
}

// checkActive checks how a policy's capacity controller combines with its
// other stages (at: the `active` statement).
func (c *compiler) checkActive(d *decl, p *runtime.Policy, at *lang.Stmt) {
	if p.Active == nil || at == nil {
		return
	}
	switch {
	case p.Budget != nil || len(p.Powercaps) > 0:
		c.diags.Errorf(at.Range, "%s sets its active nodes and has a power budget or a powercap", what(d)).
			With("pwrc does not combine a capacity controller with power limits yet; use one or the other.")
	case p.Defer != nil:
		c.diags.Errorf(at.Range, "%s sets its active nodes and defers jobs", what(d)).
			With("pwrc does not combine a capacity controller with the defer stage yet; use one or the other.")
	case p.Shutdown != nil:
		c.diags.Warnf(at.Range, "%s sets its active nodes and switches idle nodes off", what(d)).
			With("They compose: `shutdown` switches off idle *active* nodes (booted again when a job needs them), `active` keeps the others off and unschedulable. Lawson & Smirni keep idle active processors on; remove `shutdown` to follow them.")
	}
}

// pairActive checks a policy's levels against the machine it runs on.
func (c *compiler) pairActive(run *runtime.Run, at *lang.Stmt) bool {
	a := run.Policy.Active
	if a == nil || at == nil {
		return true
	}
	n := run.Machine.Nodes
	if n == 0 {
		return true // `nodes auto`: check compares the levels with the trace's size (checkActiveLevels)
	}
	switch a.Kind {
	case runtime.ActiveFixed:
		if v := a.Fixed.Of(n); v > n {
			c.diags.Errorf(argsRange(at), "policy `%s` keeps %d nodes active, and machine `%s` has %d", run.Policy.Name, v, run.Machine.Name, n).
				With("Write at most %d, or a share such as `85%%`.", n)
			return false
		}
	case runtime.ActiveTwoLevel:
		lo, hi := a.Low.Of(n), a.High.Of(n)
		switch {
		case hi > n:
			c.diags.Errorf(argsRange(at), "policy `%s`'s high level is %d nodes, and machine `%s` has %d", run.Policy.Name, hi, run.Machine.Name, n).
				With("Write `high all`, or at most %d.", n)
			return false
		case lo > hi:
			c.diags.Errorf(argsRange(at), "policy `%s`'s low level (%d nodes) is above its high level (%d) on machine `%s`", run.Policy.Name, lo, hi, run.Machine.Name).
				With("Two-level lowers to `low` when the machine is quiet and raises to `high` for a wide job: low ≤ high.")
			return false
		}
	}
	return true
}

func init() { blockFields["active"] = true }
