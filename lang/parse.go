package lang

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse parses a .pwr file. It reports every lexical error and one syntax
// error per top-level statement; the returned File holds the statements that
// parsed, so later stages can still check them.
func Parse(name string, src []byte) (*File, Diagnostics) {
	f := &File{Name: name, Src: src, text: string(src)}
	toks, diags := tokenize(name, src, "file", &f.comments)
	if diags.HasErrors() {
		f.Incomplete = true
		return f, diags
	}
	// Parse each top-level statement on its own, so one syntax error does
	// not hide the errors of the statements after it.
	syntaxErrs := 0
	for _, seg := range segments(toks) {
		g, err := fileParser.ParseFromLexer(mustUpgrade(seg))
		if err != nil {
			syntaxErrs++
			switch {
			case syntaxErrs <= maxSyntaxErrors:
				diags = append(diags, syntaxError(name, src, err, seg))
			case syntaxErrs == maxSyntaxErrors+1:
				r := tokRange(name, seg[0])
				diags = append(diags, &Diagnostic{Severity: Error, Range: r,
					Summary: "too many syntax errors: the rest from here on are not shown",
					Detail:  "Fix the ones above and check again; is this a .pwr file?"})
			}
			if len(seg) > 2 && seg[0].Type == tokIdent {
				f.Broken = append(f.Broken, Broken{Keyword: seg[0].Value, Name: seg[1].Value})
			}
			continue
		}
		c := converter{file: f}
		for _, s := range g.Stmts {
			f.Stmts = append(f.Stmts, c.stmt(s))
		}
		diags = append(diags, c.diags...)
	}
	return f, diags
}

// maxSyntaxErrors bounds the syntax errors reported for one file.
const maxSyntaxErrors = 25

// ParseValue parses a lone value, as given on the command line
// (`--set nodes=128`, `--set policy=[fcfs,easy]`). name labels diagnostics.
func ParseValue(name string, src string) ([]Value, Diagnostics) {
	toks, diags := tokenize(name, []byte(src), "value", nil)
	if diags.HasErrors() {
		return nil, diags
	}
	// A value is one line: newlines only separate statements.
	var kept []lexer.Token
	for _, t := range toks {
		if t.Type != tokNewline {
			kept = append(kept, t)
		}
	}
	g, err := valueParser.ParseFromLexer(mustUpgrade(kept))
	if err != nil {
		diags = append(diags, syntaxError(name, []byte(src), err, kept))
		return nil, diags
	}
	c := converter{file: &File{Name: name, Src: []byte(src), text: src}}
	vals := c.stmtArgs(g.Args)
	return vals, append(diags, c.diags...)
}

func mustUpgrade(toks []lexer.Token) *lexer.PeekingLexer {
	pl, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil { // sliceLexer never fails
		panic(err)
	}
	return pl
}

// segments splits a token stream (ending in EOF) at top-level statement
// boundaries: separators and closing braces at brace depth 0.
func segments(toks []lexer.Token) [][]lexer.Token {
	var out [][]lexer.Token
	depth, inner, start := 0, 0, 0 // depth in { }, and in ( ) [ ]
	eof := toks[len(toks)-1]
	cut := func(end int) {
		seg := make([]lexer.Token, 0, end-start+1)
		seg = append(seg, toks[start:end]...)
		if len(seg) > 0 {
			e := eof
			if end < len(toks) {
				e.Pos = toks[end].Pos
			}
			out = append(out, append(seg, e))
		}
		start = end
	}
	for i, t := range toks[:len(toks)-1] {
		switch {
		case t.Type == tokPunct && t.Value == "{":
			depth++
		case t.Type == tokPunct && t.Value == "}":
			depth--
			if depth == 0 {
				cut(i + 1)
			}
		case t.Type == tokPunct && (t.Value == "(" || t.Value == "["):
			inner++
		case t.Type == tokPunct && (t.Value == ")" || t.Value == "]"):
			inner--
		case depth == 0 && inner <= 0 && (t.Type == tokNewline || (t.Type == tokPunct && t.Value == ";")):
			cut(i + 1)
		}
	}
	cut(len(toks) - 1)
	return out
}

// syntaxError turns a participle error into a diagnostic that says what
// was expected in words a scenario author uses.
func syntaxError(name string, src []byte, err error, seg []lexer.Token) *Diagnostic {
	var perr participle.Error
	if !errors.As(err, &perr) {
		return &Diagnostic{Severity: Error, Summary: err.Error(), Range: Range{File: name}}
	}
	var tok lexer.Token
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		tok = ute.Unexpected
	} else {
		p := perr.Position()
		tok.Pos = p
		for _, t := range seg {
			if t.Pos.Offset == p.Offset {
				tok = t
				break
			}
		}
	}
	r := tokRange(name, tok)
	d := &Diagnostic{Severity: Error, Range: r}
	first := len(seg) > 0 && seg[0].Pos.Offset == tok.Pos.Offset
	switch {
	case tok.EOF():
		d.Summary = "unexpected end of file"
		d.Detail = "The file ends in the middle of a statement; it may be truncated."
	case tok.Value == ",":
		d.Summary = "unexpected `,`"
		d.Detail = "Lists are written in brackets, e.g. `policy [fcfs, easy]`."
	case tok.Value == "{":
		d.Summary = "unexpected `{`"
		d.Detail = "A block belongs to the statement before it on the same line, e.g. `power { idle 70 W }`."
	case first || precededByNewline(src, tok):
		d.Summary = fmt.Sprintf("expected a statement, found %s", describeToken(tok))
		d.Detail = "A statement starts with a word such as `machine`, `nodes` or `policy`."
		if tok.Type == tokOp {
			d.Detail += " To continue a rule on the next line, end the line before with its operator (`job.wait /`) or wrap the rule in parentheses."
		}
		if next := tokenAfter(seg, tok); tok.Type == tokNumber && next != nil && next.Type == tokIdent && endsStatement(tokenAfter(seg, *next)) {
			d.Detail = fmt.Sprintf("Write the name first: `%s %s`.", next.Value, tok.Value)
		}
	case tok.Value == ";":
		d.Summary = "unexpected `;`"
		d.Detail = "`;` separates statements; inside [ ] and ( ) separate items with `,`."
	default:
		d.Summary = fmt.Sprintf("unexpected %s", describeToken(tok))
		d.Detail = ""
		if m := expectedRe.FindStringSubmatch(perr.Message()); m != nil {
			d.Detail = fmt.Sprintf("Expected `%s` here.", m[1])
		}
	}
	return d
}

// endsStatement reports whether t (nil: end of input) ends a statement.
func endsStatement(t *lexer.Token) bool {
	return t == nil || t.EOF() || t.Type == tokNewline || t.Value == ";" || t.Value == "}"
}

var expectedRe = regexp.MustCompile(`\(expected "([^"]*)"\)`)

// tokenAfter returns the token after t in seg, or nil.
func tokenAfter(seg []lexer.Token, t lexer.Token) *lexer.Token {
	for i := range seg {
		if seg[i].Pos.Offset == t.Pos.Offset && i+1 < len(seg) && !seg[i+1].EOF() {
			return &seg[i+1]
		}
	}
	return nil
}

func precededByNewline(src []byte, tok lexer.Token) bool {
	for i := tok.Pos.Offset - 1; i >= 0 && i < len(src); i-- {
		switch src[i] {
		case ' ', '\t', '\r':
			continue
		case '\n', ';':
			return true
		}
		return false
	}
	return true
}

func describeToken(t lexer.Token) string {
	if t.EOF() {
		return "end of file"
	}
	return "`" + clip(t.Value, 40) + "`"
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// converter builds the public AST from the parse tree.
type converter struct {
	file  *File
	diags Diagnostics
}

func (c *converter) rng(toks []lexer.Token) Range {
	if len(toks) == 0 {
		return Range{File: c.file.Name}
	}
	r := tokRange(c.file.Name, toks[0])
	r.End = endOf(c.file.Name, toks[len(toks)-1]).End
	return r
}

func (c *converter) stmt(g *gStmt) *Stmt {
	s := &Stmt{Range: c.rng(g.Tokens)}
	s.Key = &Ident{Name: g.Key, R: tokRange(c.file.Name, g.Tokens[0])}
	s.Args = c.stmtArgs(g.Args)
	if g.Body != nil {
		b := &Block{Range: c.rng(g.Body.Tokens)}
		for _, st := range g.Body.Stmts {
			b.Stmts = append(b.Stmts, c.stmt(st))
		}
		s.Body = b
	}
	return s
}

func (c *converter) stmtArgs(gs []*gStmtArg) []Value {
	args := make([]*gArg, 0, len(gs))
	for _, g := range gs {
		if g.Comma != nil {
			args = append(args, &gArg{Op: g.Comma, Tokens: g.Tokens})
			continue
		}
		args = append(args, g.Arg)
	}
	return c.args(args)
}

// args converts a sequence of arguments, attaching units to numbers
// (`70 W`, `0.145 EUR/kWh`, `50%`) and signs to leading numbers (`-5`).
func (c *converter) args(gs []*gArg) []Value {
	raw := make([]Value, 0, len(gs))
	for _, g := range gs {
		raw = append(raw, c.arg(g))
	}
	out := raw[:0]
	for i := 0; i < len(raw); i++ {
		v := raw[i]
		if op, ok := v.(*Op); ok && op.Op == "-" && i+1 < len(raw) {
			// `-15` is a negative number at the start, after an operator,
			// or written apart from what precedes and glued to its digits
			// (`16:00 -15`); `16:00 - 15` and `a-15` keep the operator.
			if n, ok := raw[i+1].(*Number); ok && (len(out) == 0 || isOp(out[len(out)-1]) ||
				op.R.End.Offset == n.R.Start.Offset && out[len(out)-1].Range().End.Offset < op.R.Start.Offset) {
				n.Value = -n.Value
				n.R.Start = op.R.Start
				n.Src = c.file.Sub(n.R)
				continue // the number, now negative, is emitted next
			}
		}
		if n, ok := v.(*Number); ok && n.Unit == "" {
			if unit, ur, used := unitAfter(raw[i+1:]); used > 0 {
				n.Unit, n.UnitRange = unit, ur
				n.R.End = ur.End
				n.Src = c.file.Sub(n.R)
				i += used
			}
		}
		out = append(out, v)
	}
	return out
}

func isOp(v Value) bool { _, ok := v.(*Op); return ok }

// unitAfter recognises a unit at the start of vs: a known unit word, `%`,
// or a compound `EUR/kWh`. It returns how many values the unit spans. A
// word that is a likely misspelling of a unit (`kw`, `watts`, `EUR/kwh`) is
// taken as a unit too, so that the compiler reports it as an unknown unit
// with a suggestion rather than as a stray word.
func unitAfter(vs []Value) (string, Range, int) {
	if len(vs) == 0 {
		return "", Range{}, 0
	}
	if len(vs) >= 3 {
		a, ok1 := vs[0].(*Ident)
		slash, ok2 := vs[1].(*Op)
		b, ok3 := vs[2].(*Ident)
		if ok1 && ok2 && ok3 && slash.Op == "/" {
			name := a.Name + "/" + b.Name
			tight := slash.R.Start.Offset == a.R.End.Offset && b.R.Start.Offset == slash.R.End.Offset
			if _, ok := LookupUnit(name); ok || tight && unitLike(a.Name) {
				return name, a.R.Cover(b.R), 3
			}
		}
	}
	switch u := vs[0].(type) {
	case *Ident:
		if _, ok := LookupUnit(u.Name); ok || SuggestUnit(u.Name) != "" {
			return u.Name, u.R, 1
		}
	case *Op:
		if u.Op == "%" {
			return "%", u.R, 1
		}
	}
	return "", Range{}, 0
}

// unitLike reports a known unit or a likely misspelling of one.
func unitLike(name string) bool {
	_, ok := LookupUnit(name)
	return ok || SuggestUnit(name) != ""
}

func (c *converter) arg(g *gArg) Value {
	r := c.rng(g.Tokens)
	switch {
	case g.Number != nil:
		txt := strings.ReplaceAll(*g.Number, "_", "")
		v, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			c.diags.Errorf(r, "invalid number `%s`", Clip(*g.Number))
		}
		return &Number{Value: v, Src: *g.Number, R: r}
	case g.Clock != nil:
		parts := strings.Split(*g.Clock, ":")
		h, _ := strconv.Atoi(parts[0])
		m, _ := strconv.Atoi(parts[1])
		sec := 0
		if len(parts) == 3 {
			sec, _ = strconv.Atoi(parts[2])
		}
		bad := h > 24 || m > 59 || sec > 59 || (h == 24 && (m > 0 || sec > 0))
		if bad {
			c.diags.Errorf(r, "invalid time of day `%s`", *g.Clock).With("Times of day run from 00:00 to 24:00.")
		}
		return &Clock{Seconds: h*3600 + m*60 + sec, Src: *g.Clock, R: r, Invalid: bad}
	case g.String != nil:
		v, ok := unquote(*g.String)
		if !ok {
			c.diags.Errorf(r, "invalid escape sequence in string %s", Clip(*g.String)).
				With("Use \\\\ for a backslash, or a `backquoted` string to take the text as written.")
		}
		return &String{Value: v, Src: *g.String, R: r}
	case g.List != nil:
		return &List{Items: c.items(g.List.Items), Src: c.file.Sub(r), R: r}
	case g.Group != nil:
		return &Group{Items: c.items(g.Group.Items), Src: c.file.Sub(r), R: r}
	case g.Ident != nil:
		return &Ident{Name: *g.Ident, R: r}
	default:
		return &Op{Op: *g.Op, R: r}
	}
}

func (c *converter) items(gs []*gItem) [][]Value {
	out := make([][]Value, 0, len(gs))
	for _, it := range gs {
		out = append(out, c.args(it.Args))
	}
	return out
}
