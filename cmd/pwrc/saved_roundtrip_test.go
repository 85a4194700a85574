package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// everyFeature has runs in which every metric of the catalogue has a
// value: levels and pstates, a baseline, a budget, shutdown, a powercap
// inside a measure window, a capacity controller, a price-aware start, and
// a contract with a band, a demand charge, an energy budget and carbon,
// on a machine with costs (TCO).
const everyFeature = `import "std/policies"
import "std/kunkel"

machine racked {
  nodes 64
  cores 4
  level rack { size 16 node; power { fans 400 W; switch 60 W } }
  power {
    off 6 W
    idle 80 W
    pstate 2.7 GHz 250 W
    pstate 1.8 GHz 190 W
    pstate 1.2 GHz 150 W
    slowdown 1.6 at 1.2 GHz
  }
  infrastructure 2 kW
  costs { system 2 MEUR; lifetime 5 y; annual 100 kEUR per year }
}

contract bill from kunkel_basepeak {
  band 6 kW..14 kW { metered 15 min; penalty 20 EUR per violation }
  demand 10 EUR per kW per month
  energy budget 20 MWh { overrun at 0.30 EUR/kWh }
  carbon 350 g/kWh
}

policy budgeted from easy { budget 8 kW during peak; shutdown idle after 10 min }
policy capped from easy { powercap 60% from 3 d for 2 h { mode mix; lowest 1.8 GHz } }
policy two from easy_exact { active two_level { low 40; high all } }
policy deferred from fcfs { defer cheapest { lookahead 12 h; then recompute } }

experiment all {
  workload synthetic { jobs 1500; load 75%; seed 5 }
  machine  racked
  contract bill
  policy   [easy, budgeted, capped, two, deferred] baseline easy
  report   REPORT
}

experiment window {
  workload synthetic { jobs 1500; load 75%; seed 5 }
  machine  racked
  contract bill
  policy   [easy, capped] baseline easy
  measure  2 d .. 4 d
  report   REPORT
}
`

// A saved run directory read back (pwrc report DIR) shows every column of
// the catalogue as the run itself did: results.json holds what the tables
// need, and metricsFromMap reads all of it back. (A figure the JSON lacks
// would show as 0 or "–" in a report made from saved runs: a silent wrong
// answer.)
func TestSavedRunsShowEveryMetric(t *testing.T) {
	var calls []string
	for _, c := range pwrt.ReportCatalog {
		switch c.Arg {
		case pwrt.ArgLevel:
			calls = append(calls, c.Name+"(rack)")
		case pwrt.ArgBound:
			calls = append(calls, c.Name+"(3.5)")
		case pwrt.ArgPState:
			calls = append(calls, c.Name+"(1.8 GHz)")
		default:
			calls = append(calls, metricCall(c))
		}
	}
	scen := writeScenario(t, "every.pwr", strings.ReplaceAll(everyFeature, "REPORT", strings.Join(calls, ", ")))
	res := compiler.Compile(scen, compiler.Options{})
	if res.Diags.HasErrors() {
		t.Fatalf("the scenario does not compile: %v", res.Diags)
	}
	results := pwrt.Execute(context.Background(), res.Plan, pwrt.Options{Workers: 2, KeepStates: true})
	for _, e := range res.Plan.Experiments {
		var rs, back []*pwrt.Result
		for _, i := range e.Runs {
			r := results[i]
			if r.Err != nil {
				t.Fatalf("run %s: %v", r.Run.Name, r.Err)
			}
			data, err := json.Marshal(metricsMap(r))
			if err != nil {
				t.Fatal(err)
			}
			var mm map[string]any
			if err := json.Unmarshal(data, &mm); err != nil {
				t.Fatal(err)
			}
			b := *r
			b.Metrics = metricsFromMap(mm, r.States)
			rs, back = append(rs, r), append(back, &b)
		}
		for _, key := range e.Report {
			want, got := metricColumn(key, rs), metricColumn(key, back)
			for k := range rs {
				if w, g := want.cell(rs[k]), got.cell(back[k]); w != g {
					t.Errorf("%s, run %s, %s: read back %q, the run showed %q", e.Name, rs[k].Run.Name, key, g, w)
				}
			}
		}
	}
}
