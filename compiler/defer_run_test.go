package compiler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestDeferFieldsCompile: `runtime requested`, `price carbon` and a price
// rule reach the plan's defer stage as written.
func TestDeferFieldsCompile(t *testing.T) {
	scenario := header + `
		contract k from kunkel_fixed { carbon 300 g/kWh }
		policy req from fifo { defer cheapest { lookahead 8 h; runtime requested } }
		policy co2 from fifo { defer cheapest { lookahead 8 h; price carbon } }
		policy mix from fifo { defer cheapest { lookahead 8 h; price price.now + 0.001 * carbon.now } }
		experiment e { workload synthetic { jobs 10 }; machine m; contract k; policy [req, co2, mix] }`
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": scenario}, compiler.Options{})
	d := map[string]*runtime.Defer{}
	for _, r := range p.Runs {
		d[r.Policy.Name] = r.Policy.Defer
	}
	if x := d["req"]; x == nil || x.Runtime != runtime.Requested || x.Objective != runtime.MinimizePrice || x.Lookahead != 8*3600 {
		t.Errorf("req: %+v", x)
	}
	if x := d["co2"]; x == nil || x.Runtime != runtime.Exact || x.Objective != runtime.MinimizeCarbon || x.Rule != nil {
		t.Errorf("co2: %+v", x)
	}
	x := d["mix"]
	if x == nil || x.Objective != runtime.MinimizeRule || x.Rule == nil {
		t.Fatalf("mix: %+v", x)
	}
	if v := x.Rule.Num(&runtime.Env{Price: runtime.PriceEnv{Now: 0.12}, Carbon: runtime.CarbonEnv{Now: 250}}); v != 0.12+0.001*250 {
		t.Errorf("mix: the rule gives %v at 0.12 EUR/kWh and 250 g/kWh, want 0.37", v)
	}
}

// TestSystemInfrastructure: rules read the machine's infrastructure power
// as system.infrastructure (W; here 85 W per node on 4 nodes: 340 W): an
// admit rule that holds only for 340 W starts every job, one that holds
// only for another value none; and a defer stage whose waiting and
// running rules spell out the default (the job's share of it) decides
// exactly as the default, job for job, deferring some.
func TestSystemInfrastructure(t *testing.T) {
	var trace strings.Builder
	trace.WriteString("; MaxProcs: 4\n; UnixStartTime: 1483228800\n; TimeZoneString: UTC\n")
	for i := range 30 {
		fmt.Fprintf(&trace, "%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 1 -1 -1 -1\n", i+1, i*2700, 1800+600*(i%5), 1+i%3, 1+i%3, 1800+600*(i%5))
	}
	var prices strings.Builder
	for h := range 24 * 4 {
		fmt.Fprintf(&prices, "%v\n", []float64{0.30, 0.22, 0.08, 0.25, 0.05, 0.31}[h%6])
	}
	scenario := `import "std/policies"
		import "std/kunkel"
		machine m { nodes 4; power { off 0 W; idle 70 W; busy 260 W }; infrastructure 85 W per node }
		contract spot { hourly "p.csv" }
		policy infra_340 from fcfs { admit system.infrastructure == 340 }
		policy infra_other from fcfs { admit system.infrastructure != 340 }
		policy pa from fifo { shutdown idle after 0 s; defer cheapest { lookahead 6 h } }
		policy pa_spelled from pa {
		  defer cheapest {
		    waiting job.nodes * system.infrastructure / system.nodes
		    running job.power + job.nodes * system.infrastructure / system.nodes
		  }
		}
		experiment e { workload swf "t.swf"; machine m; contract spot; policy [fcfs, infra_340, infra_other, pa, pa_spelled] }`
	files := map[string]string{"main.pwr": scenario, "t.swf": trace.String(), "p.csv": prices.String()}
	res := compileFiles("main.pwr", files, compiler.Options{})
	if res.Plan == nil || len(res.Diags) > 0 {
		t.Fatalf("diagnostics: %v", res.Diags)
	}
	t.Chdir(t.TempDir())
	for name, data := range files {
		writeFile(t, name, data)
	}
	starts := map[string][]float64{}
	results := map[string]*runtime.Result{}
	for i, r := range runtime.Execute(context.Background(), res.Plan, runtime.Options{KeepJobs: true}) {
		name := res.Plan.Runs[i].Policy.Name
		results[name] = r
		for _, j := range r.Jobs {
			starts[name] = append(starts[name], j.Start)
		}
	}
	if r := results["infra_340"]; r.Err != nil || !slices.Equal(starts["infra_340"], starts["fcfs"]) {
		t.Errorf("admit system.infrastructure == 340: err %v, starts %v, FCFS's %v", r.Err, starts["infra_340"], starts["fcfs"])
	}
	if r := results["infra_other"]; r.Err == nil || !strings.Contains(r.Err.Error(), "never started") {
		t.Errorf("admit system.infrastructure != 340: err %v, want jobs that never start", r.Err)
	}
	pa, spelled := results["pa"], results["pa_spelled"]
	if pa.Err != nil || spelled.Err != nil {
		t.Fatal(pa.Err, spelled.Err)
	}
	if !slices.Equal(starts["pa"], starts["pa_spelled"]) || pa.Metrics.DeferredJobs == 0 || pa.Metrics.DeferredJobs != spelled.Metrics.DeferredJobs {
		t.Errorf("defer with the default spelled out: starts %v (%d deferred), default %v (%d deferred)",
			starts["pa_spelled"], spelled.Metrics.DeferredJobs, starts["pa"], pa.Metrics.DeferredJobs)
	}
}
