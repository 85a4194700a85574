package runtime

import (
	"hash/maphash"
	"reflect"
	"testing"
)

// Runs are bucketed by a fingerprint of what reflect.DeepEqual compares:
// deeply equal runs (copies included, down to their pointers) must share
// it, and runs that differ where a sweep makes them differ should not, so
// that a plan of many runs and few twins costs a hash per run.
func TestTwinFingerprint(t *testing.T) {
	seed := maphash.MakeSeed()
	fp := func(r *Run) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, v := range []any{r.Workload, r.Machine, r.Policy, r.Account} {
			fingerprint(&h, reflect.ValueOf(v), 0)
		}
		return h.Sum64()
	}
	rule := &Expr{Source: "job.nodes", Deps: DepJob, Num: func(*Env) float64 { return 1 }}
	base := &Run{
		Workload: Workload{Name: "w", Path: "t.swf", Power: JobPower{Kind: MachineBusy}},
		Machine:  Machine{Name: "m", Nodes: 64, Cores: 1, PStates: []PState{{Freq: 2e9, Power: 200}}},
		Policy:   Policy{Name: "p", Backfill: EASY, Priority: rule, Shutdown: &Shutdown{After: 60}, Budget: &Budget{OfBaseline: 0.5, When: BudgetDuringPeak}},
		Account:  &Window{From: Instant{Offset: 0}, To: Instant{Offset: 86400}},
	}
	copyRun := func() *Run {
		r := *base
		sh, b, acc := *base.Policy.Shutdown, *base.Policy.Budget, *base.Account
		r.Policy.Shutdown, r.Policy.Budget, r.Account = &sh, &b, &acc
		r.Machine.PStates = append([]PState(nil), base.Machine.PStates...)
		return &r
	}
	same := copyRun()
	same.Contract = Contract{Name: "other", Kind: Flat, Price: 0.3} // (not fingerprinted)
	if !reflect.DeepEqual(same.Policy, base.Policy) || fp(same) != fp(base) {
		t.Fatal("a deep copy of a run fingerprints otherwise")
	}
	for name, change := range map[string]func(r *Run){
		"shutdown delay": func(r *Run) { r.Policy.Shutdown.After = 120 },
		"budget share":   func(r *Run) { r.Policy.Budget.OfBaseline = 0.6 },
		"machine nodes":  func(r *Run) { r.Machine.Nodes = 32 },
		"pstate power":   func(r *Run) { r.Machine.PStates[0].Power = 180 },
		"trace":          func(r *Run) { r.Workload.Path = "u.swf" },
		"account window": func(r *Run) { r.Account.To.Offset = 2 * 86400 },
		"no account":     func(r *Run) { r.Account = nil },
		"another rule": func(r *Run) {
			r.Policy.Priority = &Expr{Source: "job.walltime", Deps: DepJob, Num: func(*Env) float64 { return 2 }}
		},
	} {
		r := copyRun()
		change(r)
		if fp(r) == fp(base) {
			t.Errorf("%s: the fingerprint does not change", name)
		}
	}
}
