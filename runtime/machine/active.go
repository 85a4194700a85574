package machine

// This file holds what a capacity controller (Lawson & Smirni's active
// processors, runtime/capacity.go) needs of a machine beyond the Nodes
// interface: powering off nodes on without a job (a raise of the active
// count), and resetting a counted machine for reuse by a look-ahead.

// PowerOn boots n off nodes without a job: with boot they boot until
// BootDone, else they are idle from now. The caller makes sure n nodes are
// off.
func (k *Counted) PowerOn(n int, boot bool, now float64) {
	if n <= 0 {
		return
	}
	k.c.Off -= n
	k.c.Boots += n
	if k.ids != nil {
		k.ids.powerOn(n, boot)
	}
	if boot {
		k.c.Booting += n
		return
	}
	k.idled(n, now)
}

// BootDone: n nodes that PowerOn booted are idle from now.
func (k *Counted) BootDone(n int, now float64) {
	if k.ids != nil {
		k.ids.bootDone(n)
	}
	k.c.Booting -= n
	k.idled(n, now)
}

func (k *Counted) idled(n int, now float64) {
	if m := len(k.idle); m > k.idleHead && k.idle[m-1].since == now {
		k.idle[m-1].n += n
	} else {
		k.idle = append(k.idle, idleBatch{since: now, n: n})
	}
	k.c.Idle += n
}

// Reset makes k a machine of n idle nodes since t0 again, keeping its
// buffers: a look-ahead reuses one counted machine for every simulation.
func (k *Counted) Reset(n int, t0 float64) {
	busyAt, jobWAt, levels := k.c.BusyAt, k.c.JobWAt, k.c.LevelsOn // (Boots restarts at 0)
	clear(busyAt)
	clear(jobWAt)
	clear(levels)
	k.c = Counts{BusyAt: busyAt, JobWAt: jobWAt, LevelsOn: levels, Idle: n}
	k.idle, k.idleHead = append(k.idle[:0], idleBatch{since: t0, n: n}), 0
}

// PowerOn boots n off nodes without a job, the first off ones by index:
// with boot they boot until BootDone, else they are idle from now.
func (t *Table) PowerOn(n int, boot bool, now float64) {
	if n <= 0 {
		return
	}
	ids := t.buf[:0]
	off := t.st.OffSet()
	for i := off.NextSet(0); i >= 0 && len(ids) < n; i = off.NextSet(i + 1) {
		ids = append(ids, int32(i))
	}
	t.buf = ids
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
}
