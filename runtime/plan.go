// Package runtime executes a Plan: for every run it loads the workload,
// replays it through the discrete-event engine under the run's machine,
// contract and policy, and returns metrics. It knows nothing of .pwr syntax;
// the compiler produces its input.
package runtime

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// Plan is a compiled scenario: the runs to execute and how they group into
// experiments.
type Plan struct {
	Experiments []*Experiment
	Runs        []*Run // experiment by experiment, sweep order within each
}

// Experiment groups the runs of one `experiment` block.
type Experiment struct {
	Name     string
	Dims     []string // swept dimensions in declaration order, e.g. {"contract", "policy"}
	Baseline *Baseline
	Report   []string // metric columns for tables, in order
	Runs     []int    // indices into Plan.Runs
	Seed     uint64
}

// Baseline names the value of one swept dimension that the others are
// compared against: each run's saving is measured against the run that has
// the same values in every other dimension and Value in Dim.
type Baseline struct {
	Dim   string
	Value string
}

// Run is one simulation.
type Run struct {
	Index      int
	Experiment string
	Name       string  // unique in the plan; used for file names
	Params     []Param // the swept dimensions' values, in Dims order
	Workload   Workload
	Machine    Machine
	Contract   Contract
	Policy     Policy
	Seed       uint64 // derived from the experiment seed and the run's identity
	Baseline   int    // index of the run this one is compared against; -1 if none (or itself)
	// Account, when set, is the window energy and cost are integrated
	// over, the same for every run of the experiment; nil means each
	// run's own span, from its first submission to its last job end.
	Account *Window
	// Measure says Account is a measure window: the jobs' figures
	// (launched, cpu_time, useful_work) are clipped to it too, and
	// powercaps are noticed at its start unless they say otherwise.
	Measure bool
	// SLAs are the slowdown bounds whose violation shares the report
	// asks for beside the policy's own (`sla_violations(100)`).
	SLAs      []float64
	DependsOn []int // runs whose results this run needs before it can start
}

// Window is a span of a trace's time, [From, To].
type Window struct{ From, To Instant }

// Instant is a point in a trace's time: a local date and time in the
// trace's zone ("2006-01-02T15:04:05") when Date is set, else Offset
// seconds after the first submission.
type Instant struct {
	Offset float64
	Date   string
}

// String is the instant as a scenario writes it.
func (i Instant) String() string {
	if i.Date != "" {
		return strconv.Quote(strings.TrimSuffix(strings.Replace(i.Date, "T", " ", 1), ":00"))
	}
	return strconv.FormatFloat(i.Offset/86400, 'g', 6, 64) + " d"
}

// Param is one swept dimension's value for a run.
type Param struct {
	Name  string
	Value string
	// Partial marks a dimension that only some runs of the experiment
	// take (a param read by one of several swept policies): tables label
	// it with its name.
	Partial bool
}

// Label is how tables name a run: its swept values joined by " · ", with
// name=value for dimensions that only some runs take.
func (r *Run) Label() string {
	parts := make([]string, len(r.Params))
	for i, p := range r.Params {
		parts[i] = p.Value
		if p.Partial {
			parts[i] = p.Name + "=" + p.Value
		}
	}
	return strings.Join(parts, " · ")
}

// WorkloadKind says where jobs come from.
type WorkloadKind int

// Workload kinds.
const (
	SWF WorkloadKind = iota
	Synthetic
	Sacct // Slurm accounting: sacct --parsable2 output
)

// Workload describes the jobs of a run.
type Workload struct {
	Kind  WorkloadKind
	Name  string // for notes: the trace's base name, or "synthetic"
	Path  string // SWF file
	Where string // file:line:col of the scenario text that names the file, for errors
	// HasSize is set when the compiler found MaxProcs or MaxNodes in the
	// trace's header (what `nodes auto` and ScaleToMachine need).
	HasSize      bool
	SkipBadLines bool
	// ScaleToMachine maps each job onto the machine at the share of the
	// trace's machine it used: nodes × machine nodes / trace nodes,
	// rounded up (trace nodes from the header: MaxProcs / cores, else
	// MaxNodes).
	ScaleToMachine bool
	Synthetic      workload.Synthetic // Nodes is taken from the machine
	Power          JobPower           // what a running job draws
	// Start overrides the wall-clock time of trace time 0 given by the SWF
	// header, as local time "2006-01-02T15:04:05" in the trace's zone.
	Start    string
	TimeZone string // IANA zone; overrides the header when not empty
	// Keep, when set, keeps only the jobs it is true for (a rule over fixed
	// job fields), after cleaning; Submitted keeps the jobs submitted in a
	// window (offsets after the first submission, or local dates). The
	// jobs cut are counted like cleaning.
	Keep      *Expr
	Submitted *Window
	// Exclusive (sacct) says every job held whole nodes, so its
	// ConsumedEnergyRaw is its own; otherwise a job counts as holding whole
	// nodes when its CPUs are its nodes × the machine's cores.
	Exclusive bool
	// SacctFormat lists the fields of `sacct --noheader` output, as
	// sacct's --format takes them ("JobID,Submit,…"); empty: the file's
	// first line is its header.
	SacctFormat string
}

// JobPowerKind is how a job's power is modelled.
type JobPowerKind int

// Job power models.
const (
	MachineBusy   JobPowerKind = iota // the machine's busy node power
	ConstantPower                     // Value for every job
	UniformPower                      // uniform on [Lo, Hi], seeded
	NormalPower                       // normal(Mean, SD) clipped to [Lo, Hi], seeded
	RulePower                         // Rule, evaluated once per job
)

// JobPower is the power model of a workload's jobs. Values are W per
// PerNodes nodes (1: per node; 1024: per Blue Gene/P rack, as Zhou et al.
// give them); a job of n nodes draws n/PerNodes times the value.
type JobPower struct {
	Kind     JobPowerKind
	PerNodes int
	Value    float64 // ConstantPower
	Mean, SD float64 // NormalPower
	Lo, Hi   float64 // UniformPower's range; NormalPower's clipping range
	Rule     *Expr   // RulePower: W per PerNodes nodes from job fields
	Seed     uint64  // for the distributions: the same for every run of an experiment
}

// Machine is a homogeneous cluster of nodes.
type Machine struct {
	Name           string
	Nodes          int // 0 = from the trace header (MaxProcs / cores, else MaxNodes)
	Cores          int // per node; SWF processors → nodes = ceil(procs / cores)
	Power          NodePower
	Infrastructure float64 // W, always drawn
	// InfrastructurePerNode adds W per node (resolved once the node count
	// is known, e.g. from the trace header).
	InfrastructurePerNode float64
	BootTime              float64 // s
	ShutdownTime          float64 // s
	// Levels group nodes (chassis, racks), lowest first: instance k of a
	// level holds nodes [k·Size, (k+1)·Size). Each draws its components'
	// power while any node in it is not off; when all are off, the level
	// and the off power of its nodes vanish (DESIGN §4.3).
	Levels []Level
	// PStates are DVFS operating points, highest frequency first; a busy
	// node at pstate p draws PStates[p].Power instead of Power.Busy.
	// Empty: one state, Power.Busy.
	PStates []PState
	// Costs, when set, are what owning the machine costs, for Kunkel et
	// al.'s TCO (Eq. 1, Table 15).
	Costs *MachineCosts
	// Slowdown is the run-time factor at the lowest pstate (≥ 1); s(f) is
	// linear in f, 1 at the highest: s(f) = 1 + (Slowdown−1)(f₀−f)/(f₀−f_min).
	Slowdown float64
}

// MachineCosts are a machine's costs besides energy, in a currency: the
// machine's own plus so much per node, for machines sized to a trace.
type MachineCosts struct {
	System, SystemPerNode float64 // procurement, paid once
	Lifetime              float64 // s, the system is written off over it
	Annual, AnnualPerNode float64 // per year: staff, maintenance
	Currency              string
}

// Level is a kind of grouping of nodes (a chassis, a rack) and the power
// each of its instances draws while on.
type Level struct {
	Name       string
	Size       int              // nodes per instance
	Components []PowerComponent // drawn per instance while on
}

// PowerComponent is a named part of a level's power, reported on its own
// (Patil's rack fans and interconnect). Name is "" for a plain `power P`.
type PowerComponent struct {
	Name  string
	Power float64 // W per instance
}

// PState is a DVFS operating point.
type PState struct {
	Freq  float64 // Hz
	Power float64 // W drawn by a busy node at this frequency
}

// Stretch is s(f) for pstate p: how much longer a job runs there than at
// the highest pstate.
func (m *Machine) Stretch(p int) float64 {
	n := len(m.PStates)
	if n < 2 || p <= 0 || m.Slowdown <= 1 {
		return 1
	}
	f0, fmin := m.PStates[0].Freq, m.PStates[n-1].Freq
	return 1 + (m.Slowdown-1)*(f0-m.PStates[p].Freq)/(f0-fmin)
}

// NodePower is a node's draw in each state, in W.
type NodePower struct {
	Off, Idle, Busy, Boot, Shutdown float64
}

// ContractKind is the pricing scheme of a contract.
type ContractKind int

// Contract kinds.
const (
	Flat ContractKind = iota
	BasePeak
	Hourly
)

// Contract is an electricity tariff.
type Contract struct {
	Name      string
	Currency  string
	Kind      ContractKind
	Price     float64 // flat price, currency per kWh
	Peak      []tariff.Window
	PeakPrice float64
	BasePrice float64
	Prices    string // hourly series file (CSV)
	// Generate, when set, draws the hourly series instead (Kunkel et
	// al.'s T1–T3 in kind; kunkel.md §4.6).
	Generate *tariff.Generator
	// PriceFormat says what the price file's time column holds.
	PriceFormat tariff.Format
	// PriceScale converts the file's prices into currency per kWh: 1 for
	// prices per kWh (0 is taken as 1), 0.001 for prices per MWh.
	PriceScale float64
	// PriceUnit is the file's price unit as the scenario writes it, e.g.
	// "EUR/MWh"; "" means the currency per kWh.
	PriceUnit string
	// SeriesStart is the local wall-clock time "2006-01-02T15:04:05" of the
	// hourly series' first hour; "" means local midnight of the day the
	// trace starts, or the file's first timestamp (PriceFormat.Time iso).
	SeriesStart string
	// Repeat lets a run use hours outside the series, which then repeats
	// cyclically (hour k takes the price of hour k mod n); without it, a
	// run that needs such hours fails.
	Repeat bool

	// The rest of the bill (kunkel.md §4.5): a power band (on the
	// facility's or the jobs' power) and a demand charge (on the
	// facility's) metered over Meter-second intervals, an energy budget whose overrun is
	// billed at Overrun per kWh, and the grid's carbon intensity (g/kWh),
	// constant or an hourly series (CarbonSeries, read like prices).
	Band         *ledger.Band
	Demand       *ledger.Demand
	Meter        float64
	EnergyBudget float64 // J; 0 = none
	Overrun      float64 // currency per kWh
	Carbon       float64 // g/kWh, when CarbonSeries is empty
	CarbonSeries string
	// CarbonFormat, CarbonScale (g/kWh per unit of the file's values; 0
	// is taken as 1), CarbonUnit, CarbonStart and CarbonRepeat are to the
	// carbon series what PriceFormat, PriceScale, PriceUnit, SeriesStart
	// and Repeat are to the prices.
	CarbonFormat tariff.Format
	CarbonScale  float64
	CarbonUnit   string
	CarbonStart  string
	CarbonRepeat bool
	// CarbonGenerate, when set, draws the hourly intensity series instead.
	CarbonGenerate *tariff.Generator
	HasCarbon      bool
}

// BackfillKind selects the backfilling stage.
type BackfillKind int

// Backfill kinds.
const (
	NoBackfill BackfillKind = iota
	EASY                    // reservation for the first waiting job
	Greedy                  // start whatever fits, up to Depth skipped jobs (Kunkel's BackfillDelay)
)

// EstimateKind is the run time estimate used by backfilling.
type EstimateKind int

// Estimate kinds.
const (
	Requested EstimateKind = iota // the requested time (SWF field 9)
	Exact                         // the actual run time (an oracle)
)

// Policy is a scheduling policy: queue order, admission and backfilling,
// plus power management.
type Policy struct {
	Name     string
	Order    *Expr // ascending sort key; nil = job.submit
	Priority *Expr // descending, before Order; nil = none
	Admit    *Expr // may this job start now; nil = always
	Backfill BackfillKind
	Depth    int // Greedy: stop after this many jobs that did not fit
	Estimate EstimateKind
	Shutdown *Shutdown // nil = nodes stay on
	// Contiguous rounds every allocation up to a multiple of this many
	// nodes (Blue Gene/P midplanes: 512); 0 or 1 allocates what jobs ask.
	Contiguous int
	Allocate   Allocation // which nodes; zero value: counted, no placement
	Frequency  Frequency  // the pstate jobs start at; zero value: the highest
	Budget     *Budget    // nil = no power budget
	// Powercaps cap the whole machine's power (Georgiou et al.): several
	// may apply at once; a job obeys the lowest in force over its run.
	Powercaps []Powercap
	Select    SelectKind
	Window    int // knapsack: the number of queue heads it chooses from
	// Interval, when > 0, also runs a pass every Interval seconds (from the
	// first submission) while jobs wait, as a scheduler's cycle does: rules
	// that read job.wait change between events.
	Interval float64
	Value    *Expr  // knapsack value; nil = job.nodes
	Weight   *Expr  // budget weight of a job; nil = job.power
	Defer    *Defer // nil = jobs start as soon as they can

	// Active is the capacity controller (capacity.go); nil: every node
	// is schedulable.
	Active *Active
}

// Rules returns every rule of the policy, its stages' included.
func (p *Policy) Rules() []*Expr {
	var out []*Expr
	p.eachPassRule(func(e *Expr) { out = append(out, e) })
	if d := p.Defer; d != nil {
		out = append(out, d.Waiting, d.Running, d.Rule)
	}
	return slices.DeleteFunc(out, func(e *Expr) bool { return e == nil })
}

// Defer is Kunkel et al.'s price-aware start (kunkel.md §1.6): the job a
// FIFO pass would start next may instead wait, within a look-ahead, for
// the start whose cost — waiting and running power times the objective
// (price, carbon intensity, or a rule of both) — is least.
type Defer struct {
	Lookahead float64 // s, whole hours: the window ends Lookahead after the current hour's start
	Waiting   *Expr   // W a job costs while it waits; nil: job.nodes × system.infrastructure / system.nodes
	Running   *Expr   // W while it runs; nil: job.power plus the waiting default
	Runtime   EstimateKind
	Then      DeferThen
	Deadline  float64        // s; > 0: a job starts once it has waited this long, at that instant at the latest
	PreferNow float64        // discount of starting now (the paper's 0.999 factor: 0.001)
	Objective DeferObjective // what a kWh costs at each instant
	Rule      *Expr          // MinimizeRule: per kWh, from price.now and carbon.now
}

// DeferThen is what a deferral does to the passes before its start.
type DeferThen int

// Deferral commitments (kunkel.md §1.6 step 8).
const (
	DeferCommit          DeferThen = iota // no pass until the chosen start (PriceAware)
	DeferRecompute                        // every pass decides again (PriceAwareDeadline)
	DeferRecomputeOnEnds                  // passes on job ends and the start, not on arrivals (EnforceCheapEnergy)
)

// DeferThenNames are the commitments as a scenario writes them.
var DeferThenNames = [...]string{"commit", "recompute", "recompute_on_ends"}

// DeferObjective is what a deferral minimizes.
type DeferObjective int

// Objectives of a deferral.
const (
	MinimizePrice  DeferObjective = iota // the contract's price
	MinimizeCarbon                       // the grid's carbon intensity
	MinimizeRule                         // Defer.Rule
)

// SelectKind is how jobs are chosen while a power budget applies.
type SelectKind int

// Selection stages.
const (
	SelectInOrder  SelectKind = iota // queue order, as the base policy
	SelectKnapsack                   // Zhou's window + 0-1 knapsack
)

// BudgetWhen says when a power budget applies.
type BudgetWhen int

// When budgets apply.
const (
	BudgetAlways BudgetWhen = iota
	BudgetDuringPeak
	BudgetWhile
)

// Budget caps the power of the jobs running (their weight, by default
// job.power) while it applies. Jobs already running are never stopped.
type Budget struct {
	Power float64 // W; ignored when OfBaseline > 0
	// OfBaseline, when > 0, sets the budget to this share of the baseline
	// run's mean job power (Zhou et al.: 50%..90%); the run depends on it.
	OfBaseline float64
	When       BudgetWhen
	While      *Expr // BudgetWhile
}

// CapMode is how a powercap is met (Georgiou et al. §IV-B).
type CapMode int

// Powercap modes.
const (
	CapAuto CapMode = iota // Alg. 1 chooses switch-off or DVFS; jobs at any pstate
	CapShut                // switch nodes off for the window; jobs at the top pstate
	CapDVFS                // no switch-off; jobs at lower pstates
	CapMix                 // both, pstates down to Lowest (the paper: 2.0 GHz)
	CapIdle                // neither: nodes idle, jobs at the top pstate wait for power
)

// CapModeNames are the modes as a scenario writes them, by CapMode.
var CapModeNames = [...]string{"auto", "shut", "dvfs", "mix", "idle"}

// FitRule is how a job's pstate is chosen under a cap (Alg. 2).
type FitRule int

// Frequency rules under a cap.
const (
	FitIdle FitRule = iota // SLURM's: no faster than every idle node could run under the cap, then down until the job fits
	FitJob                 // Alg. 2 as printed: the fastest pstate at which the job fits
)

// Powercap caps the machine's power: all of it, nodes in every state,
// levels, transitions and infrastructure (Georgiou et al.).
type Powercap struct {
	Power float64 // W; 0 when Share is set
	Share float64 // of P_full, the machine's maximum power, when > 0
	// Start and Duration place a reserved window, planned at Notice
	// (Alg. 1) and enforced on every job whose walltime overlaps it;
	// Start nil makes a cap set for now, applying When (always, during
	// peak, while a rule holds), without planning.
	Start    *Instant
	Duration float64
	Notice   *Instant // when the reservation is made; nil: the first submission
	When     BudgetWhen
	While    *Expr
	Mode     CapMode
	Lowest   float64 // Hz: the lowest pstate jobs may run at; 0 = the machine's lowest (mix: the paper's 2.0 GHz is set by std/georgiou)
	Fit      FitRule
	Kill     bool // running kill: jobs over the cap when it starts are killed, the most recently started first
	Optimal  bool // planner optimal (C1–C3 solved) instead of Alg. 1 as printed
}

// Shutdown switches nodes off after they have been idle for After seconds.
type Shutdown struct {
	After float64
	// Keep idle nodes on as a reserve (Slurm's SuspendExcNodes habit):
	// shutdown leaves at least this many nodes idle.
	Keep int
}

// Allocation chooses which nodes a job gets, on machines whose nodes have
// identities (see runtime/alloc): "" or "any" counts nodes without
// placing them; otherwise first_available, last_available, min_resource,
// cpu_load, max_balance, fastest or rack_aware (by Level, an index into
// Machine.Levels; −1 for the lowest).
type Allocation struct {
	Name  string
	Level int
}

// FrequencyKind is how a job's pstate is chosen when it starts.
type FrequencyKind int

// Frequency stages.
const (
	FreqMax    FrequencyKind = iota // the highest pstate
	FreqPState                      // a fixed pstate
	FreqRule                        // Rule gives a frequency in Hz: the highest pstate at or below it
)

// Frequency is the policy's frequency stage.
type Frequency struct {
	Kind   FrequencyKind
	PState int   // FreqPState: index into Machine.PStates
	Rule   *Expr // FreqRule
}

// String describes the model as a scenario would write it.
func (p JobPower) String() string {
	per := "per node"
	if p.PerNodes > 1 {
		per = fmt.Sprintf("per %d nodes", p.PerNodes)
	}
	w := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) + " W" }
	switch p.Kind {
	case ConstantPower:
		return w(p.Value) + " " + per
	case UniformPower:
		return fmt.Sprintf("uniform %s..%s %s, seed %d", w(p.Lo), w(p.Hi), per, p.Seed)
	case NormalPower:
		clip := ""
		if !math.IsInf(p.Hi, 1) || p.Lo != 0 {
			clip = fmt.Sprintf(" in %s..%s", w(p.Lo), w(p.Hi))
		}
		return fmt.Sprintf("normal %s sd %s%s %s, seed %d", w(p.Mean), w(p.SD), clip, per, p.Seed)
	case RulePower:
		return "rule " + p.Rule.Source + " (W " + per + ")"
	}
	return "the machine's busy power"
}

// String describes the budget as a scenario would write it.
func (b *Budget) String() string {
	s := strconv.FormatFloat(b.Power/1e3, 'g', 6, 64) + " kW"
	if b.OfBaseline > 0 {
		s = strconv.FormatFloat(100*b.OfBaseline, 'g', 6, 64) + "% of baseline"
	}
	switch b.When {
	case BudgetDuringPeak:
		s += " during peak"
	case BudgetWhile:
		s += " while " + b.While.Source
	}
	return s
}
