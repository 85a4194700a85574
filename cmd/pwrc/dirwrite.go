package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/renameio/v2"

	"github.com/pwrc/pwrc/cmd/pwrc/report"
	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// manifest is MANIFEST.json: what wrote a directory, from what, and the
// files it holds. It has no time stamps, so the same inputs give the same
// manifest.
type manifest struct {
	Pwrc     string `json:"pwrc"`
	Complete bool   `json:"complete"`
	Scenario string `json:"scenario"`
	// Workdir is the directory pwrc run ran in, from the directory the
	// manifest is in (slash-separated): the scenario's and the --set
	// values' relative paths are relative to it, so that pwrc report and
	// plot find them wherever they are run.
	Workdir    string   `json:"workdir,omitempty"`
	Experiment string   `json:"experiment"`
	Sets       []string `json:"sets"`
	// Inputs hashes the scenario's sources (imported files and the
	// standard modules it uses included), --set values and --experiment.
	Inputs string         `json:"inputs_sha256"`
	Runs   []manifestRun  `json:"runs"`
	Files  []manifestFile `json:"files"`
}

type manifestRun struct {
	Name       string            `json:"name"`
	Experiment string            `json:"experiment"`
	Params     map[string]string `json:"params"`
	// Baseline is the run its saving is computed against, if any.
	Baseline string `json:"baseline,omitempty"`
	// Account is the window its energy and cost are accounted over, as
	// the scenario gives it (offsets after the first submission, or local
	// dates), and whether it is a measure window; absent: the run's own
	// span, first submission to last end.
	Account *manifestWindow `json:"account,omitempty"`
	Error   string          `json:"error,omitempty"`
}

type manifestWindow struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Measure bool   `json:"measure,omitempty"`
}

type manifestFile struct {
	Name   string `json:"name"`
	Run    string `json:"run"`
	Kind   string `json:"kind"` // jobs, series, states, machine_states, schedule, weeks or active
	Bytes  *int64 `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// newManifest describes a run of pwrc, with the runs of the plan and the
// errors of those in results (nil: none yet); the files are filled per
// directory.
func newManifest(scenario, experiment string, sets []string, res *compiler.Result, results []*pwrt.Result) manifest {
	m := manifest{Pwrc: version, Scenario: scenario, Experiment: experiment, Sets: append([]string{}, sets...),
		Inputs: inputsHash(res, sets, experiment), Runs: []manifestRun{}, Files: []manifestFile{}}
	for _, run := range res.Plan.Runs {
		mr := manifestRun{Name: run.Name, Experiment: run.Experiment, Params: map[string]string{}}
		if b := run.Baseline; b >= 0 && b < len(res.Plan.Runs) {
			mr.Baseline = res.Plan.Runs[b].Name
		}
		if a := run.Account; a != nil {
			mr.Account = &manifestWindow{From: a.From.String(), To: a.To.String(), Measure: run.Measure}
		}
		for _, p := range run.Params {
			mr.Params[p.Name] = p.Value
		}
		if run.Index < len(results) && results[run.Index] != nil && results[run.Index].Err != nil {
			mr.Error = results[run.Index].Err.Error()
		}
		m.Runs = append(m.Runs, mr)
	}
	return m
}

// inputsHash hashes the sources' contents (in an order that does not
// depend on how their paths were written), the --set values in order and
// --experiment.
func inputsHash(res *compiler.Result, sets []string, experiment string) string {
	var sums []string
	for _, src := range res.Sources {
		s := sha256.Sum256(src)
		sums = append(sums, hex.EncodeToString(s[:]))
	}
	sort.Strings(sums)
	h := sha256.New()
	fmt.Fprintf(h, "pwrc inputs 1\n")
	for _, s := range sums {
		fmt.Fprintf(h, "source %s\n", s)
	}
	for _, s := range sets {
		fmt.Fprintf(h, "set %q\n", s)
	}
	fmt.Fprintf(h, "experiment %q\n", experiment)
	return hex.EncodeToString(h.Sum(nil))
}

// forDir is the manifest as directory dir holds it: with the working
// directory from there.
func (m manifest) forDir(dir string) manifest {
	m.Workdir = ""
	wd, err1 := os.Getwd()
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return m
	}
	if rel, err := filepath.Rel(d, wd); err == nil {
		m.Workdir = filepath.ToSlash(rel)
	} else {
		m.Workdir = filepath.ToSlash(wd)
	}
	return m
}

// workdir is the directory the run that wrote a manifest in dir ran in,
// if the manifest says and it is there; "" otherwise (relative paths are
// then taken from the current directory).
func (m *manifest) workdir(dir string) string {
	if m.Workdir == "" {
		return ""
	}
	w := filepath.FromSlash(m.Workdir)
	if !filepath.IsAbs(w) {
		w = filepath.Join(dir, w)
	}
	if fi, err := os.Stat(w); err != nil || !fi.IsDir() {
		return ""
	}
	return w
}

// at is path p of a run that ran in workdir, from the current directory.
func at(workdir, p string) string {
	if workdir == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(workdir, p)
}

// runFile is one file of a directory: a run's jobs, hours or states.
type runFile struct {
	name, run, kind string
	write           func(*bytes.Buffer)
}

// planned lists the files run r may write into d, with their kinds; the
// runs that succeed write them all (a failed run writes none).
func (d *outDir) planned(r *pwrt.Run) []manifestFile {
	var out []manifestFile
	add := func(suffix, kind string) {
		out = append(out, manifestFile{Name: r.Name + suffix, Run: r.Name, Kind: kind})
	}
	switch {
	case d.jobs && d.batsim:
		add(batsimJobsSuffix, "jobs")
		add(batsimMachineSuffix, "machine_states")
		add(batsimScheduleSuffix, "schedule")
	case d.jobs:
		add(".csv", "jobs")
	}
	if d.series {
		add(".hours.csv", "series")
		add(".states.csv", "states")
		for _, name := range lawsonNames(r) {
			kind := strings.TrimSuffix(strings.TrimPrefix(name, r.Name+"."), ".csv") // weeks, active
			out = append(out, manifestFile{Name: name, Run: r.Name, Kind: kind})
		}
	}
	return out
}

// runFiles lists what d receives from a run that succeeded.
func (d *outDir) runFiles(r *pwrt.Result) []runFile {
	var out []runFile
	name := r.Run.Name
	switch {
	case d.jobs && d.batsim:
		out = append(out, runFile{name + batsimJobsSuffix, name, "jobs", func(b *bytes.Buffer) { writeBatsimJobs(b, r.Run.Workload.Name, r.Jobs) }})
		if r.States != nil {
			out = append(out, runFile{name + batsimMachineSuffix, name, "machine_states", func(b *bytes.Buffer) { writeBatsimMachineStates(b, r.States) }})
		}
		out = append(out, runFile{name + batsimScheduleSuffix, name, "schedule", func(b *bytes.Buffer) { writeBatsimSchedule(b, r) }})
	case d.jobs:
		out = append(out, runFile{name + ".csv", name, "jobs", func(b *bytes.Buffer) { writeJobsCSV(b, r.Jobs, r.Workload.Names) }})
	}
	if d.series {
		out = append(out, runFile{name + ".hours.csv", name, "series", func(b *bytes.Buffer) { writeHoursCSV(b, &r.Metrics) }})
		if r.States != nil {
			out = append(out, runFile{name + ".states.csv", name, "states", func(b *bytes.Buffer) { writeStatesCSV(b, r.States) }})
		}
		out = append(out, lawsonFiles(r)...)
	}
	return out
}

// dirWriter fills a directory as runs end, in an order that leaves it
// explicit at every moment:
//
//  1. before the first file, MANIFEST.json is replaced by one with
//     "complete": false that lists every file the plan's runs may write
//     and those an earlier manifest listed;
//  2. each run's files are written, each atomically, as the run ends
//     (so that a sweep does not hold every run's jobs to its end),
//     stopping on an interrupt;
//  3. once every run has ended, the files the earlier manifest listed
//     that this run did not write are removed (no other file is ever
//     removed, nor one that changed since that manifest listed it, nor
//     one the run reads), and said so;
//  4. MANIFEST.json is replaced by the complete one, with sizes and hashes.
type dirWriter struct {
	d       *outDir
	mu      sync.Mutex
	pending manifest
	begun   bool             // the pending manifest is written
	written [][]manifestFile // by run index, the files written
}

// streamer writes the run's directories as its runs end, and lets the
// runs drop their job records and state series once written.
type streamer struct {
	o      *outputs
	ctx    context.Context
	cancel context.CancelFunc // stops the runs after a write error
	mu     sync.Mutex
	err    error // the first write error
	// series, if not nil, receives each run's state series for --report
	// before the run drops it; waits: the report wants the jobs' waits.
	series []*report.Series
	waits  bool
}

// start prepares the directories' writers; the returned context is
// cancelled by a write error. head is the manifest without results.
func (o *outputs) start(ctx context.Context, head manifest, p *pwrt.Plan) (context.Context, *streamer) {
	ctx, cancel := context.WithCancel(ctx)
	s := &streamer{o: o, ctx: ctx, cancel: cancel}
	for _, d := range o.dirs {
		w := &dirWriter{d: d, pending: head.forDir(d.path), written: make([][]manifestFile, len(p.Runs))}
		w.pending.Complete = false
		w.pending.Files = []manifestFile{}
		planned := map[string]bool{}
		for _, r := range p.Runs {
			for _, f := range d.planned(r) {
				planned[f.Name] = true
				w.pending.Files = append(w.pending.Files, f)
			}
		}
		for _, f := range d.old {
			if !planned[f.Name] {
				planned[f.Name] = true // once
				w.pending.Files = append(w.pending.Files, manifestFile{Name: f.Name, Run: f.Run, Kind: f.Kind})
			}
		}
		d.w = w
	}
	return ctx, s
}

// finished writes a run's files into every directory as it ends (it is
// runtime.Options.Finished: called from the goroutine that simulated the
// run), then drops its job records and state series.
func (s *streamer) finished(r *pwrt.Result) {
	if r.Err == nil && s.ctx.Err() == nil {
		for _, d := range s.o.dirs {
			if err := d.w.add(s.ctx, r); err != nil {
				s.mu.Lock()
				if s.err == nil {
					s.err = err
				}
				s.mu.Unlock()
				s.cancel()
				break
			}
		}
	}
	if s.waits && r.Waits == nil && r.Jobs != nil {
		r.Waits = make([]float64, len(r.Jobs))
		for i, j := range r.Jobs {
			r.Waits[i] = j.Start - j.Submit // as Options.KeepWaits computes them
		}
	}
	if s.series != nil && r.States != nil && s.series[r.Run.Index] == nil {
		rs := &report.Series{}
		rs.Begin(r.States.Columns)
		w := len(r.States.Columns)
		for i, t := range r.States.Times {
			rs.Record(t, r.States.Values[i*w:(i+1)*w])
		}
		s.series[r.Run.Index] = rs // each run its own element: no lock needed
	}
	r.Jobs, r.States = nil, nil
}

// writeErr is the first error writing a directory, if any.
func (s *streamer) writeErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// add writes a run's files into the directory, one at a time.
func (w *dirWriter) add(ctx context.Context, r *pwrt.Result) error {
	for _, f := range w.d.runFiles(r) {
		var b bytes.Buffer
		f.write(&b)
		if err := w.write(ctx, r.Run.Index, f, b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// write puts one file in place, after the pending manifest; nothing once
// ctx is done.
func (w *dirWriter) write(ctx context.Context, run int, f runFile, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	if err := w.begin(); err != nil {
		return err
	}
	path := filepath.Join(w.d.path, f.name)
	if err := renameio.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("%s: writing %s: %v", w.d.label, f.name, bare(err))
	}
	n := int64(len(data))
	sum := sha256.Sum256(data)
	w.written[run] = append(w.written[run], manifestFile{Name: f.name, Run: f.run, Kind: f.kind, Bytes: &n, SHA256: hex.EncodeToString(sum[:])})
	if wrote := hooksOf(ctx).wrote; wrote != nil {
		wrote(path)
	}
	return nil
}

// begin writes the pending manifest, once (w.mu held).
func (w *dirWriter) begin() error {
	if w.begun {
		return nil
	}
	if err := w.d.writeManifest(w.pending); err != nil {
		return err
	}
	w.begun = true
	return nil
}

// begun lists the directories whose pending manifest is written.
func (o *outputs) begun() []string {
	var out []string
	for _, d := range o.dirs {
		if d.w == nil {
			continue
		}
		d.w.mu.Lock()
		if d.w.begun {
			out = append(out, d.label)
		}
		d.w.mu.Unlock()
	}
	return out
}

// interrupted is the error of a run stopped by a signal: which
// directories hold part of its files.
func (o *outputs) interrupted() error {
	b := o.begun()
	if len(b) == 0 {
		return exitError{exitInterrupted, errors.New("interrupted; no output written")}
	}
	return exitError{exitInterrupted, fmt.Errorf("interrupted while writing %s: the files of the runs that had ended are there, and %s says \"complete\": false",
		strings.Join(b, " and "), manifestName)}
}

// finish completes every directory once every run has ended: the pending
// manifest if no file came yet, the stale files removed, the complete
// manifest last. head is the manifest with the results' errors.
func (o *outputs) finish(ctx context.Context, head manifest, stderr io.Writer) error {
	for _, d := range o.dirs {
		if ctx.Err() != nil {
			return o.interrupted()
		}
		if err := d.w.finish(ctx, head, o.inputs, stderr); err != nil {
			return err
		}
	}
	return nil
}

func (w *dirWriter) finish(ctx context.Context, head manifest, in inputs, stderr io.Writer) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.d
	if err := w.begin(); err != nil {
		return err
	}
	final := head.forDir(d.path)
	final.Complete = true
	final.Files = []manifestFile{}
	for _, files := range w.written {
		final.Files = append(final.Files, files...)
	}
	ours := map[string]bool{}
	for _, f := range final.Files {
		ours[f.Name] = true
	}
	var removed, kept []string
	for _, f := range d.old {
		if ours[f.Name] || slices.Contains(removed, f.Name) {
			continue
		}
		path := filepath.Join(d.path, f.Name)
		if why := keepStale(path, f, in); why != "" {
			ours[f.Name] = true // (said here, not again by noteOthers)
			kept = append(kept, f.Name+" ("+why+")")
			continue
		}
		if err := os.Remove(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("%s: removing %s, written by an earlier run: %v", d.label, f.Name, bare(err))
		}
		removed = append(removed, f.Name)
	}
	if ctx.Err() != nil {
		return exitError{exitInterrupted, fmt.Errorf("interrupted while writing %s: its %s says \"complete\": false", d.label, manifestName)}
	}
	if err := d.writeManifest(final); err != nil {
		return err
	}
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "pwrc: %s: removed %s that an earlier run of this sweep wrote and this run did not (its runs failed or are no longer in the sweep): %s\n",
			d.label, count(len(removed), "file"), nameList(removed))
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "pwrc: %s: kept %s that an earlier run listed and this run did not write: %s; %s no longer lists %s\n",
			d.label, count(len(kept), "file"), nameList(kept), manifestName, map[bool]string{true: "it", false: "them"}[len(kept) == 1])
	}
	d.noteOthers(ours, stderr)
	return nil
}

// keepStale says why a file an earlier manifest listed must not be
// removed: the run reads it, or it is no longer what that manifest
// describes (the user changed it). "" if it can go.
func keepStale(path string, f manifestFile, in inputs) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if x, ok := in.of(fi); ok {
		return "it is " + x.what
	}
	if !fi.Mode().IsRegular() {
		return "no longer a file"
	}
	if f.SHA256 == "" { // a pending manifest's entry: pwrc may not have written it
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 || (f.Bytes != nil && int64(len(data)) != *f.Bytes) {
		return "changed since"
	}
	return ""
}

// nameList names files: all of them up to 6, else the first 5 and how many more.
func nameList(names []string) string {
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
}

func (d *outDir) writeManifest(m manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := renameio.WriteFile(filepath.Join(d.path, manifestName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("%s: writing %s: %v", d.label, manifestName, bare(err))
	}
	return nil
}

// noteOthers says on stderr which CSV files in d are not ours (the files
// this run wrote, and those already said):
// they may be mistaken for its output, but pwrc only removes files its
// own manifests listed.
func (d *outDir) noteOthers(ours map[string]bool, stderr io.Writer) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	var others []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".csv") && !strings.HasPrefix(n, ".") && !ours[n] {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		return
	}
	shown := others
	if len(shown) > 3 {
		shown = append(slices.Clone(shown[:3]), "…")
	}
	fmt.Fprintf(stderr, "pwrc: %s: %s not written by this run left as %s (%s); %s lists this run's files\n",
		d.label, count(len(others), "CSV file"), map[bool]string{true: "it was", false: "they were"}[len(others) == 1],
		strings.Join(shown, ", "), manifestName)
}

// readOldManifest reads the manifest an earlier run left in dir, keeping
// only the files that are plain names in dir (never a path elsewhere,
// never the manifest itself); nil without one. A MANIFEST.json pwrc
// cannot read is an error: it is not pwrc's to replace.
func readOldManifest(dir string) (*manifest, error) {
	path := filepath.Join(dir, manifestName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, bare(err))
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s is not a manifest pwrc wrote (%v)", path, err)
	}
	if m.Pwrc == "" || m.Files == nil {
		return nil, fmt.Errorf("%s is not a manifest pwrc wrote (no \"pwrc\" and \"files\")", path)
	}
	var out []manifestFile
	for _, f := range m.Files {
		if f.Name != manifestName && filepath.IsLocal(f.Name) && filepath.Base(f.Name) == f.Name && !strings.ContainsAny(f.Name, `/\`) {
			out = append(out, f)
		}
	}
	m.Files = out
	return &m, nil
}
