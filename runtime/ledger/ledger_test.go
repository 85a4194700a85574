package ledger

import (
	"math"
	"testing"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// TestAdvanceSplits integrates a constant machine over a day of a base/peak
// tariff (peak 06:00–22:00 at 0.2, base 0.1 per kWh): energy, cost by
// period, hours of day, node-seconds, levels on and per-pstate energy,
// each worked by hand.
func TestAdvanceSplits(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	tar := tariff.BasePeak(clock, []tariff.Window{{From: 6 * 3600, To: 22 * 3600}}, 0.2, 0.1)
	l := New(Options{Components: 3, Levels: 1, PStates: 2, Tariff: tar, Clock: clock}, 0)
	s := Sample{Power: []float64{600, 300, 100}, Total: 1000, Busy: 4, Work: 3,
		On: []int{2}, BusyAt: []int{3, 1}, JobWAt: []float64{450, 150}}
	l.Advance(86400, &s)
	if l.Now() != 86400 {
		t.Fatalf("now %v", l.Now())
	}
	for c, w := range s.Power {
		if got, want := l.Energy[c], w*86400; got != want {
			t.Errorf("component %d: %v J, want %v", c, got, want)
		}
	}
	// 16 peak hours at 0.2, 8 base hours at 0.1: 1 kW × (3.2 + 0.8) = 4.0.
	var cost float64
	for _, c := range l.Cost {
		cost += c
	}
	if math.Abs(cost-4.0) > 1e-12 {
		t.Errorf("cost %v, want 4.0", cost)
	}
	if got := l.PeriodSeconds; got[0]+got[1] != 86400 || math.Abs(l.PeriodEnergy[0]+l.PeriodEnergy[1]-1000*86400) > 1e-6 {
		t.Errorf("periods: seconds %v, energy %v", got, l.PeriodEnergy)
	}
	for h, st := range l.Hours {
		if st.Seconds != 3600 || st.Energy != 1000*3600 || st.JobEnergy != 600*3600 || st.NodeSeconds != 4*3600 {
			t.Fatalf("hour %d: %+v", h, st)
		}
	}
	if l.BusyNodeSeconds != 4*86400 || l.WorkNodeSeconds != 3*86400 || l.LevelOnSeconds[0] != 2*86400 {
		t.Errorf("node-seconds %v, %v; level on %v", l.BusyNodeSeconds, l.WorkNodeSeconds, l.LevelOnSeconds)
	}
	if l.PStateEnergy[0] != 450*86400 || l.PStateSeconds[1] != 86400 {
		t.Errorf("pstates: %v J, %v s", l.PStateEnergy, l.PStateSeconds)
	}
	if l.PeakPower != 1000 {
		t.Errorf("peak power %v", l.PeakPower)
	}
}

// TestWindow integrates only inside [From, To].
func TestWindow(t *testing.T) {
	l := New(Options{Components: 1, Tariff: tariff.Flat(0.1), Clock: tariff.Clock{Loc: time.UTC}, Windowed: true, From: 100, To: 400}, 0)
	s := Sample{Power: []float64{10}, Total: 10, Busy: 1}
	l.Advance(250, &s)
	s.Power[0], s.Total = 20, 20
	l.Advance(1000, &s)
	if got, want := l.Energy[0], 10*150.0+20*150; got != want {
		t.Errorf("energy %v J, want %v", got, want)
	}
	if l.BusyNodeSeconds != 300 {
		t.Errorf("node-seconds %v, want 300", l.BusyNodeSeconds)
	}
}

// TestObserve counts changes per instant, not within one.
func TestObserve(t *testing.T) {
	l := New(Options{Components: 1, Levels: 2, Tariff: tariff.Flat(0.1), Clock: tariff.Clock{Loc: time.UTC}}, 0)
	for _, on := range [][]int{{3, 1}, {3, 1}, {1, 1}, {4, 0}, {4, 0}} {
		l.Observe(on)
	}
	if l.LevelChanges[0] != 2 || l.LevelSwitches[0] != 5 || l.LevelChanges[1] != 1 || l.LevelSwitches[1] != 1 {
		t.Errorf("changes %v, switches %v; want [2 1] and [5 1]", l.LevelChanges, l.LevelSwitches)
	}
}

// TestMeter meters a 1 kW facility from 00:10 to 01:40 local in 15-min
// intervals (the first and last covered in part), the jobs' share only
// when asked, and carbon at a constant 350 g/kWh.
func TestMeter(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	for _, jobs := range []bool{false, true} {
		l := New(Options{Components: 2, Tariff: tariff.Flat(0.1), Clock: clock, Meter: 900, MeterJobs: jobs, Carbon: tariff.Flat(350)}, 600)
		s := Sample{Power: []float64{400, 600}, Total: 1000}
		l.Advance(2400, &s)
		s.Power[0], s.Total = 1400, 2000
		l.Advance(6000, &s)
		iv := l.Intervals()
		want := [][3]float64{{0, 300, 1000}, {900, 900, 1000}, {1800, 900, 1000 + 1000*300.0/900}, {2700, 900, 2000}, {3600, 900, 2000}, {4500, 900, 2000}, {5400, 600, 2000}}
		if jobs {
			want = [][3]float64{{0, 300, 400}, {900, 900, 400}, {1800, 900, 400 + 1000*300.0/900}, {2700, 900, 1400}, {3600, 900, 1400}, {4500, 900, 1400}, {5400, 600, 1400}}
		}
		if len(iv) != len(want) {
			t.Fatalf("jobs %v: intervals %v, want %v", jobs, iv, want)
		}
		for i := range want {
			if iv[i].Start != want[i][0] || iv[i].Seconds != want[i][1] || math.Abs(iv[i].Mean-want[i][2]) > 1e-9 {
				t.Errorf("jobs %v: interval %d %+v, want %+v", jobs, i, iv[i], want[i])
			}
		}
		// 1 kW × 1800 s + 2 kW × 3600 s = 2.5 kWh at 350 g/kWh.
		if math.Abs(l.CO2-2.5*350) > 1e-9 {
			t.Errorf("CO2 %v g, want 875", l.CO2)
		}
	}
}

// TestBandCharge is a hand-made profile of metered means against a band
// of 1..2 kW: 3 intervals out in 2 runs, each penalty kind, and a rebill
// that re-prices a month with a violation.
func TestBandCharge(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	day := 86400.0
	iv := []Interval{
		{Start: 0, Seconds: 900, Mean: 1500, Cost: 1},
		{Start: 900, Seconds: 900, Mean: 2500, Cost: 2},  // over by 500
		{Start: 1800, Seconds: 900, Mean: 2100, Cost: 2}, // over by 100
		{Start: 2700, Seconds: 900, Mean: 1200, Cost: 1},
		{Start: 40 * day, Seconds: 900, Mean: 800, Cost: 1}, // February: under by 200
		{Start: 40*day + 900, Seconds: 900, Mean: 1000, Cost: 1},
	}
	for _, c := range []struct {
		b    Band
		want float64
	}{
		{Band{Lo: 1000, Hi: 2000, Kind: PerInterval, Fee: 10}, 30},
		{Band{Lo: 1000, Hi: 2000, Kind: PerViolation, Fee: 10}, 20},
		{Band{Lo: 1000, Hi: 2000, Kind: Once, Fee: 10, Period: PeriodRun}, 10},
		{Band{Lo: 1000, Hi: 2000, Kind: Once, Fee: 10, Period: PeriodMonth}, 20},
		// January: 7.3 MJ = 2.0278 kWh at 1 EUR less its 6 EUR; February: 0.405 kWh less 2.
		{Band{Lo: 1000, Hi: 2000, Kind: Rebill, Rebill: 1, Period: PeriodMonth}, (900*(1500+2500+2100+1200))/3.6e6 - 6 + 900*(800+1000)/3.6e6 - 2},
	} {
		r := BandCharge(iv, c.b, clock)
		if r.Violations != 3 || r.Episodes != 2 || r.SecondsOut != 2700 || r.MaxOver != 500 || r.MaxUnder != 200 {
			t.Fatalf("%+v", r)
		}
		if math.Abs(r.Penalty-c.want) > 1e-9 {
			t.Errorf("kind %d period %d: penalty %v, want %v", c.b.Kind, c.b.Period, r.Penalty, c.want)
		}
	}
	ch, peak := DemandCharge(iv, Demand{Price: 0.01, Period: PeriodMonth}, clock)
	if peak != 2500 || ch != 0.01*(2500+1000) {
		t.Errorf("demand charge %v, peak %v; want 35 and 2500", ch, peak)
	}
}
