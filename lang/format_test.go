package lang

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/internal/testenv"
)

var updateFormat = flag.Bool("update", false, "rewrite the output sections of testdata/format/*.txtar")

// TestFormatGolden formats the `input` section of each
// testdata/format/*.txtar and compares the result with its `output`
// section, or, for a file that must be refused, the diagnostics with its
// `error` section. The archive comment says what the case is about. Every
// output must format to itself.
//
// Run `go test ./lang -run TestFormatGolden -update` to rewrite the outputs
// after a deliberate change, and review the diff.
func TestFormatGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "format", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]int{}
			for i, f := range ar.Files {
				sections[f.Name] = i
			}
			in, ok := sections["input"]
			if !ok {
				t.Fatal("no `input` section")
			}
			src := ar.Files[in].Data
			out, ferr := Format("input.pwr", src)
			name, got := "output", string(out)
			if ferr != nil {
				var diags Diagnostics
				if !errors.As(ferr, &diags) {
					t.Fatalf("not a diagnostic: %v", ferr)
				}
				var b bytes.Buffer
				if err := diags.Write(&b, Sources{"input.pwr": src}); err != nil {
					t.Fatal(err)
				}
				name, got = "error", b.String()
			}
			if *updateFormat {
				for _, other := range []string{"output", "error"} {
					if i, ok := sections[other]; ok && other != name {
						ar.Files = append(ar.Files[:i], ar.Files[i+1:]...)
					}
				}
				if i, ok := sections[name]; ok && i < len(ar.Files) && ar.Files[i].Name == name {
					ar.Files[i].Data = []byte(got)
				} else {
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got)})
				}
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			i, ok := sections[name]
			if !ok {
				t.Fatalf("got an %s, but the archive has no `%s` section (run with -update):\n%s", name, name, got)
			}
			if want := string(ar.Files[i].Data); got != want {
				t.Errorf("%s differs (run with -update to accept)\n--- got\n%s--- want\n%s", name, got, want)
			}
			if ferr == nil {
				checkFormatted(t, "output", out)
			}
		})
	}
}

// checkFormatted requires formatted text to be canonical: formatting it
// again changes nothing, and it has no trailing white space, no two blank
// lines in a row and one final newline.
func checkFormatted(t *testing.T, what string, out []byte) {
	t.Helper()
	again, err := Format("again.pwr", out)
	if err != nil {
		t.Fatalf("formatting the %s again: %v", what, err)
	}
	if !bytes.Equal(again, out) {
		t.Errorf("formatting the %s again changes it\n--- once\n%s--- twice\n%s", what, out, again)
	}
	if len(out) == 0 {
		return
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.HasSuffix(out, []byte("\n\n")) || out[0] == '\n' {
		t.Errorf("the %s does not start with text and end in one newline: %q", what, out)
	}
	if bytes.Contains(out, []byte("\n\n\n")) {
		t.Errorf("the %s has two blank lines in a row", what)
	}
	if !bytes.Contains(out, []byte("`")) { // a raw string may hold anything
		for n, line := range strings.Split(string(out), "\n") {
			if strings.TrimRight(line, " \t") != line {
				t.Errorf("the %s has trailing white space on line %d: %q", what, n+1, line)
			}
		}
	}
}

// TestFormatShipped: the examples and standard modules are formatted
// (what `pwrc fmt --check examples stdlib` checks in CI), and formatting
// is idempotent on every input the goldens and the check tests hold.
func TestFormatShipped(t *testing.T) {
	for _, pat := range []string{"../examples/*.pwr", "../stdlib/*.pwr"} {
		paths, _ := filepath.Glob(pat)
		if len(paths) == 0 {
			t.Fatalf("no files match %s", pat)
		}
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Format(p, src)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !bytes.Equal(out, src) {
				t.Errorf("%s is not formatted; run `pwrc fmt -w %s`\n--- formatted\n%s", p, p, out)
			}
		}
	}
	for _, src := range seedFiles(t) {
		out, err := Format("seed.pwr", src)
		if err != nil {
			var diags Diagnostics
			if !errors.As(err, &diags) {
				t.Fatalf("internal error: %v\n%s", err, src)
			}
			continue
		}
		checkFormatted(t, "formatted seed", out)
	}
}

// TestFormatRefuses: a file that does not parse is refused with the
// parser's diagnostics, however small the problem.
func TestFormatRefuses(t *testing.T) {
	for _, src := range []string{
		"machine m {\n  nodes 4\n",
		"machine m { nodes 4 }}\n",
		"param x = \"unterminated\n",
		"param x = [1, 2)\n",
		"nodes 4 {\n}\n{\n",
		"a\x00b\n",
		"param x = \xff\n",
		"policy p { admit (a\n}\n",
	} {
		out, err := Format("f.pwr", []byte(src))
		var diags Diagnostics
		if !errors.As(err, &diags) || !diags.HasErrors() || out != nil {
			t.Errorf("Format(%q) = %q, %v; want nil and the diagnostics", src, out, err)
		}
	}
}

// TestFormatLineEndings: CRLF line endings, a byte order mark, tabs and
// trailing blanks come out as plain LF text with spaces.
func TestFormatLineEndings(t *testing.T) {
	src := "\ufeffmachine m {\r\n\tnodes 4   \r\n\tcores 1\t# per node\t\r\n}\r\n\r\n\r\n"
	want := "machine m {\n  nodes 4\n  cores 1 # per node\n}\n"
	out, err := Format("f.pwr", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("got\n%q\nwant\n%q", out, want)
	}
}

// TestFormatEmpty: a file with nothing in it formats to nothing.
func TestFormatEmpty(t *testing.T) {
	for _, src := range []string{"", "\n", "\n\n  \n", ";", " ; ;\n;"} {
		out, err := Format("f.pwr", []byte(src))
		if err != nil || len(out) != 0 {
			t.Errorf("Format(%q) = %q, %v; want empty", src, out, err)
		}
	}
}

// TestFormatWideBlocks: a one-line block that does not fit in 100
// columns is broken up, outermost first; inner blocks that then fit stay.
func TestFormatWideBlocks(t *testing.T) {
	fits := "experiment e { workload synthetic { jobs 10 }; machine m; contract c; policy p; seed 1234567890123 }\n"
	if len(fits) != maxFmtWidth+1 { // with the newline
		t.Fatalf("test line is %d columns", len(fits)-1)
	}
	out, err := Format("f.pwr", []byte(fits))
	if err != nil || string(out) != fits {
		t.Errorf("a line of exactly 100 columns: got %q, %v", out, err)
	}
	wide := strings.Replace(fits, "1234567890123", "12345678901234", 1)
	want := "experiment e {\n  workload synthetic { jobs 10 }\n  machine m\n  contract c\n  policy p\n  seed 12345678901234\n}\n"
	out, err = Format("f.pwr", []byte(wide))
	if err != nil || string(out) != want {
		t.Errorf("a line of 101 columns: got\n%s%v\nwant\n%s", out, err, want)
	}
}

// TestFormatMangled formats variants of the shipped files and the check
// goldens with their blank space, line breaks, `;` and comments changed at
// random: every variant that parses must format (the formatter's own check
// that the statements and comments are unchanged included), and the result
// must be canonical.
func TestFormatMangled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 40
	if !testenv.Long() {
		n = 5
	}
	parsed := 0
	for _, src := range seedFiles(t) {
		for range n {
			m := mangle(rng, src)
			if _, d := Parse("m.pwr", m); d.HasErrors() {
				continue
			}
			parsed++
			out, err := Format("m.pwr", m)
			if err != nil {
				t.Fatalf("%v\n--- input\n%s", err, m)
			}
			checkFormatted(t, "formatted variant", out)
			if t.Failed() {
				t.Fatalf("--- input\n%s", m)
			}
		}
	}
	if parsed == 0 {
		t.Fatal("no variant parses")
	}
	t.Logf("%d variants parsed and formatted", parsed)
}

// mangle returns src with its blank space, newlines, `;` and comments
// changed at random.
func mangle(rng *rand.Rand, src []byte) []byte {
	lx, err := lexRules.LexString("m.pwr", string(src))
	if err != nil {
		return src
	}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var b bytes.Buffer
	for {
		tok, err := lx.Next()
		if err != nil || tok.EOF() {
			break
		}
		switch tok.Type {
		case tokWhitespace:
			b.WriteString(pick(" ", " ", "  ", "    ", "\t", " \t ", "         "))
			continue
		case tokNewline:
			b.WriteString(pick("\n", "\n", "\n", "\n\n", "\n\n\n", " \n", "\r\n", ";\n", "\n;", "\n  # note\n", "  # note\n"))
			b.WriteString(pick("", "", "", " ", "  ", "\t", "      "))
			continue
		}
		b.WriteString(tok.Value)
		switch rng.IntN(40) {
		case 0:
			b.WriteString(" ")
		case 1:
			b.WriteString(";")
		case 2:
			b.WriteString("; ")
		case 3:
			b.WriteString("\n")
		case 4:
			b.WriteString("   # c\n")
		case 5:
			b.WriteString("  ")
		}
	}
	return b.Bytes()
}

func FuzzFormat(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "format", "*.txtar"))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == "input" {
				f.Add(file.Data)
			}
		}
	}
	f.Add([]byte("a { b; c }; d +; e\n"))
	f.Add([]byte("x a  b\ny cc d   # c\n  z  1\n"))
	f.Add([]byte("p `a\n  b` c  # x\nq 1   # y\n"))
	f.Add([]byte("x (a,\n  # c\n b\n)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, diags := Parse("f.pwr", src)
		out, err := Format("f.pwr", src)
		if diags.HasErrors() {
			var ds Diagnostics
			if !errors.As(err, &ds) || out != nil {
				t.Fatalf("a file that does not parse: got %q, %v; want its diagnostics", out, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v\n--- input\n%q", err, src)
		}
		if _, d := Parse("out.pwr", out); d.HasErrors() {
			t.Fatalf("the output does not parse: %v\n--- input\n%q\n--- output\n%q", d, src, out)
		}
		again, err := Format("out.pwr", out)
		if err != nil {
			t.Fatalf("formatting the output: %v\n--- input\n%q\n--- output\n%q", err, src, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent\n--- input\n%q\n--- once\n%q\n--- twice\n%q", src, out, again)
		}
	})
}
