package compiler_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestIntervalRechecksWaitRules: a rule on job.wait is re-read only when
// something happens, unless the policy has a cycle (`interval`). A lone job
// admitted after an hour's wait never starts without one (the run says
// why), and starts at the first tick after the hour with one.
func TestIntervalRechecksWaitRules(t *testing.T) {
	trace := "; MaxProcs: 4\n1 0 -1 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n"
	scenario := header + `
		policy patient from easy { admit job.wait > 3600 }
		policy cycled from patient { interval 10 min }
		experiment e { workload swf "t.swf"; machine m; contract kunkel_fixed; policy [patient, cycled] }`
	res := compileFiles("main.pwr", map[string]string{"main.pwr": scenario, "t.swf": trace}, compiler.Options{})
	if res.Plan == nil {
		t.Fatalf("no plan: %v", res.Diags)
	}
	warned := false
	for _, d := range res.Diags {
		warned = warned || strings.Contains(d.Summary, "reads `job.wait`")
	}
	if !warned {
		t.Error("no warning for an admit rule on job.wait without an interval")
	}
	var rs []*runtime.Result
	func() {
		// Data files are read relative to the working directory.
		dir := t.TempDir()
		t.Chdir(dir)
		writeFile(t, "t.swf", trace)
		rs = runtime.Execute(context.Background(), res.Plan, runtime.Options{KeepJobs: true})
	}()
	if rs[0].Err == nil || !strings.Contains(rs[0].Err.Error(), "never started") {
		t.Errorf("without an interval: err %v, want the job never to start", rs[0].Err)
	}
	if rs[1].Err != nil {
		t.Fatal(rs[1].Err)
	}
	if got := rs[1].Jobs[0].Start; got != 4200 {
		t.Errorf("with interval 10 min the job starts at %v, want 4200 (the first tick with a wait above 3600 s)", got)
	}
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
