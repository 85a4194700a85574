// Command pwrc compiles and runs .pwr power-aware scheduling scenarios.
//
//	pwrc check FILE...        lint scenarios
//	pwrc run FILE             simulate every run and print comparison tables
//	pwrc plan FILE            list the runs a scenario expands to
//	pwrc report DIR           the HTML report of runs saved in DIR
//	pwrc plot RUN_FILE...     one figure of saved runs, as SVG or PNG
//	pwrc metrics              the metrics a report can show
//	pwrc merge SHARD...       join the shard files of a sweep into its tables
//	pwrc slurm FILE           an sbatch job array that runs a sweep in shards
//	pwrc version              (or pwrc --version)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1   // scenario errors, a failed run, output that could not be written
	exitUsage       = 2   // bad command line: flags, arguments, output paths
	exitInterrupted = 130 // SIGINT or SIGTERM (128 + SIGINT, as shells report Ctrl-C)
)

// exitError ends a command with an exit code; err, if not nil, is printed
// as "pwrc: err" (nil when the command already said what went wrong).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit %d", e.code)
}

func (e exitError) Unwrap() error { return e.err }

// usageErrorf is a usage error (exit 2).
func usageErrorf(format string, a ...any) error {
	return exitError{exitUsage, fmt.Errorf(format, a...)}
}

// hooks are what a test replaces in one invocation of the CLI, carried by
// its context (package variables that tests flip would keep tests from
// running in parallel): how the plan is simulated, and a call after each
// file written into a --jobs or --series directory, and where pwrc's
// binary is (for pwrc slurm).
type hooks struct {
	execute    func(context.Context, *pwrt.Plan, pwrt.Options) []*pwrt.Result
	wrote      func(path string)
	executable func() (string, error) // this pwrc's path
}

type hooksKey struct{}

// withHooks is ctx carrying h.
func withHooks(ctx context.Context, h hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooksOf is the hooks ctx carries; by default, the runtime's Execute.
func hooksOf(ctx context.Context) hooks {
	h, _ := ctx.Value(hooksKey{}).(hooks)
	if h.execute == nil {
		h.execute = pwrt.Execute
	}
	if h.executable == nil {
		h.executable = os.Executable
	}
	return h
}

// errInterrupted ends a command stopped by SIGINT or SIGTERM.
var errInterrupted = exitError{exitInterrupted, errors.New("interrupted")}

// gcPercent is the garbage collector's target unless GOGC is set. A run's
// live heap is its traces and per-run arrays and it allocates little per
// event, so collecting at +50 % rather than Go's +100 % costs next to no
// CPU and keeps parallel sweeps' peak RSS down (examples/zhou_trace.pwr
// with -j 2 on SDSC-BLUE: 131–142 MB → 104–114 MB, the same wall time).
const gcPercent = 50

func main() { mainWith(hooks{}) }

// mainWith is main with the given hooks (the test binary's PWRC_TEST_MAIN
// runs use them).
func mainWith(h hooks) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	// The first SIGINT or SIGTERM cancels ctx, which stops the command
	// (exit 130); the handler is then removed, so a second one kills
	// pwrc at once whatever it is doing.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := runContext(withHooks(ctx, h), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the CLI; it is separate from main so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext executes the CLI until ctx is cancelled (by a signal in main).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runIn(ctx, args, os.Stdin, stdout, stderr)
}

// runIn executes the CLI with stdin as the standard input (`run -`).
// Errors of pwrc's commands are exitErrors; any other error comes from the
// command-line parser and is a usage error.
func runIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetIn(stdin)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && ctx.Err() != nil { // a command that does not watch ctx finished: still no success
		err = errInterrupted
	}
	var ee exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "pwrc: %v\n", ee.err)
		}
		return ee.code
	default:
		fmt.Fprintf(stderr, "pwrc: %v\n", err)
		fmt.Fprintln(stderr, "Run 'pwrc --help' for usage.")
		return exitUsage
	}
}

// command wraps a command's function so that every error it returns is
// an exitError: errors it does not classify are failures (exit 1).
func command(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := f(cmd, args)
		var ee exitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return exitError{exitFailure, err}
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
	root.Version = version // pwrc --version, as pwrc version
	root.SetVersionTemplate("pwrc {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(checkCmd(stdout, stderr), runCmd(stdout, stderr), planCmd(stdout, stderr), versionCmd(stdout))
	root.AddCommand(fmtCmd(stdout, stderr))
	root.AddCommand(reportCmd(stdout, stderr), plotCmd(stdout, stderr))
	root.AddCommand(metricsCmd(stdout), mergeCmd(stdout, stderr), slurmCmd(stdout, stderr))
	return root
}

// badValue is pflag's error for a value that does not parse, which quotes
// Go's own parse error after its own prefix.
var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: strconv\.Parse(Int|Uint|Float|Bool): parsing ".*": (invalid syntax|value out of range)$`)

// flagError is a usage error for a flag the command line got wrong, in
// pwrc's words rather than Go's.
func flagError(err error) error {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := map[string]string{"Int": "a whole number", "Uint": "a whole number, 0 or more", "Float": "a number", "Bool": "true or false"}[m[3]]
	if m[4] == "value out of range" {
		want += " in range"
	}
	return fmt.Errorf("%s %s: give %s", strings.ReplaceAll(m[2], ", ", " (")+strings.Repeat(")", strings.Count(m[2], ", ")), m[1], want)
}

func versionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: command(func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(stdout, "pwrc %s\n", version)
			return err
		}),
	}
}
