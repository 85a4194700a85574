package compiler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/pwrc/pwrc/runtime"
)

// TestEnvFieldsCovered checks that the closure compiler can read every
// field of the rule environment, with the right type, and nothing else.
func TestEnvFieldsCovered(t *testing.T) {
	want := map[string]reflect.Kind{}
	et := reflect.TypeOf(runtime.Env{})
	for i := range et.NumField() {
		f := et.Field(i)
		name := f.Tag.Get("expr")
		if name == "" {
			t.Errorf("Env.%s has no expr tag", f.Name)
			continue
		}
		if name == "-" {
			continue // hidden from rules (Env.Names: read through name tests, names_test.go)
		}
		if f.Type.Kind() != reflect.Struct {
			want[name] = f.Type.Kind()
			continue
		}
		for j := range f.Type.NumField() {
			g := f.Type.Field(j)
			if g.Tag.Get("expr") == "" {
				t.Errorf("Env.%s.%s has no expr tag", f.Name, g.Name)
				continue
			}
			want[name+"."+g.Tag.Get("expr")] = g.Type.Kind()
		}
	}
	for path, kind := range want {
		if kind == reflect.Func {
			delete(want, path) // called, not read (price.mean_past): rules that call it run on the VM
			continue
		}
		switch kind {
		case reflect.Bool:
			if boolFields[path] == nil {
				t.Errorf("boolFields lacks %s", path)
			}
		case reflect.Int:
			if numFields[path] == nil || intFields[path] == nil {
				t.Errorf("numFields and intFields must both have %s", path)
			}
		case reflect.Float64:
			if numFields[path] == nil {
				t.Errorf("numFields lacks %s", path)
			}
		default:
			t.Errorf("%s has kind %s, which rules cannot read yet", path, kind)
		}
	}
	for _, m := range []map[string]bool{keys(numFields), keys(intFields), keys(boolFields)} {
		for path := range m {
			if _, ok := want[path]; !ok {
				t.Errorf("closure field %s is not in runtime.Env", path)
			}
		}
	}
	// Each reader reads its own field: set one field at a time.
	for path, kind := range want {
		env := &runtime.Env{}
		setField(env, path, 7)
		switch kind {
		case reflect.Bool:
			if !boolFields[path](env) {
				t.Errorf("%s reads another field", path)
			}
		default:
			for other, f := range numFields {
				if got := f(env); (other == path) != (got == 7) {
					t.Errorf("numFields[%s] = %v with only %s set", other, got, path)
				}
			}
			for other, f := range intFields {
				if got := f(env); (other == path) != (got == 7) {
					t.Errorf("intFields[%s] = %v with only %s set", other, got, path)
				}
			}
		}
	}
}

func keys[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// setField sets the env field at path ("job.nodes", "peak") to v.
func setField(env *runtime.Env, path string, v float64) {
	ev := reflect.ValueOf(env).Elem()
	root, field, _ := strings.Cut(path, ".")
	for i := range ev.NumField() {
		if ev.Type().Field(i).Tag.Get("expr") != root {
			continue
		}
		f := ev.Field(i)
		if field != "" {
			s := f
			for j := range s.NumField() {
				if s.Type().Field(j).Tag.Get("expr") == field {
					f = s.Field(j)
				}
			}
		}
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(v != 0)
		case reflect.Int:
			f.SetInt(int64(v))
		case reflect.Float64:
			f.SetFloat(v)
		}
	}
}

// randomEnv fills every field with a value drawn to hit edge cases: zeros
// (signed), small and realistic values, ints beyond 2^53 and near
// overflow, fractions, infinities and NaN.
func randomEnv(r *rand.Rand) *runtime.Env {
	env := &runtime.Env{}
	ev := reflect.ValueOf(env).Elem()
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Bool:
			v.SetBool(r.IntN(2) == 1)
		case reflect.Int:
			switch r.IntN(10) {
			case 0:
				v.SetInt(0)
			case 1:
				v.SetInt(-r.Int64N(10))
			case 2:
				v.SetInt(r.Int64N(1<<62) - 1<<61) // beyond float64's exact ints
			case 3:
				v.SetInt(1<<53 + r.Int64N(4))
			default:
				v.SetInt(r.Int64N(100000))
			}
		case reflect.Float64:
			switch r.IntN(16) {
			case 0:
				v.SetFloat(0)
			case 1:
				v.SetFloat(math.Copysign(0, -1))
			case 2:
				v.SetFloat(math.NaN())
			case 3:
				v.SetFloat(math.Inf(1 - 2*r.IntN(2)))
			case 4:
				v.SetFloat(float64(r.IntN(20)) - 10) // whole numbers
			case 5:
				v.SetFloat(r.Float64() - 0.5)
			case 6:
				v.SetFloat(math.Ldexp(r.Float64(), 60+r.IntN(20)))
			default:
				v.SetFloat(r.Float64() * 1e5)
			}
		}
	}
	fill(ev)
	// price.mean_past: a function of the window that fails, as the
	// runtime's does, outside 0 < w ≤ 10 years.
	base := env.Price.Now
	env.Price.MeanPast = func(w float64) float64 {
		if !(w > 0 && w <= 10*365*86400) {
			panic(fmt.Errorf("price.mean_past(%v): bad window", w))
		}
		return base + math.Mod(w, 7)
	}
	return env
}

// outcome is a rule's result on one environment.
type outcome struct {
	num  float64
	b    bool
	fail bool
}

func (o outcome) same(p outcome) bool {
	if o.fail || p.fail {
		return o.fail == p.fail
	}
	if math.IsNaN(o.num) && math.IsNaN(p.num) {
		return o.b == p.b
	}
	return math.Float64bits(o.num) == math.Float64bits(p.num) && o.b == p.b
}

func (o outcome) String() string {
	if o.fail {
		return "error"
	}
	return fmt.Sprintf("%v/%v", o.num, o.b)
}

// pair compiles src both ways. fast is nil when the closure compiler
// leaves the rule to the VM.
type pair struct {
	src  string
	kind exprKind
	prog *vm.Program
	fast *fastRule
}

func compilePair(src string) (*pair, error) {
	prog, err := expr.Compile(src, expr.Env(runtime.Env{}))
	if err != nil {
		return nil, err
	}
	kind := numExpr
	if t := prog.Node().Type(); t != nil && t.Kind() == reflect.Bool {
		kind = boolExpr
	}
	e := &runtime.Expr{Source: src}
	return &pair{src: src, kind: kind, prog: prog, fast: closureCompile(prog.Node(), kind, e)}, nil
}

func (p *pair) vm(env *runtime.Env) outcome {
	out, err := expr.Run(p.prog, env)
	if err != nil {
		return outcome{fail: true}
	}
	switch v := out.(type) {
	case float64:
		return outcome{num: v}
	case int:
		return outcome{num: float64(v)}
	case bool:
		return outcome{b: v}
	}
	return outcome{fail: true}
}

func (p *pair) closure(env *runtime.Env) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*runtime.EvalError); !ok {
				panic(r)
			}
			o = outcome{fail: true}
		}
	}()
	if p.kind == numExpr {
		return outcome{num: p.fast.num(env)}
	}
	return outcome{b: p.fast.bool(env)}
}

// check compares both paths on n random environments.
func (p *pair) check(t *testing.T, r *rand.Rand, n int) {
	t.Helper()
	for range n {
		env := randomEnv(r)
		if a, b := p.vm(env), p.closure(env); !a.same(b) {
			t.Errorf("%s: VM gives %v, closure %v, with env %+v", p.src, a, b, *env)
			return
		}
	}
}

// closureRules are rules the closure compiler must compile, by construct.
var closureRules = []string{
	// literals and fields
	"1", "2.5", "-3", "true", "false", "peak",
	"job.id", "job.user", "job.group", "job.queue", "job.partition", "job.submit", "job.wait", "job.nodes", "job.procs",
	"job.runtime", "job.walltime", "job.estimate", "job.power", "job.power_per_node",
	"now.seconds", "now.hour", "now.weekday", "now.day", "price.now", "price.mean",
	"price.mean_past(3600)", "price.now < price.mean_past(job.wait) * 1.1",
	"system.nodes", "system.free", "system.idle", "system.off", "system.busy", "system.power", "system.queue",
	// arithmetic on ints, floats and both
	"job.nodes + job.procs", "job.nodes - job.procs", "job.nodes * job.procs", "job.nodes / job.procs",
	"job.nodes % 7", "job.nodes % job.procs", "-job.nodes % 3", "job.id * job.user * job.group",
	"job.wait + job.walltime", "job.wait - 1", "job.wait * 2", "job.wait / job.walltime",
	"job.nodes + job.wait", "job.nodes * 1.5", "job.nodes / 2", "2 / job.nodes",
	"job.nodes ** 2", "job.wait ** 0.5", "2 ^ job.nodes", "-job.wait", "+job.nodes", "-(job.nodes * 2)",
	"(job.nodes + 1) * (job.procs - 1) / 3",
	// comparisons
	"job.nodes < 16", "job.nodes <= job.procs", "job.nodes > 1.5", "job.wait >= 3600",
	"job.nodes == job.procs", "job.nodes != 4", "job.wait == job.walltime", "job.power != 0",
	"job.nodes == 4.0", "1 < job.wait",
	// logic
	"!peak", "not peak", "peak && job.nodes > 4", "peak || job.wait > 60", "peak and job.nodes > 4",
	"peak or false", "peak == (job.nodes > 2)", "peak != true", "!(peak && job.power_per_node > 300)",
	"!peak || job.nodes <= 16",
	// ternaries
	"peak ? 1 : 0", "peak ? job.wait : job.walltime", "peak ? job.nodes : job.procs",
	"peak ? 1 : 2.5", "peak ? job.nodes : job.wait", "job.nodes > 4 ? peak : !peak",
	"(peak ? 1 : 2.5) * job.wait", "job.wait / (peak ? 2 : 0.5)", "(peak ? 1 : 2.5) < job.wait",
	"job.power_per_node < 200 ? 1 : 0",
	// built-ins
	"abs(job.wait)", "abs(job.nodes)", "abs(-job.wait)", "ceil(job.wait)", "floor(job.wait)",
	"round(job.wait)", "ceil(job.nodes)", "int(job.wait)", "int(job.nodes)", "float(job.nodes)",
	"int(job.wait) % 7", "min(job.nodes, job.procs)", "max(job.nodes, job.procs, 3)",
	"min(job.wait, job.walltime)", "max(job.walltime, 60)", "max(60, job.walltime)",
	"min(job.nodes, 2.5)", "min(job.nodes, job.wait, job.procs)", "job.wait / max(job.walltime, 60)",
	"max(job.nodes, 0.5) < job.wait", "round(min(job.nodes, 2.5))", "float(max(job.nodes, 2.5))",
	"job.wait / max(job.walltime, 60) + (peak ? 0 : 1)",
}

// vmRules are rules the closure compiler leaves to the VM, and why.
var vmRules = map[string]string{
	"min(job.nodes, 2.5) + 1":               "int arithmetic on a value that may be a float",
	"max(60, job.walltime) > job.nodes":     "comparison of two values that may both be ints",
	"(peak ? 1 : 2.5) + job.nodes":          "arithmetic on a value that may be an int",
	"-(peak ? 1 : 2.5)":                     "negation of a value that may be an int",
	"int(min(job.nodes, 2.5))":              "int() of a value that may be an int",
	"abs(peak ? 1 : -2.5)":                  "abs() keeps its argument's type",
	"job.nodes in [1, 2, 4]":                "membership",
	"len([job.nodes, job.procs])":           "arrays",
	"sum([job.nodes, job.procs])":           "", // expr's optimizer makes it job.nodes + job.procs
	"mean([job.nodes, job.procs])":          "aggregates",
	"job.wait ?? 0":                         "nil coalescing",
	"now.hour in 6..22":                     "ranges",
	"job.nodes > 4 && job.wait > 0 ? 1 : 0": "", // compiles: the ternary binds loosest
}

func TestClosureMatchesVM(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, src := range closureRules {
		p, err := compilePair(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if p.fast == nil {
			t.Errorf("%s: the closure compiler does not cover it", src)
			continue
		}
		p.check(t, r, 2000)
	}
}

func TestClosureFallsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for src, why := range vmRules {
		p, err := compilePair(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if (p.fast == nil) != (why != "") {
			t.Errorf("%s: closure compiled: %v, want %v (%s)", src, p.fast != nil, why == "", why)
		}
		if p.fast != nil {
			p.check(t, r, 500)
		}
	}
}

// TestClosureDivideByZero checks that `%` by zero fails in both paths.
func TestClosureDivideByZero(t *testing.T) {
	p, err := compilePair("job.nodes % job.procs")
	if err != nil || p.fast == nil {
		t.Fatal(err)
	}
	env := &runtime.Env{Job: runtime.JobEnv{Nodes: 3}}
	if a, b := p.vm(env), p.closure(env); !a.fail || !b.fail {
		t.Errorf("VM %v, closure %v: both must fail", a, b)
	}
}

// gen builds random well-typed rules over the environment.
type gen struct {
	r      *rand.Rand
	ints   []string
	floats []string
}

func newGen(r *rand.Rand) *gen {
	g := &gen{r: r}
	for path := range numFields {
		if intFields[path] != nil {
			g.ints = append(g.ints, path)
		} else {
			g.floats = append(g.floats, path)
		}
	}
	sort.Strings(g.ints)
	sort.Strings(g.floats)
	return g
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) int(d int) string {
	if d <= 0 || g.r.IntN(4) == 0 {
		if g.r.IntN(3) == 0 {
			return fmt.Sprint(g.r.IntN(20) - 5)
		}
		return g.pick(g.ints...)
	}
	switch g.r.IntN(8) {
	case 0:
		return "-" + g.int(d-1)
	case 1, 2:
		return "(" + g.int(d-1) + " " + g.pick("+", "-", "*", "%") + " " + g.int(d-1) + ")"
	case 3:
		return "abs(" + g.int(d-1) + ")"
	case 4:
		return "int(" + g.num(d-1) + ")"
	case 5:
		return g.pick("min", "max") + "(" + g.int(d-1) + ", " + g.int(d-1) + ")"
	case 6:
		return "(" + g.cond(d-1) + " ? " + g.int(d-1) + " : " + g.int(d-1) + ")"
	}
	return g.pick(g.ints...)
}

func (g *gen) num(d int) string {
	if d <= 0 || g.r.IntN(4) == 0 {
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprint(float64(g.r.IntN(100)) / 8)
		case 1:
			return g.int(0)
		}
		return g.pick(g.floats...)
	}
	switch g.r.IntN(9) {
	case 0:
		return "-" + g.num(d-1)
	case 1, 2:
		return "(" + g.num(d-1) + " " + g.pick("+", "-", "*", "/", "**") + " " + g.num(d-1) + ")"
	case 3:
		return g.pick("abs", "ceil", "floor", "round", "float") + "(" + g.num(d-1) + ")"
	case 4:
		return g.pick("min", "max") + "(" + g.num(d-1) + ", " + g.num(d-1) + ")"
	case 5:
		return "(" + g.cond(d-1) + " ? " + g.num(d-1) + " : " + g.num(d-1) + ")"
	case 6:
		return g.int(d)
	}
	return g.pick(g.floats...)
}

func (g *gen) cond(d int) string {
	if d <= 0 || g.r.IntN(5) == 0 {
		return g.pick("peak", "true", "false")
	}
	switch g.r.IntN(7) {
	case 0:
		return "!" + g.cond(d-1)
	case 1, 2:
		return "(" + g.cond(d-1) + " " + g.pick("&&", "||", "==", "!=", "and", "or") + " " + g.cond(d-1) + ")"
	case 3:
		return "(" + g.cond(d-1) + " ? " + g.cond(d-1) + " : " + g.cond(d-1) + ")"
	}
	return "(" + g.num(d-1) + " " + g.pick("<", "<=", ">", ">=", "==", "!=") + " " + g.num(d-1) + ")"
}

// TestClosureRandomRules generates well-typed rules and requires the two
// paths to agree wherever the closure compiler takes a rule.
func TestClosureRandomRules(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	g := newGen(r)
	const rules = 3000
	compiled, fast := 0, 0
	for i := range rules {
		src := g.num(4)
		if i%2 == 1 {
			src = g.cond(4)
		}
		p, err := compilePair(src)
		if err != nil {
			continue // e.g. `%` of a float-typed min: the checker says no
		}
		compiled++
		if p.fast == nil {
			continue
		}
		fast++
		p.check(t, r, 100)
	}
	t.Logf("%d rules: %d type-check, %d on the closure path", rules, compiled, fast)
	if compiled < rules*9/10 || fast < compiled*3/4 {
		t.Errorf("the generator or the closure compiler lost coverage: %d of %d compile, %d fast", compiled, rules, fast)
	}
}

// TestJobFieldMask: the engine fills only the job fields a rule reads
// (depsOf's mask), so scrambling every other job field must not change
// any rule's value.
func TestJobFieldMask(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rules := append([]string{}, closureRules...)
	for src := range vmRules {
		rules = append(rules, src)
	}
	for _, src := range rules {
		p, err := compilePair(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_, mask := depsOf(p.prog.Node())
		for range 200 {
			env := randomEnv(r)
			scrambled := *env
			other := randomEnv(r).Job
			jv, ov := reflect.ValueOf(&scrambled.Job).Elem(), reflect.ValueOf(other)
			for i := range jv.NumField() {
				name := jv.Type().Field(i).Tag.Get("expr")
				jf, _ := runtime.JobFieldNamed(name)
				if mask&jf.Bit == 0 {
					jv.Field(i).Set(ov.Field(i))
				}
			}
			if a, b := p.vm(env), p.vm(&scrambled); !a.same(b) {
				t.Errorf("%s: depends on a job field outside its mask %015b: %v vs %v", src, mask, a, b)
				break
			}
		}
	}
}

// The closure compiler's readers of job fields agree with the job-field
// table's: each field alone, on random environments, and the integer
// fields (and only they) have integer readers.
func TestJobFieldReaders(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, f := range runtime.JobFieldTable {
		path := "job." + f.Name
		num, in := numFields[path], intFields[path]
		if num == nil {
			t.Fatalf("numFields lacks %s", path)
		}
		if (in != nil) != (f.Int != nil) {
			t.Errorf("%s: an integer reader in the closure compiler %v, in the table %v", path, in != nil, f.Int != nil)
		}
		for range 50 {
			env := randomEnv(r)
			if a, b := num(env), f.Num(&env.Job); a != b && !(a != a && b != b) {
				t.Fatalf("%s: the closure compiler reads %v, the table %v", path, a, b)
			}
			if in != nil && in(env) != f.Int(&env.Job) {
				t.Fatalf("%s: the closure compiler reads %v, the table %v", path, in(env), f.Int(&env.Job))
			}
		}
	}
}
