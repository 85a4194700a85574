package main

import (
	"slices"
	"strconv"
	"strings"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// The columns and JSON keys of Lawson & Smirni's figures: their bounded
// slowdown and SLA-violation shares (every run), and what a capacity
// controller did (runs with `active`; "–" and absent from JSON otherwise).

func active(f func(a *pwrt.ActiveStat) float64) func(m *pwrt.Metrics) (float64, bool) {
	return func(m *pwrt.Metrics) (float64, bool) {
		if m.Active == nil {
			return 0, false
		}
		return f(m.Active), true
	}
}

func online(f func(a *pwrt.ActiveStat) float64) func(m *pwrt.Metrics) (float64, bool) {
	return func(m *pwrt.Metrics) (float64, bool) {
		if m.Active == nil || m.Active.Kind != pwrt.ActiveOnline {
			return 0, false
		}
		return f(m.Active), true
	}
}

func always(f func(m *pwrt.Metrics) float64) func(m *pwrt.Metrics) (float64, bool) {
	return func(m *pwrt.Metrics) (float64, bool) { return f(m), true }
}

func init() {
	for k, v := range map[string]moreMetric{
		"bsld_lawson":     {2, always(func(m *pwrt.Metrics) float64 { return m.BsldLawson })},
		"sla_violations":  {2, always(func(m *pwrt.Metrics) float64 { return 100 * m.SLAViolations.Share })},
		"active_util":     {1, active(func(a *pwrt.ActiveStat) float64 { return 100 * a.Util })},
		"proc_savings":    {1, active(func(a *pwrt.ActiveStat) float64 { return 100 * a.Savings })},
		"node_hours_off":  {0, active(func(a *pwrt.ActiveStat) float64 { return a.NodeHoursOff })},
		"active_mean":     {1, active(func(a *pwrt.ActiveStat) float64 { return a.Mean })},
		"active_min":      {0, active(func(a *pwrt.ActiveStat) float64 { return float64(a.Min) })},
		"active_max":      {0, active(func(a *pwrt.ActiveStat) float64 { return float64(a.Max) })},
		"active_changes":  {0, active(func(a *pwrt.ActiveStat) float64 { return float64(a.Changes) })},
		"ols_decisions":   {0, online(func(a *pwrt.ActiveStat) float64 { return float64(a.Decisions) })},
		"ols_simulations": {0, online(func(a *pwrt.ActiveStat) float64 { return float64(a.Simulations) })},
	} {
		moreMetrics[k] = v
	}
}

// lawsonJSON adds the keys of these figures a run has.
func lawsonJSON(m *pwrt.Metrics, out map[string]any) {
	if m.Jobs == 0 {
		return
	}
	v := m.SLAViolations
	out["bsld_lawson_mean"], out["sla"] = m.BsldLawson, v.SLA
	out["sla_violations_share"] = v.Share
	for _, v := range m.SLAViolationsAt {
		out["sla_violations_share_"+strconv.FormatFloat(v.SLA, 'g', -1, 64)] = v.Share
	}
	a := m.Active
	if a == nil {
		return
	}
	out["active_kind"] = pwrt.ActiveKindNames[a.Kind]
	out["active_util"], out["proc_savings"], out["node_hours_off"] = a.Util, a.Savings, a.NodeHoursOff
	out["active_mean"], out["active_min"], out["active_max"], out["active_changes"] = a.Mean, a.Min, a.Max, a.Changes
	if a.Kind == pwrt.ActiveOnline {
		out["ols_decisions"], out["ols_simulations"] = a.Decisions, a.Simulations
	}
}

// lawsonFromMap reads back what lawsonJSON writes.
func lawsonFromMap(mm map[string]any, m *pwrt.Metrics) {
	g := jsonMap(mm).get
	m.BsldLawson = g("bsld_lawson_mean")
	m.SLAViolations = pwrt.SLAShares{SLA: g("sla"), Share: g("sla_violations_share")}
	var bounds []float64
	for k := range mm {
		if b, ok := strings.CutPrefix(k, "sla_violations_share_"); ok {
			if v, err := strconv.ParseFloat(b, 64); err == nil {
				bounds = append(bounds, v)
			}
		}
	}
	slices.Sort(bounds)
	for _, b := range bounds {
		m.SLAViolationsAt = append(m.SLAViolationsAt, pwrt.SLAShares{SLA: b, Share: g("sla_violations_share_" + strconv.FormatFloat(b, 'g', -1, 64))})
	}
	kind, ok := mm["active_kind"].(string)
	if !ok {
		return
	}
	a := &pwrt.ActiveStat{Kind: pwrt.ActiveKind(slices.Index(pwrt.ActiveKindNames[:], kind)), Util: g("active_util"), Savings: g("proc_savings"),
		NodeHoursOff: g("node_hours_off"), Mean: g("active_mean"), Min: int(g("active_min")), Max: int(g("active_max")), Changes: int(g("active_changes")),
		Decisions: int(g("ols_decisions")), Simulations: int(g("ols_simulations"))}
	m.Active = a
}
