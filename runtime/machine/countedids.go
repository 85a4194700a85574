package machine

import "github.com/pwrc/pwrc/runtime/alloc"

// nodeIDs gives a counted machine's nodes the identities a Table of the
// same machine (no levels, the most recently idle nodes first) gives
// them, for one purpose: counting each node's boots. Idle nodes are kept
// in the order they became idle (jobs take the newest, shutdown the
// oldest), off nodes boot lowest id first, and nodes shutting down or
// booting without a job finish in the order they started, as on a Table
// (TestCountedEqualsIdentified holds the two to the same boots per node).
type nodeIDs struct {
	idle     []int32 // in the order they became idle, from head
	head     int
	off      alloc.Bitset
	shutting []int32 // in the order they started, from shutHead
	shutHead int
	booting  []int32 // booting without a job (PowerOn), from bootHead
	bootHead int
	held     map[int32][]int32 // per running (or booting) job
	spare    [][]int32
	boots    []uint32
}

// TrackBoots gives the machine's nodes identities for their boots per
// node (Boots). Call it before anything else.
func (k *Counted) TrackBoots() {
	n := k.c.Idle
	ids := &nodeIDs{idle: make([]int32, n), held: map[int32][]int32{}, boots: make([]uint32, n)}
	for i := range ids.idle {
		ids.idle[i] = int32(i)
	}
	ids.off.Reset(n)
	k.ids = ids
}

// Boots is how many times each node was switched on, by the identities
// TrackBoots gives them (nil without).
func (k *Counted) Boots() []uint32 {
	if k.ids == nil {
		return nil
	}
	return k.ids.boots
}

// take gives job j its nodes: fromIdle of the most recently idle, then
// fromOff off nodes, lowest first, switched on.
func (d *nodeIDs) take(j int32, fromIdle, fromOff int) {
	var h []int32
	if n := len(d.spare); n > 0 {
		h, d.spare = d.spare[n-1][:0], d.spare[:n-1]
	}
	for range fromIdle {
		h = append(h, d.idle[len(d.idle)-1])
		d.idle = d.idle[:len(d.idle)-1]
	}
	h = d.switchOn(h, fromOff)
	d.held[j] = h
	if len(d.idle) == d.head {
		d.idle, d.head = d.idle[:0], 0
	}
}

// switchOn appends the n lowest off nodes to dst, counting their boots.
func (d *nodeIDs) switchOn(dst []int32, n int) []int32 {
	for i := d.off.NextSet(0); n > 0 && i >= 0; i = d.off.NextSet(i + 1) {
		d.off.Clear(i)
		d.boots[i]++
		dst = append(dst, int32(i))
		n--
	}
	return dst
}

// release makes job j's nodes idle, in the order it holds them.
func (d *nodeIDs) release(j int32) {
	h := d.held[j]
	delete(d.held, j)
	d.idle = append(d.idle, h...)
	d.spare = append(d.spare, h)
}

// switchOff switches off (or, with transit, starts shutting down) the n
// nodes idle longest.
func (d *nodeIDs) switchOff(n int, transit bool) {
	for _, i := range d.idle[d.head : d.head+n] {
		if transit {
			d.shutting = append(d.shutting, i)
		} else {
			d.off.Set(int(i))
		}
	}
	d.head += n
	if d.head == len(d.idle) {
		d.idle, d.head = d.idle[:0], 0
	} else if d.head > 1024 && d.head > len(d.idle)/2 {
		d.idle, d.head = append(d.idle[:0], d.idle[d.head:]...), 0
	}
}

// shutDone: the n nodes that started shutting down first are off.
func (d *nodeIDs) shutDone(n int) {
	for _, i := range d.shutting[d.shutHead : d.shutHead+n] {
		d.off.Set(int(i))
	}
	if d.shutHead += n; d.shutHead == len(d.shutting) {
		d.shutting, d.shutHead = d.shutting[:0], 0
	}
}

// powerOn switches on n off nodes without a job: booting until bootDone,
// or idle at once.
func (d *nodeIDs) powerOn(n int, boot bool) {
	if boot {
		d.booting = d.switchOn(d.booting, n)
		return
	}
	d.idle = d.switchOn(d.idle, n)
}

// bootDone: the n nodes that started booting first (powerOn) are idle.
func (d *nodeIDs) bootDone(n int) {
	d.idle = append(d.idle, d.booting[d.bootHead:d.bootHead+n]...)
	if d.bootHead += n; d.bootHead == len(d.booting) {
		d.booting, d.bootHead = d.booting[:0], 0
	}
}
