package machine

import (
	"fmt"
	"math"

	"github.com/pwrc/pwrc/runtime/alloc"
)

// Table is a machine whose nodes have identities: every node has a state
// and a place in the levels (alloc.State), a job holds a list of nodes,
// and level instances go on and off with their nodes. Which free nodes a
// job gets is its Picker's choice (nil: the most recently idle first, as
// Counted does); with a boot time, idle nodes come before off ones, so a
// job boots nodes only when the idle ones do not suffice — the same number
// whatever the allocator, which keeps schedules independent of placement —
// and the off nodes it boots are in levels already on where it can.
//
// Shutdown switches off the nodes idle for long enough, oldest first;
// when `keep` leaves only some of them to switch off, the alloc.Sleeper
// chooses those whose levels then go entirely off.
type Table struct {
	c       Counts
	m       *Model
	st      *alloc.State
	pick    alloc.Picker
	sleeper alloc.Sleeper
	levels  bool
	low     int // nodes per lowest-level instance
	lowN    int // lowest-level instances

	held  [][]int32 // per job, while it holds nodes
	spare [][]int32 // buffers of ended jobs, for reuse

	// Idle nodes in the order they became idle (for shutdown, and for the
	// most-recent allocation), with lazy deletion: an entry is valid while
	// its generation matches its node's.
	track bool
	queue []idleEntry
	head  int
	gen   []uint32

	shutting []int32 // nodes shutting down, in the order they started
	shutHead int
	bootingQ []int32 // nodes booting without a job, in the order they started
	bootHead int
	buf      []int32

	// Powercap windows' switch-off reservations, by id (reserve.go): nodes
	// jobs that would run in a window may not take (Use.Avoid), switched
	// off while the window is open; unions of several, cached by mask.
	res     []*alloc.Bitset
	unions  map[uint64]*alloc.Bitset
	scratch []int32
	marks   [][]uint32 // per level and instance, for PowerDelta
	stamp   uint32

	boots []uint32 // per node, the times it was switched on (nil until the first)
}

type idleEntry struct {
	node  int32
	gen   uint32
	since float64
}

// NewTable returns a machine of n nodes in the model's levels, all idle
// since t0, for jobs indexed 0..jobs-1. pick chooses the nodes of starting
// jobs (nil: most recently idle first). track keeps the idle order that
// shutdown needs.
func NewTable(m *Model, n, jobs int, pick alloc.Picker, track bool, t0 float64) (*Table, error) {
	g := alloc.Geometry{Nodes: n}
	for _, l := range m.spec.Levels {
		g.Levels = append(g.Levels, alloc.Level{Name: l.Name, Size: l.Size})
	}
	key := -1
	if pick != nil {
		key = alloc.KeyLevel(pick)
	}
	st, err := alloc.NewState(g, key)
	if err != nil {
		return nil, err
	}
	t := &Table{m: m, st: st, pick: pick, levels: len(g.Levels) > 0, held: make([][]int32, jobs)}
	t.track = track || pick == nil
	t.c.BusyAt = make([]int, m.PStates())
	t.c.JobWAt = make([]float64, m.PStates())
	t.c.LevelsOn = make([]int, len(g.Levels))
	t.c.Idle = n
	if t.levels {
		t.low, t.lowN = g.Levels[0].Size, n/g.Levels[0].Size
	}
	if t.track {
		t.gen = make([]uint32, n)
		t.queue = make([]idleEntry, n)
		for i := range t.queue {
			t.queue[i] = idleEntry{node: int32(i), since: t0}
		}
	}
	t.refresh()
	return t, nil
}

// State is the node state, for tests and allocators' views.
func (t *Table) State() *alloc.State { return t.st }

// Counts implements Nodes.
func (t *Table) Counts() *Counts { return &t.c }

func (t *Table) refresh() {
	if !t.levels {
		return
	}
	for l := range t.c.LevelsOn {
		t.c.LevelsOn[l] = t.st.On(l)
	}
	t.c.OffDark = (t.lowN - t.c.LevelsOn[0]) * t.low
}

// Take implements Nodes.
func (t *Table) Take(j int32, u Use, estEnd float64, boot bool) int {
	ids := t.pickFor(t.buffer(), u, boot)
	if t.c.Off > 0 {
		off := t.st.OffSet()
		for _, i := range ids {
			if off.Has(int(i)) {
				t.booted(i)
			}
		}
	}
	fromOff := t.st.Take(ids, estEnd)
	if t.track {
		for _, i := range ids {
			t.gen[i]++
		}
	}
	t.held[j] = ids
	t.c.Idle -= u.N - fromOff
	t.c.Off -= fromOff
	defer t.refresh()
	if fromOff > 0 && boot {
		t.c.Booting += fromOff
		t.c.Reserved += u.N - fromOff
		return fromOff
	}
	t.c.run(&u, 1)
	return 0
}

// pickFor appends the nodes a job of u gets, without taking them: idle
// before off with a boot time, the reservation avoided if u says so.
func (t *Table) pickFor(ids []int32, u Use, boot bool) []int32 {
	avoid := t.Reserved(u.Avoid)
	idle := t.c.Idle
	if avoid != nil {
		t.st.Exclude(avoid)
		defer t.st.Exclude(nil)
		idle = t.st.IdleSet().Count() - t.st.IdleSet().AndCount(avoid)
	}
	switch {
	case t.pick == nil:
		k := min(u.N, idle)
		ids = t.recent(ids, k, avoid)
		ids = t.boot(ids, u.N-k)
	case boot:
		k := min(u.N, idle)
		ids = t.pick.PickIn(ids, t.st, alloc.PoolIdle, k)
		ids = t.boot(ids, u.N-k)
	default:
		ids = t.pick.Pick(ids, t.st, u.N)
	}
	if len(ids) != u.N {
		panic(fmt.Sprintf("machine: a job needs %d nodes, got %d", u.N, len(ids)))
	}
	return ids
}

// boot appends n off nodes to boot for a job: on a machine with levels,
// in the instances already on first, the fullest first (alloc.Sleeper's
// ToBoot), so that booting turns on as little level power as it can;
// else the lowest-numbered.
func (t *Table) boot(dst []int32, n int) []int32 {
	if n <= 0 {
		return dst
	}
	if t.levels {
		return t.sleeper.ToBoot(dst, t.st, n)
	}
	return alloc.FirstAvailable{}.PickIn(dst, t.st, alloc.PoolOff, n)
}

func (t *Table) buffer() []int32 {
	if n := len(t.spare); n > 0 {
		b := t.spare[n-1][:0]
		t.spare = t.spare[:n-1]
		return b
	}
	return nil
}

// recent appends the k most recently idle nodes (not those of avoid, if
// any), without taking them: entries of nodes a job takes go stale.
func (t *Table) recent(dst []int32, k int, avoid *alloc.Bitset) []int32 {
	for i := len(t.queue) - 1; k > 0 && i >= t.head; i-- {
		e := t.queue[i]
		if e.gen != t.gen[e.node] || avoid != nil && avoid.Has(int(e.node)) {
			continue
		}
		dst = append(dst, e.node)
		k--
	}
	return dst
}

// Booted implements Nodes.
func (t *Table) Booted(j int32, u Use, booting int) { t.c.booted(u, booting) }

// Release implements Nodes.
func (t *Table) Release(j int32, u Use, now float64) {
	ids := t.held[j]
	t.held[j] = nil
	t.st.Release(ids)
	t.idled(ids, now)
	t.spare = append(t.spare, ids)
	t.c.run(&u, -1)
	t.c.Idle += u.N
	t.refresh()
}

// compact drops stale entries once they outnumber the idle nodes, so the
// queue stays linear in the machine, not in the trace.
func (t *Table) compact() {
	if len(t.queue)-t.head <= 2*t.c.Idle+1024 {
		return
	}
	out := t.queue[:0]
	for _, e := range t.queue[t.head:] {
		if e.gen == t.gen[e.node] {
			out = append(out, e)
		}
	}
	t.queue, t.head = out, 0
}

// oldest drops stale entries at the front and returns the first valid.
func (t *Table) oldest() (idleEntry, bool) {
	for t.head < len(t.queue) {
		if e := t.queue[t.head]; e.gen == t.gen[e.node] {
			return e, true
		}
		t.head++
	}
	t.queue, t.head = t.queue[:0], 0
	return idleEntry{}, false
}

// ShutdownDue implements Nodes.
func (t *Table) ShutdownDue(after float64, keep int) float64 {
	if !t.track || t.c.Idle <= keep {
		return math.Inf(1)
	}
	e, ok := t.oldest()
	if !ok {
		return math.Inf(1)
	}
	return e.since + after
}

// SwitchOff implements Nodes.
func (t *Table) SwitchOff(now, after float64, keep int, transit bool) int {
	room := t.c.Idle - keep
	if !t.track || room <= 0 {
		return 0
	}
	cands := t.buf[:0]
	for i := t.head; i < len(t.queue); i++ {
		e := t.queue[i]
		if e.gen != t.gen[e.node] {
			continue
		}
		if e.since+after > now {
			break
		}
		cands = append(cands, e.node)
	}
	ids := cands
	if len(cands) > room {
		if t.levels {
			ids = t.sleeper.ToSwitchOff(cands[len(cands):], t.st, cands, room)
		} else {
			ids = cands[:room]
		}
	}
	t.buf = cands
	if len(ids) == 0 {
		return 0
	}
	for _, i := range ids {
		t.gen[i]++
	}
	if transit {
		t.st.SwitchingOff(ids)
		t.shutting = append(t.shutting, ids...)
		t.c.Shutting += len(ids)
	} else {
		t.st.SwitchedOff(ids)
		t.c.Off += len(ids)
	}
	t.c.Idle -= len(ids)
	t.oldest()
	t.refresh()
	return len(ids)
}

// ShutDone implements Nodes.
func (t *Table) ShutDone(n int) {
	ids := t.shutting[t.shutHead : t.shutHead+n]
	t.st.SwitchedOff(ids)
	if t.shutHead += n; t.shutHead == len(t.shutting) {
		t.shutting, t.shutHead = t.shutting[:0], 0
	}
	t.c.Shutting -= n
	t.c.Off += n
	t.refresh()
}

// booted counts a switch-on of each node of ids.
func (t *Table) booted(ids ...int32) {
	if t.boots == nil {
		t.boots = make([]uint32, t.st.Nodes())
	}
	for _, i := range ids {
		t.boots[i]++
	}
	t.c.Boots += len(ids)
}

// Boots is how many times each node was switched on, by node id (nil if
// none ever was). The slice is the table's own: copy it to keep it.
func (t *Table) Boots() []uint32 { return t.boots }

// Held implements Nodes.
func (t *Table) Held(dst []int32, j int32) []int32 { return append(dst, t.held[j]...) }
