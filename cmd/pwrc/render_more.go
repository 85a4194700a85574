package main

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// The columns and JSON keys of powercaps and measure windows (Georgiou et
// al.) and of the bill beyond the energy price (Kunkel et al.'s contract
// elements). A metric a run does not have shows "–" and is null in JSON.

// moreMetric is one report key: its decimals, and its value if the run has
// it (its header is the catalogue's).
type moreMetric struct {
	decimals int
	get      func(m *pwrt.Metrics) (float64, bool)
}

var moreMetrics = map[string]moreMetric{
	"launched":               {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.Launched), m.Measured }},
	"cpu_time":               {0, func(m *pwrt.Metrics) (float64, bool) { return m.CPUSeconds / 3600, m.Measured }},
	"cpu_time_pct":           {1, func(m *pwrt.Metrics) (float64, bool) { return m.CPUPct, m.Measured }},
	"useful_work":            {0, func(m *pwrt.Metrics) (float64, bool) { return m.UsefulSeconds / 3600, m.Measured }},
	"energy_pct":             {1, func(m *pwrt.Metrics) (float64, bool) { return m.EnergyPct, m.Measured }},
	"cap_excess":             {0, func(m *pwrt.Metrics) (float64, bool) { return m.CapExcessSeconds, m.HasCaps }},
	"killed":                 {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.Killed), m.HasCaps }},
	"deferred_jobs":          {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.DeferredJobs), m.HasDefer }},
	"deferral_hours":         {0, func(m *pwrt.Metrics) (float64, bool) { return m.DeferralHours, m.HasDefer }},
	"deadline_starts":        {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.DeadlineStarts), m.HasDefer }},
	"nodes_off":              {1, func(m *pwrt.Metrics) (float64, bool) { return m.NodesOffMean, true }},
	"boots":                  {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.Boots), m.HasBoots }},
	"boots_per_node_day":     {2, func(m *pwrt.Metrics) (float64, bool) { return m.BootsPerNodeDay, m.HasBoots }},
	"boots_per_node_day_max": {2, func(m *pwrt.Metrics) (float64, bool) { return m.BootsPerNodeDayMax, m.HasBoots }},
	"bonus":                  {2, func(m *pwrt.Metrics) (float64, bool) { return m.BonusW / 1e3, len(m.Levels) > 0 }},
	"band_violations":        {0, func(m *pwrt.Metrics) (float64, bool) { return float64(m.Band.Violations), m.HasBand }},
	"band_hours_out":         {1, func(m *pwrt.Metrics) (float64, bool) { return m.Band.SecondsOut / 3600, m.HasBand }},
	"band_max_over":          {1, func(m *pwrt.Metrics) (float64, bool) { return m.Band.MaxOver / 1e3, m.HasBand }},
	"band_max_under":         {1, func(m *pwrt.Metrics) (float64, bool) { return m.Band.MaxUnder / 1e3, m.HasBand }},
	"peak_metered":           {1, func(m *pwrt.Metrics) (float64, bool) { return m.PeakMeteredW / 1e3, m.HasBill }},
	"utilization_hours":      {0, func(m *pwrt.Metrics) (float64, bool) { return m.UtilizationHours, m.HasBill }},
	"energy_overrun":         {2, func(m *pwrt.Metrics) (float64, bool) { return m.EnergyOverrun / 3.6e9, m.HasBill }},
	"co2":                    {2, func(m *pwrt.Metrics) (float64, bool) { return m.CO2 / 1e6, m.HasCarbon }},
	"turnaround":             {1, func(m *pwrt.Metrics) (float64, bool) { return m.TurnaroundMean / 3600, m.Jobs > 0 }},
	"mean_price":             {4, theory(func(t *pwrt.Theory) float64 { return t.MeanPrice })},
	"oracle_best":            {4, theory(func(t *pwrt.Theory) float64 { return t.Best })},
	"oracle_worst":           {4, theory(func(t *pwrt.Theory) float64 { return t.Worst })},
	"theory_energy_infra":    {2, theory(func(t *pwrt.Theory) float64 { return t.EnergyInfra / 1e3 })},
	"theory_energy_idle":     {2, theory(func(t *pwrt.Theory) float64 { return t.EnergyIdle / 1e3 })},
	"theory_energy_job":      {2, theory(func(t *pwrt.Theory) float64 { return t.EnergyJob / 1e3 })},
}

// theory reads a figure of the run's Theory, if it has one.
func theory(f func(t *pwrt.Theory) float64) func(m *pwrt.Metrics) (float64, bool) {
	return func(m *pwrt.Metrics) (float64, bool) {
		if !m.HasTheory {
			return 0, false
		}
		return f(&m.Theory), true
	}
}

// tco reads a yearly TCO, if the machine has costs.
func tco(f func(t *pwrt.Theory) float64) func(m *pwrt.Metrics) (float64, bool) {
	return func(m *pwrt.Metrics) (float64, bool) {
		if !m.HasTheory || !m.Theory.HasTCO {
			return 0, false
		}
		return f(&m.Theory), true
	}
}

// moreMoney are the bill's charges, in the table's money unit.
var moreMoney = map[string]func(m *pwrt.Metrics) (float64, bool){
	"band_penalty":           func(m *pwrt.Metrics) (float64, bool) { return m.Band.Penalty, m.HasBand },
	"demand_charge":          func(m *pwrt.Metrics) (float64, bool) { return m.DemandCharge, m.HasBill },
	"overrun_cost":           func(m *pwrt.Metrics) (float64, bool) { return m.OverrunCost, m.HasBill },
	"theory_shutdown_saving": theory(func(t *pwrt.Theory) float64 { return t.ShutdownSaving }),
	"theory_infra_saving":    theory(func(t *pwrt.Theory) float64 { return t.InfraSaving }),
	"oracle_cost_all":        theory(func(t *pwrt.Theory) float64 { return t.CostAll }),
	"oracle_cost_client":     theory(func(t *pwrt.Theory) float64 { return t.CostClient }),
	"tco_current":            tco(func(t *pwrt.Theory) float64 { return t.TCOCurrent }),
	"tco_optimal_energy":     tco(func(t *pwrt.Theory) float64 { return t.TCOOptimalEnergy }),
	"tco_procurement":        tco(func(t *pwrt.Theory) float64 { return t.TCOProcurement }),
}

// moreReportNames are the report names moreCell renders.
func moreReportNames() []string {
	var out []string
	for k := range moreMetrics {
		out = append(out, k)
	}
	for k := range moreMoney {
		out = append(out, k)
	}
	return out
}

// moreCell formats the cells of one of these keys (its header is the
// catalogue's).
func moreCell(key string, rs []*pwrt.Result) (func(r *pwrt.Result) string, bool) {
	if mm, ok := moreMetrics[key]; ok {
		return func(r *pwrt.Result) string {
			v, has := mm.get(&r.Metrics)
			if !has {
				return "–"
			}
			return thousands(v, mm.decimals)
		}, true
	}
	if get, ok := moreMoney[key]; ok {
		scale, _ := moneyUnit(rs)
		d := decimalsFor(rs, func(m *pwrt.Metrics) float64 { v, _ := get(m); return v / scale })
		return func(r *pwrt.Result) string {
			v, has := get(&r.Metrics)
			if !has {
				return "–"
			}
			return thousands(v/scale, d)
		}, true
	}
	return nil, false
}

// moreJSON adds the keys of these metrics a run has.
func moreJSON(m *pwrt.Metrics, out map[string]any) {
	lawsonJSON(m, out)
	if m.Measured {
		out["launched"], out["cpu_time_core_hours"], out["useful_work_core_hours"] = m.Launched, m.CPUSeconds/3600, m.UsefulSeconds/3600
		out["cpu_time_pct"], out["energy_pct"] = m.CPUPct, m.EnergyPct
	}
	if m.HasCaps {
		out["cap_excess_s"], out["cap_excess_max_kw"], out["killed"] = m.CapExcessSeconds, m.CapExcessW/1e3, m.Killed
	}
	out["nodes_off_mean"] = m.NodesOffMean
	if m.HasBoots {
		out["boots"], out["boots_per_node_day_mean"], out["boots_per_node_day_max"] = m.Boots, m.BootsPerNodeDay, m.BootsPerNodeDayMax
	}
	if len(m.Levels) > 0 {
		out["bonus_kw"] = m.BonusW / 1e3
	}
	for i, p := range m.PStates {
		if i < len(m.PStateShare) {
			out["freq_share_"+pwrt.PStateKey(p.Freq)+"mhz"] = m.PStateShare[i]
		}
		if i < len(m.PStateCoreShare) {
			out["freq_core_share_"+pwrt.PStateKey(p.Freq)+"mhz"] = m.PStateCoreShare[i]
		}
	}
	if m.HasDefer {
		out["defer_decisions"], out["deferred_jobs"], out["deferral_hours"], out["deadline_starts"] = m.DeferDecisions, m.DeferredJobs, m.DeferralHours, m.DeadlineStarts
	}
	if m.HasBill {
		out["peak_metered_kw"], out["utilization_hours"] = m.PeakMeteredW/1e3, m.UtilizationHours
		out["demand_charge"], out["energy_overrun_mwh"], out["overrun_cost"] = m.DemandCharge, m.EnergyOverrun/3.6e9, m.OverrunCost
	}
	if m.HasBand {
		b := m.Band
		out["band_violations"], out["band_episodes"], out["band_hours_out"] = b.Violations, b.Episodes, b.SecondsOut/3600
		out["band_max_over_kw"], out["band_max_under_kw"], out["band_penalty"] = b.MaxOver/1e3, b.MaxUnder/1e3, b.Penalty
	}
	if m.HasCarbon {
		out["co2_t"] = m.CO2 / 1e6
	}
	if m.Jobs > 0 {
		out["turnaround_mean_h"] = m.TurnaroundMean / 3600
	}
	if m.HasTheory {
		t := &m.Theory
		out["mean_price"], out["oracle_best_price"], out["oracle_worst_price"] = t.MeanPrice, t.Best, t.Worst
		out["theory_shutdown_saving"], out["theory_infra_saving"] = t.ShutdownSaving, t.InfraSaving
		out["oracle_cost_all"], out["oracle_cost_client"] = t.CostAll, t.CostClient
		out["theory_energy_infra_mwh"], out["theory_energy_idle_mwh"], out["theory_energy_job_mwh"] = t.EnergyInfra/1e3, t.EnergyIdle/1e3, t.EnergyJob/1e3
		if t.HasTCO {
			out["tco_current"], out["tco_optimal_energy"], out["tco_procurement"] = t.TCOCurrent, t.TCOOptimalEnergy, t.TCOProcurement
		}
	}
}

// moreFromMap reads back what moreJSON and lawsonJSON write, so that a
// saved run directory's tables show what the run showed
// (TestSavedRunsShowEveryMetric keeps the two in step).
func moreFromMap(mm map[string]any, m *pwrt.Metrics) {
	f, g := jsonMap(mm).num, jsonMap(mm).get
	if _, ok := f("launched"); ok {
		m.Measured, m.Launched = true, int(g("launched"))
		m.CPUSeconds, m.UsefulSeconds = g("cpu_time_core_hours")*3600, g("useful_work_core_hours")*3600
		m.CPUPct, m.EnergyPct = g("cpu_time_pct"), g("energy_pct")
	}
	if _, ok := f("cap_excess_s"); ok {
		m.HasCaps, m.CapExcessSeconds, m.CapExcessW, m.Killed = true, g("cap_excess_s"), g("cap_excess_max_kw")*1e3, int(g("killed"))
	}
	m.NodesOffMean, m.BonusW = g("nodes_off_mean"), g("bonus_kw")*1e3
	if _, ok := f("boots"); ok {
		m.HasBoots, m.Boots = true, int(g("boots"))
		m.BootsPerNodeDay, m.BootsPerNodeDayMax = g("boots_per_node_day_mean"), g("boots_per_node_day_max")
	}
	if _, ok := f("defer_decisions"); ok {
		m.HasDefer, m.DeferDecisions, m.DeferredJobs = true, int(g("defer_decisions")), int(g("deferred_jobs"))
		m.DeferralHours, m.DeadlineStarts = g("deferral_hours"), int(g("deadline_starts"))
	}
	if _, ok := f("peak_metered_kw"); ok {
		m.HasBill, m.PeakMeteredW, m.UtilizationHours = true, g("peak_metered_kw")*1e3, g("utilization_hours")
		m.DemandCharge, m.EnergyOverrun, m.OverrunCost = g("demand_charge"), g("energy_overrun_mwh")*3.6e9, g("overrun_cost")
	}
	if _, ok := f("band_violations"); ok {
		b := &m.Band
		m.HasBand, b.Violations, b.Episodes, b.SecondsOut = true, int(g("band_violations")), int(g("band_episodes")), g("band_hours_out")*3600
		b.MaxOver, b.MaxUnder, b.Penalty = g("band_max_over_kw")*1e3, g("band_max_under_kw")*1e3, g("band_penalty")
	}
	if _, ok := f("co2_t"); ok {
		m.HasCarbon, m.CO2 = true, g("co2_t")*1e6
	}
	m.TurnaroundMean = g("turnaround_mean_h") * 3600
	if _, ok := f("mean_price"); ok {
		t := &m.Theory
		m.HasTheory, t.MeanPrice, t.Best, t.Worst = true, g("mean_price"), g("oracle_best_price"), g("oracle_worst_price")
		t.ShutdownSaving, t.InfraSaving = g("theory_shutdown_saving"), g("theory_infra_saving")
		t.CostAll, t.CostClient = g("oracle_cost_all"), g("oracle_cost_client")
		t.EnergyInfra, t.EnergyIdle, t.EnergyJob = g("theory_energy_infra_mwh")*1e3, g("theory_energy_idle_mwh")*1e3, g("theory_energy_job_mwh")*1e3
		if _, ok := f("tco_current"); ok {
			t.HasTCO, t.TCOCurrent, t.TCOOptimalEnergy, t.TCOProcurement = true, g("tco_current"), g("tco_optimal_energy"), g("tco_procurement")
		}
	}
	// Pstates, highest first, from their energy keys.
	var freqs []float64
	for k := range mm {
		if s, ok := strings.CutPrefix(k, "energy_pstate_"); ok {
			if mhz, err := strconv.ParseFloat(strings.TrimSuffix(s, "mhz_mwh"), 64); err == nil {
				freqs = append(freqs, mhz*1e6)
			}
		}
	}
	slices.SortFunc(freqs, func(a, b float64) int { return cmp.Compare(b, a) })
	for _, hz := range freqs {
		key := pwrt.PStateKey(hz) + "mhz"
		m.PStates = append(m.PStates, pwrt.PStateStat{Freq: hz, Energy: g("energy_pstate_"+key+"_mwh") * 3.6e9, NodeSeconds: g("node_hours_pstate_"+key) * 3600})
		if v, ok := f("freq_share_" + key); ok {
			m.PStateShare = append(m.PStateShare, v)
		}
		if v, ok := f("freq_core_share_" + key); ok {
			m.PStateCoreShare = append(m.PStateCoreShare, v)
		}
	}
	lawsonFromMap(mm, m)
}
