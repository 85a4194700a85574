package refplace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Summaries of a hand-made series on 3 racks at 633 W: 2 racks on from 0, 1
// from 100, none from 3000.
func TestSummarizeHandWorked(t *testing.T) {
	s := Series{{0, 2}, {100, 1}, {3000, 0}}
	cases := []struct {
		name     string
		from, to float64
		want     Summary
	}{
		{
			// ∫ = 2·100 + 1·2900 + 0·600 = 3100 rack-s; all on 3·3600 =
			// 10800; off 7700. Changes at 0 (0→2), 100, 3000: 3; Σ|Δ| =
			// 2 + 1 + 1 = 4.
			name: "whole run", from: 0, to: 3600,
			want: Summary{RackSeconds: 3100, MeanRacksOn: 3100.0 / 3600,
				Energy: 633 * 3100, AllOn: 633 * 10800, Saving: 633 * 7700, Changes: 3, Switches: 4},
		},
		{
			// Clipped: 2·50 + 1·1900 = 2000 of 3·1950 = 5850; only the
			// step at 100 lies inside.
			name: "window", from: 50, to: 2000,
			want: Summary{RackSeconds: 2000, MeanRacksOn: 2000.0 / 1950,
				Energy: 633 * 2000, AllOn: 633 * 5850, Saving: 633 * 3850, Changes: 1, Switches: 1},
		},
		{
			// The step at 100 sets the count at the window's start.
			name: "window starting on a step", from: 100, to: 200,
			want: Summary{RackSeconds: 100, MeanRacksOn: 1,
				Energy: 633 * 100, AllOn: 633 * 300, Saving: 633 * 200, Changes: 1, Switches: 1},
		},
		{
			name: "after the last step", from: 4000, to: 5000,
			want: Summary{AllOn: 633 * 3000, Saving: 633 * 3000},
		},
		{
			name: "before the first step", from: -100, to: -50,
			want: Summary{AllOn: 633 * 150, Saving: 633 * 150},
		},
		{
			// An empty span has mean 0; the step at 100 is in [100, 100].
			name: "empty span", from: 100, to: 100,
			want: Summary{Changes: 1, Switches: 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Summarize(s, 3, 633, c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			c.want.From, c.want.To, c.want.Racks, c.want.PRack = c.from, c.to, 3, 633
			c.want.Utilization = c.want.MeanRacksOn / 3
			if got != c.want {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A rack going off as another comes on at the same instant leaves the count
// unchanged: no step, no change, no switch (counts are compared per event
// time, patil.md P15).
func TestRackSwapAtOneInstant(t *testing.T) {
	s, err := RacksOn(Machine{2, 2}, []Placed{{0, 10, []int{0}}, {10, 20, []int{1}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Series{{0, 1}, {20, 0}}); fmt.Sprint(s) != fmt.Sprint(want) {
		t.Fatalf("series = %v, want %v", s, want)
	}
	sum, err := Summarize(s, 2, 633, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	if sum.RackSeconds != 20 || sum.Changes != 2 || sum.Switches != 2 {
		t.Fatalf("rack-s %g, changes %d, switches %d; want 20, 2, 2", sum.RackSeconds, sum.Changes, sum.Switches)
	}
}

// patil.md §2.2: 20 racks always on over HPC2N's first 1.5 years (span
// 47,732,126 s): 20 × 633 W × 47,732,126 s = 604,288,715,160 J = 167.858 MWh.
func TestPatilAllOnConstant(t *testing.T) {
	const span = 47_732_126
	m := Machine{320, 20}
	// Nothing runs: every rack off, the whole counterfactual saved.
	none, err := Summarize(nil, m.Racks, 633, 0, span)
	if err != nil {
		t.Fatal(err)
	}
	if none.AllOn != 604_288_715_160 || fmt.Sprintf("%.3f", MWh(none.AllOn)) != "167.858" {
		t.Fatalf("all-on = %.0f J = %.6f MWh, want 604288715160 J = 167.858 MWh", none.AllOn, MWh(none.AllOn))
	}
	if none.Energy != 0 || none.Saving != none.AllOn || none.MeanRacksOn != 0 {
		t.Fatalf("idle machine: %+v", none)
	}
	// One job on every node for the whole span: every rack on, nothing saved.
	p, err := Place(m, []Job{job(0, span, span, 320)}, RackAware)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Summarize(p.Racks, m.Racks, 633, 0, span)
	if err != nil {
		t.Fatal(err)
	}
	if full.Energy != 604_288_715_160 || full.Saving != 0 || full.MeanRacksOn != 20 || full.Utilization != 1 ||
		full.Changes != 2 || full.Switches != 40 {
		t.Fatalf("full machine: %+v", full)
	}
	// Half the racks (160 nodes fill racks 0-9) for half the span: a
	// quarter of the counterfactual used, mean 5 racks.
	p, err = Place(m, []Job{job(0, span/2, span/2, 160)}, RackAware)
	if err != nil {
		t.Fatal(err)
	}
	half, err := Summarize(p.Racks, m.Racks, 633, 0, span)
	if err != nil {
		t.Fatal(err)
	}
	if half.Energy != 633*10*(span/2) || half.Energy*4 != half.AllOn || half.MeanRacksOn != 5 {
		t.Fatalf("half machine: %+v", half)
	}
}

// On random schedules with whole-second times, for every allocator and
// several windows: rack energy + saving = all-on counterfactual exactly (the
// two are integrated separately), the energy equals P_rack × the rack-seconds
// counted from the brute-force series, and the mean is the rack-seconds over
// the span.
func TestSummaryConsistency(t *testing.T) {
	m := Machine{64, 8}
	jobs := randomSchedule(rand.New(rand.NewPCG(3, 7)), 1500, m.Nodes, 0.5, 1)
	last := 0.0
	for _, j := range jobs {
		last = max(last, j.End)
	}
	for _, a := range []Allocator{RackAware, FirstAvailable, LastAvailable} {
		p, err := Place(m, jobs, a)
		if err != nil {
			t.Fatal(err)
		}
		brute := bruteRacks(m, jobs, p.Nodes)
		for _, w := range [][2]float64{{0, last}, {0, last + 86400}, {last / 3, last / 2}, {-500, 1000}} {
			s, err := Summarize(p.Racks, m.Racks, 633, w[0], w[1])
			if err != nil {
				t.Fatal(err)
			}
			if s.Energy+s.Saving != s.AllOn {
				t.Errorf("%s %v: energy %.0f + saving %.0f ≠ all-on %.0f", a, w, s.Energy, s.Saving, s.AllOn)
			}
			if want := 633 * rackSeconds(brute, w[0], w[1]); s.Energy != want {
				t.Errorf("%s %v: energy %.0f, brute force %.0f", a, w, s.Energy, want)
			}
			if want := s.RackSeconds / (w[1] - w[0]); s.MeanRacksOn != want {
				t.Errorf("%s %v: mean %g, want %g", a, w, s.MeanRacksOn, want)
			}
		}
	}
}

// rackSeconds integrates a series over [from, to] by sampling it on every
// whole second: usable only with whole-second step times and bounds.
func rackSeconds(s Series, from, to float64) float64 {
	total, k, on := 0.0, 0, 0
	for t := from; t < to; t++ {
		for k < len(s) && s[k].At <= t {
			on = s[k].RacksOn
			k++
		}
		total += float64(on)
	}
	return total
}

func TestSummarizeRejects(t *testing.T) {
	ok := Series{{0, 1}, {10, 0}}
	cases := []struct {
		name     string
		s        Series
		racks    int
		p        float64
		from, to float64
		want     string
	}{
		{"no racks", ok, 0, 633, 0, 10, "0 racks"},
		{"negative power", ok, 2, -1, 0, 10, "rack power"},
		{"reversed span", ok, 2, 633, 10, 0, "not a finite interval"},
		{"steps out of order", Series{{10, 1}, {0, 0}}, 2, 633, 0, 10, "increasing times"},
		{"repeated step time", Series{{0, 1}, {0, 2}}, 2, 633, 0, 10, "increasing times"},
		{"more racks on than racks", Series{{0, 3}}, 2, 633, 0, 10, "3 racks on, machine has 2"},
		{"negative count", Series{{0, -1}}, 2, 633, 0, 10, "-1 racks on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Summarize(c.s, c.racks, c.p, c.from, c.to)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}
