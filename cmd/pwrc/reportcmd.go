package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/pwrc/pwrc/cmd/pwrc/report"
	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// checkReport checks the destination of --report before anything is
// simulated, as prepareOutputs checks the others: a new regular file in
// an existing directory, not the scenario, not a file another output
// writes. It returns the file to replace (a link's target).
func checkReport(path string, f outputFlags, res *compiler.Result) (string, error) {
	target, err := checkFile("--report", path, planInputs(res.Sources, res.Plan), false)
	if err != nil {
		return "", err
	}
	// Each other output's files, one at a time: the report may not be one.
	clash := func(dir, name, what string) error {
		var cl claims
		if err := cl.add(dir, name, what); err != nil {
			return nil // a directory not made yet holds no file
		}
		return cl.add(filepath.Dir(target), filepath.Base(target), "--report "+path)
	}
	for _, o := range []struct{ flag, path string }{{"-o", f.out}, {"--cpuprofile", f.cpuProfile}} {
		if o.path == "" {
			continue
		}
		if t, err := resolveLinks(o.path); err == nil {
			if err := clash(filepath.Dir(t), filepath.Base(t), o.flag+" "+o.path); err != nil {
				return "", err
			}
		}
	}
	for _, d := range []struct {
		flag, path string
		jobs       bool
	}{{"--jobs", f.jobs, true}, {"--series", f.series, false}} {
		if d.path == "" {
			continue
		}
		od := &outDir{path: d.path, jobs: d.jobs, series: !d.jobs, batsim: d.jobs && f.batsim}
		names := []string{manifestName}
		for _, r := range res.Plan.Runs {
			names = append(names, od.names(r)...)
		}
		for _, name := range names {
			if err := clash(d.path, name, d.flag+" "+d.path); err != nil {
				return "", err
			}
		}
	}
	return target, nil
}

// writeReport writes a report or a figure atomically.
func writeReport(flag, path, target string, data []byte) error {
	if err := renameio.WriteFile(target, data, 0o644); err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, bare(err))
	}
	return nil
}

// priceCache loads each price file once for all the runs of a report.
func priceCache() report.PriceLoader {
	type entry struct {
		s   *tariff.Series
		err error
	}
	cache := map[string]entry{}
	return func(path string, f tariff.Format) (*tariff.Series, error) {
		k := path + "\x00" + f.Time.String()
		if e, ok := cache[k]; ok {
			return e.s, e.err
		}
		s, err := tariff.OpenPrices(path, f)
		cache[k] = entry{s, err}
		return s, err
	}
}

// reportPage lays out the results of a plan: per experiment, the table as
// `pwrc run` prints it and the runs with the prices they paid.
// Prices are drawn only for a plan compiled from the scenario (a plan laid
// out from saved runs alone knows no contract). series, if not nil, holds
// by run index the state series the runs streamed (else the results
// kept theirs).
func reportPage(scenario string, p *pwrt.Plan, results []*pwrt.Result, series []*report.Series, notes []string, prices bool) report.Page {
	page := report.Page{Title: scenario, Generator: "pwrc " + version, Notes: notes}
	load := priceCache()
	seen := map[string]bool{}
	for _, e := range p.Experiments {
		var rs []*pwrt.Result
		for _, i := range e.Runs {
			rs = append(rs, results[i])
		}
		x := report.Experiment{Name: e.Name, Table: reportTable(e, rs)}
		for _, r := range rs {
			run := report.Run{Result: r, Label: configName(e, r.Run)}
			if i := r.Run.Index; i < len(series) && series[i] != nil {
				run.States = series[i]
			}
			if !prices {
				x.Runs = append(x.Runs, run)
				continue
			}
			if t, err := report.Tariff(run, load); err != nil {
				if msg := "No price drawn for contract " + r.Run.Contract.Name + ": " + err.Error(); !seen[msg] {
					seen[msg] = true
					page.Notes = append(page.Notes, msg)
				}
			} else {
				run.Price = t
			}
			x.Runs = append(x.Runs, run)
		}
		page.Experiments = append(page.Experiments, x)
	}
	return page
}

// reportTable is an experiment's table with the cells `pwrc run` prints.
func reportTable(e *pwrt.Experiment, rs []*pwrt.Result) report.Table {
	cols := []column{{header: configHeader(e), cell: func(r *pwrt.Result) string { return configName(e, r.Run) }, align: tw.AlignLeft}}
	for _, key := range e.Report {
		cols = append(cols, metricColumn(key, rs))
	}
	t := report.Table{Title: tableTitle(e, rs), Notes: tableNotes(e, rs)}
	for _, c := range cols {
		t.Header = append(t.Header, c.header)
		t.Left = append(t.Left, c.align == tw.AlignLeft)
	}
	for _, r := range rs {
		row := make([]string, len(cols))
		for i, c := range cols {
			if r.Err != nil && i > 0 {
				row[i] = "error"
				continue
			}
			row[i] = c.cell(r)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// checkRunReport checks --report of `pwrc run`; "" when not given.
func checkRunReport(path string, f outputFlags, res *compiler.Result) (string, error) {
	if path == "" {
		return "", nil
	}
	return checkReport(path, f, res)
}

// reportFromRun writes --report after a run (nothing without it); series
// are the state series the runs streamed, if they did not keep them.
func reportFromRun(path, target, scenario string, p *pwrt.Plan, results []*pwrt.Result, series []*report.Series) error {
	if path == "" {
		return nil
	}
	return writeReport("--report", path, target, report.HTML(reportPage(scenario, p, results, series, nil, true)))
}

// reportOptions sets what runs keep for --report beside what the other
// outputs keep: a run streams its state series into a compact
// report.Series unless --series keeps it whole, and keeps its jobs' waits
// unless --jobs keeps their records. It returns the series, by run index,
// filled as the runs go: by the runs' streams, or from the whole series
// when a run's files are written (streamer.finished), which then drops it.
func reportOptions(opts *pwrt.Options, p *pwrt.Plan) []*report.Series {
	if !opts.KeepJobs {
		opts.KeepWaits = true
	}
	series := make([]*report.Series, len(p.Runs))
	if opts.KeepStates {
		return series
	}
	opts.States = func(r *pwrt.Run) pwrt.StateSink {
		s := &report.Series{}
		series[r.Index] = s // each run its own element: no lock needed
		return s
	}
	return series
}

// writeFigure writes a report or a figure to -o: atomically to a file (a
// link's target), directly to a device or a pipe, to stdout for "-"; never
// over one of the files the command read (in).
func writeFigure(flag, path string, data []byte, stdout io.Writer, in inputs) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	target, err := checkFile(flag, path, in, true)
	if err != nil {
		return err
	}
	if target != "" {
		return writeReport(flag, path, target, data)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, bare(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, bare(err))
	}
	return nil
}

func reportCmd(stdout, stderr io.Writer) *cobra.Command {
	var outFile string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write the HTML report of runs saved in a directory",
		Long: `report reads a saved run directory and writes the same self-contained HTML
report as pwrc run --report: the comparison tables and the plots. Save the
runs with

  pwrc run FILE --format json -o DIR/results.json --series DIR --jobs DIR

When the scenario named in DIR/MANIFEST.json still compiles to the same
inputs, the tables have the experiment's columns and the power plots the
contract's price; otherwise the default columns and no price.`,
		Args: cobra.ExactArgs(1),
		RunE: command(func(_ *cobra.Command, args []string) error {
			s, err := loadSaved(args[0], true)
			if err != nil {
				return err
			}
			if outFile == "" {
				outFile = filepath.Join(args[0], "report.html")
			}
			for _, n := range s.notes {
				fmt.Fprintf(stderr, "pwrc: %s\n", n)
			}
			page := reportPage(s.title, s.plan, s.results, nil, s.notes, s.compiled)
			return writeFigure("-o", outFile, report.HTML(page), stdout, s.inputs())
		}),
	}
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write the report to this file (atomically; default DIR/report.html, - for stdout)")
	return cmd
}

// figures are the single figures pwrc plot draws: one run, or several.
var figures = map[string]struct {
	one  func(report.Run) []byte
	many func([]report.Run) []byte
}{
	"power":       {one: report.PowerSVG},
	"states":      {one: report.StatesSVG},
	"waits":       {many: report.WaitsSVG},
	"utilization": {many: report.UtilizationSVG},
	"hours":       {many: report.HoursSVG},
	"energy":      {many: report.EnergySVG},
	"cost":        {many: report.CostSVG},
	"savings":     {many: report.SavingsSVG},
}

// plotWindow sets the time a run's power or states plot shows from
// --from and --to: local dates and times on the run's clock ("2012-09-07
// 11:00"), or offsets from the start of its state series (its first
// submission, or its account window's start) with a unit, "36 h", "2.5
// d", "90 min", "600 s"; either may be left out (the run's start, its
// end).
func plotWindow(run *report.Run, from, to string) error {
	if from == "" && to == "" {
		return nil
	}
	s0, s1 := report.Span(*run)
	at := func(flag, v string, def float64) (float64, error) {
		if v == "" {
			return def, nil
		}
		fields := strings.Fields(v)
		if len(fields) == 2 {
			unit := map[string]float64{"s": 1, "min": 60, "h": 3600, "d": 86400}[fields[1]]
			if x, err := strconv.ParseFloat(fields[0], 64); err == nil && unit > 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
				return s0 + x*unit, nil
			}
		}
		clock, err := report.Clock(run.Result)
		if err != nil {
			return 0, usageErrorf("%s %q: %v", flag, v, err)
		}
		iso := strings.Replace(strings.TrimSpace(v), " ", "T", 1)
		switch len(iso) {
		case len("2006-01-02"):
			iso += "T00:00:00"
		case len("2006-01-02T15:04"):
			iso += ":00"
		}
		t, err := tariff.ParseLocal(iso, clock.Loc)
		if err != nil {
			return 0, usageErrorf("%s %q: not a local date (2012-09-07 11:00) or an offset with a unit (36 h, 2.5 d, 90 min, 600 s)", flag, v)
		}
		return clock.Sim(t), nil
	}
	a, err := at("--from", from, s0)
	if err != nil {
		return err
	}
	b, err := at("--to", to, s1)
	if err != nil {
		return err
	}
	if !(b > a) {
		return usageErrorf("--from %q is not before --to %q", from, to)
	}
	if b <= s0 || a >= s1 {
		return usageErrorf("--from %q --to %q: outside run %s, which spans 0 to %s d after its start", from, to, run.Label,
			strconv.FormatFloat((s1-s0)/86400, 'f', 1, 64))
	}
	run.From, run.To = math.Max(a, s0), math.Min(b, s1)
	return nil
}

func plotCmd(stdout, stderr io.Writer) *cobra.Command {
	var outFile, what, from, to string
	cmd := &cobra.Command{
		Use:   "plot RUN_FILE... --what power|states|waits|utilization|hours|energy|cost|savings -o FILE.svg|FILE.png",
		Short: "Draw one figure of saved runs, as SVG or PNG",
		Long: `plot draws one figure of runs saved by pwrc run --series DIR --jobs DIR
(and --format json -o DIR/results.json): name each run by one of its files,
DIR/RUN.states.csv, DIR/RUN.csv or DIR/RUN.hours.csv, or by DIR/RUN.

  power, states       one run: power by component with the price; nodes per state
  waits, utilization, hours, energy, cost, savings
                      one or more runs on one chart

power and states show the run's measure or account window, or the time its
powercaps applied, with context either side (as the report does), else the
whole run; --from and --to choose the time instead: local dates
("2012-09-07 11:00") or offsets from the run's start ("36 h", "2.5 d").

The format follows the extension of -o: .svg or .png.`,
		Args: cobra.MinimumNArgs(1),
		RunE: command(func(_ *cobra.Command, args []string) error {
			fig, ok := figures[what]
			if !ok {
				return usageErrorf("--what must be power, states, waits, utilization, hours, energy, cost or savings, not %q", what)
			}
			if fig.one != nil && len(args) > 1 {
				return usageErrorf("--what %s draws one run, not %d", what, len(args))
			}
			if fig.one == nil && (from != "" || to != "") {
				return usageErrorf("--from and --to choose the time of --what power or states, not %s", what)
			}
			ext := strings.ToLower(filepath.Ext(outFile))
			switch {
			case outFile == "":
				return usageErrorf("-o FILE.svg or FILE.png is required")
			case ext != ".svg" && ext != ".png":
				return usageErrorf("-o %s: the name must end in .svg or .png", outFile)
			}
			runs, in, err := savedRuns(args, what == "power", stderr)
			if err != nil {
				return err
			}
			var svg []byte
			if fig.one != nil {
				if err := plotWindow(&runs[0], from, to); err != nil {
					return err
				}
				svg = fig.one(runs[0])
			} else {
				svg = fig.many(runs)
			}
			if ext == ".png" {
				if svg, err = report.PNG(svg); err != nil {
					return err
				}
			}
			return writeFigure("-o", outFile, svg, stdout, in)
		}),
	}
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "the figure's file: .svg or .png (atomically)")
	cmd.Flags().StringVar(&from, "from", "", "power, states: start here (a local date, 2012-09-07 11:00, or an offset from the run's start, 36 h)")
	cmd.Flags().StringVar(&to, "to", "", "power, states: end here (as --from)")
	cmd.Flags().StringVar(&what, "what", "power", "the figure: power, states, waits, utilization, hours, energy, cost or savings")
	return cmd
}

// savedRuns finds the runs plot names by their files, each directory read
// once, and returns the files it read. prices: the figure draws the
// contract's price, which needs the scenario (it says when there is none).
func savedRuns(args []string, prices bool, stderr io.Writer) ([]report.Run, inputs, error) {
	dirs := map[string]*saved{}
	load := priceCache()
	var runs []report.Run
	var in inputs
	for _, arg := range args {
		// The run a file names: its name without the first suffix that
		// leaves a run's name (x_jobs.csv is run x's Batsim jobs, or run
		// x_jobs's own).
		dir, name := filepath.Dir(arg), filepath.Base(arg)
		candidates := []string{name}
		for _, suffix := range []string{".states.csv", ".hours.csv", batsimJobsSuffix, batsimMachineSuffix, batsimScheduleSuffix, ".csv"} {
			if n, ok := strings.CutSuffix(name, suffix); ok {
				candidates = append(candidates, n)
			}
		}
		s, ok := dirs[dir]
		if !ok {
			var err error
			if s, err = loadSaved(dir, false); err != nil {
				return nil, nil, err
			}
			dirs[dir] = s
			in = append(in, s.inputs()...)
			if prices && s.missing != "" {
				fmt.Fprintf(stderr, "pwrc: no price drawn for the runs in %s: %s\n", dir, s.missing)
			}
		}
		var found *pwrt.Result
		var names []string
		for _, r := range s.results {
			names = append(names, r.Run.Name)
		}
		if len(candidates) > 1 { // a file: not the bare name
			candidates = candidates[1:]
		}
		for _, c := range candidates {
			if i := slices.Index(names, c); i >= 0 && found == nil {
				found, name = s.results[i], c
			}
		}
		if found == nil {
			name = candidates[0]
			return nil, nil, usageErrorf("%s: no run %s in %s (it has %s)", arg, name, dir, strings.Join(names, ", "))
		}
		if found.Err != nil {
			return nil, nil, fmt.Errorf("%s: run %s failed: %v", arg, name, found.Err)
		}
		run := report.Run{Result: found, Label: found.Run.Label()}
		if run.Label == "" {
			run.Label = found.Run.Name
		}
		if s.compiled && prices {
			if t, err := report.Tariff(run, load); err == nil {
				run.Price = t
			} else {
				fmt.Fprintf(stderr, "pwrc: no price drawn for run %s: %v\n", name, err)
			}
		}
		runs = append(runs, run)
	}
	return runs, in, nil
}
