// Command pwrc compiles and runs .pwr power-aware scheduling scenarios.
//
//	pwrc check FILE...        lint scenarios
//	pwrc run FILE             simulate every run and print comparison tables
//	pwrc plan FILE            list the runs a scenario expands to
//	pwrc version
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// exitError carries an exit code without printing more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI; it is separate from main so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(stderr, "pwrc: %v\n", err)
		if strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "flag") ||
			strings.Contains(err.Error(), "arg") {
			fmt.Fprintln(stderr, "Run 'pwrc --help' for usage.")
		}
		return 2
	}
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "pwrc",
		Short: "Simulate what tariffs, power caps and power-aware scheduling cost and save on an HPC machine",
		Long: `pwrc compiles .pwr scenarios — machines, electricity contracts, scheduling
policies and experiments over job traces — and replays them in a discrete-event
simulator, printing energy, cost and waiting-time comparisons.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(checkCmd(stdout, stderr), runCmd(stdout, stderr), planCmd(stdout, stderr), versionCmd(stdout))
	return root
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(stdout, "pwrc %s\n", version)
			return nil
		},
	}
}
