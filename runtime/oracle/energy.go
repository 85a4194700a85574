package oracle

// Machine is the homogeneous power model of the paper's tables (kunkel.md
// §1.1): N nodes drawing Idle W each when idle and Busy W when running a
// job, plus Infra W for storage, network and cooling, shared by all nodes.
// Mistral phase 1: {1529, 130e3, 70, 260}.
type Machine struct {
	Nodes int
	Infra float64 // W, shared infrastructure, on for the whole span in Table 4
	Idle  float64 // W per node, idle
	Busy  float64 // W per node, running a job
}

// Energy returns Table 4's components, in kWh, for a run of the given span
// (hours) at utilization u: E_infra = P_infra·T, E_idle = N·P_idle·T for
// every node over the whole span, and E_job = U·N·T·(P_busy − P_idle), the
// jobs' power above idle. Machines whose job power is measured per job (LRZ's
// APC) build an [Energy] directly, with Job = Σ (APC − nodes·P_idle)·run time.
func (m Machine) Energy(hours, u float64) Energy {
	n := float64(m.Nodes)
	return Energy{
		Infra: m.Infra * hours / 1000,
		Idle:  n * m.Idle * hours / 1000,
		Job:   u * n * hours * (m.Busy - m.Idle) / 1000,
	}
}

// Utilization is busy node-time over available node-time, B/(N·T): the U
// that Listing 1 and Eq. 4–7 take. A fixed amount of work spread over a
// longer run has a proportionally lower U.
func (m Machine) Utilization(hours, busyNodeHours float64) float64 {
	return busyNodeHours / (float64(m.Nodes) * hours)
}

// Energy is the always-on energy of a run split as in Table 4, in any one
// energy unit. Utilization is passed to the methods rather than stored, as
// for machines with measured job power E_job does not determine it.
type Energy struct {
	Infra float64 // E_infra: infrastructure over the whole span
	Idle  float64 // E_idle: every node's idle baseload over the whole span
	Job   float64 // E_job: the busy nodes' power above idle
}

// Total is the energy with every node on for the whole span (Table 3).
func (e Energy) Total() float64 { return e.Infra + e.Idle + e.Job }

// Shutdown is the energy when idle nodes are off (instantly, drawing 0 W)
// and the infrastructure stays on: E_infra + B·P_busy = E_infra + U·E_idle +
// E_job (§1.2; Table 5's "shutdown" energy).
func (e Energy) Shutdown(u float64) float64 { return e.Total() - e.ShutdownSaving(u) }

// Optimal is the energy when the infrastructure is off too while no node is
// needed, U·(E_infra + E_idle) + E_job (Table 6's "shutdown" energy; the
// energy of Eq. 5–6 and of Table 15's scenarios b and c).
func (e Energy) Optimal(u float64) float64 { return u*(e.Infra+e.Idle) + e.Job }

// ShutdownSaving is Eq. 4's energy: idle nodes switched off save their
// baseload for the idle share of the run, (1 − U)·E_idle.
func (e Energy) ShutdownSaving(u float64) float64 { return (1 - u) * e.Idle }

// InfraSaving is the further energy saved when the infrastructure is off
// whenever no node is busy, (1 − U)·E_infra.
func (e Energy) InfraSaving(u float64) float64 { return (1 - u) * e.Infra }
