package powercap

import (
	"fmt"
	"math"
)

// Mode is the mechanism an administrator allows (georgiou.md §1.6).
type Mode int

const (
	// ModeAuto is Algorithm 1 as is: the planner chooses switch-off, DVFS or
	// both.
	ModeAuto Mode = iota
	// ModeShut forces switch-off: N_off = (P − N·P_max)/(P_off − P_max)
	// grouped, jobs at the top pstate only.
	ModeShut
	// ModeDVFS forbids switch-off; jobs are slowed online (Algorithm 2). At
	// full load that needs N_dvfs = (P − N·P_max)/(P_min − P_max) nodes at
	// the lowest pstate, which cannot reach caps below N·P_min.
	ModeDVFS
	// ModeMix is Algorithm 1 with the lowest pstate restricted (the paper's
	// 2.0 GHz on Curie, Request.Lowest). The planner treats it exactly as
	// ModeAuto; the modes differ in the lowest pstate the policy passes and
	// in the pstates the online step may use.
	ModeMix
	// ModeIdle uses neither mechanism: the online step keeps nodes idle.
	ModeIdle
)

var modeNames = [...]string{"auto", "shut", "dvfs", "mix", "idle"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Planner selects how Algorithm 1 decides between its mechanisms.
type Planner int

const (
	// PlannerPaper is Algorithm 1 as printed, with ρ read as DESIGN §8 does
	// (see [Rho]): if P < N·P_min the mixed branch, else switch-off when
	// ρ ≤ 0, else DVFS. It reproduces the paper's choices, including ones
	// its own model contradicts (switch-off at deg 1.63 on Curie).
	PlannerPaper Planner = iota
	// PlannerOptimal maximises the paper's work C1 under C2–C3 (a two-variable
	// LP): the mechanism that loses less work per watt shed ([Derived] > 0:
	// DVFS), and when DVFS wins but cannot reach the cap alone (P < N·P_min)
	// both, every node on at the lowest pstate (the paper's case 4). When
	// switch-off wins it is used alone at any cap. It weighs nodes only: the
	// level bonus enters the grouping, not the choice.
	PlannerOptimal
)

func (p Planner) String() string {
	switch p {
	case PlannerPaper:
		return "paper"
	case PlannerOptimal:
		return "optimal"
	}
	return fmt.Sprintf("Planner(%d)", int(p))
}

// Branch is the decision a plan took.
type Branch int

const (
	BranchNone  Branch = iota // the cap is at least the machine's full power: nothing to do
	BranchOff                 // switch N_off nodes off, the rest at the top pstate
	BranchDVFS                // no switch-off; N_dvfs nodes at the lowest pstate, applied online
	BranchMixed               // P < N·P_min: N_dvfs nodes at the lowest pstate, the rest off
	BranchIdle                // mode idle under a binding cap: the online step keeps nodes idle
)

var branchNames = [...]string{"none", "off", "dvfs", "mixed", "idle"}

func (b Branch) String() string {
	if b >= 0 && int(b) < len(branchNames) {
		return branchNames[b]
	}
	return fmt.Sprintf("Branch(%d)", int(b))
}

// Request is a powercap reservation as the offline step sees it.
type Request struct {
	Cap     float64 // W, absolute (a relative cap is a fraction of Machine.FullPower)
	Mode    Mode
	Planner Planner
	// Lowest is the index in Machine.PStates of the lowest pstate DVFS may
	// use. 0, which would leave DVFS nothing to scale, means the machine's
	// lowest pstate.
	Lowest int
}

// Plan is Algorithm 1's decision, with everything a report needs to explain
// it. "Formula" values are the paper's real-valued ones; with levels they
// are computed on Budget, the power left to the nodes with every level on.
type Plan struct {
	Request Request
	Branch  Branch
	Budget  float64 // Cap minus every level's power (all levels assumed on)

	Lowest  int     // resolved Request.Lowest: the pstate ρ, Deg and DVFS refer to (unused by shut and idle)
	Deg     float64 // slowdown at Lowest
	Rho     float64 // DESIGN §8's ρ at Deg; the paper planner switches off when ≤ 0
	Derived float64 // the criterion C1–C3 imply: > 0 iff DVFS loses less work per watt shed

	OffFormula  float64 // N_off of the branch's formula, before rounding
	DVFSFormula float64 // N_dvfs of the branch's formula, before rounding
	OffRounded  int     // ⌈N_off⌉ (switch-off branch) or N − N_dvfs (mixed branch), ungrouped, in [0, N]
	DVFSRounded int     // ⌊N_dvfs⌋ (mixed branch) or ⌈N_dvfs⌉ (DVFS branch), in [0, N]
	// Work is the paper's C1, N − N_off − N_dvfs·(1 − 1/Deg), at the formula
	// values (so without the bonus): node-equivalents of full-speed work. If
	// the plan does not fit the cap at full load it is MaxBusy/s instead, s
	// the slowdown of the pstate MaxBusy counts.
	Work float64

	NodeSaving float64 // s_node = p_ref − P_off, p_ref the power of a node left on (P_max, or P_min in the mixed branch)
	Shed       float64 // S = N_off(formula)·s_node = N·p_ref − Budget: watts the switch-off must save
	Groups     Groups  // the grouped switch-off plan (zero outside the off and mixed branches)
	Off        int     // nodes Groups switches off
	DVFS       int     // nodes at pstate Lowest at full load with Groups: all on nodes in the mixed branch
	FullLoad   float64 // machine power at full load with the plan (levels under Groups off)
	Fits       bool    // FullLoad ≤ Cap; if false the online step must also keep nodes idle
	// MaxBusy bounds the online step with no node off: how many nodes may run
	// at the mode's lowest pstate (the top one for shut and idle) while the
	// others idle, in [0, N].
	MaxBusy float64
}

// Rho is Algorithm 1's ρ = 1 − 1/deg − (P_max − P_dvfs)/(P_max − P_off) read
// as DESIGN §8 does, P_max − P_dvfs := P_min (P_dvfs being the reduction DVFS
// brings): ρ = 1 − 1/deg − P_min/(P_max − P_off). This reading reproduces the
// paper's Fig. 5 only within display precision (its deg column looks
// truncated to two decimals; georgiou.md §2.5).
func Rho(deg, pOff, pMin, pMax float64) float64 {
	return 1 - 1/deg - pMin/(pMax-pOff)
}

// Derived is the criterion the paper's model C1–C3 actually implies:
// 1/deg − (P_min − P_off)/(P_max − P_off). It is positive iff a watt shed by
// DVFS loses less work than a watt shed by switch-off, i.e. the literal ρ
// with its sign flipped (georgiou.md §1.3).
func Derived(deg, pOff, pMin, pMax float64) float64 {
	return 1/deg - (pMin-pOff)/(pMax-pOff)
}

// Plan runs Algorithm 1 for r.
func (m *Machine) Plan(r Request) (Plan, error) {
	if err := m.Validate(); err != nil {
		return Plan{}, err
	}
	if math.IsNaN(r.Cap) || r.Cap < 0 {
		return Plan{}, fmt.Errorf("powercap: cap %g W", r.Cap)
	}
	if r.Mode < ModeAuto || r.Mode > ModeIdle {
		return Plan{}, fmt.Errorf("powercap: unknown mode %v", r.Mode)
	}
	if r.Planner != PlannerPaper && r.Planner != PlannerOptimal {
		return Plan{}, fmt.Errorf("powercap: unknown planner %v", r.Planner)
	}
	usesDVFS := r.Mode == ModeAuto || r.Mode == ModeMix || r.Mode == ModeDVFS
	if usesDVFS && len(m.PStates) < 2 {
		return Plan{}, fmt.Errorf("powercap: mode %v needs at least two pstates", r.Mode)
	}
	low := r.Lowest
	if low == 0 {
		low = len(m.PStates) - 1
	}
	if low < 0 || low >= len(m.PStates) {
		return Plan{}, fmt.Errorf("powercap: lowest pstate %d out of range [0, %d)", r.Lowest, len(m.PStates))
	}

	n := float64(m.Nodes)
	pOff, pMax, pMin := m.Off, m.Max(), m.PStates[low].Watts
	p := Plan{
		Request: r,
		Budget:  r.Cap - m.LevelPower(),
		Lowest:  low,
		Deg:     m.Slowdown(low),
		Groups:  Groups{Count: make([]int, len(m.Levels))},
	}
	p.Rho = Rho(p.Deg, pOff, pMin, pMax)
	p.Derived = Derived(p.Deg, pOff, pMin, pMax)
	b := p.Budget

	switch {
	case b >= n*pMax:
		p.Branch = BranchNone
	case r.Mode == ModeIdle:
		p.Branch = BranchIdle
	case r.Mode == ModeShut:
		p.Branch = BranchOff
	case r.Mode == ModeDVFS:
		p.Branch = BranchDVFS
	case r.Planner == PlannerPaper && b < n*pMin:
		p.Branch = BranchMixed
	case r.Planner == PlannerPaper && p.Rho <= 0:
		p.Branch = BranchOff
	case r.Planner == PlannerPaper:
		p.Branch = BranchDVFS
	case p.Derived <= 0: // optimal; a tie (case 3) goes to switch-off, as ρ ≤ 0 does
		p.Branch = BranchOff
	case b < n*pMin: // optimal, DVFS better but not enough alone: case 4
		p.Branch = BranchMixed
	default:
		p.Branch = BranchDVFS
	}

	// fewest returns the fewest nodes (≤ N) that, each moving from power
	// `from` to `to`, bring the nodes' power within the budget; N if none do.
	fewest := func(estimate, from, to float64) int {
		fits := func(k int) bool { return float64(k)*to+float64(m.Nodes-k)*from <= b }
		k := m.Nodes
		if estimate < n { // also false for NaN
			k = max(0, int(math.Ceil(estimate)))
		}
		for k > 0 && fits(k-1) {
			k--
		}
		for k < m.Nodes && !fits(k) {
			k++
		}
		return k
	}

	pRef := pMax
	switch p.Branch {
	case BranchOff:
		p.OffFormula = (b - n*pMax) / (pOff - pMax)
		p.OffRounded = fewest(p.OffFormula, pMax, pOff)
	case BranchDVFS:
		p.DVFSFormula = (b - n*pMax) / (pMin - pMax)
		p.DVFSRounded = fewest(p.DVFSFormula, pMax, pMin)
		p.DVFS = p.DVFSRounded
	case BranchMixed:
		pRef = pMin
		p.DVFSFormula = (b - n*pOff) / (pMin - pOff)
		p.OffFormula = n - p.DVFSFormula
		p.OffRounded = fewest(p.OffFormula, pMin, pOff)
		p.DVFSRounded = m.Nodes - p.OffRounded
	}
	if p.Branch == BranchOff || p.Branch == BranchMixed {
		p.NodeSaving = pRef - pOff
		p.Shed = n*pRef - b
		p.Groups = m.Group(p.Shed, p.NodeSaving)
		p.Off = m.NodesOff(p.Groups)
		if p.Branch == BranchMixed {
			p.DVFS = m.Nodes - p.Off
		}
	}
	p.FullLoad = m.FullLoad(p.Groups, p.DVFS, low)
	p.Fits = p.FullLoad <= r.Cap

	busyAt := low
	if !usesDVFS {
		busyAt = 0
	}
	if pb := m.PStates[busyAt].Watts; pb <= m.Idle {
		p.MaxBusy = n
	} else {
		p.MaxBusy = max(0, min(n, (b-n*m.Idle)/(pb-m.Idle)))
	}
	if p.Fits {
		off := max(0, min(n, p.OffFormula))
		dvfs := max(0, min(n-off, p.DVFSFormula))
		p.Work = n - off - dvfs*(1-1/p.Deg)
	} else {
		p.Work = p.MaxBusy / m.Slowdown(busyAt)
	}
	return p, nil
}
