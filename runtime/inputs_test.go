package runtime

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// TestInputCheckAgreesWithExecute checks InputCheck against Execute, run
// by run: what the check says a run fails with before simulating, the run
// fails with, word for word; a series the check finds too short for the
// run's jobs, or jobs it finds over the budget, fail the run; and a run
// the check passes runs.
func TestInputCheckAgreesWithExecute(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	job := func(id, submit, run, procs string) string {
		return id + " " + submit + " 0 " + run + " " + procs + " -1 -1 " + procs + " " + run + " -1 1 1 1 -1 1 -1 -1 -1\n"
	}
	good := write("good.swf", "; UnixStartTime: 1490400000\n; TimeZoneString: Europe/Berlin\n"+
		job("1", "0", "3600", "2")+job("2", "600", "7200", "4")+job("3", "7200", "600", "1"))
	bad := write("bad.swf", job("1", "0", "100", "2")+"1 2 3\n")
	empty := write("empty.swf", "")
	wide := write("wide.swf", job("1", "0", "100", "64"))
	sacctOnlySteps := write("steps.txt", "JobID|Submit|Elapsed|NCPUS\n5.batch|2024-01-01T00:00:00|00:00:10|1\n")
	sacctPending := write("pending.txt", "JobID|Submit|Start|End|Elapsed|NCPUS|State\n5|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|1|PENDING\n6|2024-01-01T00:00:00|2024-01-01T00:00:01|Unknown|00:00:10|1|RUNNING\n")
	sacctBadTime := write("badtime.txt", "JobID|Submit|Elapsed|NCPUS\n5|2024-13-01T00:00:00|00:00:10|1\n")
	oneRow := write("one.csv", "0.1\n")
	twoRows := write("two.csv", "0.1\n0.2\n") // 00:00 to 02:00 on the first day: the first job starts at 01:00
	long := write("long.csv", strings.Repeat("0.1\n", 24*30))
	// 2017-03-26: Europe/Berlin skips 02:00.
	spring := write("spring.csv", "2017-03-26 01:00,1\n2017-03-26 02:00,2\n2017-03-26 03:00,3\n")
	negative := write("neg.csv", "10\n-1\n")

	flat := Contract{Name: "flat", Kind: Flat, Price: 0.1}
	hourly := func(path string) Contract {
		return Contract{Name: "hourly", Kind: Hourly, Prices: path}
	}
	withCarbon := func(path string, repeat bool) Contract {
		k := flat
		k.HasCarbon, k.CarbonSeries, k.CarbonRepeat = true, path, repeat
		return k
	}
	swf := func(path string) Workload { return Workload{Kind: SWF, Name: filepath.Base(path), Path: path} }
	type tc struct {
		name     string
		w        Workload
		k        Contract
		pol      Policy
		nodes    int
		pre      bool   // the check's error is the run's, word for word
		prefix   string // else the run's error starts like the check's, up to this
		contains string // and contains this
	}
	keepNone := &Expr{Source: "job.nodes > 100", Where: "test:1:1", Fields: AllJobFields,
		Bool: func(e *Env) bool { return e.Job.Nodes > 100 }}
	cases := []tc{
		{name: "good", w: swf(good), k: flat},
		{name: "good hourly", w: swf(good), k: hourly(long)},
		{name: "bad line", w: swf(bad), k: flat, pre: true},
		{name: "empty", w: swf(empty), k: flat, pre: true},
		{name: "too wide", w: swf(wide), k: flat, pre: true},
		{name: "sacct only steps", w: Workload{Kind: Sacct, Name: "steps", Path: sacctOnlySteps}, k: flat, pre: true,
			contains: "it has no job lines, only 1 step line (such as 1234.batch)"},
		{name: "sacct only pending", w: Workload{Kind: Sacct, Name: "pending", Path: sacctPending}, k: flat, pre: true,
			contains: "every one of its 2 job lines was dropped when reading it (1 pending, 1 not finished when sacct ran)"},
		{name: "sacct bad time", w: Workload{Kind: Sacct, Name: "badtime", Path: sacctBadTime}, k: flat, pre: true},
		{name: "submitted after the trace", w: func() Workload {
			w := swf(good)
			w.Submitted = &Window{From: Instant{Offset: 86400}, To: Instant{Offset: 2 * 86400}}
			return w
		}(), k: flat, pre: true},
		{name: "keep nothing", w: func() Workload { w := swf(good); w.Keep = keepNone; return w }(), k: flat, pre: true},
		{name: "one hour of prices", w: swf(good), k: hourly(oneRow), pre: true},
		{name: "two hours of prices", w: swf(good), k: hourly(twoRows), prefix: "contract hourly: the hourly prices (two.csv: 2.0 hours of prices from 2017-03-25 00:00 CET) do not cover the run: they end at 2017-03-25 02:00 CET, ", contains: "use a longer series"},
		{name: "spring forward", w: swf(good), k: func() Contract {
			k := hourly(spring)
			k.PriceFormat.Time = tariff.TimeISO
			return k
		}(), pre: true},
		{name: "carbon too short", w: swf(good), k: withCarbon(oneRow, false), pre: true},
		{name: "carbon short", w: swf(good), k: withCarbon(twoRows, false), prefix: "contract flat: the carbon intensities (two.csv: 2.0 hours of intensities from 2017-03-25 00:00 CET) do not cover the run: they end at 2017-03-25 02:00 CET, ", contains: "use a longer series"},
		{name: "carbon repeats", w: swf(good), k: withCarbon(oneRow, true)},
		{name: "carbon negative", w: swf(good), k: withCarbon(negative, true), pre: true},
		{name: "budget below the jobs", w: swf(good), k: flat, pol: Policy{Budget: &Budget{Power: 600}}, contains: "the lightest of them, job 2, weighs 1.04 kW"},
		{name: "budget above the jobs", w: swf(good), k: flat, pol: Policy{Budget: &Budget{Power: 1100}}},
	}
	p := &Plan{}
	for i, c := range cases {
		if c.nodes == 0 {
			c.nodes = 8
		}
		p.Runs = append(p.Runs, &Run{Index: i, Name: c.name, Baseline: -1, Policy: c.pol, Machine: testMachine(c.nodes), Workload: c.w, Contract: c.k})
	}
	res := Execute(context.Background(), p, Options{Workers: 2, WholeTraces: true})
	ic := NewInputCheck(nil)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ri := ic.Run(p.Runs[i])
			got, want := ri.Err, res[i].Err
			switch {
			case c.pre:
				var ie *InputError
				if got == nil || want == nil || got.Error() != want.Error() || !errors.As(got, &ie) || !strings.Contains(got.Error(), c.contains) {
					t.Fatalf("check: %v\nrun:   %v", got, want)
				}
			case c.prefix != "":
				if got == nil || want == nil || !strings.HasPrefix(got.Error(), c.prefix) || !strings.HasPrefix(want.Error(), c.prefix) ||
					!strings.Contains(got.Error(), c.contains) || !strings.Contains(want.Error(), c.contains) {
					t.Fatalf("check: %v\nrun:   %v", got, want)
				}
			case c.contains != "":
				if got != nil || ri.OverBudget == 0 || want == nil || !strings.Contains(want.Error(), c.contains) {
					t.Fatalf("check: %v, %d over the budget (job %d, %s)\nrun:   %v", got, ri.OverBudget, ri.Lightest, Watts(ri.LightestW), want)
				}
				if w := "job " + strconv.FormatInt(ri.Lightest, 10) + ", weighs " + Watts(ri.LightestW); !strings.Contains(want.Error(), w) {
					t.Fatalf("check: %s; run: %v", w, want)
				}
			default:
				if got != nil || want != nil || ri.OverBudget != 0 {
					t.Fatalf("check: %v, %d over the budget\nrun:   %v", got, ri.OverBudget, want)
				}
			}
		})
	}
}

// TestInputCheckOpens reads data files with the opener it is given.
func TestInputCheckOpens(t *testing.T) {
	files := map[string]string{
		"t.swf": "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n",
		"p.csv": "0.1\nx\n",
	}
	open := func(name string) (io.ReadCloser, error) {
		s, ok := files[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return io.NopCloser(strings.NewReader(s)), nil
	}
	ic := NewInputCheck(open)
	run := &Run{Name: "r", Baseline: -1, Machine: testMachine(4), Workload: Workload{Kind: SWF, Name: "t", Path: "t.swf"},
		Contract: Contract{Name: "k", Kind: Hourly, Prices: "p.csv"}}
	ri := ic.Run(run)
	var le *tariff.LineError
	var ie *InputError
	if !errors.As(ri.Err, &le) || !errors.As(ri.Err, &ie) || ie.Part != PartPrices || le.Line != 2 || le.Col != 1 {
		t.Fatalf("%#v", ri.Err)
	}
	if ri.Nodes != 4 || ri.Span == nil || ri.Span.First != 0 {
		t.Fatalf("%+v", ri)
	}
	run.Workload.Path = "missing.swf"
	if ri := ic.Run(run); !errors.Is(ri.Err, os.ErrNotExist) {
		t.Fatalf("%v", ri.Err)
	}
	if tr := ic.Trace(&Run{Workload: Workload{Kind: SWF, Path: "t.swf"}}); tr == nil || len(tr.Records) != 1 {
		t.Fatalf("trace %+v", tr)
	}
}

// TestInputCheckLargeSynthetic: a synthetic workload too large to generate
// at check time is validated, not generated.
func TestInputCheckLargeSynthetic(t *testing.T) {
	ic := NewInputCheck(nil)
	run := &Run{Name: "s", Baseline: -1, Machine: testMachine(16), Contract: Contract{Name: "k", Kind: Flat, Price: 0.1},
		Workload: Workload{Kind: Synthetic, Name: "synthetic", Synthetic: workload.Synthetic{Jobs: maxCheckedSynthetic + 1, Load: 0.8, MeanRuntime: 2e9}}}
	ri := ic.Run(run)
	var fe *workload.FieldError
	if !errors.As(ri.Err, &fe) || fe.Field != "runtime" {
		t.Fatalf("%v", ri.Err)
	}
	run.Workload.Synthetic.MeanRuntime = 0
	if ri := ic.Run(run); ri.Err != nil || ri.Jobs != 0 {
		t.Fatalf("%+v", ri)
	}
}
