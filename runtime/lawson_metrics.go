package runtime

import "math"

// Lawson & Smirni's metrics (lawson.md §1.2, §4.3): their bounded
// slowdown, and what a capacity controller did.

// lawsonMean is the mean over jobs of Lawson's bounded slowdown
// 1 + wait / max(10 s, run), with run the time the job held its nodes.
func (r *runRecord) lawsonMean() float64 {
	if len(r.jobs) == 0 {
		return 0
	}
	sum := 0.0
	for j := range r.jobs {
		sum += lawsonSlowdown(r.start[j]-r.jobs[j].Submit, r.end[j]-r.start[j])
	}
	return sum / float64(len(r.jobs))
}

// slaViolations is the share of jobs whose Lawson slowdown exceeds sla.
func (r *runRecord) slaViolations(sla float64) float64 {
	if len(r.jobs) == 0 {
		return 0
	}
	n := 0
	for j := range r.jobs {
		if lawsonSlowdown(r.start[j]-r.jobs[j].Submit, r.end[j]-r.start[j]) > sla {
			n++
		}
	}
	return float64(n) / float64(len(r.jobs))
}

// activeStat is the capacity controller's summary over the run's span,
// first submission to last end; nil without one.
func (r *runRecord) activeStat() *ActiveStat {
	if r.capa == nil || len(r.jobs) == 0 {
		return nil
	}
	work := 0.0
	for j := range r.jobs {
		work += float64(r.alloc[j]) * (r.end[j] - r.start[j])
	}
	return r.capa.stat(r.nodes, r.firstT, r.lastEnd, work)
}

// SLAShares is the share of jobs whose Lawson slowdown exceeds an SLA:
// the policy's online controller's (200 without one).
type SLAShares struct {
	SLA   float64 // the policy's SLA (200 without an online controller)
	Share float64
}

// SLAShareAt is the share of jobs whose Lawson slowdown exceeds sla, when
// the run computed it (the policy's SLA, or one of Run.SLAs).
func (m *Metrics) SLAShareAt(sla float64) (float64, bool) {
	for _, v := range m.SLAViolationsAt {
		if v.SLA == sla {
			return v.Share, true
		}
	}
	if m.Jobs > 0 && m.SLAViolations.SLA == sla {
		return m.SLAViolations.Share, true
	}
	return 0, false
}

// lawsonMetrics fills Lawson & Smirni's figures.
func (r *runRecord) lawsonMetrics(m *Metrics) {
	if len(r.jobs) == 0 {
		return
	}
	m.BsldLawson = r.lawsonMean()
	sla := 200.0
	if a := r.pol.Active; a != nil && a.Kind == ActiveOnline {
		sla = a.SLA
	}
	m.SLAViolations = SLAShares{SLA: sla, Share: r.slaViolations(sla)}
	m.Active = r.activeStat()
	if r.keepWeeks { // only --series writes the weeks (weeks.csv)
		m.Weeks = r.weeks(sla, m.Active)
	}
}

// lawsonColumns are the report columns of Lawson & Smirni's figures,
// after the catalogue's others.
func lawsonColumns() []ReportColumn {
	c := []ReportColumn{}
	c = append(c, ReportColumn{Name: "sla_violations", Key: "sla_violations", Header: "SLA viol.\n%", Unit: "%", JSON: "sla_violations_share",
		Doc: "share of jobs whose Lawson slowdown exceeds the policy's online SLA (200 without one); a fraction in JSON"},
		ReportColumn{Name: "sla_violations", Arg: ArgBound, Key: "sla_violations", Header: "SLA viol.\n> {bound} %", Unit: "%", JSON: "sla_violations_share_S",
			Doc: "share of jobs whose Lawson slowdown exceeds the bound S, one column per bound: `sla_violations(100, 400)`; a fraction in JSON"})
	c = append(c,
		ReportColumn{Name: "active_util", Key: "active_util", Header: "Active\nutil %", Unit: "%", JSON: "active_util",
			Doc: "Lawson & Smirni's utilization over the active nodes: node time allocated to jobs over ∫ active nodes dt, over the run's span; – without `active`"},
		ReportColumn{Name: "proc_savings", Key: "proc_savings", Header: "Proc.\nsavings %", Unit: "%", JSON: "proc_savings",
			Doc: "share of node time the capacity controller kept inactive: 1 − ∫ active dt / (nodes × span); – without `active`"},
		ReportColumn{Name: "node_hours_off", Key: "node_hours_off", Header: "Inactive\nnode-h", Unit: "node-h", JSON: "node_hours_off",
			Doc: "node-hours the capacity controller kept inactive over the run's span; – without `active`"},
	)
	for _, a := range []struct{ arg, label, doc string }{
		{"mean", "mean", "time-average of the active nodes"}, {"min", "min", "fewest active nodes"},
		{"max", "max", "most active nodes"}, {"changes", "changes", "instants at which the active count changed"},
	} {
		c = append(c, ReportColumn{Name: "active", Arg: a.arg, Default: a.arg == "mean", Key: "active_" + a.arg,
			Header: "Active\n" + a.label, JSON: "active_" + a.arg, Doc: a.doc + "; – without `active`"})
	}
	c = append(c,
		ReportColumn{Name: "ols_decisions", Key: "ols_decisions", Header: "OLS\ndecisions", JSON: "ols_decisions",
			Doc: "decisions of an online capacity controller; – without one"},
		ReportColumn{Name: "ols_simulations", Key: "ols_simulations", Header: "OLS\nsimulations", JSON: "ols_simulations",
			Doc: "look-ahead simulations those decisions ran; – without one"},
	)
	return c
}

func init() { ReportCatalog = append(ReportCatalog, lawsonColumns()...) }

// WeekStat is one week of a run, counted from its first submission
// (lawson.md §4.3; Lawson & Smirni's Figs. 3–7): the jobs that completed
// in it, their mean Lawson slowdown and SLA-violation share, the node time
// allocated to jobs inside the week over the active node time and over
// all nodes' time, and the time-average of the active nodes. The last week
// may be shorter (Seconds).
type WeekStat struct {
	Week          int
	Seconds       float64
	JobsCompleted int
	BsldLawson    float64 // 0 when no job completed
	SLAShare      float64
	UtilActive    float64
	UtilAll       float64
	ActiveMean    float64
}

const week = 7 * 86400.0

// weeks computes the weekly series over the run's span.
func (r *runRecord) weeks(sla float64, st *ActiveStat) []WeekStat {
	if len(r.jobs) == 0 {
		return nil
	}
	t0, span := r.firstT, r.lastEnd-r.firstT
	n := max(1, int(math.Ceil(span/week)))
	out := make([]WeekStat, n)
	busy := make([]float64, n)
	index := func(t float64) int { return min(n-1, max(0, int((t-t0)/week))) }
	for i := range out {
		out[i].Week = i + 1
		out[i].Seconds = min(span, float64(i+1)*week) - float64(i)*week
	}
	for j := range r.jobs {
		w := &out[index(r.end[j])]
		w.JobsCompleted++
		sl := lawsonSlowdown(r.start[j]-r.jobs[j].Submit, r.end[j]-r.start[j])
		w.BsldLawson += sl
		if sl > sla {
			w.SLAShare++
		}
		// Node time allocated, split over the weeks the job ran in.
		a := float64(r.alloc[j])
		for k := index(r.start[j]); k < n; k++ {
			from, to := t0+float64(k)*week, t0+float64(k+1)*week
			lo, hi := max(from, r.start[j]), min(to, r.end[j])
			if hi > lo {
				busy[k] += a * (hi - lo)
			}
			if r.end[j] <= to {
				break
			}
		}
	}
	// Active node time per week, from the controller's timeline.
	area := make([]float64, n)
	level, at := r.nodes, t0
	var tl []ActiveChange
	if st != nil {
		level, tl = st.Initial, st.Timeline
	}
	add := func(from, to float64, lv int) {
		for k := index(from); k < n && from < to; k++ {
			end := min(to, t0+float64(k+1)*week)
			area[k] += float64(lv) * (end - from)
			from = end
		}
	}
	for _, c := range tl {
		add(at, c.T, level)
		level, at = c.Active, c.T
	}
	add(at, r.lastEnd, level)
	for i := range out {
		w := &out[i]
		if w.JobsCompleted > 0 {
			w.BsldLawson /= float64(w.JobsCompleted)
			w.SLAShare /= float64(w.JobsCompleted)
		}
		if area[i] > 0 {
			w.UtilActive = busy[i] / area[i]
		}
		if w.Seconds > 0 {
			w.UtilAll = busy[i] / (float64(r.nodes) * w.Seconds)
			w.ActiveMean = area[i] / w.Seconds
		}
	}
	return out
}
