package report

import (
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// decisionRuns are four runs: a baseline, one cheaper that waits longer,
// one that waits less at the same cost as the baseline, one beaten by the
// cheaper run on both axes; with carbon, the last emits least.
func decisionRuns(carbon bool) []Run {
	mk := func(name string, cost, wait, co2 float64) Run {
		r := &pwrt.Result{Run: &pwrt.Run{Name: name}}
		m := &r.Metrics
		m.Cost, m.WaitQ90, m.CO2, m.HasCarbon, m.Currency = cost, wait, co2, carbon, "EUR"
		if name != "base" {
			m.HasSaving, m.SavingAgainst = true, "base"
		}
		return Run{Result: r, Label: name}
	}
	return []Run{
		mk("base", 1000, 3600, 5e6),
		mk("cheap", 800, 7200, 4e6),
		mk("quick", 1000, 1800, 5e6),
		mk("worse", 900, 9000, 1e6),
	}
}

// The Pareto set is the runs no other run matches or beats on every
// axis: without carbon, "worse" (beaten by "cheap") and "base" (matched
// on cost and beaten on waits by "quick") are out; with carbon, "worse"
// emits least and is in.
func TestDecisionPareto(t *testing.T) {
	for _, c := range []struct {
		carbon bool
		front  string
	}{{false, "cheap,quick"}, {true, "cheap,quick,worse"}} {
		cs, carbon := choices(decisionRuns(c.carbon))
		if carbon != c.carbon {
			t.Fatalf("carbon %v, want %v", carbon, c.carbon)
		}
		var front []string
		for _, x := range cs {
			if x.pareto {
				front = append(front, x.label)
			}
			if x.baseline != (x.label == "base") {
				t.Errorf("%s: baseline %v", x.label, x.baseline)
			}
		}
		if got := strings.Join(front, ","); got != c.front {
			t.Errorf("carbon %v: Pareto set %s, want %s", c.carbon, got, c.front)
		}
	}
}

// The words name the best run on each axis with its figures against the
// baseline, and the Pareto set; the scatter draws each set as a series.
func TestDecisionWords(t *testing.T) {
	lines := strings.Join(Decision(decisionRuns(true)), "\n")
	for _, want := range []string{
		"Cheapest: cheap, 800 € (200 € less than the baseline, 20.0 %)",
		"its jobs wait (90th percentile) 2.0 h (1.0 h more than the baseline)",
		"Shortest waits: quick, 90 % of its jobs wait at most 30 min; costs 1,000 € (as the baseline), emits 5.00 t CO₂ (as the baseline)",
		"Least CO₂: worse, 1.00 t",
		"The best choices (no other run is cheaper, waits less and emits less): cheap, quick, worse.",
		"The other run is matched or beaten on every axis by one of them.",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("the summary lacks %q:\n%s", want, lines)
		}
	}
	d := parseSVG(t, DecisionSVG(decisionRuns(false)))
	var names []string
	for _, s := range d.Series {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "beaten,best choices,baseline" {
		t.Errorf("series %s", got)
	}
}
