package runtime

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// energyPlan runs one workload under a policy on a machine with distinct
// powers in every state, so a mix-up between states shows in the totals.
func energyRun(w Workload, pol Policy, k Contract) *Run {
	m := Machine{Name: "m", Nodes: 0, Cores: 1, Infrastructure: 5000,
		Power: NodePower{Off: 9, Idle: 70, Busy: 260, Boot: 150, Shutdown: 120}}
	if w.Kind == Synthetic {
		m.Nodes = 96
	}
	return &Run{Name: pol.Name, Baseline: -1, Workload: w, Machine: m, Policy: pol, Contract: k}
}

func energyWorkloads(t *testing.T) []Workload {
	ws := []Workload{{Kind: Synthetic, Name: "synthetic", Synthetic: workload.Synthetic{Jobs: 4000, Load: 0.8, Seed: 11}}}
	if testenv.DataDir() != "" {
		ws = append(ws, Workload{Kind: SWF, Name: "KTH", Path: testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")})
	}
	return ws
}

// TestEnergyConservation checks the accounting against ∫P dt computed
// independently from the per-job records: busy energy is Σ nodes·power·
// (end − start); every node-second not busy is idle (no shutdown) or off
// (shutdown at once, no transition delays); infrastructure runs all along.
func TestEnergyConservation(t *testing.T) {
	for _, w := range energyWorkloads(t) {
		for _, pol := range []Policy{
			{Name: "easy", Backfill: EASY},
			{Name: "easy_shutdown", Backfill: EASY, Shutdown: &Shutdown{After: 0}},
		} {
			t.Run(w.Name+"/"+pol.Name, func(t *testing.T) {
				run := energyRun(w, pol, Contract{Name: "flat", Kind: Flat, Price: 0.145, Currency: "EUR"})
				res := Execute(context.Background(), &Plan{Runs: []*Run{run}}, Options{KeepJobs: true})[0]
				if res.Err != nil {
					t.Fatal(res.Err)
				}
				m := res.Metrics
				first, last := math.Inf(1), math.Inf(-1)
				var busyJ, busyNodeSec float64
				for _, j := range res.Jobs {
					first = math.Min(first, j.Submit)
					last = math.Max(last, j.End)
					busyJ += j.Power * (j.End - j.Start)
					busyNodeSec += float64(j.Nodes) * (j.End - j.Start)
				}
				span := last - first
				nodeSec := float64(m.Nodes) * span
				mach := run.Machine
				want := [nComponents]float64{}
				want[compBusy] = busyJ
				want[compInfra] = mach.Infrastructure * span
				if pol.Shutdown == nil {
					want[compIdle] = mach.Power.Idle * (nodeSec - busyNodeSec)
				} else {
					want[compOff] = mach.Power.Off * (nodeSec - busyNodeSec)
				}
				var sum, wantTotal float64
				for c := range nComponents {
					sum += m.EnergyBy[c]
					wantTotal += want[c]
					if !near(m.EnergyBy[c], want[c]) {
						t.Errorf("%s energy: got %.6g J, want %.6g J", ComponentNames[c], m.EnergyBy[c], want[c])
					}
				}
				if !near(sum, m.Energy) {
					t.Errorf("components sum to %.9g J but the total is %.9g J", sum, m.Energy)
				}
				if !near(m.Energy, wantTotal) {
					t.Errorf("total energy %.9g J, ∫P dt from the job records %.9g J", m.Energy, wantTotal)
				}
				if !near(m.Cost, m.Energy/3.6e6*0.145) {
					t.Errorf("flat cost %.9g, want energy × price = %.9g", m.Cost, m.Energy/3.6e6*0.145)
				}
				if !near(m.Utilization, busyNodeSec/nodeSec) {
					t.Errorf("utilization %v, want %v", m.Utilization, busyNodeSec/nodeSec)
				}
				if !near(m.RunDays, span/86400) {
					t.Errorf("run days %v, want %v", m.RunDays, span/86400)
				}
			})
		}
	}
}

// TestCostByPeriod checks that a base/peak tariff's periods partition
// energy and cost, and that cost is Σ period energy × period price.
func TestCostByPeriod(t *testing.T) {
	k := Contract{Name: "bp", Kind: BasePeak, Currency: "EUR", PeakPrice: 0.2, BasePrice: 0.1,
		Peak: []tariff.Window{{From: 6 * 3600, To: 22 * 3600}}}
	for _, w := range energyWorkloads(t) {
		w.TimeZone = "Europe/Stockholm"
		run := energyRun(w, Policy{Name: "easy", Backfill: EASY}, k)
		res := Execute(context.Background(), &Plan{Runs: []*Run{run}}, Options{})[0]
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		m := res.Metrics
		if len(m.Periods) != 2 || m.Periods[0].Name != "peak" || m.Periods[1].Name != "base" {
			t.Fatalf("periods %+v", m.Periods)
		}
		e := m.Periods[0].Energy + m.Periods[1].Energy
		cost := m.Periods[0].Energy/3.6e6*0.2 + m.Periods[1].Energy/3.6e6*0.1
		if !near(e, m.Energy) || !near(cost, m.Cost) || !near(m.Periods[0].Cost+m.Periods[1].Cost, m.Cost) {
			t.Errorf("%s: periods do not partition energy and cost: %+v, total %g J, %g EUR", w.Name, m.Periods, m.Energy, m.Cost)
		}
		// 16 of 24 hours are peak; with a roughly steady load, peak energy
		// should be near two thirds of the total.
		if share := m.Periods[0].Energy / m.Energy; share < 0.55 || share > 0.78 {
			t.Errorf("%s: peak share of energy %.3f, expected about 2/3", w.Name, share)
		}
	}
}

// TestBootAndShutdownDelays follows two nodes through every state, worked
// out by hand. Powers: off 10, idle 100, busy 200, boot 150, shutdown 120 W.
// Job 1 (2 nodes, 50 s) runs 0–50; the nodes idle 50–150, shut down
// 150–180 (idle after 100 s, 30 s to shut down) and are off until job 2
// (1 node) arrives at 1000: one node boots 1000–1060, the job runs
// 1060–1110, the other node stays off. Energy in J:
// busy 2·200·50 + 200·50 = 30000; idle 2·100·100 = 20000; shutdown
// 2·120·30 = 7200; off 2·10·820 + 10·110 = 17500; boot 150·60 = 9000.
func TestBootAndShutdownDelays(t *testing.T) {
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 50, Walltime: 50, Procs: 2, Nodes: 2},
		{ID: 2, Submit: 1000, Runtime: 50, Walltime: 50, Procs: 1, Nodes: 1},
	}
	m := Machine{Name: "m", Nodes: 2, Cores: 1, BootTime: 60, ShutdownTime: 30,
		Power: NodePower{Off: 10, Idle: 100, Busy: 200, Boot: 150, Shutdown: 120}}
	for _, bf := range []BackfillKind{NoBackfill, EASY} {
		pol := Policy{Backfill: bf, Shutdown: &Shutdown{After: 100}}
		s, err := simulate(jobs, &m, 2, &pol, constPower(len(jobs), 200), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
		if err != nil {
			t.Fatal(err)
		}
		if s.start[0] != 0 || s.end[0] != 50 || s.start[1] != 1060 || s.end[1] != 1110 {
			t.Errorf("schedule: job 1 %v–%v, job 2 %v–%v; want 0–50 and 1060–1110", s.start[0], s.end[0], s.start[1], s.end[1])
		}
		want := [nComponents]float64{compBusy: 30000, compIdle: 20000, compOff: 17500, compBoot: 9000, compShutdown: 7200}
		if !slices.Equal(s.led.Energy, want[:]) {
			t.Errorf("energy by component %v, want %v", s.led.Energy, want)
		}
	}
}
