package lang

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/mattn/go-runewidth"
)

// Format returns the canonical layout of the .pwr file src (`pwrc fmt`).
// name labels diagnostics. A file that does not parse is refused: the
// error is the Diagnostics that Parse reports.
//
// The formatter works on the file's tokens, comments included, and only
// changes the blank space between them, so it cannot lose text; before it
// returns, it parses its output and checks that the statements and the
// comments are the same as the input's, and returns an error rather than
// output that differs. The rules:
//
//   - Indentation is 2 spaces per block level. A line that continues a
//     statement (inside ( ) or [ ], or after an operator or a comma) keeps
//     its indentation relative to the statement's first line, at least 2
//     spaces deeper (a line that starts with `)` or `]` may go back to the
//     statement's level).
//   - One statement per line: `;` between statements becomes a line break,
//     and so does the end of a block followed on its line by another
//     statement. A `;` that ends a line goes, unless it follows an operator
//     (`order job.submit +;`), where a line break would continue the
//     statement on the next line. A block that the source opens
//     and closes on one line stays on one line, `;` and all
//     (`power { off 0 W; idle 70 W }`), when the line it is on fits in 100
//     columns with single spaces; otherwise it is broken into one statement
//     per line. A block that spans lines gets `{` at the end of its first
//     line and `}` on a line of its own. An empty block is `{}`.
//   - Within a line, tokens that the source writes apart are one space
//     apart and tokens written together stay together, except that `,` and
//     `;` take no space before them and one after, `(` and `[` none after,
//     `)` and `]` none before, and `{` and `}` one around them.
//   - Alignment is the author's: where the source puts two or more spaces
//     before a token, it is aligned with the tokens of the lines next to it
//     (at the same indentation, and so on along a run of lines) that the
//     source puts at the same column, or, failing that, that are the same
//     word at the same place in the line (the `=` of `param` lines, the
//     `from` of `policy` lines), in a column one space after the longest
//     text before them. Two or more spaces that align with nothing become
//     one; tokens that line up after single spaces are left alone.
//   - Trailing comments are aligned in one column with those of the lines
//     next to them at the same indentation, and with those the source puts
//     at the same column in the same paragraph (lines not separated by a
//     blank line). Each keeps at least the distance from its code that the
//     source gives it (one space or more), so the column is the farthest
//     one of them needs.
//   - Blank lines: at most one in a row; none at the start or end of the
//     file, after a `{` that ends a line or before a `}` that starts one. A
//     top-level declaration that spans several lines is separated from the
//     declarations around it by a blank line (before its leading comments),
//     except that one-line declarations of the same keyword may follow it
//     directly (`contract b from a { … }` after `contract a { … }`). The
//     author's other blank lines are kept.
//   - No trailing white space; the file ends with one newline (a file with
//     neither statements nor comments formats to nothing). Comment text is
//     kept as written, less trailing white space; so is a `raw string`
//     over several lines, blanks and all.
func Format(name string, src []byte) ([]byte, error) {
	f, diags := Parse(name, src)
	if diags.HasErrors() {
		return nil, diags
	}
	items, err := scanItems(name, src)
	if err != nil {
		return nil, err
	}
	out := formatItems(items)
	// The formatter must never change what a file says: check its output.
	g, gdiags := Parse(name, out)
	if gdiags.HasErrors() {
		return nil, fmt.Errorf("%s: internal error: the formatted file does not parse (%v); please report this with the file", name, gdiags)
	}
	if !sameStmts(f.Stmts, g.Stmts) {
		return nil, fmt.Errorf("%s: internal error: formatting would change the statements; please report this with the file", name)
	}
	if !sameComments(name, src, out) {
		return nil, fmt.Errorf("%s: internal error: formatting would change the comments; please report this with the file", name)
	}
	return out, nil
}

// maxFmtWidth is the widest line a one-line block is kept on.
const maxFmtWidth = 100

// fmtIndent is the indentation per block level.
const fmtIndent = 2

// fitem is one token of the source, comment or code; blank space and
// newlines are recorded on the token after them.
type fitem struct {
	tok   lexer.Token
	text  string
	line  int  // source line where it starts, 1-based
	col   int  // display column where it starts, 0-based
	nl    int  // newlines between the previous item and this one
	sp    bool // blank space before it on its line
	ws    int  // display width of that blank space
	soft  bool // the newlines before it do not end a statement
	multi bool // the token spans lines (a `raw string`)
	match int  // for a bracket, the index of its partner; -1 otherwise
}

func (it *fitem) comment() bool { return it.tok.Type == tokComment }

func (it *fitem) punct(s string) bool { return it.tok.Type == tokPunct && it.text == s }

func (it *fitem) is(s ...string) bool {
	if it.tok.Type != tokPunct && it.tok.Type != tokComma {
		return false
	}
	for _, x := range s {
		if it.text == x {
			return true
		}
	}
	return false
}

// scanItems lexes src into items. src is known to lex cleanly.
func scanItems(name string, src []byte) ([]*fitem, error) {
	lx, err := lexRules.LexString(name, string(src))
	if err != nil {
		return nil, err
	}
	var (
		items    []*fitem
		stack    []int // open brackets, by item index
		lastCode *fitem
		line     = 1
		col, ws  int
		nl       int
		sp       bool
	)
	for {
		t, err := lx.Next()
		if err != nil {
			return nil, err
		}
		if t.EOF() {
			break
		}
		switch t.Type {
		case tokNewline:
			nl++
			line++
			col, ws, sp = 0, 0, false
			continue
		case tokWhitespace:
			c := advanceBlank(col, t.Value)
			ws += c - col
			col, sp = c, true
			continue
		}
		it := &fitem{tok: t, text: t.Value, line: line, col: col, nl: nl, sp: sp, ws: ws, match: -1}
		if nl > 0 {
			// As tokenize decides which newlines end statements.
			it.soft = len(stack) > 0 && items[stack[len(stack)-1]].text != "{" ||
				lastCode != nil && continuesLine(lastCode.tok)
		}
		if n := strings.Count(t.Value, "\n"); n > 0 {
			line += n
			it.multi = true
		}
		col = advance(col, t.Value)
		nl, ws, sp = 0, 0, false
		if t.Type != tokComment {
			lastCode = it
			if t.Type == tokPunct {
				switch t.Value {
				case "{", "(", "[":
					stack = append(stack, len(items))
				case "}", ")", "]":
					if len(stack) > 0 {
						o := stack[len(stack)-1]
						stack = stack[:len(stack)-1]
						items[o].match = len(items)
						it.match = o
					}
				}
			}
		}
		items = append(items, it)
	}
	return items, nil
}

// widthCond measures display widths independently of the locale, so that
// the layout is the same everywhere.
var widthCond = &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// advance returns the display column after s, starting at col.
func advance(col int, s string) int {
	for _, r := range s {
		switch {
		case r == '\n':
			col = 0
		case r == '\t':
			col += 8 - col%8
		default:
			col += widthCond.RuneWidth(r)
		}
	}
	return col
}

// advanceBlank is advance for blank space: every character but a tab is
// one column wide, invisible ones (\f, \v, U+FEFF) included.
func advanceBlank(col int, s string) int {
	for _, r := range s {
		if r == '\t' {
			col += 8 - col%8
		} else {
			col++
		}
	}
	return col
}

// fcell is a code token placed on an output line.
type fcell struct {
	it     *fitem
	gap    int  // 0 or 1: spaces before it, alignment aside
	anchor bool // the source aligns it: two or more spaces before it
	pad    int  // spaces before it after alignment
}

// fline is one output line.
type fline struct {
	indent  int
	cells   []*fcell
	comment *fitem // a trailing comment, or the line's only content
	ccol    int    // the column of a trailing comment
	blank   bool
	multi   bool // holds a token that spans lines: not aligned
	kept    int  // the outermost one-line block `{` on the line, or -1
}

func (l *fline) code() bool { return !l.blank && len(l.cells) > 0 }

// topStmt is a top-level statement's place in the output.
type topStmt struct {
	key         string
	first, last int // line indices
}

// bstate is the state of a block printed over several lines (or of the
// file's top level).
type bstate struct {
	inStmt bool // a statement has started and not ended
	indent int  // its first line's indentation
	col    int  // its first token's source column
}

type frame struct {
	item int
	kept bool // a `{` printed on one line
}

// layouter lays out items into lines; expanded holds the one-line
// blocks (by `{` index) that are too wide to stay on one line.
type layouter struct {
	items    []*fitem
	expanded map[int]bool

	lines    []*fline
	cur      *fline
	frames   []frame
	blocks   []*bstate
	kept     int // enclosing one-line blocks
	pendNL   int
	pendSoft bool
	force    bool // the next code token starts a line
	lastOpen bool // the last line ends a block's `{`
	lastCode *fitem
	tops     []topStmt
}

func formatItems(items []*fitem) []byte {
	expanded := map[int]bool{}
	var l *layouter
	for {
		l = &layouter{items: items, expanded: expanded}
		l.run()
		more := false
		for _, ln := range l.lines {
			if ln.kept >= 0 && plainWidth(ln) > maxFmtWidth {
				expanded[ln.kept] = true
				more = true
			}
		}
		if !more {
			break
		}
	}
	lines := separateDecls(l.lines, l.tops)
	alignCode(lines)
	alignComments(lines)
	return render(lines)
}

func (l *layouter) depth() int { return len(l.blocks) - 1 }

func (l *layouter) block() *bstate { return l.blocks[len(l.blocks)-1] }

// newLine starts an output line; a blank line goes before it when the
// source has one there and blank is allowed.
func (l *layouter) newLine(indent int, blank bool) *fline {
	if blank && l.pendNL >= 2 && len(l.lines) > 0 && !l.lastOpen {
		l.lines = append(l.lines, &fline{blank: true, kept: -1})
	}
	ln := &fline{indent: indent, kept: -1}
	l.lines = append(l.lines, ln)
	l.cur = ln
	l.pendNL, l.pendSoft, l.force, l.lastOpen = 0, false, false, false
	return ln
}

// contIndent is the indentation of a line that continues the block's
// current statement and starts with it.
func (l *layouter) contIndent(it *fitem) int {
	b := l.block()
	rel := it.col - b.col
	least := fmtIndent
	if it.is(")", "]") {
		least = 0
	}
	return b.indent + max(rel, least)
}

func (l *layouter) run() {
	l.blocks = []*bstate{{}}
	for i, it := range l.items {
		if l.kept == 0 && it.nl > 0 {
			l.pendNL += it.nl
			l.pendSoft = it.soft
		}
		switch {
		case it.comment():
			l.comment(it)
		case it.punct(";"):
			l.semicolon(i, it)
		case it.punct("}") && it.match >= 0:
			l.closeBlock(it)
		default:
			l.code(i, it)
		}
	}
}

func (l *layouter) comment(it *fitem) {
	if l.cur != nil && l.pendNL == 0 && l.cur.comment == nil {
		l.cur.comment = it
		return
	}
	indent := fmtIndent * l.depth()
	if l.pendSoft && l.block().inStmt {
		indent = l.contIndent(it)
	}
	force := l.force
	l.newLine(indent, true).comment = it
	l.force = force
}

func (l *layouter) semicolon(i int, it *fitem) {
	if l.kept > 0 {
		// Inside a one-line block: keep the `;` that separate statements.
		prev := l.cur.cells[len(l.cur.cells)-1].it
		next := l.items[i+1]
		if prev.is("{", ";") || next.is("}", ";") {
			return
		}
		l.place(it, 0)
		return
	}
	b := l.block()
	if b.inStmt && l.lastCode != nil && continuesLine(l.lastCode.tok) {
		// `x a +;`: a line break would join the next statement to this one.
		l.code(i, it)
	}
	b.inStmt = false
	l.force = true
}

func (l *layouter) closeBlock(it *fitem) {
	fr := l.frames[len(l.frames)-1]
	l.frames = l.frames[:len(l.frames)-1]
	if fr.kept {
		l.kept--
		gap := 1
		if l.cur.cells[len(l.cur.cells)-1].it.punct("{") {
			gap = 0
		}
		l.place(it, gap)
	} else {
		l.blocks = l.blocks[:len(l.blocks)-1]
		l.newLine(fmtIndent*l.depth(), false)
		l.place(it, 0)
	}
	if l.kept == 0 {
		// The block ends the statement it belongs to.
		l.block().inStmt = false
		l.force = true
	}
}

// code places a code token, starting a line when it must.
func (l *layouter) code(i int, it *fitem) {
	b := l.block()
	if l.kept == 0 && (l.cur == nil || l.pendNL > 0 || l.force || len(l.cur.cells) == 0) {
		soft := l.pendNL > 0 && l.pendSoft && b.inStmt
		indent := fmtIndent * l.depth()
		if soft {
			indent = l.contIndent(it)
		} else {
			b.inStmt = false
		}
		l.newLine(indent, true)
		l.place(it, 0)
	} else {
		l.place(it, l.gap(it))
	}
	if l.kept == 0 && !b.inStmt {
		b.inStmt, b.indent, b.col = true, l.cur.indent, it.col
		if l.depth() == 0 {
			n := len(l.lines) - 1
			l.tops = append(l.tops, topStmt{key: it.text, first: n, last: n})
		}
	}
	switch {
	case it.punct("{") && it.match >= 0:
		kept := l.kept > 0 || !l.expanded[i] && l.oneLine(i, it.match)
		if kept && l.kept == 0 {
			l.cur.kept = i
		}
		l.frames = append(l.frames, frame{item: i, kept: kept})
		if kept {
			l.kept++
		} else {
			l.blocks = append(l.blocks, &bstate{})
			l.force, l.lastOpen = true, true
		}
	case it.is("(", "["):
		l.frames = append(l.frames, frame{item: i})
	case it.is(")", "]"):
		if len(l.frames) > 0 {
			l.frames = l.frames[:len(l.frames)-1]
		}
	}
}

// place appends it to the current line with gap spaces before it.
func (l *layouter) place(it *fitem, gap int) {
	c := &fcell{it: it, gap: gap, pad: gap}
	c.anchor = gap == 1 && it.ws >= 2 && len(l.cur.cells) > 0
	l.cur.cells = append(l.cur.cells, c)
	if it.multi {
		l.cur.multi = true
	}
	l.lastCode = it
	if len(l.tops) > 0 && l.blocks[0].inStmt {
		l.tops[len(l.tops)-1].last = len(l.lines) - 1
	}
}

// gap is the number of spaces between the last token of the current line
// and it, before alignment.
func (l *layouter) gap(it *fitem) int {
	prev := l.cur.cells[len(l.cur.cells)-1].it
	switch {
	case it.is(",", ";", ")", "]"):
		return 0
	case it.punct("}"):
		if prev.punct("{") {
			return 0
		}
		return 1
	case prev.is("(", "["):
		return 0
	case prev.is("{", "}", ",", ";"), it.punct("{"):
		return 1
	case it.sp:
		return 1
	}
	return 0
}

// oneLine reports whether the block from item open to item close stays on
// one line: it does in the source, or it holds nothing but `;`.
func (l *layouter) oneLine(open, close int) bool {
	if l.items[open].line == l.items[close].line {
		return true
	}
	for _, it := range l.items[open+1 : close] {
		if !it.punct(";") {
			return false
		}
	}
	return true
}

// plainWidth is the width of a line's code with single spaces.
func plainWidth(ln *fline) int {
	col := ln.indent
	for _, c := range ln.cells {
		col = advance(col+c.gap, c.it.text)
	}
	return col
}

// separateDecls inserts a blank line before a multi-line top-level
// declaration and after one (unless a one-line declaration of the same
// keyword follows), before the comments that lead the declaration.
func separateDecls(lines []*fline, tops []topStmt) []*fline {
	before := map[int]bool{}
	for k := 1; k < len(tops); k++ {
		a, b := tops[k-1], tops[k]
		am, bm := a.last > a.first, b.last > b.first
		if !am && !bm || am && !bm && a.key == b.key {
			continue
		}
		start := b.first
		for start-1 > a.last && !lines[start-1].blank && !lines[start-1].code() {
			start--
		}
		if !lines[start-1].blank {
			before[start] = true
		}
	}
	if len(before) == 0 {
		return lines
	}
	out := make([]*fline, 0, len(lines)+len(before))
	for i, ln := range lines {
		if before[i] {
			out = append(out, &fline{blank: true, kept: -1})
		}
		out = append(out, ln)
	}
	return out
}

// alignCode lines up the tokens the source aligns (see Format). A group
// is a run of adjacent lines at the same indentation, one token in each,
// that holds at least one token written after two or more spaces:
// either tokens at the same source column (relative to the line's first
// token), or, on lines with no token in such a group, the same word at
// the same place in the line. Groups at one column cannot depend on each
// other in a cycle, nor groups of words on lines of their own, so placing
// them left to right places everything before a token first.
func alignCode(lines []*fline) {
	eligible := func(i int) bool { return lines[i].code() && !lines[i].multi }
	type member struct{ line, cell int }
	type group struct {
		key     int // column, or place in the line
		members []member
	}
	// close ends a run of members: a group if it aligns anything.
	close := func(groups []group, key int, run []member) []group {
		if len(run) < 2 {
			return groups
		}
		for _, m := range run {
			if lines[m.line].cells[m.cell].anchor {
				return append(groups, group{key, run})
			}
		}
		return groups
	}
	// Tokens after a space, by source column relative to the line's
	// first token.
	cands := make([]map[int]int, len(lines))
	for i, ln := range lines {
		if !eligible(i) {
			continue
		}
		base := ln.cells[0].it.col
		for k, c := range ln.cells[1:] {
			if c.gap == 1 {
				if cands[i] == nil {
					cands[i] = map[int]int{}
				}
				cands[i][c.it.col-base] = k + 1
			}
		}
	}
	var byCol []group
	seen := map[member]bool{}
	for i := range lines {
		rcs := make([]int, 0, len(cands[i]))
		for rc := range cands[i] {
			rcs = append(rcs, rc)
		}
		sort.Ints(rcs)
		for _, rc := range rcs {
			if seen[member{i, cands[i][rc]}] {
				continue
			}
			var run []member
			for j := i; j < len(lines) && eligible(j) && lines[j].indent == lines[i].indent; j++ {
				k, ok := cands[j][rc]
				if !ok {
					break
				}
				run = append(run, member{j, k})
				seen[member{j, k}] = true
			}
			byCol = close(byCol, rc, run)
		}
	}
	inCol := make([]bool, len(lines))
	for _, g := range byCol {
		for _, m := range g.members {
			inCol[m.line] = true
		}
	}
	word := func(i, k int) string {
		if !eligible(i) || inCol[i] || k >= len(lines[i].cells) || lines[i].cells[k].gap != 1 {
			return ""
		}
		return lines[i].cells[k].it.text
	}
	var byWord []group
	seen = map[member]bool{}
	for i := range lines {
		if !eligible(i) || inCol[i] {
			continue
		}
		for k := 1; k < len(lines[i].cells); k++ {
			w := word(i, k)
			if w == "" || seen[member{i, k}] {
				continue
			}
			var run []member
			for j := i; j < len(lines) && lines[j].indent == lines[i].indent && word(j, k) == w; j++ {
				run = append(run, member{j, k})
				seen[member{j, k}] = true
			}
			byWord = close(byWord, k, run)
		}
	}
	// Left to right, so that what comes before a token is placed before
	// the token is; the two kinds of group share no lines.
	sort.SliceStable(byCol, func(a, b int) bool { return byCol[a].key < byCol[b].key })
	sort.SliceStable(byWord, func(a, b int) bool { return byWord[a].key < byWord[b].key })
	// end is the column after the text before a member. A line's groups
	// come left to right and set no pad left of them: a cursor per line
	// (the cell reached and the column before its pad) keeps this linear.
	type cursor struct{ cell, col int }
	cursors := map[int]cursor{}
	end := func(m member) int {
		ln := lines[m.line]
		cur, ok := cursors[m.line]
		if !ok || cur.cell > m.cell {
			cur = cursor{0, ln.indent}
		}
		for k := cur.cell; k < m.cell; k++ {
			if k > 0 {
				cur.col += ln.cells[k].pad
			}
			cur.col = advance(cur.col, ln.cells[k].it.text)
		}
		cur.cell = m.cell
		cursors[m.line] = cur
		return cur.col
	}
	for _, g := range append(byCol, byWord...) {
		ends := make([]int, len(g.members))
		target := 0
		for x, m := range g.members {
			ends[x] = end(m)
			target = max(target, ends[x]+1)
		}
		for x, m := range g.members {
			lines[m.line].cells[m.cell].pad = target - ends[x]
		}
	}
}

// codeEnd is the column after a line's code.
func codeEnd(ln *fline) int {
	col := ln.indent
	for k, c := range ln.cells {
		if k > 0 {
			col += c.pad
		}
		col = advance(col, c.it.text)
	}
	return col
}

// alignComments places trailing comments (see Format).
func alignComments(lines []*fline) {
	trailing := func(i int) bool { return lines[i].code() && lines[i].comment != nil }
	parent := make([]int, len(lines))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) { parent[find(a)] = find(b) }
	byCol := map[int]int{} // source column → a line, within the paragraph
	for i := range lines {
		if lines[i].blank {
			clear(byCol)
			continue
		}
		if !trailing(i) || lines[i].multi {
			continue
		}
		if i > 0 && trailing(i-1) && !lines[i-1].multi && lines[i-1].indent == lines[i].indent {
			union(i, i-1)
		}
		c := lines[i].comment.col
		if j, ok := byCol[c]; ok {
			union(i, j)
		} else {
			byCol[c] = i
		}
	}
	col := map[int]int{}
	for i, ln := range lines {
		if trailing(i) {
			r := find(i)
			col[r] = max(col[r], codeEnd(ln)+max(1, ln.comment.ws))
		}
	}
	for i, ln := range lines {
		if trailing(i) {
			ln.ccol = col[find(i)]
		}
	}
}

func render(lines []*fline) []byte {
	var b bytes.Buffer
	for _, ln := range lines {
		if ln.blank {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(strings.Repeat(" ", ln.indent))
		col := ln.indent
		for k, c := range ln.cells {
			if k > 0 {
				b.WriteString(strings.Repeat(" ", c.pad))
				col += c.pad
			}
			b.WriteString(c.it.text)
			col = advance(col, c.it.text)
		}
		if ln.comment != nil {
			if len(ln.cells) > 0 {
				b.WriteString(strings.Repeat(" ", max(1, ln.ccol-col)))
			}
			b.WriteString(trimComment(ln.comment.text))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func trimComment(s string) string { return strings.TrimRight(s, " \t\r\f\v\ufeff") }

// sameComments reports whether a and b hold the same comments in the same
// order, trailing white space aside.
func sameComments(name string, a, b []byte) bool {
	ca, err1 := commentsOf(name, a)
	cb, err2 := commentsOf(name, b)
	if err1 != nil || err2 != nil || len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i] != cb[i] {
			return false
		}
	}
	return true
}

func commentsOf(name string, src []byte) ([]string, error) {
	items, err := scanItems(name, src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		if it.comment() {
			out = append(out, trimComment(it.text))
		}
	}
	return out, nil
}

// sameStmts reports whether two parses hold the same statements, source
// positions and blank space aside.
func sameStmts(a, b []*Stmt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Key.Name != y.Key.Name || !sameValues(x.Args, y.Args) || (x.Body == nil) != (y.Body == nil) {
			return false
		}
		if x.Body != nil && !sameStmts(x.Body.Stmts, y.Body.Stmts) {
			return false
		}
	}
	return true
}

func sameValues(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameItems(a, b [][]Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValues(a[i], b[i]) {
			return false
		}
	}
	return true
}

// noBlanks is s without blank space: the source text of a value may span
// blank space, and even a comment (`-  # sign\n  5`), that formatting
// changes.
func noBlanks(s string) string { return strings.Join(strings.Fields(s), "") }

func sameValue(a, b Value) bool {
	switch x := a.(type) {
	case *Number:
		y, ok := b.(*Number)
		return ok && (x.Value == y.Value || math.IsNaN(x.Value) && math.IsNaN(y.Value)) &&
			x.Unit == y.Unit && noBlanks(x.Src) == noBlanks(y.Src)
	case *Clock:
		y, ok := b.(*Clock)
		return ok && x.Seconds == y.Seconds && x.Src == y.Src && x.Invalid == y.Invalid
	case *String:
		y, ok := b.(*String)
		return ok && x.Value == y.Value && x.Src == y.Src
	case *Ident:
		y, ok := b.(*Ident)
		return ok && x.Name == y.Name
	case *Op:
		y, ok := b.(*Op)
		return ok && x.Op == y.Op
	case *List:
		y, ok := b.(*List)
		return ok && sameItems(x.Items, y.Items)
	case *Group:
		y, ok := b.(*Group)
		return ok && sameItems(x.Items, y.Items)
	}
	return false
}
