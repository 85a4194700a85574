// Package ledger integrates one run's power into energy and cost: by
// component, by tariff period and by local hour of day, plus the node-time
// behind utilization, the time each level kind spends on and the energy
// per pstate. It is fed the machine's state (a Sample) whenever that state
// changes, and integrates the state that was in force since the last
// change, as SimGrid's energy plugin is fed by host state changes: power is
// piecewise constant between events and the price between its changes,
// so every piece is exact (E = P·Δt, cost = P·Δt·price). It never reads
// scheduler state.
package ledger

import (
	"math"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// Sample is the machine's state between two changes: W per component, the
// nodes allocated to jobs (busy) and asked for by them (work), the level
// instances on per level, and busy nodes and their jobs' W per pstate.
type Sample struct {
	Power  []float64
	Total  float64 // Σ Power, summed in order
	Busy   int
	Work   int
	Off    int // switched-off nodes
	On     []int
	BusyAt []int
	JobWAt []float64
}

// HourStat integrates one local hour of day over a run (Zhou et al.'s
// Fig. 5 averages power and utilization this way).
type HourStat struct {
	Seconds     float64 // time spent in this hour of day
	Energy      float64 // J, everything
	JobEnergy   float64 // J, running jobs
	NodeSeconds float64 // nodes allocated to jobs × s
}

// Options set up a ledger.
type Options struct {
	Components int // length of Sample.Power; the first is the jobs' power
	Levels     int
	PStates    int
	Tariff     tariff.Tariff
	Clock      tariff.Clock
	// Window, when set, restricts the integration to [From, To]
	// (an experiment's `account` window); else everything from Start on.
	Windowed bool
	From, To float64
	// Meter, when > 0, meters the mean power over clock-aligned intervals
	// of this many seconds (a divisor of an hour: 15 min) in local time,
	// of the facility (every component) and of the running jobs.
	Meter float64
	// Carbon, when set, is the grid's carbon intensity in g/kWh over time:
	// CO2 integrates ∫ intensity · P dt.
	Carbon tariff.Tariff
}

// Interval is one metered interval: its start, the time of it the run
// covers (less than the interval at the ends), and the mean power then,
// of the facility (every component) and of the running jobs alone.
type Interval struct {
	Start, Seconds float64
	Mean           float64 // W, the facility's
	Jobs           float64 // W, the running jobs' (the first component)
	Cost           float64 // of the facility's energy in it
}

// Ledger is the integrator of one run.
type Ledger struct {
	o         Options
	now       float64
	price     float64
	period    int
	nextPrice float64
	hour      int
	nextHour  float64

	Energy          []float64 // J per component
	Cost            []float64 // currency per component
	PeriodEnergy    []float64 // J per tariff period
	PeriodCost      []float64
	PeriodSeconds   []float64
	PeriodJobEnergy []float64 // J drawn by running jobs, per tariff period
	BusyNodeSeconds float64   // allocated to jobs
	WorkNodeSeconds float64   // asked for by jobs
	OffNodeSeconds  float64   // switched off
	PeakPower       float64   // W, the highest total drawn
	Hours           [24]HourStat
	LevelOnSeconds  []float64 // per level: instance-seconds on
	PStateEnergy    []float64 // per pstate: J drawn by jobs running there
	PStateSeconds   []float64 // per pstate: busy node-seconds
	// LevelChanges counts, per level, the instants at which the number of
	// instances on changed; LevelSwitches sums |Δ instances on| (power
	// actions). Fed by Observe.
	LevelChanges  []int
	LevelSwitches []int
	lastOn        []int
	observed      bool

	// Metering (Options.Meter) and carbon (Options.Carbon).
	intervals  []Interval
	meterStart float64
	meterE     float64
	meterJ     float64
	meterT     float64
	meterC     float64
	nextMeter  float64
	CO2        float64 // g
	carbon     float64 // g/kWh now
	nextCarbon float64
}

// New returns a ledger whose integration starts at t0.
func New(o Options, t0 float64) *Ledger {
	periods := len(o.Tariff.Periods())
	l := &Ledger{
		o:               o,
		now:             t0,
		Energy:          make([]float64, o.Components),
		Cost:            make([]float64, o.Components),
		PeriodEnergy:    make([]float64, periods),
		PeriodCost:      make([]float64, periods),
		PeriodSeconds:   make([]float64, periods),
		PeriodJobEnergy: make([]float64, periods),
		LevelOnSeconds:  make([]float64, o.Levels),
		PStateEnergy:    make([]float64, o.PStates),
		PStateSeconds:   make([]float64, o.PStates),
		LevelChanges:    make([]int, o.Levels),
		LevelSwitches:   make([]int, o.Levels),
		lastOn:          make([]int, o.Levels),
	}
	l.price, l.period, l.nextPrice = o.Tariff.At(t0)
	l.hour, l.nextHour = l.localHour(t0)
	l.nextMeter, l.nextCarbon = math.Inf(1), math.Inf(1)
	if o.Meter > 0 {
		l.meterStart = l.meterMark(t0, false)
		l.nextMeter = l.meterMark(t0, true)
	}
	if o.Carbon != nil {
		l.carbon, _, l.nextCarbon = o.Carbon.At(t0)
	}
	return l
}

// meterMark is the metered interval boundary at or before t (next false)
// or the first after t: local hour tops plus multiples of the interval.
func (l *Ledger) meterMark(t float64, next bool) float64 {
	c := l.o.Clock
	w := c.Time(t)
	top := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), 0, 0, 0, w.Location())
	k := math.Floor(w.Sub(top).Seconds() / l.o.Meter)
	if next {
		k++
	}
	m := c.Sim(top) + k*l.o.Meter
	if next {
		if h := c.Sim(top.Add(time.Hour)); m > h || m <= t {
			m = max(h, t+l.o.Meter)
		}
	}
	return m
}

// Intervals are the metered intervals so far, the one in progress
// included (over the part covered).
func (l *Ledger) Intervals() []Interval {
	out := l.intervals
	if l.meterT > 0 {
		out = append(out[:len(out):len(out)], l.interval())
	}
	return out
}

// interval is the metered interval in progress.
func (l *Ledger) interval() Interval {
	return Interval{Start: l.meterStart, Seconds: l.meterT, Mean: l.meterE / l.meterT, Jobs: l.meterJ / l.meterT, Cost: l.meterC}
}

// Now is the time integrated up to.
func (l *Ledger) Now() float64 { return l.now }

// Price is the price now, in currency per kWh, and the tariff period's index.
func (l *Ledger) Price() (price float64, period int) { return l.price, l.period }

// NextPrice is when the price changes next.
func (l *Ledger) NextPrice() float64 { return l.nextPrice }

// NextCarbon is when the carbon intensity changes next (+Inf without a
// carbon series).
func (l *Ledger) NextCarbon() float64 { return l.nextCarbon }

// joulesPerKWh converts prices per kWh to prices per joule.
const joulesPerKWh = 3.6e6

// Advance integrates s from the last call up to t, splitting at every price
// change, every local hour and the window's ends.
func (l *Ledger) Advance(t float64, s *Sample) {
	if t <= l.now {
		return
	}
	o := &l.o
	if !o.Windowed {
		l.BusyNodeSeconds += float64(s.Busy) * (t - l.now)
		l.WorkNodeSeconds += float64(s.Work) * (t - l.now)
	}
	for l.now < t {
		seg := min(min(t, min(l.nextPrice, l.nextHour)), min(l.nextMeter, l.nextCarbon))
		inside := true
		if o.Windowed {
			// Cut at the window's ends; integrate only inside it.
			if l.now < o.From && seg > o.From {
				seg = o.From
			}
			if l.now < o.To && seg > o.To {
				seg = o.To
			}
			inside = l.now >= o.From && seg <= o.To
		}
		if dt := seg - l.now; inside && dt > 0 {
			if o.Windowed {
				l.BusyNodeSeconds += float64(s.Busy) * dt
				l.WorkNodeSeconds += float64(s.Work) * dt
			}
			l.OffNodeSeconds += float64(s.Off) * dt
			total := l.add(s, dt)
			h := &l.Hours[l.hour]
			h.Seconds += dt
			h.Energy += total * dt
			h.JobEnergy += s.Power[0] * dt
			h.NodeSeconds += float64(s.Busy) * dt
			if o.Meter > 0 {
				l.meterE += total * dt
				l.meterJ += s.Power[0] * dt
				l.meterT += dt
				l.meterC += total * dt * l.price / joulesPerKWh
			}
			if o.Carbon != nil {
				l.CO2 += total * dt * l.carbon / joulesPerKWh
			}
		}
		l.now = seg
		if seg == l.nextPrice {
			l.price, l.period, l.nextPrice = o.Tariff.At(seg)
		}
		if seg == l.nextHour {
			l.hour, l.nextHour = l.localHour(seg)
		}
		if seg == l.nextMeter {
			if l.meterT > 0 {
				l.intervals = append(l.intervals, l.interval())
			}
			l.meterStart, l.meterE, l.meterJ, l.meterT, l.meterC = seg, 0, 0, 0, 0
			l.nextMeter = l.meterMark(seg, true)
		}
		if seg == l.nextCarbon {
			l.carbon, _, l.nextCarbon = o.Carbon.At(seg)
		}
	}
}

// add integrates one piece at the current price and returns the total power.
func (l *Ledger) add(s *Sample, dt float64) float64 {
	total := s.Total
	perJ := l.price / joulesPerKWh
	energy, cost := l.Energy[:len(s.Power)], l.Cost[:len(s.Power)]
	for c, w := range s.Power {
		e := w * dt
		energy[c] += e
		cost[c] += e * perJ
	}
	e := total * dt
	l.PeriodEnergy[l.period] += e
	l.PeriodCost[l.period] += e * perJ
	l.PeriodSeconds[l.period] += dt
	l.PeriodJobEnergy[l.period] += s.Power[0] * dt
	if total > l.PeakPower {
		l.PeakPower = total
	}
	if len(s.On) > 0 {
		on := l.LevelOnSeconds[:len(s.On)]
		for i, n := range s.On {
			on[i] += float64(n) * dt
		}
	}
	if len(s.BusyAt) > 1 {
		for p, n := range s.BusyAt {
			l.PStateSeconds[p] += float64(n) * dt
			l.PStateEnergy[p] += s.JobWAt[p] * dt
		}
	}
	return total
}

// Observe records the level instances on at the end of an instant (after
// every change at that time), counting changes and switches: a level that
// goes off and on again within one instant does not count.
func (l *Ledger) Observe(on []int) {
	if !l.observed {
		copy(l.lastOn, on)
		l.observed = true
		return
	}
	for i, n := range on {
		if d := n - l.lastOn[i]; d != 0 {
			l.LevelChanges[i]++
			l.LevelSwitches[i] += max(d, -d)
			l.lastOn[i] = n
		}
	}
}

// localHour returns the local hour of day at t and when the next one
// starts, so power can be profiled by hour of day (Zhou et al.'s Fig. 5).
func (l *Ledger) localHour(t float64) (int, float64) {
	w := l.o.Clock.Time(t)
	top := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), 0, 0, 0, w.Location())
	next := l.o.Clock.Sim(top.Add(time.Hour))
	if next <= t { // defensive: always move forward
		next = t + 3600
	}
	return w.Hour(), next
}
