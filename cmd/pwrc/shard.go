package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pwrc/pwrc/cmd/pwrc/report"
	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// shardFormat names the format of a shard file, and its version.
const shardFormat = "pwrc shard 1"

// shardFile is what `pwrc run --shard i/n` writes: the scenario and the
// inputs it was run with (as a directory's manifest names them), which
// part of the plan this is, and each of its runs' results whole: the
// metrics as the simulator computed them (float64s written so that they
// read back bit for bit), so that `pwrc merge` lays out the very tables
// and JSON a run of the whole plan prints.
type shardFile struct {
	Format     string     `json:"format"`
	Pwrc       string     `json:"pwrc"`
	Scenario   string     `json:"scenario"`
	Experiment string     `json:"experiment"`
	Sets       []string   `json:"sets"`
	Inputs     string     `json:"inputs_sha256"`
	Shard      int        `json:"shard"`
	Shards     int        `json:"shards"`
	Runs       []shardRun `json:"runs"`
}

type shardRun struct {
	Index    int                `json:"index"`
	Name     string             `json:"name"`
	Metrics  *pwrt.Metrics      `json:"metrics,omitempty"`
	Workload *pwrt.WorkloadInfo `json:"workload,omitempty"`
	Notes    []string           `json:"notes,omitempty"`
	Error    string             `json:"error,omitempty"`
}

// parseShard reads --shard i/n.
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usageErrorf("--shard %q: write --shard i/n, 1 ≤ i ≤ n (shard 2 of 3: --shard 2/3)", s)
	}
	return i, n, nil
}

// shardOutput is a shard's file: its runs' results, in plan order.
func shardOutput(scenario, experiment string, sets []string, res *compiler.Result, i, n int, runs []int, results []*pwrt.Result) ([]byte, error) {
	f := shardFile{Format: shardFormat, Pwrc: version, Scenario: scenario, Experiment: experiment, Sets: append([]string{}, sets...),
		Inputs: inputsHash(res, sets, experiment), Shard: i, Shards: n, Runs: []shardRun{}}
	for _, k := range runs {
		r := results[k]
		sr := shardRun{Index: k, Name: r.Run.Name, Notes: r.Notes}
		if r.Err != nil {
			sr.Error = r.Err.Error()
		} else {
			sr.Metrics, sr.Workload = &r.Metrics, &r.Workload
		}
		f.Runs = append(f.Runs, sr)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		// encoding/json refuses NaN and ±Inf, which no metric holds.
		return nil, fmt.Errorf("shard %d/%d: %v", i, n, err)
	}
	return append(data, '\n'), nil
}

// readShard reads a shard file.
func readShard(path string) (*shardFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("%s: %v", path, bare(err))
	}
	var f shardFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a shard file: %v", path, err)
	}
	if f.Format != shardFormat {
		return nil, fmt.Errorf("%s: not a shard file (format %q, want %q): write shards with pwrc run --shard i/n", path, f.Format, shardFormat)
	}
	return &f, nil
}

// mergeShards checks that shard files are the parts of one sweep, each
// run in exactly one of them, and returns the plan (compiled again),
// every run's result and the scenario the shards ran. Missing or
// duplicated runs are named.
func mergeShards(paths []string) (*compiler.Result, []*pwrt.Result, string, error) {
	fail := func(err error) (*compiler.Result, []*pwrt.Result, string, error) { return nil, nil, "", err }
	var files []*shardFile
	var seen []os.FileInfo
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			for k, o := range seen {
				if o != nil && os.SameFile(fi, o) {
					return fail(usageErrorf("%s is given twice (as %s too)", p, paths[k]))
				}
			}
			seen = append(seen, fi)
		} else {
			seen = append(seen, nil)
		}
		f, err := readShard(p)
		if err != nil {
			return fail(err)
		}
		files = append(files, f)
	}
	first := files[0]
	for k, f := range files[1:] {
		switch {
		case f.Scenario != first.Scenario || f.Experiment != first.Experiment || !slices.Equal(f.Sets, first.Sets) || f.Inputs != first.Inputs:
			return fail(fmt.Errorf("%s and %s are shards of different sweeps (scenario, --set, --experiment or the scenario's sources differ)", paths[0], paths[k+1]))
		case f.Shards != first.Shards:
			return fail(fmt.Errorf("%s is shard %d/%d, %s shard %d/%d: shards of one cut have the same n", paths[0], first.Shard, first.Shards, paths[k+1], f.Shard, f.Shards))
		case f.Pwrc != first.Pwrc:
			return fail(fmt.Errorf("%s was written by pwrc %s, %s by pwrc %s: run every shard with the same pwrc", paths[0], first.Pwrc, paths[k+1], f.Pwrc))
		}
	}
	res, err := shardPlan(first)
	if err != nil {
		return fail(err)
	}
	plan := res.Plan
	results := make([]*pwrt.Result, len(plan.Runs))
	from := make([]string, len(plan.Runs))
	var dup []string
	for k, f := range files {
		for _, sr := range f.Runs {
			if sr.Index < 0 || sr.Index >= len(plan.Runs) || plan.Runs[sr.Index].Name != sr.Name {
				return fail(fmt.Errorf("%s: run %s is not run %d of the scenario's plan", paths[k], sr.Name, sr.Index))
			}
			if from[sr.Index] != "" {
				dup = append(dup, fmt.Sprintf("%s (in %s and %s)", sr.Name, from[sr.Index], paths[k]))
				continue
			}
			from[sr.Index] = paths[k]
			r := &pwrt.Result{Run: plan.Runs[sr.Index], Notes: sr.Notes}
			switch {
			case sr.Error != "":
				r.Err = errors.New(sr.Error)
			case sr.Metrics == nil || sr.Workload == nil:
				return fail(fmt.Errorf("%s: run %s has neither metrics nor an error", paths[k], sr.Name))
			default:
				r.Metrics, r.Workload = *sr.Metrics, *sr.Workload
			}
			results[sr.Index] = r
		}
	}
	var missing []string
	for k, r := range results {
		if r == nil {
			missing = append(missing, plan.Runs[k].Name)
		}
	}
	var problems []string
	if len(dup) > 0 {
		problems = append(problems, fmt.Sprintf("%s in two shard files: %s", count(len(dup), "run"), listNames(dup)))
	}
	if len(missing) > 0 {
		have := map[int]bool{}
		for _, f := range files {
			have[f.Shard] = true
		}
		var absent []string
		for s := 1; s <= first.Shards; s++ {
			if !have[s] {
				absent = append(absent, strconv.Itoa(s))
			}
		}
		msg := fmt.Sprintf("%s in no shard file: %s", count(len(missing), "run"), listNames(missing))
		if len(absent) > 0 {
			msg += fmt.Sprintf(" (no shard %s of %d given)", strings.Join(absent, ", "), first.Shards)
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return fail(errors.New(strings.Join(problems, "; ")))
	}
	pwrt.CompleteComparisons(plan, results)
	return res, results, first.Scenario, nil
}

// shardPlan compiles the scenario the shards ran, with their --set values
// and --experiment, and checks that it has the same inputs.
func shardPlan(f *shardFile) (*compiler.Result, error) {
	if _, err := os.Stat(f.Scenario); err != nil {
		return nil, fmt.Errorf("the shards' scenario %s: %v (merge from the directory the shards ran in)", f.Scenario, bare(err))
	}
	var sets []compiler.Set
	for _, s := range f.Sets {
		name, value, _ := strings.Cut(s, "=")
		sets = append(sets, compiler.Set{Name: strings.TrimSpace(name), Value: value})
	}
	res := compiler.Compile(f.Scenario, compiler.Options{Sets: sets, Experiment: f.Experiment})
	if res.Diags.HasErrors() || res.Plan == nil {
		return nil, fmt.Errorf("the shards' scenario %s no longer compiles (pwrc check %s)", f.Scenario, f.Scenario)
	}
	if inputsHash(res, f.Sets, f.Experiment) != f.Inputs {
		return nil, fmt.Errorf("the shards' scenario %s changed since they ran (its sources differ): run the shards again", f.Scenario)
	}
	return res, nil
}

// listNames names up to 10 runs, and how many more.
func listNames(names []string) string {
	if len(names) <= 10 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d others", strings.Join(names[:10], ", "), len(names)-10)
}

func mergeCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, outFile, reportFile string
	var theory bool
	cmd := &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Join the shard files of a sweep into the tables a single run prints",
		Long: `merge reads the files pwrc run --shard i/n wrote for every shard of a sweep,
checks that they are parts of one sweep (same scenario, --set values,
--experiment and sources) holding every run exactly once, and prints the
tables, CSV or JSON a single pwrc run of the whole plan prints, byte for
byte. It compiles the scenario again, from the directory the shards ran in.
Missing and duplicated runs are named (exit 1). Runs that failed are said
on stderr, and make the exit code 1, as with pwrc run.

--report FILE also writes the HTML report of the merged runs: the tables
and the plots drawn from the runs' metrics (energy, cost, savings, power
by hour of day). Shard files keep no machine-state series and no jobs, so
the power, machine-state, utilization and wait plots are empty, and the
page says so.`,
		Args: cobra.MinimumNArgs(1),
		RunE: command(func(_ *cobra.Command, args []string) error {
			switch format {
			case "table", "markdown", "csv", "json":
			default:
				return usageErrorf("--format must be table, markdown, csv or json, not %q", format)
			}
			var reportTarget string
			if reportFile != "" {
				t, err := checkMergeReport(reportFile, outFile, args)
				if err != nil {
					return err
				}
				reportTarget = t
			}
			res, results, scenario, err := mergeShards(args)
			if err != nil {
				return err
			}
			plan := res.Plan
			in := planInputs(res.Sources, plan) // and the shard files:
			for _, p := range args {
				in.add(p, "the shard file "+p)
			}
			if reportFile != "" {
				if fi, err := os.Stat(reportTarget); err == nil {
					if x, ok := in.of(fi); ok {
						return usageErrorf("--report %s: is %s, which this command reads: write to another file (pwrc never writes over its inputs)", reportFile, x.what)
					}
				}
			}
			var buf bytes.Buffer
			if err := render(&buf, format, theory, plan, results); err != nil {
				return err
			}
			failed := 0
			for _, f := range failures(results) {
				failed += len(f.runs)
				fmt.Fprintf(stderr, "pwrc: %s failed: %s\n", runList(f.runs), f.msg)
			}
			if outFile == "" {
				outFile = "-"
			}
			if err := writeFigure("-o", outFile, buf.Bytes(), stdout, in); err != nil {
				return err
			}
			if reportFile != "" {
				page := reportPage(scenario, plan, results, nil, []string{mergedNote(len(args))}, true)
				if err := writeReport("--report", reportFile, reportTarget, report.HTML(page)); err != nil {
					return err
				}
			}
			if failed > 0 {
				return exitError{exitFailure, nil}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, markdown, csv or json")
	cmd.Flags().BoolVar(&theory, "theory", false, "after each table, Kunkel et al.'s theory, as pwrc run --theory")
	cmd.Flags().StringVarP(&outFile, "output", "o", "", "write to this file (atomically) instead of stdout")
	cmd.Flags().StringVar(&reportFile, "report", "", "also write the HTML report of the merged runs to this file (atomically): tables and the plots of their metrics")
	return cmd
}

// mergedNote is what the report of merged shards says of the plots it
// cannot draw.
func mergedNote(files int) string {
	return fmt.Sprintf("Merged from %s: shard files keep each run's metrics, not its machine-state series or its jobs, "+
		"so the power, machine-state and utilization plots and the wait distributions are empty. "+
		"For them, run the sweep with pwrc run --report, or with --series DIR --jobs DIR and then pwrc report DIR.", count(files, "shard file"))
}

// checkMergeReport checks merge's --report before anything is read: a
// new regular file in an existing directory, neither -o nor a shard file.
// It returns the file to replace (a link's target).
func checkMergeReport(path, outFile string, shards []string) (string, error) {
	target, err := checkFile("--report", path, nil, false)
	if err != nil {
		return "", err
	}
	ti, terr := os.Stat(target)
	for _, other := range append([]string{outFile}, shards...) {
		if other == "" || other == "-" {
			continue
		}
		ot, err := resolveLinks(other)
		if err != nil {
			continue
		}
		oi, oerr := os.Stat(ot)
		if filepath.Clean(ot) == filepath.Clean(target) || terr == nil && oerr == nil && os.SameFile(ti, oi) {
			what := "the shard file " + other
			if other == outFile {
				what = "-o " + other
			}
			return "", usageErrorf("--report %s: is %s", path, what)
		}
	}
	return target, nil
}
