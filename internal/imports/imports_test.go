// Package imports holds the test that states which of the module's
// packages may import which: the pipeline runs one way (lang → compiler →
// plan → runtime → result → cmd), the kernels import nothing of the
// module, and the independent references import nothing at all of it, so
// that they cannot share a bug with what they check.
package imports

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pwrc/pwrc"

// allowed lists, for every package of the module (its directory), the
// module packages its non-test files may import directly. A package
// missing from the table fails the test: a new package states its place.
var allowed = map[string][]string{
	"lang":     nil,
	"stdlib":   nil,
	"compiler": {"lang", "stdlib", "runtime", "runtime/ledger", "runtime/tariff", "runtime/workload"},

	"runtime": {"runtime/alloc", "runtime/deferral", "runtime/knapsack", "runtime/ledger", "runtime/machine",
		"runtime/oracle", "runtime/powercap", "runtime/tariff", "runtime/workload"},
	// The kernels and readers: leaves.
	"runtime/alloc":    nil,
	"runtime/deferral": nil,
	"runtime/knapsack": nil,
	"runtime/oracle":   nil,
	"runtime/powercap": nil,
	"runtime/tariff":   nil,
	"runtime/workload": nil,
	"runtime/machine":  {"runtime/alloc"},
	"runtime/ledger":   {"runtime/tariff"},

	"cmd/pwrc":        {"cmd/pwrc/report", "compiler", "lang", "runtime", "runtime/tariff", "runtime/workload", "internal/numfmt"},
	"cmd/pwrc/report": {"runtime", "runtime/tariff", "internal/numfmt"},

	// Independent references and test helpers: nothing of the module.
	"internal/refsim":    nil,
	"internal/refplace":  nil,
	"internal/reflawson": nil,
	"internal/testenv":   nil,
	"internal/numfmt":    nil,
}

// never lists what a package may not reach even indirectly.
var never = map[string][]string{
	"runtime":  {"lang", "compiler", "cmd/pwrc", "cmd/pwrc/report"},
	"compiler": {"cmd/pwrc", "cmd/pwrc/report"},
	"lang":     {"compiler", "runtime"},
}

// moduleImports reads the module imports of every package directory's
// non-test Go files.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if _, ok := out[dir]; !ok {
			out[dir] = []string{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(out[dir], rest) {
				out[dir] = append(out[dir], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportGraph(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	got := moduleImports(t, root)
	if len(got) < len(allowed)/2 {
		t.Fatalf("read %d packages under %s: not the module's root", len(got), root)
	}
	for pkg, imps := range got {
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s is not in the import table: add it with the packages it may import", pkg)
			continue
		}
		for _, im := range imps {
			if !slices.Contains(ok, im) {
				t.Errorf("%s imports %s, which the table does not allow", pkg, im)
			}
		}
	}
	for pkg := range allowed {
		if _, ok := got[pkg]; !ok {
			t.Errorf("the table lists %s, which has no Go files", pkg)
		}
	}
	// What each package reaches, transitively.
	var reach func(p string, seen map[string]bool)
	reach = func(p string, seen map[string]bool) {
		for _, im := range got[p] {
			if !seen[im] {
				seen[im] = true
				reach(im, seen)
			}
		}
	}
	for pkg, bad := range never {
		seen := map[string]bool{}
		reach(pkg, seen)
		for _, b := range bad {
			if seen[b] {
				t.Errorf("%s depends on %s, which it must never reach", pkg, b)
			}
		}
	}
}
