package compiler

import (
	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// billFields are a contract's fields beyond its energy price: a power
// band, a demand charge, an energy budget and the grid's carbon intensity
// (kunkel.md §4.5). price reads a money or price value and records its
// currency for the contract's one-currency check.
func (c *compiler) billFields(k *runtime.Contract, b binding, price func(lang.Value, string) (float64, bool), money func(lang.Value, string) (float64, bool)) []fieldSpec {
	meterAt := map[string]*lang.Stmt{}
	meter := func(s *lang.Stmt, owner string) {
		if !c.args(s, 1, 1, "metered 15 min") {
			return
		}
		m, ok := c.nonNegative(s.Args[0], b, lang.Time, "metered")
		if !ok {
			return
		}
		if !(m > 0) || 3600/m != float64(int(3600/m)) {
			c.diags.Errorf(s.Args[0].Range(), "a metered interval must divide an hour").
				With("Meters read clock-aligned intervals of local time: 5, 10, 12, 15, 20, 30 or 60 min.")
			return
		}
		for o, at := range meterAt {
			if o != owner && k.Meter != m {
				c.diags.Errorf(s.Args[0].Range(), "the band and the demand charge are metered over different intervals").
					Note(at.Args[0].Range(), "the other one")
				return
			}
		}
		meterAt[owner] = s
		k.Meter = m
	}
	periodOf := func(v lang.Value, field string) (ledger.Period, bool) {
		p, ok := c.keyword(v, field, "run", "month", "year")
		return map[string]ledger.Period{"run": ledger.PeriodRun, "month": ledger.PeriodMonth, "year": ledger.PeriodYear}[p], ok
	}
	return []fieldSpec{
		{name: "band", usage: "band 420 kW..530 kW { penalty 5000 EUR per interval }", decode: func(s *lang.Stmt) {
			const usage = "Write e.g. `band 420 kW..530 kW { penalty 5000 EUR per interval }`."
			if len(s.Args) != 3 || s.Args[1].Text() != ".." {
				c.diags.Errorf(argsRange(s), "expected `band LO..HI`").With("%s", usage)
				return
			}
			lo, ok1 := c.nonNegative(s.Args[0], b, lang.Power, "band")
			hi, ok2 := c.nonNegative(s.Args[2], b, lang.Power, "band")
			if !ok1 || !ok2 {
				return
			}
			if !(hi > lo) {
				c.diags.Errorf(s.Args[0].Range().Cover(s.Args[2].Range()), "the band's upper end must be above its lower end").With("%s", usage)
				return
			}
			bd := &ledger.Band{Lo: lo, Hi: hi, Kind: ledger.PerInterval}
			if k.Meter == 0 {
				k.Meter = 900
			}
			hasPenalty := false
			c.decodeBlock("the band", s.Body, []fieldSpec{
				{name: "metered", usage: "metered 15 min", decode: func(s *lang.Stmt) { meter(s, "band") }},
				{name: "of", usage: "of facility` or `of jobs", decode: func(s *lang.Stmt) {
					if c.args(s, 1, 1, "of facility") {
						if w, ok := c.keyword(s.Args[0], "of", "facility", "jobs"); ok {
							bd.Jobs = w == "jobs"
						}
					}
				}},
				{name: "penalty", usage: "penalty 5000 EUR per interval", decode: func(s *lang.Stmt) {
					const pu = "Write `penalty 5000 EUR per interval`, `penalty 5000 EUR per violation`, `penalty 20000 EUR once` or `penalty rebill at 0.20 EUR/kWh`."
					a := s.Args
					hasPenalty = true
					switch {
					case len(a) == 3 && a[0].Text() == "rebill" && a[1].Text() == "at":
						if p, ok := price(a[2], "penalty rebill"); ok {
							bd.Kind, bd.Rebill = ledger.Rebill, p
						}
					case len(a) == 3 && a[1].Text() == "per":
						fee, ok := money(a[0], "penalty")
						kind, ok2 := c.keyword(a[2], "penalty … per", "interval", "violation")
						if ok && ok2 {
							bd.Fee, bd.Kind = fee, map[string]ledger.PenaltyKind{"interval": ledger.PerInterval, "violation": ledger.PerViolation}[kind]
						}
					case len(a) == 2 && a[1].Text() == "once":
						if fee, ok := money(a[0], "penalty"); ok {
							bd.Fee, bd.Kind = fee, ledger.Once
						}
					default:
						d := c.diags.Errorf(argsRange(s), "expected a penalty").With("%s", pu)
						if id, ok := a[0].(*lang.Ident); ok && len(a) == 3 {
							d.DidYouMean(lang.Suggest(id.Name, []string{"rebill"}))
						}
					}
				}},
				{name: "period", usage: "period year", decode: func(s *lang.Stmt) {
					if c.args(s, 1, 1, "period year") {
						if p, ok := periodOf(s.Args[0], "period"); ok {
							bd.Period = p
						}
					}
				}},
			})
			if !hasPenalty && b == nil {
				c.diags.Warnf(s.Key.R, "the band has no penalty: its violations are counted but cost nothing").
					With("Add `penalty 5000 EUR per interval` (or per violation, once, or `rebill at 0.20 EUR/kWh`) to its block.")
			}
			k.Band = bd
		}},
		{name: "demand", usage: "demand 100 EUR per kW per year", decode: func(s *lang.Stmt) {
			const usage = "Write `demand 100 EUR per kW per year` (or `per month`), optionally `{ metered 15 min }`."
			a := s.Args
			if len(a) != 5 || a[1].Text() != "per" || a[3].Text() != "per" {
				c.diags.Errorf(argsRange(s), "expected `demand PRICE per kW per PERIOD`").With("%s", usage)
				return
			}
			fee, ok := money(a[0], "demand")
			if !ok {
				return
			}
			u, known := lang.LookupUnit(a[2].Text())
			if !known || u.Dim != lang.Power {
				c.diags.Errorf(a[2].Range(), "a demand charge is per unit of power, not `%s`", a[2].Text()).
					DidYouMean(lang.SuggestUnit(a[2].Text())).With("%s", usage)
				return
			}
			pk, ok := c.keyword(a[4], "demand … per", "month", "year")
			if !ok {
				return
			}
			if k.Meter == 0 {
				k.Meter = 900
			}
			k.Demand = &ledger.Demand{Price: fee / u.Scale, Period: map[string]ledger.Period{"month": ledger.PeriodMonth, "year": ledger.PeriodYear}[pk]}
			c.decodeBlock("the demand charge", s.Body, []fieldSpec{
				{name: "metered", usage: "metered 15 min", decode: func(s *lang.Stmt) { meter(s, "demand") }},
			})
		}},
		{name: "energy", usage: "energy budget 20 GWh { overrun at 0.20 EUR/kWh }", decode: func(s *lang.Stmt) {
			const usage = "Write `energy budget 20 GWh { overrun at 0.20 EUR/kWh }`."
			if len(s.Args) != 2 || s.Args[0].Text() != "budget" {
				c.diags.Errorf(argsRange(s), "expected `energy budget E`").With("%s", usage)
				return
			}
			e, ok := c.nonNegative(s.Args[1], b, lang.Energy, "energy budget")
			if !ok {
				return
			}
			k.EnergyBudget = e
			c.decodeBlock("the energy budget", s.Body, []fieldSpec{
				{name: "overrun", usage: "overrun at 0.20 EUR/kWh", decode: func(s *lang.Stmt) {
					if len(s.Args) != 2 || s.Args[0].Text() != "at" {
						c.diags.Errorf(argsRange(s), "expected `overrun at PRICE`").With("%s", usage)
						return
					}
					if p, ok := price(s.Args[1], "overrun"); ok {
						k.Overrun = p
					}
				}},
			})
		}},
		{name: "carbon", usage: "carbon 350 g/kWh` or `carbon hourly \"intensity.csv\"", decode: func(s *lang.Stmt) {
			a := s.Args
			// The statement describes the whole carbon intensity: nothing
			// of a base's carries over.
			k.CarbonFormat, k.CarbonScale, k.CarbonUnit, k.CarbonStart, k.CarbonRepeat = tariff.Format{}, 1, "", "", false
			if len(a) == 2 && a[0].Text() == "hourly" && a[1].Text() == "generate" && s.Body != nil {
				intensity := func(v lang.Value, field string) (float64, bool) {
					return c.nonNegative(v, b, lang.Carbon, field)
				}
				if g := c.generator(s, b, "carbon", intensity); g != nil {
					k.CarbonGenerate, k.CarbonSeries, k.HasCarbon = g, "", true
					k.CarbonRepeat = true // a generated series repeats over longer runs, as generated prices do
				}
				return
			}
			if s.Body != nil && !(len(a) == 2 && a[0].Text() == "hourly") {
				c.diags.Errorf(s.Body.Range, "only `carbon hourly` takes a block").
					With("Write `carbon 350 g/kWh`, `carbon hourly \"intensity.csv\" { … }` or `carbon hourly generate { … }`.")
				return
			}
			if len(a) == 2 && a[0].Text() == "hourly" {
				str, ok := c.str(a[1], b, "carbon hourly", `carbon hourly "intensity.csv"`)
				if !ok {
					return
				}
				k.CarbonSeries, k.CarbonGenerate, k.HasCarbon = c.path(str), nil, true
				c.seriesAt[k.Name+"\x00carbon\x00"+k.CarbonSeries] = str.R
				blockErrs := c.errs()
				c.carbonBlock(s, b, k)
				// Read the file only as the block describes it, and only
				// for a run.
				if b != nil && c.errs() == blockErrs {
					c.checkCarbonFile(k, str)
				}
				return
			}
			if !c.args(s, 1, 1, "carbon 350 g/kWh") {
				return
			}
			if v, ok := c.nonNegative(a[0], b, lang.Carbon, "carbon"); ok {
				k.Carbon, k.CarbonSeries, k.CarbonGenerate, k.HasCarbon = v, "", nil, true
			}
		}},
	}
}
