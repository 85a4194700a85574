// Package deferral chooses when to start a job within a look-ahead
// window so that its cost is least: Kunkel et al.'s price-aware decision
// (Listing 3) made exact. The cost of starting at s, for a job that waits
// from now and then runs for r seconds, is
//
//	C(s) = waiting·∫[now, s] o(τ) dτ + running·∫[s, s+r] o(τ) dτ
//
// for a piecewise-constant objective o (a price, a carbon intensity, or a
// rule of both) and the job's powers while waiting and running. C is
// piecewise linear in s, with breakpoints where s or s + r crosses a
// change of o, so its minimum over [now, latest] is at one of those
// breakpoints or an end; Cheapest evaluates exactly those, and no early
// stop assumes the objective is positive (negative prices exist).
package deferral

import (
	"errors"
	"math"
	"slices"
)

// Profile is a piecewise-constant objective: Values[i] holds on
// [Times[i], Times[i+1]), the last up to End. Times increase strictly.
type Profile struct {
	Times  []float64
	Values []float64
	End    float64
	prefix []float64 // ∫ from Times[0] to Times[i]
	finite bool      // every value is finite (valid with prefix)
	low    float64   // the least value (valid with prefix)
}

// Reset empties p for reuse, keeping its memory.
func (p *Profile) Reset() {
	p.Times, p.Values, p.prefix = p.Times[:0], p.Values[:0], p.prefix[:0]
	p.End = 0
}

// Add appends a segment starting at t with value v; a segment with the
// value of the one before merges into it (its start is no breakpoint).
func (p *Profile) Add(t, v float64) {
	if n := len(p.Times); n > 0 && p.Values[n-1] == v {
		return
	}
	p.Times = append(p.Times, t)
	p.Values = append(p.Values, v)
}

// seal computes the prefix integrals, once for what Add has added; false
// if a value is not finite.
func (p *Profile) seal() bool {
	if len(p.prefix) == len(p.Times) && len(p.Times) > 0 {
		return p.finite
	}
	p.prefix = append(p.prefix[:0], 0)
	for i := 1; i < len(p.Times); i++ {
		p.prefix = append(p.prefix, p.prefix[i-1]+p.Values[i-1]*(p.Times[i]-p.Times[i-1]))
	}
	p.finite, p.low = true, math.Inf(1)
	for _, v := range p.Values {
		p.low = min(p.low, v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			p.finite = false
		}
	}
	return p.finite
}

// seg is the segment x lies in: the last change at or before x.
func (p *Profile) seg(x float64) int {
	i, found := slices.BinarySearch(p.Times, x)
	if found {
		return i
	}
	return i - 1
}

// level is ∫ from Times[0] to x, for x in segment k.
func (p *Profile) level(k int, x float64) float64 {
	return p.prefix[k] + p.Values[k]*(x-p.Times[k])
}

// span is ∫ over [a, b], for a in segment ka and b in kb. Within one
// segment it is the value times the length, not a difference of levels,
// so that equal stretches at one price cost exactly the same wherever they
// lie: a tie is a tie, and the earliest start wins it.
func (p *Profile) span(ka int, a float64, kb int, b float64) float64 {
	if ka == kb {
		return p.Values[ka] * (b - a)
	}
	return p.Values[ka]*(p.Times[ka+1]-a) + (p.prefix[kb] - p.prefix[ka+1]) + p.Values[kb]*(b-p.Times[kb])
}

// Integral returns ∫ o over [a, b] within the profile.
func (p *Profile) Integral(a, b float64) float64 {
	p.seal()
	return p.span(p.seg(a), a, p.seg(b), b)
}

// Job is what the decision needs of a job and its window.
type Job struct {
	Now     float64 // the decision's time
	Latest  float64 // the last allowed start: the window's end minus Run
	Run     float64 // s
	Waiting float64 // W while waiting (the paper: its share of the infrastructure)
	Running float64 // W while running
	// PreferNow discounts starting now (the paper: 0.1 %, schedsim's 0.999
	// factor), so a flat objective never defers.
	PreferNow float64
}

// Decision is the chosen start and what it costs, in the objective's
// unit times kWh (currency for a price, g for a carbon intensity).
type Decision struct {
	Start      float64
	Cost       float64 // C(Start), discounted if Start is Now
	CostNow    float64 // C(Now), undiscounted
	Candidates int     // starts evaluated
}

// Errors of Cheapest.
var (
	ErrWindow = errors.New("deferral: the profile does not cover the window")
	ErrValue  = errors.New("deferral: the objective is not a finite number in the window")
)

const kWh = 3.6e6

// Later starts are ranked by g(s) = C(s) + Waiting·∫[Times[0], now] =
// Waiting·I(s) + Running·∫[s, s+Run], I the integral from Times[0]: what
// does not depend on now, so that Plan ranks them once per window.
// Cheapest and Plan compute g alike (g, with s in segment ks and s + Run
// in kx) and compare exactly these values.
func (j *Job) g(p *Profile, ks int, s float64, kx int) float64 {
	return j.Waiting*p.level(ks, s) + j.Running*p.span(ks, s, kx, s+j.Run)
}

// nowCost is C(now), undiscounted.
func (j *Job) nowCost(p *Profile, now float64) float64 {
	return j.Running * p.span(p.seg(now), now, p.seg(now+j.Run), now+j.Run) / kWh
}

// laterCost is C(s) for a later start s whose g is gs.
func (j *Job) laterCost(p *Profile, now, gs float64) float64 {
	return (gs - j.Waiting*p.level(p.seg(now), now)) / kWh
}

// check validates the profile against the job's window from `from`.
func (p *Profile) check(j *Job, from float64) error {
	end := j.Latest + j.Run
	if len(p.Times) == 0 || p.Times[0] > from || p.End < end || !(j.Latest >= from) || !(j.Run >= 0) || math.IsInf(j.Run, 0) {
		return ErrWindow
	}
	if !p.seal() {
		return ErrValue
	}
	return nil
}

// candidates appends to cand the later starts worth evaluating in
// (from, j.Latest], in increasing order: every start at which s or s + Run
// meets a change of the objective, and the last start. Both kinds come in
// order from Times, so a merge orders them.
func (p *Profile) candidates(j *Job, from float64, cand []float64) []float64 {
	cand = cand[:0]
	ts, last := p.Times, from
	a, b := 0, 0 // next change to take as s, and as s + Run
	for a < len(ts) || b < len(ts) {
		var s float64
		if b >= len(ts) || a < len(ts) && ts[a] <= ts[b]-j.Run {
			s = ts[a]
			a++
		} else {
			s = ts[b] - j.Run
			b++
		}
		if s > j.Latest {
			break // (both kinds only grow)
		}
		if s > last {
			cand = append(cand, s)
			last = s
		}
	}
	if j.Latest > last {
		cand = append(cand, j.Latest)
	}
	return cand
}

// segFrom is seg(x) for a cursor at segment k ≤ seg(x): the walks below
// visit increasing points and move their cursors forward only.
func segFrom(ts []float64, k int, x float64) int {
	for k+1 < len(ts) && ts[k+1] <= x {
		k++
	}
	return k
}

// gs sets out to the g of each start, in increasing order, walking the
// profile with two cursors (for s and for s + Run) instead of searching.
func (j *Job) gs(p *Profile, starts, out []float64) []float64 {
	out = out[:0]
	ts := p.Times
	ks, kx := 0, 0
	for _, s := range starts {
		ks, kx = segFrom(ts, ks, s), segFrom(ts, kx, s+j.Run)
		out = append(out, j.g(p, ks, s, kx))
	}
	return out
}

// horizon bounds the later starts that can cost less than threshold (a
// cost in kWh × objective) for a decision at now: with every value of the
// profile positive and positive powers, C(s) ≥ Waiting·min·(s − now) +
// Running·Run·min, which reaches the threshold after a while — soon for a
// short job, whose waiting soon costs more than any price could save. The
// bound is widened well past rounding; +Inf when it does not hold.
func (j *Job) horizon(p *Profile, now, threshold float64) float64 {
	low := p.low
	if !(low > 0 && j.Waiting > 0 && j.Running >= 0) {
		return math.Inf(1)
	}
	dt := (threshold*kWh - j.Running*j.Run*low) / (j.Waiting * low)
	return now + dt*(1+1e-9) + 1
}

// scan evaluates g at the later starts in (from, min(j.Latest, limit)] that
// candidates lists and returns the first of least g and how many starts
// there are. It walks the two kinds apart — starts on a change, then
// starts that end on one, each in order with one moving cursor — which
// is what makes a one-off decision cheap; a start of both kinds is
// evaluated twice, to the same g, and counted once.
func (j *Job) scan(p *Profile, from, limit float64) (start, best float64, n int) {
	ts := p.Times
	run, latest := j.Run, min(j.Latest, limit)
	best, start = math.Inf(1), math.Inf(1)
	lastA, lastB := math.Inf(-1), math.Inf(-1)
	// Starts on a change: s is in the segment it starts.
	a0, _ := slices.BinarySearch(ts, from)
	if a0 < len(ts) && ts[a0] == from {
		a0++
	}
	kx := 0
	for a := a0; a < len(ts) && ts[a] <= latest; a++ {
		s := ts[a]
		kx = segFrom(ts, kx, s+run)
		if v := j.g(p, a, s, kx); v < best {
			start, best = s, v
		}
		n++
		lastA = s
	}
	// Starts that end on a change (later than an equal start on one only
	// if they are not the same start).
	ks := 0
	kx = 0
	for b := range ts {
		s := ts[b] - run
		if s <= from {
			continue
		}
		if s > latest {
			break
		}
		ks, kx = segFrom(ts, ks, s), segFrom(ts, kx, s+run)
		if v := j.g(p, ks, s, kx); v < best || v == best && s < start {
			start, best = s, v
		}
		if ts[ks] != s { // not a change too
			n++
		}
		lastB = s
	}
	if latest = j.Latest; latest > from && latest <= limit && latest != lastA && latest != lastB {
		ks, kx = segFrom(ts, ks, latest), segFrom(ts, kx, latest+run)
		if v := j.g(p, ks, latest, kx); v < best || v == best && latest < start {
			start, best = latest, v
		}
		n++
	}
	return start, best, n
}

// Cheapest returns the start in [j.Now, j.Latest] of least cost, the
// earliest on ties. cand is scratch space for the candidates (may be nil).
// It is the reference for Plan, which decides the same for a job decided
// again and again in one window.
func Cheapest(p *Profile, j Job, cand []float64) (Decision, []float64, error) {
	if err := p.check(&j, j.Now); err != nil {
		return Decision{}, cand, err
	}
	cand = p.candidates(&j, j.Now, cand)
	now := j.nowCost(p, j.Now)
	d := Decision{Start: j.Now, Cost: now * (1 - j.PreferNow), CostNow: now, Candidates: 1 + len(cand)}
	best, at := math.Inf(1), -1
	for i, s := range cand {
		// One start at a time, searching: the reference for Plan's walk.
		if g := j.g(p, p.seg(s), s, p.seg(s+j.Run)); g < best {
			best, at = g, i
		}
	}
	if at >= 0 {
		if c := j.laterCost(p, j.Now, best); c < d.Cost {
			d.Start, d.Cost = cand[at], c
		}
	}
	return d, cand, nil
}

// Plan is one job's decision over one window, made once and then asked
// again as time passes (a scheduler that decides at every pass): the
// later starts from the window's beginning, their g, and the least from
// each on. Decide(now) then costs a binary search.
type Plan struct {
	p      *Profile
	j      Job
	asked  int  // decisions so far
	built  bool // starts, g and best hold the window
	starts []float64
	g      []float64
	best   []int32 // best[i]: the start of least g in starts[i:], the earliest on ties
}

// Reset plans job j (j.Now is ignored) over the whole profile p, which p
// must keep until the plan is reset again.
func (pl *Plan) Reset(p *Profile, j Job) error {
	j.Now = 0
	pl.p, pl.j = p, j
	if len(p.Times) == 0 {
		return ErrWindow
	}
	from := p.Times[0]
	if err := p.check(&j, from); err != nil {
		return err
	}
	pl.asked, pl.built = 0, false
	return nil
}

// build ranks the window's later starts, for a job decided more than once.
func (pl *Plan) build() {
	p, j := pl.p, &pl.j
	pl.built = true
	pl.starts = p.candidates(j, p.Times[0], pl.starts)
	pl.g = j.gs(p, pl.starts, pl.g)
	pl.best = slices.Grow(pl.best[:0], len(pl.g))[:len(pl.g)]
	for i := len(pl.g) - 1; i >= 0; i-- {
		pl.best[i] = int32(i)
		if i+1 < len(pl.g) && pl.g[pl.best[i+1]] < pl.g[i] {
			pl.best[i] = pl.best[i+1]
		}
	}
}

// Decide is Cheapest(p, j with Now = now) for the planned job and window.
func (pl *Plan) Decide(now float64) (Decision, error) {
	p, j := pl.p, &pl.j
	if !(now >= p.Times[0] && now <= j.Latest) {
		return Decision{}, ErrWindow
	}
	c := j.nowCost(p, now)
	d := Decision{Start: now, Cost: c * (1 - j.PreferNow), CostNow: c}
	if pl.asked++; pl.asked == 1 {
		// Most jobs are decided once: one walk over the later starts,
		// keeping nothing.
		start, g, n := j.scan(p, now, j.horizon(p, now, d.Cost))
		d.Candidates = 1 + n
		if n > 0 {
			if c := j.laterCost(p, now, g); c < d.Cost {
				d.Start, d.Cost = start, c
			}
		}
		return d, nil
	}
	if !pl.built {
		pl.build()
	}
	i, found := slices.BinarySearch(pl.starts, now)
	if found {
		i++
	}
	d.Candidates = 1 + len(pl.starts) - i
	if i < len(pl.starts) {
		k := pl.best[i]
		if c := j.laterCost(p, now, pl.g[k]); c < d.Cost {
			d.Start, d.Cost = pl.starts[k], c
		}
	}
	return d, nil
}
