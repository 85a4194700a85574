package alloc

import (
	"fmt"
	"slices"
)

// Picker chooses the nodes a starting job gets.
type Picker interface {
	// Pick appends to dst n free nodes of s, in the order chosen, and
	// returns dst. It does not change s: the caller then calls s.Take.
	// n must be between 0 and s.Free().Count().
	Pick(dst []int32, s *State, n int) []int32
	// PickIn is Pick restricted to the nodes of one pool (free, idle or
	// off), in the same order: a machine whose nodes take time to boot
	// gives a job its idle nodes before it boots off ones.
	PickIn(dst []int32, s *State, pool Pool, n int) []int32
}

// Pool is a set of free nodes a Picker chooses from.
type Pool uint8

// Pools.
const (
	PoolFree Pool = iota // Idle or Off
	PoolIdle
	PoolOff
)

// set is the bitset of a pool, less the excluded nodes (Exclude).
func (s *State) set(p Pool) *Bitset {
	b := &s.free
	switch p {
	case PoolIdle:
		b = &s.idle
	case PoolOff:
		b = &s.off
	}
	if s.excl == nil {
		return b
	}
	s.avail.CopyFrom(b)
	s.avail.andNot(s.excl)
	return &s.avail
}

// Exclude keeps the nodes of x out of every pick until Exclude(nil): a
// powercap's switch-off reservation, which jobs that would still run in
// its window may not use. x must not change while it is in force.
func (s *State) Exclude(x *Bitset) { s.excl = x }

// FirstAvailable takes the lowest-numbered free nodes. It is Maui's
// FIRSTAVAILABLE, and on identical nodes also MAXBALANCE and FASTEST
// (patil.md §1.5).
type FirstAvailable struct{}

// Pick implements Picker, in increasing node order.
func (p FirstAvailable) Pick(dst []int32, s *State, n int) []int32 {
	return p.PickIn(dst, s, PoolFree, n)
}

// PickIn implements Picker.
func (FirstAvailable) PickIn(dst []int32, s *State, pool Pool, n int) []int32 {
	set := s.set(pool)
	checkN(set, n)
	return set.appendUp(dst, 0, n)
}

// LastAvailable takes the highest-numbered free nodes. It is Maui's
// LASTAVAILABLE, and on identical nodes also MINRESOURCE (Maui's default)
// and CPULOAD, which walk the node list from its end. With equal level
// instances and a schedule that placement does not change, its busy set is
// the mirror image (i ↦ N−1−i) of FirstAvailable's at every instant, so
// both keep the same number of instances in use.
type LastAvailable struct{}

// Pick implements Picker, in decreasing node order.
func (p LastAvailable) Pick(dst []int32, s *State, n int) []int32 {
	return p.PickIn(dst, s, PoolFree, n)
}

// PickIn implements Picker.
func (LastAvailable) PickIn(dst []int32, s *State, pool Pool, n int) []int32 {
	set := s.set(pool)
	checkN(set, n)
	return set.appendDown(dst, s.geom.Nodes-1, n)
}

// RackAware is Patil & Chaudhary's allocator (§VI, patil.md §1.4) on
// instances of Level: it fills instances already utilized (a node Busy)
// so that the others can stay off. Order:
//
//  1. utilized instances with a free node, by decreasing key (the latest
//     estimated end of the jobs on them: the instance that stays on longest
//     anyway comes first), equal keys by increasing instance index;
//  2. then instances with no Busy node, by increasing index;
//
// and inside each instance its free nodes by increasing index, taking all
// of them before the next instance (no best fit: a 2-node job goes 1 + 1
// into two instances if the first has one free node). The State must keep
// keys at Level (NewState(g, KeyLevel(p))). A RackAware holds scratch
// memory, so one value serves one goroutine.
type RackAware struct {
	Level int
	buf   []ranked
}

type ranked struct {
	key float64
	r   int32
}

// Pick implements Picker, in the order above. Cost: O(U log U + nodes
// taken + words scanned) for U utilized instances with free nodes.
func (p *RackAware) Pick(dst []int32, s *State, n int) []int32 {
	return p.PickIn(dst, s, PoolFree, n)
}

// PickIn implements Picker: the same order over the pool's nodes only
// (instances without a node of the pool are passed over). For the idle
// and off pools each candidate instance costs a count of its words.
func (p *RackAware) PickIn(dst []int32, s *State, pool Pool, n int) []int32 {
	set := s.set(pool)
	checkN(set, n)
	if s.keyLevel != p.Level {
		panic(fmt.Sprintf("alloc: rack_aware by level %d on a state keyed at level %d", p.Level, s.keyLevel))
	}
	lv := &s.lv[p.Level]
	whole := pool == PoolFree && s.excl == nil // the instance counts are the pool's
	in := func(r int) int {
		if whole {
			return int(lv.free[r])
		}
		return set.CountRange(r*lv.size, (r+1)*lv.size)
	}
	p.buf = p.buf[:0]
	for r := lv.partial.NextSet(0); r >= 0; r = lv.partial.NextSet(r + 1) {
		if whole || in(r) > 0 {
			p.buf = append(p.buf, ranked{lv.keys[r].live[0], int32(r)})
		}
	}
	sortRanked(p.buf)
	for _, e := range p.buf {
		if n == 0 {
			return dst
		}
		k := min(n, in(int(e.r)))
		dst = set.appendUp(dst, int(e.r)*lv.size, k)
		n -= k
	}
	for r := lv.vacant.NextSet(0); n > 0; r = lv.vacant.NextSet(r + 1) {
		k := min(n, in(r))
		dst = set.appendUp(dst, r*lv.size, k)
		n -= k
	}
	return dst
}

// sortRanked orders by decreasing key, then increasing index. The input
// is in increasing index order, so insertion sort is cheap for the few
// instances a machine usually has partly busy.
func sortRanked(a []ranked) {
	if len(a) > 24 {
		slices.SortFunc(a, func(x, y ranked) int {
			if x.key != y.key {
				if x.key > y.key {
					return -1
				}
				return 1
			}
			return int(x.r - y.r)
		})
		return
	}
	for i := 1; i < len(a); i++ {
		e := a[i]
		j := i
		for j > 0 && a[j-1].key < e.key {
			a[j] = a[j-1]
			j--
		}
		a[j] = e
	}
}

func checkN(set *Bitset, n int) {
	if n < 0 || n > set.count {
		panic(fmt.Sprintf("alloc: Pick of %d nodes with %d free", n, set.count))
	}
}

// pickerNames are the allocators NewPicker knows, for did-you-mean.
var pickerNames = []string{
	"first_available", "last_available", "max_balance", "fastest",
	"min_resource", "cpu_load", "rack_aware",
}

// PickerNames returns the names NewPicker accepts, for diagnostics.
func PickerNames() []string { return slices.Clone(pickerNames) }

// NewPicker returns the allocator called name (patil.md §1.5): on
// identical nodes first_available, max_balance and fastest take the
// lowest-numbered free nodes; last_available, min_resource and cpu_load
// the highest-numbered; rack_aware is RackAware on level (ignored by the
// others).
func NewPicker(name string, level int) (Picker, error) {
	switch name {
	case "first_available", "max_balance", "fastest":
		return FirstAvailable{}, nil
	case "last_available", "min_resource", "cpu_load":
		return LastAvailable{}, nil
	case "rack_aware":
		if level < 0 {
			return nil, fmt.Errorf("alloc: rack_aware needs a level, got %d", level)
		}
		return &RackAware{Level: level}, nil
	}
	return nil, fmt.Errorf("alloc: unknown allocator %q", name)
}

// KeyLevel is the level whose keys p reads (pass it to NewState), or -1.
func KeyLevel(p Picker) int {
	if ra, ok := p.(*RackAware); ok {
		return ra.Level
	}
	return -1
}
