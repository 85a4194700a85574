package runtime

import (
	"strconv"
	"strings"
)

// ReportColumn is one column a `report` statement can ask for: the
// catalogue of them (ReportCatalog) is what the compiler checks `report`
// against, what the tables take their headers from and what `pwrc
// metrics` and the README list, so that none of them drifts from the
// others.
type ReportColumn struct {
	// Name is the metric as `report` lists it (wait, energy, racks); Arg
	// the statistic or part it takes in parentheses for this column
	// (q50, busy), "" for none, or ArgLevel for a level's name.
	Name, Arg string
	// Aliases are other spellings of Arg (q2 and median for q50).
	Aliases []string
	// Default marks the column Name gives without parentheses.
	Default bool
	// Key is the column's key in Experiment.Report (wait_q50); a level
	// metric's key is followed by ":" and the level (levels_on:rack).
	Key string
	// Header is the table header, its second line after "\n": in it
	// {money} stands for the table's currency unit (€ or k€) and {levels}
	// for the level's name in the plural ("Racks"; "Levels" for the
	// lowest level).
	Header string
	// Unit is the unit of the column's values, "" for a count.
	Unit string
	// JSON is the key of the same figure in --format json and csv ("" for
	// none; L stands for the level).
	JSON string
	// Doc defines it.
	Doc string
}

// ArgLevel is the Arg of a metric that takes a level's name.
const ArgLevel = "LEVEL"

// ArgBound is the Arg of a metric that takes a number, a bound it counts
// against (`sla_violations(100)`); its keys are NAME:BOUND.
const ArgBound = "S"

// ArgPState is the Arg of a metric that takes a pstate's frequency
// (`freq(2.0 GHz)`); its key is followed by ":" and the frequency in MHz
// (freq:2000).
const ArgPState = "PSTATE"

// ReportCatalog lists every column `report` can ask for, metric by metric
// in the order `pwrc check` names them, each metric's parenthesised
// arguments in their order.
var ReportCatalog = func() []ReportColumn {
	c := []ReportColumn{
		{Name: "run_days", Key: "run_days", Header: "Run\ndays", Unit: "d", JSON: "run_days",
			Doc: "the schedule's span, from the first submission to the last job end"},
		{Name: "utilization", Key: "utilization", Header: "Util\n%", Unit: "%", JSON: "utilization",
			Doc: "node time allocated to jobs over node time available (nodes × accounted span); a fraction in JSON"},
	}
	c = append(c, parts("energy", "MWh", "energy_%s_mwh")...)
	c = append(c, parts("cost", "{money}", "cost_%s")...)
	c = append(c,
		ReportColumn{Name: "saving", Key: "saving", Header: "Saving\n{money}", Unit: "currency", JSON: "saving",
			Doc: "the baseline run's cost minus this run's; – without a baseline"},
		ReportColumn{Name: "saving_pct", Key: "saving_pct", Header: "Saving\n%", Unit: "%", JSON: "saving_pct",
			Doc: "saving as a share of the baseline run's cost"},
		ReportColumn{Name: "bsld", Arg: "mean", Default: true, Key: "bsld", Header: "Mean\nbsld", JSON: "bsld_mean",
			Doc: "mean bounded slowdown, max(1, (wait + run) / max(10 s, run)), run being the time the job ran (end − start: its run time at its pstate, or until a powercap killed it)"},
		ReportColumn{Name: "bsld", Arg: "lawson", Key: "bsld_lawson", Header: "Mean s\nLawson", JSON: "bsld_lawson_mean",
			Doc: "mean of Lawson & Smirni's bounded slowdown, 1 + wait / max(10 s, run), run as for bsld; differs from bsld only for jobs that ran less than 10 s"},
		ReportColumn{Name: "turnaround", Key: "turnaround", Header: "Turnaround\nh", Unit: "h", JSON: "turnaround_mean_h",
			Doc: "mean turnaround (response time), end − submit: the wait plus the time the job ran"},
		ReportColumn{Name: "jobs", Key: "jobs", Header: "Jobs", JSON: "jobs",
			Doc: "jobs simulated"},
		ReportColumn{Name: "dropped", Key: "dropped", Header: "Dropped", JSON: "jobs_dropped",
			Doc: "trace records the cleaning rules dropped"},
	)
	for _, w := range []struct{ arg, label, doc string }{
		{"mean", "mean", "mean wait (start − submit)"}, {"q25", "Q1", "first quartile of the waits"}, {"q50", "Q2", "median wait"},
		{"q75", "Q3", "third quartile of the waits"}, {"q90", "q90", "90th percentile of the waits"},
		{"q99", "q99", "99th percentile of the waits"}, {"max", "max", "longest wait"},
	} {
		doc := w.doc
		if w.arg != "mean" && w.arg != "max" {
			doc += ", interpolated linearly between jobs"
		}
		col := ReportColumn{Name: "wait", Arg: w.arg, Key: "wait_" + w.arg, Header: "Wait " + w.label + "\nmin", Unit: "min",
			JSON: "wait_" + w.arg + "_s", Doc: doc + "; the table shows days, marked d, from one day on, JSON seconds"}
		switch w.arg {
		case "q25":
			col.Aliases = []string{"q1"}
		case "q50":
			col.Aliases, col.Default = []string{"q2", "median"}, true
		case "q75":
			col.Aliases = []string{"q3"}
		}
		c = append(c, col)
	}
	c = append(c,
		ReportColumn{Name: "work", Key: "work", Header: "Work\nnode-h", Unit: "node-h", JSON: "work_node_hours",
			Doc: "node-hours the jobs asked for"},
		ReportColumn{Name: "inverse_pairs", Key: "inverse_pairs", Header: "Inverse\npairs", JSON: "inverse_pairs",
			Doc: "pairs of jobs started in the opposite order in the baseline run (ties not counted); – without a baseline"},
		ReportColumn{Name: "budget", Key: "budget", Header: "Budget\nkW", Unit: "kW", JSON: "budget_kw",
			Doc: "the policy's power budget; – without one"},
	)
	for _, p := range []struct{ arg, label, json, doc string }{
		{"mean", "mean", "power_mean_kw", "mean power of everything over the accounted span"},
		{"peak", "on-peak", "power_peak_hours_kw", "mean power inside the contract's peak hours; – without peak hours"},
		{"offpeak", "off-peak", "power_offpeak_hours_kw", "mean power outside the contract's peak hours; – without peak hours"},
		{"max", "max", "power_max_kw", "the highest power drawn at any time"},
	} {
		c = append(c, ReportColumn{Name: "power", Arg: p.arg, Default: p.arg == "mean", Key: "power_" + p.arg,
			Header: "Power\n" + p.label + " kW", Unit: "kW", JSON: p.json, Doc: p.doc})
	}
	for _, p := range []struct{ arg, label, json, doc string }{
		{"mean", "mean", "job_power_mean_kw", "mean power of the nodes allocated to jobs over the accounted span"},
		{"peak", "on-peak", "job_power_peak_hours_kw", "the jobs' mean power inside the contract's peak hours"},
		{"offpeak", "off-peak", "job_power_offpeak_hours_kw", "the jobs' mean power outside the contract's peak hours"},
	} {
		c = append(c, ReportColumn{Name: "job_power", Arg: p.arg, Default: p.arg == "mean", Key: "job_power_" + p.arg,
			Header: "Jobs\n" + p.label + " kW", Unit: "kW", JSON: p.json, Doc: p.doc})
	}
	c = append(c,
		ReportColumn{Name: "job_cost", Key: "job_cost", Header: "Jobs' cost\n{money}", Unit: "currency", JSON: "job_cost",
			Doc: "the cost of the jobs' power only: their nodes, with the idle rest of contiguous allocations (Zhou et al.'s measure)"},
		ReportColumn{Name: "job_saving", Key: "job_saving", Header: "Jobs' saving\n{money}", Unit: "currency", JSON: "job_saving",
			Doc: "the baseline run's jobs' cost minus this run's"},
		ReportColumn{Name: "job_saving_pct", Key: "job_saving_pct", Header: "Jobs' saving\n%", Unit: "%", JSON: "job_saving_pct",
			Doc: "jobs' saving as a share of the baseline run's jobs' cost"},
	)
	for _, l := range []struct{ name, header, unit, json, doc string }{
		{"levels_on", "{levels}\non", "", "levels_on_mean_L", "time-average of the level's instances on (racks on)"},
		{"level_utilization", "{levels}\non %", "%", "", "instances on as a share of the level's instances"},
		{"level_changes", "{levels}\nchanges", "", "level_changes_L", "instants at which the number of instances on changed"},
		{"level_switches", "{levels}\nswitches", "", "level_switches_L", "instances switched on or off"},
	} {
		c = append(c, ReportColumn{Name: l.name, Arg: ArgLevel, Key: l.name, Header: l.header, Unit: l.unit, JSON: l.json,
			Doc: l.doc + "; of the named level, or without a name the machine's lowest"})
	}
	c = append(c,
		ReportColumn{Name: "level_saving", Key: "level_saving", Header: "Level saving\nMWh", Unit: "MWh", JSON: "level_saving_mwh",
			Doc: "level energy avoided against every instance always on, over the accounted span"},
		ReportColumn{Name: "level_saving_pct", Key: "level_saving_pct", Header: "Level saving\n%", Unit: "%", JSON: "level_saving_pct",
			Doc: "level saving as a share of the level energy with every instance always on"},
	)
	for _, r := range []struct{ name, of string }{{"racks", "levels_on"}, {"rack_utilization", "level_utilization"},
		{"rack_changes", "level_changes"}, {"rack_switches", "level_switches"}} {
		c = append(c, ReportColumn{Name: r.name, Key: r.of + ":rack", Header: strings.Replace(find(c, r.of).Header, "{levels}", "Racks", 1),
			Unit: find(c, r.of).Unit, JSON: strings.ReplaceAll(find(c, r.of).JSON, "_L", "_rack"), Doc: r.of + "(rack), Patil & Chaudhary's name"})
	}
	// Georgiou et al.'s figures over a measure window and powercaps, and
	// the bill beyond the energy price (contracts with a power band, a
	// demand charge, an energy budget, carbon intensity).
	for _, m := range []ReportColumn{
		{Name: "launched", Header: "Launched\njobs", JSON: "launched",
			Doc: "jobs started inside the measure window; – without `measure`"},
		{Name: "cpu_time", Header: "CPU time\ncore-h", Unit: "core-h", JSON: "cpu_time_core_hours",
			Doc: "core-hours allocated to jobs inside the measure window (Georgiou et al.'s work; a lower pstate stretches it)"},
		{Name: "cpu_time_pct", Header: "CPU time\n%", Unit: "%", JSON: "cpu_time_pct",
			Doc: "CPU time as a share of the machine's cores × the measure window"},
		{Name: "useful_work", Header: "Useful work\ncore-h", Unit: "core-h", JSON: "useful_work_core_hours",
			Doc: "CPU time divided by each job's s(f): the work at full speed"},
		{Name: "energy_pct", Header: "Energy\n% of P_full", Unit: "%", JSON: "energy_pct",
			Doc: "energy over the measure window as a share of P_full × the window"},
		{Name: "cap_excess", Header: "Over cap\ns", Unit: "s", JSON: "cap_excess_s",
			Doc: "time the power was above the powercap in force; – without powercaps"},
		{Name: "killed", Header: "Killed\njobs", JSON: "killed",
			Doc: "jobs killed when a powercap started (running kill); – without powercaps"},
		{Name: "deferred_jobs", Header: "Deferred\njobs", JSON: "deferred_jobs",
			Doc: "price-aware starts (`defer`): jobs that some decision told to start later than they could; – without `defer`"},
		{Name: "deferral_hours", Header: "Deferral\nh", Unit: "h", JSON: "deferral_hours",
			Doc: "hours those jobs waited under a pending deferral (from the decision to the job's next decision, its start, or the pass that found it no longer fits), summed; under `then commit` Σ chosen start − decision time; – without `defer`"},
		{Name: "deadline_starts", Header: "Deadline\nstarts", JSON: "deadline_starts",
			Doc: "jobs the defer stage started because they had waited its deadline (at that instant); – without `defer`"},
		{Name: "freq", Arg: ArgPState, Header: "{pstate}\ncore-time %", Unit: "%", JSON: "freq_core_share_Fmhz",
			Doc: "share of the jobs' core-time (cores × time, over the accounted span: the measure window with `measure`) spent at the pstate; `freq` alone gives a column per pstate of the experiment's machines; a fraction in JSON (F the frequency in MHz); – for a machine without that pstate"},
		{Name: "nodes_off", Header: "Nodes off\nmean", JSON: "nodes_off_mean",
			Doc: "time-average of the nodes switched off over the accounted span"},
		{Name: "boots", Header: "Boots", JSON: "boots",
			Doc: "nodes switched on over the accounted span: every node that left off, to boot or (without a boot time) straight to a job; – where the policy never switches nodes off"},
		{Name: "boots_per_node_day", Arg: "mean", Default: true, Key: "boots_per_node_day", Header: "Boots per\nnode-day", JSON: "boots_per_node_day_mean",
			Doc: "boots per node and day of the accounted span, the mean over the nodes (boots / nodes / days)"},
		{Name: "boots_per_node_day", Arg: "max", Key: "boots_per_node_day_max", Header: "Boots per day\nbusiest node", JSON: "boots_per_node_day_max",
			Doc: "boots per day of the node switched on most over the accounted span"},
		{Name: "bonus", Header: "Bonus\nkW", Unit: "kW", JSON: "bonus_kw",
			Doc: "mean level power saved against every level instance on; – without levels"},
		{Name: "band_violations", Header: "Band\nviolations", JSON: "band_violations",
			Doc: "metered intervals out of the contract's power band (the facility's or, `of jobs`, the jobs' mean); – without a band"},
		{Name: "band_hours_out", Header: "Band out\nh", Unit: "h", JSON: "band_hours_out",
			Doc: "time covered by metered intervals out of the band"},
		{Name: "band_max_over", Header: "Band over\nmax kW", Unit: "kW", JSON: "band_max_over_kw",
			Doc: "the most a metered mean went above the band"},
		{Name: "band_max_under", Header: "Band under\nmax kW", Unit: "kW", JSON: "band_max_under_kw",
			Doc: "the most a metered mean went below the band"},
		{Name: "band_penalty", Header: "Band penalty\n{money}", Unit: "currency", JSON: "band_penalty",
			Doc: "the band's penalties, included in the cost"},
		{Name: "peak_metered", Header: "Peak metered\nkW", Unit: "kW", JSON: "peak_metered_kw",
			Doc: "the facility's highest metered mean power; – for a contract without a band, demand charge or energy budget"},
		{Name: "utilization_hours", Header: "Utilization\nhours", Unit: "h", JSON: "utilization_hours",
			Doc: "energy over the facility's highest metered mean (the yearly-energy-over-peak rule)"},
		{Name: "demand_charge", Header: "Demand charge\n{money}", Unit: "currency", JSON: "demand_charge",
			Doc: "the demand charge on the facility's metered peak of each period, pro rata of the period the run covers; included in the cost"},
		{Name: "energy_overrun", Header: "Overrun\nMWh", Unit: "MWh", JSON: "energy_overrun_mwh",
			Doc: "energy above the contract's energy budget"},
		{Name: "overrun_cost", Header: "Overrun\n{money}", Unit: "currency", JSON: "overrun_cost",
			Doc: "the overrun's price, included in the cost"},
		{Name: "co2", Header: "CO2\nt", Unit: "t", JSON: "co2_t",
			Doc: "carbon emitted: ∫ intensity × power dt; – for a contract without carbon intensity"},
		// Kunkel et al.'s theory of the run (kunkel.md §1.7, §4.4).
		{Name: "mean_price", Header: "Mean price\nper kWh", Unit: "currency/kWh", JSON: "mean_price",
			Doc: "the contract's time-average price over the clock hours of the accounted span"},
		{Name: "oracle", Arg: "best", Default: true, Key: "oracle_best", Header: "Best price\nper kWh", Unit: "currency/kWh", JSON: "oracle_best_price",
			Doc: "Listing 1: the mean of the ⌊H·U⌋ cheapest hours, where the run's work would go at full utilization"},
		{Name: "oracle", Arg: "worst", Key: "oracle_worst", Header: "Worst price\nper kWh", Unit: "currency/kWh", JSON: "oracle_worst_price",
			Doc: "Listing 1: the mean of the other hours"},
		{Name: "theory_energy", Arg: "infra", Default: true, Key: "theory_energy_infra", Header: "E infra\nMWh", Unit: "MWh", JSON: "theory_energy_infra_mwh",
			Doc: "Table 4: the infrastructure's energy over the accounted span"},
		{Name: "theory_energy", Arg: "idle", Key: "theory_energy_idle", Header: "E idle\nMWh", Unit: "MWh", JSON: "theory_energy_idle_mwh",
			Doc: "Table 4: every node idle over the span (nodes × idle power × span)"},
		{Name: "theory_energy", Arg: "job", Key: "theory_energy_job", Header: "E job\nMWh", Unit: "MWh", JSON: "theory_energy_job_mwh",
			Doc: "Table 4: the jobs' energy above idle (busy nodes' energy − busy node-time × idle power)"},
		{Name: "theory_shutdown_saving", Header: "Shutdown saving\n{money}", Unit: "currency", JSON: "theory_shutdown_saving",
			Doc: "Eq. 4: (1 − U) × the energy of every node idle over the span, at the mean price"},
		{Name: "theory_infra_saving", Header: "Infra saving\n{money}", Unit: "currency", JSON: "theory_infra_saving",
			Doc: "(1 − U) × the infrastructure's energy, at the mean price"},
		{Name: "oracle_cost_all", Header: "Oracle all\n{money}", Unit: "currency", JSON: "oracle_cost_all",
			Doc: "Eq. 5–6: (U·(E_infra + E_idle) + E_job) × BestPrice: work packed into the cheapest hours, nodes and infrastructure off otherwise"},
		{Name: "oracle_cost_client", Header: "Oracle client\n{money}", Unit: "currency", JSON: "oracle_cost_client",
			Doc: "Eq. 7: the same with the infrastructure on all the time, (1 − U)·E_infra at WorstPrice"},
		{Name: "tco", Arg: "current", Default: true, Key: "tco_current", Header: "TCO per year\n{money}", Unit: "currency", JSON: "tco_current",
			Doc: "Table 15 (a): the machine's costs per year (system / lifetime + annual) plus Table 3's baseline energy cost (every node on, at the mean price) over the run's span, which is not scaled to a year (as in the paper: replay a year); – without machine `costs`"},
		{Name: "tco", Arg: "optimal_energy", Key: "tco_optimal_energy", Header: "TCO opt. energy\n{money}", Unit: "currency", JSON: "tco_optimal_energy",
			Doc: "Table 15 (b): the same with the oracle's energy cost"},
		{Name: "tco", Arg: "procurement", Key: "tco_procurement", Header: "TCO procurement\n{money}", Unit: "currency", JSON: "tco_procurement",
			Doc: "Table 15 (c): the system bought at U of its size (annual costs unchanged), running (b)'s energy at the mean price"},
	} {
		if m.Key == "" {
			m.Key = m.Name
		}
		c = append(c, m)
	}
	return c
}()

// parts are the columns of energy(...) or cost(...): the total and each
// part of the machine.
func parts(name, unit, json string) []ReportColumn {
	header := map[string]string{"energy": "Energy", "cost": "Cost"}[name]
	totalJSON := map[string]string{"energy": "energy_mwh", "cost": "cost"}[name]
	doc := map[string]string{"energy": "energy drawn over the accounted span", "cost": "the cost of the energy drawn, at the contract's prices"}[name]
	partDoc := map[string]string{"energy": "energy drawn by %s", "cost": "the cost of the energy drawn by %s"}[name]
	out := []ReportColumn{{Name: name, Arg: "total", Default: true, Key: name, Header: header + "\n" + unit, Unit: docUnit(unit),
		JSON: totalJSON, Doc: doc}}
	for _, p := range []struct{ part, doc string }{
		{"busy", "nodes allocated to jobs"}, {"idle", "idle nodes"}, {"off", "nodes switched off"},
		{"boot", "nodes booting"}, {"shutdown", "nodes shutting down"},
		{"levels", "every level component (racks, chassis…)"}, {"infrastructure", "the machine's infrastructure"},
	} {
		h := strings.ToUpper(p.part[:1]) + p.part[1:]
		if name == "energy" {
			h += " energy"
		}
		col := ReportColumn{Name: name, Arg: p.part, Key: name + "_" + p.part, Header: h + "\n" + unit, Unit: docUnit(unit),
			JSON: strings.Replace(json, "%s", p.part, 1), Doc: strings.Replace(partDoc, "%s", p.doc, 1)}
		if p.part == "levels" {
			col.JSON = map[string]string{"energy": "energy_levels_mwh", "cost": "cost_levels"}[name]
			col.Doc += "; – without levels"
		}
		out = append(out, col)
	}
	return out
}

func docUnit(unit string) string {
	if unit == "{money}" {
		return "currency"
	}
	return unit
}

func find(c []ReportColumn, name string) ReportColumn {
	for _, x := range c {
		if x.Name == name {
			return x
		}
	}
	return ReportColumn{}
}

// ReportColumnOf is the catalogue's column for a key of Experiment.Report
// and, for a level metric (levels_on:rack), the level named ("" for the
// lowest), or for a metric with a bound (sla_violations:100) the bound.
func ReportColumnOf(key string) (col ReportColumn, arg string, ok bool) {
	metric, arg, hasArg := strings.Cut(key, ":")
	for _, c := range ReportCatalog {
		if c.Key == metric && (c.Arg == ArgLevel || c.Arg == ArgBound || c.Arg == ArgPState) == hasArg {
			return c, arg, true
		}
	}
	return ReportColumn{}, "", false
}

// HeaderFor is a column's header in a table whose money is shown in
// money (€, k€); level is the level a level metric describes, the bound
// of a metric that takes one, or the frequency in MHz a pstate metric
// describes.
func (c ReportColumn) HeaderFor(money, level string) string {
	switch c.Arg {
	case ArgBound:
		if level == "" {
			level = ArgBound // the listing of metrics: `SLA viol. > S %`
		}
		return strings.NewReplacer("{money}", money, "{bound}", level).Replace(c.Header)
	case ArgPState:
		return strings.NewReplacer("{money}", money, "{pstate}", PStateLabel(level)).Replace(c.Header)
	}
	name := level
	if name == "" {
		name = "level"
	}
	if !strings.HasSuffix(name, "s") {
		name += "s" // racks on, chassis on
	}
	name = strings.ToUpper(name[:1]) + name[1:]
	return strings.NewReplacer("{money}", money, "{levels}", name).Replace(c.Header)
}

// PStateLabel writes a frequency in MHz (a pstate metric's key) as a
// scenario does: "2000" is 2 GHz; "PSTATE" for none.
func PStateLabel(mhz string) string {
	f, err := strconv.ParseFloat(mhz, 64)
	if err != nil || mhz == "" {
		return "PSTATE"
	}
	return FreqLabel(f * 1e6)
}

// FreqLabel writes a frequency in Hz as a scenario does: 2.7 GHz, 800 MHz.
func FreqLabel(hz float64) string {
	for _, u := range []struct {
		scale float64
		name  string
	}{{1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"}} {
		if hz >= u.scale {
			return strconv.FormatFloat(hz/u.scale, 'g', 6, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(hz, 'g', 6, 64) + " Hz"
}

// PStateKey is a frequency in Hz as a pstate metric's key gives it: MHz.
func PStateKey(hz float64) string { return strconv.FormatFloat(hz/1e6, 'f', -1, 64) }
