package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// levelSpec gathers one level's statements across a machine and the
// machines it extends. A derived machine that declares a level of the same
// name redefines it: the fields it sets replace the base's, the others are
// kept, and the level keeps its place in the order.
type levelSpec struct {
	id     *lang.Ident // its name where it was last declared
	size   *lang.Stmt
	sizeIn int // the index in the chain of the declaration that sets size
	power  *lang.Stmt
}

// machine compiles a machine declaration under binding b.
func (c *compiler) machine(d *decl, b binding) (runtime.Machine, bool) {
	chain, ok := c.chain(d)
	if !ok {
		return runtime.Machine{}, false
	}
	m := runtime.Machine{Name: d.name, Cores: 1}
	var nodesSet, idleSet, busySet, bootSet, shutSet, badPower bool
	var powerBlocks []*lang.Block
	var busyAt, idleAt lang.Range
	var nodesAt *lang.Stmt
	nodesIn := 0 // the index in the chain of the declaration that sets nodes
	var levels []*levelSpec
	var pstates []*lang.Stmt // of the last declaration in the chain that lists any
	var slowdown *lang.Stmt
	inherited := false // the slowdown comes from a base of the declaration that gives the pstates
	before := c.errs()
	for ci, cd := range chain {
		var ownPStates []*lang.Stmt
		var ownBusy, ownSlowdown *lang.Stmt
		ownLevels := map[string]*lang.Ident{}
		c.decodeBlock(what(cd), cd.stmt.Body, []fieldSpec{
			{name: "nodes", usage: "nodes 128` or `nodes auto", decode: func(s *lang.Stmt) {
				nodesSet, nodesAt, nodesIn = true, s, ci
				if !c.args(s, 1, 1, "nodes 128` or `nodes auto") {
					return
				}
				if id, ok := c.val(s.Args[0], b).(*lang.Ident); ok && id.Name == "auto" {
					m.Nodes, nodesSet = 0, true
					return
				}
				if n, ok := c.count(s.Args[0], b, "nodes"); ok {
					m.Nodes, nodesSet = n, true
				}
			}},
			{name: "cores", usage: "cores 24", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "cores 24") {
					if n, ok := c.count(s.Args[0], b, "cores"); ok {
						m.Cores = n
					}
				}
			}},
			{name: "power", usage: "power { off 0 W; idle 70 W; busy 260 W }", decode: func(s *lang.Stmt) {
				if len(s.Args) > 0 || s.Body == nil {
					c.diags.Errorf(s.Range, "`power` takes a block of node powers").
						With("Write `power { off 0 W; idle 70 W; busy 260 W }`.")
					badPower = true
					return
				}
				powerBlocks = append(powerBlocks, s.Body)
				watt := func(dst *float64, set *bool) func(*lang.Stmt) {
					return func(s *lang.Stmt) {
						if set != nil {
							*set = true // present: a bad value is reported on its own
						}
						switch set {
						case &busySet:
							busyAt, ownBusy = s.Range, s
						case &idleSet:
							idleAt = s.Range
						}
						if len(s.Args) > 1 { // `idle 13 kW per 1024 nodes`
							per, rest, ok := c.perNodes(s, s.Args)
							if !ok {
								return
							}
							if len(rest) != 1 {
								c.args(&lang.Stmt{Key: s.Key, Args: rest, Range: s.Range}, 1, 1, s.Key.Name+" 70 W")
								return
							}
							if v, ok := c.nonNegative(rest[0], b, lang.Power, s.Key.Name); ok {
								*dst = v / float64(per)
							}
							return
						}
						if c.args(s, 1, 1, s.Key.Name+" 70 W") {
							if v, ok := c.nonNegative(s.Args[0], b, lang.Power, s.Key.Name); ok {
								*dst = v
							}
						}
					}
				}
				c.decodeBlock("the power block of "+what(cd), s.Body, []fieldSpec{
					{name: "off", usage: "off 0 W", decode: watt(&m.Power.Off, nil)},
					{name: "idle", usage: "idle 70 W", decode: watt(&m.Power.Idle, &idleSet)},
					{name: "busy", usage: "busy 260 W", decode: watt(&m.Power.Busy, &busySet)},
					{name: "boot", usage: "boot 70 W", decode: watt(&m.Power.Boot, &bootSet)},
					{name: "shutdown", usage: "shutdown 70 W", decode: watt(&m.Power.Shutdown, &shutSet)},
					{name: "pstate", usage: "pstate 2.7 GHz 358 W", repeat: true, decode: func(s *lang.Stmt) {
						ownPStates = append(ownPStates, s)
					}},
					{name: "slowdown", usage: "slowdown 1.63 at 1.2 GHz", decode: func(s *lang.Stmt) { ownSlowdown = s }},
				})
			}},
			{name: "costs", usage: "costs { system 16.5 MEUR; lifetime 5 y; annual 4 MEUR per year }", decode: func(s *lang.Stmt) {
				if len(s.Args) > 0 || s.Body == nil {
					c.diags.Errorf(s.Range, "`costs` takes a block").
						With("Write e.g. `costs { system 16.5 MEUR; lifetime 5 y }`.")
					return
				}
				mc := &runtime.MachineCosts{Lifetime: 5 * 365 * 86400}
				money := func(v lang.Value, field string) (float64, bool) {
					x, unit, ok := c.quantity(v, b, lang.Money, field)
					if ok && unit != "" {
						if mc.Currency != "" && unit != mc.Currency {
							c.diags.Errorf(v.Range(), "the machine's costs mix currencies: %s and %s", mc.Currency, unit).With("Write them in one currency.")
							return 0, false
						}
						mc.Currency = unit
					}
					return x, ok
				}
				c.decodeBlock("the costs of "+what(cd), s.Body, []fieldSpec{
					{name: "system", usage: "system 16.5 MEUR` or `system 11 kEUR per node", decode: func(s *lang.Stmt) {
						a := s.Args
						perNode := len(a) == 3 && a[1].Text() == "per" && a[2].Text() == "node"
						if len(a) != 1 && !perNode {
							c.diags.Errorf(argsRange(s), "expected `system COST` or `system COST per node`").With("Write e.g. `system 16.5 MEUR` for the machine, or `system 11 kEUR per node`.")
							return
						}
						if x, ok := money(a[0], "system"); ok {
							mc.System, mc.SystemPerNode = 0, 0
							if perNode {
								mc.SystemPerNode = x
							} else {
								mc.System = x
							}
						}
					}},
					{name: "lifetime", usage: "lifetime 5 y", decode: func(s *lang.Stmt) {
						if c.args(s, 1, 1, "lifetime 5 y") {
							if x, ok := c.nonNegative(s.Args[0], b, lang.Time, "lifetime"); ok {
								mc.Lifetime = x
							}
						}
					}},
					{name: "annual", usage: "annual 4 MEUR per year", decode: func(s *lang.Stmt) {
						a := s.Args
						words := make([]string, len(a))
						for i, x := range a {
							words[i] = x.Text()
						}
						tail := strings.Join(words[min(1, len(words)):], " ")
						if len(a) < 3 || (tail != "per year" && tail != "per node per year") {
							c.diags.Errorf(argsRange(s), "expected `annual COST per year` or `annual COST per node per year`").With("Write e.g. `annual 4 MEUR per year`: staff and maintenance.")
							return
						}
						if x, ok := money(a[0], "annual"); ok {
							mc.Annual, mc.AnnualPerNode = 0, 0
							if tail == "per node per year" {
								mc.AnnualPerNode = x
							} else {
								mc.Annual = x
							}
						}
					}},
				})
				m.Costs = mc
			}},
			{name: "infrastructure", usage: "infrastructure 130 kW` or `infrastructure 85 W per node", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 3, "infrastructure 130 kW` or `infrastructure 85 W per node") {
					return
				}
				v, ok := c.nonNegative(s.Args[0], b, lang.Power, "infrastructure")
				if !ok {
					return
				}
				switch {
				case len(s.Args) == 1:
					m.Infrastructure, m.InfrastructurePerNode = v, 0
				case len(s.Args) == 3 && s.Args[1].Text() == "per" && s.Args[2].Text() == "node":
					m.Infrastructure, m.InfrastructurePerNode = 0, v
				default:
					c.diags.Errorf(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()), "unexpected `%s`", c.file(s).Sub(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()))).
						With("Write `infrastructure 130 kW` for the whole machine or `infrastructure 85 W per node`.")
				}
			}},
			{name: "boot", usage: "boot 30 s", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "boot 30 s") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "boot"); ok {
						m.BootTime = v
					}
				}
			}},
			{name: "shutdown", usage: "shutdown 10 s", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "shutdown 10 s") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "shutdown"); ok {
						m.ShutdownTime = v
					}
				}
			}},
			{name: "level", usage: "level rack { size 16 node; power 633 W }", repeat: true, decode: func(s *lang.Stmt) {
				levels = c.levelStmt(cd, ci, s, levels, ownLevels)
			}},
		})
		switch {
		case len(ownPStates) > 0 && ownBusy != nil:
			c.diags.Errorf(ownBusy.Key.R, "%s has both `busy` and pstates", what(cd)).
				With("A busy node draws the power of its job's pstate (the highest unless the policy chooses another); remove `busy`, or the pstates.").
				Note(ownPStates[0].Key.R, "first pstate")
			pstates = ownPStates
		case len(ownPStates) > 0:
			pstates = ownPStates // a derived machine's pstates replace the base's, and its `busy`
		case ownBusy != nil:
			pstates, slowdown = nil, nil // and a derived machine's `busy` replaces the base's pstates
		}
		if ownSlowdown != nil {
			slowdown = ownSlowdown
		}
		if len(ownPStates) > 0 || ownSlowdown != nil {
			inherited = slowdown != nil && ownSlowdown == nil
		}
	}
	name := d.stmt.Args[0].Range()
	guessed := func(field string) bool {
		for _, cd := range chain {
			if c.guessed(cd.stmt.Body, field) {
				return true
			}
		}
		return false
	}
	if !nodesSet && !guessed("nodes") {
		c.diags.Errorf(name, "%s needs `nodes`", what(d)).With("Add `nodes 128` (or `nodes auto` to take the trace's size).")
	}
	for _, pb := range powerBlocks {
		badPower = badPower || c.guessed(pb, "idle") || c.guessed(pb, "busy") || c.guessed(pb, "pstate")
	}
	if len(pstates) > 0 {
		busySet = true // the highest pstate is a busy node's power
		busyAt = pstates[0].Range
	}
	if (!idleSet || !busySet) && !guessed("power") && !badPower {
		missing := "idle and busy node power"
		if idleSet {
			missing = "busy node power"
		} else if busySet {
			missing = "idle node power"
		}
		c.diags.Errorf(name, "%s needs %s", what(d), missing).
			With("Add `power { idle 70 W; busy 260 W }` (off defaults to 0 W), or pstates: `pstate 2.7 GHz 358 W`.")
	}
	c.pstates(&m, d, pstates, slowdown, inherited, b)
	c.levels(&m, levels, nodesAt, nodesIn, b)
	if b == nil && idleSet && busySet && m.Power.Busy < m.Power.Idle && c.errs() == before { // checkDecls: once, and not failing runs
		what := "a busy node"
		if len(pstates) > 0 {
			what = "a node at the highest pstate"
		}
		c.diags.Warnf(busyAt, "%s draws less than an idle one (%s W < %s W)", what, trimNumber(m.Power.Busy), trimNumber(m.Power.Idle)).
			With("`busy` is a node running a job and `idle` one waiting; check that the two are not swapped.").
			Note(idleAt, "idle power")
	}
	if !bootSet {
		m.Power.Boot = m.Power.Idle
	}
	if !shutSet {
		m.Power.Shutdown = m.Power.Idle
	}
	return m, c.errs() == before
}

// levelStmt records `level NAME { ... }` of declaration cd: a new level
// goes after those known, a level of the same name declared by a base
// machine is redefined in place.
func (c *compiler) levelStmt(cd *decl, ci int, s *lang.Stmt, levels []*levelSpec, own map[string]*lang.Ident) []*levelSpec {
	const usage = "level rack { size 16 node; power 633 W }"
	var id *lang.Ident
	if len(s.Args) == 1 {
		id, _ = s.Args[0].(*lang.Ident)
	}
	if id == nil {
		r := s.Key.R
		if len(s.Args) > 0 {
			r = s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range())
		}
		c.diags.Errorf(r, "`level` needs a name").With("Write `%s`.", usage)
		return levels
	}
	if id.Name == "node" || id.Name == "nodes" {
		c.diags.Errorf(id.R, "a level cannot be called `%s`", id.Name).
			With("`node` is the unit level sizes are counted in; name the level after what it is, e.g. `chassis` or `rack`.")
		return levels
	}
	if s.Body == nil {
		c.diags.Errorf(s.Range, "level `%s` has no body", id.Name).With("Write `level %s { size 16 node; power 633 W }`.", id.Name)
		return levels
	}
	if prev := own[id.Name]; prev != nil {
		c.diags.Errorf(id.R, "level `%s` is declared twice in %s", id.Name, what(cd)).
			With("Keep one; each level is a kind of grouping of nodes, such as chassis or racks.").
			Note(prev.R, "first declared here")
		return levels
	}
	own[id.Name] = id
	var ls *levelSpec
	for _, l := range levels {
		if l.id.Name == id.Name {
			ls = l
		}
	}
	if ls == nil {
		ls = &levelSpec{}
		levels = append(levels, ls)
	}
	ls.id = id
	c.decodeBlock(fmt.Sprintf("level `%s` of %s", id.Name, what(cd)), s.Body, []fieldSpec{
		{name: "size", usage: "size 16 node` or `size 5 chassis", decode: func(s *lang.Stmt) { ls.size, ls.sizeIn = s, ci }},
		{name: "power", usage: "power 633 W` or `power { fans 500 W; interconnect 133 W }", decode: func(s *lang.Stmt) { ls.power = s }},
	})
	return levels
}

// levels resolves the machine's levels in order, lowest first: each size
// in nodes, each component in W per instance. Sizes must be whole
// multiples of the level below and divide the node count (when it is
// known: with `nodes auto` the runtime checks it against the trace).
func (c *compiler) levels(m *runtime.Machine, specs []*levelSpec, nodesAt *lang.Stmt, nodesIn int, b binding) {
	before := c.errs()
	sizeAt := make([]lang.Range, len(specs))
	for i, ls := range specs {
		lv := runtime.Level{Name: ls.id.Name}
		size, ok := c.levelSize(specs, i, m.Levels, b)
		if ok && i > 0 && m.Levels[i-1].Size > 0 && size%m.Levels[i-1].Size != 0 {
			below := m.Levels[i-1]
			k := size / below.Size
			hint := fmt.Sprintf("`size %d %s` (%d nodes)", k+1, below.Name, (k+1)*below.Size)
			if k >= 1 {
				hint = fmt.Sprintf("`size %d %s` (%d nodes) or %s", k, below.Name, k*below.Size, hint)
			}
			d := c.diags.Errorf(argsRange(ls.size), "level `%s` of %d nodes is not a multiple of level `%s` below it (%d nodes)", lv.Name, size, below.Name, below.Size).
				With("A level groups whole instances of the level below it; make it e.g. %s.", hint)
			if size < below.Size {
				d.With("Levels are declared lowest first, each grouping whole instances of the one before it: declare `%s` before `%s`, or make it e.g. %s.", lv.Name, below.Name, hint)
			}
			ok = false
		}
		if ok {
			lv.Size = size
			sizeAt[i] = argsRange(ls.size)
			lv.Components, _ = c.levelPower(ls, size, b) // its errors fail the machine
		}
		m.Levels = append(m.Levels, lv)
	}
	if c.errs() != before || m.Nodes == 0 {
		return
	}
	// The highest level that does not divide the machine: fixing it fixes
	// those below, whose sizes divide its own.
	for i := len(m.Levels) - 1; i >= 0; i-- {
		lv := m.Levels[i]
		left := m.Nodes % lv.Size
		if left == 0 {
			continue
		}
		// Point at what was written last: a derived machine's nodes, or its
		// level; the other is a note.
		at, note, noteMsg := sizeAt[i], lang.Range{}, "the machine's nodes"
		if nodesAt != nil {
			note = nodesAt.Range
			if nodesIn > specs[i].sizeIn {
				at, note, noteMsg = argsRange(nodesAt), sizeAt[i], fmt.Sprintf("the size of level `%s`", lv.Name)
			}
		}
		var d *lang.Diagnostic
		if lv.Size > m.Nodes {
			d = c.diags.Errorf(at, "level `%s` of %d nodes is larger than the machine (%d nodes)", lv.Name, lv.Size, m.Nodes).
				With("A machine is made of whole instances of each level; give it at least %d nodes, or make the level smaller.", lv.Size)
		} else {
			lower, upper := m.Nodes-left, m.Nodes-left+lv.Size
			d = c.diags.Errorf(at, "level `%s` of %d nodes does not divide the machine's %d nodes: %s over", lv.Name, lv.Size, m.Nodes, leftOver(left)).
				With("A machine is made of whole instances of each level; give it a multiple of %d nodes (%d or %d), or a level size that divides %d.", lv.Size, lower, upper, m.Nodes)
		}
		if note.Valid() {
			d.Note(note, "%s", noteMsg)
		}
		return
	}
}

// levelSize reads the size of level specs[i], `size N node` or
// `size N LOWER_LEVEL`, in nodes; resolved holds the levels before it
// (Size 0 when in error).
func (c *compiler) levelSize(specs []*levelSpec, i int, resolved []runtime.Level, b binding) (int, bool) {
	ls, lower := specs[i], specs[:i]
	const usage = "size 16 node` (nodes per instance) or `size 5 chassis` (instances of a level declared before it"
	s := ls.size
	if s == nil {
		c.diags.Errorf(ls.id.R, "level `%s` needs a `size`", ls.id.Name).With("Write `%s).", usage)
		return 0, false
	}
	if len(s.Args) == 1 {
		d := c.diags.Errorf(s.Args[0].Range(), "`size` needs what it counts: `node` or a level declared before `%s`", ls.id.Name).
			With("Write `%s).", usage)
		if _, ok := c.val(s.Args[0], b).(*lang.Number); ok {
			d.DidYouMean(s.Args[0].Text() + " node")
		}
		return 0, false
	}
	if !c.args(s, 2, 2, usage+")") {
		return 0, false
	}
	n, ok := c.count(s.Args[0], b, "size")
	unit, isID := s.Args[1].(*lang.Ident)
	if !isID {
		c.diags.Errorf(s.Args[1].Range(), "`size` counts `node` or a level, not %s", describeValue(s.Args[1])).With("Write `%s).", usage)
		return 0, false
	}
	per := 0
	switch unit.Name {
	case "node", "nodes":
		per = 1
	default:
		names := []string{"node"}
		for j, l := range lower {
			if unit.Name == l.id.Name || unit.Name == l.id.Name+"s" {
				per = resolved[j].Size
				if per == 0 {
					return 0, false // its own error is reported
				}
			}
			names = append(names, l.id.Name)
		}
		if per > 0 {
			break
		}
		if unit.Name == ls.id.Name || unit.Name == ls.id.Name+"s" {
			c.diags.Errorf(unit.R, "level `%s` cannot be made of itself", ls.id.Name).With("Count nodes (`size 16 node`) or a level declared before it.")
			return 0, false
		}
		for _, l := range specs[i+1:] {
			if unit.Name == l.id.Name || unit.Name == l.id.Name+"s" {
				c.diags.Errorf(unit.R, "level `%s` is declared after `%s`: levels are declared lowest first", l.id.Name, ls.id.Name).
					With("Declare `%s` before `%s`, which is made of it.", l.id.Name, ls.id.Name).
					Note(l.id.R, "`%s` is declared here", l.id.Name)
				return 0, false
			}
		}
		d := c.diags.Errorf(unit.R, "unknown level `%s`", unit.Name).DidYouMean(lang.Suggest(unit.Name, names))
		if len(lower) == 0 {
			d.With("Level `%s` is the lowest: count its nodes, `size %s node`.", ls.id.Name, s.Args[0].Text())
		} else {
			d.With("A level counts nodes or instances of a level declared before it: %s.", strings.Join(quoteAll(names), ", "))
		}
		return 0, false
	}
	if !ok {
		return 0, false
	}
	if bd := boundOf("nodes", lang.Dimensionless); float64(n)*float64(per) > bd.hi {
		c.diags.Errorf(argsRange(s), "level `%s` is too large: %d × %d nodes (at most %s)", ls.id.Name, n, per, bd.max).With("%s.", capitalize(bd.why))
		return 0, false
	}
	return n * per, true
}

// levelPower reads a level's `power P`, `power P per K nodes` or
// `power { COMPONENT P; ... }` into W per instance of size nodes: a value
// per K nodes scales with the level's size.
func (c *compiler) levelPower(ls *levelSpec, size int, b binding) ([]runtime.PowerComponent, bool) {
	s := ls.power
	if s == nil {
		return nil, true
	}
	before := c.errs()
	watts := func(s *lang.Stmt, field string) float64 {
		a := s.Args
		if len(a) == 0 {
			c.args(s, 1, 1, fieldName(field)+" 633 W")
			return 0
		}
		per := 1.0
		if len(a) > 1 {
			k, rest, ok := c.perNodes(s, a)
			if !ok {
				return 0
			}
			if len(rest) != 1 {
				c.args(&lang.Stmt{Key: s.Key, Args: rest, Range: s.Range}, 1, 1, fieldName(field)+" 133 W per 16 nodes")
				return 0
			}
			a, per = rest, float64(k)/float64(size)
		}
		v, _ := c.nonNegative(a[0], b, lang.Power, field)
		return v / per
	}
	if s.Body == nil {
		w := watts(s, "power@level")
		return []runtime.PowerComponent{{Power: w}}, c.errs() == before
	}
	if len(s.Args) > 0 {
		c.diags.Errorf(argsRange(s), "`power` takes a value or a block of components, not both").
			With("Write `power 633 W`, or `power { fans 500 W; interconnect 133 W }` to report each component on its own.")
		return nil, false
	}
	var out []runtime.PowerComponent
	seen := map[string]*lang.Stmt{}
	for _, cs := range s.Body.Stmts {
		if prev := seen[cs.Key.Name]; prev != nil {
			c.diags.Errorf(cs.Key.R, "component `%s` of level `%s` is set twice", cs.Key.Name, ls.id.Name).
				With("Keep one; the second would silently win.").Note(prev.Key.R, "first set here")
			continue
		}
		seen[cs.Key.Name] = cs
		if cs.Body != nil {
			c.diags.Errorf(cs.Body.Range, "a component takes a power, not a block").With("Write `%s 500 W`.", cs.Key.Name)
			continue
		}
		out = append(out, runtime.PowerComponent{Name: cs.Key.Name, Power: watts(cs, cs.Key.Name)})
	}
	return out, c.errs() == before
}

// pstates reads the machine's pstates (highest frequency first) and its
// slowdown at the lowest one.
func (c *compiler) pstates(m *runtime.Machine, d *decl, stmts []*lang.Stmt, slowdown *lang.Stmt, inherited bool, b binding) {
	before := c.errs()
	at := make([]*lang.Stmt, 0, len(stmts))
	for _, s := range stmts {
		ps, ok := c.pstate(s, b)
		if !ok {
			continue
		}
		if n := len(m.PStates); n > 0 {
			prev := m.PStates[n-1]
			switch {
			case sameFreq(ps.Freq, prev.Freq):
				c.diags.Errorf(s.Args[0].Range(), "two pstates at %s", runtime.FreqLabel(ps.Freq)).
					With("Each pstate is one frequency; remove one of them.").Note(at[n-1].Args[0].Range(), "the first one")
				continue
			case ps.Freq > prev.Freq:
				c.diags.Errorf(s.Args[0].Range(), "pstates must go from the highest frequency down, but %s comes after %s", runtime.FreqLabel(ps.Freq), runtime.FreqLabel(prev.Freq)).
					With("List them highest first, as `pstate 2.7 GHz 358 W` then `pstate 2.4 GHz 317 W`: the first is a busy node's nominal power.").
					Note(at[n-1].Args[0].Range(), "the pstate before it")
				continue
			case ps.Power > prev.Power && b == nil:
				c.diags.Warnf(s.Args[1].Range(), "pstate %s draws more than %s above it (%s W > %s W)", runtime.FreqLabel(ps.Freq), runtime.FreqLabel(prev.Freq), trimNumber(ps.Power), trimNumber(prev.Power)).
					With("A node draws less at a lower frequency; check the two powers.")
			}
		}
		m.PStates = append(m.PStates, ps)
		at = append(at, s)
	}
	if len(m.PStates) > 0 {
		m.Power.Busy = m.PStates[0].Power
		m.Slowdown = 1
	}
	if c.errs() != before {
		return
	}
	if slowdown == nil {
		if len(m.PStates) > 1 && b == nil {
			c.diags.Warnf(d.stmt.Args[0].Range(), "%s has pstates but no `slowdown`", what(d)).
				With("Jobs at a lower pstate would run as fast as at the highest; add e.g. `slowdown 1.63 at %s` to its power block (Georgiou et al.'s value for Curie at its lowest pstate).", runtime.FreqLabel(m.PStates[len(m.PStates)-1].Freq))
		}
		return
	}
	const usage = "Write `slowdown 1.63 at 1.2 GHz`: jobs at the lowest pstate (1.2 GHz) run 1.63 times as long as at the highest, and s(f) is linear in f between them."
	a := slowdown.Args
	if len(a) != 3 || a[1].Text() != "at" {
		r := slowdown.Key.R
		if len(a) > 0 {
			r = argsRange(slowdown)
		}
		c.diags.Errorf(r, "expected `slowdown FACTOR at FREQUENCY`").With("%s", usage)
		return
	}
	dim := lang.Dimensionless
	if n, ok := c.val(a[0], b).(*lang.Number); ok && n.Unit == "%" {
		dim = lang.Fraction // `slowdown 163% at 1.2 GHz`
	}
	f, _, ok1 := c.quantity(a[0], b, dim, "slowdown")
	hz, _, ok2 := c.quantity(a[2], b, lang.Frequency, "slowdown")
	if !ok1 || !ok2 {
		return
	}
	n := len(m.PStates)
	switch {
	case n == 0:
		c.diags.Errorf(slowdown.Key.R, "`slowdown` needs pstates").
			With("It is the run-time factor at the lowest pstate; list the pstates first, e.g. `pstate 2.7 GHz 358 W` and `pstate 1.2 GHz 193 W`.")
	case n == 1:
		c.diags.Errorf(slowdown.Key.R, "`slowdown` needs at least two pstates").
			With("Jobs run at full speed at the highest pstate, which is the only one; add the lower ones.")
	case !sameFreq(hz, m.PStates[n-1].Freq) && inherited:
		c.diags.Errorf(argsRange(stmts[len(stmts)-1]), "%s inherits `%s` from its base, but its lowest pstate is %s", what(d), c.file(slowdown).Sub(slowdown.Range), runtime.FreqLabel(m.PStates[n-1].Freq)).
			With("Its pstates replace the base's; give it its own slowdown at its lowest pstate, e.g. `slowdown %s at %s`.", strconv.FormatFloat(f, 'g', 10, 64), runtime.FreqLabel(m.PStates[n-1].Freq)).
			Note(slowdown.Range, "the inherited slowdown")
	case !sameFreq(hz, m.PStates[n-1].Freq):
		c.diags.Errorf(c.val(a[2], b).Range(), "the slowdown is given at %s, but the lowest pstate is %s", runtime.FreqLabel(hz), runtime.FreqLabel(m.PStates[n-1].Freq)).
			DidYouMean(runtime.FreqLabel(m.PStates[n-1].Freq)).
			With("s(f) is 1 at the highest pstate and the slowdown at the lowest, linear in f between them: give it at the lowest.")
	default:
		m.Slowdown = f
	}
}

// pstate reads `pstate 2.7 GHz 358 W` (or `… 26 kW per 1024 nodes`).
func (c *compiler) pstate(s *lang.Stmt, b binding) (runtime.PState, bool) {
	const usage = "pstate 2.7 GHz 358 W"
	if len(s.Args) == 1 {
		c.diags.Errorf(s.Args[0].Range(), "a pstate needs a frequency and the power a busy node draws at it").With("Write `%s`.", usage)
		return runtime.PState{}, false
	}
	if !c.args(s, 2, -1, usage) {
		return runtime.PState{}, false
	}
	hz, _, ok := c.quantity(s.Args[0], b, lang.Frequency, "pstate")
	if ok && !(hz > 0) {
		c.diags.Errorf(c.val(s.Args[0], b).Range(), "a pstate's frequency must be above 0").With("Write `%s`.", usage)
		ok = false
	}
	rest, per := s.Args[1:], 1
	if len(rest) > 1 {
		k, r, okP := c.perNodes(s, rest)
		if !okP {
			return runtime.PState{}, false
		}
		if len(r) != 1 {
			c.args(&lang.Stmt{Key: s.Key, Args: append([]lang.Value{s.Args[0]}, r...), Range: s.Range}, 2, 2, usage)
			return runtime.PState{}, false
		}
		rest, per = r, k
	}
	w, okW := c.nonNegative(rest[0], b, lang.Power, "pstate")
	return runtime.PState{Freq: hz, Power: w / float64(per)}, ok && okW
}

// argsRange is the range of a statement's arguments (its keyword when it
// has none).
func argsRange(s *lang.Stmt) lang.Range {
	if len(s.Args) == 0 {
		return s.Key.R
	}
	return s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range())
}

// sameFreq compares frequencies written in different units (`2000 MHz`
// is `2 GHz`) up to rounding.
func sameFreq(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// leftOver says how many nodes are left: "1 node is left", "3 nodes are left".
func leftOver(n int) string {
	if n == 1 {
		return "1 node is left"
	}
	return strconv.Itoa(n) + " nodes are left"
}
