package reflawson

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// readTrace reads a gzipped SWF trace under $PWRC_DATA/traces, or skips.
func readTrace(t *testing.T, name string) []Job {
	t.Helper()
	dir := os.Getenv("PWRC_DATA")
	if dir == "" {
		t.Skip("PWRC_DATA not set")
	}
	f, err := os.Open(filepath.Join(dir, "traces", name))
	if err != nil {
		t.Skipf("trace not available: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadSWF(z, true)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// KTH-SP2 with Table 1's U = 100, L = 75 and OLS S = 200 weekly: logs the
// metrics for later comparison and checks lawson.md §6 trends 8 and 9.
func TestKTHTrends(t *testing.T) {
	jobs := readTrace(t, "KTH-SP2-1996-2.1-cln.swf.gz")
	t.Logf("KTH: %d jobs", len(jobs))
	const u, l, week = 100, 75, 7 * 86400.0
	run := func(name string, p Policy) Metrics {
		res, err := Run(jobs, p)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics
		t.Logf("%-22s mean s %.4f  active util %.4f  savings %.4f  changes %d  decisions %d  simulations %d  (span %.0f s, work %.0f, active area %.0f)",
			name, m.MeanSlowdown, m.ActiveUtil, m.Savings, m.Changes, m.Decisions, m.Simulations, m.Span, m.Work, m.ActiveArea)
		return m
	}
	all := run("all", All{U: u})
	two := run("two-level", TwoLevel{L: l, U: u})
	ols := run("ols", OLS{U: u, S: 200, K: week})
	// Variants, logged only.
	run("two-level before pass", TwoLevel{L: l, U: u, LowerBeforePass: true})
	run("ols binary", OLS{U: u, S: 200, K: week, Search: Binary})
	run("ols raise to max", OLS{U: u, S: 200, K: week, Raise: ToMax})

	// Trend 8: two-level vs all processors.
	if two.Savings < 0.10 {
		t.Errorf("trend 8: two-level savings %.4f < 10 %%", two.Savings)
	}
	if two.ActiveUtil < 0.80 {
		t.Errorf("trend 8: two-level active utilization %.4f < 80 %%", two.ActiveUtil)
	}
	if f := two.MeanSlowdown / all.MeanSlowdown; f < 1.5 || f > 2.5 {
		t.Errorf("trend 8: two-level / all mean s = %.4f, outside [1.5, 2.5]", f)
	} else {
		t.Logf("two-level / all mean s = %.4f", f)
	}
	// Trend 9: OLS vs two-level.
	if ols.MeanSlowdown > 200 {
		t.Errorf("trend 9: OLS mean s %.4f > 200", ols.MeanSlowdown)
	}
	if ols.MeanSlowdown >= two.MeanSlowdown {
		t.Errorf("trend 9: OLS mean s %.4f not below two-level's %.4f", ols.MeanSlowdown, two.MeanSlowdown)
	}
	if ols.ActiveUtil >= two.ActiveUtil {
		t.Errorf("trend 9: OLS active utilization %.4f not below two-level's %.4f", ols.ActiveUtil, two.ActiveUtil)
	}
	if ols.Savings < 0.05 || ols.Savings > 0.15 {
		t.Errorf("trend 9: OLS savings %.4f outside [5 %%, 15 %%]", ols.Savings)
	}
}
