package powercap

import (
	"math"
	"strings"
	"testing"
)

// curiePStates is Fig. 4 of the paper: node power per frequency, highest first.
var curiePStates = []PState{
	{2.7e9, 358}, {2.4e9, 317}, {2.2e9, 289}, {2.0e9, 269},
	{1.8e9, 248}, {1.6e9, 234}, {1.4e9, 213}, {1.2e9, 193},
}

const mix = 3 // index of 2.0 GHz in curiePStates

// curie is the 5040-node Curie of georgiou.md §1.1, with its chassis and
// racks if levels is set (pwrc's machine) or without (the paper's model).
func curie(levels bool) *Machine {
	m := &Machine{Nodes: 5040, Off: 14, Idle: 117, PStates: curiePStates, Deg: 1.63}
	if levels {
		m.Levels = []Level{{"chassis", 18, 248}, {"rack", 90, 900}}
	}
	return m
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// §2.1 and acceptance check 1.
func TestCurieLevels(t *testing.T) {
	m := curie(true)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	s := m.Max() - m.Off
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"node saving", s, 344},
		{"chassis bonus", m.Bonus(0), 500},
		{"chassis saving", m.GroupSaving(0, s), 6692},
		{"rack bonus", m.Bonus(1), 3400},
		{"rack saving", m.GroupSaving(1, s), 34360},
		{"chassis instances", float64(m.Instances(0)), 280},
		{"rack instances", float64(m.Instances(1)), 56},
		// "at least 1 extra node" per chassis, "at least 9" per rack, by
		// ⌊bonus/358⌋ and ⌊bonus/344⌋ alike.
		{"chassis extra nodes /358", math.Floor(m.Bonus(0) / 358), 1},
		{"chassis extra nodes /344", math.Floor(m.Bonus(0) / 344), 1},
		{"rack extra nodes /358", math.Floor(m.Bonus(1) / 358), 9},
		{"rack extra nodes /344", math.Floor(m.Bonus(1) / 344), 9},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// §2.3 and acceptance check 1.
func TestCurieTotals(t *testing.T) {
	m := curie(true)
	if got := float64(m.Nodes) * m.Max(); got != 1_804_320 {
		t.Errorf("all busy at 2.7 GHz = %v, want 1,804,320", got)
	}
	if got := m.LevelPower(); got != 119_840 {
		t.Errorf("level power = %v, want 119,840", got)
	}
	if got := m.FullPower(); got != 1_924_160 {
		t.Errorf("P_full = %v, want 1,924,160", got)
	}
	if got := m.IdlePower(); got != 709_520 {
		t.Errorf("idle machine = %v, want 709,520", got)
	}
	if got := m.IdlePower() / m.FullPower(); !near(got, 0.3687, 5e-5) {
		t.Errorf("idle share = %v, want 36.87 %%", got)
	}
	if got := curie(false).FullPower(); got != 1_804_320 {
		t.Errorf("levels-free P_full = %v, want 1,804,320", got)
	}
	// Full load with nothing off is P_full; with everything off, 0 (the
	// chassis feed the BMCs); levels-free, everything off draws N·P_off.
	all := Groups{Count: []int{0, 56}}
	if got := m.FullLoad(Groups{}, 0, 0); got != 1_924_160 {
		t.Errorf("FullLoad(nothing off) = %v", got)
	}
	if got := m.FullLoad(all, 0, 0); got != 0 {
		t.Errorf("FullLoad(all racks off) = %v, want 0", got)
	}
	if got := curie(false).FullLoad(Groups{Singles: 5040}, 0, 0); got != 5040*14 {
		t.Errorf("levels-free FullLoad(all off) = %v, want 70,560", got)
	}
}

// §2.6 and acceptance check 4: s(f) is linear in frequency.
func TestSlowdown(t *testing.T) {
	m := curie(true)
	want := []float64{1.000, 1.126, 1.210, 1.294, 1.378, 1.462, 1.546, 1.630}
	for i, w := range want {
		if got := m.Slowdown(i); !near(got, w, 1e-9) {
			t.Errorf("s(%.1f GHz) = %.12f, want %.3f", m.PStates[i].Hz/1e9, got, w)
		}
	}
	// Linear in pstate index would give 1 + 0.63·4/7 = 1.36 at 2.0 GHz, and the
	// paper's MIX value 1.29 comes out only linear in frequency.
	if got := m.Slowdown(mix); math.Abs(got-1.29) > 0.005 {
		t.Errorf("s(2.0 GHz) = %v, want ≈ 1.29", got)
	}
	one := &Machine{Nodes: 1, PStates: curiePStates[:1], Deg: 2}
	if got := one.Slowdown(0); got != 1 {
		t.Errorf("single pstate slowdown = %v, want 1", got)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Machine)
		want string // substring of the error
	}{
		{"no nodes", func(m *Machine) { m.Nodes = 0 }, "nodes"},
		{"negative off", func(m *Machine) { m.Off = -1 }, "off"},
		{"NaN idle", func(m *Machine) { m.Idle = math.NaN() }, "idle"},
		{"no pstate", func(m *Machine) { m.PStates = nil }, "no pstate"},
		{"pstates out of order", func(m *Machine) {
			m.PStates = []PState{{2.7e9, 358}, {2.0e9, 269}, {2.4e9, 317}}
		}, "pstate 2"},
		{"power not decreasing", func(m *Machine) {
			m.PStates = []PState{{2.7e9, 358}, {2.0e9, 358}}
		}, "pstate 1"},
		{"off above lowest", func(m *Machine) { m.Off = 193 }, "save nothing"},
		{"slowdown below 1", func(m *Machine) { m.Deg = 0.9 }, "slowdown"},
		{"level not dividing", func(m *Machine) { m.Levels[1].Size = 108 }, "remainder 72"},
		{"level not nested", func(m *Machine) { m.Levels[1].Size = 84 }, "multiple"},
		{"level not above", func(m *Machine) { m.Levels[1].Size = 18 }, "multiple"},
		{"negative level power", func(m *Machine) { m.Levels[0].Watts = -1 }, "level 0"},
	} {
		m := curie(true)
		m.Levels = append([]Level(nil), m.Levels...)
		c.edit(m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
