package runtime

import (
	"math"

	"github.com/pwrc/pwrc/runtime/knapsack"
)

// Power budgets (Zhou et al.). While a budget applies, a job may start only
// if the weights of the running jobs (by default their power, including
// the idle rest of a contiguous allocation) plus its own stay within the
// budget. Jobs already running are never stopped, so at the moment a
// budget starts to apply the running jobs may exceed it; no job starts
// until they fall below. A pass under a budget:
//
//  1. Selection. `select in_order` (the default) starts queue heads while
//     they fit in both free nodes and budget, stopping at the first that
//     does not. `select knapsack` takes the window: the first Window jobs
//     of the queue that the admit rule accepts; the candidates are those
//     that fit in the free nodes; it starts the subset that maximizes
//     Σ value with Σ weight ≤ the budget's headroom and Σ nodes ≤ free,
//     ties going to earlier jobs (see package knapsack).
//  2. Backfilling, as the base policy says, over the whole queue after the
//     first job still waiting (which may lie inside the window). EASY's
//     reservation then covers power as well as nodes: the shadow time is
//     the earliest estimated end at which both enough nodes and enough
//     budget are free for that job; a later job may start if it fits now
//     in nodes and budget and either ends by the shadow time or fits in
//     both the extra nodes and the extra budget at that time. Greedy
//     backfilling starts whatever fits in nodes and budget.
//
// Outside budget periods the base policy runs unchanged; a pass runs when
// a budget stops applying, so held-back jobs start then.

// budgetStage is the power budget's stage: whether the budget applies, as
// the last pass found; its passes are the scheduler's (pass, bounded by
// the budget while it applies), its wake-ups the scheduler's clock's (a
// budget during peak or while a rule wakes the scheduler when they may
// change).
type budgetStage struct {
	b  *Budget
	on bool // the budget applied in the last pass
}

var budgetKind = stageKind{
	name:   "budget",
	has:    func(p *Policy) bool { return p.Budget != nil },
	allows: allowances{contractBlind: true, fixedPower: true}, // (the knapsack weighs the jobs waiting)
	build: func(s *sim) (stage, error) {
		s.bud = &budgetStage{b: s.pol.Budget}
		return s.bud, nil
	},
	clear: func(p *Policy) { p.Budget = nil },
}

// arrivalOnly: under a budget the budget must apply now as it did at the
// last pass, and if it does, the last pass must have started nothing,
// left its reservation in the future and, for the knapsack, a full
// window: then free nodes, headroom, the reservation and the window are
// exactly as they were, and the new jobs can only be backfilled. (After
// a budgeted pass that started jobs, a full pass would recompute the
// extra budget as another sum of the same weights, which may round
// differently: such passes stay full.)
func (b *budgetStage) arrivalOnly(s *sim) bool {
	if s.bud.active(s) != b.on {
		return false
	}
	return !b.on || s.bp.idle
}

// active reports whether the budget applies now.
func (st *budgetStage) active(s *sim) bool { return condition{st.b.When, st.b.While}.holds(s) }

// staticWeights evaluates weight and value rules that read only fixed job
// attributes once per job, so passes over long queues do not. A rule that
// gives every job what the default gives (`weight job.power`, `value
// job.nodes`, as std/zhou says) keeps no copy of it: a sweep of budgets
// runs several of these at once.
func (bp *budgetPass) staticWeights(s *sim) {
	if w := s.pol.Weight; w != nil && !w.Deps.Dynamic() {
		s.bp.weights = make([]float64, len(s.jobs))
		same := len(s.pol.Powercaps) == 0 // (Alg. 2 changes the power of waiting jobs)
		for j := range s.jobs {
			s.bp.weights[j] = s.bp.evalWeight(s, int32(j))
			same = same && s.bp.weights[j] == s.jw[j]
		}
		if same {
			s.bp.weights, s.bp.power = nil, true
		}
	}
	// The lightest job bounds what any pass can start: below it, a pass
	// under the budget has nothing to look at (an overloaded queue under a
	// tight budget would otherwise be scanned at every event).
	// Weights that change with time give no bound (0).
	s.bp.minWeight = 0
	if s.bp.fixedWeights(s) && len(s.jobs) > 0 {
		s.bp.minWeight = math.Inf(1)
		for j := range s.jobs {
			s.bp.minWeight = min(s.bp.minWeight, s.bp.weightOf(s, int32(j)))
		}
	}
	if v := s.pol.Value; v != nil && !v.Deps.Dynamic() && s.pol.Select == SelectKnapsack {
		s.bp.values = make([]float64, len(s.jobs))
		same := true
		for j := range s.jobs {
			s.setJobEnv(int32(j), v.Fields)
			s.bp.values[j] = v.Num(&s.env)
			same = same && s.bp.values[j] == float64(s.jobs[j].Nodes)
		}
		if same {
			s.bp.values, s.bp.nodes = nil, true
		}
	}
}

// fixedWeights reports whether budget weights are fixed per job: the
// jobs' power, or a rule on fixed attributes.
func (bp *budgetPass) fixedWeights(s *sim) bool {
	return s.pol.Weight == nil || s.bp.weights != nil || s.bp.power
}

// weightOf is job j's weight against the budget.
func (bp *budgetPass) weightOf(s *sim, j int32) float64 {
	switch {
	case s.pol.Weight == nil || s.bp.power:
		return s.jw[j]
	case s.bp.weights != nil:
		return s.bp.weights[j]
	}
	return s.bp.evalWeight(s, j)
}

func (bp *budgetPass) evalWeight(s *sim, j int32) float64 {
	s.setJobEnv(j, s.pol.Weight.Fields)
	w := s.pol.Weight.Num(&s.env)
	switch {
	case w != w:
		return math.Inf(1) // never fits: a NaN weight must not slip under the budget
	case w < 0:
		return 0
	}
	return w
}

// valueOf is what the knapsack maximizes for job j.
func (bp *budgetPass) valueOf(s *sim, j int32) float64 {
	switch {
	case s.pol.Value == nil || s.bp.nodes:
		return float64(s.jobs[j].Nodes)
	case s.bp.values != nil:
		return s.bp.values[j]
	}
	s.setJobEnv(j, s.pol.Value.Fields)
	return s.pol.Value.Num(&s.env)
}

// budgetPass holds buffers reused by every pass under a budget.
type budgetPass struct {
	solver    knapsack.Solver
	weights   []float64 // per job, when the weight rule reads fixed attributes only
	power     bool      // … and gives each job its power (weights is nil)
	minWeight float64   // no job weighs less
	values    []float64 // likewise for the value rule
	nodes     bool      // … which gives each job its nodes (values is nil)
	items     []knapsack.Item
	jobs      []int32
	chosen    []int
	idle      bool // the last budgeted pass started nothing, and the next may be incremental
}

// weigh is job j's weight if it may start now, and the pstate it would
// start at: its budget weight, within the budget's headroom; under a
// powercap its power increment at the pstate Alg. 2 gives it. It changes
// nothing: startAt starts the job at that pstate.
func (s *sim) weigh(j int32) (float64, int, bool) {
	return s.weighBy(j, backfillLimit{endBy: math.Inf(1)})
}

// backfillLimit is what EASY's backfill asks of a job besides its cap: to
// end by endBy, started now and after boot s, or else to add at most
// extraW (−Inf: no extra nodes for it).
type backfillLimit struct{ endBy, boot, extraW float64 }

// weighBy is weigh for a backfill candidate: under a powercap, Alg. 2
// gives up on it as soon as the pstate it would get can no longer meet
// lim, before computing increments (estimates only grow as pstates slow
// down, and no increment is below the job's least).
func (s *sim) weighBy(j int32, lim backfillLimit) (float64, int, bool) {
	if s.caps == nil {
		w := s.bp.weightOf(s, j)
		return w, int(s.pstate[j]), w <= s.headroom()
	}
	return s.caps.fit(s, j, lim)
}

// startAt starts job j at pstate p (under a powercap: the one weigh gave;
// otherwise the frequency stage decides), charging weight w.
func (s *sim) startAt(j int32, w float64, p int) {
	if s.caps != nil {
		s.pstate[j] = uint8(p)
		s.jw[j] = s.jobPower(j, p)
	}
	s.startWeighted(j, w)
}

// headNeed is the weight EASY reserves for a waiting head: its budget
// weight, or under a powercap its increment at the lowest pstate it may
// run at, against a budget that is its cap less the machine's power
// without its running jobs' increments.
func (s *sim) headNeed(j int32) float64 {
	if s.caps == nil {
		return s.bp.weightOf(s, j)
	}
	top := s.freq.at(s, j)
	_, lowest, _, _ := s.caps.capOf(s, j, top)
	p := max(lowest, top)
	cap, _, _, _ := s.caps.capOf(s, j, p)
	s.budget = cap - (s.caps.power - s.commitW)
	// Its nodes are not free yet: they will be idle ones when it starts.
	return s.jobPower(j, p) - float64(s.alloc[j])*s.machine.Power.Idle
}

// headroom is the budget left for jobs starting now.
func (s *sim) headroom() float64 { return s.budget - s.commitW }

// firstWaiting is the first waiting job the admit rule accepts, and its
// place in the queue (scan mode; −1 in index mode): the head after the
// knapsack chose from the window.
func (s *sim) firstWaiting() (int32, int) {
	if s.indexed() {
		return s.q.ix.first(0), -1
	}
	for i, j := range s.queue {
		if s.status[j] == 0 && s.admitted(j) {
			return j, i
		}
	}
	return -1, -1
}

// knapsack starts the best subset of the window (Zhou's Problem 1 with a
// node constraint) and returns how many jobs started, the first queue
// position started (scan mode), and whether the window was full.
func (bp *budgetPass) knapsack(s *sim, free *int) (int, int, bool) {
	items, jobs := bp.items[:0], bp.jobs[:0]
	room := s.headroom()
	seen := 0
	first := len(s.queue)
window:
	for b := s.cands(walkAll, 0, -1, *free); len(b) > 0; b = s.more(*free) {
		for k, j := range b {
			if seen >= s.pol.Window {
				break window
			}
			if !s.admitted(j) {
				continue
			}
			seen++
			nn := int(s.alloc[j])
			if nn > *free {
				continue
			}
			wt := s.bp.weightOf(s, j)
			if !(wt <= room) {
				continue // cannot be chosen; skip evaluating its value
			}
			items = append(items, knapsack.Item{Value: s.bp.valueOf(s, j), Weight: wt, Nodes: nn})
			jobs = append(jobs, j)
			if first == len(s.queue) {
				first = k // (a position in scan mode's one batch)
			}
		}
	}
	bp.items, bp.jobs = items, jobs
	full := seen >= s.pol.Window
	if len(items) == 0 {
		return 0, len(s.queue), full
	}
	bp.chosen = bp.solver.Solve(bp.chosen[:0], items, room, *free)
	for _, c := range bp.chosen {
		s.startWeighted(jobs[c], items[c].Weight)
		*free -= items[c].Nodes
	}
	return len(bp.chosen), first, full
}

// held is the budgeted pass's first test, made before a dynamic
// order is re-sorted: the budget applies and its headroom is below the
// lightest job, so the pass ends at once, as its bounded part would end it. A
// budget's while rule that fails here is left to fail where it always
// has, after the sort.
func (st *budgetStage) held(s *sim) (held bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*EvalError); !ok {
				panic(r)
			}
			held = false
		}
	}()
	if !s.bud.active(s) || s.headroom() >= s.bp.minWeight {
		return false
	}
	s.bud.on = true
	s.env.System.Budget = s.budget
	s.blocked, s.bp.idle = true, false
	return true
}
