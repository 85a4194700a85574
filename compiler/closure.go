package compiler

import (
	"errors"
	"math"
	"reflect"

	"github.com/expr-lang/expr/ast"

	"github.com/pwrc/pwrc/runtime"
)

// The closure compiler turns a type-checked expr tree into nested Go
// closures over *runtime.Env. Rules that depend on time are evaluated for
// every waiting job in every scheduling pass (≈16 million times for a
// replay of HPC2N), where expr's VM costs ~250 ns a call; a closure tree
// reads struct fields directly and allocates nothing. It covers arithmetic,
// comparisons, logic, the ternary operator, environment fields and the
// numeric built-ins; any other rule runs on the VM. Tests check both paths
// agree on random environments.

type numFn = func(*runtime.Env) float64
type boolFn = func(*runtime.Env) bool

type fastRule struct {
	num  numFn
	bool boolFn
}

// closureCompile returns nil when the rule uses anything outside the subset.
func closureCompile(n ast.Node, kind exprKind, e *runtime.Expr) *fastRule {
	cc := closureCompiler{expr: e}
	if kind == numExpr {
		if f := cc.num(n); f != nil {
			return &fastRule{num: f}
		}
		return nil
	}
	if f := cc.cond(n); f != nil {
		return &fastRule{bool: f}
	}
	return nil
}

type closureCompiler struct{ expr *runtime.Expr }

// numFields and boolFields read the environment. A test checks that every
// tagged field of runtime.Env has an entry.
var numFields = map[string]numFn{
	"job.id":             func(e *runtime.Env) float64 { return float64(e.Job.ID) },
	"job.user":           func(e *runtime.Env) float64 { return float64(e.Job.User) },
	"job.group":          func(e *runtime.Env) float64 { return float64(e.Job.Group) },
	"job.queue":          func(e *runtime.Env) float64 { return float64(e.Job.Queue) },
	"job.submit":         func(e *runtime.Env) float64 { return e.Job.Submit },
	"job.wait":           func(e *runtime.Env) float64 { return e.Job.Wait },
	"job.nodes":          func(e *runtime.Env) float64 { return float64(e.Job.Nodes) },
	"job.procs":          func(e *runtime.Env) float64 { return float64(e.Job.Procs) },
	"job.runtime":        func(e *runtime.Env) float64 { return e.Job.Runtime },
	"job.walltime":       func(e *runtime.Env) float64 { return e.Job.Walltime },
	"job.estimate":       func(e *runtime.Env) float64 { return e.Job.Estimate },
	"job.power":          func(e *runtime.Env) float64 { return e.Job.Power },
	"job.power_per_node": func(e *runtime.Env) float64 { return e.Job.PowerPerNode },
	"now.seconds":        func(e *runtime.Env) float64 { return e.Now.Seconds },
	"now.hour":           func(e *runtime.Env) float64 { return e.Now.Hour },
	"now.weekday":        func(e *runtime.Env) float64 { return float64(e.Now.Weekday) },
	"now.day":            func(e *runtime.Env) float64 { return e.Now.Day },
	"price.now":          func(e *runtime.Env) float64 { return e.Price.Now },
	"price.mean":         func(e *runtime.Env) float64 { return e.Price.Mean },
	"system.nodes":       func(e *runtime.Env) float64 { return float64(e.System.Nodes) },
	"system.free":        func(e *runtime.Env) float64 { return float64(e.System.Free) },
	"system.idle":        func(e *runtime.Env) float64 { return float64(e.System.Idle) },
	"system.off":         func(e *runtime.Env) float64 { return float64(e.System.Off) },
	"system.busy":        func(e *runtime.Env) float64 { return float64(e.System.Busy) },
	"system.power":       func(e *runtime.Env) float64 { return e.System.Power },
	"system.queue":       func(e *runtime.Env) float64 { return float64(e.System.Queue) },
}

var boolFields = map[string]boolFn{
	"peak": func(e *runtime.Env) bool { return e.Peak },
}

func isNum(n ast.Node) bool  { return isNumeric(n.Type()) }
func isBool(n ast.Node) bool { return n.Type().Kind() == reflect.Bool }
func isInt(n ast.Node) bool {
	switch n.Type().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// path returns "root.field" for a plain member access on the environment.
func path(n ast.Node) string {
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Optional || m.Method {
		return ""
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok || !ok2 {
		return ""
	}
	return id.Value + "." + prop.Value
}

func (cc *closureCompiler) fail(err error) {
	panic(&runtime.EvalError{Expr: cc.expr, Err: err})
}

func (cc *closureCompiler) num(n ast.Node) numFn {
	if !isNum(n) {
		return nil
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		v := float64(x.Value)
		return func(*runtime.Env) float64 { return v }
	case *ast.FloatNode:
		v := x.Value
		return func(*runtime.Env) float64 { return v }
	case *ast.MemberNode:
		return numFields[path(x)]
	case *ast.UnaryNode:
		a := cc.num(x.Node)
		if a == nil {
			return nil
		}
		switch x.Operator {
		case "-":
			return func(e *runtime.Env) float64 { return -a(e) }
		case "+":
			return a
		}
	case *ast.BinaryNode:
		a, b := cc.num(x.Left), cc.num(x.Right)
		if a == nil || b == nil {
			return nil
		}
		switch x.Operator {
		case "+":
			return func(e *runtime.Env) float64 { return a(e) + b(e) }
		case "-":
			return func(e *runtime.Env) float64 { return a(e) - b(e) }
		case "*":
			return func(e *runtime.Env) float64 { return a(e) * b(e) }
		case "/":
			return func(e *runtime.Env) float64 { return a(e) / b(e) }
		case "**", "^":
			return func(e *runtime.Env) float64 { return math.Pow(a(e), b(e)) }
		case "%":
			if !isInt(x.Left) || !isInt(x.Right) {
				return nil
			}
			return func(e *runtime.Env) float64 {
				d := int(b(e))
				if d == 0 {
					cc.fail(errors.New("integer divide by zero"))
				}
				return float64(int(a(e)) % d)
			}
		}
	case *ast.ConditionalNode:
		c, a, b := cc.cond(x.Cond), cc.num(x.Exp1), cc.num(x.Exp2)
		if c == nil || a == nil || b == nil {
			return nil
		}
		return func(e *runtime.Env) float64 {
			if c(e) {
				return a(e)
			}
			return b(e)
		}
	case *ast.BuiltinNode:
		return cc.builtin(x)
	}
	return nil
}

func (cc *closureCompiler) builtin(x *ast.BuiltinNode) numFn {
	args := make([]numFn, len(x.Arguments))
	for i, a := range x.Arguments {
		if args[i] = cc.num(a); args[i] == nil {
			return nil
		}
	}
	one := func(f func(float64) float64) numFn {
		if len(args) != 1 {
			return nil
		}
		a := args[0]
		return func(e *runtime.Env) float64 { return f(a(e)) }
	}
	switch x.Name {
	case "abs":
		return one(math.Abs)
	case "ceil":
		return one(math.Ceil)
	case "floor":
		return one(math.Floor)
	case "round":
		return one(math.Round)
	case "int":
		return one(math.Trunc)
	case "float":
		return one(func(v float64) float64 { return v })
	case "min", "max":
		if len(args) < 1 {
			return nil
		}
		less := x.Name == "min"
		return func(e *runtime.Env) float64 {
			best := args[0](e)
			for _, a := range args[1:] {
				v := a(e)
				if (less && v < best) || (!less && v > best) {
					best = v
				}
			}
			return best
		}
	}
	return nil
}

func (cc *closureCompiler) cond(n ast.Node) boolFn {
	if !isBool(n) {
		return nil
	}
	switch x := n.(type) {
	case *ast.BoolNode:
		v := x.Value
		return func(*runtime.Env) bool { return v }
	case *ast.IdentifierNode:
		return boolFields[x.Value]
	case *ast.UnaryNode:
		a := cc.cond(x.Node)
		if a == nil || (x.Operator != "!" && x.Operator != "not") {
			return nil
		}
		return func(e *runtime.Env) bool { return !a(e) }
	case *ast.ConditionalNode:
		c, a, b := cc.cond(x.Cond), cc.cond(x.Exp1), cc.cond(x.Exp2)
		if c == nil || a == nil || b == nil {
			return nil
		}
		return func(e *runtime.Env) bool {
			if c(e) {
				return a(e)
			}
			return b(e)
		}
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&", "and", "||", "or":
			a, b := cc.cond(x.Left), cc.cond(x.Right)
			if a == nil || b == nil {
				return nil
			}
			if x.Operator == "&&" || x.Operator == "and" {
				return func(e *runtime.Env) bool { return a(e) && b(e) }
			}
			return func(e *runtime.Env) bool { return a(e) || b(e) }
		case "==", "!=":
			if isBool(x.Left) && isBool(x.Right) {
				a, b := cc.cond(x.Left), cc.cond(x.Right)
				if a == nil || b == nil {
					return nil
				}
				if x.Operator == "==" {
					return func(e *runtime.Env) bool { return a(e) == b(e) }
				}
				return func(e *runtime.Env) bool { return a(e) != b(e) }
			}
		}
		a, b := cc.num(x.Left), cc.num(x.Right)
		if a == nil || b == nil {
			return nil
		}
		switch x.Operator {
		case "<":
			return func(e *runtime.Env) bool { return a(e) < b(e) }
		case "<=":
			return func(e *runtime.Env) bool { return a(e) <= b(e) }
		case ">":
			return func(e *runtime.Env) bool { return a(e) > b(e) }
		case ">=":
			return func(e *runtime.Env) bool { return a(e) >= b(e) }
		case "==":
			return func(e *runtime.Env) bool { return a(e) == b(e) }
		case "!=":
			return func(e *runtime.Env) bool { return a(e) != b(e) }
		}
	}
	return nil
}
