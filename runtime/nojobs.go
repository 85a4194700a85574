package runtime

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/runtime/workload"
)

// noJobsError says why a trace gave no job to simulate: it had no records,
// or cleaning dropped every one (each rule's count), or its lines were all
// malformed and skipped. A run without jobs has no span, waits or power to
// report, so it fails with this instead of printing zeros.
func noJobsError(path string, info WorkloadInfo) error {
	name := filepath.Base(path)
	c := info.Clean
	skipped := ""
	if info.BadLines > 0 {
		skipped = fmt.Sprintf("%s skipped (bad_lines skip), the first at line %d", plural(info.BadLines, "malformed line"), info.FirstBad[0])
	}
	if info.Records == 0 && info.Sacct != nil {
		if msg := noSacctJobs(name, info.Sacct, skipped); msg != "" {
			return errors.New(msg)
		}
	}
	if info.Records == 0 {
		if skipped != "" {
			return fmt.Errorf("trace %s has no jobs to simulate: it has no valid job records, only %s", name, skipped)
		}
		return fmt.Errorf("trace %s has no jobs to simulate: it has no job records (the file is empty, or holds only its header)", name)
	}
	var why []string
	add := func(n int, what string) {
		if n > 0 {
			why = append(why, strconv.Itoa(n)+" "+what)
		}
	}
	add(c.DroppedRuntime, "with run time ≤ 0")
	add(c.DroppedProcs, "without processors")
	add(c.DroppedSubmit, "with negative submit time")
	add(c.DroppedWide, fmt.Sprintf("wider than the machine's %d nodes", info.Nodes))
	all := "all " + strconv.Itoa(info.Records) + " records were"
	if info.Records == 1 {
		all = "its only record was"
	}
	msg := fmt.Sprintf("trace %s has no jobs to simulate: %s dropped by the cleaning rules (%s)", name, all, strings.Join(why, ", "))
	if skipped != "" {
		msg += "; " + skipped
	}
	return errors.New(msg)
}

// noSacctJobs says why Slurm accounting gave no job, when it had lines:
// only steps whose job line is not in the file, or jobs that never ran to
// their end; "" if it had no lines.
func noSacctJobs(name string, st *workload.SacctStats, skipped string) string {
	var msg string
	switch {
	case st.JobLines == 0 && st.OrphanSteps > 0:
		msg = fmt.Sprintf("trace %s has no jobs to simulate: it has no job lines, only %s (such as 1234.batch) whose job line (1234) is not in the file: pwrc takes a job's submit time and size from its job line, so keep those",
			name, plural(st.OrphanSteps, "step line"))
	case st.JobLines > 0:
		var why []string
		add := func(n int, what string) {
			if n > 0 {
				why = append(why, strconv.Itoa(n)+" "+what)
			}
		}
		add(st.DroppedPending, "pending")
		add(st.DroppedPendingArray, "array tasks never started")
		add(st.DroppedNotStarted, "never started")
		add(st.DroppedUnfinished, "not finished when sacct ran")
		if len(why) == 0 {
			return ""
		}
		msg = fmt.Sprintf("trace %s has no jobs to simulate: every one of its %s was dropped when reading it (%s)",
			name, plural(st.JobLines, "job line"), strings.Join(why, ", "))
	default:
		return ""
	}
	if skipped != "" {
		msg += "; " + skipped
	}
	return msg
}

// plural is "1 thing" or "n things".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// noSyntheticJobs is the synthetic workload's counterpart; Validate keeps
// `jobs` above 0, so this only guards the engine.
func noSyntheticJobs(spec workload.Synthetic) error {
	return fmt.Errorf("synthetic workload: no jobs to simulate (jobs %d)", spec.Jobs)
}
