package tariff

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// LineError is an error at a line of a price file. Line 0 means the file as
// a whole (e.g. it holds no prices).
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	if e.Line <= 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

const (
	hourDays = 1.0 / 24
	// stepTol is the tolerance on the hourly step of the time column, in
	// days (0.0864 s): the files print times with 15 significant digits.
	stepTol = 1e-6
)

// ReadPriceCSV reads an hourly price series. Accepted rows, all of one form:
//
//	index,time,price   e.g. "1",0.0416666666666667,0.144031956510207
//	time,price
//	price
//
// time is in days, price in currency/kWh; fields may be quoted and an
// optional header line names the columns. Times must advance by exactly one
// hour (1/24 d, tolerance 1e-6 d) from row to row; the absolute value of the
// first time is not used: row k is hour k of the series, placed in time by
// Hourly's start. Negative prices are valid (they occur in spot markets);
// NaN and infinities are not. Errors are *LineError naming name and the line.
func ReadPriceCSV(name string, r io.Reader) (*Series, error) {
	br := bufio.NewReader(r)
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte("\uFEFF")) {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // counts are checked here, with clearer messages
	cr.ReuseRecord = true
	lineErr := func(line int, format string, args ...any) error {
		return &LineError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}

	s := &Series{Name: name}
	cols := 0 // columns per row, fixed by the header or the first row
	first := true
	var prevTime float64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, lineErr(pe.Line, "%v at byte %d", pe.Err, pe.Column)
			}
			return nil, &LineError{File: name, Msg: err.Error()}
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if len(rec) == 1 && rec[0] == "" {
			continue // a blank line (csv.Reader skips only empty ones)
		}
		if first {
			first = false
			if len(rec) < 1 || len(rec) > 3 {
				return nil, lineErr(line, "expected 1, 2 or 3 columns (index, time, price), found %d", len(rec))
			}
			cols = len(rec)
			if isHeader(rec) {
				continue
			}
		}
		if len(rec) != cols {
			return nil, lineErr(line, "expected %s, found %d", plural(cols, "column"), len(rec))
		}
		if cols >= 2 {
			text := rec[cols-2]
			tm, err := parseFinite(text)
			if err != nil {
				return nil, lineErr(line, "time %s", err)
			}
			if len(s.Prices) > 0 && math.Abs(tm-prevTime-hourDays) > stepTol {
				a, b := daysPair(prevTime, tm)
				return nil, lineErr(line, "time %s d does not follow %s d by one hour", b, a)
			}
			prevTime = tm
		}
		p, err := parseFinite(rec[cols-1])
		if err != nil {
			return nil, lineErr(line, "price %s", err)
		}
		s.Prices = append(s.Prices, p)
	}
	if len(s.Prices) == 0 {
		return nil, &LineError{File: name, Msg: "no prices"}
	}
	return s, nil
}

// OpenPriceCSV reads the price file at path; the series is named path.
func OpenPriceCSV(path string) (*Series, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPriceCSV(path, f)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// isHeader reports whether a first row names columns rather than holding
// data: no field is a number and each is empty or starts like a name. The
// second condition keeps a malformed first data row ("1,0.04,x") from being
// taken for a header and silently skipped.
func isHeader(rec []string) bool {
	named := false
	for _, f := range rec {
		if f == "" {
			continue
		}
		named = true
		if _, err := strconv.ParseFloat(f, 64); err == nil {
			return false
		}
		c := f[0]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
			return false
		}
	}
	return named
}

// parseFinite parses a finite float; its error completes "time ..." or
// "price ...".
func parseFinite(text string) (float64, error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("is out of range: %q", text)
		}
		return 0, fmt.Errorf("is not a number: %q", text)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("is not finite: %q", text)
	}
	return v, nil
}

// daysPair formats two times with enough decimals (at least 4) that the
// rounding cannot hide why b does not follow a by one hour.
func daysPair(a, b float64) (string, string) {
	dev := math.Abs(b - a - hourDays)
	prec := 4
	for prec < 17 && math.Pow10(-prec) >= dev/2 {
		prec++
	}
	return trimZeros(strconv.FormatFloat(a, 'f', prec, 64)), trimZeros(strconv.FormatFloat(b, 'f', prec, 64))
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}
