package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Rules on Slurm accounting compare names: a priority on the user orders
// the queue, an admit rule on the partition admits as written, a keep on
// the account cuts, a power rule on the QOS sets the jobs' power; the job
// records keep the numbers of the trace's names.
func TestNamesInRules(t *testing.T) {
	var trace strings.Builder
	trace.WriteString("JobID|User|Account|Partition|QOS|Submit|Start|End|Elapsed|AllocCPUS|State\n")
	at := func(s int) string { return time.Unix(1717200000+int64(s), 0).UTC().Format("2006-01-02T15:04:05") }
	// Job 1, bob's, holds all 4 nodes until 101; jobs 2..9 (1 node, 10 s)
	// queue behind it, alice's (even) and bob's (odd) alternating; job
	// 10, alice's on p-x, is cancelled while pending.
	fmt.Fprintf(&trace, "1|bob|p-bob|compute|normal|%s|%s|%s|00:01:40|4|COMPLETED\n", at(1), at(1), at(101))
	for i := 2; i <= 9; i++ {
		user, part, qos := []string{"bob", "alice"}[1-i%2], []string{"gpu", "compute"}[i%2], "normal"
		if i%3 == 0 {
			qos = "high"
		}
		fmt.Fprintf(&trace, "%d|%s|p-%s|%s|%s|%s|%s|%s|00:00:10|1|COMPLETED\n", i, user, user, part, qos, at(i), at(i), at(i+10))
	}
	fmt.Fprintf(&trace, "10|alice|p-x|gpu|normal|%s|%s|%s|00:00:00|0|CANCELLED by 1\n", at(10), at(50), at(50))
	src := `
import "std/policies"
machine m { nodes 4; cores 1; power { off 10 W; idle 100 W; busy 250 W } }
contract flat { flat 0.10 EUR/kWh }
policy alice_first from fcfs { priority job.user == "alice" ? 1 : 0 }
policy gpu_later from fcfs { admit job.partition != "gpu" || now.seconds >= 1000 }
experiment e {
  workload sacct "jobs.txt" { power rule job.qos == "high" ? 400 : 200 }
  machine m
  contract flat
  policy [alice_first, gpu_later]
}
experiment cut {
  workload sacct "jobs.txt" { keep job.account in ["p-alice", "p-zed"] }
  machine m
  contract flat
  policy fcfs
}
`
	rs := runScenario(t, src, map[string]string{"jobs.txt": trace.String()})
	names := rs[0].Workload.Names
	if names == nil || !reflect.DeepEqual(names[workload.NameUser], []string{"bob", "alice"}) ||
		!reflect.DeepEqual(names[workload.NameAccount], []string{"p-bob", "p-alice"}) {
		t.Fatalf("names %v (p-x's only job never started)", names)
	}
	user := func(j runtime.JobRecord) string { return names.Name(workload.NameUser, j.User) }
	part := func(j runtime.JobRecord) string { return names.Name(workload.NamePartition, j.Partition) }
	qos := func(j runtime.JobRecord) string { return names.Name(workload.NameQOS, j.QOS) }
	r := byName(t, rs, "e-alice_first")
	latestAlice := 0.0
	for _, j := range r.Jobs {
		if user(j) == "alice" {
			latestAlice = max(latestAlice, j.Start)
		}
	}
	for _, j := range r.Jobs {
		if j.ID > 1 && user(j) == "bob" && j.Start < latestAlice {
			t.Errorf("alice_first: bob's job %d starts at %g, before alice's last (%g)", j.ID, j.Start, latestAlice)
		}
		if want := map[string]float64{"high": 400, "normal": 200}[qos(j)]; j.Power != want*float64(j.Nodes) {
			t.Errorf("job %d of QOS %s draws %g W on %d nodes, want %g per node", j.ID, qos(j), j.Power, j.Nodes, want)
		}
		if j.Queue != -1 || j.Account < 1 {
			t.Errorf("job %d: queue %d, account %d", j.ID, j.Queue, j.Account)
		}
	}
	for _, j := range byName(t, rs, "e-gpu_later").Jobs {
		if part(j) == "gpu" && j.Start != 1000 {
			t.Errorf("gpu_later: gpu job %d starts at %g, want 1000 (when the rule admits it)", j.ID, j.Start)
		}
	}
	cut := rs[len(rs)-1]
	var ids []int64
	for _, j := range cut.Jobs {
		ids = append(ids, j.ID)
	}
	if !reflect.DeepEqual(ids, []int64{2, 4, 6, 8}) || cut.Workload.Cut.Keep != 5 {
		t.Errorf("keep job.account in [\"p-alice\", …] kept %v (%d cut)", ids, cut.Workload.Cut.Keep)
	}
	if !strings.Contains(strings.Join(cut.Notes, "\n"), `no job of jobs.txt has the account "p-zed", so comparing job.account with "p-zed" never holds`) {
		t.Errorf("no note of the missing account:\n%s", strings.Join(cut.Notes, "\n"))
	}
}

// The sample of Slurm accounting: `keep job.partition == "gpu"` keeps its
// gpu job, and a priority on the user runs.
func TestNamesOnSample(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("workload", "testdata", "sacct", "jobs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	src := `
import "std/policies"
machine m { nodes 16; cores 128; power { off 10 W; idle 100 W; busy 350 W } }
contract flat { flat 0.10 EUR/kWh }
policy alice_first from easy { priority job.user == "alice" ? 1 : 0 }
experiment gpu {
  workload sacct "jobs.txt" { timezone "Europe/Berlin"; keep job.partition == "gpu" }
  machine m
  contract flat
  policy alice_first
}
`
	rs := runScenario(t, src, map[string]string{"jobs.txt": string(sample)})
	if len(rs[0].Jobs) != 1 || rs[0].Jobs[0].ID != 4100140 {
		t.Errorf("keep job.partition == \"gpu\" kept %+v", rs[0].Jobs)
	}
}

// Run.Rules lists every rule a run has: a run with a rule in each place
// a plan puts one.
func TestRunRules(t *testing.T) {
	var run runtime.Run
	var want []*runtime.Expr
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.Type() == reflect.TypeOf(&runtime.Expr{}) {
				e := &runtime.Expr{Source: fmt.Sprint(len(want))}
				want = append(want, e)
				v.Set(reflect.ValueOf(e))
				return
			}
			if v.Type().Elem().Kind() == reflect.Struct && v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
				fill(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Struct {
				v.Set(reflect.MakeSlice(v.Type(), 2, 2))
				for i := range 2 {
					fill(v.Index(i))
				}
			}
		}
	}
	fill(reflect.ValueOf(&run).Elem())
	got := run.Rules()
	if len(want) < 12 || len(got) != len(want) {
		t.Fatalf("Rules lists %d rules of %d", len(got), len(want))
	}
	for _, e := range want {
		found := false
		for _, g := range got {
			found = found || g == e
		}
		if !found {
			t.Errorf("Rules lacks rule %s", e.Source)
		}
	}
}
