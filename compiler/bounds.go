package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Bounds. Every number a scenario gives is checked against the range it
// may take, at `check`, where it is written: a value beyond what any
// machine, tariff or trace has would make a run crash, hang or run for
// years of simulated time, or print an infinity. The ranges reach past
// what the largest systems have, and are written here once: the compiler
// checks them, the README lists them (a test compares the two), and the
// messages quote them.

// A bound is the range of one quantity, as a scenario writes it.
type bound struct {
	field string   // the name the compiler reads it under: `boot`, `powercap … for`
	dim   lang.Dim // its dimension (`boot` is a duration in a machine, a power in a power block)
	// min and max are written as in a .pwr file ("1 s", "10 GW"); "" is
	// no bound of its own on that side (the dimension's applies).
	min, max string
	above    bool   // min itself is not allowed: `above 0 s`
	off      bool   // 0 is allowed besides [min, max], and means none
	whole    bool   // a whole number: a count
	why      string // why the bound: said with the error
	lo, hi   float64
}

// bounds lists the quantities whose range is narrower than their
// dimension's (dimBounds). Counts are whole numbers. The largest values
// were measured: a million nodes with rack-aware placement and switch-off
// runs 2,000 synthetic jobs in about 3 s (ten million took 53 s and 2 GB);
// 5,000,000 synthetic jobs take about 1 GB.
var bounds = []*bound{
	// Machines.
	{field: "nodes", min: "1", max: "1000000", whole: true, why: "a machine has from 1 node up to 1,000,000 (the largest have a few hundred thousand)"},
	{field: "cores", min: "1", max: "100000", whole: true, why: "a node has from 1 core up to a few thousand"},
	{field: "size", min: "1", max: "1000000", whole: true, why: "a level groups from 1 node up to the largest machine pwrc simulates, 1,000,000"},
	{field: "per", min: "1", max: "1000000", whole: true, why: "a group of nodes is from 1 node up to the largest machine pwrc simulates"},
	{field: "off", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "idle", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "busy", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "boot", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "shutdown", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "pstate", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "infrastructure", dim: lang.Power, min: "0 W", max: "10 GW", why: "a whole data centre draws from 0 W to tens of megawatts"},
	{field: "power@level", dim: lang.Power, min: "0 W", max: "10 GW", why: "a level of a machine draws from 0 W to megawatts"},
	{field: "boot", dim: lang.Time, min: "0 s", max: "1 d", why: "a node boots in minutes (0 s: at once); a longer boot would leave jobs waiting for years of simulated time"},
	{field: "shutdown", dim: lang.Time, min: "0 s", max: "1 d", why: "a node shuts down in minutes (0 s: at once)"},
	{field: "slowdown", min: "1", max: "100", why: "a slowdown is how many times longer a job runs at the lowest pstate than at the highest: a lower frequency cannot make it faster, nor a hundred times slower"},
	{field: "slowdown", dim: lang.Fraction, min: "100%", max: "10000%", why: "a slowdown is how many times longer a job runs at the lowest pstate than at the highest: a lower frequency cannot make it faster, nor a hundred times slower"},
	{field: "lifetime", dim: lang.Time, min: "0 s", above: true, max: "100 y", why: "a machine's cost is spread over its lifetime, some years"},
	{field: "system", dim: lang.Money, min: "0 EUR", why: "a machine's price is not negative"},
	{field: "annual", dim: lang.Money, min: "0 EUR", why: "a yearly cost is not negative"},

	// Workloads.
	{field: "jobs", min: "1", max: "5000000", whole: true, why: "a synthetic workload holds from 1 job up to 5,000,000 (about 1 GB of memory to simulate); the largest traces have a few million"},
	{field: "load", min: "0", above: true, max: "10", why: "offered load is the share of node-seconds the jobs ask for, e.g. `load 85%`"},
	{field: "load", dim: lang.Fraction, min: "0%", above: true, max: "1000%", why: "offered load is the share of node-seconds the jobs ask for, e.g. `load 85%`"},
	{field: "unit", min: "1", max: "1000000", whole: true, why: "widths come in units of 1 node or more, up to the machine"},
	{field: "runtime", dim: lang.Time, min: "1 s", max: "30 d", why: "the mean run time of HPC jobs is minutes to hours; the synthetic model draws whole seconds"},
	{field: "seed", min: "0", max: "1000000000", whole: true, why: "seeds are whole numbers from 0 to 1,000,000,000"},
	{field: "power", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "power normal", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},
	{field: "sd", dim: lang.Power, min: "0 W", max: "1 MW", why: "a node draws from 0 W to a few kilowatts"},

	// Contracts.
	{field: "metered", dim: lang.Time, min: "5 min", max: "1 h", why: "meters read intervals of 5 to 60 min (15 min in most of Europe); a run keeps every one, 2 million over 20 years at 5 min"},
	{field: "band", dim: lang.Power, min: "0 W", max: "10 GW", why: "a data centre draws from 0 W to tens of megawatts"},
	{field: "penalty", dim: lang.Money, min: "0 EUR", why: "a penalty is not negative"},
	{field: "demand", dim: lang.Money, min: "0 EUR", why: "a demand charge is not negative"},
	{field: "hours", min: "1", max: "1000000", whole: true, why: "a generated series holds from 1 to 1,000,000 hours (114 years); it repeats over longer runs"},
	{field: "sine period", dim: lang.Time, min: "0 s", above: true, max: "1 y", why: "a sine's period is above 0, hours to a year"},
	{field: "noise", min: "0", max: "1000000000", why: "a standard deviation is not negative"},
	{field: "first", min: "0", max: "1000000", whole: true, why: "`first` counts hours of the series, at most 1,000,000"},

	// Policies.
	{field: "depth", min: "0", max: "1000000000", whole: true, why: "a depth counts waiting jobs, from 0"},
	{field: "keep", min: "0", max: "1000000", whole: true, why: "a reserve counts idle nodes, from 0 up to the largest machine pwrc simulates"},
	{field: "contiguous", min: "1", max: "1000000", whole: true, why: "a unit of allocation is from 1 node up to the largest machine pwrc simulates"},
	{field: "window", min: "1", max: "1000", whole: true, why: "the knapsack chooses from a window of 1 job or more; its table grows by about 33 kB per job of the window (Zhou et al. choose from 10 to 50)"},
	{field: "interval", dim: lang.Time, min: "1 min", off: true, max: "1 d", why: "a scheduler's cycle is a minute or more (Slurm's is 60 s), and each runs a pass while jobs wait, for up to 20 simulated years when one never starts; 0 s runs passes on events only"},
	{field: "active fixed", min: "1", max: "1000000", whole: true, why: "a count of active nodes is from 1 up to the largest machine pwrc simulates"},
	{field: "low", min: "0", max: "1000000", whole: true, why: "a count of active nodes is from 0 up to the largest machine pwrc simulates"},
	{field: "high", min: "1", max: "1000000", whole: true, why: "a count of active nodes is from 1 up to the largest machine pwrc simulates"},
	{field: "every", dim: lang.Time, min: "1 min", max: "1 y", why: "decisions fall at the first submission + n·every, and each simulates the queue: at most one a minute (Lawson & Smirni decide weekly, `every 7 d`)"},
	{field: "lookahead", dim: lang.Time, min: "3 h", max: "7 d", why: "prices are known hour by hour, a day or two ahead: a look-ahead is whole hours from 3 to a week (Kunkel et al. look 12 to 96 h ahead)"},
	{field: "deadline", dim: lang.Time, min: "0 s", above: true, max: "30 d", why: "a deadline bounds how long a deferred job waits; Kunkel et al.'s is its look-ahead"},
	{field: "budget", dim: lang.Power, min: "0 W", max: "10 GW", why: "a data centre draws from 0 W to tens of megawatts"},
	{field: "powercap", dim: lang.Power, min: "0 W", max: "10 GW", why: "a data centre draws from 0 W to tens of megawatts"},
	{field: "sla mean bsld <=", min: "0", max: "1000000", why: "a mean bounded slowdown of a million is a queue that never moves"},
}

// dimBounds bound every quantity of a dimension, in magnitude: what no
// scenario needs to exceed, and what keeps every sum and product pwrc
// forms far from overflowing to an infinity.
var dimBounds = map[lang.Dim]*bound{
	lang.Dimensionless: {max: "1000000000", why: "plain numbers in a scenario are at most 1,000,000,000 in size"},
	lang.Power:         {max: "10 GW", why: "a data centre draws at most tens of megawatts"},
	lang.Energy:        {max: "1000000 GWh", why: "the largest data centres use a few TWh a year"},
	lang.Time:          {max: "100 y", why: "a scenario's durations and instants are at most a century"},
	lang.Fraction:      {max: "1000%", why: "shares and loads are at most a few times 100%"},
	lang.Price:         {max: "10000 EUR/kWh", why: "electricity costs cents per kWh; market prices peak at a few EUR per kWh"},
	lang.Money:         {max: "1000000 MEUR", why: "the largest machines cost hundreds of millions"},
	lang.Frequency:     {max: "100 GHz", why: "processors run at a few GHz"},
	lang.Carbon:        {max: "10000 g/kWh", why: "the dirtiest grids emit about 1,000 g per kWh"},
}

// maxSpan bounds the time a run simulates and accounts that the compiler
// can see: an accounting window, the arrivals of a synthetic workload.
// The cost of a run grows with it (the ledger keeps every hour, and every
// metered interval: 2 million at 5 min over 20 years).
const maxSpan = "20 y"

// minDate and maxDate bound the local dates a scenario writes.
const minDate, maxDate = "1900-01-01", "2200-01-01"

var maxSpanSeconds = mustQuantity(maxSpan)

func init() {
	for _, b := range bounds {
		b.parse()
	}
	for d, b := range dimBounds {
		b.dim = d
		b.parse()
		b.min, b.lo = "-"+b.max, -b.hi
	}
}

// parse reads min and max into lo and hi, in base units.
func (b *bound) parse() {
	b.lo, b.hi = math.Inf(-1), math.Inf(1)
	if b.min != "" {
		b.lo = mustQuantity(b.min)
	}
	if b.max != "" {
		b.hi = mustQuantity(b.max)
	}
}

// mustQuantity reads "10 GW", "1 d" or "1000000" into base units; the
// tables above are written correctly (TestBoundsTable).
func mustQuantity(s string) float64 {
	num, unit, _ := strings.Cut(s, " ")
	if strings.HasSuffix(num, "%") {
		num, unit = strings.TrimSuffix(num, "%"), "%"
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil {
		panic(fmt.Sprintf("bounds: %q: %v", s, err))
	}
	if unit == "" {
		return x
	}
	u, ok := lang.LookupUnit(unit)
	if !ok {
		panic(fmt.Sprintf("bounds: %q: unknown unit", s))
	}
	return x * u.Scale
}

// boundOf returns the bound of a field of dimension dim: its own, or nil.
func boundOf(field string, dim lang.Dim) *bound {
	for _, b := range bounds {
		if b.field == field && b.dim == dim {
			return b
		}
	}
	return nil
}

// checkBounds checks x, field's value in base units, against its bound:
// its own on the sides it sets, its dimension's otherwise. n is the number
// as written, at which it reports, cur the currency of a price or an
// amount. Counts are checked for their minimum and wholeness by count.
func (c *compiler) checkBounds(field string, dim lang.Dim, x float64, n *lang.Number, cur string, use lang.Value) bool {
	own, def := boundOf(field, dim), dimBounds[dim]
	hi, lo := def, def
	if own != nil && own.max != "" {
		hi = own
	}
	if own != nil && own.min != "" {
		lo = own
	}
	var d *lang.Diagnostic
	switch {
	case x > hi.hi || math.IsNaN(x):
		d = c.diags.Errorf(n.R, "`%s` is too %s: %s (at most %s)", fieldName(field), sizeWord(dim, true), n.Src, hi.show(hi.max, cur))
		d.With("%s.", capitalize(hi.why))
	case lo.whole || lo.off && x == 0:
		return true
	case x < lo.lo || lo.above && x == lo.lo:
		limit := "at least " + lo.show(lo.min, cur)
		if lo.above {
			limit = "it must be above " + lo.show(lo.min, cur)
		}
		if lo.off {
			limit += ", or 0 for none"
		}
		d = c.diags.Errorf(n.R, "`%s` is too %s: %s (%s)", fieldName(field), sizeWord(dim, false), n.Src, limit)
		d.With("%s.", capitalize(lo.why))
	default:
		return true
	}
	c.noteUse(d, use, n)
	return false
}

// show writes a bound in the currency of the value it is compared with.
func (b *bound) show(s, cur string) string {
	if cur != "" && (b.dim == lang.Price || b.dim == lang.Money) {
		s = strings.Replace(s, "EUR", cur, 1)
	}
	return s
}

// sizeWord says "large" or "small", "long" or "short" for durations.
func sizeWord(dim lang.Dim, big bool) string {
	switch {
	case dim == lang.Time && big:
		return "long"
	case dim == lang.Time:
		return "short"
	case big:
		return "large"
	}
	return "small"
}

// spanWords writes a number of seconds in the largest of years, days,
// hours, minutes and seconds that it holds twice.
func spanWords(s float64) string {
	const year, day = 365 * 86400, 86400
	one := func(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }
	switch {
	case s >= 2*year:
		return thousands(s/year) + " years"
	case s >= 2*day:
		return thousands(s/day) + " days"
	case s >= 2*3600:
		return one(s/3600) + " hours"
	case s >= 120:
		return thousands(s/60) + " min"
	}
	return one(s) + " s"
}

// thousands writes a rounded number with thousands separators.
func thousands(x float64) string {
	s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// inDateRange reports whether a local date written as in localTime lies
// within [minDate, maxDate).
func inDateRange(t time.Time) bool {
	lo, _ := time.Parse("2006-01-02", minDate)
	hi, _ := time.Parse("2006-01-02", maxDate)
	return !t.Before(lo) && t.Before(hi)
}

// windowSpan checks that an accounting or measure window s, w, is at
// most maxSpan long: a run accounts every hour of it (and every metered
// interval). The ends are both offsets or both dates; a window that mixes
// them is measured at run time.
func (c *compiler) windowSpan(s *lang.Stmt, w *runtime.Window) bool {
	var span float64
	switch {
	case w.From.Date == "" && w.To.Date == "":
		span = w.To.Offset - w.From.Offset
	case w.From.Date != "" && w.To.Date != "":
		from, err1 := time.Parse("2006-01-02T15:04:05", w.From.Date)
		to, err2 := time.Parse("2006-01-02T15:04:05", w.To.Date)
		if err1 != nil || err2 != nil {
			return true
		}
		span = to.Sub(from).Seconds()
	default:
		return true
	}
	if span <= maxSpanSeconds {
		return true
	}
	c.diags.Errorf(argsRange(s), "the %s window is too long: %s (at most %s)", s.Key.Name, spanWords(span), spanWords(maxSpanSeconds)).
		With("A run accounts every hour of its window; compare runs over the span of their traces, at most %s.", spanWords(maxSpanSeconds))
	return false
}

// syntheticSample is how many jobs syntheticFits draws to estimate a
// synthetic workload's span: enough for a rate within a few percent.
const syntheticSample = 2000

// syntheticFits checks a synthetic workload against the machine it runs
// on, as the runtime will (workload.Synthetic.Validate: a width unit
// larger than the machine), and estimates how long its arrivals take: the
// generator's own rate from a sample of its jobs, times the jobs. A span
// beyond maxSpan (a tiny load, or millions of jobs on a few nodes) would
// simulate for centuries.
func (c *compiler) syntheticFits(s *lang.Stmt, w runtime.Workload, m *runtime.Machine) bool {
	syn := w.Synthetic
	syn.Nodes = m.Nodes
	if ok, seen := c.synthOK[syn]; seen {
		return ok
	}
	at := c.synthAt[s.Body]
	where := func(fields ...string) lang.Range {
		for _, f := range fields {
			if r, ok := at[f]; ok {
				return r
			}
		}
		return s.Args[0].Range()
	}
	c.synthOK[syn] = false
	if syn.Unit > m.Nodes {
		c.diags.Errorf(where("unit"), "`unit` is %d nodes, more than machine `%s` has (%d)", syn.Unit, m.Name, m.Nodes).
			With("Widths come in units of at most the machine; give a unit that divides it, e.g. `unit %d`.", largestDivisorUpTo(m.Nodes, syn.Unit))
		return false
	}
	if err := syn.Validate(); err != nil { // what the runtime would refuse
		c.diags.Errorf(s.Args[0].Range(), "%v", err)
		return false
	}
	sample := syn
	sample.Jobs = min(syn.Jobs, syntheticSample)
	jobs := workload.Generate(sample)
	if len(jobs) > 1 {
		gap := (jobs[len(jobs)-1].Submit - jobs[0].Submit) / float64(len(jobs)-1)
		span := gap * float64(syn.Jobs-1) * max(1, syn.Load) // an overloaded queue drains after the last arrival
		if span > maxSpanSeconds {
			mean := syn.MeanRuntime
			if mean == 0 {
				mean = workload.DefaultMeanRuntime
			}
			c.diags.Errorf(where("load", "jobs"), "this synthetic workload would run for about %s (at most %s)", spanWords(span), spanWords(maxSpanSeconds)).
				With("%s jobs of %s mean run time at a load of %s on machine `%s`'s %s nodes arrive one every %s; raise the load, shorten the jobs (`runtime`), or give fewer of them.",
					thousands(float64(syn.Jobs)), spanWords(mean), strconv.FormatFloat(100*syn.Load, 'g', 4, 64)+"%", m.Name, thousands(float64(m.Nodes)), spanWords(gap))
			return false
		}
	}
	c.synthOK[syn] = true
	return true
}
