package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// racksScenario runs rack_aware and first_available on racks of 8 nodes
// with idle nodes off at once (a rack is on while a node in it is busy)
// and no boot time, so the files can be checked against each other.
const racksScenario = `import "std/policies"
import "std/kunkel"

machine racks {
  nodes 64
  level rack { size 8 node; power { fans 300 W; switch 50 W per 4 nodes } }
  power { off 5 W; idle 60 W; busy 200 W }
  infrastructure 1 kW
}

policy ra from easy { allocate rack_aware; shutdown idle after 0 s }
policy fa from easy { allocate first_available; shutdown idle after 0 s }

experiment racks {
  workload synthetic { jobs 400; load 45%; seed 9 }
  machine  racks
  contract kunkel_fixed
  policy   [ra, fa]
  report   racks, rack_changes, energy(levels), level_saving
}
`

// TestStatesAndNodeLists reads back a run's --jobs and --series files:
// the power columns of <run>.states.csv integrate to the JSON's energy by
// component; its rack column equals the racks holding a busy node,
// recounted from the jobs' node lists at every row; and each level
// figure of the JSON follows from the series.
func TestStatesAndNodeLists(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, "racks.pwr", racksScenario)
	out, errOut, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var runs []struct {
		Run     string
		Metrics map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		states := readCSV(t, filepath.Join(dir, r.Run+".states.csv"))
		jobs := readCSV(t, filepath.Join(dir, r.Run+".csv"))
		head := states[0]
		col := map[string]int{}
		for i, h := range head {
			col[h] = i
		}
		num := func(row []string, name string) float64 {
			i, ok := col[name]
			if !ok {
				t.Fatalf("%s.states.csv has no column %s: %v", r.Run, name, head)
			}
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		// Integrate each power column over the run's span (first
		// submission to last end: the last row's time).
		energy := map[string]float64{}
		var onSeconds float64
		rows := states[1:]
		for k := 0; k+1 < len(rows); k++ {
			dt := num(rows[k+1], "time") - num(rows[k], "time")
			var total float64
			for _, h := range head {
				if c, ok := pwrt.PowerColumn(h); ok {
					energy[c] += num(rows[k], h) * dt
					total += num(rows[k], h)
				}
			}
			if got := num(rows[k], "power_w"); math.Abs(got-total) > 1e-9*math.Max(1, total) {
				t.Errorf("%s: row %d: power_w %v, its components sum to %v", r.Run, k, got, total)
			}
			onSeconds += num(rows[k], "rack_on") * dt
		}
		for c, e := range energy {
			want := r.Metrics["energy_"+c+"_mwh"].(float64) * 3.6e9
			if math.Abs(e-want) > 1e-6*math.Max(1, want) {
				t.Errorf("%s: %s energy from states.csv %.6g J, JSON %.6g J", r.Run, c, e, want)
			}
		}
		span := num(rows[len(rows)-1], "time") - num(rows[0], "time")
		if got, want := onSeconds/span, r.Metrics["levels_on_mean_rack"].(float64); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: mean racks on %v from states.csv, JSON %v", r.Run, got, want)
		}
		// Racks on from the node lists, at every row's time.
		type held struct {
			start, end float64
			racks      map[int]bool
		}
		var hs []held
		jc := map[string]int{}
		for i, h := range jobs[0] {
			jc[h] = i
		}
		for _, j := range jobs[1:] {
			start, _ := strconv.ParseFloat(j[jc["start"]], 64)
			end, _ := strconv.ParseFloat(j[jc["end"]], 64)
			h := held{start, end, map[int]bool{}}
			n := 0
			for _, part := range strings.Split(j[jc["node_list"]], ",") {
				lo, hi, found := strings.Cut(part, "-")
				if !found {
					hi = lo
				}
				a, err1 := strconv.Atoi(lo)
				b, err2 := strconv.Atoi(hi)
				if err1 != nil || err2 != nil || b < a {
					t.Fatalf("%s: bad node list %q", r.Run, j[jc["node_list"]])
				}
				for i := a; i <= b; i++ {
					h.racks[i/8] = true
					n++
				}
			}
			if strconv.Itoa(n) != j[jc["alloc"]] {
				t.Fatalf("%s: job %s holds %d nodes, allocated %s", r.Run, j[0], n, j[jc["alloc"]])
			}
			hs = append(hs, h)
		}
		for _, row := range rows {
			tm := num(row, "time")
			on := map[int]bool{}
			for _, h := range hs {
				if h.start <= tm && tm < h.end {
					for k := range h.racks {
						on[k] = true
					}
				}
			}
			if got := int(num(row, "rack_on")); got != len(on) {
				t.Fatalf("%s at %v s: states.csv says %d racks on, the node lists %d", r.Run, tm, got, len(on))
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "MANIFEST.json")); !strings.Contains(string(data), `"states"`) {
		t.Error("the manifest does not list the states files")
	}
}

// capScenario: a machine with pstates under a DVFS powercap for an hour.
const capScenario = `import "std/policies"
import "std/kunkel"

machine m {
  nodes 32
  cores 4
  power {
    off 5 W
    idle 80 W
    pstate 2.4 GHz 300 W
    pstate 1.8 GHz 220 W
    pstate 1.2 GHz 160 W
    slowdown 1.6 at 1.2 GHz
  }
}

policy capped from easy { powercap 5 kW from 10 h for 1 h { mode dvfs } }

experiment x {
  workload synthetic { jobs 300; load 80%; seed 4 }
  machine  m
  contract kunkel_fixed
  policy   capped
}
`

// TestStatesPStatesAndCap reads back the pstate and cap columns of
// <run>.states.csv: busy cores per frequency add up to the busy nodes'
// cores at every row; cap_w is empty outside the cap's hour and 5000
// inside it, where the machine's power stays under it.
func TestStatesPStatesAndCap(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, "cap.pwr", capScenario)
	if _, errOut, code := pwrc(t, "run", scen, "--series", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, filepath.Join(dir, "x.states.csv"))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	freqs := []string{"busy_cores_2400mhz", "busy_cores_1800mhz", "busy_cores_1200mhz"}
	for _, c := range append(freqs, "cap_w", "busy", "time") {
		if _, ok := col[c]; !ok {
			t.Fatalf("no column %s in %v", c, rows[0])
		}
	}
	num := func(r []string, c string) float64 {
		v, err := strconv.ParseFloat(r[col[c]], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", c, r[col[c]], err)
		}
		return v
	}
	inCap, lowered := 0, 0
	first := num(rows[1], "time")
	for _, r := range rows[1:] {
		sum := 0.0
		for _, f := range freqs {
			sum += num(r, f)
		}
		if busy := num(r, "busy"); sum != 4*busy {
			t.Fatalf("row at %s: busy cores per frequency sum to %v, busy nodes %v", r[col["time"]], sum, busy)
		}
		at := num(r, "time") - first
		switch {
		case at >= 10*3600 && at < 11*3600:
			inCap++
			if num(r, "cap_w") != 5000 {
				t.Errorf("row at %v s: cap_w %q inside the cap's hour", at, r[col["cap_w"]])
			}
			power := 0.0
			for h, i := range col {
				if _, ok := pwrt.PowerColumn(h); ok {
					v, _ := strconv.ParseFloat(r[i], 64)
					power += v
				}
			}
			if power > 5000*(1+1e-9) {
				t.Errorf("row at %v s: %v W under a 5 kW cap", at, power)
			}
			if num(r, "busy_cores_1800mhz")+num(r, "busy_cores_1200mhz") > 0 {
				lowered++
			}
		case at < 10*3600 || at >= 11*3600+1:
			if r[col["cap_w"]] != "" {
				t.Errorf("row at %v s: cap_w %q outside the cap", at, r[col["cap_w"]])
			}
		}
	}
	if inCap == 0 || lowered == 0 {
		t.Errorf("%d rows in the cap's hour, %d with jobs below the top frequency: the scenario does not exercise the columns", inCap, lowered)
	}
}
