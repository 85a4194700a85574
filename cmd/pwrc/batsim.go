package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"strings"

	pwrt "github.com/pwrc/pwrc/runtime"
)

// Batsim's output files, written by --jobs DIR --jobs-format batsim with
// the run's name as Batsim's export prefix: <run>_jobs.csv,
// <run>_machine_states.csv and <run>_schedule.csv, so that evalys
// (JobSet.from_csv, MachineStatesChanges) and scripts written for Batsim
// read pwrc's runs. The columns and their meanings are those of Batsim's
// documentation (docs/output-jobs.rst, docs/output-machines.rst and, for
// Batsim 4's _schedule.csv, docs/output-schedule.rst in
// github.com/oar-team/batsim; resources as interval sets,
// docs/interval-set.rst).

// The files' names after the run's name.
const (
	batsimJobsSuffix     = "_jobs.csv"
	batsimMachineSuffix  = "_machine_states.csv"
	batsimScheduleSuffix = "_schedule.csv"
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

// batsimJob is what Batsim's files say of one job, derived once for the
// jobs file and the schedule's aggregates. A job that ran for at least the
// time it requested — at its pstate, where both stretch alike — reached
// its walltime (the trace's run time was capped there, or it was exactly
// that long): in Batsim it is killed, COMPLETED_WALLTIME_REACHED with
// success 0; a job a powercap killed is COMPLETED_KILLED with success 0;
// every other job is COMPLETED_SUCCESSFULLY with success 1 (pwrc rejects
// no job: one that can never start fails the run).
type batsimJob struct {
	exec, wait, turnaround, stretch, energy float64
	success, killed                         bool
}

func batsimJobOf(j *pwrt.JobRecord) batsimJob {
	exec := j.End - j.Start
	return batsimJob{exec: exec, wait: j.Start - j.Submit, turnaround: j.End - j.Submit, stretch: (j.End - j.Submit) / exec,
		energy: j.Power * exec, success: exec < j.Walltime && !j.Killed, killed: j.Killed}
}

// writeBatsimJobs writes a run's jobs in Batsim's jobs.csv layout.
func writeBatsimJobs(b *bytes.Buffer, workload string, jobs []pwrt.JobRecord) {
	w := csv.NewWriter(b)
	_ = w.Write(batsimJobsColumns)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	row := make([]string, len(batsimJobsColumns))
	for i := range jobs {
		j := &jobs[i]
		bj := batsimJobOf(j)
		success, state := "1", "COMPLETED_SUCCESSFULLY"
		switch {
		case bj.killed:
			success, state = "0", "COMPLETED_KILLED"
		case !bj.success:
			success, state = "0", "COMPLETED_WALLTIME_REACHED"
		}
		row = append(row[:0], strconv.FormatInt(j.ID, 10), workload, batsimProfile, f(j.Submit), strconv.Itoa(j.Nodes),
			f(j.Walltime), success, state, f(j.Start), f(bj.exec), f(j.End), f(bj.wait), f(bj.turnaround),
			f(bj.stretch), f(bj.energy), batsimResources(j.NodeList), "")
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

// batsimScheduleColumns are the columns of Batsim 4's _schedule.csv, in
// its order (its fields' names sorted: Batsim writes them from a map).
var batsimScheduleColumns = []string{"batsim_version", "consumed_joules", "makespan", "max_slowdown", "max_turnaround_time",
	"max_waiting_time", "mean_slowdown", "mean_turnaround_time", "mean_waiting_time", "nb_computing_machines",
	"nb_grouped_switches", "nb_jobs", "nb_jobs_finished", "nb_jobs_killed", "nb_jobs_rejected", "nb_jobs_success",
	"nb_machine_switches", "scheduling_time", "simulation_time", "success_rate", "time_computing", "time_idle",
	"time_sleeping", "time_switching_off", "time_switching_on", "time_unavailable"}

// batsimNodePower are the components of a states file that are the
// nodes' own power (Batsim's machines): not levels, not infrastructure.
var batsimNodePower = []string{"power_busy_w", "power_idle_w", "power_off_w", "power_boot_w", "power_shutdown_w"}

// writeBatsimSchedule writes a run's aggregates in the layout of Batsim
// 4's _schedule.csv: a header and one row. The job figures are those of
// the jobs file (batsimJobOf); the energy and the times in each state are
// the machine-state series integrated from the first submission to the
// last finish, as Batsim takes consumed_joules. pwrc leaves empty what it
// cannot give honestly: nb_grouped_switches and nb_machine_switches (it
// counts nodes per state, not each node's switches) and scheduling_time
// and simulation_time (wall-clock times would make its files differ from
// one computer to the next). batsim_version says "pwrc VERSION".
func writeBatsimSchedule(b *bytes.Buffer, r *pwrt.Result) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	v := map[string]string{"batsim_version": "pwrc " + version, "nb_computing_machines": strconv.Itoa(r.Metrics.Nodes),
		"nb_jobs_rejected": "0", "time_unavailable": "0"}
	var n, success int
	var sumWait, sumTurn, sumSlow, maxWait, maxTurn, maxSlow float64
	first, last := math.Inf(1), math.Inf(-1)
	for i := range r.Jobs {
		j := &r.Jobs[i]
		bj := batsimJobOf(j)
		n++
		if bj.success {
			success++
		}
		sumWait, sumTurn, sumSlow = sumWait+bj.wait, sumTurn+bj.turnaround, sumSlow+bj.stretch
		maxWait, maxTurn, maxSlow = math.Max(maxWait, bj.wait), math.Max(maxTurn, bj.turnaround), math.Max(maxSlow, bj.stretch)
		first, last = math.Min(first, j.Submit), math.Max(last, j.End)
	}
	v["nb_jobs"], v["nb_jobs_finished"] = strconv.Itoa(n), strconv.Itoa(n)
	v["nb_jobs_success"], v["nb_jobs_killed"] = strconv.Itoa(success), strconv.Itoa(n-success)
	if n > 0 {
		v["makespan"] = f(last)
		v["mean_waiting_time"], v["mean_turnaround_time"], v["mean_slowdown"] = f(sumWait/float64(n)), f(sumTurn/float64(n)), f(sumSlow/float64(n))
		v["max_waiting_time"], v["max_turnaround_time"], v["max_slowdown"] = f(maxWait), f(maxTurn), f(maxSlow)
		v["success_rate"] = f(float64(success) / float64(n))
	}
	if ss := r.States; ss != nil && n > 0 {
		var power []int
		for _, c := range batsimNodePower {
			if k := slices.Index(ss.Columns, c); k >= 0 {
				power = append(power, k)
			}
		}
		v["consumed_joules"] = f(integrate(ss, first, last, func(row []float64) float64 {
			var p float64
			for _, k := range power {
				p += row[k]
			}
			return p
		}))
		if m, ok := newBatsimStates(ss.Columns); ok {
			for k, name := range []string{"time_sleeping", "time_switching_on", "time_switching_off", "time_idle", "time_computing"} {
				v[name] = f(integrate(ss, first, last, func(row []float64) float64 { return m.of(row)[k] }))
			}
		}
	}
	row := make([]string, len(batsimScheduleColumns))
	for i, c := range batsimScheduleColumns {
		row[i] = v[c]
	}
	w := csv.NewWriter(b)
	_ = w.Write(batsimScheduleColumns)
	_ = w.Write(row)
	w.Flush()
}

// integrate is the integral of f(row) over [from, to] of a state series
// (a row lasts until the next; the last until to).
func integrate(ss *pwrt.StateSeries, from, to float64, f func(row []float64) float64) float64 {
	w := len(ss.Columns)
	var sum float64
	for i, t := range ss.Times {
		end := to
		if i+1 < len(ss.Times) {
			end = math.Min(end, ss.Times[i+1])
		}
		if start := math.Max(from, t); end > start {
			sum += f(ss.Values[i*w:(i+1)*w]) * (end - start)
		}
	}
	return sum
}
