package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Options control plan execution.
type Options struct {
	Workers  int  // parallel runs; ≤ 0 means 1
	KeepJobs bool // keep per-job records in results (for --jobs), with the nodes each held
	// KeepStates keeps each run's machine state at every change (for
	// --series).
	KeepStates bool
	// States, if set, gives each run a sink that receives its machine
	// state at every change as the run makes it, instead of the run
	// keeping it (Result.States stays nil): a report bins it without
	// holding every run's whole series. It is called from the goroutine
	// that simulates the run; nil keeps nothing.
	States func(*Run) StateSink
	// KeepWaits keeps each job's wait (start − submit), in trace order,
	// without the rest of its record (for a report's wait distributions).
	KeepWaits bool
	// NodeIDs gives nodes identities in every run, so that every job
	// record has its node list, a counted machine's too (Batsim's
	// allocated_resources).
	NodeIDs bool
	// Runs, if not nil, are the runs to simulate (plan indices), with the
	// runs they need (their baselines and dependencies); the others'
	// results are nil. Comparisons with baselines are made as in a run of
	// the whole plan.
	Runs []int
	// Progress, if set, is called after each run finishes, never
	// concurrently.
	Progress func(done, total int)
	// Finished, if set, is called with each run's result as soon as the
	// run ends, before the comparisons with baselines (savings, inverse
	// pairs) fill in its metrics: from the goroutine that simulated it,
	// so concurrently for different runs. It may drop the result's Jobs,
	// States and Waits once it has used them (a sweep then does not hold
	// every run's records to its end); nothing else reads them.
	Finished func(*Result)
	// WholeTraces reads every trace before simulating on it: no run
	// streams its trace (feed.go). Results are the same either way; tests
	// compare the two.
	WholeTraces bool
	// NoTwins simulates every run on its own, twins too (twins.go).
	// Results are the same either way; tests compare the two.
	NoTwins bool
}

// Result is the outcome of one run.
type Result struct {
	Run      *Run
	Metrics  Metrics
	Jobs     []JobRecord // when Options.KeepJobs
	Workload WorkloadInfo
	States   *StateSeries // when Options.KeepStates
	Waits    []float64    // when Options.KeepWaits: each job's start − submit, in trace order
	Notes    []string     // approximations and warnings worth printing with the table
	Err      error
	starts   []float64      // start times, kept until inverse pairs are counted …
	order    func() []int32 // … and, made once when first asked, startOrder(starts)
	paired   bool           // its inverse pairs were counted as it ended (see runOne)
	streamed bool           // it simulated while its trace was read (feed.go)
	lead     *Run           // the run whose simulation served it, a twin (twins.go); nil: its own
}

// JobRecord is one job's schedule. Times are on the trace's clock.
type JobRecord struct {
	ID       int64
	Submit   float64
	Start    float64
	End      float64
	Nodes    int
	Procs    int
	Walltime float64 // the time it requested, at its pstate (stretched as its run time is)
	Alloc    int     // nodes allocated (Nodes rounded up to the contiguous unit)
	Killed   bool    // a powercap killed it (running kill) at End
	Power    float64 // W drawn while running: working nodes plus the idle rest of the allocation
	// NodeList is the nodes the job held, as ranges ("0-15,32"); PState
	// the pstate it ran at (0: the highest) and Freq its frequency in Hz
	// (0 on a machine without pstates).
	NodeList string
	PState   int
	Freq     float64
	// From the trace (SWF fields 12, 13, 15, 16); -1 if unknown. On
	// Slurm accounting, User, Group, Partition, Account and QOS number
	// the names of the run's WorkloadInfo.Names, and Queue is -1; on SWF,
	// Account and QOS are 0.
	User, Group, Queue, Partition, Account, QOS int
}

// WorkloadInfo says what was loaded for a run and what cleaning did.
type WorkloadInfo struct {
	Name     string
	Path     string
	Records  int
	Clean    workload.CleanStats
	BadLines int
	FirstBad []int
	Nodes    int // machine nodes after resolving `nodes auto`
	// ScaledFrom is the trace machine's width in nodes when jobs were
	// scaled onto this machine; 0 if not.
	ScaledFrom int
	Cut        CutStats // jobs the workload's keep and submitted cuts dropped
	// Sacct is what reading Slurm accounting did (steps folded, jobs
	// dropped by state, energies measured); nil for other workloads.
	Sacct      *workload.SacctStats
	SacctCores int // the CPUs per node a job must hold to count as on whole nodes
	// Names are the names behind the numbers of the jobs' user, group,
	// account, partition and QOS (Slurm accounting); nil for other
	// workloads.
	Names *workload.Names
	Epoch int64
	Zone  string
}

// Execute runs every run of the plan, up to opts.Workers at a time, and
// returns results in plan order. Output does not depend on Workers: each
// run is deterministic and results are placed by index.
func Execute(ctx context.Context, p *Plan, opts Options) []*Result {
	res := make([]*Result, len(p.Runs))
	chosen := needed(p, opts.Runs)
	lead := twinsOf(p, chosen, opts)
	ld := newLoader(p, chosen, lead)
	// Runs in a baseline comparison keep their start times for the inverse
	// pairs, but for a run that depends on its baseline (a budget of the
	// baseline's power): it counts them as it ends, so a sweep of such runs
	// does not hold every schedule to the end.
	compared := map[int]bool{}
	for _, r := range p.Runs {
		if r.Baseline >= 0 {
			compared[r.Baseline] = true
			if !slices.Contains(r.DependsOn, r.Baseline) {
				compared[r.Index] = true
			}
		}
	}
	twins := make([][]int, len(p.Runs)) // per lead, its twins, in plan order
	for k, l := range lead {
		if l != k {
			twins[l] = append(twins[l], k)
		}
	}
	workers := max(1, opts.Workers)
	var mu sync.Mutex
	done, total := 0, 0
	for _, c := range chosen {
		if c {
			total++
		}
	}
	// Runs whose dependencies are met go first; dependencies always point
	// to finished levels, so each level runs fully in parallel.
	for _, level := range levels(p, chosen) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(level)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					// (A run's twins are in its level: their baselines
					// are in finished levels.)
					var tws []*twin
					for _, k := range twins[i] {
						tws = append(tws, &twin{run: p.Runs[k], baseline: dependency(p.Runs[k], res), keepStarts: compared[k]})
					}
					r := runOne(ctx, ld, p.Runs[i], opts, dependency(p.Runs[i], res), compared[i], tws)
					finished := []*Result{r}
					for _, tw := range tws {
						if tw.res == nil {
							tw.res = runOne(ctx, ld, tw.run, opts, tw.baseline, tw.keepStarts, nil)
						}
						finished = append(finished, tw.res)
					}
					at := append([]int{i}, twins[i]...)
					mu.Lock()
					for k, r := range finished {
						res[at[k]] = r
						done++
						if opts.Progress != nil {
							opts.Progress(done, total)
						}
					}
					mu.Unlock()
					if opts.Finished != nil {
						for _, r := range finished {
							if r != nil {
								opts.Finished(r)
							}
						}
					}
				}
			}()
		}
		for _, i := range level {
			if lead[i] == i {
				next <- i
			}
		}
		close(next)
		wg.Wait()
	}
	compareWithBaselines(p, res)
	return res
}

// needed says which runs to simulate: all of them (only nil), or the
// runs in only and those they need, their baselines and dependencies.
func needed(p *Plan, only []int) []bool {
	need := make([]bool, len(p.Runs))
	if only == nil {
		for i := range need {
			need[i] = true
		}
		return need
	}
	var add func(i int)
	add = func(i int) {
		if i < 0 || i >= len(need) || need[i] {
			return
		}
		need[i] = true
		r := p.Runs[i]
		add(r.Baseline)
		for _, d := range r.DependsOn {
			add(d)
		}
	}
	for _, i := range only {
		add(i)
	}
	return need
}

// dependency is the finished baseline result a run needs (for a budget
// relative to it), or nil: levels guarantee it has finished.
func dependency(r *Run, res []*Result) *Result {
	for _, d := range r.DependsOn {
		if d == r.Baseline {
			return res[d]
		}
	}
	return nil
}

// levels groups the chosen runs so that each run comes after the runs it
// depends on.
func levels(p *Plan, chosen []bool) [][]int {
	depth := make([]int, len(p.Runs))
	var out [][]int
	for i, r := range p.Runs {
		if !chosen[i] {
			continue
		}
		for _, d := range r.DependsOn {
			depth[i] = max(depth[i], depth[d]+1)
		}
		for len(out) <= depth[i] {
			out = append(out, nil)
		}
		out[depth[i]] = append(out[depth[i]], i)
	}
	return out
}

// compareWithBaselines fills each run's savings and inverse pairs against
// its baseline, then drops the start times kept for the pairs. Runs not
// simulated (nil) are skipped; a baseline saves nothing against itself
// whenever a run of the plan is compared with it.
func compareWithBaselines(p *Plan, res []*Result) {
	for _, r := range res {
		if r == nil || r.Err != nil || r.Run.Baseline < 0 {
			continue
		}
		b := res[r.Run.Baseline]
		if b == nil || b.Err != nil {
			continue
		}
		switch {
		case r.paired:
			r.Metrics.HasInversePairs, b.Metrics.HasInversePairs = true, true
		case r.starts != nil && len(b.starts) == len(r.starts): // else different job sets: not comparable
			r.Metrics.InversePairs = inversePairs(b.starts, b.order(), r.starts)
			r.Metrics.HasInversePairs, b.Metrics.HasInversePairs = true, true
		}
		r.Metrics.SavingAgainst = b.Run.Name
		r.Metrics.Saving = b.Metrics.Cost - r.Metrics.Cost
		if b.Metrics.Cost != 0 {
			r.Metrics.SavingPct = 100 * r.Metrics.Saving / b.Metrics.Cost
		}
		bj, rj := b.Metrics.JobCost(), r.Metrics.JobCost()
		r.Metrics.JobSaving = bj - rj
		if bj != 0 {
			r.Metrics.JobSavingPct = 100 * (bj - rj) / bj
		}
		r.Metrics.HasSaving = true
	}
	for _, r := range res {
		if r != nil && r.Err == nil && r.Run.Baseline < 0 && isBaselineOfSome(r.Run, p) {
			r.Metrics.HasSaving = true // the baseline saves nothing against itself
		}
	}
	for _, r := range res {
		if r != nil {
			r.starts, r.order = nil, nil
		}
	}
}

func isBaselineOfSome(r *Run, p *Plan) bool {
	for _, o := range p.Runs {
		if o.Baseline == r.Index {
			return true
		}
	}
	return false
}

// twin is a run simulated with its lead (twins.go), and what it needs.
type twin struct {
	run        *Run
	baseline   *Result // its own, for its budget and inverse pairs
	keepStarts bool
	res        *Result // its result once the lead's simulation served it; nil: simulate it alone
}

// runOne executes a run, and its twins where it can; a rule that fails at
// run time becomes its error.
func runOne(ctx context.Context, ld *loader, run *Run, o Options, baseline *Result, keepStarts bool, twins []*twin) *Result {
	if ctx.Err() == nil && ld.claimStream(run, o) {
		feed := ld.stream(run)
		if res := runWith(ctx, ld, run, o, baseline, keepStarts, feed, twins); res != nil && res.Err == nil {
			res.streamed = true
			return res
		}
		// A streamed run that gives up, or fails, runs again on the whole
		// trace: a failure then comes with what loading the trace said.
		feed.settle()
	}
	return runWith(ctx, ld, run, o, baseline, keepStarts, nil, twins)
}

// runWith runs run on its whole trace, or with a feed on the jobs read so
// far while the rest is read (feed.go); nil says a streamed run gave up.
// Twins it serves get their results; the others, and all of them if the
// run fails, are left to be simulated alone.
func runWith(ctx context.Context, ld *loader, run *Run, o Options, baseline *Result, keepStarts bool, feed *jobFeed, twins []*twin) (res *Result) {
	res = &Result{Run: run}
	defer func() {
		if res == nil || res.Err != nil {
			for _, tw := range twins {
				tw.res = nil
			}
		}
	}()
	defer func() {
		if x := recover(); x != nil {
			var ee *EvalError
			if e, ok := x.(error); ok && errors.As(e, &ee) {
				res.Err = ee
				return
			}
			panic(x)
		}
	}()
	if err := ctx.Err(); err != nil {
		res.Err = err
		return res
	}
	var (
		jobs []workload.Job
		info WorkloadInfo
		err  error
	)
	if feed != nil {
		// The first jobs, and what the header says of the machine and the
		// clock; the rest of info is known once the trace is read.
		var h workload.Header
		var ok bool
		if jobs, h, ok = feed.first(); !ok {
			return nil
		}
		info = WorkloadInfo{Name: run.Workload.Name, Path: run.Workload.Path}
		if _, err := info.fromHeader(run, keyOf(run), h); err != nil {
			return nil
		}
	} else {
		jobs, info, err = ld.jobs(run)
	}
	res.Workload = info
	if err != nil {
		res.Err = err
		return res
	}
	su, err := setUp(run, info, jobs, ld, baseline)
	res.Workload.Cut = su.cut
	res.Notes = append(res.Notes, su.notes...)
	if err != nil {
		res.Err = err // the run is named wherever its error is shown
		return res
	}
	jobs, clock, priceFrom, acct := su.jobs, su.clock, su.priceFrom, su.acct
	var opts []simOption
	opts = append(opts, capOrigin(su.origin))
	if su.names != nil {
		opts = append(opts, withNames(su.names))
	}
	switch {
	case o.KeepJobs && o.NodeIDs:
		opts = append(opts, recordNodes())
	case o.KeepJobs:
		opts = append(opts, keepNodeLists())
	}
	if su.windowed {
		if run.Measure {
			opts = append(opts, measureOver(su.from, su.to))
		} else {
			opts = append(opts, accountOver(su.from, su.to))
		}
	}
	if acct.book.bill != nil {
		opts = append(opts, withBill(acct.book.bill, acct.book.carbon))
	}
	// The twins whose contracts can be set up and whose budgets come out
	// as this run's: the simulation keeps their books too.
	var served []*twin
	var books []*book
	for _, tw := range twins {
		_, notes, err := clockFor(tw.run, info, ld)
		if err != nil {
			continue
		}
		ta, err := accountFor(tw.run, clock, priceFrom, ld, tw.baseline)
		if err != nil || ta.budget != acct.budget {
			continue
		}
		// (A twin has its lead's rules, hence its name notes.)
		notes = append(notes, su.nameNotes...)
		tw.res = &Result{Run: tw.run, Notes: append(notes, ta.notes...), lead: run}
		served, books = append(served, tw), append(books, &ta.book)
	}
	if len(books) > 0 {
		opts = append(opts, keepBooks(books))
	}
	if o.States != nil {
		sinks := []StateSink{o.States(run)}
		for _, tw := range served {
			sinks = append(sinks, o.States(tw.run))
		}
		opts = append(opts, streamStates(fanOut(sinks)))
	} else if o.KeepStates {
		opts = append(opts, recordStates())
	}
	m := run.Machine
	var pw []float64
	if feed != nil {
		opts = append(opts, streamFrom(feed, newPowerDraw(run.Workload.Power, &m, su.names)))
	} else {
		pw = jobPowers(jobs, run.Workload.Power, &m, su.names)
	}
	s, err := simulate(jobs, &m, info.Nodes, &run.Policy, pw, acct.budget, clock, acct.book.tar, opts...)
	if feed != nil {
		if err != nil {
			return nil // (the whole trace's run says what failed)
		}
		// Every job is in: what loading the trace said.
		var all []workload.Job
		all, info, err = ld.jobs(run)
		if err != nil || len(all) != len(s.jobs) {
			return nil
		}
		jobs, res.Workload = s.jobs, info
	}
	if err != nil {
		res.Err = err // the run is named wherever its error is shown
		return res
	}
	var states *StateSeries
	if s.states != nil {
		s.states.flush()
		if s.states.sink == nil {
			states = &s.states.StateSeries
		}
	}
	// (Twins have the same starts: their order is sorted once.)
	order := sync.OnceValue(func() []int32 { return startOrder(s.start) })
	if res.finish(s, o, jobs, baseline, keepStarts, clock, order); res.Err != nil {
		return res
	}
	res.States = states
	for i, tw := range served {
		tw.res.Workload = res.Workload
		s.useBook(books[i])
		if tw.res.finish(s, o, jobs, tw.baseline, tw.keepStarts, clock, order); tw.res.Err == nil {
			tw.res.States = states
		}
	}
	return res
}

// setup is what a run needs, besides its cleaned jobs, to simulate them.
type setup struct {
	jobs  []workload.Job // after the workload's cuts
	cut   CutStats
	clock tariff.Clock
	// origin is the first submission of the cleaned trace, before the
	// cuts: offsets in cuts, windows and powercaps count from it.
	origin float64
	// priceFrom is where prices must start: the first submission, or the
	// accounting window's start if it is earlier.
	priceFrom float64
	windowed  bool    // the run has an accounting (or measure) window …
	from, to  float64 // … over these trace times
	acct      account
	names     *NameSets // the answers to the rules' name tests (Slurm accounting)
	nameNotes []string  // what they say of names the trace lacks
	notes     []string
}

// setUp does what a run does before it simulates its cleaned jobs (the
// first of them, when it streams its trace): it sets the trace's clock,
// applies the workload's cuts, places the accounting window and sets up
// the contract's book and the policy's budget. Its errors are those of a
// run's inputs (*InputError), and `pwrc check` reports them through
// InputCheck, which calls it as a run does.
func setUp(run *Run, info WorkloadInfo, jobs []workload.Job, ld *loader, baseline *Result) (setup, error) {
	var su setup
	clock, notes, err := clockFor(run, info, ld)
	if err != nil {
		return su, &InputError{Part: PartWorkload, Err: err}
	}
	su.clock, su.notes = clock, notes
	names, notes, err := bindNames(run, info.Names, ld)
	if err != nil {
		return su, &InputError{Part: PartWorkload, Err: err}
	}
	su.names, su.nameNotes, su.notes = names, notes, append(su.notes, notes...)
	first := 0.0
	if len(jobs) > 0 {
		first = jobs[0].Submit
	}
	// Offsets in cuts and accounting windows count from the first
	// submission of the cleaned trace, before any cut (`submitted 0 d ..
	// 547.5 d` is the trace's first 547.5 days whatever `keep` drops).
	su.origin = first
	jobs, su.cut, err = ld.cut(jobs, &run.Workload, su.origin, clock, su.names)
	if err == nil && len(jobs) == 0 {
		err = fmt.Errorf("workload %s: its cuts (keep, submitted) leave no job to simulate: %d dropped by keep, %d by submitted", run.Workload.Name, su.cut.Keep, su.cut.Submitted)
	}
	if err != nil {
		return su, &InputError{Part: PartCuts, Err: err}
	}
	su.jobs = jobs
	if len(jobs) > 0 {
		first = jobs[0].Submit
	}
	// The accounting window is placed first: a run accounted from before
	// its first job needs prices from then, so an hourly series starts at
	// local midnight of the window's first day by default.
	su.priceFrom = first
	if a := run.Account; a != nil && len(jobs) > 0 {
		from, to, err := a.resolve(clock, su.origin)
		if err != nil {
			return su, &InputError{Part: PartAccount, Err: err}
		}
		su.windowed, su.from, su.to = true, from, to
		su.priceFrom = min(first, from)
	}
	if su.acct, err = accountFor(run, clock, su.priceFrom, ld, baseline); err != nil {
		return su, err
	}
	su.notes = append(su.notes, su.acct.notes...)
	return su, nil
}

// account is what a run's contract makes of its schedule: the book its
// simulation keeps (tariff, carbon intensity, the bill beyond the energy
// price), its power budget (which may be relative to its baseline's
// power), and the notes these call for.
type account struct {
	book   book
	budget float64
	notes  []string
}

func accountFor(run *Run, clock tariff.Clock, priceFrom float64, ld *loader, baseline *Result) (account, error) {
	var a account
	tar, notes, err := tariffFor(run, clock, priceFrom, ld)
	if err != nil {
		return a, &InputError{Part: PartPrices, Err: err}
	}
	a.book.tar, a.notes = tar, notes
	if k := &run.Contract; k.Band != nil || k.Demand != nil || k.EnergyBudget > 0 || k.HasCarbon {
		carbon, err := carbonFor(run, clock, priceFrom, ld)
		if err != nil {
			return a, &InputError{Part: PartCarbon, Err: err}
		}
		a.book.bill, a.book.carbon = k, carbon
	}
	budget, notes, err := budgetFor(run, baseline, tar)
	if err != nil {
		return a, &InputError{Part: PartBudget, Err: err}
	}
	a.budget, a.notes = budget, append(a.notes, notes...)
	return a, nil
}

// finish fills a result from the simulation of its schedule, whose
// accounting is the result's run's.
func (res *Result) finish(s *sim, o Options, jobs []workload.Job, baseline *Result, keepStarts bool, clock tariff.Clock, order func() []int32) {
	run := res.Run
	if keepStarts {
		res.starts, res.order = s.start, order
	}
	rec := s.record()
	res.Metrics = rec.metrics()
	if res.Metrics.Jobs > 0 {
		res.Metrics.AccountFromLocal = clock.Time(res.Metrics.AccountFrom).Format(time.RFC3339)
		res.Metrics.AccountToLocal = clock.Time(res.Metrics.AccountTo).Format(time.RFC3339)
	}
	for _, sla := range run.SLAs {
		res.Metrics.SLAViolationsAt = append(res.Metrics.SLAViolationsAt, SLAShares{SLA: sla, Share: rec.slaViolations(sla)})
	}
	if b := baseline; b != nil && b.Err == nil && len(b.starts) == len(s.start) {
		res.Metrics.InversePairs, res.paired = inversePairs(b.starts, b.order(), s.start), true
	}
	info := res.Workload
	res.Metrics.Dropped = info.Clean.Dropped()
	for i := range jobs { // (those simulated: a cut may have dropped some)
		if jobs[i].Capped {
			res.Metrics.Capped++
		}
	}
	res.Metrics.Currency = run.Contract.Currency
	if len(jobs) > 0 {
		from, to := rec.span()
		note, err := priceCoverage(&run.Contract, clock, s.tar, from, to)
		if err != nil {
			res.Err = err // the run is named wherever its error is shown
			return
		}
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		if s.carbon != nil {
			note, err := coverage(carbonOf(&run.Contract), clock, s.carbon, from, to, "")
			if err != nil {
				res.Err = err
				return
			}
			if note != "" {
				res.Notes = append(res.Notes, note)
			}
		}
		res.Notes = append(res.Notes, oracleNotes(&run.Policy)...)
	}
	if o.KeepWaits {
		res.Waits = make([]float64, len(jobs))
		for i, j := range jobs {
			res.Waits[i] = s.start[i] - j.Submit
		}
	}
	if s.caps != nil {
		res.Notes = append(res.Notes, s.caps.planNotes(s)...)
	}
	if o.KeepJobs {
		res.Jobs = make([]JobRecord, len(jobs))
		for i, j := range jobs {
			// The walltime the engine used: the requested time at the
			// job's pstate, as its run time is (the two stretch alike).
			wt := j.Walltime
			if p := s.pstate[i]; p > 0 {
				wt *= s.stretch[p]
			}
			r := JobRecord{ID: j.ID, Submit: j.Submit, Start: s.start[i], End: s.end[i], Nodes: j.Nodes,
				Procs: j.Procs, Walltime: wt, Alloc: int(s.alloc[i]), Power: s.jw[i], Killed: s.caps != nil && s.caps.gone[i],
				User: int(j.User), Group: int(j.Group), Queue: int(j.Queue), Partition: int(j.Partition), Account: int(j.Account), QOS: int(j.QOS),
				PState: int(s.pstate[i])}
			if s.held != nil {
				r.NodeList = s.held[i]
			}
			if ps := run.Machine.PStates; len(ps) > 0 {
				r.Freq = ps[s.pstate[i]].Freq
			}
			res.Jobs[i] = r
		}
	}
}

// budgetFor resolves a run's power budget in W: +Inf without one.
func budgetFor(run *Run, baseline *Result, tar tariff.Tariff) (float64, []string, error) {
	b := run.Policy.Budget
	if b == nil {
		return math.Inf(1), nil, nil
	}
	var notes []string
	if b.When == BudgetDuringPeak && !slices.Contains(tar.Periods(), "peak") {
		notes = append(notes, fmt.Sprintf("policy %s: contract %s has no peak hours, so its budget never applies", run.Policy.Name, run.Contract.Name))
	}
	if b.OfBaseline <= 0 {
		return b.Power, notes, nil
	}
	if baseline == nil {
		return 0, nil, fmt.Errorf("policy %s: a budget relative to the baseline needs a baseline run", run.Policy.Name)
	}
	if baseline.Err != nil {
		return 0, nil, fmt.Errorf("policy %s: the budget is relative to baseline run %s, which failed", run.Policy.Name, baseline.Run.Name)
	}
	return b.OfBaseline * baseline.Metrics.JobPowerMean, notes, nil
}

// clockFor maps the trace's clock to wall-clock time: the SWF header's
// UnixStartTime and TimeZoneString, unless the scenario overrides them.
func clockFor(run *Run, info WorkloadInfo, ld *loader) (tariff.Clock, []string, error) {
	var notes []string
	c, err := traceClock(&run.Workload, info.Epoch, info.Zone)
	if err != nil {
		return c, nil, err
	}
	if run.Contract.Kind != Flat && info.Epoch == 0 && run.Workload.Start == "" && run.Workload.Kind == SWF {
		notes = append(notes, fmt.Sprintf("%s has no UnixStartTime: tariff hours assume the trace starts at 1970-01-01 00:00 %s; set `start` in the workload to fix", info.Name, c.Loc))
	}
	return c, notes, nil
}

// traceClock is a trace's clock: the header's start time (epoch) and
// zone, unless the workload overrides them.
func traceClock(w *Workload, epoch int64, zone string) (tariff.Clock, error) {
	c := tariff.Clock{Epoch: epoch, Loc: time.UTC}
	if w.TimeZone != "" {
		zone = w.TimeZone
	}
	if zone != "" {
		loc, err := tariff.LoadLocation(zone)
		if err != nil {
			return c, fmt.Errorf("time zone %q: %w", zone, err)
		}
		c.Loc = loc
	}
	if w.Start != "" {
		t, err := time.ParseInLocation("2006-01-02T15:04:05", w.Start, c.Loc)
		if err != nil {
			return c, err
		}
		c.Epoch = t.Unix()
	}
	return c, nil
}

// TraceSpan is when an SWF trace's jobs are submitted, on its clock, for
// the compiler's checks of windows placed on it (a powercap's).
type TraceSpan struct {
	First, Last float64 // the first and last submission, trace seconds
	Clock       tariff.Clock
}

// SpanOf is trace tr's span as workload w reads it (its zone and start
// overrides; the records as they are, before cleaning and cuts).
func SpanOf(w *Workload, tr *workload.Trace) (TraceSpan, error) {
	c, err := traceClock(w, tr.Header.UnixStartTime, TraceZone(tr.Header))
	sp := TraceSpan{First: math.Inf(1), Last: math.Inf(-1), Clock: c}
	for _, r := range tr.Records {
		if r.Submit >= 0 {
			sp.First, sp.Last = min(sp.First, r.Submit), max(sp.Last, r.Submit)
		}
	}
	return sp, err
}

// At places an instant on the span's clock: a local date, or an offset
// after the first submission.
func (sp *TraceSpan) At(i Instant) (float64, error) { return i.on(sp.Clock, sp.First) }

// Local is trace time t as a local date, as a scenario writes it.
func (sp *TraceSpan) Local(t float64) string {
	return sp.Clock.Time(t).Format("2006-01-02 15:04")
}

// tariffFor builds the run's tariff. An hourly series starts at local
// midnight of the day of the first submission (not of the header's start
// time: CEA-Curie's first job comes a year after it), unless the contract
// gives a start or the file's timestamps place it. Its prices are scaled to
// currency per kWh. A series that starts after the first submission fails
// the run here, unless it may repeat; runOne checks the rest of the run
// once it is simulated.
func tariffFor(run *Run, clock tariff.Clock, first float64, ld *loader) (tariff.Tariff, []string, error) {
	k := run.Contract
	switch k.Kind {
	case Flat:
		return tariff.Flat(k.Price), nil, nil
	case BasePeak:
		return tariff.BasePeak(clock, k.Peak, k.PeakPrice, k.BasePrice), nil, nil
	}
	var series *tariff.Series
	var err error
	switch {
	case k.Generate != nil:
		series = tariff.Generate(*k.Generate)
	case k.Prices == "":
		return nil, nil, fmt.Errorf("contract %s: no price file (set its path)", k.Name)
	default:
		if series, err = ld.prices(k.Prices, k.PriceFormat); err != nil {
			return nil, nil, fmt.Errorf("contract %s: %w", k.Name, err)
		}
	}
	start := tariff.LocalMidnight(clock, first)
	switch {
	case series.Timed():
		if start, err = series.Start(clock.Loc); err != nil {
			return nil, nil, fmt.Errorf("contract %s: %w", k.Name, err)
		}
	case k.SeriesStart != "":
		if start, err = tariff.ParseLocal(k.SeriesStart, clock.Loc); err != nil {
			return nil, nil, fmt.Errorf("contract %s: start %q: %w", k.Name, k.SeriesStart, err)
		}
	}
	tar := tariff.Hourly(clock, series.Scaled(k.PriceScale), start)
	if _, err := priceCoverage(&k, clock, tar, first, first); err != nil {
		return nil, nil, err
	}
	return tar, nil, nil
}

// carbonFor is the grid's carbon intensity for a run (g/kWh; nil without
// one): a constant, or an hourly series read, scaled and placed as
// tariffFor does prices, with the block of `carbon hourly` for the hourly
// one's (`time`, `unit`, `start`, `repeat`).
func carbonFor(run *Run, clock tariff.Clock, first float64, ld *loader) (tariff.Tariff, error) {
	k := run.Contract
	if !k.HasCarbon {
		return nil, nil
	}
	var series *tariff.Series
	var err error
	switch {
	case k.CarbonGenerate != nil:
		series = tariff.Generate(*k.CarbonGenerate)
	case k.CarbonSeries == "":
		return tariff.Flat(k.Carbon), nil
	default:
		if series, err = ld.prices(k.CarbonSeries, k.CarbonFormat); err != nil {
			return nil, fmt.Errorf("contract %s: carbon: %w", k.Name, err)
		}
	}
	series = series.Scaled(k.CarbonScale)
	for i, v := range series.Prices {
		if v < 0 {
			return nil, fmt.Errorf("contract %s: carbon: hour %d of the series has a negative intensity, %g g/kWh", k.Name, i+1, v)
		}
	}
	start := tariff.LocalMidnight(clock, first)
	switch {
	case series.Timed():
		if start, err = series.Start(clock.Loc); err != nil {
			return nil, fmt.Errorf("contract %s: carbon: %w", k.Name, err)
		}
	case k.CarbonStart != "":
		if start, err = tariff.ParseLocal(k.CarbonStart, clock.Loc); err != nil {
			return nil, fmt.Errorf("contract %s: carbon: start %q: %w", k.Name, k.CarbonStart, err)
		}
	}
	tar := tariff.Hourly(clock, series, start)
	if _, err := coverage(carbonOf(&k), clock, tar, first, first, ""); err != nil {
		return nil, err
	}
	return tar, nil
}

// loader loads each trace and price file once per Execute, however many
// runs share it, and cleans each trace once per machine shape.
type loader struct {
	mu      sync.Mutex
	users   map[traceKey]int  // shapes yet to be cleaned from each trace
	shapes  map[shape]bool    // shapes not yet cleaned
	records map[traceKey]int  // each trace's record count (kept when the records go)
	readers map[traceKey]int  // chosen runs reading each trace
	claimed map[traceKey]bool // traces a run streams
	traces  map[traceKey]*onceValue[*workload.Trace]
	cleaned map[cleanKey]*onceValue[cleaned]
	series  map[string]*onceValue[*tariff.Series]
	names   map[nameKey]*onceValue[[]bool] // answers to name tests, per trace
	// open opens data files: os.Open when Execute runs a plan, the
	// compiler's opener when `pwrc check` reads them (InputCheck).
	open func(string) (io.ReadCloser, error)
	// lastCut, when not nil, keeps the last cut made (InputCheck: the runs
	// of a sweep cut the same jobs alike, one after another).
	lastCut *madeCut
}

// madeCut is a cut of cleaned jobs and what it kept.
type madeCut struct {
	first *workload.Job // the jobs cut (their array and length)
	n     int
	keep  *Expr
	sub   Window
	clock tariff.Clock
	jobs  []workload.Job
	stats CutStats
	err   error
}

// cut applies the workload's cuts (cutJobs), or gives the last cut again
// when it was of the same jobs, rule, window and clock.
func (ld *loader) cut(jobs []workload.Job, w *Workload, origin float64, clock tariff.Clock, names *NameSets) ([]workload.Job, CutStats, error) {
	if ld.lastCut == nil || len(jobs) == 0 {
		return cutJobs(jobs, w, origin, clock, names)
	}
	var sub Window
	if w.Submitted != nil {
		sub = *w.Submitted
	}
	// (Zones compare by name: each run loads its own.)
	if m := ld.lastCut; m.first == &jobs[0] && m.n == len(jobs) && m.keep == w.Keep && m.sub == sub &&
		m.clock.Epoch == clock.Epoch && m.clock.Loc.String() == clock.Loc.String() {
		return m.jobs, m.stats, m.err
	}
	kept, st, err := cutJobs(jobs, w, origin, clock, names)
	*ld.lastCut = madeCut{first: &jobs[0], n: len(jobs), keep: w.Keep, sub: sub, clock: clock, jobs: kept, stats: st, err: err}
	return kept, st, err
}

type traceKey struct {
	path string
	skip bool
	// sacct: the options that change what is read
	sacct     bool
	zone      string
	cores     int
	exclusive bool
	format    string
}

type cleanKey struct {
	trace        traceKey
	synth        workload.Synthetic
	cores, nodes int
	scaleTo      int // ScaleToMachine: the machine's nodes; 0 = no scaling
}

type cleaned struct {
	jobs  []workload.Job
	stats workload.CleanStats
}

type onceValue[T any] struct {
	once sync.Once
	v    T
	err  error
}

// shape is what cleaning a trace for a run depends on besides the trace:
// runs of one shape share their cleaned jobs.
type shape struct {
	trace        traceKey
	cores, nodes int
	scale        bool
}

func shapeOf(r *Run) shape {
	return shape{trace: keyOf(r), cores: r.Machine.Cores, nodes: r.Machine.Nodes, scale: r.Workload.ScaleToMachine}
}

func newLoader(p *Plan, chosen []bool, lead []int) *loader {
	users, shapes := map[traceKey]int{}, map[shape]bool{}
	readers := map[traceKey]int{}
	for i, r := range p.Runs {
		if chosen[i] && lead[i] == i && r.Workload.Kind != Synthetic {
			readers[keyOf(r)]++ // (a twin reads nothing: its lead's jobs serve it)
		}
		if sh := shapeOf(r); r.Workload.Kind != Synthetic && chosen[i] && !shapes[sh] {
			shapes[sh] = true
			users[sh.trace]++
		}
	}
	return &loader{
		users:   users,
		shapes:  shapes,
		readers: readers,
		claimed: map[traceKey]bool{},
		records: map[traceKey]int{},
		traces:  map[traceKey]*onceValue[*workload.Trace]{},
		cleaned: map[cleanKey]*onceValue[cleaned]{},
		series:  map[string]*onceValue[*tariff.Series]{},
		names:   map[nameKey]*onceValue[[]bool]{},
		open:    openFile,
	}
}

// nameKey is a name test answered on a trace's names.
type nameKey struct {
	trace traceKey
	test  *NameTest
}

// nameSet answers a name test on the names of a trace, once however many
// runs read it.
func (ld *loader) nameSet(tk traceKey, t *NameTest, names *workload.Names) ([]bool, error) {
	return getOnce(&ld.mu, ld.names, nameKey{tk, t}, func() ([]bool, error) { return t.answer(names) })
}

func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }

func getOnce[K comparable, T any](mu *sync.Mutex, m map[K]*onceValue[T], k K, f func() (T, error)) (T, error) {
	mu.Lock()
	o := m[k]
	if o == nil {
		o = &onceValue[T]{}
		m[k] = o
	}
	mu.Unlock()
	o.once.Do(func() { o.v, o.err = f() })
	return o.v, o.err
}

func (ld *loader) prices(path string, f tariff.Format) (*tariff.Series, error) {
	return getOnce(&ld.mu, ld.series, path+"\x00"+f.Time.String(), func() (*tariff.Series, error) {
		rc, err := ld.open(path)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return tariff.ReadPrices(path, rc, f)
	})
}

// claimStream reports whether run may simulate while its trace is read
// (streams), and if so makes it the one run that does.
func (ld *loader) claimStream(run *Run, o Options) bool {
	if o.WholeTraces || !streams(run, o) {
		return false
	}
	tk := keyOf(run)
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if ld.readers[tk] != 1 || ld.claimed[tk] || ld.traces[tk] != nil {
		return false
	}
	ld.claimed[tk] = true
	return true
}

// jobs returns the cleaned jobs of a run and what loading them did.
func (ld *loader) jobs(run *Run) ([]workload.Job, WorkloadInfo, error) {
	w := run.Workload
	m := run.Machine
	info := WorkloadInfo{Name: w.Name, Path: w.Path}
	if w.Kind == Synthetic {
		spec := w.Synthetic
		spec.Nodes = m.Nodes
		info.Nodes = m.Nodes
		if err := spec.Validate(); err != nil {
			return nil, info, &InputError{Part: PartWorkload, Err: err} // (its messages name the workload)
		}
		c, _ := getOnce(&ld.mu, ld.cleaned, cleanKey{synth: spec, nodes: m.Nodes}, func() (cleaned, error) {
			jobs := workload.Generate(spec)
			return cleaned{jobs: jobs, stats: workload.CleanStats{Records: len(jobs), Jobs: len(jobs)}}, nil
		})
		info.Records, info.Clean = len(c.jobs), c.stats
		if len(c.jobs) == 0 {
			return nil, info, &InputError{Part: PartWorkload, Err: noSyntheticJobs(spec)}
		}
		return c.jobs, info, nil
	}
	tk, sh := keyOf(run), shapeOf(run)
	tr, err := getOnce(&ld.mu, ld.traces, tk, func() (*workload.Trace, error) {
		tr, err := ld.read(&w, tk)
		if err == nil {
			ld.mu.Lock()
			ld.records[tk] = len(tr.Records)
			ld.mu.Unlock()
		}
		return tr, err
	})
	if err != nil {
		if w.Where != "" {
			// Name the scenario line that names the file: with a sweep of
			// traces, or a --set path, the file alone may not say which.
			err = fmt.Errorf("%w (the trace named at %s)", err, w.Where)
		}
		return nil, info, &InputError{Part: PartWorkload, Err: err}
	}
	ld.mu.Lock()
	info.Records = ld.records[tk]
	ld.mu.Unlock()
	info.BadLines, info.FirstBad = tr.BadLines, tr.FirstBad
	if tr.Sacct != nil {
		st := tr.Sacct.Stats
		info.Sacct, info.SacctCores, info.Names = &st, m.Cores, &tr.Sacct.Names
	}
	key, err := info.fromHeader(run, tk, tr.Header)
	if err != nil {
		ld.done(sh, tr)
		return nil, info, &InputError{Part: PartWorkload, Err: err}
	}
	c, _ := getOnce(&ld.mu, ld.cleaned, key, func() (cleaned, error) {
		jobs, st := workload.Clean(tr, workload.Cleaning{Cores: m.Cores, Nodes: key.nodes})
		if key.scaleTo > 0 {
			jobs = scaleJobs(jobs, key.nodes, key.scaleTo)
		}
		return cleaned{jobs: jobs, stats: st}, nil
	})
	info.Clean = c.stats
	ld.done(sh, tr)
	if len(c.jobs) == 0 {
		return nil, info, &InputError{Part: PartWorkload, Err: noJobsError(w.Path, info)}
	}
	return c.jobs, info, nil
}

// fromHeader sets what a trace's header says of the run (its clock, the
// machine's width) and returns how the run cleans the trace.
func (info *WorkloadInfo) fromHeader(run *Run, tk traceKey, h workload.Header) (cleanKey, error) {
	info.Epoch, info.Zone = h.UnixStartTime, TraceZone(h)
	key, err := cleanKeyOf(run, tk, h)
	if err != nil {
		return key, err
	}
	info.Nodes = key.nodes
	if key.scaleTo > 0 {
		info.Nodes, info.ScaledFrom = key.scaleTo, key.nodes
	}
	return key, nil
}

// cleanKeyOf says how a run cleans its trace, whose header is h: the
// machine's width, from the header with `nodes auto`, and the width jobs
// are scaled from.
func cleanKeyOf(run *Run, tk traceKey, h workload.Header) (cleanKey, error) {
	w, m := &run.Workload, &run.Machine
	traceNodes := 0
	switch {
	case h.MaxProcs > 0:
		traceNodes = (h.MaxProcs + m.Cores - 1) / m.Cores
	case h.MaxNodes > 0:
		traceNodes = h.MaxNodes
	}
	nodes := m.Nodes
	if nodes == 0 || w.ScaleToMachine {
		if traceNodes == 0 {
			why := "has `nodes auto`"
			if w.ScaleToMachine {
				why = "scales the trace's jobs to it"
			}
			return cleanKey{}, fmt.Errorf("machine %s %s, but %s has neither MaxProcs nor MaxNodes in its header", m.Name, why, filepath.Base(w.Path))
		}
		if nodes == 0 {
			nodes = traceNodes
		}
	}
	key := cleanKey{trace: tk, cores: m.Cores, nodes: nodes}
	if w.ScaleToMachine {
		key.nodes, key.scaleTo = traceNodes, nodes
	}
	return key, nil
}

// read reads a trace file.
func (ld *loader) read(w *Workload, tk traceKey) (*workload.Trace, error) {
	loc := time.UTC
	if tk.sacct && tk.zone != "" {
		var err error
		if loc, err = tariff.LoadLocation(tk.zone); err != nil {
			return nil, fmt.Errorf("time zone %q: %w", tk.zone, err)
		}
	}
	rc, err := ld.open(w.Path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if tk.sacct {
		return workload.ReadSacct(w.Path, rc, workload.SacctOptions{SkipBadLines: w.SkipBadLines, Location: loc,
			CPUsPerNode: tk.cores, AssumeExclusive: tk.exclusive, Format: tk.format, FormatHint: SacctFormatHint})
	}
	return workload.ReadSWF(w.Path, rc, workload.ReadOptions{SkipBadLines: w.SkipBadLines})
}

// SacctFormatHint is how a scenario gives the fields of `sacct --noheader`
// output: the sacct workload's `format` field (workload.SacctOptions.FormatHint).
const SacctFormatHint = "`format \"JobID,Submit,…\"` in the sacct workload, in the order of sacct's --format"

// keyOf identifies what a run reads from its trace file.
func keyOf(r *Run) traceKey {
	w := &r.Workload
	k := traceKey{path: w.Path, skip: w.SkipBadLines}
	if w.Kind == Sacct {
		k.sacct, k.zone, k.cores, k.exclusive, k.format = true, w.TimeZone, r.Machine.Cores, w.Exclusive, w.SacctFormat
	}
	return k
}

// scaleJobs maps jobs from a machine of from nodes onto one of to nodes,
// each keeping its share: ceil(nodes × to / from), at least 1, at most to.
// It scales them in place: the caller cleaned them for this scaling alone
// (the cache keys cleaned jobs by it), and a copy would add a whole
// trace's jobs to the peak memory of loading it.
func scaleJobs(jobs []workload.Job, from, to int) []workload.Job {
	for i := range jobs {
		n := int(math.Ceil(float64(jobs[i].Nodes) * float64(to) / float64(from)))
		jobs[i].Nodes = min(to, max(1, n))
	}
	return jobs
}

// done records that a run of shape sh has its jobs; once every shape of
// the trace's runs has been cleaned, the raw records are dropped so the
// simulations (most runs of a sweep share one shape) do not carry them.
func (ld *loader) done(sh shape, tr *workload.Trace) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	if !ld.shapes[sh] {
		return // (another run of its shape got there first)
	}
	delete(ld.shapes, sh)
	if ld.users[sh.trace]--; ld.users[sh.trace] == 0 {
		tr.Records = nil
	}
}

// TraceZone is a trace's time zone as its header gives it: the
// TimeZoneString, else the TimeZone offset (see fixedZone), else "".
func TraceZone(h workload.Header) string {
	if h.TimeZoneString == "" && h.HasTimeZone {
		return fixedZone(h.TimeZone)
	}
	return h.TimeZoneString
}

// fixedZone names a fixed UTC offset (the SWF TimeZone key) as an IANA
// Etc/GMT zone where one exists.
func fixedZone(offset int) string {
	if offset%3600 != 0 || offset == 0 {
		return ""
	}
	h := -offset / 3600 // Etc/GMT signs are inverted
	if h > 0 {
		return fmt.Sprintf("Etc/GMT+%d", h)
	}
	return fmt.Sprintf("Etc/GMT%d", h)
}
