package compiler

import (
	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// workload compiles an experiment's `workload` statement.
func (c *compiler) workload(s *lang.Stmt, b binding, expSeed uint64) (runtime.Workload, bool) {
	usage := "workload swf \"trace.swf.gz\"`, `workload sacct \"jobs.txt\"` or `workload synthetic { jobs 5000; load 85% }"
	if len(s.Args) == 0 {
		c.args(s, 1, 2, usage)
		return runtime.Workload{}, false
	}
	kind, ok := c.keyword(s.Args[0], "workload", "swf", "sacct", "synthetic")
	if !ok {
		return runtime.Workload{}, false
	}
	// Its rules, and the rest of the run's (compileRun restores the mode),
	// read name fields as this kind of workload gives them.
	c.names, c.numbered = namesAreNumbers, "SWF"
	switch kind {
	case "sacct":
		c.names = namesAreStrings
	case "synthetic":
		c.numbered = "a synthetic workload"
	}
	before := c.errs()
	w := runtime.Workload{}
	powerField := fieldSpec{name: "power", usage: "power 260 W per node", decode: func(s *lang.Stmt) {
		if jp, ok := c.jobPower(s, b, mix(expSeed, "power")); ok {
			w.Power = jp
		}
	}}
	// The cuts: which jobs of the cleaned workload are simulated.
	keepField := fieldSpec{name: "keep", usage: "keep job.partition == 10", decode: func(s *lang.Stmt) {
		if e := c.keepRule(s, b); e != nil {
			w.Keep = e
		}
	}}
	submittedField := fieldSpec{name: "submitted", usage: "submitted 0 d .. 547.5 d", decode: func(s *lang.Stmt) {
		if win := c.window(s, b, "the submission window"); win != nil {
			w.Submitted = win
		}
	}}
	badLinesField := fieldSpec{name: "bad_lines", usage: "bad_lines skip", decode: func(s *lang.Stmt) {
		if c.args(s, 1, 1, "bad_lines skip` or `bad_lines fail") {
			if k, ok := c.keyword(s.Args[0], "bad_lines", "skip", "fail"); ok {
				w.SkipBadLines = k == "skip"
			}
		}
	}}
	zoneField := fieldSpec{name: "timezone", usage: `timezone "Europe/Berlin"`, decode: func(s *lang.Stmt) {
		if !c.args(s, 1, 1, `timezone "Europe/Berlin"`) {
			return
		}
		if str, ok := c.str(s.Args[0], b, "timezone", `timezone "Europe/Berlin"`); ok {
			if _, err := tariff.LoadLocation(str.Value); err != nil {
				c.diags.Errorf(str.R, "unknown time zone %q", str.Value).With("Use an IANA zone name such as \"Europe/Berlin\" or \"US/Pacific\".")
				return
			}
			w.TimeZone = str.Value
		}
	}}
	switch kind {
	case "sacct":
		const use = `workload sacct "jobs.txt"`
		if !c.args(s, 2, 2, use) {
			return w, false
		}
		str, ok := c.str(s.Args[1], b, "workload sacct", use)
		if !ok {
			return w, false
		}
		if str.Value == "" {
			c.diags.Errorf(str.R, "empty accounting file path").With("Give the path of `sacct --parsable2` output, plain or gzipped.")
			return w, false
		}
		w.Kind, w.Path, w.Name = runtime.Sacct, c.path(str), c.valueName(str)
		w.Where = str.R.String()
		c.dataFile(w.Path, str.R, "Slurm accounting file", false)
		c.decodeBlock("the sacct workload", s.Body, []fieldSpec{
			powerField, keepField, submittedField, badLinesField, zoneField,
			{name: "exclusive", usage: "exclusive", decode: func(s *lang.Stmt) {
				if len(s.Args) > 0 {
					c.diags.Errorf(s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range()), "`exclusive` takes nothing after it").
						With("`exclusive` says every job held whole nodes, so each job's ConsumedEnergyRaw is its own; without it, a job counts as on whole nodes when its CPUs are its nodes × the machine's cores.")
					return
				}
				w.Exclusive = true
			}},
			{name: "format", usage: `format "JobID,Submit,Elapsed,AllocCPUS"`, decode: func(s *lang.Stmt) {
				const use = `format "JobID,Submit,Elapsed,AllocCPUS"`
				if !c.args(s, 1, 1, use) {
					return
				}
				str, ok := c.str(s.Args[0], b, "format", use)
				if !ok {
					return
				}
				if err := workload.CheckSacctFormat(str.Value); err != nil {
					c.diags.Errorf(str.R, "sacct format %q: %v", str.Value, err).
						With("Give the fields of the `sacct --noheader` output in its order, as sacct's --format took them; pwrc needs JobID, Submit, a run time (Elapsed, or Start and End) and AllocCPUS (or NCPUS).")
					return
				}
				w.SacctFormat = str.Value
			}},
		})
	case "swf":
		if !c.args(s, 2, 2, `workload swf "trace.swf.gz"`) {
			return w, false
		}
		str, ok := c.str(s.Args[1], b, "workload swf", `workload swf "trace.swf.gz"`)
		if !ok {
			return w, false
		}
		if str.Value == "" {
			c.diags.Errorf(str.R, "empty trace path").With("Give the path of an SWF file, plain or gzipped.")
			return w, false
		}
		w.Kind, w.Path, w.Name = runtime.SWF, c.path(str), c.valueName(str)
		w.Where = str.R.String()
		w.HasSize = c.dataFile(w.Path, str.R, "trace", true).hasSize
		c.decodeBlock("the swf workload", s.Body, []fieldSpec{
			powerField, keepField, submittedField,
			{name: "scale", usage: "scale to machine", decode: func(s *lang.Stmt) {
				if len(s.Args) == 2 && s.Args[0].Text() == "to" && s.Args[1].Text() == "machine" {
					w.ScaleToMachine = true
					return
				}
				c.diags.Errorf(s.Range, "expected `scale to machine`").
					With("`scale to machine` gives each job the share of this machine it had of the trace's machine.")
			}},
			badLinesField,
			{name: "start", usage: `start "2016-12-30 00:00"`, decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, `start "2016-12-30 00:00"`) {
					if t, ok := c.localTime(s.Args[0], b, "start"); ok {
						w.Start = t
					}
				}
			}},
			zoneField,
		})
	case "synthetic":
		if !c.args(s, 1, 1, "workload synthetic { jobs 5000; load 85% }") {
			return w, false
		}
		w.Kind, w.Name = runtime.Synthetic, "synthetic"
		w.Synthetic = workload.Synthetic{Jobs: 1000, Load: 0.8, Seed: mix(expSeed, "workload")}
		at := map[string]lang.Range{}
		c.synthAt[s.Body] = at
		c.decodeBlock("the synthetic workload", s.Body, []fieldSpec{
			powerField, keepField, submittedField,
			{name: "jobs", usage: "jobs 5000", decode: func(s *lang.Stmt) {
				at[s.Key.Name] = argsRange(s)
				if c.args(s, 1, 1, "jobs 5000") {
					if n, ok := c.count(s.Args[0], b, "jobs"); ok {
						w.Synthetic.Jobs = n
					}
				}
			}},
			{name: "load", usage: "load 85%", decode: func(s *lang.Stmt) {
				at[s.Key.Name] = argsRange(s)
				if !c.args(s, 1, 1, "load 85%") {
					return
				}
				v := c.val(s.Args[0], b)
				dim := lang.Dimensionless
				if n, ok := v.(*lang.Number); ok && n.Unit == "%" {
					dim = lang.Fraction
				}
				if f, _, ok := c.quantity(s.Args[0], b, dim, "load"); ok {
					w.Synthetic.Load = f
				}
			}},
			{name: "seed", usage: "seed 7", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "seed 7") {
					if n, ok := c.count(s.Args[0], b, "seed"); ok {
						w.Synthetic.Seed = uint64(n)
					}
				}
			}},
			{name: "unit", usage: "unit 512", decode: func(s *lang.Stmt) {
				at[s.Key.Name] = argsRange(s)
				if c.args(s, 1, 1, "unit 512") {
					if n, ok := c.count(s.Args[0], b, "unit"); ok {
						w.Synthetic.Unit = n
					}
				}
			}},
			{name: "runtime", usage: "runtime 2 h", decode: func(s *lang.Stmt) {
				at[s.Key.Name] = argsRange(s)
				if c.args(s, 1, 1, "runtime 2 h") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "runtime"); ok {
						w.Synthetic.MeanRuntime = v
					}
				}
			}},
		})
	}
	return w, c.errs() == before
}

// keepRule compiles a workload's `keep RULE`: a condition over a job's
// fixed fields, evaluated once per job before the run.
func (c *compiler) keepRule(s *lang.Stmt, b binding) *runtime.Expr {
	e := c.ruleExpr(s, 0, boolExpr, b)
	if e == nil {
		return nil
	}
	if e.Deps.Dynamic() || e.Fields&^runtime.FixedJobFields != 0 {
		_, r := c.file(s).ArgsSource(s, 0)
		c.diags.Errorf(r, "`keep` can read only a job's fixed fields").
			With("It chooses the jobs once, before the run, so it cannot read the time, the system, the price, %s or the job's power; use e.g. `job.partition`, `job.queue`, `job.user`, `job.nodes`.", runFieldList())
		return nil
	}
	return e
}
