package runtime_test

import (
	"context"
	"fmt"
	"github.com/pwrc/pwrc/internal/testenv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// A cap set for now comes into force and ends at the instant its
// condition changes, on a machine where nothing happens then: one job
// keeps all four nodes busy (1 kW) all day.
func TestCapForNowOnQuietMachine(t *testing.T) {
	trace := swfDay + "1 0 0 86400 4 -1 -1 4 86400 -1 1 1 1 -1 -1 -1 -1 -1\n" +
		"2 86400 0 600 1 -1 -1 1 600 -1 1 1 1 -1 -1 -1 -1 -1\n"
	machine := `
machine m { nodes 4; power { off 10 W; idle 100 W; busy 250 W } }
contract bp { peak 17:00..19:00 at 0.20 EUR/kWh; otherwise 0.10 EUR/kWh }
contract flat { flat 0.10 EUR/kWh }
`
	for _, c := range []struct {
		name, cap string
		contract  string
		from, to  float64 // when the cap is in force, s after midnight
	}{
		{"during peak", "powercap 500 W during peak { mode idle }", "bp", 17 * 3600, 19 * 3600},
		{"while whole hours", "powercap 500 W while now.hour >= 17 && now.hour < 19 { mode idle }", "flat", 17 * 3600, 19 * 3600},
		{"while fractional hours", "powercap 500 W while now.hour >= 17.5 && now.hour < 19.25 { mode idle }", "flat", 17.5 * 3600, 19.25 * 3600},
		{"while seconds", "powercap 500 W while now.seconds >= 50000 && now.seconds < 60000 { mode idle }", "flat", 50000, 60000},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := machine + fmt.Sprintf(`
policy capped from easy { %s }
policy killer from easy { %s }
experiment e {
  workload swf "t.swf" { power 250 W per node }
  machine m
  contract %s
  policy [capped, killer]
}
import "std/policies"
`, c.cap, strings.Replace(c.cap, "{ mode idle }", "{ mode idle; running kill }", 1), c.contract)
			rs := runScenario(t, src, map[string]string{"t.swf": trace})
			capped := byName(t, rs, "capped")
			on, over := capIntervals(t, capped)
			if len(on) != 1 || on[0] != [2]float64{c.from, c.to} {
				t.Errorf("cap in force over %v, want [[%g %g]]", on, c.from, c.to)
			}
			if want := c.to - c.from; capped.Metrics.CapExcessSeconds != want || over != want {
				t.Errorf("cap_excess %g s, over the cap in the state series %g s, want %g s", capped.Metrics.CapExcessSeconds, over, want)
			}
			killer := byName(t, rs, "killer")
			if killer.Metrics.Killed != 1 {
				t.Fatalf("killed %d jobs, want 1", killer.Metrics.Killed)
			}
			for _, j := range killer.Jobs {
				if j.ID == 1 && j.End != c.from {
					t.Errorf("job 1 killed at %g, want %g (when the cap came into force)", j.End, c.from)
				}
			}
		})
	}
}

// capIntervals are the intervals of a run's state series during which a
// cap is in force, and the time over it.
func capIntervals(t *testing.T, r *runtime.Result) (on [][2]float64, over float64) {
	t.Helper()
	ss := r.States
	if ss == nil {
		t.Fatalf("%s: no state series", r.Run.Name)
	}
	for i := range ss.Times {
		c := ss.Value(i, "cap_w")
		a, b := ss.Times[i], ss.Until(i)
		if math.IsInf(b, 1) || math.IsNaN(c) {
			continue
		}
		if n := len(on); n > 0 && on[n-1][1] == a {
			on[n-1][1] = b
		} else {
			on = append(on, [2]float64{a, b})
		}
		if ss.Value(i, "power_w") > c*(1+1e-9) {
			over += b - a
		}
	}
	return on, over
}

// On 30 days of HPC2N, a two-hour `while` cap is in force exactly from
// 17:00 to 19:00 local time every day, and its cap_excess is the time
// over the cap recomputed from the state series.
func TestWhileCapOnHPC2N(t *testing.T) {
	trace := testenv.Data(t, "traces/HPC2N-2002-2.1-cln.swf.gz")
	src := fmt.Sprintf(`
import "std/policies"
machine hpc2n { nodes 120; cores 2; power { off 10 W; idle 90 W; busy 260 W } }
contract flat { flat 0.10 EUR/kWh }
policy evening from easy { powercap 60%% while now.hour >= 17 && now.hour < 19 { mode idle } }
experiment e {
  workload swf %q { submitted 0 d .. 30 d }
  machine hpc2n
  contract flat
  policy evening
}
`, trace)
	r := runScenario(t, src, nil)[0]
	on, over := capIntervals(t, r)
	if len(on) < 29 {
		t.Fatalf("the cap was in force %d times in 30 days", len(on))
	}
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	epoch := r.Workload.Epoch
	local := func(x float64) time.Time { return time.Unix(epoch+int64(x), 0).In(loc) }
	for _, iv := range on {
		a, b := local(iv[0]), local(iv[1])
		if a.Hour() != 17 || a.Minute() != 0 || a.Second() != 0 || b.Sub(a) != 2*time.Hour {
			t.Errorf("cap in force from %v to %v, want 17:00 to 19:00", a, b)
		}
	}
	if r.Metrics.CapExcessSeconds != over {
		t.Errorf("cap_excess %g s, over the cap in the state series %g s", r.Metrics.CapExcessSeconds, over)
	}
	if over == 0 {
		t.Error("never over the cap: the test does not test cap_excess")
	}
}

// Rules of the scheduler that compare the clock with a number wake it at
// that instant while jobs wait: jobs an admit rule or a budget holds back
// start when the rule lets them, on a machine where nothing else happens.
func TestRuleClockEdges(t *testing.T) {
	// Four one-node jobs at 10:00 on an empty machine.
	var trace strings.Builder
	trace.WriteString(swfDay)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&trace, "%d 36000 0 600 1 -1 -1 1 600 -1 1 1 1 -1 -1 -1 -1 -1\n", i)
	}
	src := `
import "std/policies"
machine m { nodes 4; power { off 10 W; idle 100 W; busy 250 W } }
contract flat { flat 0.10 EUR/kWh }
policy half_past from easy { admit now.hour >= 17.5 }
policy after_secs from easy { admit now.seconds > 50000 }
policy third_day from easy { admit now.day >= 0.75 }
policy held from easy { budget 100 W while now.hour < 16.25 }
experiment e {
  workload swf "t.swf" { power 250 W per node }
  machine m
  contract flat
  policy [half_past, after_secs, third_day, held]
}
`
	rs := runScenario(t, src, map[string]string{"t.swf": trace.String()})
	for _, c := range []struct {
		policy string
		start  float64
	}{
		{"half_past", 17.5 * 3600},
		{"after_secs", math.Nextafter(50000, math.Inf(1))},
		{"third_day", 36000 + 0.75*86400},
		{"held", 16.25 * 3600},
	} {
		r := byName(t, rs, c.policy)
		for _, j := range r.Jobs {
			if j.Start != c.start {
				t.Errorf("%s: job %d started at %v, want %v", c.policy, j.ID, j.Start, c.start)
			}
		}
	}
}

// Rules read job.partition wherever they read job fields: a priority on
// it orders the queue, an admit rule on it admits as written.
func TestPartitionInRules(t *testing.T) {
	var trace strings.Builder
	trace.WriteString(swfDay)
	// Eight jobs on 4 nodes, partitions 1 (odd) and 2 (even) alternating
	// but for job 1, of partition 2, which holds the machine until 101:
	// the others queue behind it.
	for i := 1; i <= 8; i++ {
		run, nodes, part := 10, 1, 2-i%2
		if i == 1 {
			run, nodes, part = 100, 4, 2
		}
		fmt.Fprintf(&trace, "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 -1 1 %d -1 -1\n", i, i, run, nodes, nodes, run, part)
	}
	src := `
import "std/policies"
machine m { nodes 4; power { off 10 W; idle 100 W; busy 250 W } }
contract flat { flat 0.10 EUR/kWh }
policy p2_first from fcfs { priority job.partition }
policy only2 from fcfs { admit job.partition == 2 || now.seconds >= 1000 }
experiment e {
  workload swf "t.swf"
  machine m
  contract flat
  policy [p2_first, only2]
}
`
	rs := runScenario(t, src, map[string]string{"t.swf": trace.String()})
	for _, name := range []string{"p2_first", "only2"} {
		r := byName(t, rs, name)
		latest2 := 0.0
		for _, j := range r.Jobs {
			if j.Partition == 2 {
				latest2 = max(latest2, j.Start)
			}
		}
		for _, j := range r.Jobs {
			if j.Partition == 1 && j.Start < latest2 {
				t.Errorf("%s: job %d of partition 1 starts at %g, before a job of partition 2 (%g)", name, j.ID, j.Start, latest2)
			}
		}
		if name == "only2" {
			for _, j := range r.Jobs {
				if j.Partition == 1 && j.Start != 1000 {
					t.Errorf("only2: job %d of partition 1 starts at %g, want 1000 (when the rule admits it)", j.ID, j.Start)
				}
			}
		}
	}
}

// runtimes_capped counts the jobs simulated whose run times were capped,
// not the whole cleaned trace's when a cut keeps some.
func TestCappedCountsJobsKept(t *testing.T) {
	// Jobs 1 and 2 ran past their requested time (capped); keep drops 2.
	trace := swfDay +
		"1 0 0 200 1 -1 -1 1 100 -1 1 1 1 -1 1 1 -1 -1\n" +
		"2 10 0 200 1 -1 -1 1 100 -1 1 2 1 -1 1 1 -1 -1\n" +
		"3 20 0 50 1 -1 -1 1 100 -1 1 1 1 -1 1 1 -1 -1\n"
	src := `
import "std/policies"
machine m { nodes 4; power { off 10 W; idle 100 W; busy 250 W } }
contract flat { flat 0.10 EUR/kWh }
experiment all { workload swf "t.swf"; machine m; contract flat; policy easy }
experiment cut { workload swf "t.swf" { keep job.user == 1 }; machine m; contract flat; policy easy }
`
	rs := runScenario(t, src, map[string]string{"t.swf": trace})
	for _, r := range rs {
		want := map[string]int{"all": 2, "cut": 1}[r.Run.Experiment]
		if r.Metrics.Capped != want {
			t.Errorf("%s: runtimes_capped %d, want %d", r.Run.Experiment, r.Metrics.Capped, want)
		}
	}
}
