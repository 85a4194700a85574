package compiler

import (
	"math"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// policyRefs are what a policy says about the machine it runs on, checked
// when a run pairs the two (pairPolicy): a policy is written once and may
// run on several machines.
type policyRefs struct {
	allocAt  *lang.Stmt  // `allocate rack_aware [by LEVEL]`
	level    *lang.Ident // its LEVEL
	freqAt   *lang.Stmt  // `frequency F` or `frequency rule …`
	freqHz   float64     // F
	keepAt   *lang.Stmt  // `shutdown idle after T keep N`
	budgetAt *lang.Stmt  // `budget …`
	caps     []capRefs   // the powercaps, in order

	activeAt *lang.Stmt // `active …` (active.go)
}

// allocators are the names `allocate` takes: Maui's node-allocation
// policies (patil.md §1.5), Patil's rack-aware allocator, Blue Gene/P's
// contiguous units, `most_recent` (the most recently idle nodes first: a
// diagnostic, and what machines without levels do by default) and `any`
// (the machine's default).
var allocators = []string{"first_available", "last_available", "min_resource", "cpu_load", "max_balance", "fastest", "rack_aware", "most_recent", "contiguous", "any"}

// allocate reads `allocate NAME`, `allocate rack_aware [by LEVEL]` or
// `allocate contiguous N`; it returns the allocation and the contiguous
// unit (0 unless contiguous).
func (c *compiler) allocate(s *lang.Stmt, b binding, refs *policyRefs) (runtime.Allocation, int, bool) {
	const usage = "allocate first_available`, `allocate rack_aware by rack`, `allocate contiguous 512` or `allocate any"
	refs.allocAt, refs.level = nil, nil
	if !c.args(s, 1, 3, usage) {
		return runtime.Allocation{}, 0, false
	}
	k, ok := c.keyword(s.Args[0], "allocate", allocators...)
	if !ok {
		return runtime.Allocation{}, 0, false
	}
	a := s.Args
	switch {
	case k == "contiguous" && len(a) == 2:
		n, ok := c.count(a[1], b, "contiguous")
		return runtime.Allocation{}, n, ok
	case k == "contiguous":
		c.diags.Errorf(s.Range, "expected `allocate contiguous N`").With("`contiguous N` rounds every allocation up to a multiple of N nodes (Blue Gene/P midplanes: 512).")
		return runtime.Allocation{}, 0, false
	case len(a) == 1 && k == "any":
		return runtime.Allocation{}, 0, true
	case len(a) == 1 && k == "rack_aware":
		refs.allocAt = s
		return runtime.Allocation{Name: k, Level: -1}, 0, true
	case len(a) == 1:
		return runtime.Allocation{Name: k}, 0, true
	case k == "rack_aware" && len(a) == 3 && a[1].Text() == "by":
		id, ok := a[2].(*lang.Ident)
		if !ok {
			c.diags.Errorf(a[2].Range(), "`by` needs the name of one of the machine's levels, not %s", describeValue(a[2])).
				With("Write `allocate rack_aware by rack`.")
			return runtime.Allocation{}, 0, false
		}
		refs.allocAt, refs.level = s, id
		return runtime.Allocation{Name: k, Level: -1}, 0, true // the level's index is set by pairPolicy
	}
	r := a[1].Range().Cover(a[len(a)-1].Range())
	d := c.diags.Errorf(r, "unexpected `%s` after `allocate %s`", c.file(s).Sub(r), k)
	switch {
	case k == "rack_aware":
		d.With("Write `allocate rack_aware` (the lowest level) or `allocate rack_aware by rack`.")
		if id, ok := a[1].(*lang.Ident); ok {
			d.DidYouMean(lang.Suggest(id.Name, []string{"by"}))
		}
	case a[1].Text() == "by":
		d.With("Only `rack_aware` places jobs by level; `%s` takes nothing after it.", k)
	default:
		d.With("`%s` takes nothing after it.", k)
	}
	return runtime.Allocation{}, 0, false
}

// frequency reads `frequency max`, `frequency 2.0 GHz` (a pstate of the
// machine, found when a run pairs them) or `frequency rule EXPR` (Hz).
func (c *compiler) frequency(s *lang.Stmt, b binding, refs *policyRefs) (runtime.Frequency, bool) {
	const usage = "frequency max`, `frequency 2.0 GHz` or `frequency rule peak ? 2.0e9 : 2.7e9"
	refs.freqAt, refs.freqHz = nil, 0
	if !c.args(s, 1, -1, usage) {
		return runtime.Frequency{}, false
	}
	if id, ok := s.Args[0].(*lang.Ident); ok {
		switch {
		case id.Name == "rule":
			e := c.ruleExpr(s, 1, numExpr, b)
			if e == nil {
				return runtime.Frequency{}, false
			}
			if e.Deps&runtime.DepSystem != 0 || e.Fields&(runtime.FieldPower|runtime.FieldPowerPerNode|runtime.FieldAlloc) != 0 {
				_, r := c.file(s).ArgsSource(s, 1)
				c.diags.Errorf(r, "a frequency rule cannot read `system`, `job.power`, `job.power_per_node` or `job.alloc`").
					With("It chooses a job's pstate once, as the job starts, and its power follows from it; it may read the job's other fields, `now`, `peak` and `price`.")
				return runtime.Frequency{}, false
			}
			refs.freqAt = s
			return runtime.Frequency{Kind: runtime.FreqRule, Rule: e}, true
		case len(s.Args) == 1 && id.Name == "max":
			return runtime.Frequency{Kind: runtime.FreqMax}, true
		case c.params[id.Name] == nil && !c.badParams[id.Name]:
			c.diags.Errorf(id.R, "`frequency` expects `max`, a frequency such as `2.0 GHz`, or `rule EXPR`, not `%s`", id.Name).
				DidYouMean(lang.Suggest(id.Name, []string{"max", "rule"})).
				With("Write `%s`.", usage)
			return runtime.Frequency{}, false
		}
	}
	if !c.args(s, 1, 1, usage) {
		return runtime.Frequency{}, false
	}
	hz, _, ok := c.quantity(s.Args[0], b, lang.Frequency, "frequency")
	if !ok {
		return runtime.Frequency{}, false
	}
	if !(hz > 0) {
		c.diags.Errorf(c.val(s.Args[0], b).Range(), "a frequency must be above 0").With("Write `%s`.", usage)
		return runtime.Frequency{}, false
	}
	refs.freqAt, refs.freqHz = s, hz
	return runtime.Frequency{Kind: runtime.FreqPState}, true // its index is set by pairPolicy
}

// shutdown reads `shutdown none` or `shutdown idle after T [keep N]`.
func (c *compiler) shutdown(s *lang.Stmt, b binding) (*runtime.Shutdown, bool) {
	const usage = "shutdown idle after 10 min` or `shutdown none"
	a := s.Args
	if len(a) == 1 && a[0].Text() == "none" {
		return nil, true
	}
	if len(a) < 3 || a[0].Text() != "idle" || a[1].Text() != "after" {
		r := s.Key.R
		if len(a) > 0 {
			r = argsRange(s)
		}
		c.diags.Errorf(r, "`shutdown` needs `idle after DURATION`").With("Write `%s`.", usage)
		return nil, false
	}
	if len(a) != 3 && (len(a) != 5 || a[3].Text() != "keep") {
		r := a[3].Range().Cover(a[len(a)-1].Range())
		d := c.diags.Errorf(r, "unexpected `%s` after `shutdown idle after %s`", c.file(s).Sub(r), a[2].Text()).
			With("Only `keep N` may follow: `shutdown idle after 10 min keep 16` keeps 16 idle nodes on as a reserve.")
		if id, ok := a[3].(*lang.Ident); ok {
			d.DidYouMean(lang.Suggest(id.Name, []string{"keep"}))
		}
		return nil, false
	}
	v, ok := c.nonNegative(a[2], b, lang.Time, "shutdown idle after")
	sh := &runtime.Shutdown{After: v}
	if len(a) == 5 {
		n, okN := c.count(a[4], b, "keep")
		sh.Keep, ok = n, ok && okN
	}
	return sh, ok
}

// pairPolicy checks what a run's policy says about its machine and
// resolves it: the level `rack_aware` fills, the pstate of `frequency F`.
func (c *compiler) pairPolicy(run *runtime.Run, refs policyRefs, b binding) bool {
	m, p := &run.Machine, &run.Policy
	ok := true
	if p.Allocate.Name == "rack_aware" && refs.allocAt != nil {
		var names []string
		for _, l := range m.Levels {
			names = append(names, l.Name)
		}
		switch {
		case len(m.Levels) == 0:
			c.diags.Errorf(argsRange(refs.allocAt), "machine `%s` has no levels, so `rack_aware` has nothing to keep off", m.Name).
				With("Did you mean to give it one, e.g. `level rack { size 16 node; power 633 W }`? Otherwise allocate with `first_available`.")
			ok = false
		case refs.level != nil:
			i := indexOf(names, refs.level.Name)
			if i < 0 {
				c.diags.Errorf(refs.level.R, "machine `%s` has no level `%s`", m.Name, refs.level.Name).
					DidYouMean(lang.Suggest(refs.level.Name, names)).
					With("Its levels, lowest first: %s.", strings.Join(names, ", "))
				ok = false
				break
			}
			p.Allocate.Level = i
		}
	}
	if k := p.Frequency.Kind; (k == runtime.FreqPState || k == runtime.FreqRule) && refs.freqAt != nil {
		var freqs []string
		nearest, tie := "", false
		for i, ps := range m.PStates {
			freqs = append(freqs, runtime.FreqLabel(ps.Freq))
			d, best := math.Abs(ps.Freq-refs.freqHz), math.Abs(m.PStates[max(0, i-1)].Freq-refs.freqHz)
			switch {
			case i == 0 || d < best && !sameFreq(d, best):
				nearest, tie = runtime.FreqLabel(ps.Freq), false
			case sameFreq(d, best):
				tie = true
			}
		}
		if tie {
			nearest = "" // halfway between two: a guess would mislead
		}
		switch {
		case len(m.PStates) == 0:
			c.diags.Errorf(argsRange(refs.freqAt), "machine `%s` has no pstates to choose from", m.Name).
				With("Give its power block pstates, highest first, e.g. `pstate 2.7 GHz 358 W` and `pstate 2.0 GHz 269 W`, or use `frequency max`.")
			ok = false
		case k == runtime.FreqPState:
			i := -1
			for j, ps := range m.PStates {
				if sameFreq(ps.Freq, refs.freqHz) {
					i = j
				}
			}
			if i < 0 {
				use := refs.freqAt.Args[0]
				d := c.diags.Errorf(argsRange(refs.freqAt), "machine `%s` has no pstate at %s", m.Name, runtime.FreqLabel(refs.freqHz)).
					DidYouMean(nearest).
					With("Its pstates: %s.", strings.Join(freqs, ", "))
				if v := c.val(use, b); v != use {
					d.Note(v.Range(), "the value of `%s`", use.Text())
				}
				ok = false
				break
			}
			p.Frequency.PState = i
		}
	}
	if !c.pairActive(run, refs.activeAt) {
		ok = false
	}
	if len(p.Powercaps) > 0 && !c.pairPowercaps(m, p.Powercaps, refs.caps) {
		ok = false
	}
	if sh := p.Shutdown; sh != nil && refs.keepAt != nil && m.Nodes > 0 && sh.Keep >= m.Nodes {
		c.diags.Warnf(refs.keepAt.Args[4].Range(), "policy `%s` keeps %d idle nodes on, and machine `%s` has %d: no node is ever switched off", p.Name, sh.Keep, m.Name, m.Nodes).
			With("`keep N` is a reserve of idle nodes that stay on; keep fewer than the machine has, or remove `shutdown`.")
	}
	return ok
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}
