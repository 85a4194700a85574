//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSbatch stands for sbatch: it records its arguments, NUL-separated,
// and the paths the merge job gets from the environment.
const fakeSbatch = `#!/bin/sh
printf '%s\0' "$@" > "$SBATCH_ARGS"
printf '%s\0' "$PWRC_BIN" "$PWRC_OUT" "$PWRC_SHARDS" > "$SBATCH_ENV"
echo 4243
`

// pwrc slurm writes a valid bash script (bash -n) that, run as Slurm runs
// it — each array task with its SLURM_ARRAY_TASK_ID, sbatch replaced by a
// stand-in that records what task 1 submits — runs the shards, submits
// one merge job after the whole array (afterany), and that merge job, run
// as sbatch --wrap runs it, writes the tables and JSON of one run of the
// whole sweep, byte for byte; bash SCRIPT merge does the same by hand.
func TestSlurmScript(t *testing.T) {
	for _, sh := range []string{"bash", "sh"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Skipf("no %s", sh)
		}
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	out, script := filepath.Join(tmp, "out dir"), filepath.Join(tmp, "zhou.sbatch")
	scen := "../../examples/zhou_bgp.pwr"
	if o, e, code := pwrc(t, "slurm", scen, "--shards", "3", "--out", out, "--pwrc", self, "-o", script,
		"--sbatch", "--time=0:10:00", "--cpus-per-task", "2"); code != 0 {
		t.Fatalf("pwrc slurm: exit %d\n%s%s", code, o, e)
	}
	text, _ := os.ReadFile(script)
	for _, want := range []string{"#!/bin/bash\n", "#SBATCH --array=1-3\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=0:10:00\n"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("script has no %q", want)
		}
	}
	if o, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, o)
	}
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fakeSbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	args, env := filepath.Join(tmp, "sbatch.args"), filepath.Join(tmp, "sbatch.env")
	base := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PWRC_TEST_MAIN=pwrc",
		"SBATCH_ARGS="+args, "SBATCH_ENV="+env, "SLURM_ARRAY_JOB_ID=4242", "SLURM_CPUS_PER_TASK=2")
	for _, task := range []string{"1", "2", "3"} {
		cmd := exec.Command("bash", script)
		cmd.Env = append(base, "SLURM_ARRAY_TASK_ID="+task)
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("array task %s: %v\n%s", task, err, o)
		}
		if _, err := os.Stat(filepath.Join(out, "shard-"+task+"-of-3.json")); err != nil {
			t.Fatalf("array task %s wrote no shard: %v", task, err)
		}
	}
	raw, err := os.ReadFile(args)
	if err != nil {
		t.Fatalf("task 1 submitted no merge job: %v", err)
	}
	submitted := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	var wrap, chdir string
	dep := false
	for _, a := range submitted {
		switch {
		case a == "--dependency=afterany:4242":
			dep = true
		case strings.HasPrefix(a, "--wrap="):
			wrap = strings.TrimPrefix(a, "--wrap=")
		case strings.HasPrefix(a, "--chdir="):
			chdir = strings.TrimPrefix(a, "--chdir=")
		}
	}
	if !dep || wrap == "" || chdir == "" {
		t.Fatalf("the merge job is not submitted after the whole array: sbatch %q", submitted)
	}
	paths, _ := os.ReadFile(env)
	pe := strings.Split(strings.TrimSuffix(string(paths), "\x00"), "\x00")
	merge := exec.Command("sh", "-c", wrap)
	merge.Dir = chdir
	merge.Env = append(os.Environ(), "PWRC_TEST_MAIN=pwrc", "PWRC_BIN="+pe[0], "PWRC_OUT="+pe[1], "PWRC_SHARDS="+pe[2])
	if o, err := merge.CombinedOutput(); err != nil {
		t.Fatalf("merge job: %v\n%s", err, o)
	}
	wantTable, _, _ := pwrc(t, "run", scen)
	wantJSON, _, _ := pwrc(t, "run", scen, "--format", "json")
	check := func(when string) {
		for file, want := range map[string]string{"tables.txt": wantTable, "results.json": wantJSON} {
			got, err := os.ReadFile(filepath.Join(out, file))
			if err != nil || string(got) != want {
				t.Errorf("%s: %s differs from one run's output (%v)", when, file, err)
			}
		}
	}
	check("merge job")
	for _, f := range []string{"tables.txt", "results.json"} {
		os.Remove(filepath.Join(out, f))
	}
	byHand := exec.Command("bash", script, "merge")
	byHand.Env = append(os.Environ(), "PWRC_TEST_MAIN=pwrc")
	if o, err := byHand.CombinedOutput(); err != nil {
		t.Fatalf("bash SCRIPT merge: %v\n%s", err, o)
	}
	check("bash SCRIPT merge")
	// Outside an array, without merge, it says how to run it.
	alone := exec.Command("bash", script)
	alone.Env = append(os.Environ(), "PWRC_TEST_MAIN=pwrc")
	if o, err := alone.CombinedOutput(); err == nil || !strings.Contains(string(o), "submit this script with sbatch") {
		t.Errorf("run outside an array: %v\n%s", err, o)
	}
}

// pwrc slurm refuses what it cannot write, and quotes what it writes.
func TestSlurmArguments(t *testing.T) {
	q := "../../examples/quickstart.pwr"
	for _, args := range [][]string{
		{"slurm", q}, {"slurm", q, "--shards", "0"}, {"slurm", q, "--shards", "2", "--cpus-per-task", "0"},
		{"slurm", q, "--shards", "2", "--sbatch", "--time=1\n#evil"},
	} {
		if _, _, code := pwrc(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	o, e, code := pwrc(t, "slurm", q, "--shards", "2", "--out", "it's here", "--pwrc", "/opt/p w/pwrc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{`export PWRC_OUT='it'\''s here'`, `export PWRC_BIN=${PWRC:-'/opt/p w/pwrc'}`} {
		if !strings.Contains(o, want) {
			t.Errorf("script has no %s", want)
		}
	}
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(o)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, b)
	}
	if _, e, code := pwrc(t, "slurm", q, "--shards", "9"); code != 0 || !strings.Contains(e, "shards 7 to 9 will have none") {
		t.Errorf("more shards than runs: exit %d, %q", code, e)
	}
}
