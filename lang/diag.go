package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Severity says whether a diagnostic stops compilation.
type Severity int

// Severities, most severe first.
const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalJSON renders the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Diagnostic is one problem found in a scenario, modelled on HCL's: a
// one-line summary, a sentence of detail that says how to fix it, the source
// range of the culprit, and optionally a suggested replacement ("did you mean").
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	Range    Range
	Suggest  string // a likely intended spelling, shown as "did you mean `x`?"
	Notes    []Note // related places, e.g. where an unclosed block was opened
}

// Note points at a related source range.
type Note struct {
	Range   Range
	Message string
}

// Diagnostics is a list of diagnostics; it is an error when it holds errors.
type Diagnostics []*Diagnostic

// Errorf appends an error at r.
func (ds *Diagnostics) Errorf(r Range, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: Error, Summary: fmt.Sprintf(format, args...), Range: r}
	*ds = append(*ds, d)
	return d
}

// Warnf appends a warning at r.
func (ds *Diagnostics) Warnf(r Range, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: Warning, Summary: fmt.Sprintf(format, args...), Range: r}
	*ds = append(*ds, d)
	return d
}

// With sets the detail sentence and returns d, for chaining.
func (d *Diagnostic) With(format string, args ...any) *Diagnostic {
	d.Detail = fmt.Sprintf(format, args...)
	return d
}

// DidYouMean sets the suggested replacement (ignored when empty).
func (d *Diagnostic) DidYouMean(s string) *Diagnostic {
	d.Suggest = s
	return d
}

// Note adds a related location.
func (d *Diagnostic) Note(r Range, format string, args ...any) *Diagnostic {
	d.Notes = append(d.Notes, Note{Range: r, Message: fmt.Sprintf(format, args...)})
	return d
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns the number of errors and warnings.
func (ds Diagnostics) Count() (errors, warnings int) {
	for _, d := range ds {
		if d.Severity == Error {
			errors++
		} else {
			warnings++
		}
	}
	return
}

// Error renders the diagnostics without source snippets.
func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s: %s", d.Range, d.Severity, clipMessage(d.Summary))
	}
	return b.String()
}

// maxQuoted bounds, in runes, a value quoted in a message: a summary names
// the culprit, and the snippet under it shows where it is, so a 40 KB
// expression or list is cut to its start.
const maxQuoted = 60

// maxMessage bounds a whole message line (summary, detail, note), in runes.
const maxMessage = 300

// Clip shortens text that a message quotes from the scenario (a value, a
// rule, a --set argument) to at most 60 runes, marking the cut with "…".
// Messages should quote through it; rendering clips what they did not.
func Clip(s string) string { return clip(s, maxQuoted) }

// clipMessage bounds a message for rendering: every `quoted` span longer
// than maxQuoted runes is clipped, and then the whole message to
// maxMessage runes. It is the safety net under Clip, so that no summary
// line prints a value of unbounded length whatever built it.
func clipMessage(s string) string {
	if utf8.RuneCountInString(s) <= maxQuoted {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		b.WriteString(s[:i+1])
		b.WriteString(clip(s[i+1:i+1+j], maxQuoted))
		b.WriteByte('`')
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return clip(b.String(), maxMessage)
}

// Sort orders diagnostics by file, position, then severity, keeping the
// order of diagnostics at the same place; output must not depend on the order
// in which checks happened to run.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Range, ds[j].Range
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset < b.Start.Offset
		}
		return ds[i].Severity < ds[j].Severity
	})
}

// Sources maps file names to their text, for rendering snippets.
type Sources map[string][]byte

// Write renders each diagnostic as
//
//	file:line:col: error: summary
//	   3 |   machine mistrl
//	     |           ^^^^^^ did you mean `mistral`?
//	     = detail
func (ds Diagnostics) Write(w io.Writer, src Sources) error {
	var b bytes.Buffer
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: %s: %s\n", oneLine(d.Range.String()), d.Severity, oneLine(clipMessage(d.Summary)))
		hint := ""
		if d.Suggest != "" {
			hint = fmt.Sprintf("did you mean `%s`?", oneLine(Clip(d.Suggest)))
		}
		writeSnippet(&b, src[d.Range.File], d.Range, hint)
		if d.Detail != "" {
			fmt.Fprintf(&b, "      = %s\n", oneLine(clipMessage(d.Detail)))
		}
		for _, n := range d.Notes {
			fmt.Fprintf(&b, "%s: note: %s\n", oneLine(n.Range.String()), oneLine(clipMessage(n.Message)))
			writeSnippet(&b, src[n.Range.File], n.Range, "")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeSnippet prints the first line of r with a caret line under it.
func writeSnippet(b *bytes.Buffer, text []byte, r Range, hint string) {
	if !r.Valid() || text == nil {
		if hint != "" {
			fmt.Fprintf(b, "      = %s\n", hint)
		}
		return
	}
	line, start := sourceLine(text, r.Start)
	if line == "" && r.Start.Offset >= len(text) && r.Start.Line > 1 {
		// An error at end of file: show the last non-empty line instead of
		// an empty one, with the caret just after its end.
		prev, ok := lastNonEmptyLine(text)
		if ok {
			line = prev.text
			r.Start = Pos{Offset: prev.end, Line: prev.line, Col: runewidth.StringWidth(prev.text) + 1}
			r.End = r.Start
			start = prev.start
		}
	}
	// A long line is cut to a window around the caret.
	lo, hi := 0, len(line)
	caret := min(len(line), max(0, r.Start.Offset-start))
	if utf8.RuneCountInString(line) > maxSnippet {
		lo, hi = runeWindow(line, caret, maxSnippet/3, maxSnippet*2/3)
	}
	shown := line[lo:hi]
	if lo > 0 {
		shown = "…" + shown
	}
	if hi < len(line) {
		shown += "…"
	}
	// Columns are rendered by display width so wide characters line up.
	prefix := line[lo:caret]
	if lo > 0 {
		prefix = "…" + prefix
	}
	pad := runewidth.StringWidth(printable(prefix))
	n := 1
	if r.End.Offset > r.Start.Offset {
		endOnLine := min(r.End.Offset-start, hi)
		if endOnLine > caret {
			n = max(1, runewidth.StringWidth(printable(line[caret:endOnLine])))
		}
	}
	gutter := fmt.Sprintf("%d", r.Start.Line)
	fmt.Fprintf(b, " %4s | %s\n", gutter, printable(shown))
	fmt.Fprintf(b, " %4s | %s%s", "", strings.Repeat(" ", pad), strings.Repeat("^", n))
	if hint != "" {
		fmt.Fprintf(b, " %s", hint)
	}
	b.WriteByte('\n')
}

// maxSnippet is the longest source line shown whole, in runes.
const maxSnippet = 150

// runeWindow returns byte offsets [lo, hi) of a window of line around byte
// offset at: up to before runes before it and after runes from it.
func runeWindow(line string, at, before, after int) (int, int) {
	lo := at
	for i := 0; i < before && lo > 0; i++ {
		_, n := utf8.DecodeLastRuneInString(line[:lo])
		lo -= n
	}
	hi := at
	for i := 0; i < after && hi < len(line); i++ {
		_, n := utf8.DecodeRuneInString(line[hi:])
		hi += n
	}
	return lo, hi
}

// sourceLine returns the text of the line containing p, without its
// newline, and the byte offset where the line starts.
func sourceLine(text []byte, p Pos) (string, int) {
	off := min(max(p.Offset, 0), len(text))
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	end := bytes.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	return strings.TrimRight(string(text[start:end]), "\r"), start
}

type lineInfo struct {
	text       string
	start, end int
	line       int
}

func lastNonEmptyLine(text []byte) (lineInfo, bool) {
	lines := bytes.Split(text, []byte("\n"))
	off := 0
	var best lineInfo
	found := false
	for i, l := range lines {
		s := strings.TrimRight(string(l), "\r")
		if strings.TrimSpace(s) != "" {
			best = lineInfo{text: s, start: off, end: off + len(s), line: i + 1}
			found = true
		}
		off += len(l) + 1
	}
	return best, found
}

// oneLine makes message text safe to print as part of one line: line
// breaks and tabs become spaces, other control characters their symbols.
func oneLine(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	return printable(s)
}

// printable makes a source line safe to print on a terminal: tabs become
// four spaces, control characters their visible symbols (U+2400...) and
// bytes that are not UTF-8 the replacement character, one column each, so
// that carets computed on the result line up.
func printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029, r == 0x202e, r == 0x202d, r == 0x2066, r == 0x2067, r == 0x2068, r == 0x2069, r == 0x202a, r == 0x202b, r == 0x202c:
			b.WriteRune(utf8.RuneError) // C1 controls, line separators and bidi overrides
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// JSONDiagnostic is the editor-friendly form of a diagnostic
// (pwrc check --format json).
type JSONDiagnostic struct {
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Suggest  string     `json:"suggestion,omitempty"`
	File     string     `json:"file"`
	Line     int        `json:"line"`
	Col      int        `json:"col"`
	EndLine  int        `json:"end_line"`
	EndCol   int        `json:"end_col"`
	Notes    []JSONNote `json:"notes,omitempty"`
	Source   string     `json:"source_line,omitempty"`
}

// JSONNote is a related location in JSON output.
type JSONNote struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

// JSON converts the diagnostics for machine consumption.
func (ds Diagnostics) JSON(src Sources) []JSONDiagnostic {
	out := make([]JSONDiagnostic, 0, len(ds))
	for _, d := range ds {
		j := JSONDiagnostic{
			Severity: d.Severity.String(), Summary: clipMessage(d.Summary), Detail: clipMessage(d.Detail), Suggest: Clip(d.Suggest),
			File: d.Range.File, Line: d.Range.Start.Line, Col: d.Range.Start.Col,
			EndLine: d.Range.End.Line, EndCol: d.Range.End.Col,
		}
		if t := src[d.Range.File]; t != nil && d.Range.Valid() {
			j.Source, _ = sourceLine(t, d.Range.Start)
		}
		for _, n := range d.Notes {
			j.Notes = append(j.Notes, JSONNote{File: n.Range.File, Line: n.Range.Start.Line, Col: n.Range.Start.Col, Message: clipMessage(n.Message)})
		}
		out = append(out, j)
	}
	return out
}
