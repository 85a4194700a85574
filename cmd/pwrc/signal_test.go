//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// TestMain lets the test binary act as pwrc itself: PWRC_TEST_MAIN=pwrc
// for the real one (scripts run it), PWRC_TEST_MAIN=1 with a simulation
// that announces itself on stderr and never ends, so that tests can send
// it real signals.
func TestMain(m *testing.M) {
	if os.Getenv("PWRC_TEST_MAIN") == "pwrc" {
		main()
	}
	if os.Getenv("PWRC_TEST_MAIN") == "1" {
		mainWith(hooks{execute: func(context.Context, *pwrt.Plan, pwrt.Options) []*pwrt.Result {
			fmt.Fprintln(os.Stderr, "simulating")
			select {}
		}})
	}
	os.Exit(m.Run())
}

// TestSignals: SIGINT and SIGTERM stop `pwrc run` during a simulation that
// does not stop by itself, with exit 130 and nothing on stdout.
func TestSignals(t *testing.T) {
	scen := writeScenario(t, "sweep.pwr", sweepScenario)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "run", scen)
			cmd.Env = append(os.Environ(), "PWRC_TEST_MAIN=1")
			var out strings.Builder
			cmd.Stdout = &out
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			for sc.Scan() && sc.Text() != "simulating" {
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var rest strings.Builder
			for sc.Scan() {
				rest.WriteString(sc.Text() + "\n")
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 || out.Len() > 0 || !strings.Contains(rest.String(), "interrupted") {
				t.Errorf("after %v: %v, stdout %q, stderr %q; want exit 130", sig, err, out.String(), rest.String())
			}
		})
	}
}
