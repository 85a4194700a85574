package compiler

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// exprKind is what a rule must evaluate to.
type exprKind int

const (
	numExpr exprKind = iota
	boolExpr
)

// envFields maps each environment root (job, now, ...) to the fields it
// has, read from the runtime's expr tags so the two cannot drift apart.
var envFields = func() map[string][]string {
	out := map[string][]string{}
	t := reflect.TypeOf(runtime.Env{})
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("expr")
		if name == "-" {
			continue // (not for rules: Env.Names)
		}
		out[name] = nil
		if f.Type.Kind() == reflect.Struct {
			for j := range f.Type.NumField() {
				out[name] = append(out[name], f.Type.Field(j).Tag.Get("expr"))
			}
		}
	}
	return out
}()

var envRoots = func() []string {
	var r []string
	for k := range envFields {
		r = append(r, k)
	}
	sort.Strings(r)
	return r
}()

// exprKey identifies a compiled rule: its statement, the values of the
// params it reads (a rule reading a swept param compiles once per value),
// and how it reads name fields (the kind of workload of its runs).
type exprKey struct {
	stmt   *lang.Stmt
	params string
	names  nameMode
}

// ruleExpr compiles the rule that makes up the arguments of s from index
// `from` on, with the params it reads taking their values in binding b.
// A rule is compiled once per distinct set of param values, however many
// runs use it.
func (c *compiler) ruleExpr(s *lang.Stmt, from int, kind exprKind, b binding) *runtime.Expr {
	f := c.file(s)
	src, r := f.ArgsSource(s, from)
	consts, key, ok := c.ruleParams(src, r, b)
	if !ok {
		return nil
	}
	k := exprKey{s, key, c.names}
	if e, ok := c.exprs[k]; ok {
		return e
	}
	e := c.compileRule(s, src, r, kind, consts)
	c.exprs[k] = e
	return e
}

// ruleParams finds the params a rule reads and the constants they stand
// for in binding b: numbers in SI base units (a plain integer stays an
// integer), strings, and true/false. It returns a key naming those values.
func (c *compiler) ruleParams(src string, r lang.Range, b binding) (map[string]any, string, bool) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, "", true // compileRule reports it
	}
	var names []string
	at := map[string]lang.Range{} // where the rule first reads each param
	ast.Find(tree.Node, func(n ast.Node) bool {
		if id, ok := n.(*ast.IdentifierNode); ok && c.params[id.Value] != nil {
			if _, env := envFields[id.Value]; !env {
				if _, seen := at[id.Value]; !seen {
					loc := id.Location()
					at[id.Value] = subRange(src, r, loc.From, max(loc.To, loc.From+1))
					names = append(names, id.Value)
				}
			}
		}
		return false
	})
	if len(names) == 0 {
		return nil, "", true
	}
	sort.Strings(names)
	consts := map[string]any{}
	var key strings.Builder
	ok := true
	for _, name := range names {
		use := &lang.Ident{Name: name, R: at[name]}
		if c.quiet(use) {
			ok = false
			continue
		}
		v := c.val(use, b)
		var x any
		switch v := v.(type) {
		case *lang.Number:
			x = v.Value
			if v.Unit == "" && v.Value == float64(int(v.Value)) && !strings.ContainsAny(v.Src, ".eE") {
				x = int(v.Value)
			} else if v.Unit != "" {
				u, known := lang.LookupUnit(v.Unit)
				if !known {
					c.diags.Errorf(v.UnitRange, "unknown unit `%s` in param `%s`, read by a rule", v.Unit, name).
						DidYouMean(lang.SuggestUnit(v.Unit)).Note(at[name], "read here")
					ok = false
					continue
				}
				x = v.Value * u.Scale
			}
		case *lang.String:
			x = v.Value
		case *lang.Ident:
			if v.Name == "true" || v.Name == "false" {
				x = v.Name == "true"
			}
		}
		if x == nil {
			c.diags.Errorf(at[name], "rule reads param `%s`, whose value is %s", name, describeValue(v)).
				With("Rules read params that hold numbers (with units, in SI: `10 min` is 600), strings or true/false.").
				Note(v.Range(), "its value")
			ok = false
			continue
		}
		consts[name] = x
		fmt.Fprintf(&key, "%s=%v\x00", name, x)
	}
	return consts, key.String(), ok
}

// paramPatcher replaces the params a rule reads by their values, before
// expr type-checks it.
type paramPatcher map[string]any

func (p paramPatcher) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok {
		return
	}
	switch x := p[id.Value].(type) {
	case int:
		ast.Patch(n, &ast.IntegerNode{Value: x})
	case float64:
		ast.Patch(n, &ast.FloatNode{Value: x})
	case string:
		ast.Patch(n, &ast.StringNode{Value: x})
	case bool:
		ast.Patch(n, &ast.BoolNode{Value: x})
	}
}

func (c *compiler) compileRule(s *lang.Stmt, src string, r lang.Range, kind exprKind, consts map[string]any) *runtime.Expr {
	if strings.TrimSpace(src) == "" {
		what := "a number, e.g. `job.submit`"
		if kind == boolExpr {
			what = "a condition, e.g. `!peak || job.nodes <= 16`"
		}
		c.diags.Errorf(r, "`%s` needs a rule", s.Key.Name).With("Write %s.", what)
		return nil
	}
	var prog *vm.Program
	var node ast.Node
	var tests []*runtime.NameTest
	switch c.names {
	case namesAreStrings:
		var ok bool
		if prog, node, tests, ok = c.compileNamed(s, src, r, consts); !ok {
			return nil
		}
	case namesUnknown:
		// A declaration no run uses: fine if it compiles for either kind
		// of workload; if for neither, the errors are SWF's.
		before := len(c.diags)
		if prog = c.compileNumbered(s, src, r, consts); prog != nil {
			node = prog.Node()
			break
		}
		failed := append(lang.Diagnostics(nil), c.diags[before:]...)
		c.diags, c.names = c.diags[:before], namesAreStrings
		p, n, _, ok := c.compileNamed(s, src, r, consts)
		c.names = namesUnknown
		if !ok {
			// A rule that type-checks with names, but reads them wrongly,
			// is about Slurm accounting: its errors say so.
			if _, _, err := checkRule(src, namesEnv, consts); err != nil {
				c.diags = append(c.diags[:before], failed...)
			}
			return nil
		}
		prog, node = p, n
	default:
		if prog = c.compileNumbered(s, src, r, consts); prog == nil {
			return nil
		}
		node = prog.Node()
	}
	t := node.Type()
	switch {
	case kind == numExpr && !isNumeric(t) && t.Kind() != reflect.Interface:
		d := c.diags.Errorf(r, "`%s` needs a number, but this rule gives %s", s.Key.Name, typeWord(t))
		if t.Kind() == reflect.Bool {
			d.With("Turn the condition into a number: `(%s) ? 1 : 0`.", src)
		}
		return nil
	case kind == boolExpr && t.Kind() != reflect.Bool && t.Kind() != reflect.Interface:
		d := c.diags.Errorf(r, "`%s` needs a condition (true or false), but this rule gives %s", s.Key.Name, typeWord(t))
		if isNumeric(t) {
			d.With("Compare it with something, e.g. `%s > 0`.", src)
		}
		return nil
	}
	deps, fields := depsOf(node)
	for _, t := range tests { // (each reads its field: the engine must fill it)
		jf := runtime.JobFieldTable[jobFieldIndexOf(t.Field)]
		deps, fields = deps|jf.Dep, fields|jf.Bit
	}
	e := &runtime.Expr{Source: src, Where: r.String(), Deps: deps, Fields: fields, NameTests: tests}
	e.Clock, e.ClockOther = clockOf(node)
	if kind == boolExpr && e.ClockOther {
		c.diags.Warnf(r, "this condition reads the clock in a way whose changes pwrc cannot time").
			With("pwrc re-reads it only when something happens: a job arrives or ends, a price changes, a local hour begins (for `now`), or the policy's `interval` ticks. A comparison of `now.hour`, `now.seconds` or `now.day` with a number (`now.hour >= 17.5`) changes exactly at that instant.")
	}
	if f, ok := strings.CutPrefix(path(node), "job."); ok {
		if jf, known := runtime.JobFieldNamed(f); known {
			e.Field = jf.Bit
		}
	}
	if fast := closureCompile(node, kind, e); fast != nil {
		if kind == numExpr {
			e.Num = fast.num
		} else {
			e.Bool = fast.bool
		}
		return e
	}
	c.vmEval(e, prog, kind)
	return e
}

// vmEval evaluates with the expr virtual machine: the general path for
// rules the closure compiler does not cover. VMs are pooled because plans
// are shared by runs on several goroutines.
func (c *compiler) vmEval(e *runtime.Expr, prog *vm.Program, kind exprKind) {
	pool := &sync.Pool{New: func() any { return new(vm.VM) }}
	run := func(env *runtime.Env) any {
		m := pool.Get().(*vm.VM)
		out, err := m.Run(prog, env)
		pool.Put(m)
		if err != nil {
			panic(&runtime.EvalError{Expr: e, Err: err})
		}
		return out
	}
	if kind == numExpr {
		e.Num = func(env *runtime.Env) float64 {
			switch v := run(env).(type) {
			case float64:
				return v
			case int:
				return float64(v)
			default:
				panic(&runtime.EvalError{Expr: e, Err: fmt.Errorf("got %T, not a number", v)})
			}
		}
		return
	}
	e.Bool = func(env *runtime.Env) bool {
		v, ok := run(env).(bool)
		if !ok {
			panic(&runtime.EvalError{Expr: e, Err: errors.New("did not give true or false")})
		}
		return v
	}
}

func isNumeric(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func typeWord(t reflect.Type) string {
	switch {
	case t.Kind() == reflect.Bool:
		return "true or false"
	case isNumeric(t):
		return "a number"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "a list"
	}
	return "a " + t.String()
}

// exprError maps an expr compile error back to the .pwr source, and
// rewrites its common messages in the scenario's terms.
func (c *compiler) exprError(field, src string, r lang.Range, err error) {
	var fe *file.Error
	if !errors.As(err, &fe) {
		c.diags.Errorf(r, "invalid rule in `%s`: %v", field, err)
		return
	}
	at := subRange(src, r, fe.From, max(fe.To, fe.From+1))
	msg := fe.Message
	if c.danglingOperator(src, r, at, msg) {
		return
	}
	d := &lang.Diagnostic{Severity: lang.Error, Range: at, Summary: "invalid rule: " + msg}
	switch {
	case strings.HasPrefix(msg, "unknown name "):
		name := strings.TrimPrefix(msg, "unknown name ")
		rest := []rune(src)[min(fe.To, len([]rune(src))):]
		if call := strings.HasPrefix(strings.TrimSpace(string(rest)), "("); call {
			d.Summary = fmt.Sprintf("unknown function `%s` in rule", name)
			d.Detail = "Functions: " + strings.Join(ruleFuncs, ", ") + "."
			d.Suggest = lang.Suggest(name, ruleFuncs)
			break
		}
		if c.badParams[name] {
			c.silenced++ // the param's declaration is in error, and reported
			return
		}
		d.Summary = fmt.Sprintf("unknown name `%s` in rule", name)
		d.Detail = "Rules can use " + strings.Join(quoteAll(envRoots), ", ") + " and expr's built-in functions."
		d.Suggest = lang.Suggest(name, envRoots)
	case strings.Contains(msg, " has no method "), strings.Contains(msg, " has no field "):
		kind, what := "field", " has no field "
		if strings.Contains(msg, " has no method ") {
			kind, what = "function", " has no method "
		}
		name := msg[strings.Index(msg, what)+len(what):]
		root := rootBefore(src, fe.From)
		if fields, ok := envFields[root]; ok {
			d.Summary = fmt.Sprintf("`%s` has no %s `%s`", root, kind, name)
			d.Suggest = lang.Suggest(name, fields)
			d.Detail = fmt.Sprintf("Fields of `%s`: %s.", root, strings.Join(fields, ", "))
		}
	case strings.Contains(msg, "func(float64) float64"):
		d.Summary = "`price.mean_past` is a function: call it with a window in seconds"
		d.Detail = "Write e.g. `price.mean_past(86400)` for the mean price over the past day."
	case strings.HasPrefix(msg, "bad number syntax"):
		if num, unit := numberWithUnit(src, fe.From); unit != "" {
			u, _ := lang.LookupUnit(unit)
			d.Summary = fmt.Sprintf("a unit (`%s`) in a rule", unit)
			d.Detail = fmt.Sprintf("Rules compute in plain SI numbers (%s in %s); write `%s * %s`, or use a param: `param limit = %s %s`, then `limit` in the rule.",
				u.Dim, siUnit[u.Dim], num, trimNumber(u.Scale), num, unit)
		}
	case strings.HasPrefix(msg, "unexpected token EOF"):
		d.Summary = "incomplete rule: it ends too early"
		d.Detail = "Something is missing at the end, such as an operand after an operator or a closing parenthesis."
		if op := lastOperator(src); op != "" {
			d.Summary = fmt.Sprintf("incomplete rule: `%s` needs something after it", op)
			d.Detail = "Finish the rule, or remove the operator."
		}
	case strings.HasPrefix(msg, "unexpected token "):
		tok := unexpectedToken.FindStringSubmatch(msg)
		if tok == nil {
			break
		}
		d.Summary = fmt.Sprintf("unexpected `%s` in rule", tok[2])
		switch {
		case tok[2] == "=":
			d.Suggest = "=="
			d.Detail = "Compare with `==`; a single `=` is not an operator in rules."
		case tok[1] == "Identifier" && isUnitAfterNumber(src, fe.From, tok[2]):
			u, _ := lang.LookupUnit(tok[2])
			d.Summary = fmt.Sprintf("a unit (`%s`) in a rule", tok[2])
			d.Detail = fmt.Sprintf("Rules compute in plain SI numbers (%s in %s); multiply instead, e.g. `* %s`, or use a param: `param limit = 6 %s`, then `limit` in the rule.",
				u.Dim, siUnit[u.Dim], trimNumber(u.Scale), tok[2])
		case tok[1] == "Number" || tok[1] == "Identifier" || tok[1] == "String":
			d.Detail = "An operator is missing before it, such as `*`, `<` or `&&`."
		}
	case mismatched.MatchString(msg):
		m := mismatched.FindStringSubmatch(msg)
		d.Summary = fmt.Sprintf("`%s` cannot combine %s and %s", m[1], goTypeWord(m[2]), goTypeWord(m[3]))
		switch m[1] {
		case "&&", "||", "and", "or":
			d.Detail = fmt.Sprintf("`%s` joins conditions; compare numbers to make one, e.g. `job.nodes > 4`.", m[1])
		default:
			d.Detail = "Arithmetic and comparisons take numbers; conditions combine with `&&`, `||` and `!`."
		}
	}
	c.diags = append(c.diags, d)
}

var (
	unexpectedToken = regexp.MustCompile(`^unexpected token (\w+)\("(.*)"\)`)
	mismatched      = regexp.MustCompile(`^invalid operation: (\S+) \(mismatched types (\S+) and (\S+)\)`)
)

// siUnit names the unit rules compute in, per dimension.
var siUnit = map[lang.Dim]string{lang.Power: "W", lang.Energy: "J", lang.Time: "seconds", lang.Fraction: "fractions of 1",
	lang.Price: "currency per kWh", lang.Money: "currency", lang.Frequency: "Hz", lang.Dimensionless: "plain numbers"}

// isUnitAfterNumber reports whether name, at rune offset at of a rule, is
// a unit written right after a number (`6 h`).
func isUnitAfterNumber(src string, at int, name string) bool {
	if _, ok := lang.LookupUnit(name); !ok {
		return false
	}
	r := []rune(src)
	if at > len(r) {
		return false
	}
	before := strings.TrimRight(string(r[:at]), " \t")
	return before != "" && before[len(before)-1] >= '0' && before[len(before)-1] <= '9'
}

// numberWithUnit splits a number glued to a unit (`2kW`) at rune offset
// at of a rule; unit is "" unless it is a known unit.
func numberWithUnit(src string, at int) (num, unit string) {
	r := []rune(src)
	i := at
	for i > 0 && (r[i-1] >= '0' && r[i-1] <= '9' || r[i-1] == '.') {
		i-- // the error may point inside the number
	}
	j := i
	for j < len(r) && (r[j] >= '0' && r[j] <= '9' || r[j] == '.' || r[j] == '_') {
		j++
	}
	k := j
	for k < len(r) && (r[k] >= 'a' && r[k] <= 'z' || r[k] >= 'A' && r[k] <= 'Z' || r[k] == '/' || r[k] == '%') {
		k++
	}
	if _, ok := lang.LookupUnit(string(r[j:k])); !ok || j == i {
		return "", ""
	}
	return string(r[i:j]), string(r[j:k])
}

// ruleFuncs are the functions suggested for misspelled calls in rules:
// the numeric built-ins the closure compiler covers, and common others.
var ruleFuncs = []string{"abs", "ceil", "floor", "round", "min", "max", "int", "float", "len", "all", "any", "none", "filter", "map", "count", "sum", "mean", "median"}

// goTypeWord names a Go type from an expr message as a rule author would.
func goTypeWord(t string) string {
	switch t {
	case "int", "float64", "float", "int64", "uint", "float32":
		return "a number"
	case "bool":
		return "a condition"
	case "string":
		return "a string"
	case "nil":
		return "nil"
	}
	return "a " + t
}

// lastOperator returns the operator a rule ends with, if any.
func lastOperator(src string) string {
	s := strings.TrimSpace(src)
	for _, op := range []string{"&&", "||", "==", "!=", "<=", ">=", "**", "??", "+", "-", "*", "/", "%", "<", ">", "!", "?", ":", "^", "and", "or", "not"} {
		if strings.HasSuffix(s, op) {
			if len(op) > 1 && op[0] >= 'a' && op[0] <= 'z' { // a word: must stand alone
				if len(s) > len(op) && s[len(s)-len(op)-1] != ' ' {
					continue
				}
			}
			return op
		}
	}
	return ""
}

// danglingOperator explains a syntax error on a line the rule only reached
// because the line before ended with an operator (a rule continues after
// one): most likely that line is unfinished and the next is a new field.
func (c *compiler) danglingOperator(src string, r, at lang.Range, msg string) bool {
	if at.Start.Line <= r.Start.Line || !(strings.HasPrefix(msg, "unexpected") || strings.HasPrefix(msg, "unknown name")) {
		return false
	}
	// The end of the line before the error, within the rule's source.
	lines := strings.Split(src, "\n")
	k := at.Start.Line - r.Start.Line - 1 // index of the line before
	if k < 0 || k >= len(lines) {
		return false
	}
	prev := strings.TrimRight(lines[k], " \t\r")
	fields := strings.Fields(prev)
	if len(fields) == 0 {
		return false
	}
	op := fields[len(fields)-1]
	// The operator's position: rune offset of the end of line k.
	off := 0
	for _, l := range lines[:k] {
		off += len([]rune(l)) + 1
	}
	end := off + len([]rune(prev))
	opRange := subRange(src, r, end-len([]rune(op)), end)
	c.diags = append(c.diags, &lang.Diagnostic{Severity: lang.Error, Range: opRange,
		Summary: fmt.Sprintf("incomplete rule: `%s` needs something after it", op),
		Detail:  fmt.Sprintf("A line that ends with an operator continues on the next, so line %d was read as part of this rule; finish the rule or remove the `%s`.", at.Start.Line, op)})
	return true
}

// rootBefore finds the environment root of the member access that ends
// just before rune offset at, e.g. "job" in "job.nodez".
func rootBefore(src string, at int) string {
	runes := []rune(src)
	at = min(at, len(runes))
	i := at - 1
	for i >= 0 && (runes[i] == '.' || runes[i] == ' ' || runes[i] == '?') {
		i--
	}
	end := i + 1
	for i >= 0 && (runes[i] == '_' || runes[i] >= 'a' && runes[i] <= 'z' || runes[i] >= 'A' && runes[i] <= 'Z' || runes[i] >= '0' && runes[i] <= '9') {
		i--
	}
	return string(runes[i+1 : end])
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = "`" + x + "`"
	}
	return out
}

// subRange converts rune offsets [from, to) of a rule's source into a
// range in the .pwr file, following newlines inside the rule.
func subRange(src string, r lang.Range, from, to int) lang.Range {
	pos := r.Start
	out := lang.Range{File: r.File, Start: pos, End: pos}
	i := 0
	for _, ch := range src {
		if i == from {
			out.Start = pos
		}
		if i == to {
			out.End = pos
			return out
		}
		pos.Offset += utf8.RuneLen(ch)
		if ch == '\n' {
			pos.Line++
			pos.Col = 1
		} else {
			pos.Col++
		}
		i++
	}
	if from >= i {
		out.Start = pos
	}
	out.End = pos
	return out
}

// depsOf finds which parts of the environment a rule reads.
// It also returns the job fields the rule reads, so the engine fills only
// those.
func depsOf(node ast.Node) (runtime.Deps, runtime.JobFields) {
	var v depsVisitor
	ast.Walk(&node, &v)
	if v.jobs > v.jobFields {
		// `job` used whole (passed to a function, say): assume it all.
		v.deps |= runtime.DepJob | runtime.DepWait
		v.fields = runtime.AllJobFields
	}
	return v.deps, v.fields
}

type depsVisitor struct {
	deps            runtime.Deps
	fields          runtime.JobFields
	jobs, jobFields int // `job` identifiers, and those that select a field
}

func (v *depsVisitor) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.MemberNode:
		id, ok := x.Node.(*ast.IdentifierNode)
		if !ok || id.Value != "job" {
			return
		}
		v.jobFields++
		prop, ok := x.Property.(*ast.StringNode)
		if !ok { // job[expr]: any field
			v.fields = runtime.AllJobFields
			v.deps |= runtime.DepJob | runtime.DepWait
			return
		}
		if jf, known := runtime.JobFieldNamed(prop.Value); known {
			v.fields |= jf.Bit
			v.deps |= jf.Dep
		} else {
			v.fields = runtime.AllJobFields
			v.deps |= runtime.DepJob | runtime.DepWait
		}
	case *ast.IdentifierNode:
		switch x.Value {
		case "job":
			v.jobs++
		case "now":
			v.deps |= runtime.DepNow
		case "peak":
			v.deps |= runtime.DepPeak
		case "price":
			v.deps |= runtime.DepPrice
		case "system":
			v.deps |= runtime.DepSystem
		case "carbon":
			v.deps |= runtime.DepCarbon
		}
	}
}

// clockFields are the clock fields whose comparisons with a number the
// engine can time exactly (now.weekday changes only at local midnight,
// which it wakes at anyway).
var clockFields = map[string]runtime.ClockField{"hour": runtime.ClockHour, "seconds": runtime.ClockSeconds, "day": runtime.ClockDay}

// clockOf finds a rule's comparisons of now.hour, now.seconds and now.day
// with numbers, at which its answer may change between events; other
// says it reads them (or `now` whole) otherwise, so that its answer
// changes at instants the engine cannot compute. (price.mean_past also
// drifts between price changes, slowly: rules reading it are re-read at
// every price change, and are not flagged.)
func clockOf(node ast.Node) (edges []runtime.ClockEdge, other bool) {
	clock := func(n ast.Node) (runtime.ClockField, bool) {
		m, ok := n.(*ast.MemberNode)
		if !ok {
			return 0, false
		}
		id, ok := m.Node.(*ast.IdentifierNode)
		p, pok := m.Property.(*ast.StringNode)
		if !ok || !pok || id.Value != "now" {
			return 0, false
		}
		f, ok := clockFields[p.Value]
		return f, ok
	}
	number := func(n ast.Node) (float64, bool) {
		switch x := n.(type) {
		case *ast.IntegerNode:
			return float64(x.Value), true
		case *ast.FloatNode:
			return x.Value, true
		}
		return 0, false
	}
	mirror := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
	compared := map[ast.Node]bool{} // clock fields read in a comparison with a number
	uses, nows, members := 0, 0, 0
	ast.Find(node, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryNode:
			op, ok := mirror[x.Operator]
			if !ok {
				break
			}
			f, isClock := clock(x.Left)
			v, isNum := number(x.Right)
			side := x.Left
			if !isClock || !isNum {
				f, isClock = clock(x.Right)
				v, isNum = number(x.Left)
				side = x.Right
			} else {
				op = x.Operator
			}
			if !isClock || !isNum {
				break
			}
			compared[side] = true
			switch op {
			case ">=", "<":
				edges = append(edges, runtime.ClockEdge{Field: f, Value: v})
			case ">", "<=":
				edges = append(edges, runtime.ClockEdge{Field: f, Value: v, Strict: true})
			default: // == and !=: true or false at one instant only
				edges = append(edges, runtime.ClockEdge{Field: f, Value: v}, runtime.ClockEdge{Field: f, Value: v, Strict: true})
			}
		case *ast.MemberNode:
			if id, ok := x.Node.(*ast.IdentifierNode); ok {
				if id.Value == "now" {
					members++
					if _, ok := clock(x); ok {
						uses++
					}
				}
			}
		case *ast.IdentifierNode:
			if x.Value == "now" {
				nows++
			}
		}
		return false
	})
	return edges, uses > len(compared) || nows > members
}
