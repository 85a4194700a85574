package machine

import "math"

// Counted is a machine whose nodes are counted, not identified: the fast
// path when nothing needs to know which nodes a job holds (no levels, no
// allocator, no node lists). Idle nodes are kept in batches by the time
// they became idle: jobs take the most recently idle nodes first, so the
// nodes idle longest are the ones shutdown switches off (Table with the
// most_recent allocation does the same with identities).
type Counted struct {
	c        Counts
	m        *Model
	idle     []idleBatch // stack: most recently idle last; jobs pop from the end
	idleHead int         // the oldest batch still in idle (shutdown pops from the front)
	ids      *nodeIDs    // the nodes' identities, for their boots (TrackBoots); nil: none
}

type idleBatch struct {
	since float64
	n     int
}

// NewCounted returns a machine of n nodes, all idle since t0.
func NewCounted(m *Model, n int, t0 float64) *Counted {
	k := &Counted{m: m}
	k.c.BusyAt = make([]int, m.PStates())
	k.c.JobWAt = make([]float64, m.PStates())
	k.c.LevelsOn = make([]int, len(m.spec.Levels))
	k.idle = append(k.idle, idleBatch{since: t0, n: n})
	k.c.Idle = n
	return k
}

// Counts implements Nodes.
func (k *Counted) Counts() *Counts { return &k.c }

// Take implements Nodes.
func (k *Counted) Take(j int32, u Use, estEnd float64, boot bool) int {
	fromIdle := k.takeIdle(u.N)
	fromOff := u.N - fromIdle
	k.c.Off -= fromOff
	k.c.Boots += fromOff
	if k.ids != nil {
		k.ids.take(j, fromIdle, fromOff)
	}
	if fromOff > 0 && boot {
		k.c.Booting += fromOff
		k.c.Reserved += fromIdle
		return fromOff
	}
	k.c.run(&u, 1)
	return 0
}

// run adds (sign 1) or removes (−1) a running job's nodes and power.
// Per pstate only where there are several.
func (c *Counts) run(u *Use, sign int) {
	c.Busy += sign * u.N
	c.Work += sign * u.Work
	if sign > 0 {
		c.JobW += u.W
	} else {
		c.JobW -= u.W
	}
	if len(c.BusyAt) > 1 {
		c.BusyAt[u.PState] += sign * u.N
		if sign > 0 {
			c.JobWAt[u.PState] += u.W
		} else {
			c.JobWAt[u.PState] -= u.W
		}
	}
}

// booted moves a job's nodes from booting (and reserved) to running.
func (c *Counts) booted(u Use, booting int) {
	c.Booting -= booting
	c.Reserved -= u.N - booting
	c.run(&u, 1)
}

// Booted implements Nodes.
func (k *Counted) Booted(j int32, u Use, booting int) { k.c.booted(u, booting) }

// Release implements Nodes.
func (k *Counted) Release(j int32, u Use, now float64) {
	k.c.run(&u, -1)
	if k.ids != nil {
		k.ids.release(j)
	}
	if n := len(k.idle); n > k.idleHead && k.idle[n-1].since == now {
		k.idle[n-1].n += u.N
	} else {
		k.idle = append(k.idle, idleBatch{since: now, n: u.N})
	}
	k.c.Idle += u.N
}

// takeIdle removes up to n idle nodes, most recently idle first.
func (k *Counted) takeIdle(n int) int {
	took := 0
	for took < n && len(k.idle) > k.idleHead {
		top := &k.idle[len(k.idle)-1]
		m := min(top.n, n-took)
		top.n -= m
		took += m
		if top.n == 0 {
			k.idle = k.idle[:len(k.idle)-1]
		}
	}
	k.c.Idle -= took
	if len(k.idle) == k.idleHead { // reuse the backing array
		k.idle, k.idleHead = k.idle[:0], 0
	}
	return took
}

// ShutdownDue implements Nodes.
func (k *Counted) ShutdownDue(after float64, keep int) float64 {
	if len(k.idle) == k.idleHead || k.c.Idle <= keep {
		return math.Inf(1)
	}
	return k.idle[k.idleHead].since + after
}

// SwitchOff implements Nodes: the oldest batches first.
func (k *Counted) SwitchOff(now, after float64, keep int, transit bool) int {
	took := 0
	for len(k.idle) > k.idleHead && k.idle[k.idleHead].since+after <= now && k.c.Idle-took > keep {
		b := &k.idle[k.idleHead]
		m := min(b.n, k.c.Idle-took-keep)
		took += m
		if b.n -= m; b.n == 0 {
			k.idleHead++
		}
	}
	k.c.Idle -= took
	if k.ids != nil {
		k.ids.switchOff(took, transit)
	}
	if transit {
		k.c.Shutting += took
	} else {
		k.c.Off += took
	}
	if len(k.idle) == k.idleHead {
		k.idle, k.idleHead = k.idle[:0], 0
	}
	return took
}

// ShutDone implements Nodes.
func (k *Counted) ShutDone(n int) {
	if k.ids != nil {
		k.ids.shutDone(n)
	}
	k.c.Shutting -= n
	k.c.Off += n
}

// Held implements Nodes: counted nodes have no identities.
func (k *Counted) Held(dst []int32, j int32) []int32 { return dst }
