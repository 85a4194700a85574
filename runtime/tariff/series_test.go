package tariff

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadPricesHours(t *testing.T) {
	s, err := ReadPrices("p.csv", strings.NewReader("hour,price\n0,10\n1,11\n2.00001,12\n"), Format{Time: TimeHours})
	if err != nil || !slices.Equal(s.Prices, []float64{10, 11, 12}) || s.Timed() {
		t.Fatalf("%v %v", s, err)
	}
	for _, tc := range []struct {
		name, in string
		f        TimeColumn
		want     string
	}{
		{"hours read as days", "0,10\n1,11\n", TimeDays,
			"p.csv:2:1: time 1 d does not follow 0 d by one hour (the times step by 1: if they count hours, write `time hours` in the block after the file's name)"},
		{"days read as hours", "0,10\n0.0416666666666667,11\n", TimeHours,
			"p.csv:2:1: time 0.0417 h does not follow 0 h by one hour (the times step by 0.0416667: if they count days, write `time days` in the block after the file's name)"},
		{"hours with a gap", "0,10\n2,11\n", TimeHours, "p.csv:2:1: time 2 h does not follow 0 h by one hour"},
		{"timestamps read as days", "2016-12-30T00:00,10\n", TimeDays,
			`p.csv:1:1: time is not a number: "2016-12-30T00:00" (the time column holds timestamps: write ` + "`time iso`" + ` in the block after the file's name)`},
		{"numbers read as timestamps", "0,10\n", TimeISO,
			`p.csv:1:1: time is not an ISO 8601 timestamp such as 2016-12-30T00:00+01:00: "0" (the time column holds numbers: write ` + "`time days` or `time hours`" + ` in the block after the file's name)`},
		{"iso without a time column", "price\n10\n", TimeISO,
			"p.csv:1:1: `time iso` needs a time column, but the rows have 1 column (write rows as time,price or index,time,price)"},
	} {
		_, err := ReadPrices("p.csv", strings.NewReader(tc.in), Format{Time: tc.f})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got  %v\n want %s", tc.name, err, tc.want)
		}
	}
}

func TestParseStamp(t *testing.T) {
	utc := func(s string) int64 {
		x, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return x.Unix()
	}
	for _, tc := range []struct {
		in     string
		wall   string
		off    int32
		hasOff bool
	}{
		{"2016-12-30T00:00", "2016-12-30 00:00:00", 0, false},
		{"2016-12-30 13:45:07", "2016-12-30 13:45:07", 0, false},
		{"2016-12-30t01:00:00.000", "2016-12-30 01:00:00", 0, false},
		{"2016-12-30T00:00Z", "2016-12-30 00:00:00", 0, true},
		{"2016-12-30T00:00:00+01:00", "2016-12-30 00:00:00", 3600, true},
		{"2016-12-30 00:00:00 -0530", "2016-12-30 00:00:00", -19800, true},
		{"2016-02-29T23:00+05", "2016-02-29 23:00:00", 18000, true},
	} {
		st, err := parseStamp(tc.in)
		if err != nil || st.wall != utc(tc.wall) || st.off != tc.off || st.hasOff != tc.hasOff {
			t.Errorf("%q: %+v, %v", tc.in, st, err)
		}
	}
	for _, in := range []string{"", "2016-12-30", "2016-12-30T0:00", "2016/12/30 00:00", "2016-13-01T00:00", "2015-02-29T00:00",
		"2016-12-30T24:00", "2016-12-30T00:60", "2016-12-30T00:00:61", "2016-12-30T00:00:00.5", "2016-12-30T00:00+1",
		"2016-12-30T00:00+01:0", "2016-12-30T00:00+19:00", "2016-12-30T00:00 Z", "2016-12-30T00:00CET", "+016-12-30T00:00",
		"2016-12-30T00:00:00.", "2016-12-30T00:00:00.0x"} {
		if st, err := parseStamp(in); err == nil {
			t.Errorf("%q accepted: %+v", in, st)
		}
	}
}

// Timestamps place the series; rows must be hourly, in order, without
// gaps or repeats, and errors name the line.
func TestReadPricesISO(t *testing.T) {
	berlin := mustLoad(t, "Europe/Berlin")
	newYork := mustLoad(t, "America/New_York")
	read := func(in string) (*Series, error) {
		return ReadPrices("p.csv", strings.NewReader(in), Format{Time: TimeISO})
	}
	for _, tc := range []struct {
		name, in string
		loc      *time.Location
		start    string // RFC 3339 in UTC
		prices   int
	}{
		{"UTC", "time,price\n2017-01-01T00:00Z,40\n2017-01-01T01:00Z,41\n", berlin, "2017-01-01T00:00:00Z", 2},
		{"offsets", "\"\",time,price\n1,2017-01-01T00:00+01:00,40\n2,2017-01-01T01:00+01:00,41\n", nil, "2016-12-31T23:00:00Z", 2},
		{"offsets across summer time", "2017-03-26T01:00+01:00,1\n2017-03-26T03:00+02:00,2\n2017-03-26T04:00+02:00,3\n", nil, "2017-03-26T00:00:00Z", 3},
		{"local, Berlin", "2017-01-01 00:00,40\n2017-01-01 01:00,41\n", berlin, "2016-12-31T23:00:00Z", 2},
		{"local, spring forward", "2017-03-26 01:00,1\n2017-03-26 03:00,2\n", berlin, "2017-03-26T00:00:00Z", 2},
		{"local, fall back twice", "2017-10-29 01:00,1\n2017-10-29 02:00,2\n2017-10-29 02:00,3\n2017-10-29 03:00,4\n", berlin, "2017-10-28T23:00:00Z", 4},
		{"local, starting in the repeated hour", "2017-10-29 02:00,2\n2017-10-29 02:00,3\n", berlin, "2017-10-29T00:00:00Z", 2},
		{"local, New York fall back", "2017-11-05 00:00,1\n2017-11-05 01:00,2\n2017-11-05 01:00,3\n2017-11-05 02:00,4\n", newYork, "2017-11-05T04:00:00Z", 4},
		{"local, UTC", "2017-10-29 01:00,1\n2017-10-29 02:00,2\n", nil, "2017-10-29T01:00:00Z", 2},
	} {
		s, err := read(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		start, err := s.Start(tc.loc)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := start.UTC().Format(time.RFC3339); got != tc.start || len(s.Prices) != tc.prices || !s.Timed() {
			t.Errorf("%s: starts %s with %d prices, want %s and %d", tc.name, got, len(s.Prices), tc.start, tc.prices)
		}
	}
	// Errors found when reading: the rows carry offsets.
	for _, tc := range []struct{ name, in, want string }{
		{"gap", "2017-01-01T00:00Z,1\n2017-01-01T01:00Z,2\n2017-01-01T04:00Z,3\n",
			"p.csv:3:1: time 2017-01-01 04:00Z comes 3 hours after line 2's (2017-01-01 01:00Z): 2 hours missing; rows must be hourly, without gaps"},
		{"duplicate", "2017-01-01T00:00+01:00,1\n2016-12-31T23:00Z,2\n",
			"p.csv:2:1: time 2016-12-31 23:00Z is the same hour as line 1's (2017-01-01 00:00+01:00) (each hour must appear once)"},
		{"backwards", "2017-01-01T05:00Z,1\n2017-01-01T04:00Z,2\n",
			"p.csv:2:1: time 2017-01-01 04:00Z comes before line 1's (2017-01-01 05:00Z): rows must be in time order"},
		{"half hour", "2017-01-01T00:00Z,1\n2017-01-01T00:30Z,2\n",
			"p.csv:2:1: time 2017-01-01 00:30Z is 30 minutes after line 1's (2017-01-01 00:00Z): rows must be one hour apart"},
		{"mixed offsets", "2017-01-01T00:00Z,1\n2017-01-01 01:00,2\n",
			"p.csv:2:1: time 2017-01-01 01:00 has no UTC offset, unlike line 1's (2017-01-01 00:00Z) (write every row with its offset, or none (then times are local))"},
		{"bad stamp", "2017-01-01T00:00Z,1\n2017-01-32T01:00Z,2\n", `p.csv:2:1: time is not a valid date and time: "2017-01-32T01:00Z"`},
	} {
		_, err := read(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got  %v\n want %s", tc.name, err, tc.want)
		}
	}
	// Errors found when the zone is known: the rows are local times.
	for _, tc := range []struct{ name, in, want string }{
		{"skipped hour", "2017-03-26 01:00,1\n2017-03-26 02:00,2\n",
			"p.csv:2:1: time 2017-03-26 02:00 does not exist in Europe/Berlin: clocks skip that hour when summer time starts (remove the row, or write timestamps with their UTC offset (e.g. 2017-03-26T03:00+02:00))"},
		{"repeated hour once", "2017-10-29 01:00,1\n2017-10-29 02:00,2\n2017-10-29 03:00,3\n",
			"p.csv:3:1: time 2017-10-29 03:00 comes 2 hours after line 2's (2017-10-29 02:00): 1 hour missing; rows must be hourly, without gaps (times without a UTC offset are local (Europe/Berlin): the hour repeated when summer time ends must appear twice)"},
		{"repeated hour thrice", "2017-10-29 02:00,1\n2017-10-29 02:00,2\n2017-10-29 02:00,3\n",
			"p.csv:3:1: time 2017-10-29 02:00 comes before line 2's (2017-10-29 02:00): rows must be in time order"},
		{"duplicate", "2017-01-01 00:00,1\n2017-01-01 00:00,2\n",
			"p.csv:2:1: time 2017-01-01 00:00 is the same hour as line 1's (2017-01-01 00:00) (each hour must appear once)"},
	} {
		s, err := read(tc.in)
		if err != nil {
			t.Errorf("%s: read: %v", tc.name, err)
			continue
		}
		_, err = s.Start(berlin)
		var le *LineError
		if err == nil || err.Error() != tc.want || !errors.As(err, &le) {
			t.Errorf("%s:\n got  %v\n want %s", tc.name, err, tc.want)
		}
	}
}

func TestScaled(t *testing.T) {
	s := &Series{Name: "x", Prices: []float64{145, -3.3, 0.1}}
	got := s.Scaled(1e-3)
	if want := []float64{0.145, -0.0033, 0.0001}; !slices.Equal(got.Prices, want) {
		t.Errorf("per MWh: %v, want %v", got.Prices, want)
	}
	if s.Prices[0] != 145 {
		t.Error("Scaled changed the caller's series")
	}
	if s.Scaled(1) != s || s.Scaled(0) != s {
		t.Error("scale 1 must return the series itself")
	}
	if got := s.Scaled(2.5).Prices; !slices.Equal(got, []float64{362.5, -8.25, 0.25}) {
		t.Errorf("scale 2.5: %v", got)
	}
}
