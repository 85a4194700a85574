package main

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// Batsim's output files, written by --jobs DIR --jobs-format batsim with
// the run's name as Batsim's export prefix: <run>_jobs.csv and
// <run>_machine_states.csv, so that evalys (JobSet.from_csv,
// MachineStatesChanges) and scripts written for Batsim read pwrc's runs.
// The columns and their meanings are those of Batsim's documentation
// (docs/output-jobs.rst and docs/output-machines.rst in
// github.com/oar-team/batsim; resources as interval sets, docs/interval-set.rst).

// The files' names after the run's name.
const (
	batsimJobsSuffix    = "_jobs.csv"
	batsimMachineSuffix = "_machine_states.csv"
)

// batsimJobsColumns are the columns of Batsim's jobs.csv, in its order.
var batsimJobsColumns = []string{"job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
	"requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time", "waiting_time",
	"turnaround_time", "stretch", "consumed_energy", "allocated_resources", "metadata"}

// batsimMachineColumns are the columns of Batsim's machine_states.csv.
var batsimMachineColumns = []string{"time", "nb_sleeping", "nb_switching_on", "nb_switching_off", "nb_idle", "nb_computing"}

// batsimProfile is the profile every job gets: pwrc replays each job as a
// fixed duration (its run time, stretched at a lower pstate), as Batsim's
// delay profiles do.
const batsimProfile = "delay"

// batsimResources writes a node list ("0-15,32") as Batsim's interval set
// ("0-15 32": closed intervals, ascending, separated by spaces).
func batsimResources(nodeList string) string { return strings.ReplaceAll(nodeList, ",", " ") }

// writeBatsimJobs writes a run's jobs in Batsim's jobs.csv layout. A job
// that ran for at least the time it requested reached its walltime (the
// trace's run time was capped there, or it was exactly that long): in
// Batsim it is killed, COMPLETED_WALLTIME_REACHED with success 0; every
// other job is COMPLETED_SUCCESSFULLY with success 1 (pwrc rejects no
// job: one that can never start fails the run).
func writeBatsimJobs(b *bytes.Buffer, workload string, jobs []pwrt.JobRecord) {
	w := csv.NewWriter(b)
	_ = w.Write(batsimJobsColumns)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	row := make([]string, len(batsimJobsColumns))
	for _, j := range jobs {
		exec := j.End - j.Start
		success, state := "1", "COMPLETED_SUCCESSFULLY"
		if exec >= j.Walltime {
			success, state = "0", "COMPLETED_WALLTIME_REACHED"
		}
		row = append(row[:0], strconv.FormatInt(j.ID, 10), workload, batsimProfile, f(j.Submit), strconv.Itoa(j.Nodes),
			f(j.Walltime), success, state, f(j.Start), f(exec), f(j.End), f(j.Start-j.Submit), f(j.End-j.Submit),
			f((j.End-j.Submit)/exec), f(j.Power*exec), batsimResources(j.NodeList), "")
		_ = w.Write(row)
	}
	w.Flush()
}

// batsimStates maps a machine-state row to Batsim's host states:
// sleeping (off), switching on (booting), switching off (shutting down),
// idle (idle, and reserved: on, without a job yet, held for one whose
// other nodes boot) and computing (busy).
type batsimStates struct{ off, booting, shutting, idle, reserved, busy int }

func newBatsimStates(cols []string) (batsimStates, bool) {
	at := func(name string) int { return slices.Index(cols, name) }
	s := batsimStates{at("off"), at("booting"), at("shutting_down"), at("idle"), at("reserved"), at("busy")}
	ok := s.off >= 0 && s.booting >= 0 && s.shutting >= 0 && s.idle >= 0 && s.reserved >= 0 && s.busy >= 0
	return s, ok
}

func (s batsimStates) of(row []float64) [5]float64 {
	return [5]float64{row[s.off], row[s.booting], row[s.shutting], row[s.idle] + row[s.reserved], row[s.busy]}
}

// writeBatsimMachineStates writes a run's machine states in Batsim's
// machine_states.csv layout: a row at each instant Batsim's counts
// changed (pwrc's series also changes with power alone), times on the
// trace's clock as in the jobs file.
func writeBatsimMachineStates(b *bytes.Buffer, ss *pwrt.StateSeries) {
	b.WriteString(strings.Join(batsimMachineColumns, ",") + "\n")
	m, ok := newBatsimStates(ss.Columns)
	if !ok {
		return
	}
	w := len(ss.Columns)
	var last [5]float64
	for i, t := range ss.Times {
		c := m.of(ss.Values[i*w : (i+1)*w])
		if i > 0 && c == last {
			continue
		}
		last = c
		b.WriteString(strconv.FormatFloat(t, 'f', -1, 64))
		for _, v := range c {
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
		b.WriteByte('\n')
	}
}
