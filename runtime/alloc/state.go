package alloc

import (
	"fmt"
	"math"
)

// NodeState is a node's state as the allocators see it.
type NodeState uint8

const (
	// Idle: on, running nothing; free.
	Idle NodeState = iota
	// Off: switched off; free (a job that takes it boots it first).
	Off
	// Busy: held by a job, running it or booting for it. Busy nodes make
	// their level instances utilized (patil.md §1.2).
	Busy
	// Booting: switching on with no job; not free, not off.
	Booting
	// ShuttingDown: switching off; not free, not off yet.
	ShuttingDown
)

var nodeStateNames = [...]string{"idle", "off", "busy", "booting", "shutting down"}

func (st NodeState) String() string {
	if int(st) < len(nodeStateNames) {
		return nodeStateNames[st]
	}
	return fmt.Sprintf("NodeState(%d)", uint8(st))
}

func (st NodeState) free() bool { return st <= Off }

const nStates = 5

// State is what the allocators see of one machine: every node's state, the
// free, idle and off sets, and per level instance the number of free, busy
// and not-off nodes, plus, at one chosen level, the key rack_aware sorts
// by. The caller keeps it in step with the machine through Take, Release,
// SwitchingOff, SwitchedOff, Booting and Booted, which cost O(1) per node
// plus O(levels) per run of ids in one lowest-level instance (and O(log)
// per key-level instance a job touches), so allocators never scan the
// machine. A State and the Pickers and Sleepers using it are for one
// goroutine.
type State struct {
	geom     Geometry
	node     []NodeState
	free     Bitset // Idle or Off
	idle     Bitset
	off      Bitset
	lv       []level
	keyLevel int
	end      []float64 // per Busy node: its job's estimated end (keyed states)
	stamp    uint32    // for marks: instances already seen in this call
	excl     *Bitset   // nodes no pick may take (Exclude), or nil
	avail    Bitset    // scratch: a pool less excl
}

type level struct {
	size     int
	free     []int32  // per instance: Idle or Off nodes
	busy     []int32  // per instance: Busy nodes
	notOff   []int32  // per instance: nodes in any state but Off
	partial  Bitset   // instances with busy >= 1 and free >= 1
	vacant   Bitset   // instances with busy == 0 and free >= 1
	utilized int      // instances with busy >= 1
	on       int      // instances with notOff >= 1
	keys     []maxKey // per instance, at the key level only
	mark     []uint32 // per instance, at the key level: the stamp of the last call that saw it
}

// NewState returns the state of a machine of geometry g with every node
// Idle. keyLevel is the level whose instances keep rack_aware's key (the
// latest estimated end among the jobs holding nodes in the instance), or
// -1 for none; pass KeyLevel(picker), since keys cost O(log) per instance
// a job touches and only rack_aware reads them.
func NewState(g Geometry, keyLevel int) (*State, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if keyLevel < -1 || keyLevel >= len(g.Levels) {
		return nil, fmt.Errorf("alloc: key level %d: the machine has %d levels", keyLevel, len(g.Levels))
	}
	s := &State{
		geom:     Geometry{Nodes: g.Nodes, Levels: append([]Level(nil), g.Levels...)},
		node:     make([]NodeState, g.Nodes),
		lv:       make([]level, len(g.Levels)),
		keyLevel: keyLevel,
	}
	s.free.Reset(g.Nodes)
	s.free.fill()
	s.idle.Reset(g.Nodes)
	s.idle.fill()
	s.off.Reset(g.Nodes)
	for l, gl := range g.Levels {
		lv := &s.lv[l]
		r := g.Nodes / gl.Size
		lv.size = gl.Size
		lv.free = make([]int32, r)
		lv.busy = make([]int32, r)
		lv.notOff = make([]int32, r)
		for i := range r {
			lv.free[i] = int32(gl.Size)
			lv.notOff[i] = int32(gl.Size)
		}
		lv.partial.Reset(r)
		lv.vacant.Reset(r)
		lv.vacant.fill()
		lv.on = r
	}
	if keyLevel >= 0 {
		lv := &s.lv[keyLevel]
		lv.keys = make([]maxKey, len(lv.free))
		lv.mark = make([]uint32, len(lv.free))
		s.end = make([]float64, g.Nodes)
	}
	return s, nil
}

// CopyFrom makes s an independent copy of src, for look-ahead. It reuses
// s's memory, so once s has held a state as large it allocates nothing.
func (s *State) CopyFrom(src *State) {
	s.geom.Nodes = src.geom.Nodes
	s.geom.Levels = append(s.geom.Levels[:0], src.geom.Levels...)
	s.node = append(s.node[:0], src.node...)
	s.free.CopyFrom(&src.free)
	s.idle.CopyFrom(&src.idle)
	s.off.CopyFrom(&src.off)
	if cap(s.lv) < len(src.lv) {
		s.lv = append(s.lv[:cap(s.lv)], make([]level, len(src.lv)-cap(s.lv))...)
	}
	s.lv = s.lv[:len(src.lv)]
	for l := range src.lv {
		d, f := &s.lv[l], &src.lv[l]
		d.size = f.size
		d.free = append(d.free[:0], f.free...)
		d.busy = append(d.busy[:0], f.busy...)
		d.notOff = append(d.notOff[:0], f.notOff...)
		d.partial.CopyFrom(&f.partial)
		d.vacant.CopyFrom(&f.vacant)
		d.utilized, d.on = f.utilized, f.on
		if cap(d.keys) < len(f.keys) {
			d.keys = append(d.keys[:cap(d.keys)], make([]maxKey, len(f.keys)-cap(d.keys))...)
		}
		d.keys = d.keys[:len(f.keys)]
		for r := range f.keys {
			d.keys[r].copyFrom(&f.keys[r])
		}
		d.mark = append(d.mark[:0], f.mark...)
	}
	s.keyLevel = src.keyLevel
	s.end = append(s.end[:0], src.end...)
	s.stamp = src.stamp
}

// Geometry is the machine's geometry; its Levels must not be modified.
func (s *State) Geometry() Geometry { return s.geom }

// Nodes is the number of nodes.
func (s *State) Nodes() int { return s.geom.Nodes }

// Node is node i's state.
func (s *State) Node(i int32) NodeState { return s.node[i] }

// Free is the set of nodes a job may take now (Idle or Off). It must not
// be modified.
func (s *State) Free() *Bitset { return &s.free }

// IdleSet is the set of Idle nodes. It must not be modified.
func (s *State) IdleSet() *Bitset { return &s.idle }

// OffSet is the set of Off nodes. It must not be modified.
func (s *State) OffSet() *Bitset { return &s.off }

// KeyLevel is the level that keeps rack_aware's keys, or -1.
func (s *State) KeyLevel() int { return s.keyLevel }

// FreeIn is the number of free (Idle or Off) nodes in instance r of level.
func (s *State) FreeIn(level, r int) int { return int(s.lv[level].free[r]) }

// BusyIn is the number of Busy nodes in instance r of level.
func (s *State) BusyIn(level, r int) int { return int(s.lv[level].busy[r]) }

// NotOffIn is the number of nodes not Off in instance r of level: the
// instance is on, drawing its own power, while this is above 0.
func (s *State) NotOffIn(level, r int) int { return int(s.lv[level].notOff[r]) }

// Utilized is the number of instances of level with a Busy node.
func (s *State) Utilized(level int) int { return s.lv[level].utilized }

// On is the number of instances of level with a node not Off.
func (s *State) On(level int) int { return s.lv[level].on }

// Key is rack_aware's key of instance r of level: the latest estimated end
// among the jobs holding nodes in it; ok is false when no job does. level
// must be KeyLevel().
func (s *State) Key(level, r int) (end float64, ok bool) {
	if level != s.keyLevel {
		panic(fmt.Sprintf("alloc: Key(%d, …) on a state keyed at level %d", level, s.keyLevel))
	}
	return s.lv[level].keys[r].max()
}

// Take gives the nodes ids, which must be free, to one job whose
// estimated end is estEnd (for rack_aware's key; with a boot time, the
// end after booting). It returns how many of them were Off: those boot
// before the job runs, and count as Busy meanwhile. Call it once per job
// with all the job's nodes; estEnd must not be NaN.
func (s *State) Take(ids []int32, estEnd float64) (off int) {
	if math.IsNaN(estEnd) {
		panic("alloc: Take with a NaN estimated end")
	}
	off = s.apply(ids, Busy, "Take", 1<<Idle|1<<Off)
	if s.keyLevel >= 0 {
		lv, st := &s.lv[s.keyLevel], s.nextStamp()
		lo, hi := 0, 0 // the last instance seen, to skip the division
		for _, i := range ids {
			s.end[i] = estEnd
			if n := int(i); n < lo || n >= hi {
				r := n / lv.size
				lo, hi = r*lv.size, (r+1)*lv.size
				if lv.mark[r] != st {
					lv.mark[r] = st
					lv.keys[r].add(estEnd)
				}
			}
		}
	}
	return off
}

// Release makes the nodes of one ended job Idle. ids must be exactly the
// nodes one Take gave it (in any order), so that its estimated end leaves
// the key of every instance it was in.
func (s *State) Release(ids []int32) {
	s.apply(ids, Idle, "Release", 1<<Busy)
	if s.keyLevel >= 0 {
		lv, st := &s.lv[s.keyLevel], s.nextStamp()
		lo, hi := 0, 0
		for _, i := range ids {
			if n := int(i); n < lo || n >= hi {
				r := n / lv.size
				lo, hi = r*lv.size, (r+1)*lv.size
				if lv.mark[r] != st {
					lv.mark[r] = st
					lv.keys[r].remove(s.end[i])
				}
			}
		}
	}
}

// SwitchingOff starts switching Idle nodes off: they stop being free but
// stay not off (their instances stay on) until SwitchedOff.
func (s *State) SwitchingOff(ids []int32) { s.apply(ids, ShuttingDown, "SwitchingOff", 1<<Idle) }

// SwitchedOff makes nodes Off, from ShuttingDown, or from Idle when
// switching off takes no time.
func (s *State) SwitchedOff(ids []int32) {
	s.apply(ids, Off, "SwitchedOff", 1<<ShuttingDown|1<<Idle)
}

// Booting starts booting Off nodes with no job: they stop being free and
// count as not off (their instances come on) until Booted. Nodes a job
// takes while Off go through Take instead.
func (s *State) Booting(ids []int32) { s.apply(ids, Booting, "Booting", 1<<Off) }

// Booted makes nodes Idle, from Booting, or from Off when booting takes
// no time.
func (s *State) Booted(ids []int32) { s.apply(ids, Idle, "Booted", 1<<Booting|1<<Off) }

func (s *State) bad(op string, i int32) {
	panic(fmt.Sprintf("alloc: %s of node %d, which is %v", op, i, s.node[i]))
}

func (s *State) nextStamp() uint32 {
	s.stamp++
	if s.stamp == 0 { // wrapped: old marks could match
		for l := range s.lv {
			clear(s.lv[l].mark)
		}
		s.stamp = 1
	}
	return s.stamp
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// apply moves every node of ids to state to; each must be in a state of
// the mask from. It returns how many were Off. Pickers give runs of
// nearby ids, so the work is batched: the free, idle and off sets change
// once per 64-id word, and level counts once per run of ids in one
// lowest-level instance, which saves a division and O(levels) per node.
func (s *State) apply(ids []int32, to NodeState, op string, from uint8) (off int) {
	var dF, dB, dN [nStates]int32 // per state: the deltas of leaving it for to
	for f := range NodeState(nStates) {
		dF[f] = b2i(to.free()) - b2i(f.free())
		dB[f] = b2i(to == Busy) - b2i(f == Busy)
		dN[f] = b2i(f == Off) - b2i(to == Off)
	}
	var masks [nStates]uint64 // the current word's nodes, by their state before
	w := -1
	var df, db, dn int32 // the current run's deltas: free, busy, not off
	lo, hi := 0, 0       // its lowest-level instance's nodes
	levels := len(s.lv) > 0
	for _, i := range ids {
		f := s.node[i]
		if from&(1<<f) == 0 {
			s.bad(op, i)
		}
		s.node[i] = to
		off += int(b2i(f == Off))
		n := int(i)
		if n>>6 != w {
			s.flushSets(w, &masks, to)
			w = n >> 6
		}
		masks[f] |= 1 << (n & 63)
		if !levels {
			continue
		}
		if n < lo || n >= hi {
			s.addCounts(lo, df, db, dn)
			df, db, dn = 0, 0, 0
			size := s.lv[0].size
			lo = n / size * size
			hi = lo + size
		}
		df += dF[f]
		db += dB[f]
		dn += dN[f]
	}
	s.flushSets(w, &masks, to)
	if levels {
		s.addCounts(lo, df, db, dn)
	}
	return off
}

// flushSets applies the moves to to of the nodes in masks (by state
// before) to word w of the free, idle and off sets, and clears masks.
func (s *State) flushSets(w int, masks *[nStates]uint64, to NodeState) {
	if w < 0 {
		return
	}
	for f := range NodeState(nStates) {
		m := masks[f]
		if m == 0 || f == to {
			continue
		}
		masks[f] = 0
		if f.free() != to.free() {
			s.free.setWord(w, m, to.free())
		}
		if f == Idle || to == Idle {
			s.idle.setWord(w, m, to == Idle)
		}
		if f == Off || to == Off {
			s.off.setWord(w, m, to == Off)
		}
	}
}

// addCounts adds free, busy and not-off deltas to the instances that hold
// node, at every level, and updates what depends on them.
func (s *State) addCounts(node int, df, db, dn int32) {
	if df == 0 && db == 0 && dn == 0 {
		return
	}
	for l := range s.lv {
		lv := &s.lv[l]
		r := node / lv.size
		if dn != 0 {
			was := lv.notOff[r]
			lv.notOff[r] = was + dn
			if was == 0 {
				lv.on++
			} else if was+dn == 0 {
				lv.on--
			}
		}
		if df == 0 && db == 0 {
			continue
		}
		f, b := lv.free[r]+df, lv.busy[r]+db
		if db != 0 {
			if was := lv.busy[r]; was == 0 {
				lv.utilized++
			} else if b == 0 {
				lv.utilized--
			}
			lv.busy[r] = b
		}
		lv.free[r] = f
		switch {
		case f == 0:
			lv.partial.Clear(r)
			lv.vacant.Clear(r)
		case b == 0:
			lv.partial.Clear(r)
			lv.vacant.Set(r)
		default:
			lv.vacant.Clear(r)
			lv.partial.Set(r)
		}
	}
}
