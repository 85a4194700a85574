package lang

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// nested is a policy whose priority rule nests depth parentheses, inside
// the policy's block: depth+1 levels of brackets in all.
func nested(depth int) []byte {
	return []byte("policy p {\n  priority " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n}\n")
}

func TestNestingLimit(t *testing.T) {
	if _, diags := Parse("f.pwr", nested(maxNesting-1)); len(diags) > 0 {
		t.Fatalf("%d levels: %v", maxNesting, diags)
	}
	for _, depth := range []int{maxNesting, 100000} {
		src := nested(depth)
		f, diags := Parse("f.pwr", src)
		if len(diags) != 1 || !f.Incomplete {
			t.Fatalf("depth %d: want one diagnostic and an incomplete file, got %d: %v", depth, len(diags), diags)
		}
		d := diags[0]
		// The culprit is the bracket that opens level maxNesting+1: the
		// block's `{` is level 1, so the maxNesting-th `(`.
		col := len("  priority ") + maxNesting
		if d.Range.Start.Line != 2 || d.Range.Start.Col != col || d.Range.End.Col != col+1 {
			t.Errorf("depth %d: at %s, want f.pwr:2:%d", depth, d.Range, col)
		}
		want := "brackets nested too deeply: this `(` opens level 101, and at most 100 are allowed"
		if d.Summary != want {
			t.Errorf("depth %d: summary %q, want %q", depth, d.Summary, want)
		}
		if len(d.Notes) != 1 || d.Notes[0].Range.Start.Line != 1 || d.Notes[0].Range.Start.Col != 10 {
			t.Errorf("depth %d: want a note at the outermost `{` (1:10), got %+v", depth, d.Notes)
		}
		var out bytes.Buffer
		if err := diags.Write(&out, Sources{"f.pwr": src}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "f.pwr:2:") || !strings.Contains(out.String(), "^") {
			t.Errorf("depth %d: rendering lacks the location or the caret:\n%s", depth, out.String())
		}
	}
	// Every kind of bracket counts, and so does a --set value.
	for _, src := range []string{strings.Repeat("[", 101), strings.Repeat("{", 101), strings.Repeat("([", 51)} {
		if _, diags := ParseValue("--set x", src); len(diags) != 1 || !strings.Contains(diags[0].Summary, "nested too deeply") {
			t.Errorf("ParseValue(%.10q…): %v", src, diags)
		}
	}
}

// TestNestingCost: what parsing a deeply nested input costs is bounded by
// the limit, not by the depth (it was quadratic in the depth: 10 GB for
// 100,000 parentheses).
func TestNestingCost(t *testing.T) {
	atLimit := nested(maxNesting - 1)
	deep := nested(5000)
	base := testing.AllocsPerRun(3, func() { Parse("f.pwr", atLimit) })
	got := testing.AllocsPerRun(3, func() { Parse("f.pwr", deep) })
	if got > base {
		t.Errorf("5000 levels: %.0f allocations, more than the %.0f of a file at the limit", got, base)
	}
}

// TestSubShares: values' source text shares the file's text rather than
// copying it, so nested groups do not copy their text once per level.
func TestSubShares(t *testing.T) {
	src := nested(50)
	f, diags := Parse("f.pwr", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	g, ok := f.Stmts[0].Body.Stmts[0].Args[0].(*Group)
	if !ok {
		t.Fatalf("want a group, got %T", f.Stmts[0].Body.Stmts[0].Args[0])
	}
	inner, ok := g.Items[0][0].(*Group)
	if !ok {
		t.Fatalf("want a group inside, got %T", g.Items[0][0])
	}
	outerStart := uintptr(unsafe.Pointer(unsafe.StringData(g.Src)))
	innerStart := uintptr(unsafe.Pointer(unsafe.StringData(inner.Src)))
	if innerStart != outerStart+1 {
		t.Errorf("the inner group's text is a copy (at %#x), not the outer's text from its second byte (%#x)", innerStart, outerStart+1)
	}
	if src, _ := f.ArgsSource(f.Stmts[0].Body.Stmts[0], 0); unsafe.StringData(src) != unsafe.StringData(g.Src) {
		t.Error("ArgsSource copies the rule's text")
	}
}

// TestMessagesClipQuotedValues: a summary that quotes a huge value prints a
// short line, in text and in JSON, and says it was cut.
func TestMessagesClipQuotedValues(t *testing.T) {
	huge := strings.Repeat("job.nodes + ", 4000) + "1"
	src := []byte("x " + huge + "\n")
	r := Range{File: "f.pwr", Start: Pos{Offset: 2, Line: 1, Col: 3}, End: Pos{Offset: len(src) - 1, Line: 1, Col: len(src)}}
	var diags Diagnostics
	diags.Errorf(r, "`x` needs a number, not `%s`", huge).With("Write `%s` differently.", huge).DidYouMean(huge).Note(r, "`%s` here", huge)
	diags.Errorf(r, "unknown param in --set x=%s", huge) // quoted without backticks
	var out bytes.Buffer
	if err := diags.Write(&out, Sources{"f.pwr": src}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 2*maxMessage {
			t.Errorf("a line of %d runes: %.80s…", n, line)
		}
	}
	if !strings.Contains(out.String(), "error: `x` needs a number, not `job.nodes + job.nodes") || !strings.Contains(out.String(), "…`") {
		t.Errorf("the summary should keep the start of the value and mark the cut:\n%.400s", out.String())
	}
	js := diags.JSON(Sources{"f.pwr": src})
	for _, j := range js {
		for _, s := range []string{j.Summary, j.Detail, j.Suggest} {
			if n := utf8.RuneCountInString(s); n > maxMessage {
				t.Errorf("JSON message of %d runes: %.80s…", n, s)
			}
		}
	}
	if s := diags.Error(); utf8.RuneCountInString(s) > 2*maxMessage+100 {
		t.Errorf("Error() is %d runes long", utf8.RuneCountInString(s))
	}
	// Short messages are untouched, and quoted spans are found in pairs.
	for _, s := range []string{"", "`a` and `b`", "unexpected `{`", strings.Repeat("a", 100) + " `x`"} {
		if got := clipMessage(s); got != s {
			t.Errorf("clipMessage(%q) = %q", s, got)
		}
	}
	if got, want := Clip(strings.Repeat("é", 100)), strings.Repeat("é", maxQuoted-1)+"…"; got != want {
		t.Errorf("Clip: %q, want %q", got, want)
	}
}
