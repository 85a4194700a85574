package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	fmtMessy = "machine m {nodes 4;   power { idle 1 W; busy 2 W } }\nexperiment e {\n    machine m\n}\n"
	fmtTidy  = "machine m { nodes 4; power { idle 1 W; busy 2 W } }\n\nexperiment e {\n  machine m\n}\n"
	fmtBad   = "machine m {\n  nodes 4\n"
)

// pwrcStdin runs pwrc with stdin as its standard input.
func pwrcStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	root := newRoot(&o, &e)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.code
		if ee.err != nil {
			fmt.Fprintf(&e, "pwrc: %v\n", ee.err)
		}
	default:
		code = exitUsage
		fmt.Fprintf(&e, "pwrc: %v\n", err)
	}
	return o.String(), e.String(), code
}

// TestFmtShipped is CI's check: the examples and standard modules are
// formatted.
func TestFmtShipped(t *testing.T) {
	root := filepath.Join("..", "..")
	out, errOut, code := pwrc(t, "fmt", "--check", filepath.Join(root, "examples"), filepath.Join(root, "stdlib"))
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("pwrc fmt --check examples stdlib: exit %d\n%s%s", code, out, errOut)
	}
}

func TestFmtStdin(t *testing.T) {
	out, errOut, code := pwrcStdin(t, fmtMessy, "fmt")
	if code != 0 || out != fmtTidy || errOut != "" {
		t.Errorf("exit %d, stdout\n%s\nstderr\n%s", code, out, errOut)
	}
	out, errOut, code = pwrcStdin(t, fmtMessy, "fmt", "--check")
	if code != 1 || out != "<stdin>\n" || errOut != "" {
		t.Errorf("--check of a messy file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = pwrcStdin(t, fmtTidy, "fmt", "--check")
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("--check of a tidy file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = pwrcStdin(t, fmtBad, "fmt")
	if code != 1 || out != "" || !strings.Contains(errOut, "<stdin>:2:10: error: unexpected end of file") ||
		!strings.Contains(errOut, "<stdin>: not formatted: it does not parse") {
		t.Errorf("a file that does not parse: exit %d, stdout %q, stderr\n%s", code, out, errOut)
	}
}

func TestFmtUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fmt", "-w"}, 2, "-w needs files"},
		{[]string{"fmt", "-w", "--check", "x.pwr"}, 2, "do not go together"},
		{[]string{"fmt", "--nope"}, 2, "unknown flag"},
		{[]string{"fmt", filepath.Join(t.TempDir(), "missing.pwr")}, 1, "no such file"},
	} {
		_, errOut, code := pwrcStdin(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("pwrc %s: exit %d, want %d; stderr should say %q:\n%s", strings.Join(c.args, " "), code, c.code, c.msg, errOut)
		}
	}
}

// fmtTree writes a directory of scenarios: messy, tidy, broken, a messy
// one in a subdirectory, a hidden directory's and a file that is not .pwr.
func fmtTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.pwr":          fmtMessy,
		"b.pwr":          fmtTidy,
		"c.pwr":          fmtBad,
		"sub/d.pwr":      fmtMessy,
		".hidden/e.pwr":  fmtMessy,
		"notes.txt":      fmtMessy,
		"sub/private.pw": fmtMessy,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFmtCheck lists the files that would change, in order, reports the
// one that does not parse, writes nothing and exits 1.
func TestFmtCheck(t *testing.T) {
	dir := fmtTree(t)
	out, errOut, code := pwrc(t, "fmt", "--check", dir)
	want := filepath.Join(dir, "a.pwr") + "\n" + filepath.Join(dir, "sub", "d.pwr") + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	if !strings.Contains(errOut, filepath.Join(dir, "c.pwr")+": not formatted") || strings.Count(errOut, "not formatted") != 1 {
		t.Errorf("stderr should report c.pwr only:\n%s", errOut)
	}
	for _, name := range []string{"a.pwr", "sub/d.pwr", ".hidden/e.pwr"} {
		if got := readFile(t, filepath.Join(dir, name)); got != fmtMessy {
			t.Errorf("--check changed %s", name)
		}
	}
	// A file named on the command line is formatted whatever its name.
	out, _, code = pwrc(t, "fmt", "--check", filepath.Join(dir, "notes.txt"))
	if code != 1 || out != filepath.Join(dir, "notes.txt")+"\n" {
		t.Errorf("--check notes.txt: exit %d, stdout %q", code, out)
	}
}

// TestFmtWrite rewrites the files that change, keeping their permissions
// and symbolic links, leaves the others alone, and is then a no-op.
func TestFmtWrite(t *testing.T) {
	dir := fmtTree(t)
	a := filepath.Join(dir, "a.pwr")
	if err := os.Chmod(a, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pwr")
	if err := os.Symlink(filepath.Join("sub", "d.pwr"), link); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.pwr")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(b, old, old); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := pwrc(t, "fmt", "-w", dir, link)
	if code != 1 || out != "" || strings.Count(errOut, "not formatted") != 1 {
		t.Errorf("exit %d (want 1, for c.pwr), stdout %q, stderr\n%s", code, out, errOut)
	}
	for name, want := range map[string]string{
		"a.pwr":         fmtTidy,
		"b.pwr":         fmtTidy,
		"c.pwr":         fmtBad,
		"sub/d.pwr":     fmtTidy,
		".hidden/e.pwr": fmtMessy,
		"notes.txt":     fmtMessy,
	} {
		if got := readFile(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, want)
		}
	}
	if info, err := os.Stat(a); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a.pwr lost its permissions: %v %v", info.Mode(), err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.pwr is no longer a symbolic link: %v", err)
	}
	if info, err := os.Stat(b); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("b.pwr, already formatted, was rewritten")
	}
	if err := os.Remove(filepath.Join(dir, "c.pwr")); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := pwrc(t, "fmt", "-w", dir); code != 0 || out != "" || errOut != "" {
		t.Errorf("second -w: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if out, errOut, code := pwrc(t, "fmt", "--check", dir); code != 0 || out != "" || errOut != "" {
		t.Errorf("--check after -w: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestFmtPrint prints the files named, formatted, one after the other.
func TestFmtPrint(t *testing.T) {
	dir := fmtTree(t)
	out, errOut, code := pwrc(t, "fmt", filepath.Join(dir, "a.pwr"), filepath.Join(dir, "b.pwr"))
	if code != 0 || out != fmtTidy+fmtTidy || errOut != "" {
		t.Errorf("exit %d, stdout\n%s\nstderr\n%s", code, out, errOut)
	}
	if got := readFile(t, filepath.Join(dir, "a.pwr")); got != fmtMessy {
		t.Error("printing changed the file")
	}
}
