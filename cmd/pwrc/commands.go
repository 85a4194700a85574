package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pwrc/pwrc/cmd/pwrc/report"
	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/lang"
	pwrt "github.com/pwrc/pwrc/runtime"
)

func checkCmd(stdout, stderr io.Writer) *cobra.Command {
	var strict bool
	var format string
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Check scenarios for errors without running them",
		Long: `check parses and compiles each scenario, compiles its rules and expands its
experiments, and reports every problem with file:line:col and the source line.
It exits 1 when a file has errors (or, with --strict, warnings, and a file
without experiments, which pwrc run refuses). FILE - reads the standard input.`,
		Args: cobra.MinimumNArgs(1),
		RunE: command(func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageErrorf("--format must be text or json, not %q", format)
			}
			if err := oneStdin(args); err != nil {
				return err
			}
			failed := false
			all := []lang.JSONDiagnostic{}
			for _, arg := range args {
				res, path, err := compileArg(arg, compiler.Options{Lint: true}, cmd.InOrStdin())
				if err != nil {
					return err
				}
				if strict && !res.Diags.HasErrors() && res.Plan != nil && len(res.Plan.Runs) == 0 {
					res.Diags.Errorf(lang.Range{File: path}, "no experiments to run").
						With("pwrc run refuses a file without experiments (exit 1); add an `experiment NAME { ... }` block, or check this file without --strict if other files only import it.")
				}
				errs, warns := res.Diags.Count()
				if errs > 0 || (strict && warns > 0) {
					failed = true
				}
				if format == "json" {
					all = append(all, res.Diags.JSON(res.Sources)...)
					continue
				}
				if err := res.Diags.Write(stdout, res.Sources); err != nil {
					return err
				}
				switch {
				case errs == 0 && warns == 0:
					runs := 0
					if res.Plan != nil {
						runs = len(res.Plan.Runs)
					}
					fmt.Fprintf(stdout, "%s: ok (%s)\n", path, plural(runs, "run"))
				default:
					fmt.Fprintf(stdout, "%s: %s, %s\n", path, plural(errs, "error"), plural(warns, "warning"))
				}
			}
			if format == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(all); err != nil {
					return err
				}
			}
			if failed {
				return exitError{exitFailure, nil}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on warnings too")
	cmd.Flags().StringVar(&format, "format", "text", "diagnostics format: text or json (for editors)")
	return cmd
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// parseSets splits --set NAME=VALUE flags.
func parseSets(sets []string) ([]compiler.Set, error) {
	var out []compiler.Set
	given := map[string]string{}
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usageErrorf("--set %q: write --set NAME=VALUE", s)
		}
		if first, twice := given[name]; twice {
			return nil, usageErrorf("--set %s is given twice (--set %s and --set %s): give each param once; to sweep several values, give a list: --set '%s=[a, b]'",
				name, first, s, name)
		}
		given[name] = s
		out = append(out, compiler.Set{Name: name, Value: value})
	}
	return out, nil
}

// scenarioName is the name a scenario argument goes by: <stdin> for "-".
func scenarioName(arg string) string {
	if arg == "-" {
		return stdinName
	}
	return arg
}

// oneStdin refuses "-" (the standard input) given more than once.
func oneStdin(args []string) error {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	if n > 1 {
		return usageErrorf("- (the standard input) is given %d times: it can be read once", n)
	}
	return nil
}

// compileArg compiles the scenario a command-line argument names: a file,
// or "-", the standard input (named <stdin> in diagnostics, its relative
// imports and paths taken from the current directory). It returns the
// name the scenario goes by.
func compileArg(arg string, opts compiler.Options, stdin io.Reader) (*compiler.Result, string, error) {
	if arg != "-" {
		return compiler.Compile(arg, opts), arg, nil
	}
	src, err := io.ReadAll(stdin)
	if err != nil {
		return nil, "", exitError{exitFailure, fmt.Errorf("reading the standard input: %v", err)}
	}
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	opts.ReadFile = func(p string) ([]byte, error) {
		if p == stdinName {
			return src, nil
		}
		return read(p)
	}
	return compiler.Compile(stdinName, opts), stdinName, nil
}

// compile compiles a scenario for run/plan (path "-": the standard
// input), printing diagnostics; it returns nil when there are errors.
func compile(path string, sets []string, experiment string, stdin io.Reader, stderr io.Writer) (*compiler.Result, error) {
	ss, err := parseSets(sets)
	if err != nil {
		return nil, err
	}
	res, path, err := compileArg(path, compiler.Options{Sets: ss, Experiment: experiment}, stdin)
	if err != nil {
		return nil, err
	}
	if err := res.Diags.Write(stderr, res.Sources); err != nil {
		return nil, err
	}
	if res.Diags.HasErrors() {
		errs, _ := res.Diags.Count()
		fmt.Fprintf(stderr, "%s: %s\n", path, plural(errs, "error"))
		return nil, exitError{exitFailure, nil}
	}
	return res, nil
}

// execute simulates a plan; tests replace it to see whether, and when,
// anything is simulated.

func runCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		experiment, format, jobsDir, outFile string
		seriesDir, cpuProfile                string
		reportFile, jobsFormat, shard        string
		sets                                 []string
		workers                              int
		theory                               bool
	)
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Simulate a scenario and print comparison tables",
		Long: `run compiles the scenario, simulates every run of its experiments (in parallel
with -j), and prints one table per experiment: run days, utilization, energy,
cost, saving against the baseline, and waiting-time quantiles.

FILE - reads the scenario from the standard input.

--jobs DIR writes, per run, DIR/<run>.csv: one row per job (submit, start,
end, nodes, power…). With --jobs-format batsim it writes Batsim's files
instead: <run>_jobs.csv, <run>_machine_states.csv and <run>_schedule.csv.
--series DIR writes, per run, DIR/<run>.hours.csv (power and utilization by
hour of day), DIR/<run>.states.csv (the machine's state and power at every
change), DIR/<run>.weeks.csv (per week: jobs completed, their Lawson
slowdown and SLA violations, utilization) and, under a policy with
active, DIR/<run>.active.csv (the active nodes at every change). The
README's "Output files" section gives every column.

Output files and directories are checked (and directories created) before
anything is simulated; no output may be a file the run reads (the
scenario, its imports, traces, sacct, price and carbon files). A directory
written by --jobs or --series gets each run's files as the run ends and
ends with a MANIFEST.json listing them. pwrc refuses to replace a file in
it that no manifest lists, or the files of another scenario or experiment;
files an earlier run of the same sweep wrote that this run does not are
removed, and said so.

Exit codes: 0 success, 1 scenario errors or a failed run, 2 usage errors,
130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: command(func(cmd *cobra.Command, args []string) (err error) {
			ctx := cmd.Context()
			switch format {
			case "table", "markdown", "csv", "json":
			default:
				return usageErrorf("--format must be table, markdown, csv or json, not %q", format)
			}
			if workers < 0 {
				return usageErrorf("-j %d: runs in parallel must be 1 or more (0, the default, means one per CPU)", workers)
			}
			if workers == 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			switch {
			case jobsFormat != "pwrc" && jobsFormat != "batsim":
				return usageErrorf("--jobs-format must be pwrc or batsim, not %q", jobsFormat)
			case jobsFormat == "batsim" && jobsDir == "":
				return usageErrorf("--jobs-format batsim needs --jobs DIR")
			}
			flags := outputFlags{out: outFile, jobs: jobsDir, series: seriesDir, cpuProfile: cpuProfile, batsim: jobsFormat == "batsim",
				scenario: scenarioName(args[0]), experiment: experiment, sets: sets}
			shardI, shardN := 0, 0
			if shard != "" {
				if shardI, shardN, err = parseShard(shard); err != nil {
					return err
				}
				switch {
				case cmd.Flags().Changed("format") && format != "json":
					return usageErrorf("--shard writes a shard file (JSON) for pwrc merge, which prints --format %s", format)
				case jobsDir != "" || seriesDir != "" || reportFile != "":
					return usageErrorf("--shard does not write --jobs, --series or --report: run the sweep unsharded for them")
				case args[0] == "-":
					return usageErrorf("--shard needs a scenario file, which pwrc merge compiles again: save the standard input to a file")
				}
			}
			res, err := compile(args[0], sets, experiment, cmd.InOrStdin(), stderr)
			if err != nil {
				return err
			}
			if len(res.Plan.Runs) == 0 {
				return exitError{exitFailure, fmt.Errorf("%s: no experiments to run", flags.scenario)}
			}
			var part []int // this shard's runs
			if shard != "" {
				if part, err = pwrt.ShardRuns(res.Plan, shardI, shardN); err != nil {
					return usageErrorf("--shard %s: %v", shard, err)
				}
			}
			if ctx.Err() != nil {
				return errInterrupted
			}
			out, err := prepareOutputs(flags, res)
			if err != nil {
				return err
			}
			defer out.abort()
			reportTarget, err := checkRunReport(reportFile, flags, res)
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return errInterrupted
			}
			prog := newProgress(stderr, len(res.Plan.Runs))
			opts := pwrt.Options{Workers: workers, KeepJobs: out.keepJobs(), KeepStates: out.keepStates(), NodeIDs: out.batsim(), Progress: prog.update}
			if shard != "" {
				opts.Runs = part
				if opts.Runs == nil {
					opts.Runs = []int{} // an empty shard simulates nothing
				}
			}
			var series []*report.Series
			if reportFile != "" {
				series = reportOptions(&opts, res.Plan)
			}
			runCtx := ctx
			if len(out.dirs) > 0 { // each run's files as it ends
				var st *streamer
				runCtx, st = out.start(ctx, newManifest(flags.scenario, experiment, sets, res, nil), res.Plan)
				defer st.cancel()
				if opts.KeepStates {
					st.series = series
				}
				st.waits = reportFile != ""
				opts.Finished = st.finished
				defer func() {
					if werr := st.writeErr(); werr != nil && err == nil {
						err = werr
					}
				}()
			}
			results, err := simulate(runCtx, res.Plan, opts)
			prog.finish()
			if err != nil {
				if ctx.Err() == nil { // a write error stopped the runs: the deferred check says it
					return nil
				}
				return out.interrupted()
			}
			if shard != "" {
				return writeShard(args[0], experiment, sets, res, shardI, shardN, part, results, out, stdout, stderr)
			}
			var buf bytes.Buffer
			if err := render(&buf, format, theory, res.Plan, results); err != nil {
				return err
			}
			failed := 0
			for _, f := range failures(results) {
				failed += len(f.runs)
				fmt.Fprintf(stderr, "pwrc: %s failed: %s\n", runList(f.runs), f.msg)
			}
			if len(out.dirs) > 0 {
				if err := out.finish(ctx, newManifest(flags.scenario, experiment, sets, res, results), stderr); err != nil {
					return err
				}
			}
			if err := out.finishProfile(); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return errInterrupted
			}
			if err := reportFromRun(reportFile, reportTarget, flags.scenario, res.Plan, results, series); err != nil {
				return err
			}
			if outFile != "" {
				if err := out.writeOutput(buf.Bytes()); err != nil {
					return err
				}
			} else if _, err := stdout.Write(buf.Bytes()); err != nil {
				return err
			}
			if failed > 0 {
				return exitError{exitFailure, nil}
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringVar(&experiment, "experiment", "", "run only this experiment")
	f.StringArrayVar(&sets, "set", nil, "override a param: --set NAME=VALUE (repeatable; a [list] sweeps)")
	f.IntVarP(&workers, "jobs-parallel", "j", 0, "runs to simulate in parallel (0: one per CPU)")
	f.StringVar(&format, "format", "table", "output format: table, markdown, csv or json")
	f.StringVar(&jobsDir, "jobs", "", "write one CSV of per-job records per run into this directory (created if missing)")
	f.StringVar(&jobsFormat, "jobs-format", "pwrc", "the --jobs files: pwrc (<run>.csv), or batsim (Batsim's <run>_jobs.csv and <run>_machine_states.csv, for evalys)")
	f.StringVarP(&outFile, "output", "o", "", "write the tables to this file (atomically) instead of stdout")
	f.StringVar(&seriesDir, "series", "", "write each run's profile by hour of day (power, utilization) as CSV into this directory (created if missing)")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (for go tool pprof)")
	f.StringVar(&reportFile, "report", "", "write an HTML report (tables and plots, self-contained) to this file")
	f.StringVar(&shard, "shard", "", "run only shard i of n of the plan (i/n) and write a shard file for pwrc merge")
	f.BoolVar(&theory, "theory", false, "after each table, Kunkel et al.'s theory per workload and contract: mean/best/worst price, Eq. 4-7 savings and oracles, TCO (CSV and JSON always carry it)")
	return cmd
}

// writeShard writes a shard's file (to -o or stdout) and says which of
// its runs failed.
func writeShard(scenario, experiment string, sets []string, res *compiler.Result, i, n int, part []int, results []*pwrt.Result, out *outputs, stdout, stderr io.Writer) error {
	data, err := shardOutput(scenario, experiment, sets, res, i, n, part, results)
	if err != nil {
		return err
	}
	var mine []*pwrt.Result
	for _, k := range part {
		mine = append(mine, results[k])
	}
	failed := 0
	for _, f := range failures(mine) {
		failed += len(f.runs)
		fmt.Fprintf(stderr, "pwrc: %s failed: %s\n", runList(f.runs), f.msg)
	}
	if err := out.finishProfile(); err != nil {
		return err
	}
	if out.outPath != "" {
		if err := out.writeOutput(data); err != nil {
			return err
		}
	} else if _, err := stdout.Write(data); err != nil {
		return err
	}
	if failed > 0 {
		return exitError{exitFailure, nil}
	}
	return nil
}

// simulate runs the plan; on SIGINT or SIGTERM it returns errInterrupted
// at once, without waiting for runs that do not notice.
func simulate(ctx context.Context, p *pwrt.Plan, opts pwrt.Options) ([]*pwrt.Result, error) {
	done := make(chan []*pwrt.Result, 1)
	execute := hooksOf(ctx).execute
	go func() { done <- execute(ctx, p, opts) }()
	select {
	case res := <-done:
		if ctx.Err() != nil { // runs cut short are not results
			return nil, errInterrupted
		}
		return res, nil
	case <-ctx.Done():
		return nil, errInterrupted
	}
}

func planCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		experiment string
		sets       []string
	)
	cmd := &cobra.Command{
		Use:   "plan FILE",
		Short: "List the runs a scenario expands to, and their dependencies",
		Args:  cobra.ExactArgs(1),
		RunE: command(func(cmd *cobra.Command, args []string) error {
			res, err := compile(args[0], sets, experiment, cmd.InOrStdin(), stderr)
			if err != nil {
				return err
			}
			if len(res.Plan.Runs) == 0 {
				fmt.Fprintf(stderr, "%s: no experiments, so no runs\n", scenarioName(args[0]))
			}
			writePlan(stdout, res.Plan)
			return nil
		}),
	}
	cmd.Flags().StringVar(&experiment, "experiment", "", "only this experiment")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "override a param: --set NAME=VALUE")
	return cmd
}

func writePlan(w io.Writer, p *pwrt.Plan) {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 7, 64) }
	watts := func(x float64) string {
		if x >= 1e4 {
			return num(x/1e3) + " kW"
		}
		return num(x) + " W"
	}
	ghz := func(hz float64) string { return num(hz/1e9) + " GHz" }
	// components lists a level's components, "" for a plain `power P`.
	components := func(cs []pwrt.PowerComponent, k float64) string {
		var parts []string
		for _, c := range cs {
			if c.Name != "" {
				parts = append(parts, c.Name+" "+watts(k*c.Power))
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return " (" + strings.Join(parts, ", ") + ")"
	}
	// machine describes a machine with levels or pstates: P_full, what
	// its levels draw and save, s(f) per pstate.
	machine := func(m *pwrt.Machine) string {
		var b strings.Builder
		s := compiler.Summarize(m)
		if m.Nodes == 0 {
			fmt.Fprintf(&b, "  machine %s: nodes from the trace (P_full and level totals depend on it)\n", m.Name)
		} else {
			top := "busy"
			if len(m.PStates) > 0 {
				top = "at " + ghz(m.PStates[0].Freq)
			}
			fmt.Fprintf(&b, "  machine %s: %d nodes, P_full %s = nodes %s %s + levels %s", m.Name, m.Nodes, watts(s.Full), top, watts(s.NodesFull), watts(s.LevelsOn))
			if s.Infrastructure > 0 {
				fmt.Fprintf(&b, " + infrastructure %s", watts(s.Infrastructure))
			}
			fmt.Fprintf(&b, "; all nodes idle %s\n", watts(s.Idle))
		}
		for _, l := range s.Levels {
			fmt.Fprintf(&b, "    level %s: ", l.Name)
			if l.Instances > 0 {
				fmt.Fprintf(&b, "%d × ", l.Instances)
			}
			fmt.Fprintf(&b, "%s, %s each%s", plural(l.Size, "node"), watts(l.PerInstance), components(l.Components, 1))
			if l.Instances > 0 {
				fmt.Fprintf(&b, ", %s in all%s", watts(l.Total), components(l.Components, float64(l.Instances)))
			}
			fmt.Fprintf(&b, "; bonus %s, off from full load saves %s\n", watts(l.Bonus), watts(l.Saving))
		}
		for i, ps := range m.PStates {
			fmt.Fprintf(&b, "    pstate %s: %s, s(f) %.3f\n", ghz(ps.Freq), watts(ps.Power), s.Stretch[i])
		}
		return b.String()
	}
	lead := pwrt.Twins(p)
	for _, e := range p.Experiments {
		fmt.Fprintf(w, "experiment %s: %s", e.Name, plural(len(e.Runs), "run"))
		if len(e.Dims) > 0 {
			fmt.Fprintf(w, ", sweeping %s", strings.Join(e.Dims, " × "))
		}
		if e.Baseline != nil {
			fmt.Fprintf(w, ", baseline %s = %s", e.Baseline.Dim, e.Baseline.Value)
		}
		fmt.Fprintf(w, ", seed %d\n", e.Seed)
		shown := map[string]bool{}
		for _, i := range e.Runs {
			if m := &p.Runs[i].Machine; len(m.Levels) > 0 || len(m.PStates) > 0 {
				if text := machine(m); !shown[text] {
					shown[text] = true
					fmt.Fprint(w, text)
				}
			}
		}
		for _, i := range e.Runs {
			r := p.Runs[i]
			fmt.Fprintf(w, "  %3d  %-28s workload %s, machine %s, contract %s, policy %s", r.Index, r.Name,
				r.Workload.Name, r.Machine.Name, r.Contract.Name, r.Policy.Name)
			if r.Baseline >= 0 {
				fmt.Fprintf(w, "; compared with %s", p.Runs[r.Baseline].Name)
			}
			if r.Workload.Power.Kind != pwrt.MachineBusy {
				fmt.Fprintf(w, "; job power %s", r.Workload.Power)
			}
			if pol := r.Policy; pol.Budget != nil {
				fmt.Fprintf(w, "; budget %s", pol.Budget)
				if pol.Select == pwrt.SelectKnapsack {
					fmt.Fprintf(w, ", knapsack over a window of %d", pol.Window)
				}
			}
			if u := r.Policy.Contiguous; u > 1 {
				fmt.Fprintf(w, "; allocation in units of %d nodes", u)
			}
			if a := r.Policy.Allocate; a.Name != "" && a.Name != "any" {
				fmt.Fprintf(w, "; allocate %s", a.Name)
				if lv := r.Machine.Levels; a.Name == "rack_aware" && len(lv) > 0 {
					fmt.Fprintf(w, " by %s", lv[max(0, a.Level)].Name)
				}
			}
			if f := r.Policy.Frequency; f.Kind == pwrt.FreqPState && f.PState < len(r.Machine.PStates) {
				fmt.Fprintf(w, "; frequency %s (s(f) %.3f)", ghz(r.Machine.PStates[f.PState].Freq), r.Machine.Stretch(f.PState))
			} else if f.Kind == pwrt.FreqRule {
				fmt.Fprintf(w, "; frequency rule %s (Hz)", f.Rule.Source)
			}
			if sh := r.Policy.Shutdown; sh != nil && sh.Keep > 0 {
				fmt.Fprintf(w, "; shutdown keeps %s idle", plural(sh.Keep, "node"))
			}
			if k := r.Workload.Keep; k != nil {
				fmt.Fprintf(w, "; keep %s", k.Source)
			}
			if sw := r.Workload.Submitted; sw != nil {
				fmt.Fprintf(w, "; submitted %s .. %s", sw.From, sw.To)
			}
			if a := r.Account; a != nil {
				fmt.Fprintf(w, "; accounted %s .. %s", a.From, a.To)
			}
			if r.Policy.ReadsPriceMean() {
				fmt.Fprint(w, "; reads price.mean (an oracle: it knows future prices)")
			}
			if r.Policy.ReadsCarbonMean() {
				fmt.Fprint(w, "; reads carbon.mean (an oracle: it knows future intensities)")
			}
			if len(r.DependsOn) > 0 {
				var names []string
				for _, d := range r.DependsOn {
					names = append(names, p.Runs[d].Name)
				}
				fmt.Fprintf(w, "; after %s", strings.Join(names, ", "))
			}
			if l := lead[i]; l != i {
				fmt.Fprintf(w, "; schedule simulated with %s (only the contract differs)", p.Runs[l].Name)
			}
			fmt.Fprintln(w)
		}
	}
}

// writeHoursCSV writes one row per local hour of day: mean power of the
// whole machine and of running jobs (W), and the share of nodes allocated
// to jobs, each averaged over every time the run spent in that hour.
func writeHoursCSV(w io.Writer, m *pwrt.Metrics) {
	fmt.Fprintln(w, "hour,seconds,power_w,job_power_w,utilization")
	for h, st := range m.Hours {
		var p, jp, u float64
		if st.Seconds > 0 {
			p, jp = st.Energy/st.Seconds, st.JobEnergy/st.Seconds
			u = st.NodeSeconds / (st.Seconds * float64(m.Nodes))
		}
		fmt.Fprintf(w, "%d,%s,%s,%s,%s\n", h, csvFloat(st.Seconds), csvFloat(p), csvFloat(jp), csvFloat(u))
	}
}

// writeStatesCSV writes the machine's state after every instant at which
// it changed: time (trace seconds), nodes per state, level instances on
// and power by component (W); a row lasts until the next.
func writeStatesCSV(w io.Writer, ss *pwrt.StateSeries) {
	fmt.Fprintln(w, "time,"+strings.Join(ss.Columns, ","))
	k := len(ss.Columns)
	for i, t := range ss.Times {
		b := []byte(csvFloat(t))
		for _, v := range ss.Values[i*k : (i+1)*k] {
			b = append(b, ',')
			if !math.IsNaN(v) { // NaN: none (cap_w while no cap applies)
				b = strconv.AppendFloat(b, v, 'g', -1, 64)
			}
		}
		fmt.Fprintln(w, string(b))
	}
}

func csvFloat(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// progress prints "runs done / total" on stderr, only when stderr is a
// terminal and only once the runs have taken more than a second.
type progress struct {
	w       io.Writer
	enabled bool
	total   int
	start   time.Time
	mu      sync.Mutex
	shown   bool
	done    int
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now(), stop: make(chan struct{})}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.enabled = true
		p.wg.Add(1)
		go p.tick()
	}
	return p
}

func (p *progress) tick() {
	defer p.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if time.Since(p.start) > time.Second {
				p.shown = true
				fmt.Fprintf(p.w, "\r%d/%d runs done, %.1f s ", p.done, p.total, time.Since(p.start).Seconds())
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	p.done, p.total = done, total // a shard simulates part of the plan
	p.mu.Unlock()
}

func (p *progress) finish() {
	if !p.enabled {
		return
	}
	close(p.stop)
	p.wg.Wait()
	if p.shown {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", 40))
	}
}
