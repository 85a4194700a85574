package runtime_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pwrc/pwrc/runtime"
)

// Runs that differ only in a contract their policy's schedule ignores are
// twins: one simulation serves them all (twins.go). Every result — metrics,
// notes, job records, state series (kept or streamed to a sink), waits,
// inverse pairs, errors — must be what simulating each run alone gives,
// and the runs that share must be exactly the twins.

const twinContracts = `
contract flat_a { flat 0.10 EUR/kWh }
contract flat_b { flat 0.25 EUR/kWh }
contract day_a {
  peak 08:00..20:00 at 0.30 EUR/kWh
  otherwise 0.10 EUR/kWh
}
contract day_b from day_a { peak 08:00..20:00 at 0.50 EUR/kWh }
contract day_same {
  peak 08:00..20:00 at 0.10 EUR/kWh
  otherwise 0.10 EUR/kWh
}
contract evening {
  peak 17:00..23:00 at 0.40 EUR/kWh
  otherwise 0.10 EUR/kWh
}
contract billed from day_a {
  band 2 kW..6 kW {
    metered 15 min
    of      facility
    penalty 5 EUR per violation
    period  month
  }
  demand 10 EUR per kW per year { metered 15 min }
  energy budget 1 MWh { overrun at 0.5 EUR/kWh }
  carbon 300 g/kWh
}
contract hourly_a {
  hourly generate {
    hours 2000
    seed 3
    first 24 uniform 0.05..0.3
    ar 0.6 at 1 h
    noise normal sd 0.01
  }
}
contract hourly_b from hourly_a {
  hourly generate {
    hours 2000
    seed 4
    first 24 uniform 0.05..0.3
    ar 0.6 at 1 h
    noise normal sd 0.01
  }
}
`

const twinPolicies = `
import "std/policies"
policy budget_peak from easy {
  budget 60% of baseline during peak
}
policy budget_fixed from easy {
  budget 10 kW
}
policy budget_tight from easy {
  budget 3 kW # (below some jobs' power: the run fails)
}
policy by_hour from easy {
  priority now.hour * job.nodes
}
policy by_price from easy {
  priority job.nodes / (price.now + 1)
}
policy off from easy { shutdown idle after 10 min }
policy budget_knapsack from easy {
  budget 60% of baseline during peak
  window 8
  select knapsack {
    value  job.nodes
    weight job.power
  }
}
`

// twinScenario is an experiment on a small overloaded synthetic workload
// over the given contracts and policies, compared with easy.
func twinScenario(contracts, policies string) string {
	return twinPolicies + twinContracts + fmt.Sprintf(`
machine m {
  nodes 32
  cores 1
  power { off 5 W; idle 70 W; busy 260 W }
  infrastructure 1 kW
}
experiment e {
  workload synthetic {
    jobs 600
    load 110%%
    seed 2
    power uniform 150 W..300 W per node
  }
  machine  m
  contract [%s]
  policy   [%s] baseline easy
  report   cost, saving, energy, wait(mean), inverse_pairs, co2, band_violations, demand_charge, energy_overrun
}
`, contracts, policies)
}

func TestTwinsShareOneSimulation(t *testing.T) {
	cases := []struct {
		name, contracts, policies string
		// leads: per run (contract-major, as the plan orders them), the
		// run whose simulation serves it (-1: itself)
		leads []int
	}{
		{"flat prices", "flat_a, flat_b", "easy, off",
			[]int{-1, -1, 0, 1}},
		{"peak budget, same hours", "day_a, day_b, day_same", "easy, budget_peak",
			[]int{-1, -1, 0, 1, 0, 1}},
		{"baseline after its runs", "day_a, day_b", "budget_peak, easy",
			[]int{-1, -1, 0, 1}},
		{"peak budget, other hours", "day_a, evening, day_b", "easy, budget_peak",
			[]int{-1, -1, 0, -1, 0, 1}},
		{"knapsack under a peak budget", "day_a, day_b", "easy, budget_knapsack",
			[]int{-1, -1, 0, 1}},
		{"flat against base/peak", "flat_a, day_a", "easy, budget_peak",
			[]int{-1, -1, 0, -1}},
		{"the whole bill", "day_a, billed", "easy, budget_fixed, off",
			[]int{-1, -1, -1, 0, 1, 2}},
		{"rule on the clock", "day_a, day_b, evening", "easy, by_hour",
			[]int{-1, -1, 0, 1, 0, -1}},
		{"rule on the price", "day_a, day_b", "easy, by_price",
			[]int{-1, -1, 0, -1}},
		{"hourly prices", "hourly_a, hourly_b", "easy, budget_fixed, budget_peak",
			[]int{-1, -1, -1, 0, 1, -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := compileText(t, twinScenario(c.contracts, c.policies))
			for _, workers := range []int{1, 2} {
				opts := runtime.Options{Workers: workers, KeepJobs: true, KeepWaits: true}
				got := runTwinsBoth(t, p, opts)
				var leads []int
				for _, r := range got {
					leads = append(leads, runtime.TwinOf(r))
				}
				if !slices.Equal(leads, c.leads) {
					t.Errorf("-j %d: served by %v, want %v", workers, leads, c.leads)
				}
			}
			runTwinsBoth(t, p, runtime.Options{Workers: 2, KeepStates: true})
		})
	}
}

// A twin's state series streams to its own sink, as it would alone.
func TestTwinsStreamStates(t *testing.T) {
	p := compileText(t, twinScenario("day_a, day_b, billed", "easy, budget_peak"))
	sinks := func(into map[int]*collect, mu *sync.Mutex) func(r *runtime.Run) runtime.StateSink {
		return func(r *runtime.Run) runtime.StateSink {
			mu.Lock()
			defer mu.Unlock()
			into[r.Index] = &collect{}
			return into[r.Index]
		}
	}
	var mu sync.Mutex
	alone, shared := map[int]*collect{}, map[int]*collect{}
	want := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, NoTwins: true, States: sinks(alone, &mu)})
	got := runtime.Execute(context.Background(), p, runtime.Options{Workers: 2, States: sinks(shared, &mu)})
	twins := 0
	for i := range want {
		if runtime.TwinOf(got[i]) >= 0 {
			twins++
		}
		a, s := alone[i], shared[i]
		if a == nil || s == nil || len(a.Times) < 2 {
			t.Fatalf("%s: no series streamed", want[i].Run.Name)
		}
		if !reflect.DeepEqual(a, s) {
			t.Errorf("%s: the series streamed with twins (%d rows) differs from its own (%d rows)", want[i].Run.Name, len(s.Times), len(a.Times))
		}
	}
	if twins != 3 {
		t.Errorf("%d runs served as twins, want 3", twins)
	}
}

// A twin of a run that fails is simulated alone, and fails as it would.
func TestTwinsFailAlone(t *testing.T) {
	p := compileText(t, twinScenario("day_a, day_b", "easy, budget_tight"))
	got := runTwinsBoth(t, p, runtime.Options{Workers: 2})
	for i, r := range got {
		if lead, want := runtime.TwinOf(r), []int{-1, -1, 0, -1}[i]; lead != want {
			t.Errorf("%s: served by %d, want %d", r.Run.Name, lead, want)
		}
		if tight := r.Run.Policy.Name == "budget_tight"; tight != (r.Err != nil) {
			t.Errorf("%s: error %v", r.Run.Name, r.Err)
		}
	}
}

// runTwinsBoth runs a plan with twins sharing and each alone, checks the
// results are the same, and returns the first.
func runTwinsBoth(t *testing.T, p *runtime.Plan, opts runtime.Options) []*runtime.Result {
	t.Helper()
	alone := opts
	alone.NoTwins = true
	want := runtime.Execute(context.Background(), p, alone)
	got := runtime.Execute(context.Background(), p, opts)
	for i, w := range want {
		if runtime.TwinOf(w) >= 0 {
			t.Fatalf("run %d served as a twin with NoTwins", i)
		}
	}
	sameResults(t, got, want, "with twins")
	return got
}

// A contract sweep over an SWF trace has one reader, its lead, which
// streams the trace (feed.go); its twins get what reading it whole and
// simulating each alone gives.
func TestTwinsOfAStreamedRun(t *testing.T) {
	const header = "; MaxProcs: 64\n; UnixStartTime: 1483228800\n; TimeZoneString: Europe/Paris\n"
	path := writeTrace(t, "t.swf", header+strings.Join(swfTrace(3000, 40, 9), "\n")+"\n", true)
	p := compileText(t, twinPolicies+twinContracts+fmt.Sprintf(`
machine m {
  nodes auto
  cores 1
  power { off 5 W; idle 70 W; busy 260 W }
}
experiment e {
  workload swf %q
  machine  m
  contract [day_a, day_b, billed]
  policy   easy
}
`, path))
	for _, opts := range []runtime.Options{{Workers: 2}, {Workers: 1, KeepJobs: true, KeepStates: true, KeepWaits: true}} {
		alone := opts
		alone.NoTwins, alone.WholeTraces = true, true
		want := runtime.Execute(context.Background(), p, alone)
		got := runtime.Execute(context.Background(), p, opts)
		if !runtime.Streamed(got[0]) {
			t.Errorf("the lead did not stream its trace")
		}
		for i, g := range got {
			if lead := runtime.TwinOf(g); lead != []int{-1, 0, 0}[i] {
				t.Errorf("%s: served by %d", g.Run.Name, lead)
			}
			if g.Err != nil {
				t.Fatalf("%s: %v", g.Run.Name, g.Err)
			}
		}
		sameResults(t, got, want, "streamed with twins")
	}
}
