package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
)

// slurmScript is the script `pwrc slurm` writes. Run with bash on a login
// node, it submits the job array (sbatch --parsable), whose task i runs
// shard i/n, then the merge job, dependent on the whole array (afterany:
// a shard whose runs failed still writes its file, and merge says which
// failed; a shard that wrote nothing is named by merge as missing runs).
// Submitting both from the user's shell means every --sbatch option
// (partition, account…) applies to both, a compute node never has to
// submit, and a failed submission is said at once. The array tasks and
// the merge job run the same script, with the argument shard or merge;
// its paths are set in it, so nothing is quoted twice.
var slurmScript = template.Must(template.New("slurm").Funcs(template.FuncMap{"q": shellQuote}).Parse(`#!/bin/bash
# Runs the sweep of {{.Scenario}} on Slurm in {{.Shards}} shards; written by pwrc {{.Version}}:
#   {{.Command}}
#
# Run it with bash on a login node (it submits its own jobs; not with sbatch):
#   bash THIS_SCRIPT
# It submits a job array of {{.Shards}} tasks (sbatch --parsable) whose task i runs
# shard i of {{.Shards}} (pwrc run --shard i/{{.Shards}}) into {{.Out}}/shard-i-of-{{.Shards}}.json, then
# the merge job, which waits for every task to end (--dependency=afterany on the
# array) and writes {{.Out}}/tables.txt and {{.Out}}/results.json with pwrc merge:
# what one pwrc run of the whole sweep prints (--format table and json). Both
# take the sbatch options below; Slurm writes their output to {{.Out}}/slurm-*.out.
# To merge again by hand once the array has ended:
#   bash THIS_SCRIPT merge

set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd {{q .Dir}}
export PWRC_BIN=${PWRC:-{{q .Pwrc}}}
export PWRC_OUT={{q .Out}}
export PWRC_SHARDS={{.Shards}}
sbatch_options=({{range .Extra}} {{q .}}{{end}})

case "${1:-submit}" in
submit)
	if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
		echo "pwrc slurm: this script submits its own jobs: run it with bash on a login node, not with sbatch --array" >&2
		exit 2
	fi
	mkdir -p "$PWRC_OUT"
	if ! array=$(sbatch --parsable --job-name={{q .Name}} --array=1-{{.Shards}} --cpus-per-task={{.CPUs}} \
		--chdir="$PWD" --export=ALL --output="$PWRC_OUT/slurm-%A_%a.out" ${sbatch_options[@]+"${sbatch_options[@]}"} "$self" shard); then
		echo "pwrc slurm: sbatch refused the job array (see above); nothing was submitted" >&2
		exit 1
	fi
	array=${array%%;*}
	if ! merge=$(sbatch --parsable --job-name={{q .MergeName}} --dependency="afterany:$array" \
		--chdir="$PWD" --export=ALL --output="$PWRC_OUT/slurm-%j.out" ${sbatch_options[@]+"${sbatch_options[@]}"} "$self" merge); then
		echo "pwrc slurm: the job array is job $array, but sbatch refused its merge job (see above): once the array has ended, merge with: bash $self merge" >&2
		exit 1
	fi
	merge=${merge%%;*}
	echo "pwrc slurm: submitted the job array $array ({{.Shards}} shards into $PWRC_OUT) and the merge job $merge, which runs once every task has ended"
	;;
shard)
	task=${SLURM_ARRAY_TASK_ID:?the job array runs this; submit it with: bash $self}
	exec "$PWRC_BIN" run {{q .Scenario}}{{range .Args}} {{q .}}{{end}} \
		--shard "$task/$PWRC_SHARDS" -j "${SLURM_CPUS_PER_TASK:-1}" -o "$PWRC_OUT/shard-$task-of-$PWRC_SHARDS.json"
	;;
merge)
	s=0
	"$PWRC_BIN" merge "$PWRC_OUT"/shard-*-of-"$PWRC_SHARDS".json --format json -o "$PWRC_OUT/results.json" || s=$?
	"$PWRC_BIN" merge "$PWRC_OUT"/shard-*-of-"$PWRC_SHARDS".json -o "$PWRC_OUT/tables.txt" || s=$?
	exit "$s"
	;;
*)
	echo "usage: bash $self [submit | merge]" >&2
	exit 2
	;;
esac
`))

// sbatchWords splits an --sbatch value into sbatch's arguments as an
// #SBATCH line is split: at blanks, quotes grouping and removed
// ("-p gpu" is two, --comment="a b" one).
func sbatchWords(v string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote, open := false, rune(0), false
	for _, r := range v {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			in = true
		}
		open = quote != 0
	}
	if open {
		return nil, fmt.Errorf("an unclosed quote")
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// sbatchOwn says which option pwrc sets itself an sbatch argument is, if
// it is one: the array, the dependency, the working directory, the
// submission's output.
func sbatchOwn(w string) string {
	for _, o := range []string{"--array", "--dependency", "--chdir", "--parsable", "--wrap"} {
		if w == o || strings.HasPrefix(w, o+"=") {
			return o
		}
	}
	for short, o := range map[string]string{"-a": "--array", "-d": "--dependency", "-D": "--chdir"} {
		if strings.HasPrefix(w, short) {
			return o
		}
	}
	return ""
}

// temporaryBuild says whether a binary is one the go command builds and
// deletes (go run, go test) or keeps only in its build cache.
func temporaryBuild(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell: in single quotes, a quote in s
// closing them, escaped, and opening them again.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:+,%@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jobName keeps the characters a Slurm job name takes without quoting.
func jobName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

func slurmCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		shards, cpus        int
		experiment, outFile string
		outDir, pwrcPath    string
		sets, extra         []string
	)
	cmd := &cobra.Command{
		Use:   "slurm FILE --shards N",
		Short: "Write an sbatch job array that runs a sweep in shards, and merges them",
		Long: `slurm writes a bash script that runs a sweep on Slurm in shards. Run on a
login node with bash (not with sbatch), it submits a job array whose task i
runs pwrc run FILE --shard i/N (with the --set values and --experiment given
here) into OUT/shard-i-of-N.json, then a merge job that waits for every task
(--dependency=afterany on the array) and writes OUT/tables.txt and
OUT/results.json with pwrc merge: byte for byte what one pwrc run of the
whole sweep prints. Both jobs take every --sbatch option (split at blanks
as an #SBATCH line is) and write Slurm's output to OUT/slurm-*.out. The jobs
run in the current directory (the scenario's paths are as given here) with
the pwrc that wrote the script (or --pwrc), unless $PWRC names another when
it is submitted. bash SCRIPT merge merges by hand.`,
		Args: cobra.ExactArgs(1),
		RunE: command(func(cmd *cobra.Command, args []string) error {
			if shards < 1 {
				return usageErrorf("--shards %d: give the number of shards, 1 or more", shards)
			}
			if cpus < 1 {
				return usageErrorf("--cpus-per-task %d: 1 or more", cpus)
			}
			var runArgs []string
			for _, s := range sets {
				runArgs = append(runArgs, "--set", s)
			}
			if experiment != "" {
				runArgs = append(runArgs, "--experiment", experiment)
			}
			for _, v := range append(append([]string{args[0], outDir, pwrcPath}, runArgs...), extra...) {
				if strings.ContainsAny(v, "\n\r\x00") {
					return usageErrorf("%q: a line break cannot go into the script", v)
				}
			}
			if args[0] == "-" {
				return usageErrorf("slurm needs a scenario file, which every shard reads: save the standard input to a file")
			}
			var sbatchArgs []string
			for _, v := range extra {
				words, err := sbatchWords(v)
				if err != nil {
					return usageErrorf("--sbatch %s: %v", v, err)
				}
				for _, w := range words {
					if o := sbatchOwn(w); o != "" {
						return usageErrorf("--sbatch %s: the script sets %s itself (the array, its merge job's dependency, the directory the jobs run in)", v, o)
					}
				}
				sbatchArgs = append(sbatchArgs, words...)
			}
			res, err := compile(args[0], sets, experiment, cmd.InOrStdin(), stderr)
			if err != nil {
				return err
			}
			runs := len(res.Plan.Runs)
			if runs == 0 {
				return exitError{exitFailure, fmt.Errorf("%s: no experiments to run", args[0])}
			}
			if shards > runs {
				fmt.Fprintf(stderr, "pwrc: %s in %s: shards %d to %d will have none\n", plural(runs, "run"), plural(shards, "shard"), runs+1, shards)
			}
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			if pwrcPath == "" {
				if pwrcPath, err = hooksOf(cmd.Context()).executable(); err != nil {
					return usageErrorf("cannot tell where this pwrc is (%v): give the pwrc the jobs run with --pwrc PATH", err)
				}
				if temporaryBuild(pwrcPath) {
					return usageErrorf("this pwrc, %s, is a temporary build that the go command deletes: the jobs could not run it. Install pwrc (go install ./cmd/pwrc) and run that, or give the pwrc the jobs run with --pwrc PATH", pwrcPath)
				}
			}
			base := strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0]))
			name := "pwrc-" + jobName(base)
			if experiment != "" {
				name += "-" + jobName(experiment)
			}
			if outDir == "" {
				outDir = name
			}
			command := append([]string{"pwrc", "slurm", shellQuote(args[0]), "--shards", fmt.Sprint(shards)}, quoteAll(runArgs)...)
			if cmd.Flags().Changed("out") {
				command = append(command, "--out", shellQuote(outDir))
			}
			var b bytes.Buffer
			err = slurmScript.Execute(&b, map[string]any{
				"Scenario": args[0], "Shards": shards, "Version": version, "Command": strings.Join(command, " "),
				"Name": name, "MergeName": name + "-merge", "CPUs": cpus, "Dir": dir,
				"Pwrc": pwrcPath, "Out": outDir, "Args": runArgs, "Extra": sbatchArgs,
			})
			if err != nil {
				return err
			}
			if outFile == "" {
				outFile = "-"
			}
			return writeFigure("-o", outFile, b.Bytes(), stdout, planInputs(res.Sources, res.Plan))
		}),
	}
	f := cmd.Flags()
	f.IntVar(&shards, "shards", 0, "the number of shards (array tasks)")
	f.StringArrayVar(&sets, "set", nil, "override a param: --set NAME=VALUE (repeatable), passed to every shard")
	f.StringVar(&experiment, "experiment", "", "run only this experiment")
	f.StringVarP(&outFile, "output", "o", "", "write the script to this file (default stdout), to run with bash")
	f.StringVar(&outDir, "out", "", "the directory of the shard files and merged tables (default pwrc-NAME)")
	f.IntVar(&cpus, "cpus-per-task", 1, "CPUs per array task (pwrc run -j)")
	f.StringArrayVar(&extra, "sbatch", nil, "an sbatch option for the array and the merge job, e.g. --sbatch --time=2:00:00 or --sbatch '-p gpu' (repeatable)")
	f.StringVar(&pwrcPath, "pwrc", "", "the pwrc the script runs (default this one; $PWRC overrides it when the script runs)")
	return cmd
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}
