package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

const lawsonScenario = `import "std/policies"
machine m { nodes 64; cores 1; power { off 5 W; idle 50 W; busy 200 W } }
policy two from easy_exact { active two_level { low 40; high all } }
policy ols from easy_exact { active online { sla mean bsld <= 20; every 1 d } }
experiment lawson {
  workload synthetic { jobs 3000; load 60%; seed 4 }
  machine  m
  contract { flat 0.1 EUR/kWh }
  policy   [easy_exact, two, ols] baseline easy_exact
  report   bsld(lawson), sla_violations, active_util, proc_savings, node_hours_off, active(mean, min, max, changes), ols_decisions, ols_simulations
}
`

// readFloatCSV reads a CSV file of numbers into its header and rows.
func readFloatCSV(t *testing.T, path string) ([]string, [][]float64) {
	t.Helper()
	recs := readCSV(t, path)
	if len(recs) == 0 {
		t.Fatalf("%s: empty", path)
	}
	var rows [][]float64
	for _, r := range recs[1:] {
		row := make([]float64, len(r))
		for i, x := range r {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

// lawsonRun is a run of lawsonScenario's experiment as --format json gives it.
type lawsonRun struct {
	Run     string
	Metrics map[string]any
}

// lawsonRuns runs a scenario of three runs with --format json and more
// flags.
func lawsonRuns(t *testing.T, scenario string, flags ...string) []lawsonRun {
	t.Helper()
	args := append([]string{"run", writeScenario(t, "lawson.pwr", scenario), "--format", "json"}, flags...)
	stdout, errOut, code := pwrc(t, args...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var results []lawsonRun
	if err := json.Unmarshal([]byte(stdout), &results); err != nil || len(results) != 3 {
		t.Fatalf("%v: %s", err, stdout)
	}
	return results
}

// The --series files of Lawson's figures read back to the run's totals:
// weeks.csv's jobs add up to the run's, its active node time to ∫ active dt
// and its utilizations to active_util; active.csv's timeline integrates to
// proc_savings and changes as often as the run says.
func TestLawsonSeries(t *testing.T) {
	dir := t.TempDir()
	results := lawsonRuns(t, lawsonScenario, "--series", dir)
	for _, r := range results {
		m := r.Metrics
		num := func(k string) float64 {
			v, ok := m[k].(float64)
			if !ok {
				t.Fatalf("run %s: no %s in JSON", r.Run, k)
			}
			return v
		}
		head, weeks := readFloatCSV(t, filepath.Join(dir, r.Run+".weeks.csv"))
		if len(head) != 8 || head[2] != "jobs_completed" {
			t.Fatalf("weeks.csv header %v", head)
		}
		jobs, area, busy, bsld := 0.0, 0.0, 0.0, 0.0
		for _, w := range weeks {
			jobs += w[2]
			bsld += w[2] * w[3]
			area += w[7] * w[1]
			busy += w[5] * w[7] * w[1]
		}
		if jobs != num("jobs") || math.Abs(bsld/jobs-num("bsld_lawson_mean")) > 1e-6*num("bsld_lawson_mean") {
			t.Errorf("run %s: weeks add up to %g jobs, mean s %g; the run has %g, %g", r.Run, jobs, bsld/jobs, num("jobs"), num("bsld_lawson_mean"))
		}
		days := num("run_days") * 86400
		if r.Run == "easy_exact" {
			if _, err := os.Stat(filepath.Join(dir, r.Run+".active.csv")); err == nil {
				t.Errorf("run %s has no controller but an active.csv", r.Run)
			}
			if math.Abs(area-64*days) > 1e-6*area {
				t.Errorf("run %s: active node time %g, want all nodes' %g", r.Run, area, 64*days)
			}
			continue
		}
		if math.Abs(busy/area-num("active_util")) > 1e-6 {
			t.Errorf("run %s: weeks give active utilization %g, the run %g", r.Run, busy/area, num("active_util"))
		}
		_, tl := readFloatCSV(t, filepath.Join(dir, r.Run+".active.csv"))
		// One row per change, and the first instant's unless a change is
		// at it; no two rows at the same time.
		if n := int(num("active_changes")); len(tl) != n+1 && len(tl) != n {
			t.Errorf("run %s: %d rows in active.csv, %g changes", r.Run, len(tl), num("active_changes"))
		}
		for i := 1; i < len(tl); i++ {
			if !(tl[i][0] > tl[i-1][0]) {
				t.Errorf("run %s: active.csv rows %d and %d at %g and %g", r.Run, i, i+1, tl[i-1][0], tl[i][0])
			}
		}
		integral := 0.0
		end := tl[0][0] + days
		for i, row := range tl {
			next := end
			if i+1 < len(tl) {
				next = tl[i+1][0]
			}
			integral += row[1] * (next - row[0])
		}
		if sv := 1 - integral/(64*days); math.Abs(sv-num("proc_savings")) > 1e-6 || math.Abs(integral-area) > 1e-6*area {
			t.Errorf("run %s: active.csv gives savings %g (area %g), the run %g (weeks' area %g)", r.Run, sv, integral, num("proc_savings"), area)
		}
		if num("proc_savings") <= 0 {
			t.Errorf("run %s saves nothing", r.Run)
		}
	}
	if _, ok := results[2].Metrics["ols_simulations"]; !ok {
		t.Error("the online run has no ols_simulations")
	}
}

// sla_violations(S) gives, per bound, the share of jobs whose Lawson
// slowdown 1 + wait / max(10 s, run) exceeds S, recomputed here from the
// --jobs records; the bare name keeps the policy's SLA.
func TestSLAViolationsAtBounds(t *testing.T) {
	scen := strings.Replace(lawsonScenario, "report   bsld(lawson), sla_violations,",
		"report   bsld(lawson), sla_violations, sla_violations(1.5, 20, 1e6),", 1)
	dir := t.TempDir()
	results := lawsonRuns(t, scen, "--jobs", dir)
	for _, r := range results {
		recs := readCSV(t, filepath.Join(dir, r.Run+".csv"))
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		var slow []float64
		for _, rec := range recs[1:] {
			f := func(k string) float64 {
				v, err := strconv.ParseFloat(rec[col[k]], 64)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			slow = append(slow, 1+(f("start")-f("submit"))/math.Max(10, f("end")-f("start")))
		}
		for _, bound := range []struct {
			key string
			s   float64
		}{{"sla_violations_share", 200}, {"sla_violations_share_1.5", 1.5}, {"sla_violations_share_20", 20}, {"sla_violations_share_1e+06", 1e6}} {
			if r.Run == "ols" && bound.s == 200 {
				bound.s = 20 // the online controller's own SLA
			}
			n := 0
			for _, s := range slow {
				if s > bound.s {
					n++
				}
			}
			got, ok := r.Metrics[bound.key].(float64)
			if want := float64(n) / float64(len(slow)); !ok || got != want {
				t.Errorf("run %s: %s = %v, want %g", r.Run, bound.key, r.Metrics[bound.key], want)
			}
		}
	}
	table, errOut, code := pwrc(t, "run", writeScenario(t, "lawson.pwr", scen))
	if code != 0 || !strings.Contains(table, "> 1.5 %") || !strings.Contains(table, "> 1e+06 %") {
		t.Errorf("table without the bounds' columns (exit %d):\n%s%s", code, table, errOut)
	}
}

// A change of the active count at the first instant is that instant's
// only row of active.csv (it had two: the initial count, lasting no time).
func TestActiveCSVFirstInstant(t *testing.T) {
	m := &pwrt.Metrics{AccountFrom: 100, Active: &pwrt.ActiveStat{Initial: 64,
		Timeline: []pwrt.ActiveChange{{T: 100, Active: 16}, {T: 500, Active: 64}}}}
	var b strings.Builder
	writeActiveCSV(&b, m)
	if want := "seconds,active\n100,16\n500,64\n"; b.String() != want {
		t.Errorf("active.csv:\n%s\nwant\n%s", b.String(), want)
	}
	m.Active.Timeline[0].T = 200
	b.Reset()
	writeActiveCSV(&b, m)
	if want := "seconds,active\n100,64\n200,16\n500,64\n"; b.String() != want {
		t.Errorf("active.csv:\n%s\nwant\n%s", b.String(), want)
	}
}
