package compiler_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// fmtWorld is a scenario to compile: its root, the files it may import
// (nil: the real file system) and its options.
type fmtWorld struct {
	name  string
	root  string
	files map[string][]byte
	opts  compiler.Options
}

// TestFormatKeepsPlans: formatting never changes what a scenario compiles
// to. Each example and each scenario of testdata/check, as written and in
// variants with their blank space changed at random, is compiled as it is
// and with every file it reads formatted by lang.Format; the plans must be
// the same but for source positions and blank space in rule sources, and
// so must the diagnostics but for their positions.
func TestFormatKeepsPlans(t *testing.T) {
	worlds := fmtWorlds(t)
	rng := rand.New(rand.NewPCG(3, 4))
	variants := 6
	if !testenv.Long() {
		variants = 1
	}
	changed, compared := 0, 0
	for _, w := range worlds {
		for v := range variants + 1 {
			w := w
			if v > 0 {
				w = respace(rng, w)
			}
			orig := compileWorld(w, nil)
			formatted := 0
			fmtd := compileWorld(w, func(name string, src []byte) []byte {
				out, err := lang.Format(name, src)
				if err != nil {
					var diags lang.Diagnostics
					if !errors.As(err, &diags) {
						t.Errorf("%s: %s: %v", w.name, name, err)
					}
					return src // refused: compiled as it is
				}
				if !bytes.Equal(out, src) {
					formatted++
				}
				return out
			})
			compared++
			if formatted > 0 {
				changed++
			}
			if d := diffResults(orig, fmtd); d != "" {
				t.Errorf("%s (variant %d): formatting changes what it compiles to: %s", w.name, v, d)
			}
		}
	}
	if changed == 0 {
		t.Fatal("formatting changed no file: the test compares nothing")
	}
	t.Logf("%d compilations compared, %d of them with files that formatting changes", compared, changed)
}

// fmtWorlds returns the examples and the scenarios of testdata/check.
func fmtWorlds(t *testing.T) []fmtWorld {
	var worlds []fmtWorld
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.pwr"))
	if len(examples) == 0 {
		t.Fatal("no examples")
	}
	for _, p := range examples {
		files := map[string][]byte{}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Clean(p)] = src
		// Data files are stubs: what is compared is the compiler's output.
		opts := compiler.Options{OpenData: func(name string) (io.ReadCloser, error) {
			b := []byte("; MaxProcs: 64\n")
			if strings.HasSuffix(name, ".csv") {
				b = []byte("0.1\n")
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}}
		worlds = append(worlds, fmtWorld{name: p, root: p, files: files, opts: opts})
	}
	archives, _ := filepath.Glob(filepath.Join("testdata", "check", "*.txtar"))
	for _, p := range archives {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w := fmtWorld{name: p, files: map[string][]byte{}}
		for _, f := range ar.Files {
			if f.Name == "want" {
				continue
			}
			if w.root == "" {
				w.root = f.Name
			}
			w.files[filepath.Clean(f.Name)] = f.Data
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			key, val, _ := strings.Cut(strings.TrimSpace(line), " ")
			switch key {
			case "set":
				name, value, _ := strings.Cut(val, "=")
				w.opts.Sets = append(w.opts.Sets, compiler.Set{Name: name, Value: value})
			case "experiment":
				w.opts.Experiment = val
			}
		}
		worlds = append(worlds, w)
	}
	return worlds
}

// compileWorld compiles w, passing every .pwr file the compiler reads
// through edit (when not nil).
func compileWorld(w fmtWorld, edit func(string, []byte) []byte) *compiler.Result {
	opts := w.opts
	files := w.files
	opts.ReadFile = func(name string) ([]byte, error) {
		b, ok := files[filepath.Clean(name)]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		if edit != nil && strings.HasSuffix(name, ".pwr") {
			b = edit(name, b)
		}
		return b, nil
	}
	if opts.OpenData == nil {
		opts.OpenData = func(name string) (io.ReadCloser, error) {
			b, ok := files[filepath.Clean(name)]
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}
	}
	return compiler.Compile(w.root, opts)
}

// respace returns w with the blank space of its .pwr files changed at
// random outside quotes: runs of spaces and tabs, indentation, blank lines
// and trailing blanks.
func respace(rng *rand.Rand, w fmtWorld) fmtWorld {
	out := w
	out.files = map[string][]byte{}
	for name, src := range w.files {
		if !strings.HasSuffix(name, ".pwr") {
			out.files[name] = src
			continue
		}
		var b bytes.Buffer
		for _, line := range strings.Split(string(src), "\n") {
			b.WriteString(strings.Repeat(" ", rng.IntN(7)))
			line = strings.TrimLeft(line, " \t")
			var quote rune
			blank := false
			for _, r := range line {
				switch {
				case quote != 0:
					if r == quote {
						quote = 0
					}
				case r == '"' || r == '\'' || r == '`':
					quote = r
				case r == '#':
					quote = '\n' // the rest is a comment: keep it
				case r == ' ' || r == '\t':
					blank = true
					continue
				}
				if blank {
					b.WriteString(strings.Repeat(" ", 1+rng.IntN(3)))
					blank = false
				}
				b.WriteRune(r)
			}
			if blank || rng.IntN(4) == 0 {
				b.WriteString("  ")
			}
			b.WriteString("\n")
			if rng.IntN(8) == 0 {
				b.WriteString("\n\n")
			}
		}
		out.files[name] = b.Bytes()
	}
	return out
}

// diffResults describes how two compilations differ, or returns "".
func diffResults(a, b *compiler.Result) string {
	if d := diffDiags(a.Diags, b.Diags); d != "" {
		return d
	}
	if (a.Plan == nil) != (b.Plan == nil) {
		return fmt.Sprintf("plan %v vs %v", a.Plan != nil, b.Plan != nil)
	}
	if a.Plan == nil {
		return ""
	}
	return deepDiff("plan", reflect.ValueOf(a.Plan), reflect.ValueOf(b.Plan), map[[2]uintptr]bool{})
}

// diffDiags compares diagnostics without their positions; messages may
// quote the source, whose blank space formatting changes.
func diffDiags(a, b lang.Diagnostics) string {
	key := func(ds lang.Diagnostics) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Severity.String()+": "+noBlanks(d.Summary))
		}
		sort.Strings(out)
		return out
	}
	ka, kb := key(a), key(b)
	if !reflect.DeepEqual(ka, kb) {
		return fmt.Sprintf("diagnostics differ:\n  %s\nvs\n  %s", strings.Join(ka, "\n  "), strings.Join(kb, "\n  "))
	}
	return ""
}

func noBlanks(s string) string { return strings.Join(strings.Fields(s), "") }

// deepDiff compares two values of a plan field by field: functions by
// whether they are set, `Where` (a source position) not at all, rule
// `Source` without its blank space.
func deepDiff(path string, a, b reflect.Value, seen map[[2]uintptr]bool) string {
	if a.Kind() != b.Kind() {
		return path + ": different kinds"
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil vs not nil"
			}
			return ""
		}
		k := [2]uintptr{a.Pointer(), b.Pointer()}
		if seen[k] {
			return ""
		}
		seen[k] = true
		return deepDiff(path, a.Elem(), b.Elem(), seen)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil vs not nil"
			}
			return ""
		}
		if a.Elem().Type() != b.Elem().Type() {
			return path + ": different types"
		}
		return deepDiff(path, a.Elem(), b.Elem(), seen)
	case reflect.Func:
		if a.IsNil() != b.IsNil() {
			return path + ": func set vs not set"
		}
		return ""
	case reflect.Struct:
		t := a.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			p := path + "." + f.Name
			switch {
			case f.Name == "Where" && f.Type.Kind() == reflect.String:
				continue
			case f.Name == "Source" && f.Type.Kind() == reflect.String && t == reflect.TypeOf(runtime.Expr{}):
				if noBlanks(a.Field(i).String()) != noBlanks(b.Field(i).String()) {
					return fmt.Sprintf("%s: %q vs %q", p, a.Field(i).String(), b.Field(i).String())
				}
				continue
			}
			if d := deepDiff(p, a.Field(i), b.Field(i), seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() && (a.Len() > 0 || b.Len() > 0) {
			return path + ": nil vs not nil"
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d vs %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := deepDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d vs %d entries", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s: key %v missing", path, k)
			}
			if d := deepDiff(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), bv, seen); d != "" {
				return d
			}
		}
		return ""
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return fmt.Sprintf("%s: %v vs %v", path, x, y)
		}
		return ""
	case reflect.String:
		if a.String() != b.String() {
			return fmt.Sprintf("%s: %q vs %q", path, a.String(), b.String())
		}
		return ""
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Bool(), b.Bool())
		}
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Int(), b.Int())
		}
		return ""
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Uint(), b.Uint())
		}
		return ""
	case reflect.Complex64, reflect.Complex128:
		if a.Complex() != b.Complex() {
			return path + ": differs"
		}
		return ""
	case reflect.Chan, reflect.UnsafePointer:
		return ""
	}
	return path + ": cannot compare " + a.Kind().String()
}
