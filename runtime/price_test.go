package runtime

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// priceTrace writes an SWF trace of n one-node jobs, one submitted every
// `every` seconds from sim time 0, each running `run` seconds, on a clock
// starting at 2017-01-01 00:00 UTC. It returns the trace's path.
func priceTrace(t *testing.T, n int, every, run float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("; MaxNodes: 4\n; UnixStartTime: 1483228800\n; TimeZoneString: UTC\n")
	for i := range n {
		fmt.Fprintf(&b, "%d %.0f 0 %.0f 1 -1 -1 1 %.0f -1 1 1 1 -1 1 -1 -1 -1\n", i+1, float64(i)*every, run, run)
	}
	path := filepath.Join(t.TempDir(), "t.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// priceFile writes a one-column price file and returns its path.
func priceFile(t *testing.T, prices []float64) string {
	t.Helper()
	var b strings.Builder
	for _, p := range prices {
		fmt.Fprintf(&b, "%v\n", p)
	}
	path := filepath.Join(t.TempDir(), "p.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func priceRun(trace string, k Contract, pol Policy) *Run {
	return &Run{Name: "r", Baseline: -1, Machine: testMachine(4), Policy: pol, Contract: k,
		Workload: Workload{Kind: SWF, Name: "t", Path: trace}}
}

func execOne(t *testing.T, run *Run) *Result {
	t.Helper()
	return Execute(context.Background(), &Plan{Runs: []*Run{run}}, Options{})[0]
}

func rampPrices(n int) []float64 {
	p := make([]float64, n)
	for k := range p {
		p[k] = 0.1 + 0.001*float64(k)
	}
	return p
}

// A series that starts after the first submission does not price the
// run's first hours: that is an error, not the first price silently.
func TestHourlySeriesStartingAfterTheRunFails(t *testing.T) {
	trace := priceTrace(t, 10, 3600, 1800) // 2017-01-01 00:00 .. 09:30
	k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, rampPrices(48)),
		SeriesStart: "2017-01-01T05:00:00"}
	res := execOne(t, priceRun(trace, k, Policy{Name: "easy", Backfill: EASY}))
	if res.Err == nil {
		t.Fatalf("no error; notes %q", res.Notes)
	}
	want := "contract spot: the hourly prices (p.csv: 2.0 days of prices from 2017-01-01 05:00 UTC) do not cover the run: " +
		"they start 5.0 hours after the run starts (2017-01-01 00:00 UTC); give the series an earlier `start` in the hourly block, " +
		"or add `repeat` to the hourly block to reuse the series cyclically"
	if res.Err.Error() != want {
		t.Errorf("error\n %s\nwant\n %s", res.Err, want)
	}
}

// A series that ends before the run ends is an error (it used to reuse the
// series with a note that could give a negative day count).
func TestHourlySeriesEndingBeforeTheRunFails(t *testing.T) {
	trace := priceTrace(t, 10, 3600, 1800)
	for _, tc := range []struct {
		name, start string
		hours       int
	}{
		{"ends during the run", "", 5},
		{"ends before the run starts", "2016-06-01", 48},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, rampPrices(tc.hours))}
			if tc.start != "" {
				k.SeriesStart = tc.start + "T00:00:00"
			}
			res := execOne(t, priceRun(trace, k, Policy{Name: "easy", Backfill: EASY}))
			if res.Err == nil {
				t.Fatalf("no error; notes %q", res.Notes)
			}
			msg := res.Err.Error()
			for _, want := range []string{"contract spot", "end", "repeat"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "-") && strings.Contains(msg, "days into") {
				t.Errorf("error %q counts days backwards", msg)
			}
		})
	}
}

// price.mean is the mean over the span in which jobs are submitted, exactly:
// not over the whole file, and not over hours the run never sees.
func TestPriceMeanIsOverTheSubmissions(t *testing.T) {
	// Jobs every 30 min from 00:00 to 04:30; the file holds 48 hours
	// rising from 0.1, so its whole mean (0.1235) is far above the
	// submissions' (hours 0..4 and half of hour 4: see below).
	trace := priceTrace(t, 10, 1800, 600)
	prices := rampPrices(48)
	k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, prices)}
	var seen []float64
	admit := &Expr{Source: "price.mean > 0", Deps: DepPrice, Bool: func(e *Env) bool {
		seen = append(seen, e.Price.Mean)
		return true
	}}
	res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Submissions span [0, 16200 s]: hours 0..3 whole and half of hour 4.
	want := (prices[0] + prices[1] + prices[2] + prices[3] + prices[4]/2) / 4.5
	if len(seen) == 0 {
		t.Fatal("the admit rule never ran")
	}
	for _, m := range seen {
		if math.Abs(m-want) > 1e-15 {
			t.Fatalf("price.mean = %v, want %v (the mean over the submissions)", m, want)
		}
	}
}

// With `repeat`, hours outside the series take the price of hour k mod n,
// and a note says how much of the run was priced so.
func TestHourlyRepeat(t *testing.T) {
	trace := priceTrace(t, 10, 3600, 1800) // 00:00 .. 09:30
	prices := []float64{0.1, 0.2, 0.4}
	k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, prices), Repeat: true,
		SeriesStart: "2017-01-01T02:00:00"}
	res := execOne(t, priceRun(trace, k, Policy{Name: "easy", Backfill: EASY}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Every job runs alone for its first half hour: the machine draws
	// idle power on 4 nodes plus one job; cost is ∫ price·P dt with the
	// price of hour k at 00:00 + k h being prices[(k − 2) mod 3].
	m := testMachine(4)
	var want float64
	for hr := range 10 {
		price := prices[((hr-2)%3+3)%3]
		busy := m.Power.Busy + 3*m.Power.Idle + m.Infrastructure
		idle := 4*m.Power.Idle + m.Infrastructure
		if hr == 9 {
			idle = 0 // the run ends at 09:30
		}
		want += price * (busy*1800 + idle*1800) / 3.6e6
	}
	if !near(res.Metrics.Cost, want) {
		t.Errorf("cost %v, want %v", res.Metrics.Cost, want)
	}
	want0 := "contract spot: hours before its hourly prices start and after they end (p.csv: 3.0 hours of prices from 2017-01-01 02:00 UTC to 2017-01-01 05:00 UTC) are priced by repeating the series (`repeat`)"
	if len(res.Notes) != 1 || res.Notes[0] != want0 {
		t.Errorf("notes %q\nwant %q", res.Notes, want0)
	}
}

// price.mean_past(w) is the exact mean over [now − w, now], from the
// series' start at the earliest, for hourly, flat and base/peak contracts.
func TestPriceMeanPast(t *testing.T) {
	trace := priceTrace(t, 40, 1500, 7000) // a job every 25 min for 16 h
	prices := rampPrices(96)
	for k := range prices {
		if k%5 == 2 {
			prices[k] = -0.02 // and some negative hours
		}
	}
	// The exact mean of the hourly series over [a, b], hour by hour, with
	// the series starting at sim time 0.
	exact := func(a, b float64) float64 {
		sum := 0.0
		for k := range prices {
			lo, hi := math.Max(a, float64(k)*3600), math.Min(b, float64(k+1)*3600)
			if hi > lo {
				sum += prices[k] * (hi - lo)
			}
		}
		return sum / (b - a)
	}
	for _, w := range []float64{3600, 5400, 86400} {
		var seen [][3]float64
		admit := &Expr{Source: "price.now <= price.mean_past(w)", Deps: DepPrice, Bool: func(e *Env) bool {
			v := e.Price.MeanPast(w)
			seen = append(seen, [3]float64{e.Now.Seconds, v, e.Price.MeanPast(w)})
			return e.Price.Now <= v
		}}
		k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, prices)}
		res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		checked := 0
		for _, s := range seen {
			now, got := s[0], s[1]
			var want float64
			if now == 0 {
				want = prices[0] // an empty window at the series' start: the price now
			} else {
				want = exact(math.Max(0, now-w), now)
			}
			if math.Abs(got-want) > 1e-15 || s[2] != got {
				t.Fatalf("w=%v: mean_past at %v = %v (then %v), want %v", w, now, got, s[2], want)
			}
			checked++
		}
		if checked < 20 {
			t.Errorf("w=%v: only %d evaluations", w, checked)
		}
	}
	// Flat and base/peak contracts: the mean of their prices.
	for _, k := range []Contract{
		{Name: "flat", Kind: Flat, Price: 0.145, Currency: "EUR"},
		{Name: "bp", Kind: BasePeak, Currency: "EUR", PeakPrice: 0.2, BasePrice: 0.1, Peak: []tariff.Window{{From: 6 * 3600, To: 22 * 3600}}},
	} {
		var seen [][2]float64
		admit := &Expr{Source: "price.mean_past(86400) > 0", Deps: DepPrice, Bool: func(e *Env) bool {
			seen = append(seen, [2]float64{e.Now.Seconds, e.Price.MeanPast(86400)})
			return true
		}}
		res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		for _, s := range seen {
			// 2017-01-01 is a Sunday in UTC; the day before `now` has
			// 16 peak hours whatever the hour.
			want := 0.145
			if k.Kind == BasePeak {
				want = (16*0.2 + 8*0.1) / 24
			}
			if math.Abs(s[1]-want) > 1e-15 {
				t.Fatalf("%s: mean_past(1 d) at %v = %v, want %v", k.Name, s[0], s[1], want)
			}
		}
		if len(seen) == 0 {
			t.Errorf("%s: the rule never ran", k.Name)
		}
	}
}

// A bad window is the run's error, naming the rule. (Rules calling
// price.mean_past run on expr's VM, which turns the panic into an error.)
func TestPriceMeanPastBadWindow(t *testing.T) {
	trace := priceTrace(t, 3, 3600, 600)
	for _, w := range []float64{0, -5, math.NaN(), math.Inf(1), 4000 * 86400} {
		admit := &Expr{Source: "price.mean_past(w) > 0", Where: "x.pwr:3:9", Deps: DepPrice}
		admit.Bool = func(e *Env) (ok bool) {
			defer func() {
				if x := recover(); x != nil {
					panic(&EvalError{Expr: admit, Err: x.(error)})
				}
			}()
			return e.Price.MeanPast(w) > 0
		}
		k := Contract{Name: "flat", Kind: Flat, Price: 0.1, Currency: "EUR"}
		res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
		if res.Err == nil || !strings.Contains(res.Err.Error(), "x.pwr:3:9: rule `price.mean_past(w) > 0` failed: price.mean_past(") ||
			!strings.Contains(res.Err.Error(), "the window must be more than 0 s and at most 10 years") {
			t.Errorf("window %v: error %v", w, res.Err)
		}
	}
}

// Rules that read price.mean (or carbon.mean) make the run say it is an
// oracle; rules that read only price.mean_past or carbon.now do not.
func TestPriceMeanOracleNote(t *testing.T) {
	trace := priceTrace(t, 3, 3600, 600)
	k := Contract{Name: "flat", Kind: Flat, Price: 0.1, Currency: "EUR", HasCarbon: true, Carbon: 300}
	const priceNote, carbonNote = "policy pa: price.mean is the mean price from the first to the last submission",
		"policy pa: carbon.mean is the mean carbon intensity from the first to the last submission"
	for _, tc := range []struct {
		src   string
		notes []string
	}{
		{"price.now <= price.mean", []string{priceNote}},
		{"price?.mean > 0", []string{priceNote}},
		{"price.now <= price.mean_past(86400)", nil},
		{"price.now > 0", nil},
		{"carbon.now <= carbon.mean", []string{carbonNote}},
		{"carbon.now < 400 && price.now <= price.mean", []string{priceNote}},
		{"carbon.mean > 0 && price.mean > 0", []string{priceNote, carbonNote}},
		{"carbon.now < 400", nil},
	} {
		admit := &Expr{Source: tc.src, Deps: DepPrice | DepCarbon, Bool: func(*Env) bool { return true }}
		res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		ok := len(res.Notes) == len(tc.notes)
		for i := 0; ok && i < len(tc.notes); i++ {
			ok = strings.Contains(res.Notes[i], tc.notes[i]) && strings.Contains(res.Notes[i], "oracle")
		}
		if !ok {
			t.Errorf("%s: notes %q", tc.src, res.Notes)
		}
	}
}

// A price-aware rule over a series that ends before the run is an error,
// not a run stretched over years at a mean price of 0.
func TestPriceAwareRuleOnASeriesThatEndsEarly(t *testing.T) {
	trace := priceTrace(t, 30, 3600, 1800)
	prices := rampPrices(24 * 30)
	admit := &Expr{Source: "price.now <= price.mean", Deps: DepPrice, Bool: func(e *Env) bool { return e.Price.Now <= e.Price.Mean }}
	k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, prices), SeriesStart: "2016-11-01T00:00:00"}
	res := execOne(t, priceRun(trace, k, Policy{Name: "pa", Backfill: EASY, Admit: admit}))
	if res.Err == nil || !strings.Contains(res.Err.Error(), "before the run starts") {
		t.Fatalf("error %v; run days %v", res.Err, res.Metrics.RunDays)
	}
}

// Prices per MWh cost what the same prices per kWh cost, scaled once.
func TestPricesPerMWh(t *testing.T) {
	trace := priceTrace(t, 10, 3600, 1800)
	perKWh, perMWh := rampPrices(24), rampPrices(24)
	for k := range perMWh {
		perMWh[k] *= 1000
	}
	a := execOne(t, priceRun(trace, Contract{Name: "a", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, perKWh)}, Policy{Name: "easy", Backfill: EASY}))
	b := execOne(t, priceRun(trace, Contract{Name: "b", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, perMWh), PriceScale: 1e-3, PriceUnit: "EUR/MWh"}, Policy{Name: "easy", Backfill: EASY}))
	if a.Err != nil || b.Err != nil {
		t.Fatal(a.Err, b.Err)
	}
	if !near(a.Metrics.Cost, b.Metrics.Cost) || a.Metrics.Cost < 0.01 {
		t.Errorf("per kWh %v, per MWh %v", a.Metrics.Cost, b.Metrics.Cost)
	}
}

// Timestamps place the series: local ones in the trace's zone.
func TestHourlyTimestamps(t *testing.T) {
	trace := priceTrace(t, 4, 3600, 1800) // 2017-01-01 00:00 UTC .. 03:30
	write := func(rows string) string {
		path := filepath.Join(t.TempDir(), "iso.csv")
		if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	utc := write("time,price\n2017-01-01T00:00Z,0.1\n2017-01-01T01:00Z,0.2\n2017-01-01T02:00Z,0.3\n2017-01-01T03:00Z,0.4\n")
	// The same instants written in Berlin's local time.
	local := write("time,price\n2017-01-01 01:00,0.1\n2017-01-01 02:00,0.2\n2017-01-01 03:00,0.3\n2017-01-01 04:00,0.4\n")
	days := priceFile(t, []float64{0.1, 0.2, 0.3, 0.4})
	iso := tariff.Format{Time: tariff.TimeISO}
	plain := execOne(t, priceRun(trace, Contract{Name: "d", Kind: Hourly, Currency: "EUR", Prices: days}, Policy{Name: "easy", Backfill: EASY}))
	if plain.Err != nil {
		t.Fatal(plain.Err)
	}
	for _, tc := range []struct {
		name, path, zone string
	}{{"UTC", utc, ""}, {"local", local, "Europe/Berlin"}} {
		run := priceRun(trace, Contract{Name: "iso", Kind: Hourly, Currency: "EUR", Prices: tc.path, PriceFormat: iso}, Policy{Name: "easy", Backfill: EASY})
		run.Workload.TimeZone = tc.zone
		res := execOne(t, run)
		if res.Err != nil {
			t.Fatalf("%s: %v", tc.name, res.Err)
		}
		if !near(res.Metrics.Cost, plain.Metrics.Cost) {
			t.Errorf("%s: cost %v, want %v", tc.name, res.Metrics.Cost, plain.Metrics.Cost)
		}
	}
	// Local timestamps in another zone start an hour late: an error.
	run := priceRun(trace, Contract{Name: "iso", Kind: Hourly, Currency: "EUR", Prices: local, PriceFormat: iso}, Policy{Name: "easy", Backfill: EASY})
	res := execOne(t, run)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "they start 1.0 hours after the run starts") ||
		!strings.Contains(res.Err.Error(), "use a series whose timestamps cover the run") {
		t.Errorf("error %v", res.Err)
	}
}

// An accounting window that starts before the first submission needs
// prices from its start: the series must cover it, or repeat.
func TestHourlySeriesAndAccountWindow(t *testing.T) {
	trace := priceTrace(t, 10, 3600, 1800) // 2017-01-01 00:00 .. 09:30
	k := Contract{Name: "spot", Kind: Hourly, Currency: "EUR", Prices: priceFile(t, rampPrices(48))}
	run := priceRun(trace, k, Policy{Name: "easy", Backfill: EASY})
	// A window from 3 h before the first job: the series starts at local
	// midnight of the window's first day, 2016-12-31, and covers it.
	run.Account = &Window{From: Instant{Offset: -3 * 3600}, To: Instant{Offset: 86400}}
	if res := execOne(t, run); res.Err != nil {
		t.Errorf("a 48-hour series from the window's first midnight covers it: %v", res.Err)
	}
	// A window past the series' 48 hours: an error, or a note with repeat.
	run.Account = &Window{From: Instant{Offset: -3 * 3600}, To: Instant{Offset: 3 * 86400}}
	res := execOne(t, run)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "they end at 2017-01-02 00:00 UTC") {
		t.Errorf("error %v", res.Err)
	}
	run.Contract.Repeat = true
	res = execOne(t, run)
	if res.Err != nil || len(res.Notes) == 0 || !strings.Contains(res.Notes[len(res.Notes)-1], "after its hourly prices end") {
		t.Errorf("error %v, notes %q", res.Err, res.Notes)
	}
}
