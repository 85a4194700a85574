package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestCarbonSeriesOptions: a carbon intensity series takes every option a
// price series takes — `time` (days, hours, iso), `start`, `unit` and
// `repeat` — and the same intensities written any of these ways give the
// same CO2. An ISO series used to fail the run asking for `time iso`, which
// the compiler then refused.
func TestCarbonSeriesOptions(t *testing.T) {
	t.Chdir(t.TempDir())
	// Three days of jobs from 2017-03-25 01:00 in Berlin (the trace's
	// start), across the spring-forward night of the 26th.
	trace := "; UnixStartTime: 1490400000\n; TimeZoneString: Europe/Berlin\n; MaxNodes: 16\n"
	for i := range 30 {
		trace += fmt.Sprintf("%d %d 0 %d %d -1 -1 %d 90000 -1 1 1 1 -1 1 1 -1 -1\n", i+1, i*7200, 3600+i*97, 1+i%8, 1+i%8)
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	const hours = 24 * 6
	value := func(h int) float64 { return 200 + float64((h*37)%113) }
	midnight := time.Date(2017, 3, 25, 0, 0, 0, 0, loc)
	var days, iso, kg, shifted, short strings.Builder
	days.WriteString("\"\",\"time\",\"ci\"\n")
	iso.WriteString("time,ci\n")
	shifted.WriteString("ci\n")
	for range 5 { // five hours before the series' start
		shifted.WriteString("999\n")
	}
	for h := range hours {
		fmt.Fprintf(&days, "\"%d\",%.15g,%g\n", h+1, float64(h+1)/24, value(h))
		fmt.Fprintf(&iso, "%s,%g\n", midnight.Add(time.Duration(h)*time.Hour).Format("2006-01-02T15:04-07:00"), value(h))
		fmt.Fprintf(&kg, "%g\n", value(h)/1000)
		fmt.Fprintf(&shifted, "%g\n", value(h))
		if h < 24 {
			fmt.Fprintf(&short, "%g\n", value(h))
		}
	}
	for name, text := range map[string]string{"t.swf": trace, "days.csv": days.String(), "iso.csv": iso.String(),
		"kg.csv": kg.String(), "shifted.csv": shifted.String(), "short.csv": short.String()} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := `machine m { nodes 16; power { idle 70 W; busy 260 W } }
policy p { order job.submit }
contract days    { flat 0.1 EUR/kWh; carbon hourly "days.csv" }
contract iso     { flat 0.1 EUR/kWh; carbon hourly "iso.csv" { time iso } }
contract kg      { flat 0.1 EUR/kWh; carbon hourly "kg.csv" { unit kg/kWh } }
contract shifted { flat 0.1 EUR/kWh; carbon hourly "shifted.csv" { start "2017-03-24 19:00" } }
contract short   { flat 0.1 EUR/kWh; carbon hourly "short.csv" { repeat } }
experiment e {
  workload swf "t.swf"
  machine m
  contract [days, iso, kg, shifted, short]
  policy p
  report co2
}
`
	if err := os.WriteFile("c.pwr", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := pwrc(t, "check", "c.pwr"); code != 0 || !strings.Contains(out, "c.pwr: ok (5 runs)") {
		t.Fatalf("check exit %d:\n%s", code, out)
	}
	out, errOut, code := pwrc(t, "run", "c.pwr", "--format", "json")
	if code != 0 {
		t.Fatalf("run exit %d:\n%s", code, errOut)
	}
	var runs []struct {
		Run     string
		Metrics map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	co2 := map[string]float64{}
	for _, r := range runs {
		v, ok := r.Metrics["co2_t"].(float64)
		if !ok || !(v > 0) {
			t.Fatalf("%s: co2 %v", r.Run, r.Metrics["co2_t"])
		}
		co2[r.Run] = v
	}
	for _, name := range []string{"iso", "kg", "shifted"} {
		if d := co2[name]/co2["days"] - 1; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: %.9g t of CO2, %.9g t from the same intensities in days", name, co2[name], co2["days"])
		}
	}
	// The first day repeated is not the six days: the run is allowed
	// (`repeat`), and prices its hours from the repeated series.
	if co2["short"] == co2["days"] {
		t.Errorf("short: %v t, the same as the whole series", co2["short"])
	}
}
