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
	"runtime/pprof"
	"slices"
	"sort"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// manifestName is the file that ends every directory pwrc writes.
const manifestName = "MANIFEST.json"

// testHookWrote, if set, is called after each file of a --jobs or
// --series directory is written (tests interrupt the writing with it).
var testHookWrote func(path string)

// outputFlags are the destinations given on the command line.
type outputFlags struct {
	out, jobs, series, cpuProfile string
	batsim                        bool // --jobs-format batsim
}

// outputs are the checked destinations of a run: every one is probed (and
// directories created) before anything is simulated, so that a typo costs
// nothing.
type outputs struct {
	outPath     string // -o as the user wrote it
	outTarget   string // the file to replace; "" for a device or a pipe
	dirs        []*outDir
	profilePath string
	profile     *renameio.PendingFile
	profiling   bool
}

// outDir is a directory written by --jobs, --series or both.
type outDir struct {
	path   string // as the user wrote it
	label  string // "--jobs out/", "--jobs out/ and --series out/"
	jobs   bool
	series bool
	batsim bool // --jobs-format batsim: the jobs in Batsim's files
	info   fs.FileInfo
}

// bare strips the path from a *fs.PathError: the paths pwrc touches are
// temporary files whose names mean nothing to the user, whose own path
// the message gives instead.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// probeDir checks that files can be created in dir, by creating one and
// removing it.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".pwrc-probe-*")
	if err != nil {
		return fmt.Errorf("cannot create files in it: %v", bare(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkFile checks that path can be replaced by a new regular file: it is
// not a directory, its directory exists and takes new files, and it is not
// one of the scenario's sources. It returns the path to write: a symbolic
// link's target (pwrc writes through links rather than replacing them), or
// "" for a device or a pipe when devices are allowed (they are written
// directly, not replaced).
func checkFile(flag, path string, res *compiler.Result, devices bool) (string, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return "", usageErrorf("%s %s: is a directory", flag, path)
	case err == nil && !fi.Mode().IsRegular() && devices:
		return "", nil
	case err == nil && !fi.Mode().IsRegular():
		return "", usageErrorf("%s %s: not a regular file", flag, path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", usageErrorf("%s %s: %v", flag, path, bare(err))
	}
	target, err := resolveLinks(path)
	if err != nil {
		return "", usageErrorf("%s %s: %v", flag, path, err)
	}
	if err == nil {
		for src := range res.Sources {
			if si, serr := os.Stat(src); serr == nil && os.SameFile(fi, si) {
				return "", usageErrorf("%s %s: is the scenario source %s", flag, path, src)
			}
		}
	}
	dir := filepath.Dir(target)
	di, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return "", usageErrorf("%s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return "", usageErrorf("%s %s: %v", flag, path, bare(err))
	case !di.IsDir():
		return "", usageErrorf("%s %s: %s is not a directory", flag, path, dir)
	}
	if err := probeDir(dir); err != nil {
		return "", usageErrorf("%s %s: directory %s: %v", flag, path, dir, err)
	}
	return target, nil
}

// resolveLinks follows path while it is a symbolic link, to the file it
// names (which need not exist yet).
func resolveLinks(path string) (string, error) {
	for range 40 {
		li, err := os.Lstat(path)
		if err != nil || li.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", bare(err)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", errors.New("too many levels of symbolic links")
}

// writeOutput writes the tables to -o: atomically to a file (its
// link target for a link), directly to a device or a pipe.
func (o *outputs) writeOutput(data []byte) error {
	if o.outTarget != "" {
		if err := renameio.WriteFile(o.outTarget, data, 0o644); err != nil {
			return fmt.Errorf("-o %s: %v", o.outPath, bare(err))
		}
		return nil
	}
	f, err := os.OpenFile(o.outPath, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("-o %s: %v", o.outPath, bare(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("-o %s: %v", o.outPath, bare(err))
	}
	return nil
}

// prepareOutputs checks every destination, creates the directories of
// --jobs and --series, and starts the CPU profile.
func prepareOutputs(f outputFlags, res *compiler.Result) (*outputs, error) {
	o := &outputs{}
	if f.out != "" {
		target, err := checkFile("-o", f.out, res, true)
		if err != nil {
			return nil, err
		}
		o.outPath, o.outTarget = f.out, target
	}
	for _, d := range []struct {
		flag, path string
		jobs       bool
	}{{"--jobs", f.jobs, true}, {"--series", f.series, false}} {
		if d.path == "" {
			continue
		}
		label := d.flag + " " + d.path
		if fi, err := os.Stat(d.path); err == nil && !fi.IsDir() {
			return nil, usageErrorf("%s: not a directory", label)
		}
		if err := os.MkdirAll(d.path, 0o755); err != nil {
			return nil, usageErrorf("%s: %v", label, err)
		}
		fi, err := os.Stat(d.path)
		if err != nil {
			return nil, usageErrorf("%s: %v", label, bare(err))
		}
		if err := probeDir(d.path); err != nil {
			return nil, usageErrorf("%s: %v", label, err)
		}
		var od *outDir
		for _, x := range o.dirs {
			if os.SameFile(x.info, fi) {
				od = x
				od.label += " and " + label
			}
		}
		if od == nil {
			od = &outDir{path: d.path, label: label, info: fi}
			o.dirs = append(o.dirs, od)
		}
		od.batsim = od.batsim || d.jobs && f.batsim
		od.jobs = od.jobs || d.jobs
		od.series = od.series || !d.jobs
	}
	// No two outputs may be the same file: the last written would win.
	var cl claims
	for _, d := range o.dirs {
		if err := cl.add(d.path, manifestName, d.label+" (its manifest)"); err != nil {
			return nil, err
		}
		for _, r := range res.Plan.Runs {
			for _, name := range d.names(r) {
				if err := cl.add(d.path, name, fmt.Sprintf("%s (run %s)", d.label, r.Name)); err != nil {
					return nil, err
				}
			}
		}
	}
	if o.outTarget != "" {
		if err := cl.add(filepath.Dir(o.outTarget), filepath.Base(o.outTarget), "-o "+o.outPath); err != nil {
			return nil, err
		}
	}
	if f.cpuProfile != "" {
		target, err := checkFile("--cpuprofile", f.cpuProfile, res, false)
		if err != nil {
			return nil, err
		}
		if err := cl.add(filepath.Dir(target), filepath.Base(target), "--cpuprofile "+f.cpuProfile); err != nil {
			return nil, err
		}
		pf, err := renameio.NewPendingFile(target, renameio.WithPermissions(0o644))
		if err != nil {
			return nil, usageErrorf("--cpuprofile %s: %v", f.cpuProfile, bare(err))
		}
		o.profilePath, o.profile = f.cpuProfile, pf
		if err := pprof.StartCPUProfile(pf); err != nil {
			o.abort()
			return nil, fmt.Errorf("--cpuprofile %s: %v", f.cpuProfile, err)
		}
		o.profiling = true
	}
	return o, nil
}

// claims are the files a run will write, to find two outputs that name
// the same file.
type claims []struct {
	dir        fs.FileInfo
	name, what string
}

// add claims the file name in dir for what ("-o out.txt").
func (cl *claims) add(dir, name, what string) error {
	di, err := os.Stat(dir)
	if err != nil {
		return usageErrorf("%s: %v", what, bare(err))
	}
	for _, c := range *cl {
		if c.name == name && os.SameFile(c.dir, di) {
			return usageErrorf("%s: %s writes that file too", what, c.what)
		}
	}
	*cl = append(*cl, struct {
		dir        fs.FileInfo
		name, what string
	}{di, name, what})
	return nil
}

// keepJobs says whether runs must keep their per-job records.
func (o *outputs) keepJobs() bool {
	for _, d := range o.dirs {
		if d.jobs {
			return true
		}
	}
	return false
}

// keepStates says whether runs must keep their machine-state series:
// for --series, or for Batsim's machine states.
func (o *outputs) keepStates() bool {
	for _, d := range o.dirs {
		if d.series || d.batsim {
			return true
		}
	}
	return false
}

// batsim says whether the jobs go to Batsim's files, which name every
// job's nodes.
func (o *outputs) batsim() bool {
	for _, d := range o.dirs {
		if d.batsim {
			return true
		}
	}
	return false
}

// finishProfile stops the CPU profile and puts the file in place.
func (o *outputs) finishProfile() error {
	if o.profile == nil {
		return nil
	}
	if o.profiling {
		pprof.StopCPUProfile()
		o.profiling = false
	}
	if err := o.profile.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("--cpuprofile %s: %v", o.profilePath, bare(err))
	}
	return nil
}

// abort stops the CPU profile, if it still runs, and removes its
// temporary file (nothing once finishProfile has put it in place).
func (o *outputs) abort() {
	if o.profiling {
		pprof.StopCPUProfile()
		o.profiling = false
	}
	if o.profile != nil {
		o.profile.Cleanup()
	}
}

// names are the files a run writes into d.
func (d *outDir) names(r *pwrt.Run) []string {
	var out []string
	switch {
	case d.jobs && d.batsim:
		out = append(out, r.Name+batsimJobsSuffix, r.Name+batsimMachineSuffix)
	case d.jobs:
		out = append(out, r.Name+".csv")
	}
	if d.series {
		out = append(out, r.Name+".hours.csv", r.Name+".states.csv")
		out = append(out, lawsonNames(r)...)
	}
	return out
}

// runFile is one file of a directory: a run's jobs, hours or states.
type runFile struct {
	name, run, kind string
	write           func(*bytes.Buffer)
}

// files lists what d receives from the runs that succeeded, in plan order.
func (d *outDir) files(results []*pwrt.Result) []runFile {
	var out []runFile
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		switch {
		case d.jobs && d.batsim:
			out = append(out, runFile{r.Run.Name + batsimJobsSuffix, r.Run.Name, "jobs", func(b *bytes.Buffer) { writeBatsimJobs(b, r.Run.Workload.Name, r.Jobs) }})
			if r.States != nil {
				out = append(out, runFile{r.Run.Name + batsimMachineSuffix, r.Run.Name, "machine_states", func(b *bytes.Buffer) { writeBatsimMachineStates(b, r.States) }})
			}
		case d.jobs:
			out = append(out, runFile{r.Run.Name + ".csv", r.Run.Name, "jobs", func(b *bytes.Buffer) { writeJobsCSV(b, r.Jobs) }})
		}
		if d.series {
			out = append(out, runFile{r.Run.Name + ".hours.csv", r.Run.Name, "series", func(b *bytes.Buffer) { writeHoursCSV(b, &r.Metrics) }})
			if r.States != nil {
				out = append(out, runFile{r.Run.Name + ".states.csv", r.Run.Name, "states", func(b *bytes.Buffer) { writeStatesCSV(b, r.States) }})
			}
			out = append(out, lawsonFiles(r)...)
		}
	}
	return out
}

// manifest is MANIFEST.json: what wrote a directory, from what, and the
// files it holds. It has no time stamps, so the same inputs give the same
// manifest.
type manifest struct {
	Pwrc       string   `json:"pwrc"`
	Complete   bool     `json:"complete"`
	Scenario   string   `json:"scenario"`
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
	Error      string            `json:"error,omitempty"`
}

type manifestFile struct {
	Name   string `json:"name"`
	Run    string `json:"run"`
	Kind   string `json:"kind"` // jobs, series, states, machine_states, weeks or active
	Bytes  *int64 `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// newManifest describes a run of pwrc; the files are filled per directory.
func newManifest(scenario, experiment string, sets []string, res *compiler.Result, results []*pwrt.Result) manifest {
	m := manifest{Pwrc: version, Scenario: scenario, Experiment: experiment, Sets: append([]string{}, sets...),
		Inputs: inputsHash(res, sets, experiment), Runs: []manifestRun{}, Files: []manifestFile{}}
	for _, r := range results {
		mr := manifestRun{Name: r.Run.Name, Experiment: r.Run.Experiment, Params: map[string]string{}}
		for _, p := range r.Run.Params {
			mr.Params[p.Name] = p.Value
		}
		if r.Err != nil {
			mr.Error = r.Err.Error()
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

// writeDirs writes every --jobs and --series directory.
func (o *outputs) writeDirs(ctx context.Context, head manifest, results []*pwrt.Result, stderr io.Writer) error {
	for _, d := range o.dirs {
		if err := d.write(ctx, head, d.files(results), stderr); err != nil {
			return err
		}
	}
	return nil
}

// write fills d in an order that leaves it explicit at every moment:
//
//  1. MANIFEST.json is replaced by one with "complete": false that lists
//     the files this run will write and those an earlier manifest listed;
//  2. the files are written, each atomically, stopping on an interrupt;
//  3. files the earlier manifest listed that this run did not write are
//     removed (no other file is ever removed);
//  4. MANIFEST.json is replaced by the complete one, with sizes and hashes.
func (d *outDir) write(ctx context.Context, head manifest, files []runFile, stderr io.Writer) error {
	old, err := readOldManifest(d.path)
	if err != nil {
		fmt.Fprintf(stderr, "pwrc: %s: %s unreadable (%v); files it may list are left alone\n", d.label, manifestName, err)
	}
	planned := map[string]bool{}
	pending := head
	pending.Complete = false
	pending.Files = []manifestFile{}
	for _, f := range files {
		planned[f.name] = true
		pending.Files = append(pending.Files, manifestFile{Name: f.name, Run: f.run, Kind: f.kind})
	}
	var stale []manifestFile
	for _, f := range old {
		if !planned[f.Name] {
			planned[f.Name] = true // once
			stale = append(stale, f)
			pending.Files = append(pending.Files, manifestFile{Name: f.Name, Run: f.Run, Kind: f.Kind})
		}
	}
	if err := d.writeManifest(pending); err != nil {
		return err
	}
	final := head
	final.Complete = true
	final.Files = []manifestFile{}
	for _, f := range files {
		if ctx.Err() != nil {
			return d.interrupted()
		}
		var b bytes.Buffer
		f.write(&b)
		path := filepath.Join(d.path, f.name)
		if err := renameio.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("%s: writing %s: %v", d.label, f.name, bare(err))
		}
		n := int64(b.Len())
		sum := sha256.Sum256(b.Bytes())
		final.Files = append(final.Files, manifestFile{Name: f.name, Run: f.run, Kind: f.kind, Bytes: &n, SHA256: hex.EncodeToString(sum[:])})
		if testHookWrote != nil {
			testHookWrote(path)
		}
	}
	if ctx.Err() != nil {
		return d.interrupted()
	}
	for _, f := range stale {
		if err := os.Remove(filepath.Join(d.path, f.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: removing %s, written by an earlier run: %v", d.label, f.Name, bare(err))
		}
	}
	if err := d.writeManifest(final); err != nil {
		return err
	}
	d.noteOthers(final, stderr)
	return nil
}

func (d *outDir) interrupted() error {
	return exitError{exitInterrupted, fmt.Errorf("interrupted while writing %s: its %s says \"complete\": false", d.label, manifestName)}
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

// noteOthers says on stderr which CSV files in d this run did not write:
// they may be mistaken for its output, but pwrc only removes files its
// own manifests listed.
func (d *outDir) noteOthers(m manifest, stderr io.Writer) {
	ours := map[string]bool{}
	for _, f := range m.Files {
		ours[f.Name] = true
	}
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

// readOldManifest returns the files an earlier manifest in dir lists,
// keeping only plain names in dir (never a path elsewhere, never the
// manifest itself). No manifest is no error.
func readOldManifest(dir string) ([]manifestFile, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, bare(err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	var out []manifestFile
	for _, f := range m.Files {
		if f.Name != manifestName && filepath.IsLocal(f.Name) && filepath.Base(f.Name) == f.Name && !strings.ContainsAny(f.Name, `/\`) {
			out = append(out, f)
		}
	}
	return out, nil
}
