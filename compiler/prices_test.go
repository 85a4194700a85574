package compiler_test

import (
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
)

func TestHourlyBlock(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": header + `
		contract spot {
		  hourly "p.csv" { unit USD/MWh; time hours; start "2016-12-30 06:00"; repeat }
		}
		experiment e { workload synthetic { jobs 10 }; machine m; contract spot; policy easy }`,
		"p.csv": "0,45\n1,47\n"}, compiler.Options{})
	k := r.Contract
	if k.Kind != runtime.Hourly || k.PriceScale != 1e-3 || k.PriceUnit != "USD/MWh" || k.Currency != "USD" ||
		k.PriceFormat.Time != tariff.TimeHours || k.SeriesStart != "2016-12-30T06:00:00" || !k.Repeat {
		t.Errorf("contract %+v", k)
	}
	r = onlyRun(t, map[string]string{"main.pwr": header + `
		contract spot { hourly "p.csv" { currency GBP; time iso } }
		experiment e { workload synthetic { jobs 10 }; machine m; contract spot; policy easy }`,
		"p.csv": "2017-01-01T00:00Z,0.1\n"}, compiler.Options{})
	if k := r.Contract; k.PriceScale != 1 || k.PriceUnit != "" || k.Currency != "GBP" || k.PriceFormat.Time != tariff.TimeISO || k.Repeat {
		t.Errorf("contract %+v", k)
	}
}

// A derived contract's hourly statement replaces its base's whole: its
// file, unit, start and repeat; and the prices of a replaced scheme do not
// set the currency.
func TestDerivedHourlyKeepsNothingOfItsBase(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": header + `
		contract a { hourly "a.csv" { unit USD/MWh; start "2016-12-30"; repeat } }
		contract b from a { hourly "b.csv" }
		experiment e { workload synthetic { jobs 10 }; machine m; contract b; policy easy }`,
		"a.csv": "45\n", "b.csv": "0.1\n"}, compiler.Options{})
	if k := r.Contract; k.Prices != "b.csv" || k.PriceScale != 1 || k.PriceUnit != "" || k.SeriesStart != "" || k.Repeat || k.Currency != "EUR" {
		t.Errorf("contract %+v", k)
	}
	r = onlyRun(t, map[string]string{"main.pwr": header + `
		contract usd { flat 0.1 USD/kWh }
		contract spot from usd { hourly "b.csv" }
		experiment e { workload synthetic { jobs 10 }; machine m; contract spot; policy easy }`,
		"b.csv": "0.1\n"}, compiler.Options{})
	if k := r.Contract; k.Kind != runtime.Hourly || k.Currency != "EUR" {
		t.Errorf("contract %+v: the flat price's currency outlived it", k)
	}
}

// price.mean_past(w) compiles, reads as time-dependent, runs on the VM and
// calls the environment's function with the window in seconds.
func TestPriceMeanPastRule(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": header + `
		param day = 24 h
		policy p { admit price.now <= price.mean_past(day) * 1.1 || price.mean_past(3600) < 0 }
		experiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy p }`}, compiler.Options{})
	a := r.Policy.Admit
	if a == nil || a.Deps&runtime.DepPrice == 0 || !a.Deps.Dynamic() {
		t.Fatalf("admit %+v", a)
	}
	var windows []float64
	env := &runtime.Env{Price: runtime.PriceEnv{Now: 0.12, MeanPast: func(w float64) float64 {
		windows = append(windows, w)
		return 0.1
	}}}
	if a.Bool(env) {
		t.Error("0.12 <= 0.1 × 1.1 is false, and so is 0.1 < 0")
	}
	if len(windows) != 2 || windows[0] != 86400 || windows[1] != 3600 {
		t.Errorf("windows %v", windows)
	}
	env.Price.Now = 0.11
	if !a.Bool(env) {
		t.Error("0.11 <= 0.11")
	}
	// A failing window is the rule's error.
	env.Price.MeanPast = func(float64) float64 { panic(errBadWindow{}) }
	func() {
		defer func() {
			x := recover()
			ee, ok := x.(*runtime.EvalError)
			if !ok || ee.Expr != a {
				t.Errorf("panic %v, want an *runtime.EvalError", x)
			}
		}()
		a.Bool(env)
	}()
}

type errBadWindow struct{}

func (errBadWindow) Error() string { return "bad window" }
