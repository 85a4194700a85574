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
