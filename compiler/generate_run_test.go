package compiler_test

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// TestPriceGenerateRuns compiles the README's t3_like contract (a price
// `hourly generate`, not a carbon one) and runs it: the plan carries the
// generator as written, and the run is billed at the generated prices —
// its energy cost is ∫ P·price over the series drawn independently here,
// row 1 at local midnight of the first submission's day.
func TestPriceGenerateRuns(t *testing.T) {
	trace := "; MaxProcs: 4\n; UnixStartTime: 1483228800\n; TimeZoneString: UTC\n" +
		"1 3600 -1 7200 2 -1 -1 2 7200 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 5400 -1 36000 4 -1 -1 4 36000 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"3 30000 -1 90000 1 -1 -1 1 90000 -1 1 1 1 -1 1 -1 -1 -1\n"
	scenario := `import "std/policies"
		machine m { nodes 4; power { off 0 W; idle 50 W; busy 200 W }; infrastructure 100 W }
		contract t3_like {
		  hourly generate {
		    hours 12000; seed 3; unit 0.01 EUR/kWh
		    first 24 uniform 0..1
		    ar 0.4 at 1 h, 0.4 at 2 h, 0.2 at 24 h
		    sine 0.25 period 19.74 h
		    noise normal sd 0.5
		    add 06:00..22:00 10
		    add 22:00..24:00 3
		    mean 0.14 EUR/kWh
		  }
		}
		experiment e { workload swf "t.swf"; machine m; contract t3_like; policy easy }`
	res := compileFiles("main.pwr", map[string]string{"main.pwr": scenario, "t.swf": trace}, compiler.Options{})
	if res.Plan == nil || len(res.Diags) > 0 {
		t.Fatalf("diagnostics: %v", res.Diags)
	}
	g := res.Plan.Runs[0].Contract.Generate
	want := tariff.Generator{Hours: 12000, Seed: 3, Unit: 0.01, First: 24, Lo: 0, Hi: 1,
		AR: []tariff.Lag{{Coef: 0.4, Lag: 1}, {Coef: 0.4, Lag: 2}, {Coef: 0.2, Lag: 24}}, Sine: 0.25, Period: 19.74, Noise: 0.5,
		Adds: []tariff.Add{{From: 6, To: 22, Value: 10}, {From: 22, To: 24, Value: 3}}, Mean: 0.14}
	if g == nil || !reflect.DeepEqual(*g, want) {
		t.Fatalf("generator %+v, want %+v", g, want)
	}
	t.Chdir(t.TempDir())
	writeFile(t, "t.swf", trace)
	r := runtime.Execute(context.Background(), res.Plan, runtime.Options{KeepJobs: true})[0]
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	// The machine's power by hand: 100 W infrastructure + 4 nodes at 50 W
	// idle, each busy node 150 W more, from the first submission (1 h after
	// midnight) to the last end, priced hour by hour.
	prices := tariff.Generate(want).Prices
	var cost, energy float64
	from, to := 3600.0, 0.0
	for _, j := range r.Jobs {
		to = math.Max(to, j.End)
	}
	for a := from; a < to; {
		b := math.Min(to, (math.Floor(a/3600)+1)*3600)
		p := 100 + 4*50.0
		for _, j := range r.Jobs {
			if j.Start <= a && a < j.End {
				p += float64(j.Nodes) * 150
			}
		}
		// Split at job starts and ends too.
		for _, j := range r.Jobs {
			for _, x := range []float64{j.Start, j.End} {
				if x > a && x < b {
					b = x
				}
			}
		}
		energy += p * (b - a)
		cost += p * (b - a) / 3.6e6 * prices[int(math.Floor(a/3600))]
		a = b
	}
	if math.Abs(r.Metrics.Energy-energy) > 1e-6*energy || math.Abs(r.Metrics.Cost-cost) > 1e-9*cost {
		t.Errorf("energy %v J, cost %v; recomputed %v J, %v", r.Metrics.Energy, r.Metrics.Cost, energy, cost)
	}
}
