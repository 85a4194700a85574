package oracle

import (
	"math"
	"testing"
)

// Worked numbers of kunkel.md §2 and the tables of §3 that need no price
// file. Energies are in MWh, prices in €/kWh, so costs come out in k€.

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// basePeak is the base/peak contract hour by hour from local midnight:
// 06:00–22:00 at 0.16675 €/kWh, otherwise 0.10 (§1.3; no DST change).
func basePeak(hours int) []float64 {
	p := make([]float64, hours)
	for h := range p {
		p[h] = 0.10
		if d := h % 24; d >= 6 && d < 22 {
			p[h] = 0.16675
		}
	}
	return p
}

func flat(hours int, price float64) []float64 {
	p := make([]float64, hours)
	for h := range p {
		p[h] = price
	}
	return p
}

func mustAnalyze(t *testing.T, prices []float64, u float64) Theory {
	t.Helper()
	th, err := Analyze(prices, u)
	if err != nil {
		t.Fatalf("Analyze(%d prices, %v): %v", len(prices), u, err)
	}
	return th
}

var (
	mistral  = Machine{Nodes: 1529, Infra: 130e3, Idle: 70, Busy: 260}
	supermuc = Machine{Nodes: 9216, Infra: 176.5e3, Idle: 49} // busy power: measured per job
)

// mwh converts Machine.Energy's kWh to the tables' MWh.
func mwh(e Energy) Energy { return Energy{e.Infra / 1000, e.Idle / 1000, e.Job / 1000} }

// §2.1 and acceptance check 1.
func TestBasePeakMean(t *testing.T) {
	for _, days := range []int{1, 7, 367} {
		if m := Mean(basePeak(24 * days)); !near(m, 0.1445, 1e-15) {
			t.Errorf("%d days: base/peak mean = %.17g, want 0.1445", days, m)
		}
	}
	if m := Mean(nil); !math.IsNaN(m) {
		t.Errorf("Mean(nil) = %v, want NaN", m)
	}
}

// Acceptance check 1: under a flat price the oracle has nothing to exploit:
// Best = Worst = Mean, and the optimal schedule saves exactly Eq. 4 (clients)
// or Eq. 4 plus the infrastructure term (all) — and nothing more.
func TestFlatPrice(t *testing.T) {
	e := Energy{Infra: 1144, Idle: 942, Job: 2128}
	for _, u := range []float64{0, 0.2, 0.5, 0.832, 1} {
		th := mustAnalyze(t, flat(8808, 0.145), u)
		if th.Best != 0.145 || th.Worst != 0.145 || th.Mean != 0.145 {
			t.Errorf("U %v: best, worst, mean = %v, %v, %v, want 0.145", u, th.Best, th.Worst, th.Mean)
		}
		base := th.Baseline(e)
		if got, want := base-th.CostClient(e), th.ShutdownSaving(e); !near(got, want, 1e-9) {
			t.Errorf("U %v: baseline − client = %v, want Eq. 4 = %v", u, got, want)
		}
		if got, want := base-th.CostAll(e), th.ShutdownSaving(e)+th.InfraSaving(e); !near(got, want, 1e-9) {
			t.Errorf("U %v: baseline − all = %v, want %v", u, got, want)
		}
	}
}

// §2.4: the oracle on base/peak prices for the paper's spans and
// utilizations, and Table 7's BasePeak column.
func TestBasePeakOracle(t *testing.T) {
	for _, c := range []struct {
		hours, busy int
		u, best     float64
	}{
		{8808, 7328, 0.832, 0.14000628},
		{8784, 6535, 0.744, 0.13684273},
		{8784, 6904, 0.786, 0.13844119},
		{9384, 6925, 0.738, 0.13659924},
	} {
		th := mustAnalyze(t, basePeak(c.hours), c.u)
		if th.Busy != c.busy || !near(th.Best, c.best, 5e-9) || th.Worst != 0.16675 {
			t.Errorf("H %d U %v: busy %d best %.8f worst %v, want %d %.8f 0.16675",
				c.hours, c.u, th.Busy, th.Best, th.Worst, c.busy, c.best)
		}
	}
}

// The oracle on base/peak against a count of its off-peak and peak hours,
// for whole days and every busy-hour count (the closed form of §1.7 in
// whole hours, also below U = 1/3 where only off-peak hours are used).
func TestBasePeakClosedForm(t *testing.T) {
	const days = 10
	const h = 24 * days
	off, lo, hi := h/3, 0.10, 0.16675
	prices := basePeak(h)
	for k := 0; k <= h; k++ {
		th := mustAnalyze(t, prices, float64(k)/h)
		if th.Busy != k {
			t.Fatalf("U = %d/%d: busy %d", k, h, th.Busy)
		}
		var best, worst float64
		switch {
		case k == 0:
			best, worst = lo, (lo*float64(off)+hi*float64(h-off))/h
		case k <= off:
			best, worst = lo, (lo*float64(off-k)+hi*float64(h-off))/float64(h-k)
		default:
			best, worst = (lo*float64(off)+hi*float64(k-off))/float64(k), hi
		}
		if k == h {
			worst = hi
		}
		if !near(th.Best, best, 1e-15) || !near(th.Worst, worst, 1e-15) {
			t.Errorf("k %d: best %v worst %v, want %v %v", k, th.Best, th.Worst, best, worst)
		}
	}
}

// §2.2: the energy identity of §1.2 on the paper's systems, and the
// fixed-price costs of Tables 10 and 11 (0.145 €/kWh).
func TestEnergyIdentity(t *testing.T) {
	for _, c := range []struct {
		name                       string
		m                          Machine
		days, u                    float64
		infra, idle, job           float64 // MWh; job < 0: not derivable
		total, shutdown, optimal   float64
		costOn, costShut, bsdSaved float64 // k€ at 0.145
	}{
		// optimal: Table 6's 3,864 and 3,452 (§2.3).
		{"DKRZ 17", mistral, 366.8, 0.832, 1144.42, 942.21, 2127.77, 4214.39, 4056.10, 3863.84, 611.09, 588.13, 22.9},
		{"DKRZ 15", mistral, 366.5, 0.744, 1143.48, 941.44, 1901.16, 3986.08, 3745.07, 3452.34, 577.98, 543.04, 34.9},
		{"LRZ 14", supermuc, 366.9, 0.786, 1554.19, 3976.47, -1, 0, 0, 0, 0, 0, 0},
		{"LRZ 17", supermuc, 391.3, 0.738, 1657.55, 4240.92, -1, 0, 0, 0, 0, 0, 0},
	} {
		e := mwh(c.m.Energy(c.days*24, c.u))
		if !near(e.Infra, c.infra, 0.005) || !near(e.Idle, c.idle, 0.005) {
			t.Errorf("%s: E_infra %.3f E_idle %.3f, want %v %v", c.name, e.Infra, e.Idle, c.infra, c.idle)
		}
		if c.job < 0 {
			continue
		}
		if !near(e.Job, c.job, 0.005) || !near(e.Total(), c.total, 0.005) ||
			!near(e.Shutdown(c.u), c.shutdown, 0.005) || !near(e.Optimal(c.u), c.optimal, 0.005) {
			t.Errorf("%s: E_job %.3f total %.3f shutdown %.3f optimal %.3f, want %v %v %v %v",
				c.name, e.Job, e.Total(), e.Shutdown(c.u), e.Optimal(c.u), c.job, c.total, c.shutdown, c.optimal)
		}
		// §1.2: shutdown energy = P_infra·T + B·P_busy.
		b := c.u * float64(c.m.Nodes) * c.days * 24
		if want := (c.m.Infra*c.days*24 + b*c.m.Busy) / 1e6; !near(e.Shutdown(c.u), want, 1e-9) {
			t.Errorf("%s: shutdown %v, want P_infra·T + B·P_busy = %v", c.name, e.Shutdown(c.u), want)
		}
		th := mustAnalyze(t, flat(int(math.Ceil(c.days*24)), 0.145), c.u)
		on, saved := th.Baseline(e), th.ShutdownSaving(e)
		// The printed saving is the difference of the rounded costs
		// (611.0 − 588.1; 578.0 − 543.0), hence 0.06.
		if !near(on, c.costOn, 0.005) || !near(on-saved, c.costShut, 0.005) || !near(saved, c.bsdSaved, 0.06) {
			t.Errorf("%s: cost %.3f, with shutdown %.3f (saved %.3f), want %v %v %v",
				c.name, on, on-saved, saved, c.costOn, c.costShut, c.bsdSaved)
		}
		// Acceptance check 10: at a flat price Eq. 4 is the price × idle
		// power × idle node-hours.
		idleNodeHours := (1 - c.u) * float64(c.m.Nodes) * c.days * 24
		if want := 0.145 * c.m.Idle * idleNodeHours / 1e6; !near(saved, want, 1e-9) {
			t.Errorf("%s: Eq. 4 saving %v, want %v", c.name, saved, want)
		}
	}
}

// §3.5, Tables 10 and 11: run days → utilization and energy from the busy
// node-time alone (captions: 11,198,797 and 10,006,118 node-h), for the
// always-on and the shutdown schedulers. The printed energies are sometimes
// truncated (4,057.7 printed 4,057), hence a tolerance of 1 MWh; utilization
// is printed to 0.1 from run days printed to 0.1.
func TestSimulationTableEnergy(t *testing.T) {
	const b17, b15 = 11198797.0, 10006118.0
	for _, c := range []struct {
		table      string
		busy, days float64
		shutdown   bool
		mwh, util  float64
	}{
		{"10 FIFO / BackfillDelay", b17, 366.8, false, 4214, 83.2},
		{"10 BSD", b17, 366.8, true, 4056, 83.2},
		{"10 PAD-12", b17, 367.3, true, 4057, 83.1},
		{"10 PAD-24", b17, 367.8, true, 4059, 83.0},
		{"10 PAD-36", b17, 368.3, true, 4061, 82.9},
		{"10 PAD-48", b17, 368.8, true, 4062, 82.7},
		{"10 PAD-96", b17, 370.8, true, 4068, 82.3},
		{"10 EPA-12", b17, 700.7, true, 5098, 43.6},
		{"10 EPA-24", b17, 1115.8, true, 6393, 27.4},
		{"10 EPA-36 (run days corrected from 1113.8)", b17, 1144.7, true, 6483, 26.7},
		{"10 PA-12 base-peak (§1.2: 4,317.6)", b17, 450.6, true, 4317, 67.7},
		{"10 PA-24 (energy corrected from 4,317)", b17, 476.4, true, 4398, 64.1},
		{"10 PA-12 T1", b17, 428.1, true, 4247, 71.3},
		{"10 PA-24 T1", b17, 432.5, true, 4261, 70.6},
		{"10 PA-12 T2", b17, 418.6, true, 4217, 72.9},
		{"11 FIFO / BackfillDelay", b15, 366.5, false, 3986, 74.4},
		{"11 BSD", b15, 366.5, true, 3745, 74.4},
		{"11 PAD-12", b15, 366.9, true, 3746, 74.3},
		{"11 PAD-24", b15, 367.4, true, 3748, 74.2},
		{"11 PAD-36", b15, 367.9, true, 3749, 74.1},
		{"11 PAD-48", b15, 368.4, true, 3751, 74.0},
		{"11 PAD-96", b15, 370.4, true, 3757, 73.6},
		{"11 EPA-12", b15, 586.2, true, 4431, 46.5},
		{"11 EPA-24", b15, 923.2, true, 5482, 29.5},
		{"11 EPA-36", b15, 951.9, true, 5572, 28.6},
		{"11 PA-12", b15, 396.2, true, 3838, 68.8},
		{"11 PA-24", b15, 419.4, true, 3910, 65.0},
		{"11 PA-12 T1", b15, 385.4, true, 3804, 70.7},
		{"11 PA-24 T1", b15, 387.6, true, 3811, 70.4},
		{"11 PA-12 T2", b15, 378.6, true, 3783, 72.0},
		{"11 PA-12 T3", b15, 425.0, true, 3928, 64.2},
	} {
		hours := c.days * 24
		u := mistral.Utilization(hours, c.busy)
		e := mwh(mistral.Energy(hours, u))
		got := e.Total()
		if c.shutdown {
			got = e.Shutdown(u)
		}
		if !near(got, c.mwh, 1) || !near(100*u, c.util, 0.1+1e-9) {
			t.Errorf("Table %s: %.2f MWh at %.2f %%, printed %v at %v", c.table, got, 100*u, c.mwh, c.util)
		}
	}
}

// Tables 3–4 as printed: the inputs of §2.3 and §2.5 (energies in MWh,
// Table 4's components rounded as printed), and §2.5's mean, best and worst
// prices for the models BasePeak, T1, T2, T3 in that order.
type traceRow struct {
	name              string
	hours             int // ⌈run days · 24⌉
	u                 float64
	e                 Energy
	own               Ownership // k€
	mean, best, worst [4]float64
}

var (
	dkrzOwn = Ownership{System: 16500, Lifetime: 5, Annual: 4000}
	lrzOwn  = Ownership{System: 83000, Lifetime: 5, Annual: 16000}
	models  = [4]string{"BasePeak", "T1", "T2", "T3"}
)

var traces = []traceRow{
	{"LRZ 14", 8806, 0.786, Energy{Infra: 1554, Idle: 3976, Job: 7411}, lrzOwn,
		[4]float64{0.144510, 0.145012, 0.144823, 0.131271},
		[4]float64{0.138453, 0.128465, 0.137114, 0.115257},
		[4]float64{0.166750, 0.205765, 0.173127, 0.190068}},
	{"LRZ 17", 9392, 0.738, Energy{Infra: 1658, Idle: 4241, Job: 8290}, lrzOwn,
		[4]float64{0.144476, 0.145448, 0.143743, 0.130944},
		[4]float64{0.136568, 0.125681, 0.134732, 0.111296},
		[4]float64{0.166750, 0.201119, 0.169121, 0.186281}},
	{"DKRZ 15", 8796, 0.744, Energy{Infra: 1143, Idle: 941, Job: 1901}, dkrzOwn,
		[4]float64{0.144485, 0.144956, 0.144846, 0.131237},
		[4]float64{0.136823, 0.125317, 0.136021, 0.111836},
		[4]float64{0.166750, 0.202024, 0.170491, 0.187613}},
	{"DKRZ 17", 8804, 0.832, Energy{Infra: 1144, Idle: 942, Job: 2128}, dkrzOwn,
		[4]float64{0.144505, 0.144997, 0.144827, 0.131263},
		[4]float64{0.140010, 0.131820, 0.138452, 0.118794},
		[4]float64{0.166750, 0.210205, 0.176378, 0.192966}},
}

// theory is §2.5's oracle for trace i and model j, built from its printed
// prices (6 decimals) rather than from the price files.
func (r traceRow) theory(j int) Theory {
	return Theory{U: r.u, Hours: r.hours, Busy: int(float64(r.hours) * r.u),
		Mean: r.mean[j], Best: r.best[j], Worst: r.worst[j]}
}

// §2.3: Eq. 4 and the infrastructure saving in MWh and % of the always-on
// energy (Tables 5, 6 and 9's two shutdown columns), from Table 4's
// components as printed. Those are rounded to 1 MWh, so energies after a
// saving may differ from the print by up to 1 MWh (DKRZ 15: 3,744.1 vs
// 3,745 from the unrounded components, see TestEnergyIdentity).
func TestEq4AndInfrastructure(t *testing.T) {
	want := map[string]struct{ saved, shut, pct, infra, after, infraPct, bothPct float64 }{
		"LRZ 14":  {850.9, 12090, 6.6, 332.6, 11758, 2.6, 9.1},
		"LRZ 17":  {1111.1, 13077, 7.8, 434.4, 12643, 3.1, 10.9},
		"DKRZ 15": {240.9, 3745, 6.0, 292.6, 3452, 7.3, 13.4},
		"DKRZ 17": {158.3, 4056, 3.8, 192.2, 3864, 4.6, 8.3},
	}
	for _, r := range traces {
		w, e := want[r.name], r.e
		saved, infra := e.ShutdownSaving(r.u), e.InfraSaving(r.u)
		checks := []struct {
			what      string
			got, want float64
			tol       float64
		}{
			{"(1−U)·E_idle", saved, w.saved, 0.05},
			{"shutdown energy", e.Shutdown(r.u), w.shut, 1},
			{"shutdown %", 100 * saved / e.Total(), w.pct, 0.05},
			{"(1−U)·E_infra", infra, w.infra, 0.05},
			{"energy with infrastructure off", e.Optimal(r.u), w.after, 1},
			{"infrastructure %", 100 * infra / e.Total(), w.infraPct, 0.05},
			{"Table 9 clients + infrastructure %", 100 * (saved + infra) / e.Total(), w.bothPct, 0.05},
		}
		for _, c := range checks {
			if !near(c.got, c.want, c.tol) {
				t.Errorf("%s: %s = %.3f, want %v", r.name, c.what, c.got, c.want)
			}
		}
		if got := e.Shutdown(r.u) - e.InfraSaving(r.u); !near(got, e.Optimal(r.u), 1e-9) {
			t.Errorf("%s: shutdown − infra saving = %v, optimal energy %v", r.name, got, e.Optimal(r.u))
		}
	}
}

// Tables 3 and 5–9 as printed (§3.4), computed from §2.5's prices. The
// tolerances are half a printed unit, except where noted: the paper's
// roundings are not consistent (kunkel.md §2.5).
func TestTheoryTables(t *testing.T) {
	type four = [4]float64
	printed := map[string]struct {
		t3, t5, t6, t7best, t7worst, t8client, t8all, t9client, t9all four
	}{
		"LRZ 14": {four{1870, 1876, 1874, 1699}, four{123, 123, 123, 112}, four{48.1, 48.2, 48.2, 43.7},
			four{0.138, 0.129, 0.137, 0.115}, four{0.167, 0.206, 0.173, 0.190},
			four{187, 297, 204, 281}, four{242, 366, 262, 345},
			four{10.0, 15.8, 10.9, 16.6}, four{13.0, 19.5, 14.0, 20.3}},
		"LRZ 17": {four{2050, 2064, 2039, 1857}, four{161, 162, 160, 145}, four{62.8, 63.2, 62.4, 56.8},
			four{0.137, 0.126, 0.135, 0.111}, four{0.167, 0.201, 0.169, 0.186},
			four{251, 388, 262, 369}, four{323, 475, 336, 450},
			four{12.2, 18.8, 12.9, 19.9}, four{15.8, 23.0, 16.5, 24.2}},
		"DKRZ 15": {four{576, 578, 577, 523}, four{35, 35, 35, 32}, four{42.3, 42.4, 42.4, 38.4},
			four{0.137, 0.125, 0.136, 0.112}, four{0.167, 0.202, 0.171, 0.188},
			four{55, 86, 58, 82}, four{104, 145, 108, 137},
			four{9.5, 14.9, 10.0, 15.7}, four{18.0, 25.2, 18.7, 26.2}},
		"DKRZ 17": {four{609, 611, 610, 553}, four{23, 23, 23, 21}, four{27.8, 27.9, 27.8, 25.2},
			four{0.140, 0.132, 0.139, 0.119}, four{0.167, 0.210, 0.176, 0.193},
			four{36, 61, 41, 57}, four{68, 102, 75, 94},
			four{5.9, 10.1, 6.7, 10.3}, four{11.2, 16.7, 12.3, 17.0}},
	}
	// Table 7's three half-way cases, printed rounded up (0.138452 → 0.139).
	halfway := map[string]bool{"DKRZ 17 T2 Table 7 best": true, "DKRZ 15 T2 Table 7 worst": true, "LRZ 14 T1 Table 7 best": true}
	for _, r := range traces {
		p := printed[r.name]
		for j, model := range models {
			th := r.theory(j)
			base := th.Baseline(r.e)
			client, all := base-th.CostClient(r.e), base-th.CostAll(r.e)
			checks := []struct {
				what      string
				got, want float64
				tol       float64
			}{
				// Table 3 (k€): LRZ 17 T3 is 1,857.97, printed 1,857.
				{"Table 3 cost", base, p.t3[j], 1},
				{"Table 5", th.ShutdownSaving(r.e), p.t5[j], 0.5 + 0.01},
				// Table 6: LRZ 17 T3 is 56.88, printed 56.8.
				{"Table 6", th.InfraSaving(r.e), p.t6[j], 0.1},
				{"Table 7 best", th.Best, p.t7best[j], 0.0005},
				{"Table 7 worst", th.Worst, p.t7worst[j], 0.0005},
				// Table 8: 31 of 32 within 1 k€; LRZ 14 T3 "all" is 343.6,
				// printed 345 (the paper's OptCost_all was ≈ 1,354, Table 15b).
				{"Table 8 client", client, p.t8client[j], 1},
				{"Table 8 all", all, p.t8all[j], 1},
				{"Table 9 client", 100 * client / base, p.t9client[j], 0.1 + 1e-9},
				{"Table 9 all", 100 * all / base, p.t9all[j], 0.1 + 1e-9},
			}
			for _, c := range checks {
				tol := c.tol
				if halfway[r.name+" "+model+" "+c.what] {
					tol = 0.00055
				}
				if r.name == "LRZ 14" && model == "T3" && c.what == "Table 8 all" {
					tol = 1.5
				}
				if !near(c.got, c.want, tol) {
					t.Errorf("%s %s: %s = %.4f, printed %v", r.name, model, c.what, c.got, c.want)
				}
			}
		}
	}
}

// §2.6, Table 15: yearly TCO in the three scenarios, with the spec's
// corrections where the print is wrong or unreadable.
func TestTCOTable15(t *testing.T) {
	type four = [4]float64
	want := map[string]struct {
		system, procured float64
		current, energy  four
		procurement      four
		energyC          four // scenario c energy cost; 0 = not checked
	}{
		// (b) T3: the paper's 33,954 rests on OptCost_all ≈ 1,354; ours is
		// 1,355.1 (the Table 8 exception). (c) unreadable in the print:
		// kunkel.md §2.6's reconstruction, T3's 1,543 energy cost printed.
		"LRZ 14": {32600, 29047.6, four{34470, 34476, 34474, 34299}, four{34228, 34111, 34212, 33955},
			four{30747, 30753, 30750, 30591}, four{1699.0, 1705.1, 1702.8, 1543.4}},
		// (c) T2/T3 printed 1,660/1,833 (TCO 29,911/30,084): swapped and off.
		"LRZ 17": {32600, 28250.8, four{34650, 34664, 34639, 34457}, four{34327, 34189, 34303, 34007},
			four{30078, 30090, 30068, 29906}, four{0, 0, 1817.3, 1655.5}},
		// (b) TCOs missing in the print except T2's 7,770. (c) T3 printed
		// 500 (TCO 6,955): it is 3,452 × 0.131237 = 453.0.
		"DKRZ 15": {7300, 6455.2, four{7876, 7878, 7877, 7823}, four{7772, 7733, 7770, 7686},
			four{6954, 6956, 6956, 6908}, four{0, 0, 0, 453.0}},
		"DKRZ 17": {7300, 6745.6, four{7909, 7911, 7910, 7853}, four{7841, 7809, 7835, 7759},
			four{7304, 7306, 7305, 7253}, four{558.3, 560.2, 559.5, 507.1}},
	}
	for _, r := range traces {
		w := want[r.name]
		if got := r.own.PerYear(); !near(got, w.system, 1e-9) {
			t.Errorf("%s: system expenditure %v, want %v", r.name, got, w.system)
		}
		if got := r.own.Procured(r.u).PerYear(); !near(got, w.procured, 1e-9) {
			t.Errorf("%s: procured system expenditure %v, want %v", r.name, got, w.procured)
		}
		for j, model := range models {
			th := r.theory(j)
			cur, opt, proc := th.YearlyTCO(r.own, r.e)
			if !near(cur, w.current[j], 1) || !near(opt, w.energy[j], 1) || !near(proc, w.procurement[j], 1) {
				t.Errorf("%s %s: TCO %.1f / %.1f / %.1f, want %v / %v / %v",
					r.name, model, cur, opt, proc, w.current[j], w.energy[j], w.procurement[j])
			}
			if w.energyC[j] != 0 {
				// The spec multiplies the rounded energies (11,758 MWh…).
				if got := proc - w.procured; !near(got, w.energyC[j], 0.15) {
					t.Errorf("%s %s: scenario c energy cost %.2f, want %v", r.name, model, got, w.energyC[j])
				}
			}
		}
	}
}

// Eq. 1 over the lifetime, and the hourly costs derived from it.
func TestOwnership(t *testing.T) {
	o := dkrzOwn // k€
	if got := o.TCO(3055); got != 16500+4000*5+3055 {
		t.Errorf("TCO = %v", got)
	}
	// 7,300 k€ a year over 8,760 h: 833.33 €/h; over 1529 nodes 0.545 €.
	if got := o.PerHour() * 1000; !near(got, 833.3333333, 1e-6) {
		t.Errorf("Mistral per hour = %v €", got)
	}
	if got := o.PerNodeHour(1529) * 1000; !near(got, 0.5450185, 1e-6) {
		t.Errorf("Mistral per node-hour = %v €", got)
	}
	// SuperMUC: 32,600 k€ a year → 3,721.46 €/h → 0.40381 € per node-hour.
	if got := lrzOwn.PerNodeHour(9216) * 1000; !near(got, 0.4038043, 1e-6) {
		t.Errorf("SuperMUC per node-hour = %v €", got)
	}
	// Lifetime TCO = PerYear · lifetime + energy.
	if got, want := o.TCO(0), o.PerYear()*o.Lifetime; !near(got, want, 1e-9) {
		t.Errorf("TCO(0) = %v, PerYear·lifetime = %v", got, want)
	}
	if p := o.Procured(0.5); p.System != 8250 || p.Annual != 4000 || p.Lifetime != 5 || o.System != 16500 {
		t.Errorf("Procured(0.5) = %+v (receiver %+v)", p, o)
	}
}
