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
	busyNodeSeconds float64
	peakPower       float64 // W, the highest power drawn
}

func (a *accounting) init(periods int) {
	a.periodEnergy = make([]float64, periods)
	a.periodCost = make([]float64, periods)
}

// joulesPerKWh converts prices per kWh to prices per joule.
const joulesPerKWh = 3.6e6

func (a *accounting) add(p *[nComponents]float64, dt, price float64, period int) {
	if dt <= 0 {
		return
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
	if total > a.peakPower {
		a.peakPower = total
	}
}
