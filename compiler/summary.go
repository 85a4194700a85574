package compiler

import "github.com/pwrc/pwrc/runtime"

// MachineSummary is what `pwrc plan` says of a machine with levels or
// pstates: its maximum power, what its levels draw and what switching one
// of them off saves, and the slowdown at each pstate. Powers are W.
type MachineSummary struct {
	// Nodes is the machine's size; 0 when it comes from the trace
	// (`nodes auto`), and then the machine totals below are 0 too.
	Nodes int
	// NodesFull is every node busy at the highest pstate (or at `busy`
	// without pstates); NodesIdle every node idle.
	NodesFull, NodesIdle float64
	Levels               []LevelSummary
	LevelsOn             float64 // every instance of every level on
	Infrastructure       float64
	// Full is P_full, the most the machine can draw: NodesFull + LevelsOn
	// + Infrastructure (Georgiou et al.'s 100 % with levels). Idle is
	// every node idle with the levels and infrastructure on.
	Full, Idle float64
	Stretch    []float64 // s(f) per pstate, highest first
}

// LevelSummary describes one level of a machine.
type LevelSummary struct {
	Name        string
	Size        int                      // nodes per instance
	Instances   int                      // 0 when the node count comes from the trace
	PerInstance float64                  // W an instance draws while on
	Components  []runtime.PowerComponent // W per instance, each
	Total       float64                  // Instances × PerInstance
	// Bonus is what switching off an instance whose nodes are already
	// off saves: its own power and that of the levels and off nodes under
	// it, which vanish with it (DESIGN §4.3; Curie's chassis: 248 + 18 ×
	// 14 = 500 W). Saving is what switching it off from full load saves
	// (18 × 358 + 248 = 6,692 W).
	Bonus, Saving float64
}

// Summarize computes a machine's summary from its plan.
func Summarize(m *runtime.Machine) MachineSummary {
	s := MachineSummary{Nodes: m.Nodes}
	top := m.Power.Busy
	if len(m.PStates) > 0 {
		top = m.PStates[0].Power
	}
	n := float64(m.Nodes)
	s.NodesFull, s.NodesIdle = n*top, n*m.Power.Idle
	s.Infrastructure = m.Infrastructure + n*m.InfrastructurePerNode
	bonus, saving, below := m.Power.Off, top, 1
	for _, l := range m.Levels {
		ls := LevelSummary{Name: l.Name, Size: l.Size, Components: l.Components}
		for _, c := range l.Components {
			ls.PerInstance += c.Power
		}
		if l.Size > 0 {
			ls.Instances = m.Nodes / l.Size
		}
		ls.Total = float64(ls.Instances) * ls.PerInstance
		k := float64(l.Size / max(1, below))
		ls.Bonus = ls.PerInstance + k*bonus
		ls.Saving = ls.PerInstance + k*saving
		bonus, saving, below = ls.Bonus, ls.Saving, l.Size
		s.LevelsOn += ls.Total
		s.Levels = append(s.Levels, ls)
	}
	s.Full = s.NodesFull + s.LevelsOn + s.Infrastructure
	s.Idle = s.NodesIdle + s.LevelsOn + s.Infrastructure
	for p := range m.PStates {
		s.Stretch = append(s.Stretch, m.Stretch(p))
	}
	return s
}
