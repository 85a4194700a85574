package compiler_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/lang"
)

// warnHeader is prepended to the scenarios of TestWarningsKeepRuns.
const warnHeader = `import "std/policies"
machine m { nodes 4; power { idle 1 W; busy 2 W } }
machine mp { nodes 4; power { idle 1 W; pstate 2 GHz 10 W; pstate 1 GHz 6 W; slowdown 1.5 at 1 GHz } }
contract fixed { flat 0.1 EUR/kWh }
`

// warningCases holds one scenario for each warning the compiler can emit
// (TestEveryWarningIsCovered counts them), each written where the warning
// is met: swept beside clean values in an experiment.
var warningCases = []struct {
	name  string
	src   string // after warnHeader
	files map[string]string
	warn  string // a part of the warning's summary
	runs  string // the run names of the plan, space-separated
	lint  bool   // only `pwrc check` looks for it (Options.Lint)
}{
	{name: "sla below 1", warn: "no schedule meets an SLA below 1",
		src: `policy ols from easy { active online { sla mean bsld <= 0.5; every 7 d } }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, ols] baseline easy }`,
		runs: "easy ols"},
	{name: "active and shutdown", warn: "sets its active nodes and switches idle nodes off",
		src: `policy a from easy { active fixed 4; shutdown idle after 10 min }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, a] baseline easy }`,
		runs: "easy a"},
	{name: "band without penalty", warn: "the band has no penalty",
		src: `contract banded from fixed { band 1 W..10 kW }
experiment e { workload synthetic { jobs 10 }; machine m; contract [fixed, banded]; policy easy }`,
		runs: "fixed banded"},
	{name: "admit on fixed attributes", warn: "this admit rule depends only on fixed job attributes",
		src: `policy adm from easy { admit job.nodes <= 2 }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, adm] baseline easy }`,
		runs: "easy adm"},
	{name: "admit reads the wait", warn: "this admit rule reads `job.wait`",
		src: `policy adw from easy { admit job.wait > 60 || now.hour > 6 }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, adw] baseline easy }`,
		runs: "easy adw"},
	{name: "knapsack without budget", warn: "selects by knapsack but has no `budget`",
		src: `policy ks from easy { select knapsack }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, ks] baseline easy }`,
		runs: "easy ks"},
	{name: "deadline without recompute", warn: "a deadline matters only with `then recompute`",
		src: `policy dl from fcfs { defer cheapest { lookahead 12 h; deadline 12 h } }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [fcfs, dl] baseline fcfs }`,
		runs: "fcfs dl"},
	{name: "unused declaration", warn: "policy `spare` is not used by any experiment",
		src: `policy spare from easy {}
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [fcfs, easy] baseline easy }`,
		runs: "fcfs easy"},
	{name: "busy below idle", warn: "a busy node draws less than an idle one",
		src: `machine inv { nodes 4; power { idle 3 W; busy 2 W } }
experiment e { workload synthetic { jobs 10 }; machine [m, inv]; contract fixed; policy easy }`,
		runs: "m inv"},
	{name: "pstate above the one before", warn: "pstate 1 GHz draws more than 2 GHz above it",
		src: `machine hot { nodes 4; power { idle 1 W; pstate 2 GHz 10 W; pstate 1 GHz 12 W; slowdown 1.5 at 1 GHz } }
experiment e { workload synthetic { jobs 10 }; machine [m, hot]; contract fixed; policy easy }`,
		runs: "m hot"},
	{name: "pstates without slowdown", warn: "has pstates but no `slowdown`",
		src: `machine fast { nodes 4; power { idle 1 W; pstate 2 GHz 10 W; pstate 1 GHz 6 W } }
experiment e { workload synthetic { jobs 10 }; machine [m, fast]; contract fixed; policy easy }`,
		runs: "m fast"},
	{name: "unused param", warn: "param `spare` is never used",
		src: `param spare = [1, 2]
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [fcfs, easy] baseline easy }`,
		runs: "fcfs easy"},
	{name: "keep above the machine", warn: "keeps 8 idle nodes on, and machine `m` has 4",
		src: `policy keep from easy { shutdown idle after 10 min keep 8 }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, keep] baseline easy }`,
		runs: "easy keep"},
	{name: "powercap above 100%", warn: "a powercap of 120% never binds",
		src: `policy cap from easy { powercap 120% }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, cap] baseline easy }`,
		runs: "easy cap"},
	{name: "lowest under mode shut", warn: "`lowest` is ignored under `mode shut`",
		src: `policy lw from easy { powercap 60% { mode shut; lowest 1 GHz } }
experiment e { workload synthetic { jobs 10 }; machine mp; contract fixed; policy [easy, lw] baseline easy }`,
		runs: "easy lw"},
	{name: "during peak without peak hours", warn: "has no peak hours, so this powercap never applies",
		src: `policy pk from easy { powercap 60% during peak }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, pk] baseline easy }`,
		runs: "easy pk"},
	{name: "powercap window after the trace", warn: "starts after the trace's last submission",
		src: `policy late from easy { powercap 60% from 1000 d for 1 h }
experiment e { workload swf "t.swf"; machine m; contract fixed; policy [easy, late] baseline easy }`,
		files: map[string]string{"t.swf": "; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n2 60 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"},
		runs:  "easy late", lint: true},
	{name: "overlapping powercap windows", warn: "overlaps an earlier one",
		src: `policy two from easy {
  powercap 60% from 1 h for 2 h
  powercap 50% from 2 h for 2 h
}
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, two] baseline easy }`,
		runs: "easy two", lint: true},
	{name: "hourly prices that look per MWh", warn: "look like prices per MWh",
		src: `contract spot { hourly "mwh.csv" { repeat } }
experiment e { workload synthetic { jobs 10 }; machine m; contract [fixed, spot]; policy easy }`,
		files: map[string]string{"mwh.csv": "50\n60\n40\n"},
		runs:  "fixed spot"},
	{name: "hourly prices that look per kWh", warn: "look like prices per kWh",
		src: `contract spot { hourly "kwh.csv" { unit EUR/MWh; repeat } }
experiment e { workload synthetic { jobs 10 }; machine m; contract [fixed, spot]; policy easy }`,
		files: map[string]string{"kwh.csv": "0.1\n0.2\n0.15\n"},
		runs:  "fixed spot"},
	{name: "condition on the clock it cannot time", warn: "reads the clock in a way whose changes pwrc cannot time",
		src: `policy ev from easy { powercap 60% while now.hour * 60 >= 1050 }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, ev] baseline easy }`,
		runs: "easy ev"},
	{name: "account window after the jobs", warn: "starts after the last submission",
		src:  `experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [fcfs, easy] baseline easy; account 100 d .. 200 d }`,
		runs: "fcfs easy", lint: true},
	{name: "keep above a machine sized by its trace", warn: "(from the trace's header)",
		src: `machine auto { nodes auto; power { idle 1 W; busy 2 W } }
policy keep from easy { shutdown idle after 10 min keep 8 }
experiment e { workload swf "t.swf"; machine auto; contract fixed; policy [easy, keep] baseline easy }`,
		files: map[string]string{"t.swf": "; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n2 60 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n"},
		runs:  "easy keep", lint: true},
	{name: "powercap at times below the idle machine", warn: "no job can start while it applies",
		src: `policy low from easy { powercap 2 W from 1 h for 1 h { mode idle } }
experiment e { workload synthetic { jobs 10 }; machine m; contract fixed; policy [easy, low] baseline easy }`,
		runs: "easy low", lint: true},
	{name: "a name no job has", warn: "this comparison never holds",
		src: `policy fav from easy { priority job.user == "carol" ? 1 : 0 }
experiment e { workload sacct "jobs.txt"; machine m; contract fixed; policy [easy, fav] baseline easy }`,
		files: map[string]string{"jobs.txt": "JobID|User|Partition|Submit|Start|End|Elapsed|Timelimit|NNodes|NCPUS|State\n1|alice|compute|2024-03-30T08:00:00|2024-03-30T08:00:05|2024-03-30T09:00:05|01:00:00|02:00:00|1|4|COMPLETED\n2|bob|gpu|2024-03-30T08:10:00|2024-03-30T08:10:05|2024-03-30T09:10:05|01:00:00|02:00:00|1|4|COMPLETED\n"},
		runs:  "easy fav", lint: true},
	{name: "price above 100 per kWh", warn: "`150 EUR/kWh` is more than 100 EUR per kWh",
		src: `contract dear { flat 150 EUR/kWh }
contract lowmwh { flat 120 EUR/kWh }
experiment e { workload synthetic { jobs 10 }; machine m; contract [fixed, dear, lowmwh]; policy [fcfs, easy] baseline easy }`,
		runs: "fixed-fcfs fixed-easy dear-fcfs dear-easy lowmwh-fcfs lowmwh-easy"},
}

// TestWarningsKeepRuns compiles a scenario for each warning the compiler
// emits, with `pwrc check`'s options and `pwrc run`'s: the warning is
// reported, there is no error, and the plan has every run. A warning never
// changes the plan.
func TestWarningsKeepRuns(t *testing.T) {
	for _, tc := range warningCases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"main.pwr": warnHeader + tc.src}
			for k, v := range tc.files {
				files[k] = v
			}
			for _, lint := range []bool{true, false} {
				res := compileFiles("main.pwr", files, compiler.Options{Lint: lint})
				warned := false
				for _, d := range res.Diags {
					if d.Severity == lang.Error {
						t.Fatalf("lint %v: unexpected error: %s", lint, d)
					}
					warned = warned || strings.Contains(d.Summary, tc.warn)
				}
				if !warned && (lint || !tc.lint) {
					t.Errorf("lint %v: no warning %q in %v", lint, tc.warn, res.Diags)
				}
				if res.Plan == nil {
					t.Fatalf("lint %v: no plan", lint)
				}
				var names []string
				for _, r := range res.Plan.Runs {
					names = append(names, r.Name)
				}
				if got := strings.Join(names, " "); got != tc.runs {
					t.Errorf("lint %v: runs %q, want %q", lint, got, tc.runs)
				}
			}
		})
	}
}

// TestWarningsAloneKeepRuns: an experiment whose every run has a warning
// still has its runs, and a file of such experiments is not empty.
func TestWarningsAloneKeepRuns(t *testing.T) {
	src := warnHeader + `contract dear { flat 150 EUR/kWh }
policy keep from easy { shutdown idle after 10 min keep 8 }
experiment a { workload synthetic { jobs 10 }; machine m; contract dear; policy easy }
experiment b { workload synthetic { jobs 10 }; machine m; contract fixed; policy keep }
`
	res := compileFiles("main.pwr", map[string]string{"main.pwr": src}, compiler.Options{})
	if res.Diags.HasErrors() || res.Plan == nil {
		t.Fatalf("%v", res.Diags)
	}
	if got := layout(res.Plan); got != "experiment a dims=[]\n  a []\nexperiment b dims=[]\n  b []\n" {
		t.Errorf("plan:\n%s", got)
	}
}

// TestEveryWarningIsCovered keeps warningCases complete: it counts the
// places in the compiler's source that emit a warning.
func TestEveryWarningIsCovered(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	warnf := regexp.MustCompile(`\.Warnf\(`)
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n += len(warnf.FindAll(b, -1))
	}
	if n != len(warningCases) {
		t.Errorf("the compiler emits warnings in %d places, and warningCases tests %d: add a case for the new one", n, len(warningCases))
	}
}
