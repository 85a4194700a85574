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

// slurmScript is the job array `pwrc slurm` writes. It is a bash script
// submitted with sbatch: array task i runs shard i/n, and task 1 first
// submits the merge job, which waits for every task (afterany: a shard
// whose runs failed still writes its file, and merge says which failed;
// a shard that wrote nothing is named by merge as missing runs). The merge
// command is kept in one variable, run by the merge job (sbatch --wrap,
// a POSIX shell) and by `bash SCRIPT merge`; the paths it needs travel
// in the environment (--export=ALL), so no path is quoted twice.
var slurmScript = template.Must(template.New("slurm").Funcs(template.FuncMap{"q": shellQuote}).Parse(`#!/bin/bash
# A Slurm job array that runs the sweep of {{.Scenario}} in {{.Shards}} shards,
# written by pwrc {{.Version}}:
#   {{.Command}}
#
# Submit it with sbatch. Array task i runs shard i of {{.Shards}} (pwrc run --shard
# i/{{.Shards}}) into {{.Out}}/shard-i-of-{{.Shards}}.json; task 1 also submits the merge
# job, which waits for every task to end, then writes {{.Out}}/tables.txt and
# {{.Out}}/results.json with pwrc merge: what one pwrc run of the whole sweep
# prints (--format table and json). To merge again by hand:
#   bash THIS_SCRIPT merge
#SBATCH --job-name={{.Name}}
#SBATCH --array=1-{{.Shards}}
#SBATCH --cpus-per-task={{.CPUs}}
{{- range .Extra}}
#SBATCH {{.}}
{{- end}}

set -euo pipefail
cd {{q .Dir}}
export PWRC_BIN=${PWRC:-{{q .Pwrc}}}
export PWRC_OUT={{q .Out}}
export PWRC_SHARDS={{.Shards}}
merge='s=0
"$PWRC_BIN" merge "$PWRC_OUT"/shard-*-of-"$PWRC_SHARDS".json --format json -o "$PWRC_OUT/results.json" || s=$?
"$PWRC_BIN" merge "$PWRC_OUT"/shard-*-of-"$PWRC_SHARDS".json -o "$PWRC_OUT/tables.txt" || s=$?
exit "$s"'

if [ "${1:-}" = merge ]; then
	exec sh -c "$merge"
fi
task=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch (or run it with the argument merge)}
mkdir -p "$PWRC_OUT"
if [ "$task" = 1 ]; then
	sbatch --job-name={{q .MergeName}} --dependency="afterany:${SLURM_ARRAY_JOB_ID}" \
		--chdir="$PWD" --export=ALL --output="$PWRC_OUT/merge-%j.out" --wrap="$merge"
fi
exec "$PWRC_BIN" run {{q .Scenario}}{{range .Args}} {{q .}}{{end}} \
	--shard "$task/$PWRC_SHARDS" -j "${SLURM_CPUS_PER_TASK:-1}" -o "$PWRC_OUT/shard-$task-of-$PWRC_SHARDS.json"
`))

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
		Long: `slurm writes a bash script for Slurm's sbatch: a job array whose task i runs
pwrc run FILE --shard i/N (with the --set values and --experiment given here)
into OUT/shard-i-of-N.json, and whose task 1 submits a merge job that waits
for every task and writes OUT/tables.txt and OUT/results.json with pwrc
merge: byte for byte what one pwrc run of the whole sweep prints. The script
runs in the current directory (the scenario's paths are as given here) with
the pwrc that wrote it (or --pwrc), unless $PWRC names another. Submit it with
sbatch FILE.sbatch; bash FILE.sbatch merge merges by hand.`,
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
				if pwrcPath, err = os.Executable(); err != nil {
					pwrcPath = "pwrc"
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
				"Name": name, "MergeName": name + "-merge", "CPUs": cpus, "Dir": dir, "Extra": extra,
				"Pwrc": pwrcPath, "Out": outDir, "Args": runArgs,
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
	f.StringVarP(&outFile, "output", "o", "", "write the script to this file (default stdout)")
	f.StringVar(&outDir, "out", "", "the directory of the shard files and merged tables (default pwrc-NAME)")
	f.IntVar(&cpus, "cpus-per-task", 1, "CPUs per array task (pwrc run -j)")
	f.StringArrayVar(&extra, "sbatch", nil, "an extra #SBATCH option for the array, e.g. --sbatch --time=2:00:00 (repeatable)")
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
