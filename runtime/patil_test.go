package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/internal/refplace"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// rackMachine is Patil & Chaudhary's p-class cluster: racks of size nodes
// drawing 633 W (fans 500 W, interconnect 133 W) while a node is not off;
// node power is not counted.
func rackMachine(nodes, size int) Machine {
	return Machine{Name: "pclass", Nodes: nodes, Levels: []Level{{Name: "rack", Size: size,
		Components: []PowerComponent{{Name: "fans", Power: 500}, {Name: "interconnect", Power: 133}}}}}
}

// TestPlacementMatchesReference replays random workloads under EASY with
// idle nodes off at once on racked machines, and checks every allocator's
// node lists, racks-on figures and rack energy against internal/refplace,
// an independent placement replay written from patil.md alone; and the
// properties the paper's comparison rests on: placement never changes
// start times or node energy, first_available and last_available keep the
// same racks on at every instant (the mirror property), and the Maui
// names are the two mirror images.
func TestPlacementMatchesReference(t *testing.T) {
	allocs := []string{"first_available", "last_available", "rack_aware", "max_balance", "fastest", "min_resource", "cpu_load"}
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 11))
		size := []int{1, 2, 4, 5, 8}[seed%5]
		racks := 2 + rng.IntN(9)
		nodes := size * racks
		jobs := randomJobs(rng, 700, nodes, []float64{1, 60, 300}[seed%3])
		for _, est := range []EstimateKind{Requested, Exact} {
			t.Run(fmt.Sprintf("seed%d/%dx%d/est%d", seed, racks, size, est), func(t *testing.T) {
				m := rackMachine(nodes, size)
				m.Power = NodePower{Off: 3, Idle: 50, Busy: 200}
				var first *sim
				series := map[string]refplace.Series{}
				for _, a := range allocs {
					pol := Policy{Name: a, Backfill: EASY, Estimate: est, Shutdown: &Shutdown{}, Allocate: Allocation{Name: a}}
					s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), 200), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), recordNodes())
					if err != nil {
						t.Fatal(err)
					}
					if first == nil {
						first = s
					} else if !slices.Equal(s.start, first.start) || s.led.Energy[compBusy] != first.led.Energy[compBusy] {
						t.Fatalf("%s: start times or node energy differ from %s's", a, allocs[0])
					}
					series[a] = checkAgainstReference(t, s, a, nodes, racks)
				}
				if !slices.Equal(series["first_available"], series["last_available"]) {
					t.Error("first_available and last_available keep different racks on (mirror property)")
				}
				for _, pair := range [][2]string{{"max_balance", "first_available"}, {"fastest", "first_available"}, {"min_resource", "last_available"}, {"cpu_load", "last_available"}} {
					if !slices.Equal(series[pair[0]], series[pair[1]]) {
						t.Errorf("%s keeps other racks on than %s", pair[0], pair[1])
					}
				}
			})
		}
	}
}

// checkAgainstReference compares one run with refplace: each job's nodes
// (the allocator's choice replayed over the engine's schedule), the racks
// on recounted from the engine's node lists, and the rack energy, mean
// racks on, changes and switches over the run's span.
func checkAgainstReference(t *testing.T, s *sim, a string, nodes, racks int) refplace.Series {
	t.Helper()
	order := make([]int, len(s.jobs))
	for i := range order {
		order[i] = i
	}
	// Same-instant starts in the order the engine started them: queue
	// order, which for FCFS order is job order.
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case s.start[x] < s.start[y]:
			return -1
		case s.start[x] > s.start[y]:
			return 1
		}
		return 0
	})
	ref := make([]refplace.Job, len(order))
	placed := make([]refplace.Placed, len(order))
	for k, i := range order {
		ref[k] = refplace.Job{Start: s.start[i], End: s.end[i], EstEnd: s.start[i] + s.est[i], Nodes: int(s.alloc[i])}
		ids, err := refplace.ParseNodes(s.held[i], nodes)
		if err != nil {
			t.Fatalf("%s: job %d: %v", a, i, err)
		}
		placed[k] = refplace.Placed{Start: s.start[i], End: s.end[i], Nodes: ids}
	}
	rm := refplace.Machine{Nodes: nodes, Racks: racks}
	want, err := refplace.Place(rm, ref, refplace.Allocator(a))
	if err != nil {
		t.Fatalf("%s: reference: %v", a, err)
	}
	for k, i := range order {
		if !slices.Equal(placed[k].Nodes, want.Nodes[k]) {
			t.Fatalf("%s: job %d (start %v) holds %v; the reference places it on %v", a, i, s.start[i], placed[k].Nodes, want.Nodes[k])
		}
	}
	got, err := refplace.RacksOn(rm, placed)
	if err != nil {
		t.Fatal(err)
	}
	from, to := s.firstT, s.lastEnd
	sum, err := refplace.Summarize(got, racks, 633, from, to)
	if err != nil {
		t.Fatal(err)
	}
	var m Metrics = s.record().metrics()
	l := m.Levels[0]
	if !closeTo(l.Energy, sum.Energy) || !closeTo(l.AllOn, sum.AllOn) || !closeTo(l.Saving, sum.Saving) || !closeTo(l.OnMean, sum.MeanRacksOn) {
		t.Errorf("%s: rack energy %v J (all on %v, saving %v, mean on %v); from the node lists %v J (%v, %v, %v)",
			a, l.Energy, l.AllOn, l.Saving, l.OnMean, sum.Energy, sum.AllOn, sum.Saving, sum.MeanRacksOn)
	}
	if l.Changes != sum.Changes-1 || l.Switches != sum.Switches-got[0].RacksOn {
		// The engine counts from the end of the first instant; the
		// reference from all racks off before it.
		t.Errorf("%s: %d changes, %d switches; the reference counts %d and %d (from all off)", a, l.Changes, l.Switches, sum.Changes, sum.Switches)
	}
	return got
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
