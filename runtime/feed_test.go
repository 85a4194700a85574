package runtime_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime"
)

// swfTrace writes n jobs as SWF lines: submissions every few seconds,
// several at once now and then (ties across the reader's chunks), sizes up
// to wide nodes, run times shorter than requested times mostly.
func swfTrace(n, wide int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var lines []string
	t := 0
	for i := 1; i <= n; i++ {
		if rng.IntN(4) > 0 {
			t += rng.IntN(40)
		}
		req := 60 + rng.IntN(7200)
		run := 1 + rng.IntN(req)
		if rng.IntN(10) == 0 {
			run = req + 100 // killed at its limit
		}
		procs := 1 + rng.IntN(wide)
		lines = append(lines, fmt.Sprintf("%6d %9d %5d %6d %4d -1 -1 %4d %6d -1 1 %3d %2d -1 %d 1 -1 -1",
			i, t, 0, run, procs, procs, req, rng.IntN(50), rng.IntN(5), rng.IntN(3)))
	}
	return lines
}

// runBoth runs a scenario with its trace streamed and read whole, and
// checks they give the same results; it returns whether the first run
// streamed.
func runBoth(t *testing.T, scen string, opts runtime.Options) bool {
	t.Helper()
	p := compileText(t, scen)
	whole := opts
	whole.WholeTraces = true
	want := runtime.Execute(context.Background(), p, whole)
	got := runtime.Execute(context.Background(), p, opts)
	for i, w := range want {
		if runtime.Streamed(w) {
			t.Fatalf("run %d streamed with WholeTraces", i)
		}
	}
	sameResults(t, got, want, "streamed")
	return runtime.Streamed(got[0])
}

// sameResults checks that two executions of a plan gave each run the same
// result, errors included; how says how the first ran.
func sameResults(t *testing.T, got, want []*runtime.Result, how string) {
	t.Helper()
	for i := range want {
		w, g := want[i], got[i]
		if fmt.Sprint(w.Err) != fmt.Sprint(g.Err) {
			t.Fatalf("run %s: error %v %s, %v otherwise", w.Run.Name, g.Err, how, w.Err)
		}
		for _, c := range []struct {
			what string
			a, b any
		}{
			{"metrics", g.Metrics, w.Metrics}, {"workload", g.Workload, w.Workload}, {"notes", g.Notes, w.Notes},
			{"jobs", g.Jobs, w.Jobs}, {"states", g.States, w.States}, {"waits", g.Waits, w.Waits},
		} {
			if !reflect.DeepEqual(c.a, c.b) {
				t.Errorf("run %s: %s differ %s:\n%s\notherwise:\n%s", w.Run.Name, c.what, how, trim(c.a), trim(c.b))
			}
		}
	}
}

// trim is x printed, cut short.
func trim(x any) string {
	s := fmt.Sprintf("%+v", x)
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return strings.TrimSpace(s)
}

// compileText compiles a scenario given as text.
func compileText(t *testing.T, scen string) *runtime.Plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.pwr")
	if err := os.WriteFile(file, []byte(scen), 0o644); err != nil {
		t.Fatal(err)
	}
	return compile(t, file)
}

func writeTrace(t *testing.T, name string, text string, zip bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	b := []byte(text)
	if zip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b = z.Bytes()
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A run that simulates while its trace is read gives what it gives on the
// whole trace, and where it cannot (an unsorted trace, a header after the
// jobs, a wide job, keys out of trace order, a failing line) it runs
// again on the whole trace, with the same results and errors.
func TestStreamedRunsAsWhole(t *testing.T) {
	const header = "; MaxProcs: 64\n; UnixStartTime: 1483228800\n; TimeZoneString: Europe/Paris\n"
	lines := swfTrace(12000, 64, 1) // ~800 kB: several of the reader's chunks
	sorted := header + strings.Join(lines, "\n") + "\n"
	swapped := append([]string(nil), lines...)
	swapped[9000], swapped[9100] = swapped[9100], swapped[9000]
	late := append(append(append([]string(nil), lines[:8000]...), "; MaxProcs: 128"), lines[8000:]...)
	bad := append(append(append([]string(nil), lines[:11000]...), "1 2 3"), lines[11000:]...)
	overload := swfTrace(12000, 64, 2)
	for i := range overload { // everyone at once: a queue of thousands
		f := strings.Fields(overload[i])
		f[1] = fmt.Sprint(i / 8)
		overload[i] = strings.Join(f, " ")
	}
	cases := []struct {
		name, trace, policy, workload, machine, extra string
		zip, streams                                  bool
		opts                                          runtime.Options
	}{
		{name: "easy", trace: sorted, policy: "easy", streams: true},
		{name: "fcfs gzipped", trace: sorted, policy: "fcfs", zip: true, streams: true},
		{name: "greedy", trace: sorted, policy: "backfill_delay", streams: true},
		{name: "exact, jobs and series", trace: sorted, policy: "easy_exact", streams: true,
			opts: runtime.Options{KeepJobs: true, KeepStates: true, KeepWaits: true}},
		{name: "fixed nodes, power drawn", trace: sorted, policy: "easy", machine: "nodes 64", streams: true,
			workload: "power normal 200 W sd 40 W in 100 W..300 W per node"},
		{name: "accounted", trace: sorted, policy: "easy", extra: "account -1 d .. 30 d", streams: true},
		{name: "shutdown", trace: sorted, policy: "easy_off", streams: true},
		{name: "keys in trace order", trace: sorted, policy: "by_submit", streams: true},
		{name: "dynamic priority", trace: sorted, policy: "by_wait", streams: true},
		{name: "price-aware start", trace: sorted, policy: "price_aware_deadline_12", streams: true},
		{name: "price.mean", trace: sorted, policy: "below_mean", streams: false},
		{name: "keys out of trace order", trace: sorted, policy: "by_size", streams: false},
		{name: "overloaded", trace: header + strings.Join(overload, "\n") + "\n", policy: "easy", streams: true},
		{name: "unsorted", trace: header + strings.Join(swapped, "\n") + "\n", policy: "easy", streams: false},
		{name: "header after jobs", trace: header + strings.Join(late, "\n") + "\n", policy: "easy", streams: false},
		{name: "header at the end", trace: sorted + "; MaxProcs: 128\n", policy: "easy", streams: false},
		{name: "wide job", trace: sorted, policy: "in_blocks", streams: false},
		{name: "bad line", trace: header + strings.Join(bad, "\n") + "\n", policy: "easy", streams: false},
		{name: "bad line skipped", trace: header + strings.Join(bad, "\n") + "\n", policy: "easy", workload: "bad_lines skip", streams: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTrace(t, "t.swf", c.trace, c.zip)
			machine := c.machine
			if machine == "" {
				machine = "nodes auto"
			}
			scen := fmt.Sprintf(`import "std/policies"
import "std/kunkel"
policy easy_off from easy {
  shutdown idle after 10 min
}
policy by_submit from easy {
  priority 0 - job.submit
}
policy by_size from easy {
  priority job.nodes
}
policy by_wait from easy {
  priority job.wait / job.walltime
}
policy below_mean from easy {
  priority price.mean - price.now
}
policy in_blocks from easy {
  allocate contiguous 48
}
machine m {
  %s
  power { off 5 W; idle 70 W; busy 260 W }
}
experiment e {
  workload swf %q {
    %s
  }
  machine  m
  contract kunkel_basepeak
  policy   %s
  %s
}
`, machine, path, c.workload, c.policy, c.extra)
			if got := runBoth(t, scen, c.opts); got != c.streams {
				t.Errorf("streamed %v, want %v", got, c.streams)
			}
		})
	}
}

// The shared data set's traces give the same results streamed and whole
// (LLNL-Thunder, unsorted, is run whole).
func TestStreamedRealTraces(t *testing.T) {
	for _, name := range []string{"KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-first5K.swf.gz", "LLNL-Thunder-2007-1.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"} {
		t.Run(name, func(t *testing.T) {
			path := testenv.Data(t, filepath.Join("traces", name))
			scen := fmt.Sprintf(`import "std/policies"
import "std/kunkel"
machine m {
  nodes auto
  cores 1
  power { idle 70 W; busy 260 W }
}
experiment e {
  workload swf %q
  machine  m
  contract kunkel_fixed
  policy   easy
}
`, path)
			streamed := runBoth(t, scen, runtime.Options{})
			if want := true; streamed != want {
				t.Errorf("streamed %v, want %v", streamed, want)
			}
		})
	}
}
