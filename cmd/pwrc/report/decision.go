package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pwrc/pwrc/internal/numfmt"
)

// The decision summary: each run of an experiment by what it costs and
// how long its jobs wait (and, when the contract has carbon intensity,
// what it emits), the runs no other run beats on all of these marked,
// and the same in words, from the numbers.

// choice is one run as the summary weighs it.
type choice struct {
	label    string
	cost     float64 // the contract's currency
	wait     float64 // s, the 90th percentile: the wait most jobs stay under (the mean hides the long waits users complain of; the maximum is one job)
	co2      float64 // g
	baseline bool    // another run's saving is against it
	pareto   bool    // no other run is at least as good on every axis and better on one
}

// choices are the successful runs of an experiment as the summary weighs
// them, their Pareto set marked; carbon says whether every run has a
// carbon figure (the third axis).
func choices(runs []Run) (cs []choice, carbon bool) {
	rs := okRuns(runs)
	carbon = len(rs) > 0
	bases := map[string]bool{}
	for _, r := range rs {
		carbon = carbon && r.Result.Metrics.HasCarbon
		if m := &r.Result.Metrics; m.HasSaving && m.SavingAgainst != "" {
			bases[m.SavingAgainst] = true
		}
	}
	for _, r := range rs {
		m := &r.Result.Metrics
		c := choice{label: r.Label, cost: m.Cost, wait: m.WaitQ90, co2: m.CO2}
		if r.Result.Run != nil {
			c.baseline = bases[r.Result.Run.Name]
		}
		cs = append(cs, c)
	}
	for i := range cs {
		cs[i].pareto = true
		for j := range cs {
			if j != i && dominates(cs[j], cs[i], carbon) {
				cs[i].pareto = false
				break
			}
		}
	}
	return cs, carbon
}

// dominates reports whether a is at least as good as b on every axis and
// better on one.
func dominates(a, b choice, carbon bool) bool {
	le := a.cost <= b.cost && a.wait <= b.wait && (!carbon || a.co2 <= b.co2)
	lt := a.cost < b.cost || a.wait < b.wait || carbon && a.co2 < b.co2
	return le && lt
}

// fmtWait writes a wait in s as minutes, hours or days.
func fmtWait(s float64) string {
	switch {
	case s < 3600:
		return numfmt.Fixed(s/60, 0) + " min"
	case s < 2*86400:
		return numfmt.Fixed(s/3600, 1) + " h"
	}
	return numfmt.Fixed(s/86400, 1) + " d"
}

// DecisionSVG draws the runs of an experiment by cost (y) against their
// jobs' 90th-percentile wait (x), the area of each mark its CO₂ when the
// contract has carbon intensity; the runs of the Pareto set (no other run
// cheaper, waiting less and, with carbon, emitting less at once) filled
// and named, the others hollow, the baseline ringed.
func DecisionSVG(runs []Run) []byte {
	ch := &chart{kind: "decision", title: "Cost against waiting time: which runs are worth choosing"}
	cs, carbon := choices(runs)
	if len(cs) == 0 {
		ch.noData = "no successful runs"
		ch.begin()
		return ch.finish()
	}
	div, unit := moneyScale(okRuns(runs))
	lo, hi := math.Inf(1), math.Inf(-1)
	wmax, cmax := 0.0, 0.0
	for _, c := range cs {
		lo, hi = math.Min(lo, c.cost/div), math.Max(hi, c.cost/div)
		wmax, cmax = math.Max(wmax, c.wait/3600), math.Max(cmax, c.co2)
	}
	// The cost axis spans the runs with a margin (costs differ by a few
	// per cent: an axis from 0 would stack them on one line).
	pad := (hi - lo) * 0.15
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.05, 1)
	}
	ch.y = scale2(lo-pad, hi+pad)
	// The wait axis likewise spans the runs' waits, from 0 where they
	// differ by more than they are long.
	wlo := math.Inf(1)
	for _, c := range cs {
		wlo = math.Min(wlo, c.wait/3600)
	}
	if wpad := (wmax - wlo) * 0.15; wlo-wpad <= 0 || wmax-wlo > wlo {
		ch.x = scale{lo: 0, hi: niceMax(math.Max(wmax*1.08, 1e-3))}
	} else {
		ch.x = scale2(wlo-math.Max(wpad, wlo*0.02), wmax+math.Max(wpad, wlo*0.02))
	}
	ch.yLabel = "cost, " + unit
	ch.xLabel = "90th percentile of the jobs' waits, h"
	var pareto, others, base []int
	for i, c := range cs {
		switch {
		case c.pareto:
			pareto = append(pareto, i)
		default:
			others = append(others, i)
		}
		if c.baseline {
			base = append(base, i)
		}
	}
	ch.legend = append(ch.legend, legendItem{"the best choices: no other run is cheaper and waits less" + map[bool]string{true: " and emits less CO₂", false: ""}[carbon], paretoColor, "box", ""})
	ch.nSeries = 1
	if len(others) > 0 {
		ch.legend = append(ch.legend, legendItem{"matched or beaten on every axis by a filled run", "#9a9a9a", "thin", ""})
		ch.nSeries++
	}
	if len(base) > 0 {
		ch.legend = append(ch.legend, legendItem{"baseline (ringed)", "#222222", "hair", ""})
		ch.nSeries++
	}
	if carbon {
		ch.legend = append(ch.legend, legendItem{"mark area: CO₂ (largest " + numfmt.Fixed(cmax/1e6, 1) + " t)", "#bbbbbb", "box", ""})
	}
	ch.begin()
	radius := func(c choice) float64 {
		if !carbon || cmax <= 0 {
			return 5
		}
		return 3 + 9*math.Sqrt(c.co2/cmax)
	}
	labelAll := len(cs) <= 12
	mark := func(i int, attrs string) {
		c := cs[i]
		x, y := ch.x.px(c.wait/3600), ch.y.px(c.cost/div)
		ch.c.circle(x, y, radius(c), attrs)
	}
	// Runs drawn at the same point share one label, "a = b".
	at := map[[2]string][]int{}
	for i, c := range cs {
		k := [2]string{n(ch.x.px(c.wait / 3600)), n(ch.y.px(c.cost / div))}
		at[k] = append(at[k], i)
	}
	labelled := map[[2]string]bool{}
	var boxes [][3]float64 // labels placed: x from, x to, baseline
	label := func(i int) {
		c := cs[i]
		x, y := ch.x.px(c.wait/3600), ch.y.px(c.cost/div)
		k := [2]string{n(x), n(y)}
		if labelled[k] {
			return
		}
		labelled[k] = true
		var names []string
		for _, j := range at[k] {
			names = append(names, cs[j].label)
		}
		c.label = strings.Join(names, " = ")
		anchor, dx := "start", radius(c)+4
		w := charW * 11 / 12 * float64(len([]rune(c.label)))
		x0 := x + dx
		if x > ch.px+ch.pw*0.7 {
			anchor, dx = "end", -dx
			x0 = x + dx - w
		}
		// Nudge a label off those already placed: down, then up, a line
		// at a time; one with no room left is left out (its run is in
		// the table and the words).
		ly := y + 4
		for _, off := range []float64{0, 12, -12, 24, -24, 36, -36} {
			free := true
			for _, b := range boxes {
				if x0 < b[1] && x0+w > b[0] && math.Abs(ly+off-b[2]) < 11 {
					free = false
					break
				}
			}
			if free {
				ly += off
				boxes = append(boxes, [3]float64{x0, x0 + w, ly})
				ch.c.text(x+dx, ly, anchor, c.label, `fill="#222" font-size="11"`)
				return
			}
		}
	}
	if len(others) > 0 {
		ch.c.series("beaten")
		for _, i := range others {
			mark(i, `fill="#ffffff" fill-opacity="0.6" stroke="#9a9a9a" stroke-width="1.2"`)
		}
		if labelAll {
			for _, i := range others {
				label(i)
			}
		}
		ch.c.end()
	}
	ch.c.series("best choices")
	for _, i := range pareto {
		mark(i, `fill="`+paretoColor+`" fill-opacity="0.75" stroke="#7a1010" stroke-width="1"`)
	}
	for _, i := range pareto {
		label(i)
	}
	ch.c.end()
	if len(base) > 0 {
		ch.c.series("baseline")
		for _, i := range base {
			c := cs[i]
			ch.c.circle(ch.x.px(c.wait/3600), ch.y.px(c.cost/div), radius(c)+4, `fill="none" stroke="#222" stroke-width="1.5"`)
			if !labelAll && !c.pareto {
				label(i)
			}
		}
		ch.c.end()
	}
	return ch.finish()
}

// scale2 is a linear scale over [lo, hi] rounded out to ticks.
func scale2(lo, hi float64) scale {
	t := niceTicks(lo, hi, 6)
	step := (hi - lo) / 6
	if len(t) > 1 {
		step = t[1] - t[0]
	}
	return scale{lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
}

const paretoColor = "#d62728"

// Decision says in words what DecisionSVG draws: the best run on each axis
// and what it costs on the others, against the baseline where there is
// one, and which runs no other run beats.
func Decision(runs []Run) []string {
	cs, carbon := choices(runs)
	if len(cs) == 0 {
		return nil
	}
	scale, unit := moneyScale(okRuns(runs))
	big := 0.0
	for _, c := range cs {
		big = math.Max(big, math.Abs(c.cost/scale))
	}
	money := func(v float64) string { return numfmt.Thousands(v/scale, tableDecimals(big)) + " " + unit }
	base := -1
	for i, c := range cs {
		if c.baseline {
			base = i
			break
		}
	}
	best := func(key func(c choice) float64) int {
		b := 0
		for i, c := range cs {
			if key(c) < key(cs[b]) {
				b = i
			}
		}
		return b
	}
	// others says what run i is on the axes other than skip, against the
	// baseline.
	describe := func(i int, skip string) string {
		c := cs[i]
		var parts []string
		vs := []struct {
			axis, what string
			v, b       float64
			f          func(float64) string
		}{
			{"cost", "costs", c.cost, 0, money},
			{"wait", "its jobs wait (90th percentile)", c.wait, 0, fmtWait},
			{"co2", "emits", c.co2, 0, func(v float64) string { return numfmt.Fixed(v/1e6, 2) + " t CO₂" }},
		}
		if base >= 0 {
			vs[0].b, vs[1].b, vs[2].b = cs[base].cost, cs[base].wait, cs[base].co2
		}
		for _, v := range vs {
			if v.axis == skip || v.axis == "co2" && !carbon {
				continue
			}
			s := v.what + " " + v.f(v.v)
			if base >= 0 && base != i {
				switch d := v.v - v.b; {
				case v.f(math.Abs(d)) == v.f(0):
					s += " (as the baseline)"
				case d > 0:
					s += " (" + v.f(d) + " more than the baseline)"
				default:
					s += " (" + v.f(-d) + " less than the baseline)"
				}
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", ")
	}
	var out []string
	if base >= 0 {
		out = append(out, fmt.Sprintf("Baseline %s: %s.", cs[base].label, describe(base, "")))
	}
	cheap := best(func(c choice) float64 { return c.cost })
	s := fmt.Sprintf("Cheapest: %s, %s", cs[cheap].label, money(cs[cheap].cost))
	if base >= 0 && base != cheap {
		s += fmt.Sprintf(" (%s less than the baseline, %s %%)", money(cs[base].cost-cs[cheap].cost), numfmt.Fixed(100*(cs[base].cost-cs[cheap].cost)/math.Abs(cs[base].cost), 1))
	}
	out = append(out, s+"; "+describe(cheap, "cost")+".")
	quick := best(func(c choice) float64 { return c.wait })
	out = append(out, fmt.Sprintf("Shortest waits: %s, 90 %% of its jobs wait at most %s; %s.", cs[quick].label, fmtWait(cs[quick].wait), describe(quick, "wait")))
	if carbon {
		clean := best(func(c choice) float64 { return c.co2 })
		out = append(out, fmt.Sprintf("Least CO₂: %s, %s t; %s.", cs[clean].label, numfmt.Fixed(cs[clean].co2/1e6, 2), describe(clean, "co2")))
	}
	var front []string
	beaten := 0
	for _, c := range cs {
		if c.pareto {
			front = append(front, c.label)
		} else {
			beaten++
		}
	}
	slices.Sort(front)
	axes := "cheaper and waits less"
	if carbon {
		axes = "cheaper, waits less and emits less"
	}
	s = fmt.Sprintf("The best choices (no other run is %s): %s.", axes, strings.Join(front, ", "))
	switch beaten {
	case 0:
	case 1:
		s += " The other run is matched or beaten on every axis by one of them."
	default:
		s += fmt.Sprintf(" The other %d runs are each matched or beaten on every axis by one of them.", beaten)
	}
	return append(out, s)
}
