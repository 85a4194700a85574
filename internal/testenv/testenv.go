// Package testenv locates the shared data set (real SWF traces and price
// series) for tests and benchmarks. The data is never copied into the
// repository: tests find it through $PWRC_DATA, or ../shared/data beside the
// module root, and skip cleanly when it is absent.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// DataDir returns the shared data directory, or "" if it cannot be found.
// $PWRC_DATA wins; otherwise ../shared/data relative to the module root.
func DataDir() string {
	if d := os.Getenv("PWRC_DATA"); d != "" {
		if isDir(d) {
			return d
		}
		return ""
	}
	root := ModuleRoot()
	if root == "" {
		return ""
	}
	d := filepath.Join(root, "..", "shared", "data")
	if isDir(d) {
		return d
	}
	return ""
}

// ModuleRoot returns the directory holding go.mod, searching upwards from the
// working directory, or "" if there is none.
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Data returns the path of name inside the shared data directory, skipping
// the test when the directory or the file is absent. In CI (CI=true) a missing
// data directory fails the test instead: CI promises the data is there.
func Data(tb testing.TB, name string) string {
	tb.Helper()
	d := DataDir()
	if d == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("shared data not found: set PWRC_DATA (CI must provide ../shared/data)")
		}
		tb.Skip("shared data not found (set PWRC_DATA or place it at ../shared/data)")
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s not in the shared data set", name)
	}
	return p
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Long reports whether the long tests run at their full scale: with
// PWRC_LONG=1 (.ci/run sets it). Without it, tests that replay whole real
// traces many times, or queues of tens of thousands of jobs, run a smaller
// version of themselves or skip, so that `go test ./...` stays short.
func Long() bool { return os.Getenv("PWRC_LONG") == "1" }

// SkipUnlessLong skips tb unless the long tests run (see Long).
func SkipUnlessLong(tb testing.TB, why string) {
	tb.Helper()
	if !Long() {
		tb.Skipf("%s: a long test (set PWRC_LONG=1)", why)
	}
}
