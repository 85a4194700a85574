package compiler

import (
	"fmt"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// header reads `KIND NAME [from BASE]` and returns BASE, or nil.
func (c *compiler) header(d *decl) (*lang.Ident, bool) {
	args := d.stmt.Args
	switch {
	case len(args) == 1:
		return nil, true
	case len(args) == 3 && args[1].Text() == "from":
		if id, ok := args[2].(*lang.Ident); ok {
			if d.kind == "experiment" {
				c.diags.Errorf(args[1].Range(), "an experiment cannot extend another").With("Copy the fields you need instead.")
				return nil, false
			}
			return id, true
		}
	}
	d2 := c.diags.Errorf(args[1].Range().Cover(args[len(args)-1].Range()), "unexpected `%s` after %s name `%s`",
		c.file(d.stmt).Sub(args[1].Range().Cover(args[len(args)-1].Range())), d.kind, d.name)
	d2.With("Write `%s %s { ... }`, or `%s %s from OTHER { ... }` to start from another %s.", d.kind, d.name, d.kind, d.name, d.kind)
	if id, ok := args[1].(*lang.Ident); ok && id.Name != "from" && len(args) == 3 {
		d2.DidYouMean(lang.Suggest(id.Name, []string{"from"}))
	}
	return nil, false
}

// chain returns d and the declarations it extends, base first.
func (c *compiler) chain(d *decl) ([]*decl, bool) {
	out := []*decl{d}
	seen := map[*decl]bool{d: true}
	for cur := d; ; {
		base, ok := c.header(cur)
		if !ok {
			return nil, false
		}
		if base == nil {
			break
		}
		bd := c.lookup(cur.kind, base.Name, base.R)
		if bd == nil {
			return nil, false
		}
		if seen[bd] {
			c.fromCycle(out, bd)
			return nil, false
		}
		seen[bd] = true
		out = append(out, bd)
		cur = bd
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true
}

// fromCycle reports a cycle of `from` clauses once, however many of its
// declarations are compiled: chain holds the declarations followed so far
// and bd, the one met again, starts the cycle.
func (c *compiler) fromCycle(chain []*decl, bd *decl) {
	i := 0
	for chain[i] != bd {
		i++
	}
	cyc := chain[i:]
	// Start the cycle at the declaration written first, so the report does
	// not depend on which member was compiled first.
	first := 0
	for j, x := range cyc {
		if declBefore(x, cyc[first]) {
			first = j
		}
	}
	cyc = append(cyc[first:len(cyc):len(cyc)], cyc[:first]...)
	names := make([]string, 0, len(cyc)+1)
	for _, x := range cyc {
		names = append(names, x.name)
	}
	key := bd.kind + " " + strings.Join(sortedCopy(names), " ")
	if c.cycles[key] {
		return
	}
	c.cycles[key] = true
	at := cyc[0].stmt.Args[2].Range()
	if len(cyc) == 1 {
		c.diags.Errorf(at, "%s `%s` extends itself", bd.kind, bd.name).With("Remove `from %s`.", bd.name)
		return
	}
	names = append(names, names[0])
	d := c.diags.Errorf(at, "cycle of `from` clauses: %s", strings.Join(quoteAll(names), " → ")).
		With("A %s cannot extend itself, directly or through others; remove one of these `from` clauses.", bd.kind)
	for _, x := range cyc[1:] {
		d.Note(x.stmt.Args[2].Range(), "`%s` extends `%s`", x.name, x.stmt.Args[2].Text())
	}
}

func declBefore(a, b *decl) bool {
	if a.stmt.Range.File != b.stmt.Range.File {
		return a.stmt.Range.File < b.stmt.Range.File
	}
	return a.stmt.Range.Start.Offset < b.stmt.Range.Start.Offset
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sortStrings(out)
	return out
}

// what names a declaration in messages: "machine `mistral`", or for an
// inline declaration "the machine of experiment `billing`".
func what(d *decl) string {
	if d.inline {
		return fmt.Sprintf("the %s of experiment `%s`", d.kind, d.name)
	}
	return fmt.Sprintf("%s `%s`", d.kind, d.name)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// policy compiles a policy declaration. The references it makes to a
// machine (levels, pstates) are checked when a run pairs it with one.
func (c *compiler) policy(d *decl, b binding) (runtime.Policy, policyRefs, bool) {
	var refs policyRefs
	chain, ok := c.chain(d)
	if !ok {
		return runtime.Policy{}, refs, false
	}
	p := runtime.Policy{Name: d.name, Depth: 1000, Window: 10}
	var admitAt *lang.Stmt
	before := c.errs()
	rule := func(dst **runtime.Expr, kind exprKind) func(*lang.Stmt) {
		return func(s *lang.Stmt) {
			if e := c.ruleExpr(s, 0, kind, b); e != nil {
				*dst = e
			}
		}
	}
	var budgetAt, deferAt, selectAt *lang.Stmt
	for _, cd := range chain {
		var caps []runtime.Powercap
		var capRefs []capRefs
		capsSet := false
		c.decodeBlock(what(cd), cd.stmt.Body, []fieldSpec{
			{name: "order", usage: "order job.submit", decode: rule(&p.Order, numExpr)},
			{name: "priority", usage: "priority job.wait / job.walltime", decode: rule(&p.Priority, numExpr)},
			{name: "admit", usage: "admit !peak || job.nodes <= 16", decode: func(s *lang.Stmt) {
				rule(&p.Admit, boolExpr)(s)
				admitAt = s
				if p.Admit != nil && !p.Admit.Deps.Dynamic() && b == nil {
					_, r := c.file(s).ArgsSource(s, 0)
					c.diags.Warnf(r, "this admit rule depends only on fixed job attributes").
						With("A job it refuses is refused in every pass and never starts (the run then fails); make it depend on time, e.g. `!peak || %s`.", p.Admit.Source)
				}
			}},
			{name: "backfill", usage: "backfill easy`, `backfill none` or `backfill greedy depth 1000", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 3, "backfill easy`, `backfill none` or `backfill greedy depth 1000") {
					return
				}
				kind, ok := c.keyword(s.Args[0], "backfill", "none", "easy", "greedy")
				if !ok {
					return
				}
				p.Backfill = map[string]runtime.BackfillKind{"none": runtime.NoBackfill, "easy": runtime.EASY, "greedy": runtime.Greedy}[kind]
				if len(s.Args) == 1 {
					return
				}
				if kind != "greedy" || len(s.Args) != 3 || s.Args[1].Text() != "depth" {
					c.diags.Errorf(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()), "unexpected `%s` after `backfill %s`", c.file(s).Sub(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range())), kind).
						With("Only greedy backfilling takes a depth: `backfill greedy depth 1000`.")
					return
				}
				if n, ok := c.count(s.Args[2], b, "depth"); ok {
					p.Depth = n
				}
			}},
			{name: "estimate", usage: "estimate requested` or `estimate exact", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "estimate requested` or `estimate exact") {
					if k, ok := c.keyword(s.Args[0], "estimate", "requested", "exact"); ok {
						p.Estimate = map[string]runtime.EstimateKind{"requested": runtime.Requested, "exact": runtime.Exact}[k]
					}
				}
			}},
			{name: "shutdown", usage: "shutdown idle after 10 min` or `shutdown none", decode: func(s *lang.Stmt) {
				refs.keepAt = nil
				if sh, ok := c.shutdown(s, b); ok {
					p.Shutdown = sh
					if sh != nil && sh.Keep > 0 {
						refs.keepAt = s
					}
				}
			}},
			{name: "allocate", usage: "allocate first_available`, `allocate rack_aware by rack` or `allocate contiguous 512", decode: func(s *lang.Stmt) {
				if a, n, ok := c.allocate(s, b, &refs); ok {
					p.Allocate, p.Contiguous = a, n
					if n > 0 {
						c.allocAt[d.name] = s
					}
				}
			}},
			{name: "frequency", usage: "frequency max`, `frequency 2.0 GHz` or `frequency rule peak ? 2.0e9 : 2.7e9", decode: func(s *lang.Stmt) {
				if f, ok := c.frequency(s, b, &refs); ok {
					p.Frequency = f
				}
			}},
			{name: "powercap", usage: "powercap 60% from \"2012-09-07 13:00\" for 1 h { mode mix }", repeat: true, decode: func(s *lang.Stmt) {
				capsSet = true
				if pc, ok := c.powercap(s, b, &capRefs); ok && pc != nil {
					caps = append(caps, *pc)
				}
			}},
			{name: "budget", usage: "budget 50% of baseline during peak", decode: func(s *lang.Stmt) {
				budgetAt, refs.budgetAt = s, s
				if bg, ok := c.budget(s, b); ok {
					p.Budget = bg
					if bg != nil && bg.OfBaseline > 0 {
						c.budgetAt[d.name] = s
					} else {
						delete(c.budgetAt, d.name)
					}
				}
			}},
			{name: "interval", usage: "interval 1 min", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "interval 1 min") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "interval"); ok {
						p.Interval = v
					}
				}
			}},
			{name: "window", usage: "window 10", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "window 10") {
					if n, ok := c.count(s.Args[0], b, "window"); ok {
						p.Window = n
					}
				}
			}},
			{name: "active", usage: activeUsage, decode: func(s *lang.Stmt) {
				refs.activeAt = s
				if a, ok := c.activeStage(s, b, p.Active); ok {
					p.Active = a
				}
			}},
			{name: "defer", usage: deferUsage, decode: func(s *lang.Stmt) {
				deferAt = s
				if df, ok := c.deferStage(s, b, p.Defer); ok {
					p.Defer = df
				}
			}},
			{name: "select", usage: "select knapsack { value job.nodes; weight job.power }` or `select in_order", decode: func(s *lang.Stmt) {
				selectAt = s
				if !c.args(s, 1, 1, "select knapsack` or `select in_order") {
					return
				}
				k, ok := c.keyword(s.Args[0], "select", "in_order", "knapsack")
				if !ok {
					return
				}
				p.Select = map[string]runtime.SelectKind{"in_order": runtime.SelectInOrder, "knapsack": runtime.SelectKnapsack}[k]
				if s.Body != nil && k != "knapsack" {
					c.diags.Errorf(s.Body.Range, "`select %s` takes no block", k).With("Only `select knapsack` has a value and a weight.")
					return
				}
				c.decodeBlock("the knapsack of "+what(cd), s.Body, []fieldSpec{
					{name: "value", usage: "value job.nodes", decode: rule(&p.Value, numExpr)},
					{name: "weight", usage: "weight job.power", decode: rule(&p.Weight, numExpr)},
				})
			}},
		})
		if capsSet { // a declaration's own powercaps replace the inherited ones
			p.Powercaps, refs.caps = caps, capRefs
		}
	}
	if p.Budget != nil && len(p.Powercaps) > 0 && b == nil {
		at := d.stmt.Args[0].Range()
		if budgetAt != nil {
			at = budgetAt.Range
		}
		c.diags.Errorf(at, "%s has both a budget and a powercap", what(d)).
			With("A budget caps the running jobs' power (Zhou et al.); a powercap the whole machine's (Georgiou et al.). Use one of them.")
	}
	if p.Defer != nil && b == nil {
		at := d.stmt.Args[0].Range()
		if deferAt != nil {
			at = deferAt.Range
		}
		switch {
		case p.Backfill != runtime.NoBackfill:
			c.diags.Errorf(at, "%s defers jobs and backfills", what(d)).
				With("Kunkel et al.'s price-aware schedulers are FIFO: a deferred head holds the queue. Backfilling past a deferred job would need its reservation to move with its chosen start, which pwrc does not model yet; add `backfill none`.")
		case p.Frequency.Kind == runtime.FreqRule || p.Frequency.Kind == runtime.FreqPState:
			c.diags.Errorf(at, "%s defers jobs and chooses their frequency", what(d)).
				With("A deferral prices a job's run at the highest pstate; pwrc does not combine it with a frequency stage yet. Use `frequency max`.")
		case p.Budget != nil || len(p.Powercaps) > 0 || p.Select != runtime.SelectInOrder:
			c.diags.Errorf(at, "%s defers jobs and has a power budget, a powercap or a knapsack", what(d)).
				With("A deferral is decided for the FIFO head alone; pwrc does not combine it with power limits yet. Use one or the other.")
		}
	}
	if b == nil {
		c.checkActive(d, &p, refs.activeAt)
	}
	if b == nil && p.Admit != nil && p.Admit.Deps&runtime.DepWait != 0 && p.Interval == 0 && admitAt != nil {
		_, r := c.file(admitAt).ArgsSource(admitAt, 0)
		c.diags.Warnf(r, "this admit rule reads `job.wait`, but passes run only when something happens").
			With("A job's wait grows between events, so the rule may admit it long after it could; add `interval 1 min` to the policy to re-check as a scheduler's cycle does.")
	}
	if len(p.Powercaps) > 0 && p.Select == runtime.SelectKnapsack && b == nil {
		at := d.stmt.Args[0].Range()
		if selectAt != nil {
			at = selectAt.Range
		}
		c.diags.Errorf(at, "%s has a powercap and selects by knapsack", what(d)).
			With("Under a powercap Alg. 2 gives each starting job its frequency from the machine's power at that moment, one job after another; a knapsack picks a set of jobs at once by fixed weights, which each start would change. pwrc does not combine them: use `select in_order` (the default).")
	} else if p.Budget == nil && p.Select == runtime.SelectKnapsack && b == nil {
		c.diags.Warnf(d.stmt.Args[0].Range(), "%s selects by knapsack but has no `budget`", what(d)).
			With("The knapsack chooses jobs only while a power budget applies; add e.g. `budget 50%% of baseline during peak`.")
	}
	return p, refs, c.errs() == before
}

// budget reads `budget none`, `budget 1.2 MW` or `budget 50% of baseline`,
// each optionally followed by `during peak` or `while RULE`.
func (c *compiler) budget(s *lang.Stmt, b binding) (*runtime.Budget, bool) {
	const usage = "budget 50% of baseline during peak`, `budget 1.2 MW` or `budget 800 kW while now.hour >= 9"
	a := s.Args
	if len(a) == 1 && a[0].Text() == "none" {
		return nil, true
	}
	if !c.args(s, 1, -1, usage) {
		return nil, false
	}
	bg := &runtime.Budget{}
	n := 1
	if len(a) >= 3 && a[1].Text() == "of" {
		if a[2].Text() != "baseline" {
			c.diags.Errorf(a[2].Range(), "a budget can be a share of `baseline` only").DidYouMean(lang.Suggest(a[2].Text(), []string{"baseline"})).
				With("`baseline` is the experiment's baseline run: its mean job power.")
			return nil, false
		}
		f, _, ok := c.quantity(a[0], b, lang.Fraction, "budget")
		if !ok {
			return nil, false
		}
		if !(f > 0) {
			c.diags.Errorf(a[0].Range(), "a budget must be above 0%%").With("Write e.g. `budget 50%% of baseline`.")
			return nil, false
		}
		bg.OfBaseline = f
		n = 3
	} else {
		if num, ok := c.val(a[0], b).(*lang.Number); ok && num.Unit == "%" {
			c.diags.Errorf(a[0].Range(), "a budget in %% needs `of baseline`").DidYouMean(a[0].Text() + " of baseline").
				With("A budget is a power (`budget 1.2 MW`) or a share of the baseline run's mean job power.")
			return nil, false
		}
		v, ok := c.nonNegative(a[0], b, lang.Power, "budget")
		if !ok {
			return nil, false
		}
		bg.Power = v
	}
	rest := a[n:]
	switch {
	case len(rest) == 0:
		bg.When = runtime.BudgetAlways
		if bg.OfBaseline == 0 && bg.Power == 0 {
			c.diags.Errorf(a[0].Range(), "a budget of 0 W that always applies lets no job start").
				With("Give the jobs some power, or keep them out only at some times: `budget 0 W during peak`.")
			return nil, false
		}
	case rest[0].Text() == "during":
		if len(rest) != 2 || rest[1].Text() != "peak" {
			r := rest[0].Range().Cover(rest[len(rest)-1].Range())
			c.diags.Errorf(r, "expected `during peak`").With("For other times write `while RULE`, e.g. `while now.hour >= 9 && now.hour < 23`.")
			return nil, false
		}
		bg.When = runtime.BudgetDuringPeak
	case rest[0].Text() == "while":
		e := c.ruleExpr(s, n+1, boolExpr, b)
		if e == nil {
			return nil, false
		}
		if e.Fields != 0 || e.Deps&(runtime.DepJob|runtime.DepWait) != 0 {
			_, r := c.file(s).ArgsSource(s, n+1)
			c.diags.Errorf(r, "a budget's condition cannot read `job`").
				With("It applies to the whole machine: use `now`, `peak`, `price` or `system`.")
			return nil, false
		}
		bg.When, bg.While = runtime.BudgetWhile, e
	default:
		d := c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "unexpected `%s` in `budget`", c.file(s).Sub(rest[0].Range().Cover(rest[len(rest)-1].Range()))).
			With("Write `%s`.", usage)
		if id, ok := rest[0].(*lang.Ident); ok {
			d.DidYouMean(lang.Suggest(id.Name, []string{"during", "while", "of"}))
		}
		return nil, false
	}
	return bg, true
}
