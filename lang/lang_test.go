package lang

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// parseOne parses src, which must hold one statement and no errors.
func parseOne(t *testing.T, src string) *Stmt {
	t.Helper()
	f, diags := Parse("t.pwr", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("%q: %v", src, diags)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q: %d statements", src, len(f.Stmts))
	}
	return f.Stmts[0]
}

func TestValues(t *testing.T) {
	tests := []struct {
		src  string
		want string // the statement's arguments, rendered by describe
	}{
		{"idle 70 W", "num(70 W)"},
		{"flat 0.145 EUR/kWh", "num(0.145 EUR/kWh)"},
		{"flat 0.145 EUR / kWh", "num(0.145 EUR/kWh)"},
		{"load 85%", "num(85 %)"},
		{"nodes 1_529", "num(1529)"},
		{"x -5 s", "num(-5 s)"},
		{"x 1.5e3", "num(1500)"},
		{"x 10 kw", "num(10 kw)"}, // a likely unit, reported by the compiler
		{"x 10 watts", "num(10 watts)"},
		{"x 1 EUR/kwh", "num(1 EUR/kwh)"},
		{"x 10 foo", "num(10) id(foo)"}, // not a unit: the compiler says so
		{"x 4 - 5", "num(4) op(-) num(5)"},
		{"x a - 5", "id(a) op(-) num(5)"},
		{"x a-5", "id(a) op(-) num(5)"},
		{"x 4 -5", "num(4) num(-5)"}, // apart from the 4, glued to the 5: a sign
		{"x 4 - 5 W", "num(4) op(-) num(5 W)"},
		{"add 10:00..16:00 -15", "clock(36000) op(..) clock(57600) num(-15)"},
		{"peak 06:00..22:00 at 1 EUR/kWh", "clock(21600) op(..) clock(79200) id(at) num(1 EUR/kWh)"},
		{"x 24:00", "clock(86400)"},
		{`x "a\tb"`, "str(a\tb)"},
		{`x 'it''s'`, "str(it) str(s)"},
		{`x 'say "hi"'`, `str(say "hi")`},
		{"x `C:\\dir`", `str(C:\dir)`},
		{"x [a, b,]", "list(2)"},
		{"report a, b", "id(a) op(,) id(b)"},
		{"x (1,\n 2)", "group(2)"},
		{"x [\n 1,\n 2\n]", "list(2)"},
	}
	for _, tc := range tests {
		s := parseOne(t, tc.src)
		var got []string
		for _, a := range s.Args {
			got = append(got, describe(a))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: got %s, want %s", tc.src, g, tc.want)
		}
		for _, a := range s.Args {
			if a.Text() == "" {
				t.Errorf("%q: empty text for %s", tc.src, describe(a))
			}
		}
	}
}

func describe(v Value) string {
	switch v := v.(type) {
	case *Number:
		if v.Unit != "" {
			return "num(" + trim(v.Value) + " " + v.Unit + ")"
		}
		return "num(" + trim(v.Value) + ")"
	case *Clock:
		return "clock(" + trim(float64(v.Seconds)) + ")"
	case *String:
		return "str(" + v.Value + ")"
	case *Ident:
		return "id(" + v.Name + ")"
	case *Op:
		return "op(" + v.Op + ")"
	case *List:
		return "list(" + trim(float64(len(v.Items))) + ")"
	case *Group:
		return "group(" + trim(float64(len(v.Items))) + ")"
	}
	return "?"
}

func trim(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func TestRangesAndArgsSource(t *testing.T) {
	// A line ending with an operator continues on the next one.
	src := "policy p {\n  admit !peak ||\n    (job.nodes <= 16)  # small\n}\n"
	f, diags := Parse("t.pwr", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("a rule continued after `||`: %v", diags)
	}
	if text, _ := f.ArgsSource(f.Stmts[0].Body.Stmts[0], 0); text != "!peak ||\n    (job.nodes <= 16)" {
		t.Errorf("continued rule source %q", text)
	}
	// A statement that starts with an operator is an error, not a continuation.
	if _, diags := Parse("t.pwr", []byte("policy p {\n  admit !peak\n    || peak\n}\n")); len(diags) != 1 ||
		!strings.Contains(diags[0].Detail, "end the line before with its operator") {
		t.Errorf("want one error suggesting a trailing operator, got %v", diags)
	}
	// Inside parentheses newlines do not end the statement either.
	f, _ = Parse("t.pwr", []byte("policy p {\n  admit !peak || (\n    job.nodes <= 16)\n}\n"))
	admit := f.Stmts[0].Body.Stmts[0]
	text, r := f.ArgsSource(admit, 0)
	if text != "!peak || (\n    job.nodes <= 16)" {
		t.Errorf("rule source %q", text)
	}
	if r.Start.Line != 2 || r.Start.Col != 9 || r.End.Line != 3 || r.End.Col != 21 {
		t.Errorf("rule range %v..%d:%d", r, r.End.Line, r.End.Col)
	}
	if _, r := f.ArgsSource(admit, 99); r.Start != r.End || !r.Valid() {
		t.Errorf("empty rule range %+v", r)
	}
}

// TestArgsSourceComments: comments where a newline continues a rule (after
// an operator, inside brackets, on lines of their own) are blanked in the
// rule's source, byte for byte, so that offsets after them still match the
// file; a `#` inside a string is not a comment.
func TestArgsSourceComments(t *testing.T) {
	src := "policy p {\n" +
		"  priority job.wait / job.walltime +   # ageing, âgé\n" +
		"    # a line of its own\n" +
		"    (job.nodes /  # width\n" +
		"     16) + (job.user == \"#1\" ? 1 : 0)\n" +
		"}\n"
	f, diags := Parse("t.pwr", []byte(src))
	if len(diags) != 0 {
		t.Fatalf("comments inside a continued rule: %v", diags)
	}
	s := f.Stmts[0].Body.Stmts[0]
	text, r := f.ArgsSource(s, 0)
	want := "job.wait / job.walltime +   " + strings.Repeat(" ", len("# ageing, âgé")) + "\n" +
		"    " + strings.Repeat(" ", len("# a line of its own")) + "\n" +
		"    (job.nodes /  " + strings.Repeat(" ", len("# width")) + "\n" +
		"     16) + (job.user == \"#1\" ? 1 : 0)"
	if text != want {
		t.Errorf("rule source\n%q, want\n%q", text, want)
	}
	if len(text) != r.End.Offset-r.Start.Offset || src[r.Start.Offset:r.End.Offset] == text {
		t.Errorf("blanked source of %d bytes for a range of %d", len(text), r.End.Offset-r.Start.Offset)
	}
	// A rule without comments is the source as written.
	f, _ = Parse("t.pwr", []byte("policy p { order job.submit } # after\n# more\n"))
	if text, _ := f.ArgsSource(f.Stmts[0].Body.Stmts[0], 0); text != "job.submit" {
		t.Errorf("rule source %q", text)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		name  string
		cands []string
		want  string
	}{
		{"esay", []string{"easy", "fcfs"}, "easy"},
		{"wiat", []string{"wait", "walltime"}, "wait"}, // a transposition is one slip
		{"EASY", []string{"easy"}, "easy"},
		{"x", []string{"y"}, "y"},
		{"conservative", []string{"easy", "fcfs"}, ""},
		{"q95", []string{"q90", "q99", "q25"}, ""}, // a tie: no guess
		{"easy", []string{"easy"}, ""},
		{"nodez", []string{"nodes", "node"}, "nodes"},
	}
	for _, tc := range tests {
		if got := Suggest(tc.name, tc.cands); got != tc.want {
			t.Errorf("Suggest(%q, %v) = %q, want %q", tc.name, tc.cands, got, tc.want)
		}
	}
	units := map[string]string{"kw": "kW", "Wats": "W", "watts": "W", "KWH": "kWh", "eur/kwh": "EUR/kWh",
		"mins": "min", "W": "", "furlongs": "", "EUR/h": "", "hours": "h"}
	for in, want := range units {
		if got := SuggestUnit(in); got != want {
			t.Errorf("SuggestUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteSnippets(t *testing.T) {
	src := []byte("machine 名前 {\n\tnodes\tx\n  " + strings.Repeat("a ", 200) + "zz " + strings.Repeat("b ", 200) + "\n")
	at := func(sub string, n int) Range {
		i := bytes.Index(src, []byte(sub))
		return Range{File: "f", Start: posAt(src, i), End: posAt(src, i+n)}
	}
	ds := Diagnostics{
		{Severity: Error, Summary: "after wide characters", Range: at("{", 1)},
		{Severity: Warning, Summary: "after tabs", Range: at("x", 1), Suggest: "y", Detail: "detail"},
		{Severity: Error, Summary: "on a long line", Range: at("zz", 2)},
		{Severity: Error, Summary: "at the end", Range: Range{File: "f", Start: posAt(src, len(src)), End: posAt(src, len(src))}},
		{Severity: Error, Summary: "nowhere\nin particular", Range: Range{File: "--set"}, Suggest: "z"},
	}
	ds[0].Note(at("machine", 7), "see\there")
	var b bytes.Buffer
	if err := ds.Write(&b, Sources{"f": src}); err != nil {
		t.Fatal(err)
	}
	want := `f:1:12: error: after wide characters
    1 | machine 名前 {
      |              ^
f:1:1: note: see here
    1 | machine 名前 {
      | ^^^^^^^
f:2:8: warning: after tabs
    2 |     nodes    x
      |              ^ did you mean ` + "`y`" + `?
      = detail
f:3:403: error: on a long line
    3 | …a a a a a a a a a a a a a a a a a a a a a a a a a zz b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b b…
      |                                                    ^^
f:4:1: error: at the end
    3 | …b b b b b b b b b b b b b b b b b b b b b b b b b 
      |                                                    ^
--set: error: nowhere in particular
      = did you mean ` + "`z`" + `?
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSortStable(t *testing.T) {
	ds := Diagnostics{
		{Summary: "b2", Range: Range{File: "b", Start: Pos{Offset: 2, Line: 1, Col: 3}}},
		{Summary: "a5w", Severity: Warning, Range: Range{File: "a", Start: Pos{Offset: 5, Line: 1, Col: 6}}},
		{Summary: "a5e", Range: Range{File: "a", Start: Pos{Offset: 5, Line: 1, Col: 6}}},
		{Summary: "a1", Range: Range{File: "a", Start: Pos{Offset: 1, Line: 1, Col: 2}}},
		{Summary: "a5e2", Range: Range{File: "a", Start: Pos{Offset: 5, Line: 1, Col: 6}}},
	}
	ds.Sort()
	var got []string
	for _, d := range ds {
		got = append(got, d.Summary)
	}
	if g := strings.Join(got, " "); g != "a1 a5e a5e2 a5w b2" {
		t.Errorf("order %s", g)
	}
}

func TestParseValue(t *testing.T) {
	tests := map[string]string{
		"128":         "num(128)",
		"[fcfs,easy]": "list(2)",
		"64 W":        "num(64 W)",
		`"a b.swf"`:   "str(a b.swf)",
		"easy\n":      "id(easy)",
		"[64,\n128]":  "list(2)",
		"data/x.swf":  "id(data) op(/) id(x) op(.) id(swf)",
		"":            "",
	}
	for in, want := range tests {
		vals, diags := ParseValue("--set x", in)
		if len(diags) > 0 {
			t.Errorf("%q: %v", in, diags)
			continue
		}
		var got []string
		for _, v := range vals {
			got = append(got, describe(v))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%q: got %s, want %s", in, g, want)
		}
	}
	if _, diags := ParseValue("--set x", "[a,"); !diags.HasErrors() || !strings.Contains(diags[0].Summary, "end of value") {
		t.Errorf("unclosed list: %v", diags)
	}
}

// TestBoundedOutput checks that pathological files give a bounded report:
// Thousands of unclosed blocks on one line once took minutes to render, a note
// with the whole line for each.
func TestBoundedOutput(t *testing.T) {
	for name, src := range map[string]string{
		"unclosed blocks": strings.Repeat("{", 5000),
		"stray closers":   strings.Repeat("}", 5000),
		"garbage":         strings.Repeat("☃ ", 5000),
		"statements":      strings.Repeat("1\n", 5000),
		"long line":       "x = " + strings.Repeat("a ", 20000) + "☃",
	} {
		_, diags := Parse("f.pwr", []byte(src))
		var b bytes.Buffer
		if err := diags.Write(&b, Sources{"f.pwr": []byte(src)}); err != nil {
			t.Fatal(err)
		}
		if len(diags) == 0 || len(diags) > maxSyntaxErrors+1 || b.Len() > 20000 {
			t.Errorf("%s: %d diagnostics, %d bytes of output", name, len(diags), b.Len())
		}
	}
}
