package compiler

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

const (
	// maxPlausiblePrice is the highest price per kWh a contract is taken
	// to mean: 100 EUR/kWh is likely 100 EUR/MWh written per kWh.
	maxPlausiblePrice = 100
	// maxPlausibleMedian is the highest median price per kWh of an hourly
	// series (market prices peak at a few EUR/kWh for an hour, not for
	// half of them).
	maxPlausibleMedian = 10
	// minPlausibleMedianPerMWh is the lowest median price per MWh of a
	// series said to be per MWh (a year of market prices has a median of
	// tens of EUR/MWh).
	minPlausibleMedianPerMWh = 1
)

var currencyNames = []string{"EUR", "USD", "GBP", "CHF"}

// hourlyInfo is what an hourly block said, for the checks that follow it.
type hourlyInfo struct {
	currencies []struct {
		cur string
		at  lang.Range
	}
	unitAt, startAt, timeAt *lang.Stmt
}

// seriesOpts are where a series block's shared fields go: the hourly
// prices' or the carbon intensities'.
type seriesOpts struct {
	start  *string
	format *tariff.Format
	repeat *bool
}

// seriesFields are the fields every hourly series block takes: `start`,
// `time` and `repeat` (and each its own `unit`).
func (c *compiler) seriesFields(hb *hourlyInfo, o seriesOpts, b binding) []fieldSpec {
	return []fieldSpec{
		{name: "start", usage: `start "2016-12-30"`, decode: func(s *lang.Stmt) {
			hb.startAt = s
			if c.args(s, 1, 1, `start "2016-12-30"`) {
				if t, ok := c.localTime(s.Args[0], b, "start"); ok {
					*o.start = t
				}
			}
		}},
		{name: "time", usage: "time days", decode: func(s *lang.Stmt) {
			hb.timeAt = s
			if !c.args(s, 1, 1, "time days` (or `hours`, `iso") {
				return
			}
			if kw, ok := c.keyword(s.Args[0], "time", "days", "hours", "iso"); ok {
				o.format.Time = map[string]tariff.TimeColumn{"days": tariff.TimeDays, "hours": tariff.TimeHours, "iso": tariff.TimeISO}[kw]
			}
		}},
		{name: "repeat", usage: "repeat", decode: func(s *lang.Stmt) {
			if len(s.Args) > 0 {
				c.diags.Errorf(s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range()), "`repeat` takes no value").
					With("Write `repeat` alone: the series then repeats when the run needs hours outside it.")
				return
			}
			*o.repeat = true
		}},
	}
}

// seriesStartISO refuses a `start` given to a series with timestamps.
func (c *compiler) seriesStartISO(hb hourlyInfo, o seriesOpts) {
	if hb.startAt != nil && o.format.Time == tariff.TimeISO {
		c.diags.Errorf(hb.startAt.Key.R, "`start` does not apply to a series with timestamps").
			With("With `time iso` the file's first timestamp places the series; remove `start`.").
			Note(hb.timeAt.Args[0].Range(), "timestamps here")
		*o.start = ""
	}
}

// hourlyBlock reads the block of `hourly "file.csv" { ... }`: where the
// series starts, its price unit and currency, what its time column holds,
// and whether a run may repeat it.
func (c *compiler) hourlyBlock(s *lang.Stmt, cd *decl, b binding, k *runtime.Contract) hourlyInfo {
	var hb hourlyInfo
	addCurrency := func(cur string, at lang.Range) {
		hb.currencies = append(hb.currencies, struct {
			cur string
			at  lang.Range
		}{cur, at})
	}
	o := seriesOpts{start: &k.SeriesStart, format: &k.PriceFormat, repeat: &k.Repeat}
	shared := c.seriesFields(&hb, o, b)
	c.decodeBlock("the hourly block of "+what(cd), s.Body, append(append(shared[:1:1], []fieldSpec{
		{name: "unit", usage: "unit EUR/MWh", decode: func(s *lang.Stmt) {
			hb.unitAt = s
			if !c.args(s, 1, -1, "unit EUR/MWh") {
				return
			}
			text, r := unitArg(s)
			u, known := lang.LookupUnit(text)
			switch {
			case !known:
				c.diags.Errorf(r, "unknown unit `%s`", text).DidYouMean(lang.SuggestUnit(text)).
					With("The prices' unit: %s.", unitList(lang.Price))
			case u.Dim != lang.Price:
				d := c.diags.Errorf(r, "wrong unit: `%s` is %s, but `unit` needs a price per energy", text, u.Dim).
					With("The prices' unit: %s.", unitList(lang.Price))
				if u.Dim == lang.Money {
					d.DidYouMean(text + "/MWh")
				}
			default:
				k.PriceScale, k.PriceUnit = u.Scale, u.Name
				addCurrency(u.Currency, r)
			}
		}},
		{name: "currency", usage: "currency EUR", decode: func(s *lang.Stmt) {
			if !c.args(s, 1, 1, "currency EUR") {
				return
			}
			text := s.Args[0].Text()
			if u, ok := lang.LookupUnit(text); ok && u.Dim == lang.Money {
				addCurrency(u.Currency, s.Args[0].Range())
				return
			}
			d := c.diags.Errorf(s.Args[0].Range(), "`%s` is not a currency", text).
				With("Currencies: %s.", strings.Join(currencyNames, ", "))
			if u, ok := lang.LookupUnit(text); ok && u.Dim == lang.Price {
				d.With("For prices per MWh, write `unit %s`.", text)
			} else {
				d.DidYouMean(lang.Suggest(strings.ToUpper(text), currencyNames))
			}
		}},
	}...), shared[1:]...))
	c.seriesStartISO(hb, o)
	return hb
}

// carbonBlock reads the block of `carbon hourly "file.csv" { ... }`: the
// options of a price series (`start`, `time`, `repeat`) and the unit of
// its intensities (g/kWh unless it says otherwise).
func (c *compiler) carbonBlock(s *lang.Stmt, b binding, k *runtime.Contract) hourlyInfo {
	var hb hourlyInfo
	o := seriesOpts{start: &k.CarbonStart, format: &k.CarbonFormat, repeat: &k.CarbonRepeat}
	shared := c.seriesFields(&hb, o, b)
	c.decodeBlock("the block of `carbon hourly`", s.Body, append(append(shared[:1:1], fieldSpec{
		name: "unit", usage: "unit kg/MWh", decode: func(s *lang.Stmt) {
			hb.unitAt = s
			if !c.args(s, 1, -1, "unit kg/MWh") {
				return
			}
			text, r := unitArg(s)
			u, known := lang.LookupUnit(text)
			switch {
			case !known:
				c.diags.Errorf(r, "unknown unit `%s`", text).DidYouMean(lang.SuggestUnit(text)).
					With("The intensities' unit: %s.", unitList(lang.Carbon))
			case u.Dim != lang.Carbon:
				c.diags.Errorf(r, "wrong unit: `%s` is %s, but `unit` needs a carbon intensity", text, u.Dim).
					With("The intensities' unit: %s.", unitList(lang.Carbon))
			default:
				k.CarbonScale, k.CarbonUnit = u.Scale, u.Name
			}
		}}), shared[1:]...))
	c.seriesStartISO(hb, o)
	return hb
}

// unitArg joins the arguments of `unit EUR/MWh` (read as EUR, /, MWh) into
// one unit name, and returns where they are.
func unitArg(s *lang.Stmt) (string, lang.Range) {
	var b strings.Builder
	for _, a := range s.Args {
		if str, ok := a.(*lang.String); ok {
			b.WriteString(strings.TrimSpace(str.Value))
		} else {
			b.WriteString(a.Text())
		}
	}
	return b.String(), s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range())
}

// checkPriceFile reads the price file of an hourly contract a run uses: a
// file that cannot be read or parsed fails `pwrc check` at the string that
// names it, and prices that look like they are in another unit than the
// one the contract says get a warning.
func (c *compiler) checkPriceFile(k *runtime.Contract, str *lang.String, hb hourlyInfo) {
	if c.dataFile(k.Prices, str.R, "price series", false).err != nil {
		return // reported
	}
	rc, err := c.opts.OpenData(k.Prices)
	if err != nil {
		return
	}
	defer rc.Close()
	s, err := tariff.ReadPrices(k.Prices, rc, k.PriceFormat)
	if err != nil {
		c.dataError(k.Prices, str.R, "price series", err)
		return
	}
	cur := "EUR"
	if len(hb.currencies) > 0 {
		cur = hb.currencies[0].cur
	}
	scale := k.PriceScale
	if scale == 0 {
		scale = 1
	}
	bd := dimBounds[lang.Price]
	for i, p := range s.Prices {
		if math.Abs(p*scale) > bd.hi {
			c.diags.Errorf(str.R, "price file %s: its price number %d is %s %s/kWh (at most %s in size)", str.Value, i+1, strconv.FormatFloat(p*scale, 'g', 4, 64), cur, bd.show(bd.max, cur)).
				With("%s; check the file's unit (`unit %s/MWh` in the hourly block for prices per MWh).", capitalize(bd.why), cur)
			return
		}
	}
	med := median(s.Prices) // in the file's unit
	switch {
	case scale == 1 && med > maxPlausibleMedian:
		at := str.R
		if hb.unitAt != nil {
			at = hb.unitAt.Args[0].Range().Cover(hb.unitAt.Args[len(hb.unitAt.Args)-1].Range())
		}
		c.diags.Warnf(at, "the prices in %s look like prices per MWh: their median is %s %s/kWh", str.Value, fmtPrice(med), cur).
			With("If the file gives prices per MWh, say so: `hourly %s { unit %s/MWh }`.", str.Src, cur)
	case scale == 1e-3 && hb.unitAt != nil && math.Abs(med) < minPlausibleMedianPerMWh:
		at := hb.unitAt.Args[0].Range().Cover(hb.unitAt.Args[len(hb.unitAt.Args)-1].Range())
		c.diags.Warnf(at, "the prices in %s look like prices per kWh: their median is %s %s", str.Value, fmtPrice(med), k.PriceUnit).
			With("If the file gives prices per kWh, remove `unit %s`: prices are per kWh unless the block says otherwise.", k.PriceUnit)
	}
}

// checkCarbonFile reads the carbon intensity series of a contract a run
// uses, as its block describes it: a file that cannot be read or parsed
// fails `pwrc check` at the line that is wrong.
func (c *compiler) checkCarbonFile(k *runtime.Contract, str *lang.String) {
	if c.dataFile(k.CarbonSeries, str.R, "carbon intensity series", false).err != nil {
		return // reported
	}
	rc, err := c.opts.OpenData(k.CarbonSeries)
	if err != nil {
		return
	}
	defer rc.Close()
	if _, err := tariff.ReadPrices(k.CarbonSeries, rc, k.CarbonFormat); err != nil {
		c.dataError(k.CarbonSeries, str.R, "carbon intensity series", err)
	}
}

// implausiblePrice warns about a contract price above 100 per kWh, most
// likely a price per MWh written per kWh.
func (c *compiler) implausiblePrice(n *lang.Number, use lang.Value, cur string) {
	d := c.diags.Warnf(n.R, "`%s` is more than %d %s per kWh", n.Src, maxPlausiblePrice, cur).
		With("Electricity costs cents per kWh; a price this high is most likely per MWh.")
	if strings.HasSuffix(n.Unit, "/kWh") {
		d.DidYouMean(trimNumber(n.Value) + " " + cur + "/MWh")
	}
	c.noteUse(d, use, n)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1]/2 + s[n/2]/2
}

func fmtPrice(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
