package powercap

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// §2.5 (Fig. 5 reconstructed) and acceptance check 3.
func TestRhoFig5(t *testing.T) {
	rows := []struct {
		deg, paper, rhoD, derived float64
	}{
		{2.27, 0, -0.00158, -0.07982}, // break-even row "NA"
		{2.14, -0.027, -0.02834, -0.05306},
		{2.13, -0.029, -0.03053, -0.05087},
		{1.89, -0.088, -0.09015, +0.00875},
		{1.74, -0.134, -0.13576, +0.05436},
		{1.63, -0.174, -0.17454, +0.09315},
		{1.5, -0.225, -0.22771, +0.14632},
		{1.26, -0.350, -0.35470, +0.27330},
		{1.16, -0.422, -0.42312, +0.34172},
	}
	for _, r := range rows {
		rho := Rho(r.deg, 14, 193, 358)
		if !near(rho, 151.0/344-1/r.deg, 1e-12) {
			t.Errorf("deg %v: ρ = %v, want 151/344 − 1/deg", r.deg, rho)
		}
		if !near(rho, r.rhoD, 5e-6) {
			t.Errorf("deg %v: ρ = %.6f, spec's ρ_D %v", r.deg, rho, r.rhoD)
		}
		// DESIGN's reading lies below the paper's value on every row, by less
		// than 0.005: rounding to 3 decimals does not always give the printed
		// value (1.63 gives −0.175), but a deg that displays as r.deg when
		// truncated to two decimals does.
		if d := rho - r.paper; !(d < 0 && d > -0.005) {
			t.Errorf("deg %v: ρ − paper = %v, want in (−0.005, 0)", r.deg, d)
		}
		if hi := Rho(r.deg+0.01, 14, 193, 358); !(rho <= r.paper && r.paper < hi) {
			t.Errorf("deg %v: paper ρ %v not in [%v, %v)", r.deg, r.paper, rho, hi)
		}
		der := Derived(r.deg, 14, 193, 358)
		if !near(der, 1/r.deg-179.0/344, 1e-12) || !near(der, r.derived, 5e-6) {
			t.Errorf("deg %v: derived = %.6f, want %v", r.deg, der, r.derived)
		}

		// Planner decisions at 60 % of the levels-free Curie (P ≥ N·P_min):
		// paper switches off on every row; optimal only for deg ≥ 1.9218.
		m := curie(false)
		m.Deg = r.deg
		cap := 0.6 * m.FullPower()
		p := mustPlan(t, m, Request{Cap: cap, Mode: ModeAuto, Planner: PlannerPaper})
		if p.Branch != BranchOff {
			t.Errorf("deg %v: paper planner took %v, want off", r.deg, p.Branch)
		}
		want := BranchDVFS
		if r.deg >= 1.9218 {
			want = BranchOff
		}
		if p := mustPlan(t, m, Request{Cap: cap, Mode: ModeAuto, Planner: PlannerOptimal}); p.Branch != want {
			t.Errorf("deg %v: optimal planner took %v, want %v", r.deg, p.Branch, want)
		}

		// §VI-B: with idle instead of off, "ρ becomes positive … DVFS is best
		// in all cases" holds for the derived criterion, not for ρ.
		if Derived(r.deg, 117, 193, 358) <= 0 || Rho(r.deg, 117, 193, 358) >= 0 {
			t.Errorf("deg %v with P_off := P_idle: derived %v (want > 0), ρ %v (want < 0)",
				r.deg, Derived(r.deg, 117, 193, 358), Rho(r.deg, 117, 193, 358))
		}
	}
}

// §2.5's break-even degradations, at which the planners change their mind.
func TestBreakEvens(t *testing.T) {
	for _, c := range []struct {
		name    string
		pOff    float64
		pMin    float64
		rho     bool    // true: ρ's zero, false: the derived criterion's
		exact   float64 // the break-even as a fraction
		printed float64 // as the spec prints it, 4 decimals
	}{
		{"DESIGN ρ", 14, 193, true, 344.0 / 151, 2.2781},
		{"derived 1.2 GHz", 14, 193, false, 344.0 / 179, 1.9218},
		{"derived 2.0 GHz", 14, 269, false, 344.0 / 255, 1.3490},
		{"derived, idle for off", 117, 193, false, 241.0 / 76, 3.1711},
	} {
		f := Derived
		if c.rho {
			f = Rho
		}
		if v := f(c.exact, c.pOff, c.pMin, 358); !near(v, 0, 1e-12) {
			t.Errorf("%s: %v at %v", c.name, v, c.exact)
		}
		// The criterion changes sign within the printed value's last digit.
		// Both prefer DVFS when positive: the derived criterion for small
		// slowdowns, ρ (absurdly) for large ones.
		lo, hi := f(c.printed-5e-5, c.pOff, c.pMin, 358), f(c.printed+5e-5, c.pOff, c.pMin, 358)
		if c.rho {
			lo, hi = -lo, -hi
		}
		if !(lo > 0 && hi < 0) {
			t.Errorf("%s: %v below %v, %v above", c.name, lo, c.printed, hi)
		}
	}
	// A tie (the paper's case 3) goes to switch-off under both planners:
	// P_off 0, P_min half P_max, deg 2 make ρ < 0 and the derived 0 exactly.
	tie := &Machine{Nodes: 10, PStates: []PState{{2e9, 100}, {1e9, 50}}, Deg: 2}
	for _, pl := range []Planner{PlannerPaper, PlannerOptimal} {
		if p := mustPlan(t, tie, Request{Cap: 900, Planner: pl}); p.Derived != 0 || p.Branch != BranchOff {
			t.Errorf("tie, %v: %v (derived %v), want off", pl, p.Branch, p.Derived)
		}
	}
	// MIX: ρ_D(1.29) = −0.55717, ρ_D(1.294) = −0.55477, derived(1.29) = +0.03391.
	for _, c := range []struct{ got, want float64 }{
		{Rho(1.29, 14, 269, 358), -0.55717},
		{Rho(1.294, 14, 269, 358), -0.55477},
		{Derived(1.29, 14, 269, 358), +0.03391},
	} {
		if !near(c.got, c.want, 5e-6) {
			t.Errorf("MIX: %.6f, want %v", c.got, c.want)
		}
	}
	// The planners flip at those points: the optimal one at s(2.0 GHz) =
	// 344/255 on Curie with MIX's lowest pstate, the paper one at 344/151.
	m := curie(false)
	cap := 0.8 * m.FullPower()
	for _, c := range []struct {
		deg     float64 // machine's Deg (at 1.2 GHz)
		planner Planner
		lowest  int
		want    Branch
	}{
		{344.0/151 - 1e-4, PlannerPaper, 0, BranchOff},
		{344.0/151 + 1e-4, PlannerPaper, 0, BranchDVFS},
		{344.0/179 - 1e-4, PlannerOptimal, 0, BranchDVFS},
		{344.0/179 + 1e-4, PlannerOptimal, 0, BranchOff},
		{1 + (344.0/255-1-1e-4)*1.5/0.7, PlannerOptimal, mix, BranchDVFS},
		{1 + (344.0/255-1+1e-4)*1.5/0.7, PlannerOptimal, mix, BranchOff},
	} {
		m.Deg = c.deg
		p := mustPlan(t, m, Request{Cap: cap, Mode: ModeMix, Planner: c.planner, Lowest: c.lowest})
		if p.Branch != c.want {
			t.Errorf("deg %v %v lowest %d: %v (ρ %v, derived %v), want %v", c.deg, c.planner, c.lowest, p.Branch, p.Rho, p.Derived, c.want)
		}
	}
}

func mustPlan(t *testing.T, m *Machine, r Request) Plan {
	t.Helper()
	p, err := m.Plan(r)
	if err != nil {
		t.Fatalf("Plan(%+v): %v", r, err)
	}
	return p
}

// §2.4: DVFS alone cannot reach a cap below λ = P_min/P_max of N·P_max; the
// paper planner switches to its mixed branch exactly there.
func TestThresholds(t *testing.T) {
	m := curie(false)
	for _, c := range []struct {
		lowest int
		lambda float64
	}{{0, 0.53911}, {mix, 0.75140}} {
		low := c.lowest
		if low == 0 {
			low = len(m.PStates) - 1
		}
		if l := m.PStates[low].Watts / m.Max(); !near(l, c.lambda, 5e-6) {
			t.Errorf("λ = %v, want %v", l, c.lambda)
		}
		at := float64(m.Nodes) * m.PStates[low].Watts
		for _, d := range []struct {
			cap  float64
			want Branch
		}{{at - 1, BranchMixed}, {at, BranchOff}} {
			p := mustPlan(t, m, Request{Cap: d.cap, Mode: ModeMix, Lowest: c.lowest})
			if p.Branch != d.want {
				t.Errorf("lowest %d cap %v: %v, want %v", c.lowest, d.cap, p.Branch, d.want)
			}
		}
		p := mustPlan(t, m, Request{Cap: at, Mode: ModeDVFS, Lowest: c.lowest})
		if !p.Fits || p.DVFSRounded != m.Nodes {
			t.Errorf("dvfs at N·P_min: fits %v with %d nodes slowed", p.Fits, p.DVFSRounded)
		}
		if p := mustPlan(t, m, Request{Cap: at - 1, Mode: ModeDVFS, Lowest: c.lowest}); p.Fits {
			t.Errorf("dvfs below N·P_min fits")
		}
	}
}

// §2.7 and acceptance check 5: Algorithm 1 on the levels-free Curie (the
// paper's model; 100 % = N·P_max = 1,804,320 W).
func TestAlg1WithoutLevels(t *testing.T) {
	m := curie(false)
	for _, c := range []struct {
		name           string
		mode           Mode
		lowest         int
		pct, cap       float64
		branch         Branch
		offF, dvfsF    float64
		offR, dvfsR    int
		rho            float64
		fullLoad, work float64
	}{
		{"SHUT 80", ModeShut, 0, 0.8, 1_443_456, BranchOff, 1049.02, 0, 1050, 0, -0.17454, 1050*14 + 3990*358, 3990.98},
		{"SHUT 60", ModeShut, 0, 0.6, 1_082_592, BranchOff, 2098.05, 0, 2099, 0, -0.17454, 2099*14 + 2941*358, 2941.95},
		{"SHUT 40", ModeShut, 0, 0.4, 721_728, BranchOff, 3147.07, 0, 3148, 0, -0.17454, 3148*14 + 1892*358, 1892.93},
		{"MIX 80", ModeMix, mix, 0.8, 1_443_456, BranchOff, 1049.02, 0, 1050, 0, -0.55477, 1050*14 + 3990*358, 3990.98},
		{"MIX 60", ModeMix, mix, 0.6, 1_082_592, BranchMixed, 1071.25, 3968.75, 1072, 3968, -0.55477, 1_082_400, 3968.75 / 1.294},
		{"MIX 40", ModeMix, mix, 0.4, 721_728, BranchMixed, 2486.40, 2553.60, 2487, 2553, -0.55477, 2487*14 + 2553*269, 2553.60 / 1.294},
		{"auto 80", ModeAuto, 0, 0.8, 1_443_456, BranchOff, 1049.02, 0, 1050, 0, -0.17454, 1050*14 + 3990*358, 3990.98},
		{"auto 60", ModeAuto, 0, 0.6, 1_082_592, BranchOff, 2098.05, 0, 2099, 0, -0.17454, 2099*14 + 2941*358, 2941.95},
		{"auto 40", ModeAuto, 0, 0.4, 721_728, BranchMixed, 1402.19, 3637.81, 1403, 3637, -0.17454, 1403*14 + 3637*193, 2231.79},
	} {
		if !near(c.pct*m.FullPower(), c.cap, 1e-6) {
			t.Fatalf("%s: cap %v ≠ %v × P_full", c.name, c.cap, c.pct)
		}
		p := mustPlan(t, m, Request{Cap: c.cap, Mode: c.mode, Planner: PlannerPaper, Lowest: c.lowest})
		if p.Branch != c.branch || p.OffRounded != c.offR || p.DVFSRounded != c.dvfsR {
			t.Errorf("%s: %v N_off %d N_dvfs %d, want %v %d %d", c.name, p.Branch, p.OffRounded, p.DVFSRounded, c.branch, c.offR, c.dvfsR)
		}
		if !near(p.OffFormula, c.offF, 0.006) || !near(p.DVFSFormula, c.dvfsF, 0.006) {
			t.Errorf("%s: formula N_off %.4f N_dvfs %.4f, want %v %v", c.name, p.OffFormula, p.DVFSFormula, c.offF, c.dvfsF)
		}
		if !near(p.Rho, c.rho, 5e-6) {
			t.Errorf("%s: ρ %.6f, want %v", c.name, p.Rho, c.rho)
		}
		// Without levels the grouped plan is the rounded one, and its power
		// at full load stays within the cap.
		if p.Off != p.OffRounded || p.DVFS != p.DVFSRounded || p.FullLoad != c.fullLoad || !p.Fits || p.FullLoad > c.cap {
			t.Errorf("%s: grouped %d off, %d slowed, full load %v (fits %v); want %d, %d, %v", c.name, p.Off, p.DVFS, p.FullLoad, p.Fits, c.offR, c.dvfsR, c.fullLoad)
		}
		if !near(p.Work, c.work, 0.006) {
			t.Errorf("%s: work %.4f, want %v", c.name, p.Work, c.work)
		}
	}
}

// §2.7's model work table (node-equivalents of full-speed work) and its
// idle-only bounds. MIX uses the paper's 1.29 at 2.0 GHz: Curie restricted to
// 2.0–2.7 GHz with deg_min 1.29.
func TestModelWork(t *testing.T) {
	m := curie(false)
	mixM := &Machine{Nodes: 5040, Off: 14, Idle: 117, PStates: curiePStates[:mix+1], Deg: 1.29}
	full := m.FullPower()
	for _, c := range []struct {
		name      string
		m         *Machine
		r         Request
		branch    Branch
		fits      bool
		dvfsF     float64
		work      float64
		maxBusy   float64
		tolerance float64
	}{
		{"SHUT 80", m, Request{Cap: 0.8 * full, Mode: ModeShut}, BranchOff, true, 0, 3990.98, 3542.64, 0.006},
		{"DVFS-only 80 (optimal)", m, Request{Cap: 0.8 * full, Planner: PlannerOptimal}, BranchDVFS, true, 2187.05, 4194.70, 5040, 0.006},
		{"DVFS-only 60 (optimal)", m, Request{Cap: 0.6 * full, Planner: PlannerOptimal}, BranchDVFS, true, 4374.11, 3349.39, 5040, 0.006},
		{"DVFS-only 60 (mode)", m, Request{Cap: 0.6 * full, Mode: ModeDVFS}, BranchDVFS, true, 4374.11, 3349.39, 5040, 0.006},
		{"mixed 40 (auto, both planners)", m, Request{Cap: 0.4 * full, Planner: PlannerOptimal}, BranchMixed, true, 3637.81, 2231.79, 1737.47, 0.006},
		{"MIX 80 plans SHUT", mixM, Request{Cap: 0.8 * full, Mode: ModeMix}, BranchOff, true, 0, 3990.98, 5040, 0.006},
		{"DVFS-only at 2.0 GHz 80", mixM, Request{Cap: 0.8 * full, Mode: ModeDVFS}, BranchDVFS, true, 4054.65, 4128.49, 5040, 0.006},
		{"MIX 60", mixM, Request{Cap: 0.6 * full, Mode: ModeMix}, BranchMixed, true, 3968.75, 3076.55, 3242.84, 0.006},
		{"MIX 40", mixM, Request{Cap: 0.4 * full, Mode: ModeMix}, BranchMixed, true, 2553.60, 1979.53, 868.74, 0.006},
		// DVFS alone cannot reach 40 % (λ < 0.539): with no node off at most
		// (721,728 − 589,680)/76 nodes run at 1.2 GHz, the rest idle.
		{"DVFS mode 40", m, Request{Cap: 0.4 * full, Mode: ModeDVFS}, BranchDVFS, false, 6561.16, 1737.47 / 1.63, 1737.47, 0.006},
		// Idle only: busy nodes ≤ (P − N·117)/241.
		{"idle 80", m, Request{Cap: 0.8 * full, Mode: ModeIdle}, BranchIdle, false, 0, 3542.64, 3542.64, 0.006},
		{"idle 60", m, Request{Cap: 0.6 * full, Mode: ModeIdle}, BranchIdle, false, 0, 2045.28, 2045.28, 0.006},
		{"idle 40", m, Request{Cap: 0.4 * full, Mode: ModeIdle}, BranchIdle, false, 0, 547.92, 547.92, 0.006},
		{"idle 100", m, Request{Cap: full, Mode: ModeIdle}, BranchNone, true, 0, 5040, 5040, 0},
	} {
		p := mustPlan(t, c.m, c.r)
		if p.Branch != c.branch || p.Fits != c.fits {
			t.Errorf("%s: %v fits %v, want %v fits %v", c.name, p.Branch, p.Fits, c.branch, c.fits)
		}
		if !near(p.DVFSFormula, c.dvfsF, 0.006) || !near(p.Work, c.work, c.tolerance) || !near(p.MaxBusy, c.maxBusy, 0.006) {
			t.Errorf("%s: N_dvfs %.3f work %.3f max busy %.3f, want %v %v %v", c.name, p.DVFSFormula, p.Work, p.MaxBusy, c.dvfsF, c.work, c.maxBusy)
		}
	}
	// "1065.9 node-equivalents of work" for DVFS mode at 40 %.
	if p := mustPlan(t, m, Request{Cap: 0.4 * full, Mode: ModeDVFS}); !near(p.Work, 1065.9, 0.05) {
		t.Errorf("DVFS mode 40 %%: work %v, want 1065.9", p.Work)
	}
}

// §2.8 and acceptance check 6: Algorithm 1 with levels and grouping on pwrc's
// Curie (100 % = P_full = 1,924,160 W). The auto rows are not in the spec's
// table: 80/60 % plan SHUT's switch-off (budget ≥ N·193); the 40 % row was
// computed by hand.
func TestAlg1WithLevels(t *testing.T) {
	m := curie(true)
	type row struct {
		name                      string
		mode                      Mode
		lowest                    int
		cap                       float64
		branch                    Branch
		offF                      float64
		offR                      int
		shed                      float64
		racks, chassis, singles   int
		nodesOff                  int
		fullLoad, slack, busyWatt float64
	}
	shut80 := row{"SHUT 80", ModeShut, 0, 1_539_328, BranchOff, 1118.70, 1119, 384_832, 11, 1, 1, 1009, 1_539_164, 164, 358}
	shut60 := row{"SHUT 60", ModeShut, 0, 1_154_496, BranchOff, 2237.40, 2238, 769_664, 22, 2, 2, 2018, 1_154_168, 328, 358}
	rows := []row{
		shut80, shut60,
		{"SHUT 40", ModeShut, 0, 769_664, BranchOff, 3356.09, 3357, 1_154_496, 33, 3, 2, 3026, 769_516, 148, 358},
		{"MIX 80", ModeMix, mix, 1_539_328, BranchOff, 1118.70, 1119, 384_832, 11, 1, 1, 1009, 1_539_164, 164, 358},
		{"MIX 60", ModeMix, mix, 1_154_496, BranchMixed, 1259.23, 1260, 321_104, 12, 1, 0, 1098, 1_154_310, 186, 269},
		{"MIX 40", ModeMix, mix, 769_664, BranchMixed, 2768.38, 2769, 705_936, 26, 4, 2, 2414, 769_630, 34, 269},
		{"auto 80", ModeAuto, 0, 1_539_328, BranchOff, 1118.70, 1119, 384_832, 11, 1, 1, 1009, 1_539_164, 164, 358},
		{"auto 60", ModeAuto, 0, 1_154_496, BranchOff, 2237.40, 2238, 769_664, 22, 2, 2, 2018, 1_154_168, 328, 358},
		{"auto 40", ModeAuto, 0, 769_664, BranchMixed, 1803.89, 1804, 322_896, 16, 3, 0, 1494, 769_234, 430, 193},
	}
	for i, pct := range []float64{0.8, 0.6, 0.4} {
		if pct*m.FullPower() != rows[i].cap {
			t.Fatalf("%v × P_full = %v, want %v", pct, pct*m.FullPower(), rows[i].cap)
		}
	}
	for _, c := range rows {
		p := mustPlan(t, m, Request{Cap: c.cap, Mode: c.mode, Planner: PlannerPaper, Lowest: c.lowest})
		if p.Budget != c.cap-119_840 {
			t.Errorf("%s: budget %v", c.name, p.Budget)
		}
		if p.Branch != c.branch || !near(p.OffFormula, c.offF, 0.006) || p.OffRounded != c.offR || p.Shed != c.shed {
			t.Errorf("%s: %v N_off %.4f → %d, S %v; want %v %v → %d, S %v", c.name, p.Branch, p.OffFormula, p.OffRounded, p.Shed, c.branch, c.offF, c.offR, c.shed)
		}
		want := []int{c.chassis, c.racks}
		if !slices.Equal(p.Groups.Count, want) || p.Groups.Singles != c.singles || p.Off != c.nodesOff {
			t.Errorf("%s: groups %+v (%d off), want chassis/racks %v + %d nodes (%d off)", c.name, p.Groups, p.Off, want, c.singles, c.nodesOff)
		}
		if p.FullLoad != c.fullLoad || c.cap-p.FullLoad != c.slack || !p.Fits {
			t.Errorf("%s: full load %v (slack %v, fits %v), want %v (slack %v)", c.name, p.FullLoad, c.cap-p.FullLoad, p.Fits, c.fullLoad, c.slack)
		}
		// "Power with plan" = on nodes × p_ref + 14 W × single off nodes +
		// levels still on, counted here from the printed groups.
		on := 5040 - c.nodesOff
		levelsOn := float64(56-c.racks)*900 + float64(280-5*c.racks-c.chassis)*248
		if got := float64(on)*c.busyWatt + 14*float64(c.singles) + levelsOn; got != c.fullLoad {
			t.Errorf("%s: printed plan recomputes to %v, not %v", c.name, got, c.fullLoad)
		}
		if p.Branch == BranchMixed && p.DVFS != on || p.Branch == BranchOff && p.DVFS != 0 {
			t.Errorf("%s: %d nodes slowed with %d on", c.name, p.DVFS, on)
		}
	}
}

// randomMachine draws a machine of up to maxNodes nodes with 1–5 pstates and
// up to three levels; with integer set, every power is a whole number of
// watts so that the float arithmetic is exact.
func randomMachine(r *rand.Rand, maxNodes int, integer bool) *Machine {
	w := func(lo, span float64) float64 {
		if integer {
			return lo + float64(r.IntN(int(span)+1))
		}
		return lo + span*r.Float64()
	}
	m := randomHierarchy(r, maxNodes)
	m.Off = w(0, 20)
	for l := range m.Levels {
		m.Levels[l].Watts = w(0, 400)
	}
	m.Idle = w(m.Off, 150)
	m.Deg = 1 + 2*r.Float64()
	m.PStates = nil
	hz, watts := 3e9, w(m.Off+100, 300)
	for range 1 + r.IntN(5) {
		m.PStates = append(m.PStates, PState{hz, watts})
		hz -= 1e8 + 3e8*r.Float64()
		watts -= w(1, 60)
		if watts <= m.Off {
			break
		}
	}
	return m
}

// allOff is the machine's power with every node off, node by node.
func allOff(m *Machine) float64 {
	return power(m, slices.Repeat([]bool{true}, m.Nodes), nil)
}

// Properties of every plan, on random machines and caps: it fits exactly
// when the mode can reach the cap at full load; when it fits, its groups,
// placed by Choose on random free times and evaluated node by node at full
// load, stay within the cap; its integer counts are the tight roundings of
// its formulas; and the optimal planner's model work is never below the
// paper planner's or a forced mechanism's.
func TestPlanProperties(t *testing.T) {
	for _, integer := range []bool{true, false} {
		r := rand.New(rand.NewPCG(5, 6))
		for range 4000 {
			m := randomMachine(r, 120, integer)
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			cap := 1.1 * m.FullPower() * r.Float64()
			if integer {
				cap = math.Round(cap)
			}
			low := r.IntN(len(m.PStates))
			for _, mode := range []Mode{ModeAuto, ModeShut, ModeDVFS, ModeMix, ModeIdle} {
				for _, planner := range []Planner{PlannerPaper, PlannerOptimal} {
					req := Request{Cap: cap, Mode: mode, Planner: planner, Lowest: low}
					p, err := m.Plan(req)
					if len(m.PStates) < 2 && mode != ModeShut && mode != ModeIdle {
						if err == nil {
							t.Fatalf("%+v: mode %v with one pstate accepted", m, mode)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%+v %+v: %v", m, req, err)
					}
					checkPlan(t, r, m, req, p, integer)
				}
			}
			if len(m.PStates) < 2 || len(m.Levels) > 0 {
				continue
			}
			opt := mustPlan(t, m, Request{Cap: cap, Planner: PlannerOptimal, Lowest: low})
			for _, other := range []Request{
				{Cap: cap, Planner: PlannerPaper, Lowest: low},
				{Cap: cap, Mode: ModeShut, Lowest: low},
				{Cap: cap, Mode: ModeDVFS, Lowest: low},
			} {
				if o := mustPlan(t, m, other); o.Fits && opt.Fits && opt.Work < o.Work-1e-9*float64(m.Nodes) {
					t.Fatalf("%+v cap %v: optimal work %v < %v/%v's %v", m, cap, opt.Work, other.Mode, other.Planner, o.Work)
				}
			}
		}
	}
}

func checkPlan(t *testing.T, r *rand.Rand, m *Machine, req Request, p Plan, integer bool) {
	t.Helper()
	n := m.Nodes
	pMax, pMin, b := m.Max(), m.PStates[p.Lowest].Watts, p.Budget
	tol := 0.0
	if !integer {
		tol = 1e-9 * m.FullPower()
	}
	// The least power the mode can reach at full load.
	reach := allOff(m)
	switch req.Mode {
	case ModeDVFS:
		reach = float64(n)*pMin + m.LevelPower()
	case ModeIdle:
		reach = m.FullPower()
	}
	if integer && p.Fits != (req.Cap >= reach) || !integer && req.Cap >= reach+tol && !p.Fits {
		t.Fatalf("%+v %+v: fits %v, cap %v, reachable %v; plan %+v", m, req, p.Fits, req.Cap, reach, p)
	}

	// Node by node at full load: the chosen nodes off, p.DVFS of the others
	// at the lowest pstate, the rest at the top one.
	free := make([]float64, n)
	for i := range free {
		free[i] = float64(r.IntN(4))
	}
	c, err := m.Choose(p.Groups, free)
	if err != nil {
		t.Fatalf("Choose(%+v): %v", p.Groups, err)
	}
	off := offSet(m, c)
	slowed := 0
	busy := func(i int) float64 {
		if slowed < p.DVFS {
			slowed++
			return pMin
		}
		return pMax
	}
	got := power(m, off, busy)
	if !near(got, p.FullLoad, tol) {
		t.Fatalf("%+v %+v: full load %v node by node, %v in the plan", m, req, got, p.FullLoad)
	}
	if p.Fits && got > req.Cap+tol {
		t.Fatalf("%+v %+v: plan %+v fits but draws %v > cap %v", m, req, p, got, req.Cap)
	}

	// Integer counts: the tight roundings of the formulas.
	fits := func(k int, from, to float64) bool { return float64(k)*to+float64(n-k)*from <= b }
	tight := func(what string, k int, from, to float64) {
		if k < n && !fits(k, from, to) || k > 0 && fits(k-1, from, to) {
			t.Fatalf("%+v %+v: %s = %d not the fewest that fit (plan %+v)", m, req, what, k, p)
		}
	}
	inRange := func(x float64) bool { return x >= 0 && x <= float64(n) }
	switch p.Branch {
	case BranchOff:
		tight("N_off", p.OffRounded, pMax, pOff(m))
		if inRange(p.OffFormula) && !(float64(p.OffRounded) > p.OffFormula-1e-6 && float64(p.OffRounded) < p.OffFormula+1) {
			t.Fatalf("%+v: N_off %v rounded to %d", req, p.OffFormula, p.OffRounded)
		}
	case BranchDVFS:
		tight("N_dvfs", p.DVFSRounded, pMax, pMin)
	case BranchMixed:
		tight("N − N_dvfs", p.OffRounded, pMin, pOff(m))
		if p.OffRounded+p.DVFSRounded != n || p.Off+p.DVFS != n {
			t.Fatalf("%+v: mixed plan does not cover the nodes: %+v", req, p)
		}
		if inRange(p.DVFSFormula) && !(float64(p.DVFSRounded) < p.DVFSFormula+1e-6 && float64(p.DVFSRounded) > p.DVFSFormula-1) {
			t.Fatalf("%+v: N_dvfs %v rounded to %d", req, p.DVFSFormula, p.DVFSRounded)
		}
	}
	if p.Branch == BranchOff || p.Branch == BranchMixed {
		from := pMax
		if p.Branch == BranchMixed {
			from = pMin
		}
		if p.Off > p.OffRounded && fits(p.OffRounded, from, pOff(m)) {
			t.Fatalf("%+v: grouping switches off %d > %d ungrouped", req, p.Off, p.OffRounded)
		}
		if len(m.Levels) == 0 && integer && p.Off != p.OffRounded {
			t.Fatalf("%+v: levels-free grouping %d ≠ rounding %d", req, p.Off, p.OffRounded)
		}
	} else if p.Off != 0 || m.NodesOff(p.Groups) != 0 {
		t.Fatalf("%+v: branch %v switches off %d", req, p.Branch, p.Off)
	}
	if p.Branch == BranchNone && req.Cap < m.FullPower() {
		t.Fatalf("%+v: no action under a binding cap", req)
	}
}

func pOff(m *Machine) float64 { return m.Off }

func TestPlanErrors(t *testing.T) {
	m := curie(true)
	single := &Machine{Nodes: 4, Off: 14, Idle: 117, PStates: curiePStates[:1], Deg: 1}
	for _, c := range []struct {
		name string
		m    *Machine
		r    Request
		want string
	}{
		{"NaN cap", m, Request{Cap: math.NaN()}, "cap"},
		{"negative cap", m, Request{Cap: -1}, "cap"},
		{"unknown mode", m, Request{Cap: 1, Mode: Mode(9)}, "mode Mode(9)"},
		{"unknown planner", m, Request{Cap: 1, Planner: Planner(7)}, "planner Planner(7)"},
		{"lowest too high", m, Request{Cap: 1, Lowest: 8}, "out of range"},
		{"lowest negative", m, Request{Cap: 1, Lowest: -1}, "out of range"},
		{"dvfs, one pstate", single, Request{Cap: 1, Mode: ModeDVFS}, "two pstates"},
		{"invalid machine", &Machine{}, Request{Cap: 1}, "nodes"},
	} {
		_, err := c.m.Plan(c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// Shut and idle need no DVFS.
	for _, mode := range []Mode{ModeShut, ModeIdle} {
		if _, err := single.Plan(Request{Cap: 1000, Mode: mode}); err != nil {
			t.Errorf("%v with one pstate: %v", mode, err)
		}
	}
	// An infinite cap is no cap.
	if p := mustPlan(t, m, Request{Cap: math.Inf(1)}); p.Branch != BranchNone || !p.Fits || p.Work != 5040 {
		t.Errorf("infinite cap: %+v", p)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ModeAuto.String(), "auto"}, {ModeShut.String(), "shut"}, {ModeDVFS.String(), "dvfs"},
		{ModeMix.String(), "mix"}, {ModeIdle.String(), "idle"}, {Mode(-1).String(), "Mode(-1)"},
		{PlannerPaper.String(), "paper"}, {PlannerOptimal.String(), "optimal"},
		{BranchNone.String(), "none"}, {BranchOff.String(), "off"}, {BranchDVFS.String(), "dvfs"},
		{BranchMixed.String(), "mixed"}, {BranchIdle.String(), "idle"}, {Branch(5).String(), "Branch(5)"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
