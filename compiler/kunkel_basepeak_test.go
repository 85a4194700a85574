package compiler_test

import (
	"context"
	"math"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestKunkelContractsOverADay is acceptance check 1 on std/kunkel's own
// contracts as compiled and run (not a hand-built price array): accounted
// over one whole local day, the base/peak contract's mean price is
// (16 × 0.16675 + 8 × 0.10) / 24 = 0.1445 on a day without a DST change,
// and (16 × 0.16675 + 7 × 0.10) / 23 on the spring-forward day (02:00 is
// skipped: a base hour less); Listing 1 packs the work into its base hours
// first. Under the flat contract the oracle's best and worst prices are
// both 0.145.
func TestKunkelContractsOverADay(t *testing.T) {
	// 2017-01-10 and 2017-03-26 (summer time starts), 00:00 Europe/Berlin.
	for _, day := range []struct {
		name, from, to string
		unix           string
		hours          int
		mean           float64
	}{
		{"2017-01-10", `"2017-01-10"`, `"2017-01-11"`, "1484002800", 24, (16*0.16675 + 8*0.10) / 24},
		{"2017-03-26", `"2017-03-26"`, `"2017-03-27"`, "1490482800", 23, (16*0.16675 + 7*0.10) / 23},
	} {
		// Two 1-node jobs on 4 nodes, 6 h each from 01:00: utilization
		// 12/96 on the plain day, so ⌊24 × 0.125⌋ = 3 busy hours at 0.10.
		trace := "; MaxProcs: 4\n; UnixStartTime: " + day.unix + "\n; TimeZoneString: Europe/Berlin\n" +
			"1 3600 -1 21600 1 -1 -1 1 21600 -1 1 1 1 -1 1 -1 -1 -1\n" +
			"2 3600 -1 21600 1 -1 -1 1 21600 -1 1 1 1 -1 1 -1 -1 -1\n"
		scenario := header + `
		experiment e {
		  workload swf "t.swf"
		  machine m
		  contract [kunkel_basepeak, kunkel_fixed]
		  policy easy
		  account ` + day.from + ` .. ` + day.to + `
		}`
		res := compileFiles("main.pwr", map[string]string{"main.pwr": scenario, "t.swf": trace}, compiler.Options{})
		if res.Plan == nil || len(res.Diags) > 0 {
			t.Fatalf("%s: diagnostics %v", day.name, res.Diags)
		}
		t.Chdir(t.TempDir())
		writeFile(t, "t.swf", trace)
		rs := runtime.Execute(context.Background(), res.Plan, runtime.Options{})
		for i, r := range rs {
			if r.Err != nil {
				t.Fatalf("%s: %v", day.name, r.Err)
			}
			th := r.Metrics.Theory
			u := 12.0 / (4 * float64(day.hours))
			if !r.Metrics.HasTheory || th.Hours != day.hours || math.Abs(th.U-u) > 1e-12 {
				t.Fatalf("%s %s: theory over %d hours at U %v, want %d, %v", day.name, res.Plan.Runs[i].Contract.Name, th.Hours, th.U, day.hours, u)
			}
			switch res.Plan.Runs[i].Contract.Name {
			case "kunkel_basepeak":
				// The busy hours are the ⌊H·U⌋ cheapest: base hours at 0.10;
				// the rest's mean follows from the day's total.
				busy := math.Floor(float64(day.hours) * u)
				worst := (day.mean*float64(day.hours) - 0.10*busy) / (float64(day.hours) - busy)
				if math.Abs(th.MeanPrice-day.mean) > 1e-12 || math.Abs(th.Best-0.10) > 1e-15 || math.Abs(th.Worst-worst) > 1e-12 {
					t.Errorf("%s base/peak: mean %.17g, best %v, worst %v; want %.17g, 0.10, %v", day.name, th.MeanPrice, th.Best, th.Worst, day.mean, worst)
				}
			case "kunkel_fixed":
				if th.MeanPrice != 0.145 || th.Best != 0.145 || th.Worst != 0.145 {
					t.Errorf("%s flat: mean, best, worst %v %v %v, want 0.145", day.name, th.MeanPrice, th.Best, th.Worst)
				}
			}
		}
	}
}
