package runtime

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	goruntime "runtime"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"

	"github.com/pwrc/pwrc/internal/testenv"
)

// feedInPieces publishes jobs a few at a time from another goroutine,
// each piece once the run has taken the one before and waits for more:
// the run sees every piece alone, and instants whose arrivals are split
// across pieces. Closing stop ends it early.
func feedInPieces(jobs []workload.Job, seed uint64, stop <-chan struct{}) *jobFeed {
	f := newJobFeed()
	go func() {
		rng := rand.New(rand.NewPCG(seed, 5))
		h := workload.Header{}
		for n := 0; n < len(jobs); {
			w := f.waitsSoFar()
			n = min(len(jobs), n+1+rng.IntN(12))
			f.publish(&h, jobs[:n])
			for n < len(jobs) && f.waitsSoFar() == w {
				select {
				case <-stop:
					return
				default:
					goruntime.Gosched()
				}
			}
		}
		f.end(jobs, true)
	}()
	return f
}

func (f *jobFeed) waitsSoFar() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waits
}

// A run fed its jobs a few at a time schedules each job as a run given
// every job at once, under every policy a stream allows, shutdown and
// boot delays included; one whose static keys are out of trace order
// gives up (errFeedAbandoned) rather than guess.
func TestFeedInPiecesChangesNothing(t *testing.T) {
	shortFirst := &Expr{Source: "job.walltime", Deps: DepJob, Fields: FieldWalltime, Num: func(e *Env) float64 { return e.Job.Walltime }}
	bySubmit := &Expr{Source: "job.submit", Deps: DepJob, Fields: FieldSubmit, Num: func(e *Env) float64 { return e.Job.Submit }}
	waitRatio := &Expr{Source: "job.wait / job.walltime", Deps: DepJob | DepWait, Fields: FieldWait | FieldWalltime,
		Num: func(e *Env) float64 { return e.Job.Wait / e.Job.Walltime }}
	policies := []Policy{
		{Name: "easy_wait_ratio", Backfill: EASY, Priority: waitRatio, Order: bySubmit},
		{Name: "greedy_wait_ratio", Backfill: Greedy, Depth: 50, Priority: waitRatio},
		{Name: "fcfs"},
		{Name: "easy", Backfill: EASY},
		{Name: "easy_exact", Backfill: EASY, Estimate: Exact},
		{Name: "greedy", Backfill: Greedy, Depth: 3},
		{Name: "easy_by_submit", Backfill: EASY, Order: bySubmit},
		{Name: "easy_sjf", Backfill: EASY, Order: shortFirst},
		{Name: "easy_shutdown", Backfill: EASY, Shutdown: &Shutdown{After: 0}},
		{Name: "easy_shutdown_later", Backfill: EASY, Shutdown: &Shutdown{After: 600}},
		{Name: "easy_every_10min", Backfill: EASY, Interval: 600},
	}
	// (Long queues too: the queue index needs every job; and the queue
	// indexed from the first arrival on, the index growing in place with
	// every piece.)
	seeds := uint64(3) // (both kinds of index use, and every policy)
	if testenv.Long() {
		seeds = 8
	}
	randomCases{seeds: seeds, stream: 11, jobs: 3000, span: 60}.run(t, policies, func(t *testing.T, seed uint64, jobs []workload.Job, m *Machine, pol *Policy) {
		whole, err := simulate(jobs, m, m.Nodes, pol, constPower(len(jobs), 260), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
		if err != nil {
			t.Fatal(err)
		}
		var opts []simOption
		indexAtOnce := seed%2 == 1
		if indexAtOnce {
			opts = append(opts, indexQueueAt(1, 0))
		}
		stop := make(chan struct{})
		f := feedInPieces(jobs, seed, stop)
		first, _, _ := f.first()
		fed, err := simulate(first, m, m.Nodes, pol, nil, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1),
			append(opts, streamFrom(f, newPowerDraw(JobPower{Kind: ConstantPower, Value: 260}, m, nil)))...)
		close(stop)
		if pol.Name == "easy_sjf" {
			if !errors.Is(err, errFeedAbandoned) {
				t.Fatalf("keys out of trace order: got %v, want the run abandoned", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if w := f.waitsSoFar(); w < len(jobs)/13 {
			t.Fatalf("the run waited for jobs %d times: not fed in pieces", w)
		}
		if len(fed.jobs) != len(jobs) {
			t.Fatalf("fed %d jobs of %d", len(fed.jobs), len(jobs))
		}
		if indexAtOnce && !fed.q.scanOnly && (fed.q.builds != 1 || fed.q.ix.n != len(jobs)) {
			t.Fatalf("indexed from the start: built %d times, holding %d jobs of %d; want it built once and grown", fed.q.builds, fed.q.ix.n, len(jobs))
		}
		for i := range jobs {
			if fed.start[i] != whole.start[i] || fed.end[i] != whole.end[i] {
				t.Fatalf("job %d: fed starts %v, ends %v; whole %v, %v", jobs[i].ID, fed.start[i], fed.end[i], whole.start[i], whole.end[i])
			}
		}
		if !slices.Equal(fed.led.Energy, whole.led.Energy) || !reflect.DeepEqual(fed.record().metrics(), whole.record().metrics()) {
			t.Fatalf("energy or metrics differ: %v vs %v", fed.led.Energy, whole.led.Energy)
		}
	})
}
