package compiler

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
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

// ReportNames are the metrics a `report` statement can list: the names of
// runtime.ReportCatalog, in its order.
var ReportNames = func() []string {
	var names []string
	for _, c := range runtime.ReportCatalog {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}()

// levelMetrics take a level's name: `levels_on(rack)`; without one they
// describe the machine's lowest level. Their keys are NAME:LEVEL.
var levelMetrics = map[string]bool{}

// boundMetrics take numbers, bounds they count against:
// `sla_violations(100, 400)`; without them they take the policy's own. Their
// keys are NAME:BOUND.
var boundMetrics = map[string]bool{}

// pstateMetrics take a pstate's frequency: `freq(2.0 GHz)`; without one
// they give a column per pstate of the experiment's machines. Their keys
// are NAME:MHz.
var pstateMetrics = map[string]bool{}

// rackMetrics are Patil & Chaudhary's names for the level metrics of a
// level called rack: the level metric each names.
var rackMetrics = map[string]string{}

// groupedStats are the metrics that take statistics in parentheses, like
// `wait(q50, max)`, each with its statistics (and their other spellings),
// its default and the list `check` gives.
var groupedStats = map[string]struct {
	stats map[string]string
	def   string
	list  string
}{}

func init() {
	for _, c := range runtime.ReportCatalog {
		switch metric, level, isRack := strings.Cut(c.Key, ":"); {
		case c.Arg == runtime.ArgLevel:
			levelMetrics[c.Name] = true
		case c.Arg == runtime.ArgBound:
			boundMetrics[c.Name] = true
		case c.Arg == runtime.ArgPState:
			pstateMetrics[c.Name] = true
		case isRack && level == "rack":
			rackMetrics[c.Name] = metric
		case c.Arg != "":
			g := groupedStats[c.Name]
			if g.stats == nil {
				g.stats = map[string]string{}
			} else {
				g.list += ", "
			}
			g.list += c.Arg
			for _, a := range append([]string{c.Arg}, c.Aliases...) {
				g.stats[a] = c.Key
			}
			if c.Default {
				g.def = c.Key
			}
			groupedStats[c.Name] = g
		}
	}
}

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
	// `baseline NAME = VALUE` names the baseline by a swept param (or
	// field); it is not walked for sweeps, since it only picks a value.
	fields = append(fields, fieldSpec{name: "baseline", usage: "baseline delay = 0 s", decode: record})
	fields = append(fields, fieldSpec{name: "account", usage: `account 0 d .. 365 d`, decode: func(s *lang.Stmt) { record(s); order = append(order, s) }})
	fields = append(fields, fieldSpec{name: "measure", usage: `measure "2012-09-07 11:00" .. "2012-09-07 16:00"`, decode: func(s *lang.Stmt) { record(s); order = append(order, s) }})
	c.decodeBlock(what(d), d.stmt.Body, fields)
	if a, m := stmts["account"], stmts["measure"]; a != nil && m != nil {
		c.diags.Errorf(m.Key.R, "an experiment has either `account` or `measure`").
			With("`measure A .. B` accounts energy and cost over [A, B] as `account` does, and also clips the jobs' figures to it (launched, cpu_time, useful_work).").
			Note(a.Key.R, "`account` is here")
		return
	}
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
	// The seed and the accounting window may read swept params, so each
	// run reads them with its own values; exp.Seed is the first run's.
	seedOf := func(b binding) (uint64, bool) {
		s := stmts["seed"]
		if s == nil {
			return 1, true
		}
		if !c.args(s, 1, 1, "seed 42") {
			return 0, false
		}
		n, ok := c.count(s.Args[0], b, "seed")
		return uint64(n), ok
	}
	accountOf := func(b binding) (*runtime.Window, bool) {
		if s := stmts["account"]; s != nil {
			w := c.account(s, b)
			return w, w != nil && c.windowSpan(s, w)
		}
		if s := stmts["measure"]; s != nil {
			w := c.window(s, b, "the measure window")
			return w, w != nil && c.windowSpan(s, w)
		}
		return nil, true
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
			name := fileSafe(c.valueName(v))
			if prev, dup := seen[name]; dup {
				c.sameName(dm, prev, v, name)
				bad = true
			}
			seen[name] = v
		}
	}
	if bad {
		return
	}
	base := c.baseline(d, dims, stmts["baseline"])
	if base == nil && stmts["baseline"] != nil {
		return // reported
	}
	runs, taken, ok := c.expand(order, dims)
	if !ok {
		return
	}
	// The table's dimensions: those some run takes, in the order found.
	// A dimension only some runs take (a param read by one policy of a
	// swept list) is labelled with its name in those runs.
	partial := map[string]bool{}
	for _, dm := range dims {
		if taken[dm.key] > 0 {
			exp.Dims = append(exp.Dims, dm.name)
			partial[dm.key] = taken[dm.key] < len(runs)
		}
	}
	if base != nil {
		exp.Baseline = &runtime.Baseline{Dim: base.dim.name, Value: c.valueName(base.value)}
	}
	names := map[string]bool{}
	slas := reportBounds(exp.Report, "sla_violations") // the same for every run
	for _, rb := range runs {
		var params []runtime.Param
		var parts []string
		for _, dm := range rb.dims {
			v := rb.b[dm.key]
			text := c.valueName(v)
			params = append(params, runtime.Param{Name: dm.name, Value: text, Partial: partial[dm.key]})
			if partial[dm.key] {
				text = dm.name + "=" + text
			}
			parts = append(parts, fileSafe(text))
		}
		run := &runtime.Run{Index: len(p.Runs), Experiment: d.name, Params: params, Baseline: -1}
		run.Name = strings.Join(parts, "-")
		if run.Name == "" {
			run.Name = d.name
		}
		if names[run.Name] {
			c.diags.Errorf(name, "experiment `%s` has two runs named `%s`", d.name, run.Name).
				With("Swept values name runs; rename a declaration or a value so that each run's values differ.")
			return
		}
		names[run.Name] = true
		seed, okS := seedOf(rb.b)
		account, okA := accountOf(rb.b)
		if !okS || !okA {
			continue
		}
		if len(exp.Runs) == 0 {
			exp.Seed = seed
		}
		run.Seed = mix(seed, run.Name)
		run.Account, run.Measure = account, stmts["measure"] != nil
		run.SLAs = slas
		if c.compileRun(run, stmts, rb.b, seed) {
			p.Runs = append(p.Runs, run)
			exp.Runs = append(exp.Runs, run.Index)
		}
	}
	if !c.sameCurrency(p, exp, stmts) {
		return
	}
	c.checkReportLevels(p, exp)
	c.expandPStates(p, exp)
	if exp.Baseline != nil && !c.linkBaselines(p, exp, d) {
		return
	}
	c.linkBudgets(p, exp, d)
	p.Experiments = append(p.Experiments, exp)
}

// nextGroup is the parenthesised group after args[*i], if there is one,
// which it then steps over.
func nextGroup(args []lang.Value, i *int) *lang.Group {
	if *i+1 < len(args) {
		if g, ok := args[*i+1].(*lang.Group); ok {
			*i++
			return g
		}
	}
	return nil
}

// unswept says whether a report argument is not a swept param: a report's
// columns are the same for every run, so it names its values instead.
func (c *compiler) unswept(v lang.Value, metric, example string) bool {
	p, isParam := v.(*lang.Ident)
	if !isParam || c.params[p.Name] == nil {
		return true
	}
	if _, sweeps := c.params[p.Name].value.(*lang.List); !sweeps {
		return true
	}
	c.diags.Errorf(p.R, "param `%s` sweeps, but a report's columns are the same for every run", p.Name).
		With("List the values instead: `%s(%s)`.", metric, example)
	return false
}

// reportBounds are the bounds a report asks a bound metric for, in order.
func reportBounds(report []string, metric string) []float64 {
	var out []float64
	for _, k := range report {
		if m, b, ok := strings.Cut(k, ":"); ok && m == metric {
			if v, err := strconv.ParseFloat(b, 64); err == nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// checkReportLevels checks that the levels a report names exist in one of
// the experiment's machines (a metric of a level a machine lacks shows as
// "–" for its runs).
func (c *compiler) checkReportLevels(p *runtime.Plan, exp *runtime.Experiment) {
	var names []string
	for _, i := range exp.Runs {
		for _, l := range p.Runs[i].Machine.Levels {
			if !slices.Contains(names, l.Name) {
				names = append(names, l.Name)
			}
		}
	}
	for _, id := range c.reportLevels {
		if !slices.Contains(names, id.Name) {
			d := c.diags.Errorf(id.R, "no machine of experiment `%s` has a level `%s`", exp.Name, id.Name).
				DidYouMean(lang.Suggest(id.Name, names))
			if len(names) == 0 {
				d.With("Its machines have no levels; declare one with `level rack { size 16 node; power 633 W }`.")
			} else {
				d.With("Their levels: %s.", strings.Join(names, ", "))
			}
		}
	}
	c.reportLevels = c.reportLevels[:0]
}

// reportFreq is a pstate metric a report names: its key, where, and the
// frequency (0: every pstate).
type reportFreq struct {
	key string
	at  lang.Range
	hz  float64
}

// expandPStates gives `freq` alone a column per pstate of the experiment's
// machines, fastest first, and checks that the pstates a report names
// exist in one of them.
func (c *compiler) expandPStates(p *runtime.Plan, exp *runtime.Experiment) {
	var hzs []float64
	for _, i := range exp.Runs {
		for _, ps := range p.Runs[i].Machine.PStates {
			if !slices.ContainsFunc(hzs, func(h float64) bool { return sameFreq(h, ps.Freq) }) {
				hzs = append(hzs, ps.Freq)
			}
		}
	}
	slices.SortFunc(hzs, func(a, b float64) int { return cmp.Compare(b, a) })
	var names []string
	for _, h := range hzs {
		names = append(names, runtime.FreqLabel(h))
	}
	for _, f := range c.reportFreqs {
		metric, _, _ := strings.Cut(f.key, ":")
		switch {
		case len(hzs) < 2:
			c.diags.Errorf(f.at, "no machine of experiment `%s` has pstates, so `%s` has nothing to show", exp.Name, metric).
				With("Give a machine pstates (`pstate 2.7 GHz 358 W`, `pstate 2.0 GHz 269 W`, …), or remove `%s`.", metric)
		case f.hz > 0 && !slices.ContainsFunc(hzs, func(h float64) bool { return sameFreq(h, f.hz) }):
			c.diags.Errorf(f.at, "no machine of experiment `%s` has a pstate at %s", exp.Name, runtime.FreqLabel(f.hz)).
				With("Their pstates: %s.", strings.Join(names, ", "))
		}
	}
	var out []string
	for _, k := range exp.Report {
		if m, arg, ok := strings.Cut(k, ":"); ok && arg == "" && pstateMetrics[m] {
			for _, h := range hzs {
				out = append(out, m+":"+runtime.PStateKey(h))
			}
			continue
		}
		out = append(out, k)
	}
	exp.Report = out
	c.reportFreqs = c.reportFreqs[:0]
}

// linkBaselines points each run at its baseline run: the run that has the
// baseline value in the baseline dimension and agrees with it on every
// other dimension both take. A run that does not take the baseline
// dimension has none. Two candidates (the baseline run takes a dimension
// this run does not) make the comparison ambiguous: an error.
func (c *compiler) linkBaselines(p *runtime.Plan, exp *runtime.Experiment, d *decl) bool {
	value := func(r *runtime.Run, dim string) (string, bool) {
		for _, pr := range r.Params {
			if pr.Name == dim {
				return pr.Value, true
			}
		}
		return "", false
	}
	var bases []*runtime.Run
	for _, i := range exp.Runs {
		if v, ok := value(p.Runs[i], exp.Baseline.Dim); ok && v == exp.Baseline.Value {
			bases = append(bases, p.Runs[i])
		}
	}
	compatible := func(r, b *runtime.Run) bool {
		for _, pr := range b.Params {
			if pr.Name == exp.Baseline.Dim {
				continue
			}
			if v, ok := value(r, pr.Name); ok && v != pr.Value {
				return false
			}
		}
		return true
	}
	for _, i := range exp.Runs {
		r := p.Runs[i]
		if v, ok := value(r, exp.Baseline.Dim); !ok || v == exp.Baseline.Value {
			continue
		}
		var found []*runtime.Run
		for _, b := range bases {
			if compatible(r, b) {
				found = append(found, b)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			r.Baseline = found[0].Index
			continue
		}
		var names []string
		for _, b := range found {
			names = append(names, b.Name)
		}
		c.diags.Errorf(d.stmt.Args[0].Range(), "run `%s` of experiment `%s` has %d candidate baselines: %s", r.Name, exp.Name, len(found), strings.Join(names, ", ")).
			With("The baseline runs take a swept param this run does not; name a baseline that they do not depend on, or one in that param (`baseline NAME = VALUE`).")
		return false
	}
	return true
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
// experiment through the declarations it names, through every value of
// every sweep (a param read by only one policy of a swept list counts).
// It reports malformed sweeps; expand then decides which runs take which.
func (c *compiler) dims(order []*lang.Stmt) ([]*dim, bool) {
	w := &sweepWalker{c: c, collect: true, seenDecl: map[*decl]bool{}, visiting: map[*param]bool{}, found: map[string]*dim{}}
	w.stmts(order, true)
	return w.out, !w.empty
}

// sweepWalker walks an experiment and the declarations it reaches. With
// collect set it visits every value of every sweep, recording each
// dimension once and reporting malformed ones. Otherwise it follows only
// the values bound in b and stops at the first dimension not bound yet:
// the next one to expand.
type sweepWalker struct {
	c        *compiler
	collect  bool
	b        binding
	dims     map[string]*dim // known dimensions by key (expanding)
	next     *dim            // expanding: the first unbound dimension met
	out      []*dim          // collecting: every dimension, in order
	found    map[string]*dim
	empty    bool
	seenDecl map[*decl]bool
	visiting map[*param]bool
}

func (w *sweepWalker) done() bool { return w.next != nil }

// sweep meets dimension key: it walks the bound value, or the values of
// every alternative when collecting, or stops at it when it is unbound.
func (w *sweepWalker) sweep(key string, items func() []lang.Value, make func() *dim) {
	if w.done() {
		return
	}
	if w.collect {
		if w.found[key] == nil {
			dm := make()
			if dm == nil {
				return
			}
			w.found[key] = dm
			w.out = append(w.out, dm)
		}
		for _, v := range items() {
			w.value(v, nil)
		}
		return
	}
	if v, ok := w.b[key]; ok {
		w.value(v, nil)
		return
	}
	if dm := w.dims[key]; dm != nil {
		w.next = dm
	}
}

func (w *sweepWalker) value(v lang.Value, field *lang.Stmt) {
	if w.done() {
		return
	}
	c := w.c
	switch v := v.(type) {
	case *lang.Ident:
		if p := c.params[v.Name]; p != nil {
			if w.visiting[p] {
				return // a param naming itself through a list
			}
			w.visiting[p] = true
			defer delete(w.visiting, p)
			l, isList := p.value.(*lang.List)
			if !isList {
				w.value(p.value, field)
				return
			}
			c.used[p.name] = true
			items := func() []lang.Value { return c.items(l) }
			w.sweep(p.name, items, func() *dim {
				dm := &dim{name: p.name, key: p.name, at: l.R, values: c.items(l)}
				if len(dm.values) == 0 || p.bad {
					w.empty = true // reported where the param is declared or set
					return nil
				}
				if field != nil {
					dm.baseline = baselineOf(field)
				}
				return dm
			})
			return
		}
		for _, k := range declKinds {
			if d := c.decls[k][v.Name]; d != nil && k != "experiment" && !w.seenDecl[d] {
				w.seenDecl[d] = true
				w.stmts([]*lang.Stmt{d.stmt}, false)
			}
		}
	case *lang.List:
		for _, it := range v.Items {
			for _, x := range it {
				w.value(x, nil)
			}
		}
	case *lang.Group:
		for _, it := range v.Items {
			for _, x := range it {
				w.value(x, nil)
			}
		}
	}
}

// stmts walks statements; top says they are the experiment's own, whose
// workload, machine, contract and policy fields may sweep.
func (w *sweepWalker) stmts(ss []*lang.Stmt, top bool) {
	c := w.c
	for _, s := range ss {
		if w.done() {
			return
		}
		isSweep := false
		for _, f := range sweepFields {
			isSweep = isSweep || s.Key.Name == f
		}
		if !top || !isSweep || len(s.Args) == 0 {
			for _, a := range s.Args {
				w.value(a, nil)
			}
			if s.Body != nil {
				w.stmts(s.Body.Stmts, false)
			}
			continue
		}
		// The swept value of a field is its first argument (the path for workloads).
		vi := 0
		if s.Key.Name == "workload" {
			vi = 1
		}
		args := s.Args
		if b := baselineOf(s); b != nil {
			if w.collect && vi < len(args) && !c.sweeps(args[vi]) {
				c.diags.Errorf(args[len(args)-2].Range().Cover(b.R), "`baseline` needs a swept `%s`", s.Key.Name).
					With("A baseline is one of several values compared: `%s [%s, other] baseline %s`.", s.Key.Name, args[vi].Text(), b.Name)
				w.empty = true
			}
			args = args[:len(args)-2] // names a value; not walked for sweeps
		}
		if vi < len(args) {
			if l, ok := args[vi].(*lang.List); ok {
				items := func() []lang.Value { return c.items(l) }
				w.sweep("@"+s.Key.Name, items, func() *dim {
					dm := &dim{name: s.Key.Name, key: "@" + s.Key.Name, at: l.R, baseline: baselineOf(s)}
					for _, it := range l.Items {
						v, ok := c.item(it)
						if !ok {
							c.badItem(it, "each swept value is a single name or value", "[fcfs, easy]")
							continue
						}
						dm.values = append(dm.values, v)
					}
					if len(dm.values) == 0 {
						if len(l.Items) == 0 {
							c.diags.Errorf(l.R, "`%s` sweeps an empty list", s.Key.Name).
								With("A list sweeps its values; give at least one, e.g. `%s [a, b]`.", s.Key.Name)
						}
						w.empty = true
						return nil
					}
					return dm
				})
			} else if args[vi] != nil {
				w.value(args[vi], s)
			}
		}
		for i, a := range args {
			if i != vi {
				w.value(a, nil)
			}
		}
		if s.Body != nil {
			w.stmts(s.Body.Stmts, false)
		}
	}
}

// maxRuns bounds an experiment's expansion, so that a sweep of sweeps
// fails with a message instead of exhausting memory.
const maxRuns = 100_000

// runBinding is one run of an expanded experiment: the value of each
// dimension it takes, and those dimensions in the order they were taken.
type runBinding struct {
	b    binding
	dims []*dim
}

// expand lists the runs of an experiment: the product of its sweeps
// through every level of reference. A dimension is taken by the runs that
// reach it given the values of the dimensions before it: with
// `policy [easy, easy_off]` where only easy_off reads `param delay = [...]`,
// easy runs once and easy_off once per delay. The first dimension met is
// outermost, so independent sweeps expand as a plain cartesian product.
// taken counts the runs that take each dimension.
func (c *compiler) expand(order []*lang.Stmt, dims []*dim) ([]runBinding, map[string]int, bool) {
	byKey := map[string]*dim{}
	for _, dm := range dims {
		byKey[dm.key] = dm
	}
	var runs []runBinding
	taken := map[string]int{}
	var rec func(b binding, path []*dim) bool
	rec = func(b binding, path []*dim) bool {
		w := &sweepWalker{c: c, b: b, dims: byKey, seenDecl: map[*decl]bool{}, visiting: map[*param]bool{}}
		w.stmts(order, true)
		if w.next == nil {
			if len(runs) >= maxRuns {
				return false
			}
			runs = append(runs, runBinding{b: b, dims: path})
			for _, dm := range path {
				taken[dm.key]++
			}
			return true
		}
		for _, v := range w.next.values {
			nb := make(binding, len(b)+1)
			for k, x := range b {
				nb[k] = x
			}
			nb[w.next.key] = v
			if !rec(nb, append(path[:len(path):len(path)], w.next)) {
				return false
			}
		}
		return true
	}
	if !rec(binding{}, nil) {
		var at lang.Range
		if len(dims) > 0 {
			at = dims[0].at
		}
		c.diags.Errorf(at, "this experiment expands to more than %d runs", maxRuns).
			With("Sweeps multiply: sweep fewer values, or split the experiment.")
		return nil, nil, false
	}
	return runs, taken, true
}

// baselineChoice is the value of one dimension that the others are
// compared against.
type baselineChoice struct {
	dim   *dim
	value lang.Value
}

// baseline resolves the experiment's baseline: `FIELD [A, B] baseline A`
// on a swept field, or `baseline NAME = VALUE` naming a value of any swept
// param or field. It returns nil when there is none or it is in error.
func (c *compiler) baseline(d *decl, dims []*dim, stmt *lang.Stmt) *baselineChoice {
	var out *baselineChoice
	var first lang.Range
	choose := func(dm *dim, want lang.Value, at lang.Range) {
		if out != nil {
			c.diags.Errorf(at, "experiment `%s` has two baselines", d.name).
				With("Give one baseline: on one swept field, or one `baseline NAME = VALUE`.").
				Note(first, "the first one")
			return
		}
		var names []string
		for _, v := range dm.values {
			names = append(names, c.valueName(v))
		}
		// A label names its value first; then values compare as written.
		for _, match := range []func(lang.Value) bool{
			func(v lang.Value) bool { l := c.labels[v]; return l != nil && want.Text() == l.Name && isIdent(want) },
			func(v lang.Value) bool { return sameValue(v, want) },
		} {
			for _, v := range dm.values {
				if match(v) {
					out, first = &baselineChoice{dim: dm, value: v}, at
					return
				}
			}
		}
		c.diags.Errorf(want.Range(), "baseline `%s` is not one of the swept values", want.Text()).
			DidYouMean(lang.Suggest(valueText(want), names)).
			With("%s sweeps %s.", dm.name, strings.Join(names, ", "))
		out, first = &baselineChoice{dim: dm}, at // in error: quiet the rest
	}
	for _, dm := range dims {
		if dm.baseline != nil {
			choose(dm, dm.baseline, dm.baseline.R)
		}
	}
	if stmt != nil {
		usage := "baseline NAME = VALUE` (e.g. `baseline delay = 0 s`, `baseline policy = easy`"
		a := stmt.Args
		if len(a) != 3 || a[1].Text() != "=" {
			r := stmt.Key.R
			if len(a) > 0 {
				r = a[0].Range().Cover(a[len(a)-1].Range())
			}
			c.diags.Errorf(r, "expected `%s)", usage).
				With("A baseline names a swept param or field and the value the other runs are compared with.")
			return nil
		}
		id, ok := a[0].(*lang.Ident)
		var dm *dim
		var names []string
		for _, x := range dims {
			names = append(names, x.name)
			if ok && x.name == id.Name {
				dm = x
			}
		}
		switch {
		case !ok:
			c.diags.Errorf(a[0].Range(), "`baseline` needs the name of a swept param or field, not %s", describeValue(a[0])).
				With("Write `%s).", usage)
			return nil
		case dm == nil:
			diag := c.diags.Errorf(id.R, "`%s` is not swept in experiment `%s`", id.Name, d.name)
			if len(names) > 0 {
				diag.DidYouMean(lang.Suggest(id.Name, names)).With("It sweeps %s.", strings.Join(names, ", "))
			} else {
				diag.With("A baseline is one of several values compared; this experiment sweeps nothing.")
			}
			return nil
		}
		choose(dm, c.val(a[2], nil), stmt.Range)
	}
	if out != nil && out.value == nil {
		return nil
	}
	return out
}

// sameValue compares a swept value with a value written as a baseline:
// numbers by their value in base units (`0 s` is `0 min`), others by text.
func sameValue(v, want lang.Value) bool {
	a, okA := v.(*lang.Number)
	b, okB := want.(*lang.Number)
	if okA && okB {
		ua, knownA := lang.LookupUnit(a.Unit)
		ub, knownB := lang.LookupUnit(b.Unit)
		switch {
		case a.Unit == "" && b.Unit == "":
			return a.Value == b.Value
		case knownA && knownB && ua.Dim == ub.Dim:
			return a.Value*ua.Scale == b.Value*ub.Scale
		case a.Value == 0 && b.Value == 0:
			return true
		}
		return false
	}
	return valueText(v) == valueText(want)
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
	defer func(m nameMode) { c.names = m }(c.names) // (the workload sets it for the run's rules)
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
		c.markUsed(dcl)
		if dcl == nil && use != v {
			if last := c.diags[len(c.diags)-1]; last.Range == id.R {
				c.noteUse(last, use, v)
			}
		}
		return dcl, dcl != nil
	}
	var okM, okK, okP bool
	var refs policyRefs
	if d, ok := resolve("machine"); ok {
		run.Machine, okM = c.machine(d, b)
	}
	if d, ok := resolve("contract"); ok {
		run.Contract, okK = c.contract(d, b)
	}
	if d, ok := resolve("policy"); ok {
		run.Policy, refs, okP = c.policy(d, b)
	}
	if okW && okM && w.Kind == runtime.SWF && (run.Machine.Nodes == 0 || w.ScaleToMachine) && !w.HasSize && c.data[w.Path].err == nil {
		why := fmt.Sprintf("but machine `%s` has `nodes auto`", run.Machine.Name)
		if w.ScaleToMachine {
			why = "so `scale to machine` cannot scale its jobs"
		}
		if c.once("nosize\x00" + w.Path + "\x00" + why) {
			c.diags.Errorf(ws.Args[1].Range(), "the trace's header gives no machine size, %s", why).
				With("pwrc reads the size from the SWF header's `; MaxProcs:` or `; MaxNodes:` line; give the machine `nodes N` instead.")
		}
		return false
	}
	if okW && okM && w.Kind == runtime.Sacct && run.Machine.Nodes == 0 {
		c.diags.Errorf(ws.Args[1].Range(), "Slurm accounting gives no machine size, but machine `%s` has `nodes auto`", run.Machine.Name).
			With("sacct lists jobs, not the cluster; give the machine `nodes N` (e.g. from `sinfo -h -o %%D`).")
		return false
	}
	if okM && okP && run.Policy.Contiguous > run.Machine.Nodes && run.Machine.Nodes > 0 {
		at := stmts["policy"].Range
		if s := c.allocAt[run.Policy.Name]; s != nil {
			at = s.Range
		}
		c.diags.Errorf(at, "policy `%s` allocates in units of %d nodes, more than machine `%s` has (%d)", run.Policy.Name, run.Policy.Contiguous, run.Machine.Name, run.Machine.Nodes).
			With("No job could start; use a unit that divides the machine, e.g. `allocate contiguous %d`, or `allocate any`.", largestDivisorUpTo(run.Machine.Nodes, run.Policy.Contiguous))
		return false
	}
	if okM && okP && !c.pairPolicy(run, refs, b) {
		return false
	}

	if okK && okP && !run.Contract.HasCarbon && readsCarbon(&run.Policy) {
		if c.once("nocarbon\x00" + run.Policy.Name + "\x00" + run.Contract.Name) {
			at := stmts["policy"].Range
			if item, ok := b["@policy"]; ok {
				at = item.Range()
			}
			c.diags.Errorf(at, "policy `%s` reads the grid's carbon intensity, but contract `%s` has none", run.Policy.Name, run.Contract.Name).
				With("Give the contract one — `carbon 350 g/kWh`, `carbon hourly \"intensity.csv\"` or `carbon hourly generate { … }` — or run the policy under a contract that has it.")
		}
		return false
	}
	if okW && okM && w.Kind == runtime.Synthetic && run.Machine.Nodes == 0 {
		c.diags.Errorf(ws.Args[0].Range(), "a synthetic workload needs a machine with a fixed number of nodes").
			With("Machine `%s` takes its size from the trace (`nodes auto`); give it `nodes 128`.", run.Machine.Name)
		return false
	}
	if okW && okM && w.Kind == runtime.Synthetic && !c.syntheticFits(ws, w, &run.Machine) {
		return false
	}
	ok := okW && okM && okK && okP && c.errs() == before
	if ok && len(run.Policy.Powercaps) > 0 {
		// Warnings only (after the count of problems: the run is fine).
		c.pairCapContract(run, refs.caps)
		c.pairCapTrace(run, refs.caps, b)
	}
	if ok && c.opts.Lint {
		// (After the count too: what the data says is reported, and
		// makes the plan nil if it is an error.)
		c.checkInputs(run, runSite{ws: ws, stmts: stmts, refs: refs})
	}
	return ok
}

// account reads `account A .. B`: the window every run's energy and cost
// are integrated over, so that runs of different lengths are compared over
// the same period. A and B are durations after the first submission
// (`0 d .. 365 d`) or local dates in the trace's zone
// (`"2017-01-01" .. "2018-01-01"`).
func (c *compiler) account(s *lang.Stmt, b binding) *runtime.Window {
	const usage = "Write `account 0 d .. 365 d` (after the first submission) or `account \"2017-01-01\" .. \"2018-01-01\"` (local dates)."
	a := s.Args
	if len(a) != 3 || a[1].Text() != ".." {
		r := s.Key.R
		if len(a) > 0 {
			r = a[0].Range().Cover(a[len(a)-1].Range())
		}
		c.diags.Errorf(r, "expected `account FROM .. TO`").With("%s", usage)
		return nil
	}
	instant := func(v lang.Value) (runtime.Instant, bool) {
		if _, ok := c.val(v, b).(*lang.String); ok {
			d, ok := c.localTime(v, b, "account")
			return runtime.Instant{Date: d}, ok
		}
		t, _, ok := c.quantity(v, b, lang.Time, "account")
		return runtime.Instant{Offset: t}, ok
	}
	from, ok1 := instant(a[0])
	to, ok2 := instant(a[2])
	if !ok1 || !ok2 {
		return nil
	}
	if from.Date == "" && to.Date == "" && !(to.Offset > from.Offset) || from.Date != "" && to.Date != "" && !(to.Date > from.Date) {
		c.diags.Errorf(a[0].Range().Cover(a[2].Range()), "the accounting window ends before it starts").With("%s", usage)
		return nil
	}
	return &runtime.Window{From: from, To: to}
}

// sameCurrency requires the runs of an experiment to price energy in one
// currency, that of their machines' costs: its table has one money unit,
// savings subtract costs and the TCO adds them.
func (c *compiler) sameCurrency(p *runtime.Plan, exp *runtime.Experiment, stmts map[string]*lang.Stmt) bool {
	field := stmts["contract"]
	var first *runtime.Run
	for _, i := range exp.Runs {
		r := p.Runs[i]
		if mc := r.Machine.Costs; mc != nil && mc.Currency != "" && mc.Currency != r.Contract.Currency {
			at := stmts["machine"]
			if at == nil {
				at = field
			}
			c.diags.Errorf(at.Range, "machine `%s` costs %s but contract `%s` prices energy in %s",
				r.Machine.Name, mc.Currency, r.Contract.Name, r.Contract.Currency).
				With("The TCO adds the two; write the machine's `costs` in %s.", r.Contract.Currency)
			return false
		}
		if first == nil {
			first = r
			continue
		}
		if r.Contract.Currency != first.Contract.Currency {
			c.diags.Errorf(field.Range, "experiment `%s` compares contracts in different currencies: %s is in %s, %s in %s",
				exp.Name, first.Contract.Name, first.Contract.Currency, r.Contract.Name, r.Contract.Currency).
				With("Costs and savings in one table must share a currency; convert the prices of one contract, or compare them in separate experiments.")
			return false
		}
	}
	return true
}

// largestDivisorUpTo is the largest divisor of n that is at most k.
func largestDivisorUpTo(n, k int) int {
	for d := min(n, k); d > 1; d-- {
		if n%d == 0 {
			return d
		}
	}
	return 1
}

// markUsed records that a run uses d, and so every declaration it is
// derived from.
func (c *compiler) markUsed(d *decl) {
	for ; d != nil && !c.usedDecl[d]; d = c.baseOf(d) {
		c.usedDecl[d] = true
	}
}

// baseOf is the declaration d is derived from (`from BASE`), or nil.
func (c *compiler) baseOf(d *decl) *decl {
	a := d.stmt.Args
	if len(a) >= 3 && a[1].Text() == "from" {
		if c.decls[d.kind] != nil {
			return c.decls[d.kind][a[2].Text()]
		}
	}
	return nil
}

// warnUnusedDecls reports machines, contracts and policies of the root
// file that no run uses, when it has experiments (a file without any is a
// library, and its declarations are for others).
func (c *compiler) warnUnusedDecls() {
	if c.root == nil || c.diags.HasErrors() || len(c.sortedDecls("experiment")) == 0 {
		return
	}
	hasExp := false
	for _, d := range c.sortedDecls("experiment") {
		hasExp = hasExp || d.mod == c.root
	}
	if !hasExp || c.opts.Experiment != "" {
		return
	}
	for _, kind := range []string{"machine", "contract", "policy"} {
		for _, d := range c.sortedDecls(kind) {
			if d.mod == c.root && !d.inline && !c.usedDecl[d] {
				c.diags.Warnf(d.stmt.Args[0].Range(), "%s `%s` is not used by any experiment", kind, d.name).
					With("Remove it, or add it to an experiment's sweep, e.g. `%s [%s, ...]`.", kind, d.name)
			}
		}
	}
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
	c.reportLevels = c.reportLevels[:0]
	c.reportFreqs = c.reportFreqs[:0]
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
		if lm, ok := rackMetrics[id.Name]; ok {
			if g := nextGroup(args, &i); g != nil && (lm != "levels_on" || len(g.Items) != 1 || g.Items[0][0].Text() != "mean") {
				c.diags.Errorf(g.Range(), "`%s` takes no arguments but `(mean)` after `racks`", id.Name).
					With("`%s` is `%s(rack)`; for another level write `%s(LEVEL)`.", id.Name, lm, lm)
			}
			out = append(out, lm+":rack")
			continue
		}
		if pstateMetrics[id.Name] {
			g := nextGroup(args, &i)
			if g == nil {
				out = append(out, id.Name+":") // a column per pstate (expandPStates)
				c.reportFreqs = append(c.reportFreqs, reportFreq{key: id.Name + ":", at: id.R})
				continue
			}
			for _, it := range g.Items {
				if len(it) != 1 {
					c.diags.Errorf(it[0].Range(), "`%s` takes a pstate's frequency", id.Name).
						With("Write `%s(2.0 GHz)`, or `%s` alone for a column per pstate.", id.Name, id.Name)
					continue
				}
				if !c.unswept(it[0], id.Name, "2.0 GHz, 1.2 GHz") {
					continue
				}
				if hz, _, ok := c.quantity(it[0], nil, lang.Frequency, id.Name); ok {
					key := id.Name + ":" + runtime.PStateKey(hz)
					out = append(out, key)
					c.reportFreqs = append(c.reportFreqs, reportFreq{key: key, at: it[0].Range(), hz: hz})
				}
			}
			continue
		}
		if levelMetrics[id.Name] {
			level := ""
			if g := nextGroup(args, &i); g != nil {
				for k, it := range g.Items {
					lid, ok := it[0].(*lang.Ident)
					switch {
					case ok && len(it) == 1 && k == 0 && lid.Name != "mean":
						level = lid.Name
						c.reportLevels = append(c.reportLevels, lid)
					case ok && len(it) == 1 && lid.Name == "mean" && id.Name == "levels_on":
					default:
						c.diags.Errorf(it[0].Range(), "`%s` takes the name of one of the machine's levels", id.Name).
							With("Write `%s(rack)`; without a name it describes the lowest level.", id.Name)
					}
				}
			}
			out = append(out, id.Name+":"+level)
			continue
		}
		if boundMetrics[id.Name] {
			g := nextGroup(args, &i)
			if g == nil {
				out = append(out, id.Name)
				continue
			}
			for _, it := range g.Items {
				if !c.unswept(it[0], id.Name, "100, 200, 400") {
					continue
				}
				n, ok := c.val(it[0], nil).(*lang.Number)
				if ok && !c.checkBounds(id.Name, lang.Dimensionless, n.Value, n, "", it[0]) {
					continue
				}
				if !ok || len(it) != 1 || n.Unit != "" || n.Value < 1 {
					c.diags.Errorf(it[0].Range(), "`%s` takes slowdown bounds, numbers ≥ 1, not `%s`", id.Name, it[0].Text()).
						With("Write `%s(100, 400)` for the shares of jobs whose Lawson slowdown exceeds 100 and 400; without parentheses it counts against the policy's SLA (200 without one).", id.Name)
					continue
				}
				key := id.Name + ":" + strconv.FormatFloat(n.Value, 'g', -1, 64)
				if !slices.Contains(out, key) {
					out = append(out, key)
				}
			}
			continue
		}
		gs, grouped := groupedStats[id.Name]
		if !grouped {
			out = append(out, id.Name)
			continue
		}
		g := nextGroup(args, &i)
		if g == nil {
			out = append(out, gs.def)
			continue
		}
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

// readsCarbon reports whether a policy's rules or stages need the grid's
// carbon intensity.
func readsCarbon(p *runtime.Policy) bool {
	if p.Defer != nil && p.Defer.Objective == runtime.MinimizeCarbon {
		return true
	}
	for _, e := range p.Rules() {
		if e.Deps&runtime.DepCarbon != 0 {
			return true
		}
	}
	return false
}
