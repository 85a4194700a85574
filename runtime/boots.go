package runtime

import (
	"slices"

	"github.com/pwrc/pwrc/runtime/machine"
)

// Node power cycles: the nodes switched on (machine.Counts.Boots, and per
// node on a table of identified nodes) inside the accounted span. Nodes
// switch on at instants the engine handles after advancing the clock to
// them, so the counts as the clock first reaches the window's start (and
// its end) are those of the instants before it: the window counts the
// boots at instants in [from, to).
type bootMarks struct {
	from, to         int      // the machine's boots before the window opened, and before it closed
	fromNode, toNode []uint32 // the same per node (identified nodes)
	opened, closed   bool
}

// mark takes the counts the window starts and ends with as run s's clock
// moves from now to t.
func (b *bootMarks) mark(s *sim, t float64) {
	if !b.opened && s.now < s.accFrom && t >= s.accFrom {
		b.opened, b.from, b.fromNode = true, s.cnt.Boots, nodeBoots(s.mach)
	}
	if !b.closed && s.now < s.accTo && t >= s.accTo {
		b.closed, b.to, b.toNode = true, s.cnt.Boots, nodeBoots(s.mach)
	}
}

// nodeBoots copies the boots per node of a machine (nil before any boot
// on a table, or for a counted machine that does not track them).
func nodeBoots(m machine.Nodes) []uint32 {
	switch m := m.(type) {
	case *machine.Table:
		return slices.Clone(m.Boots())
	case *machine.Counted:
		return slices.Clone(m.Boots())
	}
	return nil
}

// switchesOff reports whether a policy may switch nodes off: a shutdown,
// a capacity controller, or a powercap met by switching nodes off.
func switchesOff(p *Policy) bool {
	return p.Shutdown != nil || p.Active != nil || plansSwitchOff(p)
}

// bootMetrics sets the boots of a run whose nodes may switch off: in the
// accounted span, and per node and day (mean and the busiest node).
func (r *runRecord) bootMetrics(m *Metrics, span float64) {
	if !switchesOff(r.pol) {
		return
	}
	m.HasBoots = true
	b := r.boots
	total, perNode := b.total, b.perNode
	if r.windowed {
		from, to := b.marks.from, total
		fromNode, toNode := b.marks.fromNode, perNode
		if b.marks.closed {
			to, toNode = b.marks.to, b.marks.toNode
		}
		total, perNode = to-from, make([]uint32, len(toNode))
		for i := range toNode {
			perNode[i] = toNode[i]
			if i < len(fromNode) {
				perNode[i] -= fromNode[i]
			}
		}
	}
	m.Boots = total
	days := span / 86400
	if days <= 0 || r.nodes <= 0 {
		return
	}
	m.BootsPerNodeDay = float64(total) / float64(r.nodes) / days
	var most uint32
	for _, k := range perNode {
		most = max(most, k)
	}
	m.BootsPerNodeDayMax = float64(most) / days
}

// runBoots is what a finished run's metrics read of its boots.
type runBoots struct {
	total   int
	perNode []uint32
	marks   bootMarks
}
