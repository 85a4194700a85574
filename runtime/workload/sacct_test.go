package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	_ "time/tzdata" // Europe/Berlin wherever the tests run
)

func berlin(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// readSacctString reads s as sacct output named x.txt.
func readSacctString(s string, opt SacctOptions) (*Trace, error) {
	return ReadSacct("x.txt", strings.NewReader(s), opt)
}

// checkSacct checks what must hold of any trace ReadSacct returns, and
// that Clean takes it.
func checkSacct(t *testing.T, tr *Trace, opt SacctOptions) {
	t.Helper()
	if tr.Sacct == nil {
		t.Fatalf("no SacctInfo")
	}
	st := tr.Sacct.Stats
	if st.Jobs != len(tr.Records) || st.Lines != st.JobLines+st.StepLines+st.OrphanSteps ||
		st.JobLines != st.Jobs+st.Dropped()+st.HetFolded {
		t.Fatalf("counts do not add up: %+v, %d records", st, len(tr.Records))
	}
	if !opt.SkipBadLines && tr.BadLines != 0 || len(tr.FirstBad) != min(tr.BadLines, maxFirstBad) {
		t.Fatalf("bad lines %d, first %v", tr.BadLines, tr.FirstBad)
	}
	for i := 1; i < len(tr.FirstBad); i++ {
		if tr.FirstBad[i] <= tr.FirstBad[i-1] {
			t.Fatalf("first bad lines out of order: %v", tr.FirstBad)
		}
	}
	if tr.Header.HasStartTime != (len(tr.Records) > 0) {
		t.Fatalf("header %+v with %d records", tr.Header, len(tr.Records))
	}
	measured, first := 0, math.Inf(1)
	inNames := func(id int, names []string) bool { return id == -1 || id >= 1 && id <= len(names) }
	for i, r := range tr.Records {
		if i > 0 && r.Line <= tr.Records[i-1].Line {
			t.Fatalf("record %d: line %d not after %d", i, r.Line, tr.Records[i-1].Line)
		}
		first = min(first, r.Submit)
		switch {
		case !(r.Submit >= 0 && r.Submit <= MaxTime):
			t.Fatalf("record %+v: submit", r)
		case !(r.Runtime == -1 || r.Runtime >= 0 && r.Runtime <= MaxTime):
			t.Fatalf("record %+v: run time", r)
		case !(r.ReqTime == -1 || r.ReqTime >= 0 && r.ReqTime <= MaxTime):
			t.Fatalf("record %+v: requested time", r)
		case !(r.Wait == -1 || r.Wait >= 0 && r.Wait <= MaxTime):
			t.Fatalf("record %+v: wait", r)
		case r.Nodes < 0 || r.AllocProcs < -1 || r.ReqProcs < -1:
			t.Fatalf("record %+v: sizes", r)
		case !(r.Power >= 0 && r.Power <= maxNodePower):
			t.Fatalf("record %+v: power", r)
		case r.Power > 0 && (!(r.Runtime > 0) || r.Nodes == 0):
			t.Fatalf("record %+v: power without run time or nodes", r)
		case r.Status != -1 && r.Status != 0 && r.Status != 1 && r.Status != 5:
			t.Fatalf("record %+v: status", r)
		case !inNames(r.User, tr.Sacct.Names[NameUser]) || !inNames(r.Group, tr.Sacct.Names[NameGroup]) ||
			!inNames(r.Partition, tr.Sacct.Names[NamePartition]) || !inNames(r.QOS, tr.Sacct.Names[NameQOS]) ||
			!inNames(r.Account, tr.Sacct.Names[NameAccount]) || r.Queue != -1:
			t.Fatalf("record %+v: a name number out of range", r)
		}
		if r.Power > 0 {
			measured++
		}
	}
	if len(tr.Records) > 0 && first != 0 {
		t.Fatalf("earliest submit is %v, not 0", first)
	}
	if measured != st.Measured || st.Measured+st.EnergyShared+st.EnergyUnverified+st.EnergyImplausible+st.EnergyNone > st.Jobs {
		t.Fatalf("%d records with power; stats %+v", measured, st)
	}
	jobs, cs := Clean(tr, Cleaning{Cores: max(opt.CPUsPerNode, 1)})
	n := 0
	for _, j := range jobs {
		if j.Power > 0 {
			n++
		}
		if j.Nodes < 1 || j.Runtime <= 0 || j.Walltime < j.Runtime {
			t.Fatalf("cleaned job %+v", j)
		}
	}
	if n != cs.MeasuredPower || cs.Jobs+cs.Dropped() != len(tr.Records) {
		t.Fatalf("clean stats %+v, %d jobs with power", cs, n)
	}
}

func TestReadSacctSample(t *testing.T) {
	loc := berlin(t)
	path := filepath.Join("testdata", "sacct", "jobs.txt")
	opt := SacctOptions{Location: loc, CPUsPerNode: 128}
	tr, err := OpenSacct(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkSacct(t, tr, opt)
	rec := func(id int64, line int, submit, wait, run float64, procs int, reqTime float64, status, user, group, account, part, qos, nodes int, power float64) Record {
		return Record{ID: id, Submit: submit, Wait: wait, Runtime: run, AllocProcs: procs, ReqProcs: procs, ReqTime: reqTime,
			Status: status, User: user, Group: group, Queue: -1, Partition: part, Account: account, QOS: qos, Line: line, Nodes: nodes, Power: power}
	}
	want := []Record{
		rec(4100001, 2, 0, 5, 7200, 256, 93784, 1, 1, 1, 1, 1, 1, 2, 400),
		rec(4100011, 6, 4500, 2, 1800, 128, 1800, 1, 2, 2, 2, 1, 1, 1, 360),
		rec(4100012, 9, 4500, 2, 2250, 128, 2400, 0, 2, 2, 2, 1, 1, 1, 324),
		rec(4100020, 12, 10800, 120, 2880, 640, 3600, 1, 3, 3, 3, 1, 2, 5, 460),
		rec(4100030, 17, 14400, 1800, 14427, 512, 14400, 0, 1, 1, 1, 1, 1, 4, 23000000.0/14427/4),
		rec(4100040, 21, 18000, 1, 42, 16, 7200, 0, 4, 4, 4, 2, 1, 1, 0),
		rec(4100050, 23, 21600, 30, 2110, 128, -1, 5, 5, 2, 2, 3, 1, 1, 735000.0/2110),
		rec(4100090, 31, 28800, 300, 45910, 2048, 172800, 0, 6, 3, 3, 1, 1, 16, 420),
		rec(4100100, 34, 36000, 4, 451.25, 128, 129600, 0, 7, 4, 4, 4, 1, 1, 400),
		rec(4100110, 36, 39600, 1800, 5400, 256, 23400, 5, 8, 2, 2, 5, 3, 2, 175),
		rec(4100120, 38, 64200, 2, 900, 128, 1800, 1, 9, 1, 1, 1, 1, 1, 340),
		rec(4100121, 40, 65400, 1, 600, 128, -1, 1, 9, 1, 1, 1, 1, 1, 0),
		rec(4100130, 41, 68400, 5, 1200, 128, 3600, 1, 2, 2, 2, 1, 1, 1, 0),
		rec(4100140, 43, 88200, 60, 7200, 256, 14400, 1, 1, 1, 5, 6, 2, 2, 400),
	}
	if !reflect.DeepEqual(tr.Records, want) {
		for i := range max(len(want), len(tr.Records)) {
			var g, w Record
			if i < len(tr.Records) {
				g = tr.Records[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("record %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
	wantHeader := Header{UnixStartTime: time.Date(2024, 3, 30, 8, 0, 0, 0, loc).Unix(), HasStartTime: true, TimeZoneString: "Europe/Berlin"}
	if tr.Header != wantHeader || tr.Name != path || tr.BadLines != 0 {
		t.Errorf("header %+v name %q bad %d, want %+v", tr.Header, tr.Name, tr.BadLines, wantHeader)
	}
	wantStats := SacctStats{Lines: 45, JobLines: 21, StepLines: 24, HetFolded: 1, Jobs: 14,
		DroppedPendingArray: 1, DroppedPending: 1, DroppedNotStarted: 3, DroppedUnfinished: 1,
		NoTimelimit: 2, Measured: 11, EnergyShared: 1, EnergyNone: 2}
	if tr.Sacct.Stats != wantStats {
		t.Errorf("stats\n got %+v\nwant %+v", tr.Sacct.Stats, wantStats)
	}
	// The names of the jobs kept, in order of first appearance among them:
	// frank and grace have no job kept; the het job's partition is its
	// leader's (compute), so gpu is first met on line 43.
	names := SacctInfo{Stats: wantStats, Names: Names{
		NameUser:      {"alice", "bob", "carol", "dave", "erin", "heidi", "ivan", "judy", "kim"},
		NameGroup:     {"chem", "phys", "climate", "bio"},
		NameAccount:   {"p-chem", "p-phys", "p-clim", "p-bio", "p-ml"},
		NamePartition: {"compute", "shared", "debug", "bigmem", "scavenger", "gpu"},
		NameQOS:       {"normal", "high", "low"},
	}}
	if !reflect.DeepEqual(*tr.Sacct, names) {
		t.Errorf("names\n got %+v\nwant %+v", *tr.Sacct, names)
	}
	n := &tr.Sacct.Names
	if got := n.Name(NameUser, tr.Records[3].User); got != "carol" {
		t.Errorf("user of the het job: %q", got)
	}
	if n.Name(NameUser, -1) != "" || n.Name(NameQOS, 4) != "" || n.Name(NameQOS, 0) != "" {
		t.Errorf("Name out of range")
	}
	if n.ID(NamePartition, "gpu") != 6 || n.ID(NamePartition, "gpux") != 0 || n.ID(NamePartition, "") != -1 {
		t.Errorf("ID: %d %d %d", n.ID(NamePartition, "gpu"), n.ID(NamePartition, "gpux"), n.ID(NamePartition, ""))
	}

	// End to end: the cleaned jobs take their nodes from NNodes, not from
	// CPUs, and carry the measured powers.
	jobs, cs := Clean(tr, Cleaning{Cores: 128, Nodes: 16})
	wantClean := CleanStats{Records: 14, Jobs: 14, WalltimeFromRuntime: 2, RuntimeCapped: 1, MeasuredPower: 11}
	if cs != wantClean {
		t.Errorf("clean stats %+v, want %+v", cs, wantClean)
	}
	for i, j := range jobs {
		r := want[i]
		if j.ID != r.ID || j.Nodes != r.Nodes || j.Power != r.Power || j.Procs != r.AllocProcs || int(j.Line) != r.Line {
			t.Errorf("job %d: %+v from %+v", i, j, r)
		}
	}
	if j := jobs[4]; j.Runtime != 14400 || j.Walltime != 14400 {
		t.Errorf("timed-out job not cut to its limit: %+v", j)
	}
	if j := jobs[6]; j.Walltime != j.Runtime {
		t.Errorf("unlimited job: walltime %v, run time %v", j.Walltime, j.Runtime)
	}
	if _, cs := Clean(tr, Cleaning{Cores: 128, Nodes: 8}); cs.DroppedWide != 1 || cs.MeasuredPower != 10 {
		t.Errorf("on 8 nodes: %+v", cs)
	}

	// Read in UTC, wall-clock differences across the clock change show:
	// the two night jobs are 80 minutes apart instead of 20, while run
	// times still come from Elapsed.
	utc, err := OpenSacct(path, SacctOptions{CPUsPerNode: 128})
	if err != nil {
		t.Fatal(err)
	}
	if d := utc.Records[11].Submit - utc.Records[10].Submit; d != 4800 {
		t.Errorf("UTC: night jobs %v s apart", d)
	}
	if utc.Records[7].Runtime != 45910 || utc.Header.TimeZoneString != "UTC" ||
		utc.Header.UnixStartTime != time.Date(2024, 3, 30, 8, 0, 0, 0, time.UTC).Unix() {
		t.Errorf("UTC: %+v %+v", utc.Records[7], utc.Header)
	}

	// Whose energy counts.
	for _, c := range []struct {
		opt                          SacctOptions
		measured, shared, unverified int
	}{
		{SacctOptions{Location: loc}, 0, 0, 12},
		{SacctOptions{Location: loc, AssumeExclusive: true}, 12, 0, 0},
		{SacctOptions{Location: loc, AssumeExclusive: true, CPUsPerNode: 64}, 12, 0, 0},
		{SacctOptions{Location: loc, CPUsPerNode: 64}, 0, 12, 0},
		{SacctOptions{Location: loc, CPUsPerNode: 16}, 1, 11, 0},
	} {
		tr, err := OpenSacct(path, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		checkSacct(t, tr, c.opt)
		st := tr.Sacct.Stats
		if st.Measured != c.measured || st.EnergyShared != c.shared || st.EnergyUnverified != c.unverified {
			t.Errorf("%+v: %+v", c.opt, st)
		}
	}
	if tr, _ := OpenSacct(path, SacctOptions{Location: loc, CPUsPerNode: 16}); tr.Records[5].Power != 100 {
		t.Errorf("the 16-CPU job on a 16-CPU node: %+v", tr.Records[5])
	}

	// Every way of handing over the same bytes reads the same.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"one byte":  iotest.OneByteReader(bytes.NewReader(raw)),
		"half":      iotest.HalfReader(bytes.NewReader(raw)),
		"data+err":  iotest.DataErrReader(bytes.NewReader(raw)),
		"gzip":      bytes.NewReader(gz(t, raw)),
		"gzip byte": iotest.OneByteReader(bytes.NewReader(gz(t, raw))),
		"crlf":      strings.NewReader(strings.ReplaceAll(string(raw), "\n", "\r\n")),
		"bom":       strings.NewReader("\ufeff" + string(raw)),
		"no final":  bytes.NewReader(bytes.TrimSuffix(raw, []byte("\n"))),
	} {
		got, err := ReadSacct(path, r, opt)
		if err != nil || !reflect.DeepEqual(got, tr) {
			t.Errorf("%s: %v\n%+v", name, err, got)
		}
	}
}

func TestReadSacctMalformed(t *testing.T) {
	path := filepath.Join("testdata", "sacct", "malformed.txt")
	_, err := OpenSacct(path, SacctOptions{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 4 || le.File != path ||
		le.Msg != "expected 13 fields as in the header, found 11" {
		t.Fatalf("got %v", err)
	}
	tr, err := OpenSacct(path, SacctOptions{SkipBadLines: true})
	if err != nil {
		t.Fatal(err)
	}
	checkSacct(t, tr, SacctOptions{SkipBadLines: true})
	var ids []int64
	for _, r := range tr.Records {
		ids = append(ids, r.ID)
	}
	if tr.BadLines != 11 || !reflect.DeepEqual(tr.FirstBad, []int{4, 5, 6, 7, 8}) ||
		!reflect.DeepEqual(ids, []int64{5200001, 5200010, 5200013}) {
		t.Fatalf("bad %d first %v records %v", tr.BadLines, tr.FirstBad, ids)
	}
	if st := tr.Sacct.Stats; st.Lines != 4 || st.StepLines != 1 || st.Jobs != 3 {
		t.Errorf("stats %+v", st)
	}

	// Each bad line alone, after the header, gives its own message.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	for n, want := range map[int]string{
		4:  "expected 13 fields as in the header, found 11",
		5:  `JobID: want a job ID such as 1234, 1234.batch, 1234_5 or 1234+1, found "52x0003"`,
		6:  `Submit: want a time such as 2024-03-01T12:00:00, or Unknown (a valid date, years 1970 to 2200), found "2024-02-30T10:00:00"`,
		7:  `Elapsed: want a duration such as 1-02:03:04, 02:03:04 or 03:04, found "1-25:00:00"`,
		8:  `Timelimit: want a duration such as 1-02:03:04, 02:03:04 or 03:04, UNLIMITED or Partition_Limit, found "forever"`,
		9:  `NNodes: want a whole number, found "two"`,
		10: `End "2024-05-01T10:11:02" is before Start "2024-05-02T10:31:02"`,
		11: `State: want a Slurm job state such as COMPLETED or CANCELLED by 1234, found "completed"`,
		12: `ConsumedEnergyRaw: want joules, a whole number, found "-5"`,
		14: `expected 13 fields as in the header, found 14 (a "|" inside a field such as JobName?)`,
		16: `Submit: want a time such as 2024-03-01T12:00:00, or Unknown (set SLURM_TIME_FORMAT=standard when running sacct), found "Ystday 10:15"`,
	} {
		_, err := readSacctString(lines[0]+"\n"+lines[n-1]+"\n", SacctOptions{})
		var le *LineError
		if !errors.As(err, &le) || le.Line != 2 || le.Msg != want {
			t.Errorf("line %d: got %v\nwant x.txt:2: %s", n, err, want)
		}
	}
}

func TestReadSacctCases(t *testing.T) {
	const hdr = "JobID|JobIDRaw|Submit|Start|End|Elapsed|Timelimit|NNodes|AllocCPUS|State|ConsumedEnergyRaw\n"
	// job builds a line of hdr's format.
	job := func(id, raw, submit, start, end, elapsed, limit, nodes, cpus, state, energy string) string {
		return strings.Join([]string{id, raw, submit, start, end, elapsed, limit, nodes, cpus, state, energy}, "|") + "\n"
	}
	done := func(id string, minute int, elapsed, energy string) string {
		s := fmt.Sprintf("2024-01-01T00:%02d:00", minute)
		return job(id, "", s, s, s, elapsed, "01:00:00", "1", "8", "COMPLETED", energy)
	}
	step := func(id, energy string) string {
		return job(id, "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "00:10:00", "", "1", "8", "COMPLETED", energy)
	}
	type want struct {
		ids     []int64
		runtime []float64
		nodes   []int
		power   []float64
		stats   SacctStats // only the non-zero fields are compared
		err     string     // substring of the error
	}
	tests := []struct {
		name string
		in   string
		opt  SacctOptions
		want want
	}{
		{name: "header only", in: hdr, want: want{}},
		{name: "empty", in: "", want: want{err: "x.txt:1:1: no header line"}},
		{name: "blank lines only", in: "\n \n\t\n", want: want{err: "x.txt:3:1: no header line"}},
		// Where a line is wrong: the column of the field, in characters.
		{name: "bad time limit column", in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:00:02", "00:00:02", "1 hour", "1", "8", "COMPLETED", ""),
			want: want{err: `x.txt:2:73: Timelimit: want a duration such as 1-02:03:04, 02:03:04 or 03:04, UNLIMITED or Partition_Limit, found "1 hour"`}},
		{name: "bad time column after a name", in: "JobName|JobID|Submit|Elapsed|NCPUS\nété|5|yesterday|00:00:02|1\n",
			want: want{err: `x.txt:2:7: Submit: want a time`}}, // 9 in bytes
		{name: "too many fields column", in: hdr + strings.TrimSuffix(done("7", 0, "00:10:00", ""), "\n") + "|x|y\n",
			want: want{err: `x.txt:2:97: expected 11 fields as in the header, found 13`}},
		{name: "comma-separated", in: "JobID,Submit,Elapsed,NCPUS\n5,2024-01-01T00:00:00,00:00:02,1\n",
			want: want{err: `x.txt:1:1: header: no "|" in the first line, which is comma-separated`}},
		// A file that is not text is refused, bad lines skipped or not.
		{name: "nul byte", opt: SacctOptions{SkipBadLines: true}, in: hdr + "7\x00|\n",
			want: want{err: "x.txt:2:2: a NUL byte"}},
		{name: "utf-16", opt: SacctOptions{SkipBadLines: true}, in: "\xff\xfeJ\x00o\x00b\x00",
			want: want{err: "x.txt:1:1: the file is UTF-16 text"}},

		{name: "blank lines around", in: "\n" + hdr + "\n" + done("7", 0, "00:10:00", "") + "\n\n",
			want: want{ids: []int64{7}, runtime: []float64{600}}},
		{name: "parsable with final delimiter",
			in:   strings.ReplaceAll(hdr, "\n", "|\n") + strings.ReplaceAll(done("7", 0, "00:10:00", ""), "\n", "|\n"),
			want: want{ids: []int64{7}}},
		{name: "parsable line without final delimiter",
			in:   strings.ReplaceAll(hdr, "\n", "|\n") + done("7", 0, "00:10:00", ""),
			want: want{err: "x.txt:2:96: expected 12 fields as in the header, found 11"}},
		{name: "other delimiter", opt: SacctOptions{Delimiter: ";;"},
			in:   strings.ReplaceAll(hdr+done("7", 0, "00:10:00", ""), "|", ";;"),
			want: want{ids: []int64{7}}},
		{name: "wrong delimiter", opt: SacctOptions{Delimiter: ","}, in: hdr,
			want: want{err: `x.txt:1:1: header: no "," in the first line`}},
		{name: "fixed width output", in: "JobID    JobName  Partition\n------- -------- ---------\n",
			want: want{err: `x.txt:1:1: header: no "|" in the first line: want ` + "`sacct --parsable2`"}},
		{name: "case and order of names", in: "state|allocCPUs|ELAPSED|submit|jobid\nCOMPLETED|4|00:01:00|2024-01-01T00:00:00|9\n",
			want: want{ids: []int64{9}, runtime: []float64{60}, nodes: []int{0}}},
		{name: "missing columns", in: "JobID|JobName|State\n",
			want: want{err: "x.txt:1:1: header: no Submit field, no Elapsed (or Start and End) field, no AllocCPUS (or NCPUS) field (for `sacct --noheader` output, give its fields with SacctOptions.Format)"}},
		{name: "a column twice", in: "JobID|Submit|Elapsed|NCPUS|jobid\n", want: want{err: "x.txt:1:28: header: JobID appears twice"}},
		{name: "empty name", in: "JobID||Submit|Elapsed|NCPUS\n", want: want{err: "x.txt:1:7: header: field 2 has no name"}},
		{name: "bad header even when skipping", opt: SacctOptions{SkipBadLines: true}, in: "JobID|State\n",
			want: want{err: "x.txt:1:1: header: no Submit field"}},
		{name: "data where the header should be", in: done("7", 0, "00:10:00", ""),
			want: want{err: `x.txt:1:1: header: the first line is data (JobID "7"): for ` + "`sacct --noheader`" + ` output, give its fields with SacctOptions.Format`}},
		{name: "format without header", opt: SacctOptions{Format: "JobID,Submit,Elapsed,NCPUS,NNodes"},
			in:   "11|2024-01-01T00:00:00|00:05:00|16|2\n12|2024-01-01T00:01:00|00:06:00|8|1\n",
			want: want{ids: []int64{11, 12}, runtime: []float64{300, 360}, nodes: []int{2, 1}}},
		{name: "format and a header anyway", opt: SacctOptions{Format: "jobid,submit,elapsed,ncpus"},
			in:   "\nJobID|Submit|Elapsed|NCPUS\n11|2024-01-01T00:00:00|00:05:00|16\n",
			want: want{ids: []int64{11}, stats: SacctStats{Lines: 1}}},
		{name: "header line later is data", opt: SacctOptions{Format: "jobid,submit,elapsed,ncpus"},
			in:   "11|2024-01-01T00:00:00|00:05:00|16\nJobID|Submit|Elapsed|NCPUS\n",
			want: want{err: "x.txt:2:1: JobID: want a job ID"}},
		{name: "too long a line", opt: SacctOptions{SkipBadLines: true},
			in:   hdr + strings.Repeat("x", sacctMaxLine+10) + "\n" + done("7", 0, "00:10:00", ""),
			want: want{ids: []int64{7}}},
		{name: "too long a line, not skipping", in: hdr + done("6", 0, "00:10:00", "") + strings.Repeat("x", 3*sacctMaxLine),
			want: want{err: "x.txt:3:1: line longer than 1048576 bytes"}},

		// Run times.
		{name: "run time from start and end", in: "JobID|Submit|Start|End|NCPUS\n5|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T01:00:10|4\n",
			want: want{ids: []int64{5}, runtime: []float64{3600}}},
		{name: "elapsed raw and timelimit raw", in: "JobID|Submit|ElapsedRaw|TimelimitRaw|NCPUS\n5|2024-01-01T00:00:00|3601|90|4\n6|2024-01-01T00:00:00|3601|UNLIMITED|4\n",
			want: want{ids: []int64{5, 6}, runtime: []float64{3601, 3601}, stats: SacctStats{NoTimelimit: 1}}},
		{name: "elapsed column empty", in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:02:00", "", "", "1", "8", "COMPLETED", ""),
			want: want{ids: []int64{5}, runtime: []float64{120}, stats: SacctStats{NoTimelimit: 1}}},
		{name: "end before start across a clock change", opt: SacctOptions{Location: berlin(t)},
			in: "JobID|Submit|Start|End|Elapsed|NCPUS\n5|2024-10-27T02:40:00|2024-10-27T02:50:00|2024-10-27T02:10:00|00:20:00|1\n" +
				"6|2024-10-27T02:40:00|2024-10-27T02:50:00|2024-10-27T02:10:00||1\n",
			want: want{ids: []int64{5, 6}, runtime: []float64{1200, -1}}},
		{name: "end just within the slack", in: "JobID|Submit|Start|End|NCPUS\n5|2024-01-01T00:00:00|2024-01-01T03:00:00|2024-01-01T00:00:00|1\n",
			want: want{ids: []int64{5}, runtime: []float64{-1}}},
		{name: "end beyond the slack", in: "JobID|Submit|Start|End|NCPUS\n5|2024-01-01T00:00:00|2024-01-01T03:00:01|2024-01-01T00:00:00|1\n",
			want: want{err: `x.txt:2:43: End "2024-01-01T00:00:00" is before Start "2024-01-01T03:00:01"`}},
		{name: "elapsed INVALID", in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:02:00", "INVALID", "", "1", "8", "COMPLETED", ""),
			want: want{ids: []int64{5}, runtime: []float64{120}}},
		{name: "het run time unknown if a part's is", in: "JobID|Submit|Elapsed|NCPUS\n5+0|2024-01-01T00:00:00|00:00:10|1\n5+1|2024-01-01T00:00:00||1\n",
			want: want{ids: []int64{5}, runtime: []float64{-1}}},
		{name: "no run time at all", in: "JobID|Submit|Elapsed|NCPUS\n5|2024-01-01T00:00:00||4\n",
			want: want{ids: []int64{5}, runtime: []float64{-1}}},
		{name: "elapsed over the limit", in: "JobID|Submit|Elapsed|NCPUS\n5|2024-01-01T00:00:00|115741-00:00:00|4\n",
			want: want{err: `Elapsed: "115741-00:00:00" is more than pwrc's limit of 1e10 s (317 years)`}},

		// States and times.
		{name: "no state column", in: "JobID|Submit|Start|End|Elapsed|NCPUS\n5|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|4\n6|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:00:01|00:00:01|4\n",
			want: want{ids: []int64{6}, stats: SacctStats{DroppedNotStarted: 1}}},
		{name: "running without start and end columns", in: "JobID|Submit|Elapsed|NCPUS|State\n5|2024-01-01T00:00:00|01:00:00|4|RUNNING\n6|2024-01-01T00:00:00|01:00:00|4|SUSPENDED\n7|2024-01-01T00:00:00|01:00:00|4|REQUEUE_HOLD\n",
			want: want{stats: SacctStats{DroppedUnfinished: 2, DroppedPending: 1}}},
		{name: "ended without end", in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "Unknown", "00:10:00", "", "1", "8", "COMPLETED", ""),
			want: want{stats: SacctStats{DroppedUnfinished: 1}}},
		{name: "unknown state word", in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:00:02", "00:00:02", "", "1", "8", "NEW_STATE+", ""),
			want: want{ids: []int64{5}}},
		{name: "submit required on job lines", in: hdr + job("5", "", "Unknown", "2024-01-01T00:00:00", "2024-01-01T00:00:02", "00:00:02", "", "1", "8", "COMPLETED", ""),
			want: want{err: `x.txt:2:4: Submit: want the submit time of the job, found "Unknown"`}},
		{name: "submit not required on steps", in: hdr + done("5", 0, "00:01:00", "") + job("5.batch", "", "Unknown", "", "", "", "", "", "", "", "10"),
			want: want{ids: []int64{5}, stats: SacctStats{StepLines: 1}}},
		{name: "year out of range", in: hdr + done("5", 0, "00:01:00", "") + job("6", "", "2201-01-01T00:00:00", "", "", "00:00:01", "", "1", "1", "", ""),
			want: want{err: `x.txt:3:4: Submit: want a time such as 2024-03-01T12:00:00, or Unknown (a valid date, years 1970 to 2200), found "2201-01-01T00:00:00"`}},
		{name: "space for T", in: "JobID|Submit|Elapsed|NCPUS\n5|2024-01-01 00:00:00|00:00:01|1\n6|2024-01-01T00:00:30|00:00:01|1\n",
			want: want{ids: []int64{5, 6}}},
		{name: "NO_VAL counts are unknown", in: "JobID|Submit|Elapsed|NCPUS|AllocCPUS|NNodes\n5|2024-01-01T00:00:00|00:00:01|4294967294|4294967295|4294967294\n",
			want: want{ids: []int64{5}, nodes: []int{0}}},
		{name: "counts beyond uint32", in: "JobID|Submit|Elapsed|NCPUS\n5|2024-01-01T00:00:00|00:00:01|4294967296\n",
			want: want{err: `NCPUS: want a whole number, found "4294967296"`}},

		// Folding.
		{name: "orphan steps", in: hdr + step("5.batch", "10") + done("5", 0, "00:10:00", "") + step("6.0", "10") + step("5_2.batch", "1"),
			want: want{ids: []int64{5}, stats: SacctStats{OrphanSteps: 3}}},
		{name: "requeued runs with --duplicates", opt: SacctOptions{AssumeExclusive: true},
			in: hdr + job("5", "", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:10:00", "00:10:00", "", "1", "8", "REQUEUED", "") + step("5.batch", "6000") +
				job("5", "", "2024-01-01T00:11:00", "2024-01-01T00:12:00", "2024-01-01T00:32:00", "00:20:00", "", "1", "8", "COMPLETED", "") + step("5.batch", "24000"),
			want: want{ids: []int64{5, 5}, runtime: []float64{600, 1200}, power: []float64{10, 20}, stats: SacctStats{Duplicates: 1}}},
		{name: "array tasks without JobIDRaw", in: hdr + done("8_1", 0, "00:10:00", "") + done("8_2", 1, "00:10:00", "") + job("8_[3-5,7]", "", "2024-01-01T00:00:00", "Unknown", "Unknown", "00:00:00", "", "1", "0", "PENDING", ""),
			want: want{ids: []int64{8, 8}, stats: SacctStats{DroppedPendingArray: 1}}},
		{name: "array tasks with JobIDRaw", in: hdr + job("8_1", "9", "2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:00:01", "00:00:01", "", "1", "8", "COMPLETED", "") +
			job("8_1.batch", "9.batch", "2024-01-01T00:00:00", "", "", "", "", "", "", "", "5"),
			want: want{ids: []int64{9}, stats: SacctStats{StepLines: 1}}},
		{name: "het job", opt: SacctOptions{CPUsPerNode: 8},
			in: hdr + job("20+0", "20", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:11:00", "00:10:00", "01:00:00", "1", "8", "COMPLETED", "") +
				job("20+0.batch", "20.batch", "2024-01-01T00:01:00", "", "", "", "", "1", "8", "", "6000") +
				job("20+1", "21", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:12:00", "00:11:00", "02:00:00", "2", "16", "COMPLETED", "") +
				job("20+1.0+1", "21.0+1", "2024-01-01T00:01:00", "", "", "", "", "2", "16", "", "26400") +
				job("20+2", "22", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:11:00", "00:10:00", "01:00:00", "1", "8", "FAILED", "12000"),
			want: want{ids: []int64{20}, runtime: []float64{660}, nodes: []int{4}, power: []float64{(6000 + 26400 + 12000) / 660.0 / 4},
				stats: SacctStats{HetFolded: 2, StepLines: 2, Measured: 1}}},
		{name: "het job, one part shared", opt: SacctOptions{CPUsPerNode: 8},
			in: hdr + job("20+0", "20", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:11:00", "00:10:00", "", "1", "8", "COMPLETED", "600") +
				job("20+1", "21", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:11:00", "00:10:00", "", "1", "4", "COMPLETED", "600"),
			want: want{ids: []int64{20}, nodes: []int{2}, power: []float64{0}, stats: SacctStats{HetFolded: 1, EnergyShared: 1, NoTimelimit: 1}}},
		{name: "het job with a part pending", in: hdr + job("20+0", "20", "2024-01-01T00:00:00", "2024-01-01T00:01:00", "2024-01-01T00:11:00", "00:10:00", "", "1", "8", "COMPLETED", "") +
			job("20+1", "21", "2024-01-01T00:00:00", "Unknown", "Unknown", "00:00:00", "", "1", "8", "PENDING", ""),
			want: want{stats: SacctStats{HetFolded: 1, DroppedPending: 1}}},
		{name: "het parts without their leader, and repeated", in: hdr + done("30+1", 0, "00:10:00", "") + done("30+2", 0, "00:10:00", "") + done("30+1", 1, "00:10:00", "") + done("30+2", 1, "00:10:00", "") + step("30+2.0", "1"),
			want: want{ids: []int64{30, 30}, nodes: []int{2, 2}, stats: SacctStats{HetFolded: 2, Duplicates: 1, StepLines: 1}}},
		{name: "het parts out of order", in: hdr + done("30+1", 0, "00:10:00", "") + done("30+0", 0, "00:10:00", "") + done("30+1", 1, "00:10:00", ""),
			want: want{ids: []int64{30, 30}, nodes: []int{1, 2}, stats: SacctStats{HetFolded: 1}}},
		{name: "a plain job after a het job of the same number", in: hdr + done("30+0", 0, "00:10:00", "") + done("30", 0, "00:10:00", "") + done("30+1", 1, "00:10:00", ""),
			want: want{ids: []int64{30, 30}, nodes: []int{2, 1}, stats: SacctStats{HetFolded: 1}}},

		// Energy.
		{name: "energy: the job's own first", opt: SacctOptions{AssumeExclusive: true},
			in:   hdr + done("5", 0, "00:10:00", "6000") + step("5.extern", "1200") + step("5.batch", "60000"),
			want: want{power: []float64{10}}},
		{name: "energy: then the extern step's", opt: SacctOptions{AssumeExclusive: true},
			in:   hdr + done("5", 0, "00:10:00", "0") + step("5.extern", "1200") + step("5.batch", "60000") + step("5.0", "1"),
			want: want{power: []float64{2}}},
		{name: "energy: then the larger of batch and the other steps", opt: SacctOptions{AssumeExclusive: true},
			in: hdr + done("5", 0, "00:10:00", "") + step("5.batch", "1800") + step("5.0", "600") + step("5.1", "600") +
				done("6", 1, "00:10:00", "") + step("6.batch", "600") + step("6.0", "1200") + step("6.1", "1200") + step("6.interactive", "600"),
			want: want{power: []float64{3, 5}}},
		{name: "energy: sentinels are none", opt: SacctOptions{AssumeExclusive: true},
			in:   hdr + done("5", 0, "00:10:00", "18446744073709551615") + step("5.batch", "9223372036854775808"),
			want: want{power: []float64{0}, stats: SacctStats{Measured: 0}}},
		{name: "energy: overflow is malformed", in: hdr + done("5", 0, "00:10:00", "18446744073709551616"),
			want: want{err: `ConsumedEnergyRaw: want joules, a whole number, found "18446744073709551616"`}},
		{name: "energy: implausible", opt: SacctOptions{AssumeExclusive: true},
			in:   hdr + done("5", 0, "00:00:01", "100001") + done("6", 0, "00:00:01", "100000"),
			want: want{power: []float64{0, 100000}, stats: SacctStats{EnergyImplausible: 1, Measured: 1}}},
		{name: "energy: no run time", opt: SacctOptions{AssumeExclusive: true},
			in:   hdr + done("5", 0, "00:00:00", "100"),
			want: want{power: []float64{0}, stats: SacctStats{Measured: 0}}},
		{name: "energy: nodes unknown", opt: SacctOptions{AssumeExclusive: true},
			in:   "JobID|Submit|Elapsed|NCPUS|ConsumedEnergyRaw\n5|2024-01-01T00:00:00|00:00:10|4|100\n",
			want: want{power: []float64{0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := readSacctString(tc.in, tc.opt)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("error %v, want %q", err, tc.want.err)
				}
				var le *LineError
				if !errors.As(err, &le) {
					t.Fatalf("%v is not a *LineError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSacct(t, tr, tc.opt)
			var ids []int64
			var run, power []float64
			var nodes []int
			for _, r := range tr.Records {
				ids, run, nodes, power = append(ids, r.ID), append(run, r.Runtime), append(nodes, r.Nodes), append(power, r.Power)
			}
			w := tc.want
			if w.ids != nil && !reflect.DeepEqual(ids, w.ids) || w.runtime != nil && !reflect.DeepEqual(run, w.runtime) ||
				w.nodes != nil && !reflect.DeepEqual(nodes, w.nodes) || w.power != nil && !reflect.DeepEqual(power, w.power) {
				t.Fatalf("ids %v run %v nodes %v power %v\nwant %+v", ids, run, nodes, power, w)
			}
			if w.ids == nil && w.power == nil && len(tr.Records) != 0 {
				t.Fatalf("records %+v", tr.Records)
			}
			got := reflect.ValueOf(tr.Sacct.Stats)
			ws := reflect.ValueOf(w.stats)
			for i := range ws.NumField() {
				if v := ws.Field(i).Int(); v != 0 && got.Field(i).Int() != v {
					t.Errorf("%s = %d, want %d (%+v)", ws.Type().Field(i).Name, got.Field(i).Int(), v, tr.Sacct.Stats)
				}
			}
		})
	}
}

// pieceReader hands out data n bytes at a time.
type pieceReader struct {
	data []byte
	n    int
}

func (p *pieceReader) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.data)
	p.data = p.data[k:]
	return k, nil
}

// Lines longer than the read buffer (64 KiB) are put together, up to the
// limit; past it a line is malformed, and the lines after it read fine.
func TestReadSacctLongLines(t *testing.T) {
	const hdr = "JobName|JobID|Submit|Elapsed|NCPUS\n"
	line := func(name int, id int) string {
		return strings.Repeat("n", name) + fmt.Sprintf("|%d|2024-01-01T00:00:00|00:00:10|1\n", id)
	}
	var b strings.Builder
	b.WriteString(hdr)
	want := []int64{}
	id := 0
	for _, n := range []int{0, 65000, 65500, 65536 - 34, 65536 - 33, 65536, 65537, 131072, 200000, sacctMaxLine - 35, sacctMaxLine - 34} {
		id++
		b.WriteString(line(n, id)) // 35 bytes after the name, newline included, for ids 10 and 11
		if n <= sacctMaxLine-35 {
			want = append(want, int64(id))
		}
	}
	in := b.String()
	for name, r := range map[string]io.Reader{
		"whole":  strings.NewReader(in),
		"pieces": &pieceReader{data: []byte(in), n: 4093},
		"gzip":   bytes.NewReader(gz(t, []byte(in))),
	} {
		tr, err := ReadSacct("x.txt", r, SacctOptions{SkipBadLines: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var ids []int64
		for _, r := range tr.Records {
			ids = append(ids, r.ID)
		}
		if !reflect.DeepEqual(ids, want) || tr.BadLines != 1 || !reflect.DeepEqual(tr.FirstBad, []int{12}) {
			t.Fatalf("%s: ids %v bad %d %v", name, ids, tr.BadLines, tr.FirstBad)
		}
	}
	_, err := readSacctString(in, SacctOptions{})
	if err == nil || err.Error() != "x.txt:12:1: line longer than 1048576 bytes" {
		t.Fatalf("error %v", err)
	}
	_, err = readSacctString(strings.Repeat("JobID|", sacctMaxLine/5), SacctOptions{})
	if err == nil || err.Error() != "x.txt:1:1: header: line longer than 1048576 bytes" {
		t.Fatalf("long header: %v", err)
	}
}

// The skipped-lines bookkeeping follows ReadSWF's.
func TestReadSacctSkipBadLines(t *testing.T) {
	in := "JobID|Submit|Elapsed|NCPUS\n" + strings.Repeat("x|y|z|w\n", 8) + "5|2024-01-01T00:00:00|00:00:10|1\n"
	tr, err := readSacctString(in, SacctOptions{SkipBadLines: true})
	if err != nil || tr.BadLines != 8 || !reflect.DeepEqual(tr.FirstBad, []int{2, 3, 4, 5, 6}) || len(tr.Records) != 1 || tr.Records[0].Line != 10 {
		t.Fatalf("%v %+v", err, tr)
	}
}

func TestReadSacctOptions(t *testing.T) {
	for _, c := range []struct {
		opt  SacctOptions
		want string
	}{
		{SacctOptions{Delimiter: "\n"}, "x.txt: sacct delimiter \"\\n\" contains a line break"},
		{SacctOptions{Format: "JobID,Submit"}, "x.txt: format: no Elapsed (or Start and End) field, no AllocCPUS (or NCPUS) field"},
		{SacctOptions{Format: "JobID,,Submit"}, "x.txt: format: field 2 has no name"},
	} {
		_, err := readSacctString("", c.opt)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.opt, err, c.want)
		}
	}
	dir := t.TempDir()
	if _, err := OpenSacct(filepath.Join(dir, "missing.txt"), SacctOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A failing reader is reported with the file name, gzipped or not.
	boom := errors.New("disk on fire")
	text := "JobID|Submit|Elapsed|NCPUS\n" + strings.Repeat("5|2024-01-01T00:00:00|00:00:10|1\n", 2000)
	for name, data := range map[string][]byte{"a.txt": []byte(text), "a.txt.gz": gz(t, []byte(text))} {
		_, err := ReadSacct(name, io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom)), SacctOptions{})
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	full := gz(t, []byte(text))
	for name, data := range map[string][]byte{"truncated": full[:len(full)/2], "magic only": full[:2]} {
		_, err := ReadSacct("b.txt.gz", bytes.NewReader(data), SacctOptions{})
		if err == nil || !strings.Contains(err.Error(), "b.txt.gz: ") || !strings.Contains(err.Error(), "gzip") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseSlurmDuration(t *testing.T) {
	for in, want := range map[string]float64{
		"00:00":        0,
		"03:04":        184,
		"90:00":        5400,
		"02:03:04":     7384,
		"26:00:00":     93600,
		"1-02:03:04":   93784,
		"1-02":         93600,
		"1-2":          93600,
		"0-06:30":      23400,
		"10-00:00:00":  864000,
		"00:07:31.250": 451.25,
		"07:31.5":      451.5,
		"1-00:00:00.1": 86400.1,
		"5:7":          307,
	} {
		got, st := parseSlurmDuration([]byte(in))
		if st != parseOK || got != want {
			t.Errorf("%q: %v (%d), want %v", in, got, st, want)
		}
	}
	for _, in := range []string{
		"", "5", "1-", "-02:00:00", "1--02", "1-24:00:00", "1-02:60", "00:60", "01:00:60", "1:2:3:4",
		"1-02:03:04:05", "02:03:04.", "02:03.04:05", "1-02.5", "1-02:03.5", "a:bc", "02:03:04 ", " 02:03",
		"12345678901:00", "1-123:00", "1-02:003", "+02:03", "02:03:04.1234567890", "1.5-02:00:00",
		strings.Repeat("1", 41),
	} {
		if got, st := parseSlurmDuration([]byte(in)); st != parseBad {
			t.Errorf("%q: %v (%d), want an error", in, got, st)
		}
	}
	if _, st := parseSlurmDuration([]byte("9999999999:00:00")); st != parseRange {
		t.Errorf("huge duration: %d", st)
	}
	if got, st := parseSlurmDuration([]byte("115740-00:00:00")); st != parseOK || got != 115740*86400 {
		t.Errorf("largest days: %v %d", got, st)
	}
}

// The UTC fast path agrees with time.Date, and other zones go through it.
func TestParseSacctTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	loc := berlin(t)
	pu, _ := newSacctParser("x", SacctOptions{})
	pb, _ := newSacctParser("x", SacctOptions{Location: loc})
	for range 100000 {
		y, mo := 1970+rng.IntN(231), 1+rng.IntN(12)
		d := 1 + rng.IntN(daysIn(mo, y))
		h, mi, s := rng.IntN(24), rng.IntN(60), rng.IntN(60)
		tok := []byte(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s))
		for _, c := range []struct {
			p   *sacctParser
			loc *time.Location
		}{{pu, time.UTC}, {pb, loc}} {
			got, known, ok := c.p.parseTime(tok)
			if want := time.Date(y, time.Month(mo), d, h, mi, s, 0, c.loc).Unix(); !ok || !known || got != want {
				t.Fatalf("%s in %s: %d %v %v, want %d", tok, c.loc, got, known, ok, want)
			}
		}
	}
	for _, in := range []string{"Unknown", "unknown", "None", "NONE", ""} {
		if _, known, ok := pu.parseTime([]byte(in)); known || !ok {
			t.Errorf("%q: known %v ok %v", in, known, ok)
		}
	}
	for _, in := range []string{"1969-12-31T23:59:59", "2201-01-01T00:00:00", "2023-02-29T00:00:00", "2024-04-31T00:00:00",
		"2024-00-01T00:00:00", "2024-13-01T00:00:00", "2024-01-00T00:00:00", "2024-01-01T24:00:00", "2024-01-01T00:60:00",
		"2024-01-01T00:00:60", "2024-01-01T00:00:00Z", "2024-01-01", "2024/01/01T00:00:00", "2024-01-01t00:00:00", "Ystday 10:15",
		"+024-01-01T00:00:00", "2024-01-01T00:00:0x"} {
		if _, _, ok := pu.parseTime([]byte(in)); ok {
			t.Errorf("%q accepted", in)
		}
	}
	if got, _, ok := pu.parseTime([]byte("2024-02-29T12:00:00")); !ok || got != 1709208000 {
		t.Errorf("leap day: %d", got)
	}
}

func TestParseJobID(t *testing.T) {
	for in, want := range map[string]jobID{
		"1234":               {base: 1234},
		"1234.batch":         {base: 1234, step: []byte("batch")},
		"1234.extern":        {base: 1234, step: []byte("extern")},
		"1234.0":             {base: 1234, step: []byte("0")},
		"1234.0+1":           {base: 1234, step: []byte("0+1")},
		"1234_5":             {base: 1234, sub: 5, kind: kindArray},
		"1234_5.batch":       {base: 1234, sub: 5, kind: kindArray, step: []byte("batch")},
		"1234_[6-10]":        {base: 1234, kind: kindPendingArray},
		"1234_[1,3,5-7%2]":   {base: 1234, kind: kindPendingArray},
		"1234_[1-3,5,7-1000": {base: 1234, kind: kindPendingArray},
		"1234+0":             {base: 1234, kind: kindHet},
		"1234+1.0":           {base: 1234, sub: 1, kind: kindHet, step: []byte("0")},
		"999999999999999":    {base: 999999999999999},
	} {
		got, ok := parseJobID([]byte(in))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "x", "12a4", "1234.", "1234..0", "1234_", "1234+", "1234_x", "1234+1_2", "1234.ba tch",
		"1234_[1-3]x", "-1", "1234 ", "1234.0.1", "1234|5", "1000000000000000", "1_12345678901", "1234." + strings.Repeat("a", 33)} {
		if got, ok := parseJobID([]byte(in)); ok {
			t.Errorf("%q accepted: %+v", in, got)
		}
	}
}

// Clean's use of Nodes and Power leaves records without them as before.
func TestCleanSacctFields(t *testing.T) {
	r := rec(1, 10, 100, 17, 17, 200)
	jobs, st := Clean(&Trace{Records: []Record{r}}, Cleaning{Cores: 8})
	if jobs[0].Nodes != 3 || jobs[0].Power != 0 || st.MeasuredPower != 0 {
		t.Fatalf("%+v %+v", jobs, st)
	}
	r.Nodes, r.Power = 5, 312.5
	jobs, st = Clean(&Trace{Records: []Record{r}}, Cleaning{Cores: 8})
	if jobs[0].Nodes != 5 || jobs[0].Power != 312.5 || st.MeasuredPower != 1 {
		t.Fatalf("%+v %+v", jobs, st)
	}
	if _, st = Clean(&Trace{Records: []Record{r}}, Cleaning{Cores: 8, Nodes: 4}); st.DroppedWide != 1 {
		t.Fatalf("%+v", st)
	}
	for _, p := range []float64{-1, math.NaN(), math.Inf(1)} {
		r.Power = p
		if jobs, st = Clean(&Trace{Records: []Record{r}}, Cleaning{Cores: 8}); jobs[0].Power != 0 || st.MeasuredPower != 0 {
			t.Fatalf("power %v: %+v %+v", p, jobs, st)
		}
	}
}

// TestReadSacctGenerated writes random jobs the way sacct prints them and
// reads them back, against what each job should become.
func TestReadSacctGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const cpn = 32
	base := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC).Unix()
	stamp := func(u int64) string { return time.Unix(u, 0).UTC().Format("2006-01-02T15:04:05") }
	dur := func(s int64) string {
		if s >= 86400 {
			return fmt.Sprintf("%d-%02d:%02d:%02d", s/86400, s/3600%24, s/60%60, s%60)
		}
		return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	type part struct {
		nodes, cpus    int
		elapsed, limit int64
		e, ext, batch  int64
		others         []int64
	}
	for round := range 200 {
		var b strings.Builder
		b.WriteString("JobID|JobIDRaw|User|Partition|Submit|Start|End|Elapsed|Timelimit|NNodes|AllocCPUS|State|ConsumedEnergyRaw\n")
		line := 1
		var want []Record
		var st SacctStats
		users := map[string]int{}
		id := int64(1000)
		first := int64(-1)
		for range 1 + rng.IntN(30) {
			id += 1 + rng.Int64N(5)
			submit := base + rng.Int64N(86400*30)
			wait := rng.Int64N(3600)
			user := fmt.Sprintf("u%d", rng.IntN(5))
			kind := rng.IntN(10)
			nparts := 1
			if kind == 0 {
				nparts = 2 + rng.IntN(3)
			}
			parts := make([]part, nparts)
			for k := range parts {
				p := &parts[k]
				p.nodes = 1 + rng.IntN(4)
				p.cpus = p.nodes * cpn
				if rng.IntN(4) == 0 {
					p.cpus -= 1 + rng.IntN(cpn-1)
				}
				p.elapsed = 1 + rng.Int64N(200000)
				p.limit = p.elapsed + rng.Int64N(3600) - 600
				if p.limit < 60 {
					p.limit = 60
				}
				pick := func() int64 {
					if rng.IntN(3) == 0 {
						return 0
					}
					return 1 + rng.Int64N(int64(p.nodes)*p.elapsed*500)
				}
				if rng.IntN(2) == 0 {
					p.e = pick()
				}
				if rng.IntN(2) == 0 {
					p.ext = pick()
				}
				p.batch = pick()
				for range rng.IntN(3) {
					p.others = append(p.others, pick())
				}
			}
			state := []string{"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 42", "PENDING", "RUNNING", "NEVER", "ENDED_PENDING"}[rng.IntN(8)]
			start, end := stamp(submit+wait), ""
			endedPending := false
			switch state {
			case "PENDING":
				start, end = "Unknown", "Unknown"
			case "NEVER":
				state, start, end = "CANCELLED by 7", "None", stamp(submit+wait)
			case "ENDED_PENDING":
				// Ended while pending, as Slurm prints it: Start = End
				// (= Submit when at once), no CPUs allocated.
				state, start, end, endedPending = "CANCELLED by 7", stamp(submit+wait), stamp(submit+wait), true
			}
			kept := state != "PENDING" && state != "RUNNING" && start != "None" && !endedPending
			var energy float64
			var nodes, cpus int
			wantID, jobLine := id, line+1
			var runtime, limit int64
			excl := true
			for k, p := range parts {
				jid, raw := fmt.Sprint(id), fmt.Sprint(id+int64(k))
				switch {
				case nparts > 1:
					jid = fmt.Sprintf("%d+%d", id, k)
				case kind == 1:
					jid = fmt.Sprintf("%d_%d", id, rng.IntN(100))
					wantID = id + 1 + int64(rng.IntN(100))
					raw = fmt.Sprint(wantID)
				}
				e := ""
				if p.e > 0 || rng.IntN(2) == 0 {
					e = fmt.Sprint(p.e)
				}
				pend := end
				if end == "" {
					pend = stamp(submit + wait + p.elapsed)
				}
				if state == "RUNNING" {
					pend = "Unknown"
				}
				el := dur(p.elapsed)
				if !kept && state != "RUNNING" {
					el = "00:00:00"
				}
				cpusShown := p.cpus
				if endedPending {
					cpusShown = 0
				}
				fmt.Fprintf(&b, "%s|%s|%s|part|%s|%s|%s|%s|%s|%d|%d|%s|%s\n", jid, raw, user, stamp(submit), start, pend, el, dur(p.limit), p.nodes, cpusShown, state, e)
				line++
				st.JobLines++
				if k > 0 {
					st.HetFolded++
				}
				steps := []struct {
					name string
					e    int64
				}{{"batch", p.batch}}
				if p.ext > 0 || rng.IntN(2) == 0 {
					steps = append(steps, struct {
						name string
						e    int64
					}{"extern", p.ext})
				}
				for i, o := range p.others {
					steps = append(steps, struct {
						name string
						e    int64
					}{fmt.Sprint(i), o})
				}
				rng.Shuffle(len(steps), func(i, j int) { steps[i], steps[j] = steps[j], steps[i] })
				if !kept && state != "RUNNING" {
					steps = nil
				}
				var ext, bat, oth int64
				for _, s := range steps {
					fmt.Fprintf(&b, "%s.%s|%s.%s|||%s|%s|%s|%s||%d|%d|COMPLETED|%d\n", jid, s.name, raw, s.name, start, start, pend, el, p.nodes, p.cpus, s.e)
					line++
					st.StepLines++
					switch s.name {
					case "extern":
						ext += s.e
					case "batch":
						bat += s.e
					default:
						oth += s.e
					}
				}
				pe := max(bat, oth)
				if ext > 0 {
					pe = ext
				}
				if p.e > 0 {
					pe = p.e
				}
				energy += float64(pe)
				nodes += p.nodes
				cpus += p.cpus
				runtime = max(runtime, p.elapsed)
				limit = max(limit, p.limit)
				excl = excl && p.cpus == p.nodes*cpn
			}
			if !kept {
				switch state {
				case "PENDING":
					st.DroppedPending++
				case "RUNNING":
					st.DroppedUnfinished++
				default:
					st.DroppedNotStarted++
				}
				continue
			}
			if first < 0 || submit < first {
				first = submit
			}
			status := map[string]int{"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "CANCELLED by 42": 5}[state]
			power := 0.0
			if energy > 0 && excl {
				power = energy / float64(runtime) / float64(nodes)
				st.Measured++
			} else if energy > 0 {
				st.EnergyShared++
			} else {
				st.EnergyNone++
			}
			if _, ok := users[user]; !ok {
				users[user] = len(users) + 1
			}
			want = append(want, Record{ID: wantID, Line: jobLine, Submit: float64(submit), Wait: float64(wait), Runtime: float64(runtime),
				AllocProcs: cpus, ReqProcs: -1, ReqTime: float64(limit), Status: status, User: users[user], Group: -1,
				Queue: -1, Partition: 1, Account: -1, QOS: -1, Nodes: nodes, Power: power})
		}
		for i := range want {
			want[i].Submit -= float64(first)
		}
		st.Lines = st.JobLines + st.StepLines
		st.Jobs = len(want)
		tr, err := readSacctString(b.String(), SacctOptions{CPUsPerNode: cpn})
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, b.String())
		}
		opt := SacctOptions{CPUsPerNode: cpn}
		checkSacct(t, tr, opt)
		if len(tr.Records) != len(want) {
			t.Fatalf("round %d: %d records, want %d\n%s", round, len(tr.Records), len(want), b.String())
		}
		for i, r := range tr.Records {
			w := want[i]
			if r.Power != w.Power && math.Abs(r.Power-w.Power) > 1e-9*w.Power {
				t.Fatalf("round %d record %d: power %v, want %v\n%s", round, i, r.Power, w.Power, b.String())
			}
			w.Power = r.Power
			if r != w {
				t.Fatalf("round %d record %d:\n got %+v\nwant %+v\n%s", round, i, r, w, b.String())
			}
		}
		if got := tr.Sacct.Stats; got != st {
			t.Fatalf("round %d: stats\n got %+v\nwant %+v", round, got, st)
		}
	}
}

func FuzzReadSacct(f *testing.F) {
	for _, name := range []string{"jobs.txt", "malformed.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "sacct", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, false, uint8(1))
		f.Add(data, true, uint8(3))
		f.Add(gz(f, data), true, uint8(2))
	}
	f.Add([]byte("JobID|Submit|Elapsed|NCPUS|NNodes|State|ConsumedEnergyRaw\n1+0|2024-01-01T00:00:00|00:10:00|8|1|COMPLETED|600\n1+1|2024-01-01T00:00:00|1-00:10:00|8|1|FAILED|600\n1+1.0|2024-01-01T00:00:00|00:10:00|8|1|COMPLETED|60\n"), false, uint8(1))
	f.Add([]byte("2|2024-01-01T00:00:00|00:10:00|8|1|PENDING|\n2_[1-3]|2024-01-01T00:00:00|00:10:00|8|1|PENDING|\n"), true, uint8(0x20))
	f.Add([]byte("JobID;Submit;ElapsedRaw;TimelimitRaw;AllocCPUS;\n5;2024-01-01 00:00:00;10;UNLIMITED;4;\n"), false, uint8(0x10))
	loc := berlin(f)
	f.Fuzz(func(t *testing.T, data []byte, skip bool, mode uint8) {
		opt := SacctOptions{SkipBadLines: skip}
		switch mode % 4 {
		case 1:
			opt.CPUsPerNode = 8
		case 2:
			opt.AssumeExclusive = true
		case 3:
			opt.Location, opt.CPUsPerNode = loc, 1+int(mode>>4)
		}
		if mode&0x10 != 0 {
			opt.Delimiter = ";"
		}
		if mode&0x20 != 0 {
			opt.Format = "JobID,Submit,Elapsed,NCPUS,NNodes,State,ConsumedEnergyRaw"
		}
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			// A few kilobytes of gzip can inflate to megabytes: past the
			// limit only the no-panic property is checked.
			if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
				if n, _ := io.Copy(io.Discard, io.LimitReader(zr, 1<<16+1)); n > 1<<16 {
					_, _ = ReadSacct("f.txt", bytes.NewReader(data), opt)
					return
				}
			}
		}
		tr, err := ReadSacct("f.txt", bytes.NewReader(data), opt)
		if err != nil {
			var le *LineError
			if errors.As(err, &le) {
				if le.File != "f.txt" || le.Line < 1 || le.Msg == "" || le.Error() != err.Error() {
					t.Fatalf("line error %#v", le)
				}
				if skip && !strings.HasPrefix(le.Msg, "header: ") && !strings.HasPrefix(le.Msg, "no header line") &&
					!strings.HasPrefix(le.Msg, "a NUL byte") && !strings.HasPrefix(le.Msg, "the file is UTF-16") {
					t.Fatalf("skipping, yet failed on a data line: %v", err)
				}
			} else if !strings.Contains(err.Error(), "gzip") {
				t.Fatalf("error %v", err)
			}
		} else {
			checkSacct(t, tr, opt)
		}
		// Reading in small pieces gives the same.
		var r io.Reader = bytes.NewReader(data)
		if len(data) <= 1024 {
			r = iotest.OneByteReader(r)
		} else {
			r = &pieceReader{data: data, n: 1 + int(mode%61)}
		}
		tr2, err2 := ReadSacct("f.txt", r, opt)
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() || err == nil && !reflect.DeepEqual(tr, tr2) {
			t.Fatalf("one byte at a time:\n%+v %v\nwhole:\n%+v %v", tr2, err2, tr, err)
		}
	})
}

// Jobs Slurm ended while they were pending get a Start equal to their End
// (the instant they were cancelled, refused or past their deadline: their
// Submit when that was at once), an Elapsed of 0 and no CPUs allocated.
// They never started: counted in DroppedNotStarted, not left to cleaning
// as jobs whose run time is 0. A job that did start, and ended in the same
// second, holds CPUs: it is read, and cleaning drops it for its run time.
func TestReadSacctEndedPending(t *testing.T) {
	const hdr = "JobID|JobIDRaw|User|Group|Account|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|NNodes|NCPUS|AllocCPUS|ReqCPUS|State|ConsumedEnergyRaw\n"
	rows := []struct {
		line    string
		started bool
	}{
		// scancel at once: Start = End = Submit.
		{"7001|7001|alice|chem|p-chem|gpu|normal|2024-05-02T10:00:00|2024-05-02T10:00:00|2024-05-02T10:00:00|00:00:00|01:00:00|1|0|0|128|CANCELLED by 1001|0", false},
		// scancel after 42 minutes pending: Start = End = the cancel.
		{"7002|7002|bob|phys|p-phys|compute|normal|2024-05-02T10:05:00|2024-05-02T10:47:13|2024-05-02T10:47:13|00:00:00|02:00:00|4|0|0|512|CANCELLED by 0|0", false},
		// Past its deadline while pending.
		{"7003|7003|bob|phys|p-phys|compute|normal|2024-05-02T11:00:00|2024-05-02T12:00:00|2024-05-02T12:00:00|00:00:00|02:00:00|1|0|0|128|DEADLINE|0", false},
		// An array task cancelled while pending, listed on its own.
		{"7010_4|7014|carol|bio|p-bio|compute|low|2024-05-02T11:30:00|2024-05-02T11:31:05|2024-05-02T11:31:05|00:00:00|00:30:00|1|0|0|128|CANCELLED by 1003|", false},
		// Cancelled at once, printed with its requested CPUs.
		{"7004|7004|dave|bio|p-bio|compute|normal|2024-05-02T13:00:00|2024-05-02T13:00:00|2024-05-02T13:00:00|00:00:00|01:00:00|1|128|128|128|CANCELLED by 1004|0", false},
		// Started and cancelled within its first second: it ran.
		{"7005|7005|erin|phys|p-phys|debug|normal|2024-05-02T14:00:00|2024-05-02T14:00:07|2024-05-02T14:00:07|00:00:00|00:10:00|1|128|128|128|CANCELLED by 1005|0", true},
		// Failed within its first second: it ran.
		{"7006|7006|erin|phys|p-phys|debug|normal|2024-05-02T14:10:00|2024-05-02T14:10:00|2024-05-02T14:10:00|00:00:00|00:10:00|1|128|128|128|FAILED|0", true},
		// A job that ran an hour.
		{"7007|7007|frank|chem|p-chem|compute|normal|2024-05-02T15:00:00|2024-05-02T15:00:02|2024-05-02T16:00:02|01:00:00|02:00:00|1|128|128|128|COMPLETED|0", true},
	}
	var in strings.Builder
	in.WriteString(hdr)
	var wantIDs []int64
	notStarted := 0
	for _, r := range rows {
		in.WriteString(r.line + "\n")
		if r.started {
			id, _ := strconv.ParseInt(strings.Split(r.line, "|")[1], 10, 64)
			wantIDs = append(wantIDs, id)
		} else {
			notStarted++
		}
	}
	tr, err := readSacctString(in.String(), SacctOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSacct(t, tr, SacctOptions{})
	var ids []int64
	for _, r := range tr.Records {
		ids = append(ids, r.ID)
	}
	if st := tr.Sacct.Stats; !reflect.DeepEqual(ids, wantIDs) || st.DroppedNotStarted != notStarted || st.Jobs != len(wantIDs) {
		t.Errorf("read %v, want %v; stats %+v (want %d not started)", ids, wantIDs, st, notStarted)
	}
	// Only the users of the jobs read are named.
	if got := tr.Sacct.Names[NameUser]; !reflect.DeepEqual(got, []string{"erin", "frank"}) {
		t.Errorf("users %q", got)
	}
	_, cs := Clean(tr, Cleaning{Cores: 128})
	if cs.DroppedRuntime != 2 || cs.Jobs != 1 {
		t.Errorf("cleaning: %+v; want the two jobs that ran no time dropped for it", cs)
	}

	// Without Start and End, an Elapsed of 0 and no CPUs say the same.
	tr, err = readSacctString("JobID|Submit|Elapsed|AllocCPUS|State\n"+
		"8001|2024-05-02T10:00:00|00:00:00|0|CANCELLED by 7\n"+
		"8002|2024-05-02T10:00:00|00:00:00|8|CANCELLED by 7\n"+
		"8003|2024-05-02T10:00:00|00:10:00|8|COMPLETED\n", SacctOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr.Sacct.Stats; st.DroppedNotStarted != 1 || st.Jobs != 2 {
		t.Errorf("without Start and End: %+v", st)
	}
}
