package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	pcap "github.com/pwrc/pwrc/runtime/powercap"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// curieLike is Curie's node and level powers and pstates on a machine of
// n nodes (chassis of 18, racks of 5 chassis).
func curieLike(n int) Machine {
	return Machine{Name: "curie", Nodes: n, Cores: 16, PStates: curiePStates(), Slowdown: 1.63,
		Power: NodePower{Off: 14, Idle: 117, Busy: 358, Boot: 117, Shutdown: 117},
		Levels: []Level{{Name: "chassis", Size: 18, Components: []PowerComponent{{Power: 248}}},
			{Name: "rack", Size: 90, Components: []PowerComponent{{Power: 900}}}}}
}

// TestAlg2Toy is georgiou.md §2.9: 4 nodes, one busy at 2.7 GHz, three
// idle (709 W); a 2-node job under a 1000 W cap starts at 1.8 GHz by
// Alg. 2 as printed (fit_job) and at 1.4 GHz by SLURM's rule (fit_idle);
// under 800 W it waits for the first job to end.
func TestAlg2Toy(t *testing.T) {
	m := Machine{Name: "toy", Nodes: 4, PStates: curiePStates(), Slowdown: 1.63, Power: NodePower{Idle: 117, Busy: 358}}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Nodes: 1, Procs: 1},
		{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Nodes: 2, Procs: 2},
	}
	at := Instant{Offset: 10}
	for _, c := range []struct {
		name  string
		cap   float64
		fit   FitRule
		ghz   float64
		start float64
	}{
		{"fit_job 1000 W", 1000, FitJob, 1.8, 10},
		{"fit_idle 1000 W", 1000, FitIdle, 1.4, 10},
		{"fit_job 800 W", 800, FitJob, 2.7, 510}, // waits, then starts uncapped after the window
		{"fit_idle 800 W", 800, FitIdle, 2.7, 510},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol := Policy{Name: "p", Backfill: EASY, Powercaps: []Powercap{{Power: c.cap, Start: &at, Duration: 500, Notice: &at, Mode: CapDVFS, Fit: c.fit}}}
			s, err := simulate(jobs, &m, 4, &pol, []float64{358, 358}, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.PStates[s.pstate[1]].Freq / 1e9; got != c.ghz || s.start[1] != c.start {
				t.Errorf("job 2 starts at %v s at %.1f GHz; want %v s at %.1f GHz", s.start[1], got, c.start, c.ghz)
			}
			if s.pstate[0] != 0 {
				t.Errorf("job 1, started before the notice, runs at pstate %d", s.pstate[0])
			}
		})
	}
}

// Alg. 2's early bound holds on a machine whose slower pstate draws more
// (check only warns about it): 4 nodes, 2.0 GHz 200 W and 1.0 GHz 300 W,
// idle 100 W; job 1 holds 2 nodes (600 W in all); job 2 (2 nodes) under an
// 850 W cap fits at 2.0 GHz (+200 W) though not at 1.0 GHz (+400 W), and
// starts at once. (A bound taken at the slowest pstate alone refused it:
// 600 − 2 × 100 > 850 − 600.)
func TestAlg2BoundNonMonotonePower(t *testing.T) {
	m := Machine{Name: "odd", Nodes: 4, Slowdown: 2, Power: NodePower{Idle: 100, Busy: 200},
		PStates: []PState{{Freq: 2e9, Power: 200}, {Freq: 1e9, Power: 300}}}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 1000, Walltime: 1000, Nodes: 2, Procs: 2},
		{ID: 2, Submit: 10, Runtime: 100, Walltime: 100, Nodes: 2, Procs: 2},
	}
	at := Instant{Offset: 10}
	pol := Policy{Name: "p", Backfill: EASY, Powercaps: []Powercap{{Power: 850, Start: &at, Duration: 500, Notice: &at, Mode: CapDVFS, Fit: FitJob}}}
	s, err := simulate(jobs, &m, 4, &pol, []float64{200, 200}, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	if s.start[1] != 10 || s.pstate[1] != 0 {
		t.Errorf("job 2 starts at %v s at pstate %d; want 10 s at pstate 0 (2.0 GHz)", s.start[1], s.pstate[1])
	}
}

// A window that ends before the first submission caps nothing, and the
// run says so (check warns too, but only `pwrc check` reads whole traces).
func TestPowercapWindowBeforeTrace(t *testing.T) {
	m := curieLike(90)
	jobs := []workload.Job{
		{ID: 1, Submit: 1000, Runtime: 100, Walltime: 100, Nodes: 80, Procs: 80},
		{ID: 2, Submit: 1010, Runtime: 100, Walltime: 100, Nodes: 80, Procs: 80},
	}
	at := Instant{Offset: -5000} // (offsets count from the first submission)
	pol := Policy{Name: "p", Backfill: EASY, Powercaps: []Powercap{{Share: 0.4, Start: &at, Duration: 3600, Mode: CapShut}}}
	s, err := simulate(jobs, &m, 90, &pol, []float64{358, 358}, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	if s.start[0] != 1000 || s.start[1] != 1100 {
		t.Errorf("starts %v, want EASY's [1000 1100]", s.start)
	}
	if notes := strings.Join(s.caps.planNotes(s), "\n"); !strings.Contains(notes, "ends before the first submission: it caps nothing") {
		t.Errorf("notes %q", notes)
	}
}

// TestPowercapInvariants replays random workloads on a Curie-like machine
// under every mode and several caps (georgiou.md §6 items 9–13):
//   - a 100 % cap, or a window after the last job, gives plain EASY's
//     schedule and energy;
//   - until the notice every mode schedules as EASY does;
//   - while the window is open the machine never draws more than the cap
//     (every job starts after the notice), checked on the state series;
//   - each job runs its run time × s(its pstate), at a pstate its mode allows.
func TestPowercapInvariants(t *testing.T) {
	modes := []CapMode{CapShut, CapDVFS, CapMix, CapIdle, CapAuto}
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 5))
		nodes := 180
		m := curieLike(nodes)
		jobs := randomJobs(rng, 500, nodes/2, []float64{1, 60, 300}[seed%3])
		pw := make([]float64, len(jobs))
		for i := range pw {
			pw[i] = 358
		}
		last := jobs[len(jobs)-1].Submit
		run := func(pol Policy) *sim {
			s, err := simulate(jobs, &m, nodes, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), recordStates())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		easy := run(Policy{Name: "easy", Backfill: EASY})
		notice := Instant{Offset: last / 3}
		from := Instant{Offset: last / 2}
		for _, mode := range modes {
			for _, share := range []float64{1, 0.8, 0.6, 0.4} {
				t.Run(fmt.Sprintf("seed%d/%s/%.0f%%", seed, CapModeNames[mode], 100*share), func(t *testing.T) {
					pc := Powercap{Share: share, Start: &from, Duration: 6 * 3600, Notice: &notice, Mode: mode}
					if mode == CapMix {
						pc.Lowest = 2.0e9
					}
					s := run(Policy{Name: "cap", Backfill: EASY, Powercaps: []Powercap{pc}})
					if share == 1 && (!slices.Equal(s.start, easy.start) || !slices.Equal(s.led.Energy, easy.led.Energy)) {
						t.Fatal("a 100 % cap changed EASY's schedule or energy")
					}
					for j := range jobs {
						if easy.start[j] < notice.Offset+jobs[0].Submit && s.start[j] != easy.start[j] {
							t.Fatalf("job %d starts at %v, before the notice; EASY starts it at %v", j, s.start[j], easy.start[j])
						}
						p := int(s.pstate[j])
						if got, want := s.end[j]-s.start[j], jobs[j].Runtime*m.Stretch(p); !s.caps.gone[j] && math.Abs(got-want) > 1e-9*want {
							t.Fatalf("job %d runs %v s at pstate %d, want %v", j, got, p, want)
						}
						if (mode == CapShut || mode == CapIdle) && p != 0 || mode == CapMix && p > 3 {
							t.Fatalf("job %d runs at pstate %d under mode %s", j, p, CapModeNames[mode])
						}
					}
					cap := share * (float64(nodes)*358 + 10*248 + 2*900)
					a, b := from.Offset+jobs[0].Submit, from.Offset+jobs[0].Submit+6*3600
					ss := s.states
					k := len(ss.Columns)
					for r, tm := range ss.Times {
						if ss.Until(r) <= a || tm >= b {
							continue
						}
						var p float64
						for c, name := range ss.Columns {
							if _, ok := PowerColumn(name); ok {
								p += ss.Values[r*k+c]
							}
						}
						if p > cap*(1+1e-9) {
							t.Fatalf("at %v s the machine draws %v W, above the cap of %v W", tm, p, cap)
						}
					}
					if share == 0.4 && slices.Equal(s.start, easy.start) && slices.Equal(s.pstate, easy.pstate) {
						t.Error("a 40 % cap changed nothing: the test would not see a violation")
					}
					if s.caps.excessSeconds != 0 {
						t.Errorf("cap_excess %v s, %v W", s.caps.excessSeconds, s.caps.excessMax)
					}
				})
			}
		}
		t.Run(fmt.Sprintf("seed%d/after the last job", seed), func(t *testing.T) {
			late := Instant{Offset: slices.Max(easy.end) - jobs[0].Submit + 10} // after the last job ends
			s := run(Policy{Name: "late", Backfill: EASY, Powercaps: []Powercap{{Share: 0.4, Start: &late, Duration: 3600, Notice: &late, Mode: CapMix, Lowest: 2e9}}})
			if !slices.Equal(s.start, easy.start) || !slices.Equal(s.led.Energy, easy.led.Energy) {
				for j := range jobs {
					if s.start[j] != easy.start[j] {
						t.Fatalf("job %d starts at %v, under EASY at %v", j, s.start[j], easy.start[j])
					}
				}
				t.Fatalf("energy %v, under EASY %v", s.led.Energy, easy.led.Energy)
			}
		})
	}
}

// TestMeasureWindow works the measure window's figures by hand: 4 nodes
// of 2 cores; job 1 (2 nodes, 4 procs) runs 0–100 s, job 2 (1 node, 2
// procs) 50–250 s at the lowest pstate (s = 2); window 60..160 s.
func TestMeasureWindow(t *testing.T) {
	m := Machine{Name: "m", Nodes: 4, Cores: 2, Slowdown: 2, Power: NodePower{Idle: 10, Busy: 100},
		PStates: []PState{{Freq: 2e9, Power: 100}, {Freq: 1e9, Power: 60}}}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Nodes: 2, Procs: 4},
		{ID: 2, Submit: 50, Runtime: 100, Walltime: 100, Nodes: 1, Procs: 2},
	}
	rule := &Expr{Source: "job.id == 2 ? 1e9 : 2e9", Deps: DepJob, Fields: FieldID, Num: func(e *Env) float64 {
		if e.Job.ID == 2 {
			return 1e9
		}
		return 2e9
	}}
	pol := Policy{Name: "p", Frequency: Frequency{Kind: FreqRule, Rule: rule}}
	s, err := simulate(jobs, &m, 4, &pol, []float64{100, 100}, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), measureOver(60, 160))
	if err != nil {
		t.Fatal(err)
	}
	r := s.record().metrics()
	// In [60, 160): job 1 for 40 s × 4 cores, job 2 (50–250) for 100 s × 2.
	if r.Launched != 0 || r.CPUSeconds != 40*4+100*2 || r.UsefulSeconds != 40*4+100*2/2.0 {
		t.Errorf("launched %d, cpu %v core-s, useful %v; want 0, 360, 260", r.Launched, r.CPUSeconds, r.UsefulSeconds)
	}
	// freq: 160 of the 360 core-seconds at the top pstate, 200 at the other.
	if got := r.PStateCoreShare; len(got) != 2 || math.Abs(got[0]-160.0/360) > 1e-12 || math.Abs(got[1]-200.0/360) > 1e-12 {
		t.Errorf("core-time shares %v, want [4/9 5/9]", got)
	}
	if got := r.CPUPct; got != 100*360.0/(8*100) {
		t.Errorf("cpu_time_pct %v, want 45", got)
	}
	// Energy in the window: 60–100: 2×100 + 60 + 10 = 270 W; 100–160: 60 + 3×10 = 90 W.
	if want := 40*270.0 + 60*90; r.Energy != want || r.EnergyPct != 100*want/(4*100*100) {
		t.Errorf("energy %v J (%v %%), want %v J", r.Energy, r.EnergyPct, want)
	}
}

// TestRunningKill: a cap window with `running kill`, noticed as it starts
// while the machine is above it, kills the most recently started jobs until the
// machine is under the cap, and from then on the power stays under it.
func TestRunningKill(t *testing.T) {
	m := Machine{Name: "m", Nodes: 10, Power: NodePower{Idle: 50, Busy: 300}}
	var jobs []workload.Job
	for k := range 10 {
		jobs = append(jobs, workload.Job{ID: int64(k + 1), Submit: float64(k), Runtime: 1000, Walltime: 1000, Nodes: 1, Procs: 1})
	}
	at := Instant{Offset: 100}
	pol := Policy{Name: "kill", Backfill: EASY, Powercaps: []Powercap{{Power: 1800, Start: &at, Duration: 5000, Notice: &at, Kill: true, Mode: CapIdle}}}
	pw := make([]float64, len(jobs))
	for i := range pw {
		pw[i] = 300
	}
	s, err := simulate(jobs, &m, 10, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), recordStates())
	if err != nil {
		t.Fatal(err)
	}
	// All 10 run at 3 kW; at 100 s the cap of 1.8 kW applies: 6 jobs must
	// go (4 × 300 + 6 × 50 = 1.5 kW; 5 × 300 + 5 × 50 = 1.75 kW: 5 go).
	killed := 0
	for j := range jobs {
		if s.caps.gone[j] {
			killed++
			if s.end[j] != 100 || j < 5 {
				t.Errorf("job %d killed at %v; want the 5 most recent killed at 100 s", j, s.end[j])
			}
		}
	}
	if killed != 5 || s.caps.killed != 5 {
		t.Fatalf("%d jobs killed (counted %d), want 5", killed, s.caps.killed)
	}
	if s.caps.excessSeconds != 0 {
		t.Errorf("above the cap for %v s after the kills", s.caps.excessSeconds)
	}
}

// TestPowercapWindowsCoexist: two reserved windows in one policy, apart
// and overlapping (a 60 % one, then a 40 % one), on random workloads. Each
// window switches off its own nodes while it is open (with overlapping
// windows, the union of theirs), and the machine's power stays under the
// lowest cap of the windows open at each instant (every job starts after
// the notice), recomputed from the state series.
func TestPowercapWindowsCoexist(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 11))
		nodes := 180
		m := curieLike(nodes)
		jobs := randomJobs(rng, 500, nodes/2, []float64{60, 300}[seed%2])
		pw := constPower(len(jobs), 358)
		last := jobs[len(jobs)-1].Submit
		full := float64(nodes)*358 + 10*248 + 2*900
		for _, c := range []struct {
			name   string
			second float64 // where the 40 % window starts, as a share of the trace
		}{{"apart", 0.6}, {"overlapping", 0.4}} {
			for _, mode := range []CapMode{CapShut, CapMix} {
				t.Run(fmt.Sprintf("seed%d/%s/%s", seed, c.name, CapModeNames[mode]), func(t *testing.T) {
					notice := Instant{Offset: 0.1 * last}
					a, b := Instant{Offset: 0.35 * last}, Instant{Offset: c.second * last}
					length := 0.1 * last
					pol := Policy{Name: "two", Backfill: EASY, Powercaps: []Powercap{
						{Share: 0.6, Start: &a, Duration: length, Notice: &notice, Mode: mode, Lowest: 2e9},
						{Share: 0.4, Start: &b, Duration: length, Notice: &notice, Mode: mode, Lowest: 2e9},
					}}
					s, err := simulate(jobs, &m, nodes, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), recordStates())
					if err != nil {
						t.Fatal(err)
					}
					t0 := jobs[0].Submit
					type win struct {
						from, to, cap float64
						res           []int32
					}
					var ws []win
					for i := range s.caps.wins {
						w := &s.caps.wins[i]
						if w.reserved == nil {
							t.Fatalf("window %d reserved no nodes", i)
						}
						ws = append(ws, win{w.from, w.to, w.cap, w.reserved})
					}
					if ws[0].from != t0+a.Offset || ws[1].from != t0+b.Offset || ws[1].cap != 0.4*full {
						t.Fatalf("windows %+v", ws)
					}
					overlap := c.second < 0.45
					if got := strings.Contains(strings.Join(s.caps.notes, "\n"), "overlap"); got != overlap {
						t.Errorf("a note on overlapping windows: %v, want %v (%q)", got, overlap, s.caps.notes)
					}
					ss := s.states
					k := len(ss.Columns)
					col := map[string]int{}
					for i, name := range ss.Columns {
						col[name] = i
					}
					for r, tm := range ss.Times {
						end := ss.Until(r)
						cap := math.Inf(1)
						union := map[int32]bool{}
						for _, w := range ws {
							if tm < w.to && end > w.from {
								cap = math.Min(cap, w.cap)
							}
							if tm >= w.from && tm < w.to {
								for _, i := range w.res {
									union[i] = true
								}
							}
						}
						var p float64
						for c, name := range ss.Columns {
							if _, ok := PowerColumn(name); ok {
								p += ss.Values[r*k+c]
							}
						}
						if p > cap*(1+1e-9) {
							t.Fatalf("at %v s the machine draws %v W, above the cap of %v W", tm, p, cap)
						}
						if off := int(ss.Values[r*k+col["off"]]); off < len(union) {
							t.Fatalf("at %v s %d nodes are off; the open windows reserve %d", tm, off, len(union))
						}
					}
					if s.caps.excessSeconds != 0 {
						t.Errorf("cap_excess %v s, %v W", s.caps.excessSeconds, s.caps.excessMax)
					}
				})
			}
		}
	}
}

// TestStretchedWalltimeBackfill works by hand how the walltime of a job
// Alg. 2 slowed down stretches for EASY (georgiou.md A7). Four nodes
// idle at 117 W, Curie's pstates; a window of 600 W from 50 to 60 s,
// noticed at 0. Job A (1 node, 100 s, walltime 100 s) arrives at 0 and
// overlaps the window: 468 W + its increment must stay under 600 W, which
// it does first at 1.8 GHz (+131 W; 2.0 GHz adds 152), so it runs 100 ×
// s(1.8 GHz) = 137.8 s and EASY expects its end at 137.8 s, not 100 s. At
// 70 s (the window over) H (4 nodes) and then B (1 node, walltime 50 s)
// arrive: H's reservation is at A's expected end, 137.8 s, by which B
// ends (120 s), so B backfills at once. Had A's walltime not stretched,
// H's reservation would be at 100 s, B would not end by then, and with
// no extra node it would wait for H (to 237.8 s).
func TestStretchedWalltimeBackfill(t *testing.T) {
	m := Machine{Name: "toy", Nodes: 4, PStates: curiePStates(), Slowdown: 1.63, Power: NodePower{Idle: 117, Busy: 358}}
	jobs := []workload.Job{
		{ID: 1, Submit: 0, Runtime: 100, Walltime: 100, Nodes: 1, Procs: 1},
		{ID: 2, Submit: 70, Runtime: 100, Walltime: 100, Nodes: 4, Procs: 4},
		{ID: 3, Submit: 70, Runtime: 50, Walltime: 50, Nodes: 1, Procs: 1},
	}
	from, notice := Instant{Offset: 50}, Instant{Offset: 0}
	pol := Policy{Name: "p", Backfill: EASY, Powercaps: []Powercap{{Power: 600, Start: &from, Duration: 10, Notice: &notice, Mode: CapDVFS, Fit: FitJob}}}
	s, err := simulate(jobs, &m, 4, &pol, constPower(3, 358), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	sA := m.Stretch(4)
	if got := m.PStates[s.pstate[0]].Freq; got != 1.8e9 || math.Abs(s.end[0]-100*sA) > 1e-9 || math.Abs(sA-1.378) > 1e-9 {
		t.Fatalf("job A runs 0–%v at %v Hz; want 0–137.8 at 1.8 GHz", s.end[0], got)
	}
	if got := s.runEst(0); math.Abs(got-137.8) > 1e-9 {
		t.Errorf("EASY expects A to run %v s, want 137.8", got)
	}
	want := []float64{0, 100 * sA, 70}
	for j, w := range want {
		if math.Abs(s.start[j]-w) > 1e-9 {
			t.Errorf("job %d starts at %v, want %v", jobs[j].ID, s.start[j], w)
		}
	}
}

// TestPlanNotesPlural: a plan's groups read as a person would write them.
func TestPlanNotesPlural(t *testing.T) {
	m := curieLike(180)
	s := &sim{pol: &Policy{Name: "p"}, machine: &m}
	at := Instant{Offset: 0}
	for _, c := range []struct {
		count   []int
		singles int
		want    string
	}{
		{[]int{1, 2}, 3, "2 racks + 1 chassis + 3 nodes"},
		{[]int{2, 1}, 1, "1 rack + 2 chassis + 1 node"},
		{nil, 0, "switched off none"},
	} {
		cs := &capStage{wins: []capWindow{{pc: &Powercap{Start: &at}, hasPlan: true, plan: pcap.Plan{Groups: pcap.Groups{Count: c.count, Singles: c.singles}}}}}
		if got := cs.planNotes(s)[0]; !strings.Contains(got, c.want) {
			t.Errorf("note %q does not say %q", got, c.want)
		}
	}
}

// TestMeasureClipsCaps: cap_excess and killed count inside the measure
// window only. Ten 1-node jobs (300 W busy, 50 W idle) start at 0–9 s and
// run 1,000 s; a 1.8 kW window opens at 100 s. Without kills the machine
// stays above it until five jobs have ended (1,004 s: 5 × 300 + 5 × 50 =
// 1.75 kW), 904 s in all, of which 502 s fall in a window 500..1,002 s;
// with `running kill` the five most recent go at 100 s, inside a window
// 0..2,000 s and outside one 500..1,002 s.
func TestMeasureClipsCaps(t *testing.T) {
	m := Machine{Name: "m", Nodes: 10, Power: NodePower{Idle: 50, Busy: 300}}
	var jobs []workload.Job
	for k := range 10 {
		jobs = append(jobs, workload.Job{ID: int64(k + 1), Submit: float64(k), Runtime: 1000, Walltime: 1000, Nodes: 1, Procs: 1})
	}
	at := Instant{Offset: 100}
	for _, c := range []struct {
		kill     bool
		from, to float64
		excess   float64
		killed   int
	}{
		{false, 0, 2000, 904, 0},
		{false, 500, 1002, 502, 0},
		{true, 0, 2000, 0, 5},
		{true, 500, 1002, 0, 0},
	} {
		pol := Policy{Name: "p", Backfill: EASY, Powercaps: []Powercap{{Power: 1800, Start: &at, Duration: 5000, Notice: &at, Kill: c.kill, Mode: CapIdle}}}
		s, err := simulate(jobs, &m, 10, &pol, constPower(10, 300), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), measureOver(c.from, c.to))
		if err != nil {
			t.Fatal(err)
		}
		r := s.record().metrics()
		if math.Abs(r.CapExcessSeconds-c.excess) > 1e-9 || r.Killed != c.killed {
			t.Errorf("kill %v, window %v..%v: cap_excess %v s, killed %d; want %v s, %d", c.kill, c.from, c.to, r.CapExcessSeconds, r.Killed, c.excess, c.killed)
		}
	}
}

// TestPlannerOptimalInTheEngine: under `mode auto` at 60 % on a
// Curie-like machine, Alg. 1 as printed (ρ per DESIGN §8) switches nodes
// off, while the planner that solves C1–C3 finds DVFS better at deg 1.63
// (georgiou.md §1.3) and reserves none: jobs in the window are slowed
// down instead, under the cap all the same.
func TestPlannerOptimalInTheEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	nodes := 180
	m := curieLike(nodes)
	jobs := randomJobs(rng, 500, nodes/2, 60)
	last := jobs[len(jobs)-1].Submit
	notice, from := Instant{Offset: last / 3}, Instant{Offset: last / 2}
	full := float64(nodes)*358 + 10*248 + 2*900
	run := func(optimal bool) *sim {
		pol := Policy{Name: "auto", Backfill: EASY, Powercaps: []Powercap{{Share: 0.6, Start: &from, Duration: 3 * 3600, Notice: &notice, Mode: CapAuto, Optimal: optimal}}}
		s, err := simulate(jobs, &m, nodes, &pol, constPower(len(jobs), 358), math.Inf(1), tariff.Clock{}, tariff.Flat(0.1), recordStates())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	paper, optimal := run(false), run(true)
	if w := &paper.caps.wins[0]; w.plan.Branch != pcap.BranchOff || len(w.reserved) == 0 {
		t.Errorf("planner paper: branch %v, %d nodes reserved; want off, some", w.plan.Branch, len(w.reserved))
	}
	w := &optimal.caps.wins[0]
	if w.plan.Branch != pcap.BranchDVFS || w.reserved != nil || !(w.plan.Derived > 0) {
		t.Fatalf("planner optimal: branch %v (derived %v), %d nodes reserved; want dvfs, none", w.plan.Branch, w.plan.Derived, len(w.reserved))
	}
	a, b := w.from, w.to
	slowed := 0
	for j := range jobs {
		if optimal.pstate[j] > 0 {
			slowed++
			if optimal.start[j] < notice.Offset+jobs[0].Submit || optimal.start[j] >= b {
				t.Errorf("job %d slowed down but starts at %v, outside notice..window end", j, optimal.start[j])
			}
		}
	}
	if slowed == 0 {
		t.Error("planner optimal slowed no job down")
	}
	ss := optimal.states
	for r, tm := range ss.Times {
		if ss.Until(r) <= a || tm >= b {
			continue
		}
		if off := ss.Value(r, "off"); off != 0 {
			t.Fatalf("at %v s %v nodes are off under the optimal (DVFS) plan", tm, off)
		}
		if p := ss.Value(r, "power_w"); p > 0.6*full*(1+1e-9) {
			t.Fatalf("at %v s the machine draws %v W, above the cap of %v W", tm, p, 0.6*full)
		}
	}
}

// TestCapsSetForNow: caps that apply while a rule holds (`while now.hour
// < 12`) or during the contract's peak hours, with `running kill`, on
// random workloads. The state series shows the cap exactly while it
// applies, the machine never draws more than it then, and the cap
// changes the schedule.
func TestCapsSetForNow(t *testing.T) {
	peak := tariff.BasePeak(tariff.Clock{}, []tariff.Window{{From: 9 * 3600, To: 17 * 3600}}, 0.3, 0.1)
	morning := &Expr{Source: "now.hour < 12", Deps: DepNow, Bool: func(e *Env) bool { return e.Now.Hour < 12 }}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 23))
		nodes := 180
		m := curieLike(nodes)
		jobs := randomJobs(rng, 600, nodes/2, 300)
		pw := constPower(len(jobs), 358)
		full := float64(nodes)*358 + 10*248 + 2*900
		easy, err := simulate(jobs, &m, nodes, &Policy{Name: "easy", Backfill: EASY}, pw, math.Inf(1), tariff.Clock{}, peak)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name    string
			pc      Powercap
			applies func(tm float64) bool
		}{
			{"while morning", Powercap{Share: 0.5, When: BudgetWhile, While: morning, Mode: CapDVFS, Kill: true},
				func(tm float64) bool { return math.Mod(tm, 86400) < 12*3600 }},
			{"during peak", Powercap{Share: 0.5, When: BudgetDuringPeak, Mode: CapIdle, Kill: true},
				func(tm float64) bool { h := math.Mod(tm, 86400); return h >= 9*3600 && h < 17*3600 }},
		} {
			t.Run(fmt.Sprintf("seed%d/%s", seed, c.name), func(t *testing.T) {
				pol := Policy{Name: "cap", Backfill: EASY, Powercaps: []Powercap{c.pc}}
				s, err := simulate(jobs, &m, nodes, &pol, pw, math.Inf(1), tariff.Clock{}, peak, recordStates())
				if err != nil {
					t.Fatal(err)
				}
				ss := s.states
				capped := 0
				for r, tm := range ss.Times {
					cw, p := ss.Value(r, "cap_w"), ss.Value(r, "power_w")
					if on := !math.IsNaN(cw); on != c.applies(tm) {
						t.Fatalf("at %v s (hour %.2f) cap_w is %v", tm, math.Mod(tm, 86400)/3600, cw)
					}
					if math.IsNaN(cw) {
						continue
					}
					capped++
					if cw != 0.5*full || p > cw*(1+1e-9) {
						t.Fatalf("at %v s the machine draws %v W under a cap of %v W", tm, p, cw)
					}
				}
				if capped == 0 || slices.Equal(s.start, easy.start) {
					t.Errorf("%d rows under the cap, schedule as EASY's: %v", capped, slices.Equal(s.start, easy.start))
				}
				if s.caps.excessSeconds != 0 {
					t.Errorf("above the cap for %v s", s.caps.excessSeconds)
				}
			})
		}
	}
}
