package main

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter/tw"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// renderTheory writes, after an experiment's table, Kunkel et al.'s theory
// for each of its (workload, contract) pairs (pwrc run --theory): Tables
// 3 and 5–9, and 15 when the machine has costs. The theory of a pair
// follows from one run's utilization and span; as in the paper that is
// the baseline's (BackfillDelay's there), or the pair's first run when the
// experiment has no baseline.
func renderTheory(w io.Writer, markdown bool, p *pwrt.Plan, e *pwrt.Experiment, results []*pwrt.Result) error {
	type pair struct{ workload, contract string }
	var order []pair
	from := map[pair]*pwrt.Result{}
	for _, i := range e.Runs {
		r := results[i]
		k := pair{r.Run.Workload.Name, r.Run.Contract.Name}
		if _, seen := from[k]; !seen {
			order = append(order, k)
			from[k] = r
		}
		// A baseline of another dimension (a contract) prices otherwise.
		if b := r.Run.Baseline; b >= 0 && from[k].Run.Baseline >= 0 && (pair{results[b].Run.Workload.Name, results[b].Run.Contract.Name}) == k {
			from[k] = results[b]
		}
	}
	var rs []*pwrt.Result
	for _, k := range order {
		if r := from[k]; r.Err == nil && r.Metrics.HasTheory {
			rs = append(rs, r)
		}
	}
	title := "theory · experiment " + e.Name
	if markdown {
		fmt.Fprintf(w, "\n### %s\n\n", title)
	} else {
		fmt.Fprintf(w, "\n%s\n", title)
	}
	if len(rs) == 0 {
		fmt.Fprintln(w, "No run of this experiment has a theory: each failed, or accounted no time.")
		return nil
	}
	scale, unit := moneyUnit(rs)
	money := func(f func(t *pwrt.Theory) float64) func(r *pwrt.Result) string {
		d := decimalsFor(rs, func(m *pwrt.Metrics) float64 { return f(&m.Theory) / scale })
		return func(r *pwrt.Result) string { return thousands(f(&r.Metrics.Theory)/scale, d) }
	}
	mwh := func(f func(t *pwrt.Theory) float64) func(r *pwrt.Result) string {
		d := decimalsFor(rs, func(m *pwrt.Metrics) float64 { return f(&m.Theory) / 1e3 })
		return func(r *pwrt.Result) string { return thousands(f(&r.Metrics.Theory)/1e3, d) }
	}
	price := func(f func(t *pwrt.Theory) float64) func(r *pwrt.Result) string {
		return func(r *pwrt.Result) string { return thousands(f(&r.Metrics.Theory), 4) }
	}
	pct := func(save func(t *pwrt.Theory) float64) func(r *pwrt.Result) string {
		return func(r *pwrt.Result) string {
			t := &r.Metrics.Theory
			if t.Baseline == 0 {
				return "–"
			}
			return thousands(100*save(t)/t.Baseline, 1)
		}
	}
	cols := []column{
		{header: "Workload\n", cell: func(r *pwrt.Result) string { return r.Run.Workload.Name }, align: tw.AlignLeft},
		{header: "Contract\n", cell: func(r *pwrt.Result) string { return r.Run.Contract.Name }, align: tw.AlignLeft},
		{header: "U and span\nof run", cell: func(r *pwrt.Result) string { return r.Run.Name }, align: tw.AlignLeft},
		{header: "Hours\n", cell: func(r *pwrt.Result) string { return thousands(float64(r.Metrics.Theory.Hours), 0) }},
		{header: "U\n%", cell: func(r *pwrt.Result) string { return thousands(100*r.Metrics.Theory.U, 1) }},
		{header: "Mean\nper kWh", cell: price(func(t *pwrt.Theory) float64 { return t.MeanPrice })},
		{header: "Best\nper kWh", cell: price(func(t *pwrt.Theory) float64 { return t.Best })},
		{header: "Worst\nper kWh", cell: price(func(t *pwrt.Theory) float64 { return t.Worst })},
		{header: "E infra\nMWh", cell: mwh(func(t *pwrt.Theory) float64 { return t.EnergyInfra })},
		{header: "E idle\nMWh", cell: mwh(func(t *pwrt.Theory) float64 { return t.EnergyIdle })},
		{header: "E job\nMWh", cell: mwh(func(t *pwrt.Theory) float64 { return t.EnergyJob })},
		{header: "Baseline\n" + unit, cell: money(func(t *pwrt.Theory) float64 { return t.Baseline })},
		{header: "Shutdown\nsaving " + unit, cell: money(func(t *pwrt.Theory) float64 { return t.ShutdownSaving })},
		{header: "+ infra\nsaving " + unit, cell: money(func(t *pwrt.Theory) float64 { return t.InfraSaving })},
		{header: "Oracle\nclient " + unit, cell: money(func(t *pwrt.Theory) float64 { return t.CostClient })},
		{header: "Oracle\nall " + unit, cell: money(func(t *pwrt.Theory) float64 { return t.CostAll })},
		{header: "Saving\nclient %", cell: pct(func(t *pwrt.Theory) float64 { return t.Baseline - t.CostClient })},
		{header: "Saving\nall %", cell: pct(func(t *pwrt.Theory) float64 { return t.Baseline - t.CostAll })},
	}
	tco := false
	for _, r := range rs {
		tco = tco || r.Metrics.Theory.HasTCO
	}
	if tco {
		cell := func(f func(t *pwrt.Theory) float64) func(r *pwrt.Result) string {
			c := money(f)
			return func(r *pwrt.Result) string {
				if !r.Metrics.Theory.HasTCO {
					return "–"
				}
				return c(r)
			}
		}
		cols = append(cols,
			column{header: "TCO/y\ncurrent " + unit, cell: cell(func(t *pwrt.Theory) float64 { return t.TCOCurrent })},
			column{header: "TCO/y opt.\nenergy " + unit, cell: cell(func(t *pwrt.Theory) float64 { return t.TCOOptimalEnergy })},
			column{header: "TCO/y opt.\nprocurement " + unit, cell: cell(func(t *pwrt.Theory) float64 { return t.TCOProcurement })})
	}
	if err := writeGrid(w, markdown, cols, rs); err != nil {
		return err
	}
	notes := []string{
		"Kunkel et al.'s theory: the run's utilization U packed into the ⌊H·U⌋ cheapest of the H clock hours its span covers (Listing 1).",
		"Baseline: every node on, all energy at the mean price (Table 3). Shutdown saving: Eq. 4, (1 − U)·E_idle at the mean; + infra: the same for the infrastructure (Table 6).",
		"Oracle all: (U·(E_infra + E_idle) + E_job) at the best price (Eq. 5–6); client: plus (1 − U)·E_infra at the worst (Eq. 7). Savings % are against the baseline.",
	}
	if tco {
		notes = append(notes, "TCO per year (Table 15): system / lifetime + annual costs, plus the baseline's (current), the oracle's (optimal energy), or with U of the system bought, the oracle's energy at the mean price (procurement). The energy cost is the run's span's, not scaled to a year.")
	}
	for _, n := range notes {
		if markdown {
			fmt.Fprintf(w, "\n%s", n)
		} else {
			fmt.Fprintln(w, n)
		}
	}
	if markdown {
		fmt.Fprintln(w)
	}
	return nil
}
