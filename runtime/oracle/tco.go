package oracle

// HoursPerYear converts yearly costs to hourly ones: a year of 365 days.
const HoursPerYear = 365 * 24

// Ownership is the non-energy part of Eq. 1, TCO = system costs + annual
// costs · lifetime + energy costs, in one currency (the paper: k€). Mistral
// phase 1: {16500, 5, 4000} k€; SuperMUC phase 1: {83000, 5, 16000} k€.
type Ownership struct {
	System   float64 // procurement (CAPEX), paid once
	Lifetime float64 // years the system is written off over (the paper: 5); must be > 0
	Annual   float64 // running costs per year besides energy (staff, maintenance)
}

// TCO is Eq. 1 over the whole lifetime, given the energy cost of the
// lifetime.
func (o Ownership) TCO(energyCost float64) float64 {
	return o.System + o.Annual*o.Lifetime + energyCost
}

// PerYear is Table 15's "system expenditure": the procurement shared
// equally over the lifetime plus the annual costs.
func (o Ownership) PerYear() float64 { return o.System/o.Lifetime + o.Annual }

// Procured is the same site having bought only the fraction u of the machine
// (Table 15's scenario c, "optimal procurement"): the paper assumes the
// system cost proportional to the nodes bought and the annual costs
// unchanged.
func (o Ownership) Procured(u float64) Ownership {
	o.System *= u
	return o
}

// PerHour is the cost of owning the machine for one hour of its lifetime,
// energy excluded: PerYear over a 365-day year. It is what an idle hour
// costs besides power, the scale against which energy savings per hour are
// small.
func (o Ownership) PerHour() float64 { return o.PerYear() / HoursPerYear }

// PerNodeHour is PerHour shared by the machine's nodes: the non-energy cost
// of one node-hour provisioned. A node-hour of work costs PerNodeHour/U, as
// the idle nodes' share falls on the busy ones.
func (o Ownership) PerNodeHour(nodes int) float64 { return o.PerHour() / float64(nodes) }
