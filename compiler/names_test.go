package compiler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The names environment is runtime.Env with exactly the job-field table's
// name fields as strings.
func TestNamesEnv(t *testing.T) {
	jt := namesEnvType.Field(envFieldIndex("job")).Type
	if jt.NumField() != len(runtime.JobFieldTable) {
		t.Fatalf("names env has %d job fields, the table %d", jt.NumField(), len(runtime.JobFieldTable))
	}
	for i, f := range runtime.JobFieldTable {
		sf := jt.Field(i)
		if sf.Tag.Get("expr") != f.Name || (sf.Type.Kind() == reflect.String) != f.Named {
			t.Errorf("%s: names env field %s %s", f.Name, sf.Tag.Get("expr"), sf.Type)
		}
	}
	et, rt := namesEnvType, reflect.TypeOf(runtime.Env{})
	for i := range rt.NumField() {
		if et.Field(i).Name != rt.Field(i).Name || et.Field(i).Tag != rt.Field(i).Tag {
			t.Errorf("names env field %d: %s, runtime.Env's %s", i, et.Field(i).Name, rt.Field(i).Name)
		}
	}
}

// namedRules are rules on Slurm accounting: conditions on name fields
// alone, with each other and with numbers, on both evaluation paths.
var namedRules = []string{
	`job.user == "alice"`,
	`job.user != "alice"`,
	`"alice" == job.user`,
	`job.user == "zed"`,
	`job.user == ""`,
	`job.partition in ["gpu", "debug"]`,
	`job.partition not in ["gpu"]`,
	`job.account startsWith "p-"`,
	`job.qos matches "^(high|normal)$"`,
	`lower(job.user) == "alice"`,
	`len(job.group) > 3`,
	`job.user == "alice" || job.user == "bob"`,
	`job.user == "alice" && job.nodes > 2 || job.group == "phys"`,
	`!(job.user in ["alice", "bob"]) && job.partition == "gpu"`,
	`(job.user == "alice" ? 2 : 1) * job.nodes`,
	`job.user in ["alice"] ? job.walltime : -job.walltime`,
	`job.partition == "gpu" ? (job.qos == "high" ? 3 : 2) : 1`,
	// The rest of the rule runs on the VM (filter), the tests too.
	`len(filter([1, 2, 3], # > job.nodes)) + (job.user == "bob" ? 10 : 0)`,
	`all([1], job.account == "p-chem") || job.nodes > 3`,
}

var testNames = workload.Names{
	workload.NameUser:      {"alice", "bob", "Alice", "carol"},
	workload.NameGroup:     {"chem", "phys"},
	workload.NameAccount:   {"p-chem", "q-phys", "p-bio"},
	workload.NamePartition: {"compute", "gpu", "debug"},
	workload.NameQOS:       {"normal", "high", "low"},
}

// namedRule compiles a rule of a run on Slurm accounting, returning it
// evaluated on the closure path (nil if it has none) and on the VM.
func namedRule(t *testing.T, src string) (closure, onVM *runtime.Expr, kind exprKind) {
	t.Helper()
	c := newCompiler(Options{})
	c.names = namesAreStrings
	r := lang.Range{File: "t.pwr", Start: lang.Pos{Line: 1, Col: 1}}
	prog, node, tests, ok := c.compileNamed(&lang.Stmt{Key: &lang.Ident{Name: "priority"}}, src, r, nil)
	if !ok {
		t.Fatalf("%s: %v", src, c.diags)
	}
	kind = numExpr
	if node.Type().Kind() == reflect.Bool {
		kind = boolExpr
	}
	closure = &runtime.Expr{Source: src, NameTests: tests}
	if fast := closureCompile(node, kind, closure); fast != nil {
		closure.Num, closure.Bool = fast.num, fast.bool
	} else {
		closure = nil
	}
	onVM = &runtime.Expr{Source: src, NameTests: tests}
	c.vmEval(onVM, prog, kind)
	return closure, onVM, kind
}

// Every rule gives, for every job, what expr gives with the names
// themselves in the environment, on the closure path and on the VM, and
// the closure path allocates nothing.
func TestNamedRules(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	closures := 0
	for _, src := range namedRules {
		closure, onVM, kind := namedRule(t, src)
		ref, err := expr.Compile(src, expr.Env(namesEnv))
		if err != nil {
			t.Fatal(err)
		}
		ns, err := runtime.AnswerNames(onVM.NameTests, &testNames)
		if err != nil {
			t.Fatal(err)
		}
		if closure != nil {
			closures++
		}
		for range 300 {
			env := &runtime.Env{Names: ns}
			env.Job.Nodes, env.Job.Walltime = r.IntN(6), float64(r.IntN(1000))
			named := reflect.New(namesEnvType).Elem()
			job := named.Field(envFieldIndex("job"))
			job.Field(jobFieldIndex(jf("nodes"))).SetInt(int64(env.Job.Nodes))
			job.Field(jobFieldIndex(jf("walltime"))).SetFloat(env.Job.Walltime)
			for f := range workload.NumNameFields {
				id := r.IntN(len(testNames[f])+1) - 1 + btoi(r.IntN(2) == 0) // −1 (empty) .. n
				id = max(id, -1)
				if id == 0 {
					id = -1
				}
				i := jobFieldIndexOf(f)
				reflect.ValueOf(&env.Job).Elem().Field(i).SetInt(int64(id))
				job.Field(i).SetString(testNames.Name(f, id))
			}
			want, err := vm.Run(ref, named.Interface())
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			for _, e := range []*runtime.Expr{closure, onVM} {
				if e == nil {
					continue
				}
				var got any
				if kind == boolExpr {
					got = e.Bool(env)
				} else {
					got = e.Num(env)
				}
				if fmt.Sprint(got) != fmt.Sprint(toFloat(want)) && fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s on %+v (closure %v): %v, want %v", src, env.Job, e == closure, got, want)
				}
			}
		}
		if closure != nil {
			env := &runtime.Env{Names: ns}
			if a := testing.AllocsPerRun(100, func() {
				if kind == boolExpr {
					closure.Bool(env)
				} else {
					closure.Num(env)
				}
			}); a != 0 {
				t.Errorf("%s: %v allocations per evaluation", src, a)
			}
		}
	}
	if closures < len(namedRules)-2 {
		t.Errorf("only %d of %d rules on the closure path", closures, len(namedRules))
	}
}

func jf(name string) *runtime.JobField {
	f, _ := runtime.JobFieldNamed(name)
	return f
}

func toFloat(v any) any {
	if i, ok := v.(int); ok {
		return float64(i)
	}
	return v
}

// A rule whose names were not bound fails with its error on both paths,
// rather than answering.
func TestNamedRuleUnbound(t *testing.T) {
	closure, onVM, _ := namedRule(t, `job.user == "alice"`)
	for _, e := range []*runtime.Expr{closure, onVM} {
		func() {
			defer func() {
				x := recover()
				ee, ok := x.(*runtime.EvalError)
				if !ok || !strings.Contains(ee.Error(), "not bound") {
					t.Errorf("unbound names: %v", x)
				}
			}()
			e.Bool(&runtime.Env{})
		}()
	}
}
