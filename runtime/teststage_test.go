package runtime

import (
	"math"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// A stage written only here, in a test, with a timeline of its own: a
// maintenance pause during which no job starts. It proves the stage
// protocol: the engine knows nothing of it, yet the stage is woken at
// both ends of its pause (nothing else happens there), holds the passes
// in between, and lets held jobs start at the instant it ends.
type pauseStage struct {
	from, to float64
	woken    []float64 // the instants it was called at, for the test
}

func (p *pauseStage) wake(s *sim) float64 {
	switch {
	case s.now < p.from:
		return p.from
	case s.now < p.to:
		return p.to
	}
	return math.Inf(1)
}

func (p *pauseStage) before(s *sim, _, _ int) {
	if s.now == p.from || s.now == p.to {
		p.woken = append(p.woken, s.now)
	}
}

func (p *pauseStage) gate(s *sim, _ bool) bool { return s.now < p.from || s.now >= p.to }

// withStage adds a stage to a run, before the policy's own.
func withStage(st stage) simOption { return func(s *sim) { s.stages.add(st) } }

func TestStageWrittenInATest(t *testing.T) {
	// Four nodes; jobs of 100 s submitted every 300 s; the pause holds
	// [1000, 2000): jobs submitted in it wait for its end.
	var jobs []workload.Job
	for i := range 10 {
		jobs = append(jobs, workload.Job{ID: int64(i + 1), Submit: float64(i) * 300, Runtime: 100, Walltime: 100, Nodes: 1, Procs: 1})
	}
	m := testMachine(4)
	for _, pol := range []Policy{{Name: "fcfs"}, {Name: "easy", Backfill: EASY}, {Name: "easy_off", Backfill: EASY, Shutdown: &Shutdown{After: 60}}} {
		p := &pauseStage{from: 1000, to: 2000}
		s, err := simulate(jobs, &m, 4, &pol, constPower(len(jobs), 260), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), withStage(p))
		if err != nil {
			t.Fatal(err)
		}
		for i, j := range jobs {
			want := j.Submit
			if want >= p.from && want < p.to {
				want = p.to
			}
			if s.start[i] != want {
				t.Errorf("%s: job %d submitted at %g started at %g, want %g", pol.Name, j.ID, j.Submit, s.start[i], want)
			}
		}
		if len(p.woken) != 2 || p.woken[0] != p.from || p.woken[1] != p.to {
			t.Errorf("%s: the stage acted at %v, want at both ends of its pause", pol.Name, p.woken)
		}
	}
}

// Each stage of the engine implements the hooks it is meant to: a hook
// misnamed would silently never be called.
func TestStageHooks(t *testing.T) {
	want := map[string]string{
		"active":   "wake before after",
		"powercap": "wake before arrivalOnly",
		"defer":    "wake gate arrivalOnly",
		"budget":   "arrivalOnly",
		"clock":    "wake",
		"shutdown": "wake after",
	}
	stages := map[string]stage{"active": &capacity{}, "powercap": &capStage{}, "defer": &deferStage{}, "budget": &budgetStage{},
		"clock": &clockStage{}, "shutdown": &shutdownStage{}}
	if len(stages) != len(stageKinds) {
		t.Fatalf("%d stage kinds, %d here: add the new one", len(stageKinds), len(stages))
	}
	for _, k := range stageKinds {
		st, ok := stages[k.name]
		if !ok {
			t.Fatalf("no stage for kind %s here", k.name)
		}
		var got []string
		if _, ok := st.(waker); ok {
			got = append(got, "wake")
		}
		if _, ok := st.(beforePass); ok {
			got = append(got, "before")
		}
		if _, ok := st.(gater); ok {
			got = append(got, "gate")
		}
		if _, ok := st.(afterPass); ok {
			got = append(got, "after")
		}
		if _, ok := st.(arrivalRule); ok {
			got = append(got, "arrivalOnly")
		}
		if g := strings.Join(got, " "); g != want[k.name] {
			t.Errorf("stage %s implements %q, want %q", k.name, g, want[k.name])
		}
	}
}

// A scheduler's cycle ticks only where a rule reads what time changes: a
// job that no rule will ever admit fails the run at once, not after 20
// simulated years of passes at every tick.
func TestIntervalWithoutTimeRules(t *testing.T) {
	jobs := []workload.Job{{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Nodes: 1, Procs: 1}, {ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Nodes: 1, Procs: 1}}
	never := &Expr{Source: "job.id == 1", Deps: DepJob, Fields: FieldID, Bool: func(e *Env) bool { return e.Job.ID == 1 }}
	m := testMachine(4)
	passes := 0
	pol := Policy{Name: "p", Backfill: EASY, Admit: never, Interval: 60}
	_, err := simulate(jobs, &m, 4, &pol, constPower(len(jobs), 260), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), withStage(&countPasses{n: &passes}))
	if err == nil || !strings.Contains(err.Error(), "refused by the admit rule") {
		t.Fatalf("error %v, want job 2 refused by the admit rule", err)
	}
	if passes > 10 {
		t.Errorf("%d instants before the run gave up", passes)
	}
}

// countPasses counts the instants of a run.
type countPasses struct{ n *int }

func (c *countPasses) before(*sim, int, int) { *c.n++ }
