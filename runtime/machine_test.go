package runtime

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pwrc/pwrc/runtime/machine"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// TestCountedEqualsIdentified replays random workloads on the counted
// fast path and on a table of identified nodes with the same allocation
// (most recently idle first): schedules, energy by component, and the
// machine's state after every instant must be identical, through
// shutdowns with and without a reserve, boots and shutdown delays,
// budgets and contiguous units; so must the nodes switched on, in all and
// node by node (the counted machine gives its nodes a table's identities
// for that). The node lists must never overlap while
// jobs hold them.
func TestCountedEqualsIdentified(t *testing.T) {
	policies := []Policy{
		{Name: "easy", Backfill: EASY},
		{Name: "greedy", Backfill: Greedy, Depth: 4},
		{Name: "easy_off0", Backfill: EASY, Shutdown: &Shutdown{After: 0}},
		{Name: "easy_off600", Backfill: EASY, Shutdown: &Shutdown{After: 600}},
		{Name: "easy_off_keep", Backfill: EASY, Shutdown: &Shutdown{After: 300, Keep: 5}},
		{Name: "fcfs_off_units", Shutdown: &Shutdown{After: 120}, Contiguous: 4},
		{Name: "budget_off", Backfill: EASY, Shutdown: &Shutdown{After: 60, Keep: 2}, Budget: &Budget{Power: 260 * 48}},
	}
	randomCases{seeds: 10, stream: 7, jobs: 600, span: 40, unit: 4}.run(t, policies, func(t *testing.T, _ uint64, jobs []workload.Job, m *Machine, pol *Policy) {
		budget := math.Inf(1)
		if pol.Budget != nil {
			budget = pol.Budget.Power
		}
		run := func(opts ...simOption) *sim {
			s, err := simulate(jobs, m, m.Nodes, pol, constPower(len(jobs), 260), budget, tariff.Clock{}, tariff.Flat(0.1), append(opts, recordStates())...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		c, id := run(), run(recordNodes())
		if _, ok := c.mach.(*machine.Counted); !ok {
			t.Fatalf("the plain run is not on the counted path: %T", c.mach)
		}
		if c.cnt.Boots != id.cnt.Boots {
			t.Fatalf("boots differ: counted %d, identified %d", c.cnt.Boots, id.cnt.Boots)
		}
		if pol.Shutdown != nil {
			cb, ib := c.mach.(*machine.Counted).Boots(), id.mach.(*machine.Table).Boots()
			if ib == nil {
				ib = make([]uint32, len(cb)) // (a table makes its counts at the first boot)
			}
			if !slices.Equal(cb, ib) {
				t.Fatalf("boots per node differ: counted %v, identified %v", cb, ib)
			}
			sum := 0
			for _, k := range cb {
				sum += int(k)
			}
			if sum != c.cnt.Boots {
				t.Fatalf("boots per node add up to %d, the machine counted %d", sum, c.cnt.Boots)
			}
		}
		if !slices.Equal(c.start, id.start) || !slices.Equal(c.end, id.end) {
			t.Fatal("schedules differ")
		}
		if !slices.Equal(c.led.Energy, id.led.Energy) {
			t.Fatalf("energy differs: %v vs %v", c.led.Energy, id.led.Energy)
		}
		if !slices.Equal(c.states.Times, id.states.Times) || !slices.Equal(c.states.Values, id.states.Values) {
			t.Fatal("machine states differ")
		}
		checkNoOverlap(t, id, m.Nodes)
	})
}

// checkNoOverlap checks that no node is held by two jobs at once (from
// start, boots included, to end) and that every job holds its allocation.
func checkNoOverlap(t *testing.T, s *sim, nodes int) {
	t.Helper()
	type ev struct {
		t     float64
		start bool
		j     int
	}
	var evs []ev
	for j := range s.jobs {
		held := parseRanges(t, s.held[j])
		if len(held) != int(s.alloc[j]) {
			t.Fatalf("job %d holds %d nodes (%s), allocated %d", j, len(held), s.held[j], s.alloc[j])
		}
		begin := s.start[j]
		if s.machine.BootTime > 0 {
			begin -= s.machine.BootTime // it may hold nodes while they boot
		}
		evs = append(evs, ev{begin, true, j}, ev{s.end[j], false, j})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		if a.start != b.start { // ends first
			if a.start {
				return 1
			}
			return -1
		}
		return a.j - b.j
	})
	owner := make([]int, nodes)
	for i := range owner {
		owner[i] = -1
	}
	for _, e := range evs {
		for _, n := range parseRanges(t, s.held[e.j]) {
			switch {
			case e.start && owner[n] >= 0 && s.start[owner[n]] <= s.start[e.j]-1e-9 && s.end[owner[n]] > s.start[e.j]:
				t.Fatalf("node %d: job %d starts at %v while job %d holds it until %v", n, e.j, s.start[e.j], owner[n], s.end[owner[n]])
			case e.start:
				owner[n] = e.j
			case owner[n] == e.j:
				owner[n] = -1
			}
		}
	}
}

// parseRanges reads "0-3,7" back into ids.
func parseRanges(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	if s == "" {
		return out
	}
	var lo, hi int
	for _, part := range splitComma(s) {
		if n, _ := fmt.Sscanf(part, "%d-%d", &lo, &hi); n == 2 {
			for i := lo; i <= hi; i++ {
				out = append(out, i)
			}
			continue
		}
		if _, err := fmt.Sscanf(part, "%d", &lo); err != nil {
			t.Fatalf("bad range %q in %q", part, s)
		}
		out = append(out, lo)
	}
	return out
}

func splitComma(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != ',' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
