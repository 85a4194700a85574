package compiler

import (
	"testing"

	"github.com/expr-lang/expr"

	"github.com/pwrc/pwrc/runtime"
)

// Rules that call price.mean_past are left to expr's VM (the closure
// compiler covers no calls), and depsOf marks them as reading the price.
func TestPriceMeanPastIsLeftToTheVM(t *testing.T) {
	for _, src := range []string{"price.mean_past(86400)", "price.now <= price.mean_past(3600) * 1.1", "price?.mean_past(60) > 0 ? 1 : 0"} {
		prog, err := expr.Compile(src, expr.Env(runtime.Env{}))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		kind := numExpr
		if prog.Node().Type().Kind().String() == "bool" {
			kind = boolExpr
		}
		if closureCompile(prog.Node(), kind, &runtime.Expr{Source: src}) != nil {
			t.Errorf("%s: the closure compiler took a call", src)
		}
		if deps, _ := depsOf(prog.Node()); deps&runtime.DepPrice == 0 || !deps.Dynamic() {
			t.Errorf("%s: deps %b", src, deps)
		}
	}
}
