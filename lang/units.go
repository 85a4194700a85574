package lang

import (
	"sort"
	"strings"
)

// Dim is the physical dimension of a quantity. Values are converted to a
// base unit per dimension (W, J, s, fraction, currency per kWh, currency,
// Hz), so rule expressions compare plain numbers.
type Dim uint8

// Dimensions.
const (
	Dimensionless Dim = iota
	Power
	Energy
	Time
	Fraction
	Price
	Money
	Frequency
	Carbon // carbon intensity: grams of CO2 per kWh
)

var dimNames = [...]string{"a plain number", "a power", "an energy", "a duration", "a percentage", "a price per energy", "an amount of money", "a frequency", "a carbon intensity"}

func (d Dim) String() string { return dimNames[d] }

// Unit is a unit of measure and its factor to the base unit of its dimension.
type Unit struct {
	Name     string
	Dim      Dim
	Scale    float64
	Currency string // for prices and money
}

var units = map[string]Unit{}

func init() {
	add := func(dim Dim, scale float64, cur string, names ...string) {
		for _, n := range names {
			units[n] = Unit{Name: n, Dim: dim, Scale: scale, Currency: cur}
		}
	}
	add(Power, 1, "", "W")
	add(Power, 1e3, "", "kW")
	add(Power, 1e6, "", "MW")
	add(Power, 1e9, "", "GW")
	add(Energy, 1, "", "J")
	add(Energy, 1e3, "", "kJ")
	add(Energy, 1e6, "", "MJ")
	add(Energy, 1e9, "", "GJ")
	add(Energy, 3600, "", "Wh")
	add(Energy, 3.6e6, "", "kWh")
	add(Energy, 3.6e9, "", "MWh")
	add(Energy, 3.6e12, "", "GWh")
	add(Time, 1e-3, "", "ms")
	add(Time, 1, "", "s")
	add(Time, 60, "", "min")
	add(Time, 3600, "", "h")
	add(Time, 86400, "", "d")
	add(Time, 365*86400, "", "y") // a year of 365 days
	add(Fraction, 0.01, "", "%")
	add(Frequency, 1, "", "Hz")
	add(Frequency, 1e3, "", "kHz")
	add(Frequency, 1e6, "", "MHz")
	add(Frequency, 1e9, "", "GHz")
	add(Carbon, 1, "", "g/kWh")
	add(Carbon, 1e3, "", "kg/kWh")
	add(Carbon, 1, "", "kg/MWh")
	for _, c := range []string{"EUR", "USD", "GBP", "CHF"} {
		add(Money, 1, c, c)
		add(Money, 1e3, c, "k"+c)
		add(Money, 1e6, c, "M"+c)
		add(Price, 1, c, c+"/kWh")
		add(Price, 1e-3, c, c+"/MWh")
	}
}

// LookupUnit returns the unit with the given name.
func LookupUnit(name string) (Unit, bool) {
	u, ok := units[name]
	return u, ok
}

// UnitsOf lists the unit names of a dimension, sorted, for messages and
// suggestions.
func UnitsOf(d Dim) []string {
	var out []string
	for n, u := range units {
		if u.Dim == d {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := units[out[i]], units[out[j]]
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		if a.Scale != b.Scale {
			return a.Scale < b.Scale
		}
		return out[i] < out[j]
	})
	return out
}

// unitAliases are words and spellings people write for units, mapped to
// the unit pwrc spells them as. Lower case; case-insensitive matches of the
// units themselves (`kw` for `kW`) are found without a table.
var unitAliases = map[string]string{
	"watt": "W", "watts": "W", "wat": "W", "wats": "W", "wt": "W",
	"kilowatt": "kW", "kilowatts": "kW", "megawatt": "MW", "megawatts": "MW", "gigawatt": "GW", "gigawatts": "GW",
	"joule": "J", "joules": "J",
	"sec": "s", "secs": "s", "second": "s", "seconds": "s",
	"mins": "min", "minute": "min", "minutes": "min",
	"hr": "h", "hrs": "h", "hour": "h", "hours": "h",
	"day": "d", "days": "d", "year": "y", "years": "y", "yr": "y",
	"msec": "ms", "millisecond": "ms", "milliseconds": "ms",
	"percent": "%", "pct": "%",
	"hertz": "Hz",
	"euro":  "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD",
}

// SuggestUnit returns the unit a word not known as a unit most likely
// means (`kw` → `kW`, `watts` → `W`, `EUR/kwh` → `EUR/kWh`), or "".
func SuggestUnit(name string) string {
	if _, ok := units[name]; ok {
		return ""
	}
	if num, den, ok := strings.Cut(name, "/"); ok {
		n, d := fixUnit(num), fixUnit(den)
		if _, ok := units[n+"/"+d]; ok {
			return n + "/" + d
		}
		return ""
	}
	if u := fixUnit(name); u != name {
		return u
	}
	return ""
}

// fixUnit maps a spelling to a known unit, or returns it unchanged.
func fixUnit(name string) string {
	if _, ok := units[name]; ok {
		return name
	}
	for n := range units {
		if strings.EqualFold(n, name) && !strings.Contains(n, "/") {
			return n
		}
	}
	if u, ok := unitAliases[strings.ToLower(name)]; ok {
		return u
	}
	return name
}
