package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bootsScenario switches idle nodes off, with boot and shutdown times, on
// the run's own span and over an accounting window that cuts it.
const bootsScenario = `import "std/kunkel"
import "std/policies"

machine cyc {
  nodes 48
  cores 1
  power { off 5 W; idle 60 W; busy 200 W }
  infrastructure 1 kW
  boot 90 s
  shutdown 30 s
}

policy off300 from easy { shutdown idle after 300 s }
policy off0 from easy { shutdown idle after 0 s }
policy keep8 from easy { shutdown idle after 120 s keep 8 }

experiment whole {
  workload synthetic { jobs 700; load 55%; seed 4 }
  machine  cyc
  contract kunkel_fixed
  policy   [easy, off300, off0, keep8]
  report   boots, boots_per_node_day, boots_per_node_day(max)
}

experiment window {
  workload synthetic { jobs 700; load 55%; seed 4 }
  machine  cyc
  contract kunkel_fixed
  policy   [off300, off0]
  account  2 d .. 5 d
  report   boots, boots_per_node_day, boots_per_node_day(max)
}
`

// TestBootsFromStates recounts each run's boots from its --series state
// series, independently of the machine's count: a node switches on where
// the nodes down (off or shutting down) fall from one row to the next
// (no instant both switches nodes off and boots others here: nodes switch
// off only when idle ones are left, and a job boots only when none are),
// over the rows of the accounted span. The means per node and day follow;
// the busiest node's rate lies between the mean and every boot on one node.
func TestBootsFromStates(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, "boots.pwr", bootsScenario)
	out, errOut, code := pwrc(t, "run", scen, "--series", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []struct {
		Experiment, Run string
		Metrics         map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 6 {
		t.Fatalf("%d runs, want 6", len(runs))
	}
	some := false
	for _, r := range runs {
		m := r.Metrics
		boots, has := m["boots"].(float64)
		if strings.HasSuffix(r.Run, "-easy") {
			if has {
				t.Errorf("%s: boots %v for a policy that never switches nodes off", r.Run, m["boots"])
			}
			continue
		}
		if !has {
			t.Fatalf("%s/%s: no boots in the JSON: %v", r.Experiment, r.Run, m)
		}
		from, to := m["accounted_from_s"].(float64), m["accounted_to_s"].(float64)
		recs := readCSV(t, filepath.Join(dir, r.Run+".states.csv"))
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		get := func(row []string, name string) float64 {
			v, err := strconv.ParseFloat(row[col[name]], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		recount := 0
		for i := 2; i < len(recs); i++ {
			at := get(recs[i], "time")
			if at < from || at >= to {
				continue
			}
			before := get(recs[i-1], "off") + get(recs[i-1], "shutting_down")
			after := get(recs[i], "off") + get(recs[i], "shutting_down")
			if before > after {
				recount += int(before - after)
			}
		}
		if int(boots) != recount {
			t.Errorf("%s/%s: %v boots, the state series shows %d", r.Experiment, r.Run, boots, recount)
		}
		some = some || recount > 0
		days := (to - from) / 86400
		mean := m["boots_per_node_day_mean"].(float64)
		if want := boots / 48 / days; math.Abs(mean-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s/%s: %v boots per node-day, want %v", r.Experiment, r.Run, mean, want)
		}
		most := m["boots_per_node_day_max"].(float64)
		if most < mean-1e-9 || most > boots/days+1e-9 || boots > 0 && most == 0 {
			t.Errorf("%s/%s: the busiest node %v boots a day, outside [%v, %v]", r.Experiment, r.Run, most, mean, boots/days)
		}
		if k := most * days; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Errorf("%s/%s: the busiest node booted %v times, not a whole number", r.Experiment, r.Run, k)
		}
	}
	if !some {
		t.Fatal("no run booted a node: the test checks nothing")
	}
}
