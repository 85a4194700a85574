package runtime

import "fmt"

// Env is what a policy rule sees. Values are SI: seconds, W, currency/kWh.
// The expr tags are the names used in .pwr files.
type Env struct {
	Job    JobEnv    `expr:"job"`
	Now    NowEnv    `expr:"now"`
	Peak   bool      `expr:"peak"`
	Price  PriceEnv  `expr:"price"`
	System SystemEnv `expr:"system"`
	Carbon CarbonEnv `expr:"carbon"`
	// Names are the run's answers to its rules' name tests (names.go):
	// set on Slurm accounting when its rules compare names; rules do not
	// read it by name.
	Names *NameSets `expr:"-"`
}

// JobEnv describes the job a rule is evaluated for.
type JobEnv struct {
	ID           int     `expr:"id"`
	User         int     `expr:"user"`
	Group        int     `expr:"group"`
	Queue        int     `expr:"queue"`
	Partition    int     `expr:"partition"` // SWF field 16, −1 if unknown (Curie's thin nodes: 10)
	Account      int     `expr:"account"`   // Slurm accounting's
	QOS          int     `expr:"qos"`       // Slurm accounting's
	Submit       float64 `expr:"submit"`
	Wait         float64 `expr:"wait"` // now − submit
	Nodes        int     `expr:"nodes"`
	Procs        int     `expr:"procs"`
	Runtime      float64 `expr:"runtime"`        // actual run time: an oracle, unknown to a real scheduler
	Walltime     float64 `expr:"walltime"`       // requested time
	Estimate     float64 `expr:"estimate"`       // what backfilling assumes: walltime, or runtime with exact estimates
	Power        float64 `expr:"power"`          // W while running: its nodes, plus the idle rest of a contiguous allocation
	PowerPerNode float64 `expr:"power_per_node"` // W per node it asked for
	Alloc        int     `expr:"alloc"`          // nodes allocated: nodes rounded up to the contiguous unit
}

// NowEnv is the current simulation time.
type NowEnv struct {
	Seconds float64 `expr:"seconds"` // trace clock
	Hour    float64 `expr:"hour"`    // local hour of day, 0 ≤ hour < 24, fractional
	Weekday int     `expr:"weekday"` // local day of week, 0 = Sunday
	Day     float64 `expr:"day"`     // days since the first submission
}

// PriceEnv is the contract's price, in currency/kWh.
type PriceEnv struct {
	Now float64 `expr:"now"` // in force now
	// Mean is the time-weighted mean from the first to the last
	// submission: the same for every run of a workload and contract, but
	// an oracle, since it knows prices the run has not reached.
	Mean float64 `expr:"mean"`
	// MeanPast(w) is the mean over the last w seconds (0 < w ≤ 10 years),
	// from the start of an hourly series at the earliest: what a real
	// scheduler can know. Rules call it, price.mean_past(86400); the VM
	// evaluates them, not the closure compiler.
	MeanPast func(seconds float64) float64 `expr:"mean_past"`
}

// SystemEnv is the machine's state.
type SystemEnv struct {
	Nodes int     `expr:"nodes"` // all nodes
	Free  int     `expr:"free"`  // idle or off: could start a job now
	Idle  int     `expr:"idle"`
	Off   int     `expr:"off"`
	Busy  int     `expr:"busy"`
	Power float64 `expr:"power"` // W drawn now, infrastructure included
	// JobPower is the weight of the running jobs against a power budget
	// (their power unless the policy weighs them otherwise).
	JobPower float64 `expr:"job_power"`
	Budget   float64 `expr:"budget"` // the power budget if one applies now, else +Inf
	Queue    int     `expr:"queue"`  // jobs waiting
	// Infrastructure is the machine's infrastructure power, W: what Kunkel
	// et al.'s price-aware schedulers charge a waiting job a share of.
	Infrastructure float64 `expr:"infrastructure"`
}

// CarbonEnv is the grid's carbon intensity, g/kWh. Rules read it only
// under a contract with a carbon intensity (check refuses them otherwise).
type CarbonEnv struct {
	Now  float64 `expr:"now"`  // in force now
	Mean float64 `expr:"mean"` // time-weighted, from the first to the last submission (an oracle, like price.mean)
}

// Deps records which parts of the environment an expression reads, so the
// engine evaluates rules that depend only on a job's fixed attributes once
// per job, and the rest once per scheduling pass.
type Deps uint16

// Dependency bits.
const (
	DepJob    Deps = 1 << iota // fixed job attributes (id, submit, nodes, ...)
	DepWait                    // job.wait
	DepNow                     // now.*
	DepPeak                    // peak
	DepPrice                   // price.*
	DepSystem                  // system.*
	DepCarbon                  // carbon.*
)

// Dynamic reports whether the value can change while a job waits.
func (d Deps) Dynamic() bool { return d&^DepJob != 0 }

// JobFields is a set of JobEnv fields, one bit per field in declaration
// order; the engine fills only the fields a rule reads.
type JobFields uint32

// AllJobFields is every field of JobEnv.
const AllJobFields JobFields = 1<<17 - 1

// Bits of JobFields, in JobEnv's field order.
const (
	FieldID JobFields = 1 << iota
	FieldUser
	FieldGroup
	FieldQueue
	FieldPartition
	FieldAccount
	FieldQOS
	FieldSubmit
	FieldWait
	FieldNodes
	FieldProcs
	FieldRuntime
	FieldWalltime
	FieldEstimate
	FieldPower
	FieldPowerPerNode
	FieldAlloc
)

// ClockField is a part of the clock a rule may compare with a number.
type ClockField uint8

// Clock fields.
const (
	ClockHour    ClockField = iota // now.hour: local, 0 ≤ hour < 24, in whole seconds
	ClockSeconds                   // now.seconds: the trace clock
	ClockDay                       // now.day: days since the first submission
)

// ClockEdge is a rule's comparison of a clock field with a number: the
// comparison's answer changes when the field reaches Value (Strict: when
// it passes it, as for `>` and `<=`).
type ClockEdge struct {
	Field  ClockField
	Value  float64
	Strict bool
}

// Expr is a compiled rule expression. Exactly one of Num and Bool is set.
// Evaluation never fails silently: a rule that cannot be evaluated panics
// with *EvalError, which the runtime turns into the run's error.
type Expr struct {
	Source string // as written in the scenario
	Where  string // file:line:col of the expression, for runtime errors
	Deps   Deps
	Fields JobFields // the job fields it reads; AllJobFields when unsure
	Field  JobFields // the job field the rule is, when it is that alone (`job.submit`); else 0
	// Clock lists the rule's comparisons of now.hour, now.seconds and
	// now.day with numbers, where its answer may change between events;
	// ClockOther says it also reads them, or price.mean_past, in a way
	// whose changes the engine cannot compute (arithmetic on now.hour, say):
	// such a rule is re-read only when the engine acts.
	Clock      []ClockEdge
	ClockOther bool
	Num        func(*Env) float64
	Bool       func(*Env) bool
	// NameTests are the comparisons of name fields with strings the rule
	// makes (Slurm accounting, names.go): a run answers them before it
	// reads the rule.
	NameTests []*NameTest
}

// EvalError is a rule that failed at run time.
type EvalError struct {
	Expr *Expr
	Err  error
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("%s: rule `%s` failed: %v", e.Expr.Where, e.Expr.Source, e.Err)
}
