package compiler

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// A dimension of an experiment's sweep: an experiment field written as a
// list (`policy [fcfs, easy]`) or a param whose value is a list.
type dim struct {
	name     string // the field or param name, shown in tables
	key      string // binding key: "@field" or the param name
	values   []lang.Value
	baseline *lang.Ident // `baseline NAME` given for this dimension
	at       lang.Range
}

// expFields are the fields of an experiment block.
var sweepFields = []string{"workload", "machine", "contract", "policy"}

// DefaultReport is the table layout when an experiment has no `report`:
// the columns of Kunkel et al.'s Table 10.
var DefaultReport = []string{"run_days", "utilization", "energy", "cost", "saving",
	"wait_q25", "wait_q50", "wait_q75", "wait_q90", "wait_q99", "wait_max"}

// ReportNames are the metrics a `report` statement can list.
var ReportNames = []string{"run_days", "utilization", "energy", "cost", "saving", "saving_pct", "bsld",
	"jobs", "dropped", "wait", "work", "inverse_pairs", "budget", "power", "job_power", "job_cost", "job_saving", "job_saving_pct"}

// groupedStats are the metrics that take statistics in parentheses, like
// `wait(q50, max)`, each with its statistics and its default.
var groupedStats = map[string]struct {
	stats map[string]string
	def   string
	list  string
}{
	"wait": {waitStats, "wait_q50", "mean, q25, q50, q75, q90, q99, max"},
	"power": {map[string]string{"mean": "power_mean", "peak": "power_peak", "offpeak": "power_offpeak", "max": "power_max"},
		"power_mean", "mean, peak, offpeak, max"},
	"job_power": {map[string]string{"mean": "job_power_mean", "peak": "job_power_peak", "offpeak": "job_power_offpeak"},
		"job_power_mean", "mean, peak, offpeak"},
}

// waitStats are the arguments of `wait(...)` in a report.
var waitStats = map[string]string{"mean": "wait_mean", "q25": "wait_q25", "q1": "wait_q25", "q50": "wait_q50",
	"q2": "wait_q50", "median": "wait_q50", "q75": "wait_q75", "q3": "wait_q75", "q90": "wait_q90",
	"q99": "wait_q99", "max": "wait_max"}

// checkDecls compiles every declaration of the root file, used or not, so
// that `pwrc check` reports problems in all of them.
func (c *compiler) checkDecls() {
	for _, kind := range []string{"machine", "contract", "policy"} {
		for _, d := range c.sortedDecls(kind) {
			if d.mod != c.root {
				continue
			}
			switch kind {
			case "machine":
				c.machine(d, nil)
			case "contract":
				c.contract(d, nil)
			case "policy":
				c.policy(d, nil)
			}
		}
	}
}

// sortedDecls lists declarations of a kind in source order.
func (c *compiler) sortedDecls(kind string) []*decl {
	var out []*decl
	for _, d := range c.decls[kind] {
		out = append(out, d)
	}
	sortDecls(out)
	return out
}

func sortDecls(ds []*decl) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i].stmt.Range, ds[j].stmt.Range
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Start.Offset < b.Start.Offset
	})
}

// plan expands the root file's experiments into runs.
func (c *compiler) plan(only string) *runtime.Plan {
	p := &runtime.Plan{}
	var exps []*decl
	for _, d := range c.sortedDecls("experiment") {
		if d.mod == c.root {
			exps = append(exps, d)
		}
	}
	declared := len(exps)
	if only != "" {
		var names []string
		var keep []*decl
		for _, d := range exps {
			names = append(names, d.name)
			if d.name == only {
				keep = append(keep, d)
			}
		}
		if len(keep) == 0 {
			d := c.diags.Errorf(lang.Range{File: "--experiment"}, "no experiment `%s`", only)
			d.DidYouMean(lang.Suggest(only, names))
			if len(names) > 0 {
				d.With("Experiments in %s: %s.", c.root.display, strings.Join(names, ", "))
			}
			return nil
		}
		exps = keep
	}
	for _, d := range exps {
		c.experiment(p, d)
	}
	// Run names must be unique across the plan: they name output files.
	// They depend on the scenario only, not on --experiment, so that a
	// run's files have the same name however it was selected.
	if declared > 1 {
		for _, r := range p.Runs {
			if r.Name != r.Experiment {
				r.Name = r.Experiment + "-" + r.Name
			}
		}
	}
	return p
}

func (c *compiler) experiment(p *runtime.Plan, d *decl) {
	if _, ok := c.header(d); !ok {
		return
	}
	stmts := map[string]*lang.Stmt{}
	record := func(s *lang.Stmt) { stmts[s.Key.Name] = s }
	var order []*lang.Stmt
	fields := []fieldSpec{}
	for _, f := range []string{"workload", "machine", "contract", "policy", "seed", "report"} {
		usage := map[string]string{"workload": `workload swf "trace.swf.gz"`, "machine": "machine mistral", "contract": "contract kunkel_fixed",
			"policy": "policy [fcfs, easy] baseline easy", "seed": "seed 42", "report": "report cost, wait(q50, q90)"}[f]
		fields = append(fields, fieldSpec{name: f, usage: usage, decode: func(s *lang.Stmt) { record(s); order = append(order, s) }})
	}
	c.decodeBlock(what(d), d.stmt.Body, fields)
	name := d.stmt.Args[0].Range()
	var missing []string
	guessedAny := false
	for _, f := range sweepFields {
		if stmts[f] == nil {
			if c.guessed(d.stmt.Body, f) {
				guessedAny = true // the misspelled field is reported already
			} else {
				missing = append(missing, f)
			}
		}
	}
	if len(missing) > 0 {
		hint := map[string]string{
			"workload": "`workload synthetic { jobs 5000 }`",
			"machine":  "`machine mistral` (from std/machines)",
			"contract": "`contract kunkel_fixed` (from std/kunkel)",
			"policy":   "`policy easy` (from std/policies)",
		}
		var hints []string
		for _, f := range missing {
			hints = append(hints, hint[f])
		}
		c.diags.Errorf(name, "experiment `%s` needs %s", d.name, andList(missing, "a ")).
			With("Add %s, or your own.", andList(hints, ""))
	}
	if len(missing) > 0 || guessedAny {
		return
	}
	exp := &runtime.Experiment{Name: d.name, Seed: 1, Report: DefaultReport}
	if s := stmts["seed"]; s != nil && c.args(s, 1, 1, "seed 42") {
		if n, ok := c.count(s.Args[0], nil, "seed", 0); ok {
			exp.Seed = uint64(n)
		}
	}
	if s := stmts["report"]; s != nil {
		exp.Report = c.report(s)
	}
	dims, ok := c.dims(order)
	if !ok {
		return // a sweep without values has no runs; its error is reported
	}
	bad := false
	for _, dm := range dims {
		// Each value names runs, files and table rows: two the same would
		// make them ambiguous.
		seen := map[string]lang.Value{}
		for _, v := range dm.values {
			name := fileSafe(valueText(v))
			if prev, dup := seen[name]; dup {
				c.diags.Errorf(v.Range(), "swept values %s and %s both name runs `%s`", prev.Text(), v.Text(), name).
					With("Each value of a sweep must have its own name; for files, the base name without .swf, .gz or .csv counts.").
					Note(prev.Range(), "the first one")
				bad = true
			}
			seen[name] = v
		}
	}
	if bad {
		return
	}
	for _, dm := range dims {
		exp.Dims = append(exp.Dims, dm.name)
		if dm.baseline != nil {
			if exp.Baseline != nil {
				c.diags.Errorf(dm.baseline.R, "experiment `%s` has two baselines", d.name).
					With("Give `baseline` on one swept field only.")
				continue
			}
			found := false
			var names []string
			for _, v := range dm.values {
				names = append(names, valueText(v))
				found = found || valueText(v) == dm.baseline.Name
			}
			if !found {
				c.diags.Errorf(dm.baseline.R, "baseline `%s` is not one of the swept values", dm.baseline.Name).
					DidYouMean(lang.Suggest(dm.baseline.Name, names)).
					With("%s sweeps %s.", dm.name, strings.Join(names, ", "))
				continue
			}
			exp.Baseline = &runtime.Baseline{Dim: dm.name, Value: dm.baseline.Name}
		}
	}
	// Cartesian product, first dimension outermost.
	idx := make([]int, len(dims))
	for {
		b := binding{}
		var params []runtime.Param
		var names []string
		for i, dm := range dims {
			v := dm.values[idx[i]]
			b[dm.key] = v
			params = append(params, runtime.Param{Name: dm.name, Value: valueText(v)})
			names = append(names, fileSafe(valueText(v)))
		}
		run := &runtime.Run{Index: len(p.Runs), Experiment: d.name, Params: params, Baseline: -1}
		run.Name = strings.Join(names, "-")
		if run.Name == "" {
			run.Name = d.name
		}
		run.Seed = mix(exp.Seed, run.Name)
		if c.compileRun(run, stmts, b, exp.Seed) {
			p.Runs = append(p.Runs, run)
			exp.Runs = append(exp.Runs, run.Index)
		}
		// Advance the odometer.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(dims[i].values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	if exp.Baseline != nil {
		c.linkBaselines(p, exp)
	}
	c.linkBudgets(p, exp, d)
	p.Experiments = append(p.Experiments, exp)
}

// linkBaselines points each run at the run that differs from it only in
// the baseline dimension, where it has the baseline value.
func (c *compiler) linkBaselines(p *runtime.Plan, exp *runtime.Experiment) {
	key := func(r *runtime.Run) string {
		var parts []string
		for _, pr := range r.Params {
			if pr.Name != exp.Baseline.Dim {
				parts = append(parts, pr.Value)
			}
		}
		return strings.Join(parts, "\x00")
	}
	base := map[string]int{}
	for _, i := range exp.Runs {
		r := p.Runs[i]
		for _, pr := range r.Params {
			if pr.Name == exp.Baseline.Dim && pr.Value == exp.Baseline.Value {
				base[key(r)] = i
			}
		}
	}
	for _, i := range exp.Runs {
		if bi, ok := base[key(p.Runs[i])]; ok && bi != i {
			p.Runs[i].Baseline = bi
		}
	}
}

// linkBudgets makes each run whose budget is a share of the baseline's
// mean job power depend on its baseline run, which then runs first.
func (c *compiler) linkBudgets(p *runtime.Plan, exp *runtime.Experiment, d *decl) {
	reported := map[string]bool{}
	for _, i := range exp.Runs {
		r := p.Runs[i]
		bg := r.Policy.Budget
		if bg == nil || bg.OfBaseline <= 0 {
			continue
		}
		if r.Baseline >= 0 {
			r.DependsOn = append(r.DependsOn, r.Baseline)
			continue
		}
		if reported[r.Policy.Name] {
			continue
		}
		reported[r.Policy.Name] = true
		at := d.stmt.Args[0].Range()
		if s := c.budgetAt[r.Policy.Name]; s != nil {
			at = s.Range
		}
		var diag *lang.Diagnostic
		switch {
		case exp.Baseline == nil:
			diag = c.diags.Errorf(at, "policy `%s` has a budget relative to the baseline, but experiment `%s` has none", r.Policy.Name, exp.Name).
				With("Name a baseline on a swept field, e.g. `policy [easy, %s] baseline easy`, or give the budget in W.", r.Policy.Name)
		default:
			diag = c.diags.Errorf(at, "policy `%s` is the baseline of run `%s`, so its budget cannot be relative to the baseline", r.Policy.Name, r.Name).
				With("A baseline run is what the others are measured against; make the baseline a policy without a relative budget.")
		}
		diag.Note(d.stmt.Args[0].Range(), "in experiment `%s`", exp.Name)
	}
}

// dims finds the swept dimensions of an experiment, in the order they
// appear: field lists, and list-valued params reachable from the
// experiment through the declarations it names.
func (c *compiler) dims(order []*lang.Stmt) ([]*dim, bool) {
	var out []*dim
	empty := false
	seenParam := map[string]bool{}
	seenDecl := map[*decl]bool{}
	var visitValue func(v lang.Value, field *lang.Stmt)
	var visitStmts func(ss []*lang.Stmt)
	addParam := func(p *param, field *lang.Stmt) {
		if seenParam[p.name] {
			return
		}
		seenParam[p.name] = true
		c.used[p.name] = true
		l := p.value.(*lang.List)
		dm := &dim{name: p.name, key: p.name, at: l.R}
		for _, it := range l.Items {
			if len(it) == 1 {
				dm.values = append(dm.values, it[0])
			}
		}
		if len(dm.values) == 0 || p.bad {
			empty = true // reported where the param is declared or set
			return
		}
		if field != nil {
			dm.baseline = baselineOf(field)
		}
		out = append(out, dm)
	}
	visitDecl := func(d *decl) {
		if seenDecl[d] {
			return
		}
		seenDecl[d] = true
		visitStmts([]*lang.Stmt{d.stmt})
	}
	visiting := map[*param]bool{}
	visitValue = func(v lang.Value, field *lang.Stmt) {
		switch v := v.(type) {
		case *lang.Ident:
			if p := c.params[v.Name]; p != nil {
				if visiting[p] {
					return // a param naming itself through a list
				}
				visiting[p] = true
				defer delete(visiting, p)
				if _, isList := p.value.(*lang.List); isList {
					addParam(p, field)
					for _, it := range p.value.(*lang.List).Items {
						for _, x := range it {
							visitValue(x, nil)
						}
					}
				} else {
					visitValue(p.value, field)
				}
				return
			}
			for _, k := range declKinds {
				if d := c.decls[k][v.Name]; d != nil && k != "experiment" {
					visitDecl(d)
				}
			}
		case *lang.List:
			for _, it := range v.Items {
				for _, x := range it {
					visitValue(x, nil)
				}
			}
		case *lang.Group:
			for _, it := range v.Items {
				for _, x := range it {
					visitValue(x, nil)
				}
			}
		}
	}
	visitStmts = func(ss []*lang.Stmt) {
		for _, s := range ss {
			for _, a := range s.Args {
				visitValue(a, nil)
			}
			if s.Body != nil {
				visitStmts(s.Body.Stmts)
			}
		}
	}
	for _, s := range order {
		isSweep := false
		for _, f := range sweepFields {
			isSweep = isSweep || s.Key.Name == f
		}
		if !isSweep || len(s.Args) == 0 {
			visitStmts([]*lang.Stmt{s})
			continue
		}
		// The swept value of a field is its first argument (the path for workloads).
		vi := 0
		if s.Key.Name == "workload" {
			vi = 1
		}
		if b := baselineOf(s); b != nil && vi < len(s.Args) && !c.sweeps(s.Args[vi]) {
			c.diags.Errorf(s.Args[len(s.Args)-2].Range().Cover(b.R), "`baseline` needs a swept `%s`", s.Key.Name).
				With("A baseline is one of several values compared: `%s [%s, other] baseline %s`.", s.Key.Name, s.Args[vi].Text(), b.Name)
			empty = true
		}
		if vi < len(s.Args) {
			if l, ok := s.Args[vi].(*lang.List); ok {
				dm := &dim{name: s.Key.Name, key: "@" + s.Key.Name, at: l.R, baseline: baselineOf(s)}
				for _, it := range l.Items {
					if len(it) != 1 {
						c.diags.Errorf(it[0].Range().Cover(it[len(it)-1].Range()), "each swept value is a single name or value").
							With("Separate values with commas: `[fcfs, easy]`.")
						continue
					}
					dm.values = append(dm.values, it[0])
				}
				if len(dm.values) == 0 {
					if len(l.Items) == 0 {
						c.diags.Errorf(l.R, "`%s` sweeps an empty list", s.Key.Name).
							With("A list sweeps its values; give at least one, e.g. `%s [a, b]`.", s.Key.Name)
					}
					empty = true
					continue
				}
				out = append(out, dm)
			} else if s.Args[vi] != nil {
				visitValue(s.Args[vi], s)
			}
		}
		for i, a := range s.Args {
			if i != vi {
				visitValue(a, nil)
			}
		}
		if s.Body != nil {
			visitStmts(s.Body.Stmts)
		}
	}
	return out, !empty
}

// sweeps reports whether a field's value is a list, directly or through
// params.
func (c *compiler) sweeps(v lang.Value) bool {
	for range 8 {
		switch x := v.(type) {
		case *lang.List:
			return true
		case *lang.Ident:
			p := c.params[x.Name]
			if p == nil {
				return false
			}
			v = p.value
			continue
		}
		return false
	}
	return false
}

// baselineOf returns NAME in a `... baseline NAME` suffix.
func baselineOf(s *lang.Stmt) *lang.Ident {
	n := len(s.Args)
	if n >= 3 && s.Args[n-2].Text() == "baseline" {
		if id, ok := s.Args[n-1].(*lang.Ident); ok {
			return id
		}
	}
	return nil
}

// compileRun fills one run's workload, machine, contract and policy.
func (c *compiler) compileRun(run *runtime.Run, stmts map[string]*lang.Stmt, b binding, seed uint64) bool {
	before := c.errs()
	ws := stmts["workload"]
	if l, ok := b["@workload"]; ok {
		ws = withArg(ws, 1, l)
	}
	w, okW := c.workload(ws, b, seed)
	run.Workload = w
	resolve := func(field string) (*decl, bool) {
		s := stmts[field]
		// `FIELD { ... }` or `FIELD from BASE { ... }`: an inline, anonymous
		// declaration. It is built once, so that it is checked once.
		if s.Body != nil && (len(s.Args) == 0 || len(s.Args) == 2 && s.Args[0].Text() == "from") {
			if d := c.inline[s]; d != nil {
				return d, true
			}
			args := append([]lang.Value{&lang.Ident{Name: run.Experiment, R: s.Key.R}}, s.Args...)
			fake := &lang.Stmt{Key: s.Key, Args: args, Body: s.Body, Range: s.Range}
			d := &decl{kind: field, name: run.Experiment, stmt: fake, mod: c.root, inline: true}
			c.inline[s] = d
			return d, true
		}
		if s.Body != nil {
			c.diags.Errorf(s.Body.Range, "a named %s takes no block here", field).
				With("To adjust it for this experiment, write an inline %s: `%s from %s { ... }`.", field, field, s.Args[0].Text())
			return nil, false
		}
		if base := baselineOf(s); base != nil && len(s.Args) != 3 {
			c.diags.Errorf(s.Args[1].Range(), "unexpected `%s`", s.Args[1].Text()).With("Write `%s NAME` or `%s [A, B] baseline A`.", field, field)
			return nil, false
		}
		if baselineOf(s) == nil && !c.args(s, 1, 1, field+" NAME` or `"+field+" [A, B] baseline A") {
			return nil, false
		}
		v := s.Args[0]
		if item, ok := b["@"+field]; ok {
			v = item
		}
		use := v
		if c.quiet(use) {
			return nil, false
		}
		v = c.val(v, b)
		id, ok := v.(*lang.Ident)
		if !ok {
			d := c.diags.Errorf(v.Range(), "`%s` needs the name of a %s, not %s", field, field, describeValue(v))
			c.noteUse(d, use, v)
			return nil, false
		}
		dcl := c.lookup(field, id.Name, id.R)
		if dcl == nil && use != v {
			if last := c.diags[len(c.diags)-1]; last.Range == id.R {
				c.noteUse(last, use, v)
			}
		}
		return dcl, dcl != nil
	}
	var okM, okK, okP bool
	if d, ok := resolve("machine"); ok {
		run.Machine, okM = c.machine(d, b)
	}
	if d, ok := resolve("contract"); ok {
		run.Contract, okK = c.contract(d, b)
	}
	if d, ok := resolve("policy"); ok {
		run.Policy, okP = c.policy(d, b)
	}
	if okW && okM && w.Kind == runtime.Synthetic && run.Machine.Nodes == 0 {
		c.diags.Errorf(ws.Args[0].Range(), "a synthetic workload needs a machine with a fixed number of nodes").
			With("Machine `%s` takes its size from the trace (`nodes auto`); give it `nodes 128`.", run.Machine.Name)
		return false
	}
	return okW && okM && okK && okP && c.errs() == before
}

// withArg returns a copy of s with argument i replaced.
func withArg(s *lang.Stmt, i int, v lang.Value) *lang.Stmt {
	cp := *s
	cp.Args = append([]lang.Value(nil), s.Args...)
	if i < len(cp.Args) {
		cp.Args[i] = v
	}
	return &cp
}

// report reads `report run_days, cost, wait(q50, q99), ...`.
func (c *compiler) report(s *lang.Stmt) []string {
	var out []string
	args := s.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		if op, ok := a.(*lang.Op); ok && op.Op == "," {
			continue
		}
		id, ok := a.(*lang.Ident)
		if !ok {
			c.diags.Errorf(a.Range(), "`report` lists metric names, not %s", describeValue(a)).
				With("Metrics: %s.", strings.Join(ReportNames, ", "))
			continue
		}
		known := false
		for _, n := range ReportNames {
			known = known || n == id.Name
		}
		if !known {
			c.diags.Errorf(id.R, "unknown metric `%s`", id.Name).DidYouMean(lang.Suggest(id.Name, ReportNames)).
				With("Metrics: %s.", strings.Join(ReportNames, ", "))
			continue
		}
		gs, grouped := groupedStats[id.Name]
		if !grouped {
			out = append(out, id.Name)
			continue
		}
		if i+1 >= len(args) {
			out = append(out, gs.def)
			continue
		}
		g, ok := args[i+1].(*lang.Group)
		if !ok {
			out = append(out, gs.def)
			continue
		}
		i++
		var stats []string
		for k := range gs.stats {
			stats = append(stats, k)
		}
		sortStrings(stats)
		for _, it := range g.Items {
			sid, ok := it[0].(*lang.Ident)
			if !ok || len(it) != 1 || gs.stats[sid.Name] == "" {
				d := c.diags.Errorf(it[0].Range(), "unknown %s statistic `%s`", id.Name, it[0].Text()).
					With("Statistics: %s.", gs.list)
				if ok {
					d.DidYouMean(lang.Suggest(sid.Name, stats))
				}
				continue
			}
			out = append(out, gs.stats[sid.Name])
		}
	}
	if len(out) == 0 {
		return DefaultReport
	}
	return out
}

// andList joins words as "a workload, a machine and a policy".
func andList(words []string, article string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = article + w
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// fileSafe keeps run names usable as file names.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-', r == '%':
			return r
		}
		return '_'
	}, s)
}

// mix derives a 64-bit seed from a parent seed and a name, so seeds depend
// only on what a run is, never on scheduling order or -j.
func mix(seed uint64, name string) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write(buf[:])
	h.Write([]byte(name))
	x := h.Sum64()
	// splitmix64 finaliser: spreads nearby inputs apart.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
