package runtime_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// Time is exact: what depends on the clock, the tariff or a deadline acts
// at that instant, not at the next job event. Each scenario here is quiet
// around the instant under test — nothing arrives or ends — so that an
// engine that acts only at job events gets it wrong.

// swfDay is the SWF header of a trace whose clock starts at local
// midnight, 2024-03-04 (a Monday), in UTC.
const swfDay = "; UnixStartTime: 1709510400\n; TimeZoneString: UTC\n"

// runScenario compiles src (beside the given files) and runs every run,
// keeping jobs and state series; it fails the test on any error.
func runScenario(t *testing.T, src string, files map[string]string) []*runtime.Result {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "main.pwr")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res := compiler.Compile(path, compiler.Options{})
	if res.Plan == nil || res.Diags.HasErrors() {
		var b strings.Builder
		_ = res.Diags.Write(&b, res.Sources)
		t.Fatalf("compile: %s", b.String())
	}
	out := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 1, KeepJobs: true, KeepStates: true})
	for _, r := range out {
		if r.Err != nil {
			t.Fatalf("run %s: %v", r.Run.Name, r.Err)
		}
	}
	return out
}

// byName is the result of the run named name.
func byName(t *testing.T, rs []*runtime.Result, name string) *runtime.Result {
	t.Helper()
	for _, r := range rs {
		if r.Run.Name == name || strings.HasSuffix(r.Run.Name, "/"+name) || strings.Contains(r.Run.Name, "policy="+name) {
			return r
		}
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Run.Name)
	}
	t.Fatalf("no run %q among %v", name, names)
	return nil
}

// A powercap window after the last job, inside the accounting window, is
// applied: its nodes are switched off.
func TestTailWindowApplied(t *testing.T) {
	src := `
import "std/policies"
machine m { nodes 16; power { off 10 W; idle 100 W; busy 200 W } }
contract flat { flat 0.10 EUR/kWh }
policy shut from easy { powercap 50% from 3 d for 1 d { mode shut } }
experiment e {
  workload synthetic { jobs 20; load 50%; seed 1 }
  machine m
  contract flat
  policy [easy, shut]
  account 0 d .. 10 d
}
`
	rs := runScenario(t, src, nil)
	easy, shut := byName(t, rs, "easy"), byName(t, rs, "shut")
	if last := shut.Metrics.AccountFrom + shut.Metrics.RunDays*86400; last > 3*86400 {
		t.Fatalf("the last job ends at %g s: the window is not in the tail", last)
	}
	// The window switches off what its plan says; off for a day each.
	offOf := func(r *runtime.Result) float64 {
		for i, c := range r.Metrics.Components {
			if c == "off" {
				return r.Metrics.EnergyBy[i]
			}
		}
		t.Fatalf("no off component in %v", r.Metrics.Components)
		return 0
	}
	if offOf(easy) != 0 {
		t.Fatalf("easy has off energy %g", offOf(easy))
	}
	if offOf(shut) <= 0 || shut.Metrics.NodesOffMean <= 0 {
		t.Errorf("the tail's window switched nothing off: off energy %g J, nodes off %g", offOf(shut), shut.Metrics.NodesOffMean)
	}
	// nodes off × 1 day of 10: the mean is a tenth of the nodes switched off.
	ss := shut.States
	var offSeconds float64
	for i := range ss.Times {
		if b := math.Min(ss.Until(i), 10*86400); b > ss.Times[i] {
			offSeconds += ss.Value(i, "off") * (b - ss.Times[i])
		}
	}
	if math.Abs(offSeconds/(10*86400)-shut.Metrics.NodesOffMean) > 1e-9 {
		t.Errorf("nodes off mean %g, from the state series %g", shut.Metrics.NodesOffMean, offSeconds/(10*86400))
	}
}
