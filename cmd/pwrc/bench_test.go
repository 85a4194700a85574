package main

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/pwrc/pwrc/internal/testenv"
)

// BenchmarkRun measures whole `pwrc run` invocations in-process: compile,
// read and clean the trace, simulate, render the table.
//
//	go test -bench Run -benchtime 5x ./cmd/pwrc
func BenchmarkRun(b *testing.B) {
	cases := []struct{ name, file, trace, policy string }{
		{"HPC2N/easy", "../../examples/replay.pwr", "HPC2N-2002-2.1-cln.swf.gz", "easy"},
		{"HPC2N/wait_ratio_priority", "../../scripts/bench/priority.pwr", "HPC2N-2002-2.1-cln.swf.gz", "wait_ratio"},
		{"SDSC-BLUE/easy", "../../examples/replay.pwr", "SDSC-BLUE-2000-4.2-cln.swf.gz", "easy"},
		{"CEA-Curie/easy", "../../examples/replay.pwr", "CEA-Curie-2011-2.1-cln.swf.gz", "easy"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			trace := testenv.Data(b, filepath.Join("traces", c.trace))
			args := []string{"run", c.file, "--set", "trace=" + trace, "--set", "policy=" + c.policy, "-j", "1"}
			for b.Loop() {
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
