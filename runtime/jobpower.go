package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pwrc/pwrc/runtime/workload"
)

// jobPowers returns each job's power per working node, W: what the trace
// measured where it did (sacct), else the model. Draws come from a
// generator seeded by the workload, in job order, so every run of an
// experiment gives a job the same power whatever its policy.
func jobPowers(jobs []workload.Job, jp JobPower, m *Machine) []float64 {
	pw := make([]float64, len(jobs))
	per := float64(max(1, jp.PerNodes))
	switch jp.Kind {
	case MachineBusy:
		for i := range pw {
			pw[i] = m.Power.Busy
		}
	case ConstantPower:
		for i := range pw {
			pw[i] = jp.Value / per
		}
	case UniformPower, NormalPower:
		rng := rand.New(rand.NewPCG(jp.Seed, 0x6a09e667f3bcc909))
		for i := range pw {
			var v float64
			if jp.Kind == UniformPower {
				v = jp.Lo + (jp.Hi-jp.Lo)*rng.Float64()
			} else {
				v = math.Min(jp.Hi, math.Max(jp.Lo, jp.Mean+jp.SD*rng.NormFloat64()))
			}
			pw[i] = v / per
		}
	case RulePower:
		var env Env
		for i := range jobs {
			fillJob(&env.Job, &jobs[i])
			v := jp.Rule.Num(&env)
			if !(v >= 0) || math.IsInf(v, 1) {
				panic(&EvalError{Expr: jp.Rule, Err: fmt.Errorf("job %d: power %g W is not a finite number ≥ 0", jobs[i].ID, v)})
			}
			pw[i] = v / per
		}
	}
	// Power measured by the trace (Slurm's ConsumedEnergyRaw of a job on
	// whole nodes) is the job's own, whatever the model says.
	for i := range jobs {
		if p := jobs[i].Power; p > 0 {
			pw[i] = p
		}
	}
	return pw
}

// fillJob sets the fixed job fields a power rule or a workload's keep
// rule may read.
func fillJob(e *JobEnv, j *workload.Job) {
	*e = JobEnv{ID: int(j.ID), User: int(j.User), Group: int(j.Group), Queue: int(j.Queue), Partition: int(j.Partition), Submit: j.Submit,
		Nodes: j.Nodes, Procs: j.Procs, Runtime: j.Runtime, Walltime: j.Walltime, Estimate: j.Walltime}
}
