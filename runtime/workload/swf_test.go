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
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/pwrc/pwrc/internal/testenv"
)

// line builds an SWF data line from the fields that matter, the rest -1.
func line(id, submit, wait, run, alloc, req, reqTime string) string {
	f := []string{id, submit, wait, run, alloc, "-1", "-1", req, reqTime, "-1", "1", "7", "3", "-1", "2", "4", "-1", "-1"}
	return strings.Join(f, " ")
}

func gz(t testing.TB, s []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// configs are the reading strategies every input must give the same result
// under: tiny chunks put line ends and multi-byte tokens across chunk
// boundaries.
var configs = []readConfig{
	{chunk: defaultChunk},
	{chunk: defaultChunk, pipeline: true},
	{chunk: 1},
	{chunk: 3, pipeline: true},
	{chunk: 7},
	// Size hints, right or wrong, only change how records are stored.
	{chunk: 11, sizeHint: 400},
	{chunk: 5, sizeHint: 40},
	{chunk: 2, sizeHint: 1 << 20, pipeline: true},
}

func TestReadSWF(t *testing.T) {
	kth := "; Computer: IBM SP2\n; MaxNodes: 100\n; MaxProcs: 100\n; UnixStartTime: 843480031\n" +
		"; TimeZone: 3600\n; TimeZoneString: Europe/Stockholm\n;\n" +
		"   15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1\n" +
		"   16   600022  11940   2488   25     -1    -1   25   3600    -1  1  13  13  -1 -1 -1 -1 -1\n"
	kthRecs := []Record{
		{ID: 15, Submit: 599850, Wait: 192180, Runtime: 3477, AllocProcs: 4, ReqProcs: 4, ReqTime: 53940, Status: 1, User: 12, Group: 12, Queue: -1, Partition: -1, Line: 8},
		{ID: 16, Submit: 600022, Wait: 11940, Runtime: 2488, AllocProcs: 25, ReqProcs: 25, ReqTime: 3600, Status: 1, User: 13, Group: 13, Queue: -1, Partition: -1, Line: 9},
	}
	kthHeader := Header{MaxNodes: 100, MaxProcs: 100, UnixStartTime: 843480031, HasStartTime: true,
		TimeZoneString: "Europe/Stockholm", TimeZone: 3600, HasTimeZone: true}

	tests := []struct {
		name    string
		in      string
		opt     ReadOptions
		header  Header
		recs    []Record
		bad     int
		first   []int
		wantErr string // substring; the full error is "x.swf:LINE: ..."
	}{
		{name: "empty", in: ""},
		{name: "blank lines", in: "\n\n  \t \n"},
		{name: "header only", in: "; MaxNodes: 64\n; MaxProcs: 128\n; Note: nothing ran\n", header: Header{MaxNodes: 64, MaxProcs: 128}},
		{name: "kth", in: kth, header: kthHeader, recs: kthRecs},
		{name: "crlf", in: strings.ReplaceAll(kth, "\n", "\r\n"), header: kthHeader, recs: kthRecs},
		{name: "byte order mark", in: "\ufeff" + kth, header: kthHeader, recs: kthRecs},
		{name: "byte order mark only at the start", in: line("1", "0", "5", "10", "2", "2", "60") + "\n\ufeff; MaxNodes: 4\n",
			wantErr: `x.swf:2:15: expected 18 fields, found 3`},
		{name: "no final newline", in: strings.TrimSuffix(kth, "\n"), header: kthHeader, recs: kthRecs},
		{name: "tabs and blanks between", in: "\n" + strings.ReplaceAll(line("1", "0", "5", "10", "2", "2", "60"), " ", "\t ") + "\n\n",
			recs: []Record{{ID: 1, Submit: 0, Wait: 5, Runtime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 60, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 2}}},
		{name: "decimals and exponents", in: line("2", "465.5", "5", "3362.25", "32", "32.0", "9e2") + "\n" + line("+3", "1.5e3", "-1", "1E1", "1", "1", ".5") + "\n",
			recs: []Record{
				{ID: 2, Submit: 465.5, Wait: 5, Runtime: 3362.25, AllocProcs: 32, ReqProcs: 32, ReqTime: 900, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 1},
				{ID: 3, Submit: 1500, Wait: -1, Runtime: 10, AllocProcs: 1, ReqProcs: 1, ReqTime: 0.5, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 2},
			}},
		{name: "long numbers", in: line("1", "-0", "12345678901234567890", "0.1000000000000000055511151231257827", "2", "0002", "1e-400"),
			recs: []Record{{ID: 1, Submit: 0, Wait: 12345678901234567890, Runtime: 0.1, AllocProcs: 2, ReqProcs: 2, ReqTime: 0, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 1}}},
		{name: "header keys exact", in: "; maxnodes: 5\n; MaxNodesX: 7\n;MaxNodes:9\n;  TimeZoneString :  US/Pacific  \n",
			header: Header{MaxNodes: 9, TimeZoneString: "US/Pacific"}},
		{name: "header negative zone and start", in: "; TimeZone: -28800\n; UnixStartTime: -5\n",
			header: Header{TimeZone: -28800, HasTimeZone: true, UnixStartTime: -5, HasStartTime: true}},
		{name: "comment after data", in: line("1", "0", "5", "10", "2", "2", "60") + "\n; MaxNodes: 4\n", header: Header{MaxNodes: 4},
			recs: []Record{{ID: 1, Submit: 0, Wait: 5, Runtime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 60, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 1}}},

		{name: "not a number", in: "; x\n" + line("1", "0", "5", "abc", "2", "2", "60"), wantErr: `x.swf:2:7: field 4 (run time) is not a number: "abc"`},
		{name: "too few fields", in: "1 2 3 4 5 6 7 8 9 10 11 12\n", wantErr: "x.swf:1:27: expected 18 fields, found 12"},
		{name: "too many fields", in: line("1", "0", "5", "10", "2", "2", "60") + " 0\n", wantErr: "x.swf:1:45: expected 18 fields, found 19"},
		{name: "count before content", in: "1 2 x\n", wantErr: "x.swf:1:6: expected 18 fields, found 3"},
		{name: "infinite", in: line("1", "0", "5", "1e999", "2", "2", "60"), wantErr: `x.swf:1:7: field 4 (run time) is out of range: "1e999"`},
		{name: "inf word", in: line("1", "inf", "5", "10", "2", "2", "60"), wantErr: `field 2 (submit time) is not a number: "inf"`},
		{name: "nan word", in: line("1", "0", "NaN", "10", "2", "2", "60"), wantErr: `field 3 (wait time) is not a number: "NaN"`},
		{name: "hex", in: line("1", "0x10", "5", "10", "2", "2", "60"), wantErr: `field 2 (submit time) is not a number: "0x10"`},
		{name: "underscore", in: line("1", "1_0", "5", "10", "2", "2", "60"), wantErr: `field 2 (submit time) is not a number: "1_0"`},
		{name: "lone sign", in: line("1", "0", "-", "10", "2", "2", "60"), wantErr: `field 3 (wait time) is not a number: "-"`},
		{name: "two dots", in: line("1", "0", "1.2.3", "10", "2", "2", "60"), wantErr: `field 3 (wait time) is not a number: "1.2.3"`},
		{name: "fraction in integer field", in: line("1", "0", "5", "10", "2.5", "2", "60"), wantErr: `x.swf:1:10: field 5 (allocated procs) is not an integer in range: "2.5"`},
		{name: "fraction in partition", in: strings.Replace(line("1", "0", "5", "10", "2", "2", "60"), " 2 4 ", " 2 4.5 ", 1),
			wantErr: `x.swf:1:37: field 16 (partition) is not an integer in range: "4.5"`},
		{name: "huge integer field", in: line("1", "0", "5", "10", "9999999999", "2", "60"), wantErr: `field 5 (allocated procs) is not an integer in range: "9999999999"`},
		{name: "huge job number", in: line("1e300", "0", "5", "10", "2", "2", "60"), wantErr: `field 1 (job number) is not an integer in range`},
		// Times past 317 years would have the engine step through billions
		// of hours, or stall where a float64 cannot add an hour.
		{name: "huge submit time", in: line("1", "1e15", "5", "10", "2", "2", "60"), wantErr: `x.swf:1:3: field 2 (submit time) is out of range: "1e15" s is more than pwrc's limit of 1e10 s (317 years)`},
		{name: "huge run time", in: line("1", "0", "5", "10000000001", "2", "2", "60"), wantErr: `field 4 (run time) is out of range: "10000000001" s`},
		{name: "huge requested time", in: line("1", "0", "5", "10", "2", "2", "1e300"), wantErr: `field 9 (requested time) is out of range: "1e300" s`},
		{name: "times at the limit", in: line("1", "1e10", "5", "1e10", "2", "2", "1e10"),
			recs: []Record{{ID: 1, Submit: 1e10, Wait: 5, Runtime: 1e10, AllocProcs: 2, ReqProcs: 2, ReqTime: 1e10, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 1}}},
		{name: "start time too far", in: "; UnixStartTime: 9223372036854775807\n", wantErr: `header UnixStartTime: want an integer (seconds since 1970, at most 1e11 either way), found "9223372036854775807"`},
		{name: "semicolon inside data", in: line("1", "0", "5", "10", "2", "2", "60") + " ;c", wantErr: "expected 18 fields, found 19"},
		{name: "nul byte", in: line("1", "0", "5", "1\x000", "2", "2", "60"), wantErr: "x.swf:1:8: a NUL byte: this is not a text file"},
		// Columns count characters, as editors do, not bytes.
		{name: "column in characters", in: line("ééé", "0", "5", "10", "2", "2", "60") + " x\n", wantErr: "x.swf:1:47: expected 18 fields, found 19"}, // 50 in bytes
		{name: "column after a tab", in: "\t1 2 x\n", wantErr: "x.swf:1:7: expected 18 fields, found 3"},
		// A file that is not text is refused whatever bad_lines says.
		{name: "utf-16", in: "\xff\xfe1\x00 \x000\x00\n\x00", opt: ReadOptions{SkipBadLines: true}, wantErr: "x.swf:1:1: the file is UTF-16 text"},
		{name: "utf-16 big endian", in: "\xfe\xff\x001\x00 ", wantErr: "x.swf:1:1: the file is UTF-16 text"},
		{name: "nul byte skipping", in: line("1", "0", "5", "10", "2", "2", "60") + "\nab\x00", opt: ReadOptions{SkipBadLines: true}, wantErr: "x.swf:2:3: a NUL byte"},
		{name: "long token clipped", in: line("1", "0", "5", strings.Repeat("9", 30)+"x"+strings.Repeat("9", 100), "2", "2", "60"),
			wantErr: `is not a number: "` + strings.Repeat("9", 30) + "x999999999...\""},
		{name: "bad MaxNodes", in: "; MaxNodes: many\n", wantErr: `x.swf:1:13: header MaxNodes: want a non-negative integer, found "many"`},
		{name: "negative MaxProcs", in: "\n; MaxProcs: -1\n", wantErr: `x.swf:2:13: header MaxProcs: want a non-negative integer`},
		{name: "bad start time", in: "; UnixStartTime: 8.4e8\n", wantErr: `header UnixStartTime: want an integer`},
		{name: "bad zone offset", in: "; TimeZone: +1h\n", wantErr: `header TimeZone: want a UTC offset in seconds, found "+1h"`},
		{name: "zone offset too big", in: "; TimeZone: 90000\n", wantErr: `header TimeZone`},
		{name: "empty zone name", in: "; TimeZoneString:\n", wantErr: `header TimeZoneString: want a zone name`},
		{name: "zone name with space", in: "; TimeZoneString: Europe / Paris\n", wantErr: `header TimeZoneString`},

		{name: "skip bad lines", opt: ReadOptions{SkipBadLines: true},
			in: "; MaxNodes: x\n" + line("1", "0", "5", "10", "2", "2", "60") + "\n1 2 3\n" +
				line("2", "0", "5", "abc", "2", "2", "60") + "\n" + line("3", "0", "5", "10", "2", "2", "60") + "\n",
			recs: []Record{
				{ID: 1, Submit: 0, Wait: 5, Runtime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 60, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 2},
				{ID: 3, Submit: 0, Wait: 5, Runtime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 60, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 5},
			}, bad: 3, first: []int{1, 3, 4}},
		{name: "skip keeps first five", opt: ReadOptions{SkipBadLines: true},
			in:   strings.Repeat("x\n", 8) + line("9", "0", "5", "10", "2", "2", "60") + "\n",
			recs: []Record{{ID: 9, Submit: 0, Wait: 5, Runtime: 10, AllocProcs: 2, ReqProcs: 2, ReqTime: 60, Status: 1, User: 7, Group: 3, Queue: 2, Partition: 4, Line: 9}},
			bad:  8, first: []int{1, 2, 3, 4, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, compress := range []bool{false, true} {
				in := []byte(tc.in)
				if compress {
					in = gz(t, in)
				}
				for _, cfg := range configs {
					where := fmt.Sprintf("gzip=%v %+v", compress, cfg)
					tr, err := readSWF("x.swf", bytes.NewReader(in), tc.opt, cfg)
					if tc.wantErr != "" {
						var le *LineError
						if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &le) || le.File != "x.swf" {
							t.Fatalf("%s: error %v, want a *LineError containing %q", where, err, tc.wantErr)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					if tr.Name != "x.swf" || tr.Header != tc.header || tr.BadLines != tc.bad ||
						!reflect.DeepEqual(tr.FirstBad, tc.first) || len(tr.Records) != len(tc.recs) ||
						len(tc.recs) > 0 && !reflect.DeepEqual(tr.Records, tc.recs) {
						t.Fatalf("%s: got\n%+v\nwant header %+v records %+v bad %d %v", where, tr, tc.header, tc.recs, tc.bad, tc.first)
					}
				}
			}
		})
	}
}

// A line longer than maxLine is malformed, and reading one does not hold
// more of it than that, however long it is.
func TestLongLine(t *testing.T) {
	long := strings.Repeat("1", 3*maxLine)
	good := line("1", "0", "5", "10", "2", "2", "60")
	for _, in := range []string{long, good + "\n" + long + "\n" + good + "\n"} {
		_, err := ReadSWF("l.swf", strings.NewReader(in), ReadOptions{})
		want := "line longer than 1048576 bytes"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "l.swf:") {
			t.Fatalf("error %v, want %q", err, want)
		}
		tr, err := ReadSWF("l.swf", strings.NewReader(in), ReadOptions{SkipBadLines: true})
		if err != nil || tr.BadLines != 1 {
			t.Fatalf("skipping: %v, %+v", err, tr)
		}
	}
}

func TestLineErrorFormat(t *testing.T) {
	e := &LineError{File: "a/b.swf.gz", Line: 12, Msg: "expected 18 fields, found 3"}
	if got, want := e.Error(), "a/b.swf.gz:12: expected 18 fields, found 3"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	e.Col = 7
	if got, want := e.Error(), "a/b.swf.gz:12:7: expected 18 fields, found 3"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestCorruptGzip(t *testing.T) {
	var plain strings.Builder
	for i := range 5000 {
		plain.WriteString(line(strconv.Itoa(i+1), strconv.Itoa(i*10), "5", "10", "2", "2", "60") + "\n")
	}
	full := gz(t, []byte(plain.String()))
	flipped := bytes.Clone(full)
	flipped[len(flipped)/2] ^= 0xff
	badCRC := bytes.Clone(full)
	badCRC[len(badCRC)-6] ^= 1
	cases := map[string][]byte{
		"truncated middle":  full[:len(full)/2],
		"truncated trailer": full[:len(full)-3],
		"header only":       full[:5],
		"magic only":        full[:2],
		"flipped byte":      flipped,
		"bad checksum":      badCRC,
		"trailing garbage":  append(bytes.Clone(full), "garbage"...),
	}
	for name, data := range cases {
		for _, cfg := range configs[:2] {
			tr, err := readSWF("trace.swf.gz", bytes.NewReader(data), ReadOptions{SkipBadLines: true}, cfg)
			if err == nil {
				t.Errorf("%s %+v: no error, %d records", name, cfg, len(tr.Records))
				continue
			}
			if !strings.HasPrefix(err.Error(), "trace.swf.gz: ") || !strings.Contains(err.Error(), "gzip") {
				t.Errorf("%s %+v: error %q should name the file and say gzip", name, cfg, err)
			}
		}
	}
	// A reader failing midway is reported with the file name.
	boom := errors.New("disk on fire")
	_, err := ReadSWF("p.swf", io.MultiReader(strings.NewReader(plain.String()[:5000]), iotest.ErrReader(boom)), ReadOptions{})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "p.swf: ") {
		t.Errorf("reader error: got %v", err)
	}
	_, err = ReadSWF("p.swf.gz", io.MultiReader(bytes.NewReader(full[:3000]), iotest.ErrReader(boom)), ReadOptions{})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "p.swf.gz: ") {
		t.Errorf("reader error in gzip: got %v", err)
	}
}

// A one-byte-at-a-time reader and concatenated gzip members still read
// correctly.
func TestReaderShapes(t *testing.T) {
	a := line("1", "0", "5", "10", "2", "2", "60") + "\n"
	b := line("2", "4", "5", "10", "2", "2", "60") + "\n"
	multi := append(gz(t, []byte(a)), gz(t, []byte(b))...)
	for _, cfg := range configs {
		tr, err := readSWF("m.swf.gz", iotest.OneByteReader(bytes.NewReader(multi)), ReadOptions{}, cfg)
		if err != nil || len(tr.Records) != 2 || tr.Records[1].ID != 2 || tr.Records[1].Line != 2 {
			t.Fatalf("%+v: %v %+v", cfg, err, tr)
		}
	}
}

func TestOpenSWF(t *testing.T) {
	dir := t.TempDir()
	content := "; MaxNodes: 3\n" + line("1", "0", "5", "10", "2", "2", "60") + "\n"
	plain, zipped := filepath.Join(dir, "a.swf"), filepath.Join(dir, "a.swf.gz")
	if err := os.WriteFile(plain, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zipped, gz(t, []byte(content)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zipped} {
		tr, err := OpenSWF(p, ReadOptions{})
		if err != nil || tr.Name != p || tr.Header.MaxNodes != 3 || len(tr.Records) != 1 || tr.Records[0].Line != 2 {
			t.Fatalf("%s: %v %+v", p, err, tr)
		}
	}
	for p, want := range map[string]int64{plain: int64(len(content)), zipped: int64(len(content))} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := textSize(f); got != want {
			t.Errorf("textSize(%s) = %d, want %d", p, got, want)
		}
		f.Close()
	}
	for _, c := range []struct {
		r    io.Reader
		want int64
	}{
		{bytes.NewReader(gz(t, []byte(content))), int64(len(content))},
		{strings.NewReader(content), int64(len(content))},
		{bytes.NewBufferString(content), 0}, // no ReadAt: unknown
		{bytes.NewReader(append([]byte{0x1f, 0x8b}, make([]byte, 30)...)), 0},
	} {
		if got := textSize(c.r); got != c.want {
			t.Errorf("textSize(%T) = %d, want %d", c.r, got, c.want)
		}
	}
	if _, err := OpenSWF(filepath.Join(dir, "missing.swf"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// refRead is a deliberately plain SWF reader (whole input in memory, regular
// expressions, strconv) that ReadSWF must agree with on every input.
func refRead(name string, data []byte, opt ReadOptions) (*Trace, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	tr := &Trace{Name: name}
	isBlank := func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f' }
	col := func(ln string, off int) int {
		if off < 0 {
			return 1
		}
		return utf8.RuneCountInString(ln[:off]) + 1
	}
	for i, ln := range strings.Split(strings.TrimPrefix(string(data), "\ufeff"), "\n") {
		seen := ln[:min(len(ln), 1<<20+1)] // what the reader keeps of a long line
		switch {
		case i == 0 && (strings.HasPrefix(ln, "\xff\xfe") || strings.HasPrefix(ln, "\xfe\xff")):
			return nil, &LineError{File: name, Line: 1, Col: 1, Msg: "the file is UTF-16 text, and pwrc reads ASCII or UTF-8: convert it (e.g. `iconv -f UTF-16 -t UTF-8`)"}
		case strings.Contains(seen, "\x00"):
			return nil, &LineError{File: name, Line: i + 1, Col: col(ln, strings.IndexByte(ln, 0)),
				Msg: "a NUL byte: this is not a text file (binary data, or UTF-16 text, which `iconv -f UTF-16 -t UTF-8` converts)"}
		}
		msg, off := "", -1
		if len(ln) > 1<<20 && strings.TrimFunc(seen, isBlank) != "" {
			msg = "line longer than 1048576 bytes"
		} else {
			msg, off = refLine(tr, ln, i+1, isBlank)
		}
		if msg == "" {
			continue
		}
		if !opt.SkipBadLines {
			return nil, &LineError{File: name, Line: i + 1, Col: col(ln, off), Msg: msg}
		}
		tr.BadLines++
		if len(tr.FirstBad) < 5 {
			tr.FirstBad = append(tr.FirstBad, i+1)
		}
	}
	return tr, nil
}

var refNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// refLine parses one line as ReadSWF should, returning "" or what is wrong
// and the byte offset of the culprit in ln (-1: the line).
func refLine(tr *Trace, ln string, n int, isBlank func(rune) bool) (string, int) {
	fields := strings.FieldsFunc(ln, isBlank)
	if len(fields) == 0 {
		return "", -1
	}
	spans := refField.FindAllStringIndex(ln, -1)
	if fields[0][0] == ';' {
		_, rest, _ := strings.Cut(ln, ";")
		key, val, ok := strings.Cut(rest, ":")
		if !ok {
			return "", -1
		}
		semi, colon := strings.IndexByte(ln, ';'), strings.IndexByte(rest, ':')
		valAt := semi + 1 + colon + 1 + len(val) - len(strings.TrimLeftFunc(val, isBlank))
		key, val = strings.TrimFunc(key, isBlank), strings.TrimFunc(val, isBlank)
		h := &tr.Header
		clipS := func(s string) string { return string(clip([]byte(s))) }
		switch key {
		case "MaxNodes", "MaxProcs":
			v, err := strconv.ParseInt(val, 10, 32)
			if err != nil || v < 0 {
				return fmt.Sprintf("header %s: want a non-negative integer, found %q", key, clipS(val)), valAt
			}
			if key == "MaxNodes" {
				h.MaxNodes = int(v)
			} else {
				h.MaxProcs = int(v)
			}
		case "UnixStartTime":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil || v > 1e11 || v < -1e11 {
				return fmt.Sprintf("header UnixStartTime: want an integer (seconds since 1970, at most 1e11 either way), found %q", clipS(val)), valAt
			}
			h.UnixStartTime, h.HasStartTime = v, true
		case "TimeZone":
			v, err := strconv.ParseInt(val, 10, 32)
			if err != nil || v < -86400 || v > 86400 {
				return fmt.Sprintf("header TimeZone: want a UTC offset in seconds, found %q", clipS(val)), valAt
			}
			h.TimeZone, h.HasTimeZone = int(v), true
		case "TimeZoneString":
			if !regexp.MustCompile(`^[!-~]+$`).MatchString(val) {
				return fmt.Sprintf("header TimeZoneString: want a zone name such as Europe/Paris, found %q", clipS(val)), valAt
			}
			h.TimeZoneString = val
		}
		return "", -1
	}
	if len(fields) < 18 {
		return fmt.Sprintf("expected 18 fields, found %d", len(fields)), spans[len(spans)-1][1]
	}
	if len(fields) > 18 {
		return fmt.Sprintf("expected 18 fields, found %d", len(fields)), spans[18][0]
	}
	var v [18]float64
	for k, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if !refNumber.MatchString(f) || err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Sprintf("field %d (%s) is not a number: %q", k+1, fieldNames[k], clip([]byte(f))), spans[k][0]
		}
		if math.IsInf(x, 0) {
			return fmt.Sprintf("field %d (%s) is out of range: %q", k+1, fieldNames[k], clip([]byte(f))), spans[k][0]
		}
		v[k] = x
	}
	for _, k := range []int{0, 4, 7, 10, 11, 12, 14, 15} {
		lim := float64(math.MaxInt32)
		if k == 0 {
			lim = 1 << 53
		}
		if v[k] != math.Trunc(v[k]) || math.Abs(v[k]) > lim {
			return fmt.Sprintf("field %d (%s) is not an integer in range: %q", k+1, fieldNames[k], clip([]byte(fields[k]))), spans[k][0]
		}
	}
	for _, k := range []int{1, 3, 8} {
		if v[k] > 1e10 {
			return fmt.Sprintf("field %d (%s) is out of range: %q s is more than pwrc's limit of 1e10 s (317 years)", k+1, fieldNames[k], clip([]byte(fields[k]))), spans[k][0]
		}
	}
	tr.Records = append(tr.Records, Record{ID: int64(v[0]), Submit: v[1], Wait: v[2], Runtime: v[3],
		AllocProcs: int(v[4]), ReqProcs: int(v[7]), ReqTime: v[8], Status: int(v[10]), User: int(v[11]),
		Group: int(v[12]), Queue: int(v[14]), Partition: int(v[15]), Line: n})
	return "", -1
}

// refField matches a field of a line, for the offsets refLine reports.
var refField = regexp.MustCompile("[^ \t\r\v\f]+")

// sameTrace compares two reading outcomes, treating nil and empty slices
// alike. Records compare with ==, so 0 and -0 are equal.
func sameTrace(a *Trace, aerr error, b *Trace, berr error) bool {
	if (aerr != nil) != (berr != nil) {
		return false
	}
	if aerr != nil {
		return aerr.Error() == berr.Error()
	}
	return a.Name == b.Name && a.Header == b.Header && a.BadLines == b.BadLines &&
		slicesEqual(a.FirstBad, b.FirstBad) && slicesEqual(a.Records, b.Records)
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkAgainstRef is the property both the fuzzer and the real-trace test
// check: every reading strategy agrees with refRead, plain or gzipped.
func checkAgainstRef(t *testing.T, data []byte, opt ReadOptions, cfgs []readConfig) {
	t.Helper()
	isGz := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
	want, werr := refRead("f.swf", data, opt)
	for _, cfg := range cfgs {
		if isGz && cfg.chunk < 64 {
			continue // a small stream may inflate to megabytes: too slow byte by byte
		}
		// OnRecords sees every record once, in order; with HandOnly the
		// trace keeps none.
		var handed, handedOnly []Record
		opt := opt
		opt.OnRecords = func(_ *Header, recs []Record, _ int) error {
			if len(recs) == 0 {
				t.Fatalf("%+v: OnRecords with no records", cfg)
			}
			handed = append(handed, recs...)
			return nil
		}
		got, err := readSWF("f.swf", bytes.NewReader(data), opt, cfg)
		if err == nil && !slices.Equal(handed, got.Records) {
			t.Fatalf("%+v: OnRecords handed %d records, the trace has %d (or they differ)", cfg, len(handed), len(got.Records))
		}
		only := opt
		only.HandOnly = true
		only.OnRecords = func(_ *Header, recs []Record, _ int) error {
			handedOnly = append(handedOnly, recs...)
			return nil
		}
		tr, err2 := readSWF("f.swf", bytes.NewReader(data), only, cfg)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%+v: HandOnly: error %v, without: %v", cfg, err2, err)
		}
		if err == nil && (tr.Records != nil || tr.Handed != len(got.Records) || !slices.Equal(handedOnly, got.Records) ||
			tr.Header != got.Header || tr.BadLines != got.BadLines) {
			t.Fatalf("%+v: HandOnly: kept %d, handed %d (%d), want %d", cfg, len(tr.Records), tr.Handed, len(handedOnly), len(got.Records))
		}
		if isGz {
			// The two inflaters may disagree on what is corrupt; they
			// must agree on what a valid stream holds.
			if err == nil && werr == nil && !sameTrace(got, err, want, werr) {
				t.Fatalf("%+v: gzip input read differently:\n got %+v\nwant %+v", cfg, got, want)
			}
			continue
		}
		if !sameTrace(got, err, want, werr) {
			t.Fatalf("%+v:\n got %+v, %v\nwant %+v, %v", cfg, got, err, want, werr)
		}
	}
	if !isGz && len(data) < 1<<20 {
		got, err := readSWF("f.swf", bytes.NewReader(gz(t, data)), opt, cfgs[0])
		if !sameTrace(got, err, want, werr) {
			t.Fatalf("gzipped:\n got %+v, %v\nwant %+v, %v", got, err, want, werr)
		}
	}
}

func FuzzReadSWF(f *testing.F) {
	f.Add([]byte("; MaxNodes: 100\n; TimeZoneString: Europe/Stockholm\n"+line("1", "0", "5", "10", "2", "2", "60")+"\n"), false)
	f.Add([]byte(line("2", "465.5", "5", "3362.25", "32", "32.0", "9e2")+"\r\n"+line("3", "1", "-1", "1e400", "1", "1", ".5")), true)
	f.Add([]byte("1 2 3\n\n;x: y\n"), true)
	f.Add(gz(f, []byte("; UnixStartTime: 843480031\n"+line("1", "0", "5", "10", "2", "2", "60")+"\n")), false)
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
			// Keep each run fast: a few kilobytes of gzip can inflate to
			// megabytes, and the minimizer runs such an input thousands of
			// times. Past the limit only the no-panic property is checked.
			if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
				if n, _ := io.Copy(io.Discard, io.LimitReader(zr, 1<<16+1)); n > 1<<16 {
					_, _ = ReadSWF("f.swf", bytes.NewReader(data), ReadOptions{SkipBadLines: skip})
					return
				}
			}
		}
		checkAgainstRef(t, data, ReadOptions{SkipBadLines: skip}, configs)
	})
}

// traceInfo is the README table of the shared data set: data records and
// header sizes, plus the machine shape used for cleaning (cores per node,
// nodes).
var traceInfo = map[string]struct {
	records            int
	maxNodes, maxProcs int
	cores, nodes       int
}{
	"KTH-SP2-1996-2.1-cln.swf.gz":      {28476, 100, 100, 1, 100},
	"SDSC-SP2-1998-first5K.swf.gz":     {4961, 128, 128, 1, 128},
	"HPC2N-2002-2.1-cln.swf.gz":        {202876, 240, 240, 2, 120},
	"SDSC-BLUE-2000-4.2-cln.swf.gz":    {243306, 144, 1152, 8, 144},
	"CEA-Curie-2011-2.1-cln.swf.gz":    {312826, 5544, 93312, 16, 5544},
	"LANL-CM5-1994-4.1-cln.swf.gz":     {122060, 1024, 1024, 1, 1024},
	"LLNL-Thunder-2007-1.1-cln.swf.gz": {121039, 1002, 4008, 4, 1002},
	"NASA-iPSC-1993-3.1-cln.swf.gz":    {18239, 128, 128, 1, 128},
	"lublin_256.swf.gz":                {10000, 256, 0, 1, 256},
}

var traceCache struct {
	sync.Mutex
	m map[string]*Trace
}

// loadTrace reads a shared trace once per test binary.
func loadTrace(t *testing.T, file string) *Trace {
	t.Helper()
	path := testenv.Data(t, "traces/"+file)
	traceCache.Lock()
	defer traceCache.Unlock()
	if tr := traceCache.m[file]; tr != nil {
		return tr
	}
	tr, err := OpenSWF(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if traceCache.m == nil {
		traceCache.m = map[string]*Trace{}
	}
	traceCache.m[file] = tr
	return tr
}

func TestRealTraces(t *testing.T) {
	dir := filepath.Dir(testenv.Data(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz"))
	files, err := filepath.Glob(filepath.Join(dir, "*.swf*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in %s: %v", dir, err)
	}
	for _, path := range files {
		file := filepath.Base(path)
		t.Run(file, func(t *testing.T) {
			info, ok := traceInfo[file]
			if !ok {
				t.Fatalf("%s is not in the README table this test knows", file)
			}
			tr := loadTrace(t, file)
			if len(tr.Records) != info.records || tr.BadLines != 0 {
				t.Errorf("%d records, %d bad lines; README says %d records", len(tr.Records), tr.BadLines, info.records)
			}
			if tr.Header.MaxNodes != info.maxNodes || tr.Header.MaxProcs != info.maxProcs {
				t.Errorf("header %+v, want MaxNodes %d MaxProcs %d", tr.Header, info.maxNodes, info.maxProcs)
			}
			if file != "lublin_256.swf.gz" && (!tr.Header.HasStartTime || tr.Header.TimeZoneString == "") {
				t.Errorf("header %+v lacks the start time or zone", tr.Header)
			}
			// Sized from the text's length, the slice has little spare room.
			if n := len(tr.Records); cap(tr.Records) > n+max(n/16, 1024) {
				t.Errorf("%d records in a slice of capacity %d", n, cap(tr.Records))
			}
			for i, r := range tr.Records {
				if i > 0 && r.Line <= tr.Records[i-1].Line {
					t.Fatalf("record %d: line %d not after %d", i, r.Line, tr.Records[i-1].Line)
				}
			}
			if !testenv.Long() {
				return
			}
			// The whole file against the reference reader.
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refRead(path, raw, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slicesEqual(tr.Records, want.Records) || tr.Header != want.Header {
				t.Errorf("differs from the reference reader")
			}
		})
	}
}

// TestParseFloat checks the number parser against strconv on many decimal
// shapes, long mantissas included: the short-decimal fast path must round
// exactly as strconv does.
func TestParseFloat(t *testing.T) {
	g := gen{src: rand.NewPCG(1, 2)}
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + g.intn(10))
		}
		return string(b)
	}
	for range 300000 {
		var s string
		if g.intn(2) == 0 {
			s = "-"
		}
		whole, frac := int(g.intn(21)), int(g.intn(21))
		s += digits(whole)
		if g.intn(4) != 0 {
			s += "." + digits(frac)
		}
		if g.intn(5) == 0 {
			s += "e" + strconv.Itoa(int(g.intn(700))-350)
		}
		want, werr := strconv.ParseFloat(s, 64)
		got, ok, rng := parseFloat([]byte(s))
		switch {
		case werr == nil && (!ok || math.Float64bits(got) != math.Float64bits(want)):
			t.Fatalf("%q: got %v (ok %v), strconv %v", s, got, ok, want)
		case werr != nil && ok:
			t.Fatalf("%q: accepted as %v, strconv says %v", s, got, werr)
		case werr != nil && rng != errors.Is(werr, strconv.ErrRange):
			t.Fatalf("%q: out-of-range %v, strconv says %v", s, rng, werr)
		}
	}
}

// gateReader returns data in one read, then takes a while to report EOF:
// long enough to see whether ReadSWF returns while a read is under way.
type gateReader struct {
	data   []byte
	inRead atomic.Int32
}

func (g *gateReader) Read(p []byte) (int, error) {
	g.inRead.Add(1)
	defer g.inRead.Add(-1)
	if len(g.data) > 0 {
		n := copy(p, g.data)
		g.data = g.data[n:]
		return n, nil
	}
	time.Sleep(30 * time.Millisecond)
	return 0, io.EOF
}

// An error in a gzip stream stops the inflating goroutine before ReadSWF
// returns, even when it is inside a slow read: the caller owns the reader
// again, and nothing leaks.
func TestPipelineStopsOnError(t *testing.T) {
	// The bad line ends exactly at a chunk boundary and one more byte
	// follows: the parser fails on a full chunk while the inflater, one
	// chunk ahead, is reading towards the end of the stream.
	const chunk = 8
	good := line("1", "0", "5", "10", "2", "2", "60")
	for (len(good)+1+len("1 2 3\n"))%chunk != 0 {
		good += " "
	}
	text := good + "\n1 2 3\nx"
	data := gz(t, []byte(text))
	before := runtime.NumGoroutine()
	for range 3 {
		g := &gateReader{data: data}
		_, err := readSWF("g.swf.gz", g, ReadOptions{}, readConfig{chunk: chunk, pipeline: true})
		if err == nil || !strings.Contains(err.Error(), "g.swf.gz:2:6: expected 18 fields") {
			t.Fatalf("error %v", err)
		}
		if n := g.inRead.Load(); n > 0 {
			t.Fatalf("ReadSWF returned while its reader was still being read")
		}
	}
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before, %d after", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An error from OnRecords stops reading, and ReadSWF returns it.
func TestOnRecordsStops(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		b.WriteString(line(strconv.Itoa(i+1), strconv.Itoa(i), "5", "10", "2", "2", "60") + "\n")
	}
	stop := errors.New("enough")
	calls := 0
	_, err := ReadSWF("f.swf", strings.NewReader(b.String()), ReadOptions{HandOnly: true, OnRecords: func(_ *Header, recs []Record, _ int) error {
		calls++
		return stop
	}})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("got %v after %d calls, want %v after 1", err, calls, stop)
	}
}
