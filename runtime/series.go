package runtime

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/runtime/machine"
)

// PowerColumn reports whether a column of a state series is a power
// component's (power_C_w), and which: power_w, their total, is not one.
func PowerColumn(column string) (string, bool) {
	c, ok := strings.CutPrefix(column, "power_")
	if !ok || c == "w" || !strings.HasSuffix(c, "_w") {
		return "", false
	}
	return strings.TrimSuffix(c, "_w"), true
}

// StateSeries is the machine's state after every instant at which it
// changed (--series `<run>.states.csv`): nodes per state, level instances
// on, and power by component; enough to draw a machine-state plot and,
// with the jobs' node lists, a Gantt chart. Row i holds Values[i·w :
// (i+1)·w] for w = len(Columns), at time Times[i] (trace seconds); a row
// lasts until the next.
type StateSeries struct {
	Columns []string
	Times   []float64
	Values  []float64
}

// Until is when row r's state ends: the next row's time, +Inf for the
// last row.
func (ss *StateSeries) Until(r int) float64 {
	if r+1 < len(ss.Times) {
		return ss.Times[r+1]
	}
	return math.Inf(1)
}

// Value is row r's value in the named column. It panics if the series
// has no such column, as an index out of range does.
func (ss *StateSeries) Value(r int, column string) float64 {
	c := slices.Index(ss.Columns, column)
	if c < 0 {
		panic(fmt.Sprintf("pwrc: the state series has no column %q", column))
	}
	return ss.Values[r*len(ss.Columns)+c]
}

// StateSink receives a run's machine-state series while the run makes it,
// instead of the run keeping it (Options.States): Begin once with the
// columns, before anything else, then each row Result.States would hold,
// in time order. Record may not keep row, which is reused.
type StateSink interface {
	Begin(columns []string)
	Record(t float64, row []float64)
}

type stateSeries struct {
	StateSeries
	row     []float64
	pstates int     // busy-cores columns, one per pstate (0: a single pstate)
	cores   float64 // per node
	capped  bool    // a cap_w column
	// Streaming to sink: the last row is held back (last, at lastT;
	// pending says one is held) until an instant after it, since a row
	// at the same time replaces it.
	sink    StateSink
	last    []float64
	lastT   float64
	pending bool
}

// streamStates streams the machine's state at every change to sink
// instead of keeping it.
func streamStates(sink StateSink) simOption {
	return func(s *sim) { s.keepStates, s.states = true, &stateSeries{sink: sink} }
}

// newStateSeries starts the series of a machine; prev, if not nil, is
// what streamStates set (its sink).
// The columns after the power components describe pstates and caps
// (Georgiou et al.'s Figs. 6–7): busy cores per frequency on a machine with
// several pstates, and the cap in force under a powercap policy (NaN, an
// empty CSV field, while none applies).
func newStateSeries(m *machine.Model, prev *stateSeries, freqs []float64, cores int, capped bool) *stateSeries {
	cols := []string{"idle", "reserved", "off", "booting", "shutting_down", "busy", "work"}
	for _, l := range m.Spec().Levels {
		cols = append(cols, l.Name+"_on")
	}
	for _, c := range m.Components() {
		cols = append(cols, "power_"+c+"_w")
	}
	cols = append(cols, "power_w") // their total (not a component: see PowerColumn)
	ss := &stateSeries{cores: float64(max(1, cores)), capped: capped}
	if len(freqs) > 1 {
		ss.pstates = len(freqs)
		for _, f := range freqs {
			cols = append(cols, fmt.Sprintf("busy_cores_%gmhz", math.Round(f/1e6)))
		}
	}
	if capped {
		cols = append(cols, "cap_w")
	}
	ss.StateSeries = StateSeries{Columns: cols}
	ss.row = make([]float64, len(cols))
	if prev != nil && prev.sink != nil {
		ss.sink, ss.last = prev.sink, make([]float64, len(cols))
		ss.sink.Begin(slices.Clone(cols))
	}
	return ss
}

// record adds a row at t if the state differs from the last row's; a row
// already at t is overwritten (an instant records its final state).
func (ss *stateSeries) record(t float64, c *machine.Counts, power []float64, capW float64) {
	r := ss.row[:0]
	for _, n := range []int{c.Idle, c.Reserved, c.Off, c.Booting, c.Shutting, c.Busy, c.Work} {
		r = append(r, float64(n))
	}
	for _, n := range c.LevelsOn {
		r = append(r, float64(n))
	}
	r = append(r, power...)
	var total float64
	for _, w := range power {
		total += w
	}
	r = append(r, total)
	for p := range ss.pstates {
		r = append(r, float64(c.BusyAt[p])*ss.cores)
	}
	if ss.capped {
		r = append(r, capW)
	}
	if ss.sink != nil {
		if ss.pending {
			if same(ss.last, r) {
				return
			}
			if ss.lastT == t {
				copy(ss.last, r)
				return
			}
			ss.sink.Record(ss.lastT, ss.last)
		}
		copy(ss.last, r)
		ss.lastT, ss.pending = t, true
		return
	}
	w := len(r)
	k := len(ss.Times)
	if k > 0 {
		last := ss.Values[(k-1)*w:]
		if same(last, r) {
			return
		}
		if ss.Times[k-1] == t {
			copy(last, r)
			return
		}
	}
	ss.Times = append(ss.Times, t)
	ss.Values = append(ss.Values, r...)
}

// flush hands a streamed series' last row to its sink: the run is over.
func (ss *stateSeries) flush() {
	if ss.sink != nil && ss.pending {
		ss.sink.Record(ss.lastT, ss.last)
		ss.pending = false
	}
}

func same(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// nodeRanges writes node ids as sorted ranges: "0-15,32". It sorts ids
// in place (allocators mostly give them in order already).
func nodeRanges(s []int32) string {
	if len(s) == 0 {
		return ""
	}
	if !slices.IsSorted(s) {
		if slices.IsSortedFunc(s, func(a, b int32) int { return int(b - a) }) {
			slices.Reverse(s)
		} else {
			slices.Sort(s)
		}
	}
	var b []byte
	for i := 0; i < len(s); {
		k := i
		for k+1 < len(s) && s[k+1] == s[k]+1 {
			k++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s[i]), 10)
		if k > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(s[k]), 10)
		}
		i = k + 1
	}
	return string(b)
}
