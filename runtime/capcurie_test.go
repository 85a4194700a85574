package runtime_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// curieScenario is CEA-Curie's thin partition over 45 days of its summer
// (5,040 × 16 cores, Curie's levels and pstates, EASY), under powercaps
// given as policies (their cap is std/georgiou's param); EXPERIMENTS holds
// the experiments.
const curieScenario = `import "std/georgiou"
import "std/kunkel"
param trace = "t"
policy shut from easy { powercap cap from 215 d for 1 h { mode shut; notice 210 d } }
policy dvfs from easy { powercap cap from 215 d for 1 h { mode dvfs; notice 210 d } }
policy mix  from easy { powercap cap from 215 d for 1 h { mode mix; lowest 2.0 GHz; notice 210 d } }
policy peakkill from easy { powercap 60% during peak { mode dvfs; running kill } }
EXPERIMENTS
`

// runCurie compiles and runs the experiments on CEA-Curie, keeping jobs
// and states, and returns the results by run name; skips without data.
func runCurie(t *testing.T, experiments string) (map[string]*runtime.Result, float64) {
	t.Helper()
	dir := testenv.DataDir()
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("shared data not found in CI")
		}
		t.Skip("no shared data (set PWRC_DATA)")
	}
	src := strings.Replace(curieScenario, "EXPERIMENTS", experiments, 1)
	file := filepath.Join(t.TempDir(), "c.pwr")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "traces/CEA-Curie-2011-2.1-cln.swf.gz")
	res := compiler.Compile(file, compiler.Options{Sets: []compiler.Set{{Name: "trace", Value: trace}}})
	if res.Plan == nil {
		var b strings.Builder
		_ = res.Diags.Write(&b, res.Sources)
		t.Fatal(b.String())
	}
	out := map[string]*runtime.Result{}
	for _, r := range runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 2, KeepJobs: true, KeepStates: true}) {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Run.Name, r.Err)
		}
		key := r.Run.Experiment + "/" + r.Run.Policy.Name
		for _, p := range r.Run.Params {
			if p.Name == "cap" {
				key += " " + p.Value
			}
		}
		out[key] = r
	}
	return out, firstSubmission(t, trace)
}

// TestPowercapOnCurie checks georgiou.md §6 items 9–13 on CEA-Curie's thin
// partition (45 days of its summer, EASY) with one-hour caps at day 215,
// noticed at day 210:
//   - a 100 % cap is EASY job for job; so is a window after the last job;
//   - until the notice every mode schedules as EASY;
//   - while a window is open the machine's power, from the state series,
//     never exceeds the cap but through jobs started before the notice
//     (and cap_excess is 0 when no such job runs then);
//   - the same for a cap during the contract's peak hours with `running
//     kill`, every day of the 45;
//   - the energy of each component, recomputed independently from the
//     jobs' records (busy: their nodes at their pstate's power) and the
//     machine's node and level counts (idle, off nodes lit or dark, levels
//     on), is the run's; the counts agree with the jobs' node lists
//     (busy nodes, and a level holding a busy node is on), a level counted
//     off has all its nodes off, and the whole racks and chassis a plan
//     switches off are counted off once its nodes are;
//   - every job runs its run time × s(its frequency).
func TestPowercapOnCurie(t *testing.T) {
	rs, origin := runCurie(t, `
param cap = [100%, 60%, 40%]
experiment c {
  workload swf trace { keep job.partition == 10; submitted 180 d .. 225 d }
  machine  curie
  contract kunkel_fixed
  policy   [easy, shut, dvfs, mix]
}
experiment p {
  workload swf trace { keep job.partition == 10; submitted 180 d .. 225 d }
  machine  curie
  contract kunkel_basepeak
  policy   [easy, peakkill]
}`)
	easy := rs["c/easy"]
	notice := origin + 210*86400
	from, to := origin+215*86400, origin+215*86400+3600
	var names []string
	for n := range rs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		r := rs[name]
		t.Run(name, func(t *testing.T) {
			checkCurieEnergy(t, r)
			if strings.HasSuffix(name, "/easy") {
				return
			}
			if strings.HasPrefix(name, "p/") {
				checkPeakKill(t, r, rs["p/easy"])
				return
			}
			hundred := strings.HasSuffix(name, " 100%")
			bound := false // some job started before the notice still runs in the window
			for i, j := range r.Jobs {
				e := easy.Jobs[i]
				if hundred && (j.Start != e.Start || j.End != e.End) {
					t.Fatalf("job %d at %v–%v, under EASY %v–%v", j.ID, j.Start, j.End, e.Start, e.End)
				}
				if e.Start < notice && j.Start != e.Start {
					t.Fatalf("job %d starts at %v before the notice, EASY at %v", j.ID, j.Start, e.Start)
				}
				if got, want := j.End-j.Start, (e.End-e.Start)*stretchAt(r, j.Freq); math.Abs(got-want) > 1e-6*want {
					t.Fatalf("job %d runs %v s at %v Hz, want %v", j.ID, got, j.Freq, want)
				}
				if j.Start < notice && j.End > from {
					bound = true
				}
			}
			m := r.Metrics
			if !bound && m.CapExcessSeconds != 0 {
				t.Errorf("above the cap for %v s with no job started before the notice running", m.CapExcessSeconds)
			}
			if m.CapExcessSeconds > to-from {
				t.Errorf("above the cap for %v s, longer than the window", m.CapExcessSeconds)
			}
			if !hundred && slices.EqualFunc(r.Jobs, easy.Jobs, func(a, b runtime.JobRecord) bool { return a.Start == b.Start }) && m.CapExcessSeconds == 0 {
				t.Errorf("the cap changed nothing")
			}
			// Power under the cap from the state series, but while jobs
			// started before the notice run.
			share, _ := strconv.ParseFloat(strings.TrimSuffix(name[strings.LastIndex(name, " ")+1:], "%"), 64)
			cap := share / 100 * r.Run.Machine.FullPower(r.Run.Machine.Nodes)
			early := func(tm float64) bool {
				for _, j := range r.Jobs {
					if j.Start < notice && j.Start <= tm && j.End > tm {
						return true
					}
				}
				return false
			}
			ss := r.States
			checked := 0
			for k, tm := range ss.Times {
				if ss.Until(k) <= from || tm >= to || early(tm) {
					continue
				}
				checked++
				if p := ss.Value(k, "power_w"); p > cap*(1+1e-9) {
					t.Fatalf("at %v s (window %v..%v) the machine draws %.0f W, above the cap of %.0f W", tm, from, to, p, cap)
				}
			}
			if !hundred && !bound && checked == 0 {
				t.Errorf("no state in the window to check")
			}
			checkPlanLevels(t, r, from, to)
		})
	}
	// A window after the last job (noticed then) changes nothing.
	last := 0.0
	for _, j := range easy.Jobs {
		last = math.Max(last, j.End)
	}
	at := fmt.Sprintf("%.0f s", last-origin+60)
	late, _ := runCurie(t, `
policy late from easy { powercap 40% from `+at+` for 1 h { mode mix; lowest 2.0 GHz; notice `+at+` } }
experiment l {
  workload swf trace { keep job.partition == 10; submitted 180 d .. 225 d }
  machine  curie
  contract kunkel_fixed
  policy   [easy, late]
}`)
	l, e := late["l/late"], late["l/easy"]
	if !slices.EqualFunc(l.Jobs, e.Jobs, func(a, b runtime.JobRecord) bool { return a.Start == b.Start && a.End == b.End && a.PState == b.PState }) {
		t.Error("a window after the last job changed the schedule")
	}
	if !slices.Equal(l.Metrics.EnergyBy, e.Metrics.EnergyBy) {
		t.Errorf("a window after the last job changed the energy: %v, EASY %v", l.Metrics.EnergyBy, e.Metrics.EnergyBy)
	}
}

// stretchAt is s(f) of the run's machine at freq (1 if it has no such pstate).
func stretchAt(r *runtime.Result, freq float64) float64 {
	m := &r.Run.Machine
	for p, ps := range m.PStates {
		if ps.Freq == freq {
			return m.Stretch(p)
		}
	}
	return 1
}

// curieSweep walks a run's state series with the jobs' records: at each
// row's time, the jobs then running (their node lists parsed once), for
// the checks and the recomputation of the power.
type curieSweep struct {
	r            *runtime.Result
	col          map[string]int
	order        []int // jobs by start
	ends         []int // jobs by end
	nodes        [][]int32
	next, gone   int
	running      map[int]bool
	busyW        float64 // the running jobs' nodes at their pstates' power
	chassisBusy  []int   // per chassis, busy nodes
	rackBusy     []int
	busy         int
	pstateW      map[float64]float64
	early        int // running jobs started before a time the caller sets
	earlyBefore  float64
	chassis, rck int
}

func newCurieSweep(t *testing.T, r *runtime.Result, earlyBefore float64) *curieSweep {
	m := &r.Run.Machine
	w := &curieSweep{r: r, col: map[string]int{}, running: map[int]bool{}, pstateW: map[float64]float64{}, earlyBefore: earlyBefore}
	for i, c := range r.States.Columns {
		w.col[c] = i
	}
	for _, ps := range m.PStates {
		w.pstateW[ps.Freq] = ps.Power
	}
	w.chassis, w.rck = m.Levels[0].Size, m.Levels[1].Size // (in nodes)
	w.chassisBusy, w.rackBusy = make([]int, m.Nodes/w.chassis), make([]int, m.Nodes/w.rck)
	for i, j := range r.Jobs {
		ids, err := parseRanges(j.NodeList)
		if err != nil || len(ids) != j.Alloc {
			t.Fatalf("job %d: node list %q (%v), %d nodes allocated", j.ID, j.NodeList, err, j.Alloc)
		}
		w.nodes = append(w.nodes, ids)
		w.order, w.ends = append(w.order, i), append(w.ends, i)
	}
	sort.SliceStable(w.order, func(a, b int) bool { return r.Jobs[w.order[a]].Start < r.Jobs[w.order[b]].Start })
	sort.SliceStable(w.ends, func(a, b int) bool { return r.Jobs[w.ends[a]].End < r.Jobs[w.ends[b]].End })
	return w
}

// to applies every job start and end at or before tm (an end at tm frees
// its nodes: a row at tm is the state after the instant).
func (w *curieSweep) to(tm float64) {
	js := w.r.Jobs
	apply := func(i, d int) {
		j := &js[i]
		for _, n := range w.nodes[i] {
			w.chassisBusy[int(n)/w.chassis] += d
			w.rackBusy[int(n)/w.rck] += d
		}
		w.busy += d * j.Alloc
		w.busyW += float64(d) * (float64(j.Nodes)*w.pstateW[j.Freq] + float64(j.Alloc-j.Nodes)*w.r.Run.Machine.Power.Idle)
		if j.Start < w.earlyBefore {
			w.early += d
		}
	}
	for w.next < len(w.order) && js[w.order[w.next]].Start <= tm {
		i := w.order[w.next]
		w.next++
		if js[i].End > tm {
			w.running[i] = true
			apply(i, 1)
		}
	}
	for w.gone < len(w.ends) && js[w.ends[w.gone]].End <= tm {
		i := w.ends[w.gone]
		w.gone++
		if w.running[i] {
			delete(w.running, i)
			apply(i, -1)
		}
	}
}

func (w *curieSweep) at(k int, name string) float64 {
	ss := w.r.States
	return ss.Values[k*len(ss.Columns)+w.col[name]]
}

// checkCurieEnergy recomputes a run's energy by component and checks the
// machine's counts against the jobs' records (see TestPowercapOnCurie).
func checkCurieEnergy(t *testing.T, r *runtime.Result) {
	t.Helper()
	m, mm := &r.Run.Machine, &r.Metrics
	a, b := mm.AccountFrom, mm.AccountTo
	// Busy: every job's nodes at its pstate's power, over its run.
	var busy float64
	pw := map[float64]float64{}
	for _, ps := range m.PStates {
		pw[ps.Freq] = ps.Power
	}
	for _, j := range r.Jobs {
		if o := math.Min(j.End, b) - math.Max(j.Start, a); o > 0 {
			busy += (float64(j.Nodes)*pw[j.Freq] + float64(j.Alloc-j.Nodes)*m.Power.Idle) * o
		}
	}
	// The rest from the node and level counts, row by row.
	w := newCurieSweep(t, r, math.Inf(-1))
	ss := r.States
	var idle, off, levels float64
	chassisN, racksN := m.Nodes/w.chassis, m.Nodes/w.rck
	for k, tm := range ss.Times {
		end := b
		if k+1 < len(ss.Times) {
			end = ss.Times[k+1]
		}
		w.to(tm)
		nIdle, nOff := w.at(k, "idle")+w.at(k, "reserved"), w.at(k, "off")
		chOn, rkOn := w.at(k, "chassis_on"), w.at(k, "rack_on")
		if got := int(w.at(k, "busy")); got != w.busy {
			t.Fatalf("at %v s the series counts %d busy nodes, the jobs' records %d", tm, got, w.busy)
		}
		if got := int(nIdle + nOff + w.at(k, "booting") + w.at(k, "shutting_down")); got+w.busy != m.Nodes {
			t.Fatalf("at %v s %d idle, off or in transit and %d busy nodes, of %d", tm, got, w.busy, m.Nodes)
		}
		// A level holding a busy node is on; one counted off has all its
		// nodes off.
		var chBusy, rkBusy int
		for _, n := range w.chassisBusy {
			if n > 0 {
				chBusy++
			}
		}
		for _, n := range w.rackBusy {
			if n > 0 {
				rkBusy++
			}
		}
		if int(chOn) < chBusy || int(rkOn) < rkBusy {
			t.Fatalf("at %v s %v chassis and %v racks on, but %d and %d hold busy nodes", tm, chOn, rkOn, chBusy, rkBusy)
		}
		if (float64(chassisN)-chOn)*float64(w.chassis) > nOff || (float64(racksN)-rkOn)*float64(w.rck) > nOff {
			t.Fatalf("at %v s %v chassis and %v racks off, but only %v nodes", tm, float64(chassisN)-chOn, float64(racksN)-rkOn, nOff)
		}
		// Power from these counts: off nodes draw while their chassis is
		// on (dark ones, in a chassis off, draw nothing), levels while on.
		dark := (float64(chassisN) - chOn) * float64(w.chassis)
		p := w.busyW + nIdle*m.Power.Idle + (nOff-dark)*m.Power.Off + chOn*m.Levels[0].Components[0].Power + rkOn*m.Levels[1].Components[0].Power
		if got := w.at(k, "power_w"); math.Abs(got-p) > 1e-6*p {
			t.Fatalf("at %v s power_w %v W, recomputed %v W", tm, got, p)
		}
		if o := math.Min(end, b) - math.Max(tm, a); o > 0 {
			idle += nIdle * m.Power.Idle * o
			off += (nOff - dark) * m.Power.Off * o
			levels += (chOn*m.Levels[0].Components[0].Power + rkOn*m.Levels[1].Components[0].Power) * o
		}
	}
	for _, c := range []struct {
		part string
		want float64
	}{{"busy", busy}, {"idle", idle}, {"off", off}, {"levels", levels}, {"boot", 0}, {"shutdown", 0}, {"infrastructure", 0}} {
		if got := mm.Part(c.part, false); math.Abs(got-c.want) > 1e-9*math.Max(1, mm.Energy) {
			t.Errorf("%s energy %v J, recomputed %v J", c.part, got, c.want)
		}
	}
	if total := busy + idle + off + levels; math.Abs(mm.Energy-total) > 1e-9*total {
		t.Errorf("energy %v J, recomputed %v J", mm.Energy, total)
	}
}

var planGroups = regexp.MustCompile(`switched off (?:(\d+) racks? \+ )?(?:(\d+) chassis \+ )?.*\((\d+) nodes\)`)

// checkPlanLevels: once the nodes a plan switches off are all off, its
// whole racks and chassis are counted off (their power and their nodes'
// vanish).
func checkPlanLevels(t *testing.T, r *runtime.Result, from, to float64) {
	t.Helper()
	var racks, chassis, nodes int
	for _, n := range r.Notes {
		if g := planGroups.FindStringSubmatch(n); g != nil {
			racks, _ = strconv.Atoi(g[1])
			chassis, _ = strconv.Atoi(g[2])
			nodes, _ = strconv.Atoi(g[3])
		}
	}
	if nodes == 0 {
		return
	}
	w := newCurieSweep(t, r, math.Inf(-1))
	ss := r.States
	m := &r.Run.Machine
	seen := false
	for k, tm := range ss.Times {
		if tm < from || tm >= to || int(w.at(k, "off")) != nodes {
			continue
		}
		seen = true
		chOff, rkOff := m.Nodes/w.chassis-int(w.at(k, "chassis_on")), m.Nodes/w.rck-int(w.at(k, "rack_on"))
		if rkOff < racks || chOff < 5*racks+chassis {
			t.Fatalf("at %v s the plan's %d nodes are off, but only %d racks and %d chassis are (the plan: %d racks and %d more chassis)", tm, nodes, rkOff, chOff, racks, chassis)
		}
	}
	if !seen && r.Metrics.CapExcessSeconds == 0 {
		t.Errorf("the plan's %d nodes are never all off in the window", nodes)
	}
}

// checkPeakKill: under a 60 % cap during peak hours with `running kill`,
// the machine never draws more than the cap while it applies (from the
// state series), and the cap changes EASY's schedule.
func checkPeakKill(t *testing.T, r, easy *runtime.Result) {
	t.Helper()
	ss := r.States
	rows := 0
	for i, tm := range ss.Times {
		c, p := ss.Value(i, "cap_w"), ss.Value(i, "power_w")
		if math.IsNaN(c) {
			continue
		}
		rows++
		if p > c*(1+1e-9) {
			t.Fatalf("at %v s the machine draws %.0f W under a cap of %.0f W", tm, p, c)
		}
	}
	if rows == 0 || r.Metrics.Killed == 0 || slices.EqualFunc(r.Jobs, easy.Jobs, func(a, b runtime.JobRecord) bool { return a.Start == b.Start }) {
		t.Errorf("%d rows under the cap, %d jobs killed, schedule EASY's", rows, r.Metrics.Killed)
	}
	if r.Metrics.CapExcessSeconds != 0 {
		t.Errorf("above the cap for %v s with running kill", r.Metrics.CapExcessSeconds)
	}
}

// parseRanges reads a node list "0-15,32".
func parseRanges(s string) ([]int32, error) {
	var out []int32
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, err
			}
		}
		for n := a; n <= b; n++ {
			out = append(out, int32(n))
		}
	}
	return out, nil
}

// firstSubmission is the first submission of the cleaned trace (offsets
// in scenarios count from it, before any cut).
func firstSubmission(t *testing.T, path string) float64 {
	tr, err := workload.OpenSWF(path, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 16, Nodes: 5040})
	return jobs[0].Submit
}
