// Package lang is the front end of pwrc: the lexer and participle grammar of
// .pwr scenario files, the syntax tree they parse into, source positions and
// the diagnostics every later stage reports against them.
//
// The grammar is deliberately generic, in the manner of HCL: a file is a list
// of statements, each a keyword, arguments and an optional { block }. What a
// keyword means, which arguments it takes and which fields a block allows is
// the compiler's business, so that a misspelled field gets "did you mean" and
// a precise caret instead of a parser's "unexpected token".
package lang

import "fmt"

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// characters (runes), Offset counts bytes from the start of the file.
type Pos struct {
	Offset int
	Line   int
	Col    int
}

// Range is a half-open span of source text [Start, End) in File.
type Range struct {
	File  string
	Start Pos
	End   Pos
}

// String renders the start of the range as file:line:col.
func (r Range) String() string {
	if r.Start.Line == 0 {
		return r.File
	}
	return fmt.Sprintf("%s:%d:%d", r.File, r.Start.Line, r.Start.Col)
}

// Valid reports whether the range points into a file.
func (r Range) Valid() bool { return r.Start.Line > 0 }

// Cover returns the smallest range spanning r and o (same file assumed).
func (r Range) Cover(o Range) Range {
	if !r.Valid() {
		return o
	}
	if !o.Valid() {
		return r
	}
	out := r
	if o.Start.Offset < out.Start.Offset {
		out.Start = o.Start
	}
	if o.End.Offset > out.End.Offset {
		out.End = o.End
	}
	return out
}
