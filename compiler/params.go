package compiler

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pwrc/pwrc/lang"
)

// param is a scenario parameter: `param NAME = VALUE`. Its value may be
// overridden on the command line; a list value sweeps.
type param struct {
	name  string
	decl  *lang.Stmt // the declaration that holds the current default
	mod   *module
	value lang.Value
	set   bool // value came from --set
	bad   bool // its value is in error (reported): uses stay quiet
}

// setFile is the pseudo file name of a --set value in diagnostics.
func setFile(name string) string { return "--set " + name }

func (c *compiler) declareParam(m *module, s *lang.Stmt) {
	usage := "Write `param NAME = VALUE`, e.g. `param nodes = 128` or `param policy = [fcfs, easy]`."
	if len(s.Args) == 0 {
		c.diags.Errorf(s.Key.R, "param needs a name and a value").With("%s", usage)
		return
	}
	id, ok := s.Args[0].(*lang.Ident)
	if !ok {
		c.diags.Errorf(s.Args[0].Range(), "param name must be a word, not `%s`", s.Args[0].Text()).With("%s", usage)
		return
	}
	if len(s.Args) < 3 || s.Args[1].Text() != "=" {
		r := id.R
		if len(s.Args) > 1 {
			r = s.Args[1].Range()
		}
		d := c.diags.Errorf(r, "param `%s` needs `= VALUE`", id.Name).With("%s", usage)
		switch {
		case len(s.Args) == 2 && s.Args[1].Text() == "=":
			d.Summary = fmt.Sprintf("param `%s` needs a value after `=`", id.Name)
			d.Range = lang.Range{File: r.File, Start: r.End, End: r.End}
		case len(s.Args) == 2:
			d.Summary = fmt.Sprintf("param `%s` needs `=` before its value", id.Name)
			d.DidYouMean("= " + s.Args[1].Text())
		}
		c.badParams[id.Name] = true
		return
	}
	if len(s.Args) > 3 {
		c.diags.Errorf(s.Args[3].Range().Cover(s.Args[len(s.Args)-1].Range()), "param `%s` holds one value", id.Name).
			With("Put several values in a list to sweep them: `param %s = [a, b]`.", id.Name)
		c.badParams[id.Name] = true
		return
	}
	if isKeyword(id.Name) {
		c.diags.Errorf(id.R, "`%s` cannot be a param name: it is a keyword", id.Name).
			With("Words such as `auto`, `per`, `idle` and `peak` are read as keywords where a value stands; choose another name.")
		c.badParams[id.Name] = true
		return
	}
	val := s.Args[2]
	bad := false
	if l, ok := val.(*lang.List); ok {
		bad = !c.checkParamList(id.Name, l)
	}
	if prev := c.params[id.Name]; prev != nil {
		switch {
		case prev.mod == m:
			c.diags.Errorf(id.R, "param `%s` is declared twice", id.Name).
				With("Keep one; to sweep several values, use a list: `param %s = [a, b]`.", id.Name).
				Note(prev.decl.Args[0].Range(), "first declared here")
			return
		case prev.mod.importedBy[m]:
			// A file sets the default of a param its imports declare: the
			// root file's `param kunkel_prices = "T1.csv"`.
		case m.importedBy[prev.mod]:
			return // the importing file's default wins, whichever comes first
		default:
			c.diags.Errorf(id.R, "param `%s` is declared by both %s and %s", id.Name, prev.mod.display, m.display).
				With("Declare it in one file, or set its value in a file that imports both.").
				Note(prev.decl.Args[0].Range(), "first declared here")
			return
		}
	}
	c.params[id.Name] = &param{name: id.Name, decl: s, mod: m, value: val, bad: bad}
}

// checkParamList checks the list value of a param; it reports false when
// the list is in error.
func (c *compiler) checkParamList(name string, l *lang.List) bool {
	ok := true
	if len(l.Items) == 0 {
		c.diags.Errorf(l.R, "param `%s` is an empty list", name).With("A list sweeps its values; give at least one.")
		ok = false
	}
	for _, it := range l.Items {
		v, good := c.item(it)
		if !good {
			c.badItem(it, "each value of a swept param is a single value", "[64, 128]")
			ok = false
			continue
		}
		if _, nested := v.(*lang.List); nested {
			c.diags.Errorf(v.Range(), "lists cannot be nested").With("A swept param is a flat list, e.g. `[64, 128]`.")
			ok = false
		}
	}
	return ok
}

// quiet reports whether an error about value v would only echo one that
// is reported already: v names a param whose declaration is broken, or
// one that sweeps an empty list.
func (c *compiler) quiet(v lang.Value) bool {
	id, ok := v.(*lang.Ident)
	if !ok {
		return false
	}
	p := c.params[id.Name]
	if (p == nil && c.badParams[id.Name]) || (p != nil && p.bad) {
		c.silenced++ // the use fails, though quietly
		return true
	}
	return false
}

// errs counts the errors found so far, reported or silenced, so that a
// declaration compiled with an error in it is known to have failed.
// Warnings do not count: a declaration, run or experiment compiled with a
// warning has not failed, and a warning never changes the plan.
func (c *compiler) errs() int {
	for ; c.scanned < len(c.diags); c.scanned++ {
		if c.diags[c.scanned].Severity == lang.Error {
			c.nerrs++
		}
	}
	return c.nerrs + c.silenced
}

// applySets overrides params from the command line.
func (c *compiler) applySets(sets []Set) {
	var names []string
	for n := range c.params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, s := range sets {
		file := setFile(s.Name)
		c.sources[file] = []byte(s.Value)
		p := c.params[s.Name]
		if p == nil {
			d := c.diags.Errorf(lang.Range{File: "--set"}, "unknown param `%s` in --set %s=%s", s.Name, s.Name, s.Value)
			if sug := lang.Suggest(s.Name, names); sug != "" {
				d.DidYouMean(sug)
			}
			if len(names) > 0 {
				d.With("The scenario declares: %s.", strings.Join(names, ", "))
			} else {
				d.With("The scenario declares no params; add `param %s = ...` to it.", s.Name)
			}
			continue
		}
		// A param whose default is a string (a path) takes the value as
		// written, quotes or not: --set trace=data/KTH.swf.gz. So does a
		// list of them: --set trace=[a.swf,b.swf].
		stringy := isStringish(p.value)
		raw := strings.TrimSpace(s.Value)
		if stringy && raw != "" && raw[0] != '[' && raw[0] != '"' && raw[0] != '\'' && raw[0] != '`' {
			p.value, p.set, p.bad = &lang.String{Value: raw, Src: raw, R: wholeRange(file, s.Value)}, true, false
			continue
		}
		vals, diags := lang.ParseValue(file, s.Value)
		c.diags = append(c.diags, diags...)
		if diags.HasErrors() {
			p.bad = true
			continue
		}
		if len(vals) != 1 {
			r := wholeRange(file, s.Value)
			if len(vals) > 1 && isPathLike(raw) {
				// A path with characters the lexer splits: take it verbatim.
				vals = []lang.Value{&lang.String{Value: raw, Src: raw, R: r}}
			} else if len(vals) == 0 {
				c.diags.Errorf(r, "--set %s needs a value", s.Name).With("Write --set %s=VALUE.", s.Name)
				p.bad = true
				continue
			} else {
				extra := vals[1].Range().Cover(vals[len(vals)-1].Range())
				c.diags.Errorf(extra, "unexpected %s after `%s` in --set %s", describeValue(vals[1]), vals[0].Text(), s.Name).
					With("Give one value, e.g. --set %s=%s; to sweep several, a list: --set '%s=[a, b]'.", s.Name, vals[0].Text(), s.Name)
				p.bad = true
				continue
			}
		}
		if l, ok := vals[0].(*lang.List); ok && (stringy || listOfPaths(l)) {
			vals[0] = stringItems(l, s.Value)
		}
		p.bad = false
		if l, ok := vals[0].(*lang.List); ok {
			p.bad = !c.checkParamList(s.Name, l)
		}
		// A bare path on the command line is a string, quotes or not.
		if id, ok := vals[0].(*lang.Ident); ok && isPathLike(raw) && c.kindOf(id.Name) == "" {
			vals[0] = &lang.String{Value: raw, Src: raw, R: id.R}
		}
		p.value, p.set = vals[0], true
	}
}

// wholeRange is the range of a whole --set value.
func wholeRange(file, v string) lang.Range {
	end := lang.Pos{Offset: len(v), Line: 1 + strings.Count(v, "\n"), Col: 1 + utf8.RuneCountInString(v[strings.LastIndexByte(v, '\n')+1:])}
	return lang.Range{File: file, Start: lang.Pos{Line: 1, Col: 1}, End: end}
}

// isStringish reports a string, or a list of strings: the default of a
// param that holds paths.
func isStringish(v lang.Value) bool {
	switch v := v.(type) {
	case *lang.String:
		return true
	case *lang.List:
		for _, it := range v.Items {
			x, _, ok := splitItem(it)
			if !ok {
				return false
			}
			if _, ok := x.(*lang.String); !ok {
				return false
			}
		}
		return len(v.Items) > 0
	}
	return false
}

// listOfPaths reports a list whose items look like unquoted paths.
func listOfPaths(l *lang.List) bool {
	for _, it := range l.Items {
		if _, rest := cutLabel(it); len(rest) > 1 {
			return true
		}
	}
	return false
}

// cutLabel splits `NAME = …` off a --set list item: the label's values
// (none without one) and the rest.
func cutLabel(it []lang.Value) (label, rest []lang.Value) {
	if _, isID := it[0].(*lang.Ident); isID && len(it) > 2 && isEquals(it[1]) {
		return it[:2], it[2:]
	}
	return nil, it
}

// stringItems turns each item of a --set list into a string: a quoted one
// stays as it is, anything else is taken as written (`[a.swf, b/c.swf]`);
// a label stays a label (`[a = x/trace.swf, b = y/trace.swf]`).
func stringItems(l *lang.List, src string) *lang.List {
	out := &lang.List{Src: l.Src, R: l.R}
	for _, it := range l.Items {
		label, rest := cutLabel(it)
		if len(rest) == 1 {
			if _, ok := rest[0].(*lang.String); ok {
				out.Items = append(out.Items, it)
				continue
			}
		}
		r := rest[0].Range().Cover(rest[len(rest)-1].Range())
		text := src[r.Start.Offset:r.End.Offset]
		item := append(append([]lang.Value(nil), label...), &lang.String{Value: text, Src: text, R: r})
		out.Items = append(out.Items, item)
	}
	return out
}

// isPathLike reports whether a command-line value looks like a file path.
func isPathLike(s string) bool {
	return strings.ContainsAny(s, "/\\") || strings.HasSuffix(s, ".swf") || strings.HasSuffix(s, ".gz") ||
		strings.HasSuffix(s, ".csv") || strings.HasSuffix(s, ".pwr")
}

// dirOf is the directory a relative path written at r is relative to: the
// file it is written in, or the working directory for --set values.
func (c *compiler) dirOf(r lang.Range) string {
	if strings.HasPrefix(r.File, "--set") {
		return "."
	}
	for _, m := range c.modules {
		if m.display == r.File {
			return m.dir
		}
	}
	return "."
}

// path resolves a path string written at r.
func (c *compiler) path(s *lang.String) string {
	if s.Value == "" || filepath.IsAbs(s.Value) {
		return s.Value
	}
	return filepath.Join(c.dirOf(s.R), s.Value)
}

// binding holds the current value of every swept dimension while one run
// is compiled: param name or experiment field → chosen list item.
type binding map[string]lang.Value

// val substitutes params: an identifier naming a param stands for its
// value (the bound item when the param sweeps).
func (c *compiler) val(v lang.Value, b binding) lang.Value {
	for range 8 { // params may name params; the bound guards against cycles
		id, ok := v.(*lang.Ident)
		if !ok {
			return v
		}
		p := c.params[id.Name]
		if p == nil {
			return v
		}
		c.used[id.Name] = true
		if item, ok := b[id.Name]; ok {
			v = item
			continue
		}
		if l, ok := p.value.(*lang.List); ok && len(l.Items) > 0 {
			first, good := c.item(l.Items[0])
			if !good {
				first = l.Items[0][0] // reported where the param is declared or set
			}
			if b != nil && !c.unexpanded[id.Name] {
				// Compiling a run, every sweep it reaches is bound: a list
				// met here would silently run its first value only.
				c.unexpanded[id.Name] = true
				c.diags.Errorf(id.R, "param `%s` sweeps, but pwrc cannot expand a sweep here", id.Name).
					With("Give it one value here, or sweep it where an experiment reaches it (a field, a declaration it names, or a rule).")
			}
			v = first // checking outside a sweep: the first value stands in
			continue
		}
		v = p.value
	}
	return v
}

// checkParams reports params whose values name each other in a cycle
// (`param a = b`, `param b = a`), once per cycle, and drops them so that
// nothing later follows the cycle.
func (c *compiler) checkParams() {
	var names []string
	for n := range c.params {
		names = append(names, n)
	}
	sort.Strings(names)
	// A param and a declaration of the same name: `policy fcfs` would
	// silently mean the param's value.
	for _, n := range names {
		p := c.params[n]
		for _, k := range declKinds {
			if d := c.decls[k][n]; d != nil {
				article := "a"
				if strings.ContainsRune("aeiou", rune(k[0])) {
					article = "an" // an experiment
				}
				c.diags.Errorf(p.decl.Args[0].Range(), "param `%s` has the name of %s %s", n, article, k).
					With("Where a name stands, a param's name means its value, so the %s could not be named; rename the param.", k).
					Note(d.stmt.Args[0].Range(), "the %s", k)
				delete(c.params, n)
				c.badParams[n] = true
				break
			}
		}
	}
	names = names[:0]
	for n := range c.params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var path []*param
		onPath := map[*param]int{}
		for p := c.params[n]; p != nil; {
			if i, seen := onPath[p]; seen {
				c.paramCycle(path[i:])
				break
			}
			onPath[p] = len(path)
			path = append(path, p)
			id, ok := p.value.(*lang.Ident)
			if !ok {
				break
			}
			p = c.params[id.Name]
		}
	}
}

func (c *compiler) paramCycle(cyc []*param) {
	first := 0
	for i, p := range cyc {
		if p.value.Range().File < cyc[first].value.Range().File ||
			p.value.Range().File == cyc[first].value.Range().File && p.value.Range().Start.Offset < cyc[first].value.Range().Start.Offset {
			first = i
		}
	}
	cyc = append(cyc[first:len(cyc):len(cyc)], cyc[:first]...)
	if len(cyc) == 1 {
		c.diags.Errorf(cyc[0].value.Range(), "param `%s` is defined as itself", cyc[0].name).
			With("Give it a value, e.g. `param %s = 128`.", cyc[0].name)
	} else {
		names := make([]string, 0, len(cyc)+1)
		for _, p := range cyc {
			names = append(names, p.name)
		}
		names = append(names, names[0])
		c.diags.Errorf(cyc[0].value.Range(), "params defined in a cycle: %s", strings.Join(quoteAll(names), " → ")).
			With("Give one of them a value instead of another param's name.")
	}
	for _, p := range cyc {
		delete(c.params, p.name)
		c.badParams[p.name] = true
	}
}

func (c *compiler) warnUnusedParams() {
	if c.root == nil {
		return
	}
	for _, p := range c.params {
		if p.mod == c.root && !c.used[p.name] && !c.diags.HasErrors() {
			c.diags.Warnf(p.decl.Args[0].Range(), "param `%s` is never used", p.name).
				With("Remove it, or refer to it by name where its value belongs.")
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }

// valueText is how a swept value is named in run names and tables.
func valueText(v lang.Value) string {
	switch v := v.(type) {
	case *lang.String:
		if strings.ContainsAny(v.Value, "/\\") || strings.Contains(v.Value, ".") {
			base := filepath.Base(v.Value)
			for _, ext := range []string{".gz", ".swf", ".csv"} {
				base = strings.TrimSuffix(base, ext)
			}
			return base
		}
		return v.Value
	case *lang.Number:
		return strings.ReplaceAll(v.Src, " ", "")
	}
	return v.Text()
}

func describeValue(v lang.Value) string {
	switch v := v.(type) {
	case *lang.Number:
		if v.Unit != "" {
			return fmt.Sprintf("the quantity `%s`", v.Src)
		}
		return fmt.Sprintf("the number `%s`", v.Src)
	case *lang.String:
		return fmt.Sprintf("the string %s", v.Src)
	case *lang.Clock:
		return fmt.Sprintf("the time of day `%s`", v.Src)
	case *lang.List:
		return "a list"
	case *lang.Ident:
		return fmt.Sprintf("`%s`", v.Name)
	}
	return fmt.Sprintf("`%s`", v.Text())
}
