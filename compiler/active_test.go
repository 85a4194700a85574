package compiler_test

import (
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// The capacity controller compiles into the plan: kinds, levels, the
// online block's fields and defaults, a swept period, and inheritance.
func TestActiveStage(t *testing.T) {
	src := header + `
param k = [7 d, 14 d, 28 d]
param low = 3
policy two from easy { active two_level { low low } }
policy ols from easy { estimate exact; active online { sla mean bsld <= 200; every k } }
policy ols2 from ols { active online { search binary; raise to max } }
policy fixed from easy { active fixed 75% }
policy none from two { active none }
experiment x {
  workload synthetic { jobs 10 }
  machine m
  contract { flat 0.1 EUR/kWh }
  policy [two, ols, ols2, fixed, none]
}
`
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": src}, compiler.Options{})
	got := map[string][]*runtime.Active{}
	for _, r := range p.Runs {
		got[r.Policy.Name] = append(got[r.Policy.Name], r.Policy.Active)
	}
	if a := got["two"][0]; a == nil || a.Kind != runtime.ActiveTwoLevel || a.Low != (runtime.NodeLevel{Nodes: 3}) || !a.High.All {
		t.Errorf("two: %+v", a)
	}
	if len(got["ols"]) != 3 {
		t.Fatalf("ols: %d runs, want 3 (every swept)", len(got["ols"]))
	}
	for i, k := range []float64{7, 14, 28} {
		a := got["ols"][i]
		if a == nil || a.Kind != runtime.ActiveOnline || a.SLA != 200 || a.Every != k*86400 || a.Search != runtime.SearchTowardMax || a.Raise != runtime.RaiseToWidth {
			t.Errorf("ols run %d: %+v", i, a)
		}
		b := got["ols2"][i]
		if b == nil || b.SLA != 200 || b.Every != k*86400 || b.Search != runtime.SearchBinary || b.Raise != runtime.RaiseToMax {
			t.Errorf("ols2 run %d (inherits sla and every): %+v", i, b)
		}
	}
	if a := got["fixed"][0]; a == nil || a.Kind != runtime.ActiveFixed || a.Fixed.Share != 0.75 || a.Fixed.Of(4) != 3 {
		t.Errorf("fixed: %+v", a)
	}
	if a := got["none"][0]; a != nil {
		t.Errorf("none: %+v", a)
	}
}
