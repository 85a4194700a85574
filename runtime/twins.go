package runtime

import (
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/pwrc/pwrc/runtime/ledger"
	"github.com/pwrc/pwrc/runtime/tariff"
)

// Twin runs differ only in their contract, under a policy whose schedule
// does not depend on it: the policy reads no price or carbon intensity
// and, if it reads the peak hours or the clock (a budget during peak,
// say), both contracts have the same hours. Such runs have one schedule,
// so one simulation serves them all: each twin's contract keeps its own
// ledger, fed the machine's state at every change as the simulating run's
// is (a sweep of tariffs costs one simulation per policy). A twin whose
// budget, relative to its own baseline, comes out other than the
// simulating run's, or whose contract cannot be set up, is simulated on
// its own, as is every twin of a run that fails. Results are identical
// either way; Options.NoTwins turns this off, and tests compare the two.

// book is a twin's accounting in the simulation of its lead.
type book struct {
	tar, carbon tariff.Tariff
	bill        *Contract // as withBill sets it
	led         *ledger.Ledger
}

// Twins maps each run of the plan to the run whose simulation gives its
// schedule when the whole plan runs: itself, or the first of its twins.
func Twins(p *Plan) []int {
	return twinsOf(p, needed(p, nil), Options{})
}

// twinsOf maps each chosen run to the run whose simulation gives its
// schedule: the first chosen run of the plan that is its twin, or itself.
// Runs are compared only with leads of the same fingerprint, so a plan of
// many runs and few twins costs a hash per run, not a comparison per pair.
func twinsOf(p *Plan, chosen []bool, o Options) []int {
	lead := make([]int, len(p.Runs))
	for i := range lead {
		lead[i] = i
	}
	if o.NoTwins {
		return lead
	}
	// Level by level, so that a run's dependencies have their leads when
	// it is compared (a baseline may come after its runs in the plan); a
	// twin runs with its lead, in its lead's level.
	seed := maphash.MakeSeed()
	for _, runs := range levels(p, chosen) {
		leads := map[uint64][]int{}
		for _, i := range runs {
			r := p.Runs[i]
			if !contractBlind(&r.Policy) {
				continue
			}
			var h maphash.Hash
			h.SetSeed(seed)
			h.WriteString(r.Experiment)
			for _, v := range []any{r.Workload, r.Machine, r.Policy, r.Account} {
				fingerprint(&h, reflect.ValueOf(v), 0)
			}
			key := h.Sum64()
			for _, l := range leads[key] {
				if sameSchedule(p.Runs[l], r, lead) {
					lead[i] = l
					break
				}
			}
			if lead[i] == i {
				leads[key] = append(leads[key], i)
			}
		}
	}
	return lead
}

// fingerprint hashes what reflect.DeepEqual compares of v, so that deeply
// equal values hash alike: pointers by what they point to, functions by
// address (deeply equal only as the same pointer's), maps by length, and
// nothing below a fixed depth (which also ends cycles).
func fingerprint(h *maphash.Hash, v reflect.Value, depth int) {
	if depth > 12 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			h.WriteByte(0)
			return
		}
		h.WriteByte(1)
		fingerprint(h, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			fingerprint(h, v.Field(i), depth+1)
		}
	case reflect.Slice, reflect.Array:
		maphash.WriteComparable(h, v.Len())
		for i := range v.Len() {
			fingerprint(h, v.Index(i), depth+1)
		}
	case reflect.Map:
		maphash.WriteComparable(h, v.Len())
	case reflect.Func:
		maphash.WriteComparable(h, v.Pointer())
	case reflect.String:
		h.WriteString(v.String())
	case reflect.Bool:
		maphash.WriteComparable(h, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		maphash.WriteComparable(h, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		maphash.WriteComparable(h, v.Uint())
	case reflect.Float32, reflect.Float64:
		maphash.WriteComparable(h, v.Float()) // (−0 as +0, as == says)
	}
}

// contractBlind reports whether a policy's schedule can ignore the
// contract, given the peak hours: it reads no price, mean price or carbon
// intensity, and has no stage that does (the price-aware start, the
// capacity controller's look-ahead, powercaps during peak).
func contractBlind(p *Policy) bool {
	return stageAllowances(p).contractBlind && p.deps()&(DepPrice|DepCarbon) == 0
}

// sameSchedule reports whether run b has run a's schedule: everything but
// the contract is alike, the contracts have the same hours where the
// policy reads them, and the runs each depend on a twin.
func sameSchedule(a, b *Run, lead []int) bool {
	if a.Experiment != b.Experiment || a.Measure != b.Measure || a.Baseline >= 0 != (b.Baseline >= 0) ||
		!reflect.DeepEqual(a.Workload, b.Workload) || !reflect.DeepEqual(a.Machine, b.Machine) ||
		!reflect.DeepEqual(a.Policy, b.Policy) || !reflect.DeepEqual(a.Account, b.Account) ||
		!slices.EqualFunc(a.DependsOn, b.DependsOn, func(x, y int) bool { return lead[x] == lead[y] }) {
		return false
	}
	if a.Policy.passDeps()&(DepNow|DepPeak) == 0 {
		return true // (it never wakes at a price change, nor asks the period)
	}
	// It wakes at every change of price and may read the period: the
	// contracts must change at the same instants, into the same periods.
	ka, kb := &a.Contract, &b.Contract
	switch {
	case ka.Kind != kb.Kind:
		return false
	case ka.Kind == Flat:
		return true
	case ka.Kind == BasePeak:
		return slices.Equal(ka.Peak, kb.Peak) // (the hours alone set when the price changes)
	}
	return false // (hourly series: their hours may start, end or repeat apart)
}

// useBook makes the simulation's accounting that of book b (its tariff,
// bill, carbon intensity and ledger), for a twin's metrics.
func (a *accounting) useBook(b *book) {
	a.tar, a.carbon, a.bill, a.led = b.tar, b.carbon, b.bill, b.led
	a.peakIdx = peakIndex(b.tar)
}

// keepBooks has the simulation keep twins' books beside its own.
func keepBooks(books []*book) simOption { return func(s *sim) { s.twins = books } }

// fanOut is a state sink that hands every call on to several sinks: the
// states of a simulation that serves twins go to each run's.
type fanOut []StateSink

func (f fanOut) Begin(columns []string) {
	for _, s := range f {
		s.Begin(columns)
	}
}

func (f fanOut) Record(t float64, row []float64) {
	for _, s := range f {
		s.Record(t, row)
	}
}
