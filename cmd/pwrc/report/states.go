package report

import (
	"encoding/binary"
	"iter"
	"math"
	"slices"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// States is a run's machine-state series as the figures read it: its
// columns (as in <run>.states.csv, without time) and its rows in time
// order, each lasting until the next.
type States interface {
	Columns() []string
	Len() int
	// Span is the time of the first row and of the last.
	Span() (first, last float64)
	// Rows yields each row's time and values; the values are reused.
	Rows() iter.Seq2[float64, []float64]
}

// Kept wraps a series a run kept whole (runtime.Options.KeepStates, or
// read back from a states file); nil for nil.
func Kept(ss *pwrt.StateSeries) States {
	if ss == nil {
		return nil
	}
	return kept{ss}
}

type kept struct{ ss *pwrt.StateSeries }

func (k kept) Columns() []string { return k.ss.Columns }
func (k kept) Len() int          { return len(k.ss.Times) }

func (k kept) Span() (float64, float64) {
	if len(k.ss.Times) == 0 {
		return 0, 0
	}
	return k.ss.Times[0], k.ss.Times[len(k.ss.Times)-1]
}

func (k kept) Rows() iter.Seq2[float64, []float64] {
	return func(yield func(float64, []float64) bool) {
		w := len(k.ss.Columns)
		for i, t := range k.ss.Times {
			if !yield(t, k.ss.Values[i*w:(i+1)*w:(i+1)*w]) {
				return
			}
		}
	}
}

// statesOf is the series a figure draws for a run: the one streamed into
// Run.States, else the one its result kept; nil if neither.
func statesOf(r Run) States {
	if r.States != nil {
		return r.States
	}
	if r.Result != nil {
		return Kept(r.Result.States)
	}
	return nil
}

// hasStates says whether a run has a series with rows.
func hasStates(r Run) bool {
	ss := statesOf(r)
	return ss != nil && ss.Len() > 0
}

// Series holds a machine-state series compactly while a run streams it
// (it is a runtime.StateSink), for a report that must not keep every
// run's series whole: each row is stored as the columns that changed
// since the row before, integers as varint differences and other values
// as their 8 bytes. Nothing is lost, so the figures are those of the kept
// series, byte for byte; a row takes about a tenth of its 8 bytes per
// column.
type Series struct {
	cols        []string
	n           int
	first, last float64
	prev        []float64 // the last row recorded
	buf         []byte
}

var _ pwrt.StateSink = (*Series)(nil)

// Begin names the series' columns: a runtime.StateSink gets them first.
func (s *Series) Begin(names []string) {
	s.cols = slices.Clone(names)
	s.prev = make([]float64, len(names))
}

// Record appends a row.
func (s *Series) Record(t float64, row []float64) {
	if s.n == 0 {
		s.first = t
	}
	s.buf = putNum(s.buf, s.last, t)
	s.last = t
	s.n++
	for lo := 0; lo < len(s.cols); lo += 63 {
		var mask uint64
		for c := lo; c < min(lo+63, len(s.cols)); c++ {
			if math.Float64bits(row[c]) != math.Float64bits(s.prev[c]) {
				mask |= 1 << (c - lo)
			}
		}
		s.buf = binary.AppendUvarint(s.buf, mask)
		for c := lo; mask != 0; c++ {
			if mask&1 != 0 {
				s.buf = putNum(s.buf, s.prev[c], row[c])
				s.prev[c] = row[c]
			}
			mask >>= 1
		}
	}
}

// Columns names the series' columns.
func (s *Series) Columns() []string { return s.cols }

// Len is the number of rows.
func (s *Series) Len() int { return s.n }

// Span is the time of the first row and of the last.
func (s *Series) Span() (float64, float64) { return s.first, s.last }

// Bytes is the memory the rows take.
func (s *Series) Bytes() int { return cap(s.buf) }

// Rows decodes the rows in order.
func (s *Series) Rows() iter.Seq2[float64, []float64] {
	return func(yield func(float64, []float64) bool) {
		row := make([]float64, len(s.cols))
		t := 0.0
		b := s.buf
		for range s.n {
			t, b = getNum(b, t)
			for lo := 0; lo < len(s.cols); lo += 63 {
				mask, k := binary.Uvarint(b)
				b = b[k:]
				for c := lo; mask != 0; c++ {
					if mask&1 != 0 {
						row[c], b = getNum(b, row[c])
					}
					mask >>= 1
				}
			}
			if !yield(t, row) {
				return
			}
		}
	}
}

// exact are the whole numbers a float64 holds exactly, as int64; minus
// zero is not one (its sign would be lost).
func exact(v float64) bool {
	return v == math.Trunc(v) && math.Abs(v) <= 1<<53 && !(v == 0 && math.Signbit(v))
}

// putNum appends v, which follows old: a whole number after a whole
// number as its difference (a zigzag varint shifted left, low bit 0),
// anything else as a 1 and its 8 bytes.
func putNum(b []byte, old, v float64) []byte {
	if exact(old) && exact(v) {
		d := int64(v) - int64(old)
		return binary.AppendUvarint(b, (uint64(d<<1)^uint64(d>>63))<<1)
	}
	b = binary.AppendUvarint(b, 1)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// getNum reads what putNum wrote after old.
func getNum(b []byte, old float64) (float64, []byte) {
	u, k := binary.Uvarint(b)
	b = b[k:]
	if u&1 == 1 {
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
	}
	z := u >> 1
	d := int64(z>>1) ^ -int64(z&1)
	return float64(int64(old) + d), b
}
