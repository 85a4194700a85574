// Package compiler turns parsed .pwr files into an execution plan. It
// resolves names across the file and its imports (embedded stdlib modules or
// other files), checks units, ranges and references, compiles rule
// expressions once against the typed runtime environment, and expands each
// experiment's sweeps into runs. Every problem becomes a diagnostic with a
// source range; compilation goes on after an error so that one pass reports
// all of them, like go/types.
package compiler

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
	"github.com/pwrc/pwrc/stdlib"
)

// Options control a compilation.
type Options struct {
	// Sets override parameters, in command-line order (--set NAME=VALUE).
	Sets []Set
	// Experiment restricts the plan to one experiment; "" keeps all.
	Experiment string
	// ReadFile reads scenario files; nil means os.ReadFile.
	ReadFile func(string) ([]byte, error)
	// OpenData opens the data files a scenario names (traces, price
	// series), which are checked by reading their start; nil means
	// os.Open, and did-you-mean suggestions from the directory listing.
	OpenData func(string) (io.ReadCloser, error)
	// Lint adds the checks that read whole data files (`pwrc check`): a
	// powercap window placed against the trace's submissions. A run does
	// without them (the simulator notes such a window itself) rather than
	// parse its traces twice.
	Lint bool
}

// Set is one --set NAME=VALUE.
type Set struct {
	Name, Value string
}

// Result is the outcome of a compilation. Plan is nil when Diags has errors.
type Result struct {
	Plan    *runtime.Plan
	Sources lang.Sources
	Diags   lang.Diagnostics
}

// Compile compiles the scenario in path into a plan.
func Compile(path string, opts Options) *Result {
	c := newCompiler(opts)
	c.load(path)
	var plan *runtime.Plan
	// Go on after errors, so one check reports all of them; only a file
	// that could not even be lexed stops here, since its statements are
	// missing and every reference to them would be a spurious error.
	if c.root != nil && !c.incomplete() {
		c.applySets(opts.Sets)
		c.checkParams()
		c.checkDecls()
		plan = c.plan(opts.Experiment)
		if opts.Experiment == "" { // the other experiments use what this one does not
			c.warnUnusedParams()
			c.warnUnusedDecls()
		}
	}
	c.placeDataRanges()
	diags := dedupe(c.diags)
	diags.Sort()
	if diags.HasErrors() {
		plan = nil
	}
	return &Result{Plan: plan, Sources: c.sources, Diags: diags}
}

type compiler struct {
	opts Options
	// reportLevels are the level names the experiment being compiled
	// reports on, checked once its runs are known.
	reportLevels []*lang.Ident
	// reportFreqs are the pstate metrics it names (expandPStates).
	reportFreqs []reportFreq
	sources     lang.Sources
	diags       lang.Diagnostics

	root    *module
	modules map[string]*module // by canonical path
	loading map[string]bool
	stack   []*module // files being loaded, the importer of each next

	decls     map[string]map[string]*decl // kind → name → declaration
	params    map[string]*param
	badParams map[string]bool // params whose declaration is in error
	silenced  int             // errors not reported because they echo one that is
	nerrs     int             // errors among diags[:scanned] (errs)
	scanned   int

	exprs map[exprKey]*runtime.Expr // compiled once per statement, param values and name mode
	// names is how the rules being compiled read the job fields that are
	// names on Slurm accounting (names.go): set by the workload of the
	// run being compiled. nameSlots counts the name tests made, and
	// nameAt says where each compares its field with which names.
	names     nameMode
	numbered  string // the workload whose rules read numbers: "SWF" or "a synthetic workload"
	nameSlots int
	nameAt    map[*runtime.NameTest][]nameConst
	used      map[string]bool          // params referenced
	guesses   map[*lang.Block][]string // fields taken for misspellings, per block
	cycles    map[string]bool          // `from` cycles reported, by kind and members
	inline    map[*lang.Stmt]*decl     // inline declarations in experiments
	// budgetAt is where each policy's budget relative to a baseline is
	// written, for errors found when runs are linked to baselines.
	budgetAt map[string]*lang.Stmt
	allocAt  map[string]*lang.Stmt         // each policy's `allocate contiguous N`
	usedDecl map[*decl]bool                // declarations some run uses, directly or as a base
	data     map[string]*dataFile          // data files opened, by resolved path
	osData   bool                          // data files are the real file system's
	spans    map[string]*runtime.TraceSpan // traces read for the span of their submissions (powercap windows)
	// inputs reads every run's inputs as the runtime does (Lint: `pwrc
	// check`); dataLines are the lines of data files that diagnostics
	// show, by file and line, and dataDiags those diagnostics (inputs.go).
	inputs    *runtime.InputCheck
	seriesAt  map[string]lang.Range // where each contract names each series: "NAME\x00prices\x00PATH", "NAME\x00carbon\x00PATH"
	dataLines map[string]map[int]string
	dataDiags []dataDiag
	reported  map[string]bool // warnings given once however many runs share their cause
	// unexpanded holds swept params met unbound while compiling a run.
	unexpanded map[string]bool
	labels     map[lang.Value]*lang.Ident // swept values named `NAME = VALUE` (labels.go)
	// synthAt is where each synthetic workload's fields are written, by
	// its block; synthOK caches syntheticFits by workload and machine size.
	synthAt map[*lang.Block]map[string]lang.Range
	synthOK map[workload.Synthetic]bool
	// seriesOK caches seriesInBounds by generator.
	seriesOK map[string]bool
	bounded  map[*runtime.Expr]*runtime.Expr // job power rules, bounded (boundedPower)
}

// module is one loaded file.
type module struct {
	path    string // canonical: absolute file path, or "std/NAME"
	display string // as shown in diagnostics
	dir     string // for relative paths; "" for stdlib
	file    *lang.File
	std     bool
	// importedBy holds the files that import this one, directly or not,
	// through the import chain it was first loaded by.
	importedBy map[*module]bool
	imports    []*module // direct imports
}

// addImporters records that the files in by import m and all it imports.
func (c *compiler) addImporters(m *module, by []*module) {
	fresh := false
	for _, b := range by {
		if b != m && !m.importedBy[b] {
			m.importedBy[b], fresh = true, true
		}
	}
	if fresh {
		for _, dep := range m.imports {
			c.addImporters(dep, by)
		}
	}
}

// decl is a named top-level declaration.
type decl struct {
	kind string // machine, contract, policy, experiment
	name string
	stmt *lang.Stmt
	mod  *module
	// inline is an anonymous declaration written in an experiment,
	// `machine { ... }`; name is then the experiment's.
	inline bool
}

func newCompiler(opts Options) *compiler {
	if opts.ReadFile == nil {
		opts.ReadFile = os.ReadFile
	}
	osData := opts.OpenData == nil
	if osData {
		opts.OpenData = func(p string) (io.ReadCloser, error) { return os.Open(p) }
	}
	return &compiler{
		opts:       opts,
		sources:    lang.Sources{},
		modules:    map[string]*module{},
		loading:    map[string]bool{},
		decls:      map[string]map[string]*decl{},
		params:     map[string]*param{},
		badParams:  map[string]bool{},
		exprs:      map[exprKey]*runtime.Expr{},
		nameAt:     map[*runtime.NameTest][]nameConst{},
		budgetAt:   map[string]*lang.Stmt{},
		allocAt:    map[string]*lang.Stmt{},
		usedDecl:   map[*decl]bool{},
		used:       map[string]bool{},
		guesses:    map[*lang.Block][]string{},
		cycles:     map[string]bool{},
		inline:     map[*lang.Stmt]*decl{},
		data:       map[string]*dataFile{},
		spans:      map[string]*runtime.TraceSpan{},
		dataLines:  map[string]map[int]string{},
		seriesAt:   map[string]lang.Range{},
		reported:   map[string]bool{},
		unexpanded: map[string]bool{},
		labels:     map[lang.Value]*lang.Ident{},
		synthAt:    map[*lang.Block]map[string]lang.Range{},
		synthOK:    map[workload.Synthetic]bool{},
		seriesOK:   map[string]bool{},
		bounded:    map[*runtime.Expr]*runtime.Expr{},
		osData:     osData,
	}
}

var declKinds = []string{"machine", "contract", "policy", "experiment"}
var topKeywords = []string{"import", "param", "machine", "contract", "policy", "experiment"}

// load reads and parses the root file and everything it imports.
func (c *compiler) load(path string) {
	src, err := c.opts.ReadFile(path)
	if err != nil {
		c.diags.Errorf(lang.Range{File: path}, "cannot read %s: %v", path, unwrapPathErr(err))
		return
	}
	abs, _ := filepath.Abs(path)
	c.root = c.parseModule(abs, path, filepath.Dir(path), src, false)
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func (c *compiler) parseModule(canon, display, dir string, src []byte, std bool) *module {
	m := &module{path: canon, display: display, dir: dir, std: std, importedBy: map[*module]bool{}}
	for _, anc := range c.stack {
		m.importedBy[anc] = true
	}
	c.modules[canon] = m
	c.sources[display] = src
	f, diags := lang.Parse(display, src)
	c.diags = append(c.diags, diags...)
	m.file = f
	for _, b := range f.Broken {
		if b.Keyword == "param" {
			c.badParams[b.Name] = true // its uses would only echo the syntax error
		}
	}
	c.loading[canon] = true
	c.stack = append(c.stack, m)
	defer func() {
		delete(c.loading, canon)
		c.stack = c.stack[:len(c.stack)-1]
	}()
	for _, s := range f.Stmts {
		c.declare(m, s)
	}
	return m
}

// declare records one top-level statement.
func (c *compiler) declare(m *module, s *lang.Stmt) {
	switch s.Key.Name {
	case "import":
		c.importStmt(m, s)
	case "param":
		c.declareParam(m, s)
	case "machine", "contract", "policy", "experiment":
		name, ok := s.Args[0:min(1, len(s.Args))], len(s.Args) > 0
		var id *lang.Ident
		if ok {
			id, ok = name[0].(*lang.Ident)
		}
		if !ok {
			r := s.Key.R
			if len(s.Args) > 0 {
				r = s.Args[0].Range()
			}
			d := c.diags.Errorf(r, "%s needs a name", s.Key.Name).
				With("Write `%s NAME { ... }`, where NAME is a word such as `%s`.", s.Key.Name, exampleName(s.Key.Name))
			if len(s.Args) > 0 {
				if str, ok := s.Args[0].(*lang.String); ok && isWord(str.Value) {
					d.Summary = fmt.Sprintf("a %s name is a word, not a string", s.Key.Name)
					d.DidYouMean(str.Value)
				}
			}
			return
		}
		if s.Body == nil {
			c.diags.Errorf(s.Range, "%s `%s` has no body", s.Key.Name, id.Name).
				With("Add a block: `%s %s { ... }`.", s.Key.Name, id.Name)
			return
		}
		kind := s.Key.Name
		if c.decls[kind] == nil {
			c.decls[kind] = map[string]*decl{}
		}
		if prev, dup := c.decls[kind][id.Name]; dup {
			at, first, std := id.R, prev.stmt.Args[0].Range(), prev.mod
			if m.std && !prev.mod.std {
				// A standard module imported after the user's declaration:
				// point at the user's, which is the one to rename.
				at, first, std = first, at, m
			}
			d := c.diags.Errorf(at, "%s `%s` is declared twice", kind, id.Name).
				With("Rename one of them; names of each kind must be unique across a file and its imports.").
				Note(first, "first declared here")
			if std.std {
				d.With("Rename yours, e.g. `%s my_%s from %s { ... }` to start from the standard one in %s.", kind, id.Name, id.Name, std.display)
				if m.std {
					d.Notes[0].Message = "also declared here"
				}
			}
			return
		}
		c.decls[kind][id.Name] = &decl{kind: kind, name: id.Name, stmt: s, mod: m}
	default:
		d := c.diags.Errorf(s.Key.R, "unknown declaration `%s`", s.Key.Name).
			With("A file holds `import`, `param`, `machine`, `contract`, `policy` and `experiment` declarations.")
		if sug := lang.Suggest(s.Key.Name, topKeywords); sug != "" {
			d.DidYouMean(sug)
		} else if where := c.fieldHome(s.Key.Name); where != "" {
			d.With("`%s` belongs inside a %s block.", s.Key.Name, where)
		}
	}
}

// isWord reports whether s could be written as an identifier.
func isWord(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func exampleName(kind string) string {
	switch kind {
	case "machine":
		return "mistral"
	case "contract":
		return "basepeak"
	case "policy":
		return "easy"
	}
	return "billing"
}

// importStmt loads `import "std/NAME"` or `import "relative/file.pwr"`.
func (c *compiler) importStmt(m *module, s *lang.Stmt) {
	if len(s.Args) == 0 {
		c.diags.Errorf(s.Key.R, "import needs a path in quotes").With("Write `import \"std/policies\"` or `import \"common.pwr\"`.")
		return
	}
	if _, ok := s.Args[0].(*lang.String); !ok || len(s.Args) > 1 {
		r := s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range())
		d := c.diags.Errorf(r, "import needs one path in quotes").With("Write `import \"std/policies\"` or `import \"common.pwr\"`; import each file on its own line.")
		if !ok {
			d.DidYouMean(`"` + c.file(s).Sub(r) + `"`)
		}
		return
	}
	str := s.Args[0].(*lang.String)
	p := str.Value
	var canon, display, dir string
	var src []byte
	std := strings.HasPrefix(p, stdlib.Prefix)
	if std {
		b, found := stdlib.Read(p)
		if !found {
			d := c.diags.Errorf(str.R, "no standard module %q", p).
				With("Standard modules: %s.", strings.Join(stdlib.Modules(), ", "))
			d.DidYouMean(lang.Suggest(p, stdlib.Modules()))
			return
		}
		canon, display, src = p, p, b
	} else {
		if m.std {
			c.diags.Errorf(str.R, "a standard module can only import standard modules")
			return
		}
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(m.dir, p)
		}
		abs, _ := filepath.Abs(full)
		canon, display, dir = abs, full, filepath.Dir(full)
		if c.modules[canon] == nil && !c.loading[canon] {
			b, err := c.opts.ReadFile(full)
			if err != nil {
				d := c.diags.Errorf(str.R, "cannot import %q: %v", p, unwrapPathErr(err))
				if !filepath.IsAbs(p) {
					d.With("Looked for %s: a relative import is read from the importing file's directory.", full)
				}
				return
			}
			src = b
		}
	}
	if c.loading[canon] {
		var names []string
		for i := len(c.stack) - 1; i >= 0; i-- {
			names = append([]string{c.stack[i].display}, names...)
			if c.stack[i].path == canon {
				break
			}
		}
		names = append(names, display)
		c.diags.Errorf(str.R, "import cycle: %s", strings.Join(names, " → ")).
			With("Files cannot import each other; move what they share into a third file that both import.")
		return
	}
	if dep := c.modules[canon]; dep != nil {
		// Already loaded (a diamond is fine): m and its importers import it too.
		m.imports = append(m.imports, dep)
		c.addImporters(dep, c.stack)
		return
	}
	m.imports = append(m.imports, c.parseModule(canon, display, dir, src, std))
}

func (c *compiler) incomplete() bool {
	for _, m := range c.modules {
		if m.file == nil || m.file.Incomplete {
			return true
		}
	}
	return false
}

// isBroken reports whether a declaration of this kind and name exists but
// failed to parse: its syntax error has been reported already.
func (c *compiler) isBroken(kind, name string) bool {
	for _, m := range c.modules {
		for _, b := range m.file.Broken {
			if b.Keyword == kind && b.Name == name {
				return true
			}
		}
	}
	return false
}

// lookup finds a declaration of a kind by name, reporting an error at r
// with a suggestion when it does not exist.
func (c *compiler) lookup(kind, name string, r lang.Range) *decl {
	if d := c.decls[kind][name]; d != nil {
		return d
	}
	if c.isBroken(kind, name) {
		return nil // its syntax error is reported; this would only echo it
	}
	var names []string
	for n := range c.decls[kind] {
		names = append(names, n)
	}
	sortStrings(names)
	d := c.diags.Errorf(r, "unknown %s `%s`", kind, name)
	if sug := lang.Suggest(name, names); sug != "" {
		d.DidYouMean(sug)
		if len(names) <= 12 {
			d.With("%s in scope: %s.", capitalize(plural(kind)), strings.Join(names, ", "))
		}
		return nil
	}
	// Perhaps it lives in a standard module that is not imported.
	for _, mod := range stdlib.Modules() {
		if c.modules[mod] != nil {
			continue
		}
		src, _ := stdlib.Read(mod)
		f, _ := lang.Parse(mod, src)
		for _, s := range f.Stmts {
			if s.Key.Name == kind && len(s.Args) > 0 && s.Args[0].Text() == name {
				d.With("`%s` is defined in %s: add `import \"%s\"` at the top of the file.", name, mod, mod)
				return nil
			}
		}
	}
	if other := c.kindOf(name); other != "" {
		d.With("`%s` is a %s, not a %s.", name, other, kind)
		return nil
	}
	if len(names) > 0 {
		d.With("Declare it with `%s %s { ... }`; %s in scope: %s.", kind, name, plural(kind), strings.Join(names, ", "))
	} else {
		d.With("Declare it with `%s %s { ... }`, or import a module that does.", kind, name)
	}
	return nil
}

func plural(kind string) string {
	if kind == "policy" {
		return "policies"
	}
	return kind + "s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (c *compiler) kindOf(name string) string {
	for _, k := range declKinds {
		if c.decls[k][name] != nil {
			return k
		}
	}
	if c.params[name] != nil {
		return "param"
	}
	return ""
}

// dedupe drops repeated diagnostics: a declaration used by many runs is
// compiled many times, but each problem is reported once.
func dedupe(ds lang.Diagnostics) lang.Diagnostics {
	seen := map[string]bool{}
	out := ds[:0]
	for _, d := range ds {
		k := fmt.Sprintf("%s|%d|%d|%s", d.Range.File, d.Range.Start.Offset, d.Range.End.Offset, d.Summary)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// once reports whether a problem with this key is met for the first time:
// problems shared by many runs (a trace, a policy and contract pair, a
// powercap window) are said once.
func (c *compiler) once(key string) bool {
	if c.reported[key] {
		return false
	}
	c.reported[key] = true
	return true
}
