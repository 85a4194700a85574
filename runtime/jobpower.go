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
func jobPowers(jobs []workload.Job, jp JobPower, m *Machine, names *NameSets) []float64 {
	return newPowerDraw(jp, m, names).append(make([]float64, 0, len(jobs)), jobs)
}

// powerDraw gives jobs their power in job order, for jobPowers or for
// jobs that come a few at a time (a streamed trace): the draws are the
// same either way.
type powerDraw struct {
	jp  JobPower
	m   *Machine
	rng *rand.Rand
	env Env
}

func newPowerDraw(jp JobPower, m *Machine, names *NameSets) *powerDraw {
	d := &powerDraw{jp: jp, m: m}
	d.env.Names = names
	if jp.Kind == UniformPower || jp.Kind == NormalPower {
		d.rng = rand.New(rand.NewPCG(jp.Seed, 0x6a09e667f3bcc909))
	}
	return d
}

// append appends the power of each of jobs, the next ones, to pw.
func (d *powerDraw) append(pw []float64, jobs []workload.Job) []float64 {
	jp := &d.jp
	per := float64(max(1, jp.PerNodes))
	for i := range jobs {
		var v float64
		switch jp.Kind {
		case MachineBusy:
			v = d.m.Power.Busy
		case ConstantPower:
			v = jp.Value / per
		case UniformPower:
			v = (jp.Lo + (jp.Hi-jp.Lo)*d.rng.Float64()) / per
		case NormalPower:
			v = min(jp.Hi, max(jp.Lo, jp.Mean+jp.SD*d.rng.NormFloat64())) / per
		case RulePower:
			fillJob(&d.env.Job, &jobs[i])
			r := jp.Rule.Num(&d.env)
			if !(r >= 0) || math.IsInf(r, 1) {
				panic(&EvalError{Expr: jp.Rule, Err: fmt.Errorf("job %d: power %g W is not a finite number ≥ 0", jobs[i].ID, r)})
			}
			v = r / per
		}
		// Power measured by the trace (Slurm's ConsumedEnergyRaw of a
		// job on whole nodes) is the job's own, whatever the model says.
		if p := jobs[i].Power; p > 0 {
			v = p
		}
		pw = append(pw, v)
	}
	return pw
}
