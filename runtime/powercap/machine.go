// Package powercap is the offline powercap planner of Georgiou, Glesser &
// Trystram, "Adaptive Resource and Job Management for Limited Power
// Consumption" (IPDPS Workshops 2015), Algorithm 1: when an administrator
// books a cap ("from T, for D, draw at most P watts"), decide how many nodes
// to switch off and how many to slow down, and which whole chassis/racks to
// switch off so that their own equipment goes off too (the "power bonus").
//
// The package is a pure kernel over plain values: [Machine] describes the
// machine as the planner needs it, [Machine.Plan] runs Algorithm 1 (as
// printed, or solved correctly, see [Planner]), [Machine.Group] turns a power
// to shed into whole level instances plus single nodes, and [Machine.Choose]
// picks which instances and nodes, preferring those free earliest. The online
// part (Algorithm 2, a frequency per job start) lives with the engine.
//
// All powers are watts, frequencies hertz. A plan's "full load" is the
// machine with every powered node running a job: Algorithm 1 plans for it so
// that the cap holds whatever starts during the window.
package powercap

import (
	"errors"
	"fmt"
	"math"
)

// PState is one DVFS operating point of a node.
type PState struct {
	Hz    float64 // core frequency
	Watts float64 // node power while running a job at this frequency
}

// Level is one level of the power hierarchy above the node (chassis, rack…).
// Instance k of a level holds nodes [k·Size, (k+1)·Size). A level instance
// draws Watts while any node under it is not off; once every node under it is
// off it is off too, and so is the off power of those nodes (on Curie the
// BMCs are fed by the chassis). Both together are the level's power bonus.
type Level struct {
	Name  string
	Size  int     // nodes per instance; a multiple of the level below's, dividing Machine.Nodes
	Watts float64 // the instance's own power
}

// Machine is the machine as the planner sees it.
type Machine struct {
	Nodes   int
	Off     float64  // node power when switched off (BMC kept on)
	Idle    float64  // node power when on and not running a job
	PStates []PState // highest frequency first; the first is nominal (P_max)
	// Deg is the slowdown (runtime factor) at the lowest pstate, deg_min; the
	// slowdown is linear in frequency between 1 at the top pstate and Deg,
	// which is how the paper gets MIX's 1.29 at 2.0 GHz from 1.63 at 1.2 GHz.
	Deg    float64
	Levels []Level // lowest first
}

// Validate reports the first inconsistency that would make the planner's
// arithmetic meaningless (a division by zero or a negative saving), so that
// callers get an error instead of a nonsense plan.
func (m *Machine) Validate() error {
	if m.Nodes < 1 {
		return fmt.Errorf("powercap: %d nodes, need at least 1", m.Nodes)
	}
	if !finite(m.Off) || m.Off < 0 || !finite(m.Idle) || m.Idle < 0 {
		return fmt.Errorf("powercap: off %g W and idle %g W must be finite and non-negative", m.Off, m.Idle)
	}
	if len(m.PStates) == 0 {
		return errors.New("powercap: no pstate")
	}
	for i, p := range m.PStates {
		if !finite(p.Hz) || p.Hz <= 0 || !finite(p.Watts) {
			return fmt.Errorf("powercap: pstate %d (%g Hz, %g W) not finite and positive", i, p.Hz, p.Watts)
		}
		if i > 0 && (p.Hz >= m.PStates[i-1].Hz || p.Watts >= m.PStates[i-1].Watts) {
			return fmt.Errorf("powercap: pstate %d (%g Hz, %g W) not strictly below pstate %d in frequency and power", i, p.Hz, p.Watts, i-1)
		}
	}
	if low := m.PStates[len(m.PStates)-1].Watts; low <= m.Off {
		return fmt.Errorf("powercap: lowest pstate %g W not above off %g W: switching off would save nothing", low, m.Off)
	}
	if !finite(m.Deg) || m.Deg < 1 {
		return fmt.Errorf("powercap: slowdown %g at the lowest pstate, need ≥ 1", m.Deg)
	}
	below := 1
	for i, l := range m.Levels {
		switch {
		case l.Size <= below || l.Size%below != 0:
			return fmt.Errorf("powercap: level %q size %d is not a multiple (> 1×) of the level below's %d", l.Name, l.Size, below)
		case m.Nodes%l.Size != 0:
			return fmt.Errorf("powercap: level %q size %d does not divide %d nodes (remainder %d)", l.Name, l.Size, m.Nodes, m.Nodes%l.Size)
		case !finite(l.Watts) || l.Watts < 0:
			return fmt.Errorf("powercap: level %d (%q) power %g W not finite and non-negative", i, l.Name, l.Watts)
		}
		below = l.Size
	}
	return nil
}

// Max is P_max, the node power at the top pstate.
func (m *Machine) Max() float64 { return m.PStates[0].Watts }

// Slowdown is s(f) at pstate i: 1 + (Deg−1)(f₀−fᵢ)/(f₀−f_min).
func (m *Machine) Slowdown(i int) float64 {
	last := len(m.PStates) - 1
	if last == 0 || i == 0 {
		return 1
	}
	f0, fmin := m.PStates[0].Hz, m.PStates[last].Hz
	return 1 + (m.Deg-1)*(f0-m.PStates[i].Hz)/(f0-fmin)
}

// Instances is the number of instances of level l.
func (m *Machine) Instances(l int) int { return m.Nodes / m.Levels[l].Size }

// LevelPower is the power of every level instance, all on.
func (m *Machine) LevelPower() float64 {
	p := 0.0
	for l, lv := range m.Levels {
		p += float64(m.Instances(l)) * lv.Watts
	}
	return p
}

// FullPower is the machine's maximum power: every node at the top pstate and
// every level on (P_full, the 100 % of a relative cap).
func (m *Machine) FullPower() float64 { return float64(m.Nodes)*m.Max() + m.LevelPower() }

// IdlePower is the power of the machine with every node idle and every level on.
func (m *Machine) IdlePower() float64 { return float64(m.Nodes)*m.Idle + m.LevelPower() }

// Bonus is what switching off a whole instance of level l saves beyond its
// nodes' own savings: its power, the bonuses of the instances below it, and
// (at the lowest level) the off power of its nodes.
func (m *Machine) Bonus(l int) float64 {
	b := float64(m.Levels[0].Size) * m.Off
	for i := 0; i <= l; i++ {
		if i > 0 {
			b *= float64(m.Levels[i].Size / m.Levels[i-1].Size)
		}
		b += m.Levels[i].Watts
	}
	return b
}

// GroupSaving is what switching off a whole instance of level l saves when
// each of its nodes would otherwise draw nodeSaving more than when off.
func (m *Machine) GroupSaving(l int, nodeSaving float64) float64 {
	return float64(m.Levels[l].Size)*nodeSaving + m.Bonus(l)
}

// FullLoad is the machine's power with g switched off, every other node
// busy, dvfs of them (at most all) at pstate lowest and the rest at the top
// pstate. It assumes g's instances are disjoint and its single nodes do not
// complete an instance, as [Machine.Group] and [Machine.Choose] guarantee.
func (m *Machine) FullLoad(g Groups, dvfs, lowest int) float64 {
	on := m.Nodes - m.NodesOff(g)
	dvfs = max(0, min(dvfs, on))
	p := float64(on-dvfs)*m.Max() + float64(dvfs)*m.PStates[lowest].Watts + float64(g.Singles)*m.Off
	for l, lv := range m.Levels {
		off := 0
		for h := l; h < len(m.Levels); h++ {
			off += g.count(h) * (m.Levels[h].Size / lv.Size)
		}
		p += float64(m.Instances(l)-off) * lv.Watts
	}
	return p
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
