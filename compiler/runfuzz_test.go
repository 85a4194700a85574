package compiler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/refsim"
	"github.com/pwrc/pwrc/runtime"
)

// FuzzRun builds a small scenario and a small SWF trace from the fuzzer's
// bytes, compiles the scenario and runs every run of it. Whatever the trace
// holds (no jobs, jobs dropped by cleaning, times out of order, extreme
// values, malformed lines) and whatever the policy (FCFS, EASY, greedy
// backfilling, shutdown, budgets, knapsack, contiguous allocation, admit,
// price-aware deferral,
// priority and order rules) and contract, a run must either fail with a
// message or give finite metrics and a valid schedule: every job starts at
// or after its submission and ends after it starts, and the nodes in use
// never exceed the machine's. Nothing may panic; the runtime's recover is
// for rules that fail, and it is not what catches these cases.
func FuzzRun(f *testing.F) {
	for _, seed := range runSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRun(t, genScenario(data)) })
}

// FuzzRunBounds is FuzzRun with quantities at their bounds
// (compiler/bounds.go; issue 24, item 4): the first two bytes choose which
// (atBound), the rest the scenario. Whatever check accepts must run to the
// end or fail with a message, in finite time (the fuzzer gives an input
// 10 s).
func FuzzRunBounds(f *testing.F) {
	for choice := range byte(8) {
		for _, seed := range runSeeds[1:4] {
			f.Add(append([]byte{choice, 7 - choice}, seed...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		sc := genScenario(data[2:])
		sc.pwr = atBound(atBound(sc.pwr, int(data[0]%8)), int(data[1]%8))
		sc.trace = withinYears(sc.trace)
		fuzzRun(t, sc)
	})
}

// withinYears drops the jobs of a generated trace submitted 1e9 s (32
// years) or more after its start: a trace that spans centuries (1e10 s)
// takes seconds a run, past the fuzzer's 10 s per input. FuzzRun keeps
// them; FuzzRunBounds fuzzes the scenario's own quantities.
func withinYears(trace string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(trace, "\n") {
		if f := strings.Fields(line); len(f) > 1 && !strings.HasPrefix(line, ";") {
			if x, err := strconv.ParseFloat(f[1], 64); err == nil && x >= 1e9 {
				continue
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// fuzzRun compiles and runs a generated scenario and checks its results.
func fuzzRun(t *testing.T, sc scenario) {
	timer := time.AfterFunc(60*time.Second, func() { panic(fmt.Sprintf("HANG\n--- main.pwr\n%s\n--- trace.swf\n%s", sc.pwr, sc.trace)) })
	defer timer.Stop()
	res := compileScenario(t, sc)
	if res.Plan == nil {
		if !res.Diags.HasErrors() {
			t.Fatal("no plan and no error")
		}
		return
	}
	results := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 1, KeepJobs: true})
	long := false
	for _, r := range results {
		checkResult(t, r, sc.pwr, sc.trace)
		// A run of decades (a trace with a job submitted at 1e10 s, a job
		// that never starts under a scheduler cycle) takes seconds; the
		// fuzzer gives an input 10 s, so such runs are checked once.
		long = long || r.Err == nil && r.Metrics.RunDays > 20*365 || r.Err != nil && strings.Contains(r.Err.Error(), "nothing happened for")
	}
	if long {
		return
	}
	// A run that simulates while its trace is read gives what it gives
	// on the whole trace, errors included, and a run served by its
	// twin's simulation what it gives alone.
	whole := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 1, KeepJobs: true, WholeTraces: true, NoTwins: true})
	for i, r := range whole {
		// (The workload as JSON: its pointers' values, not addresses.)
		wa, _ := json.Marshal(results[i].Workload)
		wb, _ := json.Marshal(r.Workload)
		a, b := fmt.Sprint(results[i].Err, results[i].Metrics, results[i].Jobs, string(wa), results[i].Notes),
			fmt.Sprint(r.Err, r.Metrics, r.Jobs, string(wb), r.Notes)
		if a != b {
			t.Fatalf("run %s differs read whole:\n%s\n%s\n--- main.pwr\n%s\n--- trace.swf\n%s", r.Run.Name, a, b, sc.pwr, sc.trace)
		}
	}
	// Runs share loaded traces: in parallel they must give the same.
	if len(results) > 1 {
		again := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 3, KeepJobs: true})
		for i, r := range again {
			a, b := fmt.Sprint(results[i].Err, results[i].Metrics, results[i].Jobs), fmt.Sprint(r.Err, r.Metrics, r.Jobs)
			if a != b {
				t.Fatalf("run %s differs with 3 workers:\n%s\n%s\n--- main.pwr\n%s", r.Run.Name, a, b, sc.pwr)
			}
		}
	}
}

// checkResult checks one run's outcome.
func checkResult(t *testing.T, r *runtime.Result, src, trace string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("run %s: %s\n--- main.pwr\n%s\n--- trace.swf\n%s", r.Run.Name, fmt.Sprintf(format, args...), src, trace)
	}
	if r.Err != nil {
		msg := r.Err.Error()
		switch {
		case strings.TrimSpace(msg) == "":
			fail("an error without a message")
		case strings.Contains(msg, "a bug in pwrc"), strings.Contains(msg, "internal error"):
			fail("%s", msg)
		case nonFiniteNumber.MatchString(msg):
			fail("an error that shows a NaN or infinity: %s", msg)
		}
		return
	}
	if bad := nonFinite(reflect.ValueOf(r.Metrics), "Metrics"); bad != "" {
		fail("%s is not finite: %+v", bad, r.Metrics)
	}
	m := r.Metrics
	if m.Jobs != len(r.Jobs) || m.Jobs != r.Workload.Clean.Jobs-r.Workload.Cut.Dropped() || m.Jobs == 0 {
		fail("%d jobs in the metrics, %d records, %d kept by cleaning, %d cut", m.Jobs, len(r.Jobs), r.Workload.Clean.Jobs, r.Workload.Cut.Dropped())
	}
	if m.Utilization < 0 || m.Utilization > 1+1e-9 || m.Energy < 0 || m.RunDays < 0 {
		fail("utilization %g, energy %g, run days %g", m.Utilization, m.Energy, m.RunDays)
	}
	nodes := r.Workload.Nodes
	sched := make([]refsim.Scheduled, len(r.Jobs))
	for i, j := range r.Jobs {
		if math.IsNaN(j.Start) || math.IsInf(j.Start, 0) || math.IsInf(j.End, 0) || math.IsNaN(j.Power) || j.Power < 0 {
			fail("job %d: start %g, end %g, power %g", j.ID, j.Start, j.End, j.Power)
		}
		if j.Alloc < j.Nodes || j.Nodes < 1 {
			fail("job %d: %d nodes, %d allocated", j.ID, j.Nodes, j.Alloc)
		}
		sched[i] = refsim.Scheduled{Submit: j.Submit, Start: j.Start, End: j.End, Nodes: j.Alloc}
	}
	if err := refsim.CheckCausality(sched); err != nil {
		fail("%v", err)
	}
	if err := refsim.CheckCapacity(sched, nodes); err != nil {
		fail("%v", err)
	}
	// Under a budget that always applies, weighs job.power, and with no
	// boot delay (so a job's record starts when its weight is charged),
	// the running jobs never draw more than the budget at a start.
	p := r.Run.Policy
	if b := p.Budget; b != nil && b.When == runtime.BudgetAlways && p.Weight == nil && r.Run.Machine.BootTime == 0 {
		for _, j := range r.Jobs {
			sum := 0.0
			for _, k := range r.Jobs {
				if k.Start <= j.Start && k.End > j.Start {
					sum += k.Power
				}
			}
			if sum > m.Budget*(1+1e-9)+1e-9 {
				fail("at %g, when job %d starts, running jobs draw %g W, over the budget of %g W", j.Start, j.ID, sum, m.Budget)
			}
		}
	}
}

// nonFiniteNumber matches a NaN or infinity printed as a number.
var nonFiniteNumber = regexp.MustCompile(`(NaN|[+-]Inf|\bInf)( ?(W|kW|MW|s|days|nodes|%)\b|[,;:)]|$)|[=<>] ?(NaN|[+-]?Inf)\b`)

// nonFinite returns the path of the first float in v that is NaN or
// infinite, or "".
func nonFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if bad := nonFinite(v.Field(i), path+"."+v.Type().Field(i).Name); bad != "" {
				return bad
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if bad := nonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); bad != "" {
				return bad
			}
		}
	}
	return ""
}

// fuzzBytes hands out the fuzzer's bytes as choices; past the end it gives
// zeros, so every input decodes to some scenario.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) byte() byte {
	if f.i >= len(f.b) {
		return 0
	}
	f.i++
	return f.b[f.i-1]
}

// n is a choice in [0, k).
func (f *fuzzBytes) n(k int) int { return int(f.byte()) % k }

// pick chooses one of xs.
func pick[T any](f *fuzzBytes, xs ...T) T { return xs[f.n(len(xs))] }

// flag is true for about one choice in k.
func (f *fuzzBytes) flag(k int) bool { return f.n(k) == 0 }

type scenario struct {
	pwr, trace string
}

// genScenario decodes a scenario: one machine, one or two contracts, one
// to three policies (the first is the baseline), an SWF trace of up to 15
// jobs or a synthetic workload.
func genScenario(data []byte) scenario {
	f := &fuzzBytes{b: data}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	// The trace.
	var tr strings.Builder
	traceNodes := pick(f, 0, 4, 8, 16, 3)
	if traceNodes > 0 {
		fmt.Fprintf(&tr, "; MaxNodes: %d\n", traceNodes)
	}
	if f.flag(3) {
		fmt.Fprintf(&tr, "; UnixStartTime: %d\n", pick(f, 0, 1483225200, -5, 843480031, 100000000000))
	}
	if f.flag(3) {
		fmt.Fprintf(&tr, "; TimeZoneString: %s\n", pick(f, "Europe/Berlin", "UTC", "America/New_York", "Nowhere/Land"))
	}
	nJobs := f.n(16)
	submit := 0.0
	for i := range nJobs {
		if f.flag(20) {
			tr.WriteString(pick(f, "1 2 3\n", "x y\n", "\n", "; comment\n"))
			continue
		}
		submit += pick(f, 0.0, 0, 1, 10, 60, 600, 3600, 0.5, 86400, -30, 1e6)
		sub := fmt.Sprint(submit)
		if f.flag(30) {
			sub = pick(f, "-1", "1e9", "1e10", "1e11", "0.001")
		}
		run := pick(f, "100", "60", "3600", "0", "-1", "1", "7200", "0.5", "86400", "1e5")
		alloc := pick(f, "1", "2", "4", "-1", "0", "8", "3", "16", "17", "2147483647")
		req := pick(f, "-1", "1", "2", "4", "8")
		reqTime := pick(f, "-1", "200", "60", "3600", "100000", "0", "1e10")
		fmt.Fprintf(&tr, "%d %s -1 %s %s -1 -1 %s %s -1 1 %d %d -1 %d %d -1 -1\n",
			i+1, sub, run, alloc, req, reqTime, f.n(4), f.n(3), f.n(3)-1, f.n(3)-1)
	}

	// The machine.
	nodes := pick(f, "8", "4", "16", "auto", "1", "3")
	if nodes == "auto" && traceNodes == 0 && !f.flag(10) {
		nodes = "8" // mostly what compiles: auto needs the header's size
	}
	machineNodes := traceNodes
	if nodes != "auto" {
		fmt.Sscan(nodes, &machineNodes)
	}
	cores := pick(f, 1, 1, 2, 4)
	w("machine m {\n  nodes %s\n  cores %d", nodes, cores)
	w("  power { off %d W; idle %d W; busy %d W; boot %d W; shutdown %d W }",
		pick(f, 0, 5), pick(f, 50, 0, 70), pick(f, 200, 100, 0, 300), pick(f, 50, 80), pick(f, 50, 30))
	if f.flag(2) {
		w("  infrastructure %s", pick(f, "100 W", "10 W per node", "1 kW"))
	}
	if f.flag(2) {
		w("  boot %s\n  shutdown %s", pick(f, "0 s", "30 s", "10 min"), pick(f, "0 s", "10 s", "1 h"))
	}
	w("}")

	// Contracts.
	w("contract flat { flat %s EUR/kWh }", pick(f, "0.1", "0.145", "0"))
	peak := pick(f, "0.2", "0.3")
	w("contract bp {\n  peak %s at %s EUR/kWh%s\n  otherwise 0.1 EUR/kWh\n}",
		pick(f, "06:00..22:00", "00:00..24:00", "09:00..23:00", "22:00..06:00"), peak,
		pick(f, "", "", "\n  peak 01:00..02:00 on sat..sun at "+peak+" EUR/kWh"))
	contracts := pick(f, "flat", "bp", "[flat, bp]", "[bp, flat]")

	// Policies.
	nPol := 1 + f.n(3)
	names := make([]string, nPol)
	for i := range nPol {
		names[i] = fmt.Sprintf("p%d", i)
		w("policy %s {", names[i])
		bf := pick(f, "none", "easy", "greedy depth 1", "greedy depth 100", "easy")
		w("  backfill %s", bf)
		if f.flag(3) {
			w("  estimate exact")
		}
		if f.flag(3) {
			w("  shutdown idle after %s", pick(f, "0 s", "60 s", "1 h"))
		}
		if unit := pick(f, 2, 4, 3); f.flag(4) && (unit <= machineNodes || f.flag(10)) {
			w("  allocate contiguous %d", unit)
		}
		if f.flag(4) {
			w("  admit %s", pick(f, "job.nodes <= 4", "!peak || job.nodes < 2", "system.free >= job.nodes", "now.hour > 25",
				"job.wait > 3600 || system.queue < 3", "false", "job.id % 2 == 0", "price.now < 0.15"))
		}
		if f.flag(4) {
			w("  priority %s", pick(f, "job.wait / job.walltime", "-job.nodes", "job.nodes > 2 ? 1 : 0", "job.user", "0/0", "job.runtime"))
		}
		if f.flag(5) {
			w("  order %s", pick(f, "job.walltime", "-job.submit", "job.id", "job.estimate * job.nodes"))
		}
		if i > 0 && f.flag(2) || i == 0 && f.flag(4) {
			budget := pick(f, "500 W", "0 W", "1 kW", "200 W", "50% of baseline", "90% of baseline", "10 kW")
			if i == 0 && strings.Contains(budget, "baseline") {
				budget = "300 W" // the baseline cannot be relative to itself
			}
			when := pick(f, "", " during peak", " while system.queue > 2", " while now.hour < 12", "")
			if budget == "0 W" && when == "" {
				when = " during peak"
			}
			w("  budget %s%s", budget, when)
			if f.flag(2) {
				w("  window %d", pick(f, 1, 3, 10, 20))
				switch f.n(3) {
				case 0:
					w("  select knapsack")
				case 1:
					w("  select knapsack {\n    value %s\n    weight %s\n  }", pick(f, "job.nodes", "job.runtime * job.nodes", "job.wait", "1", "job.nodes - 2"),
						pick(f, "job.power", "job.nodes * 100", "job.power_per_node", "0"))
				}
			}
		}
		// (Last, so that the choices above read the same bytes as before.)
		if (bf == "none" || f.flag(10)) && f.flag(3) {
			deadline := ""
			if f.flag(2) {
				deadline = "; deadline " + pick(f, "1 h", "12 h")
			}
			w("  defer cheapest { lookahead %s; then %s%s }", pick(f, "3 h", "12 h", "96 h"),
				pick(f, "commit", "recompute", "recompute_on_ends"), deadline)
		}
		w("}")
	}
	policies := names[0]
	if nPol > 1 {
		policies = "[" + strings.Join(names, ", ") + "] baseline p0"
	}

	// The experiment.
	w("experiment e {")
	if f.flag(5) && nodes != "auto" {
		w("  workload synthetic { jobs %d; load %d%%; seed %d; runtime %s }", pick(f, 1, 5, 30), pick(f, 50, 90, 150), f.n(5), pick(f, "10 min", "2 h"))
	} else {
		var opts []string
		if f.flag(2) {
			opts = append(opts, pick(f, "power 200 W per node", "power uniform 100 W..300 W per node",
				"power normal 200 W sd 50 W in 100 W..300 W per node", "power rule 100 + 10 * (job.user % 3)", "power 1 kW per 4 nodes", "power 0 W per node"))
		}
		if f.flag(4) && (traceNodes > 0 || f.flag(10)) {
			opts = append(opts, "scale to machine")
		}
		if f.flag(4) {
			opts = append(opts, "bad_lines skip")
		}
		if f.flag(5) {
			opts = append(opts, `start "2017-03-26"`, `timezone "Europe/Berlin"`)
		}
		block := ""
		if len(opts) > 0 {
			block = " { " + strings.Join(opts, "; ") + " }"
		}
		w(`  workload swf "TRACE"%s`, block)
	}
	w("  machine m\n  contract %s\n  policy %s\n  seed %d\n}", contracts, policies, f.n(100))
	sc := scenario{pwr: b.String(), trace: tr.String()}
	// (Last, so that the choices above read the same bytes as before.)
	if strings.Contains(sc.pwr, `workload swf "TRACE"`) && f.flag(3) {
		sc = asSacct(sc, f)
	}
	return sc
}

// asSacct turns a scenario on an SWF trace into one on the same jobs as
// Slurm accounting, whose rules compare names: users u0, u1, … (SWF's
// user numbers), partitions p0, p1, …, accounts by group; some jobs ended
// while pending (Start = End, no CPUs), some lines malformed as they were.
func asSacct(sc scenario, f *fuzzBytes) scenario {
	var tr strings.Builder
	tr.WriteString("JobID|User|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|AllocCPUS|State\n")
	stamp := func(s float64) string {
		if math.IsNaN(s) || s < -1e12 || s > 1e12 {
			return "Unknown"
		}
		return time.Unix(1700000000+int64(s), 0).UTC().Format("2006-01-02T15:04:05")
	}
	dur := func(s float64) string {
		if !(s >= 0) || s > 1e9 {
			return "INVALID"
		}
		d := int64(s)
		return fmt.Sprintf("%d-%02d:%02d:%02d", d/86400, d/3600%24, d/60%60, d%60)
	}
	name := func(prefix string, v string) string {
		if v == "-1" {
			return ""
		}
		return prefix + v
	}
	for _, line := range strings.Split(sc.trace, "\n") {
		fs := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, ";") || len(fs) == 0:
			continue
		case len(fs) != 18:
			tr.WriteString(strings.Join(fs, "|") + "\n") // malformed, as it was
			continue
		}
		submit, _ := strconv.ParseFloat(fs[1], 64)
		run, _ := strconv.ParseFloat(fs[3], 64)
		req, _ := strconv.ParseFloat(fs[8], 64)
		start, end, cpus, state := stamp(submit), stamp(submit+run), fs[4], "COMPLETED"
		if f.flag(6) { // ended while pending
			end, run, cpus, state = start, 0, "0", "CANCELLED by 1"
		}
		fmt.Fprintf(&tr, "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", fs[0], name("u", fs[11]), name("a", fs[12]), name("p", fs[15]),
			pick(f, "normal", "high", ""), stamp(submit), start, end, dur(run), dur(req), cpus, state)
	}
	pwr := sc.pwr
	pwr = strings.ReplaceAll(pwr, "job.user", `(job.user == "u1" ? 1 : 0)`)
	pwr = strings.ReplaceAll(pwr, `start "2017-03-26"; `, "")
	pwr = strings.ReplaceAll(pwr, "scale to machine; ", "")
	pwr = strings.ReplaceAll(pwr, "scale to machine", "")
	rule := pick(f, "", `keep job.partition != "p1"`, `keep job.account in ["a0", "a2", "zz"]`, `keep job.qos == "high" || job.user startsWith "u"`)
	opts := `workload sacct "TRACE" { exclusive`
	if rule != "" {
		opts += "; " + rule
	}
	if strings.Contains(pwr, `workload swf "TRACE" { `) {
		pwr = strings.Replace(pwr, `workload swf "TRACE" { `, opts+"; ", 1)
	} else {
		pwr = strings.Replace(pwr, `workload swf "TRACE"`, opts+" }", 1)
	}
	order := pick(f, "", `job.partition in ["p0", "p2"] ? 0 : job.submit`,
		`job.user == "u0" && job.account != "a1" ? job.wait : -job.wait`, `(job.qos == "" ? 2 : 1) * job.walltime`)
	if p0 := pwr[strings.Index(pwr, "policy p0 {"):]; order != "" && !strings.Contains(p0[:strings.Index(p0, "\n}")], "  order ") {
		pwr = strings.Replace(pwr, "policy p0 {", "policy p0 {\n  order "+order, 1)
	}
	return scenario{pwr: pwr, trace: tr.String()}
}

// atBound sets one quantity of a generated scenario to a bound of its
// (compiler/bounds.go): 0 changes nothing.
func atBound(pwr string, choice int) string {
	set := func(re, with string) string { return regexp.MustCompile(re).ReplaceAllString(pwr, with) }
	switch choice {
	case 1: // the longest boot and shutdown, and nodes switched off at once
		pwr = set(`\n  boot [^\n]*\n  shutdown [^\n]*`, "")
		pwr = strings.Replace(pwr, "machine m {\n", "machine m {\n  boot 1 d\n  shutdown 1 d\n", 1)
		if !strings.Contains(pwr, "shutdown idle after") {
			pwr = strings.Replace(pwr, "policy p0 {\n", "policy p0 {\n  shutdown idle after 0 s\n", 1)
		}
	case 2: // the most infrastructure
		pwr = set(`\n  infrastructure [^\n]*`, "")
		pwr = strings.Replace(pwr, "machine m {\n", "machine m {\n  infrastructure 10 GW\n", 1)
	case 3: // the most a node draws
		pwr = set(`(idle|busy|boot|shutdown) \d+ W`, "$1 1 MW")
	case 4: // the shortest metering interval, of a band that always binds
		// (Not the shortest scheduler cycle: a job that can never start
		// ticks 20 simulated years of passes, seconds a run, past the
		// fuzzer's 10 s per input; TestBoundsRun runs `interval 1 min`.)
		pwr = set(`(contract flat \{ flat [0-9.]+ EUR/kWh) \}`, "$1; band 1 W..10 GW { metered 5 min; penalty 1 EUR per interval } }")
	case 5: // the dearest energy
		pwr = set(`flat [0-9.]+ EUR/kWh`, "flat 10000 EUR/kWh")
	case 6: // the longest and shortest synthetic run times
		pwr = set(`runtime [^;}]*}`, "runtime 30 d }")
	case 7: // the longest accounting window
		pwr = set(`(\n  seed \d+\n)\}`, "${1}  account 0 d .. 20 y\n}")
	}
	return pwr
}

// runSeeds start the fuzzer at scenarios that once failed and at the
// corners: an empty trace, every job dropped, a budget below every job.
var runSeeds = [][]byte{
	{},
	{1, 0, 0, 5},
	{2, 1, 0, 0, 8, 0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
	[]byte("a budget, a knapsack and contiguous units over a trace of fifteen jobs"),
	[]byte("\x01\x00\x00\x0f\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"),
	[]byte("\x02\x00\x00\x0c\x01\x06\x00\x01\x00\x05\x01\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x02\x02\x02\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00"),
}

// TestRunFuzzSeedsCompile keeps the generator honest: most of what it
// writes must compile, or FuzzRun would only ever test the compiler's
// errors. It also runs the seeds through the checks, as go test does.
func TestRunFuzzSeedsCompile(t *testing.T) {
	ok, total := 0, 0
	for i := range 300 {
		data := make([]byte, 200)
		x := uint32(i*2654435761 + 1)
		for k := range data {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			data[k] = byte(x)
		}
		sc := genScenario(data)
		res := compileScenario(t, sc)
		total++
		if res.Plan != nil {
			ok++
		} else if testing.Verbose() {
			t.Logf("does not compile: %v", res.Diags)
		}
	}
	if ok < total*3/4 {
		t.Errorf("only %d of %d generated scenarios compile", ok, total)
	}
}

// compileScenario writes a generated scenario and its trace to a fresh
// directory and compiles it.
func compileScenario(t *testing.T, sc scenario) *compiler.Result {
	t.Helper()
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.swf")
	if err := os.WriteFile(trace, []byte(sc.trace), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "main.pwr")
	src := strings.ReplaceAll(sc.pwr, "TRACE", trace)
	if err := os.WriteFile(root, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return compiler.Compile(root, compiler.Options{})
}

// TestAtBoundCompiles keeps FuzzRunBounds honest: each of its edits
// changes some generated scenarios, and most of what it makes compiles.
func TestAtBoundCompiles(t *testing.T) {
	for choice := 1; choice < 8; choice++ {
		changed, ok := 0, 0
		for i := range 20 {
			data := make([]byte, 200)
			x := uint32(i*2654435761 + 7)
			for k := range data {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				data[k] = byte(x)
			}
			sc := genScenario(data)
			edited := atBound(sc.pwr, choice)
			if edited == sc.pwr {
				continue
			}
			changed++
			sc.pwr = edited
			if compileScenario(t, sc).Plan != nil {
				ok++
			}
		}
		if changed == 0 || ok < changed/2 {
			t.Errorf("choice %d: changed %d of 20 scenarios, %d of them compile", choice, changed, ok)
		}
	}
}
