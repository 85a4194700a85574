package runtime

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/pwrc/pwrc/runtime/workload"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output (then check them by hand)")

// TestHandWorkedSchedules replays the small traces in testdata/schedules,
// whose expected schedules were worked out by hand (each file explains the
// derivation), under FCFS, EASY and EASY with exact estimates.
func TestHandWorkedSchedules(t *testing.T) {
	files, _ := filepath.Glob("testdata/schedules/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden schedules found")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, f := range ar.Files {
				sec[f.Name] = f.Data
			}
			nodes, err := strconv.Atoi(strings.TrimSpace(string(sec["nodes"])))
			if err != nil {
				t.Fatalf("nodes section: %v", err)
			}
			tr, err := workload.ReadSWF("trace.swf", bytes.NewReader(sec["trace.swf"]), workload.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			jobs, st := workload.Clean(tr, workload.Cleaning{Cores: 1, Nodes: nodes})
			if want, ok := sec["clean"]; ok {
				if got := cleanSummary(st); got != strings.TrimSpace(string(want)) {
					t.Errorf("cleaning: got %q, want %q", got, strings.TrimSpace(string(want)))
				}
			}
			for _, p := range basicPolicies {
				s := replay(t, jobs, nodes, p.pol)
				var got strings.Builder
				for i, j := range jobs {
					fmt.Fprintf(&got, "%d %s %s\n", j.ID, fmtTime(s.start[i]), fmtTime(s.end[i]))
				}
				if *update {
					for i := range ar.Files {
						if ar.Files[i].Name == p.name {
							ar.Files[i].Data = []byte(got.String())
						}
					}
					continue
				}
				compareWithReference(t, jobs, nodes, p.pol, p.ref)
				want, ok := sec[p.name]
				if !ok {
					t.Fatalf("no %s section", p.name)
				}
				if got.String() != string(want) {
					t.Errorf("%s schedule (id start end):\ngot:\n%swant:\n%s", p.name, got.String(), want)
				}
			}
			if *update {
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func fmtTime(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

func cleanSummary(st workload.CleanStats) string {
	parts := []string{fmt.Sprintf("records %d", st.Records), fmt.Sprintf("jobs %d", st.Jobs)}
	for _, x := range []struct {
		n    int
		name string
	}{
		{st.DroppedRuntime, "dropped runtime"}, {st.DroppedProcs, "dropped procs"}, {st.DroppedSubmit, "dropped submit"},
		{st.DroppedWide, "dropped wide"}, {st.RuntimeCapped, "run times capped"}, {st.WalltimeFromRuntime, "walltime from runtime"},
	} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", x.name, x.n))
		}
	}
	return strings.Join(parts, ", ")
}
