package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pwrc/pwrc/internal/refsim"
	"github.com/pwrc/pwrc/internal/testenv"
	"github.com/pwrc/pwrc/runtime/workload"
)

// TestReplayMatchesReference runs the whole path a user runs —
// examples/replay.pwr through the compiler, runtime and --jobs CSV — and
// checks every job's start time against the independent reference
// simulator, for each basic policy.
func TestReplayMatchesReference(t *testing.T) {
	trace := testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")
	tr, err := workload.OpenSWF(trace, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := workload.Clean(tr, workload.Cleaning{Cores: 1, Nodes: tr.Header.MaxProcs})
	for _, c := range []struct{ policy, ref string }{{"easy_exact", "easy"}, {"easy", "easy"}, {"fcfs", "fcfs"}} {
		t.Run(c.policy, func(t *testing.T) {
			dir := t.TempDir()
			_, errOut, code := pwrc(t, "run", "../../examples/replay.pwr", "--set", "trace="+trace, "--set", "policy="+c.policy, "--jobs", dir)
			if code != 0 {
				t.Fatal(errOut)
			}
			rows := readCSV(t, filepath.Join(dir, "replay.csv"))
			if len(rows)-1 != len(jobs) {
				t.Fatalf("%d job rows, want %d", len(rows)-1, len(jobs))
			}
			in := make([]refsim.Job, len(jobs))
			for i, j := range jobs {
				est := j.Walltime
				if c.policy == "easy_exact" {
					est = j.Runtime
				}
				in[i] = refsim.Job{Submit: j.Submit, Runtime: j.Runtime, Estimate: est, Nodes: j.Nodes}
			}
			want, err := refsim.Simulate(in, tr.Header.MaxProcs, c.ref)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, row := range rows[1:] {
				id, _ := strconv.ParseInt(row[0], 10, 64)
				start, _ := strconv.ParseFloat(row[2], 64)
				j := jobs[i]
				if got, trace := strings.Join(row[10:14], ","), fmt.Sprintf("%s,%s,%s,%s", known(int(j.User)), known(int(j.Group)), known(int(j.Queue)), known(int(j.Partition))); got != trace {
					if bad < 5 {
						t.Errorf("row %d: user,group,queue,partition = %s, the trace says %s", i+1, got, trace)
					}
					bad++
				}
				if id != jobs[i].ID || start != want[i] {
					if bad < 5 {
						t.Errorf("row %d: job %s starts at %s; the reference says job %d at %v", i+1, row[0], row[2], jobs[i].ID, want[i])
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d jobs differ", bad, len(jobs))
			}
		})
	}
}

// TestKunkelBillingOnKTH: the billing example replays KTH under three
// schedulers and three cost models. Shutting idle nodes off must save
// energy against EASY under every cost model, FCFS must make users wait far
// longer than EASY, and the table must say what cleaning did.
func TestKunkelBillingOnKTH(t *testing.T) {
	d := testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz")
	prices := testenv.Data(t, "prices/T1.csv")
	args := []string{"run", "../../examples/kunkel_billing.pwr", "--set", "trace=" + d, "--set", "kunkel_prices=" + prices}
	table, errOut, code := pwrc(t, args...)
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"9 dropped (8 with run time ≤ 0, 1 without processors)", "475 run times capped at the requested time"} {
		if !strings.Contains(table, want) {
			t.Errorf("table does not say %q:\n%s", want, table)
		}
	}
	out, _, _ := pwrc(t, append(args, "--format", "json")...)
	var runs []struct {
		Params  map[string]string
		Metrics map[string]any
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 9 {
		t.Fatalf("%d runs, want 9", len(runs))
	}
	metric := map[[2]string]map[string]any{}
	for _, r := range runs {
		metric[[2]string{r.Params["contract"], r.Params["policy"]}] = r.Metrics
	}
	for _, k := range []string{"kunkel_fixed", "kunkel_basepeak", "kunkel_hourly"} {
		easy, off, fcfs := metric[[2]string{k, "easy"}], metric[[2]string{k, "easy_shutdown"}], metric[[2]string{k, "fcfs"}]
		if !(off["energy_mwh"].(float64) < easy["energy_mwh"].(float64)) {
			t.Errorf("%s: easy_shutdown uses %v MWh, easy %v", k, off["energy_mwh"], easy["energy_mwh"])
		}
		if !(off["saving"].(float64) > 0) {
			t.Errorf("%s: easy_shutdown saves %v against easy", k, off["saving"])
		}
		if fw, ew := fcfs["wait_mean_s"].(float64), easy["wait_mean_s"].(float64); !(fw > 10*ew) {
			t.Errorf("%s: mean wait under FCFS %.0f s is not far above EASY's %.0f s", k, fw, ew)
		}
	}
}

// known is how --jobs writes a trace field: empty for -1 (unknown).
func known(v int) string {
	if v == -1 {
		return ""
	}
	return strconv.Itoa(v)
}
