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
	{Name: "Whitespace", Pattern: `[ \t\r\f\v\x{FEFF}]+`}, // U+FEFF: a byte order mark
	{Name: "String", Pattern: `"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|` + "`[^`]*`"},
	{Name: "BadString", Pattern: `["'][^\n]*|` + "`(?s:.*)"},
	// A string in typographic quotes, as pasted from a word processor.
	{Name: "SmartString", Pattern: `[\x{201C}\x{201D}\x{201E}][^\x{201C}\x{201D}"\n]*[\x{201C}\x{201D}]|[\x{2018}\x{2019}][^\x{2018}\x{2019}'\n]*[\x{2018}\x{2019}]`},
	{Name: "Clock", Pattern: `\d{1,2}:\d\d(?::\d\d)?`},
	{Name: "Number", Pattern: `\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `\.\.|==|!=|<=|>=|&&|\|\||\?\?|\?\.|\*\*|[-+*/%<>!?:.=^|&~@$]`},
	{Name: "Comma", Pattern: `,`},
	{Name: "Punct", Pattern: `[{}()\[\];]`},
	{Name: "Invalid", Pattern: `.`},
})

var (
	tokComment     = lexRules.Symbols()["Comment"]
	tokNewline     = lexRules.Symbols()["Newline"]
	tokWhitespace  = lexRules.Symbols()["Whitespace"]
	tokBadString   = lexRules.Symbols()["BadString"]
	tokSmartString = lexRules.Symbols()["SmartString"]
	tokInvalid     = lexRules.Symbols()["Invalid"]
	tokPunct       = lexRules.Symbols()["Punct"]
	tokIdent       = lexRules.Symbols()["Ident"]
	tokNumber      = lexRules.Symbols()["Number"]
	tokOp          = lexRules.Symbols()["Op"]
	tokComma       = lexRules.Symbols()["Comma"]
)

// maxNesting bounds how deeply brackets ( ), [ ] and { } may nest. Real
// scenarios nest a few levels; the bound keeps the parser's recursion, and
// the memory and time it takes, proportional to the size of the input
// whatever the input is.
const maxNesting = 100

// maxLexErrors bounds the diagnostics from one file's lexical scan, so that
// a binary file gives a readable answer rather than thousands of lines.
const maxLexErrors = 10

// tokenize lexes src into the significant tokens the grammar sees and
// reports every lexical problem: invalid characters, unterminated strings,
// unbalanced brackets. Newlines inside ( ) and [ ] are dropped, so lists and
// parenthesised expressions may span lines; comments and blanks are dropped.
// what names the text in messages: "file", or "value" for --set values.
// comments receives the byte span [start, end) of each comment, when not nil.
func tokenize(name string, src []byte, what string, comments *[][2]int) ([]lexer.Token, Diagnostics) {
	var diags Diagnostics
	if i := bytes.IndexByte(src, 0); i >= 0 {
		p := posAt(src, i)
		diags.Errorf(Range{File: name, Start: p, End: p}, "this is not a .pwr %s: it contains binary data", what).
			With("A scenario is UTF-8 text; check that the path names the .pwr file and not a trace or an archive.")
		return nil, diags
	}
	// Bytes that are not UTF-8 are reported wherever they are, strings and
	// comments included: the file is not text in the encoding pwrc reads.
	if !utf8.Valid(src) {
		return nil, invalidUTF8(name, src)
	}
	lx, err := lexRules.LexString(name, string(src))
	if err != nil { // cannot happen with a catch-all rule; report rather than panic
		diags.Errorf(Range{File: name}, "cannot read the %s: %v", what, err)
		return nil, diags
	}
	var (
		out     []lexer.Token
		stack   []lexer.Token // open brackets
		errs    int
		prevBad = -1 // offset just past the previous invalid run, to merge runs
		lastBad *Diagnostic
		last    *lexer.Token // the last significant token, for errors at end of file
		// A top-level keyword at the start of a line inside a block is where
		// a forgotten `}` most likely belongs.
		suspect     *lexer.Token
		suspectOpen lexer.Token
	)
	var firstHidden Range // where the first error not shown is
	report := func(at Range) bool {
		errs++
		if errs == maxLexErrors+1 {
			firstHidden = at
		}
		return errs <= maxLexErrors
	}
	for {
		t, err := lx.Next()
		if err != nil {
			p := Pos{Offset: t.Pos.Offset, Line: t.Pos.Line, Col: t.Pos.Column}
			diags.Errorf(Range{File: name, Start: p, End: p}, "cannot read the %s: %v", what, err)
			return nil, diags
		}
		if t.EOF() {
			out = append(out, t)
			break
		}
		if t.Type != tokNewline && t.Type != tokComment && t.Type != tokWhitespace {
			tt := t
			last = &tt
		}
		switch t.Type {
		case tokComment:
			if comments != nil {
				*comments = append(*comments, [2]int{t.Pos.Offset, t.Pos.Offset + len(t.Value)})
			}
			continue
		case tokWhitespace:
			continue
		case tokNewline:
			if len(stack) > 0 && stack[len(stack)-1].Value != "{" {
				continue
			}
			if n := len(out); n > 0 && (out[n-1].Type == tokNewline || continuesLine(out[n-1])) {
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
			if report(tokRange(name, t)) {
				lastBad = invalidChar(&diags, tokRange(name, t), t.Value)
			}
			continue
		case tokSmartString:
			if report(tokRange(name, t)) {
				r, _ := utf8.DecodeRuneInString(t.Value)
				q := `"`
				if r == '\u2018' || r == '\u2019' {
					q = "'"
				}
				_, n := utf8.DecodeLastRuneInString(t.Value)
				body := t.Value[utf8.RuneLen(r) : len(t.Value)-n]
				diags.Errorf(tokRange(name, t), "typographic quotes around a string").
					With("Use straight quotes (\" or ') around strings; word processors replace them with curly ones.").
					DidYouMean(q + body + q)
			}
			continue
		case tokBadString:
			if report(tokRange(name, t)) {
				diags.Errorf(tokRange(name, t), "unterminated string").
					With("Close the string with %s on the same line.", t.Value[:1])
			}
			continue
		case tokPunct:
			switch t.Value {
			case "{", "(", "[":
				if len(stack) == maxNesting {
					tooDeep(&diags, name, t, stack[0])
					return nil, diags
				}
				stack = append(stack, t)
			case "}", ")", "]":
				if !closeBracket(&stack, t, name, &diags, report) {
					continue // a stray closer: drop it
				}
			}
		}
		if suspect == nil && len(stack) > 0 && t.Pos.Column == 1 && isTopKeyword(t.Value) && stack[len(stack)-1].Value == "{" {
			tt := t
			suspect, suspectOpen = &tt, stack[0]
		}
		out = append(out, t)
	}
	if errs > maxLexErrors {
		diags.Errorf(firstHidden, "too many errors: %d more from here on are not shown", errs-maxLexErrors).
			With("Fix the ones above and check again.")
	}
	if suspect != nil && len(stack) > 0 {
		diags.Errorf(tokRange(name, *suspect), "missing `}` before `%s`", suspect.Value).
			With("The `{` opened at line %d is still open where this declaration starts; close it with `}`.", suspectOpen.Pos.Line).
			Note(tokRange(name, suspectOpen), "`{` opened here")
		return out, diags
	}
	if len(stack) > 0 {
		// Point just past the last token: that is where the closers go.
		at := Range{File: name, Start: Pos{Line: 1, Col: 1}, End: Pos{Line: 1, Col: 1}}
		if last != nil {
			e := endOf(name, *last).End
			at.Start, at.End = e, e
		}
		var cb strings.Builder
		for i := len(stack) - 1; i >= max(0, len(stack)-8); i-- {
			cb.WriteString(closerOf(stack[i].Value))
		}
		closers := cb.String()
		inner := stack[len(stack)-1]
		var d *Diagnostic
		if len(stack) == 1 {
			d = diags.Errorf(at, "unexpected end of %s: `%s` is never closed", what, inner.Value).
				With("Add `%s` to close the `%s` opened at line %d.", closers, inner.Value, inner.Pos.Line)
		} else {
			d = diags.Errorf(at, "unexpected end of %s: %d brackets are never closed", what, len(stack)).
				With("Add `%s` to close them, innermost first.", closers)
			if len(stack) > 8 {
				d.With("Add the %d missing closing brackets, innermost first, starting with `%s`.", len(stack), closers)
			}
		}
		if what == "file" {
			d.Detail = strings.TrimSuffix(d.Detail, ".") + "; the file may be truncated."
		}
		for i := len(stack) - 1; i >= max(0, len(stack)-3); i-- {
			d.Note(tokRange(name, stack[i]), "`%s` opened here", stack[i].Value)
		}

	}
	return out, diags
}

// tooDeep reports the bracket t that opens one level more than maxNesting,
// with where the outermost of the brackets around it was opened.
func tooDeep(diags *Diagnostics, name string, t, outer lexer.Token) {
	diags.Errorf(tokRange(name, t), "brackets nested too deeply: this `%s` opens level %d, and at most %d are allowed", t.Value, maxNesting+1, maxNesting).
		With("pwrc reads at most %d levels of ( ), [ ] and { } inside one another; nest them less, e.g. drop redundant parentheses or split a list.", maxNesting).
		Note(tokRange(name, outer), "the outermost `%s` is here", outer.Value)
}

// invalidUTF8 reports each run of bytes in src that is not UTF-8.
func invalidUTF8(name string, src []byte) Diagnostics {
	var diags Diagnostics
	runs := 0
	for i := 0; i < len(src); {
		if r, n := utf8.DecodeRune(src[i:]); r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		j := i + 1
		for j < len(src) {
			if r, n := utf8.DecodeRune(src[j:]); r != utf8.RuneError || n > 1 {
				break
			}
			j++
		}
		runs++
		rng := func() Range { return Range{File: name, Start: posAt(src, i), End: posAt(src, j)} }
		switch {
		case runs <= maxLexErrors:
			bs := make([]string, 0, 5)
			for _, b := range src[i:min(j, i+4)] {
				bs = append(bs, fmt.Sprintf("0x%02x", b))
			}
			if j-i > 4 {
				bs = append(bs, "…")
			}
			noun := "byte"
			if j-i > 1 {
				noun = "bytes"
			}
			diags.Errorf(rng(), "invalid UTF-8 %s %s", noun, strings.Join(bs, " ")).
				With("A scenario is UTF-8 text; save the file as UTF-8.")
		case runs == maxLexErrors+1:
			diags.Errorf(rng(), "too many errors: more invalid UTF-8 from here on is not shown").
				With("Is this a .pwr file?")
		}
		i = j
	}
	return diags
}

// closeBracket pops the bracket that t closes, reporting a mismatch. It
// returns false for a stray closer that matches no open bracket, which the
// caller drops so that it causes no further errors.
func closeBracket(stack *[]lexer.Token, t lexer.Token, name string, diags *Diagnostics, report func(Range) bool) bool {
	want := map[string]string{"}": "{", ")": "(", "]": "["}[t.Value]
	s := *stack
	j := len(s) - 1
	for j >= 0 && s[j].Value != want {
		if s[j].Value == "{" && want != "{" {
			j = -1 // `)` and `]` never close across a block
			break
		}
		j--
	}
	if j < 0 && len(s) > 0 && s[len(s)-1].Value != "{" && want != "{" {
		// `[a, b)`: most likely a typo for the closer of the open bracket.
		top := s[len(s)-1]
		if report(tokRange(name, t)) {
			misclosed(diags, name, t, top, "Write `%s` to close the `%s`.")
		}
		*stack = s[:len(s)-1]
		return true
	}
	if j < 0 {
		if report(tokRange(name, t)) {
			diags.Errorf(tokRange(name, t), "unexpected `%s` with no matching `%s`", t.Value, want).
				With("Remove it, or add the `%s` it closes.", want)
		}
		return false
	}
	if j < len(s)-1 {
		top := s[len(s)-1]
		if report(tokRange(name, t)) {
			misclosed(diags, name, t, top, "Add `%s` before it to close the `%s`.")
		}
	}
	*stack = s[:j]
	return true
}

// invalidChar reports a character that starts no token.
func invalidChar(diags *Diagnostics, r Range, s string) *Diagnostic {
	ch, _ := utf8.DecodeRuneInString(s)
	switch {
	case ch < 0x20 || ch == 0x7f:
		return diags.Errorf(r, "unexpected control character U+%04X", ch).
			With("Delete it; it is invisible in most editors.")
	case ch == '\u201c' || ch == '\u201d' || ch == '\u2018' || ch == '\u2019' || ch == '\u201e':
		return diags.Errorf(r, "unexpected character `%c` (U+%04X)", ch, ch).
			With("Use straight quotes (\" or ') around strings.")
	case ch == '\u00a0' || ch == '\u2009' || ch == '\u202f':
		return diags.Errorf(r, "unexpected invisible space U+%04X", ch).
			With("Replace it with an ordinary space.")
	case ch > 0x7f:
		return diags.Errorf(r, "unexpected character `%c` (U+%04X)", ch, ch).
			With("Statements are words, numbers with units, strings in quotes, lists in [ ] and blocks in { }.")
	}
	return diags.Errorf(r, "unexpected character `%s`", s).
		With("Statements are words, numbers with units, strings in quotes, lists in [ ] and blocks in { }.")
}

func closerOf(s string) string {
	return map[string]string{"{": "}", "(": ")", "[": "]"}[s]
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

// continuesLine reports whether a line ending in t goes on to the next:
// after a binary operator a rule cannot be complete (`priority job.wait /`),
// nor a list after a comma (`report run_days,`). Not after `%`, which is
// also a unit (`budget 50%`), nor `=`, which ends `param x =` unfinished.
func continuesLine(t lexer.Token) bool {
	switch t.Type {
	case tokIdent:
		return t.Value == "and" || t.Value == "or"
	case tokComma:
		return true
	case tokOp:
		switch t.Value {
		case "%", "!", ".", "..", "=":
			return false
		}
		return true
	}
	return false
}

// misclosed reports a closing bracket t that does not match the open one,
// top; fix says how to mend it, with the closer and opener filled in.
func misclosed(diags *Diagnostics, name string, t, top lexer.Token, fix string) {
	diags.Errorf(tokRange(name, t), "`%s` does not close `%s`", t.Value, top.Value).
		With(fix, closerOf(top.Value), top.Value).
		Note(tokRange(name, top), "`%s` opened here", top.Value)
}
