package runtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// TestWholeBill runs random workloads under a contract with a band, a
// demand charge, an energy budget and an hourly carbon series, and checks
// each part against an independent recomputation from the machine's state
// series: CO2 is ∫ intensity·P dt, the metered means are those of the
// power over clock-aligned 15-min intervals, the band and demand charges
// follow from them, and the cost is the energy's plus the three charges.
func TestWholeBill(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	ci := &tariff.Series{Name: "ci", Prices: []float64{300, 420, 150, 90, 510, 260}}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 9))
		jobs := randomJobs(rng, 300, 24, 60)
		m := Machine{Name: "m", Nodes: 24, Power: NodePower{Off: 5, Idle: 60, Busy: 250}, Infrastructure: 400}
		k := Contract{Name: "k", Kind: Flat, Price: 0.15, Currency: "EUR",
			Band:   &ledger.Band{Lo: 2000, Hi: 4500, Kind: ledger.PerViolation, Fee: 7},
			Demand: &ledger.Demand{Price: 0.02, Period: ledger.PeriodMonth}, Meter: 900,
			EnergyBudget: 5e8, Overrun: 0.3, HasCarbon: true}
		carbon := tariff.Hourly(clock, ci, time.Unix(0, 0).UTC())
		pol := Policy{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 600}}
		s, err := simulate(jobs, &m, 24, &pol, constPower(len(jobs), 250), math.Inf(1), clock, tariff.Flat(0.15), withBill(&k, carbon), recordStates())
		if err != nil {
			t.Fatal(err)
		}
		r := s.metrics()
		// Recompute from the state series: power per row, split at hours
		// and at 15-min marks.
		ss := s.states
		w := len(ss.Columns)
		var co2, energy float64
		means := map[float64][2]float64{} // interval start → energy, seconds
		for i, t0 := range ss.Times {
			t1 := s.lastEnd
			if i+1 < len(ss.Times) {
				t1 = ss.Times[i+1]
			}
			var p float64
			for c, name := range ss.Columns {
				if _, ok := PowerColumn(name); ok {
					p += ss.Values[i*w+c]
				}
			}
			for a := t0; a < t1; {
				b := math.Min(t1, (math.Floor(a/900)+1)*900)
				hour := int(math.Floor(a/3600)) % len(ci.Prices)
				co2 += p * (b - a) * ci.Prices[hour] / 3.6e6
				energy += p * (b - a)
				iv := math.Floor(a/900) * 900
				e := means[iv]
				means[iv] = [2]float64{e[0] + p*(b-a), e[1] + (b - a)}
				a = b
			}
		}
		if math.Abs(co2-r.CO2) > 1e-6*co2 {
			t.Errorf("CO2 %v g, recomputed %v g", r.CO2, co2)
		}
		iv := s.led.Intervals()
		var viol int
		peak := 0.0
		for _, x := range iv {
			e := means[x.Start]
			if math.Abs(e[0]/e[1]-x.Mean) > 1e-6*x.Mean || e[1] != x.Seconds {
				t.Fatalf("interval at %v: mean %v W over %v s, recomputed %v W over %v s", x.Start, x.Mean, x.Seconds, e[0]/e[1], e[1])
			}
			if x.Mean > 4500 || x.Mean < 2000 {
				viol++
			}
			peak = math.Max(peak, x.Mean)
		}
		if len(iv) != len(means) || r.Band.Violations != viol || viol == 0 {
			t.Errorf("%d intervals (recomputed %d), %d violations (recomputed %d)", len(iv), len(means), r.Band.Violations, viol)
		}
		if r.PeakMeteredW != peak {
			t.Errorf("peak metered %v W, recomputed %v", r.PeakMeteredW, peak)
		}
		var cost float64
		for _, c := range r.CostBy {
			cost += c
		}
		over := math.Max(0, energy-5e8) / 3.6e6 * 0.3
		if want := cost + r.Band.Penalty + r.DemandCharge + over; math.Abs(r.Cost-want) > 1e-9*want || r.OverrunCost != over || over == 0 {
			t.Errorf("cost %v; energy %v + band %v + demand %v + overrun %v (recomputed %v)", r.Cost, cost, r.Band.Penalty, r.DemandCharge, r.OverrunCost, over)
		}
	}
}
