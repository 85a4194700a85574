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
// The band meters the facility or (`of jobs`) the jobs' power alone; the
// demand charge, the peak metered and the utilization hours are always
// the facility's, and a rebill re-prices the facility's energy.
func TestWholeBill(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	ci := &tariff.Series{Name: "ci", Prices: []float64{300, 420, 150, 90, 510, 260}}
	const price, demand = 0.15, 0.02 // per kWh; per W per month
	bands := []struct {
		name string
		band ledger.Band
	}{
		{"facility per violation", ledger.Band{Lo: 2000, Hi: 4500, Kind: ledger.PerViolation, Fee: 7}},
		{"jobs per violation", ledger.Band{Lo: 500, Hi: 3000, Jobs: true, Kind: ledger.PerViolation, Fee: 7}},
		{"jobs rebill", ledger.Band{Lo: 500, Hi: 3000, Jobs: true, Kind: ledger.Rebill, Rebill: 0.4, Period: ledger.PeriodMonth}},
	}
	for seed := range uint64(3) {
		for _, bc := range bands {
			rng := rand.New(rand.NewPCG(seed, 9))
			jobs := randomJobs(rng, 300, 24, 60)
			m := Machine{Name: "m", Nodes: 24, Power: NodePower{Off: 5, Idle: 60, Busy: 250}, Infrastructure: 400}
			band := bc.band
			k := Contract{Name: "k", Kind: Flat, Price: price, Currency: "EUR",
				Band:   &band,
				Demand: &ledger.Demand{Price: demand, Period: ledger.PeriodMonth}, Meter: 900,
				EnergyBudget: 5e8, Overrun: 0.3, HasCarbon: true}
			carbon := tariff.Hourly(clock, ci, time.Unix(0, 0).UTC())
			pol := Policy{Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 600}}
			s, err := simulate(jobs, &m, 24, &pol, constPower(len(jobs), 250), math.Inf(1), clock, tariff.Flat(price), withBill(&k, carbon), recordStates())
			if err != nil {
				t.Fatal(err)
			}
			r := s.record().metrics()
			// Recompute from the state series: power per row, split at hours
			// and at 15-min marks.
			ss := s.states
			w := len(ss.Columns)
			var co2, energy float64
			type meter struct{ facility, jobs, seconds float64 } // J, J, s
			means := map[float64]meter{}                         // interval start → its integrals
			for i, t0 := range ss.Times {
				t1 := s.lastEnd
				if i+1 < len(ss.Times) {
					t1 = ss.Times[i+1]
				}
				var p, pj float64
				for c, name := range ss.Columns {
					if _, ok := PowerColumn(name); ok {
						p += ss.Values[i*w+c]
					}
					if name == "power_busy_w" {
						pj = ss.Values[i*w+c]
					}
				}
				for a := t0; a < t1; {
					b := math.Min(t1, (math.Floor(a/900)+1)*900)
					hour := int(math.Floor(a/3600)) % len(ci.Prices)
					co2 += p * (b - a) * ci.Prices[hour] / 3.6e6
					energy += p * (b - a)
					iv := math.Floor(a/900) * 900
					e := means[iv]
					means[iv] = meter{e.facility + p*(b-a), e.jobs + pj*(b-a), e.seconds + (b - a)}
					a = b
				}
			}
			if math.Abs(co2-r.CO2) > 1e-6*co2 {
				t.Errorf("CO2 %v g, recomputed %v g", r.CO2, co2)
			}
			iv := s.led.Intervals()
			viol, episodes, out := 0, 0, false
			peak, covered := 0.0, 0.0
			bad := map[time.Month]bool{}
			monthE := map[time.Month]float64{}
			for _, x := range iv {
				e := means[x.Start]
				f, j := e.facility/e.seconds, e.jobs/e.seconds
				if math.Abs(f-x.Mean) > 1e-6*x.Mean || math.Abs(j-x.Jobs) > 1e-6*x.Jobs+1e-9 || e.seconds != x.Seconds {
					t.Fatalf("interval at %v: means %v, %v W over %v s, recomputed %v, %v W over %v s", x.Start, x.Mean, x.Jobs, x.Seconds, f, j, e.seconds)
				}
				v := f
				if band.Jobs {
					v = j
				}
				isOut := v > band.Hi || v < band.Lo
				if isOut {
					viol++
					if !out {
						episodes++
					}
					bad[clock.Time(x.Start).Month()] = true
				}
				out = isOut
				monthE[clock.Time(x.Start).Month()] += e.facility
				peak = math.Max(peak, f)
				covered += e.seconds
			}
			if len(iv) != len(means) || r.Band.Violations != viol || viol == 0 {
				t.Errorf("%s: %d intervals (recomputed %d), %d violations (recomputed %d)", bc.name, len(iv), len(means), r.Band.Violations, viol)
			}
			var penalty float64
			switch band.Kind {
			case ledger.PerViolation:
				penalty = 7 * float64(episodes)
			case ledger.Rebill:
				for mo, e := range monthE {
					if bad[mo] {
						penalty += math.Max(0, e/3.6e6*0.4-e/3.6e6*price)
					}
				}
			}
			if math.Abs(r.Band.Penalty-penalty) > 1e-9*penalty || penalty <= 0 {
				t.Errorf("%s: band penalty %v, recomputed %v", bc.name, r.Band.Penalty, penalty)
			}
			if r.PeakMeteredW != peak {
				t.Errorf("%s: peak metered %v W, recomputed %v (the facility's)", bc.name, r.PeakMeteredW, peak)
			}
			if want := energy / peak / 3600; math.Abs(r.UtilizationHours-want) > 1e-9*want {
				t.Errorf("%s: utilization hours %v, recomputed %v", bc.name, r.UtilizationHours, want)
			}
			// All within January 1970: the month's peak, for the part covered.
			if want := demand * peak * covered / (31 * 86400); math.Abs(r.DemandCharge-want) > 1e-9*want || len(monthE) != 1 {
				t.Errorf("%s: demand charge %v, recomputed %v (months %d)", bc.name, r.DemandCharge, want, len(monthE))
			}
			var cost float64
			for _, c := range r.CostBy {
				cost += c
			}
			over := math.Max(0, energy-5e8) / 3.6e6 * 0.3
			if want := cost + r.Band.Penalty + r.DemandCharge + over; math.Abs(r.Cost-want) > 1e-9*want || r.OverrunCost != over || over == 0 {
				t.Errorf("%s: cost %v; energy %v + band %v + demand %v + overrun %v (recomputed %v)", bc.name, r.Cost, cost, r.Band.Penalty, r.DemandCharge, r.OverrunCost, over)
			}
		}
	}
}
