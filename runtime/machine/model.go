// Package machine is one run's machine: how many nodes are off, booting,
// idle, busy or shutting down, at which pstate, and which level instances
// (chassis, racks) are on; and the power formula over those counts. Every
// change of node state goes through a Nodes (Counted, or Table when nodes
// have identities), which keeps the Counts up to date in O(1) per change
// (O(levels) per node with identities); the ledger integrates the power
// the Model computes from them, so nothing ever scans the nodes to
// account for energy.
package machine

// Spec is what the model needs of a machine, in SI units.
type Spec struct {
	Nodes int
	Power NodePower
	// PStates is the busy power per pstate, highest frequency first; empty
	// means one pstate drawing Power.Busy.
	PStates        []float64
	Levels         []Level // lowest first
	Infrastructure float64 // W, always drawn
}

// NodePower is a node's draw in each state, W.
type NodePower struct {
	Off, Idle, Busy, Boot, Shutdown float64
}

// Level is a kind of grouping of nodes: instance k holds nodes
// [k·Size, (k+1)·Size) and draws its components' power while any of them
// is not off (DESIGN §4.3).
type Level struct {
	Name       string
	Size       int
	Components []Component
}

// Component is a named part of a level's power per instance; Name is ""
// for a plain `power P`.
type Component struct {
	Name  string
	Power float64
}

// Components of the power vector, before the levels'.
const (
	Busy     = iota // nodes running jobs (the jobs' own power)
	Idle            // idle nodes, including those held for a job that waits for a boot
	Off             // switched-off nodes whose lowest level instance is on
	Boot            // nodes booting
	Shutdown        // nodes shutting down
	levelBase
)

// Model is the power formula: W per component from the Counts.
type Model struct {
	spec  Spec
	names []string
	lcomp []levelComp // one per level component, in the vector's order
	infra float64
}

type levelComp struct {
	level int
	power float64
}

// NewModel returns the model of a machine.
func NewModel(s Spec) *Model {
	m := &Model{spec: s, infra: s.Infrastructure}
	m.names = []string{"busy", "idle", "off", "boot", "shutdown"}
	for l, lv := range s.Levels {
		for _, c := range lv.Components {
			name := lv.Name
			if c.Name != "" {
				name += "_" + c.Name
			}
			m.names = append(m.names, name)
			m.lcomp = append(m.lcomp, levelComp{level: l, power: c.Power})
		}
	}
	m.names = append(m.names, "infrastructure")
	return m
}

// Components names the power vector's entries (snake_case, for reports):
// busy, idle, off, boot, shutdown, one per level component (the level's
// name, or level_component), infrastructure.
func (m *Model) Components() []string { return m.names }

// Infrastructure is the index of the infrastructure component.
func (m *Model) Infrastructure() int { return len(m.names) - 1 }

// LevelComponents is the index range [from, to) of the levels' components.
func (m *Model) LevelComponents() (from, to int) { return levelBase, levelBase + len(m.lcomp) }

// Spec is the machine the model was built from.
func (m *Model) Spec() *Spec { return &m.spec }

// Power writes the power of each component into out (len(Components()))
// and returns the total, summed in component order.
func (m *Model) Power(c *Counts, out []float64) float64 {
	p := &m.spec.Power
	out = out[:len(m.names)]
	out[Busy] = c.JobW
	out[Idle] = float64(c.Idle+c.Reserved) * p.Idle
	out[Off] = float64(c.Off-c.OffDark) * p.Off
	out[Boot] = float64(c.Booting) * p.Boot
	out[Shutdown] = float64(c.Shutting) * p.Shutdown
	for i, lc := range m.lcomp {
		out[levelBase+i] = float64(c.LevelsOn[lc.level]) * lc.power
	}
	out[len(out)-1] = m.infra
	var total float64
	for _, w := range out {
		total += w
	}
	return total
}

// PStates is the number of pstates (1 without a list).
func (m *Model) PStates() int { return max(1, len(m.spec.PStates)) }

// BusyPower is what a busy node draws at pstate p.
func (m *Model) BusyPower(p int) float64 {
	if len(m.spec.PStates) == 0 {
		return m.spec.Power.Busy
	}
	return m.spec.PStates[p]
}

// LevelPower is what one instance of level l draws while on.
func (m *Model) LevelPower(l int) float64 {
	var w float64
	for _, c := range m.spec.Levels[l].Components {
		w += c.Power
	}
	return w
}

// Instances is the number of instances of level l.
func (m *Model) Instances(l int) int { return m.spec.Nodes / m.spec.Levels[l].Size }

// AllLevelsOn is the power of every level instance on: the counterfactual
// that level savings are measured against.
func (m *Model) AllLevelsOn() float64 {
	var w float64
	for l := range m.spec.Levels {
		w += float64(m.Instances(l)) * m.LevelPower(l)
	}
	return w
}

// Full is P_full: every node busy at the highest pstate, every level on,
// and the infrastructure (Georgiou et al.'s 100 %).
func (m *Model) Full() float64 {
	return float64(m.spec.Nodes)*m.BusyPower(0) + m.AllLevelsOn() + m.infra
}

// Bonus is what switching off an instance of level l saves once every node
// under it is off: its own power, and that of the levels and the off
// nodes under it, which vanish with it (Curie's chassis: 248 + 18 × 14 =
// 500 W).
func (m *Model) Bonus(l int) float64 { return m.groupSaving(l, m.spec.Power.Off) }

// Saving is what switching off an instance of level l from full load (every
// node busy at the highest pstate) saves: Curie's chassis 6,692 W, rack
// 34,360 W.
func (m *Model) Saving(l int) float64 { return m.groupSaving(l, m.BusyPower(0)) }

func (m *Model) groupSaving(l int, node float64) float64 {
	w, below := node, 1
	for k := 0; k <= l; k++ {
		lv := m.spec.Levels[k]
		w = m.LevelPower(k) + float64(lv.Size/below)*w
		below = lv.Size
	}
	return w
}
