package machine

import (
	"fmt"
	"math/bits"

	"github.com/pwrc/pwrc/runtime/alloc"
)

// This file holds what a powercap needs of identified nodes: the power a
// job would add, and a switch-off reservation (Georgiou et al.'s Alg. 1
// reserves whole chassis and racks at its notice, switches them off for
// its window and boots them after).

// PowerDelta implements Nodes: counted nodes come idle first, then off.
func (k *Counted) PowerDelta(u Use, boot bool) float64 {
	return powerDelta(k.c.Idle, u, k.m)
}

func powerDelta(idle int, u Use, m *Model) float64 {
	fromIdle := min(u.N, idle)
	p := &m.spec.Power
	return u.W - float64(fromIdle)*p.Idle - float64(u.N-fromIdle)*p.Off
}

// PowerDelta implements Nodes, on the nodes the job's allocator picks.
func (t *Table) PowerDelta(u Use, boot bool) float64 {
	ids := t.pickFor(t.scratch[:0], u, boot)
	t.scratch = ids
	p := &t.m.spec.Power
	d := u.W
	for _, i := range ids {
		switch t.st.Node(i) {
		case alloc.Idle:
			d -= p.Idle
		case alloc.Off:
			if !t.levels || t.st.NotOffIn(0, int(i)/t.low) > 0 {
				d -= p.Off // lit: its instance is on
			}
		}
	}
	if !t.levels {
		return d
	}
	// Instances the job switches on: their own power and, at the lowest
	// level, the off power of the nodes it does not take, which comes back
	// with the instance.
	t.stamp++
	if t.stamp == 0 {
		for l := range t.marks {
			clear(t.marks[l])
		}
		t.stamp = 1
	}
	for l := range t.c.LevelsOn {
		size := t.m.spec.Levels[l].Size
		if len(t.marks) <= l {
			t.marks = append(t.marks, make([]uint32, t.st.Nodes()/size))
		}
		mark := t.marks[l]
		for _, i := range ids {
			r := int(i) / size
			if t.st.NotOffIn(l, r) > 0 {
				continue
			}
			if mark[r] != t.stamp {
				mark[r] = t.stamp
				d += t.m.LevelPower(l)
				if l == 0 {
					d += float64(size) * p.Off
				}
			}
			if l == 0 {
				d -= p.Off // it runs the job instead
			}
		}
	}
	return d
}

// Reservations. Each powercap window that switches nodes off holds its
// own reservation, by id (0..63, the window's place among the run's):
// windows may overlap in time and in nodes. A job that would run in some
// windows avoids the union of their reservations (Use.Avoid, a mask of
// ids); a window's nodes go off at its start and boot at its end unless
// another window that is open then reserves them too.

// Reserve sets reservation k to the nodes ids: jobs whose Use.Avoid has
// bit k do not take them until Unreserve(k).
func (t *Table) Reserve(k int, ids []int32) {
	if k < 0 || k >= 64 {
		panic(fmt.Sprintf("machine: reservation %d out of range [0, 64)", k))
	}
	for len(t.res) <= k {
		t.res = append(t.res, nil)
	}
	b := alloc.NewBitset(t.st.Nodes())
	for _, i := range ids {
		b.Set(int(i))
	}
	t.res[k] = b
	clear(t.unions)
}

// Unreserve ends reservation k.
func (t *Table) Unreserve(k int) {
	if k < len(t.res) && t.res[k] != nil {
		t.res[k] = nil
		clear(t.unions)
	}
}

// live is the part of mask whose reservations are held.
func (t *Table) live(mask uint64) uint64 {
	var m uint64
	for k, b := range t.res {
		if b != nil && mask&(1<<k) != 0 {
			m |= 1 << k
		}
	}
	return m
}

// Reserved is the union of the reservations in mask (nil if none holds);
// it must not be modified.
func (t *Table) Reserved(mask uint64) *alloc.Bitset {
	if mask == 0 || len(t.res) == 0 {
		return nil
	}
	mask = t.live(mask)
	switch {
	case mask == 0:
		return nil
	case mask&(mask-1) == 0:
		return t.res[bits.TrailingZeros64(mask)]
	}
	if b, ok := t.unions[mask]; ok {
		return b
	}
	b := alloc.NewBitset(t.st.Nodes())
	for k, r := range t.res {
		if mask&(1<<k) != 0 {
			b.Or(r)
		}
	}
	if t.unions == nil {
		t.unions = make(map[uint64]*alloc.Bitset)
	}
	t.unions[mask] = b
	return b
}

// Available is the number of nodes a job may take now: all free nodes
// less those of the reservations in avoid.
func (t *Table) Available(avoid uint64) int {
	free := t.c.Free()
	if r := t.Reserved(avoid); r != nil {
		free -= t.st.Free().AndCount(r)
	}
	return free
}

// SwitchOffReserved switches off the nodes of reservation k that are idle
// (with transit they shut down until ShutDone) and returns how many.
func (t *Table) SwitchOffReserved(k int, transit bool) int {
	r := t.Reserved(1 << k)
	if r == nil {
		return 0
	}
	ids := t.buf[:0]
	idle := t.st.IdleSet()
	for i := r.NextSet(0); i >= 0; i = r.NextSet(i + 1) {
		if idle.Has(i) {
			ids = append(ids, int32(i))
		}
	}
	t.buf = ids
	if len(ids) == 0 {
		return 0
	}
	if t.track {
		for _, i := range ids {
			t.gen[i]++
		}
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
	t.refresh()
	return len(ids)
}

// BootReserved boots the nodes of reservation k that are off, except
// those the reservations in keep hold too (windows still open), and
// returns how many: with boot they boot until BootDone, else they are
// idle at now.
func (t *Table) BootReserved(k int, keep uint64, boot bool, now float64) int {
	r := t.Reserved(1 << k)
	if r == nil {
		return 0
	}
	other := t.Reserved(keep &^ (1 << k))
	ids := t.buf[:0]
	off := t.st.OffSet()
	for i := r.NextSet(0); i >= 0; i = r.NextSet(i + 1) {
		if off.Has(i) && (other == nil || !other.Has(i)) {
			ids = append(ids, int32(i))
		}
	}
	t.buf = ids
	if len(ids) == 0 {
		return 0
	}
	t.c.Off -= len(ids)
	t.booted(ids...)
	if boot {
		t.st.Booting(ids)
		t.bootingQ = append(t.bootingQ, ids...)
		t.c.Booting += len(ids)
	} else {
		t.st.Booted(ids)
		t.idled(ids, now)
		t.c.Idle += len(ids)
	}
	t.refresh()
	return len(ids)
}

// BootDone: the n nodes that started booting first (BootReserved) are
// idle since now.
func (t *Table) BootDone(n int, now float64) {
	ids := t.bootingQ[t.bootHead : t.bootHead+n]
	t.st.Booted(ids)
	t.idled(ids, now)
	if t.bootHead += n; t.bootHead == len(t.bootingQ) {
		t.bootingQ, t.bootHead = t.bootingQ[:0], 0
	}
	t.c.Booting -= n
	t.c.Idle += n
	t.refresh()
}

// idled records nodes idle since now, for shutdown and most-recent picks.
func (t *Table) idled(ids []int32, now float64) {
	if !t.track {
		return
	}
	for _, i := range ids {
		t.gen[i]++
		t.queue = append(t.queue, idleEntry{node: i, gen: t.gen[i], since: now})
	}
	t.compact()
}

// HolderOf writes, for each node, the job holding it or −1.
func (t *Table) HolderOf(dst []int32) []int32 {
	dst = dst[:0]
	for range t.st.Nodes() {
		dst = append(dst, -1)
	}
	for j, ids := range t.held {
		for _, i := range ids {
			dst[i] = int32(j)
		}
	}
	return dst
}
