package workload

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
)

// Record is one SWF data line, fields already parsed. -1 means unknown, as in
// SWF. Fields pwrc never uses (CPU time, memory, executable, preceding job,
// think time) are checked to be numbers but not kept, so that a 300k-job
// trace stays around 35 MB. ReadSacct makes the same Records from Slurm
// accounting, one per job; Nodes and Power are only set from there.
type Record struct {
	ID         int64   // field 1, job number
	Submit     float64 // field 2, s
	Wait       float64 // field 3, s
	Runtime    float64 // field 4, s
	AllocProcs int     // field 5
	ReqProcs   int     // field 8
	ReqTime    float64 // field 9, s
	Status     int     // field 11
	User       int     // field 12
	Group      int     // field 13
	Queue      int     // field 15
	Partition  int     // field 16
	// Account and QOS are Slurm accounting's (ReadSacct); SWF has
	// neither, and leaves them 0.
	Account int
	QOS     int
	Line    int     // 1-based line number in the file
	Nodes   int     // nodes allocated, if the trace says (sacct NNodes); 0 = from procs
	Power   float64 // measured mean power per node, W (sacct); 0 = none
}

// Trace is a parsed SWF file, or sacct output read by ReadSacct.
type Trace struct {
	Name     string     // file name as given
	Header   Header     // the header keys pwrc uses
	Records  []Record   // data records, in file order
	BadLines int        // lines skipped as malformed (only with SkipBadLines)
	FirstBad []int      // line numbers of the first few (≤ 5) skipped lines
	Sacct    *SacctInfo // what ReadSacct found; nil for SWF
	Handed   int        // records handed to OnRecords and not kept (HandOnly)
}

// ReadOptions tune ReadSWF.
type ReadOptions struct {
	// SkipBadLines counts malformed lines (and malformed values of known
	// header keys) in Trace.BadLines and goes on, instead of failing.
	SkipBadLines bool
	// OnRecords, if set, is called as reading goes with the records
	// parsed since its last call (in file order, never empty), the
	// header as read so far, and how many records the whole input is
	// expected to hold, judged by its size (0 if unknown); it must not
	// keep recs, whose array is reused. It runs on the goroutine that
	// parses. An error it returns stops reading: ReadSWF returns it.
	OnRecords func(h *Header, recs []Record, expected int) error
	// HandOnly keeps no records: they go to OnRecords only, and
	// Trace.Records stays empty (Trace.Handed counts them). Reading then
	// holds a few chunks' records at a time, whatever the trace's size.
	HandOnly bool
}

// LineError reports a malformed line.
type LineError struct {
	File string
	Line int // 1-based
	// Col is the 1-based column of what is wrong, in characters (runes;
	// a byte that is not UTF-8 counts as one), as editors and `pwrc
	// check` count them: 1 when the line as a whole is wrong.
	Col int
	Msg string
}

func (e *LineError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// colAt is the 1-based character column of byte off of line (1, the
// line as a whole, for off < 0), as LineError counts columns.
func colAt(line []byte, off int) int {
	if off < 0 {
		return 1
	}
	return utf8.RuneCount(line[:min(off, len(line))]) + 1
}

// maxLine bounds a trace line, newline excluded: a longer one is
// malformed (a binary file may have no newline at all, and reading one
// would otherwise hold all of it).
const maxLine = 1 << 20

// textProblem says why line cannot be a line of a text trace, or "": it
// holds a NUL byte (binary data, or UTF-16 text, whose ASCII characters
// each come with a NUL), or it is the first line and starts with a UTF-16
// byte order mark. Such a file is refused whatever bad_lines says: none of
// its lines can be read. at is the byte offset of the culprit.
func textProblem(line []byte, first bool) (msg string, at int) {
	if first && len(line) >= 2 && (line[0] == 0xff && line[1] == 0xfe || line[0] == 0xfe && line[1] == 0xff) {
		return "the file is UTF-16 text, and pwrc reads ASCII or UTF-8: convert it (e.g. `iconv -f UTF-16 -t UTF-8`)", 0
	}
	if i := bytes.IndexByte(line, 0); i >= 0 {
		return "a NUL byte: this is not a text file (binary data, or UTF-16 text, which `iconv -f UTF-16 -t UTF-8` converts)", i
	}
	return "", -1
}

// maxFirstBad bounds Trace.FirstBad.
const maxFirstBad = 5

// swfFields is the number of fields of an SWF data line.
const swfFields = 18

var fieldNames = [swfFields]string{
	"job number", "submit time", "wait time", "run time", "allocated procs",
	"average CPU time", "used memory", "requested procs", "requested time",
	"requested memory", "status", "user", "group", "executable", "queue",
	"partition", "preceding job", "think time",
}

// MaxTime bounds the times pwrc takes from a trace (submit, run and
// requested time), in seconds: 317 years, beyond any real trace. Larger
// values would make the simulation step through billions of hours (or
// never advance, past the precision of a float64); and the wall clock, the
// header's start time plus trace time, stays far within int64 seconds.
const MaxTime = 1e10

// timeFields are the 0-based indices of the fields bounded by MaxTime:
// submit time, run time and requested time.
var timeFields = [...]int{1, 3, 8}

// maxStartTime bounds the header's UnixStartTime: about 3,000 years either
// side of 1970.
const maxStartTime = 1e11

// intFields marks (bit k = field k+1) the fields stored as integers; a
// fraction there is an error rather than something to round silently.
const intFields uint32 = 1<<0 | 1<<4 | 1<<7 | 1<<10 | 1<<11 | 1<<12 | 1<<14 | 1<<15

// OpenSWF reads the SWF file at path, plain or gzipped.
func OpenSWF(path string, opt ReadOptions) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSWF(path, f, opt)
}

// ReadSWF reads an SWF trace from r; name is used in errors and Trace.Name.
// Input starting with the gzip magic bytes (1f 8b) is decompressed. Reading
// is streamed: memory is the records plus a few fixed buffers.
func ReadSWF(name string, r io.Reader, opt ReadOptions) (*Trace, error) {
	cfg := readConfig{chunk: defaultChunk, pipeline: runtime.GOMAXPROCS(0) > 1, sizeHint: textSize(r)}
	return readSWF(name, r, opt, cfg)
}

// textSize guesses the size of the text r holds, for files and in-memory
// readers: their length, or for gzip the size its trailer records (mod 2^32,
// and only the last member's). It is only a hint for sizing the record
// slice; 0 means unknown.
func textSize(r io.Reader) int64 {
	var ra io.ReaderAt
	var size int64
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		ra, size = v, st.Size()
	case interface {
		io.ReaderAt
		Size() int64 // bytes.Reader, strings.Reader, io.SectionReader
	}:
		ra, size = v, v.Size()
	default:
		return 0
	}
	var b [4]byte
	if size < 18 {
		return size
	}
	if _, err := ra.ReadAt(b[:2], 0); err != nil {
		return 0
	}
	if b[0] != 0x1f || b[1] != 0x8b {
		return size
	}
	if _, err := ra.ReadAt(b[:], size-4); err != nil {
		return 0
	}
	n := int64(binary.LittleEndian.Uint32(b[:]))
	if n > 50*size { // text compresses ~7:1; beyond this it is no trace
		return 0
	}
	return n
}

// defaultChunk is the unit handed from the reader to the parser: large enough
// that the per-chunk cost (a channel hand-off, one partial line carried over)
// vanishes, small enough to stay in L2.
const defaultChunk = 256 << 10

// readConfig exists so tests can force tiny chunks (every line straddling a
// boundary) and either reading strategy.
type readConfig struct {
	chunk    int
	pipeline bool // decompress in a second goroutine while parsing
	// inflate opens a gzip stream; nil = klauspost/compress, which inflates
	// these traces about 20% faster than compress/gzip (BenchmarkInflate).
	inflate func(io.Reader) (io.ReadCloser, error)
	// sizeHint is the expected size of the text in bytes, 0 if unknown.
	sizeHint int64
}

func klauspostGzip(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }

func readSWF(name string, r io.Reader, opt ReadOptions, cfg readConfig) (*Trace, error) {
	if cfg.chunk < 1 {
		cfg.chunk = defaultChunk
	}
	rec := &errRecorder{r: r}
	br := bufio.NewReaderSize(rec, 64<<10)
	src := io.Reader(br)
	gz := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if cfg.inflate == nil {
			cfg.inflate = klauspostGzip
		}
		zr, err := cfg.inflate(br)
		if err != nil {
			if rec.err != nil && errors.Is(err, rec.err) {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return nil, gzipError(name, err)
		}
		defer zr.Close()
		src, gz = zr, true
	}
	p := parser{t: &Trace{Name: name}, opt: opt, hint: cfg.sizeHint}
	var err error
	if cfg.pipeline && gz {
		err = p.readPipelined(src, cfg.chunk)
	} else {
		err = p.readSerial(src, cfg.chunk)
	}
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return nil, err
		}
		if gz && !(rec.err != nil && errors.Is(err, rec.err)) {
			return nil, gzipError(name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !opt.HandOnly {
		p.t.Records = p.records()
	}
	return p.t, nil
}

// errRecorder remembers the error of the underlying reader, so that a
// failing disk is not reported as a corrupt gzip stream.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

func gzipError(name string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: truncated gzip data: %w", name, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%s: corrupt gzip data: %w", name, err)
}

// fill reads until buf is full or r fails. Unlike io.ReadFull it passes the
// reader's own io.ErrUnexpectedEOF (a truncated gzip stream) through instead
// of conflating it with a short final read.
func fill(r io.Reader, buf []byte) (int, error) {
	n, empty := 0, 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m == 0 {
			if empty++; empty > 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

func (p *parser) readSerial(r io.Reader, size int) error {
	buf := make([]byte, size)
	for {
		n, rerr := fill(r, buf)
		if err := p.feed(buf[:n]); err != nil {
			return err
		}
		if rerr == io.EOF {
			return p.finish()
		}
		if rerr != nil {
			return rerr
		}
	}
}

type chunk struct {
	b   []byte
	err error
}

// readPipelined decompresses in a second goroutine so that inflating (the
// floor, as for zcat) and parsing overlap. Buffers circulate between the two
// goroutines, so nothing is allocated per chunk.
func (p *parser) readPipelined(r io.Reader, size int) error {
	const nbuf = 4
	full := make(chan chunk, nbuf)
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- make([]byte, size)
	}
	done := make(chan struct{})
	go func() {
		defer close(full)
		for {
			select {
			case <-done: // checked first: free may be ready too
				return
			default:
			}
			var b []byte
			select {
			case b = <-free:
			case <-done:
				return
			}
			n, err := fill(r, b[:cap(b)])
			select {
			case full <- chunk{b[:n], err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// Never return while the goroutine may still be reading r: the caller
	// owns r again once we return.
	defer func() {
		close(done)
		for range full {
		}
	}()
	for c := range full {
		if err := p.feed(c.b); err != nil {
			return err
		}
		free <- c.b
		if c.err == io.EOF {
			return p.finish()
		}
		if c.err != nil {
			return c.err
		}
	}
	return p.finish() // unreachable: the goroutine always ends with an error
}

// parser splits a byte stream into lines and parses them.
type parser struct {
	t     *Trace
	opt   ReadOptions
	line  int    // number of the line being parsed
	carry []byte // the start of a line split across chunks
	vals  [swfFields]float64

	// Records are gathered in blocks and copied once into a slice of the
	// right length at the end: growing one slice by append would copy them
	// about four times over and leave up to a quarter unused. When the size
	// of the text is known, one block sized from the first lines' record
	// density usually takes them all, and the final copy (and doubled peak
	// memory) is saved.
	blocks    [][]Record
	cur       []Record
	nrec      int   // records in blocks
	hint      int64 // expected text size, bytes; 0 = unknown
	fed       int64 // text bytes seen so far
	estimated bool
	handed    int // records passed to OnRecords
	expected  int // records the text should hold, by estimate; 0 = unknown
}

const recordBlock = 8192

func (p *parser) newBlock() {
	if len(p.cur) > 0 {
		p.blocks = append(p.blocks, p.cur)
		p.nrec += len(p.cur)
	}
	// Small first blocks keep tiny inputs cheap.
	p.cur = make([]Record, 0, min(max(2*cap(p.cur), 64), recordBlock))
}

// estimate replaces the blocks so far by one block big enough, by the
// density of records in the text read so far, for the whole text.
func (p *parser) estimate() {
	p.estimated = true
	n := p.t.Handed + p.nrec + len(p.cur)
	est := float64(p.hint)/float64(p.fed)*float64(n)*1.02 + 64
	if est <= float64(n) || est > 1<<27 {
		return
	}
	p.expected = int(est)
	if p.opt.HandOnly {
		return // (the records are not kept)
	}
	all := make([]Record, 0, int(est))
	for _, b := range p.blocks {
		all = append(all, b...)
	}
	p.cur = append(all, p.cur...)
	p.blocks, p.nrec = nil, 0
}

// records returns every record read, in one slice of the right length.
func (p *parser) records() []Record {
	if len(p.blocks) == 0 {
		if spare := cap(p.cur) - len(p.cur); spare <= 1024 || spare <= len(p.cur)/16 {
			return slices.Clip(p.cur)
		}
	}
	out := make([]Record, 0, p.nrec+len(p.cur))
	for _, b := range p.blocks {
		out = append(out, b...)
	}
	return append(out, p.cur...)
}

// feed parses every complete line of b, keeping the unfinished tail for the
// next chunk.
func (p *parser) feed(b []byte) error {
	p.fed += int64(len(b))
	if err := p.lines(b); err != nil {
		return err
	}
	if !p.estimated && p.hint > 0 && p.fed >= min(64<<10, p.hint/8) && p.nrec+len(p.cur) > 0 {
		p.estimate()
	}
	return p.handOn()
}

func (p *parser) lines(b []byte) error {
	if len(p.carry) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.keep(b)
			return nil
		}
		p.keep(b[:i])
		if err := p.handle(p.carry); err != nil {
			return err
		}
		p.carry = p.carry[:0]
		b = b[i+1:]
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if err := p.handle(b[:i]); err != nil {
			return err
		}
		b = b[i+1:]
	}
	p.keep(b)
	return nil
}

// keep adds b to the unfinished line, of which no more than maxLine + 1
// bytes are kept: enough for handle to see that it is too long.
func (p *parser) keep(b []byte) {
	if room := maxLine + 1 - len(p.carry); len(b) > room {
		b = b[:max(room, 0)]
	}
	p.carry = append(p.carry, b...)
}

// finish parses a last line that has no newline.
func (p *parser) finish() error {
	if len(p.carry) == 0 {
		return nil
	}
	err := p.handle(p.carry)
	p.carry = p.carry[:0]
	if err == nil {
		err = p.handOn()
	}
	return err
}

// handOn passes the records parsed since the last call to OnRecords
// (and with HandOnly, forgets them).
func (p *parser) handOn() error {
	f := p.opt.OnRecords
	total := p.nrec + len(p.cur)
	if f == nil || total == p.handed {
		return nil
	}
	if p.opt.HandOnly {
		defer func() {
			p.t.Handed += total
			p.cur, p.blocks, p.nrec, p.handed = p.cur[:0], nil, 0, 0
		}()
	}
	// The new records end the last blocks: walk back to the first.
	first := p.handed
	p.handed = total
	at := total - len(p.cur) // index of p.cur[0]
	segs := [][]Record{p.cur}
	for k := len(p.blocks) - 1; k >= 0 && at > first; k-- {
		at -= len(p.blocks[k])
		segs = append(segs, p.blocks[k])
	}
	for k := len(segs) - 1; k >= 0; k-- {
		seg := segs[k]
		if at < first {
			seg = seg[first-at:]
		}
		at += len(segs[k])
		if len(seg) > 0 {
			if err := f(&p.t.Header, seg, p.expected); err != nil {
				return err
			}
		}
	}
	return nil
}

var utf8BOM = []byte("\xef\xbb\xbf")

var isSpace = [256]bool{' ': true, '\t': true, '\r': true, '\v': true, '\f': true}

func (p *parser) handle(b []byte) error {
	p.line++
	if p.line == 1 {
		b = bytes.TrimPrefix(b, utf8BOM) // left by some Windows editors
	}
	if msg, at := textProblem(b, p.line == 1); msg != "" {
		return &LineError{File: p.t.Name, Line: p.line, Col: colAt(b, at), Msg: msg}
	}
	i := 0
	for i < len(b) && isSpace[b[i]] {
		i++
	}
	if i == len(b) {
		return nil
	}
	var msg string
	at := -1 // the culprit's byte offset in b
	switch {
	case len(b) > maxLine:
		msg = fmt.Sprintf("line longer than %d bytes", maxLine)
	case b[i] == ';':
		msg, at = p.header(b[i+1:])
		if at >= 0 {
			at += i + 1
		}
	default:
		msg, at = p.data(b[i:])
		if at >= 0 {
			at += i
		}
	}
	if msg == "" {
		return nil
	}
	if !p.opt.SkipBadLines {
		return &LineError{File: p.t.Name, Line: p.line, Col: colAt(b, at), Msg: msg}
	}
	p.t.BadLines++
	if len(p.t.FirstBad) < maxFirstBad {
		p.t.FirstBad = append(p.t.FirstBad, p.line)
	}
	return nil
}

// data parses one data line into a Record, returning "" or what is wrong
// and the byte offset in b of the culprit (-1: the line). Plain integers,
// nearly every token of a real trace, are converted in the same pass that
// splits the line.
func (p *parser) data(b []byte) (string, int) {
	nf := 0
	bad, badTok, badRange := -1, []byte(nil), false
	var small uint32 // fields that were plain integers of at most 9 digits
	n := len(b)
	for i := 0; ; {
		for i < n && (b[i] == ' ' || isSpace[b[i]]) {
			i++
		}
		if i == n {
			break
		}
		start := i
		neg := b[i] == '-'
		if neg || b[i] == '+' {
			i++
		}
		d0 := i
		var v uint64
		for i < n {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c)
			i++
		}
		digits := i - d0
		var f float64
		if digits > 0 && digits <= 18 && (i == n || isSpace[b[i]]) {
			f = float64(v)
			if neg {
				f = -f
			}
			if digits <= 9 && nf < swfFields {
				small |= 1 << nf
			}
		} else {
			for i < n && !isSpace[b[i]] {
				i++
			}
			var ok, rng bool
			f, ok, rng = parseFloat(b[start:i])
			if !ok && bad < 0 && nf < swfFields {
				bad, badTok, badRange = nf, b[start:i], rng
			}
		}
		if nf < swfFields {
			p.vals[nf] = f
		}
		nf++
	}
	if nf < swfFields {
		return fmt.Sprintf("expected %d fields, found %d", swfFields, nf), len(trimSpace(b))
	}
	if nf > swfFields {
		return fmt.Sprintf("expected %d fields, found %d", swfFields, nf), fieldOffset(b, swfFields)
	}
	if bad >= 0 {
		what := "is not a number"
		if badRange {
			what = "is out of range"
		}
		return fmt.Sprintf("field %d (%s) %s: %q", bad+1, fieldNames[bad], what, clip(badTok)), fieldOffset(b, bad)
	}
	v := &p.vals
	if check := intFields &^ small; check != 0 {
		for k := range v {
			if check&(1<<k) != 0 && !isInt(v[k], k == 0) {
				return fmt.Sprintf("field %d (%s) is not an integer in range: %q", k+1, fieldNames[k],
					clip(fieldToken(b, k))), fieldOffset(b, k)
			}
		}
	}
	for _, k := range timeFields {
		if v[k] > MaxTime {
			return fmt.Sprintf("field %d (%s) is out of range: %q s is more than pwrc's limit of 1e10 s (317 years)", k+1, fieldNames[k],
				clip(fieldToken(b, k))), fieldOffset(b, k)
		}
	}
	if len(p.cur) == cap(p.cur) {
		p.newBlock()
	}
	p.cur = append(p.cur, Record{
		ID:         int64(v[0]),
		Submit:     v[1],
		Wait:       v[2],
		Runtime:    v[3],
		AllocProcs: int(v[4]),
		ReqProcs:   int(v[7]),
		ReqTime:    v[8],
		Status:     int(v[10]),
		User:       int(v[11]),
		Group:      int(v[12]),
		Queue:      int(v[14]),
		Partition:  int(v[15]),
		Line:       p.line,
	})
	return "", -1
}

// fieldToken returns the k-th (0-based) field of a data line; only error
// messages need it, so the fast path does not keep token positions.
func fieldToken(b []byte, k int) []byte {
	start := fieldOffset(b, k)
	if start < 0 {
		return nil
	}
	i := start
	for i < len(b) && !isSpace[b[i]] {
		i++
	}
	return b[start:i]
}

// fieldOffset is the byte offset of the k-th (0-based) field of a data
// line, or -1 if it has fewer.
func fieldOffset(b []byte, k int) int {
	for i := 0; i < len(b); {
		for i < len(b) && isSpace[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		if k == 0 {
			return i
		}
		for i < len(b) && !isSpace[b[i]] {
			i++
		}
		k--
	}
	return -1
}

// isInt reports whether f is an integer that fits the Record field: int32
// range so that Record means the same on 32-bit platforms, or ±2^53 (exact
// in a float64) for the job number.
func isInt(f float64, wide bool) bool {
	lim := float64(math.MaxInt32)
	if wide {
		lim = 1 << 53
	}
	return f == math.Trunc(f) && f >= -lim && f <= lim
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a decimal token that is not a plain short integer. It
// accepts only [+-] digits [. digits] [e [+-] digits] shapes, so "inf", "nan",
// hex floats and underscores are not numbers here, unlike strconv. ok is
// false for a non-number or non-finite value; outOfRange tells which.
func parseFloat(tok []byte) (f float64, ok, outOfRange bool) {
	// Short decimals such as 489.00: mantissa and power of ten are both
	// exact in a float64, so one division is correctly rounded (the same
	// fast path strconv takes, without converting to a string).
	i, neg := 0, false
	if i < len(tok) && (tok[i] == '-' || tok[i] == '+') {
		neg = tok[i] == '-'
		i++
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
			continue
		case c == '.' && !dot:
			dot = true
			continue
		}
		break
	}
	if i == len(tok) && digits > 0 && digits <= 15 {
		f = float64(m) / pow10[frac]
		if neg {
			f = -f
		}
		return f, true, false
	}
	for _, c := range tok {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false, false
		}
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		// Underflow is not an error (it gives 0); overflow gives ±Inf.
		return 0, false, errors.Is(err, strconv.ErrRange)
	}
	return f, true, false
}

// clip keeps error messages short whatever the input.
func clip(b []byte) []byte {
	const max = 40
	if len(b) > max {
		return append(b[:max:max], "..."...)
	}
	return b
}

// header parses a comment line (after the ';'). Keys pwrc does not use are
// ignored; a bad value of a known key is an error, because a wrong start time
// or time zone silently shifts every tariff window. It returns "" or what
// is wrong and the byte offset in b of the value.
func (p *parser) header(b []byte) (string, int) {
	colon := bytes.IndexByte(b, ':')
	if colon < 0 {
		return "", -1
	}
	key := trimSpace(b[:colon])
	val := trimSpace(b[colon+1:])
	at := colon + 1
	for at < len(b) && isSpace[b[at]] {
		at++
	}
	msg := p.headerValue(key, val)
	if msg == "" {
		at = -1
	}
	return msg, at
}

func (p *parser) headerValue(key, val []byte) string {
	h := &p.t.Header
	switch string(key) {
	case "MaxNodes", "MaxProcs":
		n, err := strconv.ParseInt(string(val), 10, 32)
		if err != nil || n < 0 {
			return fmt.Sprintf("header %s: want a non-negative integer, found %q", key, clip(val))
		}
		if string(key) == "MaxNodes" {
			h.MaxNodes = int(n)
		} else {
			h.MaxProcs = int(n)
		}
	case "UnixStartTime":
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || n > maxStartTime || n < -maxStartTime {
			return fmt.Sprintf("header UnixStartTime: want an integer (seconds since 1970, at most 1e11 either way), found %q", clip(val))
		}
		h.UnixStartTime, h.HasStartTime = n, true
	case "TimeZone":
		n, err := strconv.ParseInt(string(val), 10, 32)
		if err != nil || n < -86400 || n > 86400 {
			return fmt.Sprintf("header TimeZone: want a UTC offset in seconds, found %q", clip(val))
		}
		h.TimeZone, h.HasTimeZone = int(n), true
	case "TimeZoneString":
		if !zoneName(val) {
			return fmt.Sprintf("header TimeZoneString: want a zone name such as Europe/Paris, found %q", clip(val))
		}
		h.TimeZoneString = string(val)
	}
	return ""
}

// zoneName accepts what IANA zone names are made of (printable ASCII, no
// spaces); whether the zone exists is for whoever loads it.
func zoneName(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return len(b) > 0
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace[b[0]] {
		b = b[1:]
	}
	for len(b) > 0 && isSpace[b[len(b)-1]] {
		b = b[:len(b)-1]
	}
	return b
}
