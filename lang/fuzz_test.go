package lang

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"
)

// seedFiles returns the shipped scenarios and the inputs of the golden
// diagnostics tests, to seed the fuzzers.
func seedFiles(tb testing.TB) [][]byte {
	var out [][]byte
	for _, pat := range []string{"../examples/*.pwr", "../stdlib/*.pwr"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, b)
		}
	}
	archives, _ := filepath.Glob("../compiler/testdata/check/*.txtar")
	for _, p := range archives {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name != "want" {
				out = append(out, f.Data)
			}
		}
	}
	if len(out) == 0 {
		tb.Fatal("no seed files")
	}
	return out
}

// checkRange reports what is wrong with a range into src, or "".
func checkRange(r Range, name string, src []byte) string {
	if !r.Valid() {
		if r.File != name {
			return "invalid range in another file"
		}
		return ""
	}
	if r.File != name {
		return "range in file " + r.File
	}
	if r.Start.Offset < 0 || r.End.Offset > len(src) || r.Start.Offset > r.End.Offset {
		return "offsets outside the file"
	}
	for _, p := range []Pos{r.Start, r.End} {
		want := posAt(src, p.Offset)
		if p != want {
			return "line:col does not match the offset"
		}
	}
	return ""
}

func FuzzParse(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Add([]byte("machine m {\n  nodes 4 \xff\n"))
	f.Add([]byte("\ufeffimport \u201cstd/policies\u201d"))
	f.Add([]byte("x \"\xa4\"\n")) // invalid UTF-8 inside a string reached the output
	f.Add([]byte("param x = [1; 2]\n"))
	f.Add([]byte(strings.Repeat("{", 100)))
	// Nesting at, just past and far past the limit: parsing was quadratic
	// in the depth.
	f.Add(nested(maxNesting - 1))
	f.Add(nested(maxNesting))
	f.Add(nested(20000))
	f.Add([]byte("param x = " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n"))
	f.Add([]byte("policy p {\n  admit " + strings.Repeat("([{", 40) + "\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := Parse("f.pwr", src)
		if file == nil {
			t.Fatal("nil file")
		}
		for _, d := range diags {
			if msg := checkRange(d.Range, "f.pwr", src); msg != "" {
				t.Fatalf("%s: %s: %s", d.Range, d.Summary, msg)
			}
			for _, n := range d.Notes {
				if msg := checkRange(n.Range, "f.pwr", src); msg != "" {
					t.Fatalf("note %s: %s: %s", n.Range, n.Message, msg)
				}
			}
			if d.Summary == "" {
				t.Fatal("diagnostic without a summary")
			}
		}
		// Statement and value ranges lie inside the file too.
		var walk func([]*Stmt)
		walk = func(ss []*Stmt) {
			for _, s := range ss {
				if msg := checkRange(s.Range, "f.pwr", src); msg != "" {
					t.Fatalf("statement %s: %s", s.Range, msg)
				}
				for _, a := range s.Args {
					if msg := checkRange(a.Range(), "f.pwr", src); msg != "" {
						t.Fatalf("value %q at %s: %s", a.Text(), a.Range(), msg)
					}
				}
				if s.Body != nil {
					walk(s.Body.Stmts)
				}
			}
		}
		walk(file.Stmts)
		var out bytes.Buffer
		if err := diags.Write(&out, Sources{"f.pwr": src}); err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("rendering gave invalid UTF-8:\n%q", out.String())
		}
		for _, r := range out.String() {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("rendering gave control character %U (unsafe on a terminal):\n%q", r, out.String())
			}
		}
		if _, err := json.Marshal(diags.JSON(Sources{"f.pwr": src})); err != nil {
			t.Fatal(err)
		}
		for _, s := range file.Stmts {
			for i := range s.Args {
				file.ArgsSource(s, i)
			}
		}
		// A --set value goes through the same lexer.
		if len(src) < 200 {
			vals, vd := ParseValue("--set x", string(src))
			_ = vals
			for _, d := range vd {
				if msg := checkRange(d.Range, "--set x", src); msg != "" {
					t.Fatalf("ParseValue: %s: %s: %s", d.Range, d.Summary, msg)
				}
			}
		}
	})
}
