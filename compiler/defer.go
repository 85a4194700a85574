package compiler

import (
	"math"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// deferUsage is how `defer` is written, for messages.
const deferUsage = "defer cheapest { lookahead 12 h }` or `defer none"

// deferStage reads `defer none` or `defer cheapest { … }` (kunkel.md §4.2):
// Kunkel et al.'s price-aware start. A block changes only the fields it
// sets of the defer stage inherited from the base policy (base may be nil).
func (c *compiler) deferStage(s *lang.Stmt, b binding, base *runtime.Defer) (*runtime.Defer, bool) {
	a := s.Args
	if len(a) == 1 && a[0].Text() == "none" && s.Body == nil {
		return nil, true
	}
	if len(a) != 1 || a[0].Text() != "cheapest" {
		r := s.Key.R
		if len(a) > 0 {
			r = argsRange(s)
		}
		d := c.diags.Errorf(r, "expected `defer cheapest { … }` or `defer none`").With("Write `%s`.", deferUsage)
		if len(a) > 0 {
			if id, ok := a[0].(*lang.Ident); ok {
				d.DidYouMean(lang.Suggest(id.Name, []string{"cheapest", "none"}))
			}
		}
		return nil, false
	}
	df := runtime.Defer{PreferNow: 0.001, Runtime: runtime.Exact}
	if base != nil {
		df = *base
	}
	if s.Body == nil {
		c.diags.Errorf(s.Range, "`defer cheapest` needs a block with at least its `lookahead`").With("Write `defer cheapest { lookahead 12 h }`.")
		return nil, false
	}
	ok := true
	var deadlineAt *lang.Stmt
	rule := func(dst **runtime.Expr) func(*lang.Stmt) {
		return func(s *lang.Stmt) {
			e := c.ruleExpr(s, 0, numExpr, b)
			if e == nil {
				ok = false
				return
			}
			*dst = e
		}
	}
	c.decodeBlock("the defer stage", s.Body, []fieldSpec{
		{name: "lookahead", usage: "lookahead 12 h", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "lookahead 12 h") {
				ok = false
				return
			}
			v, good := c.nonNegative(s.Args[0], b, lang.Time, "lookahead")
			if !good {
				ok = false
				return
			}
			if v < 3*3600 || v != math.Trunc(v/3600)*3600 {
				c.diags.Errorf(c.val(s.Args[0], b).Range(), "the look-ahead must be a whole number of hours, at least 3").
					With("Prices are known hour by hour: write e.g. `lookahead 12 h` (Kunkel et al. use 12, 24, 36, 48 and 96 h).")
				ok = false
				return
			}
			df.Lookahead = v
		}},
		{name: "waiting", usage: "waiting job.nodes * system.infrastructure / system.nodes", decode: rule(&df.Waiting)},
		{name: "running", usage: "running job.power + job.nodes * system.infrastructure / system.nodes", decode: rule(&df.Running)},
		{name: "runtime", usage: "runtime exact` or `runtime requested", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "runtime exact` or `runtime requested") {
				ok = false
				return
			}
			k, good := c.keyword(s.Args[0], "runtime", "exact", "requested")
			if !good {
				ok = false
				return
			}
			df.Runtime = map[string]runtime.EstimateKind{"exact": runtime.Exact, "requested": runtime.Requested}[k]
		}},
		{name: "then", usage: "then commit`, `then recompute` or `then recompute_on_ends", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "then commit`, `then recompute` or `then recompute_on_ends") {
				ok = false
				return
			}
			k, good := c.keyword(s.Args[0], "then", runtime.DeferThenNames[:]...)
			if !good {
				ok = false
				return
			}
			df.Then = runtime.DeferThen(indexOf(runtime.DeferThenNames[:], k))
		}},
		{name: "deadline", usage: "deadline 12 h` or `deadline none", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "deadline 12 h` or `deadline none") {
				ok = false
				return
			}
			if s.Args[0].Text() == "none" {
				df.Deadline, deadlineAt = 0, nil
				return
			}
			v, good := c.nonNegative(s.Args[0], b, lang.Time, "deadline")
			if !good || v == 0 {
				if good {
					c.diags.Errorf(s.Args[0].Range(), "a deadline must be above 0").With("Write e.g. `deadline 12 h`, or `deadline none`.")
				}
				ok = false
				return
			}
			df.Deadline, deadlineAt = v, s
		}},
		{name: "prefer_now", usage: "prefer_now 0.1%", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "prefer_now 0.1%") {
				ok = false
				return
			}
			f, _, good := c.quantity(s.Args[0], b, lang.Fraction, "prefer_now")
			if !good || f < 0 || f >= 1 {
				if good {
					c.diags.Errorf(s.Args[0].Range(), "prefer_now must be at least 0%% and below 100%%").With("It discounts the cost of starting now; Kunkel et al.'s is 0.1%%.")
				}
				ok = false
				return
			}
			df.PreferNow = f
		}},
		{name: "price", usage: "price price`, `price carbon` or `price RULE", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, -1, "price price`, `price carbon` or `price price.now + 0.0002 * carbon.now") {
				ok = false
				return
			}
			if len(s.Args) == 1 {
				switch s.Args[0].Text() {
				case "price":
					df.Objective, df.Rule = runtime.MinimizePrice, nil
					return
				case "carbon":
					df.Objective, df.Rule = runtime.MinimizeCarbon, nil
					return
				}
			}
			e := c.ruleExpr(s, 0, numExpr, b)
			if e == nil {
				ok = false
				return
			}
			if e.Deps&^(runtime.DepJob|runtime.DepPrice|runtime.DepCarbon) != 0 || strings.Contains(e.Source, "mean_past") {
				_, r := c.file(s).ArgsSource(s, 0)
				c.diags.Errorf(r, "a defer price rule can read only `price.now`, `price.mean`, `carbon.now`, `carbon.mean` and the job's fixed fields").
					With("It is evaluated for every hour of the look-ahead, not now: it gives what a kWh costs at each instant, e.g. `price.now + 0.0002 * carbon.now` (EUR and g).")
				ok = false
				return
			}
			df.Objective, df.Rule = runtime.MinimizeRule, e
		}},
	})
	if !ok {
		return nil, false
	}
	if df.Lookahead == 0 {
		if !c.guessed(s.Body, "lookahead") {
			c.diags.Errorf(s.Range, "`defer cheapest` needs a `lookahead`").With("Write e.g. `defer cheapest { lookahead 12 h }`.")
		}
		return nil, false
	}
	if deadlineAt != nil && df.Then != runtime.DeferRecompute && b == nil {
		c.diags.Warnf(deadlineAt.Range, "a deadline matters only with `then recompute`").
			With("With `then %s` a deferred job is not decided again, so it never meets its deadline while it waits; add `then recompute` (PriceAwareDeadline).", runtime.DeferThenNames[df.Then])
	}
	return &df, true
}
