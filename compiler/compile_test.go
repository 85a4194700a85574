package compiler_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/stdlib"
)

// header is prepended to the scenarios below: a small machine and the
// standard policies and tariffs.
const header = `import "std/policies"
import "std/kunkel"
machine m { nodes 4; power { idle 1 W; busy 2 W } }
`

// compileOK compiles files (the first key in order is root) and fails the
// test on any diagnostic, warnings included.
func compileOK(t *testing.T, root string, files map[string]string, opts compiler.Options) *runtime.Plan {
	t.Helper()
	res := compileFiles(root, files, opts)
	if len(res.Diags) > 0 {
		var b bytes.Buffer
		_ = res.Diags.Write(&b, res.Sources)
		t.Fatalf("unexpected diagnostics:\n%s", b.String())
	}
	if res.Plan == nil {
		t.Fatal("no plan and no diagnostics")
	}
	return res.Plan
}

func compileFiles(root string, files map[string]string, opts compiler.Options) *compiler.Result {
	fs := map[string][]byte{}
	for k, v := range files {
		fs[filepath.Clean(k)] = []byte(v)
	}
	opts.ReadFile = memFS(fs)
	if opts.OpenData == nil {
		opts.OpenData = stubData(fs)
	}
	return compiler.Compile(root, opts)
}

// stubData opens data files from fs, and any other as a trace whose
// header gives its size: these tests are about plans, not files (the check
// goldens open data files strictly).
func stubData(fs map[string][]byte) func(string) (io.ReadCloser, error) {
	return func(name string) (io.ReadCloser, error) {
		b, ok := fs[filepath.Clean(name)]
		if !ok {
			b = []byte("; MaxProcs: 64\n")
			if strings.HasSuffix(name, ".csv") { // a price series, which the compiler reads
				b = []byte("0.1\n")
			}
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

// layout renders the runs of a plan, one a line: name, swept values and
// the name of the baseline run.
func layout(p *runtime.Plan) string {
	var b strings.Builder
	for _, e := range p.Experiments {
		fmt.Fprintf(&b, "experiment %s dims=%v", e.Name, e.Dims)
		if e.Baseline != nil {
			fmt.Fprintf(&b, " baseline=%s:%s", e.Baseline.Dim, e.Baseline.Value)
		}
		b.WriteByte('\n')
		for _, i := range e.Runs {
			r := p.Runs[i]
			if r.Index != i {
				fmt.Fprintf(&b, "  BAD INDEX %d != %d\n", r.Index, i)
			}
			var ps []string
			for _, prm := range r.Params {
				ps = append(ps, prm.Name+"="+prm.Value)
			}
			fmt.Fprintf(&b, "  %s [%s]", r.Name, strings.Join(ps, " "))
			if r.Baseline >= 0 {
				fmt.Fprintf(&b, " vs %s", p.Runs[r.Baseline].Name)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func trimLines(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimRight(strings.TrimLeft(l, "\t"), " "))
	}
	return strings.Join(out, "\n") + "\n"
}

func TestPlanLayout(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opts  compiler.Options
		want  string // layout(plan), leading tabs trimmed
	}{
		{
			name: "single run",
			files: map[string]string{"main.pwr": header + `
				experiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy easy }`},
			want: `experiment e dims=[]
				  e []`,
		},
		{
			name: "cartesian product, first dimension outermost",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract [kunkel_fixed, kunkel_basepeak]
				  policy   [fcfs, easy, easy_shutdown]
				}`},
			want: `experiment e dims=[contract policy]
				  kunkel_fixed-fcfs [contract=kunkel_fixed policy=fcfs]
				  kunkel_fixed-easy [contract=kunkel_fixed policy=easy]
				  kunkel_fixed-easy_shutdown [contract=kunkel_fixed policy=easy_shutdown]
				  kunkel_basepeak-fcfs [contract=kunkel_basepeak policy=fcfs]
				  kunkel_basepeak-easy [contract=kunkel_basepeak policy=easy]
				  kunkel_basepeak-easy_shutdown [contract=kunkel_basepeak policy=easy_shutdown]`,
		},
		{
			name: "declaration order decides the nesting",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  policy   [fcfs, easy]
				  contract [kunkel_fixed, kunkel_basepeak]
				  machine  m
				  workload synthetic { jobs 10 }
				}`},
			want: `experiment e dims=[policy contract]
				  fcfs-kunkel_fixed [policy=fcfs contract=kunkel_fixed]
				  fcfs-kunkel_basepeak [policy=fcfs contract=kunkel_basepeak]
				  easy-kunkel_fixed [policy=easy contract=kunkel_fixed]
				  easy-kunkel_basepeak [policy=easy contract=kunkel_basepeak]`,
		},
		{
			name: "a param read by one swept policy sweeps only that policy's runs",
			files: map[string]string{"main.pwr": header + `
				param delay = [0 s, 10 min, 1 h]
				policy easy_off from easy { shutdown idle after delay }
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract [kunkel_fixed, kunkel_basepeak]
				  policy   [easy, easy_off] baseline easy
				}`},
			want: `experiment e dims=[contract policy delay] baseline=policy:easy
				  kunkel_fixed-easy [contract=kunkel_fixed policy=easy]
				  kunkel_fixed-easy_off-delay_0s [contract=kunkel_fixed policy=easy_off delay=0s] vs kunkel_fixed-easy
				  kunkel_fixed-easy_off-delay_10min [contract=kunkel_fixed policy=easy_off delay=10min] vs kunkel_fixed-easy
				  kunkel_fixed-easy_off-delay_1h [contract=kunkel_fixed policy=easy_off delay=1h] vs kunkel_fixed-easy
				  kunkel_basepeak-easy [contract=kunkel_basepeak policy=easy]
				  kunkel_basepeak-easy_off-delay_0s [contract=kunkel_basepeak policy=easy_off delay=0s] vs kunkel_basepeak-easy
				  kunkel_basepeak-easy_off-delay_10min [contract=kunkel_basepeak policy=easy_off delay=10min] vs kunkel_basepeak-easy
				  kunkel_basepeak-easy_off-delay_1h [contract=kunkel_basepeak policy=easy_off delay=1h] vs kunkel_basepeak-easy`,
		},
		{
			name: "params swept through two levels: a param list of policies, each reading its own param",
			files: map[string]string{"main.pwr": header + `
				param delay = [0 s, 1 h]
				param big = [2, 3]
				param pols = [easy, easy_off, picky]
				policy easy_off from easy { shutdown idle after delay }
				policy picky from easy { admit peak || job.nodes <= big }
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract kunkel_fixed
				  policy   pols
				}`},
			want: `experiment e dims=[pols delay big]
				  easy [pols=easy]
				  easy_off-delay_0s [pols=easy_off delay=0s]
				  easy_off-delay_1h [pols=easy_off delay=1h]
				  picky-big_2 [pols=picky big=2]
				  picky-big_3 [pols=picky big=3]`,
		},
		{
			name: "baseline on a swept param: each run is compared with its own policy at that value",
			files: map[string]string{"main.pwr": header + `
				param delay = [0 s, 10 min]
				policy easy_off from easy { shutdown idle after delay }
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract kunkel_fixed
				  policy   [easy, easy_off]
				  baseline delay = 0 min
				}`},
			want: `experiment e dims=[policy delay] baseline=delay:0s
				  easy [policy=easy]
				  easy_off-delay_0s [policy=easy_off delay=0s]
				  easy_off-delay_10min [policy=easy_off delay=10min] vs easy_off-delay_0s`,
		},
		{
			name: "independent param sweep with a baseline on the param",
			files: map[string]string{"main.pwr": header + `
				param big = [1, 2, 4]
				policy picky from easy { admit peak || job.nodes <= big }
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract [kunkel_fixed, kunkel_basepeak]
				  policy   picky
				  baseline big = 4
				}`},
			want: `experiment e dims=[contract big] baseline=big:4
				  kunkel_fixed-1 [contract=kunkel_fixed big=1] vs kunkel_fixed-4
				  kunkel_fixed-2 [contract=kunkel_fixed big=2] vs kunkel_fixed-4
				  kunkel_fixed-4 [contract=kunkel_fixed big=4]
				  kunkel_basepeak-1 [contract=kunkel_basepeak big=1] vs kunkel_basepeak-4
				  kunkel_basepeak-2 [contract=kunkel_basepeak big=2] vs kunkel_basepeak-4
				  kunkel_basepeak-4 [contract=kunkel_basepeak big=4]`,
		},
		{
			name: "baseline links each run to its counterpart",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract [kunkel_fixed, kunkel_basepeak]
				  policy   [fcfs, easy] baseline easy
				}`},
			want: `experiment e dims=[contract policy] baseline=policy:easy
				  kunkel_fixed-fcfs [contract=kunkel_fixed policy=fcfs] vs kunkel_fixed-easy
				  kunkel_fixed-easy [contract=kunkel_fixed policy=easy]
				  kunkel_basepeak-fcfs [contract=kunkel_basepeak policy=fcfs] vs kunkel_basepeak-easy
				  kunkel_basepeak-easy [contract=kunkel_basepeak policy=easy]`,
		},
		{
			name: "baseline on the outer dimension",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract [kunkel_fixed, kunkel_basepeak] baseline kunkel_basepeak
				  policy   [fcfs, easy]
				}`},
			want: `experiment e dims=[contract policy] baseline=contract:kunkel_basepeak
				  kunkel_fixed-fcfs [contract=kunkel_fixed policy=fcfs] vs kunkel_basepeak-fcfs
				  kunkel_fixed-easy [contract=kunkel_fixed policy=easy] vs kunkel_basepeak-easy
				  kunkel_basepeak-fcfs [contract=kunkel_basepeak policy=fcfs]
				  kunkel_basepeak-easy [contract=kunkel_basepeak policy=easy]`,
		},
		{
			name: "list-valued param found through a declaration",
			files: map[string]string{"main.pwr": `import "std/policies"
				import "std/kunkel"
				param nodes = [64, 128]
				machine big { nodes nodes; power { idle 1 W; busy 2 W } }
				experiment e {
				  workload synthetic { jobs 10 }
				  policy   [fcfs, easy]
				  machine  big
				  contract kunkel_fixed
				}`},
			want: `experiment e dims=[policy nodes]
				  fcfs-64 [policy=fcfs nodes=64]
				  fcfs-128 [policy=fcfs nodes=128]
				  easy-64 [policy=easy nodes=64]
				  easy-128 [policy=easy nodes=128]`,
		},
		{
			name: "list-valued param used as an experiment field, with a baseline",
			files: map[string]string{"main.pwr": header + `
				param pol = [fcfs, easy]
				experiment e {
				  workload synthetic { jobs 10 }
				  machine  m
				  contract kunkel_fixed
				  policy   pol baseline easy
				}`},
			want: `experiment e dims=[pol] baseline=pol:easy
				  fcfs [pol=fcfs] vs easy
				  easy [pol=easy]`,
		},
		{
			name: "--set a list makes a sweep",
			files: map[string]string{"main.pwr": header + `
				param policy = easy
				experiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy policy }`},
			opts: compiler.Options{Sets: []compiler.Set{{Name: "policy", Value: "[fcfs,easy]"}}},
			want: `experiment e dims=[policy]
				  fcfs [policy=fcfs]
				  easy [policy=easy]`,
		},
		{
			name: "several experiments prefix run names",
			files: map[string]string{"main.pwr": header + `
				experiment a { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy [fcfs, easy] }
				experiment b { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy easy }`},
			want: `experiment a dims=[policy]
				  a-fcfs [policy=fcfs]
				  a-easy [policy=easy]
				experiment b dims=[]
				  b []`,
		},
		{
			name: "--experiment selects one",
			files: map[string]string{"main.pwr": header + `
				experiment a { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy [fcfs, easy] }
				experiment b { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy easy }`},
			opts: compiler.Options{Experiment: "a"},
			want: `experiment a dims=[policy]
				  a-fcfs [policy=fcfs]
				  a-easy [policy=easy]`, // named as without --experiment
		},
		{
			name: "--experiment does not call what the others use unused",
			files: map[string]string{"main.pwr": header + `
				param n = 20
				experiment a { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy easy }
				experiment b { workload synthetic { jobs n }; machine m; contract kunkel_fixed; policy fcfs }`},
			opts: compiler.Options{Experiment: "a"},
			want: `experiment a dims=[]
				  a []`,
		},
		{
			name: "swept traces are named by their base name",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  workload swf ["traces/KTH.swf.gz", "traces/CTC.swf"]
				  machine  m
				  contract kunkel_fixed
				  policy   easy
				}`},
			want: `experiment e dims=[workload]
				  KTH [workload=KTH]
				  CTC [workload=CTC]`,
		},
		{
			name: "a swept quantity names runs by its source",
			files: map[string]string{"main.pwr": `import "std/policies"
				import "std/kunkel"
				param idle_w = [50 W, 0.07 kW]
				machine n { nodes 4; power { idle idle_w; busy 260 W } }
				experiment e { workload synthetic { jobs 10 }; machine n; contract kunkel_fixed; policy easy }`},
			want: `experiment e dims=[idle_w]
				  50W [idle_w=50W]
				  0.07kW [idle_w=0.07kW]`,
		},
		{
			name: "labels name two traces of the same base name",
			files: map[string]string{"main.pwr": header + `
				experiment e {
				  workload swf [site_a = "a/trace.swf", site_b = "b/trace.swf"]
				  machine  m
				  contract kunkel_fixed
				  policy   [fcfs, easy] baseline easy
				}`},
			want: `experiment e dims=[workload policy] baseline=policy:easy
				  site_a-fcfs [workload=site_a policy=fcfs] vs site_a-easy
				  site_a-easy [workload=site_a policy=easy]
				  site_b-fcfs [workload=site_b policy=fcfs] vs site_b-easy
				  site_b-easy [workload=site_b policy=easy]`,
		},
		{
			name: "labels in a param's list, some values unlabelled, a baseline by label",
			files: map[string]string{"main.pwr": header + `
				param load = [low = 60%, 75%, high = 90%]
				param pol = [plain = fcfs, easy]
				experiment e {
				  workload synthetic { jobs 10; load load }
				  machine  m
				  contract kunkel_fixed
				  policy   pol
				  baseline load = high
				}`},
			want: `experiment e dims=[load pol] baseline=load:high
				  low-plain [load=low pol=plain] vs high-plain
				  low-easy [load=low pol=easy] vs high-easy
				  75%-plain [load=75% pol=plain] vs high-plain
				  75%-easy [load=75% pol=easy] vs high-easy
				  high-plain [load=high pol=plain]
				  high-easy [load=high pol=easy]`,
		},
		{
			name: "--set a labelled list of paths",
			files: map[string]string{"main.pwr": header + `
				param trace = "x.swf"
				experiment e { workload swf trace; machine m; contract kunkel_fixed; policy easy }`},
			opts: compiler.Options{Sets: []compiler.Set{{Name: "trace", Value: `[a = siteA/trace.swf, b = "siteB/trace.swf"]`}}},
			want: `experiment e dims=[trace]
				  a [trace=a]
				  b [trace=b]`,
		},
		{
			name: "--set a labelled list of quantities",
			files: map[string]string{"main.pwr": header + `
				param load = 50%
				experiment e { workload synthetic { jobs 10; load load }; machine m; contract kunkel_fixed; policy easy }`},
			opts: compiler.Options{Sets: []compiler.Set{{Name: "load", Value: `[low=60%, high=90%]`}}},
			want: `experiment e dims=[load]
				  low [load=low]
				  high [load=high]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := compileOK(t, "main.pwr", tc.files, tc.opts)
			if got, want := layout(p), trimLines(tc.want); got != want {
				t.Errorf("plan layout\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// onlyRun compiles a scenario with a single run and returns it.
func onlyRun(t *testing.T, files map[string]string, opts compiler.Options) *runtime.Run {
	t.Helper()
	p := compileOK(t, "main.pwr", files, opts)
	if len(p.Runs) != 1 {
		t.Fatalf("want 1 run, got %d", len(p.Runs))
	}
	return p.Runs[0]
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestUnitConversions(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": `
		machine m {
		  nodes 4
		  power { off 0.5 W; idle 0.07 kW; busy 0.00026 MW; boot 1 W; shutdown 2 W }
		  infrastructure 1.3 MW
		  boot 2 min
		  shutdown 1500 ms
		}
		contract c { flat 145 EUR/MWh }
		policy p { shutdown idle after 1.5 h }
		experiment e {
		  workload synthetic { jobs 10; load 85%; runtime 1 d }
		  machine m
		  contract c
		  policy p
		}`}, compiler.Options{})
	checks := []struct {
		what      string
		got, want float64
	}{
		{"off", r.Machine.Power.Off, 0.5},
		{"idle kW→W", r.Machine.Power.Idle, 70},
		{"busy MW→W", r.Machine.Power.Busy, 260},
		{"boot power", r.Machine.Power.Boot, 1},
		{"shutdown power", r.Machine.Power.Shutdown, 2},
		{"infrastructure MW→W", r.Machine.Infrastructure, 1.3e6},
		{"boot min→s", r.Machine.BootTime, 120},
		{"shutdown ms→s", r.Machine.ShutdownTime, 1.5},
		{"EUR/MWh→EUR/kWh", r.Contract.Price, 0.145},
		{"h→s", r.Policy.Shutdown.After, 5400},
		{"%→fraction", r.Workload.Synthetic.Load, 0.85},
		{"d→s", r.Workload.Synthetic.MeanRuntime, 86400},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	if r.Contract.Kind != runtime.Flat || r.Contract.Currency != "EUR" {
		t.Errorf("contract: kind %v currency %q", r.Contract.Kind, r.Contract.Currency)
	}
}

func TestDefaults(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": `
		machine m { nodes 4; power { idle 70 W; busy 260 W } }
		contract c { flat 0.1 USD/kWh }
		policy p { backfill easy }
		experiment e { workload synthetic { jobs 10 }; machine m; contract c; policy p }`}, compiler.Options{})
	if r.Machine.Power.Boot != 70 || r.Machine.Power.Shutdown != 70 {
		t.Errorf("transition powers default to idle: got boot %v, shutdown %v", r.Machine.Power.Boot, r.Machine.Power.Shutdown)
	}
	if r.Machine.Cores != 1 || r.Machine.Power.Off != 0 {
		t.Errorf("cores %d, off %v", r.Machine.Cores, r.Machine.Power.Off)
	}
	if r.Contract.Currency != "USD" {
		t.Errorf("currency %q", r.Contract.Currency)
	}
	if r.Policy.Order != nil || r.Policy.Admit != nil || r.Policy.Shutdown != nil || r.Policy.Backfill != runtime.EASY {
		t.Errorf("policy %+v", r.Policy)
	}
	if r.Workload.Synthetic.Jobs != 10 || r.Workload.Synthetic.Load != 0.8 {
		t.Errorf("synthetic %+v", r.Workload.Synthetic)
	}
}

func TestSetOverrides(t *testing.T) {
	files := map[string]string{"main.pwr": `import "std/policies"
		import "std/kunkel"
		param trace = "default.swf"
		param nodes = 64
		param pol = easy
		machine big { nodes nodes; power { idle 1 W; busy 2 W } }
		experiment e { workload swf trace; machine big; contract kunkel_fixed; policy pol }`}
	r := onlyRun(t, files, compiler.Options{})
	if r.Machine.Nodes != 64 || r.Workload.Path != "default.swf" || r.Policy.Name != "easy" {
		t.Fatalf("defaults: nodes %d, path %q, policy %q", r.Machine.Nodes, r.Workload.Path, r.Policy.Name)
	}
	r = onlyRun(t, files, compiler.Options{Sets: []compiler.Set{
		{Name: "nodes", Value: "256"},
		{Name: "trace", Value: "data/traces/KTH-SP2.swf.gz"}, // a path without quotes
		{Name: "pol", Value: "fcfs"},
	}})
	if r.Machine.Nodes != 256 {
		t.Errorf("nodes: got %d, want 256", r.Machine.Nodes)
	}
	if r.Workload.Path != filepath.FromSlash("data/traces/KTH-SP2.swf.gz") || r.Workload.Name != "KTH-SP2" {
		t.Errorf("trace: path %q name %q", r.Workload.Path, r.Workload.Name)
	}
	if r.Policy.Name != "fcfs" {
		t.Errorf("policy: %q", r.Policy.Name)
	}
	// A string param takes any value as written, even without a file
	// extension or with spaces.
	r = onlyRun(t, files, compiler.Options{Sets: []compiler.Set{{Name: "trace", Value: " my trace "}}})
	if r.Workload.Path != "my trace" {
		t.Errorf("trace: %q", r.Workload.Path)
	}
	// A list of unquoted paths sweeps.
	p := compileOK(t, "main.pwr", files, compiler.Options{Sets: []compiler.Set{{Name: "trace", Value: `[a.swf, traces/b.swf.gz, "c d.swf"]`}}})
	if got := layout(p); got != trimLines(`experiment e dims=[trace]
		  a [trace=a]
		  b [trace=b]
		  c_d [trace=c d]`) {
		t.Errorf("trace sweep:\n%s", got)
	}
	if p.Runs[1].Workload.Path != filepath.FromSlash("traces/b.swf.gz") {
		t.Errorf("path %q", p.Runs[1].Workload.Path)
	}
	// A quoted path works too, and a later --set wins.
	r = onlyRun(t, files, compiler.Options{Sets: []compiler.Set{
		{Name: "trace", Value: `"a.swf"`}, {Name: "trace", Value: `"b.swf"`},
	}})
	if r.Workload.Path != "b.swf" {
		t.Errorf("trace: %q", r.Workload.Path)
	}
}

func TestParamOverriddenByRoot(t *testing.T) {
	// lib.pwr declares nodes = 4; the root file's default wins, whether it
	// is written before or after the import. Paths in a param's value are
	// relative to the file that writes them.
	for _, order := range []string{"import first", "param first"} {
		t.Run(order, func(t *testing.T) {
			decl := "param nodes = 8\nparam kunkel_prices = \"prices/T1.csv\"\n"
			imp := "import \"lib/lib.pwr\"\nimport \"std/policies\"\nimport \"std/kunkel\"\n"
			root := imp + decl
			if order == "param first" {
				root = decl + imp
			}
			files := map[string]string{
				"sub/main.pwr": root + `experiment e { workload synthetic { jobs 10 }; machine libm; contract kunkel_hourly; policy easy }`,
				"sub/lib/lib.pwr": `param nodes = 4
					machine libm { nodes nodes; power { idle 1 W; busy 2 W } }`,
			}
			p := compileOK(t, "sub/main.pwr", files, compiler.Options{})
			r := p.Runs[0]
			if r.Machine.Nodes != 8 {
				t.Errorf("nodes: got %d, want the root's 8", r.Machine.Nodes)
			}
			if want := filepath.FromSlash("sub/prices/T1.csv"); r.Contract.Prices != want {
				t.Errorf("prices: got %q, want %q", r.Contract.Prices, want)
			}
		})
	}
}

func TestInheritance(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": `
		import "std/machines"
		import "std/policies"
		machine site from mistral {
		  nodes 100
		  infrastructure 85 W per node
		}
		contract base {
		  peak 06:00..22:00 at 0.2 EUR/kWh
		  otherwise 0.1 EUR/kWh
		}
		contract evening from base {
		  peak 17:00..20:00 at 0.3 EUR/kWh
		  peak 07:00..09:00 on mon..fri at 0.3 EUR/kWh
		}
		policy mine from easy_shutdown {
		  shutdown idle after 10 min
		}
		experiment e { workload synthetic { jobs 10 }; machine site; contract evening; policy mine }`}, compiler.Options{})
	m := r.Machine
	if m.Name != "site" || m.Nodes != 100 || m.Cores != 24 || m.Power.Idle != 70 || m.Power.Busy != 260 {
		t.Errorf("machine: %+v", m)
	}
	if m.Infrastructure != 0 || m.InfrastructurePerNode != 85 {
		t.Errorf("infrastructure: %v + %v per node", m.Infrastructure, m.InfrastructurePerNode)
	}
	k := r.Contract
	if k.Kind != runtime.BasePeak || len(k.Peak) != 2 || k.PeakPrice != 0.3 || k.BasePrice != 0.1 {
		t.Fatalf("contract: %+v", k)
	}
	if k.Peak[0].From != 17*3600 || k.Peak[0].To != 20*3600 || k.Peak[0].Days != 0 {
		t.Errorf("first window: %+v", k.Peak[0])
	}
	if k.Peak[1].From != 7*3600 || k.Peak[1].Days != 0b0111110 {
		t.Errorf("second window: %+v (days %07b)", k.Peak[1], k.Peak[1].Days)
	}
	p := r.Policy
	if p.Name != "mine" || p.Backfill != runtime.EASY || p.Estimate != runtime.Requested || p.Shutdown == nil || p.Shutdown.After != 600 || p.Order == nil {
		t.Errorf("policy: %+v", p)
	}
}

func TestDerivedContractChangesScheme(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": header + `
		contract spot from kunkel_basepeak { hourly "T1.csv" }
		experiment e { workload synthetic { jobs 10 }; machine m; contract spot; policy easy }`}, compiler.Options{})
	if r.Contract.Kind != runtime.Hourly || r.Contract.Prices != "T1.csv" || len(r.Contract.Peak) != 0 {
		t.Errorf("contract: %+v", r.Contract)
	}
}

func TestInlineDeclarations(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": `
		import "std/policies"
		experiment e {
		  workload synthetic { jobs 10 }
		  machine { nodes 8; power { idle 1 W; busy 2 W } }
		  contract { flat 0.2 EUR/kWh }
		  policy from easy { shutdown idle after 0 s }
		}`}, compiler.Options{})
	r := p.Runs[0]
	if r.Machine.Nodes != 8 || r.Contract.Price != 0.2 || r.Policy.Backfill != runtime.EASY || r.Policy.Shutdown == nil {
		t.Errorf("run: machine %+v contract %+v policy %+v", r.Machine, r.Contract, r.Policy)
	}
	if r.Machine.Name != "e" || r.Contract.Name != "e" || r.Policy.Name != "e" {
		t.Errorf("inline declarations take the experiment's name: %q %q %q", r.Machine.Name, r.Contract.Name, r.Policy.Name)
	}
}

func TestRules(t *testing.T) {
	r := onlyRun(t, map[string]string{"main.pwr": header + `
		policy p {
		  order    job.submit
		  priority job.wait / max(job.walltime, 60) + (peak ? 0 : 1)
		  admit    !(peak && job.power_per_node > 300) || system.free > 10
		}
		experiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy p }`}, compiler.Options{})
	p := r.Policy
	if p.Order == nil || p.Priority == nil || p.Admit == nil {
		t.Fatalf("rules missing: %+v", p)
	}
	if p.Order.Deps != runtime.DepJob || p.Order.Deps.Dynamic() {
		t.Errorf("order deps %b", p.Order.Deps)
	}
	if p.Order.Field != runtime.FieldSubmit || p.Priority.Field != 0 || p.Admit.Field != 0 {
		t.Errorf("the rule that is a job field alone: order %b, priority %b, admit %b; want job.submit's, none, none", p.Order.Field, p.Priority.Field, p.Admit.Field)
	}
	if want := runtime.DepJob | runtime.DepWait | runtime.DepPeak; p.Priority.Deps != want {
		t.Errorf("priority deps %b, want %b", p.Priority.Deps, want)
	}
	env := &runtime.Env{Job: runtime.JobEnv{Submit: 5, Wait: 120, Walltime: 30, PowerPerNode: 400}, Peak: true, System: runtime.SystemEnv{Free: 3}}
	if got := p.Order.Num(env); got != 5 {
		t.Errorf("order = %v", got)
	}
	if got := p.Priority.Num(env); got != 2 {
		t.Errorf("priority = %v, want 120/60 + 0", got)
	}
	if p.Admit.Bool(env) {
		t.Error("admit should refuse a power-hungry job at peak with few free nodes")
	}
	if !strings.HasPrefix(p.Priority.Where, "main.pwr:") || p.Priority.Source != "job.wait / max(job.walltime, 60) + (peak ? 0 : 1)" {
		t.Errorf("where %q source %q", p.Priority.Where, p.Priority.Source)
	}
}

func TestSeedsStable(t *testing.T) {
	scenario := func(policies string) map[string]string {
		return map[string]string{"main.pwr": header + `
			experiment e { seed 7; workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy ` + policies + ` }`}
	}
	a := compileOK(t, "main.pwr", scenario("[fcfs, easy]"), compiler.Options{})
	b := compileOK(t, "main.pwr", scenario("[fcfs, easy]"), compiler.Options{})
	c := compileOK(t, "main.pwr", scenario("[easy_exact, easy, fcfs]"), compiler.Options{})
	seeds := map[string]uint64{}
	for i, r := range a.Runs {
		if r.Seed != b.Runs[i].Seed || r.Name != b.Runs[i].Name {
			t.Errorf("run %d differs between two compilations", i)
		}
		seeds[r.Name] = r.Seed
	}
	if seeds["fcfs"] == seeds["easy"] {
		t.Error("runs share a seed")
	}
	// A run's seed depends on what it is, not on its place in the sweep.
	for _, r := range c.Runs {
		if s, ok := seeds[r.Name]; ok && s != r.Seed {
			t.Errorf("run %s: seed changed from %d to %d when the sweep changed", r.Name, s, r.Seed)
		}
	}
	// All runs of an experiment replay the same synthetic workload.
	if a.Runs[0].Workload.Synthetic.Seed != a.Runs[1].Workload.Synthetic.Seed {
		t.Error("synthetic workload seeds differ between runs of one experiment")
	}
	// Seeds are part of reproducibility: pin one value, so that a change to
	// the derivation is deliberate.
	if got, want := seeds["easy"], uint64(10842450193050859767); got != want {
		t.Errorf("seed of run easy: got %d, want %d", got, want)
	}
	d := compileOK(t, "main.pwr", map[string]string{"main.pwr": strings.Replace(scenario("[fcfs, easy]")["main.pwr"], "seed 7", "seed 8", 1)}, compiler.Options{})
	if d.Runs[0].Seed == a.Runs[0].Seed {
		t.Error("the experiment seed does not change run seeds")
	}
}

// TestShippedScenarios compiles every example and standard module: they
// must be free of errors and warnings alike.
func TestShippedScenarios(t *testing.T) {
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*.pwr"))
	if len(examples) == 0 {
		t.Fatal("no examples found")
	}
	for _, path := range examples {
		t.Run(filepath.Base(path), func(t *testing.T) {
			// The examples name the shared data set where it lies beside
			// the repository; where it lies elsewhere ($PWRC_DATA) its files
			// are read there, and without it (a clone on its own) they stand
			// in as stubs.
			opts := compiler.Options{OpenData: func(p string) (io.ReadCloser, error) {
				f, err := os.Open(p)
				_, rest, shared := strings.Cut(filepath.ToSlash(p), "shared/data/")
				if err == nil || !shared {
					return f, err
				}
				if d := testenv.DataDir(); d != "" {
					return os.Open(filepath.Join(d, rest))
				}
				return stubData(nil)(p)
			}}
			res := compiler.Compile(path, opts)
			if len(res.Diags) > 0 {
				var b bytes.Buffer
				_ = res.Diags.Write(&b, res.Sources)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
			if res.Plan == nil || len(res.Plan.Runs) == 0 {
				t.Fatal("no runs")
			}
		})
	}
	for _, mod := range stdlib.Modules() {
		t.Run(mod, func(t *testing.T) {
			src, ok := stdlib.Read(mod)
			if !ok {
				t.Fatalf("cannot read %s", mod)
			}
			// Compiled as a root file, a module's own declarations are all
			// checked and its params must be used.
			res := compileFiles("mod.pwr", map[string]string{"mod.pwr": string(src)}, compiler.Options{})
			if len(res.Diags) > 0 {
				var b bytes.Buffer
				_ = res.Diags.Write(&b, res.Sources)
				t.Fatalf("diagnostics:\n%s", b.String())
			}
		})
	}
}

// TestRulesReadParams checks that a rule reading a param sees the value of
// each run, in SI units, and that a swept param compiles once per value.
func TestRulesReadParams(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + `
		param big = [2, 3]
		param long = 10 min
		param frac = 0.5
		policy p {
		  admit    peak || job.nodes <= big
		  priority job.wait > long ? frac : 0
		}
		experiment e { workload synthetic { jobs 10 }; machine m; contract kunkel_fixed; policy p }`}, compiler.Options{})
	if len(p.Runs) != 2 {
		t.Fatalf("want a run per value of big, got %d", len(p.Runs))
	}
	env := &runtime.Env{Job: runtime.JobEnv{Nodes: 3, Wait: 601}}
	if p.Runs[0].Policy.Admit.Bool(env) || !p.Runs[1].Policy.Admit.Bool(env) {
		t.Errorf("admit peak || job.nodes <= big with 3 nodes: big=2 gives %v, big=3 gives %v",
			p.Runs[0].Policy.Admit.Bool(env), p.Runs[1].Policy.Admit.Bool(env))
	}
	if p.Runs[0].Policy.Admit.Deps != runtime.DepJob|runtime.DepPeak {
		t.Errorf("admit deps %b: a param is a constant", p.Runs[0].Policy.Admit.Deps)
	}
	if got := p.Runs[0].Policy.Priority.Num(env); got != 0.5 {
		t.Errorf("priority with wait 601 s > 10 min = %v, want 0.5", got)
	}
	env.Job.Wait = 599
	if got := p.Runs[0].Policy.Priority.Num(env); got != 0 {
		t.Errorf("priority with wait 599 s = %v, want 0", got)
	}
	if p.Runs[0].Policy.Priority != p.Runs[1].Policy.Priority {
		t.Error("a rule whose params do not change between runs should be compiled once")
	}
}

// TestSweptSeedAndWindow checks that the experiment's own fields read
// swept params per run: a swept seed draws a different workload per run,
// and a swept accounting window differs per run.
func TestSweptSeedAndWindow(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + `
		param seeds = [1, 2]
		param until = [10 d, 20 d]
		experiment e {
		  workload synthetic { jobs 10 }
		  machine m
		  contract kunkel_fixed
		  policy easy
		  seed seeds
		  account 0 d .. until
		}`}, compiler.Options{})
	if len(p.Runs) != 4 {
		t.Fatalf("want 2 seeds × 2 windows, got %d runs:\n%s", len(p.Runs), layout(p))
	}
	seen := map[uint64]bool{}
	for _, r := range p.Runs {
		seen[r.Workload.Synthetic.Seed] = true
	}
	if len(seen) != 2 {
		t.Errorf("a swept seed must give 2 workloads, got %d distinct seeds", len(seen))
	}
	if p.Runs[0].Account.To.Offset != 10*86400 || p.Runs[1].Account.To.Offset != 20*86400 {
		t.Errorf("windows %v %v", p.Runs[0].Account, p.Runs[1].Account)
	}
}

// `freq` alone is a column per pstate of the experiment's machines,
// fastest first; `freq(2.0 GHz)` the one.
func TestReportFreqColumns(t *testing.T) {
	src := `import "std/policies"
import "std/kunkel"
import "std/machines"
machine two { nodes 4; power { idle 1 W; pstate 3 GHz 4 W; pstate 2.0 GHz 3 W; slowdown 1.2 at 2.0 GHz } }
experiment e {
  workload synthetic { jobs 10 }
  machine [curie, two]
  contract kunkel_fixed
  policy easy
  report freq, freq(2.0 GHz)
}
`
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": src}, compiler.Options{})
	want := "freq:3000 freq:2700 freq:2400 freq:2200 freq:2000 freq:1800 freq:1600 freq:1400 freq:1200 freq:2000"
	if got := strings.Join(p.Experiments[0].Report, " "); got != want {
		t.Errorf("report keys %s, want %s", got, want)
	}
}

// TestLabelledWorkloads: a label names the workload of its runs (tables,
// notes, JSON), and the run reads the labelled file.
func TestLabelledWorkloads(t *testing.T) {
	p := compileOK(t, "main.pwr", map[string]string{"main.pwr": header + `
		param load = [busy = 90%, 50%]
		experiment e {
		  workload swf [site_a = "a/trace.swf", site_b = "b/trace.swf.gz"]
		  machine  m
		  contract kunkel_fixed
		  policy   easy
		}
		experiment s { workload synthetic { jobs 10; load load }; machine m; contract kunkel_fixed; policy easy }`}, compiler.Options{})
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Name+":"+r.Workload.Name+":"+filepath.ToSlash(r.Workload.Path))
	}
	want := "e-site_a:site_a:a/trace.swf e-site_b:site_b:b/trace.swf.gz s-busy:synthetic: s-50%:synthetic:"
	if strings.Join(got, " ") != want {
		t.Errorf("runs %q, want %q", strings.Join(got, " "), want)
	}
	if p.Runs[2].Workload.Synthetic.Load != 0.9 || p.Runs[3].Workload.Synthetic.Load != 0.5 {
		t.Errorf("loads %v, %v", p.Runs[2].Workload.Synthetic.Load, p.Runs[3].Workload.Synthetic.Load)
	}
}
