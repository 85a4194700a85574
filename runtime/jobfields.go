package runtime

import (
	"math/bits"

	"github.com/pwrc/pwrc/runtime/workload"
)

// JobField is one field rules read as job.NAME. JobFieldTable is the one
// list of them: the rule environment's job part (JobEnv, whose fields a
// test holds to it), the masks of what a rule reads (JobFields), the
// compiler's names, readers and checks of which rules may read what, and
// the engine's per-job filler (setJobEnv) all come from it.
type JobField struct {
	Name string    // in rules: job.NAME (JobEnv's expr tag)
	Bit  JobFields // its bit in a mask
	Doc  string    // what it is, for documentation and editors
	// Fixed fields come from the trace and are known before the run:
	// workload rules (keep, a power rule) may read them. The others are
	// the run's (the wait, the estimate and power at the job's pstate,
	// the allocation).
	Fixed bool
	Dep   Deps // what reading it makes a rule depend on: DepJob, or DepWait
	Num   func(*JobEnv) float64
	Int   func(*JobEnv) int // integer fields; nil for the others
	// Named fields are names on Slurm accounting (user, group, account,
	// partition, QOS): the engine keeps their numbers (NameField's, in
	// workload.Names), and rules on such a trace compare them with
	// strings (names.go); on SWF they are SWF's numbers.
	Named     bool
	NameField workload.NameField
	// Scope says which workloads' jobs have the field.
	Scope FieldScope

	fromJob func(e *JobEnv, j *workload.Job) // fixed fields
	fromRun func(e *JobEnv, s *sim, j int32) // the others
}

// FieldScope says which workloads' jobs have a job field.
type FieldScope uint8

// Field scopes.
const (
	AllWorkloads FieldScope = iota
	SacctOnly               // Slurm accounting's alone: account, qos
	NotSacct                // not Slurm accounting's: SWF's queue number (Slurm has partitions and QOS)
)

// JobFieldTable lists the job fields in JobEnv's order: field i has bit
// 1 << i.
var JobFieldTable = [...]JobField{
	{Name: "id", Bit: FieldID, Fixed: true, Dep: DepJob, Doc: "the job's number in the trace (SWF field 1, Slurm's JobID)",
		Num: func(e *JobEnv) float64 { return float64(e.ID) }, Int: func(e *JobEnv) int { return e.ID },
		fromJob: func(e *JobEnv, j *workload.Job) { e.ID = int(j.ID) }},
	{Name: "user", Bit: FieldUser, Fixed: true, Dep: DepJob, Named: true, NameField: workload.NameUser,
		Doc: "the user: SWF's number (field 12, −1 if unknown); Slurm's name (User)",
		Num: func(e *JobEnv) float64 { return float64(e.User) }, Int: func(e *JobEnv) int { return e.User },
		fromJob: func(e *JobEnv, j *workload.Job) { e.User = int(j.User) }},
	{Name: "group", Bit: FieldGroup, Fixed: true, Dep: DepJob, Named: true, NameField: workload.NameGroup,
		Doc: "the group: SWF's number (field 13, −1 if unknown); Slurm's name (Group)",
		Num: func(e *JobEnv) float64 { return float64(e.Group) }, Int: func(e *JobEnv) int { return e.Group },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Group = int(j.Group) }},
	{Name: "queue", Bit: FieldQueue, Fixed: true, Dep: DepJob, Scope: NotSacct,
		Doc: "the queue's number (SWF field 15), −1 if unknown; Slurm has partitions and QOS instead",
		Num: func(e *JobEnv) float64 { return float64(e.Queue) }, Int: func(e *JobEnv) int { return e.Queue },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Queue = int(j.Queue) }},
	{Name: "partition", Bit: FieldPartition, Fixed: true, Dep: DepJob, Named: true, NameField: workload.NamePartition,
		Doc: "the partition: SWF's number (field 16, −1 if unknown); Slurm's name (Partition)",
		Num: func(e *JobEnv) float64 { return float64(e.Partition) }, Int: func(e *JobEnv) int { return e.Partition },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Partition = int(j.Partition) }},
	{Name: "account", Bit: FieldAccount, Fixed: true, Dep: DepJob, Named: true, NameField: workload.NameAccount, Scope: SacctOnly,
		Doc: "the Slurm account charged (Account)",
		Num: func(e *JobEnv) float64 { return float64(e.Account) }, Int: func(e *JobEnv) int { return e.Account },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Account = int(j.Account) }},
	{Name: "qos", Bit: FieldQOS, Fixed: true, Dep: DepJob, Named: true, NameField: workload.NameQOS, Scope: SacctOnly,
		Doc: "the Slurm quality of service (QOS)",
		Num: func(e *JobEnv) float64 { return float64(e.QOS) }, Int: func(e *JobEnv) int { return e.QOS },
		fromJob: func(e *JobEnv, j *workload.Job) { e.QOS = int(j.QOS) }},
	{Name: "submit", Bit: FieldSubmit, Fixed: true, Dep: DepJob, Doc: "when it was submitted, s on the trace's clock",
		Num:     func(e *JobEnv) float64 { return e.Submit },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Submit = j.Submit }},
	{Name: "wait", Bit: FieldWait, Dep: DepWait, Doc: "how long it has waited: now − submit, s",
		Num:     func(e *JobEnv) float64 { return e.Wait },
		fromRun: func(e *JobEnv, s *sim, j int32) { e.Wait = s.now - s.jobs[j].Submit }},
	{Name: "nodes", Bit: FieldNodes, Fixed: true, Dep: DepJob, Doc: "the nodes it asked for",
		Num: func(e *JobEnv) float64 { return float64(e.Nodes) }, Int: func(e *JobEnv) int { return e.Nodes },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Nodes = j.Nodes }},
	{Name: "procs", Bit: FieldProcs, Fixed: true, Dep: DepJob, Doc: "the processors it asked for",
		Num: func(e *JobEnv) float64 { return float64(e.Procs) }, Int: func(e *JobEnv) int { return e.Procs },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Procs = j.Procs }},
	{Name: "runtime", Bit: FieldRuntime, Fixed: true, Dep: DepJob, Doc: "its actual run time, s: an oracle, unknown to a real scheduler",
		Num:     func(e *JobEnv) float64 { return e.Runtime },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Runtime = j.Runtime }},
	{Name: "walltime", Bit: FieldWalltime, Fixed: true, Dep: DepJob, Doc: "the time it requested, s",
		Num:     func(e *JobEnv) float64 { return e.Walltime },
		fromJob: func(e *JobEnv, j *workload.Job) { e.Walltime = j.Walltime }},
	{Name: "estimate", Bit: FieldEstimate, Dep: DepJob, Doc: "what backfilling assumes it runs, s: its walltime, or its run time with exact estimates, at its pstate",
		Num:     func(e *JobEnv) float64 { return e.Estimate },
		fromRun: func(e *JobEnv, s *sim, j int32) { e.Estimate = s.est[j] }},
	{Name: "power", Bit: FieldPower, Dep: DepJob, Doc: "W it draws running: its nodes, plus the idle rest of a contiguous allocation",
		Num:     func(e *JobEnv) float64 { return e.Power },
		fromRun: func(e *JobEnv, s *sim, j int32) { e.Power = s.jw[j] }},
	{Name: "power_per_node", Bit: FieldPowerPerNode, Dep: DepJob, Doc: "W per node it asked for, at the highest pstate",
		Num:     func(e *JobEnv) float64 { return e.PowerPerNode },
		fromRun: func(e *JobEnv, s *sim, j int32) { e.PowerPerNode = s.pw[j] }},
	{Name: "alloc", Bit: FieldAlloc, Dep: DepJob, Doc: "the nodes allocated: nodes rounded up to the contiguous unit",
		Num: func(e *JobEnv) float64 { return float64(e.Alloc) }, Int: func(e *JobEnv) int { return e.Alloc },
		fromRun: func(e *JobEnv, s *sim, j int32) { e.Alloc = int(s.alloc[j]) }},
}

// JobFieldNamed is the job field rules call name.
func JobFieldNamed(name string) (*JobField, bool) {
	for i := range JobFieldTable {
		if JobFieldTable[i].Name == name {
			return &JobFieldTable[i], true
		}
	}
	return nil, false
}

// FixedJobFields are the fields known before the run.
var FixedJobFields = func() JobFields {
	var f JobFields
	for i := range JobFieldTable {
		if JobFieldTable[i].Fixed {
			f |= JobFieldTable[i].Bit
		}
	}
	return f
}()

// setJobEnv fills the fields of env.Job for job j that rules read: for a
// rule evaluated for every waiting job in every pass, copying the rest
// would cost more than the rule.
func (s *sim) setJobEnv(j int32, f JobFields) {
	e := &s.env.Job
	for f != 0 {
		jf := &JobFieldTable[bits.TrailingZeros32(uint32(f))]
		if jf.fromRun != nil {
			jf.fromRun(e, s, j)
		} else {
			jf.fromJob(e, &s.jobs[j])
		}
		f &= f - 1
	}
}

// fillJob sets the fixed job fields a power rule or a workload's keep
// rule may read.
func fillJob(e *JobEnv, j *workload.Job) {
	*e = JobEnv{}
	for i := range JobFieldTable {
		if jf := &JobFieldTable[i]; jf.Fixed {
			jf.fromJob(e, j)
		}
	}
}
