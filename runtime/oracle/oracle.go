// Package oracle is the theory of Kunkel et al., "Interference of Billing and
// Scheduling Strategies for Energy and Cost Savings in Modern Data Centers"
// (kunkel.md §1.2, §1.7–1.8): what a run would have cost had an oracle known
// every future price and job, and what owning the machine costs. It is the
// yardstick simulated schedulers are measured against, so it stays a pure
// kernel with plain inputs — hourly prices, utilization, powers, hours — and
// no knowledge of the engine.
//
// The oracle (Listing 1, [Analyze]) packs the run's work at 100 %
// utilization into the cheapest ⌊H·U⌋ of its H hourly prices and leaves the
// machine empty for the rest: the mean price of the busy hours is the best
// price, that of the empty hours the worst. It ignores switching delays and
// costs, so its savings bound those of any real scheduler.
//
// Energies follow the identity the paper's tables use (§1.2, [Energy]): with
// every node on, E = E_infra + E_idle + E_job; switching idle nodes off saves
// (1 − U)·E_idle (Eq. 4); switching the infrastructure off too while no node
// is needed saves (1 − U)·E_infra more.
//
// Units: [Machine] takes W and hours and returns kWh; prices are currency per
// kWh. Every other formula is linear, so any consistent units work: energies
// in MWh with prices in €/kWh give k€, as in the paper's tables.
package oracle

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Theory is the paper's theoretical analysis of one run: Listing 1's prices
// for the run's hours and utilization. Its methods turn the run's energy
// components into the costs of Tables 3 and 5–8.
type Theory struct {
	U     float64 // utilization the work is packed at (busy node-time / (N·T))
	Hours int     // H: hourly prices over the run
	Busy  int     // ⌊H·U⌋: hours the packed machine is fully busy
	Mean  float64 // time-average price over the H hours (Table 3's "mean price")
	Best  float64 // BestPrice: mean of the Busy cheapest hours
	Worst float64 // WorstPrice: mean of the other Hours − Busy hours
}

// Analyze runs Listing 1 over the hourly prices of a run (every clock hour
// that intersects it, each once) at utilization u: sort the prices, take the
// ⌊H·u⌋ cheapest as busy hours. The paper feeds it BackfillShutdownDelay's
// utilization and span (kunkel.md §1.7 and §5, item 8).
//
// ⌊H·u⌋ is taken with a tolerance of 1e-9 hours, so that a product such as
// 100 × 0.29 = 28.999999999999996 counts as the 29 hours it means.
//
// When no hour is busy (H·u < 1) Best is the cheapest price, and when every
// hour is (u = 1) Worst is the dearest: the limits of the means as the
// empty side shrinks to one hour. The empty side's price is then multiplied
// by energy that is zero or less than an hour's, and with this choice Best
// stays a lower bound of the price of any placement of the work (see
// [Bounds]) instead of turning the costs into NaN.
//
// Negative prices are ordinary prices: the oracle places work in them first.
// Analyze fails on an empty series, a NaN or infinite price, or u outside
// [0, 1]. It does not modify prices.
func Analyze(prices []float64, u float64) (Theory, error) {
	h := len(prices)
	if h == 0 {
		return Theory{}, errors.New("oracle: no prices")
	}
	if !(u >= 0 && u <= 1) {
		return Theory{}, fmt.Errorf("oracle: utilization %v outside [0, 1]", u)
	}
	if err := checkPrices(prices); err != nil {
		return Theory{}, err
	}
	sorted := slices.Clone(prices)
	slices.Sort(sorted)
	k := min(int(math.Floor(float64(h)*u+1e-9)), h)
	t := Theory{U: u, Hours: h, Busy: k, Mean: Mean(prices)}
	if k > 0 {
		t.Best = Mean(sorted[:k])
	} else {
		t.Best = sorted[0]
	}
	if k < h {
		t.Worst = Mean(sorted[k:])
	} else {
		t.Worst = sorted[h-1]
	}
	return t, nil
}

// Mean is the time-average of hourly prices: their plain mean, every hour
// weighing the same. It is NaN for no prices. The sum is compensated
// (Neumaier), so that a flat price comes back as itself over a year of
// hours and Best = Worst = Mean holds exactly there, not to 1e-14.
func Mean(prices []float64) float64 {
	var s, c float64
	for _, p := range prices {
		t := s + p
		if math.Abs(s) >= math.Abs(p) {
			c += (s - t) + p
		} else {
			c += (p - t) + s
		}
		s = t
	}
	return (s + c) / float64(len(prices))
}

// Baseline is the run's cost with every node on and the default schedule,
// priced at the mean (Table 3): E_total·Mean. The paper prices every
// scenario but the optimal schedule at the mean, as if power were flat.
func (t Theory) Baseline(e Energy) float64 { return e.Total() * t.Mean }

// ShutdownSaving is Eq. 4 (Table 5): switching idle nodes off saves their
// baseload for the idle share of the run, (1 − U)·E_idle·Mean.
func (t Theory) ShutdownSaving(e Energy) float64 { return e.ShutdownSaving(t.U) * t.Mean }

// InfraSaving is Table 6's extra saving when the infrastructure is off too
// whenever no node is needed: (1 − U)·E_infra·Mean.
func (t Theory) InfraSaving(e Energy) float64 { return e.InfraSaving(t.U) * t.Mean }

// CostAll is Eq. 5–6 (oracle_cost_all): the optimal schedule with nodes and
// infrastructure off when idle, so only the busy hours draw power and they
// are the cheapest: (U·(E_infra + E_idle) + E_job)·Best. The printed equation
// is split over two numbered lines and leaves E_job unpriced; read as
// kunkel.md §1.7 (and §5.9) does, it reproduces Tables 8 and 9.
func (t Theory) CostAll(e Energy) float64 { return e.Optimal(t.U) * t.Best }

// CostClient is Eq. 7 (oracle_cost_client): the optimal schedule with only
// the nodes off when idle, so the infrastructure still runs through the
// empty hours, at the worst price: CostAll + (1 − U)·E_infra·Worst.
//
// Both are lower bounds for any schedule of the same busy node-time over the
// same hours, at any prices: CostAll for schedules drawing, in each hour,
// P_infra + N·P_busy times the hour's busy share (infrastructure scaled with
// use); CostClient for schedules drawing P_infra always plus P_busy per busy
// node. They are exact when H·U is a whole number; otherwise the part of an
// hour beyond ⌊H·U⌋ is priced at Best although it must go to a dearer hour.
func (t Theory) CostClient(e Energy) float64 {
	return t.CostAll(e) + (1-t.U)*e.Infra*t.Worst
}

// YearlyTCO returns Table 15's cost of a year in its three scenarios (§6.7): the
// current machine at the baseline energy cost; the same machine with the
// optimal energy cost CostAll; and optimal procurement, a machine scaled by
// U bought at U times the price, running the optimal schedule's energy
// (nodes and infrastructure off when idle) at the mean price. The energy
// cost is the run's, not normalised to 365 days, as in the paper.
func (t Theory) YearlyTCO(o Ownership, e Energy) (current, optimalEnergy, optimalProcurement float64) {
	y := o.PerYear()
	return y + t.Baseline(e), y + t.CostAll(e), o.Procured(t.U).PerYear() + e.Optimal(t.U)*t.Mean
}

// Bounds returns the least and the greatest cost of placing energy in the
// hours of prices with at most perHour in any hour (the machine's full
// power times one hour): the exact best and worst cost of any assignment of
// that energy to those hours, reached by filling the cheapest (dearest)
// hours first, the last one partly. Listing 1 prices the whole energy at
// its Best price instead: Best·energy never exceeds best, and equals it when
// the energy fills whole hours.
//
// Bounds fails on an empty or non-finite series, a perHour that is not
// positive and finite, or an energy outside [0, H·perHour].
func Bounds(prices []float64, energy, perHour float64) (best, worst float64, err error) {
	h := len(prices)
	if h == 0 {
		return 0, 0, errors.New("oracle: no prices")
	}
	if err := checkPrices(prices); err != nil {
		return 0, 0, err
	}
	if !(perHour > 0) || math.IsInf(perHour, 1) {
		return 0, 0, fmt.Errorf("oracle: energy per hour %v is not positive and finite", perHour)
	}
	capacity := float64(h) * perHour
	if !(energy >= 0 && energy <= capacity*(1+1e-12)) {
		return 0, 0, fmt.Errorf("oracle: energy %v outside [0, %v]", energy, capacity)
	}
	sorted := slices.Clone(prices)
	slices.Sort(sorted)
	full := min(int(energy/perHour), h)
	rest := max(energy-float64(full)*perHour, 0)
	for i := range full {
		best += sorted[i] * perHour
		worst += sorted[h-1-i] * perHour
	}
	if full < h {
		best += sorted[full] * rest
		worst += sorted[h-1-full] * rest
	}
	return best, worst, nil
}

func checkPrices(prices []float64) error {
	for i, p := range prices {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return fmt.Errorf("oracle: price of hour %d is %v", i, p)
		}
	}
	return nil
}
