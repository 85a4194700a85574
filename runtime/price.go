package runtime

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// maxPastWindow bounds the window of price.mean_past: 10 years.
const maxPastWindow = 3650 * 86400.0

// initPrice sets what rules see of the contract's price besides price.now:
// price.mean, the mean price from the first to the last submission (known
// in advance, hence an oracle, but the same for every policy), and
// price.mean_past(w), the mean over the last w seconds, which a real
// scheduler can know.
func (a *accounting) initPrice(jobs []workload.Job, env *Env, now *float64) {
	a.priceMean = math.NaN()
	if len(jobs) > 0 {
		first, last := math.Inf(1), math.Inf(-1)
		for i := range jobs {
			first = min(first, jobs[i].Submit)
			last = max(last, jobs[i].Submit)
		}
		a.priceMean = tariff.Mean(a.tar, first, last)
		if a.carbon != nil {
			env.Carbon.Mean = tariff.Mean(a.carbon, first, last)
		}
	}
	env.Price.MeanPast = a.meanPast(now)
}

// meanPast returns price.mean_past for this run: the mean price over
// [now − w, now], or from the start of an hourly series if that is later
// (at or before it, the price now). The last answer is kept, since a rule
// asks the same for every waiting job of a pass.
func (a *accounting) meanPast(now *float64) func(float64) float64 {
	in := tariff.NewIntegrator(a.tar)
	known, _ := a.tar.Span()
	lastT, lastW, lastV := math.NaN(), math.NaN(), 0.0
	return func(w float64) float64 {
		if !(w > 0 && w <= maxPastWindow) {
			panic(fmt.Errorf("price.mean_past(%v): the window must be more than 0 s and at most 10 years (%.0f s)", w, maxPastWindow))
		}
		t := *now
		if t == lastT && w == lastW {
			return lastV
		}
		from := max(t-w, known)
		v := in.Mean(min(from, t), t)
		lastT, lastW, lastV = t, w, v
		return v
	}
}

// readsPriceMean matches price.mean in a rule, not price.mean_past;
// readsCarbonMean matches carbon.mean.
var (
	readsPriceMean  = regexp.MustCompile(`\bprice\s*\??\.\s*mean\b`)
	readsCarbonMean = regexp.MustCompile(`\bcarbon\s*\??\.\s*mean\b`)
)

// ReadsPriceMean reports whether one of the policy's rules reads
// price.mean, which knows prices the run has not reached yet (an oracle).
func (p *Policy) ReadsPriceMean() bool { return p.reads(readsPriceMean) }

// ReadsCarbonMean reports whether one of the policy's rules reads
// carbon.mean, which knows intensities the run has not reached yet.
func (p *Policy) ReadsCarbonMean() bool { return p.reads(readsCarbonMean) }

func (p *Policy) reads(re *regexp.Regexp) bool {
	var while *Expr
	if p.Budget != nil {
		while = p.Budget.While
	}
	rules := []*Expr{p.Order, p.Priority, p.Admit, p.Value, p.Weight, while}
	if d := p.Defer; d != nil {
		rules = append(rules, d.Waiting, d.Running, d.Rule)
	}
	for _, e := range rules {
		if e != nil && re.MatchString(e.Source) {
			return true
		}
	}
	return false
}

// oracleNotes say when a policy's rules read price.mean or carbon.mean.
func oracleNotes(p *Policy) []string {
	var notes []string
	if p.ReadsPriceMean() {
		notes = append(notes, fmt.Sprintf("policy %s: price.mean is the mean price from the first to the last submission, "+
			"future prices included: an oracle no real scheduler has (price.mean_past(86400), the mean over the past day, is one it has)", p.Name))
	}
	if p.ReadsCarbonMean() {
		notes = append(notes, fmt.Sprintf("policy %s: carbon.mean is the mean carbon intensity from the first to the last submission, "+
			"future hours included: an oracle no real scheduler has", p.Name))
	}
	return notes
}

// span returns the sim times the run was simulated over: from the first
// submission (or the accounting window's start, if earlier) to its end.
func (r *runRecord) span() (float64, float64) {
	from := r.firstT
	if r.windowed && r.accFrom < from {
		from = r.accFrom
	}
	return from, r.until
}

// seriesRef says which hourly series of a contract a coverage check is
// about, for its messages.
type seriesRef struct {
	contract string
	file     string // "" for a generated series
	what     string // "hourly prices", "carbon intensities"
	values   string // "prices", "intensities"
	block    string // where the series' options are written
	repeat   bool
	iso      bool
}

func pricesOf(k *Contract) seriesRef {
	return seriesRef{contract: k.Name, file: k.Prices, what: "hourly prices", values: "prices", block: "the hourly block",
		repeat: k.Repeat, iso: k.PriceFormat.Time == tariff.TimeISO}
}

func carbonOf(k *Contract) seriesRef {
	return seriesRef{contract: k.Name, file: k.CarbonSeries, what: "carbon intensities", values: "intensities",
		block: "the block of `carbon hourly`", repeat: k.CarbonRepeat, iso: k.CarbonFormat.Time == tariff.TimeISO}
}

// priceCoverage checks that the contract's prices cover the sim times
// [from, to] a run used. An hourly series that does not is an error,
// unless the contract says `repeat`: then the note says what was priced by
// repeating the series.
func priceCoverage(k *Contract, clock tariff.Clock, tar tariff.Tariff, from, to float64) (string, error) {
	return coverage(pricesOf(k), clock, tar, from, to, "")
}

// coverage checks that an hourly series (tar, a tariff made of it) covers
// the sim times [from, to], as priceCoverage says. ends says what happens
// at to when it is not the end of the run ("" when it is).
func coverage(sr seriesRef, clock tariff.Clock, tar tariff.Tariff, from, to float64, ends string) (string, error) {
	lo, hi := tar.Span()
	before, after := lo-from, to-hi
	if before <= 0 && after <= 0 {
		return "", nil
	}
	at := func(t float64) string { return clock.Time(t).Format("2006-01-02 15:04 MST") }
	file := "generated"
	if sr.file != "" {
		file = filepath.Base(sr.file)
	}
	series := fmt.Sprintf("%s: %s of %s from %s", file, duration(hi-lo), sr.values, at(lo))
	if sr.repeat {
		// The same words for every run that needs it, so a table says it once.
		var side string
		switch {
		case before > 0 && after > 0:
			side = "before its " + sr.what + " start and after they end"
		case before > 0:
			side = "before its " + sr.what + " start"
		default:
			side = "after its " + sr.what + " end"
		}
		verb := "are priced"
		if sr.values != "prices" {
			verb = "take their " + strings.TrimSuffix(sr.values, "ies") + "y"
		}
		return fmt.Sprintf("contract %s: hours %s (%s to %s) %s by repeating the series (`repeat`)",
			sr.contract, side, series, at(hi), verb), nil
	}
	runEnds, itEnds := "the run ends", "it"
	if ends != "" {
		runEnds, itEnds = ends, ends
	}
	var why string
	switch {
	case hi <= from:
		why = fmt.Sprintf("they end at %s, before the run starts (%s)", at(hi), at(from))
	case lo >= to && to > from:
		why = fmt.Sprintf("they start at %s, after %s (%s)", at(lo), runEnds, at(to))
	case before > 0 && after > 0:
		why = fmt.Sprintf("they start %s after the run (%s) and end %s before %s (%s)", duration(before), at(from), duration(after), itEnds, at(to))
	case before > 0:
		why = fmt.Sprintf("they start %s after the run starts (%s)", duration(before), at(from))
	default:
		why = fmt.Sprintf("they end at %s, %s before %s (%s)", at(hi), duration(after), runEnds, at(to))
	}
	var fix string
	switch {
	case sr.iso:
		fix = "use a series whose timestamps cover the run"
	case hi <= from || (lo >= to && to > from):
		fix = "check the series' `start` in " + sr.block
	case before > 0:
		fix = "give the series an earlier `start` in " + sr.block
	default:
		fix = "use a longer series"
	}
	return "", &CoverageError{
		Msg: fmt.Sprintf("contract %s: the %s (%s) do not cover the run: %s", sr.contract, sr.what, series, why),
		Fix: fmt.Sprintf("%s, or add `repeat` to %s to reuse the series cyclically", fix, sr.block)}
}

// CoverageError is an hourly series that does not cover a run: what it
// covers and the run needs, and how to fix it.
type CoverageError struct {
	Msg, Fix string
}

func (e *CoverageError) Error() string { return e.Msg + "; " + e.Fix }

// duration formats seconds as hours below two days, else days.
func duration(sec float64) string {
	if sec < 2*86400 {
		return fmt.Sprintf("%.1f hours", sec/3600)
	}
	return fmt.Sprintf("%.1f days", sec/86400)
}
