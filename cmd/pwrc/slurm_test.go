//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSbatch stands for sbatch: it appends its arguments (NUL-separated,
// one submission a line) to $SBATCH_LOG and prints a job ID the way
// sbatch --parsable does ("ID;cluster"); with $SBATCH_FAIL set to the
// submission's number it fails that one, as sbatch does where a partition
// or an account is needed, or submitting is not allowed.
const fakeSbatch = `#!/bin/sh
n=$(($(wc -l < "$SBATCH_LOG") + 1))
if [ "$n" = "${SBATCH_FAIL:-}" ]; then
	echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >&2
	exit 1
fi
printf '%s\0' "$@" >> "$SBATCH_LOG"
echo >> "$SBATCH_LOG"
echo "424$n;cluster"
`

// slurmEnv is a directory with the fake sbatch first on PATH, and the
// environment to run a script with it.
func slurmEnv(t *testing.T) (log string, env []string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fakeSbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	log = filepath.Join(t.TempDir(), "sbatch.log")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "PWRC_TEST_MAIN=pwrc", "SBATCH_LOG="+log)
	return log, env
}

// submissions reads the fake sbatch's log: each submission's arguments.
func submissions(t *testing.T, log string) [][]string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line != "" {
			out = append(out, strings.Split(strings.TrimSuffix(line, "\x00"), "\x00"))
		}
	}
	return out
}

func hasArg(args []string, want string) bool {
	for _, a := range args {
		if a == want {
			return true
		}
	}
	return false
}

// pwrc slurm writes a valid bash script (bash -n) that, run with bash as a
// user runs it on a login node (sbatch replaced by a stand-in), submits
// the job array and then, from the same shell, the merge job dependent on
// the whole array (afterany), both with every --sbatch option and their
// output in OUT; each array task, run as Slurm runs it (the script with
// the argument shard and its SLURM_ARRAY_TASK_ID), computes its shard and
// submits nothing; the merge job, run as Slurm runs it (the argument
// merge), writes the tables and JSON of one run of the whole sweep, byte
// for byte.
func TestSlurmScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	out, script := filepath.Join(tmp, "out dir"), filepath.Join(tmp, "zhou.sh")
	scen := "../../examples/zhou_bgp.pwr"
	if o, e, code := pwrc(t, "slurm", scen, "--shards", "3", "--out", out, "--pwrc", self, "-o", script,
		"--sbatch", "--time=0:10:00", "--sbatch", "-p gpu", "--sbatch", `--comment="a b"`, "--cpus-per-task", "2"); code != 0 {
		t.Fatalf("pwrc slurm: exit %d\n%s%s", code, o, e)
	}
	text, _ := os.ReadFile(script)
	for _, want := range []string{"#!/bin/bash\n", "sbatch --parsable", "--array=1-3", "--cpus-per-task=2",
		`sbatch_options=( --time=0:10:00 -p gpu '--comment=a b')`, `--dependency="afterany:$array"`, "/slurm-%A_%a.out", "/slurm-%j.out"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("script has no %q", want)
		}
	}
	if bytes.Contains(text, []byte("#SBATCH")) {
		t.Error("the script has #SBATCH lines: it is run with bash, and they would make its merge job an array too")
	}
	if o, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, o)
	}
	log, env := slurmEnv(t)
	submit := exec.Command("bash", script)
	submit.Dir = t.TempDir() // run from anywhere
	submit.Env = env
	if o, err := submit.CombinedOutput(); err != nil || !strings.Contains(string(o), "submitted the job array 4241") || !strings.Contains(string(o), "merge job 4242") {
		t.Fatalf("bash SCRIPT: %v\n%s", err, o)
	}
	subs := submissions(t, log)
	if len(subs) != 2 {
		t.Fatalf("%d submissions, want the array and the merge job: %q", len(subs), subs)
	}
	array, merge := subs[0], subs[1]
	for what, args := range map[string][]string{"array": array, "merge job": merge} {
		for _, want := range []string{"--parsable", "--time=0:10:00", "-p", "gpu", "--comment=a b"} {
			if !hasArg(args, want) {
				t.Errorf("the %s is submitted without %s: %q", what, want, args)
			}
		}
		if args[len(args)-2] != script {
			t.Errorf("the %s runs %q, not the script %s", what, args[len(args)-2], script)
		}
	}
	if !hasArg(array, "--array=1-3") || array[len(array)-1] != "shard" || !hasArg(array, "--output="+out+"/slurm-%A_%a.out") {
		t.Errorf("array submission %q", array)
	}
	if !hasArg(merge, "--dependency=afterany:4241") || merge[len(merge)-1] != "merge" || hasArg(merge, "--array=1-3") || !hasArg(merge, "--output="+out+"/slurm-%j.out") {
		t.Errorf("merge submission %q: want it after the whole array 4241, not an array itself, its output in OUT", merge)
	}
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
		t.Errorf("the output directory, where Slurm writes slurm-*.out, was not made before submitting: %v", err)
	}
	var chdir string
	for _, a := range merge {
		if c, ok := strings.CutPrefix(a, "--chdir="); ok {
			chdir = c
		}
	}
	if chdir == "" {
		t.Fatalf("no --chdir: %q", merge)
	}
	// The tasks, as Slurm runs them: in --chdir, with the script's argument.
	for _, task := range []string{"1", "2", "3"} {
		cmd := exec.Command("bash", script, "shard")
		cmd.Dir = chdir
		cmd.Env = append(env, "SLURM_ARRAY_TASK_ID="+task, "SLURM_ARRAY_JOB_ID=4241", "SLURM_CPUS_PER_TASK=2")
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("array task %s: %v\n%s", task, err, o)
		}
		if _, err := os.Stat(filepath.Join(out, "shard-"+task+"-of-3.json")); err != nil {
			t.Fatalf("array task %s wrote no shard: %v", task, err)
		}
	}
	if n := len(submissions(t, log)); n != 2 {
		t.Errorf("the array tasks submitted %d jobs; they should submit none", n-2)
	}
	mergeJob := exec.Command("bash", script, "merge")
	mergeJob.Dir = chdir
	mergeJob.Env = env
	if o, err := mergeJob.CombinedOutput(); err != nil {
		t.Fatalf("merge job: %v\n%s", err, o)
	}
	wantTable, _, _ := pwrc(t, "run", scen)
	wantJSON, _, _ := pwrc(t, "run", scen, "--format", "json")
	for file, want := range map[string]string{"tables.txt": wantTable, "results.json": wantJSON} {
		got, err := os.ReadFile(filepath.Join(out, file))
		if err != nil || string(got) != want {
			t.Errorf("%s differs from one run's output (%v)", file, err)
		}
	}
}

// When sbatch refuses the array, nothing is submitted and the script
// says so (exit 1); when it refuses the merge job, the script says which
// array was submitted and how to merge it by hand (exit 1). Inside an
// array task, the script without argument refuses to submit.
func TestSlurmSubmissionFails(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "q.sh")
	if o, e, code := pwrc(t, "slurm", "../../examples/quickstart.pwr", "--shards", "2", "--pwrc", "/opt/pwrc", "-o", script, "--out", t.TempDir()); code != 0 {
		t.Fatalf("pwrc slurm: exit %d\n%s%s", code, o, e)
	}
	for _, c := range []struct {
		fail, want string
		subs       int
	}{
		{"1", "sbatch refused the job array (see above); nothing was submitted", 0},
		{"2", "the job array is job 4241, but sbatch refused its merge job (see above): once the array has ended, merge with: bash " + script + " merge", 1},
	} {
		log, env := slurmEnv(t)
		cmd := exec.Command("bash", script)
		cmd.Env = append(env, "SBATCH_FAIL="+c.fail)
		o, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(o), c.want) || !strings.Contains(string(o), "Invalid account") {
			t.Errorf("submission %s refused: %v\n%s", c.fail, err, o)
		}
		if n := len(submissions(t, log)); n != c.subs {
			t.Errorf("submission %s refused: %d submitted, want %d", c.fail, n, c.subs)
		}
	}
	_, env := slurmEnv(t)
	cmd := exec.Command("bash", script)
	cmd.Env = append(env, "SLURM_ARRAY_TASK_ID=1")
	if o, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(o), "run it with bash on a login node") {
		t.Errorf("submit mode inside an array task: %v\n%s", err, o)
	}
}

// pwrc slurm refuses what it cannot write, quotes what it writes, and
// never references a pwrc the go command deletes.
func TestSlurmArguments(t *testing.T) {
	q := "../../examples/quickstart.pwr"
	for _, args := range [][]string{
		{"slurm", q}, {"slurm", q, "--shards", "0"}, {"slurm", q, "--shards", "2", "--cpus-per-task", "0"},
		{"slurm", q, "--shards", "2", "--sbatch", "--time=1\n#evil"},
		{"slurm", q, "--shards", "2", "--sbatch", "--array=1-9"}, {"slurm", q, "--shards", "2", "--sbatch", "-a 1-9"},
		{"slurm", q, "--shards", "2", "--sbatch", "--dependency=afterok:1"}, {"slurm", q, "--shards", "2", "--sbatch", "-D /tmp"},
		{"slurm", q, "--shards", "2", "--sbatch", "--comment='open"},
		{"slurm", "-", "--shards", "2"},
	} {
		if _, _, code := pwrc(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	o, e, code := pwrc(t, "slurm", q, "--shards", "2", "--out", "it's here", "--pwrc", "/opt/p w/pwrc", "--sbatch", `--comment="it's"`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, want := range []string{`export PWRC_OUT='it'\''s here'`, `export PWRC_BIN=${PWRC:-'/opt/p w/pwrc'}`, `sbatch_options=( '--comment=it'\''s')`} {
		if !strings.Contains(o, want) {
			t.Errorf("script has no %s", want)
		}
	}
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(o)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, b)
	}
	setHooks(t, hooks{executable: func() (string, error) { return "/opt/bin/pwrc", nil }})
	if o, e, code := pwrc(t, "slurm", q, "--shards", "9"); code != 0 || !strings.Contains(e, "shards 7 to 9 will have none") || !strings.Contains(o, "PWRC_BIN=${PWRC:-/opt/bin/pwrc}") {
		t.Errorf("more shards than runs: exit %d, %q", code, e)
	}
	// go run's and go test's binaries are deleted, or kept only in the build cache.
	for _, tmp := range []string{"/tmp/go-build1234/b001/exe/pwrc", "/home/u/.cache/go-build/ab/pwrc.test"} {
		setHooks(t, hooks{executable: func() (string, error) { return tmp, nil }})
		if _, e, code := pwrc(t, "slurm", q, "--shards", "2"); code != exitUsage || !strings.Contains(e, "temporary build") || !strings.Contains(e, "--pwrc PATH") {
			t.Errorf("pwrc at %s: exit %d, %q", tmp, code, e)
		}
		if _, e, code := pwrc(t, "slurm", q, "--shards", "2", "--pwrc", "/opt/bin/pwrc"); code != 0 {
			t.Errorf("--pwrc given, pwrc at %s: exit %d, %q", tmp, code, e)
		}
	}
}
