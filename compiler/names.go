package compiler

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/checker"
	exprcompiler "github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Slurm accounting gives a job's user, group, account, partition and QOS
// as names; SWF gives numbers. A rule is compiled for the kind of workload
// of the run that uses it: on an SWF trace (or a synthetic workload) these
// fields are numbers, as in runtime.Env; on Slurm accounting they are
// strings, type-checked against namesEnv, and each comparison of one with
// strings becomes a runtime.NameTest that a run answers on its trace's
// names before it simulates, so that evaluation compares no strings
// (runtime/names.go).

// nameMode is how the rules being compiled read the name fields.
type nameMode uint8

const (
	namesUnknown    nameMode = iota // a declaration no run uses yet (checkDecls): either way is fine
	namesAreNumbers                 // SWF, synthetic
	namesAreStrings                 // Slurm accounting
)

// namesEnvType is runtime.Env with the job fields that are names on Slurm
// accounting (runtime.JobField.Named) as strings: what rules on such a
// trace are type-checked against. It is derived from the runtime's types
// and job-field table, so the two cannot drift apart.
var namesEnvType = func() reflect.Type {
	jt := reflect.TypeOf(runtime.JobEnv{})
	jobFields := make([]reflect.StructField, jt.NumField())
	for i := range jobFields {
		f := jt.Field(i)
		if runtime.JobFieldTable[i].Named {
			f.Type = reflect.TypeOf("")
		}
		jobFields[i] = f
	}
	et := reflect.TypeOf(runtime.Env{})
	envFields := make([]reflect.StructField, et.NumField())
	for i := range envFields {
		f := et.Field(i)
		if f.Type == jt {
			f.Type = reflect.StructOf(jobFields)
		}
		envFields[i] = f
	}
	return reflect.StructOf(envFields)
}()

// namesEnv is a value of namesEnvType, for expr.Env.
var namesEnv = reflect.New(namesEnvType).Elem().Interface()

// nameTestFunc is the function a rule calls for its name tests once they
// are taken out of it: __names(k, $env) is the answer of its k-th test for
// the job in $env. (A scenario cannot call it: rules are type-checked
// without it.)
const nameTestFunc = "__names"

// jobMember returns the job field a node reads, `job.NAME` (or
// `job?.NAME`, `job["NAME"]`), or nil.
func jobMember(n ast.Node) *runtime.JobField {
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Method {
		return nil
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	p, pok := m.Property.(*ast.StringNode)
	if !ok || !pok || id.Value != "job" {
		return nil
	}
	jf, _ := runtime.JobFieldNamed(p.Value)
	return jf
}

// members lists the job fields a rule's tree reads, with where.
func members(n ast.Node) (out []fieldUse) {
	ast.Find(n, func(x ast.Node) bool {
		if jf := jobMember(x); jf != nil {
			out = append(out, fieldUse{jf, x})
		}
		return false
	})
	return out
}

type fieldUse struct {
	field *runtime.JobField
	node  ast.Node
}

// memberRange is where a field use is written in the scenario: from its
// `job` to the end of the field's name.
func memberRange(src string, r lang.Range, n ast.Node) lang.Range {
	m := n.(*ast.MemberNode)
	from := m.Node.Location().From
	p := m.Property.(*ast.StringNode)
	to := min(len([]rune(src)), m.Location().To)
	// The member's location ends at its property; find the name after
	// the dot (`job.user`) or inside the brackets (`job["user"]`).
	rs := []rune(src)
	if i := strings.Index(string(rs[from:]), p.Value); i >= 0 {
		to = from + len([]rune(string(rs[from:])[:i])) + len([]rune(p.Value))
	}
	return subRange(src, r, from, max(to, from+1))
}

// checkRule parses and type-checks a rule against env, with the params it
// reads in place; opts add to the configuration (functions).
func checkRule(src string, env any, consts map[string]any, opts ...expr.Option) (*parser.Tree, *conf.Config, error) {
	config := conf.CreateNew()
	expr.Env(env)(config)
	if len(consts) > 0 {
		expr.Patch(paramPatcher(consts))(config)
	}
	for _, o := range opts {
		o(config)
	}
	config.Check()
	tree, err := checker.ParseCheck(src, config)
	return tree, config, err
}

// finishRule optimizes and compiles a type-checked tree, as expr.Compile
// does after checking.
func finishRule(tree *parser.Tree, config *conf.Config) (*vm.Program, error) {
	if config.Optimize {
		if err := optimizer.Optimize(&tree.Node, config); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return exprcompiler.Compile(tree, config)
}

// nameTypeError explains a rule that type-checks with the name fields of
// the other kind of workload but not with those of its own: it compares a
// name field with a string on SWF, or with a number (or computes with it)
// on Slurm accounting. It reports at the name field the error is about and
// returns true; false if the rule has other problems (or reads no name
// field), which the caller reports as usual.
func (c *compiler) nameTypeError(src string, r lang.Range, consts map[string]any, err error) bool {
	other := any(runtime.Env{})
	if c.names == namesAreNumbers {
		other = namesEnv
	}
	tree, _, otherErr := checkRule(src, other, consts)
	typed := otherErr == nil
	if !typed {
		// Wrong either way (names used both ways, say): the name fields
		// compared with literals of the other kind are still wrong.
		if tree, otherErr = parser.Parse(src); otherErr != nil {
			return false
		}
		if len(consts) > 0 {
			ast.Walk(&tree.Node, paramPatcher(consts))
		}
	}
	// (Slurm's account and QOS on SWF: said once, as fields it lacks.)
	scoped := c.names == namesAreNumbers && c.scopeErrors(src, r, tree.Node)
	named := func(jf *runtime.JobField) bool { return jf.Named && !(scoped && jf.Scope == runtime.SacctOnly) }
	var uses []fieldUse
	for _, u := range members(tree.Node) {
		if named(u.field) {
			uses = append(uses, u)
		}
	}
	if len(uses) == 0 {
		return scoped
	}
	// The name fields compared (or computed) with what this workload does
	// not give them: strings on SWF, numbers on Slurm accounting. Else the
	// name field next to what expr found wrong.
	var wrong []fieldUse
	misused := func(n, other ast.Node) {
		jf := jobMember(n)
		if jf == nil || !named(jf) || other != nil && jobMember(other) != nil && jobMember(other).Named {
			return
		}
		switch {
		case !typed && !literalOfOtherKind(c.names, other):
			return
		case typed && c.names == namesAreNumbers && other != nil && isNumeric(other.Type()):
			return // (a number compared with a number: fine on SWF)
		}
		wrong = append(wrong, fieldUse{jf, n})
	}
	ast.Find(tree.Node, func(x ast.Node) bool {
		switch y := x.(type) {
		case *ast.BinaryNode:
			misused(y.Left, y.Right)
			misused(y.Right, y.Left)
		case *ast.UnaryNode:
			misused(y.Node, nil)
		}
		return false
	})
	if len(wrong) == 0 && !typed {
		return scoped
	}
	if len(wrong) == 0 && !scoped {
		at := uses[0]
		var fe *file.Error
		if errors.As(err, &fe) {
			best := -1
			for _, u := range uses {
				d := fe.From - u.node.(*ast.MemberNode).Node.Location().From
				if d < 0 {
					d = -d
				}
				if best < 0 || d < best {
					best, at = d, u
				}
			}
		}
		wrong = []fieldUse{at}
	}
	for _, at := range wrong {
		f := at.field.Name
		where := memberRange(src, r, at.node)
		if c.names == namesAreNumbers {
			what := c.numbered
			if what == "" {
				what = "SWF"
			}
			c.diags.Errorf(where, "%s numbers its %ss: compare `job.%s` with a number", what, nameNoun(f), f).
				With("Write e.g. `job.%s == 12`. Names are Slurm accounting's (`workload sacct`), whose rules compare them with strings.", f)
			continue
		}
		c.diags.Errorf(where, "`job.%s` is a name on Slurm accounting: compare it with a name", f).
			With("Write e.g. `job.%s == %q` or `job.%s in [%q, %q]`; sacct gives %ss as names, not numbers.", f, nameExample(f, 0), f, nameExample(f, 0), nameExample(f, 1), nameNoun(f))
	}
	return true
}

// literalOfOtherKind reports whether n, compared with a name field, is a
// literal the field cannot be compared with in mode m: a string (or a list
// of strings) where names are numbers, a number where they are strings.
func literalOfOtherKind(m nameMode, n ast.Node) bool {
	switch x := n.(type) {
	case *ast.StringNode:
		return m == namesAreNumbers
	case *ast.IntegerNode, *ast.FloatNode:
		return m == namesAreStrings
	case *ast.ArrayNode:
		return len(x.Nodes) > 0 && literalOfOtherKind(m, x.Nodes[0])
	}
	return false
}

// nameNoun is what a name field names, for messages.
func nameNoun(f string) string {
	if f == "qos" {
		return "QOS"
	}
	return f
}

// nameExample is an example name of a field, for messages.
func nameExample(f string, i int) string {
	ex := map[string][2]string{"user": {"alice", "bob"}, "group": {"chem", "phys"}, "account": {"p-chem", "p-phys"},
		"partition": {"gpu", "debug"}, "qos": {"normal", "high"}}
	return ex[f][i]
}

// scopeErrors reports the job fields a rule reads that jobs of its
// workload lack: Slurm's account and QOS elsewhere, SWF's queue number on
// Slurm accounting. It returns whether there were any.
func (c *compiler) scopeErrors(src string, r lang.Range, n ast.Node) bool {
	if c.names == namesUnknown {
		return false
	}
	bad := false
	for _, u := range members(n) {
		f := u.field
		switch {
		case f.Scope == runtime.SacctOnly && c.names == namesAreNumbers:
			c.diags.Errorf(memberRange(src, r, u.node), "`job.%s` is Slurm accounting's: this workload has no %s", f.Name, nameNoun(f.Name)).
				With("Only `workload sacct` jobs have an account and a QOS; SWF numbers a job's queue (`job.queue`) and partition (`job.partition`).")
			bad = true
		case f.Scope == runtime.NotSacct && c.names == namesAreStrings:
			c.diags.Errorf(memberRange(src, r, u.node), "Slurm accounting has no `job.%s`: its jobs have a partition and a QOS", f.Name).
				DidYouMean("job.partition").
				With("SWF's queue number has no Slurm column; read `job.partition` (sacct's Partition) or `job.qos` (its QOS), e.g. `job.partition == \"gpu\"`.")
			bad = true
		}
	}
	return bad
}

// nameTests takes the comparisons of name fields with strings out of a
// rule type-checked against namesEnv: each maximal condition that reads
// one name field and nothing else of the environment becomes a
// runtime.NameTest, and the rule calls __names(k, $env) in its place. A
// name field read any other way is an error (false).
func (c *compiler) nameTests(tree *parser.Tree, src string, r lang.Range) ([]*runtime.NameTest, bool) {
	// Every slot of the tree, children before parents.
	var slots []*ast.Node
	ast.Walk(&tree.Node, visitFunc(func(n *ast.Node) { slots = append(slots, n) }))
	// A candidate: a condition reading exactly one name field, and no
	// other part of the environment, variable or element (`#`).
	type reads struct {
		field *runtime.JobField
		other bool
	}
	readsOf := func(n ast.Node) (rd reads) {
		ast.Find(n, func(x ast.Node) bool {
			if jf := jobMember(x); jf != nil {
				if !jf.Named || rd.field != nil && rd.field != jf {
					rd.other = true
				}
				rd.field = jf
				return false
			}
			switch y := x.(type) {
			case *ast.IdentifierNode:
				if y.Value != "job" { // (a field's base)
					rd.other = true
				}
			case *ast.PointerNode, *ast.VariableDeclaratorNode:
				rd.other = true
			case *ast.BuiltinNode:
				rd.other = rd.other || y.Name == "now"
			}
			return false
		})
		return rd
	}
	// (`job` read whole is refused before: see wholeEnvError.)
	isCandidate := map[*ast.Node]*runtime.JobField{}
	for _, s := range slots {
		if !isBool(*s) {
			continue
		}
		if rd := readsOf(*s); rd.field != nil && !rd.other {
			isCandidate[s] = rd.field
		}
	}
	// The maximal candidates: those inside no other.
	inside := map[*ast.Node]bool{}
	for s := range isCandidate {
		ast.Walk(s, visitFunc(func(x *ast.Node) {
			if x != s {
				inside[x] = true
			}
		}))
	}
	var chosen []*ast.Node
	for _, s := range slots { // (in tree order, for stable slots)
		if _, ok := isCandidate[s]; ok && !inside[s] {
			chosen = append(chosen, s)
		}
	}
	// Every name field read must be in one.
	covered := map[ast.Node]bool{}
	for _, s := range chosen {
		for _, u := range members(*s) {
			covered[u.node] = true
		}
	}
	ok := true
	for _, u := range members(tree.Node) {
		if u.field.Named && !covered[u.node] {
			f := u.field.Name
			c.diags.Errorf(memberRange(src, r, u.node), "`job.%s` is a name on Slurm accounting: use it in a comparison with names", f).
				With("A rule compares a name field with strings, and reads nothing else in that comparison: `job.%s == %q`, `job.%s in [%q, %q]`, `job.%s startsWith \"p\"`; combine such conditions with the rest of the rule, e.g. `(job.%s == %q ? 2 : 1) * job.nodes`.",
					f, nameExample(f, 0), f, nameExample(f, 0), nameExample(f, 1), f, f, nameExample(f, 0))
			ok = false
		}
	}
	if !ok {
		return nil, false
	}
	var tests []*runtime.NameTest
	for k, s := range chosen {
		sub := *s
		jf := isCandidate[s]
		t, err := c.nameTest(sub, jf, src, r)
		if err != nil {
			c.diags.Errorf(memberRange(src, r, members(sub)[0].node), "cannot compile this comparison of `job.%s`: %v", jf.Name, err)
			return nil, false
		}
		tests = append(tests, t)
		call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: nameTestFunc},
			Arguments: []ast.Node{&ast.IntegerNode{Value: k}, &ast.IdentifierNode{Value: "$env"}}}
		ast.Patch(s, call)
	}
	return tests, true
}

// visitFunc adapts a function to ast.Visitor.
type visitFunc func(*ast.Node)

func (f visitFunc) Visit(n *ast.Node) { f(n) }

// nameTest makes the test of one condition on name field jf, already
// type-checked: its answer for a name is the condition evaluated with the
// field holding that name.
func (c *compiler) nameTest(sub ast.Node, jf *runtime.JobField, src string, r lang.Range) (*runtime.NameTest, error) {
	config := conf.CreateNew()
	expr.Env(namesEnv)(config)
	config.Check()
	prog, err := exprcompiler.Compile(&parser.Tree{Node: sub, Source: file.NewSource(src)}, config)
	if err != nil {
		return nil, err
	}
	jobIdx, fieldIdx := envFieldIndex("job"), jobFieldIndex(jf)
	t := &runtime.NameTest{Slot: c.nameSlots, Field: jf.NameField, Source: sub.String()}
	c.nameSlots++
	uses := members(sub)
	t.Where = memberRange(src, r, uses[0].node).String()
	t.Match = func(name string) (bool, error) {
		env := reflect.New(namesEnvType).Elem()
		env.Field(jobIdx).Field(fieldIdx).SetString(name)
		out, err := vm.Run(prog, env.Interface())
		if err != nil {
			return false, err
		}
		b, ok := out.(bool)
		if !ok {
			return false, fmt.Errorf("gave %T, not true or false", out)
		}
		return b, nil
	}
	// The names it compares the field with, and where they are written.
	ast.Find(sub, func(x ast.Node) bool {
		b, ok := x.(*ast.BinaryNode)
		if !ok {
			return false
		}
		var consts []ast.Node
		switch {
		case (b.Operator == "==" || b.Operator == "!=") && jobMember(b.Left) == jf:
			consts = []ast.Node{b.Right}
		case (b.Operator == "==" || b.Operator == "!=") && jobMember(b.Right) == jf:
			consts = []ast.Node{b.Left}
		case (b.Operator == "in" || b.Operator == "not in") && jobMember(b.Left) == jf:
			if a, ok := b.Right.(*ast.ArrayNode); ok {
				consts = a.Nodes
			}
		}
		for _, k := range consts {
			if s, ok := k.(*ast.StringNode); ok {
				t.Names = append(t.Names, s.Value)
				loc := s.Location()
				c.nameAt[t] = append(c.nameAt[t], nameConst{s.Value, stringRange(src, r, loc.From)})
			}
		}
		return false
	})
	return t, nil
}

// nameConst is a name a test compares its field with, and where it is
// written (for check's warning when a trace lacks it).
type nameConst struct {
	name string
	at   lang.Range
}

// stringRange is the range of the string literal starting at rune offset
// from of a rule (its quotes included); a param's value has no literal in
// the rule: then the range of what is there.
func stringRange(src string, r lang.Range, from int) lang.Range {
	rs := []rune(src)
	if from >= len(rs) {
		return subRange(src, r, from, from+1)
	}
	q := rs[from]
	if q != '"' && q != '\'' && q != '`' {
		to := from
		for to < len(rs) && (rs[to] == '_' || rs[to] >= 'a' && rs[to] <= 'z' || rs[to] >= 'A' && rs[to] <= 'Z' || rs[to] >= '0' && rs[to] <= '9') {
			to++
		}
		return subRange(src, r, from, max(to, from+1))
	}
	to := from + 1
	for to < len(rs) && rs[to] != q {
		if rs[to] == '\\' {
			to++
		}
		to++
	}
	return subRange(src, r, from, min(to+1, len(rs)))
}

// envFieldIndex is the index of the environment root name in
// runtime.Env (and namesEnvType).
func envFieldIndex(name string) int {
	t := reflect.TypeOf(runtime.Env{})
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("expr") == name {
			return i
		}
	}
	panic("no environment root " + name)
}

// jobFieldIndex is the index of a job field in JobEnv: its bit's.
func jobFieldIndex(jf *runtime.JobField) int {
	for i := range runtime.JobFieldTable {
		if &runtime.JobFieldTable[i] == jf {
			return i
		}
	}
	panic("no job field " + jf.Name)
}

// nameTestOption is the function a rule whose name tests were taken out
// calls for them (on the VM; the closure compiler reads Env.Names
// directly): __names(k, $env) answers tests[k] for the job in $env.
func nameTestOption(tests []*runtime.NameTest, fields []*runtime.JobField) expr.Option {
	return expr.Function(nameTestFunc, func(p ...any) (any, error) {
		k, _ := p[0].(int)
		env, ok := p[1].(*runtime.Env)
		if !ok || k < 0 || k >= len(tests) {
			return nil, fmt.Errorf("%s: bad arguments", nameTestFunc)
		}
		if env.Names == nil {
			return nil, errNoNames
		}
		return env.Names.Has(tests[k].Slot, fields[k].Int(&env.Job)), nil
	}, new(func(int, any) bool))
}

// errNoNames is a rule with name tests evaluated without its run's
// answers to them: the runtime binds them before it reads any rule.
var errNoNames = errors.New("its comparisons of names were not bound to the trace's names")

// checkNames warns, once per trace and name, of the names a run's rules
// compare a name field with that no job of its trace has: such a
// comparison never holds (`pwrc check`; a run notes it too).
func (c *compiler) checkNames(run *runtime.Run, ri runtime.RunInputs) {
	if ri.Names == nil {
		return
	}
	for _, e := range run.Rules() {
		for _, t := range e.NameTests {
			for _, nc := range c.nameAt[t] {
				if nc.name == "" || ri.Names.ID(t.Field, nc.name) != 0 {
					continue
				}
				field := workload.NameFieldKeys[t.Field]
				if !c.once(fmt.Sprintf("name\x00%s\x00%s\x00%s", nc.at, run.Workload.Path, nc.name)) {
					continue
				}
				list := ri.Names[t.Field]
				d := c.diags.Warnf(nc.at, "no job of %s has the %s %q: this comparison never holds", run.Workload.Name, nameNoun(field), nc.name)
				if s := lang.Suggest(nc.name, list); s != "" {
					d.DidYouMean(strconv.Quote(s))
				}
				if len(list) == 0 {
					d.With("No job of it has a %s: the file has no %s column, or leaves it empty.", nameNoun(field), sacctColumn[t.Field])
					continue
				}
				d.With("Its %ss: %s.", nameNoun(field), quoteList(list, 12))
			}
		}
	}
}

// sacctColumn is the sacct column of each name field.
var sacctColumn = [workload.NumNameFields]string{"User", "Group", "Account", "Partition", "QOS"}

// quoteList shows names, the first few.
func quoteList(names []string, shown int) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, 0, min(len(names), shown))
	for _, n := range names[:min(len(names), shown)] {
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, ", ")
	if len(names) > shown {
		s += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return s
}

// compileNumbered compiles a rule whose name fields are numbers: SWF's,
// a synthetic workload's, or a declaration's no run uses yet.
func (c *compiler) compileNumbered(s *lang.Stmt, src string, r lang.Range, consts map[string]any) *vm.Program {
	opts := []expr.Option{expr.Env(runtime.Env{})}
	if len(consts) > 0 {
		opts = append(opts, expr.Patch(paramPatcher(consts)))
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		if c.names != namesAreNumbers || !c.nameTypeError(src, r, consts, err) {
			c.exprError(s.Key.Name, src, r, err)
		}
		return nil
	}
	if c.scopeErrors(src, r, prog.Node()) {
		return nil
	}
	return prog
}

// compileNamed compiles a rule of a run on Slurm accounting: type-checked
// with the name fields as strings, then with its name tests taken out
// (nameTests) against runtime.Env, whose name fields are the numbers the
// engine keeps. It returns the program, its tree and its tests.
func (c *compiler) compileNamed(s *lang.Stmt, src string, r lang.Range, consts map[string]any) (*vm.Program, ast.Node, []*runtime.NameTest, bool) {
	tree, _, err := checkRule(src, namesEnv, consts)
	if err != nil {
		if parsed, perr := parser.Parse(src); perr == nil && c.wholeEnvError(src, r, parsed.Node) {
			return nil, nil, nil, false
		}
		if !c.nameTypeError(src, r, consts, err) {
			c.exprError(s.Key.Name, src, r, err)
		}
		return nil, nil, nil, false
	}
	if c.scopeErrors(src, r, tree.Node) || c.wholeEnvError(src, r, tree.Node) {
		return nil, nil, nil, false
	}
	tests, ok := c.nameTests(tree, src, r)
	if !ok {
		return nil, nil, nil, false
	}
	fields := make([]*runtime.JobField, len(tests))
	for k, t := range tests {
		fields[k] = &runtime.JobFieldTable[jobFieldIndexOf(t.Field)]
	}
	config := conf.CreateNew()
	expr.Env(runtime.Env{})(config)
	nameTestOption(tests, fields)(config)
	config.Check()
	if _, err := checker.Check(tree, config); err != nil {
		c.diags.Errorf(r, "cannot compile this rule for Slurm accounting: %v", err).
			With("Compare each name field with strings alone, e.g. `job.user == \"alice\"`, and combine such comparisons with the rest of the rule.")
		return nil, nil, nil, false
	}
	prog, err := finishRule(tree, config)
	if err != nil {
		c.exprError(s.Key.Name, src, r, err)
		return nil, nil, nil, false
	}
	return prog, prog.Node(), tests, true
}

// wholeEnvError reports `job` or `$env` read whole in a rule on Slurm
// accounting, which could read a name field unseen: it returns whether
// there was one.
func (c *compiler) wholeEnvError(src string, r lang.Range, tree ast.Node) bool {
	var whole *ast.IdentifierNode
	ast.Find(tree, func(x ast.Node) bool {
		if id, ok := x.(*ast.IdentifierNode); ok && whole == nil && (id.Value == "$env" || id.Value == "job" && !isMemberBase(tree, id)) {
			whole = id
		}
		return false
	})
	if whole == nil {
		return false
	}
	loc := whole.Location()
	c.diags.Errorf(subRange(src, r, loc.From, loc.From+len([]rune(whole.Value))), "a rule on Slurm accounting reads `job` field by field, not `%s` whole", whole.Value).
		With("Name the field: `job.user == \"alice\"`, `job.nodes`; pwrc must see which name fields a rule compares with names.")
	return true
}

// isMemberBase reports whether id is the base of a field member in tree.
func isMemberBase(tree ast.Node, id *ast.IdentifierNode) bool {
	found := false
	ast.Find(tree, func(x ast.Node) bool {
		if m, ok := x.(*ast.MemberNode); ok && m.Node == ast.Node(id) && jobMember(m) != nil {
			found = true
		}
		return false
	})
	return found
}

// jobFieldIndexOf is the index in runtime.JobFieldTable of the job field
// holding name field f.
func jobFieldIndexOf(f workload.NameField) int {
	for i := range runtime.JobFieldTable {
		if jf := &runtime.JobFieldTable[i]; jf.Named && jf.NameField == f {
			return i
		}
	}
	panic(fmt.Sprintf("no job field for name field %d", f))
}
