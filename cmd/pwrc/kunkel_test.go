package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

// kunkelRun is one run of examples/kunkel_table10.pwr as its JSON has it.
type kunkelRun struct {
	Run     string             `json:"run"`
	Params  map[string]string  `json:"params"`
	Metrics map[string]float64 `json:"metrics"`
}

// runKunkelTable10 runs the example on a trace of the shared data, with
// the T1–T3 series, and returns its runs by contract and policy, and the
// directory of their per-job files.
func runKunkelTable10(t *testing.T, trace string, cores int) (map[string]map[string]kunkelRun, string) {
	t.Helper()
	data := testenv.DataDir()
	if data == "" {
		t.Skip("shared data not found (set PWRC_DATA)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	jobs := t.TempDir()
	out, errOut, code := pwrc(t, "run", filepath.Join(root, "examples/kunkel_table10.pwr"), "--format", "json", "--jobs", jobs,
		"--set", "trace="+filepath.Join(data, "traces", trace),
		"--set", "t1="+filepath.Join(data, "prices/T1.csv"), "--set", "t2="+filepath.Join(data, "prices/T2.csv"), "--set", "t3="+filepath.Join(data, "prices/T3.csv"),
		"--set", "cores="+strconv.Itoa(cores))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Metrics hold a few non-numbers (currency, null budget): keep the numbers.
	var raw []struct {
		Run     string            `json:"run"`
		Params  map[string]string `json:"params"`
		Metrics map[string]any    `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	runs := map[string]map[string]kunkelRun{}
	for _, r := range raw {
		k := kunkelRun{Run: r.Run, Params: r.Params, Metrics: map[string]float64{}}
		for name, v := range r.Metrics {
			if f, ok := v.(float64); ok {
				k.Metrics[name] = f
			}
		}
		c, p := r.Params["contract"], r.Params["policy"]
		if runs[c] == nil {
			runs[c] = map[string]kunkelRun{}
		}
		runs[c][p] = k
	}
	return runs, jobs
}

var kunkelContracts = []string{"kunkel_fixed", "kunkel_basepeak", "kunkel_t1", "kunkel_t2", "kunkel_t3"}

// TestKunkelTrendsKTH is kunkel.md §6 checks 9–11 and 15 on KTH-SP2, the
// stand-in for DKRZ's traces: consequences of the model that hold on any
// trace, and the T3 discount that follows from the series' means.
func TestKunkelTrendsKTH(t *testing.T) {
	runs, jobs := runKunkelTable10(t, "KTH-SP2-1996-2.1-cln.swf.gz", 1)
	checkKunkelTrends(t, runs, jobs)
	// 15: FIFO's, BackfillDelay's and BSD's costs under T3 are 7–11 %
	// below those under T1 and T2 (the series' means over these days:
	// −9.1 % and −8.6 %).
	for _, p := range []string{"fifo", "backfill_delay", "backfill_shutdown_delay"} {
		t3 := runs["kunkel_t3"][p].Metrics["cost"]
		for _, c := range []string{"kunkel_t1", "kunkel_t2"} {
			if d := 1 - t3/runs[c][p].Metrics["cost"]; d < 0.07 || d > 0.11 {
				t.Errorf("15: %s under T3 costs %.1f %% less than under %s, want 7–11 %%", p, 100*d, c)
			}
		}
	}
}

// TestKunkelTrendsCurie repeats checks 9–11 on CEA-Curie (16 cores a node).
func TestKunkelTrendsCurie(t *testing.T) {
	if testing.Short() {
		t.Skip("CEA-Curie's 300,000 jobs in -short mode")
	}
	runs, jobs := runKunkelTable10(t, "CEA-Curie-2011-2.1-cln.swf.gz", 16)
	checkKunkelTrends(t, runs, jobs)
}

func checkKunkelTrends(t *testing.T, runs map[string]map[string]kunkelRun, jobs string) {
	t.Helper()
	rel := func(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b)) }
	for _, c := range kunkelContracts {
		rs := runs[c]
		if len(rs) != 5 {
			t.Fatalf("%s: %d runs", c, len(rs))
		}
		// 9: the schedulers that keep nodes on use equal energy whenever
		// their run days are equal; FIFO waits at least as long as
		// BackfillDelay at every quantile up to q99.
		on := []string{"fifo", "backfill_delay", "biggest_first_backfill", "longest_first_backfill"}
		for i, a := range on {
			for _, b := range on[i+1:] {
				ma, mb := rs[a].Metrics, rs[b].Metrics
				if ma["run_days"] == mb["run_days"] && rel(ma["energy_mwh"], mb["energy_mwh"]) > 1e-9 {
					t.Errorf("9: %s: %s and %s both run %v days but use %v and %v MWh", c, a, b, ma["run_days"], ma["energy_mwh"], mb["energy_mwh"])
				}
			}
		}
		for _, q := range []string{"wait_q25_s", "wait_q50_s", "wait_q75_s", "wait_q90_s", "wait_q99_s"} {
			if f, bd := rs["fifo"].Metrics[q], rs["backfill_delay"].Metrics[q]; f < bd {
				t.Errorf("9: %s: FIFO's %s %v below BackfillDelay's %v", c, q, f, bd)
			}
		}
		// 10: BSD's schedule is BackfillDelay's job for job; under the
		// flat price its saving is Eq. 4 with the run's own U and span,
		// under the others within 15 % of Eq. 4 at the run's mean price.
		bd, bsd := rs["backfill_delay"], rs["backfill_shutdown_delay"]
		a, errA := os.ReadFile(filepath.Join(jobs, bd.Run+".csv"))
		b, errB := os.ReadFile(filepath.Join(jobs, bsd.Run+".csv"))
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if string(a) != string(b) || strings.Count(string(a), "\n") < 1000 {
			t.Errorf("10: %s: BSD's jobs differ from BackfillDelay's (or are too few)", c)
		}
		saving, eq4 := bd.Metrics["cost"]-bsd.Metrics["cost"], bd.Metrics["theory_shutdown_saving"]
		tol := 0.15
		if c == "kunkel_fixed" {
			tol = 1e-9
		}
		if rel(saving, eq4) > tol {
			t.Errorf("10: %s: BSD saves %.2f, Eq. 4 %.2f (%.2f %% apart, allowed %.0e)", c, saving, eq4, 100*rel(saving, eq4), tol)
		}
		// 11: no scheduler that switches idle nodes off costs less than the
		// client oracle (up to the partial first and last hours), and the
		// all-off oracle costs no more than the client's.
		m := bsd.Metrics
		if m["cost"] < m["oracle_cost_client"]*(1-1e-4) {
			t.Errorf("11: %s: BSD costs %.2f, below the client oracle %.2f", c, m["cost"], m["oracle_cost_client"])
		}
		for p, r := range rs {
			if r.Metrics["oracle_cost_all"] > r.Metrics["oracle_cost_client"] {
				t.Errorf("11: %s %s: oracle all %v above client %v", c, p, r.Metrics["oracle_cost_all"], r.Metrics["oracle_cost_client"])
			}
		}
		if c == "kunkel_fixed" && (m["mean_price"] != 0.145 || m["oracle_best_price"] != 0.145 || m["oracle_worst_price"] != 0.145) {
			t.Errorf("1: flat: mean, best, worst %v %v %v", m["mean_price"], m["oracle_best_price"], m["oracle_worst_price"])
		}
	}
}
