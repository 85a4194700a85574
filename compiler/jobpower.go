package compiler

import (
	"fmt"
	"math"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// jobPowerUsage lists the forms of a workload's `power` field.
const jobPowerUsage = "power 260 W per node`, `power 23 kW per 1024 nodes`, `power uniform 20 kW..33 kW per 1024 nodes`, " +
	"`power normal 23 kW sd 2 kW in 20 kW..33 kW per 1024 nodes` or `power rule 200 + 0.01 * job.walltime"

// jobPower reads a workload's `power` field: a constant, a seeded
// distribution (per node or per a number of nodes, such as a 1024-node
// Blue Gene/P rack), or a rule over job fields giving W per node.
func (c *compiler) jobPower(s *lang.Stmt, b binding, seed uint64) (runtime.JobPower, bool) {
	jp := runtime.JobPower{PerNodes: 1, Seed: seed}
	a := s.Args
	if len(a) == 0 {
		c.args(s, 1, -1, jobPowerUsage)
		return jp, false
	}
	if id, ok := a[0].(*lang.Ident); ok && id.Name == "rule" {
		jp.Kind = runtime.RulePower
		e := c.ruleExpr(s, 1, numExpr, b)
		if e == nil {
			return jp, false
		}
		if e.Deps.Dynamic() || e.Fields&^runtime.FixedJobFields != 0 {
			_, r := c.file(s).ArgsSource(s, 1)
			c.diags.Errorf(r, "a job's power can depend only on its fixed attributes").
				With("It is set once per job before the run, so it cannot read the time, the system, the price, %s or the job's power itself; use e.g. `job.nodes`, `job.walltime`, `job.user`.", runFieldList())
			return jp, false
		}
		jp.Rule = c.boundedPower(e)
		return jp, true
	}
	// The per-nodes suffix: `per node` or `per 1024 nodes`.
	per, rest, ok := c.perNodes(s, a)
	if !ok {
		return jp, false
	}
	jp.PerNodes = per
	a = rest
	watts := func(v lang.Value, field string) (float64, bool) {
		return c.nonNegative(v, b, lang.Power, field)
	}
	span := func(vs []lang.Value) (float64, float64, bool) {
		if len(vs) != 3 || vs[1].Text() != ".." {
			r := s.Key.R
			if len(vs) > 0 {
				r = vs[0].Range().Cover(vs[len(vs)-1].Range())
			}
			c.diags.Errorf(r, "expected a range of powers like `20 kW..33 kW`").With("Write `%s`.", jobPowerUsage)
			return 0, 0, false
		}
		lo, ok1 := watts(vs[0], "power")
		hi, ok2 := watts(vs[2], "power")
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		if lo > hi {
			c.diags.Errorf(vs[0].Range().Cover(vs[2].Range()), "empty range: %s is above %s", vs[0].Text(), vs[2].Text()).
				With("Write the lower bound first.")
			return 0, 0, false
		}
		return lo, hi, true
	}
	switch first := a[0].(type) {
	case *lang.Ident:
		switch first.Name {
		case "uniform":
			jp.Kind = runtime.UniformPower
			lo, hi, ok := span(a[1:])
			jp.Lo, jp.Hi = lo, hi
			return jp, ok
		case "normal":
			jp.Kind = runtime.NormalPower
			// normal MEAN sd SD [in LO..HI]
			if len(a) < 4 || a[2].Text() != "sd" {
				c.diags.Errorf(first.R.Cover(a[len(a)-1].Range()), "`power normal` needs a mean and a standard deviation").
					With("Write `power normal 23 kW sd 2 kW in 20 kW..33 kW per 1024 nodes` (the range clips the draws and may be left out).")
				return jp, false
			}
			mean, ok1 := watts(a[1], "power normal")
			sd, ok2 := watts(a[3], "sd")
			if !ok1 || !ok2 {
				return jp, false
			}
			jp.Mean, jp.SD, jp.Lo, jp.Hi = mean, sd, 0, math.Inf(1)
			if len(a) == 4 {
				return jp, true
			}
			if a[4].Text() != "in" {
				c.diags.Errorf(a[4].Range().Cover(a[len(a)-1].Range()), "unexpected `%s` after the standard deviation", a[4].Text()).
					With("Clip the draws with `in 20 kW..33 kW`.").DidYouMean(lang.Suggest(a[4].Text(), []string{"in"}))
				return jp, false
			}
			lo, hi, ok := span(a[5:])
			jp.Lo, jp.Hi = lo, hi
			return jp, ok
		}
		if c.params[first.Name] == nil {
			c.diags.Errorf(first.R, "unknown power model `%s`", first.Name).
				DidYouMean(lang.Suggest(first.Name, []string{"uniform", "normal", "rule"})).
				With("A job's power is a constant (`power 260 W per node`), `uniform`, `normal` or a `rule` over job fields.")
			return jp, false
		}
	}
	if len(a) != 1 {
		c.diags.Errorf(a[0].Range().Cover(a[len(a)-1].Range()), "unexpected `%s`", c.file(s).Sub(a[0].Range().Cover(a[len(a)-1].Range()))).
			With("Write `%s`.", jobPowerUsage)
		return jp, false
	}
	jp.Kind = runtime.ConstantPower
	v, ok := watts(a[0], "power")
	jp.Value = v
	return jp, ok
}

// perNodes splits the trailing `per node` or `per N nodes` off a power
// field's arguments.
func (c *compiler) perNodes(s *lang.Stmt, a []lang.Value) (int, []lang.Value, bool) {
	at := -1
	for i, v := range a {
		if v.Text() == "per" {
			at = i
		}
	}
	if at < 1 {
		r := a[0].Range().Cover(a[len(a)-1].Range())
		c.diags.Errorf(r, "a job's power needs `per node` or `per N nodes`").
			DidYouMean(c.file(s).Sub(r) + " per node").
			With("Powers are given per node, or per a group of nodes such as a 1024-node rack: `power 23 kW per 1024 nodes`.")
		return 0, nil, false
	}
	tail := a[at+1:]
	bad := func() (int, []lang.Value, bool) {
		r := a[at].Range()
		if len(tail) > 0 {
			r = r.Cover(tail[len(tail)-1].Range())
		}
		d := c.diags.Errorf(r, "expected `per node` or `per N nodes`").
			With("Powers are given per node, or per a group of nodes such as a 1024-node rack: `23 kW per 1024 nodes`.")
		if len(tail) == 1 {
			if sug := lang.Suggest(tail[0].Text(), []string{"node"}); sug != "" {
				d.DidYouMean("per " + sug)
			}
		}
		return 0, nil, false
	}
	switch {
	case len(tail) == 1 && tail[0].Text() == "node":
		return 1, a[:at], true
	case len(tail) == 1:
		// `1024 nodes` may have been read as a number with a unit.
		if n, ok := tail[0].(*lang.Number); ok && (n.Unit == "nodes" || n.Unit == "node") {
			return c.perCount(n, a[:at])
		}
	case len(tail) == 2 && (tail[1].Text() == "nodes" || tail[1].Text() == "node"):
		if n, ok := tail[0].(*lang.Number); ok && n.Unit == "" {
			return c.perCount(n, a[:at])
		}
	}
	return bad()
}

func (c *compiler) perCount(n *lang.Number, rest []lang.Value) (int, []lang.Value, bool) {
	if !c.checkBounds("per", lang.Dimensionless, n.Value, n, "", n) {
		return 0, nil, false
	}
	if bd := boundOf("per", lang.Dimensionless); n.Value < bd.lo || n.Value != math.Trunc(n.Value) {
		c.diags.Errorf(n.R, "`per` must be a whole number ≥ %s, not %s", bd.min, n.Src).With("%s.", capitalize(bd.why))
		return 0, nil, false
	}
	return int(n.Value), rest, true
}

// runFieldList names the job fields known only during the run (those
// workload rules cannot read), for messages: "`job.wait`, `job.estimate`,
// …".
func runFieldList() string {
	var names []string
	for _, f := range runtime.JobFieldTable {
		if !f.Fixed && f.Name != "power" && f.Name != "power_per_node" {
			names = append(names, "`job."+f.Name+"`")
		}
	}
	return strings.Join(names, ", ")
}

// boundedPower wraps a job power rule so that a value past the bound of a
// node's power (bounds.go) fails the run with the rule's location, as a
// negative or infinite one does: 1e305 W per node would make the energy
// and the cost infinite. Each rule is wrapped once, so that runs share it.
func (c *compiler) boundedPower(e *runtime.Expr) *runtime.Expr {
	if w := c.bounded[e]; w != nil {
		return w
	}
	bd := boundOf("power", lang.Power)
	w := *e
	num := e.Num
	w.Num = func(env *runtime.Env) float64 {
		r := num(env)
		if r > bd.hi {
			panic(&runtime.EvalError{Expr: &w, Err: fmt.Errorf("job %d: power %g W per node is more than %s (%s)", env.Job.ID, r, bd.max, bd.why)})
		}
		return r
	}
	c.bounded[e] = &w
	return &w
}
