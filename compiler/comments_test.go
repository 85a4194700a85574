package compiler_test

import (
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestCommentsInRules: a rule continued over several lines may carry
// comments where a newline continues it (after an operator, inside
// brackets, on lines of their own), and compiles to the rule without them
// (issue 24, item 10).
func TestCommentsInRules(t *testing.T) {
	const commented = `
policy p from easy {
  priority job.wait / job.walltime +   # ageing
    # a line of its own
    job.nodes / 16                     # width
  admit (job.nodes <= 2 ||  # narrow jobs
         now.hour >= 20)    # or at night
}`
	plain := `
policy p from easy {
  priority job.wait / job.walltime +
    job.nodes / 16
  admit (job.nodes <= 2 ||
         now.hour >= 20)
}`
	exp := "\nexperiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy p }\n"
	a := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + commented + exp}, compiler.Options{})
	b := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + plain + exp}, compiler.Options{})
	pa, pb := a.Runs[0].Policy, b.Runs[0].Policy
	for _, env := range []runtime.Env{
		{Job: runtime.JobEnv{Wait: 3600, Walltime: 7200, Nodes: 1}, Now: runtime.NowEnv{Hour: 3}},
		{Job: runtime.JobEnv{Wait: 60, Walltime: 600, Nodes: 32}, Now: runtime.NowEnv{Hour: 21}},
		{Job: runtime.JobEnv{Wait: 0, Walltime: 60, Nodes: 8}, Now: runtime.NowEnv{Hour: 12}},
	} {
		if x, y := pa.Priority.Num(&env), pb.Priority.Num(&env); x != y {
			t.Errorf("priority %v with comments, %v without", x, y)
		}
		if x, y := pa.Admit.Bool(&env), pb.Admit.Bool(&env); x != y {
			t.Errorf("admit %v with comments, %v without", x, y)
		}
	}
	// An error after a comment points at the source, not the blanked text.
	res := compileFiles("main.pwr", map[string]string{"main.pwr": header + strings.Replace(commented, "job.nodes / 16", "job.nodez / 16", 1) + exp}, compiler.Options{})
	if len(res.Diags) != 1 || res.Diags[0].Range.Start.Line != 8 || res.Diags[0].Range.Start.Col != 9 || res.Diags[0].Range.End.Col != 14 {
		t.Errorf("want one error at 8:9-14 (`nodez`), got %v", res.Diags)
	}
}
