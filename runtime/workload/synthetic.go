package workload

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Synthetic describes a seeded synthetic workload; see Generate for the
// model.
type Synthetic struct {
	Jobs        int     // number of jobs (> 0)
	Nodes       int     // machine width in nodes (> 0); no job is wider
	Load        float64 // offered load, e.g. 0.8 = 80% of node-seconds (> 0)
	Seed        uint64
	MeanRuntime float64 // mean run time, s (≥ 1); 0 → DefaultMeanRuntime
	// Unit makes every width a multiple of this many nodes (Blue Gene/P
	// jobs come in 512-node midplanes): widths are drawn for a machine of
	// Nodes/Unit units, then scaled. 0 or 1: single nodes.
	Unit int
}

// DefaultMeanRuntime is the mean run time used when Synthetic.MeanRuntime is 0.
const DefaultMeanRuntime = 2 * 3600.0

// Model constants, named so the doc comment of Generate can be checked
// against them.
const (
	serialShare  = 0.25 // share of 1-node jobs
	pow2Share    = 0.8  // share of parallel jobs whose width is a power of two
	minRuntime   = 60.0 // s, shortest run time (less if the mean is below 600 s)
	maxOverEst   = 5.0  // requested time ≤ run time × this
	walltimeStep = 900  // s, requested times are whole quarters of an hour
	maxWalltime  = 24 * 3600
	killedShare  = 0.05 // share of jobs killed at their requested time
	maxUsers     = 256
	usersPerJobs = 100 // one user per this many jobs, at least 8
	usersPerGrp  = 8
	synthStream  = 0x9e3779b97f4a7c15 // PCG stream; any fixed value
)

// FieldError is a field of a synthetic workload out of its range.
type FieldError struct {
	Field string // as a scenario names it: jobs, nodes (the machine's), load, unit, runtime
	Msg   string
}

func (e *FieldError) Error() string { return "synthetic workload: " + e.Msg }

// Validate reports why s cannot be generated, or nil: a *FieldError per
// field out of range, joined.
func (s Synthetic) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Jobs <= 0 {
		bad("jobs", "jobs must be > 0, got %d", s.Jobs)
	}
	if s.Nodes <= 0 || s.Nodes > math.MaxInt32 {
		bad("nodes", "nodes must be in 1..%d, got %d", math.MaxInt32, s.Nodes)
	}
	if !(s.Load > 0) || math.IsInf(s.Load, 0) {
		bad("load", "load must be a positive number, got %g", s.Load)
	}
	if s.Unit < 0 || s.Unit > 1 && s.Nodes > 0 && s.Unit > s.Nodes {
		bad("unit", "unit must be in 0..%d nodes (the machine), got %d", s.Nodes, s.Unit)
	}
	if !(s.MeanRuntime == 0 || s.MeanRuntime >= 1 && s.MeanRuntime <= MaxMeanRuntime) {
		bad("runtime", "mean run time must be 0 (default) or 1..1e9 s, got %g", s.MeanRuntime)
	}
	return errors.Join(errs...)
}

// MaxMeanRuntime bounds a synthetic workload's mean run time, s.
const MaxMeanRuntime = 1e9

// Generate returns s.Jobs jobs (nil if s is invalid; Validate says why),
// sorted by submit time, with IDs 1..n, integer-second times, the first
// submission at 0, and Procs = Nodes (one core per node). The model:
//
//   - Width: 25% of jobs use one node. 80% of the others take a power of
//     two, 2^1 … the largest ≤ Nodes, each as likely; the rest take
//     ceil(2^x) nodes, x uniform in [1, log2 Nodes]. Widths are thus
//     log-uniform from 2 to Nodes, mostly powers of two. With a Unit,
//     widths are drawn this way in units (Nodes/Unit of them) and then
//     multiplied by Unit.
//   - Run time: log-uniform on [a, b] with a = min(60 s, mean/10) and b set
//     so that the mean is MeanRuntime (b ≈ 13.3 h for the 2 h default),
//     rounded up to whole seconds. Width and run time are independent.
//   - Requested time: run time × f, f log-uniform in [1, 5], rounded up to a
//     quarter of an hour and capped at max(24 h, b rounded up likewise).
//     5% of jobs are killed at their limit: their run time is cut down to
//     a whole quarter of an hour (if at least one) and their requested time
//     is that run time.
//   - Users: n = clamp(Jobs/100, 8, 256) users, user k (1..n) submitting
//     with probability ∝ 1/k (Zipf); group = (user−1)/8 + 1; queue −1.
//   - Arrivals: Poisson with rate λ = Load·Nodes / w̄, where w̄ is the mean
//     nodes × run time of the jobs drawn, so the offered load matches Load
//     up to the arrival noise. Submit times are the arrival times rounded
//     down to whole seconds.
//
// The output depends only on s: numbers come from a PCG source through
// integer arithmetic and this package's own exp and log, written so that no
// platform can fuse or reorder their floating-point steps.
func Generate(s Synthetic) []Job {
	if s.Validate() != nil {
		return nil
	}
	mean := s.MeanRuntime
	if mean == 0 {
		mean = DefaultMeanRuntime
	}
	g := gen{src: rand.NewPCG(s.Seed, synthStream)}

	// Run time range [a, b] with mean (b−a)/ln(b/a) = mean, by bisection
	// (the mean grows with b).
	a := min(minRuntime, mean/10)
	logUniformMean := func(b float64) float64 { return (b - a) / detLog(b/a) }
	lo, hi := a, 2*mean
	for logUniformMean(hi) < mean {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := float64(lo/2) + float64(hi/2)
		if mid <= lo || mid >= hi {
			break
		}
		if logUniformMean(mid) < mean {
			lo = mid
		} else {
			hi = mid
		}
	}
	b := hi
	lnRange := detLog(b / a)
	wallCap := max(maxWalltime, roundUp(b, walltimeStep))
	lnOver := detLog(maxOverEst)
	unit := max(1, s.Unit)
	width := s.Nodes / unit // the machine in units
	log2Nodes := detLog(float64(width)) / math.Ln2
	maxExp := bits.Len(uint(width)) - 1 // 2^maxExp ≤ width < 2^(maxExp+1)

	nUsers := min(max(s.Jobs/usersPerJobs, 8), maxUsers)
	userCum := make([]uint64, nUsers) // cumulative integer Zipf weights
	var tot uint64
	for k := range userCum {
		tot += (1 << 32) / uint64(k+1)
		userCum[k] = tot
	}

	jobs := make([]Job, s.Jobs)
	work := 0.0 // node-seconds
	for i := range jobs {
		// A fixed number of draws per job, whichever branches are taken,
		// so that changing one parameter does not reshuffle the rest.
		uSerial, uWidth, uPow2 := g.float(), g.float(), g.float()
		uRun, uOver, uKill := g.float(), g.float(), g.float()
		user := 1
		r := g.intn(tot)
		for user <= nUsers && userCum[user-1] <= r {
			user++
		}

		nodes := 1
		if width > 1 && uSerial >= serialShare {
			if uPow2 < pow2Share {
				nodes = 2 << int(uWidth*float64(maxExp)) // 2^1 .. 2^maxExp
			} else {
				x := 1 + float64(uWidth*float64(log2Nodes-1))
				nodes = int(math.Ceil(detExp(float64(x * math.Ln2))))
			}
			nodes = min(max(nodes, 2), width)
		}
		nodes *= unit

		runtime := math.Ceil(float64(a * detExp(float64(uRun*lnRange))))
		var walltime float64
		if uKill < killedShare {
			// Rounding down keeps the mean run time: rounding up would add
			// up to 15 min to jobs of any length.
			if runtime >= walltimeStep {
				runtime = float64(math.Floor(runtime/walltimeStep) * walltimeStep)
			}
			walltime = runtime
		} else {
			over := detExp(float64(uOver * lnOver))
			walltime = min(roundUp(float64(runtime*over), walltimeStep), wallCap)
		}
		jobs[i] = Job{
			ID:        int64(i + 1),
			Runtime:   runtime,
			Walltime:  walltime,
			Procs:     nodes,
			Nodes:     nodes,
			User:      int32(user),
			Group:     int32((user-1)/usersPerGrp + 1),
			Queue:     -1,
			Partition: -1,
		}
		work += float64(float64(nodes) * runtime)
	}

	rate := float64(s.Load*float64(s.Nodes)) * float64(len(jobs)) / work // arrivals per second
	t := 0.0
	for i := range jobs {
		if i > 0 {
			t += -detLog(1-g.float()) / rate
		}
		jobs[i].Submit = math.Floor(t)
	}
	return jobs
}

func roundUp(x, step float64) float64 { return float64(math.Ceil(x/step) * step) }

// gen derives numbers from raw 64-bit outputs only: the algorithms behind
// math/rand/v2's Float64, IntN or ExpFloat64 are not promised to stay fixed.
type gen struct{ src *rand.PCG }

// float returns a uniform number in [0, 1) with 53 random bits.
func (g *gen) float() float64 { return float64(g.src.Uint64()>>11) * 0x1p-53 }

// intn returns a uniform integer in [0, n), n > 0 (Lemire's method).
func (g *gen) intn(n uint64) uint64 {
	hi, lo := bits.Mul64(g.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.src.Uint64(), n)
		}
	}
	return hi
}

// detLog is the natural logarithm for finite x > 0: the algorithm of Go's
// portable math.Log (from FreeBSD's e_log.c), with every product rounded
// explicitly so that it gives the same bits on every platform (math.Log uses
// assembly on some, and the compiler may fuse a*b+c elsewhere).
func detLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// detExp is e^x for |x| ≤ 700, after Go's portable math.Exp, with the same
// care as detLog.
func detExp(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		log2e = 1.44269504088896338700e+00
		p1    = 1.66666666666666657415e-01
		p2    = -2.77777777770155933842e-03
		p3    = 6.61375632143793436117e-05
		p4    = -1.65339022054652515390e-06
		p5    = 4.13813679705723846039e-08
	)
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}
