package tariff

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// LineError is an error at a line of a price file. Line 0 means the file as
// a whole (e.g. it holds no prices). Col, when above 0, is the 1-based
// column of the culprit in characters (runes; a byte that is not UTF-8
// counts as one), as editors count them. Hint, when set, says how to fix
// it.
type LineError struct {
	File string
	Line int
	Col  int
	Msg  string
	Hint string
}

func (e *LineError) Error() string {
	s := e.At()
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// At is the error without its hint: "file:line:col: msg".
func (e *LineError) At() string {
	switch {
	case e.Line <= 0:
		return e.File + ": " + e.Msg
	case e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// MaxFileSize bounds a price or carbon file, which is read whole: 256 MiB,
// thousands of years of hourly rows.
const MaxFileSize = 256 << 20

// text is a price file read whole, to say where in it a row is wrong.
type text []byte

// line returns line n (1-based) without its line break.
func (t text) line(n int) []byte {
	b := []byte(t)
	for ; n > 1; n-- {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// col turns a 1-based byte column of line n into LineError's column: in
// characters, and past the blanks a field may start with.
func (t text) col(n, byteCol int) int {
	l := t.line(n)
	off := min(max(byteCol-1, 0), len(l))
	for off < len(l) && (l[off] == ' ' || l[off] == '\t') {
		off++
	}
	return utf8.RuneCount(l[:off]) + 1
}

// notText says why a file cannot be a text file of prices, or nil: it
// starts with a UTF-16 byte order mark, or holds a NUL byte (binary data,
// or UTF-16 text without the mark).
func (t text) notText(name string) *LineError {
	if len(t) >= 2 && (t[0] == 0xff && t[1] == 0xfe || t[0] == 0xfe && t[1] == 0xff) {
		return &LineError{File: name, Line: 1, Col: 1, Msg: "the file is UTF-16 text, and pwrc reads ASCII or UTF-8",
			Hint: "convert it, e.g. with `iconv -f UTF-16 -t UTF-8`"}
	}
	i := bytes.IndexByte(t, 0)
	if i < 0 {
		return nil
	}
	n := 1 + bytes.Count(t[:i], []byte{'\n'})
	start := bytes.LastIndexByte(t[:i], '\n') + 1
	return &LineError{File: name, Line: n, Col: utf8.RuneCount(t[start:i]) + 1, Msg: "a NUL byte: this is not a text file",
		Hint: "a CSV file of prices is text; UTF-16 text converts with `iconv -f UTF-16 -t UTF-8`"}
}

// TimeColumn is what the time column of a price file holds.
type TimeColumn uint8

// Time columns.
const (
	TimeDays  TimeColumn = iota // days, one hour = 1/24 (Kunkel et al.'s files); the default
	TimeHours                   // hours, one hour = 1
	TimeISO                     // ISO 8601 timestamps, e.g. 2016-12-30T00:00+01:00
)

var timeNames = [...]string{"days", "hours", "iso"}

// String is the column's name in a scenario: days, hours or iso.
func (t TimeColumn) String() string {
	if int(t) < len(timeNames) {
		return timeNames[t]
	}
	return fmt.Sprintf("TimeColumn(%d)", t)
}

// Format says how to read a price file.
type Format struct {
	Time TimeColumn
}

const (
	hourDays = 1.0 / 24
	// stepTol is the tolerance on the hourly step of the time column, in
	// days (0.0864 s): the files print times with 15 significant digits.
	stepTol = 1e-6
)

// ReadPriceCSV reads an hourly price series whose time column, if any, is
// in days: ReadPrices with the default Format.
func ReadPriceCSV(name string, r io.Reader) (*Series, error) {
	return ReadPrices(name, r, Format{})
}

// ReadPrices reads an hourly price series. Accepted rows, all of one form:
//
//	index,time,price   e.g. "1",0.0416666666666667,0.144031956510207
//	time,price
//	price
//
// The index is ignored; prices are numbers in the file's unit (the caller
// scales them). Fields may be quoted and surrounded by blanks; blank lines
// are skipped; a UTF-8 byte order mark is ignored. The first row is a
// header, and skipped, when none of its fields is a number and each
// non-empty one starts with a letter or `_`.
//
// The time column holds what f.Time says. In days (the default) or hours,
// times must advance by exactly one hour from row to row (tolerance
// 0.0864 s); their absolute value is not used: row k is hour k of the
// series, placed in time by Hourly's start. ISO 8601 timestamps
// (2016-12-30T00:00, a space for the T, optional seconds, optional Z or
// UTC offset ±hh:mm, ±hhmm or ±hh) place the series themselves: see
// Series.Start, which checks rows written in local time; rows with offsets
// are checked here. All rows must have an offset, or none.
//
// Negative prices are valid (they occur in spot markets); NaN and
// infinities are not. The file is read whole, and may hold at most
// MaxFileSize bytes. Errors are *LineError naming name and the line.
func ReadPrices(name string, r io.Reader, f Format) (*Series, error) {
	return readPrices(name, r, f, MaxFileSize)
}

func readPrices(name string, r io.Reader, f Format, limit int64) (*Series, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &LineError{File: name, Msg: err.Error()}
	}
	if int64(len(data)) > limit {
		return nil, &LineError{File: name, Msg: fmt.Sprintf("more than %s: not a file of hourly values", sizeText(limit))}
	}
	src := text(data)
	if e := src.notText(name); e != nil {
		return nil, e
	}
	bomLen := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		bomLen = 3
	}
	cr := csv.NewReader(bytes.NewReader(data[bomLen:]))
	cr.FieldsPerRecord = -1 // counts are checked here, with clearer messages
	cr.ReuseRecord = true
	lineErr := func(line int, format string, args ...any) *LineError {
		return &LineError{File: name, Line: line, Col: 1, Msg: fmt.Sprintf(format, args...)}
	}
	// fieldErr is an error at field i of the row just read.
	fieldErr := func(i int, format string, args ...any) *LineError {
		line, col := cr.FieldPos(i)
		if line == 1 {
			col += bomLen
		}
		e := lineErr(line, format, args...)
		e.Col = src.col(line, col)
		return e
	}
	iso := f.Time == TimeISO
	step, other, unit, otherName := hourDays, 1.0, "d", "hours"
	if f.Time == TimeHours {
		step, other, unit, otherName = 1, hourDays, "h", "days"
	}
	tol := stepTol * 24 * step

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
				e := lineErr(pe.Line, "%v", pe.Err)
				if pe.Line == 1 {
					pe.Column += bomLen
				}
				e.Col = src.col(pe.Line, pe.Column)
				return nil, e
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
			if iso && cols == 1 {
				e := lineErr(line, "`time iso` needs a time column, but the rows have 1 column")
				e.Hint = "write rows as time,price or index,time,price"
				return nil, e
			}
			if isHeader(rec) {
				continue
			}
		}
		if len(rec) != cols {
			if len(rec) > cols {
				return nil, fieldErr(cols, "expected %s, found %d", plural(cols, "column"), len(rec))
			}
			e := lineErr(line, "expected %s, found %d", plural(cols, "column"), len(rec))
			e.Col = utf8.RuneCount(bytes.TrimRight(src.line(line), " \t")) + 1
			return nil, e
		}
		if cols >= 2 {
			text := rec[cols-2]
			if iso {
				st, err := parseStamp(text)
				if err != nil {
					e := fieldErr(cols-2, "time %s", err)
					if _, nerr := parseFinite(text); nerr == nil {
						e.Hint = "the time column holds numbers: write `time days` or `time hours` in the block after the file's name"
					}
					return nil, e
				}
				st.line = line
				_, c := cr.FieldPos(cols - 2)
				if line == 1 {
					c += bomLen
				}
				st.col = int32(src.col(line, c))
				if len(s.stamps) > 0 && st.hasOff != s.stamps[0].hasOff {
					has := "has no UTC offset"
					if st.hasOff {
						has = "has a UTC offset"
					}
					e := fieldErr(cols-2, "time %s %s, unlike line %d's (%s)", st, has, s.stamps[0].line, s.stamps[0])
					e.Hint = "write every row with its offset, or none (then times are local)"
					return nil, e
				}
				s.stamps = append(s.stamps, st)
			} else {
				tm, err := parseFinite(text)
				if err != nil {
					e := fieldErr(cols-2, "time %s", err)
					if _, serr := parseStamp(text); serr == nil {
						e.Hint = "the time column holds timestamps: write `time iso` in the block after the file's name"
					}
					return nil, e
				}
				if len(s.Prices) > 0 && math.Abs(tm-prevTime-step) > tol {
					a, b := stepPair(prevTime, tm, step)
					e := fieldErr(cols-2, "time %s %s does not follow %s %s by one hour", b, unit, a, unit)
					if math.Abs(tm-prevTime-other) <= stepTol*24*other {
						e.Hint = fmt.Sprintf("the times step by %s: if they count %s, write `time %s` in the block after the file's name",
							trimZeros(strconv.FormatFloat(other, 'g', 6, 64)), otherName, otherName)
					}
					return nil, e
				}
				prevTime = tm
			}
		}
		p, err := parseFinite(rec[cols-1])
		if err != nil {
			return nil, fieldErr(cols-1, "price %s", err)
		}
		s.Prices = append(s.Prices, p)
	}
	if len(s.Prices) == 0 {
		return nil, &LineError{File: name, Msg: "no prices"}
	}
	if s.Timed() && s.stamps[0].hasOff {
		// Instants: the steps can be checked now, whatever the zone.
		if _, err := s.Start(time.UTC); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// OpenPrices reads the price file at path; the series is named path.
func OpenPrices(path string, f Format) (*Series, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ReadPrices(path, file, f)
}

// OpenPriceCSV reads the price file at path with the default Format.
func OpenPriceCSV(path string) (*Series, error) { return OpenPrices(path, Format{}) }

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

// stepPair formats two times with enough decimals (at least 4) that the
// rounding cannot hide why b does not follow a by one step.
func stepPair(a, b, step float64) (string, string) {
	dev := math.Abs(b - a - step)
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

// sizeText is a size in bytes as a message says it.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return plural(int(n), "byte")
}
