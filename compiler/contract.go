package compiler

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

var weekdays = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// contract compiles a contract declaration.
func (c *compiler) contract(d *decl, b binding) (runtime.Contract, bool) {
	chain, ok := c.chain(d)
	if !ok {
		return runtime.Contract{}, false
	}
	k := runtime.Contract{Name: d.name}
	// Where each pricing field is written, valid or not: a bad value is
	// reported on its own and must not also make the contract "priceless".
	var flatAt, baseAt, hourlyAt, peakAt *lang.Stmt
	var peaks []*lang.Stmt
	var peaksFrom, peakOwner *decl
	type currency struct {
		cur  string
		at   lang.Range
		stmt *lang.Stmt // the pricing statement it belongs to
	}
	var currencies []currency // in the order the prices are read
	var cur *lang.Stmt        // the pricing statement being read
	price := func(v lang.Value, field string) (float64, bool) {
		p, unit, ok := c.quantity(v, b, lang.Price, field)
		if ok && unit != "" {
			at := v.Range()
			n, isNum := c.val(v, b).(*lang.Number)
			if isNum && n.UnitRange.Valid() {
				at = n.UnitRange
			}
			currencies = append(currencies, currency{unit, at, cur})
			if isNum && p > maxPlausiblePrice {
				c.implausiblePrice(n, v, unit)
			}
		}
		return p, ok
	}
	// The rest of the bill is in the contract's currency too.
	var billCur []currency
	money := func(dim lang.Dim) func(v lang.Value, field string) (float64, bool) {
		return func(v lang.Value, field string) (float64, bool) {
			m, unit, ok := c.quantity(v, b, dim, field)
			if ok && unit != "" {
				billCur = append(billCur, currency{unit, v.Range(), nil})
			}
			return m, ok
		}
	}
	bill := c.billFields(&k, b, money(lang.Price), money(lang.Money))
	before := c.errs()
	for _, cd := range chain {
		prev := [4]*lang.Stmt{flatAt, hourlyAt, peakAt, baseAt}
		c.decodeBlock(what(cd), cd.stmt.Body, append([]fieldSpec{
			{name: "flat", usage: "flat 0.145 EUR/kWh", decode: func(s *lang.Stmt) {
				flatAt, cur = s, s
				if c.args(s, 1, 1, "flat 0.145 EUR/kWh") {
					if p, ok := price(s.Args[0], "flat"); ok {
						k.Price = p
					}
				}
			}},
			{name: "peak", usage: "peak 06:00..22:00 at 0.16675 EUR/kWh", repeat: true, decode: func(s *lang.Stmt) {
				cur = s
				if peakOwner != cd {
					peakAt, peakOwner = s, cd
				}
				if w, p, ok := c.peakWindow(s, b, price); ok {
					if peaksFrom != cd { // a derived contract's windows replace its base's
						k.Peak, peaks, peaksFrom = nil, nil, cd
					}
					if len(peaks) > 0 && p != k.PeakPrice {
						c.diags.Errorf(s.Args[len(s.Args)-1].Range(), "peak windows have different prices").
							With("All peak windows share one price; use an hourly contract for more levels.").
							Note(peaks[0].Range, "first peak window")
						return
					}
					k.Peak = append(k.Peak, w)
					k.PeakPrice = p
					peaks = append(peaks, s)
				}
			}},
			{name: "otherwise", usage: "otherwise 0.10 EUR/kWh", decode: func(s *lang.Stmt) {
				baseAt, cur = s, s
				if c.args(s, 1, 1, "otherwise 0.10 EUR/kWh") {
					if p, ok := price(s.Args[0], "otherwise"); ok {
						k.BasePrice = p
					}
				}
			}},
			{name: "hourly", usage: "hourly \"prices.csv\"", decode: func(s *lang.Stmt) {
				hourlyAt, cur = s, s
				// The block describes this file: nothing of a base's hourly
				// statement carries over.
				k.Prices, k.PriceFormat, k.PriceScale, k.PriceUnit, k.SeriesStart, k.Repeat = "", tariff.Format{}, 1, "", "", false
				k.Generate = nil
				if len(s.Args) == 1 && s.Args[0].Text() == "generate" {
					k.Generate = c.generator(s, b, "price", price)
					k.Repeat = true // a generated series repeats over longer runs
					return
				}
				if !c.args(s, 1, 1, `hourly "prices.csv"`) {
					return
				}
				str, ok := c.str(s.Args[0], b, "hourly", `hourly "prices.csv"`)
				if !ok {
					return
				}
				k.Prices = c.path(str)
				c.seriesAt[k.Name+"\x00prices\x00"+k.Prices] = str.R
				if strings.TrimSpace(str.Value) == "" && b != nil { // only a run needs the file
					d := c.diags.Errorf(s.Args[0].Range(), "no price file for %s", what(d))
					if id, ok := s.Args[0].(*lang.Ident); ok && c.params[id.Name] != nil {
						d.With("Set it: `param %s = \"path/T1.csv\"` in your scenario, or --set %s=path/T1.csv.", id.Name, id.Name)
					}
				}
				blockErrs := c.errs()
				hb := c.hourlyBlock(s, cd, b, &k)
				for _, cu := range hb.currencies {
					currencies = append(currencies, currency{cu.cur, cu.at, s})
				}
				// Read the file only as the block describes it: after an
				// error there, its errors would be guesses.
				if b != nil && strings.TrimSpace(str.Value) != "" && c.errs() == blockErrs {
					c.checkPriceFile(&k, str, hb)
				}
			}},
		}, bill...))
		// A derived contract with a pricing scheme of its own replaces its
		// base's: `contract spot from basepeak { hourly "T1.csv" }`.
		own := map[string]bool{"flat": flatAt != prev[0], "hourly": hourlyAt != prev[1], "basepeak": peakAt != prev[2] || baseAt != prev[3]}
		if n := btoi(own["flat"]) + btoi(own["hourly"]) + btoi(own["basepeak"]); n == 1 {
			if !own["flat"] {
				flatAt = nil
			}
			if !own["hourly"] {
				hourlyAt = nil
			}
			if !own["basepeak"] {
				peakAt, baseAt, k.Peak, peaks, peaksFrom, peakOwner = nil, nil, nil, nil, nil, nil
			}
		}
	}
	name := d.stmt.Args[0].Range()
	guessed := func(fields ...string) bool {
		for _, cd := range chain {
			for _, f := range fields {
				if c.guessed(cd.stmt.Body, f) {
					return true
				}
			}
		}
		return false
	}
	schemes := 0
	for _, s := range []*lang.Stmt{flatAt, hourlyAt} {
		if s != nil {
			schemes++
		}
	}
	if peakAt != nil || baseAt != nil {
		schemes++
	}
	switch {
	case schemes == 0 && guessed("flat", "peak", "otherwise", "hourly"):
		// A misspelled pricing field is reported already.
	case schemes == 0:
		c.diags.Errorf(name, "%s has no price", what(d)).
			With("Add `flat 0.145 EUR/kWh`, a base/peak pair (`peak 06:00..22:00 at ...` and `otherwise ...`), or `hourly \"prices.csv\"`.")
	case schemes > 1:
		var at []*lang.Stmt
		for _, s := range []*lang.Stmt{flatAt, hourlyAt, peakAt, baseAt} {
			if s != nil {
				at = append(at, s)
			}
		}
		sort.Slice(at, func(i, j int) bool { return stmtBefore(at[i], at[j]) })
		second := at[1]
		for _, s := range at[1:] {
			if !(isBasePeak(s) && isBasePeak(at[0])) {
				second = s
				break
			}
		}
		c.diags.Errorf(second.Key.R, "%s has two pricing schemes: `%s` and `%s`", what(d), at[0].Key.Name, second.Key.Name).
			With("Use one of `flat`, `peak`/`otherwise` or `hourly`; to compare tariffs, declare one contract each and sweep them.").
			Note(at[0].Key.R, "`%s` is here", at[0].Key.Name)
	case flatAt != nil:
		k.Kind = runtime.Flat
	case hourlyAt != nil:
		k.Kind = runtime.Hourly
	default:
		k.Kind = runtime.BasePeak
		if peakAt == nil && !guessed("peak") {
			c.diags.Errorf(baseAt.Key.R, "`otherwise` without a `peak` window").With("Add `peak 06:00..22:00 at 0.16675 EUR/kWh`.")
		}
		if baseAt == nil && !guessed("otherwise") {
			c.diags.Errorf(peakAt.Key.R, "`peak` without an `otherwise` price").With("Add `otherwise 0.10 EUR/kWh` for the hours outside the peak windows.")
		}
	}
	// Only the prices of the pricing statements in force count: a derived
	// contract's own scheme replaces its base's, currency and all.
	inForce := map[*lang.Stmt]bool{flatAt: true, hourlyAt: true, baseAt: true}
	for _, p := range peaks {
		inForce[p] = true
	}
	currencies = slices.DeleteFunc(currencies, func(cu currency) bool { return !inForce[cu.stmt] })
	k.Currency = "EUR"
	if len(currencies) > 0 {
		k.Currency = currencies[0].cur
	}
	if len(currencies) == 0 && len(billCur) > 0 {
		currencies = billCur[:1]
		k.Currency = billCur[0].cur
	}
	for _, cu := range append(currencies[min(1, len(currencies)):], billCur...) {
		if cu.cur != currencies[0].cur {
			c.diags.Errorf(cu.at, "%s mixes currencies: %s and %s", what(d), currencies[0].cur, cu.cur).
				With("Write all its prices in one currency.").
				Note(currencies[0].at, "a price in %s", currencies[0].cur)
			break
		}
	}
	return k, c.errs() == before
}

// peakWindow reads `peak 06:00..22:00 [on mon..fri] at PRICE`.
func (c *compiler) peakWindow(s *lang.Stmt, b binding, price func(lang.Value, string) (float64, bool)) (tariff.Window, float64, bool) {
	const usage = "Write `peak 06:00..22:00 at 0.16675 EUR/kWh`, or with days, `peak 06:00..22:00 on mon..fri at 0.16675 EUR/kWh`."
	a := s.Args
	if len(a) == 0 {
		r := lang.Range{File: s.Key.R.File, Start: s.Key.R.End, End: s.Key.R.End}
		c.diags.Errorf(r, "`peak` needs a window and a price").With("%s", usage)
		return tariff.Window{}, 0, false
	}
	var from, to *lang.Clock
	ok := len(a) >= 3 && a[1].Text() == ".."
	if ok {
		from, ok = c.val(a[0], b).(*lang.Clock)
	}
	if ok {
		to, ok = c.val(a[2], b).(*lang.Clock)
	}
	if !ok {
		r := a[0].Range().Cover(a[min(2, len(a)-1)].Range())
		c.diags.Errorf(r, "`peak` needs a window of times of day, like `06:00..22:00`").With("%s", usage)
		return tariff.Window{}, 0, false
	}
	if from.Invalid || to.Invalid {
		return tariff.Window{}, 0, false // reported by the parser
	}
	window := a[0].Range().Cover(a[2].Range())
	if from.Seconds == to.Seconds {
		c.diags.Errorf(window, "empty peak window `%s..%s`", from.Src, to.Src).
			With("A window from a time to the same time holds no hours; for a whole day write `00:00..24:00`.")
		return tariff.Window{}, 0, false
	}
	if from.Seconds == 86400 {
		c.diags.Errorf(from.R, "a peak window cannot start at 24:00").With("Write `00:00..%s`.", to.Src)
		return tariff.Window{}, 0, false
	}
	w := tariff.Window{From: from.Seconds, To: to.Seconds}
	if err := w.Validate(); err != nil {
		c.diags.Errorf(window, "invalid peak window: %v", err)
		return tariff.Window{}, 0, false
	}
	rest := a[3:]
	if len(rest) > 0 && rest[0].Text() == "on" {
		i := 1
		for i < len(rest) && rest[i].Text() != "at" {
			i++
		}
		days, ok := c.days(rest[1:i], rest[0].Range())
		if !ok {
			return tariff.Window{}, 0, false
		}
		w.Days = days
		rest = rest[i:]
	}
	if len(rest) != 2 || rest[0].Text() != "at" {
		switch {
		case len(rest) == 0:
			c.diags.Errorf(lang.Range{File: window.File, Start: window.End, End: window.End}, "`peak` needs `at PRICE` after its window").
				With("%s", usage)
		case len(rest) == 1 && isNumber(rest[0]):
			c.diags.Errorf(rest[0].Range(), "missing `at` before the peak price").
				DidYouMean("at "+rest[0].Text()).With("%s", usage)
		default:
			r := rest[0].Range().Cover(a[len(a)-1].Range())
			d := c.diags.Errorf(r, "`peak` needs `at PRICE` after its window").With("%s", usage)
			if id, ok := rest[0].(*lang.Ident); ok && len(rest) == 2 {
				d.Range = id.R
				d.DidYouMean(lang.Suggest(id.Name, []string{"at", "on"}))
			}
		}
		return tariff.Window{}, 0, false
	}
	p, ok := price(rest[1], "peak")
	return w, p, ok
}

func isBasePeak(s *lang.Stmt) bool { return s.Key.Name == "peak" || s.Key.Name == "otherwise" }

func stmtBefore(a, b *lang.Stmt) bool {
	if a.Range.File != b.Range.File {
		return a.Range.File < b.Range.File
	}
	return a.Range.Start.Offset < b.Range.Start.Offset
}

func isNumber(v lang.Value) bool { _, ok := v.(*lang.Number); return ok }

// days reads `mon..fri`, `sat` or `[sat, sun]` into a weekday mask.
func (c *compiler) days(vs []lang.Value, at lang.Range) (uint8, bool) {
	day := func(v lang.Value) (int, bool) {
		id, ok := v.(*lang.Ident)
		if ok {
			for i, d := range weekdays {
				if strings.EqualFold(id.Name, d) {
					return i, true
				}
			}
		}
		d := c.diags.Errorf(v.Range(), "`%s` is not a day of the week", v.Text()).With("Days are %s.", strings.Join(weekdays, ", "))
		if ok {
			d.DidYouMean(lang.Suggest(strings.ToLower(id.Name), weekdays))
		}
		return 0, false
	}
	var mask uint8
	switch {
	case len(vs) == 1:
		if l, ok := vs[0].(*lang.List); ok {
			for _, it := range l.Items {
				if len(it) != 1 {
					c.diags.Errorf(l.R, "write days as `[sat, sun]`")
					return 0, false
				}
				d, ok := day(it[0])
				if !ok {
					return 0, false
				}
				mask |= 1 << d
			}
			return mask, true
		}
		d, ok := day(vs[0])
		return 1 << d, ok
	case len(vs) == 3 && vs[1].Text() == "..":
		a, ok1 := day(vs[0])
		z, ok2 := day(vs[2])
		if !ok1 || !ok2 {
			return 0, false
		}
		for i := a; ; i = (i + 1) % 7 {
			mask |= 1 << i
			if i == z {
				break
			}
		}
		return mask, true
	}
	c.diags.Errorf(at, "`on` needs days: `on mon..fri`, `on sat` or `on [sat, sun]`")
	return 0, false
}

// localTime reads a date or date-time string ("2016-12-30", "2016-12-30
// 06:00") into the canonical local form; the zone is applied at run time.
func (c *compiler) localTime(v lang.Value, b binding, field string) (string, bool) {
	s, ok := c.str(v, b, field, field+` "2016-12-30 00:00"`)
	if !ok {
		return "", false
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s.Value); err == nil {
			if !inDateRange(t) {
				c.diags.Errorf(s.R, "`%s` is out of range: %s (dates run from %s to %s)", field, s.Src, minDate, maxDate).
					With("Traces, prices and windows are dated from the 20th century to the 22nd; check the year.")
				return "", false
			}
			return t.Format("2006-01-02T15:04:05"), true
		}
	}
	c.diags.Errorf(s.R, "`%s` is not a date", s.Value).With("Write a local date and time: `\"2016-12-30\"` or `\"2016-12-30 06:00\"`.")
	return "", false
}
