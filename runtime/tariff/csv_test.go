package tariff

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pwrc/pwrc/internal/testenv"
)

func TestReadPriceCSV(t *testing.T) {
	cases := []struct {
		name, in string
		want     []float64
	}{
		{"R export", "\"\",\"time\",\"price\"\n\"1\",0.0416666666666667,0.144031956510207\n\"2\",0.0833333333333333,0.146068590625709\n",
			[]float64{0.144031956510207, 0.146068590625709}},
		{"three columns, no header", "1,0.0416666666666667,0.1\n2,0.0833333333333333,-0.2\n", []float64{0.1, -0.2}},
		{"two columns", "time,price\n0,0.1\n0.0416666666666667,0.2\n0.0833333333333333,0.3\n", []float64{0.1, 0.2, 0.3}},
		{"two columns, no header", "10,0.1\n10.0416666666666667,0.2\n", []float64{0.1, 0.2}},
		{"one column", "price\n0.1\n0.2\n", []float64{0.1, 0.2}},
		{"one column, no header", "0.1\n-0.2\n3e-2\n", []float64{0.1, -0.2, 0.03}},
		{"single row", "0.14", []float64{0.14}},
		{"CRLF, BOM, blanks", "\uFEFF\"\",\"time\",\"price\"\r\n\r\n\"1\", 0.0416666666666667 , 0.1 \r\n   \r\n\"2\",0.0833333333333333,0.2\r\n\r\n",
			[]float64{0.1, 0.2}},
		{"time within tolerance", "0,0.1\n0.0416676,0.2\n", []float64{0.1, 0.2}},
		{"index ignored", "a,0,0.1\nb,0.0416666666666667,0.2\n", []float64{0.1, 0.2}},
	}
	for _, tc := range cases {
		s, err := ReadPriceCSV("p.csv", strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(s.Prices, tc.want) || s.Name != "p.csv" {
			t.Errorf("%s: got %q %v, want %v", tc.name, s.Name, s.Prices, tc.want)
		}
	}
}

func TestReadPriceCSVErrors(t *testing.T) {
	hdr := "\"\",\"time\",\"price\"\n"
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", "p.csv: no prices"},
		{"header only", hdr, "p.csv: no prices"},
		{"blank lines only", "\n\n  \n", "p.csv: no prices"},
		{"price not a number", hdr + "\"1\",0.0416666666666667,0.1\n\"2\",0.0833333333333333,x\n",
			`p.csv:3:24: price is not a number: "x"`},
		{"first row malformed is not a header", "1,0.04,x\n", `p.csv:1:8: price is not a number: "x"`},
		{"missing column", hdr + "\"1\",0.0416666666666667,0.1\n\"2\",0.0833\n", "p.csv:3:11: expected 3 columns, found 2"},
		{"extra column", "0.1\n0.2,0.3\n", "p.csv:2:5: expected 1 column, found 2"},
		{"too many columns", "a,b,c,d\n1,2,3,4\n", "p.csv:1:1: expected 1, 2 or 3 columns (index, time, price), found 4"},
		{"not hourly", hdr + "\"1\",0.0416666666666667,0.1\n\"2\",0.5,0.2\n", "p.csv:3:5: time 0.5 d does not follow 0.0417 d by one hour"},
		{"duplicate time", "0,0.1\n0.0416666666666667,0.2\n0.0416666666666667,0.3\n", "p.csv:3:1: time 0.0417 d does not follow 0.0417 d by one hour"},
		{"out of order", "1,0.1\n0.9583333333333333,0.2\n", "p.csv:2:1: time 0.9583 d does not follow 1 d by one hour"},
		{"slightly off", "0,0.1\n0.041669,0.2\n", "p.csv:2:1: time 0.041669 d does not follow 0 d by one hour"},
		{"time not a number", "0,0.1\nx,0.2\n", `p.csv:2:1: time is not a number: "x"`},
		{"NaN price", "0.1\nNaN\n", `p.csv:2:1: price is not finite: "NaN"`},
		{"NaN first", "NaN\n", `p.csv:1:1: price is not finite: "NaN"`},
		{"Inf price", "0.1\n+Inf\n", `p.csv:2:1: price is not finite: "+Inf"`},
		{"huge price", "0.1\n1e400\n", `p.csv:2:1: price is out of range: "1e400"`},
		{"NaN time", "0,0.1\nnan,0.2\n", `p.csv:2:1: time is not finite: "nan"`},
		{"empty price", "1,0,\n", `p.csv:1:5: price is not a number: ""`},
		{"bad quote", "\"1\",0,0.1\n\"2\"x,0.0416666666666667,0.2\n", `p.csv:2:3: extraneous or missing " in quoted-field`},
		{"line after blank lines", "0.1\n\n\n0.2\nx\n", `p.csv:5:1: price is not a number: "x"`},
	}
	for _, tc := range cases {
		s, err := ReadPriceCSV("p.csv", strings.NewReader(tc.in))
		if err == nil {
			t.Errorf("%s: no error, got %v", tc.name, s.Prices)
			continue
		}
		var le *LineError
		if !errors.As(err, &le) || le.File != "p.csv" {
			t.Errorf("%s: error %T %v is not a *LineError for p.csv", tc.name, err, err)
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, err, tc.want)
		}
	}
}

func TestReadPriceCSVReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("0.1\n0.2\n"), iotest.ErrReader(errors.New("disk on fire")))
	_, err := ReadPriceCSV("p.csv", r)
	if err == nil || err.Error() != "p.csv: disk on fire" {
		t.Errorf("error %v", err)
	}
}

// Errors point at the field, in characters, and a file that is not text
// says so.
func TestPriceErrorColumns(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		f        Format
		want     string
	}{
		{"after a multi-byte index", "ü,0,0.1\nü,0.0416666666666667,x\n", Format{}, `p.csv:2:22: price is not a number: "x"`}, // 23 in bytes
		{"past leading blanks", "1,  0, 0.1\n2, 0.0416666666666667,  x\n", Format{}, `p.csv:2:25: price is not a number: "x"`},
		{"after a byte order mark", "\uFEFF1,0,x\n", Format{}, `p.csv:1:6: price is not a number: "x"`},
		{"a timestamp", "1,2017-01-01T00:00Z,1\n2,2017-01-01T03:00Z,2\n", Format{Time: TimeISO}, "p.csv:2:3: time 2017-01-01 03:00Z comes 3 hours after"},
		{"utf-16", "\xff\xfe0\x00.\x001\x00\n\x00", Format{}, "p.csv:1:1: the file is UTF-16 text, and pwrc reads ASCII or UTF-8 (convert it, e.g. with `iconv -f UTF-16 -t UTF-8`)"},
		{"nul", "0.1\n0.\x002\n", Format{}, "p.csv:2:3: a NUL byte: this is not a text file"},
	} {
		_, err := ReadPrices("p.csv", strings.NewReader(tc.in), tc.f)
		var le *LineError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.As(err, &le) {
			t.Errorf("%s:\n got  %v\n want %s…", tc.name, err, tc.want)
		}
	}
	_, err := readPrices("p.csv", strings.NewReader(strings.Repeat("0.1\n", 100)), Format{}, 399)
	if err == nil || err.Error() != "p.csv: more than 399 bytes: not a file of hourly values" {
		t.Errorf("too big: %v", err)
	}
	if _, err := readPrices("p.csv", strings.NewReader(strings.Repeat("0.1\n", 100)), Format{}, 400); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestOpenPriceCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "prices.csv")
	if err := os.WriteFile(p, []byte("price\n0.1\nbad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPriceCSV(p)
	if err == nil || err.Error() != p+`:3:1: price is not a number: "bad"` {
		t.Errorf("error %v", err)
	}
	if _, err := OpenPriceCSV(filepath.Join(dir, "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestRealPrices reads the shared price series (Kunkel et al.'s T1–T3).
func TestRealPrices(t *testing.T) {
	for _, name := range []string{"T1", "T2", "T3"} {
		t.Run(name, func(t *testing.T) {
			s, err := OpenPriceCSV(testenv.Data(t, "prices/"+name+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Prices) != 12000 {
				t.Errorf("%d hours, want 12000", len(s.Prices))
			}
			sum, neg := 0.0, 0
			for _, p := range s.Prices {
				sum += p
				if p < 0 {
					neg++
				}
			}
			mean := sum / float64(len(s.Prices))
			if math.Abs(mean-0.14) > 0.005 {
				t.Errorf("mean %v, want about 0.14", mean)
			}
			if name == "T3" && neg == 0 {
				t.Error("T3 has no negative prices")
			}
			t.Logf("%s: %d hours, mean %.6f, %d negative", name, len(s.Prices), mean, neg)

			// As a tariff over its 500 days: the segment walk sees every hour.
			c := Clock{Epoch: 1027839845, Loc: mustLoad(t, "Europe/Stockholm")}
			start := LocalMidnight(c, 0)
			tf := Hourly(c, s, start)
			from, to := tf.Span()
			if from != c.Sim(start) || to != c.Sim(start)+12000*3600 {
				t.Errorf("Span() = %v, %v", from, to)
			}
			integral, _ := walkIntegral(tf, from, to)
			if rel := math.Abs(integral/3600-sum) / sum; rel > 1e-12 {
				t.Errorf("∫ price dt = %v h·EUR/kWh, Σ prices = %v", integral/3600, sum)
			}
		})
	}
}

func writeCSV(cols int, prices []float64, t0 float64) string {
	var b strings.Builder
	switch cols {
	case 3:
		b.WriteString("\"\",\"time\",\"price\"\n")
	case 2:
		b.WriteString("time,price\n")
	}
	for k, p := range prices {
		ps := strconv.FormatFloat(p, 'g', -1, 64)
		ts := strconv.FormatFloat(t0+float64(k)/24, 'g', 15, 64)
		switch cols {
		case 3:
			fmt.Fprintf(&b, "\"%d\",%s,%s\n", k+1, ts, ps)
		case 2:
			fmt.Fprintf(&b, "%s,%s\n", ts, ps)
		default:
			fmt.Fprintf(&b, "%s\n", ps)
		}
	}
	return b.String()
}

// writeRows writes prices with a time column of the given kind (hours
// from h0, or hourly UTC timestamps from 2017-01-01).
func writeRows(f TimeColumn, prices []float64, h0 float64) string {
	var b strings.Builder
	b.WriteString("time,price\n")
	t0 := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	for k, p := range prices {
		ps := strconv.FormatFloat(p, 'g', -1, 64)
		if f == TimeISO {
			fmt.Fprintf(&b, "%s,%s\n", t0.Add(time.Duration(k)*time.Hour).Format("2006-01-02T15:04Z07:00"), ps)
		} else {
			fmt.Fprintf(&b, "%s,%s\n", strconv.FormatFloat(h0+float64(k), 'g', 15, 64), ps)
		}
	}
	return b.String()
}

func FuzzReadPriceCSV(f *testing.F) {
	f.Add("\"\",\"time\",\"price\"\n\"1\",0.0416666666666667,0.144031956510207\n\"2\",0.0833333333333333,0.146068590625709\n")
	f.Add("time,price\n0,0.1\n0.0416666666666667,-0.2\n")
	f.Add("price\n0.1\n0.2\n")
	f.Add("0.1\nNaN\n")
	f.Add("\uFEFF1,0,0.1\r\n2,0.0416666666666667,0.2\r\n")
	f.Add("\"1\"x,0,0.1\n")
	f.Add("\"a\nb\",0,0.1\n")
	f.Add("0x1p-3\n1_0\n")
	f.Add("hour,price\n0,45.1\n1,47\n2,-3\n")
	f.Add("time,price\n2017-01-01T00:00+01:00,45.1\n2017-01-01T01:00+01:00,47\n")
	f.Add("1,2017-10-29 01:00,1\n2,2017-10-29 02:00,2\n3,2017-10-29 02:00,3\n4,2017-10-29 03:00,4\n")
	f.Add("2017-03-26 02:00:00.000,1\n2017-03-26T03:00Z,2\n")
	f.Add("2017-01-01 00:00:00 -0530,1\n2017-01-01 01:00:00 -0530,1\n")
	berlin := mustLoad(f, "Europe/Berlin")
	f.Fuzz(func(t *testing.T, in string) {
		for _, tc := range []TimeColumn{TimeDays, TimeHours, TimeISO} {
			s, err := ReadPrices("f.csv", strings.NewReader(in), Format{Time: tc})
			if err != nil {
				var le *LineError
				if !errors.As(err, &le) || le.File != "f.csv" || le.Line < 0 || !strings.HasPrefix(err.Error(), "f.csv") {
					t.Fatalf("%v: bad error %T %q", tc, err, err)
				}
				continue
			}
			if len(s.Prices) == 0 {
				t.Fatalf("%v: empty series without error", tc)
			}
			for _, p := range s.Prices {
				if math.IsNaN(p) || math.IsInf(p, 0) {
					t.Fatalf("%v: price %v accepted", tc, p)
				}
			}
			if s.Timed() != (tc == TimeISO) {
				t.Fatalf("%v: Timed() = %v", tc, s.Timed())
			}
			start := time.Unix(0, 0)
			if s.Timed() {
				var le *LineError
				if _, err := s.Start(berlin); err != nil && !errors.As(err, &le) {
					t.Fatalf("Start: %T %v", err, err)
				}
				st, err := s.Start(time.UTC)
				if err != nil {
					if !errors.As(err, &le) || le.Line <= 0 {
						t.Fatalf("Start: %T %v", err, err)
					}
					continue
				}
				start = st
			}
			// What was read survives a round trip through each format.
			for cols := 1; cols <= 3; cols++ {
				s2, err := ReadPriceCSV("g.csv", strings.NewReader(writeCSV(cols, s.Prices, 0.5)))
				if err != nil || !slices.Equal(s2.Prices, s.Prices) {
					t.Fatalf("round trip with %d columns: %v, %v, want %v", cols, err, s2, s.Prices)
				}
			}
			for _, f2 := range []TimeColumn{TimeHours, TimeISO} {
				s2, err := ReadPrices("g.csv", strings.NewReader(writeRows(f2, s.Prices, -3)), Format{Time: f2})
				if err != nil || !slices.Equal(s2.Prices, s.Prices) {
					t.Fatalf("round trip in %v: %v, want %v", f2, err, s.Prices)
				}
			}
			// And the series makes a usable tariff, whose integrals agree.
			c := Clock{}
			tf := Hourly(c, s, start)
			s0, _ := tf.Span()
			in := NewIntegrator(tf)
			for k := -1; k <= len(s.Prices); k++ {
				x := s0 + float64(k)*3600 + 1
				p, _, next := tf.At(x)
				if math.IsNaN(p) || !(next > x) {
					t.Fatalf("At(hour %d) = %v, next %v", k, p, next)
				}
				a, b := Integral(tf, x, x+3599), in.Integral(x-7200, x+3599)
				if (math.IsNaN(a) || math.IsNaN(b)) && slices.Max(s.Prices) < 1e300 && slices.Min(s.Prices) > -1e300 {
					t.Fatalf("integral NaN at hour %d", k)
				}
			}
		}
	})
}
