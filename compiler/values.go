package compiler

import (
	"math"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/lang"
)

// Field decoding: every statement inside a block is a field; fieldSpec says
// how to read one. Unknown fields get "did you mean", repeated fields point
// at the first occurrence.
type fieldSpec struct {
	name   string
	usage  string // how the field is written, for messages
	repeat bool   // may appear more than once
	decode func(s *lang.Stmt)
}

// decodeBlock applies the statements of blk to fields. what names the
// block in messages ("machine `mistral`").
func (c *compiler) decodeBlock(what string, blk *lang.Block, fields []fieldSpec) {
	if blk == nil {
		return
	}
	seen := map[string]*lang.Stmt{}
	for _, s := range blk.Stmts {
		var f *fieldSpec
		for i := range fields {
			if fields[i].name == s.Key.Name {
				f = &fields[i]
				break
			}
		}
		if f == nil {
			names := make([]string, len(fields))
			for i := range fields {
				names[i] = fields[i].name
			}
			d := c.diags.Errorf(s.Key.R, "unknown field `%s` in %s", s.Key.Name, what)
			if sug := lang.Suggest(s.Key.Name, names); sug != "" {
				d.DidYouMean(sug)
				c.guesses[blk] = append(c.guesses[blk], sug)
			} else {
				d.With("Fields of %s: %s.", what, strings.Join(names, ", "))
			}
			if home := c.fieldHome(s.Key.Name); home != "" && !strings.HasPrefix(what, home) {
				d.With("`%s` belongs in a %s block.", s.Key.Name, home)
			}
			continue
		}
		if prev := seen[s.Key.Name]; prev != nil && !f.repeat {
			c.diags.Errorf(s.Key.R, "`%s` is set twice in %s", s.Key.Name, what).
				With("Keep one; the second would silently win.").
				Note(prev.Key.R, "first set here")
			continue
		}
		seen[s.Key.Name] = s
		if s.Body != nil && !blockFields[s.Key.Name] {
			c.diags.Errorf(s.Body.Range, "`%s` does not take a block", s.Key.Name).With("Write it as `%s`.", f.usage)
			continue
		}
		f.decode(s)
	}
}

// guessed reports whether a misspelled field in blk was taken for name: a
// required-field error for name would then only repeat the typo's.
func (c *compiler) guessed(blk *lang.Block, name string) bool {
	for _, g := range c.guesses[blk] {
		if g == name {
			return true
		}
	}
	return false
}

// blockFields are the fields that take a { } block.
var blockFields = map[string]bool{"power": true, "workload": true, "machine": true, "contract": true, "policy": true, "hourly": true, "select": true, "level": true, "powercap": true, "band": true, "demand": true, "energy": true, "costs": true, "carbon": true, "defer": true}

// fieldHome says which block a field name belongs to, for hints when a
// field is written in the wrong place.
func (c *compiler) fieldHome(name string) string {
	switch name {
	case "nodes", "cores", "power", "infrastructure", "boot", "level":
		return "machine"
	case "pstate", "slowdown":
		return "power"
	case "size":
		return "level"
	case "flat", "peak", "otherwise", "hourly":
		return "contract"
	case "order", "priority", "admit", "backfill", "estimate", "allocate", "budget", "window", "select", "frequency", "interval":
		return "policy"
	case "submitted":
		return "workload"
	case "workload", "report", "seed":
		return "experiment"
	}
	return ""
}

// args checks that s has between lo and hi arguments (hi < 0: no limit).
func (c *compiler) args(s *lang.Stmt, lo, hi int, usage string) bool {
	n := len(s.Args)
	switch {
	case n < lo:
		r := s.Key.R
		c.diags.Errorf(lang.Range{File: r.File, Start: r.End, End: r.End}, "`%s` needs a value", s.Key.Name).
			With("Write `%s`.", usage)
		return false
	case hi >= 0 && n > hi:
		extra := s.Args[hi]
		d := c.diags.Errorf(extra.Range().Cover(s.Args[n-1].Range()), "unexpected %s after `%s`", describeValue(extra), c.file(s).Sub(lang.Range{Start: s.Key.R.Start, End: s.Args[hi-1].Range().End}))
		d.With("Write `%s`.", usage)
		if hi > 0 {
			if num, ok := c.val(s.Args[hi-1], nil).(*lang.Number); ok && num.Unit == "" {
				if id, ok := extra.(*lang.Ident); ok {
					d.Summary = "unknown unit `" + id.Name + "`"
					d.Range = id.R
					for _, w := range strings.FieldsFunc(usage, func(r rune) bool { return r == ' ' || r == '`' }) {
						if u, ok := lang.LookupUnit(w); ok && w != "%" {
							d.With("Units of %s: %s.", dimNoun(u.Dim), unitList(u.Dim))
							break
						}
					}
					var all []string
					for _, dim := range []lang.Dim{lang.Power, lang.Energy, lang.Time, lang.Fraction, lang.Price, lang.Money, lang.Frequency} {
						all = append(all, lang.UnitsOf(dim)...)
					}
					d.DidYouMean(lang.Suggest(id.Name, all))
				}
			}
		}
		return false
	}
	return true
}

// file returns the parsed file a statement belongs to.
func (c *compiler) file(s *lang.Stmt) *lang.File {
	for _, m := range c.modules {
		if m.file != nil && m.display == s.Range.File {
			return m.file
		}
	}
	return &lang.File{}
}

// quantity reads a number in dimension dim and returns it in base units
// (W, J, s, fraction, currency/kWh, currency, Hz), within its bounds
// (bounds.go). A bare 0 needs no unit. field names the quantity in
// messages and bounds; `power@level` is shown as `power` and bounded as a
// level's power, not a node's.
func (c *compiler) quantity(v lang.Value, b binding, dim lang.Dim, field string) (float64, string, bool) {
	key := field
	field = fieldName(field)
	use := v
	if c.quiet(use) {
		return 0, "", false
	}
	v = c.val(v, b)
	n, ok := v.(*lang.Number)
	if !ok {
		d := c.diags.Errorf(v.Range(), "`%s` needs %s, not %s", field, dim, describeValue(v))
		c.noteUse(d, use, v)
		if dim != lang.Dimensionless {
			d.With("Write a number with a unit, e.g. `%s %s`.", field, example(dim))
		}
		if s, ok := v.(*lang.String); ok {
			if _, err := strconv.ParseFloat(strings.TrimSpace(s.Value), 64); err == nil {
				d.With("Numbers are written without quotes: `%s %s`.", field, strings.TrimSpace(s.Value))
			}
		}
		return 0, "", false
	}
	if n.Unit == "" {
		if dim == lang.Dimensionless || n.Value == 0 {
			if !c.checkBounds(key, dim, n.Value, n, "", use) {
				return 0, "", false
			}
			return n.Value, "", true
		}
		d := c.diags.Errorf(n.R, "`%s` needs a unit of %s", n.Src, dimNoun(dim))
		d.With("Write e.g. `%s %s`; units: %s.", field, example(dim), unitList(dim))
		c.noteUse(d, use, v)
		return 0, "", false
	}
	u, known := lang.LookupUnit(n.Unit)
	if !known {
		d := c.diags.Errorf(n.UnitRange, "unknown unit `%s`", n.Unit).DidYouMean(lang.SuggestUnit(n.Unit))
		if dim == lang.Dimensionless {
			d.With("`%s` is a plain number: `%s %s`.", field, field, trimNumber(n.Value))
		} else {
			d.With("Units of %s: %s.", dimNoun(dim), unitList(dim))
		}
		c.noteUse(d, use, v)
		return 0, "", false
	}
	if u.Dim != dim {
		d := c.diags.Errorf(n.UnitRange, "wrong unit: `%s` is %s, but `%s` needs %s", n.Unit, u.Dim, field, dim)
		if dim == lang.Dimensionless {
			d.With("Write the plain number: `%s %s`.", field, trimNumber(n.Value))
		} else {
			d.With("Units of %s: %s.", dimNoun(dim), unitList(dim))
		}
		c.noteUse(d, use, v)
		return 0, "", false
	}
	x := n.Value * u.Scale
	if !c.checkBounds(key, dim, x, n, u.Currency, use) {
		return 0, "", false
	}
	return x, u.Currency, true
}

// unitList lists the units of a dimension for messages.
func unitList(d lang.Dim) string {
	switch d {
	case lang.Price:
		return "EUR/kWh, EUR/MWh (or the same in USD, GBP, CHF)"
	case lang.Money:
		return "EUR, USD, GBP, CHF"
	}
	return strings.Join(lang.UnitsOf(d), ", ")
}

// dimNoun names a dimension without its article: "power", "duration".
func dimNoun(d lang.Dim) string {
	return strings.TrimPrefix(strings.TrimPrefix(d.String(), "a "), "an ")
}

// noteUse adds "used here" when a value came through a param.
func (c *compiler) noteUse(d *lang.Diagnostic, use, v lang.Value) {
	if use != v {
		d.Note(use.Range(), "used here")
	}
}

func trimNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func example(dim lang.Dim) string {
	switch dim {
	case lang.Power:
		return "70 W"
	case lang.Energy:
		return "500 MWh"
	case lang.Time:
		return "30 min"
	case lang.Fraction:
		return "50%"
	case lang.Price:
		return "0.145 EUR/kWh"
	case lang.Money:
		return "10000 EUR"
	case lang.Frequency:
		return "2.7 GHz"
	}
	return "1"
}

// count reads a whole number in the range of its bound (bounds.go; the
// largest is checked by quantity).
func (c *compiler) count(v lang.Value, b binding, field string) (int, bool) {
	use := v
	f, _, ok := c.quantity(v, b, lang.Dimensionless, field)
	if !ok {
		return 0, false
	}
	v = c.val(v, b)
	bd := boundOf(field, lang.Dimensionless)
	if bd == nil {
		bd = &bound{lo: 0, why: "it counts things"}
	}
	if f != math.Trunc(f) || f < bd.lo {
		d := c.diags.Errorf(v.Range(), "`%s` must be a whole number ≥ %s, not %s", fieldName(field), trimNumber(bd.lo), v.Text()).
			With("%s.", capitalize(bd.why))
		c.noteUse(d, use, v)
		return 0, false
	}
	return int(f), true
}

// nonNegative reads a quantity that must be ≥ 0.
func (c *compiler) nonNegative(v lang.Value, b binding, dim lang.Dim, field string) (float64, bool) {
	use := v
	f, _, ok := c.quantity(v, b, dim, field)
	if ok && f < 0 {
		v = c.val(v, b)
		d := c.diags.Errorf(v.Range(), "`%s` cannot be negative", fieldName(field))
		c.noteUse(d, use, v)
		return 0, false
	}
	return f, ok
}

// str reads a string.
func (c *compiler) str(v lang.Value, b binding, field, usage string) (*lang.String, bool) {
	use := v
	if c.quiet(use) {
		return nil, false
	}
	v = c.val(v, b)
	s, ok := v.(*lang.String)
	if !ok {
		d := c.diags.Errorf(v.Range(), "`%s` needs a string in quotes, not %s", field, describeValue(v)).With("Write `%s`.", usage)
		c.noteUse(d, use, v)
		if id, isID := v.(*lang.Ident); isID && c.params[id.Name] == nil {
			var names []string
			for n := range c.params {
				names = append(names, n)
			}
			if sug := lang.Suggest(id.Name, names); sug != "" {
				d.DidYouMean(sug)
			}
		}
		return nil, false
	}
	return s, true
}

// keyword reads an identifier that must be one of choices.
func (c *compiler) keyword(v lang.Value, field string, choices ...string) (string, bool) {
	id, ok := v.(*lang.Ident)
	if ok {
		for _, ch := range choices {
			if id.Name == ch {
				return ch, true
			}
		}
	}
	d := c.diags.Errorf(v.Range(), "`%s` expects %s, not `%s`", field, orList(choices), v.Text())
	if ok {
		d.DidYouMean(lang.Suggest(id.Name, choices))
	}
	return "", false
}

func orList(choices []string) string {
	q := make([]string, len(choices))
	for i, c := range choices {
		q[i] = "`" + c + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// isKeyword reports words that cannot name params, since they are read as
// keywords where a value could also stand.
func isKeyword(s string) bool {
	switch s {
	case "auto", "from", "baseline", "per", "node", "at", "otherwise", "after", "idle", "depth",
		"true", "false", "job", "now", "peak", "price", "system", "of", "during", "while", "sd", "rule":
		return true
	}
	return false
}

// fieldName is how a field is named in messages: `power@level` is `power`.
func fieldName(field string) string {
	name, _, _ := strings.Cut(field, "@")
	return name
}
