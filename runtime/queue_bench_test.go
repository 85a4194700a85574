package runtime

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// BenchmarkOverloaded replays traces on machines too small for them, where
// thousands of jobs wait (issue 12): a synthetic queue on 256 nodes at
// three times its load; CEA-Curie on 70,000 and 60,000 of its 93,312
// processors, and scaled onto Intrepid's 40,960 nodes in midplanes of 512
// (examples/zhou_trace.pwr's machine), EASY; and a budget during peak
// hours on top of the latter (Zhou's knapsack, window 10).
//
//	go test -bench Overloaded -benchmem ./runtime
func BenchmarkOverloaded(b *testing.B) {
	peak := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 23 * 3600}}, 0.15, 0.05)
	run := func(b *testing.B, jobs []workload.Job, nodes int, pol Policy, budget float64) {
		m := testMachine(nodes)
		pw := constPower(len(jobs), 23000.0/1024)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := simulate(jobs, &m, nodes, &pol, pw, budget, tariff.Clock{}, peak); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	}
	// scripts/bench.sh's synthetic queue (scripts/bench/overload.pwr):
	// arrivals at three times what 256 nodes run, 107,000 waiting at the
	// peak. (No trace needed.)
	b.Run("synthetic_3x", func(b *testing.B) {
		jobs := workload.Generate(workload.Synthetic{Jobs: 230000, Nodes: 256, Load: 3, Seed: 1})
		run(b, jobs, 256, Policy{Backfill: EASY}, math.Inf(1))
	})
	path := testenv.Data(b, filepath.Join("traces", "CEA-Curie-2011-2.1-cln.swf.gz"))
	clean := func(nodes int) []workload.Job {
		tr, err := workload.OpenSWF(path, workload.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 1, Nodes: nodes})
		return jobs
	}
	b.Run("curie_70000", func(b *testing.B) { run(b, clean(70000), 70000, Policy{Backfill: EASY}, math.Inf(1)) })
	b.Run("curie_60000", func(b *testing.B) { run(b, clean(60000), 60000, Policy{Backfill: EASY}, math.Inf(1)) })
	intrepid := scaleJobs(clean(93312), 93312, 40960)
	bgp := Policy{Backfill: EASY, Contiguous: 512}
	b.Run("curie_intrepid", func(b *testing.B) { run(b, intrepid, 40960, bgp, math.Inf(1)) })
	zhou := bgp
	zhou.Select, zhou.Window = SelectKnapsack, 10
	zhou.Budget = &Budget{Power: 0.5 * 40960 * 23000.0 / 1024, When: BudgetDuringPeak}
	b.Run("curie_intrepid_budget", func(b *testing.B) { run(b, intrepid, 40960, zhou, zhou.Budget.Power) })
}
