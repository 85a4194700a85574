package compiler

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"

	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// `pwrc check` reads every input of every run as `pwrc run` will, with the
// runtime's own loader (runtime.InputCheck): the same readers, cleaning,
// cuts, clock and tariffs. What a run would fail with before it simulates,
// check reports here, at the line and column of the data file when the
// problem is in one (with the line shown, and a note at the scenario text
// that names the file), else at the scenario text it is about. The checks
// that need the data (a powercap below what the machine draws, a budget
// below the jobs, `keep` above a machine sized from its trace) follow.

// runSite is where the parts of a run are written, for the diagnostics
// about its inputs.
type runSite struct {
	ws    *lang.Stmt            // the workload statement (its swept value in place)
	stmts map[string]*lang.Stmt // the experiment's fields
	refs  policyRefs
}

// checkInputs reads run's inputs and reports what run would reject, and
// what the data says of the run's policy (`pwrc check` only: it reads
// whole traces).
func (c *compiler) checkInputs(run *runtime.Run, site runSite) {
	for _, path := range []string{run.Workload.Path, run.Contract.Prices, run.Contract.CarbonSeries} {
		if f := c.data[path]; path != "" && f != nil && f.err != nil {
			return // reported where the file is named
		}
	}
	ri := c.inputCheck().Run(run)
	c.checkNames(run, ri)
	if ri.Err != nil {
		c.inputError(run, site, ri)
		return
	}
	c.checkKeep(run, site, ri)
	c.checkActiveLevels(run, site, ri)
	c.checkCaps(run, site, ri)
	c.checkBudget(run, site, ri)
	c.checkWindow(run, site, ri)
}

// checkWindow warns of an accounting (or measure) window that lies
// entirely before the first submission of the run's jobs, or starts after
// the last: it accounts an idle machine, or at most the jobs still queued.
func (c *compiler) checkWindow(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	if !ri.Windowed || ri.Span == nil || ri.Jobs == 0 {
		return
	}
	kw := "account"
	s := site.stmts[kw]
	if run.Measure {
		kw, s = "measure", site.stmts["measure"]
	}
	if s == nil {
		return
	}
	sp := ri.Span
	from, to := ri.Window[0], ri.Window[1]
	var msg string
	switch {
	case to <= ri.First:
		msg = fmt.Sprintf("this window (%s .. %s) ends before the first submission of the run's jobs (%s): it %s only an idle machine",
			sp.Local(from), sp.Local(to), sp.Local(ri.First), map[string]string{"account": "accounts", "measure": "measures"}[kw])
	case from > ri.Last:
		msg = fmt.Sprintf("this window (%s .. %s) starts after the last submission of the run's jobs (%s): it %s at most the jobs still queued or running then",
			sp.Local(from), sp.Local(to), sp.Local(ri.Last), map[string]string{"account": "accounts", "measure": "measures"}[kw])
	default:
		return
	}
	at := argsRange(s)
	if !c.once(fmt.Sprintf("window\x00%s\x00%s", at, msg)) {
		return
	}
	c.diags.Warnf(at, "%s", msg).With("%s", clockHint(ri))
}

// inputCheck is the compilation's runtime.InputCheck, made when first
// needed.
func (c *compiler) inputCheck() *runtime.InputCheck {
	if c.inputs == nil {
		c.inputs = runtime.NewInputCheck(c.opts.OpenData)
	}
	return c.inputs
}

// inputError reports what run would fail with before simulating.
func (c *compiler) inputError(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	err := ri.Err
	part := runtime.PartWorkload
	var ie *runtime.InputError
	if errors.As(err, &ie) {
		part = ie.Part
	}
	w, k := &run.Workload, &run.Contract
	var ce *runtime.CoverageError
	if errors.As(err, &ce) {
		// The series and the run's span: the note says whose span.
		at := c.seriesNamed(k, part, site)
		if d := c.inputErr(at, err, ""); d != nil {
			d.Note(site.ws.Range, "the jobs of run `%s` (%s), whose span it is", run.Name, w.Name)
		}
		return
	}
	switch part {
	case runtime.PartWorkload:
		if w.Kind == runtime.Synthetic {
			c.syntheticError(site, err)
			return
		}
		if _, ok := locate(err); !ok {
			err = withoutWhere(err, w)
		}
		c.dataError(w.Path, c.namedAt(w.Path, site.ws.Args[1].Range()), "trace", err)
	case runtime.PartCuts:
		// The rule that failed, or the cut that dropped every job.
		keep, sub := field(site.ws, "keep"), field(site.ws, "submitted")
		var ee *runtime.EvalError
		at := sub
		if sub == nil || errors.As(err, &ee) || ri.Cut.Keep > 0 && ri.Cut.Submitted == 0 {
			at = keep
		}
		detail := clockHint(ri)
		switch {
		case at == nil:
			at = site.ws
		case at == keep && ee == nil:
			detail = fmt.Sprintf("The rule is false for every one of the %d jobs the trace has after cleaning.", ri.Cut.Keep)
			if ri.Cut.Keep == 1 {
				detail = "The rule is false for the one job the trace has after cleaning."
			}
		case ee != nil:
			detail = ""
		}
		c.inputErr(at.Range, err, detail)
	case runtime.PartAccount:
		at := site.stmts["account"]
		if at == nil {
			at = site.stmts["measure"]
		}
		if at == nil {
			at = site.stmts["workload"]
		}
		c.inputErr(at.Range, err, clockHint(ri))
	case runtime.PartPrices:
		if k.Prices == "" || k.Generate != nil {
			c.inputErr(site.stmts["contract"].Range, err, "")
			return
		}
		c.dataError(k.Prices, c.seriesNamed(k, part, site), "price series", err)
	case runtime.PartCarbon:
		if k.CarbonSeries == "" || k.CarbonGenerate != nil {
			c.inputErr(site.stmts["contract"].Range, err, "")
			return
		}
		c.dataError(k.CarbonSeries, c.seriesNamed(k, part, site), "carbon intensity series", err)
	case runtime.PartAllocation:
		at := site.stmts["policy"].Range
		if s := c.allocAt[run.Policy.Name]; s != nil {
			at = argsRange(s)
		}
		c.inputErr(at, err, "")
	case runtime.PartBudget:
		at := site.stmts["policy"].Range
		if site.refs.budgetAt != nil {
			at = site.refs.budgetAt.Range
		}
		c.inputErr(at, err, "")
	}
}

// inputErr reports err at r, once however many runs meet it.
func (c *compiler) inputErr(r lang.Range, err error, detail string) *lang.Diagnostic {
	if !c.once(fmt.Sprintf("input\x00%s\x00%v", r, err)) {
		return nil
	}
	msg := err.Error()
	var ce *runtime.CoverageError
	if errors.As(err, &ce) && strings.HasSuffix(msg, ce.Error()) {
		msg, detail = strings.TrimSuffix(msg, "; "+ce.Fix), capitalize(ce.Fix)+"."
	}
	d := c.diags.Errorf(r, "%s", msg)
	if detail != "" {
		d.With("%s", detail)
	}
	return d
}

// clockHint says how windows are placed on a trace, with its first
// submission and zone.
func clockHint(ri runtime.RunInputs) string {
	if ri.Span == nil {
		return ""
	}
	return fmt.Sprintf("Offsets count from the trace's first submission, %s; dates are local times in its zone, %s. Its last submission is on %s.",
		ri.Span.Local(ri.Span.First), ri.Span.Clock.Loc, ri.Span.Local(ri.Span.Last))
}

// withoutWhere drops what the runtime adds to a trace's error to say
// where the scenario names the trace: check's diagnostic points there.
func withoutWhere(err error, w *runtime.Workload) error {
	if w.Where != "" && strings.HasSuffix(err.Error(), " (the trace named at "+w.Where+")") {
		return errors.New(strings.TrimSuffix(err.Error(), " (the trace named at "+w.Where+")"))
	}
	return err
}

// field is the statement of a block field, or nil.
func field(s *lang.Stmt, name string) *lang.Stmt {
	if s == nil || s.Body == nil {
		return nil
	}
	for _, f := range s.Body.Stmts {
		if f.Key.Name == name {
			return f
		}
	}
	return nil
}

// seriesNamed is where contract k names its price series (part
// PartPrices) or carbon series (PartCarbon); else the experiment's
// contract field.
func (c *compiler) seriesNamed(k *runtime.Contract, part runtime.Part, site runSite) lang.Range {
	key := k.Name + "\x00prices\x00" + k.Prices
	if part == runtime.PartCarbon {
		key = k.Name + "\x00carbon\x00" + k.CarbonSeries
	}
	if r, ok := c.seriesAt[key]; ok {
		return r
	}
	return site.stmts["contract"].Range
}

// namedAt is where the scenario names data file path: the string that
// gave it, as the compiler first met it; else fallback.
func (c *compiler) namedAt(path string, fallback lang.Range) lang.Range {
	if f := c.data[path]; f != nil && f.at.Valid() {
		return f.at
	}
	return fallback
}

// syntheticError reports a synthetic workload's model out of range at the
// field that sets it.
func (c *compiler) syntheticError(site runSite, err error) {
	var fes []*workload.FieldError
	var walk func(error)
	walk = func(e error) {
		var fe *workload.FieldError
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case *workload.FieldError:
			fes = append(fes, x)
		default:
			if errors.As(e, &fe) {
				fes = append(fes, fe)
			} else if u := errors.Unwrap(e); u != nil {
				walk(u)
			}
		}
	}
	walk(err)
	if len(fes) == 0 {
		c.inputErr(site.ws.Args[0].Range(), err, "")
		return
	}
	for _, fe := range fes {
		at := site.ws.Args[0].Range()
		if s := field(site.ws, fe.Field); s != nil {
			at = argsRange(s)
		} else if fe.Field == "nodes" {
			at = site.stmts["machine"].Range
		}
		c.inputErr(at, fe, "")
	}
}

// located is a reader's error at a line (and column) of a data file.
type located struct {
	file      string
	line, col int
	msg, hint string
}

// locate finds the located error in err, if there is one.
func locate(err error) (located, bool) {
	var we *workload.LineError
	if errors.As(err, &we) && we.Line > 0 {
		return located{file: we.File, line: we.Line, col: we.Col, msg: we.Msg}, true
	}
	var te *tariff.LineError
	if errors.As(err, &te) && te.Line > 0 {
		return located{file: te.File, line: te.Line, col: te.Col, msg: te.Msg, hint: te.Hint}, true
	}
	return located{}, false
}

// dataError reports err, met reading the data file at path (a trace, a
// price series…, what says) that the scenario names at named. A located
// error is shown where it is in the data file, with its line, and a note
// at named; any other at named.
func (c *compiler) dataError(path string, named lang.Range, what string, err error) {
	loc, ok := locate(err)
	if !ok || loc.file != path {
		var te *tariff.LineError
		if errors.As(err, &te) && te.File == path && te.Line <= 0 {
			d := c.inputErr(named, fmt.Errorf("%s %s: %s", what, path, te.Msg), "")
			if d != nil && te.Hint != "" {
				d.With("%s.", capitalize(te.Hint))
			}
			return
		}
		c.inputErr(named, err, "")
		return
	}
	if _, taken := c.sources[path]; taken && c.dataLines[path] == nil {
		c.inputErr(named, err, "") // (a scenario file named as data: its own text is shown for it)
		return
	}
	key := fmt.Sprintf("data\x00%s\x00%d\x00%d\x00%s", path, loc.line, loc.col, loc.msg)
	if !c.once(key) {
		return
	}
	d := c.diags.Errorf(lang.Range{File: path, Start: lang.Pos{Line: loc.line, Col: loc.col}}, "%s", loc.msg)
	switch {
	case loc.hint != "":
		d.With("%s.", capitalize(loc.hint))
	case what == "trace" && skippable(loc.msg):
		d.With("Fix the line, or write `bad_lines skip` in the workload's block to skip malformed lines (they are counted).")
	}
	d.Note(named, "the %s named here", what)
	c.placeData(d, path, loc)
}

// skippable says whether `bad_lines skip` would skip a line with this
// problem: not a file that is not text, nor a sacct header.
func skippable(msg string) bool {
	return !strings.HasPrefix(msg, "a NUL byte") && !strings.HasPrefix(msg, "the file is UTF-16") &&
		!strings.HasPrefix(msg, "header: ") && !strings.HasPrefix(msg, "no header line")
}

// maxDataLine bounds a data file line shown under a diagnostic.
const maxDataLine = 1 << 20

// placeData shows the data file's line under d: it reads the line, keeps
// it among the lines of path shown, and sets d's range in the text those
// lines make (placeDataRanges finishes it once every line is known).
func (c *compiler) placeData(d *lang.Diagnostic, path string, loc located) {
	text, ok := readLine(c.opts.OpenData, path, loc.line)
	if !ok {
		d.Range = lang.Range{File: path, Start: lang.Pos{Line: loc.line, Col: loc.col}}
		return
	}
	if c.dataLines[path] == nil {
		c.dataLines[path] = map[int]string{}
	}
	c.dataLines[path][loc.line] = text
	c.dataDiags = append(c.dataDiags, dataDiag{d: d, path: path, line: loc.line, col: loc.col})
}

// dataDiag is a diagnostic in a data file, placed once the lines shown of
// the file are known.
type dataDiag struct {
	d         *lang.Diagnostic
	path      string
	line, col int
}

// placeDataRanges makes the text of each data file a diagnostic is in —
// its lines shown, the others empty, so that offsets, lines and columns
// agree — and sets the diagnostics' ranges in it.
func (c *compiler) placeDataRanges() {
	starts := map[string][]int{} // per file, the byte offset of each line (1-based index)
	for path, lines := range c.dataLines {
		last := 0
		for n := range lines {
			last = max(last, n)
		}
		var b strings.Builder
		st := make([]int, last+1)
		for n := 1; n <= last; n++ {
			st[n] = b.Len()
			b.WriteString(lines[n])
			b.WriteByte('\n')
		}
		c.sources[path] = []byte(b.String())
		starts[path] = st
	}
	for _, dd := range c.dataDiags {
		text := c.dataLines[dd.path][dd.line]
		// The culprit is the token at the column: to the next blank or
		// separator, or one character if it is not text.
		off := byteOffset(text, dd.col)
		end := off
		for end < len(text) && !strings.ContainsRune(" \t|,;\r", rune(text[end])) {
			r, n := utf8.DecodeRuneInString(text[end:])
			if r < 0x20 || r == utf8.RuneError {
				if end == off {
					end += n
				}
				break
			}
			end += n
		}
		base := starts[dd.path][dd.line]
		col := max(dd.col, 1)
		dd.d.Range = lang.Range{File: dd.path,
			Start: lang.Pos{Offset: base + off, Line: dd.line, Col: col},
			End:   lang.Pos{Offset: base + end, Line: dd.line, Col: col + utf8.RuneCountInString(text[off:end])}}
	}
}

// byteOffset is the byte offset of 1-based character column col of text
// (0 for col < 1; len(text) past its end).
func byteOffset(text string, col int) int {
	off := 0
	for i := 1; i < col && off < len(text); i++ {
		_, n := utf8.DecodeRuneInString(text[off:])
		off += n
	}
	return off
}

// readLine reads line n (1-based) of a data file, plain or gzipped,
// without its line break.
func readLine(open func(string) (io.ReadCloser, error), path string, n int) (string, bool) {
	rc, err := open(path)
	if err != nil {
		return "", false
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "", false
		}
		defer zr.Close()
		r = zr
	}
	lr := bufio.NewReaderSize(r, 64<<10)
	for i := 1; ; i++ {
		var line []byte
		for {
			chunk, err := lr.ReadSlice('\n')
			if i == n && len(line)+len(chunk) <= maxDataLine+1 {
				line = append(line, chunk...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && err != io.EOF {
				return "", false
			}
			if i == n {
				if len(line) > maxDataLine {
					return "", false
				}
				line = bytes.TrimSuffix(line, []byte{'\n'})
				line = bytes.TrimSuffix(line, []byte{'\r'})
				if n == 1 {
					line = bytes.TrimPrefix(line, []byte("\uFEFF"))
				}
				return string(line), true
			}
			if err == io.EOF {
				return "", false
			}
			break
		}
	}
}

// checkKeep warns, as the policy's own check does for a machine of a
// given size, of a shutdown reserve of as many nodes as a machine sized by
// its trace (`nodes auto`) has.
func (c *compiler) checkKeep(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	m, p := &run.Machine, &run.Policy
	sh := p.Shutdown
	if sh == nil || site.refs.keepAt == nil || m.Nodes > 0 || ri.Nodes == 0 || sh.Keep < ri.Nodes || len(site.refs.keepAt.Args) < 5 {
		return
	}
	at := site.refs.keepAt.Args[4].Range()
	if !c.once(fmt.Sprintf("keep\x00%s\x00%d", at, ri.Nodes)) {
		return
	}
	c.diags.Warnf(at, "policy `%s` keeps %d idle nodes on, and machine `%s` has %d (from the trace's header): no node is ever switched off", p.Name, sh.Keep, m.Name, ri.Nodes).
		With("`keep N` is a reserve of idle nodes that stay on; keep fewer than the machine has, or remove `shutdown`.")
}

// checkActiveLevels compares a capacity controller's levels with the machine
// sized by its trace and with the widest job, as the run does when it sets
// the controller up (runtime/capacity.go): a level above the machine, or
// below a job, fails the run.
func (c *compiler) checkActiveLevels(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	p := &run.Policy
	a := p.Active
	if a == nil || site.refs.activeAt == nil || ri.Nodes == 0 {
		return
	}
	n := ri.Nodes
	var msg string
	switch a.Kind {
	case runtime.ActiveFixed:
		low := a.Fixed.Of(n)
		switch {
		case low < 1 || low > n:
			msg = fmt.Sprintf("policy %s: `active fixed %s` is %d nodes, and machine %s has %d", p.Name, a.Fixed, low, run.Machine.Name, n)
		case ri.Widest > low:
			msg = fmt.Sprintf("policy %s: `active fixed %s` keeps %d nodes active, and a job needs %d: it could never start", p.Name, a.Fixed, low, ri.Widest)
		}
	case runtime.ActiveTwoLevel:
		low, high := a.Low.Of(n), a.High.Of(n)
		switch {
		case high < 1 || high > n || low < 0 || low > high:
			msg = fmt.Sprintf("policy %s: two_level { low %s; high %s } is %d..%d nodes, and machine %s has %d", p.Name, a.Low, a.High, low, high, run.Machine.Name, n)
		case ri.Widest > high:
			msg = fmt.Sprintf("policy %s: two_level's high level is %d nodes, and a job needs %d: it could never start", p.Name, high, ri.Widest)
		}
	}
	if msg == "" {
		return
	}
	at := argsRange(site.refs.activeAt)
	if !c.once(fmt.Sprintf("active\x00%s\x00%s", at, msg)) {
		return
	}
	c.diags.Errorf(at, "%s", msg).With("Run %s would fail on it; give the level enough nodes for the widest job of %s (%d), or leave wider jobs out with the workload's `keep`.", run.Name, run.Workload.Name, ri.Widest)
}

// checkCaps compares each powercap with what the machine draws with no job
// running. Below the infrastructure no mode ever meets a cap; below the
// idle machine, none does while no node can be switched off (the cap's
// mode switches none off, and the policy has no shutdown). A cap that
// always applies and is never met keeps every job waiting: the run fails,
// an error; one that applies at times only holds jobs back while it does,
// a warning.
func (c *compiler) checkCaps(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	p := &run.Policy
	for i := range min(len(p.Powercaps), len(site.refs.caps)) {
		pc, r := &p.Powercaps[i], site.refs.caps[i]
		w := pc.Power
		if pc.Share > 0 {
			w = pc.Share * ri.Full
		}
		offable := pc.SwitchesOff() || p.Shutdown != nil || p.Active != nil
		var summary string
		switch {
		case w < ri.Infrastructure:
			summary = fmt.Sprintf("this powercap, %s, is below machine `%s`'s infrastructure, %s, which it always draws",
				runtime.Watts(w), run.Machine.Name, runtime.Watts(ri.Infrastructure))
		case w < ri.Idle && !offable:
			summary = fmt.Sprintf("this powercap, %s, is below what machine `%s` draws with every node idle, %s",
				runtime.Watts(w), run.Machine.Name, runtime.Watts(ri.Idle))
		default:
			continue
		}
		always := pc.Start == nil && pc.When == runtime.BudgetAlways
		at := argsRange(r.at)
		if !c.once(fmt.Sprintf("cap\x00%s\x00%s\x00%v", at, summary, always)) {
			continue
		}
		var d *lang.Diagnostic
		if always {
			d = c.diags.Errorf(at, "%s: no job can ever start under it, and the run would fail", summary)
		} else {
			d = c.diags.Warnf(at, "%s: no job can start while it applies", summary)
		}
		switch {
		case w < ri.Infrastructure:
			d.With("No mode meets it, whatever the nodes do; raise the cap above %s.", runtime.Watts(ri.Infrastructure))
		case pc.Start == nil:
			d.With("A cap set for now (without `from TIME for D`) switches no node off, whatever its mode, so the machine draws at least %s; raise the cap, place it in a window (`powercap CAP from TIME for D { mode shut }`), or give the policy `shutdown`.", runtime.Watts(ri.Idle))
		default:
			mode := "idle"
			if pc.Mode == runtime.CapDVFS {
				mode = "dvfs"
			}
			d.With("Mode `%s` switches no node off, so the machine draws at least %s; raise the cap, use `mode shut`, or give the policy `shutdown`.", mode, runtime.Watts(ri.Idle))
		}
	}
}

// checkBudget reports jobs that weigh more than a budget that always
// applies: they can never start, and the run fails.
func (c *compiler) checkBudget(run *runtime.Run, site runSite, ri runtime.RunInputs) {
	if ri.OverBudget == 0 {
		return
	}
	b := run.Policy.Budget
	at := site.stmts["policy"].Range
	if s := site.refs.budgetAt; s != nil {
		at = argsRange(s)
	}
	if !c.once(fmt.Sprintf("budget\x00%s\x00%s\x00%d\x00%d", at, run.Workload.Path, ri.OverBudget, ri.Lightest)) {
		return
	}
	jobs := "jobs weigh"
	if ri.OverBudget == 1 {
		jobs = "job weighs"
	}
	c.diags.Errorf(at, "%d %s more than this budget, %s: they can never start (the lightest, job %d of %s, weighs %s), and the run would fail",
		ri.OverBudget, jobs, runtime.Watts(b.Power), ri.Lightest, run.Workload.Name, runtime.Watts(ri.LightestW)).
		With("A job weighs its power (its nodes at the lowest pstate it may run at, and the idle rest of its allocation); the heaviest weighs %s: raise the budget to that, or leave such jobs out with the workload's `keep`.", runtime.Watts(ri.HeaviestW))
}
