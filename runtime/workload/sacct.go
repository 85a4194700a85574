package workload

// This file reads Slurm accounting output, `sacct --parsable2`, into the same
// Trace of Records that ReadSWF produces, so that Clean, the workload cuts
// and the engine apply unchanged.
//
// What the format is, as relied on below, is taken from the sacct(1) manual
// (SchedMD/slurm doc/man/man1/sacct.1, also https://slurm.schedmd.com/sacct.html)
// and from the code that prints it (SchedMD/slurm src/sacct/print.c):
//
//   - --parsable2: "Output will be '|' delimited without a '|' at the end";
//     --parsable ends every line with one more '|'; --delimiter changes the
//     separator; --noheader drops the header line. Fields are not quoted or
//     escaped, so a '|' inside a JobName or WorkDir shifts the columns.
//   - JobID: "Regular jobs are in the form JobID[.JobStep]", "Array jobs are
//     in the form ArrayJobID_ArrayTaskID", "Heterogeneous jobs are in the form
//     HetJobID+HetJobOffset"; array tasks not yet started are shown together
//     as ArrayJobID_[range]. JobIDRaw is the plain number of the job (each
//     array task and each heterogeneous component has its own).
//   - Elapsed and Timelimit: "[DD-[HH:]]MM:SS"; print.c writes
//     D-HH:MM:SS or HH:MM:SS, and only CPU fields get ".mmm". Timelimit has
//     two more values, UNLIMITED and Partition_Limit (print.c spells the
//     latter so; the manual says Partition_limit).
//   - Submit, Start, End: YYYY-MM-DDTHH:MM:SS in the local time of the
//     machine sacct ran on, without zone ("unless changed through the
//     SLURM_TIME_FORMAT environment variable"); Unknown when unset (a pending
//     job's Start and End; a running job's End).
//   - State: a name from the JOB STATE CODES list; "CANCELLED by UID" when
//     the canceller is known.
//   - ConsumedEnergyRaw: "Total energy consumed by all tasks in a job, in
//     joules. Note: Only in the case of an exclusive job allocation does this
//     value reflect the job's real energy consumption." print.c takes a job
//     line's value from the job's allocated-TRES energy (0 when not recorded)
//     and a step line's from the step's own counters.
//   - NNodes: "Number of nodes in a job or step. If the job is running, or
//     ran, this count will be the number allocated, else the number will be
//     the number requested." AllocCPUS "Equivalent to NCPUS".
//   - Partition and User are printed on job lines only; step lines leave
//     them empty.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// SacctOptions tune ReadSacct.
type SacctOptions struct {
	// SkipBadLines counts malformed data lines in Trace.BadLines and goes
	// on, instead of failing. A bad header is always an error: without it
	// no line can be read.
	SkipBadLines bool

	// Location is the zone sacct printed its times in (the cluster's local
	// time; sacct prints no zone). Nil means UTC. It becomes the trace's
	// Header.TimeZoneString, so pass a named zone (time.LoadLocation), not
	// time.Local. Times in the hour repeated when clocks go back are
	// ambiguous in sacct's output; they are read as Go's time.Date reads
	// them. Run times come from Elapsed, which the change does not touch.
	Location *time.Location

	// Delimiter is sacct's --delimiter; "" means '|'.
	Delimiter string

	// Format lists the fields, comma-separated as for sacct --format, of
	// output written with --noheader. Empty: the first non-blank line is
	// the header. When given and the first line is a header with the same
	// fields anyway, that line is skipped.
	Format string

	// FormatHint says how the caller's users give Format, for the
	// messages about a file without a header (e.g. a scenario's
	// `format "JobID,Submit,…"` field); empty: SacctOptions.Format.
	FormatHint string

	// CPUsPerNode is the number of CPUs, as Slurm counts them (hardware
	// threads where Slurm is configured so), of a node of the cluster that
	// wrote the accounting: a property of the trace, not of the machine it
	// is replayed on. When > 0 a job's energy counts as measured only if
	// the job held whole nodes: AllocCPUS == NNodes × CPUsPerNode (for a
	// heterogeneous job, every component). See ReadSacct.
	CPUsPerNode int

	// AssumeExclusive takes every job's energy as its own, for clusters
	// that only give out whole nodes (e.g. OverSubscribe=EXCLUSIVE
	// partitions). It overrides CPUsPerNode.
	AssumeExclusive bool
}

// SacctInfo is what ReadSacct knows beyond the Records: the counts of what
// reading did and the names behind the small integers of Record.User,
// Group, Account, Partition and QOS. Trace.Sacct is nil for SWF traces.
type SacctInfo struct {
	Stats SacctStats
	// Names by number: Record.User u (u ≥ 1) is Names[NameUser][u-1], and
	// so on. Numbers are given in order of first appearance on a job
	// line, starting at 1 as SWF does; an empty field is -1.
	Names Names
}

// SacctStats counts what ReadSacct did. Malformed lines skipped with
// SkipBadLines are in Trace.BadLines and in none of these counts. Always:
//
//	Lines    = JobLines + StepLines + OrphanSteps
//	JobLines = Jobs + Dropped() + HetFolded
type SacctStats struct {
	Lines       int // data lines read (not the header, not blank lines)
	JobLines    int // job lines: a JobID without a step
	StepLines   int // step lines (.batch, .extern, .0, ...) folded into their job
	OrphanSteps int // step lines whose job line came nowhere before them: ignored
	HetFolded   int // heterogeneous components (+1, +2, ...) folded into their leader's job
	Duplicates  int // job lines repeating a JobID already seen (requeued runs with --duplicates): kept as jobs of their own
	Jobs        int // jobs read: len(Trace.Records)

	DroppedPendingArray int // ArrayJobID_[range] lines: array tasks that never started
	DroppedPending      int // PENDING (and held) jobs
	DroppedNotStarted   int // jobs that ended without starting, e.g. cancelled while pending (see ReadSacct)
	DroppedUnfinished   int // jobs running (or suspended, ...) when sacct ran, or without an End

	NoTimelimit int // jobs kept whose Timelimit is UNLIMITED, Partition_Limit, INVALID or empty: ReqTime -1

	Measured          int // jobs kept with a measured power (Record.Power > 0)
	EnergyShared      int // jobs kept with energy that did not hold whole nodes: no power taken
	EnergyUnverified  int // jobs kept with energy, but neither CPUsPerNode nor AssumeExclusive was given
	EnergyImplausible int // jobs kept whose energy gives more than 100 kW per node: no power taken
	EnergyNone        int // jobs kept with no energy (ConsumedEnergyRaw empty or 0): the machine's model gives their power
}

// Dropped is the number of jobs read but not turned into Records.
func (s SacctStats) Dropped() int {
	return s.DroppedPendingArray + s.DroppedPending + s.DroppedNotStarted + s.DroppedUnfinished
}

// maxNodePower bounds a measured power, W per node: beyond it the energy
// counter is taken to be wrong (8-GPU nodes draw about 10 kW).
const maxNodePower = 1e5

// sacctMaxLine bounds a line, newline included; longer ones are malformed.
const sacctMaxLine = 1 << 20

// clockSlack is how far End may read before Start: sacct prints local
// times, so a job that ends in the hour repeated when clocks go back may
// seem to end before it started. More than a clock change explains is an
// error.
const clockSlack = 3 * 3600

// Timestamps are accepted from year sacctMinYear to sacctMaxYear, so that
// trace times stay within MaxTime of each other.
const (
	sacctMinYear = 1970
	sacctMaxYear = 2200
)

// OpenSacct reads the sacct output at path, plain or gzipped.
func OpenSacct(path string, opt SacctOptions) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSacct(path, f, opt)
}

// ReadSacct reads `sacct --parsable2` output from r (plain, or gzipped:
// input starting with 1f 8b is inflated); name is used in errors and
// Trace.Name. Reading is streamed: memory is the jobs plus fixed buffers.
//
// Columns are found by name in the header (case does not matter; unknown
// columns are ignored). Needed: JobID, Submit, a run time (Elapsed,
// ElapsedRaw, or Start and End), and AllocCPUS or NCPUS. Used when present:
// JobIDRaw, Start, End, Timelimit (or TimelimitRaw), NNodes, ReqCPUS,
// State, User, Group, Account, Partition, QOS, ConsumedEnergyRaw. Every known
// column is checked on every line, steps included; a malformed line is a
// *LineError naming the line, or with SkipBadLines is counted in
// Trace.BadLines (the first few line numbers in Trace.FirstBad).
//
// Each job becomes one Record:
//
//   - Steps (JobID.batch, .extern, .0, .interactive, ...) are folded into
//     the job line before them with the same JobID; a step with no such
//     line is counted in OrphanSteps and ignored. Steps only bring energy.
//   - Array tasks (1234_5) are jobs of their own, with JobIDRaw as their
//     ID (without a JobIDRaw column they all get the array's number);
//     lines of tasks that never started (1234_[6-10]) are dropped and
//     counted.
//   - Heterogeneous components (1234+0, 1234+1, ...) are folded into one
//     job, ID the leader's: their components are scheduled together and
//     start together, and pwrc has no co-allocation of separate jobs.
//     Nodes, CPUs and energies add up; Submit and Start are the earliest,
//     the run time and Timelimit the longest (unknown if any is);
//     User, Group, Partition, QOS and State are the leader's. If any
//     component is dropped, the whole job is.
//   - A JobID seen before on a job line (requeued runs, printed with
//     --duplicates) starts a new job; later steps go to the newest.
//
// Fields of the Record: Submit is seconds since the earliest Submit of the
// kept jobs, whose Unix time is Header.UnixStartTime (HasStartTime set,
// TimeZoneString the Location's name). Wait is Start − Submit (-1 if
// unknown). Runtime is Elapsed (else ElapsedRaw, else End − Start; -1 if
// none; an Elapsed of INVALID, which Slurm prints for a negative time,
// counts as none, and so does an End before Start). An End more than 3
// hours before its Start is malformed; less may be a clock going back.
// AllocProcs is AllocCPUS (else NCPUS), ReqProcs ReqCPUS, Nodes NNodes (0
// when unknown: Clean then counts nodes from CPUs). ReqTime is Timelimit
// in seconds, -1 for UNLIMITED, Partition_Limit, INVALID or empty (Clean
// then uses the run time). Status is SWF's: 1 COMPLETED; 0 FAILED,
// TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, SPECIAL_EXIT,
// LAUNCH_FAILED; 5 CANCELLED, PREEMPTED, REQUEUED; -1 other states or no
// State column. User, Group, Account, Partition and QOS are numbers from 1
// for the names in Trace.Sacct.Names, given in order of first appearance
// among the jobs kept (-1 for an empty field); Queue is -1 (Slurm has
// partitions and QOS, not SWF's queue number).
//
// Jobs never started are dropped: PENDING (and held) jobs, jobs whose
// Start is Unknown or None, and jobs ended while pending, to which Slurm
// gives Start = End (see neverStarted). So are jobs not
// finished when sacct ran: RUNNING, SUSPENDED and the like, or any job
// whose End is Unknown, since their Elapsed is only the time so far.
//
// Energy and power: a job's energy is its job line's ConsumedEnergyRaw
// when above 0; else its .extern step's, which spans the whole allocation
// on every node; else the larger of its .batch step's and the sum of its
// other steps'. Step energies are not all added up because energy plugins
// read node counters: the batch step (on the first node, for the whole
// job) overlaps the numbered steps, and the extern step covers them all.
// Values from 2^63 up (Slurm's NO_VAL64 and INFINITE64) count as no
// energy. Record.Power, W per node, is energy / Runtime / Nodes for jobs
// that held whole nodes, since only then does the energy belong to the
// job alone: with AssumeExclusive every job, with CPUsPerNode > 0 a job
// whose AllocCPUS is NNodes × CPUsPerNode, and without either option none
// (counted in EnergyUnverified). A Power above 100 kW per node is taken
// for a faulty counter and dropped. Jobs without a measured power are left
// to the machine's power model.
func ReadSacct(name string, r io.Reader, opt SacctOptions) (*Trace, error) {
	p, err := newSacctParser(name, opt)
	if err != nil {
		return nil, err
	}
	rec := &errRecorder{r: r}
	br := bufio.NewReaderSize(rec, 64<<10)
	gz := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := klauspostGzip(br)
		if err != nil {
			if rec.err != nil && errors.Is(err, rec.err) {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return nil, gzipError(name, err)
		}
		defer zr.Close()
		br, gz = bufio.NewReaderSize(zr, 64<<10), true
	}
	if err := p.read(br); err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return nil, err
		}
		if gz && !(rec.err != nil && errors.Is(err, rec.err)) {
			return nil, gzipError(name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !p.haveHeader {
		return nil, &LineError{File: name, Line: max(p.line, 1), Col: 1, Msg: "no header line: want `sacct --parsable2` output with its header; " + p.noHeaderHint()}
	}
	p.finish()
	return p.t, nil
}

// CheckSacctFormat checks a format for SacctOptions.Format: the fields, by
// name as sacct --format takes them, that ReadSacct needs. It returns what
// is wrong, or nil.
func CheckSacctFormat(format string) error {
	p, err := newSacctParser("format", SacctOptions{})
	if err != nil {
		return err
	}
	names := strings.Split(format, ",")
	bs := make([][]byte, len(names))
	for i, n := range names {
		bs[i] = []byte(n)
	}
	if msg := p.columns(bs, "format"); msg != "" {
		return errors.New(strings.TrimPrefix(msg, "format: "))
	}
	return nil
}

// noHeaderHint ends the messages about a file without a header line: how
// to read `sacct --noheader` output.
func (p *sacctParser) noHeaderHint() string {
	how := p.opt.FormatHint
	if how == "" {
		how = "SacctOptions.Format"
	}
	return "for `sacct --noheader` output, give its fields with " + how
}

// Columns pwrc knows.
const (
	colJobID = iota
	colJobIDRaw
	colSubmit
	colStart
	colEnd
	colElapsed
	colElapsedRaw
	colTimelimit
	colTimelimitRaw
	colNNodes
	colNCPUS
	colAllocCPUS
	colReqCPUS
	colState
	colUser
	colGroup
	colPartition
	colQOS
	colAccount
	colEnergy
	numCols
)

var sacctColumns = [numCols]string{
	"JobID", "JobIDRaw", "Submit", "Start", "End", "Elapsed", "ElapsedRaw",
	"Timelimit", "TimelimitRaw", "NNodes", "NCPUS", "AllocCPUS", "ReqCPUS",
	"State", "User", "Group", "Partition", "QOS", "Account", "ConsumedEnergyRaw",
}

// Job ID kinds.
const (
	kindPlain uint8 = iota
	kindArray
	kindPendingArray
	kindHet
)

// jobID is a parsed JobID: base, then _task, _[range] or +offset, then
// .step.
type jobID struct {
	base int64
	sub  int64 // array task or heterogeneous offset
	kind uint8
	step []byte // nil on job lines
}

type unitKey struct {
	base int64
	sub  int64
	kind uint8
}

// dropReason says why a job is not kept; 0 = kept.
type dropReason uint8

const (
	keep dropReason = iota
	dropPending
	dropNotStarted
	dropUnfinished
)

// sacctUnit is one job line: a job, or a component of a heterogeneous job.
// After folding, a leader unit holds the whole job.
type sacctUnit struct {
	id       int64
	line     int
	lead     int   // index of the unit whose job this is: itself, or a het leader
	lastOff  int64 // highest het offset folded in (leaders only)
	submit   int64 // Unix seconds
	start    int64
	hasStart bool
	runtime  float64 // s, -1 unknown
	reqTime  float64 // s, -1 unknown
	noLimit  bool
	nodes    int // -1 unknown
	cpus     int
	reqCPUs  int
	names    [NumNameFields]int // numbers of the user, group, account, partition and QOS
	status   int
	drop     dropReason
	excl     bool    // held whole nodes (by the options)
	energy   float64 // J, the job's, once folded
	eJob     float64 // the job line's ConsumedEnergyRaw, J
	eExtern  float64
	eBatch   float64
	eOther   float64
}

// namer numbers names in order of first appearance, from 1.
type namer struct {
	ids   map[string]int
	names []string
}

func (n *namer) id(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	if id, ok := n.ids[string(b)]; ok {
		return id
	}
	if n.ids == nil {
		n.ids = map[string]int{}
	}
	s := string(b)
	n.names = append(n.names, s)
	n.ids[s] = len(n.names)
	return len(n.names)
}

type sacctParser struct {
	t     *Trace
	opt   SacctOptions
	loc   *time.Location
	utc   bool
	delim []byte

	line       int
	text       []byte // the line being read
	at         int    // the byte offset in text of what is wrong with it; -1: the line
	haveHeader bool
	format     bool // the columns came from SacctOptions.Format
	sawLine    bool // a non-blank line was seen
	nf         int  // fields per line
	idx        [numCols]int
	fields     [][]byte

	st      SacctStats
	units   []sacctUnit
	byKey   map[unitKey]int
	hetLead map[int64]int
	namers  [NumNameFields]namer
}

// nameCols are the columns of the name fields, by NameField.
var nameCols = [NumNameFields]int{NameUser: colUser, NameGroup: colGroup, NameAccount: colAccount, NamePartition: colPartition, NameQOS: colQOS}

func newSacctParser(name string, opt SacctOptions) (*sacctParser, error) {
	p := &sacctParser{
		t:       &Trace{Name: name},
		opt:     opt,
		loc:     opt.Location,
		delim:   []byte(opt.Delimiter),
		byKey:   map[unitKey]int{},
		hetLead: map[int64]int{},
	}
	if p.loc == nil {
		p.loc = time.UTC
	}
	p.utc = p.loc == time.UTC
	if len(p.delim) == 0 {
		p.delim = []byte{'|'}
	}
	if bytes.ContainsAny(p.delim, "\n\r") {
		return nil, fmt.Errorf("%s: sacct delimiter %q contains a line break", name, opt.Delimiter)
	}
	if opt.Format != "" {
		names := strings.Split(opt.Format, ",")
		bs := make([][]byte, len(names))
		for i, n := range names {
			bs[i] = []byte(n)
		}
		if msg := p.columns(bs, "format"); msg != "" {
			return nil, fmt.Errorf("%s: %s", name, msg)
		}
		p.haveHeader, p.format = true, true
	}
	return p, nil
}

// read splits the input into lines and handles them.
func (p *sacctParser) read(br *bufio.Reader) error {
	var long []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !over && len(long)+len(chunk) <= sacctMaxLine {
				long = append(long, chunk...)
			} else {
				over, long = true, long[:0]
			}
			continue
		}
		line := chunk
		if len(long) > 0 || over {
			if !over && len(long)+len(chunk) <= sacctMaxLine {
				long = append(long, chunk...)
				line = long
			} else {
				over = true
			}
		}
		if err == nil || err == io.EOF && (len(line) > 0 || over) {
			var herr error
			if over {
				herr = p.tooLong()
			} else {
				herr = p.handle(line)
			}
			long, over = long[:0], false
			if herr != nil {
				return herr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *sacctParser) tooLong() error {
	p.line++
	p.text, p.at = nil, -1
	msg := fmt.Sprintf("line longer than %d bytes", sacctMaxLine)
	if !p.haveHeader {
		return &LineError{File: p.t.Name, Line: p.line, Col: 1, Msg: "header: " + msg}
	}
	p.sawLine = true
	return p.bad(msg)
}

func (p *sacctParser) bad(msg string) error {
	if !p.opt.SkipBadLines {
		return &LineError{File: p.t.Name, Line: p.line, Col: colAt(p.text, p.at), Msg: msg}
	}
	p.t.BadLines++
	if len(p.t.FirstBad) < maxFirstBad {
		p.t.FirstBad = append(p.t.FirstBad, p.line)
	}
	return nil
}

func (p *sacctParser) handle(b []byte) error {
	p.line++
	if p.line == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	p.text, p.at = b, -1
	if msg, at := textProblem(b, p.line == 1); msg != "" {
		return &LineError{File: p.t.Name, Line: p.line, Col: colAt(b, at), Msg: msg}
	}
	if len(trimSpace(b)) == 0 {
		return nil
	}
	first := !p.sawLine
	p.sawLine = true
	if !p.haveHeader {
		if msg := p.header(b); msg != "" {
			return &LineError{File: p.t.Name, Line: p.line, Col: colAt(b, p.at), Msg: msg}
		}
		p.haveHeader = true
		return nil
	}
	if first && p.format {
		if p.isHeader(b) {
			return nil
		}
		// A header, though not of the format: the format is wrong for
		// this file, which says its own fields.
		if f := p.split(b); len(f) > 0 && equalFold(trimSpace(f[0]), "JobID") {
			return &LineError{File: p.t.Name, Line: p.line, Col: 1, Msg: "header: the first line is a header whose fields are not the format's: " +
				"leave the format out to read the header, or give the fields in its order"}
		}
	}
	if msg := p.row(b); msg != "" {
		return p.bad(msg)
	}
	return nil
}

// split cuts b at the delimiter into p.fields.
func (p *sacctParser) split(b []byte) [][]byte {
	p.fields = p.fields[:0]
	for {
		i := bytes.Index(b, p.delim)
		if i < 0 {
			p.fields = append(p.fields, b)
			return p.fields
		}
		p.fields = append(p.fields, b[:i])
		b = b[i+len(p.delim):]
	}
}

func (p *sacctParser) header(b []byte) string {
	if !bytes.Contains(b, p.delim) {
		if bytes.Count(b, []byte{','}) >= 2 {
			return fmt.Sprintf("header: no %q in the first line, which is comma-separated: want `sacct --parsable2` output, %q-separated, with its header", p.delim, p.delim)
		}
		return fmt.Sprintf("header: no %q in the first line: want `sacct --parsable2` output with its header", p.delim)
	}
	return p.columns(p.split(b), "header")
}

// columns maps field names to the columns pwrc knows.
func (p *sacctParser) columns(names [][]byte, what string) string {
	for c := range p.idx {
		p.idx[c] = -1
	}
	if _, ok := parseJobID(trimSpace(names[0])); ok && what == "header" {
		p.at = p.fieldAt(0)
		return fmt.Sprintf("header: the first line is data (JobID %q): %s", clip(trimSpace(names[0])), p.noHeaderHint())
	}
	for i, n := range names {
		n = trimSpace(n)
		if len(n) == 0 {
			if i == len(names)-1 && i > 0 {
				continue // --parsable ends each line with the delimiter
			}
			p.at = p.fieldAt(i)
			return fmt.Sprintf("%s: field %d has no name", what, i+1)
		}
		for c, known := range sacctColumns {
			if !strings.EqualFold(string(n), known) {
				continue
			}
			if p.idx[c] >= 0 {
				p.at = p.fieldAt(i)
				return fmt.Sprintf("%s: %s appears twice", what, known)
			}
			p.idx[c] = i
		}
	}
	p.nf = len(names)
	var missing []string
	if p.idx[colJobID] < 0 {
		missing = append(missing, "JobID")
	}
	if p.idx[colSubmit] < 0 {
		missing = append(missing, "Submit")
	}
	if p.idx[colElapsed] < 0 && p.idx[colElapsedRaw] < 0 && (p.idx[colStart] < 0 || p.idx[colEnd] < 0) {
		missing = append(missing, "Elapsed (or Start and End)")
	}
	if p.idx[colAllocCPUS] < 0 && p.idx[colNCPUS] < 0 {
		missing = append(missing, "AllocCPUS (or NCPUS)")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("%s: no %s field", what, strings.Join(missing, " field, no "))
		if what == "header" {
			msg += " (" + p.noHeaderHint() + ")"
		}
		return msg
	}
	return ""
}

// isHeader reports whether b names the columns of the format.
func (p *sacctParser) isHeader(b []byte) bool {
	if bytes.Count(b, p.delim)+1 != p.nf {
		return false
	}
	f := p.split(b)
	for c, i := range p.idx {
		if i >= 0 && !strings.EqualFold(string(trimSpace(f[i])), sacctColumns[c]) {
			return false
		}
	}
	return true
}

// col returns the field of column c, blanks trimmed; nil if absent.
func (p *sacctParser) col(c int) []byte {
	if i := p.idx[c]; i >= 0 {
		return trimSpace(p.fields[i])
	}
	return nil
}

func (p *sacctParser) badField(c int, want string, tok []byte) string {
	p.at = p.fieldAt(p.idx[c])
	return fmt.Sprintf("%s: want %s, found %q", sacctColumns[c], want, clip(tok))
}

// fieldAt is the byte offset in the line of field i as split (after its
// leading blanks), for LineError's column; -1 when it is not there.
func (p *sacctParser) fieldAt(i int) int {
	if i < 0 || i >= len(p.fields) || p.text == nil {
		return -1
	}
	off := 0
	for _, f := range p.fields[:i] {
		off += len(f) + len(p.delim)
	}
	f := p.fields[i]
	return off + len(f) - len(bytes.TrimLeft(f, " \t\r\v\f"))
}

// sacctRow is one line's known fields, parsed.
type sacctRow struct {
	id                 jobID
	raw                int64 // -1 unknown
	submit, start, end int64
	hasSubmit          bool
	hasStart, hasEnd   bool
	elapsed            float64 // -1 unknown
	reqTime            float64 // -1 unknown
	noLimit            bool
	nodes, cpus, req   int // -1 unknown
	state              []byte
	energy             float64 // -1 unknown
}

// row parses a data line and folds it into the jobs; it returns "" or what
// is wrong, in which case nothing has changed.
func (p *sacctParser) row(b []byte) string {
	if n := bytes.Count(b, p.delim) + 1; n != p.nf {
		as := "the header"
		if p.format {
			as = "the format"
		}
		msg := fmt.Sprintf("expected %d fields as in %s, found %d", p.nf, as, n)
		p.split(b)
		p.at = len(bytes.TrimRight(b, " \t\r\v\f"))
		if n > p.nf {
			msg += fmt.Sprintf(" (a %q inside a field such as JobName?)", p.delim)
			p.at = p.fieldAt(p.nf)
		}
		return msg
	}
	p.split(b)
	var r sacctRow
	if msg := p.parse(&r); msg != "" {
		return msg
	}
	p.apply(&r)
	return ""
}

func (p *sacctParser) parse(r *sacctRow) string {
	tok := p.col(colJobID)
	id, ok := parseJobID(tok)
	if !ok {
		return p.badField(colJobID, "a job ID such as 1234, 1234.batch, 1234_5 or 1234+1", tok)
	}
	r.id, r.raw = id, -1
	if tok := p.col(colJobIDRaw); len(tok) > 0 {
		raw, ok := parseRawID(tok)
		if !ok {
			return p.badField(colJobIDRaw, "a job ID such as 1234 or 1234.batch", tok)
		}
		r.raw = raw
	}
	var msg string
	if r.submit, r.hasSubmit, msg = p.timeField(colSubmit); msg != "" {
		return msg
	}
	if id.step == nil && !r.hasSubmit {
		return p.badField(colSubmit, "the submit time of the job", p.col(colSubmit))
	}
	if r.start, r.hasStart, msg = p.timeField(colStart); msg != "" {
		return msg
	}
	if r.end, r.hasEnd, msg = p.timeField(colEnd); msg != "" {
		return msg
	}
	if r.hasStart && r.hasEnd && r.end < r.start-clockSlack {
		p.at = p.fieldAt(p.idx[colEnd])
		return fmt.Sprintf("End %q is before Start %q", p.col(colEnd), p.col(colStart))
	}

	r.elapsed = -1
	if tok := p.col(colElapsed); len(tok) > 0 && !equalFold(tok, "INVALID") {
		d, st := parseSlurmDuration(tok)
		if st != parseOK {
			return p.durationError(colElapsed, st, tok)
		}
		r.elapsed = d
	} else if tok := p.col(colElapsedRaw); len(tok) > 0 {
		n, ok := parseDigits(tok, 11)
		if !ok || float64(n) > MaxTime {
			return p.badField(colElapsedRaw, "seconds, at most 1e10", tok)
		}
		r.elapsed = float64(n)
	} else if r.hasStart && r.hasEnd && r.end >= r.start {
		r.elapsed = float64(r.end - r.start)
	}

	r.reqTime = -1
	if p.idx[colTimelimit] >= 0 {
		tok := p.col(colTimelimit)
		switch {
		case len(tok) == 0 || noTimelimit(tok):
			r.noLimit = true
		default:
			d, st := parseSlurmDuration(tok)
			if st != parseOK {
				return p.durationError(colTimelimit, st, tok)
			}
			r.reqTime = d
		}
	} else if p.idx[colTimelimitRaw] >= 0 {
		tok := p.col(colTimelimitRaw)
		switch {
		case len(tok) == 0 || noTimelimit(tok):
			r.noLimit = true
		default:
			n, ok := parseDigits(tok, 9)
			if !ok || float64(n)*60 > MaxTime {
				return p.badField(colTimelimitRaw, "minutes (at most 1e10 s), UNLIMITED or Partition_Limit", tok)
			}
			r.reqTime = float64(n) * 60
		}
	}

	if r.nodes, msg = p.count(colNNodes); msg != "" {
		return msg
	}
	alloc, msg := p.count(colAllocCPUS)
	if msg != "" {
		return msg
	}
	ncpus, msg := p.count(colNCPUS)
	if msg != "" {
		return msg
	}
	r.cpus = alloc
	if r.cpus < 0 {
		r.cpus = ncpus
	}
	if r.req, msg = p.count(colReqCPUS); msg != "" {
		return msg
	}

	if tok := p.col(colState); len(tok) > 0 {
		w := stateWord(tok)
		if w == nil {
			return p.badField(colState, "a Slurm job state such as COMPLETED or CANCELLED by 1234", tok)
		}
		r.state = w
	}

	r.energy = -1
	if tok := p.col(colEnergy); len(tok) > 0 {
		e, st := parseEnergy(tok)
		if st != parseOK {
			return p.badField(colEnergy, "joules, a whole number", tok)
		}
		r.energy = e
	}
	return ""
}

func (p *sacctParser) durationError(c int, st parseStatus, tok []byte) string {
	if st == parseRange {
		p.at = p.fieldAt(p.idx[c])
		return fmt.Sprintf("%s: %q is more than pwrc's limit of 1e10 s (317 years)", sacctColumns[c], clip(tok))
	}
	want := "a duration such as 1-02:03:04, 02:03:04 or 03:04"
	if c == colTimelimit {
		want += ", UNLIMITED or Partition_Limit"
	}
	return p.badField(c, want, tok)
}

// timeField parses a Submit, Start or End column; known is false for
// Unknown, None, an empty field or an absent column.
func (p *sacctParser) timeField(c int) (unix int64, known bool, msg string) {
	tok := p.col(c)
	unix, known, ok := p.parseTime(tok)
	if !ok {
		want := "a time such as 2024-03-01T12:00:00, or Unknown"
		if looksLikeTime(tok) {
			want += " (a valid date, years 1970 to 2200)"
		} else {
			want += " (set SLURM_TIME_FORMAT=standard when running sacct)"
		}
		return 0, false, p.badField(c, want, tok)
	}
	return unix, known, ""
}

// count parses a count column; -1 when empty or absent. Values above
// int32 range up to uint32 are Slurm's NO_VAL and INFINITE: unknown.
func (p *sacctParser) count(c int) (int, string) {
	tok := p.col(c)
	if len(tok) == 0 {
		return -1, ""
	}
	n, ok := parseDigits(tok, 10)
	if !ok || n > math.MaxUint32 {
		return 0, p.badField(c, "a whole number", tok)
	}
	if n > math.MaxInt32 {
		return -1, ""
	}
	return int(n), ""
}

// apply folds a parsed line into the jobs.
func (p *sacctParser) apply(r *sacctRow) {
	p.st.Lines++
	key := unitKey{base: r.id.base, sub: r.id.sub, kind: r.id.kind}
	if r.id.step != nil {
		i, ok := p.byKey[key]
		if !ok || r.id.kind == kindPendingArray {
			p.st.OrphanSteps++
			return
		}
		p.st.StepLines++
		if r.energy > 0 {
			u := &p.units[i]
			switch string(r.id.step) {
			case "extern":
				u.eExtern += r.energy
			case "batch":
				u.eBatch += r.energy
			default:
				u.eOther += r.energy
			}
		}
		return
	}
	p.st.JobLines++
	u := sacctUnit{
		line:     p.line,
		submit:   r.submit,
		start:    r.start,
		hasStart: r.hasStart,
		runtime:  r.elapsed,
		reqTime:  r.reqTime,
		noLimit:  r.noLimit,
		nodes:    r.nodes,
		cpus:     r.cpus,
		reqCPUs:  r.req,
		status:   -1,
		eJob:     max(r.energy, 0),
		lastOff:  r.id.sub,
	}
	if r.id.kind == kindPendingArray {
		p.st.DroppedPendingArray++
		return
	}
	for f, c := range nameCols {
		u.names[f] = p.namers[f].id(p.col(c))
	}
	u.id = r.id.base
	if r.raw >= 0 && r.id.kind != kindHet {
		u.id = r.raw
	}
	var class stateClass
	u.status, class = stateOf(r.state)
	switch {
	case class == statePending:
		u.drop = dropPending
	case class == stateRunning:
		u.drop = dropUnfinished
	case p.idx[colStart] >= 0 && !r.hasStart:
		u.drop = dropNotStarted
	case p.idx[colEnd] >= 0 && !r.hasEnd:
		u.drop = dropUnfinished
	case p.neverStarted(r):
		u.drop = dropNotStarted
	}
	i := len(p.units)
	u.lead = i
	_, dup := p.byKey[key]
	if l, ok := p.hetLead[r.id.base]; ok && r.id.kind == kindHet && p.units[l].lastOff < r.id.sub {
		// The next component of the newest het job of this ID.
		u.lead = l
		p.units[l].lastOff = r.id.sub
	} else {
		if dup {
			p.st.Duplicates++
		}
		if r.id.kind == kindHet {
			p.hetLead[r.id.base] = i
		}
	}
	p.byKey[key] = i
	p.units = append(p.units, u)
}

// neverStarted reports whether a finished job's line, whose Start is known
// or absent, says it ended without starting. Slurm gives a job it ends while
// pending (cancelled, past its deadline, refused for its account) a Start
// equal to its End, the instant it ended — its Submit, when that was at
// once — an Elapsed of 0 and no allocation (AllocCPUS 0). So a line whose
// run lasted no time (Start = End, or an Elapsed of 0 without Start and
// End) is of a job that never started when it held no CPUs, or when it was
// CANCELLED with Start = End = Submit. (A job that started and ended in the
// same second holds CPUs: it is kept, and cleaning drops it for its run
// time of 0.)
func (p *sacctParser) neverStarted(r *sacctRow) bool {
	switch {
	case r.hasStart && r.hasEnd:
		if r.end != r.start {
			return false
		}
	case p.idx[colStart] >= 0 && p.idx[colEnd] >= 0 || r.elapsed != 0:
		return false
	}
	atSubmit := r.hasStart && r.hasEnd && r.start == r.submit
	return r.cpus == 0 || atSubmit && string(r.state) == "CANCELLED"
}

// finish folds heterogeneous components into their leaders and turns the
// jobs into Records.
func (p *sacctParser) finish() {
	units := p.units
	for i := range units {
		u := &units[i]
		switch {
		case u.eJob > 0:
			u.energy = u.eJob
		case u.eExtern > 0:
			u.energy = u.eExtern
		default:
			u.energy = max(u.eBatch, u.eOther)
		}
		switch {
		case p.opt.AssumeExclusive:
			u.excl = true
		case p.opt.CPUsPerNode > 0:
			u.excl = u.nodes > 0 && int64(u.cpus) == int64(u.nodes)*int64(p.opt.CPUsPerNode)
		}
		if u.lead == i {
			continue
		}
		p.st.HetFolded++
		l := &units[u.lead]
		l.submit = min(l.submit, u.submit)
		if u.hasStart && (!l.hasStart || u.start < l.start) {
			l.start, l.hasStart = u.start, true
		}
		if l.runtime < 0 || u.runtime < 0 {
			l.runtime = -1
		} else {
			l.runtime = max(l.runtime, u.runtime)
		}
		if l.reqTime < 0 || u.reqTime < 0 {
			l.reqTime = -1
		} else {
			l.reqTime = max(l.reqTime, u.reqTime)
		}
		l.noLimit = l.noLimit || u.noLimit
		l.nodes = addKnown(l.nodes, u.nodes)
		l.cpus = addKnown(l.cpus, u.cpus)
		l.reqCPUs = addKnown(l.reqCPUs, u.reqCPUs)
		if l.drop == keep {
			l.drop = u.drop
		}
		l.energy += u.energy
		l.excl = l.excl && u.excl
	}

	kept := 0
	first := int64(math.MaxInt64)
	for i := range units {
		u := &units[i]
		if u.lead != i {
			continue
		}
		switch u.drop {
		case dropPending:
			p.st.DroppedPending++
		case dropNotStarted:
			p.st.DroppedNotStarted++
		case dropUnfinished:
			p.st.DroppedUnfinished++
		default:
			kept++
			first = min(first, u.submit)
		}
	}
	// The names are numbered again, in order of first appearance among
	// the jobs kept: the tables then hold the names of the jobs read, and
	// no name of a job dropped (never started, say).
	var renum [NumNameFields][]int
	var names Names
	for f := range renum {
		renum[f] = make([]int, len(p.namers[f].names)+1)
	}
	recs := make([]Record, 0, kept)
	for i := range units {
		u := &units[i]
		if u.lead != i || u.drop != keep {
			continue
		}
		for f, id := range u.names {
			if id < 1 {
				continue
			}
			if renum[f][id] == 0 {
				names[f] = append(names[f], p.namers[f].names[id-1])
				renum[f][id] = len(names[f])
			}
			u.names[f] = renum[f][id]
		}
		wait := -1.0
		if u.hasStart && u.start >= u.submit {
			wait = float64(u.start - u.submit)
		}
		if u.noLimit {
			p.st.NoTimelimit++
		}
		recs = append(recs, Record{
			ID:         u.id,
			Submit:     float64(u.submit - first),
			Wait:       wait,
			Runtime:    u.runtime,
			AllocProcs: u.cpus,
			ReqProcs:   u.reqCPUs,
			ReqTime:    u.reqTime,
			Status:     u.status,
			User:       u.names[NameUser],
			Group:      u.names[NameGroup],
			Queue:      -1,
			Partition:  u.names[NamePartition],
			Account:    u.names[NameAccount],
			QOS:        u.names[NameQOS],
			Line:       u.line,
			Nodes:      max(u.nodes, 0),
			Power:      p.power(u),
		})
	}
	p.st.Jobs = len(recs)
	p.t.Records = recs
	if len(recs) > 0 {
		p.t.Header.UnixStartTime, p.t.Header.HasStartTime = first, true
	}
	p.t.Header.TimeZoneString = p.loc.String()
	p.t.Sacct = &SacctInfo{Stats: p.st, Names: names}
	p.units, p.byKey, p.hetLead = nil, nil, nil
}

// power returns a kept job's measured power per node, W, or 0, counting
// why not.
func (p *sacctParser) power(u *sacctUnit) float64 {
	if !(u.energy > 0) {
		p.st.EnergyNone++
		return 0
	}
	switch {
	case !p.opt.AssumeExclusive && p.opt.CPUsPerNode <= 0:
		p.st.EnergyUnverified++
		return 0
	case !u.excl:
		p.st.EnergyShared++
		return 0
	case !(u.runtime > 0) || u.nodes <= 0:
		return 0 // Clean drops it: no run time
	}
	w := u.energy / u.runtime / float64(u.nodes)
	if !(w <= maxNodePower) {
		p.st.EnergyImplausible++
		return 0
	}
	p.st.Measured++
	return w
}

func addKnown(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

// parseJobID parses base[_task|_[range]|+offset][.step].
func parseJobID(b []byte) (jobID, bool) {
	var id jobID
	base, n := leadingDigits(b, 15)
	if n == 0 {
		return id, false
	}
	id.base = base
	b = b[n:]
	switch {
	case len(b) >= 2 && b[0] == '_' && b[1] == '[':
		// Tasks not yet started: 1234_[6-10%2]. sacct may cut a long
		// range short, so only the characters are checked.
		for _, c := range b[2:] {
			if !(c >= '0' && c <= '9' || c == ',' || c == '-' || c == '%' || c == ':' || c == ']' || c == '.') {
				return id, false
			}
		}
		id.kind = kindPendingArray
		return id, true
	case len(b) >= 1 && (b[0] == '_' || b[0] == '+'):
		sub, m := leadingDigits(b[1:], 10)
		if m == 0 {
			return id, false
		}
		id.sub = sub
		id.kind = kindArray
		if b[0] == '+' {
			id.kind = kindHet
		}
		b = b[1+m:]
	}
	if len(b) == 0 {
		return id, true
	}
	if b[0] != '.' || !stepName(b[1:]) {
		return id, false
	}
	id.step = b[1:]
	return id, true
}

// stepName accepts batch, extern, interactive, 0, 0+1 (a heterogeneous
// step) and the like.
func stepName(b []byte) bool {
	if len(b) == 0 || len(b) > 32 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '+' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// parseRawID parses a JobIDRaw: digits, then optionally .step.
func parseRawID(b []byte) (int64, bool) {
	v, n := leadingDigits(b, 15)
	if n == 0 {
		return 0, false
	}
	if b = b[n:]; len(b) > 0 && (b[0] != '.' || !stepName(b[1:])) {
		return 0, false
	}
	return v, true
}

// leadingDigits parses up to max leading digits of b; n = 0 if there are
// none or more than max.
func leadingDigits(b []byte, max int) (v int64, n int) {
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		if n == max {
			return 0, 0
		}
		v = v*10 + int64(b[n]-'0')
		n++
	}
	return v, n
}

// parseDigits parses b, which must be 1 to max digits.
func parseDigits(b []byte, max int) (int64, bool) {
	v, n := leadingDigits(b, max)
	return v, n > 0 && n == len(b)
}

type parseStatus uint8

const (
	parseOK parseStatus = iota
	parseBad
	parseRange
)

// parseSlurmDuration parses Slurm's durations: MM:SS, HH:MM:SS, D-HH,
// D-HH:MM, D-HH:MM:SS, the seconds optionally with a fraction (.sss). The
// leading field may be any size (90:00 is 90 minutes) unless days are
// given; the others are below 60 (hours below 24). A bare number is not
// accepted: sacct never prints one, and Slurm would read it as minutes.
func parseSlurmDuration(b []byte) (float64, parseStatus) {
	if len(b) == 0 || len(b) > 40 {
		return 0, parseBad
	}
	days := int64(-1)
	if i := bytes.IndexByte(b, '-'); i >= 0 {
		d, ok := parseDigits(b[:i], 7)
		if !ok {
			return 0, parseBad
		}
		days, b = d, b[i+1:]
	}
	frac, hasFrac := 0.0, false
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		f := b[i+1:]
		v, ok := parseDigits(f, 9)
		if !ok {
			return 0, parseBad
		}
		frac, hasFrac, b = float64(v)/pow10[len(f)], true, b[:i]
	}
	var v [3]int64
	n := 0
	for {
		if n == 3 {
			return 0, parseBad
		}
		i := bytes.IndexByte(b, ':')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		width := 2
		if n == 0 && days < 0 {
			width = 10
		}
		x, ok := parseDigits(part, width)
		if !ok {
			return 0, parseBad
		}
		v[n] = x
		n++
		if i < 0 {
			break
		}
		b = b[i+1:]
	}
	var secs int64
	if days >= 0 {
		if v[0] > 23 || v[1] > 59 || v[2] > 59 || hasFrac && n < 3 {
			return 0, parseBad
		}
		secs = days*86400 + v[0]*3600 + v[1]*60 + v[2]
	} else {
		switch n {
		case 2:
			if v[1] > 59 {
				return 0, parseBad
			}
			secs = v[0]*60 + v[1]
		case 3:
			if v[1] > 59 || v[2] > 59 {
				return 0, parseBad
			}
			secs = v[0]*3600 + v[1]*60 + v[2]
		default:
			return 0, parseBad
		}
	}
	d := float64(secs) + frac
	if d > MaxTime {
		return 0, parseRange
	}
	return d, parseOK
}

// noTimelimit reports the Timelimit values that set no limit of the job's
// own.
func noTimelimit(b []byte) bool {
	return equalFold(b, "UNLIMITED") || equalFold(b, "Partition_Limit") || equalFold(b, "INVALID")
}

func equalFold(b []byte, s string) bool {
	return len(b) == len(s) && strings.EqualFold(string(b), s)
}

// parseTime parses YYYY-MM-DDTHH:MM:SS (or with a space for the T) in the
// parser's zone. Unknown, None and an empty field are unknown times.
func (p *sacctParser) parseTime(b []byte) (unix int64, known, ok bool) {
	if len(b) == 0 || equalFold(b, "Unknown") || equalFold(b, "None") {
		return 0, false, true
	}
	if !looksLikeTime(b) {
		return 0, false, false
	}
	num := func(s []byte) int {
		v, _ := parseDigits(s, 4)
		return int(v)
	}
	y, mo, d := num(b[0:4]), num(b[5:7]), num(b[8:10])
	h, mi, s := num(b[11:13]), num(b[14:16]), num(b[17:19])
	if y < sacctMinYear || y > sacctMaxYear || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) ||
		h > 23 || mi > 59 || s > 59 {
		return 0, false, false
	}
	if p.utc {
		return daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+s), true, true
	}
	return time.Date(y, time.Month(mo), d, h, mi, s, 0, p.loc).Unix(), true, true
}

// looksLikeTime reports the shape NNNN-NN-NNTNN:NN:NN.
func looksLikeTime(b []byte) bool {
	if len(b) != 19 || b[4] != '-' || b[7] != '-' || b[10] != 'T' && b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return false
	}
	for i, c := range b {
		switch i {
		case 4, 7, 10, 13, 16:
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y ≥ 1969 here, so no negative division
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseEnergy parses ConsumedEnergyRaw: a whole number of joules. Values
// from 2^63 up are Slurm's NO_VAL64 and INFINITE64: unknown (-1).
func parseEnergy(b []byte) (float64, parseStatus) {
	if len(b) > 20 {
		return 0, parseBad
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, parseBad
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, parseBad
		}
		v = v*10 + d
	}
	if v >= 1<<63 {
		return -1, parseOK
	}
	return float64(v), parseOK
}

type stateClass uint8

const (
	stateDone stateClass = iota
	statePending
	stateRunning
)

// stateWord returns the state name of a State field ("CANCELLED by 1234"
// → CANCELLED; a '+' sacct adds when the field was cut short is dropped),
// or nil if it is not shaped like one.
func stateWord(b []byte) []byte {
	w := b
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		w = b[:i]
	}
	w = bytes.TrimSuffix(w, []byte{'+'})
	if len(w) == 0 || len(w) > 32 {
		return nil
	}
	for _, c := range w {
		if !(c >= 'A' && c <= 'Z' || c == '_') {
			return nil
		}
	}
	return w
}

// stateOf maps a state name to SWF's status and whether the job ended.
// Names from https://slurm.schedmd.com/job_state_codes.html; unknown names
// count as ended with status -1, and their Start and End decide.
func stateOf(w []byte) (status int, class stateClass) {
	switch string(w) {
	case "COMPLETED":
		return 1, stateDone
	case "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "LAUNCH_FAILED":
		return 0, stateDone
	case "CANCELLED", "PREEMPTED", "REQUEUED", "REVOKED":
		return 5, stateDone
	case "PENDING", "REQUEUE_HOLD", "RESV_DEL_HOLD":
		return -1, statePending
	case "RUNNING", "SUSPENDED", "RESIZING", "CONFIGURING", "COMPLETING", "SIGNALING", "STAGE_OUT",
		"STOPPED", "REQUEUE_FED", "UPDATE_DB", "POWER_UP_NODE":
		return -1, stateRunning
	}
	return -1, stateDone
}
