package compiler_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/runtime"
)

// TestCurie compiles std/machines' curie and checks Georgiou et al.'s
// numbers (georgiou.md §1.1, §2.1, §2.3, §2.6) through the plan.
func TestCurie(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": `
		import "std/machines"
		import "std/policies"
		import "std/kunkel"
		policy mix from easy { frequency 2.0 GHz }
		experiment e { workload synthetic { jobs 10 }; machine curie; contract kunkel_fixed; policy mix }`}, compiler.Options{})
	m := r.Machine
	if m.Nodes != 5040 || m.Cores != 16 || m.Power.Off != 14 || m.Power.Idle != 117 || m.Power.Busy != 358 || m.Slowdown != 1.63 {
		t.Errorf("machine: %+v", m)
	}
	wantLevels := []runtime.Level{
		{Name: "chassis", Size: 18, Components: []runtime.PowerComponent{{Power: 248}}},
		{Name: "rack", Size: 90, Components: []runtime.PowerComponent{{Power: 900}}},
	}
	if !reflect.DeepEqual(m.Levels, wantLevels) {
		t.Errorf("levels: %+v", m.Levels)
	}
	ghz := []float64{2.7, 2.4, 2.2, 2.0, 1.8, 1.6, 1.4, 1.2}
	watts := []float64{358, 317, 289, 269, 248, 234, 213, 193}
	stretch := []float64{1.000, 1.126, 1.210, 1.294, 1.378, 1.462, 1.546, 1.630} // §2.6
	if len(m.PStates) != len(ghz) {
		t.Fatalf("pstates: %+v", m.PStates)
	}
	s := compiler.Summarize(&m)
	for i, ps := range m.PStates {
		if math.Abs(ps.Freq-ghz[i]*1e9) > 1e-3 || ps.Power != watts[i] {
			t.Errorf("pstate %d: %+v, want %g GHz %g W", i, ps, ghz[i], watts[i])
		}
		if math.Abs(s.Stretch[i]-stretch[i]) > 1e-12 {
			t.Errorf("s(%g GHz) = %.15g, want %g", ghz[i], s.Stretch[i], stretch[i])
		}
	}
	// MIX's lowest frequency: `frequency 2.0 GHz` is pstate 3, where jobs
	// run 1.294 times as long (the paper's 1.29).
	if f := r.Policy.Frequency; f.Kind != runtime.FreqPState || f.PState != 3 {
		t.Errorf("frequency: %+v", f)
	}
	if got := m.Stretch(r.Policy.Frequency.PState); math.Abs(got-1.294) > 1e-12 {
		t.Errorf("s(2.0 GHz) = %.15g, want 1.294", got)
	}
	// §2.3: all nodes at 2.7 GHz 1,804,320 W; levels 119,840 W; P_full
	// 1,924,160 W; the idle machine with its levels on 709,520 W.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"nodes at 2.7 GHz", s.NodesFull, 1_804_320},
		{"levels", s.LevelsOn, 119_840},
		{"P_full", s.Full, 1_924_160},
		{"idle", s.Idle, 709_520},
		// §2.1: a chassis' bonus and its saving from full load; a rack's.
		{"chassis total", s.Levels[0].Total, 280 * 248},
		{"chassis bonus", s.Levels[0].Bonus, 500},
		{"chassis saving", s.Levels[0].Saving, 6_692},
		{"rack total", s.Levels[1].Total, 56 * 900},
		{"rack bonus", s.Levels[1].Bonus, 3_400},
		{"rack saving", s.Levels[1].Saving, 34_360},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v W, want %v W", c.name, c.got, c.want)
		}
	}
	if s.Levels[0].Instances != 280 || s.Levels[1].Instances != 56 {
		t.Errorf("instances: %d chassis, %d racks", s.Levels[0].Instances, s.Levels[1].Instances)
	}
}

// TestPatilMachine: std/patil's p-class racks under both component
// models' scaling (patil.md §2.6): the interconnect is 133 W per 16 nodes,
// so a rack of 12 draws 99.75 W of it; the fans stay 500 W.
func TestPatilMachine(t *testing.T) {
	src := map[string]string{"main.pwr": `
		import "std/patil"
		import "std/kunkel"
		experiment e {
		  workload synthetic { jobs 10 }
		  machine pclass
		  contract kunkel_fixed
		  policy [rack_aware, maui_first_available, maui_min_resource] baseline maui_min_resource
		}`}
	p := compileOK(t, "main.pwr", src, compiler.Options{})
	m := p.Runs[0].Machine
	want := []runtime.Level{{Name: "rack", Size: 16, Components: []runtime.PowerComponent{{Name: "fans", Power: 500}, {Name: "interconnect", Power: 133}}}}
	if m.Nodes != 320 || !reflect.DeepEqual(m.Levels, want) {
		t.Errorf("machine: %d nodes, levels %+v", m.Nodes, m.Levels)
	}
	if s := compiler.Summarize(&m); s.LevelsOn != 20*633 || s.Full != 20*633 {
		t.Errorf("20 racks of 633 W: levels %v W, P_full %v W", s.LevelsOn, s.Full)
	}
	allocs := map[string]runtime.Allocation{}
	for _, r := range p.Runs {
		allocs[r.Policy.Name] = r.Policy.Allocate
		if sh := r.Policy.Shutdown; sh == nil || sh.After != 0 || r.Policy.Backfill != runtime.EASY {
			t.Errorf("%s: shutdown %+v, backfill %v", r.Policy.Name, sh, r.Policy.Backfill)
		}
	}
	wantAllocs := map[string]runtime.Allocation{
		"rack_aware":           {Name: "rack_aware", Level: -1},
		"maui_first_available": {Name: "first_available"},
		"maui_min_resource":    {Name: "min_resource"},
	}
	if !reflect.DeepEqual(allocs, wantAllocs) {
		t.Errorf("allocators: %+v", allocs)
	}

	p = compileOK(t, "main.pwr", src, compiler.Options{Sets: []compiler.Set{{Name: "nodes", Value: "240"}, {Name: "per_rack", Value: "12"}}})
	m = p.Runs[0].Machine
	if m.Nodes != 240 || m.Levels[0].Size != 12 || m.Levels[0].Components[0].Power != 500 || m.Levels[0].Components[1].Power != 99.75 {
		t.Errorf("20 racks of 12: %d nodes, levels %+v", m.Nodes, m.Levels)
	}
}

// TestLevelsAndPStatesInherited: a derived machine inherits levels and
// pstates, redefines a level by name (keeping the fields it does not set,
// and its place), adds levels above, and replaces the pstates by its own
// or by `busy`.
func TestLevelsAndPStatesInherited(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": `
		import "std/machines"
		import "std/policies"
		import "std/kunkel"
		machine wide from curie {
		  level rack { size 10 chassis }
		  level row  { size 4 rack; power { cooling 2 kW; network 10 W per node } }
		}
		machine slow from curie {
		  power { pstate 2.0 GHz 269 W; pstate 1.0 GHz 180 W; slowdown 2 at 1 GHz }
		}
		machine plain from curie {
		  power { busy 300 W }
		}
		policy low from easy { frequency 1 GHz }
		experiment e {
		  workload synthetic { jobs 10 }
		  machine [wide, slow, plain]
		  contract kunkel_fixed
		  policy easy
		}
		experiment f { workload synthetic { jobs 10 }; machine slow; contract kunkel_fixed; policy low }`}, compiler.Options{})
	wide, slow, plain := p.Runs[0].Machine, p.Runs[1].Machine, p.Runs[2].Machine
	wantWide := []runtime.Level{
		{Name: "chassis", Size: 18, Components: []runtime.PowerComponent{{Power: 248}}},
		{Name: "rack", Size: 180, Components: []runtime.PowerComponent{{Power: 900}}},
		{Name: "row", Size: 720, Components: []runtime.PowerComponent{{Name: "cooling", Power: 2000}, {Name: "network", Power: 7200}}},
	}
	if !reflect.DeepEqual(wide.Levels, wantWide) || len(wide.PStates) != 8 || wide.Power.Busy != 358 {
		t.Errorf("wide: levels %+v, %d pstates, busy %v", wide.Levels, len(wide.PStates), wide.Power.Busy)
	}
	if len(slow.PStates) != 2 || slow.PStates[1].Freq != 1e9 || slow.Slowdown != 2 || slow.Power.Busy != 269 || len(slow.Levels) != 2 {
		t.Errorf("slow: %+v", slow)
	}
	if math.Abs(slow.Stretch(1)-2) > 1e-12 {
		t.Errorf("slow: s(1 GHz) = %v", slow.Stretch(1))
	}
	if len(plain.PStates) != 0 || plain.Power.Busy != 300 || plain.Stretch(0) != 1 {
		t.Errorf("plain: %+v", plain)
	}
	if f := p.Runs[3].Policy.Frequency; f.Kind != runtime.FreqPState || f.PState != 1 {
		t.Errorf("frequency 1 GHz on slow: %+v", f)
	}
}

// TestPolicyStages reads the allocation and frequency stages and the
// shutdown reserve, and checks that each `allocate` replaces the last.
func TestPolicyStages(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": `
		import "std/machines"
		import "std/policies"
		import "std/kunkel"
		param low = 2.0 GHz
		policy by_rack from easy { allocate rack_aware by rack; shutdown idle after 5 min keep 90 }
		policy units from by_rack { allocate contiguous 18 }
		policy first from units { allocate first_available }
		policy ruled from easy { frequency rule peak || job.partition == 10 ? low : 2.7e9 }
		policy top from ruled { frequency max }
		experiment e {
		  workload synthetic { jobs 10 }
		  machine curie
		  contract kunkel_fixed
		  policy [by_rack, units, first, ruled, top]
		}`}, compiler.Options{})
	pol := map[string]runtime.Policy{}
	for _, r := range p.Runs {
		pol[r.Policy.Name] = r.Policy
	}
	if a := pol["by_rack"].Allocate; a != (runtime.Allocation{Name: "rack_aware", Level: 1}) || pol["by_rack"].Contiguous != 0 {
		t.Errorf("by_rack: %+v", a)
	}
	if sh := pol["by_rack"].Shutdown; sh == nil || *sh != (runtime.Shutdown{After: 300, Keep: 90}) {
		t.Errorf("by_rack: shutdown %+v", sh)
	}
	if u := pol["units"]; u.Allocate != (runtime.Allocation{}) || u.Contiguous != 18 {
		t.Errorf("units: %+v, contiguous %d", u.Allocate, u.Contiguous)
	}
	if f := pol["first"]; f.Allocate != (runtime.Allocation{Name: "first_available"}) || f.Contiguous != 0 {
		t.Errorf("first: %+v, contiguous %d", f.Allocate, f.Contiguous)
	}
	f := pol["ruled"].Frequency
	if f.Kind != runtime.FreqRule || f.Rule == nil || f.Rule.Fields != runtime.FieldPartition {
		t.Fatalf("ruled: %+v", f)
	}
	env := &runtime.Env{Job: runtime.JobEnv{Partition: 10}}
	if got := f.Rule.Num(env); got != 2e9 {
		t.Errorf("ruled: %v Hz for partition 10", got)
	}
	env.Job.Partition = 3
	if got := f.Rule.Num(env); got != 2.7e9 {
		t.Errorf("ruled: %v Hz for partition 3", got)
	}
	if f := pol["top"].Frequency; f.Kind != runtime.FreqMax || f.Rule != nil {
		t.Errorf("top: %+v", f)
	}
}

// TestWorkloadCuts reads `keep` and `submitted` for both kinds of
// workload.
func TestWorkloadCuts(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + `
		experiment e {
		  workload swf "t.swf" { keep job.partition == 10 && job.queue != 2; submitted 0 d .. 547.5 d }
		  machine m
		  contract kunkel_fixed
		  policy easy
		}
		experiment f {
		  workload synthetic { jobs 10; submitted "2012-09-05 11:00" .. 2 d }
		  machine m
		  contract kunkel_fixed
		  policy easy
		}`}, compiler.Options{})
	w := p.Runs[0].Workload
	if w.Keep == nil || w.Keep.Source != "job.partition == 10 && job.queue != 2" || w.Keep.Fields != runtime.FieldPartition|runtime.FieldQueue {
		t.Fatalf("keep: %+v", w.Keep)
	}
	if !w.Keep.Bool(&runtime.Env{Job: runtime.JobEnv{Partition: 10, Queue: 1}}) || w.Keep.Bool(&runtime.Env{Job: runtime.JobEnv{Partition: 10, Queue: 2}}) {
		t.Error("keep: wrong values")
	}
	if s := w.Submitted; s == nil || *s != (runtime.Window{To: runtime.Instant{Offset: 547.5 * 86400}}) {
		t.Errorf("submitted: %+v", s)
	}
	if s := p.Runs[1].Workload.Submitted; s == nil || *s != (runtime.Window{From: runtime.Instant{Date: "2012-09-05T11:00:00"}, To: runtime.Instant{Offset: 2 * 86400}}) {
		t.Errorf("synthetic submitted: %+v", s)
	}
}
