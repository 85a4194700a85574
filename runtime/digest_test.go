package runtime_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime"
)

var updateDigests = flag.Bool("update-digests", false, "rewrite testdata/digests.txt from the current schedules (only for a deliberate change of behaviour)")

// digestScenarios are whole scenarios whose schedules and energy are
// pinned by digest: any change to the engine that is meant to keep
// behaviour (a refactor, a faster pass) must leave every digest unchanged.
// Real traces are added when the shared data set is present.
var digestScenarios = []struct {
	name string
	file string
	sets []string // NAME=VALUE
	data bool     // needs the shared data set
}{
	{"quickstart", "../examples/quickstart.pwr", nil, false},
	{"zhou_bgp", "../examples/zhou_bgp.pwr", nil, false},
	{"features", "testdata/digest_features.pwr", nil, false},
	{"levels", "testdata/digest_levels.pwr", nil, false},
	{"stages", "testdata/digest_stages.pwr", nil, false},
	{"curie_levels", "testdata/digest_curie.pwr", []string{"trace=traces/CEA-Curie-2011-2.1-cln.swf.gz"}, true},
	{"patil_racks_HPC2N", "../examples/patil_racks.pwr", []string{"trace=traces/HPC2N-2002-2.1-cln.swf.gz"}, true},
	{"kunkel_billing_KTH", "../examples/kunkel_billing.pwr", []string{"trace=traces/KTH-SP2-1996-2.1-cln.swf.gz", "kunkel_prices=prices/T1.csv"}, true},
	{"replay_HPC2N_easy", "../examples/replay.pwr", []string{"trace=traces/HPC2N-2002-2.1-cln.swf.gz", "policy=easy"}, true},
	{"replay_SDSC-BLUE_fcfs", "../examples/replay.pwr", []string{"trace=traces/SDSC-BLUE-2000-4.2-cln.swf.gz", "policy=fcfs"}, true},
	{"replay_Curie_easy_exact", "../examples/replay.pwr", []string{"trace=traces/CEA-Curie-2011-2.1-cln.swf.gz", "policy=easy_exact"}, true},
	{"zhou_trace_KTH", "../examples/zhou_trace.pwr", []string{"trace=traces/KTH-SP2-1996-2.1-cln.swf.gz"}, true},
}

// TestScheduleDigests runs each scenario and compares a digest of every
// run's schedule (job ids, starts, ends, allocations, power) and of its
// energy and cost by component and tariff period with
// testdata/digests.txt. Update with -update-digests, after checking why
// the schedules changed.
func TestScheduleDigests(t *testing.T) {
	path := filepath.Join("testdata", "digests.txt")
	want := readDigests(t, path)
	got := map[string]string{}
	dataDir := testenv.DataDir()
	skipped := map[string]bool{}
	for _, sc := range digestScenarios {
		if sc.data && dataDir == "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s: shared data not found in CI", sc.name)
			}
			skipped[sc.name] = true
			continue
		}
		var sets []compiler.Set
		for _, s := range sc.sets {
			name, value, _ := strings.Cut(s, "=")
			if name == "trace" || name == "kunkel_prices" {
				value = filepath.Join(dataDir, value)
			}
			sets = append(sets, compiler.Set{Name: name, Value: value})
		}
		res := compiler.Compile(sc.file, compiler.Options{Sets: sets})
		if res.Plan == nil {
			var b strings.Builder
			_ = res.Diags.Write(&b, res.Sources)
			t.Fatalf("%s: %s", sc.name, b.String())
		}
		results := runtime.Execute(context.Background(), res.Plan, runtime.Options{Workers: 2, KeepJobs: true})
		for _, r := range results {
			key := sc.name + " " + r.Run.Name
			if r.Err != nil {
				t.Errorf("%s: %v", key, r.Err)
				continue
			}
			got[key] = digest(r)
		}
	}
	if *updateDigests {
		// Keep the digests of scenarios that were skipped (no data here).
		for k, v := range want {
			if _, ok := got[k]; !ok {
				got[k] = v
			}
		}
		writeDigests(t, path, got)
		return
	}
	for k, g := range got {
		w, ok := want[k]
		switch {
		case !ok:
			t.Errorf("%s: no digest recorded (run with -update-digests)", k)
		case w != g:
			t.Errorf("%s: schedule or energy changed: digest %s, recorded %s", k, g, w)
		}
	}
	for k := range want {
		scenario, _, _ := strings.Cut(k, " ")
		if _, ok := got[k]; !ok && !skipped[scenario] {
			t.Errorf("%s: recorded but not run", k)
		}
	}
}

func digest(r *runtime.Result) string {
	h := sha256.New()
	var buf [8]byte
	put := func(x float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	for _, j := range r.Jobs {
		put(float64(j.ID))
		put(j.Start)
		put(j.End)
		put(float64(j.Alloc))
		put(j.Power)
		if j.NodeList != "" || j.PState != 0 { // (absent before node identities: old digests hold)
			h.Write([]byte(j.NodeList))
			put(float64(j.PState))
		}
	}
	m := r.Metrics
	for i := range m.EnergyBy {
		put(m.EnergyBy[i])
		put(m.CostBy[i])
	}
	for _, p := range m.Periods {
		h.Write([]byte(p.Name))
		put(p.Energy)
		put(p.Cost)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func readDigests(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		if *updateDigests {
			return out
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:]
	}
	return out
}

func writeDigests(t *testing.T, path string, d map[string]string) {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# scenario run digest — see TestScheduleDigests; regenerate with go test ./runtime -run TestScheduleDigests -update-digests\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, d[k])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
