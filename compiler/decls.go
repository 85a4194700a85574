package compiler

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// header reads `KIND NAME [from BASE]` and returns BASE, or nil.
func (c *compiler) header(d *decl) (*lang.Ident, bool) {
	args := d.stmt.Args
	switch {
	case len(args) == 1:
		return nil, true
	case len(args) == 3 && args[1].Text() == "from":
		if id, ok := args[2].(*lang.Ident); ok {
			if d.kind == "experiment" {
				c.diags.Errorf(args[1].Range(), "an experiment cannot extend another").With("Copy the fields you need instead.")
				return nil, false
			}
			return id, true
		}
	}
	d2 := c.diags.Errorf(args[1].Range().Cover(args[len(args)-1].Range()), "unexpected `%s` after %s name `%s`",
		c.file(d.stmt).Sub(args[1].Range().Cover(args[len(args)-1].Range())), d.kind, d.name)
	d2.With("Write `%s %s { ... }`, or `%s %s from OTHER { ... }` to start from another %s.", d.kind, d.name, d.kind, d.name, d.kind)
	if id, ok := args[1].(*lang.Ident); ok && id.Name != "from" && len(args) == 3 {
		d2.DidYouMean(lang.Suggest(id.Name, []string{"from"}))
	}
	return nil, false
}

// chain returns d and the declarations it extends, base first.
func (c *compiler) chain(d *decl) ([]*decl, bool) {
	out := []*decl{d}
	seen := map[*decl]bool{d: true}
	for cur := d; ; {
		base, ok := c.header(cur)
		if !ok {
			return nil, false
		}
		if base == nil {
			break
		}
		bd := c.lookup(cur.kind, base.Name, base.R)
		if bd == nil {
			return nil, false
		}
		if seen[bd] {
			c.fromCycle(out, bd)
			return nil, false
		}
		seen[bd] = true
		out = append(out, bd)
		cur = bd
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true
}

// fromCycle reports a cycle of `from` clauses once, however many of its
// declarations are compiled: chain holds the declarations followed so far
// and bd, the one met again, starts the cycle.
func (c *compiler) fromCycle(chain []*decl, bd *decl) {
	i := 0
	for chain[i] != bd {
		i++
	}
	cyc := chain[i:]
	// Start the cycle at the declaration written first, so the report does
	// not depend on which member was compiled first.
	first := 0
	for j, x := range cyc {
		if declBefore(x, cyc[first]) {
			first = j
		}
	}
	cyc = append(cyc[first:len(cyc):len(cyc)], cyc[:first]...)
	names := make([]string, 0, len(cyc)+1)
	for _, x := range cyc {
		names = append(names, x.name)
	}
	key := bd.kind + " " + strings.Join(sortedCopy(names), " ")
	if c.cycles[key] {
		return
	}
	c.cycles[key] = true
	at := cyc[0].stmt.Args[2].Range()
	if len(cyc) == 1 {
		c.diags.Errorf(at, "%s `%s` extends itself", bd.kind, bd.name).With("Remove `from %s`.", bd.name)
		return
	}
	names = append(names, names[0])
	d := c.diags.Errorf(at, "cycle of `from` clauses: %s", strings.Join(quoteAll(names), " → ")).
		With("A %s cannot extend itself, directly or through others; remove one of these `from` clauses.", bd.kind)
	for _, x := range cyc[1:] {
		d.Note(x.stmt.Args[2].Range(), "`%s` extends `%s`", x.name, x.stmt.Args[2].Text())
	}
}

func declBefore(a, b *decl) bool {
	if a.stmt.Range.File != b.stmt.Range.File {
		return a.stmt.Range.File < b.stmt.Range.File
	}
	return a.stmt.Range.Start.Offset < b.stmt.Range.Start.Offset
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sortStrings(out)
	return out
}

// what names a declaration in messages: "machine `mistral`", or for an
// inline declaration "the machine of experiment `billing`".
func what(d *decl) string {
	if d.inline {
		return fmt.Sprintf("the %s of experiment `%s`", d.kind, d.name)
	}
	return fmt.Sprintf("%s `%s`", d.kind, d.name)
}

// machine compiles a machine declaration under binding b.
func (c *compiler) machine(d *decl, b binding) (runtime.Machine, bool) {
	chain, ok := c.chain(d)
	if !ok {
		return runtime.Machine{}, false
	}
	m := runtime.Machine{Name: d.name, Cores: 1}
	var nodesSet, idleSet, busySet, bootSet, shutSet, badPower bool
	var powerBlocks []*lang.Block
	before := c.errs()
	for _, cd := range chain {
		c.decodeBlock(what(cd), cd.stmt.Body, []fieldSpec{
			{name: "nodes", usage: "nodes 128` or `nodes auto", decode: func(s *lang.Stmt) {
				nodesSet = true
				if !c.args(s, 1, 1, "nodes 128` or `nodes auto") {
					return
				}
				if id, ok := c.val(s.Args[0], b).(*lang.Ident); ok && id.Name == "auto" {
					m.Nodes, nodesSet = 0, true
					return
				}
				if n, ok := c.count(s.Args[0], b, "nodes", 1); ok {
					m.Nodes, nodesSet = n, true
				}
			}},
			{name: "cores", usage: "cores 24", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "cores 24") {
					if n, ok := c.count(s.Args[0], b, "cores", 1); ok {
						m.Cores = n
					}
				}
			}},
			{name: "power", usage: "power { off 0 W; idle 70 W; busy 260 W }", decode: func(s *lang.Stmt) {
				if len(s.Args) > 0 || s.Body == nil {
					c.diags.Errorf(s.Range, "`power` takes a block of node powers").
						With("Write `power { off 0 W; idle 70 W; busy 260 W }`.")
					badPower = true
					return
				}
				powerBlocks = append(powerBlocks, s.Body)
				watt := func(dst *float64, set *bool) func(*lang.Stmt) {
					return func(s *lang.Stmt) {
						if set != nil {
							*set = true // present: a bad value is reported on its own
						}
						if len(s.Args) > 1 { // `idle 13 kW per 1024 nodes`
							per, rest, ok := c.perNodes(s, s.Args)
							if !ok {
								return
							}
							if len(rest) != 1 {
								c.args(&lang.Stmt{Key: s.Key, Args: rest, Range: s.Range}, 1, 1, s.Key.Name+" 70 W")
								return
							}
							if v, ok := c.nonNegative(rest[0], b, lang.Power, s.Key.Name); ok {
								*dst = v / float64(per)
							}
							return
						}
						if c.args(s, 1, 1, s.Key.Name+" 70 W") {
							if v, ok := c.nonNegative(s.Args[0], b, lang.Power, s.Key.Name); ok {
								*dst = v
							}
						}
					}
				}
				c.decodeBlock("the power block of "+what(cd), s.Body, []fieldSpec{
					{name: "off", usage: "off 0 W", decode: watt(&m.Power.Off, nil)},
					{name: "idle", usage: "idle 70 W", decode: watt(&m.Power.Idle, &idleSet)},
					{name: "busy", usage: "busy 260 W", decode: watt(&m.Power.Busy, &busySet)},
					{name: "boot", usage: "boot 70 W", decode: watt(&m.Power.Boot, &bootSet)},
					{name: "shutdown", usage: "shutdown 70 W", decode: watt(&m.Power.Shutdown, &shutSet)},
				})
			}},
			{name: "infrastructure", usage: "infrastructure 130 kW` or `infrastructure 85 W per node", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 3, "infrastructure 130 kW` or `infrastructure 85 W per node") {
					return
				}
				v, ok := c.nonNegative(s.Args[0], b, lang.Power, "infrastructure")
				if !ok {
					return
				}
				switch {
				case len(s.Args) == 1:
					m.Infrastructure, m.InfrastructurePerNode = v, 0
				case len(s.Args) == 3 && s.Args[1].Text() == "per" && s.Args[2].Text() == "node":
					m.Infrastructure, m.InfrastructurePerNode = 0, v
				default:
					c.diags.Errorf(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()), "unexpected `%s`", c.file(s).Sub(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()))).
						With("Write `infrastructure 130 kW` for the whole machine or `infrastructure 85 W per node`.")
				}
			}},
			{name: "boot", usage: "boot 30 s", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "boot 30 s") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "boot"); ok {
						m.BootTime = v
					}
				}
			}},
			{name: "shutdown", usage: "shutdown 10 s", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "shutdown 10 s") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "shutdown"); ok {
						m.ShutdownTime = v
					}
				}
			}},
		})
	}
	name := d.stmt.Args[0].Range()
	guessed := func(field string) bool {
		for _, cd := range chain {
			if c.guessed(cd.stmt.Body, field) {
				return true
			}
		}
		return false
	}
	if !nodesSet && !guessed("nodes") {
		c.diags.Errorf(name, "%s needs `nodes`", what(d)).With("Add `nodes 128` (or `nodes auto` to take the trace's size).")
	}
	for _, pb := range powerBlocks {
		badPower = badPower || c.guessed(pb, "idle") || c.guessed(pb, "busy")
	}
	if (!idleSet || !busySet) && !guessed("power") && !badPower {
		missing := "idle and busy node power"
		if idleSet {
			missing = "busy node power"
		} else if busySet {
			missing = "idle node power"
		}
		c.diags.Errorf(name, "%s needs %s", what(d), missing).
			With("Add `power { idle 70 W; busy 260 W }` (off defaults to 0 W).")
	}
	if !bootSet {
		m.Power.Boot = m.Power.Idle
	}
	if !shutSet {
		m.Power.Shutdown = m.Power.Idle
	}
	return m, c.errs() == before
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

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
		cur string
		at  lang.Range
	}
	var currencies []currency // in the order the prices are read
	price := func(v lang.Value, field string) (float64, bool) {
		p, cur, ok := c.quantity(v, b, lang.Price, field)
		if ok && cur != "" {
			at := v.Range()
			if n, isNum := c.val(v, b).(*lang.Number); isNum && n.UnitRange.Valid() {
				at = n.UnitRange
			}
			currencies = append(currencies, currency{cur, at})
		}
		return p, ok
	}
	before := c.errs()
	for _, cd := range chain {
		prev := [4]*lang.Stmt{flatAt, hourlyAt, peakAt, baseAt}
		c.decodeBlock(what(cd), cd.stmt.Body, []fieldSpec{
			{name: "flat", usage: "flat 0.145 EUR/kWh", decode: func(s *lang.Stmt) {
				flatAt = s
				if c.args(s, 1, 1, "flat 0.145 EUR/kWh") {
					if p, ok := price(s.Args[0], "flat"); ok {
						k.Price = p
					}
				}
			}},
			{name: "peak", usage: "peak 06:00..22:00 at 0.16675 EUR/kWh", repeat: true, decode: func(s *lang.Stmt) {
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
				baseAt = s
				if c.args(s, 1, 1, "otherwise 0.10 EUR/kWh") {
					if p, ok := price(s.Args[0], "otherwise"); ok {
						k.BasePrice = p
					}
				}
			}},
			{name: "hourly", usage: "hourly \"prices.csv\"", decode: func(s *lang.Stmt) {
				hourlyAt = s
				if !c.args(s, 1, 1, `hourly "prices.csv"`) {
					return
				}
				str, ok := c.str(s.Args[0], b, "hourly", `hourly "prices.csv"`)
				if !ok {
					return
				}
				k.Prices = c.path(str)
				if strings.TrimSpace(str.Value) == "" && b != nil { // only a run needs the file
					d := c.diags.Errorf(s.Args[0].Range(), "no price file for %s", what(d))
					if id, ok := s.Args[0].(*lang.Ident); ok && c.params[id.Name] != nil {
						d.With("Set it: `param %s = \"path/T1.csv\"` in your scenario, or --set %s=path/T1.csv.", id.Name, id.Name)
					}
				}
				c.decodeBlock("the hourly block of "+what(cd), s.Body, []fieldSpec{
					{name: "start", usage: `start "2016-12-30"`, decode: func(s *lang.Stmt) {
						if c.args(s, 1, 1, `start "2016-12-30"`) {
							if t, ok := c.localTime(s.Args[0], b, "start"); ok {
								k.SeriesStart = t
							}
						}
					}},
				})
			}},
		})
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
	k.Currency = "EUR"
	if len(currencies) > 0 {
		k.Currency = currencies[0].cur
	}
	for _, cu := range currencies[min(1, len(currencies)):] {
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
			return t.Format("2006-01-02T15:04:05"), true
		}
	}
	c.diags.Errorf(s.R, "`%s` is not a date", s.Value).With("Write a local date and time: `\"2016-12-30\"` or `\"2016-12-30 06:00\"`.")
	return "", false
}

// policy compiles a policy declaration.
func (c *compiler) policy(d *decl, b binding) (runtime.Policy, bool) {
	chain, ok := c.chain(d)
	if !ok {
		return runtime.Policy{}, false
	}
	p := runtime.Policy{Name: d.name, Depth: 1000, Window: 10}
	before := c.errs()
	rule := func(dst **runtime.Expr, kind exprKind) func(*lang.Stmt) {
		return func(s *lang.Stmt) {
			if e := c.ruleExpr(s, 0, kind); e != nil {
				*dst = e
			}
		}
	}
	for _, cd := range chain {
		c.decodeBlock(what(cd), cd.stmt.Body, []fieldSpec{
			{name: "order", usage: "order job.submit", decode: rule(&p.Order, numExpr)},
			{name: "priority", usage: "priority job.wait / job.walltime", decode: rule(&p.Priority, numExpr)},
			{name: "admit", usage: "admit !peak || job.nodes <= 16", decode: func(s *lang.Stmt) {
				rule(&p.Admit, boolExpr)(s)
				if p.Admit != nil && !p.Admit.Deps.Dynamic() && b == nil {
					_, r := c.file(s).ArgsSource(s, 0)
					c.diags.Warnf(r, "this admit rule depends only on fixed job attributes").
						With("A job it refuses is refused in every pass and never starts (the run then fails); make it depend on time, e.g. `!peak || %s`.", p.Admit.Source)
				}
			}},
			{name: "backfill", usage: "backfill easy`, `backfill none` or `backfill greedy depth 1000", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 3, "backfill easy`, `backfill none` or `backfill greedy depth 1000") {
					return
				}
				kind, ok := c.keyword(s.Args[0], "backfill", "none", "easy", "greedy")
				if !ok {
					return
				}
				p.Backfill = map[string]runtime.BackfillKind{"none": runtime.NoBackfill, "easy": runtime.EASY, "greedy": runtime.Greedy}[kind]
				if len(s.Args) == 1 {
					return
				}
				if kind != "greedy" || len(s.Args) != 3 || s.Args[1].Text() != "depth" {
					c.diags.Errorf(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range()), "unexpected `%s` after `backfill %s`", c.file(s).Sub(s.Args[1].Range().Cover(s.Args[len(s.Args)-1].Range())), kind).
						With("Only greedy backfilling takes a depth: `backfill greedy depth 1000`.")
					return
				}
				if n, ok := c.count(s.Args[2], b, "depth", 0); ok {
					p.Depth = n
				}
			}},
			{name: "estimate", usage: "estimate requested` or `estimate exact", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "estimate requested` or `estimate exact") {
					if k, ok := c.keyword(s.Args[0], "estimate", "requested", "exact"); ok {
						p.Estimate = map[string]runtime.EstimateKind{"requested": runtime.Requested, "exact": runtime.Exact}[k]
					}
				}
			}},
			{name: "shutdown", usage: "shutdown idle after 10 min` or `shutdown none", decode: func(s *lang.Stmt) {
				usage := "shutdown idle after 10 min` or `shutdown none"
				if len(s.Args) == 1 && s.Args[0].Text() == "none" {
					p.Shutdown = nil
					return
				}
				if len(s.Args) != 3 || s.Args[0].Text() != "idle" || s.Args[1].Text() != "after" {
					r := s.Key.R
					if len(s.Args) > 0 {
						r = s.Args[0].Range().Cover(s.Args[len(s.Args)-1].Range())
					}
					c.diags.Errorf(r, "`shutdown` needs `idle after DURATION`").With("Write `%s`.", usage)
					return
				}
				if v, ok := c.nonNegative(s.Args[2], b, lang.Time, "shutdown idle after"); ok {
					p.Shutdown = &runtime.Shutdown{After: v}
				}
			}},
			{name: "allocate", usage: "allocate contiguous 512` or `allocate any", decode: func(s *lang.Stmt) {
				usage := "allocate contiguous 512` or `allocate any"
				if !c.args(s, 1, 2, usage) {
					return
				}
				k, ok := c.keyword(s.Args[0], "allocate", "any", "contiguous")
				switch {
				case !ok:
				case k == "any" && len(s.Args) == 1:
					p.Contiguous = 0
				case k == "contiguous" && len(s.Args) == 2:
					if n, ok := c.count(s.Args[1], b, "contiguous", 1); ok {
						p.Contiguous = n
					}
				default:
					c.diags.Errorf(s.Range, "expected `%s`", usage).With("`contiguous N` rounds every allocation up to a multiple of N nodes (Blue Gene/P midplanes: 512).")
				}
			}},
			{name: "budget", usage: "budget 50% of baseline during peak", decode: func(s *lang.Stmt) {
				if bg, ok := c.budget(s, b); ok {
					p.Budget = bg
					if bg != nil && bg.OfBaseline > 0 {
						c.budgetAt[d.name] = s
					} else {
						delete(c.budgetAt, d.name)
					}
				}
			}},
			{name: "window", usage: "window 10", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "window 10") {
					if n, ok := c.count(s.Args[0], b, "window", 1); ok {
						p.Window = n
					}
				}
			}},
			{name: "select", usage: "select knapsack { value job.nodes; weight job.power }` or `select in_order", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "select knapsack` or `select in_order") {
					return
				}
				k, ok := c.keyword(s.Args[0], "select", "in_order", "knapsack")
				if !ok {
					return
				}
				p.Select = map[string]runtime.SelectKind{"in_order": runtime.SelectInOrder, "knapsack": runtime.SelectKnapsack}[k]
				if s.Body != nil && k != "knapsack" {
					c.diags.Errorf(s.Body.Range, "`select %s` takes no block", k).With("Only `select knapsack` has a value and a weight.")
					return
				}
				c.decodeBlock("the knapsack of "+what(cd), s.Body, []fieldSpec{
					{name: "value", usage: "value job.nodes", decode: rule(&p.Value, numExpr)},
					{name: "weight", usage: "weight job.power", decode: rule(&p.Weight, numExpr)},
				})
			}},
		})
	}
	if p.Budget == nil && p.Select == runtime.SelectKnapsack && b == nil {
		c.diags.Warnf(d.stmt.Args[0].Range(), "%s selects by knapsack but has no `budget`", what(d)).
			With("The knapsack chooses jobs only while a power budget applies; add e.g. `budget 50%% of baseline during peak`.")
	}
	return p, c.errs() == before
}

// budget reads `budget none`, `budget 1.2 MW` or `budget 50% of baseline`,
// each optionally followed by `during peak` or `while RULE`.
func (c *compiler) budget(s *lang.Stmt, b binding) (*runtime.Budget, bool) {
	const usage = "budget 50% of baseline during peak`, `budget 1.2 MW` or `budget 800 kW while now.hour >= 9"
	a := s.Args
	if len(a) == 1 && a[0].Text() == "none" {
		return nil, true
	}
	if !c.args(s, 1, -1, usage) {
		return nil, false
	}
	bg := &runtime.Budget{}
	n := 1
	if len(a) >= 3 && a[1].Text() == "of" {
		if a[2].Text() != "baseline" {
			c.diags.Errorf(a[2].Range(), "a budget can be a share of `baseline` only").DidYouMean(lang.Suggest(a[2].Text(), []string{"baseline"})).
				With("`baseline` is the experiment's baseline run: its mean job power.")
			return nil, false
		}
		f, _, ok := c.quantity(a[0], b, lang.Fraction, "budget")
		if !ok {
			return nil, false
		}
		if !(f > 0) {
			c.diags.Errorf(a[0].Range(), "a budget must be above 0%%").With("Write e.g. `budget 50%% of baseline`.")
			return nil, false
		}
		bg.OfBaseline = f
		n = 3
	} else {
		if num, ok := c.val(a[0], b).(*lang.Number); ok && num.Unit == "%" {
			c.diags.Errorf(a[0].Range(), "a budget in %% needs `of baseline`").DidYouMean(a[0].Text() + " of baseline").
				With("A budget is a power (`budget 1.2 MW`) or a share of the baseline run's mean job power.")
			return nil, false
		}
		v, ok := c.nonNegative(a[0], b, lang.Power, "budget")
		if !ok {
			return nil, false
		}
		bg.Power = v
	}
	rest := a[n:]
	switch {
	case len(rest) == 0:
		bg.When = runtime.BudgetAlways
	case rest[0].Text() == "during":
		if len(rest) != 2 || rest[1].Text() != "peak" {
			r := rest[0].Range().Cover(rest[len(rest)-1].Range())
			c.diags.Errorf(r, "expected `during peak`").With("For other times write `while RULE`, e.g. `while now.hour >= 9 && now.hour < 23`.")
			return nil, false
		}
		bg.When = runtime.BudgetDuringPeak
	case rest[0].Text() == "while":
		e := c.ruleExpr(s, n+1, boolExpr)
		if e == nil {
			return nil, false
		}
		if e.Fields != 0 || e.Deps&(runtime.DepJob|runtime.DepWait) != 0 {
			_, r := c.file(s).ArgsSource(s, n+1)
			c.diags.Errorf(r, "a budget's condition cannot read `job`").
				With("It applies to the whole machine: use `now`, `peak`, `price` or `system`.")
			return nil, false
		}
		bg.When, bg.While = runtime.BudgetWhile, e
	default:
		d := c.diags.Errorf(rest[0].Range().Cover(rest[len(rest)-1].Range()), "unexpected `%s` in `budget`", c.file(s).Sub(rest[0].Range().Cover(rest[len(rest)-1].Range()))).
			With("Write `%s`.", usage)
		if id, ok := rest[0].(*lang.Ident); ok {
			d.DidYouMean(lang.Suggest(id.Name, []string{"during", "while", "of"}))
		}
		return nil, false
	}
	return bg, true
}

// workload compiles an experiment's `workload` statement.
func (c *compiler) workload(s *lang.Stmt, b binding, expSeed uint64) (runtime.Workload, bool) {
	usage := "workload swf \"trace.swf.gz\"` or `workload synthetic { jobs 5000; load 85% }"
	if len(s.Args) == 0 {
		c.args(s, 1, 2, usage)
		return runtime.Workload{}, false
	}
	kind, ok := c.keyword(s.Args[0], "workload", "swf", "synthetic")
	if !ok {
		return runtime.Workload{}, false
	}
	before := c.errs()
	w := runtime.Workload{}
	powerField := fieldSpec{name: "power", usage: "power 260 W per node", decode: func(s *lang.Stmt) {
		if jp, ok := c.jobPower(s, b, mix(expSeed, "power")); ok {
			w.Power = jp
		}
	}}
	switch kind {
	case "swf":
		if !c.args(s, 2, 2, `workload swf "trace.swf.gz"`) {
			return w, false
		}
		str, ok := c.str(s.Args[1], b, "workload swf", `workload swf "trace.swf.gz"`)
		if !ok {
			return w, false
		}
		if str.Value == "" {
			c.diags.Errorf(str.R, "empty trace path").With("Give the path of an SWF file, plain or gzipped.")
			return w, false
		}
		w.Kind, w.Path, w.Name = runtime.SWF, c.path(str), valueText(str)
		c.decodeBlock("the swf workload", s.Body, []fieldSpec{
			powerField,
			{name: "scale", usage: "scale to machine", decode: func(s *lang.Stmt) {
				if len(s.Args) == 2 && s.Args[0].Text() == "to" && s.Args[1].Text() == "machine" {
					w.ScaleToMachine = true
					return
				}
				c.diags.Errorf(s.Range, "expected `scale to machine`").
					With("`scale to machine` gives each job the share of this machine it had of the trace's machine.")
			}},
			{name: "bad_lines", usage: "bad_lines skip", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "bad_lines skip` or `bad_lines fail") {
					if k, ok := c.keyword(s.Args[0], "bad_lines", "skip", "fail"); ok {
						w.SkipBadLines = k == "skip"
					}
				}
			}},
			{name: "start", usage: `start "2016-12-30 00:00"`, decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, `start "2016-12-30 00:00"`) {
					if t, ok := c.localTime(s.Args[0], b, "start"); ok {
						w.Start = t
					}
				}
			}},
			{name: "timezone", usage: `timezone "Europe/Berlin"`, decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, `timezone "Europe/Berlin"`) {
					return
				}
				if str, ok := c.str(s.Args[0], b, "timezone", `timezone "Europe/Berlin"`); ok {
					if _, err := tariff.LoadLocation(str.Value); err != nil {
						c.diags.Errorf(str.R, "unknown time zone %q", str.Value).With("Use an IANA zone name such as \"Europe/Berlin\" or \"US/Pacific\".")
						return
					}
					w.TimeZone = str.Value
				}
			}},
		})
	case "synthetic":
		if !c.args(s, 1, 1, "workload synthetic { jobs 5000; load 85% }") {
			return w, false
		}
		w.Kind, w.Name = runtime.Synthetic, "synthetic"
		w.Synthetic = workload.Synthetic{Jobs: 1000, Load: 0.8, Seed: mix(expSeed, "workload")}
		c.decodeBlock("the synthetic workload", s.Body, []fieldSpec{
			powerField,
			{name: "jobs", usage: "jobs 5000", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "jobs 5000") {
					if n, ok := c.count(s.Args[0], b, "jobs", 1); ok {
						w.Synthetic.Jobs = n
					}
				}
			}},
			{name: "load", usage: "load 85%", decode: func(s *lang.Stmt) {
				if !c.args(s, 1, 1, "load 85%") {
					return
				}
				v := c.val(s.Args[0], b)
				dim := lang.Dimensionless
				if n, ok := v.(*lang.Number); ok && n.Unit == "%" {
					dim = lang.Fraction
				}
				if f, _, ok := c.quantity(s.Args[0], b, dim, "load"); ok {
					if f <= 0 || f > 10 {
						c.diags.Errorf(v.Range(), "load must be above 0 and at most 1000%%").With("Offered load is the share of node-seconds the jobs ask for, e.g. `load 85%%`.")
						return
					}
					w.Synthetic.Load = f
				}
			}},
			{name: "seed", usage: "seed 7", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "seed 7") {
					if n, ok := c.count(s.Args[0], b, "seed", 0); ok {
						w.Synthetic.Seed = uint64(n)
					}
				}
			}},
			{name: "unit", usage: "unit 512", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "unit 512") {
					if n, ok := c.count(s.Args[0], b, "unit", 1); ok {
						w.Synthetic.Unit = n
					}
				}
			}},
			{name: "runtime", usage: "runtime 2 h", decode: func(s *lang.Stmt) {
				if c.args(s, 1, 1, "runtime 2 h") {
					if v, ok := c.nonNegative(s.Args[0], b, lang.Time, "runtime"); ok && v > 0 {
						w.Synthetic.MeanRuntime = v
					}
				}
			}},
		})
	}
	return w, c.errs() == before
}
