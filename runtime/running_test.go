package runtime

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The running list against a plain sorted slice: the same entries in the
// same order (equal estimates in the order they came) after every insert,
// push and removal, and the same reservation as a walk from the front.
func TestRunListAgainstSortedSlice(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 9))
		var l runList
		var want []running
		id := int32(0)
		grain := []float64{1, 7, 1000}[seed%3] // (coarse grains: many ties)
		for step := range 3000 {
			switch op := rng.IntN(10); {
			case op < 4 || len(want) == 0:
				r := running{est: math.Floor(rng.Float64()*1000/grain) * grain, nodes: int32(1 + rng.IntN(50)), id: id}
				id++
				if step%97 == 0 {
					r.id = -id // (a shutdown batch)
				}
				p, _ := slices.BinarySearchFunc(want, r.est, func(e running, t float64) int {
					if e.est <= t {
						return -1
					}
					return 1
				})
				want = slices.Insert(want, p, r)
				l.insert(r)
			case op < 5:
				last := 0.0
				if len(want) > 0 {
					last = want[len(want)-1].est
				}
				r := running{est: last + float64(rng.IntN(3)), nodes: int32(1 + rng.IntN(50)), id: id}
				id++
				want = append(want, r)
				l.push(r)
			case op < 8:
				p := rng.IntN(len(want))
				if !l.remove(want[p].est, want[p].id) {
					t.Fatalf("seed %d step %d: entry %+v not found", seed, step, want[p])
				}
				want = slices.Delete(want, p, p+1)
			case op < 9:
				p := rng.IntN(len(want))
				l.deleteAt(p)
				want = slices.Delete(want, p, p+1)
			default:
				if rng.IntN(50) == 0 {
					l.clear()
					want = want[:0]
				}
			}
			if !slices.Equal(l.items(), want) {
				t.Fatalf("seed %d step %d: list %v, want %v", seed, step, l.items(), want)
			}
			if l.remove(-1, math.MinInt32) {
				t.Fatalf("seed %d step %d: removed an entry that is not there", seed, step)
			}
			for range 2 {
				free := rng.IntN(60)
				need := free + 1 + rng.IntN(400)
				shadow, extra := l.reserve(need, free)
				ws, we := reserveScan(want, need, free)
				if shadow != ws || extra != we {
					t.Fatalf("seed %d step %d: reserve(%d, %d) = %v, %d; want %v, %d", seed, step, need, free, shadow, extra, ws, we)
				}
			}
		}
	}
}

// reserveScan is the reservation as the engine first computed it: a walk
// from the front until enough nodes are free, then past equal estimates.
func reserveScan(run []running, need, free int) (float64, int) {
	avail := free
	shadow := math.Inf(1)
	k := 0
	for ; k < len(run); k++ {
		avail += int(run[k].nodes)
		if avail >= need {
			shadow = run[k].est
			k++
			break
		}
	}
	for ; k < len(run) && run[k].est == shadow; k++ {
		avail += int(run[k].nodes)
	}
	return shadow, avail - need
}

// The event heap pops events in evLess order, whatever the pushes.
func TestEventHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s sim
	var popped []event
	for step := range 20000 {
		if rng.IntN(3) > 0 || len(s.heap) == 0 {
			s.push(event{t: float64(rng.IntN(50)), kind: uint8(rng.IntN(3)), job: int32(rng.IntN(1000) - 10)})
			continue
		}
		e := s.pop()
		for _, o := range s.heap {
			if evLess(o, e) {
				t.Fatalf("step %d: popped %+v before %+v", step, e, o)
			}
		}
		popped = append(popped, e)
	}
	if len(popped) < 1000 {
		t.Fatalf("only %d pops", len(popped))
	}
}
