package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// --jobs and --series write each run's files as the run ends, not once the
// whole sweep has: when a run ends, the files of the runs that ended
// before it are in place (the manifest saying "complete": false), and no
// result holds its job records or state series once its files are
// written, so a sweep's memory does not grow with its runs. The files and
// the manifest are those of before, for any -j.
func TestFilesWrittenAsRunsEnd(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	want := t.TempDir()
	if _, e, code := pwrc(t, "run", scen, "--jobs", want, "--series", want, "-j", "2"); code != 0 {
		t.Fatal(e)
	}
	dir := t.TempDir()
	var seen []string // the files in dir each time a run ends
	var kept int      // results still holding records once all ended
	midway := true    // the manifest while runs went on said "complete"
	setHooks(t, hooks{execute: func(ctx context.Context, p *pwrt.Plan, o pwrt.Options) []*pwrt.Result {
		progress := o.Progress
		o.Progress = func(done, total int) {
			entries, _ := os.ReadDir(dir)
			seen = append(seen, "")
			if data, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil && done == 3 {
				midway = strings.Contains(string(data), `"complete": true`)
			}
			for _, e := range entries {
				seen[len(seen)-1] += e.Name() + " "
			}
			progress(done, total)
		}
		res := pwrt.Execute(ctx, p, o)
		for _, r := range res {
			if r.Jobs != nil || r.States != nil {
				kept++
			}
		}
		return res
	}})
	if _, e, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir, "-j", "1"); code != 0 {
		t.Fatal(e)
	}
	if len(seen) != 4 {
		t.Fatalf("%d runs ended, want 4", len(seen))
	}
	if seen[0] != "" {
		t.Errorf("files before the first run ended: %s", seen[0])
	}
	// (The easy runs are twins, simulated as one: they end together.)
	if want := "MANIFEST.json kunkel_basepeak-easy.csv kunkel_basepeak-easy.hours.csv kunkel_basepeak-easy.states.csv kunkel_basepeak-easy.weeks.csv " +
		"kunkel_fixed-easy.csv kunkel_fixed-easy.hours.csv kunkel_fixed-easy.states.csv kunkel_fixed-easy.weeks.csv "; seen[2] != want {
		t.Errorf("when the third run ended, the directory held %q; want the first two runs' files %q", seen[2], want)
	}
	if m := readManifest(t, dir); !m.Complete || len(m.Files) != 16 {
		t.Errorf("final manifest: complete %v, %d files", m.Complete, len(m.Files))
	}
	if midway {
		t.Error("while the runs went on, the manifest did not say \"complete\": false")
	}
	if kept > 0 {
		t.Errorf("%d results still hold their job records or state series after their files were written", kept)
	}
	entries, _ := os.ReadDir(want)
	for _, e := range entries {
		a, b := mustRead(t, filepath.Join(want, e.Name())), mustRead(t, filepath.Join(dir, e.Name()))
		if string(a) != string(b) {
			t.Errorf("%s differs between -j 2 and -j 1 with files written as runs end", e.Name())
		}
	}
}

// A file that cannot be written while the runs go on stops the command
// with exit 1 and says which file; the manifest says "complete": false.
func TestWriteErrorWhileRunsGoOn(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	dir := t.TempDir()
	setHooks(t, hooks{wrote: func(path string) {
		if filepath.Base(path) == "kunkel_fixed-easy.csv" { // the next file's name, taken by a directory
			if err := os.Mkdir(filepath.Join(dir, "kunkel_fixed-easy.hours.csv"), 0o755); err != nil {
				t.Error(err)
			}
		}
	}})
	out, e, code := pwrc(t, "run", scen, "--jobs", dir, "--series", dir, "-j", "1")
	if code != exitFailure || out != "" || !strings.Contains(e, "--jobs "+dir+" and --series "+dir+": writing kunkel_fixed-easy.hours.csv: ") {
		t.Errorf("exit %d, stdout %q\n%s", code, out, e)
	}
	if m := readManifest(t, dir); m.Complete {
		t.Error("the manifest says complete")
	}
}
