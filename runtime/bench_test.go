package runtime

import (
	"math"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// benchPolicies are the engine benchmark's policies: the basic ones and
// greedy backfilling (the plain schedulers whose instruction counts
// scripts/instructions.sh follows).
var benchPolicies = append(basicPolicies[:len(basicPolicies):len(basicPolicies)], struct {
	name string
	pol  Policy
	ref  string
}{"greedy", Policy{Name: "greedy", Backfill: Greedy, Depth: 50}, ""})

// BenchmarkEngine replays whole traces (already parsed and cleaned) under
// the basic policies: the engine alone, without reading the trace.
//
//	go test -bench Engine -benchmem ./runtime
func BenchmarkEngine(b *testing.B) {
	for _, name := range []string{"HPC2N-2002-2.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		b.Run(name, func(b *testing.B) {
			jobs, nodes := loadTrace(b, name)
			for _, p := range benchPolicies {
				b.Run(p.name, func(b *testing.B) {
					m := testMachine(nodes)
					k := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 6 * 3600, To: 22 * 3600}}, 0.2, 0.1)
					b.ReportAllocs()
					for b.Loop() {
						if _, err := simulate(jobs, &m, nodes, &p.pol, constPower(len(jobs), 260), math.Inf(1), tariff.Clock{}, k); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
				})
			}
		})
	}
}
