package compiler

import (
	"testing"

	"github.com/expr-lang/expr"

	"github.com/pwrc/pwrc/runtime"
)

// Rules that call price.mean_past compile to closures (but not through an
// optional chain, which the VM keeps), and depsOf marks them as reading
// the price. TestClosureMatchesVM checks the closures against the VM.
func TestPriceMeanPastCompiles(t *testing.T) {
	for src, closure := range map[string]bool{"price.mean_past(86400)": true, "price.now <= price.mean_past(3600) * 1.1": true,
		"price.mean_past(job.wait + 1)": true, "price?.mean_past(60) > 0 ? 1 : 0": false} {
		prog, err := expr.Compile(src, expr.Env(runtime.Env{}))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		kind := numExpr
		if prog.Node().Type().Kind().String() == "bool" {
			kind = boolExpr
		}
		if got := closureCompile(prog.Node(), kind, &runtime.Expr{Source: src}) != nil; got != closure {
			t.Errorf("%s: compiled to a closure: %v, want %v", src, got, closure)
		}
		if deps, _ := depsOf(prog.Node()); deps&runtime.DepPrice == 0 || !deps.Dynamic() {
			t.Errorf("%s: deps %b", src, deps)
		}
	}
}

// An integer window works too (the VM would fail the call at run time:
// it does not convert a dynamic int to the float64 parameter).
func TestPriceMeanPastIntegerWindow(t *testing.T) {
	prog, err := expr.Compile("price.mean_past(job.nodes)", expr.Env(runtime.Env{}))
	if err != nil {
		t.Fatal(err)
	}
	f := closureCompile(prog.Node(), numExpr, &runtime.Expr{})
	if f == nil {
		t.Fatal("not compiled to a closure")
	}
	env := &runtime.Env{Job: runtime.JobEnv{Nodes: 7}, Price: runtime.PriceEnv{MeanPast: func(w float64) float64 { return 2 * w }}}
	if got := f.num(env); got != 14 {
		t.Errorf("price.mean_past(job.nodes) with 7 nodes = %v, want 14", got)
	}
}
