package main

import (
	"bytes"
	"fmt"
	"io"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// --series files of Lawson & Smirni's figures: <run>.weeks.csv for every
// run (their Figs. 3–5 and 7), <run>.active.csv for runs with a capacity
// controller (Fig. 6).

// writeWeeksCSV writes one row per week from the first submission: jobs
// that completed in it, their mean Lawson slowdown and the share above
// the SLA, utilization of the active nodes and of all nodes (node time
// allocated inside the week), and the mean active nodes.
func writeWeeksCSV(w io.Writer, m *pwrt.Metrics) {
	fmt.Fprintf(w, "week,seconds,jobs_completed,bsld_lawson_mean,sla_violation_share,utilization_active,utilization_all,active_mean\n")
	for _, k := range m.Weeks {
		fmt.Fprintf(w, "%d,%s,%d,%s,%s,%s,%s,%s\n", k.Week, csvFloat(k.Seconds), k.JobsCompleted, csvFloat(k.BsldLawson),
			csvFloat(k.SLAShare), csvFloat(k.UtilActive), csvFloat(k.UtilAll), csvFloat(k.ActiveMean))
	}
}

// writeActiveCSV writes the active count from the first submission and at
// every change (trace seconds); a row lasts until the next, and no two
// rows have the same time (a change at the first submission is its row).
func writeActiveCSV(w io.Writer, m *pwrt.Metrics) {
	fmt.Fprintln(w, "seconds,active")
	a := m.Active
	if a == nil {
		return
	}
	t, n := m.AccountFrom, a.Initial
	for _, c := range a.Timeline {
		if c.T != t {
			fmt.Fprintf(w, "%s,%d\n", csvFloat(t), n)
		}
		t, n = c.T, c.Active
	}
	fmt.Fprintf(w, "%s,%d\n", csvFloat(t), n)
}

// lawsonFiles are the --series files of run r.
func lawsonFiles(r *pwrt.Result) []runFile {
	out := []runFile{{r.Run.Name + ".weeks.csv", r.Run.Name, "weeks", func(b *bytes.Buffer) { writeWeeksCSV(b, &r.Metrics) }}}
	if r.Metrics.Active != nil {
		out = append(out, runFile{r.Run.Name + ".active.csv", r.Run.Name, "active", func(b *bytes.Buffer) { writeActiveCSV(b, &r.Metrics) }})
	}
	return out
}

// lawsonNames are the names lawsonFiles gives run r.
func lawsonNames(r *pwrt.Run) []string {
	out := []string{r.Name + ".weeks.csv"}
	if r.Policy.Active != nil {
		out = append(out, r.Name+".active.csv")
	}
	return out
}
