package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/pwrc/pwrc/internal/numfmt"
	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// render writes the results of a plan in the requested format.
// render writes the results in a format; with theory, each experiment's
// table is followed by its theory table (CSV and JSON carry the theory in
// every run's keys).
func render(w io.Writer, format string, theory bool, p *pwrt.Plan, results []*pwrt.Result) error {
	switch format {
	case "json":
		return renderJSON(w, results)
	case "csv":
		return renderCSV(w, p, results)
	}
	for i, e := range p.Experiments {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := renderTable(w, format == "markdown", p, e, results); err != nil {
			return err
		}
		if theory {
			if err := renderTheory(w, format == "markdown", p, e, results); err != nil {
				return err
			}
		}
	}
	return nil
}

// column is one table column: a header and a cell formatter.
type column struct {
	header string
	cell   func(r *pwrt.Result) string
	align  tw.Align
}

func renderTable(w io.Writer, markdown bool, p *pwrt.Plan, e *pwrt.Experiment, results []*pwrt.Result) error {
	var rs []*pwrt.Result
	for _, i := range e.Runs {
		rs = append(rs, results[i])
	}
	title := tableTitle(e, rs)
	if markdown {
		fmt.Fprintf(w, "### %s\n\n", title)
	} else {
		fmt.Fprintln(w, title)
	}
	cols := []column{{header: configHeader(e), cell: func(r *pwrt.Result) string { return configName(e, r.Run) }, align: tw.AlignLeft}}
	for _, key := range e.Report {
		cols = append(cols, metricColumn(key, rs))
	}
	if err := writeGrid(w, markdown, cols, rs); err != nil {
		return err
	}
	for _, n := range tableNotes(e, rs) {
		if markdown {
			fmt.Fprintf(w, "\n%s", n)
		} else {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	if markdown {
		fmt.Fprintln(w)
	}
	return nil
}

// tableTitle names what an experiment's runs share, as the table's title
// line does.
func tableTitle(e *pwrt.Experiment, rs []*pwrt.Result) string {
	title := fmt.Sprintf("experiment %s · %s", e.Name, plural(len(rs), "run"))
	// Workload and machine size are known only for runs that got that far.
	var ok []*pwrt.Result
	for _, r := range rs {
		if r.Err == nil {
			ok = append(ok, r)
		}
	}
	if len(ok) > 0 {
		r0 := ok[0]
		if same(ok, func(r *pwrt.Result) string { return r.Run.Workload.Name }) {
			title += " · workload " + r0.Run.Workload.Name
		}
		if same(ok, func(r *pwrt.Result) string { return fmt.Sprint(r.Run.Machine.Name, r.Workload.Nodes) }) {
			title += fmt.Sprintf(" · machine %s (%s nodes)", r0.Run.Machine.Name, thousands(float64(r0.Workload.Nodes), 0))
		}
	}
	// The contract and policy the runs share: a single run, or a sweep
	// over something else, would otherwise not say what it ran.
	if len(rs) > 0 {
		if same(rs, func(r *pwrt.Result) string { return r.Run.Contract.Name }) {
			title += " · contract " + rs[0].Run.Contract.Name
		}
		if same(rs, func(r *pwrt.Result) string { return r.Run.Policy.Name }) {
			title += " · policy " + rs[0].Run.Policy.Name
		}
	}
	return title
}

// writeGrid renders a table of a row per run and the given columns (a
// failed run shows "error" after its first cell), boxed or in Markdown.
func writeGrid(w io.Writer, markdown bool, cols []column, rs []*pwrt.Result) error {
	headers := make([]string, len(cols))
	aligns := make([]tw.Align, len(cols))
	for i, c := range cols {
		headers[i] = c.header
		if markdown { // one line per header cell in Markdown
			headers[i] = strings.TrimSpace(strings.ReplaceAll(c.header, "\n", " "))
		}
		aligns[i] = c.align
		if aligns[i] == "" {
			aligns[i] = tw.AlignRight
		}
	}
	var rend tw.Renderer = renderer.NewBlueprint()
	if markdown {
		rend = renderer.NewMarkdown()
	}
	cell := tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off}, Alignment: tw.CellAlignment{PerColumn: aligns}}
	t := tablewriter.NewTable(w, tablewriter.WithRenderer(rend), tablewriter.WithConfig(tablewriter.Config{Header: cell, Row: cell}))
	t.Header(headers)
	for _, r := range rs {
		row := make([]string, len(cols))
		for i, c := range cols {
			if r.Err != nil && i > 0 {
				row[i] = "error"
				continue
			}
			row[i] = c.cell(r)
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	return t.Render()
}

// same reports whether key gives one value for all runs.
func same(rs []*pwrt.Result, key func(*pwrt.Result) string) bool {
	for _, r := range rs[1:] {
		if key(r) != key(rs[0]) {
			return false
		}
	}
	return true
}

func configHeader(e *pwrt.Experiment) string {
	if len(e.Dims) == 0 {
		return "Configuration"
	}
	parts := make([]string, len(e.Dims))
	for i, d := range e.Dims {
		parts[i] = strings.ToUpper(d[:1]) + d[1:]
	}
	return strings.Join(parts, " · ")
}

func configName(e *pwrt.Experiment, r *pwrt.Run) string {
	if len(r.Params) == 0 {
		return e.Name
	}
	return r.Label()
}

// metricColumn builds the column for a report key: its header from the
// catalogue (runtime.ReportCatalog), its cells here. Units that depend on
// magnitude (k€ or €) are chosen per table, from the largest value.
func metricColumn(key string, rs []*pwrt.Result) column {
	col, level, known := pwrt.ReportColumnOf(key)
	if !known {
		return column{header: key, cell: func(*pwrt.Result) string { return "?" }}
	}
	scale, money := moneyUnit(rs)
	return column{header: col.HeaderFor(money, level), cell: metricCell(key, level, scale, rs)}
}

// metricCell formats a report key's cells.
func metricCell(key, level string, money float64, rs []*pwrt.Result) func(r *pwrt.Result) string {
	ok := func(f func(m *pwrt.Metrics) float64) func(r *pwrt.Result) string {
		d := decimalsFor(rs, f)
		return func(r *pwrt.Result) string { return thousands(f(&r.Metrics), d) }
	}
	// orDash shows – where has says the run has no value.
	orDash := func(has func(m *pwrt.Metrics) bool, cell func(r *pwrt.Result) string) func(r *pwrt.Result) string {
		return func(r *pwrt.Result) string {
			if !has(&r.Metrics) {
				return "–"
			}
			return cell(r)
		}
	}
	hasSaving := func(m *pwrt.Metrics) bool { return m.HasSaving }
	switch key {
	case "run_days":
		return func(r *pwrt.Result) string { return thousands(r.Metrics.RunDays, 1) }
	case "utilization":
		return func(r *pwrt.Result) string { return thousands(100*r.Metrics.Utilization, 1) }
	case "energy":
		return ok(func(m *pwrt.Metrics) float64 { return m.Energy / 3.6e9 })
	case "cost":
		return ok(func(m *pwrt.Metrics) float64 { return m.Cost / money })
	case "saving":
		return orDash(hasSaving, ok(func(m *pwrt.Metrics) float64 { return m.Saving / money }))
	case "job_cost":
		return ok(func(m *pwrt.Metrics) float64 { return m.JobCost() / money })
	case "job_saving":
		return orDash(hasSaving, ok(func(m *pwrt.Metrics) float64 { return m.JobSaving / money }))
	case "saving_pct":
		return orDash(hasSaving, func(r *pwrt.Result) string { return thousands(r.Metrics.SavingPct, 1) })
	case "job_saving_pct":
		return orDash(hasSaving, func(r *pwrt.Result) string { return thousands(r.Metrics.JobSavingPct, 1) })
	case "bsld":
		return func(r *pwrt.Result) string { return thousands(r.Metrics.BsldMean, 2) }
	case "jobs":
		return func(r *pwrt.Result) string { return thousands(float64(r.Metrics.Jobs), 0) }
	case "dropped":
		return func(r *pwrt.Result) string { return thousands(float64(r.Metrics.Dropped), 0) }
	case "work":
		return func(r *pwrt.Result) string { return thousands(r.Metrics.WorkNodeHours, 0) }
	case "inverse_pairs":
		return orDash(func(m *pwrt.Metrics) bool { return m.HasInversePairs },
			func(r *pwrt.Result) string { return thousands(float64(r.Metrics.InversePairs), 0) })
	case "budget":
		return orDash(func(m *pwrt.Metrics) bool { return m.Budget != 0 }, ok(func(m *pwrt.Metrics) float64 { return m.Budget / 1e3 }))
	}
	if cell, found := moreCell(key, rs); found {
		return cell
	}
	if cell, found := levelCell(key, level, money, rs); found {
		return cell
	}
	if get, peak, found := powerValue(key); found {
		cell := ok(func(m *pwrt.Metrics) float64 { return get(m) / 1e3 })
		if !peak {
			return cell
		}
		return orDash(func(m *pwrt.Metrics) bool { return m.HasPeak }, cell)
	}
	if stat, found := strings.CutPrefix(key, "wait_"); found {
		get := waitGetter(stat)
		return func(r *pwrt.Result) string { return fmtWait(get(&r.Metrics)) }
	}
	return func(*pwrt.Result) string { return "?" }
}

// levelCell formats the cells of metrics that take an argument (NAME:ARG
// keys: a level, a pstate's MHz, a slowdown bound), of the level saving and
// of parts of the energy and cost (energy_busy, cost_levels…).
func levelCell(key, arg string, money float64, rs []*pwrt.Result) (func(r *pwrt.Result) string, bool) {
	num := func(f func(m *pwrt.Metrics) (float64, bool), d int) func(r *pwrt.Result) string {
		return func(r *pwrt.Result) string {
			v, ok := f(&r.Metrics)
			if !ok {
				return "–"
			}
			return thousands(v, d)
		}
	}
	if metric, _, found := strings.Cut(key, ":"); found {
		get := func(f func(l *pwrt.LevelStat) float64) func(m *pwrt.Metrics) (float64, bool) {
			return func(m *pwrt.Metrics) (float64, bool) {
				l, ok := m.Level(arg)
				if !ok {
					return 0, false
				}
				return f(l), true
			}
		}
		switch metric {
		case "levels_on":
			return num(get(func(l *pwrt.LevelStat) float64 { return l.OnMean }), 2), true
		case "level_utilization":
			return num(get(func(l *pwrt.LevelStat) float64 {
				return 100 * l.OnMean / float64(max(1, l.Instances))
			}), 1), true
		case "level_changes":
			return num(get(func(l *pwrt.LevelStat) float64 { return float64(l.Changes) }), 0), true
		case "level_switches":
			return num(get(func(l *pwrt.LevelStat) float64 { return float64(l.Switches) }), 0), true
		case "freq":
			return num(func(m *pwrt.Metrics) (float64, bool) { return pstateCoreShare(m, arg) }, 1), true
		case "sla_violations":
			bound, err := strconv.ParseFloat(arg, 64)
			return num(func(m *pwrt.Metrics) (float64, bool) {
				v, ok := m.SLAShareAt(bound)
				return 100 * v, ok && err == nil
			}, 2), true
		}
	}
	switch key {
	case "level_saving":
		return num(func(m *pwrt.Metrics) (float64, bool) {
			sv, _ := m.LevelSaving()
			return sv / 3.6e9, len(m.Levels) > 0
		}, 3), true
	case "level_saving_pct":
		return num(func(m *pwrt.Metrics) (float64, bool) {
			sv, all := m.LevelSaving()
			return 100 * sv / all, all > 0
		}, 1), true
	}
	for _, metric := range []string{"energy_", "cost_"} {
		part, found := strings.CutPrefix(key, metric)
		if !found {
			continue
		}
		cost := metric == "cost_"
		scale := 3.6e9
		if cost {
			scale = money
		}
		f := func(m *pwrt.Metrics) float64 { return m.Part(part, cost) / scale }
		d := decimalsFor(rs, f)
		return func(r *pwrt.Result) string {
			if part == "levels" && len(r.Metrics.Levels) == 0 {
				return "–"
			}
			return thousands(f(&r.Metrics), d)
		}, true
	}
	return nil, false
}

// powerValue is what a mean power column shows, in W, and whether it
// needs a contract with peak hours.
func powerValue(key string) (get func(m *pwrt.Metrics) float64, peak, ok bool) {
	switch key {
	case "power_mean":
		return func(m *pwrt.Metrics) float64 { return m.PowerMean }, false, true
	case "power_peak":
		return func(m *pwrt.Metrics) float64 { return m.PowerPeak }, true, true
	case "power_offpeak":
		return func(m *pwrt.Metrics) float64 { return m.PowerOffPeak }, true, true
	case "power_max":
		return func(m *pwrt.Metrics) float64 { return m.PeakPower }, false, true
	case "job_power_mean":
		return func(m *pwrt.Metrics) float64 { return m.JobPowerMean }, false, true
	case "job_power_peak":
		return func(m *pwrt.Metrics) float64 { return m.JobPowerPeak }, true, true
	case "job_power_offpeak":
		return func(m *pwrt.Metrics) float64 { return m.JobPowerOffPeak }, true, true
	}
	return nil, false, false
}

func waitGetter(stat string) func(m *pwrt.Metrics) float64 {
	switch stat {
	case "mean":
		return func(m *pwrt.Metrics) float64 { return m.WaitMean }
	case "q25":
		return func(m *pwrt.Metrics) float64 { return m.WaitQ25 }
	case "q50":
		return func(m *pwrt.Metrics) float64 { return m.WaitQ50 }
	case "q75":
		return func(m *pwrt.Metrics) float64 { return m.WaitQ75 }
	case "q90":
		return func(m *pwrt.Metrics) float64 { return m.WaitQ90 }
	case "q99":
		return func(m *pwrt.Metrics) float64 { return m.WaitQ99 }
	}
	return func(m *pwrt.Metrics) float64 { return m.WaitMax }
}

// moneyUnit picks € or k€ (or the run's currency) for a table.
func moneyUnit(rs []*pwrt.Result) (float64, string) {
	cur := "EUR"
	big := 0.0
	for _, r := range rs {
		if r.Err == nil {
			cur = r.Metrics.Currency
			big = math.Max(big, math.Abs(r.Metrics.Cost))
		}
	}
	sym := map[string]string{"EUR": "€", "USD": "$", "GBP": "£"}[cur]
	if sym == "" {
		sym = cur
	}
	if big >= 10000 {
		return 1000, "k" + sym
	}
	return 1, sym
}

// decimalsFor chooses the decimals of a column so its largest value shows
// three or four significant digits.
func decimalsFor(rs []*pwrt.Result, f func(m *pwrt.Metrics) float64) int {
	big := 0.0
	for _, r := range rs {
		if r.Err == nil {
			big = math.Max(big, math.Abs(f(&r.Metrics)))
		}
	}
	switch {
	case big >= 1000:
		return 0
	case big >= 100:
		return 1
	case big >= 1:
		return 2
	}
	return 3
}

// fmtWait shows a wait in minutes, or in days (marked d) from one day on,
// as in Kunkel et al.'s tables.
func fmtWait(s float64) string {
	switch {
	case s < 86400:
		return thousands(s/60, 0)
	case s < 10*86400:
		return numfmt.Fixed(s/86400, 1) + " d"
	}
	return thousands(s/86400, 0) + " d"
}

// thousands formats v with the given decimals (rounded half away from
// zero, as people round) and comma thousands separators.
func thousands(v float64, decimals int) string { return numfmt.Thousands(v, decimals) }

// tableNotes explains units, baselines, cleaning and approximations.
func tableNotes(e *pwrt.Experiment, rs []*pwrt.Result) []string {
	var notes []string
	for _, k := range e.Report {
		if strings.HasPrefix(k, "wait_") {
			notes = append(notes, "Waits in minutes, or in days where marked d. Quantiles interpolate linearly between jobs.")
			break
		}
	}
	if e.Baseline != nil && slices.ContainsFunc(e.Report, func(k string) bool {
		return k == "saving" || k == "saving_pct" || k == "job_saving" || k == "job_saving_pct"
	}) {
		notes = append(notes, fmt.Sprintf("Saving: cost of the run with %s %s and otherwise the same configuration, minus this run's cost.", e.Baseline.Dim, e.Baseline.Value))
		for _, r := range rs {
			if !hasParam(r.Run, e.Baseline.Dim) {
				notes = append(notes, fmt.Sprintf("Runs that do not take %s have no baseline, and no saving.", e.Baseline.Dim))
				break
			}
		}
	}
	var ok []*pwrt.Result
	for _, r := range rs {
		if r.Err == nil {
			ok = append(ok, r)
		}
	}
	if n := accountNote(ok); n != "" {
		notes = append(notes, n)
	}
	has := func(keys ...string) bool {
		for _, k := range e.Report {
			for _, want := range keys {
				if k == want {
					return true
				}
			}
		}
		return false
	}
	if has("job_cost", "job_saving", "job_saving_pct", "job_power_mean", "job_power_peak", "job_power_offpeak") {
		notes = append(notes, "Jobs: the power drawn by the nodes allocated to running jobs (with the idle rest of contiguous allocations), without idle nodes or infrastructure; Zhou et al. report savings on this cost.")
	}
	if has("budget") {
		notes = append(notes, "Budget: a cap on the jobs' power while it applies; jobs already running when it starts to apply are not stopped, so on-peak means can exceed it.")
	}
	if has("tco_current", "tco_optimal_energy", "tco_procurement") {
		notes = append(notes, "TCO per year (Kunkel et al., Table 15): the machine's system cost over its lifetime plus its annual costs, plus the energy cost of the run's own days, not scaled to a year: replay about a year of jobs.")
	}
	if has("oracle_cost_all", "oracle_cost_client", "oracle_best", "oracle_worst", "theory_shutdown_saving", "theory_infra_saving") {
		notes = append(notes, "Theory (Kunkel et al.): each run's own utilization U and span; best and worst prices are the means of the ⌊H·U⌋ cheapest and the other clock hours the span covers.")
	}
	if has("inverse_pairs") && e.Baseline != nil {
		notes = append(notes, fmt.Sprintf("Inverse pairs: pairs of jobs that start in the opposite order with %s %s (ties not counted).", e.Baseline.Dim, e.Baseline.Value))
	}
	for _, f := range failures(rs) {
		notes = append(notes, fmt.Sprintf("%s failed: %s", capitalize(runList(f.runs)), f.msg))
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Err != nil {
			continue
		}
		if s := cleaningNote(r.Workload); s != "" && !seen[s] {
			seen[s] = true
			notes = append(notes, s)
		}
	}
	for _, r := range rs {
		for _, n := range r.Notes {
			if !seen[n] {
				seen[n] = true
				notes = append(notes, "Note: "+n)
			}
		}
	}
	return notes
}

// failure is one error message and the runs that failed with it: a
// missing file fails every run that reads it, and is said once.
type failure struct {
	msg  string
	runs []string
}

// failures groups failed runs by message, in the order they first fail.
func failures(rs []*pwrt.Result) []failure {
	var out []failure
	at := map[string]int{}
	for _, r := range rs {
		if r.Err == nil {
			continue
		}
		msg := r.Err.Error()
		i, ok := at[msg]
		if !ok {
			i = len(out)
			at[msg] = i
			out = append(out, failure{msg: msg})
		}
		out[i].runs = append(out[i].runs, r.Run.Name)
	}
	return out
}

// runList names runs: "run a", "runs a and b", "runs a, b and 3 others".
func runList(names []string) string {
	switch {
	case len(names) == 1:
		return "run " + names[0]
	case len(names) <= 4:
		return "runs " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return fmt.Sprintf("runs %s and %d others", strings.Join(names[:3], ", "), len(names)-3)
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// hasParam reports whether a run takes the swept dimension dim.
func hasParam(r *pwrt.Run, dim string) bool {
	for _, p := range r.Params {
		if p.Name == dim {
			return true
		}
	}
	return false
}

// accountNote says over which span energy and cost were integrated: each
// run's own (first submission to last end), or the experiment's window.
func accountNote(rs []*pwrt.Result) string {
	var windows []string
	seen := map[string]bool{}
	for _, r := range rs {
		if a := r.Run.Account; a != nil {
			w := a.From.String() + " .. " + a.To.String()
			if !seen[w] {
				seen[w] = true
				windows = append(windows, w)
			}
		}
	}
	switch {
	case len(windows) == 1:
		return fmt.Sprintf("Energy, cost and utilization are accounted over the same window for every run, %s (`account`; days after the first submission, or local dates); run days and waits are the schedule's.", windows[0])
	case len(windows) > 1:
		return "Energy, cost and utilization are accounted over each run's `account` window (see `pwrc plan`); run days and waits are the schedule's."
	case len(rs) > 1:
		return "Energy and cost are accounted from each run's first submission to its last job end (its run days): a run that ends later also pays for that time. Compare over one period with `account FROM .. TO`."
	}
	return ""
}

// cleaningNote says what the SWF cleaning rules did to a workload.
func cleaningNote(w pwrt.WorkloadInfo) string {
	c := w.Clean
	if w.Path == "" {
		return fmt.Sprintf("Workload %s: %s from pwrc's seeded synthetic model (a plausible HPC workload, not a site's trace).", w.Name, count(c.Jobs, "job"))
	}
	s := fmt.Sprintf("Workload %s: %s, %s simulated on %s nodes", w.Name,
		count(w.Records, "record"), count(c.Jobs-w.Cut.Dropped(), "job"), thousands(float64(w.Nodes), 0))
	if k := w.Cut; k.Dropped() > 0 {
		var cut []string
		if k.Keep > 0 {
			cut = append(cut, thousands(float64(k.Keep), 0)+" by `keep`")
		}
		if k.Submitted > 0 {
			cut = append(cut, thousands(float64(k.Submitted), 0)+" by `submitted`")
		}
		s += fmt.Sprintf(" (%s of %s cut: %s)", thousands(float64(k.Dropped()), 0), thousands(float64(c.Jobs), 0), strings.Join(cut, ", "))
	}
	if w.ScaledFrom > 0 {
		s += fmt.Sprintf(" (widths scaled from the trace's %s nodes: ×%.4g, rounded up)", thousands(float64(w.ScaledFrom), 0),
			float64(w.Nodes)/float64(w.ScaledFrom))
	}
	var dropped []string
	add := func(n int, why string) {
		if n > 0 {
			dropped = append(dropped, fmt.Sprintf("%s %s", thousands(float64(n), 0), why))
		}
	}
	add(c.DroppedRuntime, "with run time ≤ 0")
	add(c.DroppedProcs, "without processors")
	add(c.DroppedSubmit, "with negative submit time")
	add(c.DroppedWide, "wider than the machine")
	if len(dropped) > 0 {
		s += fmt.Sprintf("; %s dropped (%s)", thousands(float64(c.Dropped()), 0), strings.Join(dropped, ", "))
	}
	if c.RuntimeCapped > 0 {
		s += fmt.Sprintf("; %s run times capped at the requested time", thousands(float64(c.RuntimeCapped), 0))
	}
	if c.WalltimeFromRuntime > 0 {
		s += fmt.Sprintf("; %s without requested time (run time used, so their estimates are exact)", thousands(float64(c.WalltimeFromRuntime), 0))
	}
	if c.ProcsFromRequested > 0 {
		s += fmt.Sprintf("; %s sized by requested processors", thousands(float64(c.ProcsFromRequested), 0))
	}
	if w.BadLines > 0 {
		where := "at line"
		if len(w.FirstBad) > 1 {
			where = "at lines"
		}
		if w.BadLines > len(w.FirstBad) {
			where = "the first at lines"
		}
		s += fmt.Sprintf("; %s skipped (%s %s)", count(w.BadLines, "malformed line"), where, joinInts(w.FirstBad))
	}
	if k := w.Sacct; k != nil {
		s += fmt.Sprintf("; from Slurm accounting: %s, %s folded into their jobs", count(k.Lines, "line"), count(k.StepLines, "job step"))
		if k.HetFolded > 0 {
			s += fmt.Sprintf(", %s of heterogeneous jobs folded", count(k.HetFolded, "component"))
		}
		var skip []string
		add := func(n int, why string) {
			if n > 0 {
				skip = append(skip, fmt.Sprintf("%s %s", thousands(float64(n), 0), why))
			}
		}
		add(k.DroppedPending, "pending")
		add(k.DroppedPendingArray, "array ranges never started")
		add(k.DroppedNotStarted, "ended without starting")
		add(k.DroppedUnfinished, "still running")
		add(k.OrphanSteps, "steps without their job")
		if len(skip) > 0 {
			s += "; not replayed: " + strings.Join(skip, ", ")
		}
		s += fmt.Sprintf("; %s with measured power (ConsumedEnergyRaw on whole nodes)", count(k.Measured, "job"))
		if n := k.EnergyShared + k.EnergyUnverified + k.EnergyImplausible; n > 0 {
			s += fmt.Sprintf(", %d had energy not taken (%d not on whole nodes of %d cores, %d implausible)", n, k.EnergyShared+k.EnergyUnverified, w.SacctCores, k.EnergyImplausible)
		}
		if k.EnergyNone > 0 {
			s += fmt.Sprintf(", %s reported no energy (ConsumedEnergyRaw empty or 0)", count(k.EnergyNone, "job"))
		}
		if k.EnergyNone+k.EnergyShared+k.EnergyUnverified+k.EnergyImplausible > 0 {
			s += ": the machine's model gives those jobs' power"
		}
	}
	return s + "."
}

// count is "1 job", "2 jobs", "28,467 jobs".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(float64(n), 0) + " " + what + "s"
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// deprecatedKeys maps metric keys kept for one release (0.1.x) to the
// keys that replace them: "peak" read as the maximum beside the mean power
// in the tariff's peak hours. Both are written, with the same value.
var deprecatedKeys = map[string]string{
	"peak_power_kw":        "power_max_kw",
	"power_peak_kw":        "power_peak_hours_kw",
	"power_offpeak_kw":     "power_offpeak_hours_kw",
	"job_power_peak_kw":    "job_power_peak_hours_kw",
	"job_power_offpeak_kw": "job_power_offpeak_hours_kw",
}

// metricsMap flattens a run's metrics under snake_case keys with units in
// their names. Go's JSON encoder sorts map keys, so output is stable.
func metricsMap(r *pwrt.Result) map[string]any {
	out := metricsMapNew(r)
	for old, cur := range deprecatedKeys {
		out[old] = out[cur]
	}
	return out
}

func metricsMapNew(r *pwrt.Result) map[string]any {
	m := r.Metrics
	out := map[string]any{
		"run_days": m.RunDays, "utilization": m.Utilization, "nodes": m.Nodes,
		"jobs": m.Jobs, "jobs_dropped": m.Dropped, "runtimes_capped": m.Capped,
		"energy_mwh": m.Energy / 3.6e9, "cost": m.Cost, "currency": m.Currency,
		"wait_mean_s": m.WaitMean, "wait_q25_s": m.WaitQ25, "wait_q50_s": m.WaitQ50, "wait_q75_s": m.WaitQ75,
		"wait_q90_s": m.WaitQ90, "wait_q99_s": m.WaitQ99, "wait_max_s": m.WaitMax,
		"bsld_mean": m.BsldMean, "power_max_kw": m.PeakPower / 1e3, "busy_node_hours": m.BusyNodeHours,
		"saving": nil, "saving_pct": nil, "job_saving": nil, "job_saving_pct": nil, "inverse_pairs": nil,
		"work_node_hours": m.WorkNodeHours, "job_cost": m.JobCost(), "budget_kw": nil,
		"power_mean_kw": m.PowerMean / 1e3, "job_power_mean_kw": m.JobPowerMean / 1e3,
		"power_peak_hours_kw": nil, "power_offpeak_hours_kw": nil, "job_power_peak_hours_kw": nil, "job_power_offpeak_hours_kw": nil,
	}
	if m.HasSaving {
		out["saving"], out["saving_pct"] = m.Saving, m.SavingPct
		out["job_saving"], out["job_saving_pct"] = m.JobSaving, m.JobSavingPct
	}
	for k, v := range provenance(r) {
		out[k] = v
	}
	if m.HasInversePairs {
		out["inverse_pairs"] = m.InversePairs
	}
	if m.Budget > 0 {
		out["budget_kw"] = m.Budget / 1e3
	}
	if m.HasPeak {
		out["power_peak_hours_kw"], out["power_offpeak_hours_kw"] = m.PowerPeak/1e3, m.PowerOffPeak/1e3
		out["job_power_peak_hours_kw"], out["job_power_offpeak_hours_kw"] = m.JobPowerPeak/1e3, m.JobPowerOffPeak/1e3
	}
	for i, name := range m.Components {
		out["energy_"+name+"_mwh"] = m.EnergyBy[i] / 3.6e9
		out["cost_"+name] = m.CostBy[i]
	}
	if len(m.Levels) > 0 {
		out["energy_levels_mwh"] = m.LevelEnergy() / 3.6e9
		out["cost_levels"] = m.Part("levels", true)
		sv, all := m.LevelSaving()
		out["level_saving_mwh"], out["level_saving_pct"] = sv/3.6e9, 100*sv/all
		for _, l := range m.Levels {
			out["levels_on_mean_"+l.Name] = l.OnMean
			out["level_changes_"+l.Name] = l.Changes
			out["level_switches_"+l.Name] = l.Switches
			out["level_all_on_"+l.Name+"_mwh"] = l.AllOn / 3.6e9
			if len(l.Components) > 1 {
				for _, c := range l.Components {
					out["level_saving_"+c.Name+"_mwh"] = (c.AllOn - c.Energy) / 3.6e9
				}
			}
		}
	}
	for _, p := range m.PStates {
		f := pwrt.PStateKey(p.Freq) + "mhz"
		out["energy_pstate_"+f+"_mwh"] = p.Energy / 3.6e9
		out["node_hours_pstate_"+f] = p.NodeSeconds / 3600
	}
	moreJSON(&m, out)
	for _, p := range m.Periods {
		out["energy_"+p.Name+"_period_mwh"] = p.Energy / 3.6e9
		out["cost_"+p.Name+"_period"] = p.Cost
	}
	return out
}

type jsonRun struct {
	Experiment string            `json:"experiment"`
	Run        string            `json:"run"`
	Params     map[string]string `json:"params"`
	Metrics    map[string]any    `json:"metrics,omitempty"`
	Workload   map[string]any    `json:"workload,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
	Error      string            `json:"error,omitempty"`
}

func renderJSON(w io.Writer, results []*pwrt.Result) error {
	out := make([]jsonRun, 0, len(results))
	for _, r := range results {
		j := jsonRun{Experiment: r.Run.Experiment, Run: r.Run.Name, Params: map[string]string{}, Notes: r.Notes}
		for _, p := range r.Run.Params {
			j.Params[p.Name] = p.Value
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		} else {
			j.Metrics = metricsMap(r)
			c := r.Workload.Clean
			j.Workload = map[string]any{
				"name": r.Workload.Name, "records": r.Workload.Records, "jobs": c.Jobs, "nodes": r.Workload.Nodes,
				"dropped_runtime": c.DroppedRuntime, "dropped_procs": c.DroppedProcs, "dropped_submit": c.DroppedSubmit,
				"dropped_wide": c.DroppedWide, "runtime_capped": c.RuntimeCapped, "walltime_from_runtime": c.WalltimeFromRuntime,
				"procs_from_requested": c.ProcsFromRequested, "bad_lines": r.Workload.BadLines,
			}
			if k := r.Workload.Sacct; k != nil {
				j.Workload["sacct"] = map[string]any{"lines": k.Lines, "steps_folded": k.StepLines, "het_folded": k.HetFolded,
					"orphan_steps": k.OrphanSteps, "dropped_pending": k.DroppedPending + k.DroppedPendingArray,
					"dropped_not_started": k.DroppedNotStarted, "dropped_unfinished": k.DroppedUnfinished,
					"measured_power": k.Measured, "energy_not_used": k.EnergyShared + k.EnergyUnverified + k.EnergyImplausible,
					"energy_none": k.EnergyNone}
			}
			if n := r.Workload.Names; n != nil {
				j.Workload["names"] = namesJSON(n)
			}
			if k := r.Workload.Cut; k.Dropped() > 0 {
				j.Workload["cut_keep"], j.Workload["cut_submitted"] = k.Keep, k.Submitted
				j.Workload["jobs_simulated"] = c.Jobs - k.Dropped()
			}
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// renderCSV writes one row per run with the same keys as JSON.
func renderCSV(w io.Writer, p *pwrt.Plan, results []*pwrt.Result) error {
	var dims []string
	seen := map[string]bool{}
	for _, e := range p.Experiments {
		for _, d := range e.Dims {
			if !seen[d] {
				seen[d] = true
				dims = append(dims, d)
			}
		}
	}
	// The columns are the union of every run's keys, sorted: runs differ
	// (a base/peak contract has peak and base periods, a flat one a flat
	// period), and a run without a key gets an empty cell.
	var keys []string
	seenKey := map[string]bool{}
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		for k := range metricsMap(r) {
			if !seenKey[k] {
				seenKey[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	// A swept param named like another column (a param `nodes` beside the
	// metric nodes) is written as param_NAME: one name, one column.
	taken := map[string]bool{"experiment": true, "run": true, "error": true}
	for _, k := range keys {
		taken[k] = true
	}
	dimCols := make([]string, len(dims))
	for i, d := range dims {
		dimCols[i] = d
		if taken[d] || strings.HasPrefix(d, "param_") {
			dimCols[i] = "param_" + d
		}
	}
	cw := csv.NewWriter(w)
	header := append(append([]string{"experiment", "run"}, dimCols...), keys...)
	header = append(header, "error")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range results {
		row := []string{r.Run.Experiment, r.Run.Name}
		params := map[string]string{}
		for _, p := range r.Run.Params {
			params[p.Name] = p.Value
		}
		for _, d := range dims {
			row = append(row, params[d])
		}
		mm := map[string]any{}
		if r.Err == nil {
			mm = metricsMap(r)
		}
		for _, k := range keys {
			row = append(row, csvValue(mm[k]))
		}
		errText := ""
		if r.Err != nil {
			errText = r.Err.Error()
		}
		row = append(row, errText)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case int:
		return strconv.Itoa(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// jobsCSVHeader names the columns of a --jobs file.
const jobsCSVHeader = "id,submit,start,end,nodes,procs,walltime,wait,power_w,alloc,user,group,queue,partition,account,qos,node_list,pstate,freq_hz\n"

// writeJobsCSV writes per-job records: times in seconds on the trace's
// clock; user, group, queue and partition as the trace's numbers, empty
// where it has -1 (unknown), or, for Slurm accounting (names not nil),
// user, group, partition, account and QOS as the trace's names, empty
// where it has none (and no queue); the nodes a job held as ranges
// ("0-15,32", quoted), its pstate (0: the highest) and frequency (empty
// without pstates).
func writeJobsCSV(b *bytes.Buffer, jobs []pwrt.JobRecord, names *workload.Names) {
	b.WriteString(jobsCSVHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	known := func(v int) string {
		if v == -1 {
			return ""
		}
		return strconv.Itoa(v)
	}
	name := func(field workload.NameField, id int) string { return csvCell(names.Name(field, id)) }
	freq := func(hz float64) string {
		if hz == 0 {
			return ""
		}
		return f(hz)
	}
	for _, j := range jobs {
		b.WriteString(strconv.FormatInt(j.ID, 10))
		user, group, queue, part, account, qos := known(j.User), known(j.Group), known(j.Queue), known(j.Partition), "", ""
		if names != nil {
			user, group, queue, part = name(workload.NameUser, j.User), name(workload.NameGroup, j.Group), "", name(workload.NamePartition, j.Partition)
			account, qos = name(workload.NameAccount, j.Account), name(workload.NameQOS, j.QOS)
		}
		for _, s := range []string{f(j.Submit), f(j.Start), f(j.End), strconv.Itoa(j.Nodes), strconv.Itoa(j.Procs), f(j.Walltime),
			f(j.Start - j.Submit), f(j.Power), strconv.Itoa(j.Alloc), user, group, queue, part, account, qos,
			csvCell(j.NodeList), strconv.Itoa(j.PState), freq(j.Freq)} {
			b.WriteByte(',')
			b.WriteString(s)
		}
		b.WriteByte('\n')
	}
}

// csvCell quotes a CSV cell that needs it (RFC 4180): one holding a comma,
// a quote or a line break.
func csvCell(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// namesJSON is a Slurm trace's names as JSON gives them: by field, each
// list in the order the trace numbers them (its jobs' first appearance).
func namesJSON(n *workload.Names) map[string][]string {
	out := map[string][]string{}
	for f, key := range workload.NameFieldKeys {
		out[key] = append([]string{}, n[f]...)
	}
	return out
}

// pstateCoreShare is the share of core-time, %, at the pstate of mhz MHz,
// if the run's machine has it.
func pstateCoreShare(m *pwrt.Metrics, mhz string) (float64, bool) {
	for i, p := range m.PStates {
		if pwrt.PStateKey(p.Freq) == mhz && i < len(m.PStateCoreShare) {
			return 100 * m.PStateCoreShare[i], true
		}
	}
	return 0, false
}

// provenance says over which window a run was accounted — its own span
// (first submission to last end), an experiment's `account` window or its
// `measure` window — in trace seconds and local time, and which run its
// saving was computed against (null without a baseline, the run's own
// name for a baseline).
func provenance(r *pwrt.Result) map[string]any {
	m := r.Metrics
	out := map[string]any{"saving_against": nil}
	if m.Jobs == 0 {
		return out
	}
	kind := "run"
	switch {
	case m.Measured:
		kind = "measure"
	case m.Windowed:
		kind = "account"
	}
	out["accounted_over"] = kind
	out["accounted_from_s"], out["accounted_to_s"] = m.AccountFrom, m.AccountTo
	out["accounted_from"], out["accounted_to"] = m.AccountFromLocal, m.AccountToLocal
	switch {
	case m.SavingAgainst != "":
		out["saving_against"] = m.SavingAgainst
	case m.HasSaving:
		out["saving_against"] = r.Run.Name
	}
	return out
}
