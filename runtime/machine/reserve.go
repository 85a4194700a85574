package machine

import "github.com/pwrc/pwrc/runtime/alloc"

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

// Reserve sets the switch-off reservation: jobs whose Use says Avoid do
// not take these nodes until Unreserve.
func (t *Table) Reserve(ids []int32) {
	t.reserved = alloc.NewBitset(t.st.Nodes())
	for _, i := range ids {
		t.reserved.Set(int(i))
	}
}

// Unreserve ends the reservation.
func (t *Table) Unreserve() { t.reserved = nil }

// Reserved is the reservation (nil if none); it must not be modified.
func (t *Table) Reserved() *alloc.Bitset { return t.reserved }

// Available is the number of nodes a job may take now: all free nodes, or
// with avoid those outside the reservation.
func (t *Table) Available(avoid bool) int {
	free := t.c.Free()
	if avoid && t.reserved != nil {
		free -= t.st.Free().AndCount(t.reserved)
	}
	return free
}

// SwitchOffReserved switches off the reserved nodes that are idle (with
// transit they shut down until ShutDone) and returns how many.
func (t *Table) SwitchOffReserved(transit bool) int {
	if t.reserved == nil {
		return 0
	}
	ids := t.buf[:0]
	idle := t.st.IdleSet()
	for i := t.reserved.NextSet(0); i >= 0; i = t.reserved.NextSet(i + 1) {
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

// BootReserved boots the reserved nodes that are off and returns how
// many: with boot they boot until BootDone, else they are idle at now.
func (t *Table) BootReserved(boot bool, now float64) int {
	if t.reserved == nil {
		return 0
	}
	ids := t.buf[:0]
	off := t.st.OffSet()
	for i := t.reserved.NextSet(0); i >= 0; i = t.reserved.NextSet(i + 1) {
		if off.Has(i) {
			ids = append(ids, int32(i))
		}
	}
	t.buf = ids
	if len(ids) == 0 {
		return 0
	}
	t.c.Off -= len(ids)
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
