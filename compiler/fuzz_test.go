package compiler_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// FuzzCompile compiles an arbitrary root file, which may import lib.pwr
// (the second input) and std modules, with one --set NAME=VALUE. It must
// never panic; diagnostics must point into their files and render; the
// outcome must not depend on map iteration order; and every compiled rule
// must evaluate without crashing.
func FuzzCompile(f *testing.F) {
	var seeds [][]byte
	for _, pat := range []string{"../examples/*.pwr", "../stdlib/*.pwr"} {
		paths, _ := filepath.Glob(pat)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, b)
		}
	}
	archives, _ := filepath.Glob("testdata/check/*.txtar")
	for _, p := range archives {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var files [][]byte
		for _, file := range ar.Files {
			if file.Name != "want" {
				files = append(files, file.Data)
			}
		}
		if len(files) == 1 {
			seeds = append(seeds, files[0])
		} else if len(files) > 1 {
			f.Add(files[0], files[1], "")
		}
	}
	// Inputs that once crashed or hung the compiler.
	f.Add([]byte("param a = b\nparam b = a\nmachine m { nodes a }\nexperiment e { machine m }"), []byte{}, "")
	f.Add([]byte("param n = []\nmachine m { nodes n }\nexperiment e { workload synthetic {}; machine m; contract c; policy p }"), []byte{}, "")
	f.Add([]byte("import \"lib.pwr\"\nparam x = 1"), []byte("import \"main.pwr\"\nparam x = 2"), "x=[3,4]")
	for _, s := range seeds {
		f.Add(s, []byte("param nodes = [4, 8]\nmachine libm { nodes nodes; power { idle 1 W; busy 2 W } }\n"), "nodes=[16,32]")
	}
	f.Fuzz(func(t *testing.T, root, lib []byte, set string) {
		timer := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("HANG root=%q lib=%q set=%q", root, lib, set)) })
		defer timer.Stop()
		files := map[string][]byte{"main.pwr": root, "lib.pwr": lib}
		opts := compiler.Options{ReadFile: memFS(files)}
		if name, value, ok := strings.Cut(set, "="); ok && name != "" {
			opts.Sets = []compiler.Set{{Name: name, Value: value}}
		}
		res := compiler.Compile("main.pwr", opts)
		checkRanges(t, res.Diags, res.Sources)
		var out bytes.Buffer
		if err := res.Diags.Write(&out, res.Sources); err != nil {
			t.Fatal(err)
		}
		_ = res.Diags.JSON(res.Sources)
		if res.Diags.HasErrors() != (res.Plan == nil) {
			t.Fatalf("plan nil: %v, errors: %v", res.Plan == nil, res.Diags.HasErrors())
		}
		// Compile again: diagnostics and plan must come out the same.
		again := compiler.Compile("main.pwr", opts)
		var out2 bytes.Buffer
		_ = again.Diags.Write(&out2, again.Sources)
		if out.String() != out2.String() {
			t.Fatalf("diagnostics differ between two compilations:\n%s\n---\n%s", out.String(), out2.String())
		}
		if res.Plan == nil {
			return
		}
		if layout(res.Plan) != layout(again.Plan) {
			t.Fatalf("plans differ between two compilations:\n%s\n---\n%s", layout(res.Plan), layout(again.Plan))
		}
		names := map[string]bool{}
		for _, r := range res.Plan.Runs {
			if names[r.Name] {
				t.Fatalf("two runs named %q", r.Name)
			}
			names[r.Name] = true
			if r.Baseline >= len(res.Plan.Runs) {
				t.Fatalf("run %s: baseline %d out of range", r.Name, r.Baseline)
			}
			for _, e := range []*runtime.Expr{r.Policy.Order, r.Policy.Priority, r.Policy.Admit, r.Policy.Frequency.Rule, r.Workload.Keep} {
				evalRule(t, e)
			}
			checkMachine(t, r)
		}
	})
}

// evalRule evaluates a compiled rule on an empty environment; the only
// panic allowed is the runtime's *EvalError (e.g. `% 0`).
func evalRule(t *testing.T, e *runtime.Expr) {
	if e == nil {
		return
	}
	if (e.Num == nil) == (e.Bool == nil) {
		t.Fatalf("rule %q: exactly one of Num and Bool must be set", e.Source)
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*runtime.EvalError); !ok {
				t.Fatalf("rule %q panicked: %v", e.Source, r)
			}
		}
	}()
	env := &runtime.Env{}
	if e.Num != nil {
		e.Num(env)
	} else {
		e.Bool(env)
	}
}

// checkMachine checks what a run's plan promises the runtime about its
// machine's levels and pstates and the policy stages that refer to them.
func checkMachine(t *testing.T, r *runtime.Run) {
	m, p := &r.Machine, &r.Policy
	for i, l := range m.Levels {
		switch {
		case l.Size < 1:
			t.Fatalf("run %s: level %s of %d nodes", r.Name, l.Name, l.Size)
		case i > 0 && l.Size%m.Levels[i-1].Size != 0:
			t.Fatalf("run %s: level %s (%d) is not a multiple of %s (%d)", r.Name, l.Name, l.Size, m.Levels[i-1].Name, m.Levels[i-1].Size)
		case m.Nodes > 0 && m.Nodes%l.Size != 0:
			t.Fatalf("run %s: level %s (%d) does not divide %d nodes", r.Name, l.Name, l.Size, m.Nodes)
		}
	}
	for i, ps := range m.PStates {
		if !(ps.Freq > 0) || i > 0 && !(ps.Freq < m.PStates[i-1].Freq) {
			t.Fatalf("run %s: pstates %+v", r.Name, m.PStates)
		}
	}
	if len(m.PStates) > 0 && (m.Power.Busy != m.PStates[0].Power || !(m.Slowdown >= 1)) {
		t.Fatalf("run %s: busy %v, slowdown %v with pstates %+v", r.Name, m.Power.Busy, m.Slowdown, m.PStates)
	}
	if a := p.Allocate; a.Name == "rack_aware" && (len(m.Levels) == 0 || a.Level < -1 || a.Level >= len(m.Levels)) {
		t.Fatalf("run %s: rack_aware by level %d of %d", r.Name, a.Level, len(m.Levels))
	}
	switch f := p.Frequency; f.Kind {
	case runtime.FreqPState:
		if f.PState < 0 || f.PState >= len(m.PStates) {
			t.Fatalf("run %s: pstate %d of %d", r.Name, f.PState, len(m.PStates))
		}
	case runtime.FreqRule:
		if f.Rule == nil || len(m.PStates) == 0 {
			t.Fatalf("run %s: frequency rule %v on %d pstates", r.Name, f.Rule, len(m.PStates))
		}
	}
	s := compiler.Summarize(m)
	if math.IsNaN(s.Full) || s.Full < 0 {
		t.Fatalf("run %s: P_full %v", r.Name, s.Full)
	}
}
