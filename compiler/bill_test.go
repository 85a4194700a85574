package compiler_test

import (
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime/ledger"
)

// `of jobs` makes the band meter the jobs' power; `of facility` and no
// `of` the facility's. Nothing else of the contract changes with it: the
// demand charge has no `of` (it is the facility's).
func TestBandOf(t *testing.T) {
	for _, tc := range []struct {
		of   string
		jobs bool
	}{{"", false}, {"of facility", false}, {"of jobs", true}} {
		r := onlyRun(t, map[string]string{"main.pwr": header + `
		contract k from kunkel_fixed {
		  band 40 kW..120 kW { metered 15 min; ` + tc.of + `; penalty rebill at 0.3 EUR/kWh; period month }
		  demand 120 EUR per kW per year
		}
		experiment e { workload synthetic { jobs 10 }; machine m; contract k; policy easy }`}, compiler.Options{})
		b := r.Contract.Band
		want := ledger.Band{Lo: 40e3, Hi: 120e3, Jobs: tc.jobs, Kind: ledger.Rebill, Rebill: 0.3, Period: ledger.PeriodMonth}
		if b == nil || *b != want || r.Contract.Meter != 900 {
			t.Errorf("%q: band %+v, meter %v; want %+v", tc.of, b, r.Contract.Meter, want)
		}
		if d := r.Contract.Demand; d == nil || d.Period != ledger.PeriodYear || d.Price != 0.12 {
			t.Errorf("%q: demand %+v", tc.of, d)
		}
	}
}
