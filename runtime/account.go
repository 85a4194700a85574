package runtime

// Energy components, in the order they are reported.
const (
	compBusy     = iota // nodes running jobs
	compIdle            // idle nodes, including nodes held for a job that waits for a boot
	compOff             // switched-off nodes
	compBoot            // nodes booting
	compShutdown        // nodes shutting down
	compInfra           // infrastructure: always on
	nComponents
)

// ComponentNames name the energy components in reports (snake_case).
var ComponentNames = [nComponents]string{"busy", "idle", "off", "boot", "shutdown", "infrastructure"}

// accounting integrates power into energy and cost, by component and by
// tariff period. Power is piecewise constant between events and the price
// between its changes, so each piece is exact: E = P·Δt, cost = P·Δt·price.
type accounting struct {
	energy          [nComponents]float64 // J
	cost            [nComponents]float64 // currency
	periodEnergy    []float64            // J per tariff period
	periodCost      []float64
	periodSeconds   []float64
	periodJobEnergy []float64 // J drawn by running jobs, per tariff period
	busyNodeSeconds float64   // allocated to jobs
	workNodeSeconds float64   // asked for by jobs
	peakPower       float64   // W, the highest power drawn
	hours           [24]HourStat
}

// HourStat integrates one local hour of day over a run (Zhou et al.'s
// Fig. 5 averages power and utilization this way).
type HourStat struct {
	Seconds     float64 // time spent in this hour of day
	Energy      float64 // J, everything
	JobEnergy   float64 // J, running jobs
	NodeSeconds float64 // nodes allocated to jobs × s
}

func (a *accounting) init(periods int) {
	a.periodEnergy = make([]float64, periods)
	a.periodCost = make([]float64, periods)
	a.periodSeconds = make([]float64, periods)
	a.periodJobEnergy = make([]float64, periods)
}

// joulesPerKWh converts prices per kWh to prices per joule.
const joulesPerKWh = 3.6e6

// add integrates power p over dt and returns the total power.
func (a *accounting) add(p *[nComponents]float64, dt, price float64, period int) float64 {
	if dt <= 0 {
		return 0
	}
	var total float64
	perJ := price / joulesPerKWh
	for c, w := range p {
		e := w * dt
		a.energy[c] += e
		a.cost[c] += e * perJ
		total += w
	}
	e := total * dt
	a.periodEnergy[period] += e
	a.periodCost[period] += e * perJ
	a.periodSeconds[period] += dt
	a.periodJobEnergy[period] += p[compBusy] * dt
	if total > a.peakPower {
		a.peakPower = total
	}
	return total
}
