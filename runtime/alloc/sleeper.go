package alloc

import (
	"fmt"
	"slices"
)

// Sleeper chooses which idle nodes to switch off and which off nodes to
// boot so that whole level instances go off and stay off (DESIGN §4.3: an
// instance draws its own power, and its nodes their off power, while any
// node in it is not Off). Both rules compare instances from the highest
// level down: the best rack first, inside it the best chassis, then nodes
// by increasing index; on a machine without levels that leaves increasing
// index alone. A Sleeper holds scratch memory; its zero value is ready,
// and one value serves one goroutine.
type Sleeper struct {
	cnt   [][]int32  // per level instance: candidates in it, valid when mark matches
	mark  [][]uint32 //
	stamp uint32
	buf   []ranked
}

// ToSwitchOff appends to dst the min(n, len(candidates)) candidates to
// switch off first and returns dst. candidates are distinct Idle nodes the
// caller allows to go off (e.g. idle for long enough), in any order. For
// an instance, let rest = its nodes not off − its candidates: the nodes
// that would stay on if every candidate in it went off. Instances are
// preferred by
//
//  1. fewer rest, so instances that would go entirely off (rest 0) come
//     first, then those left closest to off (one busy node among idle
//     ones goes before many busy nodes: the first goes off when its job
//     ends, while the second's idle nodes are a reserve at no level cost);
//  2. then fewer nodes not off (among instances that go off, the one that
//     needs fewest candidates, so it completes within n);
//  3. then increasing index;
//
// taking all candidates of an instance before the next. Cost:
// O(c·levels·log c) for c candidates.
func (sl *Sleeper) ToSwitchOff(dst []int32, s *State, candidates []int32, n int) []int32 {
	n = min(n, len(candidates))
	if n <= 0 {
		return dst
	}
	st := sl.prepare(s)
	for _, i := range candidates {
		if s.node[i] != Idle {
			panic(fmt.Sprintf("alloc: switch-off candidate %d is %v, not idle", i, s.node[i]))
		}
		for l := range s.lv {
			r := int(i) / s.lv[l].size
			if sl.mark[l][r] != st {
				sl.mark[l][r], sl.cnt[l][r] = st, 0
			}
			sl.cnt[l][r]++
		}
	}
	base := len(dst)
	dst = append(dst, candidates...)
	c := dst[base:]
	slices.SortFunc(c, func(a, b int32) int {
		for l := len(s.lv) - 1; l >= 0; l-- {
			lv := &s.lv[l]
			ra, rb := int(a)/lv.size, int(b)/lv.size
			if ra == rb {
				continue
			}
			na, nb := lv.notOff[ra], lv.notOff[rb]
			if d := (na - sl.cnt[l][ra]) - (nb - sl.cnt[l][rb]); d != 0 {
				return int(d)
			}
			if na != nb {
				return int(na - nb)
			}
			return ra - rb
		}
		return int(a - b)
	})
	for k := 1; k < len(c); k++ {
		if c[k] == c[k-1] {
			panic(fmt.Sprintf("alloc: switch-off candidate %d given twice", c[k]))
		}
	}
	return dst[:base+n]
}

// prepare sizes the scratch for s and returns a fresh stamp.
func (sl *Sleeper) prepare(s *State) uint32 {
	for len(sl.cnt) < len(s.lv) {
		sl.cnt = append(sl.cnt, nil)
		sl.mark = append(sl.mark, nil)
	}
	for l := range s.lv {
		r := len(s.lv[l].free)
		if len(sl.cnt[l]) != r {
			sl.cnt[l] = make([]int32, r)
			sl.mark[l] = make([]uint32, r)
		}
	}
	sl.stamp++
	if sl.stamp == 0 {
		for l := range sl.mark {
			clear(sl.mark[l])
		}
		sl.stamp = 1
	}
	return sl.stamp
}

// ToBoot appends to dst the min(n, Off nodes) Off nodes to boot first and
// returns dst: instances with more nodes not off first (an instance
// already on costs nothing more to use, and the fullest one is the least
// likely to go off soon), then by increasing index, all Off nodes of an
// instance before the next. Nodes a job takes are chosen by its Picker,
// not here; this serves a caller that wants nodes on ahead of jobs. Cost:
// O(R log R) for the R top-level instances, plus the instances visited
// below and the nodes taken.
func (sl *Sleeper) ToBoot(dst []int32, s *State, n int) []int32 {
	off := s.set(PoolOff) // less the excluded nodes, if any
	n = min(n, off.count)
	if n <= 0 {
		return dst
	}
	if len(s.lv) == 0 {
		return off.appendUp(dst, 0, n)
	}
	top := len(s.lv) - 1
	dst, _ = sl.boot(dst, s, off, top, 0, len(s.lv[top].free), n)
	return dst
}

// boot takes up to n nodes of off (Off nodes, less any excluded) from
// instances lo..hi-1 of level l.
func (sl *Sleeper) boot(dst []int32, s *State, off *Bitset, l, lo, hi, n int) ([]int32, int) {
	lv := &s.lv[l]
	base := len(sl.buf)
	for r := lo; r < hi; r++ {
		if int(lv.notOff[r]) < lv.size && (s.excl == nil || off.CountRange(r*lv.size, (r+1)*lv.size) > 0) {
			sl.buf = append(sl.buf, ranked{float64(lv.notOff[r]), int32(r)})
		}
	}
	sortRanked(sl.buf[base:])
	for k := base; k < len(sl.buf) && n > 0; k++ {
		r := int(sl.buf[k].r)
		if l == 0 {
			take := min(n, lv.size-int(lv.notOff[r]))
			if s.excl != nil {
				take = min(n, off.CountRange(r*lv.size, (r+1)*lv.size))
			}
			dst = off.appendUp(dst, r*lv.size, take)
			n -= take
			continue
		}
		per := lv.size / s.lv[l-1].size
		dst, n = sl.boot(dst, s, off, l-1, r*per, (r+1)*per, n)
	}
	sl.buf = sl.buf[:base]
	return dst, n
}
