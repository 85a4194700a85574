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

// TestMeter meters a facility of 1 kW, then 2 kW, from 00:10 to 01:40
// local in 15-min intervals (the first and last covered in part): the
// facility's means and, beside them, the jobs' (the first component: 400 W,
// then 1.4 kW); and carbon at a constant 350 g/kWh.
func TestMeter(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	l := New(Options{Components: 2, Tariff: tariff.Flat(0.1), Clock: clock, Meter: 900, Carbon: tariff.Flat(350)}, 600)
	s := Sample{Power: []float64{400, 600}, Total: 1000}
	l.Advance(2400, &s)
	s.Power[0], s.Total = 1400, 2000
	l.Advance(6000, &s)
	iv := l.Intervals()
	// start, seconds, facility W, jobs W
	want := [][4]float64{{0, 300, 1000, 400}, {900, 900, 1000, 400}, {1800, 900, 1000 + 1000*300.0/900, 400 + 1000*300.0/900},
		{2700, 900, 2000, 1400}, {3600, 900, 2000, 1400}, {4500, 900, 2000, 1400}, {5400, 600, 2000, 1400}}
	if len(iv) != len(want) {
		t.Fatalf("intervals %v, want %v", iv, want)
	}
	for i := range want {
		x := iv[i]
		if x.Start != want[i][0] || x.Seconds != want[i][1] || math.Abs(x.Mean-want[i][2]) > 1e-9 || math.Abs(x.Jobs-want[i][3]) > 1e-9 ||
			math.Abs(x.Cost-x.Mean*x.Seconds*0.1/3.6e6) > 1e-15 {
			t.Errorf("interval %d %+v, want %v (cost: the facility's energy at 0.1)", i, x, want[i])
		}
	}
	// 1 kW × 1800 s + 2 kW × 3600 s = 2.5 kWh at 350 g/kWh.
	if math.Abs(l.CO2-2.5*350) > 1e-9 {
		t.Errorf("CO2 %v g, want 875", l.CO2)
	}
}

// bandProfile is a hand-made profile of metered means (1970 in UTC: sim
// time 0 is 1 January 00:00): four intervals in January, two in February;
// the facility's means, the jobs' and the facility's energy cost.
//
//	band 1..2 kW   facility               jobs
//	Jan 00:00      1500                    900 under by 100
//	Jan 00:15      2500 over by 500       1900
//	Jan 00:30      2100 over by 100       2200 over by 200
//	Jan 00:45      1200                    600 under by 400
//	Feb 10 00:00    800 under by 200      1500
//	Feb 10 00:15   1000                   1000
//
// The facility is out 3 times in 2 runs, in January and February; the jobs
// 3 times in 2 runs, in January only.
var bandProfile = []Interval{
	{Start: 0, Seconds: 900, Mean: 1500, Jobs: 900, Cost: 0.1},
	{Start: 900, Seconds: 900, Mean: 2500, Jobs: 1900, Cost: 0.2},
	{Start: 1800, Seconds: 900, Mean: 2100, Jobs: 2200, Cost: 0.2},
	{Start: 2700, Seconds: 900, Mean: 1200, Jobs: 600, Cost: 0.1},
	{Start: 40 * 86400, Seconds: 900, Mean: 800, Jobs: 1500, Cost: 0.5},
	{Start: 40*86400 + 900, Seconds: 900, Mean: 1000, Jobs: 1000, Cost: 0.5},
}

// TestBandCharge applies bands of 1..2 kW to bandProfile, metering the
// facility or the jobs: counts, extremes and each penalty kind, worked by
// hand. A rebill re-prices the facility's energy of each period with a
// violation (whatever the band meters) and charges what that adds, never
// a refund: January's 1.825 kWh cost 0.6 and cost 1.825 at 1 EUR/kWh
// (+1.225); February's 0.45 kWh cost 1.0 and would cost 0.45 (+0, not
// −0.55).
func TestBandCharge(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	facility, jobs := Band{Lo: 1000, Hi: 2000}, Band{Lo: 1000, Hi: 2000, Jobs: true}
	with := func(b Band, kind PenaltyKind, fee, rebill float64, p Period) Band {
		b.Kind, b.Fee, b.Rebill, b.Period = kind, fee, rebill, p
		return b
	}
	for _, c := range []struct {
		name string
		b    Band
		want BandResult
	}{
		{"facility per interval", with(facility, PerInterval, 10, 0, PeriodRun), BandResult{3, 2, 2700, 500, 200, 30}},
		{"facility per violation", with(facility, PerViolation, 10, 0, PeriodRun), BandResult{3, 2, 2700, 500, 200, 20}},
		{"facility once per run", with(facility, Once, 10, 0, PeriodRun), BandResult{3, 2, 2700, 500, 200, 10}},
		{"facility once per month", with(facility, Once, 10, 0, PeriodMonth), BandResult{3, 2, 2700, 500, 200, 20}},
		{"facility rebill per month", with(facility, Rebill, 0, 1, PeriodMonth), BandResult{3, 2, 2700, 500, 200, 1.225}},
		// The run as one period: 2.275 kWh cost 1.6.
		{"facility rebill per run", with(facility, Rebill, 0, 1, PeriodRun), BandResult{3, 2, 2700, 500, 200, 2.275 - 1.6}},
		// Below every price paid: nothing to add.
		{"facility rebill cheaper", with(facility, Rebill, 0, 0.05, PeriodMonth), BandResult{3, 2, 2700, 500, 200, 0}},
		{"jobs per interval", with(jobs, PerInterval, 10, 0, PeriodRun), BandResult{3, 2, 2700, 200, 400, 30}},
		{"jobs once per month", with(jobs, Once, 10, 0, PeriodMonth), BandResult{3, 2, 2700, 200, 400, 10}},
		// January only, the facility's energy (the jobs' 1.9 kWh would add 1.3).
		{"jobs rebill per month", with(jobs, Rebill, 0, 1, PeriodMonth), BandResult{3, 2, 2700, 200, 400, 1.225}},
	} {
		r := BandCharge(bandProfile, c.b, clock)
		if math.Abs(r.Penalty-c.want.Penalty) > 1e-12 {
			t.Errorf("%s: penalty %v, want %v", c.name, r.Penalty, c.want.Penalty)
		}
		r.Penalty = c.want.Penalty
		if r != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, r, c.want)
		}
	}
}

// TestDemandCharge charges the facility's highest metered mean of each
// period (bandProfile: January's 2500 W, February's 1000 W; never the jobs'
// 2200 W), pro rata of the period the run covers: one hour of January
// and half an hour of February pay 1/744 and 1/1344 of a month's charge.
// A whole month pays it in full, and a run of 401 days a yearly charge
// for 401/365 years (1970, then 36 days of 1971), not for two years.
func TestDemandCharge(t *testing.T) {
	clock := tariff.Clock{Loc: time.UTC}
	const price = 0.01 // per W per period
	ch, peak := DemandCharge(bandProfile, Demand{Price: price, Period: PeriodMonth}, clock)
	if want := price * (2500*3600/(31*86400.0) + 1000*1800/(28*86400.0)); peak != 2500 || math.Abs(ch-want) > 1e-15 {
		t.Errorf("monthly: charge %v, peak %v; want %v and 2500", ch, peak, want)
	}
	ch, _ = DemandCharge(bandProfile, Demand{Price: price, Period: PeriodYear}, clock)
	if want := price * 2500 * 5400 / (365 * 86400.0); math.Abs(ch-want) > 1e-15 {
		t.Errorf("yearly: charge %v, want %v", ch, want)
	}
	// February 1970 whole, in 15-min intervals, one of them at 3 kW.
	var feb []Interval
	for k := range 28 * 96 {
		feb = append(feb, Interval{Start: 31*86400 + float64(k)*900, Seconds: 900, Mean: 1000})
	}
	feb[500].Mean = 3000
	if ch, peak := DemandCharge(feb, Demand{Price: price, Period: PeriodMonth}, clock); ch != price*3000 || peak != 3000 {
		t.Errorf("a whole month: charge %v, peak %v; want %v, 3000", ch, peak, price*3000)
	}
	// 401 days of hours from 1970-01-01 at 1 kW, 2 kW in one hour of 1971.
	var long []Interval
	for k := range 401 * 24 {
		long = append(long, Interval{Start: float64(k) * 3600, Seconds: 3600, Mean: 1000})
	}
	long[366*24].Mean = 2000
	ch, peak = DemandCharge(long, Demand{Price: price, Period: PeriodYear}, clock)
	if want := price * (1000 + 2000*36/365.0); math.Abs(ch-want) > 1e-12 || peak != 2000 {
		t.Errorf("401 days: charge %v, peak %v; want %v (two whole years: %v)", ch, peak, want, price*3000)
	}
	// Per run: the run's peak, once, whatever its length (was 0: the
	// covered share of an unbounded period).
	if ch, peak := DemandCharge(long, Demand{Price: price, Period: PeriodRun}, clock); ch != price*2000 || peak != 2000 {
		t.Errorf("per run: charge %v, peak %v; want %v, 2000", ch, peak, price*2000)
	}
}
