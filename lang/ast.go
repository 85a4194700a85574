package lang

import (
	"sort"
	"strconv"
	"strings"
)

// File is a parsed .pwr file.
type File struct {
	Name  string // as given to Parse; used in diagnostics
	Src   []byte
	Stmts []*Stmt
	// Broken lists the top-level statements that failed to parse, by
	// keyword and name, so later stages can stay quiet about references to
	// them instead of reporting them as unknown.
	Broken []Broken
	// Incomplete is set when lexical errors kept the file from being parsed.
	Incomplete bool

	// text is Src as a string, made once by Parse, so that the source text
	// of values (Group.Src, ...) shares it instead of copying: with nested
	// groups, copies would take memory quadratic in the nesting depth.
	text string
	// comments are the byte spans [start, end) of the file's comments, in
	// order (ArgsSource blanks those inside a rule).
	comments [][2]int
}

// Broken is a top-level statement that did not parse, e.g. {"machine", "m"}.
type Broken struct {
	Keyword, Name string
}

// Stmt is one statement: a keyword, its arguments and an optional block,
// e.g. `machine mistral { ... }`, `idle 70 W`, `policy [fcfs, easy] baseline easy`.
type Stmt struct {
	Key   *Ident
	Args  []Value
	Body  *Block // nil when the statement has no block
	Range Range  // the whole statement, block included
}

// Block is a { }-delimited list of statements.
type Block struct {
	Stmts []*Stmt
	Range Range // from `{` to `}` inclusive
}

// Value is one argument of a statement.
type Value interface {
	// Range is the source span of the value.
	Range() Range
	// Text is the value's source text.
	Text() string
	value()
}

// Number is a numeric literal with an optional unit: `70 W`, `0.145 EUR/kWh`,
// `50%`, `1_529`. The unit is converted by the compiler, which knows what
// dimension a field expects.
type Number struct {
	Value     float64
	Unit      string // "" when absent; compound units are joined, e.g. "EUR/kWh"
	UnitRange Range
	Src       string
	R         Range
}

// Clock is a time of day, `06:00` or `06:00:30`.
type Clock struct {
	Seconds int // after midnight
	Src     string
	R       Range
	Invalid bool // out of range, like 25:00 (reported by Parse)
}

// String is a quoted string; Value is unquoted.
type String struct {
	Value string
	Src   string
	R     Range
}

// Ident is a bare word: a name or a keyword argument such as `from` or `easy`.
type Ident struct {
	Name string
	R    Range
}

// Op is an operator or punctuation token that is not a value by itself,
// such as `..` in ranges or the operators of a rule expression.
type Op struct {
	Op string
	R  Range
}

// List is `[a, b, c]`. Each item is a sequence of values (`[0.6 MW..1.2 MW]`
// has one item of three values); most items are a single value.
type List struct {
	Items [][]Value
	Src   string
	R     Range
}

// Group is a parenthesised sequence `(a, b)`, as in `wait(q50, q99)` or in
// rule expressions.
type Group struct {
	Items [][]Value
	Src   string
	R     Range
}

func (n *Number) Range() Range { return n.R }
func (c *Clock) Range() Range  { return c.R }
func (s *String) Range() Range { return s.R }
func (i *Ident) Range() Range  { return i.R }
func (o *Op) Range() Range     { return o.R }
func (l *List) Range() Range   { return l.R }
func (g *Group) Range() Range  { return g.R }

func (n *Number) Text() string { return n.Src }
func (c *Clock) Text() string  { return c.Src }
func (s *String) Text() string { return s.Src }
func (i *Ident) Text() string  { return i.Name }
func (o *Op) Text() string     { return o.Op }
func (l *List) Text() string   { return l.Src }
func (g *Group) Text() string  { return g.Src }

func (*Number) value() {}
func (*Clock) value()  {}
func (*String) value() {}
func (*Ident) value()  {}
func (*Op) value()     {}
func (*List) value()   {}
func (*Group) value()  {}

// ArgsSource returns the source text of the arguments from index `from`
// to the end of the statement, with its range. Rule expressions are kept
// this way, as written, and compiled by the compiler. Comments inside it
// (a rule continued on the next line may end a line with one) are blanked:
// each of their bytes is a space, so that every offset, line and column
// after them is the source's.
func (f *File) ArgsSource(s *Stmt, from int) (string, Range) {
	if from >= len(s.Args) {
		end := s.Key.R
		if len(s.Args) > 0 {
			end = s.Args[len(s.Args)-1].Range()
		}
		r := Range{File: end.File, Start: end.End, End: end.End}
		return "", r
	}
	r := s.Args[from].Range().Cover(s.Args[len(s.Args)-1].Range())
	return f.blankComments(f.Sub(r), r.Start.Offset), r
}

// blankComments replaces the bytes of the file's comments that lie in
// text, which starts at byte offset off of the file, with spaces.
func (f *File) blankComments(text string, off int) string {
	end := off + len(text)
	i := sort.Search(len(f.comments), func(i int) bool { return f.comments[i][1] > off })
	if i == len(f.comments) || f.comments[i][0] >= end {
		return text
	}
	b := []byte(text)
	for ; i < len(f.comments) && f.comments[i][0] < end; i++ {
		for k := max(f.comments[i][0], off); k < min(f.comments[i][1], end); k++ {
			b[k-off] = ' '
		}
	}
	return string(b)
}

// Sub returns the source text of r (which must lie in f). For a parsed
// file it is a substring of one copy of the source, not a copy of its own.
func (f *File) Sub(r Range) string {
	if r.Start.Offset < 0 || r.End.Offset > len(f.Src) || r.Start.Offset > r.End.Offset {
		return ""
	}
	if len(f.text) != len(f.Src) {
		return string(f.Src[r.Start.Offset:r.End.Offset])
	}
	return f.text[r.Start.Offset:r.End.Offset]
}

// unquote decodes a string literal in any of the three quote styles.
func unquote(s string) (string, bool) {
	if len(s) < 2 {
		return "", false
	}
	switch s[0] {
	case '"':
		v, err := strconv.Unquote(s)
		return v, err == nil
	case '`':
		return s[1 : len(s)-1], true
	case '\'':
		// Single quotes hold strings, not runes: re-quote the body.
		body := s[1 : len(s)-1]
		body = strings.ReplaceAll(body, `\'`, `'`)
		body = strings.ReplaceAll(body, `"`, `\"`)
		v, err := strconv.Unquote(`"` + body + `"`)
		return v, err == nil
	}
	return "", false
}
