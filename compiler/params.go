package compiler

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

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
		c.diags.Errorf(r, "param `%s` needs `= VALUE`", id.Name).With("%s", usage)
		return
	}
	if len(s.Args) > 3 {
		c.diags.Errorf(s.Args[3].Range().Cover(s.Args[len(s.Args)-1].Range()), "param `%s` holds one value", id.Name).
			With("Put several values in a list to sweep them: `param %s = [a, b]`.", id.Name)
		return
	}
	if isKeyword(id.Name) {
		c.diags.Errorf(id.R, "`%s` cannot be a param name: it is a keyword", id.Name)
		return
	}
	val := s.Args[2]
	if l, ok := val.(*lang.List); ok {
		c.checkParamList(id.Name, l)
	}
	if prev := c.params[id.Name]; prev != nil {
		switch {
		case prev.mod == m:
			c.diags.Errorf(id.R, "param `%s` is declared twice", id.Name).Note(prev.decl.Args[0].Range(), "first declared here")
			return
		case m == c.root || c.root == nil && !m.std:
			// The root file sets the default of a param its imports declare.
		case prev.mod == c.root || prev.mod != nil && c.root == nil:
			return // the root file's default wins over an import's
		default:
			c.diags.Errorf(id.R, "param `%s` is declared by both %s and %s", id.Name, prev.mod.display, m.display).
				Note(prev.decl.Args[0].Range(), "first declared here")
			return
		}
	}
	c.params[id.Name] = &param{name: id.Name, decl: s, mod: m, value: val}
}

func (c *compiler) checkParamList(name string, l *lang.List) {
	if len(l.Items) == 0 {
		c.diags.Errorf(l.R, "param `%s` is an empty list", name).With("A list sweeps its values; give at least one.")
	}
	for _, it := range l.Items {
		if len(it) != 1 {
			c.diags.Errorf(it[0].Range().Cover(it[len(it)-1].Range()), "each value of a swept param is a single value").
				With("Separate values with commas: `[64, 128]`.")
		}
		if len(it) > 0 {
			if _, nested := it[0].(*lang.List); nested {
				c.diags.Errorf(it[0].Range(), "lists cannot be nested")
			}
		}
	}
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
		vals, diags := lang.ParseValue(file, s.Value)
		c.diags = append(c.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		if len(vals) != 1 {
			r := lang.Range{File: file, Start: lang.Pos{Line: 1, Col: 1}, End: lang.Pos{Offset: len(s.Value), Line: 1, Col: len(s.Value) + 1}}
			if len(vals) > 1 && isPathLike(s.Value) {
				// A path with characters the lexer splits: take it verbatim.
				vals = []lang.Value{&lang.String{Value: s.Value, Src: s.Value, R: r}}
			} else if len(vals) == 0 {
				c.diags.Errorf(r, "--set %s needs a value", s.Name).With("Write --set %s=VALUE.", s.Name)
				continue
			} else {
				c.diags.Errorf(r, "--set %s holds one value", s.Name).With("To sweep, give a list: --set '%s=[a,b]'.", s.Name)
				continue
			}
		}
		if l, ok := vals[0].(*lang.List); ok {
			c.checkParamList(s.Name, l)
		}
		// A bare path on the command line is a string, quotes or not.
		if id, ok := vals[0].(*lang.Ident); ok && isPathLike(s.Value) && c.kindOf(id.Name) == "" {
			vals[0] = &lang.String{Value: s.Value, Src: s.Value, R: id.R}
		}
		p.value, p.set = vals[0], true
	}
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
			v = l.Items[0][0] // checking outside a sweep: the first value stands in
			continue
		}
		v = p.value
	}
	return v
}

func (c *compiler) checkParams() {
	for _, p := range c.params {
		if id, ok := p.value.(*lang.Ident); ok && c.params[id.Name] != nil && c.params[id.Name] == p {
			c.diags.Errorf(id.R, "param `%s` refers to itself", p.name)
		}
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
