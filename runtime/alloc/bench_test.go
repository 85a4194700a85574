package alloc

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

// churn replays a steady stream of job starts on a machine kept about 80 %
// busy: each step starts one job (Pick + Take), first ending the oldest
// jobs (Release) until it fits. All memory is reused, as in the engine.
type churn struct {
	s     *State
	p     Picker
	ring  [][]int32 // running jobs, oldest at head
	head  int
	count int
	spare [][]int32 // node buffers of ended jobs, each of capacity maxN
	maxN  int
	sizes []int
	ends  []float64
	k     int
	now   float64
}

func newChurn(tb testing.TB, g Geometry, p Picker, sizes []int, seed uint64) *churn {
	s, err := NewState(g, KeyLevel(p))
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	c := &churn{s: s, p: p, ring: make([][]int32, g.Nodes), sizes: make([]int, 4096), ends: make([]float64, 4096)}
	for _, n := range sizes {
		c.maxN = max(c.maxN, n)
	}
	for i := range c.sizes {
		c.sizes[i] = sizes[r.IntN(len(sizes))]
		c.ends[i] = float64(60 * (1 + r.IntN(48*60))) // up to 48 h, whole minutes: ties happen
	}
	return c
}

func (c *churn) release() {
	c.s.Release(c.ring[c.head])
	c.spare = append(c.spare, c.ring[c.head])
	c.ring[c.head] = nil
	c.head = (c.head + 1) % len(c.ring)
	c.count--
}

func (c *churn) step() {
	n := c.sizes[c.k%len(c.sizes)]
	target := c.s.Nodes() / 5 // keep about 80 % busy
	for c.count > 0 && (c.s.Free().Count()-n < target || c.count == len(c.ring)) {
		c.release()
	}
	slot := (c.head + c.count) % len(c.ring)
	var buf []int32
	if k := len(c.spare); k > 0 {
		buf, c.spare = c.spare[k-1], c.spare[:k-1]
	} else {
		buf = make([]int32, 0, c.maxN)
	}
	c.ring[slot] = c.p.Pick(buf[:0], c.s, n)
	c.s.Take(c.ring[slot], c.now+c.ends[c.k%len(c.ends)])
	c.count++
	c.k++
	c.now += 30
}

var (
	curie    = Geometry{Nodes: 5040, Levels: []Level{{"chassis", 18}, {"rack", 90}}}
	intrepid = Geometry{Nodes: 40960, Levels: []Level{{"midplane", 512}, {"rack", 1024}}}
	// job sizes: mostly small on Curie; partitions of 512 and up, with
	// some small ones, on a Blue Gene/P-like machine.
	curieSizes    = []int{1, 1, 1, 1, 2, 2, 4, 4, 8, 16, 16, 32, 64, 128, 256}
	intrepidSizes = []int{1, 64, 512, 512, 512, 1024, 1024, 2048, 4096, 8192}
)

type benchMachine struct {
	name  string
	g     Geometry
	sizes []int
	level int // rack
}

var benchMachines = []benchMachine{
	{"5040x90", curie, curieSizes, 1},
	{"40960x1024", intrepid, intrepidSizes, 1},
}

// BenchmarkPick is one job start in steady state: Pick, Take, and the
// Releases that make room (about one per start).
func BenchmarkPick(b *testing.B) {
	for _, m := range benchMachines {
		for _, name := range []string{"first_available", "last_available", "rack_aware"} {
			b.Run(fmt.Sprintf("%s/%s", m.name, name), func(b *testing.B) {
				p, _ := NewPicker(name, m.level)
				c := newChurn(b, m.g, p, m.sizes, 1)
				for range 20000 {
					c.step()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					c.step()
				}
			})
		}
	}
}

// BenchmarkPickOnly is Pick alone on a fixed fragmented state, cycling
// through the job sizes: the allocator's own cost.
func BenchmarkPickOnly(b *testing.B) {
	for _, m := range benchMachines {
		for _, name := range []string{"first_available", "last_available", "rack_aware"} {
			b.Run(fmt.Sprintf("%s/%s", m.name, name), func(b *testing.B) {
				p, _ := NewPicker(name, m.level)
				c := newChurn(b, m.g, p, m.sizes, 2)
				for range 20000 {
					c.step()
				}
				free := c.s.Free().Count()
				dst := make([]int32, 0, m.g.Nodes)
				k := 0
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					dst = p.Pick(dst[:0], c.s, min(c.sizes[k%len(c.sizes)], free))
					k++
				}
			})
		}
	}
}

// BenchmarkSleeper switches 64 idle nodes off and boots 64 off nodes on a
// steady-state Curie.
func BenchmarkSleeper(b *testing.B) {
	c := newChurn(b, curie, &RackAware{Level: 1}, curieSizes, 3)
	for range 20000 {
		c.step()
	}
	var sl Sleeper
	cands := make([]int32, 0, 64)
	dst := make([]int32, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cands = c.s.idle.appendUp(cands[:0], 0, 64)
		dst = sl.ToSwitchOff(dst[:0], c.s, cands, 64)
		c.s.SwitchedOff(dst)
		dst = sl.ToBoot(dst[:0], c.s, 64)
		c.s.Booted(dst)
	}
}

// Once warm, nothing allocates: job starts and ends with every picker,
// look-ahead copies, and the sleeper's choices.
func TestNoAllocs(t *testing.T) {
	if !testenv.Long() {
		t.Skip("warms up 40,960-node machines")
	}
	for _, m := range benchMachines {
		for _, name := range []string{"first_available", "last_available", "rack_aware"} {
			p, _ := NewPicker(name, m.level)
			c := newChurn(t, m.g, p, m.sizes, 4)
			for range 5000 {
				c.step()
			}
			if a := testing.AllocsPerRun(500, c.step); a != 0 {
				t.Errorf("%s %s: %v allocations per job start", m.name, name, a)
			}
			var look State
			look.CopyFrom(c.s)
			c.step()
			if a := testing.AllocsPerRun(20, func() { look.CopyFrom(c.s) }); a != 0 {
				t.Errorf("%s %s: %v allocations per CopyFrom", m.name, name, a)
			}
			var sl Sleeper
			cands := make([]int32, 0, 64)
			dst := make([]int32, 0, 64)
			cycle := func() {
				cands = c.s.idle.appendUp(cands[:0], 0, 64)
				dst = sl.ToSwitchOff(dst[:0], c.s, cands, 64)
				c.s.SwitchedOff(dst)
				dst = sl.ToBoot(dst[:0], c.s, 64)
				c.s.Booted(dst)
			}
			cycle()
			if a := testing.AllocsPerRun(100, cycle); a != 0 {
				t.Errorf("%s %s: %v allocations per sleeper cycle", m.name, name, a)
			}
		}
	}
}
