package runtime

import "math"

// The scheduler's clock: while jobs wait, a pass runs at every instant a
// rule of the policy may change its answer though nothing else happens —
// at each change of price (and of the tariff's period) when a rule reads
// the clock, the peak or the price, at each change of carbon intensity
// when one reads carbon.*, at the top of each local hour when one reads
// now.*, at each instant a clock field reaches a number a rule compares
// it with (`admit now.hour >= 17.5`) — and every `interval` from the first
// submission, as a real scheduler's cycle does (rules that read job.wait
// change between events).
type clockStage struct {
	price, hours, carbon bool        // wake at price changes, hours, carbon changes
	edges                []ClockEdge // and when the clock reaches these
	interval             float64     // s; 0: none
}

var clockKind = stageKind{
	name: "clock",
	has: func(p *Policy) bool {
		return p.Interval > 0 || p.passDeps()&(DepNow|DepPeak|DepPrice|DepCarbon) != 0
	},
	allows: everything,
	build: func(s *sim) (stage, error) {
		d := s.pol.passDeps()
		c := &clockStage{
			price:  d&(DepNow|DepPeak|DepPrice) != 0,
			hours:  d&DepNow != 0,
			carbon: s.carbon != nil && d&DepCarbon != 0,
			edges:  s.pol.clockEdges(),
		}
		if d&timeDeps != 0 {
			// A cycle's pass finds what the last found unless a rule reads
			// what time changes: without one, ticks change nothing (and a
			// job no rule will ever admit would tick for 20 simulated
			// years before the run says so).
			c.interval = s.pol.Interval
		}
		if !c.price && !c.carbon && c.interval <= 0 {
			return nil, nil
		}
		return c, nil
	},
	clear: func(p *Policy) { p.Interval = 0 },
}

// timeDeps are what changes with time alone, between events: the wait,
// the clock, the tariff's period and price, the carbon intensity.
const timeDeps = DepWait | DepNow | DepPeak | DepPrice | DepCarbon

func (c *clockStage) wake(s *sim) float64 {
	if s.q.nwait == 0 {
		return math.Inf(1)
	}
	t := math.Inf(1)
	if c.price || c.carbon {
		t = c.change(s)
	}
	if iv := c.interval; iv > 0 {
		// The next tick of the scheduler's cycle strictly after now.
		t = min(t, s.firstT+(math.Floor((s.now-s.firstT)/iv)+1)*iv)
	}
	return t
}

// change is the next time a rule that reads the clock, the tariff or the
// carbon intensity may change its mind: the next price change, the next
// hour, or the next change of intensity.
func (c *clockStage) change(s *sim) float64 {
	w := math.Inf(1)
	if c.price {
		w = s.led.NextPrice()
	}
	if c.carbon {
		w = min(w, s.led.NextCarbon())
	}
	if c.hours {
		w = min(w, nextHour(s.clock, s.now))
	}
	for _, e := range c.edges {
		w = min(w, edgeAt(s.clock, s.now, s.firstT, e))
	}
	return w
}

// clockEdges are the clock edges of the rules the policy's passes read
// (those deps covers).
func (p *Policy) clockEdges() []ClockEdge {
	var out []ClockEdge
	p.eachPassRule(func(e *Expr) { out = append(out, e.Clock...) })
	return out
}
