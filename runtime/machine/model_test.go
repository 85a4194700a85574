package machine

import (
	"math"
	"testing"

	"github.com/pwrc/pwrc/runtime/alloc"
)

// curie is Curie's thin nodes as Georgiou et al. give them (georgiou.md
// §1.1): chassis of 18 nodes drawing 248 W, racks of 5 chassis drawing
// 900 W, nodes off 14 W, idle 117 W, 358 W busy at 2.7 GHz … 193 W at 1.2.
func curie() Spec {
	return Spec{
		Nodes:   5040,
		Power:   NodePower{Off: 14, Idle: 117, Busy: 358},
		PStates: []float64{358, 317, 289, 269, 248, 234, 213, 193},
		Levels: []Level{
			{Name: "chassis", Size: 18, Components: []Component{{Power: 248}}},
			{Name: "rack", Size: 90, Components: []Component{{Power: 900}}},
		},
	}
}

// TestCurieBonus checks the worked numbers of georgiou.md §2.1 and §2.3.
func TestCurieBonus(t *testing.T) {
	m := NewModel(curie())
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"chassis bonus", m.Bonus(0), 500},     // 248 + 18 × 14
		{"chassis saving", m.Saving(0), 6692},  // 18 × 358 + 248
		{"rack bonus", m.Bonus(1), 3400},       // 900 + 5 × 500
		{"rack saving", m.Saving(1), 34360},    // 5 × 6692 + 900
		{"levels on", m.AllLevelsOn(), 119840}, // 280 × 248 + 56 × 900
		{"P_full", m.Full(), 1924160},          // 5040 × 358 + levels
	} {
		if c.got != c.want {
			t.Errorf("%s: %v W, want %v W", c.name, c.got, c.want)
		}
	}
	if m.Instances(0) != 280 || m.Instances(1) != 56 {
		t.Errorf("instances: %d chassis, %d racks; want 280 and 56", m.Instances(0), m.Instances(1))
	}
	// The idle machine with every level on: 589,680 + 119,840 W.
	c := Counts{Idle: 5040, LevelsOn: []int{280, 56}, BusyAt: make([]int, 8), JobWAt: make([]float64, 8)}
	out := make([]float64, len(m.Components()))
	if got := m.Power(&c, out); got != 709520 {
		t.Errorf("idle machine: %v W, want 709,520 W", got)
	}
}

// TestLevelPowerFollowsNodes switches Curie's nodes off chassis by chassis
// on a Table and checks the power the model computes from the counts
// against the saving table: one chassis off from idle saves 18 × 117 +
// 248 W, and the off power of its nodes only while the chassis is on.
func TestLevelPowerFollowsNodes(t *testing.T) {
	m := NewModel(curie())
	tb, err := NewTable(m, 5040, 0, alloc.FirstAvailable{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(m.Components()))
	power := func() float64 { return m.Power(tb.Counts(), out) }
	idle := power()
	// Nodes idle since 0, switched off at 10 s after 10 s, keeping all
	// but 17: the Sleeper leaves no chassis with a node on.
	if n := tb.SwitchOff(10, 10, 5040-17, false); n != 17 {
		t.Fatalf("switched off %d nodes, want 17", n)
	}
	// 17 nodes of one chassis off: they draw 14 W each, the chassis stays on.
	if got, want := idle-power(), 17*(117.0-14); got != want {
		t.Errorf("17 nodes off save %v W, want %v", got, want)
	}
	if tb.Counts().LevelsOn[0] != 280 {
		t.Errorf("%d chassis on, want 280", tb.Counts().LevelsOn[0])
	}
	if n := tb.SwitchOff(10, 10, 5040-18, false); n != 1 {
		t.Fatalf("switched off %d nodes, want 1", n)
	}
	// The 18th: the chassis goes off, and with it its nodes' 14 W.
	if got, want := idle-power(), 18*117.0+248; got != want {
		t.Errorf("a chassis off saves %v W, want %v", got, want)
	}
	if c := tb.Counts(); c.LevelsOn[0] != 279 || c.LevelsOn[1] != 56 || c.OffDark != 18 {
		t.Errorf("levels on %v, dark off nodes %d; want [279 56] and 18", c.LevelsOn, c.OffDark)
	}
	// The rest of its rack: 90 nodes off save the rack's bonus as well.
	if n := tb.SwitchOff(10, 10, 5040-90, false); n != 72 {
		t.Fatalf("switched off %d nodes, want 72", n)
	}
	if got, want := idle-power(), 90*117.0+5*248+900; got != want {
		t.Errorf("a rack off saves %v W, want %v", got, want)
	}
	if c := tb.Counts(); c.LevelsOn[0] != 275 || c.LevelsOn[1] != 55 {
		t.Errorf("levels on %v, want [275 55]", c.LevelsOn)
	}
	if math.IsNaN(power()) {
		t.Fatal("NaN power")
	}
}

// TestBootPrefersLevelsOn: with a boot time, a job takes the idle nodes
// first, then boots off nodes in the chassis already on (the fullest
// first) before switching on an off one.
func TestBootPrefersLevelsOn(t *testing.T) {
	m := NewModel(Spec{Nodes: 12, Power: NodePower{Off: 1, Idle: 10, Busy: 100},
		Levels: []Level{{Name: "chassis", Size: 4, Components: []Component{{Power: 50}}}}})
	tb, err := NewTable(m, 12, 2, alloc.FirstAvailable{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	// All off but two nodes: the Sleeper keeps the last chassis on.
	if n := tb.SwitchOff(0, 0, 2, false); n != 10 {
		t.Fatalf("switched off %d, want 10", n)
	}
	got := map[int32]bool{}
	for i := range tb.State().IdleSet().All() {
		got[int32(i)] = true
	}
	if len(got) != 2 {
		t.Fatalf("idle nodes %v, want 2", got)
	}
	// A 4-node job: the 2 idle nodes, then 2 off nodes of the same chassis.
	if booting := tb.Take(0, Use{N: 4, Work: 4, W: 400}, 100, true); booting != 2 {
		t.Fatalf("%d nodes boot, want 2", booting)
	}
	ids := tb.Held(nil, 0)
	for _, i := range ids {
		if i/4 != ids[0]/4 {
			t.Fatalf("job 0 holds %v: it switched another chassis on", ids)
		}
	}
	if tb.Counts().LevelsOn[0] != 1 {
		t.Errorf("%d chassis on, want 1", tb.Counts().LevelsOn[0])
	}
}
