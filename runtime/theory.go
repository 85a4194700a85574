package runtime

import (
	"time"

	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/oracle"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// Theory is Kunkel et al.'s analysis of a run (kunkel.md §1.7, §4.4): the
// run's utilization U packed into the cheapest of the clock hours its span
// covers (Listing 1), the energy of its components as Table 4 splits it,
// what shutdown and infrastructure-off would save at the mean price
// (Eq. 4), and the optimal oracle's costs (Eq. 5–7), in the contract's
// currency; with machine costs, the yearly TCO (Table 15).
type Theory struct {
	Hours       int
	U           float64
	MeanPrice   float64 // currency per kWh, time-average over the hours
	Best, Worst float64 // Listing 1's BestPrice and WorstPrice
	// Energy (kWh) of the infrastructure, every node idle, and the jobs
	// above idle, over the span (Table 4).
	EnergyInfra, EnergyIdle, EnergyJob float64
	Baseline                           float64 // (E_infra + E_idle + E_job) · mean price (Table 3)
	ShutdownSaving, InfraSaving        float64 // Eq. 4 and its infrastructure twin
	CostAll, CostClient                float64 // Eq. 5–6 and Eq. 7
	HasTCO                             bool
	// Per year (Table 15): the system's expenditure plus this energy cost
	// (current), plus the oracle's (optimal energy), and with the system
	// bought at U of its size (optimal procurement).
	TCOCurrent, TCOOptimalEnergy, TCOProcurement float64
}

// theory computes a run's Theory over its accounted span [from, to].
func (r *runRecord) theory(m *Metrics, from, to float64) {
	if !(to > from) || r.nodes == 0 {
		return
	}
	// The clock hours the span covers, each once, at its mean price.
	w := r.clock.Time(from)
	top := r.clock.Sim(time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), 0, 0, 0, w.Location()))
	in := tariff.NewIntegrator(r.tar)
	var prices []float64
	for h := top; h < to; h += 3600 {
		prices = append(prices, in.Mean(h, h+3600))
	}
	u := m.Utilization
	th, err := oracle.Analyze(prices, min(max(u, 0), 1))
	if err != nil {
		return
	}
	span := to - from
	const kWh = 3.6e6
	e := oracle.Energy{
		Infra: r.model.Spec().Infrastructure * span / kWh,
		Idle:  float64(r.nodes) * r.machine.Power.Idle * span / kWh,
		Job:   (m.EnergyBy[machine.Busy] - r.led.BusyNodeSeconds*r.machine.Power.Idle) / kWh,
	}
	t := Theory{Hours: th.Hours, U: th.U, MeanPrice: th.Mean, Best: th.Best, Worst: th.Worst,
		EnergyInfra: e.Infra, EnergyIdle: e.Idle, EnergyJob: e.Job,
		Baseline: th.Baseline(e), ShutdownSaving: th.ShutdownSaving(e), InfraSaving: th.InfraSaving(e),
		CostAll: th.CostAll(e), CostClient: th.CostClient(e)}
	if c := r.machine.Costs; c != nil {
		n := float64(r.nodes)
		o := oracle.Ownership{System: c.System + n*c.SystemPerNode, Lifetime: c.Lifetime / (365 * 86400), Annual: c.Annual + n*c.AnnualPerNode}
		t.HasTCO = true
		t.TCOCurrent, t.TCOOptimalEnergy, t.TCOProcurement = th.YearlyTCO(o, e)
	}
	m.Theory, m.HasTheory = t, true
}
