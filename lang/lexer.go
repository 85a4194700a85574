package lang

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// The token rules. Order matters: the first rule that matches wins.
//
// `#` always starts a comment. expr-lang uses `#` for the current element of
// a closure, but it also accepts the shorthand `.field`, so rules in .pwr
// files write `filter(xs, .nodes > 4)`.
var lexRules = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `#[^\n]*`},
	{Name: "Newline", Pattern: `\n`},
	{Name: "Whitespace", Pattern: `[ \t\r\f\v]+`},
	{Name: "String", Pattern: `"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|` + "`[^`]*`"},
	{Name: "BadString", Pattern: `["'][^\n]*|` + "`(?s:.*)"},
	{Name: "Clock", Pattern: `\d{1,2}:\d\d(?::\d\d)?`},
	{Name: "Number", Pattern: `\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `\.\.|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\*\*|[-+*/%<>!?:.=^|&~@$]`},
	{Name: "Comma", Pattern: `,`},
	{Name: "Punct", Pattern: `[{}()\[\];]`},
	{Name: "Invalid", Pattern: `.`},
})

var (
	tokComment    = lexRules.Symbols()["Comment"]
	tokNewline    = lexRules.Symbols()["Newline"]
	tokWhitespace = lexRules.Symbols()["Whitespace"]
	tokBadString  = lexRules.Symbols()["BadString"]
	tokInvalid    = lexRules.Symbols()["Invalid"]
	tokPunct      = lexRules.Symbols()["Punct"]
)

// maxLexErrors bounds the diagnostics from one file's lexical scan, so that
// a binary file gives a readable answer rather than thousands of lines.
const maxLexErrors = 10

// tokenize lexes src into the significant tokens the grammar sees and
// reports every lexical problem: invalid characters, unterminated strings,
// unbalanced brackets. Newlines inside ( ) and [ ] are dropped, so lists and
// parenthesised expressions may span lines; comments and blanks are dropped.
func tokenize(name string, src []byte) ([]lexer.Token, Diagnostics) {
	var diags Diagnostics
	if i := bytes.IndexByte(src, 0); i >= 0 {
		p := posAt(src, i)
		diags.Errorf(Range{File: name, Start: p, End: p}, "this is not a .pwr file: it contains binary data").
			With("A scenario is UTF-8 text; check that the path names the .pwr file and not a trace or an archive.")
		return nil, diags
	}
	lx, err := lexRules.LexString(name, string(src))
	if err != nil { // cannot happen with a catch-all rule; report rather than panic
		diags.Errorf(Range{File: name}, "cannot read the file: %v", err)
		return nil, diags
	}
	type open struct {
		tok lexer.Token
	}
	var (
		out     []lexer.Token
		stack   []open
		errs    int
		prevBad = -1 // offset just past the previous invalid run, to merge runs
		lastBad *Diagnostic
		// A top-level keyword at the start of a line inside a block is where
		// a forgotten `}` most likely belongs.
		suspect     *lexer.Token
		suspectOpen lexer.Token
	)
	report := func() bool { errs++; return errs <= maxLexErrors }
	for {
		t, err := lx.Next()
		if err != nil {
			p := Pos{Offset: t.Pos.Offset, Line: t.Pos.Line, Col: t.Pos.Column}
			diags.Errorf(Range{File: name, Start: p, End: p}, "cannot read the file: %v", err)
			return nil, diags
		}
		if t.EOF() {
			out = append(out, t)
			break
		}
		switch t.Type {
		case tokComment, tokWhitespace:
			continue
		case tokNewline:
			if len(stack) > 0 && stack[len(stack)-1].tok.Value != "{" {
				continue
			}
			if n := len(out); n > 0 && out[n-1].Type == tokNewline {
				continue
			}
		case tokInvalid:
			if t.Pos.Offset == prevBad { // extend a run of garbage into one diagnostic
				prevBad += len(t.Value)
				if lastBad != nil {
					lastBad.Range.End = endOf(name, t).End
				}
				continue
			}
			prevBad = t.Pos.Offset + len(t.Value)
			lastBad = nil
			if report() {
				d := diags.Errorf(tokRange(name, t), "unexpected character %s", describeRune(t.Value))
				lastBad = d
				switch t.Value {
				case "\u201c", "\u201d", "\u2018", "\u2019":
					d.With("Use straight quotes (\" or ') around strings.")
				default:
					d.With("Statements are words, numbers with units, strings in quotes, lists in [ ] and blocks in { }.")
				}
			}
			continue
		case tokBadString:
			if report() {
				diags.Errorf(tokRange(name, t), "unterminated string").
					With("Close the string with %s on the same line.", t.Value[:1])
			}
			continue
		case tokPunct:
			switch t.Value {
			case "{", "(", "[":
				stack = append(stack, open{t})
			case "}", ")", "]":
				want := map[string]string{"}": "{", ")": "(", "]": "["}[t.Value]
				if len(stack) == 0 {
					if report() {
						diags.Errorf(tokRange(name, t), "unexpected `%s` with no matching `%s`", t.Value, want).
							With("Remove it, or add the opening `%s` it closes.", want)
					}
					continue
				}
				top := stack[len(stack)-1]
				if top.tok.Value != want {
					if report() {
						diags.Errorf(tokRange(name, t), "`%s` does not close `%s`", t.Value, top.tok.Value).
							With("Add `%s` before it to close the `%s`.", closerOf(top.tok.Value), top.tok.Value).
							Note(tokRange(name, top.tok), "`%s` opened here", top.tok.Value)
					}
					// Recover by assuming the inner bracket was closed.
					stack = stack[:len(stack)-1]
					if len(stack) > 0 && stack[len(stack)-1].tok.Value == want {
						stack = stack[:len(stack)-1]
					}
					continue
				}
				stack = stack[:len(stack)-1]
			}
		}
		if suspect == nil && len(stack) > 0 && t.Pos.Column == 1 && isTopKeyword(t.Value) && stack[len(stack)-1].tok.Value == "{" {
			tt := t
			suspect, suspectOpen = &tt, stack[0].tok
		}
		out = append(out, t)
	}
	if errs > maxLexErrors {
		diags.Errorf(Range{File: name, Start: Pos{Line: 1, Col: 1}}, "too many errors (%d more not shown)", errs-maxLexErrors)
	}
	eof := out[len(out)-1]
	if suspect != nil && len(stack) > 0 {
		diags.Errorf(tokRange(name, *suspect), "missing `}` before `%s`", suspect.Value).
			With("The `{` opened at line %d is still open where this declaration starts; close it with `}`.", suspectOpen.Pos.Line).
			Note(tokRange(name, suspectOpen), "`{` opened here")
		return out, diags
	}
	for i := len(stack) - 1; i >= 0; i-- {
		o := stack[i].tok
		p := Pos{Offset: eof.Pos.Offset, Line: eof.Pos.Line, Col: eof.Pos.Column}
		diags.Errorf(Range{File: name, Start: p, End: p}, "unexpected end of file: `%s` is never closed", o.Value).
			With("Add `%s` to close the `%s` opened at line %d; the file may be truncated.", closerOf(o.Value), o.Value, o.Pos.Line).
			Note(tokRange(name, o), "`%s` opened here", o.Value)
	}
	return out, diags
}

func closerOf(s string) string {
	return map[string]string{"{": "}", "(": ")", "[": "]"}[s]
}

func describeRune(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError:
		return fmt.Sprintf("(invalid UTF-8 byte 0x%02x)", s[0])
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("(control character U+%04X)", r)
	case r > 0x7f:
		return fmt.Sprintf("`%c` (U+%04X)", r, r)
	}
	return "`" + s + "`"
}

// tokRange converts a token to a source range.
func tokRange(name string, t lexer.Token) Range {
	return Range{File: name, Start: Pos{Offset: t.Pos.Offset, Line: t.Pos.Line, Col: t.Pos.Column}, End: endOf(name, t).End}
}

func endOf(name string, t lexer.Token) Range {
	p := Pos{Offset: t.Pos.Offset + len(t.Value), Line: t.Pos.Line, Col: t.Pos.Column + utf8.RuneCountInString(t.Value)}
	if i := strings.LastIndexByte(t.Value, '\n'); i >= 0 {
		p.Line += strings.Count(t.Value, "\n")
		p.Col = utf8.RuneCountInString(t.Value[i+1:]) + 1
	}
	return Range{File: name, End: p}
}

// posAt computes the position of byte offset off in src.
func posAt(src []byte, off int) Pos {
	off = min(max(off, 0), len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return Pos{Offset: off, Line: line, Col: utf8.RuneCount(src[start:off]) + 1}
}

// sliceLexer replays a token slice to participle.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return l.toks[len(l.toks)-1], nil
	}
	t := l.toks[l.i]
	l.i++
	return t, nil
}

// isTopKeyword reports the keywords that start top-level declarations.
func isTopKeyword(s string) bool {
	switch s {
	case "import", "param", "machine", "contract", "policy", "experiment":
		return true
	}
	return false
}
