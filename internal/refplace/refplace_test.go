package refplace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/internal/refsim"
)

// busyState builds an allocator state with the given nodes busy and the given
// rack keys (nil: no keys needed, all -Inf).
func busyState(m Machine, busy []int, keys []float64) State {
	s := State{Machine: m, Busy: make([]bool, m.Nodes), Key: keys}
	for _, i := range busy {
		s.Busy[i] = true
	}
	if keys == nil {
		s.Key = make([]float64, m.Racks)
		for r := range s.Key {
			s.Key[r] = math.Inf(-1)
		}
	}
	return s
}

// racksInUse counts the racks holding a node that is busy or taken.
func racksInUse(m Machine, busy, taken []int) int {
	used := map[int]bool{}
	for _, i := range append(slices.Clone(busy), taken...) {
		used[m.RackOf(i)] = true
	}
	return len(used)
}

const h = 3600.0 // an hour in seconds

// nan marks a key that must not be read (the rack is not utilized).
var nan = math.NaN()

// Allocator decisions on fixed states, worked from patil.md §2.1 (Table I)
// and §2.3. Racks are numbered from 0 here; the paper's rack 1 is rack 0.
// want is in taking order.
var allocateCases = []struct {
	name  string
	m     Machine
	busy  []int
	keys  []float64 // by rack; nil for the index-ordered allocators
	alloc Allocator
	n     int
	want  []int
	racks int // racks in use afterwards
}{
	// Table I as numbered rack by rack: rack 0 = nodes 0-2 (empty),
	// rack 1 = 3-5 (4, 5 busy), rack 2 = 6-8 (8 busy). 3 nodes wanted.
	// rack_aware fills racks 1 and 2 whatever their keys: 2 racks in use,
	// rack 0 stays off (633 W saved while the state lasts).
	{"Table I/rack_aware, rack 1 runs longer", Machine{9, 3}, []int{4, 5, 8}, []float64{nan, 10 * h, 5 * h}, RackAware, 3, []int{3, 6, 7}, 2},
	{"Table I/rack_aware, rack 2 runs longer", Machine{9, 3}, []int{4, 5, 8}, []float64{nan, 5 * h, 10 * h}, RackAware, 3, []int{6, 7, 3}, 2},
	{"Table I/rack_aware, equal keys: lower index first", Machine{9, 3}, []int{4, 5, 8}, []float64{nan, 7 * h, 7 * h}, RackAware, 3, []int{3, 6, 7}, 2},
	{"Table I/first_available", Machine{9, 3}, []int{4, 5, 8}, nil, FirstAvailable, 3, []int{0, 1, 2}, 3},
	{"Table I/last_available", Machine{9, 3}, []int{4, 5, 8}, nil, LastAvailable, 3, []int{7, 6, 3}, 2},
	// The reversed state: rack 0 has 0, 1 busy, rack 1 has 3 busy, rack 2
	// is empty. Now last_available opens the empty rack.
	{"Table I reversed/last_available", Machine{9, 3}, []int{0, 1, 3}, nil, LastAvailable, 3, []int{8, 7, 6}, 3},
	{"Table I reversed/first_available", Machine{9, 3}, []int{0, 1, 3}, nil, FirstAvailable, 3, []int{2, 4, 5}, 2},
	{"Table I reversed/rack_aware, rack 0 runs longer", Machine{9, 3}, []int{0, 1, 3}, []float64{10 * h, 5 * h, nan}, RackAware, 3, []int{2, 4, 5}, 2},
	{"Table I reversed/rack_aware, rack 1 runs longer", Machine{9, 3}, []int{0, 1, 3}, []float64{5 * h, 10 * h, nan}, RackAware, 3, []int{4, 5, 2}, 2},
	// Maui's policies on a homogeneous machine (§1.5).
	{"Table I/max_balance = first_available", Machine{9, 3}, []int{4, 5, 8}, nil, MaxBalance, 3, []int{0, 1, 2}, 3},
	{"Table I/fastest = first_available", Machine{9, 3}, []int{4, 5, 8}, nil, Fastest, 3, []int{0, 1, 2}, 3},
	{"Table I/min_resource = last_available", Machine{9, 3}, []int{4, 5, 8}, nil, MinResource, 3, []int{7, 6, 3}, 2},
	{"Table I/cpu_load = last_available", Machine{9, 3}, []int{4, 5, 8}, nil, CPULoad, 3, []int{7, 6, 3}, 2},

	// §2.3: racks of 4. Rack A = 0-3 (0, 1, 2 busy with X, 5 h left),
	// B = 4-7 (4, 5 busy with Y, 1 h left), C = 8-11 empty.
	{"§2.3/1 node → A", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{5 * h, 1 * h, nan}, RackAware, 1, []int{3}, 2},
	// No best fit: B alone could take both.
	{"§2.3/2 nodes → A + B", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{5 * h, 1 * h, nan}, RackAware, 2, []int{3, 6}, 2},
	{"§2.3/4 nodes → A + 2B + C", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{5 * h, 1 * h, nan}, RackAware, 4, []int{3, 6, 7, 8}, 3},
	// The same state with Y the longer job: B first.
	{"§2.3 swapped/1 node → B", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{1 * h, 5 * h, nan}, RackAware, 1, []int{6}, 2},
	{"§2.3 swapped/2 nodes → 2B", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{1 * h, 5 * h, nan}, RackAware, 2, []int{6, 7}, 2},
	{"§2.3 swapped/4 nodes → 2B + A + C", Machine{12, 3}, []int{0, 1, 2, 4, 5}, []float64{1 * h, 5 * h, nan}, RackAware, 4, []int{6, 7, 3, 8}, 3},
	{"§2.3/last_available opens C", Machine{12, 3}, []int{0, 1, 2, 4, 5}, nil, LastAvailable, 2, []int{11, 10}, 3},
	// A full utilized rack with the largest key is skipped.
	{"full rack skipped", Machine{9, 3}, []int{0, 1, 2, 3}, []float64{9 * h, 1 * h, nan}, RackAware, 2, []int{4, 5}, 2},
	{"nothing asked", Machine{6, 3}, []int{0}, []float64{1, nan, nan}, RackAware, 0, []int{}, 1},
	{"whole machine", Machine{6, 3}, nil, []float64{nan, nan, nan}, RackAware, 6, []int{0, 1, 2, 3, 4, 5}, 3},
}

func TestAllocate(t *testing.T) {
	for _, c := range allocateCases {
		t.Run(c.name, func(t *testing.T) {
			s := busyState(c.m, c.busy, c.keys)
			before := slices.Clone(s.Busy)
			got, err := Allocate(c.alloc, s, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("took %v, want %v", got, c.want)
			}
			if r := racksInUse(c.m, c.busy, got); r != c.racks {
				t.Errorf("%d racks in use afterwards, want %d", r, c.racks)
			}
			if !slices.Equal(s.Busy, before) {
				t.Error("Allocate changed the state")
			}
		})
	}
}

func TestAllocateRejects(t *testing.T) {
	m := Machine{6, 3}
	cases := []struct {
		name  string
		alloc Allocator
		s     State
		n     int
		want  string
	}{
		{"unknown allocator", "best_fit", busyState(m, nil, nil), 1, "unknown allocator"},
		{"more than free", FirstAvailable, busyState(m, []int{0, 1}, nil), 5, "cannot allocate 5 nodes, 4 free"},
		{"negative", LastAvailable, busyState(m, nil, nil), -1, "cannot allocate -1"},
		{"racks do not divide nodes", FirstAvailable, busyState(Machine{6, 4}, nil, []float64{0, 0, 0, 0}), 1, "do not divide"},
		{"no racks", FirstAvailable, State{Machine: Machine{6, 0}, Busy: make([]bool, 6)}, 1, "0 racks"},
		{"short busy slice", FirstAvailable, State{Machine: m, Busy: make([]bool, 5), Key: make([]float64, 3)}, 1, "5 node flags"},
		{"short key slice", RackAware, State{Machine: m, Busy: make([]bool, 6), Key: make([]float64, 2)}, 1, "2 rack keys"},
		{"NaN key on a utilized rack", RackAware, busyState(m, []int{0}, []float64{nan, 0, 0}), 1, "NaN key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Allocate(c.alloc, c.s, c.n)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// job builds a schedule entry: start, end, estimated end, nodes.
func job(start, end, estEnd float64, nodes int) Job {
	return Job{Start: start, End: end, EstEnd: estEnd, Nodes: nodes}
}

// Whole schedules replayed by Place, worked by hand. want gives each job's
// nodes (ascending) and the racks-on series, per allocator.
type placeWant struct {
	nodes [][]int
	racks Series
}

var placeCases = []struct {
	name string
	m    Machine
	jobs []Job
	want map[Allocator]placeWant
}{
	{
		// §2.3 built by a schedule on 3 racks of 4: X (3 nodes, est. 5 h)
		// opens rack 0; F fills rack 0's last node; Y (est. 1 h) opens
		// rack 1. At t=10 F's end is applied first, so J (2 nodes) sees
		// rack 0 (key 5 h, node 3 free) before rack 1 (key 1 h, 6, 7
		// free): [3, 6]. Were J placed before F's end, it would get
		// [6, 7]. X really ends at 100 and Y at 3000: were the key the
		// actual end, rack 1 would come first and J get [6, 7] too.
		// Racks: 2 from t=0 (J adds none), 1 when X's rack empties at
		// 100, 0 at 3000.
		// first_available makes the same choices here. last_available is
		// the mirror image (i ↦ 11 − i), with the same racks-on series.
		name: "§2.3 replayed, 2-node job",
		m:    Machine{12, 3},
		jobs: []Job{
			job(0, 100, 5*h, 3),  // X
			job(0, 10, 10, 1),    // F
			job(0, 3000, 1*h, 2), // Y
			job(10, 20, 20, 2),   // J
		},
		want: map[Allocator]placeWant{
			RackAware:      {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6}}, Series{{0, 2}, {100, 1}, {3000, 0}}},
			FirstAvailable: {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6}}, Series{{0, 2}, {100, 1}, {3000, 0}}},
			LastAvailable:  {[][]int{{9, 10, 11}, {8}, {6, 7}, {5, 8}}, Series{{0, 2}, {100, 1}, {3000, 0}}},
		},
	},
	{
		// As above with a 4-node J: rack_aware takes A's node 3, B's 6, 7
		// and opens C with 8; racks on 3 while J runs.
		name: "§2.3 replayed, 4-node job",
		m:    Machine{12, 3},
		jobs: []Job{job(0, 100, 5*h, 3), job(0, 10, 10, 1), job(0, 3000, 1*h, 2), job(10, 20, 20, 4)},
		want: map[Allocator]placeWant{
			RackAware:      {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6, 7, 8}}, Series{{0, 2}, {10, 3}, {20, 2}, {100, 1}, {3000, 0}}},
			FirstAvailable: {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6, 7, 8}}, Series{{0, 2}, {10, 3}, {20, 2}, {100, 1}, {3000, 0}}},
			LastAvailable:  {[][]int{{9, 10, 11}, {8}, {6, 7}, {3, 4, 5, 8}}, Series{{0, 2}, {10, 3}, {20, 2}, {100, 1}, {3000, 0}}},
		},
	},
	{
		// Now X is expected to end at 100 (exact estimate) while Y holds
		// rack 1 until 3000 (est. 1 h): rack_aware puts J (until 200) in
		// rack 1 at 6, 7, so rack 0 goes off when X ends at 100.
		// first_available puts J on 3 (rack 0) and 6: rack 0 stays on
		// until J ends at 200.
		name: "rack_aware follows the longer-running rack",
		m:    Machine{12, 3},
		jobs: []Job{job(0, 100, 100, 3), job(0, 10, 10, 1), job(0, 3000, 1*h, 2), job(10, 200, 200, 2)},
		want: map[Allocator]placeWant{
			RackAware:      {[][]int{{0, 1, 2}, {3}, {4, 5}, {6, 7}}, Series{{0, 2}, {100, 1}, {3000, 0}}},
			FirstAvailable: {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6}}, Series{{0, 2}, {200, 1}, {3000, 0}}},
			LastAvailable:  {[][]int{{9, 10, 11}, {8}, {6, 7}, {5, 8}}, Series{{0, 2}, {200, 1}, {3000, 0}}},
		},
	},
	{
		// The same with X's estimate at 5 h though it ends at 100:
		// rack_aware trusts the estimate, puts J on 3 and 6 as
		// first_available does, and keeps rack 0 on until 200.
		name: "rack_aware keys on the estimated end, not the actual end",
		m:    Machine{12, 3},
		jobs: []Job{job(0, 100, 5*h, 3), job(0, 10, 10, 1), job(0, 3000, 1*h, 2), job(10, 200, 200, 2)},
		want: map[Allocator]placeWant{
			RackAware: {[][]int{{0, 1, 2}, {3}, {4, 5}, {3, 6}}, Series{{0, 2}, {200, 1}, {3000, 0}}},
		},
	},
	{
		// One node per rack. A ends at 10 as B starts: the end is applied
		// first, so B reuses node 0 and rack 1 never turns on.
		name: "ends before starts at the same instant",
		m:    Machine{2, 2},
		jobs: []Job{job(0, 10, 10, 1), job(10, 20, 20, 1)},
		want: map[Allocator]placeWant{
			FirstAvailable: {[][]int{{0}, {0}}, Series{{0, 1}, {20, 0}}},
			LastAvailable:  {[][]int{{1}, {1}}, Series{{0, 1}, {20, 0}}},
			RackAware:      {[][]int{{0}, {0}}, Series{{0, 1}, {20, 0}}},
		},
	},
	{
		// P and Q start together and are placed in job order: P first.
		// rack_aware: P opens rack 0; Q fills rack 0's node 1, then
		// opens rack 1. Listed the other way round, Q would take 0-2.
		name: "same-instant starts in job order",
		m:    Machine{4, 2},
		jobs: []Job{job(0, 10, 10, 1), job(0, 20, 20, 3)},
		want: map[Allocator]placeWant{
			FirstAvailable: {[][]int{{0}, {1, 2, 3}}, Series{{0, 2}, {20, 0}}},
			LastAvailable:  {[][]int{{3}, {0, 1, 2}}, Series{{0, 2}, {20, 0}}},
			RackAware:      {[][]int{{0}, {1, 2, 3}}, Series{{0, 2}, {20, 0}}},
		},
	},
	{
		// The same jobs listed the other way round: Q is placed first.
		name: "reversed job order",
		m:    Machine{4, 2},
		jobs: []Job{job(0, 20, 20, 3), job(0, 10, 10, 1)},
		want: map[Allocator]placeWant{
			FirstAvailable: {[][]int{{0, 1, 2}, {3}}, Series{{0, 2}, {20, 0}}},
			RackAware:      {[][]int{{0, 1, 2}, {3}}, Series{{0, 2}, {20, 0}}},
		},
	},
	{name: "no jobs", m: Machine{4, 2}, want: map[Allocator]placeWant{RackAware: {[][]int{}, nil}}},
}

func TestPlaceHandWorked(t *testing.T) {
	for _, c := range placeCases {
		for _, a := range []Allocator{RackAware, FirstAvailable, LastAvailable} {
			want, ok := c.want[a]
			if !ok {
				continue
			}
			t.Run(c.name+"/"+string(a), func(t *testing.T) {
				p, err := Place(c.m, c.jobs, a)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(p.Nodes, want.nodes, slices.Equal) {
					t.Errorf("nodes = %v, want %v", p.Nodes, want.nodes)
				}
				if !slices.Equal(p.Racks, want.racks) {
					t.Errorf("racks on = %v, want %v", p.Racks, want.racks)
				}
				checkPlacement(t, c.m, c.jobs, p)
			})
		}
	}
}

func TestPlaceRejects(t *testing.T) {
	m := Machine{4, 2}
	cases := []struct {
		name  string
		m     Machine
		jobs  []Job
		alloc Allocator
		want  string
	}{
		{"unknown allocator", m, nil, "random", "unknown allocator"},
		{"no nodes", Machine{0, 1}, nil, FirstAvailable, "0 nodes"},
		{"racks do not divide nodes", Machine{4, 3}, nil, FirstAvailable, "do not divide"},
		{"zero width", m, []Job{job(0, 1, 1, 0)}, FirstAvailable, "has 0 nodes"},
		{"wider than machine", m, []Job{job(0, 1, 1, 5)}, FirstAvailable, "has 5 nodes"},
		{"zero run time", m, []Job{job(3, 3, 3, 1)}, FirstAvailable, "not after its start"},
		{"estimated end before end", m, []Job{job(0, 5, 4, 1)}, RackAware, "estimated end 4 before its end 5"},
		{"NaN", m, []Job{job(math.NaN(), 5, 5, 1)}, RackAware, "non-finite"},
		{"infinite end", m, []Job{job(0, math.Inf(1), math.Inf(1), 1)}, RackAware, "non-finite"},
		// 3 + 2 nodes overlap during [5, 10) on 4 nodes.
		{"overflow", m, []Job{job(0, 10, 10, 3), job(5, 15, 15, 2)}, RackAware, "job 1 starting at t=5: refplace: cannot allocate 2 nodes, 1 free"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Place(c.m, c.jobs, c.alloc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// checkPlacement judges a placement without trusting Place's bookkeeping:
// every job has exactly its width in distinct, ascending, valid node ids;
// no two jobs running at once share a node (pairwise); the racks-on series
// equals both a brute-force recount at every event time and RacksOn's
// recomputation from the node lists.
func checkPlacement(t *testing.T, m Machine, jobs []Job, p Placement) {
	t.Helper()
	if len(p.Nodes) != len(jobs) {
		t.Fatalf("%d node lists for %d jobs", len(p.Nodes), len(jobs))
	}
	for i, ids := range p.Nodes {
		if len(ids) != jobs[i].Nodes {
			t.Fatalf("job %d got %d nodes, wants %d", i, len(ids), jobs[i].Nodes)
		}
		for k, id := range ids {
			if id < 0 || id >= m.Nodes || (k > 0 && id <= ids[k-1]) {
				t.Fatalf("job %d: node list %v not ascending distinct ids in [0, %d)", i, ids, m.Nodes)
			}
		}
	}
	for a := range jobs {
		for b := a + 1; b < len(jobs); b++ {
			ja, jb := jobs[a], jobs[b]
			if ja.Start < jb.End && jb.Start < ja.End {
				for _, id := range p.Nodes[a] {
					if slices.Contains(p.Nodes[b], id) {
						t.Fatalf("jobs %d [%g, %g) and %d [%g, %g) share node %d",
							a, ja.Start, ja.End, b, jb.Start, jb.End, id)
					}
				}
			}
		}
	}
	if want := bruteRacks(m, jobs, p.Nodes); !slices.Equal(p.Racks, want) {
		t.Fatalf("racks on = %v\nbrute force %v", head(p.Racks), head(want))
	}
	placed := make([]Placed, len(jobs))
	for i, j := range jobs {
		placed[i] = Placed{Start: j.Start, End: j.End, Nodes: p.Nodes[i]}
	}
	got, err := RacksOn(m, placed)
	if err != nil {
		t.Fatalf("RacksOn on Place's lists: %v", err)
	}
	if !slices.Equal(got, p.Racks) {
		t.Fatalf("RacksOn = %v\nPlace     %v", head(got), head(p.Racks))
	}
}

// bruteRacks is the racks-on series by definition: at each event time t,
// the racks holding a node of a job with Start ≤ t < End, written down
// where the count differs from the previous one (0 before the first).
func bruteRacks(m Machine, jobs []Job, nodes [][]int) Series {
	var times []float64
	for _, j := range jobs {
		times = append(times, j.Start, j.End)
	}
	slices.Sort(times)
	var s Series
	prev := 0
	for k, t := range times {
		if k > 0 && t == times[k-1] {
			continue
		}
		on := map[int]bool{}
		for i, j := range jobs {
			if j.Start <= t && t < j.End {
				for _, id := range nodes[i] {
					on[id/(m.Nodes/m.Racks)] = true
				}
			}
		}
		if len(on) != prev {
			s = append(s, Step{At: t, RacksOn: len(on)})
			prev = len(on)
		}
	}
	return s
}

func head(s Series) Series { return s[:min(len(s), 12)] }

// randomSchedule draws jobs (widths 1..nodes, log-uniform run times, requested
// times 1-4× the run time rounded up to 15 min), submits them at about load
// times the machine's capacity with times on a grain, and schedules them with
// refsim's EASY. Jobs come back in queue order, the order in which a pass
// starts them.
func randomSchedule(r *rand.Rand, n, nodes int, load, grain float64) []Job {
	roundUp := func(x, step float64) float64 { return math.Ceil(x/step) * step }
	in := make([]refsim.Job, n)
	work := 0.0
	for i := range in {
		w := 1 + r.IntN(min(nodes, 6))
		if r.IntN(4) == 0 {
			w = 1 + r.IntN(nodes)
		}
		run := roundUp(30*math.Exp(r.Float64()*math.Log(1200)), grain)
		in[i] = refsim.Job{Runtime: run, Estimate: roundUp(run*(1+3*r.Float64()), 900), Nodes: w}
		work += run * float64(w)
	}
	gap := work / float64(n) / (float64(nodes) * load)
	t := 0.0
	for i := range in {
		t += r.ExpFloat64() * gap
		in[i].Submit = roundUp(t, grain)
	}
	starts, err := refsim.Simulate(in, nodes, "easy")
	if err != nil {
		panic(err)
	}
	jobs := make([]Job, n)
	for i, j := range in {
		jobs[i] = Job{Start: starts[i], End: starts[i] + j.Runtime, EstEnd: starts[i] + j.Estimate, Nodes: j.Nodes}
	}
	return jobs
}

var randomMachines = []Machine{{64, 4}, {64, 16}, {60, 5}, {48, 48}, {32, 1}}

// On random EASY schedules: every allocator's placement passes
// checkPlacement; first_available and last_available are mirror images
// (job by job, i ↦ N−1−i) with identical racks-on series (patil.md §1.5,
// §6 check 4); Maui's aliases place exactly as their base allocator
// (§6 check 3); and rack_aware really differs from first_available.
func TestPlaceRandom(t *testing.T) {
	for seed := range uint64(3) {
		for _, m := range randomMachines {
			for _, grain := range []float64{1, 300} {
				t.Run(fmt.Sprintf("seed%d/%dx%d/grain%g", seed, m.Racks, m.RackSize(), grain), func(t *testing.T) {
					r := rand.New(rand.NewPCG(seed, 7))
					jobs := randomSchedule(r, 1500, m.Nodes, 0.6, grain)
					got := map[Allocator]Placement{}
					for _, a := range []Allocator{FirstAvailable, LastAvailable, RackAware, MaxBalance, Fastest, MinResource, CPULoad} {
						p, err := Place(m, jobs, a)
						if err != nil {
							t.Fatalf("%s: %v", a, err)
						}
						checkPlacement(t, m, jobs, p)
						got[a] = p
					}
					first, last := got[FirstAvailable], got[LastAvailable]
					for i := range jobs {
						mirrored := make([]int, len(last.Nodes[i]))
						for k, id := range last.Nodes[i] {
							mirrored[len(mirrored)-1-k] = m.Nodes - 1 - id
						}
						if !slices.Equal(first.Nodes[i], mirrored) {
							t.Fatalf("job %d: first_available %v, last_available %v: not mirror images", i, first.Nodes[i], last.Nodes[i])
						}
					}
					if !slices.Equal(first.Racks, last.Racks) {
						t.Fatalf("racks on differ:\nfirst_available %v\nlast_available  %v", head(first.Racks), head(last.Racks))
					}
					for alias, base := range map[Allocator]Allocator{MaxBalance: FirstAvailable, Fastest: FirstAvailable, MinResource: LastAvailable, CPULoad: LastAvailable} {
						if !slices.EqualFunc(got[alias].Nodes, got[base].Nodes, slices.Equal) {
							t.Errorf("%s places differently from %s", alias, base)
						}
					}
					// With one rack, or racks of one node, rack_aware visits
					// free nodes by increasing index: it is first_available.
					// Otherwise it must differ somewhere on these workloads.
					same := slices.EqualFunc(got[RackAware].Nodes, first.Nodes, slices.Equal)
					degenerate := m.Racks == 1 || m.RackSize() == 1
					if same != degenerate {
						t.Errorf("rack_aware places as first_available: %v, want %v", same, degenerate)
					}
					span := 0.0
					for _, j := range jobs {
						span = max(span, j.End)
					}
					for _, a := range []Allocator{RackAware, FirstAvailable} {
						s, err := Summarize(got[a].Racks, m.Racks, 633, 0, span)
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("%-15s mean racks on %.3f, changes %d, switches %d", a, s.MeanRacksOn, s.Changes, s.Switches)
					}
				})
			}
		}
	}
}

func TestRacksOnRejects(t *testing.T) {
	m := Machine{4, 2}
	cases := []struct {
		name string
		jobs []Placed
		want string
	}{
		{"overlap", []Placed{{0, 10, []int{0, 1}}, {5, 15, []int{1, 2}}}, "node 1 is held by job 0 and job 1 at t=5"},
		{"out of range", []Placed{{0, 10, []int{4}}}, "has node 4, machine has nodes 0-3"},
		{"negative id", []Placed{{0, 10, []int{-1}}}, "has node -1"},
		{"repeated id", []Placed{{0, 10, []int{2, 2}}}, "lists node 2 twice"},
		{"zero run time", []Placed{{10, 10, []int{2}}}, "not after its start"},
		{"NaN", []Placed{{math.NaN(), 10, []int{2}}}, "non-finite"},
		{"bad machine", nil, "do not divide"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mm := m
			if c.name == "bad machine" {
				mm = Machine{4, 3}
			}
			_, err := RacksOn(mm, c.jobs)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
	// Touching intervals share a node legally: the end is applied first.
	if _, err := RacksOn(m, []Placed{{0, 10, []int{0, 1}}, {10, 15, []int{1, 2}}}); err != nil {
		t.Errorf("touching intervals: %v", err)
	}
}

// Corrupting a valid random placement must be caught: swapping one job's
// node for a node busy at its start makes two running jobs share it.
func TestRacksOnCatchesCorruptedPlacement(t *testing.T) {
	m := Machine{64, 4}
	jobs := randomSchedule(rand.New(rand.NewPCG(9, 7)), 1500, m.Nodes, 0.9, 1)
	p, err := Place(m, jobs, RackAware)
	if err != nil {
		t.Fatal(err)
	}
	placed := make([]Placed, len(jobs))
	for i, j := range jobs {
		placed[i] = Placed{Start: j.Start, End: j.End, Nodes: slices.Clone(p.Nodes[i])}
	}
	// Find job b starting while job a runs, and give b one of a's nodes in
	// place of one of its own.
	for b := range jobs {
		for a := range jobs {
			if a != b && jobs[a].Start < jobs[b].Start && jobs[b].Start < jobs[a].End {
				placed[b].Nodes[0] = p.Nodes[a][0]
				if !slices.Contains(p.Nodes[b], p.Nodes[a][0]) { // stays a valid list
					_, err := RacksOn(m, placed)
					if err == nil || !strings.Contains(err.Error(), "is held by job") {
						t.Fatalf("job %d given job %d's node %d: err = %v", b, a, p.Nodes[a][0], err)
					}
					return
				}
				placed[b].Nodes[0] = p.Nodes[b][0]
			}
		}
	}
	t.Fatal("no overlapping pair found")
}
