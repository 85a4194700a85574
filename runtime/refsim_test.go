package runtime

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/pwrc/pwrc/internal/refsim"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The engine must agree job for job with the independent reference
// simulator (internal/refsim, written separately from DESIGN §5) and pass
// its schedule checks, on every real trace and under every basic policy.

var basicPolicies = []struct {
	name string
	pol  Policy
	ref  string
}{
	{"fcfs", Policy{Name: "fcfs"}, "fcfs"},
	{"easy", Policy{Name: "easy", Backfill: EASY}, "easy"},
	{"easy_exact", Policy{Name: "easy_exact", Backfill: EASY, Estimate: Exact}, "easy"},
}

func testMachine(nodes int) Machine {
	return Machine{Name: "m", Nodes: nodes, Cores: 1, Power: NodePower{Idle: 70, Busy: 260, Boot: 70, Shutdown: 70}}
}

// replay simulates jobs with a flat tariff.
func replay(t testing.TB, jobs []workload.Job, nodes int, pol Policy) *sim {
	t.Helper()
	m := testMachine(nodes)
	s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), m.Power.Busy), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func compareWithReference(t *testing.T, jobs []workload.Job, nodes int, pol Policy, ref string) {
	t.Helper()
	s := replay(t, jobs, nodes, pol)
	in := make([]refsim.Job, len(jobs))
	sched := make([]refsim.Scheduled, len(jobs))
	for i, j := range jobs {
		in[i] = refsim.Job{Submit: j.Submit, Runtime: j.Runtime, Estimate: s.est[i], Nodes: j.Nodes}
		sched[i] = refsim.Scheduled{Submit: j.Submit, Start: s.start[i], End: s.end[i], Estimate: s.est[i], Nodes: j.Nodes}
	}
	want, err := refsim.Simulate(in, nodes, ref)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range jobs {
		if s.start[i] != want[i] {
			if bad < 5 {
				t.Errorf("job %d (line %d): engine starts it at %v, reference at %v", jobs[i].ID, jobs[i].Line, s.start[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d start times differ from the reference simulator", bad, len(jobs))
	}
	if err := refsim.CheckCapacity(sched, nodes); err != nil {
		t.Error(err)
	}
	if err := refsim.CheckCausality(sched); err != nil {
		t.Error(err)
	}
	switch ref {
	case "fcfs":
		if err := refsim.CheckFCFSOrder(sched); err != nil {
			t.Error(err)
		}
	case "easy":
		if err := refsim.CheckEASYReservation(sched, nodes); err != nil {
			t.Error(err)
		}
	}
}

func loadTrace(t testing.TB, name string) ([]workload.Job, int) {
	t.Helper()
	path := testenv.Data(t, filepath.Join("traces", name))
	tr, err := workload.OpenSWF(path, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes := tr.Header.MaxProcs
	if nodes == 0 {
		nodes = tr.Header.MaxNodes
	}
	jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 1, Nodes: nodes})
	return jobs, nodes
}

var allTraces = []string{
	"KTH-SP2-1996-2.1-cln.swf.gz",
	"SDSC-SP2-1998-first5K.swf.gz",
	"HPC2N-2002-2.1-cln.swf.gz",
	"SDSC-BLUE-2000-4.2-cln.swf.gz",
	"CEA-Curie-2011-2.1-cln.swf.gz",
	"LANL-CM5-1994-4.1-cln.swf.gz",
	"LLNL-Thunder-2007-1.1-cln.swf.gz",
	"NASA-iPSC-1993-3.1-cln.swf.gz",
	"lublin_256.swf.gz",
}

func TestRealTracesMatchReference(t *testing.T) {
	for _, name := range allTraces {
		t.Run(name, func(t *testing.T) {
			jobs, nodes := loadTrace(t, name)
			if !testenv.Long() && len(jobs) > 50000 {
				t.Skip("a large trace: a long test (set PWRC_LONG=1)")
			}
			for _, p := range basicPolicies {
				t.Run(p.name, func(t *testing.T) { compareWithReference(t, jobs, nodes, p.pol, p.ref) })
			}
		})
	}
}

// randomJobs makes n jobs on a machine of the given width, with times on a
// grain of seconds: a coarse grain gives many simultaneous events, ties
// that real traces rarely have. A fifth of the jobs are killed at their
// requested time; most are narrow, some as wide as the machine.
func randomJobs(rng *rand.Rand, n, nodes int, grain float64) []workload.Job {
	var jobs []workload.Job
	tm := 0.0
	for i := range n {
		tm += grain * float64(rng.IntN(4))
		run := grain * float64(1+rng.IntN(50))
		wall := run * float64(1+rng.IntN(3))
		if rng.IntN(5) == 0 {
			run = wall
		}
		w := 1 + rng.IntN(nodes)
		if rng.IntN(3) > 0 {
			w = 1 + rng.IntN(max(1, nodes/8))
		}
		jobs = append(jobs, workload.Job{ID: int64(i + 1), Submit: tm, Runtime: run, Walltime: wall, Procs: w, Nodes: w})
	}
	return jobs
}

func TestRandomWorkloadsMatchReference(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		nodes := 8 + rng.IntN(120)
		jobs := randomJobs(rng, 1500, nodes, []float64{1, 60, 600}[seed%3])
		for _, p := range basicPolicies {
			t.Run(fmt.Sprintf("seed%d/%s", seed, p.name), func(t *testing.T) { compareWithReference(t, jobs, nodes, p.pol, p.ref) })
		}
	}
}

func TestExecuteIsDeterministicAcrossWorkers(t *testing.T) {
	p := &Plan{}
	for i, pol := range basicPolicies {
		r := &Run{Index: i, Name: pol.name, Baseline: -1, Policy: pol.pol, Machine: testMachine(64),
			Workload: Workload{Kind: Synthetic, Name: "synthetic", Synthetic: workload.Synthetic{Jobs: 3000, Load: 0.9, Seed: 3}},
			Contract: Contract{Name: "flat", Kind: Flat, Price: 0.1}}
		p.Runs = append(p.Runs, r)
	}
	a := Execute(context.Background(), p, Options{Workers: 1, KeepJobs: true})
	b := Execute(context.Background(), p, Options{Workers: 3, KeepJobs: true})
	for i := range a {
		if a[i].Err != nil || b[i].Err != nil {
			t.Fatal(a[i].Err, b[i].Err)
		}
		if fmt.Sprint(a[i].Metrics) != fmt.Sprint(b[i].Metrics) || fmt.Sprint(a[i].Jobs) != fmt.Sprint(b[i].Jobs) {
			t.Errorf("run %s differs between 1 and 3 workers", a[i].Run.Name)
		}
	}
}

// constPower gives n jobs the same power per node.
func constPower(n int, w float64) []float64 {
	pw := make([]float64, n)
	for i := range pw {
		pw[i] = w
	}
	return pw
}
