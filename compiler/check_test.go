package compiler_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/lang"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/check/*.txtar")

// TestCheck compiles each testdata/check/*.txtar scenario and compares the
// rendered diagnostics (Diagnostics.Write) with its `want` section.
//
// The first file of an archive is the root; the others can be imported by
// relative path. The archive comment may hold options, one a line:
//
//	set NAME=VALUE      a --set (repeatable)
//	experiment NAME     --experiment
//
// Run `go test ./compiler -run TestCheck -update` to rewrite the wants after
// a deliberate change, and review the diff as a user would read it.
func TestCheck(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "check", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			root, files, opts, wantIdx := loadArchive(t, ar)
			res := compiler.Compile(root, opts)
			var out bytes.Buffer
			if err := res.Diags.Write(&out, res.Sources); err != nil {
				t.Fatal(err)
			}
			checkRanges(t, res.Diags, res.Sources)
			if res.Diags.HasErrors() != (res.Plan == nil) {
				t.Errorf("plan is nil: %v, but errors: %v", res.Plan == nil, res.Diags.HasErrors())
			}
			_ = files
			got := out.String()
			if *update {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = []byte(got)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatalf("no `want` section; run with -update")
			}
			if want := string(ar.Files[wantIdx].Data); got != want {
				t.Errorf("diagnostics differ (run with -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// loadArchive returns the root file name, an in-memory file system, the
// compile options and the index of the want section (-1 if none).
func loadArchive(t *testing.T, ar *txtar.Archive) (string, map[string][]byte, compiler.Options, int) {
	t.Helper()
	files := map[string][]byte{}
	root := ""
	want := -1
	for i, f := range ar.Files {
		if f.Name == "want" {
			want = i
			continue
		}
		if root == "" {
			root = f.Name
		}
		files[filepath.Clean(f.Name)] = f.Data
	}
	if root == "" {
		t.Fatal("archive holds no .pwr file")
	}
	opts := compiler.Options{ReadFile: memFS(files), OpenData: memOpen(files), Lint: true}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		key, val, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch key {
		case "set":
			name, value, ok := strings.Cut(val, "=")
			if !ok {
				t.Fatalf("bad option %q", line)
			}
			opts.Sets = append(opts.Sets, compiler.Set{Name: name, Value: value})
		case "experiment":
			opts.Experiment = val
		}
	}
	return root, files, opts, want
}

// memOpen opens data files (traces, price series) from a map, like memFS.
func memOpen(files map[string][]byte) func(string) (io.ReadCloser, error) {
	read := memFS(files)
	return func(name string) (io.ReadCloser, error) {
		b, err := read(name)
		if err != nil {
			return nil, err
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

// memFS reads files from a map, by path relative to the working directory.
func memFS(files map[string][]byte) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if b, ok := files[filepath.Clean(name)]; ok {
			return b, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
}

// checkRanges requires every diagnostic (and note) to point inside its
// file, with its start before its end, and line/col consistent with the
// byte offset.
func checkRanges(t *testing.T, ds lang.Diagnostics, src lang.Sources) {
	t.Helper()
	for _, d := range ds {
		if err := validRange(d.Range, src); err != nil {
			t.Errorf("%s: %s: %v", d.Range, d.Summary, err)
		}
		for _, n := range d.Notes {
			if err := validRange(n.Range, src); err != nil {
				t.Errorf("note %s: %s: %v", n.Range, n.Message, err)
			}
		}
	}
}

func validRange(r lang.Range, src lang.Sources) error {
	if !r.Valid() {
		return nil // a diagnostic about no place in particular (--experiment, a missing file)
	}
	text, ok := src[r.File]
	if !ok {
		return fmt.Errorf("file %q not among the sources", r.File)
	}
	if r.Start.Offset < 0 || r.End.Offset > len(text) || r.Start.Offset > r.End.Offset {
		return fmt.Errorf("offsets [%d, %d) outside the file (%d bytes)", r.Start.Offset, r.End.Offset, len(text))
	}
	for _, p := range []lang.Pos{r.Start, r.End} {
		line := 1 + bytes.Count(text[:p.Offset], []byte("\n"))
		col := 1 + len([]rune(string(text[bytes.LastIndexByte(text[:p.Offset], '\n')+1:p.Offset])))
		if p.Line != line || p.Col != col {
			return fmt.Errorf("position %d:%d does not match offset %d (%d:%d)", p.Line, p.Col, p.Offset, line, col)
		}
	}
	return nil
}

// Warnings about powercaps (placed outside the trace, overlapping, under
// a contract without peak hours…) leave every run in the plan.
func TestPowercapWarningsKeepRuns(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "check", "powercap_windows.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root, _, opts, _ := loadArchive(t, ar)
	res := compiler.Compile(root, opts)
	if res.Plan == nil || len(res.Diags) == 0 {
		t.Fatalf("plan %v, %d diagnostics", res.Plan != nil, len(res.Diags))
	}
	for _, e := range res.Plan.Experiments {
		if want := map[string]int{"x": 9, "y": 1}[e.Name]; len(e.Runs) != want {
			t.Errorf("experiment %s has %d runs, want %d", e.Name, len(e.Runs), want)
		}
	}
}
