package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/google/renameio/v2"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// manifestName is the file that ends every directory pwrc writes.
const manifestName = "MANIFEST.json"

// outputFlags are the destinations given on the command line, and what
// the run is of (to tell whether a directory holds the same sweep).
type outputFlags struct {
	out, jobs, series, cpuProfile string
	batsim                        bool // --jobs-format batsim
	scenario, experiment          string
	sets                          []string
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
	inputs      inputs // the files the run reads, which no output may replace
}

// outDir is a directory written by --jobs, --series or both.
type outDir struct {
	path   string // as the user wrote it
	label  string // "--jobs out/", "--jobs out/ and --series out/"
	jobs   bool
	series bool
	batsim bool // --jobs-format batsim: the jobs in Batsim's files
	info   fs.FileInfo
	// old lists the files the directory's manifest listed before this
	// run (nil without a manifest); w writes the directory as runs end.
	old []manifestFile
	w   *dirWriter
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
// one of the files the command reads (in). It returns the path to write: a
// symbolic link's target (pwrc writes through links rather than replacing
// them), or "" for a device or a pipe when devices are allowed (they are
// written directly, not replaced).
func checkFile(flag, path string, in inputs, devices bool) (string, error) {
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
	if x, ok := in.of(fi); err == nil && ok {
		return "", usageErrorf("%s %s: is %s, which this command reads: write to another file (pwrc never writes over its inputs)", flag, path, x.what)
	}
	target, err := resolveLinks(path)
	if err != nil {
		return "", usageErrorf("%s %s: %v", flag, path, err)
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

// isCount says whether a directory's name is a plain number, as `-j 2`
// gives one: `--jobs 2` is then most likely a slip for it.
func isCount(path string) bool {
	return path != "" && strings.Trim(path, "0123456789") == ""
}

// mkdirAll creates dir and its missing parents, and returns the
// directories it created, the deepest last; an ancestor that is a file is
// named.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, bare(err)
		}
		missing = append([]string{d}, missing...)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], fmt.Errorf("cannot create %s: %v", d, bare(err))
		}
	}
	return missing, nil
}

// prepareOutputs checks every destination, creates the directories of
// --jobs and --series, and starts the CPU profile. Directories it created
// are removed again (when still empty) if a later destination is refused.
func prepareOutputs(f outputFlags, res *compiler.Result) (_ *outputs, err error) {
	o := &outputs{inputs: planInputs(res.Sources, res.Plan)}
	var created []string
	defer func() {
		if err != nil {
			o.abort()
			for i := len(created) - 1; i >= 0; i-- {
				os.Remove(created[i]) // only an empty directory goes
			}
		}
	}()
	dirFlags := []struct {
		flag, path string
		jobs       bool
	}{{"--jobs", f.jobs, true}, {"--series", f.series, false}}
	for _, d := range dirFlags {
		if isCount(d.path) {
			return nil, usageErrorf("%s %s: a directory named %s? %s DIR writes files into the directory DIR; to simulate %s runs in parallel, write -j %s (for a directory of that name, write %s ./%s)",
				d.flag, d.path, d.path, d.flag, d.path, d.path, d.flag, d.path)
		}
	}
	// The directories first: -o may name a file in one of them.
	for _, d := range dirFlags {
		if d.path == "" {
			continue
		}
		label := d.flag + " " + d.path
		if fi, err := os.Stat(d.path); err == nil && !fi.IsDir() {
			return nil, usageErrorf("%s: not a directory", label)
		}
		made, err := mkdirAll(d.path)
		created = append(created, made...)
		if err != nil {
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
	for _, d := range o.dirs {
		if err := d.checkOld(f, res, o.inputs); err != nil {
			return nil, err
		}
	}
	if f.out != "" {
		target, err := checkFile("-o", f.out, o.inputs, true)
		if err != nil {
			return nil, err
		}
		o.outPath, o.outTarget = f.out, target
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
		target, err := checkFile("--cpuprofile", f.cpuProfile, o.inputs, false)
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
			return nil, fmt.Errorf("--cpuprofile %s: %v", f.cpuProfile, err)
		}
		o.profiling = true
	}
	return o, nil
}

// checkOld reads the manifest a directory already holds and refuses what
// would lose a file: a manifest pwrc cannot read (it would be replaced),
// one of another sweep (its files would be replaced or removed), and a
// file this run would write that no manifest lists (the user's) or that
// the run reads.
func (d *outDir) checkOld(f outputFlags, res *compiler.Result, in inputs) error {
	old, err := readOldManifest(d.path)
	if err != nil {
		return usageErrorf("%s: %v; pwrc would replace it: move it away, or write into another directory", d.label, err)
	}
	if old != nil {
		d.old = old.Files
		if len(old.Files) > 0 {
			if !sameSweep(d.path, old, f, res) {
				return usageErrorf("%s: holds the files of %s (%s says so), which this run of %s would replace or remove: write into another directory, or remove %s first",
					d.label, sweepName(old.Scenario, old.Experiment), filepath.Join(d.path, manifestName), sweepName(f.scenario, f.experiment), d.path)
			}
		}
	}
	listed := map[string]bool{}
	for _, x := range d.old {
		listed[x.Name] = true
	}
	var clash []string
	var first error
	for _, r := range res.Plan.Runs {
		for _, name := range d.names(r) {
			path := filepath.Join(d.path, name)
			li, err := os.Lstat(path)
			if err != nil {
				continue // not there (or unreadable: writing it will say)
			}
			fi, _ := os.Stat(path)
			if x, ok := in.of(fi); ok {
				return usageErrorf("%s: %s is %s, which this run reads, and run %s would write %s: write into another directory (pwrc never writes over its inputs)",
					d.label, name, x.what, r.Name, name)
			}
			if listed[name] && li.Mode().IsRegular() {
				continue
			}
			clash = append(clash, name)
			switch {
			case first != nil:
			case !li.Mode().IsRegular():
				first = fmt.Errorf("%s: %s is not a regular file, and run %s would write a file of that name", d.label, name, r.Name)
			default:
				first = fmt.Errorf("%s: %s is not a file pwrc wrote (no %s lists it), and run %s would replace it", d.label, name, manifestName, r.Name)
			}
		}
	}
	if first != nil {
		more := ""
		if len(clash) > 1 {
			more = fmt.Sprintf(" (and %d more like it)", len(clash)-1)
		}
		return usageErrorf("%v%s: move it away, or write into another directory", first, more)
	}
	return nil
}

// sameSweep says whether a directory's earlier manifest is of the sweep
// this run writes: the same scenario and --experiment. A scenario is the
// same file, found from the directory the earlier run ran in (the
// manifest's workdir); a scenario read from the standard input is the
// same only with the same inputs.
func sameSweep(dir string, old *manifest, f outputFlags, res *compiler.Result) bool {
	if old.Experiment != f.experiment {
		return false
	}
	if f.scenario == stdinName || old.Scenario == stdinName {
		return old.Scenario == f.scenario && old.Inputs == inputsHash(res, f.sets, f.experiment)
	}
	a, err1 := os.Stat(at(old.workdir(dir), old.Scenario))
	b, err2 := os.Stat(f.scenario)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// sweepName names what a manifest describes: "a.pwr" or "experiment x of a.pwr".
func sweepName(scenario, experiment string) string {
	if experiment == "" {
		return scenario
	}
	return fmt.Sprintf("experiment %s of %s", experiment, scenario)
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

// names are the files a run may write into d.
func (d *outDir) names(r *pwrt.Run) []string {
	var out []string
	for _, f := range d.planned(r) {
		out = append(out, f.Name)
	}
	return out
}
