package compiler

import (
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// boundScenarios holds, for every bound (bounds and dimBounds), a scenario
// that writes the quantity as VALUE, by "field dim" (e.g. "boot a
// duration"; a dimension's own bound under "* dim"). NODES is the size of
// machine m, 16 unless the case needs a larger one.
var boundScenarios = map[string]struct {
	src   string
	nodes string
	// minRefused: the field's own rule refuses its minimum (`powercap 0 W`
	// lets nothing run), with its own message.
	minRefused bool
}{
	"nodes a plain number":            {src: `machine x { nodes VALUE; power { idle 1 W; busy 2 W } }` + "\n" + expMachine},
	"cores a plain number":            {src: `machine x { nodes 4; cores VALUE; power { idle 1 W; busy 2 W } }` + "\n" + expMachine},
	"size a plain number":             {src: `machine x { nodes 1000000; power { idle 1 W; busy 2 W }; level rack { size VALUE node } }` + "\n" + expMachine},
	"per a plain number":              {src: expWorkload("synthetic { jobs 10; power 1 kW per VALUE nodes }")},
	"off a power":                     {src: `machine x { nodes 4; power { off VALUE; idle 1 W; busy 2 W } }` + "\n" + expMachine},
	"idle a power":                    {src: `machine x { nodes 4; power { idle VALUE; busy 1 MW } }` + "\n" + expMachine},
	"busy a power":                    {src: `machine x { nodes 4; power { idle 1 W; busy VALUE } }` + "\n" + expMachine},
	"boot a power":                    {src: `machine x { nodes 4; power { idle 1 W; busy 2 W; boot VALUE } }` + "\n" + expMachine},
	"shutdown a power":                {src: `machine x { nodes 4; power { idle 1 W; busy 2 W; shutdown VALUE } }` + "\n" + expMachine},
	"pstate a power":                  {src: `machine x { nodes 4; power { idle 1 W; pstate 2 GHz VALUE; pstate 1 GHz 1 W; slowdown 1.5 at 1 GHz } }` + "\n" + expMachine},
	"infrastructure a power":          {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; infrastructure VALUE }` + "\n" + expMachine},
	"power@level a power":             {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; level rack { size 4 node; power VALUE } }` + "\n" + expMachine},
	"boot a duration":                 {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; boot VALUE }` + "\n" + expMachine},
	"shutdown a duration":             {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; shutdown VALUE }` + "\n" + expMachine},
	"slowdown a plain number":         {src: `machine x { nodes 4; power { idle 1 W; pstate 2 GHz 10 W; pstate 1 GHz 5 W; slowdown VALUE at 1 GHz } }` + "\n" + expMachine},
	"slowdown a percentage":           {src: `machine x { nodes 4; power { idle 1 W; pstate 2 GHz 10 W; pstate 1 GHz 5 W; slowdown VALUE at 1 GHz } }` + "\n" + expMachine},
	"lifetime a duration":             {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; costs { system 1 MEUR; lifetime VALUE } }` + "\n" + expMachine},
	"system an amount of money":       {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; costs { system VALUE } }` + "\n" + expMachine},
	"annual an amount of money":       {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; costs { annual VALUE per year } }` + "\n" + expMachine},
	"jobs a plain number":             {src: expWorkload("synthetic { jobs VALUE; runtime 1 min }"), nodes: "1000000"},
	"load a plain number":             {src: expWorkload("synthetic { jobs 10; load VALUE }")},
	"load a percentage":               {src: expWorkload("synthetic { jobs 10; load VALUE }")},
	"unit a plain number":             {src: expWorkload("synthetic { jobs 10; unit VALUE }"), nodes: "1000000"},
	"runtime a duration":              {src: expWorkload("synthetic { jobs 10; runtime VALUE }")},
	"seed a plain number":             {src: expPolicy("", "seed VALUE")},
	"power a power":                   {src: expWorkload("synthetic { jobs 10; power VALUE per node }")},
	"power normal a power":            {src: expWorkload("synthetic { jobs 10; power normal VALUE sd 1 W per node }")},
	"sd a power":                      {src: expWorkload("synthetic { jobs 10; power normal 100 W sd VALUE per node }")},
	"metered a duration":              {src: expContract(`flat 0.1 EUR/kWh; band 1 W..2 kW { metered VALUE; penalty 1 EUR per interval }`)},
	"band a power":                    {src: expContract(`flat 0.1 EUR/kWh; band 0 W..VALUE { penalty 1 EUR per interval }`), minRefused: true},
	"penalty an amount of money":      {src: expContract(`flat 0.1 EUR/kWh; band 1 W..2 kW { penalty VALUE per interval }`)},
	"demand an amount of money":       {src: expContract(`flat 0.1 EUR/kWh; demand VALUE per kW per month`)},
	"hours a plain number":            {src: expContract(`hourly generate { hours VALUE; noise normal sd 1; unit 0.01 EUR/kWh }`)},
	"sine period a duration":          {src: expContract(`hourly generate { sine 0.25 period VALUE; unit 0.01 EUR/kWh }`)},
	"noise a plain number":            {src: expContract(`hourly generate { noise normal sd VALUE; unit 0.000000001 EUR/kWh }`)},
	"first a plain number":            {src: expContract(`hourly generate { first VALUE uniform 0..1; hours 1000000 }`)},
	"depth a plain number":            {src: expPolicy("backfill greedy depth VALUE", "")},
	"keep a plain number":             {src: expPolicy("shutdown idle after 1 min keep VALUE", "")},
	"contiguous a plain number":       {src: expPolicy("allocate contiguous VALUE", ""), nodes: "1000000"},
	"window a plain number":           {src: expPolicy("budget 1 kW; window VALUE; select knapsack", "")},
	"interval a duration":             {src: expPolicy("interval VALUE", "")},
	"active fixed a plain number":     {src: expPolicy("active fixed VALUE", ""), nodes: "1000000"},
	"low a plain number":              {src: expPolicy("active two_level { low VALUE }", ""), nodes: "1000000"},
	"high a plain number":             {src: expPolicy("active two_level { low 1; high VALUE }", ""), nodes: "1000000"},
	"every a duration":                {src: expPolicy("active online { sla mean bsld <= 200; every VALUE }", "")},
	"lookahead a duration":            {src: expDefer("lookahead VALUE")},
	"deadline a duration":             {src: expDefer("lookahead 12 h; deadline VALUE; then recompute")},
	"budget a power":                  {src: expPolicy("budget VALUE during peak", "")},
	"powercap a power":                {src: expPolicy("powercap VALUE", ""), minRefused: true},
	"sla mean bsld <= a plain number": {src: expPolicy("active online { sla mean bsld <= VALUE; every 7 d }", "")},
	"* a plain number":                {src: expContract(`hourly generate { add 06:00..22:00 VALUE; unit 0.000001 EUR/kWh }`)},
	"* a power":                       {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; level rack { size 4 node; power { fans VALUE } } }` + "\n" + expMachine},
	"* an energy":                     {src: expContract(`flat 0.1 EUR/kWh; energy budget VALUE`)},
	"* a duration":                    {src: expPolicy("shutdown idle after VALUE", "")},
	"* a percentage":                  {src: expPolicy("powercap VALUE", "")},
	"* a price per energy":            {src: expContract(`flat VALUE`)},
	"* an amount of money":            {src: `machine x { nodes 4; power { idle 1 W; busy 2 W }; costs { system VALUE per node } }` + "\n" + expMachine},
	"* a frequency":                   {src: `machine x { nodes 4; power { idle 1 W; pstate VALUE 10 W; pstate 1 kHz 5 W; slowdown 1.5 at 1 kHz } }` + "\n" + expMachine},
	"* a carbon intensity":            {src: expContract(`flat 0.1 EUR/kWh; carbon VALUE`)},
}

const expMachine = `experiment e { workload synthetic { jobs 10 }; machine x; contract fixed; policy easy }`

func expWorkload(w string) string {
	return "experiment e { workload " + w + "; machine m; contract fixed; policy easy }"
}

func expContract(body string) string {
	return "contract x { " + body + " }\nexperiment e { workload synthetic { jobs 10 }; machine m; contract x; policy easy }"
}

func expPolicy(body, exp string) string {
	return "policy x from easy { " + body + " }\nexperiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy x; " + exp + " }"
}

func expDefer(body string) string {
	return "policy x from fcfs { defer cheapest { " + body + " } }\nexperiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy x }"
}

// boundHeader is prepended to boundScenarios.
const boundHeader = `import "std/policies"
machine m { nodes NODES; power { idle 1 W; busy 2 W } }
contract fixed { flat 0.1 EUR/kWh }
`

// allBounds lists every bound with its key in boundScenarios.
func allBounds() map[string]*bound {
	out := map[string]*bound{}
	for _, b := range bounds {
		out[b.field+" "+b.dim.String()] = b
	}
	for d, b := range dimBounds {
		out["* "+d.String()] = b
	}
	return out
}

// compileBound compiles the scenario of a bound with VALUE set.
func compileBound(key, value string) (*runtime.Plan, lang.Diagnostics, string) {
	sc := boundScenarios[key]
	nodes := sc.nodes
	if nodes == "" {
		nodes = "16"
	}
	src := strings.ReplaceAll(boundHeader, "NODES", nodes) + strings.ReplaceAll(sc.src, "VALUE", value) + "\n"
	c := newCompiler(Options{ReadFile: func(string) ([]byte, error) { return []byte(src), nil }})
	c.load("main.pwr")
	c.checkParams()
	c.checkDecls()
	plan := c.plan("")
	diags := dedupe(c.diags)
	if diags.HasErrors() {
		plan = nil
	}
	return plan, diags, src
}

// beyond writes a value past the bound text s (a number and a unit) by
// factor f: `1 d` times 2 is `2 d`.
func beyond(s string, f float64) string {
	num, unit, _ := strings.Cut(s, " ")
	if strings.HasSuffix(num, "%") {
		num, unit = strings.TrimSuffix(num, "%"), "%"
	}
	x, _ := strconv.ParseFloat(num, 64)
	switch {
	case x == 0 && f < 1:
		x = -1
	case x == 0:
		x = 1
	default:
		x *= f
	}
	out := strconv.FormatFloat(x, 'g', -1, 64)
	if unit == "%" {
		return out + "%"
	}
	if unit != "" {
		out += " " + unit
	}
	return out
}

// TestBounds: every quantity is accepted at its bounds and refused past
// them, with an error at the value that quotes the bound (issue 24, item
// 4). Every bound has a scenario.
func TestBounds(t *testing.T) {
	all := allBounds()
	for key := range boundScenarios {
		if all[key] == nil {
			t.Errorf("boundScenarios has %q, which is no bound", key)
		}
	}
	for key, b := range all {
		if _, ok := boundScenarios[key]; !ok {
			t.Errorf("bound %q has no scenario in boundScenarios", key)
			continue
		}
		t.Run(key, func(t *testing.T) {
			accept := func(v string) {
				t.Helper()
				if _, diags, src := compileBound(key, v); diags.HasErrors() {
					t.Errorf("%s refused:\n%v\n%s", v, diags, src)
				}
			}
			refuse := func(v, words string) {
				t.Helper()
				_, diags, src := compileBound(key, v)
				var errs []*lang.Diagnostic
				for _, d := range diags {
					if d.Severity == lang.Error {
						errs = append(errs, d)
					}
				}
				if len(errs) != 1 {
					t.Fatalf("%s: want one error, got %v\n%s", v, diags, src)
				}
				d := errs[0]
				at := src[d.Range.Start.Offset:d.Range.End.Offset]
				if !strings.Contains(d.Summary, words) || at != v || d.Detail == "" {
					t.Errorf("%s: error %q at %q (%s), want %q at the value and why", v, d.Summary, at, d.Detail, words)
				}
			}
			if b.max != "" {
				accept(b.max)
				refuse(beyond(b.max, 2), "(at most "+b.show(b.max, "EUR"))
			}
			if b.min != "" && !strings.HasPrefix(key, "* ") { // a dimension's minimum: each field says what it takes below 0
				below := beyond(b.min, 0.5)
				if b.lo < 0 {
					below = beyond(b.min, 2)
				}
				switch {
				case b.above:
					below = b.min
				case !boundScenarios[key].minRefused:
					accept(b.min)
				}
				words := "(at least " + b.show(b.min, "EUR")
				switch {
				case b.whole:
					words = "must be a whole number ≥ " + b.min
				case b.above:
					words = "(it must be above " + b.min
				}
				if b.off && b.lo > 0 {
					accept("0 s")
				}
				refuse(below, words)
			}
		})
	}
}

// TestBoundsRun runs every scenario at each of its bounds: what check
// accepts runs to the end with finite metrics, or fails with a message,
// never a panic. Scenarios that take seconds at their bound (ten million
// jobs, nodes or a million-hour price series) run with PWRC_LONG=1.
func TestBoundsRun(t *testing.T) {
	long := map[string]bool{"jobs a plain number": true, "size a plain number": true, "unit a plain number": true,
		"contiguous a plain number": true, "active fixed a plain number": true, "low a plain number": true, "high a plain number": true,
		"nodes a plain number": true, "hours a plain number": true, "first a plain number": true}
	for key, b := range allBounds() {
		for _, v := range []string{b.min, b.max} {
			if v == "" || strings.HasPrefix(v, "-") || v == b.min && (b.above || boundScenarios[key].minRefused) || long[key] && os.Getenv("PWRC_LONG") == "" {
				continue
			}
			plan, diags, src := compileBound(key, v)
			if plan == nil {
				t.Errorf("%s %s: %v", key, v, diags)
				continue
			}
			for _, r := range runtime.Execute(context.Background(), plan, runtime.Options{Workers: 1}) {
				if r.Err != nil {
					if strings.Contains(r.Err.Error(), "bug") {
						t.Errorf("%s %s: %v\n%s", key, v, r.Err, src)
					}
					continue
				}
				if bad := nonFiniteField(reflect.ValueOf(r.Metrics), "Metrics"); bad != "" {
					t.Errorf("%s %s: %s is not finite\n%s", key, v, bad, src)
				}
			}
		}
	}
}

// nonFiniteField returns the path of the first float in v that is NaN or
// infinite, or "".
func nonFiniteField(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if bad := nonFiniteField(v.Field(i), path+"."+v.Type().Field(i).Name); bad != "" {
					return bad
				}
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if bad := nonFiniteField(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); bad != "" {
				return bad
			}
		}
	}
	return ""
}

// TestBoundsTable: the bounds parse, min is below max, and every count the
// compiler reads (c.count) has a bound of its own, found by reading the
// compiler's source.
func TestBoundsTable(t *testing.T) {
	for key, b := range allBounds() {
		if b.lo > b.hi || b.why == "" || strings.HasSuffix(b.why, ".") {
			t.Errorf("%s: [%v, %v], why %q", key, b.lo, b.hi, b.why)
		}
		if b.whole && (b.lo != math.Trunc(b.lo) || b.hi != math.Trunc(b.hi)) {
			t.Errorf("%s: a count with bounds %v, %v", key, b.lo, b.hi)
		}
	}
	paths, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	counted := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "count" || len(call.Args) != 3 {
				return true
			}
			lit, ok := call.Args[2].(*ast.BasicLit)
			if !ok {
				return true // nodeLevel's field: its callers' literals are checked below
			}
			counted++
			name, _ := strconv.Unquote(lit.Value)
			if b := boundOf(name, lang.Dimensionless); b == nil || !b.whole {
				t.Errorf("%s: c.count(…, %q) has no bound of its own", fset.Position(call.Pos()), name)
			}
			return true
		})
	}
	for _, f := range []string{"active fixed", "low", "high"} { // nodeLevel
		if b := boundOf(f, lang.Dimensionless); b == nil || !b.whole {
			t.Errorf("nodeLevel's %q has no bound", f)
		}
	}
	if counted < 10 {
		t.Errorf("found only %d counts", counted)
	}
}

// boundsMarkdown renders the bounds as the README's table: the
// quantities with bounds of their own, then the dimensions'.
func boundsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Quantity | Range | Why |\n|---|---|---|\n")
	rng := func(x *bound, def *bound) string {
		lo, hi := x.min, x.max
		if lo == "" && def != nil {
			lo = def.min
		}
		if hi == "" && def != nil {
			hi = def.max
		}
		out := lo + " … " + hi
		switch {
		case x.above:
			out = "above " + out
		case x.whole:
			out += ", whole"
		}
		if x.off {
			out += ", or 0 (none)"
		}
		return out
	}
	for _, x := range bounds {
		name := "`" + fieldName(x.field) + "`"
		if strings.HasSuffix(x.field, "@level") {
			name += " of a level"
		}
		if x.dim != lang.Dimensionless {
			name += " (" + dimNoun(x.dim) + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, rng(x, dimBounds[x.dim]), x.why)
	}
	for _, d := range []lang.Dim{lang.Dimensionless, lang.Power, lang.Energy, lang.Time, lang.Fraction, lang.Price, lang.Money, lang.Frequency, lang.Carbon} {
		x := dimBounds[d]
		fmt.Fprintf(&b, "| any other %s | %s | %s |\n", dimNoun(d), rng(x, nil), x.why)
	}
	return b.String()
}

// The README's table of bounds lies between these lines.
const (
	boundsBegin = "<!-- bounds: go test ./compiler -run TestBoundsInREADME -update -->\n"
	boundsEnd   = "<!-- end of bounds -->\n"
)

// TestBoundsInREADME: the README's table of bounds is the table the
// compiler checks; -update (check_test.go's flag) rewrites it.
func TestBoundsInREADME(t *testing.T) {
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, boundsBegin), strings.Index(s, boundsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no block between %q and %q", boundsBegin, boundsEnd)
	}
	want := boundsMarkdown()
	if got := s[i+len(boundsBegin) : j]; got != want {
		if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
			if err := os.WriteFile(path, []byte(s[:i+len(boundsBegin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's table of bounds is out of date: go test ./compiler -run TestBoundsInREADME -update")
	}
	if !strings.Contains(s, "at most "+spanWords(maxSpanSeconds)) || !strings.Contains(s, minDate) || !strings.Contains(s, maxDate) {
		t.Errorf("README.md does not give the longest span (%s) or the dates (%s, %s)", spanWords(maxSpanSeconds), minDate, maxDate)
	}
}
