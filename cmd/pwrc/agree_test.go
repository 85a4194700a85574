package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestCheckAgreesWithRun feeds `pwrc check` and `pwrc run` the same
// scenario over each kind of malformed or hostile input a user may hand
// them — SWF traces, Slurm accounting, price and carbon series — and over
// policies the data makes impossible, and requires that they agree: both
// reject the input with the same located message (file:line:col and what
// is wrong), or both accept it (check at most warning), and that neither
// panics. `check` is the only feedback an editor user gets before a run.
func TestCheckAgreesWithRun(t *testing.T) {
	const job = "1 0 0 3600 4 -1 -1 4 7200 -1 1 1 1 -1 1 1 -1 -1\n"
	const header = "; UnixStartTime: 1490400000\n; TimeZoneString: Europe/Berlin\n; MaxNodes: 16\n"
	good := header + job + "2 3600 0 3600 4 -1 -1 4 7200 -1 1 1 1 -1 1 1 -1 -1\n3 86400 0 600 2 -1 -1 2 7200 -1 1 1 1 -1 1 1 -1 -1\n"
	const sacctHdr = "JobID|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State\n"
	sacctJob := "5|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:10:00|00:10:00|01:00:00|1|1|COMPLETED\n"
	rng := rand.New(rand.NewPCG(1, 2))
	binary := make([]byte, 300)
	for i := range binary {
		binary[i] = byte(rng.IntN(256))
	}
	binary[100] = 0
	highBytes := bytes.Repeat([]byte{0xc3, 0x28, 0xff, ' '}, 30) // not UTF-8, no NUL
	utf16 := func(s string, bom []byte, be bool) string {
		out := append([]byte(nil), bom...)
		for _, c := range []byte(s) {
			if be {
				out = append(out, 0, c)
			} else {
				out = append(out, c, 0)
			}
		}
		return string(out)
	}
	gzipped := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	isoHours := func(from string, n int) string {
		var b strings.Builder
		b.WriteString("time,value\n")
		for h := range n {
			fmt.Fprintf(&b, "%sT%02d:00+01:00,%d\n", from, h%24, 300+h%3)
		}
		return b.String()
	}

	// Located: check says "FILE:LINE:COL: error: MSG" and run's failure
	// holds "FILE:LINE:COL: MSG". Scenario: check's error message (at the
	// scenario) is in run's failure. Prefix: both messages start alike up
	// to this. Both: both reject, check with this error, run with that.
	// Warn: check warns, run succeeds. OK: both succeed.
	type expect int
	const (
		located expect = iota
		scenario
		prefix
		both
		warn
		ok
	)
	cases := []struct {
		name      string
		files     map[string]string
		workload  string // default: swf "t.swf"
		contract  string // default: flat
		policy    string // default: p
		decls     string
		machine   string // default: m
		extra     string // more fields of the experiment
		want      expect
		check     string // a substring of check's first error (or warning)
		run       string // a substring of run's failure
		prefixLen string // prefix: the messages agree up to this text
	}{
		// SWF traces.
		{name: "swf good", files: map[string]string{"t.swf": good}, want: ok},
		{name: "swf gzipped good", files: map[string]string{"t.swf": gzipped(good)}, want: ok},
		{name: "swf crlf", files: map[string]string{"t.swf": strings.ReplaceAll(good, "\n", "\r\n")}, want: ok},
		{name: "swf empty", files: map[string]string{"t.swf": ""}, want: scenario, check: "trace t.swf has no jobs to simulate: it has no job records"},
		{name: "swf header only", files: map[string]string{"t.swf": header}, want: scenario, check: "it has no job records (the file is empty, or holds only its header)"},
		{name: "swf truncated", files: map[string]string{"t.swf": good[:len(good)-20]}, want: located, check: "t.swf:6:"},
		{name: "swf truncated gzip", files: map[string]string{"t.swf": gzipped(good)[:40]}, want: scenario, check: "truncated gzip data"},
		{name: "swf corrupt gzip", files: map[string]string{"t.swf": "\x1f\x8b\x08\x00garbage garbage garbage"}, want: scenario, check: "gzip"},
		{name: "swf binary", files: map[string]string{"t.swf": string(binary)}, want: located, check: "a NUL byte"},
		{name: "swf binary without nul", files: map[string]string{"t.swf": string(highBytes)}, want: located, check: "t.swf:1:"},
		{name: "swf utf-16", files: map[string]string{"t.swf": utf16(good, []byte{0xff, 0xfe}, false)}, want: located, check: "t.swf:1:1: error: the file is UTF-16 text"},
		{name: "swf utf-16 big endian", files: map[string]string{"t.swf": utf16(good, []byte{0xfe, 0xff}, true)}, want: located, check: "t.swf:1:1: error: the file is UTF-16 text"},
		{name: "swf utf-16 without mark", files: map[string]string{"t.swf": utf16(good, nil, false)}, want: located, check: "t.swf:1:2: error: a NUL byte"},
		{name: "swf utf-16 skipping", files: map[string]string{"t.swf": utf16(good, []byte{0xff, 0xfe}, false)}, workload: `swf "t.swf" { bad_lines skip }`, want: located, check: "UTF-16"},
		{name: "swf garbage", files: map[string]string{"t.swf": "hello world\nthis is not a trace\n"}, want: located, check: "t.swf:1:12: error: expected 18 fields, found 2"},
		{name: "swf too many fields", files: map[string]string{"t.swf": strings.TrimSuffix(job, "\n") + " 7\n"}, want: located, check: "t.swf:1:49: error: expected 18 fields, found 19"},
		{name: "swf not a number", files: map[string]string{"t.swf": strings.Replace(job, " 3600 ", " 1h ", 1)}, want: located, check: "t.swf:1:7: error: field 4 (run time) is not a number"},
		{name: "swf nan", files: map[string]string{"t.swf": strings.Replace(job, " 3600 ", " nan ", 1)}, want: located, check: "is not a number: \"nan\""},
		{name: "swf huge time", files: map[string]string{"t.swf": strings.Replace(job, " 3600 ", " 1e300 ", 1)}, want: located, check: "more than pwrc's limit"},
		{name: "swf bad header", files: map[string]string{"t.swf": "; MaxProcs: lots\n" + job}, want: located, check: "t.swf:1:13: error: header MaxProcs"},
		{name: "swf long line", files: map[string]string{"t.swf": strings.Repeat("9", 1<<20+5) + "\n" + job}, want: located, check: "t.swf:1:1: error: line longer than"},
		{name: "swf all lines skipped", files: map[string]string{"t.swf": "x\ny\n"}, workload: `swf "t.swf" { bad_lines skip }`, want: scenario, check: "no valid job records, only 2 malformed lines skipped"},
		{name: "swf every job too wide", files: map[string]string{"t.swf": strings.Replace(job, " 4 -1 -1 4 ", " 64 -1 -1 64 ", 1)}, want: scenario, check: "1 wider than the machine's 16 nodes"},
		{name: "swf no run times", files: map[string]string{"t.swf": strings.Replace(job, " 3600 ", " 0 ", 1)}, want: scenario, check: "1 with run time ≤ 0"},

		// Slurm accounting.
		{name: "sacct good", files: map[string]string{"j.txt": sacctHdr + sacctJob}, workload: `sacct "j.txt"`, want: ok},
		{name: "sacct empty", files: map[string]string{"j.txt": ""}, workload: `sacct "j.txt"`, want: located, check: "j.txt:1:1: error: no header line"},
		{name: "sacct blank", files: map[string]string{"j.txt": "\n\n  \n"}, workload: `sacct "j.txt"`, want: located, check: "j.txt:3:1: error: no header line"},
		{name: "sacct no header", files: map[string]string{"j.txt": sacctJob}, workload: `sacct "j.txt"`, want: located, check: "j.txt:1:1: error: header: the first line is data"},
		{name: "sacct comma-separated", files: map[string]string{"j.txt": strings.ReplaceAll(sacctHdr+sacctJob, "|", ",")}, workload: `sacct "j.txt"`, want: located, check: "comma-separated"},
		{name: "sacct missing columns", files: map[string]string{"j.txt": "JobID|Submit|State\n5|2024-01-01T00:00:00|COMPLETED\n"}, workload: `sacct "j.txt"`, want: located, check: "j.txt:1:1: error: header: no Elapsed (or Start and End) field"},
		{name: "sacct column twice", files: map[string]string{"j.txt": "JobID|Submit|Elapsed|NCPUS|jobid\n"}, workload: `sacct "j.txt"`, want: located, check: "j.txt:1:28: error: header: JobID appears twice"},
		{name: "sacct missing field", files: map[string]string{"j.txt": sacctHdr + "5|2024-01-01T00:00:00|2024-01-01T00:00:00\n"}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:42: error: expected 9 fields as in the header, found 3"},
		{name: "sacct bad submit", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "|2024-01-01T00:00:00|2024", "|01/01/2024 00:00|2024", 1)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:3: error: Submit: want a time"},
		{name: "sacct bad date", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "2024-01-01T00:10:00", "2024-02-30T00:10:00", 1)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:43: error: End: want a time"},
		{name: "sacct end before start", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "2024-01-01T00:10:00", "2023-12-31T00:10:00", 1)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:43: error: End \"2023-12-31T00:10:00\" is before Start"},
		{name: "sacct bad time limit", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "01:00:00", "1 hour", 1)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:72: error: Timelimit: want a duration"},
		{name: "sacct time limit out of range", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "01:00:00", "9999999-00:00:00", 1)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:2:72: error: Timelimit"},
		{name: "sacct nul", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "COMPLETED", "COMP\x00LETED", 1)}, workload: `sacct "j.txt" { bad_lines skip }`, want: located, check: "j.txt:2:89: error: a NUL byte"},
		{name: "sacct utf-16", files: map[string]string{"j.txt": utf16(sacctHdr+sacctJob, []byte{0xff, 0xfe}, false)}, workload: `sacct "j.txt"`, want: located, check: "j.txt:1:1: error: the file is UTF-16 text"},
		{name: "sacct only steps", files: map[string]string{"j.txt": sacctHdr + strings.Replace(sacctJob, "5|", "5.batch|", 1)}, workload: `sacct "j.txt"`, want: scenario, check: "it has no job lines, only 1 step line"},
		{name: "sacct only pending", files: map[string]string{"j.txt": sacctHdr + "5|2024-01-01T00:00:00|Unknown|Unknown|00:00:00|01:00:00|1|1|PENDING\n"}, workload: `sacct "j.txt"`, want: scenario, check: "(1 pending)"},
		{name: "sacct corrupt gzip", files: map[string]string{"j.txt": "\x1f\x8b\x08\x00nope"}, workload: `sacct "j.txt"`, want: scenario, check: "gzip"},

		// Hourly prices.
		{name: "prices good", files: map[string]string{"t.swf": good, "p.csv": strings.Repeat("0.1\n", 24*3)}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: ok},
		{name: "prices empty", files: map[string]string{"t.swf": good, "p.csv": ""}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: scenario, check: "price series p.csv: no prices"},
		{name: "prices header only", files: map[string]string{"t.swf": good, "p.csv": "time,price\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" { time hours } }`, want: scenario, check: "no prices"},
		{name: "prices one row", files: map[string]string{"t.swf": good, "p.csv": "0.1\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: scenario, check: "contract hourly_p: the hourly prices (p.csv: 1.0 hours of prices from 2017-03-25 00:00 CET) do not cover the run: they end at 2017-03-25 01:00 CET, before the run starts"},
		{name: "prices two rows", files: map[string]string{"t.swf": good, "p.csv": "0.1\n0.2\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: prefix, check: "do not cover the run", prefixLen: "contract hourly_p: the hourly prices (p.csv: 2.0 hours of prices from 2017-03-25 00:00 CET) do not cover the run: they end at 2017-03-25 02:00 CET, "},
		{name: "prices spring forward", files: map[string]string{"t.swf": good, "p.csv": "time,price\n2017-03-26 01:00,1\n2017-03-26 02:00,2\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" { time iso } }`, want: located, check: "p.csv:3:1: error: time 2017-03-26 02:00 does not exist in Europe/Berlin"},
		{name: "prices iso gap", files: map[string]string{"t.swf": good, "p.csv": "2017-03-25T00:00Z,1\n2017-03-25T02:00Z,2\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" { time iso } }`, want: located, check: "p.csv:2:1: error: time 2017-03-25 02:00Z comes 2 hours after line 1's"},
		{name: "prices timestamps read as days", files: map[string]string{"t.swf": good, "p.csv": "2017-03-25T00:00Z,1\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: located, check: "p.csv:1:1: error: time is not a number"},
		{name: "prices not a number", files: map[string]string{"t.swf": good, "p.csv": "0.1\n0,1\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: located, check: "p.csv:2:3: error: expected 1 column, found 2"},
		{name: "prices nul", files: map[string]string{"t.swf": good, "p.csv": "0.1\n0.\x002\n"}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: located, check: "p.csv:2:3: error: a NUL byte"},
		{name: "prices utf-16", files: map[string]string{"t.swf": good, "p.csv": utf16("0.1\n0.2\n", []byte{0xff, 0xfe}, false)}, contract: `hourly_p`, decls: `contract hourly_p { hourly "p.csv" }`, want: located, check: "p.csv:1:1: error: the file is UTF-16 text"},

		// Carbon intensity series, which take the price series' options.
		{name: "carbon iso", files: map[string]string{"t.swf": good, "c.csv": isoHours("2017-03-25", 24)}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" { time iso; unit kg/MWh; repeat } }`, want: ok},
		{name: "carbon iso without time iso", files: map[string]string{"t.swf": good, "c.csv": isoHours("2017-03-25", 24)}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" }`, want: located, check: "c.csv:2:1: error: time is not a number"},
		{name: "carbon too short", files: map[string]string{"t.swf": good, "c.csv": "300\n"}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" }`, want: scenario, check: "contract green: the carbon intensities (c.csv: 1.0 hours of intensities"},
		{name: "carbon short", files: map[string]string{"t.swf": good, "c.csv": "300\n300\n"}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" }`, want: prefix, check: "do not cover the run", prefixLen: "contract green: the carbon intensities (c.csv: 2.0 hours of intensities from 2017-03-25 00:00 CET) do not cover the run: they end at 2017-03-25 02:00 CET, "},
		{name: "carbon repeats", files: map[string]string{"t.swf": good, "c.csv": "300\n300\n"}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" { repeat } }`, want: ok},
		{name: "carbon negative", files: map[string]string{"t.swf": good, "c.csv": "300\n-5\n"}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" { repeat } }`, want: scenario, check: "hour 2 of the series has a negative intensity"},
		{name: "carbon bad line", files: map[string]string{"t.swf": good, "c.csv": "300\nabc\n"}, contract: `green`, decls: `contract green { flat 0.1 EUR/kWh; carbon hourly "c.csv" { repeat } }`, want: located, check: "c.csv:2:1: error: price is not a number"},

		// What the data makes impossible.
		{name: "cap below infrastructure", files: map[string]string{"t.swf": good}, policy: "capped", decls: "policy capped from p { powercap 1 kW }\nmachine m_infra from m { infrastructure 5 kW }", machine: "m_infra",
			want: both, check: "below machine `m_infra`'s infrastructure, 5 kW", run: "never started"},
		{name: "cap below the idle machine", files: map[string]string{"t.swf": good}, policy: "capped", decls: "policy capped from p { powercap 1 kW { mode idle } }",
			want: both, check: "below what machine `m` draws with every node idle, 1.12 kW", run: "never started"},
		{name: "cap below the idle machine in a window", files: map[string]string{"t.swf": good}, policy: "capped", decls: "policy capped from p { powercap 1 kW from 0 h for 1 h { mode dvfs } }\nmachine m_dvfs from m { power { pstate 2 GHz 260 W; pstate 1 GHz 150 W; slowdown 1.5 at 1 GHz } }", machine: "m_dvfs",
			want: warn, check: "below what machine `m_dvfs` draws with every node idle"},
		{name: "budget below the jobs", files: map[string]string{"t.swf": good}, policy: "tight", decls: "policy tight from p { budget 600 W }",
			want: both, check: "2 jobs weigh more than this budget, 600 W", run: "2 weigh more than the whole power budget, 600 W: the lightest of them, job 1, weighs 1.04 kW"},
		{name: "keep above a machine sized by its trace", files: map[string]string{"t.swf": good}, policy: "reserve", machine: "m_auto", decls: "policy reserve from p { shutdown idle after 10 min keep 40 }\nmachine m_auto from m { nodes auto }",
			want: warn, check: "keeps 40 idle nodes on, and machine `m_auto` has 16 (from the trace's header)"},
		{name: "synthetic run times out of range", workload: "synthetic { jobs 10; runtime 2e9 s }", want: scenario,
			check: "`runtime` is too long: 2e9 s (at most 30 d)"},
		{name: "submission window after the trace", files: map[string]string{"t.swf": good}, workload: `swf "t.swf" { submitted 30 d .. 40 d }`, want: scenario, check: "its cuts (keep, submitted) leave no job to simulate: 0 dropped by keep, 3 by submitted"},
		{name: "submission window empty on the clock", files: map[string]string{"t.swf": good}, workload: `swf "t.swf" { submitted "2017-04-01" .. 1 d }`, want: scenario, check: "the submission window \"2017-04-01 00:00\" .. 1 d is empty on this trace's clock"},
		{name: "accounting window empty on the clock", files: map[string]string{"t.swf": good}, want: scenario, check: "the accounting window", extra: `account "2017-04-01" .. 1 d`},
		{name: "accounting window after the trace", files: map[string]string{"t.swf": good}, want: warn, check: "starts after the last submission of the run's jobs", extra: "account 400 d .. 500 d"},
		{name: "jobs wider than the machine in units", files: map[string]string{"t.swf": good + "4 90000 0 600 16 -1 -1 16 7200 -1 1 1 1 -1 1 1 -1 -1\n"}, policy: "units", decls: "policy units from p { allocate contiguous 5 }",
			want: scenario, check: "1 job can never start: in whole units of 5 nodes (allocate contiguous 5) it needs more than the machine's 16 nodes"},
		{name: "active level below the widest job", files: map[string]string{"t.swf": good}, policy: "few", decls: "policy few from p { active fixed 2 }",
			want: scenario, check: "policy few: `active fixed 2` keeps 2 nodes active, and a job needs 4: it could never start"},
		{name: "active level above a machine sized by its trace", files: map[string]string{"t.swf": good}, policy: "many", machine: "m_auto", decls: "policy many from p { active two_level { low 20; high 40 } }\nmachine m_auto from m { nodes auto }",
			want: scenario, check: "two_level { low 20; high 40 } is 20..40 nodes, and machine m_auto has 16"},
		{name: "keep drops every job", files: map[string]string{"t.swf": good}, workload: `swf "t.swf" { keep job.nodes > 100 }`, want: scenario, check: "3 dropped by keep, 0 by submitted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, k, p, m := c.workload, c.contract, c.policy, c.machine
			if w == "" {
				w = `swf "t.swf"`
			}
			flat := ""
			if k == "" {
				k, flat = "flat", "contract flat { flat 0.1 EUR/kWh }"
			}
			if p == "" {
				p = "p"
			}
			if m == "" {
				m = "m"
			}
			src := fmt.Sprintf(`machine m { nodes 16; power { idle 70 W; busy 260 W } }
%s
policy p { order job.submit }
%s
experiment e {
  workload %s
  machine %s
  contract %s
  policy %s
  %s
}
`, flat, c.decls, w, m, k, p, c.extra)
			if err := os.WriteFile("s.pwr", []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			checkOut, checkErr, checkCode := pwrc(t, "check", "s.pwr")
			_, runErr, runCode := pwrc(t, "run", "s.pwr")
			for _, out := range []string{checkOut, checkErr, runErr} {
				if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
					t.Fatalf("a Go stack trace:\n%s", out)
				}
			}
			diag := firstDiag(checkOut)
			failure := runFailure(runErr)
			if failure == "" && runCode == 1 {
				// run refused the scenario before simulating: with the
				// same diagnostic as check, from the same compiler.
				if rd := firstDiag(runErr); rd == diag {
					failure = rd.loc + ": " + rd.msg
					if !strings.HasSuffix(rd.loc, ".pwr") {
						failure = rd.loc + ": " + rd.msg
					}
				} else {
					t.Fatalf("run refused the scenario, but not as check:\ncheck: %+v\nrun:   %+v\n%s", diag, rd, runErr)
				}
			}
			switch c.want {
			case ok:
				if checkCode != 0 || runCode != 0 || strings.Contains(checkOut, "warning:") {
					t.Fatalf("want both to accept: check exit %d:\n%s\nrun exit %d:\n%s", checkCode, checkOut, runCode, runErr)
				}
				return
			case warn:
				if checkCode != 0 || runCode != 0 || !strings.Contains(checkOut, "warning: ") || !strings.Contains(checkOut, c.check) {
					t.Fatalf("want a warning from check (%q) and a run: check exit %d:\n%s\nrun exit %d:\n%s", c.check, checkCode, checkOut, runCode, runErr)
				}
				return
			}
			if checkCode != 1 || runCode != 1 || diag.msg == "" || failure == "" {
				t.Fatalf("want both to reject: check exit %d:\n%s\nrun exit %d:\n%s", checkCode, checkOut, runCode, runErr)
			}
			if !strings.Contains(diag.loc+": error: "+diag.msg, c.check) {
				t.Fatalf("check's error should say %q:\n%s", c.check, checkOut)
			}
			switch c.want {
			case located:
				// The same place in the data file, and the same words.
				if !strings.Contains(failure, diag.loc+": "+diag.msg) || !dataLoc.MatchString(diag.loc) || strings.HasSuffix(diag.loc, ".pwr") {
					t.Fatalf("run and check disagree:\ncheck: %s: %s\nrun:   %s", diag.loc, diag.msg, failure)
				}
				if !strings.Contains(checkOut, "note: the ") {
					t.Fatalf("no note at the scenario text that names the file:\n%s", checkOut)
				}
			case scenario:
				if !strings.Contains(failure, diag.msg) || !strings.HasPrefix(diag.loc, "s.pwr:") {
					t.Fatalf("run and check disagree:\ncheck: %s: %s\nrun:   %s", diag.loc, diag.msg, failure)
				}
			case prefix:
				if !strings.HasPrefix(diag.msg, c.prefixLen) || !strings.HasPrefix(failure, c.prefixLen) || !strings.Contains(failure, c.check) {
					t.Fatalf("run and check disagree:\ncheck: %s: %s\nrun:   %s", diag.loc, diag.msg, failure)
				}
			case both:
				if !strings.Contains(failure, c.run) {
					t.Fatalf("run should fail saying %q: %s", c.run, failure)
				}
			}
		})
	}
}

// dataLoc is file:line:col.
var dataLoc = regexp.MustCompile(`^[^:]+:\d+:\d+$`)

type diagnostic struct{ loc, msg string }

// firstDiag is the first error (else warning) check printed.
func firstDiag(out string) diagnostic {
	for _, sev := range []string{": error: ", ": warning: "} {
		for _, line := range strings.Split(out, "\n") {
			if loc, msg, ok := strings.Cut(line, sev); ok && !strings.HasPrefix(line, " ") {
				return diagnostic{loc, msg}
			}
		}
	}
	return diagnostic{}
}

// runFailure is the message of the first failed run in run's stderr.
func runFailure(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if _, msg, ok := strings.Cut(line, " failed: "); ok && strings.HasPrefix(line, "pwrc: run") {
			return msg
		}
	}
	return ""
}

// TestCheckJSONDataFile: for an editor, an error in a data file is at that
// file's line and column, with the line, and a note at the scenario text
// that names the file.
func TestCheckJSONDataFile(t *testing.T) {
	t.Chdir(t.TempDir())
	src := "machine m { nodes 16; power { idle 70 W; busy 260 W } }\ncontract flat { flat 0.1 EUR/kWh }\npolicy p { order job.submit }\n" +
		"experiment e {\n  workload swf \"t.swf\"\n  machine m\n  contract flat\n  policy p\n}\n"
	for name, text := range map[string]string{"s.pwr": src, "t.swf": "; MaxNodes: 16\n1 0 0 3600 4 -1 -1 4 7200 -1 1 1 1 -1 1 1 -1 x\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, code := pwrc(t, "check", "--format", "json", "s.pwr")
	var ds []struct {
		Severity, Summary, File, Source string
		Line, Col                       int
		SourceLine                      string `json:"source_line"`
		Notes                           []struct {
			File      string
			Line, Col int
		}
	}
	if err := json.Unmarshal([]byte(out), &ds); err != nil || code != 1 || len(ds) != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	d := ds[0]
	if d.File != "t.swf" || d.Line != 2 || d.Col != 46 || d.SourceLine != "1 0 0 3600 4 -1 -1 4 7200 -1 1 1 1 -1 1 1 -1 x" ||
		!strings.HasPrefix(d.Summary, "field 18 (think time) is not a number") || len(d.Notes) != 1 || d.Notes[0].File != "s.pwr" || d.Notes[0].Line != 5 {
		t.Fatalf("%+v", d)
	}
}
