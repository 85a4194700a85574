package tariff

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Series is a sequence of hourly prices; Prices[0] is the first hour.
type Series struct {
	Name   string
	Prices []float64
	// stamps are the rows' ISO timestamps (`time iso` only), one per price.
	stamps []stamp
}

// stamp is a row's ISO 8601 timestamp as written: its date and clock time,
// and its UTC offset when it has one.
type stamp struct {
	wall   int64 // the date and clock time as Unix seconds read in UTC
	off    int32 // UTC offset in seconds, if hasOff
	hasOff bool
	line   int
	col    int32 // the column of the time field in its line (LineError.Col)
}

// Timed reports whether the series has timestamps (read with `time iso`):
// they place it in time, and Start gives its first hour.
func (s *Series) Timed() bool { return s != nil && len(s.stamps) > 0 }

// Scaled returns the series with its prices multiplied by scale: from the
// file's unit into currency per kWh (0.001 for prices per MWh). When 1/scale
// is a whole number the prices are divided by it, which rounds once. The
// timestamps are shared.
func (s *Series) Scaled(scale float64) *Series {
	if scale == 1 || scale == 0 {
		return s
	}
	out := &Series{Name: s.Name, Prices: make([]float64, len(s.Prices)), stamps: s.stamps}
	inv := 1 / scale
	whole := inv == math.Round(inv) && !math.IsInf(inv, 0)
	for i, p := range s.Prices {
		if whole {
			out.Prices[i] = p / inv
		} else {
			out.Prices[i] = p * scale
		}
	}
	return out
}

// Start returns the instant of a timed series' first hour, after checking
// that its rows are one hour apart, in order, without gaps or repeats.
// Timestamps without a UTC offset are local times in loc (nil means UTC):
// the hour repeated when summer time ends must then appear twice (first in
// summer time), and the hour skipped when it starts must not appear.
// Errors are *LineError naming the row.
func (s *Series) Start(loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	if !s.Timed() {
		return time.Time{}, &LineError{File: s.Name, Msg: "has no timestamps"}
	}
	var prev int64
	var prevStamp stamp
	for i, st := range s.stamps {
		inst := st.wall - int64(st.off)
		if !st.hasOff {
			cands := localInstants(st.wall, loc)
			if len(cands) == 0 {
				return time.Time{}, &LineError{File: s.Name, Line: st.line, Col: int(st.col),
					Msg:  fmt.Sprintf("time %s does not exist in %s: clocks skip that hour when summer time starts", st, loc),
					Hint: "remove the row, or write timestamps with their UTC offset (e.g. 2017-03-26T03:00+02:00)"}
			}
			inst = cands[0]
			if i > 0 {
				// Of a repeated local time, the occurrence that follows on.
				for _, u := range cands {
					if u == prev+3600 {
						inst = u
					}
				}
			}
		}
		if i > 0 {
			if err := s.step(prevStamp, st, prev, inst, loc); err != nil {
				return time.Time{}, err
			}
		}
		prev, prevStamp = inst, st
	}
	first := s.stamps[0].wall - int64(s.stamps[0].off)
	if !s.stamps[0].hasOff {
		first = localInstants(s.stamps[0].wall, loc)[0]
	}
	return time.Unix(first, 0).In(loc), nil
}

// step checks that row b (at instant u) follows row a (at t) by one hour.
func (s *Series) step(a, b stamp, t, u int64, loc *time.Location) error {
	d := u - t
	if d == 3600 {
		return nil
	}
	e := &LineError{File: s.Name, Line: b.line, Col: int(b.col)}
	switch {
	case d == 0:
		e.Msg = fmt.Sprintf("time %s is the same hour as line %d's (%s)", b, a.line, a)
		e.Hint = "each hour must appear once"
	case d < 0:
		e.Msg = fmt.Sprintf("time %s comes before line %d's (%s): rows must be in time order", b, a.line, a)
	case d%3600 == 0:
		e.Msg = fmt.Sprintf("time %s comes %d hours after line %d's (%s): %s missing; rows must be hourly, without gaps",
			b, d/3600, a.line, a, plural(int(d/3600-1), "hour"))
		if !a.hasOff && !b.hasOff {
			_, offA := time.Unix(t, 0).In(loc).Zone()
			_, offB := time.Unix(u, 0).In(loc).Zone()
			if offA != offB {
				e.Hint = fmt.Sprintf("times without a UTC offset are local (%s): the hour repeated when summer time ends must appear twice", loc)
			}
		}
	default:
		e.Msg = fmt.Sprintf("time %s is %s after line %d's (%s): rows must be one hour apart", b, duration(d), a.line, a)
	}
	return e
}

func duration(sec int64) string {
	switch {
	case sec%3600 == 0:
		return plural(int(sec/3600), "hour")
	case sec%60 == 0:
		return plural(int(sec/60), "minute")
	}
	return plural(int(sec), "second")
}

// String formats a timestamp as written, in a canonical form.
func (st stamp) String() string {
	t := time.Unix(st.wall, 0).UTC()
	layout := "2006-01-02 15:04"
	if t.Second() != 0 {
		layout += ":05"
	}
	out := t.Format(layout)
	if st.hasOff {
		out += time.Unix(0, 0).In(time.FixedZone("", int(st.off))).Format("Z07:00")
	}
	return out
}

// localInstants returns the instants (Unix seconds, ascending) at which
// clocks in loc show wall (a date and clock time read as UTC): one, two in
// the hour repeated when summer time ends, none in the hour skipped when it
// starts.
func localInstants(wall int64, loc *time.Location) []int64 {
	if loc == time.UTC {
		return []int64{wall}
	}
	w := time.Unix(wall, 0).UTC()
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, loc)
	start, end := t.ZoneBounds()
	_, off := t.Zone()
	offs := []int{off}
	if !start.IsZero() {
		_, o := start.Add(-time.Second).Zone()
		offs = append(offs, o)
	}
	if !end.IsZero() {
		_, o := end.Zone()
		offs = append(offs, o)
	}
	var out []int64
	for _, o := range offs {
		u := wall - int64(o)
		if _, ou := time.Unix(u, 0).In(loc).Zone(); ou != o {
			continue
		}
		dup := false
		for _, v := range out {
			dup = dup || v == u
		}
		if !dup {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	return out
}

// errStamp completes "time ..." for a field that is not a timestamp.
type errStamp string

func (e errStamp) Error() string {
	return fmt.Sprintf("is not an ISO 8601 timestamp such as 2016-12-30T00:00+01:00: %q", string(e))
}

// parseStamp reads an ISO 8601 date and time: YYYY-MM-DD, T or a space,
// hh:mm, optional :ss (and a fraction of zeros), then optionally Z or a
// UTC offset ±hh:mm, ±hhmm or ±hh, after an optional space.
func parseStamp(text string) (stamp, error) {
	bad := func() (stamp, error) { return stamp{}, errStamp(lineClip(text)) }
	s := text
	num := func(i, n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	if len(s) < 16 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' {
		return bad()
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	hh, ok4 := num(11, 2)
	mm, ok5 := num(14, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return bad()
	}
	ss, i := 0, 16
	if i < len(s) && s[i] == ':' {
		var ok bool
		if ss, ok = num(i+1, 2); !ok {
			return bad()
		}
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			j := i
			for i < len(s) && s[i] == '0' {
				i++
			}
			if i == j || (i < len(s) && s[i] >= '1' && s[i] <= '9') {
				return stamp{}, fmt.Errorf("is not on a whole second: %q", lineClip(text))
			}
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || hh > 23 || mm > 59 || ss > 59 {
		return stamp{}, fmt.Errorf("is not a valid date and time: %q", lineClip(text))
	}
	st := stamp{wall: time.Date(y, time.Month(mo), d, hh, mm, ss, 0, time.UTC).Unix()}
	rest := s[i:]
	if len(rest) > 1 && rest[0] == ' ' && (rest[1] == '+' || rest[1] == '-') {
		rest = rest[1:]
	}
	switch {
	case rest == "":
		return st, nil
	case rest == "Z" || rest == "z":
		st.hasOff = true
		return st, nil
	case rest[0] != '+' && rest[0] != '-':
		return bad()
	}
	sign := 1
	if rest[0] == '-' {
		sign = -1
	}
	s = rest
	oh, ok := num(1, 2)
	om := 0
	switch {
	case !ok:
		return bad()
	case len(s) == 3:
	case len(s) == 6 && s[3] == ':':
		om, ok = num(4, 2)
	case len(s) == 5:
		om, ok = num(3, 2)
	default:
		ok = false
	}
	if !ok || oh > 18 || om > 59 {
		return bad()
	}
	st.off, st.hasOff = int32(sign*(oh*3600+om*60)), true
	return st, nil
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// lineClip shortens a field quoted in a message.
func lineClip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
