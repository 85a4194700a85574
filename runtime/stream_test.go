package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// collect is a StateSink that keeps what it is sent.
type collect struct {
	runtime.StateSeries
	begun int
}

func (c *collect) Begin(cols []string) { c.begun++; c.Columns = cols }

func (c *collect) Record(t float64, row []float64) {
	if c.begun != 1 {
		panic("a row before the columns")
	}
	c.Times = append(c.Times, t)
	c.Values = append(c.Values, row...)
}

// windowed is a scenario accounted from before its first submission, with
// idle nodes switched off: its series starts at the window.
const windowed = `import "std/policies"
import "std/kunkel"
machine cluster {
  nodes 64
  power { off 5 W; idle 70 W; busy 260 W }
}
experiment acc {
  workload synthetic { jobs 400; load 80%; seed 3 }
  machine  cluster
  contract kunkel_basepeak
  policy   [easy, easy_shutdown] baseline easy
  account  -2 d .. 40 d
}
`

func compile(t *testing.T, file string) *runtime.Plan {
	t.Helper()
	res := compiler.Compile(file, compiler.Options{})
	if res.Plan == nil || res.Diags.HasErrors() {
		t.Fatalf("%s does not compile", file)
	}
	return res.Plan
}

// A run that streams its machine states sends its sink exactly the rows
// it would have kept, in order, the columns first; it then keeps none.
func TestStatesStreamAsKept(t *testing.T) {
	acc := filepath.Join(t.TempDir(), "acc.pwr")
	if err := os.WriteFile(acc, []byte(windowed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../examples/quickstart.pwr", "testdata/digest_levels.pwr", "testdata/digest_features.pwr", acc} {
		p := compile(t, file)
		kept := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, KeepStates: true})
		var mu sync.Mutex
		sinks := map[int]*collect{}
		streamed := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, States: func(r *runtime.Run) runtime.StateSink {
			mu.Lock()
			defer mu.Unlock()
			sinks[r.Index] = &collect{}
			return sinks[r.Index]
		}})
		for i, k := range kept {
			s := streamed[i]
			if k.Err != nil {
				t.Fatalf("%s: %s: %v", file, k.Run.Name, k.Err)
			}
			if s.States != nil {
				t.Errorf("%s: %s kept its states as well as streaming them", file, s.Run.Name)
			}
			got := sinks[i]
			if got == nil || len(got.Times) < 2 {
				t.Fatalf("%s: %s streamed no series", file, k.Run.Name)
			}
			if !slices.Equal(got.Columns, k.States.Columns) || !slices.Equal(got.Times, k.States.Times) || !slices.Equal(got.Values, k.States.Values) {
				t.Errorf("%s: %s: streamed series (%d rows) differs from the kept one (%d rows)", file, k.Run.Name, len(got.Times), len(k.States.Times))
			}
			if !reflect.DeepEqual(s.Metrics, k.Metrics) {
				t.Errorf("%s: %s: metrics differ when streaming", file, k.Run.Name)
			}
		}
	}
}

// KeepWaits keeps each job's start − submit, as the job records say.
func TestKeepWaits(t *testing.T) {
	p := compile(t, "../examples/quickstart.pwr")
	rs := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, KeepJobs: true, KeepWaits: true})
	for _, r := range rs {
		if len(r.Waits) != len(r.Jobs) || len(r.Jobs) == 0 {
			t.Fatalf("%s: %d waits for %d jobs", r.Run.Name, len(r.Waits), len(r.Jobs))
		}
		for i, j := range r.Jobs {
			if r.Waits[i] != j.Start-j.Submit {
				t.Fatalf("%s: job %d waits %g, its record says %g", r.Run.Name, j.ID, r.Waits[i], j.Start-j.Submit)
			}
		}
	}
}

// Options.Runs simulates the runs asked for and those they need (their
// baselines, and baselines their budgets are relative to); each gets the
// metrics a run of the whole plan gives it, savings and inverse pairs
// included, and the others no result.
func TestSelectedRuns(t *testing.T) {
	p := compile(t, "../examples/zhou_bgp.pwr")
	all := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2})
	withBaseline := -1
	for i, r := range p.Runs {
		if r.Baseline >= 0 && len(r.DependsOn) > 0 {
			withBaseline = i
		}
	}
	if withBaseline < 0 {
		t.Fatal("zhou_bgp has no run whose budget is relative to its baseline")
	}
	b := p.Runs[withBaseline].Baseline
	var done []int
	got := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, Runs: []int{withBaseline}, Progress: func(d, total int) {
		done = append(done, total)
	}})
	for i, r := range got {
		switch {
		case i == withBaseline || i == b:
			if r == nil {
				t.Fatalf("run %s not simulated", p.Runs[i].Name)
			}
		case r != nil:
			t.Errorf("run %s simulated, but neither asked for nor needed", p.Runs[i].Name)
		}
	}
	if len(done) != 2 || done[0] != 2 {
		t.Errorf("progress totals %v, want two runs of 2", done)
	}
	w := got[withBaseline].Metrics
	if !w.HasSaving || !w.HasInversePairs {
		t.Fatal("the run was not compared with its baseline")
	}
	if !reflect.DeepEqual(w, all[withBaseline].Metrics) {
		t.Errorf("run %s: metrics differ from the whole plan's", p.Runs[withBaseline].Name)
	}
	// A baseline alone has no inverse pairs until a run is compared with
	// it, but it saves nothing against itself either way.
	alone := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, Runs: []int{b}})
	if m := alone[b].Metrics; !m.HasSaving || m.HasInversePairs {
		t.Errorf("baseline alone: has saving %v, has inverse pairs %v; want true, false", m.HasSaving, m.HasInversePairs)
	}
}
