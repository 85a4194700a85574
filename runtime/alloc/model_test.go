package alloc

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
)

// model is the brute-force reference: node states and each busy node's
// estimated end, everything else recomputed by scanning.
type model struct {
	g   Geometry
	st  []NodeState
	end []float64
}

func newModel(g Geometry) *model {
	return &model{g: g, st: make([]NodeState, g.Nodes), end: make([]float64, g.Nodes)}
}

func (m *model) clone() *model {
	return &model{g: m.g, st: slices.Clone(m.st), end: slices.Clone(m.end)}
}

type instStats struct {
	free, busy, notOff int
	key                float64
	keyed              bool
}

func (m *model) inst(l, r int) instStats {
	var st instStats
	size := m.g.Levels[l].Size
	for i := r * size; i < (r+1)*size; i++ {
		switch m.st[i] {
		case Idle, Off:
			st.free++
		case Busy:
			st.busy++
			if !st.keyed || m.end[i] > st.key {
				st.key, st.keyed = m.end[i], true
			}
		}
		if m.st[i] != Off {
			st.notOff++
		}
	}
	return st
}

// check compares every observable of s with the model.
func (m *model) check(t *testing.T, s *State) {
	t.Helper()
	nFree, nIdle, nOff := 0, 0, 0
	for i, want := range m.st {
		if got := s.Node(int32(i)); got != want {
			t.Fatalf("node %d is %v, want %v", i, got, want)
		}
		if s.Free().Has(i) != want.free() || s.IdleSet().Has(i) != (want == Idle) || s.OffSet().Has(i) != (want == Off) {
			t.Fatalf("node %d (%v): free %v idle %v off %v", i, want, s.Free().Has(i), s.IdleSet().Has(i), s.OffSet().Has(i))
		}
		nFree += int(b2i(want.free()))
		nIdle += int(b2i(want == Idle))
		nOff += int(b2i(want == Off))
	}
	if s.Free().Count() != nFree || s.IdleSet().Count() != nIdle || s.OffSet().Count() != nOff {
		t.Fatalf("counts free %d idle %d off %d, want %d %d %d", s.Free().Count(), s.IdleSet().Count(), s.OffSet().Count(), nFree, nIdle, nOff)
	}
	for l := range m.g.Levels {
		utilized, on := 0, 0
		for r := range m.g.Instances(l) {
			want := m.inst(l, r)
			if s.FreeIn(l, r) != want.free || s.BusyIn(l, r) != want.busy || s.NotOffIn(l, r) != want.notOff {
				t.Fatalf("level %d instance %d: free %d busy %d notOff %d, want %+v", l, r, s.FreeIn(l, r), s.BusyIn(l, r), s.NotOffIn(l, r), want)
			}
			lv := &s.lv[l]
			if lv.partial.Has(r) != (want.busy > 0 && want.free > 0) || lv.vacant.Has(r) != (want.busy == 0 && want.free > 0) {
				t.Fatalf("level %d instance %d (%+v): partial %v vacant %v", l, r, want, lv.partial.Has(r), lv.vacant.Has(r))
			}
			if want.busy > 0 {
				utilized++
			}
			if want.notOff > 0 {
				on++
			}
			if l == s.KeyLevel() {
				key, ok := s.Key(l, r)
				if ok != want.keyed || ok && key != want.key {
					t.Fatalf("level %d instance %d: key %v %v, want %v %v", l, r, key, ok, want.key, want.keyed)
				}
			}
		}
		if s.Utilized(l) != utilized || s.On(l) != on {
			t.Fatalf("level %d: utilized %d on %d, want %d %d", l, s.Utilized(l), s.On(l), utilized, on)
		}
	}
}

func (m *model) set(ids []int32, to NodeState) {
	for _, i := range ids {
		m.st[i] = to
	}
}

// refPick is each allocator written the slow, obvious way.
func (m *model) refPick(name string, level, n int) []int32 {
	return m.refPickIn(name, level, n, NodeState.free, nil)
}

// refPickIn is refPick over the nodes in is true for (a pool).
func (m *model) refPickIn(name string, level, n int, inState func(NodeState) bool, keep func(int) bool) []int32 {
	in := func(i int) bool { return inState(m.st[i]) && (keep == nil || keep(i)) }
	var out []int32
	switch name {
	case "first_available":
		for i := 0; i < m.g.Nodes && len(out) < n; i++ {
			if in(i) {
				out = append(out, int32(i))
			}
		}
	case "last_available":
		for i := m.g.Nodes - 1; i >= 0 && len(out) < n; i-- {
			if in(i) {
				out = append(out, int32(i))
			}
		}
	case "rack_aware":
		var used, unused []int
		for r := range m.g.Instances(level) {
			if m.inst(level, r).busy > 0 {
				used = append(used, r)
			} else {
				unused = append(unused, r)
			}
		}
		sort.SliceStable(used, func(a, b int) bool { return m.inst(level, used[a]).key > m.inst(level, used[b]).key })
		size := m.g.Levels[level].Size
		for _, r := range append(used, unused...) {
			for i := r * size; i < (r+1)*size && len(out) < n; i++ {
				if in(i) {
					out = append(out, int32(i))
				}
			}
		}
	default:
		panic(name)
	}
	return out
}

// refSwitchOff sorts the candidates by their tuple of (rest, notOff,
// index) per level from the top, then node index.
func (m *model) refSwitchOff(cands []int32, n int) []int32 {
	type keyed struct {
		k []int
		i int32
	}
	var ks []keyed
	for _, i := range cands {
		var k []int
		for l := len(m.g.Levels) - 1; l >= 0; l-- {
			r := m.g.Instance(l, int(i))
			c := 0
			for _, j := range cands {
				if m.g.Instance(l, int(j)) == r {
					c++
				}
			}
			no := m.inst(l, r).notOff
			k = append(k, no-c, no, r)
		}
		ks = append(ks, keyed{append(k, int(i)), i})
	}
	sort.Slice(ks, func(a, b int) bool { return slices.Compare(ks[a].k, ks[b].k) < 0 })
	var out []int32
	for _, e := range ks[:min(n, len(ks))] {
		out = append(out, e.i)
	}
	return out
}

// refBoot sorts the off nodes by their tuple of (−notOff, index) per
// level from the top, then node index.
func (m *model) refBoot(n int) []int32 {
	type keyed struct {
		k []int
		i int32
	}
	var ks []keyed
	for i, st := range m.st {
		if st != Off {
			continue
		}
		var k []int
		for l := len(m.g.Levels) - 1; l >= 0; l-- {
			r := m.g.Instance(l, i)
			k = append(k, -m.inst(l, r).notOff, r)
		}
		ks = append(ks, keyed{append(k, i), int32(i)})
	}
	sort.Slice(ks, func(a, b int) bool { return slices.Compare(ks[a].k, ks[b].k) < 0 })
	var out []int32
	for _, e := range ks[:min(n, len(ks))] {
		out = append(out, e.i)
	}
	return out
}

// driver applies random operations to a State and the model alike,
// checking every Pick and Sleeper choice against the reference
// implementations and the whole state after every step.
type driver struct {
	t    *testing.T
	s    *State
	m    *model
	jobs [][]int32
	pick map[string]Picker
	sl   Sleeper
	buf  []int32
}

func newDriver(t *testing.T, g Geometry, keyLevel int) *driver {
	s, err := NewState(g, keyLevel)
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, s: s, m: newModel(g), pick: map[string]Picker{}}
	for _, name := range []string{"first_available", "last_available"} {
		d.pick[name], _ = NewPicker(name, 0)
	}
	if keyLevel >= 0 {
		d.pick["rack_aware"], _ = NewPicker("rack_aware", keyLevel)
	}
	return d
}

var pickOrder = []string{"first_available", "last_available", "rack_aware"}

// step applies operation op with parameters x, y.
func (d *driver) step(op, x, y int) {
	t, s, m := d.t, d.s, d.m
	t.Helper()
	ofState := func(st NodeState) []int32 {
		var ids []int32
		for i, v := range m.st {
			if v == st && (i*7+x)%3 != 0 {
				ids = append(ids, int32(i))
			}
		}
		return ids
	}
	switch op % 7 {
	case 0, 1: // a job starts
		free := s.Free().Count()
		if free == 0 {
			return
		}
		n := 1 + x%min(free, 1+m.g.Nodes/3)
		name := pickOrder[y%3]
		p, ok := d.pick[name]
		if !ok {
			name, p = "first_available", d.pick["first_available"]
		}
		level := max(s.KeyLevel(), 0)
		want := m.refPick(name, level, n)
		for _, pool := range []struct {
			p  Pool
			in func(NodeState) bool
		}{{PoolIdle, func(st NodeState) bool { return st == Idle }}, {PoolOff, func(st NodeState) bool { return st == Off }}} {
			k := min(n, s.set(pool.p).Count())
			got := p.PickIn(d.buf[:0], s, pool.p, k)
			if want := m.refPickIn(name, level, k, pool.in, nil); !slices.Equal(got, want) {
				t.Fatalf("%s in pool %d (%d) = %v, want %v", name, pool.p, k, got, want)
			}
		}
		// With some nodes excluded (a powercap's reservation).
		excl := NewBitset(m.g.Nodes)
		for i := range m.g.Nodes {
			if (i*5+y)%4 == 0 {
				excl.Set(i)
			}
		}
		s.Exclude(excl)
		for _, pool := range []struct {
			p  Pool
			in func(NodeState) bool
		}{{PoolFree, NodeState.free}, {PoolIdle, func(st NodeState) bool { return st == Idle }}} {
			k := min(n, s.set(pool.p).Count())
			got := p.PickIn(d.buf[:0], s, pool.p, k)
			keep := func(i int) bool { return !excl.Has(i) }
			if want := m.refPickIn(name, level, k, pool.in, keep); !slices.Equal(got, want) {
				t.Fatalf("%s in pool %d excluding %v (%d) = %v, want %v", name, pool.p, excl, k, got, want)
			}
		}
		s.Exclude(nil)
		d.buf = p.Pick(d.buf[:0], s, n)
		if !slices.Equal(d.buf, want) {
			t.Fatalf("%s(%d) = %v, want %v", name, n, d.buf, want)
		}
		ids := slices.Clone(d.buf)
		slices.Reverse(ids) // Take and Release accept any order
		estEnd := float64(y / 3 % 6)
		if y%50 == 0 {
			estEnd = math.Inf(1)
		}
		wantOff := 0
		for _, i := range ids {
			wantOff += int(b2i(m.st[i] == Off))
		}
		if off := s.Take(ids, estEnd); off != wantOff {
			t.Fatalf("Take returned %d off, want %d", off, wantOff)
		}
		for _, i := range ids {
			m.st[i], m.end[i] = Busy, estEnd
		}
		d.jobs = append(d.jobs, ids)
	case 2: // a job ends
		if len(d.jobs) == 0 {
			return
		}
		k := x % len(d.jobs)
		ids := d.jobs[k]
		d.jobs = slices.Delete(d.jobs, k, k+1)
		s.Release(ids)
		m.set(ids, Idle)
	case 3: // the sleeper chooses idle nodes to switch off
		cands := ofState(Idle)
		n := y % (len(cands) + 2)
		want := m.refSwitchOff(cands, n)
		slices.Reverse(cands) // any order
		d.buf = d.sl.ToSwitchOff(d.buf[:0], s, cands, n)
		if !slices.Equal(d.buf, want) {
			t.Fatalf("ToSwitchOff(%v, %d) = %v, want %v", cands, n, d.buf, want)
		}
		if y%2 == 0 {
			s.SwitchingOff(d.buf)
			m.set(d.buf, ShuttingDown)
		} else {
			s.SwitchedOff(d.buf)
			m.set(d.buf, Off)
		}
	case 4: // shutdowns complete
		ids := ofState(ShuttingDown)
		s.SwitchedOff(ids)
		m.set(ids, Off)
	case 5: // the sleeper chooses off nodes to boot
		n := x % (s.OffSet().Count() + 2)
		want := m.refBoot(n)
		d.buf = d.sl.ToBoot(d.buf[:0], s, n)
		if !slices.Equal(d.buf, want) {
			t.Fatalf("ToBoot(%d) = %v, want %v", n, d.buf, want)
		}
		if y%2 == 0 {
			s.Booting(d.buf)
			m.set(d.buf, Booting)
		} else {
			s.Booted(d.buf)
			m.set(d.buf, Idle)
		}
	case 6: // boots complete
		ids := ofState(Booting)
		s.Booted(ids)
		m.set(ids, Idle)
	}
}

// geometries for the property tests: no levels, one level, deep levels,
// and one past a summary word (4,096 ids) so the two-level search matters.
var testGeometries = []Geometry{
	{Nodes: 1},
	{Nodes: 130},
	{Nodes: 12, Levels: []Level{{"rack", 4}}},
	{Nodes: 9, Levels: []Level{{"rack", 3}}},
	{Nodes: 90, Levels: []Level{{"chassis", 3}, {"rack", 15}}},
	{Nodes: 300, Levels: []Level{{"chassis", 6}, {"rack", 30}, {"row", 150}}},
	{Nodes: 64, Levels: []Level{{"node", 1}, {"all", 64}}},
	{Nodes: 128, Levels: []Level{{"rack", 2}}}, // many partly busy racks: rack_aware's sort
	{Nodes: 4160, Levels: []Level{{"rack", 520}}},
}

func geometryName(g Geometry) string {
	s := fmt.Sprint(g.Nodes)
	for _, l := range g.Levels {
		s += fmt.Sprintf("/%s%d", l.Name, l.Size)
	}
	return s
}
