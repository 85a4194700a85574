package compiler

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// generator reads `hourly generate { … }`: a synthetic price series in
// the manner of Kunkel et al.'s T1–T3 (kunkel.md §4.6), or with what
// "carbon", a carbon intensity series in g/kWh (`carbon hourly generate`);
// value reads the unit and mean in the series' quantity.
func (c *compiler) generator(s *lang.Stmt, b binding, what string, value func(lang.Value, string) (float64, bool)) *tariff.Generator {
	price := value
	unitUsage, meanUsage, label := "unit 0.01 EUR/kWh", "mean 0.14 EUR/kWh", "the price generator"
	if what == "carbon" {
		unitUsage, meanUsage, label = "unit 10 g/kWh", "mean 350 g/kWh", "the carbon intensity generator"
	}
	g := &tariff.Generator{Hours: 12000, Seed: 1, Unit: 1, Mean: math.NaN()}
	number := func(v lang.Value, field string) (float64, bool) {
		x, _, ok := c.quantity(v, b, lang.Dimensionless, field)
		return x, ok
	}
	hours := func(v lang.Value, field string) (float64, bool) {
		x, ok := c.nonNegative(v, b, lang.Time, field)
		return x / 3600, ok
	}
	ok := true
	fail := func(s *lang.Stmt, usage string) {
		c.diags.Errorf(argsRange(s), "expected `%s`", usage)
		ok = false
	}
	c.decodeBlock(label, s.Body, []fieldSpec{
		{name: "hours", usage: "hours 12000", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "hours 12000") {
				if n, good := c.count(s.Args[0], b, "hours"); good {
					g.Hours = n
				}
			}
		}},
		{name: "seed", usage: "seed 1", decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, "seed 1") {
				if n, good := c.count(s.Args[0], b, "seed"); good {
					g.Seed = uint64(n)
				}
			}
		}},
		{name: "unit", usage: unitUsage, decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, unitUsage) {
				if p, good := price(s.Args[0], "unit"); good {
					g.Unit = p
				}
			}
		}},
		{name: "first", usage: "first 24 uniform 0..1", decode: func(s *lang.Stmt) {
			a := s.Args
			if len(a) != 5 || a[1].Text() != "uniform" || a[3].Text() != ".." {
				fail(s, "first 24 uniform 0..1")
				return
			}
			n, ok1 := c.count(a[0], b, "first")
			lo, ok2 := number(a[2], "uniform")
			hi, ok3 := number(a[4], "uniform")
			if ok1 && ok2 && ok3 {
				g.First, g.Lo, g.Hi = n, lo, hi
			}
		}},
		{name: "ar", usage: "ar 0.8 at 1 h, 0.2 at 24 h", decode: func(s *lang.Stmt) {
			var terms [][]lang.Value
			cur := []lang.Value{}
			for _, a := range s.Args {
				if op, isOp := a.(*lang.Op); isOp && op.Op == "," {
					terms, cur = append(terms, cur), []lang.Value{}
					continue
				}
				cur = append(cur, a)
			}
			terms = append(terms, cur)
			for _, t := range terms {
				if len(t) != 3 || t[1].Text() != "at" {
					fail(s, "ar 0.8 at 1 h, 0.2 at 24 h")
					return
				}
				coef, ok1 := number(t[0], "ar")
				lag, ok2 := hours(t[2], "ar")
				if !ok1 || !ok2 {
					return
				}
				if lag < 1 || lag != math.Trunc(lag) {
					c.diags.Errorf(t[2].Range(), "a lag must be a whole number of hours ≥ 1").With("Write e.g. `0.2 at 24 h`.")
					ok = false
					return
				}
				g.AR = append(g.AR, tariff.Lag{Coef: coef, Lag: int(lag)})
			}
		}},
		{name: "sine", usage: "sine 0.25 period 19.74 h", decode: func(s *lang.Stmt) {
			a := s.Args
			if len(a) != 3 || a[1].Text() != "period" {
				fail(s, "sine 0.25 period 19.74 h")
				return
			}
			amp, ok1 := number(a[0], "sine")
			p, ok2 := hours(a[2], "sine period")
			if ok1 && ok2 {
				g.Sine, g.Period = amp, p
			}
		}},
		{name: "noise", usage: "noise normal sd 1", decode: func(s *lang.Stmt) {
			a := s.Args
			if len(a) != 3 || a[0].Text() != "normal" || a[1].Text() != "sd" {
				fail(s, "noise normal sd 1")
				return
			}
			if sd, good := number(a[2], "noise"); good {
				g.Noise = sd
			}
		}},
		{name: "add", usage: "add 06:00..22:00 10", repeat: true, decode: func(s *lang.Stmt) {
			a := s.Args
			if len(a) != 4 || a[1].Text() != ".." {
				fail(s, "add 06:00..22:00 10")
				return
			}
			from, ok1 := c.val(a[0], b).(*lang.Clock)
			to, ok2 := c.val(a[2], b).(*lang.Clock)
			if !ok1 || !ok2 || from.Seconds%3600 != 0 || to.Seconds%3600 != 0 || !(to.Seconds > from.Seconds) {
				c.diags.Errorf(a[0].Range().Cover(a[2].Range()), "`add` takes whole hours of the day, from before to").With("Write e.g. `add 06:00..22:00 10`, or `add 22:00..24:00 3`.")
				ok = false
				return
			}
			if v, good := number(a[3], "add"); good {
				g.Adds = append(g.Adds, tariff.Add{From: from.Seconds / 3600, To: to.Seconds / 3600, Value: v})
			}
		}},
		{name: "mean", usage: meanUsage, decode: func(s *lang.Stmt) {
			if c.args(s, 1, 1, meanUsage) {
				if p, good := price(s.Args[0], "mean"); good {
					g.Mean = p
				}
			}
		}},
	})
	if !ok || !c.seriesInBounds(s, g, what) {
		return nil
	}
	return g
}

// seriesInBounds draws a generated series, as a run will, and checks that
// its values are finite and within their dimension's bounds (and carbon
// intensities not negative, which a run refuses): an autoregression whose
// coefficients add up to 1 or more grows without bound, and a huge sine or
// noise makes prices no tariff has.
func (c *compiler) seriesInBounds(s *lang.Stmt, g *tariff.Generator, what string) bool {
	key := fmt.Sprintf("%s %+v", what, *g)
	if ok, seen := c.seriesOK[key]; seen {
		return ok
	}
	dim, unit, noun := lang.Price, "per kWh", "prices"
	if what == "carbon" {
		dim, unit, noun = lang.Carbon, "g/kWh", "carbon intensities"
	}
	bd := dimBounds[dim]
	lo, hi, finite := math.Inf(1), math.Inf(-1), true
	for _, v := range tariff.Generate(*g).Prices {
		finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		lo, hi = min(lo, v), max(hi, v)
	}
	const hint = "Check the generator's terms: autoregression coefficients that add up to 1 or more make the series grow without bound; `first`, `sine`, `noise` and `add` are in units of `unit`."
	shown := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) + " " + unit }
	var d *lang.Diagnostic
	switch {
	case !finite:
		d = c.diags.Errorf(argsRange(s), "the generated %s grow without bound", noun).With("%s", hint)
	case max(hi, -lo) > bd.hi:
		worst := hi
		if -lo > hi {
			worst = lo
		}
		d = c.diags.Errorf(argsRange(s), "the generated %s reach %s (at most %s in size)", noun, shown(worst), bd.max).
			With("%s. %s", capitalize(bd.why), hint)
	case dim == lang.Carbon && lo < 0:
		d = c.diags.Errorf(argsRange(s), "the generated carbon intensities fall to %s, below 0", shown(lo)).
			With("Carbon intensities are not negative: raise the `mean`, or lower the `noise` or the `sine`.")
	}
	c.seriesOK[key] = d == nil
	return d == nil
}
