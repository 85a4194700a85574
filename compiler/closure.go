package compiler

import (
	"errors"
	"math"
	"reflect"

	"github.com/expr-lang/expr/ast"

	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The closure compiler turns a type-checked expr tree into nested Go
// closures over *runtime.Env. Rules that depend on time are evaluated for
// every waiting job in every scheduling pass (≈16 million times for a
// replay of HPC2N), where expr's VM costs ~250 ns a call; a closure tree
// reads struct fields directly and allocates nothing. It covers arithmetic,
// comparisons, logic, the ternary operator, environment fields and the
// numeric built-ins; any other rule runs on the VM.
//
// The closures compute exactly what the VM does, bit for bit: integer
// sub-expressions are evaluated in integer arithmetic (wrapping as Go's int
// does) and converted to float where expr converts them. Where the VM's
// result depends on dynamic types the checker cannot see (`min(job.nodes,
// 2.5)` is typed int but may give a float) the closure stays in floats only
// when that gives the same answer; otherwise the rule runs on the VM.
// closure_test.go checks both paths agree on random environments.

type numFn = func(*runtime.Env) float64
type intFn = func(*runtime.Env) int
type boolFn = func(*runtime.Env) bool

// constant is a closure that returns v.
func constant[T any](v T) func(*runtime.Env) T { return func(*runtime.Env) T { return v } }

// choose is the ternary operator over closures of any result type.
func choose[T any](c boolFn, a, b func(*runtime.Env) T) func(*runtime.Env) T {
	if c == nil || a == nil || b == nil {
		return nil
	}
	return func(e *runtime.Env) T {
		if c(e) {
			return a(e)
		}
		return b(e)
	}
}

// negate and plusMinusTimes are the arithmetic shared by int and float
// closures; float-only and int-only operators are spelled out where used.
func negate[T int | float64](op string, a func(*runtime.Env) T) func(*runtime.Env) T {
	switch {
	case a == nil:
		return nil
	case op == "-":
		return func(e *runtime.Env) T { return -a(e) }
	case op == "+":
		return a
	}
	return nil
}

func plusMinusTimes[T int | float64](op string, a, b func(*runtime.Env) T) func(*runtime.Env) T {
	if a == nil || b == nil {
		return nil
	}
	switch op {
	case "+":
		return func(e *runtime.Env) T { return a(e) + b(e) }
	case "-":
		return func(e *runtime.Env) T { return a(e) - b(e) }
	case "*":
		return func(e *runtime.Env) T { return a(e) * b(e) }
	}
	return nil
}

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

// numFields, intFields and boolFields read the environment. A test checks
// that every tagged field of runtime.Env has an entry: numFields holds all
// numeric fields (ints converted), intFields the integer ones as ints.
var numFields = map[string]numFn{
	"job.id":                func(e *runtime.Env) float64 { return float64(e.Job.ID) },
	"job.user":              func(e *runtime.Env) float64 { return float64(e.Job.User) },
	"job.group":             func(e *runtime.Env) float64 { return float64(e.Job.Group) },
	"job.queue":             func(e *runtime.Env) float64 { return float64(e.Job.Queue) },
	"job.partition":         func(e *runtime.Env) float64 { return float64(e.Job.Partition) },
	"job.account":           func(e *runtime.Env) float64 { return float64(e.Job.Account) },
	"job.qos":               func(e *runtime.Env) float64 { return float64(e.Job.QOS) },
	"job.submit":            func(e *runtime.Env) float64 { return e.Job.Submit },
	"job.wait":              func(e *runtime.Env) float64 { return e.Job.Wait },
	"job.nodes":             func(e *runtime.Env) float64 { return float64(e.Job.Nodes) },
	"job.procs":             func(e *runtime.Env) float64 { return float64(e.Job.Procs) },
	"job.runtime":           func(e *runtime.Env) float64 { return e.Job.Runtime },
	"job.walltime":          func(e *runtime.Env) float64 { return e.Job.Walltime },
	"job.estimate":          func(e *runtime.Env) float64 { return e.Job.Estimate },
	"job.power":             func(e *runtime.Env) float64 { return e.Job.Power },
	"job.power_per_node":    func(e *runtime.Env) float64 { return e.Job.PowerPerNode },
	"job.alloc":             func(e *runtime.Env) float64 { return float64(e.Job.Alloc) },
	"now.seconds":           func(e *runtime.Env) float64 { return e.Now.Seconds },
	"now.hour":              func(e *runtime.Env) float64 { return e.Now.Hour },
	"now.weekday":           func(e *runtime.Env) float64 { return float64(e.Now.Weekday) },
	"now.day":               func(e *runtime.Env) float64 { return e.Now.Day },
	"price.now":             func(e *runtime.Env) float64 { return e.Price.Now },
	"price.mean":            func(e *runtime.Env) float64 { return e.Price.Mean },
	"system.nodes":          func(e *runtime.Env) float64 { return float64(e.System.Nodes) },
	"system.free":           func(e *runtime.Env) float64 { return float64(e.System.Free) },
	"system.idle":           func(e *runtime.Env) float64 { return float64(e.System.Idle) },
	"system.off":            func(e *runtime.Env) float64 { return float64(e.System.Off) },
	"system.busy":           func(e *runtime.Env) float64 { return float64(e.System.Busy) },
	"system.power":          func(e *runtime.Env) float64 { return e.System.Power },
	"system.queue":          func(e *runtime.Env) float64 { return float64(e.System.Queue) },
	"system.job_power":      func(e *runtime.Env) float64 { return e.System.JobPower },
	"system.budget":         func(e *runtime.Env) float64 { return e.System.Budget },
	"system.infrastructure": func(e *runtime.Env) float64 { return e.System.Infrastructure },
	"carbon.now":            func(e *runtime.Env) float64 { return e.Carbon.Now },
	"carbon.mean":           func(e *runtime.Env) float64 { return e.Carbon.Mean },
}

var intFields = map[string]intFn{
	"job.id":        func(e *runtime.Env) int { return e.Job.ID },
	"job.user":      func(e *runtime.Env) int { return e.Job.User },
	"job.group":     func(e *runtime.Env) int { return e.Job.Group },
	"job.queue":     func(e *runtime.Env) int { return e.Job.Queue },
	"job.partition": func(e *runtime.Env) int { return e.Job.Partition },
	"job.account":   func(e *runtime.Env) int { return e.Job.Account },
	"job.qos":       func(e *runtime.Env) int { return e.Job.QOS },
	"job.nodes":     func(e *runtime.Env) int { return e.Job.Nodes },
	"job.procs":     func(e *runtime.Env) int { return e.Job.Procs },
	"job.alloc":     func(e *runtime.Env) int { return e.Job.Alloc },
	"now.weekday":   func(e *runtime.Env) int { return e.Now.Weekday },
	"system.nodes":  func(e *runtime.Env) int { return e.System.Nodes },
	"system.free":   func(e *runtime.Env) int { return e.System.Free },
	"system.idle":   func(e *runtime.Env) int { return e.System.Idle },
	"system.off":    func(e *runtime.Env) int { return e.System.Off },
	"system.busy":   func(e *runtime.Env) int { return e.System.Busy },
	"system.queue":  func(e *runtime.Env) int { return e.System.Queue },
}

var boolFields = map[string]boolFn{
	"peak": func(e *runtime.Env) bool { return e.Peak },
}

func isBool(n ast.Node) bool { return n.Type() != nil && n.Type().Kind() == reflect.Bool }
func isInt(n ast.Node) bool  { return n.Type() != nil && n.Type().Kind() == reflect.Int }
func isFloat(n ast.Node) bool {
	return n.Type() != nil && n.Type().Kind() == reflect.Float64 && !dynamicNum(n)
}

// dynamicNum reports nodes whose value may be an int or a float whatever
// their static type: min and max of mixed arguments (`min(job.nodes,
// 2.5)` is typed int), ternaries with an int and a float branch (typed
// interface{}), and whatever passes such a value on without making it a
// float.
func dynamicNum(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.BuiltinNode:
		switch x.Name {
		case "min", "max":
			ints, floats := 0, 0
			for _, a := range x.Arguments {
				switch {
				case dynamicNum(a):
					return true
				case isInt(a):
					ints++
				case isFloat(a):
					floats++
				}
			}
			return ints > 0 && floats > 0
		case "abs":
			return len(x.Arguments) == 1 && dynamicNum(x.Arguments[0])
		}
	case *ast.ConditionalNode:
		t := n.Type()
		return t == nil || t.Kind() == reflect.Interface || dynamicNum(x.Exp1) || dynamicNum(x.Exp2)
	case *ast.UnaryNode:
		return dynamicNum(x.Node)
	case *ast.BinaryNode:
		switch x.Operator {
		case "+", "-", "*", "%":
			// An int operand meets a maybe-int: the result may be either.
			return (dynamicNum(x.Left) && !isFloat(x.Right)) || (dynamicNum(x.Right) && !isFloat(x.Left))
		}
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

// num compiles a node the VM evaluates to a number, returning its value
// as float64 exactly as the VM's result converts to float64.
func (cc *closureCompiler) num(n ast.Node) numFn {
	if isInt(n) && !dynamicNum(n) {
		i := cc.integer(n)
		if i == nil {
			return nil
		}
		if c, ok := n.(*ast.IntegerNode); ok {
			return constant(float64(c.Value))
		}
		return func(e *runtime.Env) float64 { return float64(i(e)) }
	}
	switch x := n.(type) {
	case *ast.FloatNode:
		return constant(x.Value)
	case *ast.ConstantNode:
		if v, ok := x.Value.(float64); ok {
			return constant(v)
		}
	case *ast.MemberNode:
		if !isFloat(x) {
			return nil
		}
		return numFields[path(x)]
	case *ast.UnaryNode:
		if !isFloat(x) || !isFloat(x.Node) {
			return nil
		}
		return negate(x.Operator, cc.num(x.Node))
	case *ast.BinaryNode:
		return cc.arith(x)
	case *ast.ConditionalNode:
		// A ternary with an int and a float branch gives either; either
		// converts to float64 as the VM's result does.
		return choose(cc.cond(x.Cond), cc.num(x.Exp1), cc.num(x.Exp2))
	case *ast.BuiltinNode:
		return cc.builtin(x)
	case *ast.CallNode:
		return cc.call(x)
	}
	return nil
}

// call compiles price.mean_past(w), the one call on the environment. A
// bad window panics in the runtime with an error; it becomes the rule's
// EvalError, as the VM reports it.
func (cc *closureCompiler) call(x *ast.CallNode) numFn {
	m, ok := x.Callee.(*ast.MemberNode)
	if !ok || m.Optional || len(x.Arguments) != 1 || !isFloat(x) {
		return nil
	}
	root, ok1 := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || root.Value != "price" || prop.Value != "mean_past" {
		return nil
	}
	w := cc.num(x.Arguments[0])
	if w == nil {
		return nil
	}
	return func(e *runtime.Env) (v float64) {
		defer func() {
			if r := recover(); r != nil {
				if err, ok := r.(error); ok {
					cc.fail(err)
				}
				panic(r)
			}
		}()
		return e.Price.MeanPast(w(e))
	}
}

// arith compiles + - * / ** ^ whose result is a float. With an int
// operand, the VM converts it to float64 first; a dynamic operand (int or
// float) converts the same way, but only when the other operand is surely
// a float (or the operator always gives a float), since int op int would
// stay in integer arithmetic.
func (cc *closureCompiler) arith(x *ast.BinaryNode) numFn {
	switch x.Operator {
	case "/", "**", "^":
	case "+", "-", "*":
		if !isFloat(x.Left) && !isFloat(x.Right) {
			return nil
		}
	default:
		return nil
	}
	a, b := cc.num(x.Left), cc.num(x.Right)
	if a == nil || b == nil {
		return nil
	}
	switch x.Operator {
	case "+", "-", "*":
		return plusMinusTimes(x.Operator, a, b)
	case "/":
		return func(e *runtime.Env) float64 { return a(e) / b(e) }
	default: // "**", "^"
		return func(e *runtime.Env) float64 { return math.Pow(a(e), b(e)) }
	}
}

// integer compiles a node of static type int whose value is surely an int.
func (cc *closureCompiler) integer(n ast.Node) intFn {
	if !isInt(n) || dynamicNum(n) {
		return nil
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		return constant(x.Value)
	case *ast.ConstantNode:
		if v, ok := x.Value.(int); ok {
			return constant(v)
		}
	case *ast.MemberNode:
		return intFields[path(x)]
	case *ast.UnaryNode:
		return negate(x.Operator, cc.integer(x.Node))
	case *ast.BinaryNode:
		a, b := cc.integer(x.Left), cc.integer(x.Right)
		if a == nil || b == nil {
			return nil
		}
		switch x.Operator {
		case "+", "-", "*":
			return plusMinusTimes(x.Operator, a, b)
		case "%":
			return func(e *runtime.Env) int {
				d := b(e)
				if d == 0 {
					cc.fail(errors.New("integer divide by zero"))
				}
				return a(e) % d
			}
		}
	case *ast.ConditionalNode:
		return choose(cc.cond(x.Cond), cc.integer(x.Exp1), cc.integer(x.Exp2))
	case *ast.BuiltinNode:
		switch x.Name {
		case "abs":
			if len(x.Arguments) != 1 {
				return nil
			}
			a := cc.integer(x.Arguments[0])
			if a == nil {
				return nil
			}
			return func(e *runtime.Env) int {
				if v := a(e); v < 0 {
					return -v
				} else {
					return v
				}
			}
		case "int":
			if len(x.Arguments) != 1 {
				return nil
			}
			arg := x.Arguments[0]
			if isFloat(arg) {
				a := cc.num(arg)
				if a == nil {
					return nil
				}
				return func(e *runtime.Env) int { return int(a(e)) }
			}
			return cc.integer(arg)
		case "min", "max":
			args := make([]intFn, len(x.Arguments))
			for i, a := range x.Arguments {
				if args[i] = cc.integer(a); args[i] == nil {
					return nil
				}
			}
			if len(args) == 0 {
				return nil
			}
			less := x.Name == "min"
			return func(e *runtime.Env) int {
				best := args[0](e)
				for _, a := range args[1:] {
					if v := a(e); (less && v < best) || (!less && v > best) {
						best = v
					}
				}
				return best
			}
		}
	}
	return nil
}

func (cc *closureCompiler) builtin(x *ast.BuiltinNode) numFn {
	if x.Name == "min" || x.Name == "max" {
		return cc.minMax(x)
	}
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
		if len(x.Arguments) != 1 || !isFloat(x.Arguments[0]) {
			return nil // int or dynamic: abs keeps the type
		}
		// Not math.Abs: the VM returns -0 and NaN as they are.
		return one(func(v float64) float64 {
			if v < 0 {
				return -v
			}
			return v
		})
	case "ceil":
		return one(math.Ceil)
	case "floor":
		return one(math.Floor)
	case "round":
		return one(math.Round)
	case "float":
		return one(func(v float64) float64 { return v })
	}
	return nil
}

// minMax compiles min and max of mixed int and float arguments. As in the
// VM, each argument keeps its type, two ints compare as ints, an int and a
// float as floats, and the winner is returned as it is (here converted to
// float64, as the VM's result is).
func (cc *closureCompiler) minMax(x *ast.BuiltinNode) numFn {
	n := len(x.Arguments)
	if n == 0 {
		return nil
	}
	ints := make([]intFn, n)
	floats := make([]numFn, n)
	for i, a := range x.Arguments {
		switch {
		case isFloat(a):
			floats[i] = cc.num(a)
		case isInt(a) && !dynamicNum(a):
			ints[i] = cc.integer(a)
		}
		if ints[i] == nil && floats[i] == nil {
			return nil
		}
	}
	isMin := x.Name == "min"
	return func(e *runtime.Env) float64 {
		var bi int
		var bf float64
		bInt := ints[0] != nil
		if bInt {
			bi = ints[0](e)
		} else {
			bf = floats[0](e)
		}
		for k := 1; k < n; k++ {
			var vi int
			var vf float64
			vInt := ints[k] != nil
			if vInt {
				vi = ints[k](e)
			} else {
				vf = floats[k](e)
			}
			var less, more bool // best < v, best > v
			switch {
			case bInt && vInt:
				less, more = bi < vi, bi > vi
			case bInt:
				less, more = float64(bi) < vf, float64(bi) > vf
			case vInt:
				less, more = bf < float64(vi), bf > float64(vi)
			default:
				less, more = bf < vf, bf > vf
			}
			if (isMin && more) || (!isMin && less) {
				bi, bf, bInt = vi, vf, vInt
			}
		}
		if bInt {
			return float64(bi)
		}
		return bf
	}
}

func (cc *closureCompiler) cond(n ast.Node) boolFn {
	if !isBool(n) {
		return nil
	}
	switch x := n.(type) {
	case *ast.BoolNode:
		return constant(x.Value)
	case *ast.ConstantNode:
		if v, ok := x.Value.(bool); ok {
			return constant(v)
		}
	case *ast.IdentifierNode:
		return boolFields[x.Value]
	case *ast.CallNode:
		return cc.nameTest(x)
	case *ast.UnaryNode:
		a := cc.cond(x.Node)
		if a == nil || (x.Operator != "!" && x.Operator != "not") {
			return nil
		}
		return func(e *runtime.Env) bool { return !a(e) }
	case *ast.ConditionalNode:
		return choose(cc.cond(x.Cond), cc.cond(x.Exp1), cc.cond(x.Exp2))
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
		return cc.compare(x)
	}
	return nil
}

// nameTest compiles __names(k, $env), a comparison of a name field with
// strings taken out of the rule (names.go): the run's answer for the
// job's number, read from Env.Names.
func (cc *closureCompiler) nameTest(x *ast.CallNode) boolFn {
	id, ok := x.Callee.(*ast.IdentifierNode)
	if !ok || id.Value != nameTestFunc || len(x.Arguments) != 2 {
		return nil
	}
	k, ok := x.Arguments[0].(*ast.IntegerNode)
	if !ok || k.Value < 0 || k.Value >= len(cc.expr.NameTests) {
		return nil
	}
	t := cc.expr.NameTests[k.Value]
	read := intFields["job."+workload.NameFieldKeys[t.Field]]
	if read == nil {
		return nil
	}
	slot := t.Slot
	return func(e *runtime.Env) bool {
		ns := e.Names
		if ns == nil {
			cc.fail(errNoNames)
		}
		return ns.Has(slot, read(e))
	}
}

// compare compiles a numeric comparison: in ints when both sides are ints,
// as the VM does, else in floats when one side is surely a float.
func (cc *closureCompiler) compare(x *ast.BinaryNode) boolFn {
	switch x.Operator {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return nil
	}
	if a, b := cc.integer(x.Left), cc.integer(x.Right); a != nil && b != nil {
		return comparison(x.Operator, a, b)
	}
	if !isFloat(x.Left) && !isFloat(x.Right) {
		return nil
	}
	a, b := cc.num(x.Left), cc.num(x.Right)
	if a == nil || b == nil {
		return nil
	}
	return comparison(x.Operator, a, b)
}

// comparison is a comparison operator over int or float closures.
func comparison[T int | float64](op string, a, b func(*runtime.Env) T) boolFn {
	switch op {
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
	}
	return func(e *runtime.Env) bool { return a(e) != b(e) }
}
