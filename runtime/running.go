package runtime

import "math"

// runList holds the running jobs (and batches of nodes booting or shutting
// down) in order of estimated end, equal estimates in the order they came:
// EASY's shadow time is the estimated end at which enough of them have
// ended.
//
// It is a sorted array with room at both ends: an entry comes in or goes
// out by moving the entries on its shorter side (jobs that end at their
// estimate leave from the front, jobs that start mostly come in near the
// back), and the entries move back to the middle when a side is full. A prefix of it and its node count are kept through every change,
// so that a waiting head's reservation, which moves little from one pass
// to the next, is found by walking from where the last one was.
type runList struct {
	buf    []running
	lo, hi int // the entries are buf[lo:hi]
	// The prefix: its first k entries hold nodes nodes.
	k, nodes int
}

// items is the list, in order (valid until the next change).
func (l *runList) items() []running { return l.buf[l.lo:l.hi] }

func (l *runList) len() int { return l.hi - l.lo }

// clear empties the list.
func (l *runList) clear() { l.lo, l.hi, l.k, l.nodes = len(l.buf)/2, len(l.buf)/2, 0, 0 }

// insert adds r after every entry whose estimate is at most its own.
func (l *runList) insert(r running) {
	it := l.items()
	lo, hi := 0, len(it)
	for lo < hi { // (a plain loop: BinarySearchFunc's comparator is a call)
		m := int(uint(lo+hi) >> 1)
		if it[m].est <= r.est {
			lo = m + 1
		} else {
			hi = m
		}
	}
	l.insertAt(lo, r)
}

// push adds r at the end, where its estimate must go (no entry's is later).
func (l *runList) push(r running) { l.insertAt(l.len(), r) }

func (l *runList) insertAt(p int, r running) {
	n := l.len()
	front := 2*p < n // (the shorter side moves)
	if front && l.lo == 0 || !front && l.hi == len(l.buf) {
		l.recenter()
	}
	if front {
		copy(l.buf[l.lo-1:], l.buf[l.lo:l.lo+p])
		l.lo--
	} else {
		copy(l.buf[l.lo+p+1:l.hi+1], l.buf[l.lo+p:l.hi])
		l.hi++
	}
	l.buf[l.lo+p] = r
	if p < l.k {
		l.k++
		l.nodes += int(r.nodes)
	}
}

// recenter moves the entries to the middle of the array, which it first
// makes at least twice as long as they need (so that as many changes as
// there are entries come before the next).
func (l *runList) recenter() {
	n := l.len()
	buf := l.buf
	if len(buf) < 2*n+16 {
		buf = make([]running, 4*n+16)
	}
	lo := (len(buf) - n) / 2
	copy(buf[lo:], l.buf[l.lo:l.hi])
	l.buf, l.lo, l.hi = buf, lo, lo+n
}

// remove takes out the entry of id with estimate est, reporting whether it
// was there.
func (l *runList) remove(est float64, id int32) bool {
	it := l.items()
	lo, hi := 0, len(it)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if it[m].est < est {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(it); i++ {
		if it[i].id == id {
			l.deleteAt(i)
			return true
		}
	}
	return false
}

// deleteAt takes out the entry at p.
func (l *runList) deleteAt(p int) {
	if p < l.k {
		l.k--
		l.nodes -= int(l.buf[l.lo+p].nodes)
	}
	if 2*p < l.len() {
		copy(l.buf[l.lo+1:l.lo+p+1], l.buf[l.lo:l.lo+p])
		l.lo++
	} else {
		copy(l.buf[l.lo+p:], l.buf[l.lo+p+1:l.hi])
		l.hi--
	}
}

// reserve is the reservation of a head of need nodes with free nodes free,
// need > free: the shadow time is the earliest estimated end by which
// enough nodes are free, and extra counts the nodes free then (every entry
// whose estimate ends by it) beyond need; +Inf and what all would leave if
// none is enough. It is the walk from the front that counts until enough
// are free, started where the last reservation ended.
func (l *runList) reserve(need, free int) (shadow float64, extra int) {
	it := l.items()
	k, held := l.k, l.nodes // (k entries holding held nodes)
	if free+held >= need {
		for k > 0 && free+held-int(it[k-1].nodes) >= need {
			k--
			held -= int(it[k].nodes)
		}
	} else {
		for k < len(it) && free+held < need {
			held += int(it[k].nodes)
			k++
		}
	}
	l.k, l.nodes = k, held
	avail := free + held
	if avail < need {
		return math.Inf(1), avail - need
	}
	shadow = it[k-1].est
	for ; k < len(it) && it[k].est == shadow; k++ {
		avail += int(it[k].nodes)
	}
	return shadow, avail - need
}

// reserveW is reserve for a head that also needs needW watts, with free
// nodes and headroom watts free now and each entry's watts in wt (its id's;
// nodes booting or shutting down weigh nothing): the earliest estimated
// end by which both are enough (now if they are), and what is free then
// beyond need and needW. The watts are summed from the front, every entry
// in order, at every call: a sum kept across calls, or begun elsewhere,
// could round otherwise, and a backfill decision turns on its last bit.
func (l *runList) reserveW(now float64, need, free int, needW, headroom float64, wt []float64) (shadow float64, extra int, extraW float64) {
	avail, availW := free, headroom
	shadow = math.Inf(1)
	if avail >= need && availW >= needW {
		shadow = now
	}
	it := l.items()
	k := 0
	for ; math.IsInf(shadow, 1) && k < len(it); k++ {
		r := it[k]
		avail += int(r.nodes)
		if r.id >= 0 {
			availW += wt[r.id]
		}
		if avail >= need && availW >= needW {
			shadow = r.est // the loop's k++ moves past this entry
		}
	}
	for ; k < len(it) && it[k].est == shadow; k++ {
		r := it[k]
		avail += int(r.nodes)
		if r.id >= 0 {
			availW += wt[r.id]
		}
	}
	return shadow, avail - need, availW - needW
}
