package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
	"github.com/pwrc/pwrc/runtime/workload"
)

// resultsName is the file of a saved run directory that holds the runs'
// metrics: the output of `pwrc run --format json -o DIR/results.json`.
const resultsName = "results.json"

// saved is a saved run directory read back: the runs as results (metrics
// from results.json, machine states, hours and jobs from the --series and
// --jobs files), and the plan they came from.
//
// A saved run directory is written by
//
//	pwrc run S.pwr --format json -o DIR/results.json --series DIR --jobs DIR
//
// and holds MANIFEST.json (the scenario, --set values and runs),
// results.json, and per run <run>.states.csv, <run>.hours.csv and
// <run>.csv. When the scenario the manifest names still compiles to the
// same inputs (its inputs_sha256), the plan is compiled again: the tables
// get the experiment's columns and the power plots the contract's price.
// Otherwise the runs are laid out from the manifest and results.json
// alone, with the default columns and without prices.
type saved struct {
	dir     string
	plan    *pwrt.Plan
	results []*pwrt.Result
	notes   []string
	missing string    // why the plan is not the scenario's, compiled again ("" if it is)
	man     *manifest // the directory's manifest, nil without one
	title   string    // the scenario, if the manifest names it, else the directory
	// compiled: the plan is the scenario's, compiled again (it knows the
	// contracts); else it is laid out from the saved runs.
	compiled bool
}

// loadSaved reads a saved run directory; needResults says whether
// results.json must be there (a report's tables need it, a plot does not).
func loadSaved(dir string, needResults bool) (*saved, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, usageErrorf("%s: %v", dir, bare(err))
	}
	if !fi.IsDir() {
		return nil, usageErrorf("%s: not a directory (give the directory of --series, --jobs and results.json)", dir)
	}
	s := &saved{dir: dir, title: dir}
	var man *manifest
	if data, err := os.ReadFile(filepath.Join(dir, manifestName)); err == nil {
		man = &manifest{}
		if err := json.Unmarshal(data, man); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, manifestName), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, manifestName), bare(err))
	}
	var runs []jsonRun
	if data, err := os.ReadFile(filepath.Join(dir, resultsName)); err == nil {
		if err := json.Unmarshal(data, &runs); err != nil {
			return nil, fmt.Errorf("%s: %v (write it with pwrc run --format json -o %s)", filepath.Join(dir, resultsName), err, filepath.Join(dir, resultsName))
		}
	} else if !errors.Is(err, fs.ErrNotExist) || needResults {
		return nil, fmt.Errorf("%s: %v (write it with pwrc run FILE --format json -o %s --series %s --jobs %s)",
			filepath.Join(dir, resultsName), bare(err), filepath.Join(dir, resultsName), dir, dir)
	}
	if man == nil && runs == nil {
		return nil, fmt.Errorf("%s: neither %s nor %s: not a directory pwrc run wrote", dir, manifestName, resultsName)
	}
	s.man = man
	if man != nil && man.Scenario != "" {
		s.title = man.Scenario
		s.plan, s.missing = recompile(dir, man)
		s.compiled = s.plan != nil
	} else {
		s.missing = "no scenario is named in " + manifestName
	}
	if s.missing != "" {
		s.notes = append(s.notes, capitalize(s.missing)+": the tables have the default columns and the plots no price.")
	}
	if runs == nil { // no metrics: the runs the manifest lists
		for _, r := range man.Runs {
			runs = append(runs, jsonRun{Experiment: r.Experiment, Run: r.Name, Params: r.Params, Error: r.Error})
		}
	}
	if s.plan == nil {
		s.plan = planFromRuns(runs)
	}
	byName := map[string]*pwrt.Run{}
	for _, r := range s.plan.Runs {
		byName[r.Name] = r
	}
	s.results = make([]*pwrt.Result, len(s.plan.Runs))
	headers := map[string]*workload.Trace{}
	for _, jr := range runs {
		run := byName[jr.Run]
		if run == nil {
			continue
		}
		r, err := s.readRun(run, jr, headers)
		if err != nil {
			return nil, err
		}
		s.results[run.Index] = r
	}
	for i, r := range s.results {
		if r == nil {
			s.results[i] = &pwrt.Result{Run: s.plan.Runs[i], Err: fmt.Errorf("not in %s", resultsName)}
		}
	}
	return s, nil
}

// recompile compiles the scenario a manifest in dir names, with its --set
// values and --experiment, if it still has the same inputs. The scenario
// and the --set values' paths are taken from the directory the run ran in
// (the manifest's workdir), wherever pwrc runs now; the plan's data files
// are then named from here. Otherwise it says why not.
func recompile(dir string, m *manifest) (*pwrt.Plan, string) {
	if m.Scenario == stdinName {
		return nil, "the scenario was read from the standard input, so it cannot be compiled again"
	}
	wd := m.workdir(dir)
	scenario := at(wd, m.Scenario)
	if _, err := os.Stat(scenario); err != nil {
		return nil, fmt.Sprintf("scenario %s not found (%v)", m.Scenario, bare(err))
	}
	var sets []compiler.Set
	for _, s := range m.Sets {
		name, value, _ := strings.Cut(s, "=")
		sets = append(sets, compiler.Set{Name: strings.TrimSpace(name), Value: value})
	}
	opts := compiler.Options{Sets: sets, Experiment: m.Experiment}
	if wd != "" {
		opts.ReadFile = func(p string) ([]byte, error) { return os.ReadFile(at(wd, p)) }
		opts.OpenData = func(p string) (io.ReadCloser, error) { return os.Open(at(wd, p)) }
	}
	res := compiler.Compile(m.Scenario, opts)
	if res.Diags.HasErrors() || res.Plan == nil {
		return nil, fmt.Sprintf("scenario %s no longer compiles", m.Scenario)
	}
	if inputsHash(res, m.Sets, m.Experiment) != m.Inputs {
		return nil, fmt.Sprintf("scenario %s changed since these runs (its inputs_sha256 differs)", m.Scenario)
	}
	for _, r := range res.Plan.Runs { // the data files, from here
		r.Workload.Path = at(wd, r.Workload.Path)
		r.Contract.Prices = at(wd, r.Contract.Prices)
		r.Contract.CarbonSeries = at(wd, r.Contract.CarbonSeries)
	}
	return res.Plan, ""
}

// inputs are the files a saved directory holds that the command read:
// the manifest, results.json and the files the manifest lists, and the
// scenario's data files when it was compiled again.
func (s *saved) inputs() inputs {
	var in inputs
	in.add(filepath.Join(s.dir, manifestName), "the saved runs' "+manifestName)
	in.add(filepath.Join(s.dir, resultsName), "the saved runs' "+resultsName)
	if s.man != nil {
		for _, f := range s.man.Files {
			in.add(filepath.Join(s.dir, f.Name), "the saved file "+filepath.Join(s.dir, f.Name))
		}
	}
	if s.plan != nil && s.compiled {
		in = append(in, planInputs(nil, s.plan)...)
	}
	return in
}

// planFromRuns lays runs out without their scenario: one experiment per
// name, in order, the default columns, dimensions from the params.
func planFromRuns(runs []jsonRun) *pwrt.Plan {
	p := &pwrt.Plan{}
	exps := map[string]*pwrt.Experiment{}
	for _, jr := range runs {
		e := exps[jr.Experiment]
		if e == nil {
			e = &pwrt.Experiment{Name: jr.Experiment, Report: compiler.DefaultReport}
			exps[jr.Experiment] = e
			p.Experiments = append(p.Experiments, e)
		}
		r := &pwrt.Run{Index: len(p.Runs), Name: jr.Run, Experiment: jr.Experiment, Baseline: -1}
		var names []string
		for k := range jr.Params {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			r.Params = append(r.Params, pwrt.Param{Name: k, Value: jr.Params[k]})
			if !slices.Contains(e.Dims, k) {
				e.Dims = append(e.Dims, k)
			}
		}
		e.Runs = append(e.Runs, r.Index)
		p.Runs = append(p.Runs, r)
	}
	return p
}

// readRun reads one run's metrics and files.
func (s *saved) readRun(run *pwrt.Run, jr jsonRun, headers map[string]*workload.Trace) (*pwrt.Result, error) {
	r := &pwrt.Result{Run: run, Notes: jr.Notes}
	if jr.Error != "" {
		r.Err = errors.New(jr.Error)
		return r, nil
	}
	path := func(suffix string) string { return filepath.Join(s.dir, run.Name+suffix) }
	if f, err := os.Open(path(".states.csv")); err == nil {
		r.States, err = readStatesCSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path(".states.csv"), err)
		}
	}
	r.Workload = workloadFromMap(jr.Workload)
	for _, suffix := range []string{".csv", batsimJobsSuffix} { // pwrc's jobs, or Batsim's
		f, err := os.Open(path(suffix))
		if err != nil {
			continue
		}
		r.Jobs, err = readJobsCSV(f, r.Workload.Names)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path(suffix), err)
		}
		break
	}
	r.Metrics = metricsFromMap(jr.Metrics, r.States)
	r.Workload.Path = run.Workload.Path
	if run.Workload.Path == "" && run.Workload.Name == "" && r.Workload.Name != "synthetic" {
		r.Workload.Path = r.Workload.Name // a run laid out from results.json alone: a trace, by its name
	}
	if r.Metrics.Nodes == 0 && r.States != nil && len(r.States.Times) > 0 {
		for _, c := range []string{"idle", "reserved", "off", "booting", "shutting_down", "busy"} {
			if k := slices.Index(r.States.Columns, c); k >= 0 {
				r.Metrics.Nodes += int(r.States.Values[k])
			}
		}
	}
	if r.Metrics.AccountTo == 0 && r.States != nil && len(r.States.Times) > 0 {
		r.Metrics.AccountFrom, r.Metrics.AccountTo = r.States.Times[0], r.States.Times[len(r.States.Times)-1]
	}
	if f, err := os.Open(path(".hours.csv")); err == nil {
		err = readHoursCSV(f, &r.Metrics)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path(".hours.csv"), err)
		}
	}
	// The trace's clock (start time and zone) is in its header: the price
	// of a base/peak or hourly contract and the dates on the axes need it.
	if run.Workload.Kind == pwrt.SWF && run.Workload.Path != "" {
		tr, ok := headers[run.Workload.Path]
		if !ok {
			tr, _ = workload.OpenSWF(run.Workload.Path, workload.ReadOptions{SkipBadLines: true})
			if tr != nil {
				tr.Records = nil
			}
			headers[run.Workload.Path] = tr
		}
		if tr != nil {
			r.Workload.Epoch, r.Workload.Zone = tr.Header.UnixStartTime, pwrt.TraceZone(tr.Header)
		}
	}
	return r, nil
}

// readStatesCSV reads a <run>.states.csv.
func readStatesCSV(r io.Reader) (*pwrt.StateSeries, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		return nil, errors.New("empty file")
	}
	head := strings.Split(strings.TrimSpace(sc.Text()), ",")
	if len(head) < 2 || head[0] != "time" {
		return nil, errors.New("not a states file: its header does not start with time")
	}
	ss := &pwrt.StateSeries{Columns: head[1:]}
	w := len(ss.Columns)
	line := 1
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" {
			continue
		}
		k := 0
		for f := range strings.SplitSeq(text, ",") {
			v, err := math.NaN(), error(nil)
			if f != "" || k == 0 { // empty: none (cap_w while no cap applies)
				v, err = strconv.ParseFloat(f, 64)
			}
			if err != nil || k > w {
				return nil, fmt.Errorf("line %d: %q is not a row of %d numbers", line, text, w+1)
			}
			if k == 0 {
				ss.Times = append(ss.Times, v)
			} else {
				ss.Values = append(ss.Values, v)
			}
			k++
		}
		if k != w+1 {
			return nil, fmt.Errorf("line %d: %d fields, want %d", line, k, w+1)
		}
	}
	return ss, sc.Err()
}

// batsimNames are pwrc's names of the columns of Batsim's jobs.csv that
// a report reads.
var batsimNames = map[string]string{"job_id": "id", "submission_time": "submit", "starting_time": "start",
	"finish_time": "end", "requested_number_of_resources": "nodes", "requested_time": "walltime"}

// readJobsCSV reads a --jobs file, pwrc's or Batsim's: the times, sizes
// and power of each job, and what the trace says of it: user, group,
// queue and partition numbers, or, for a run on Slurm accounting (names,
// from its JSON, not nil), the names of its user, group, account,
// partition and QOS, numbered as names numbers them (a name it lacks is
// added).
func readJobsCSV(r io.Reader, names *workload.Names) ([]pwrt.JobRecord, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
		if n, ok := batsimNames[h]; ok {
			col[n] = i
		}
	}
	for _, need := range []string{"submit", "start", "end"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("not a jobs file: no column %s", need)
		}
	}
	num := func(rec []string, name string) float64 {
		if i, ok := col[name]; ok && i < len(rec) {
			v, _ := strconv.ParseFloat(rec[i], 64)
			return v
		}
		return 0
	}
	cell := func(rec []string, name string) (string, bool) {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i], true
		}
		return "", false
	}
	// A trace's number: -1 for an empty cell or no column.
	number := func(rec []string, name string) (int, error) {
		s, _ := cell(rec, name)
		if s == "" {
			return -1, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("column %s: %q is not a number, and the run's JSON gives no names (a Slurm trace's)", name, s)
		}
		return v, nil
	}
	ids := [workload.NumNameFields]map[string]int{}
	if names != nil {
		for f := range ids {
			ids[f] = map[string]int{}
			for i, n := range names[f] {
				ids[f][n] = i + 1
			}
		}
	}
	// A Slurm trace's name's number: -1 for an empty cell or no column.
	named := func(rec []string, f workload.NameField) int {
		s, _ := cell(rec, workload.NameFieldKeys[f])
		if s == "" {
			return -1
		}
		id, ok := ids[f][s]
		if !ok {
			names[f] = append(names[f], s)
			id = len(names[f])
			ids[f][s] = id
		}
		return id
	}
	var jobs []pwrt.JobRecord
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return jobs, nil
		}
		if err != nil {
			return nil, err
		}
		j := pwrt.JobRecord{ID: int64(num(rec, "id")), Submit: num(rec, "submit"), Start: num(rec, "start"), End: num(rec, "end"),
			Nodes: int(num(rec, "nodes")), Procs: int(num(rec, "procs")), Walltime: num(rec, "walltime"), Power: num(rec, "power_w"),
			Alloc: int(num(rec, "alloc")), User: -1, Group: -1, Queue: -1, Partition: -1}
		if names != nil {
			j.User, j.Group, j.Partition = named(rec, workload.NameUser), named(rec, workload.NameGroup), named(rec, workload.NamePartition)
			j.Account, j.QOS = named(rec, workload.NameAccount), named(rec, workload.NameQOS)
		} else {
			for _, c := range []struct {
				name string
				to   *int
			}{{"user", &j.User}, {"group", &j.Group}, {"queue", &j.Queue}, {"partition", &j.Partition}} {
				if *c.to, err = number(rec, c.name); err != nil {
					return nil, fmt.Errorf("line %d: %v", line, err)
				}
			}
		}
		if _, ok := col["consumed_energy"]; ok && j.End > j.Start { // Batsim's: energy, not power
			j.Power = num(rec, "consumed_energy") / (j.End - j.Start)
		}
		jobs = append(jobs, j)
	}
}

// readHoursCSV reads a <run>.hours.csv into m.Hours.
func readHoursCSV(r io.Reader, m *pwrt.Metrics) error {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return err
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != "hour,seconds,power_w,job_power_w,utilization" {
		return errors.New("not an hours file")
	}
	for _, rec := range recs[1:] {
		var v [5]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(rec[i], 64)
		}
		h := int(v[0])
		if h < 0 || h > 23 {
			continue
		}
		m.Hours[h] = pwrt.HourStat{Seconds: v[1], Energy: v[2] * v[1], JobEnergy: v[3] * v[1], NodeSeconds: v[4] * v[1] * float64(m.Nodes)}
	}
	return nil
}

// jsonMap is a run's metrics as --format json writes them, read back.
type jsonMap map[string]any

// num is key k's number, if it has one.
func (mm jsonMap) num(k string) (float64, bool) { v, ok := mm[k].(float64); return v, ok }

// get is key k's number, 0 if it has none.
func (mm jsonMap) get(k string) float64 { v, _ := mm.num(k); return v }

// metricsFromMap reads back the metrics --format json writes; the
// components are in the order of the state series' power columns, or in
// the simulator's order.
func metricsFromMap(mm map[string]any, ss *pwrt.StateSeries) pwrt.Metrics {
	f, g := jsonMap(mm).num, jsonMap(mm).get
	m := pwrt.Metrics{
		Jobs: int(g("jobs")), Dropped: int(g("jobs_dropped")), Capped: int(g("runtimes_capped")),
		RunDays: g("run_days"), Utilization: g("utilization"), Nodes: int(g("nodes")),
		Energy: g("energy_mwh") * 3.6e9, Cost: g("cost"), PeakPower: g("power_max_kw") * 1e3,
		WaitMean: g("wait_mean_s"), WaitQ25: g("wait_q25_s"), WaitQ50: g("wait_q50_s"), WaitQ75: g("wait_q75_s"),
		WaitQ90: g("wait_q90_s"), WaitQ99: g("wait_q99_s"), WaitMax: g("wait_max_s"), BsldMean: g("bsld_mean"),
		BusyNodeHours: g("busy_node_hours"), WorkNodeHours: g("work_node_hours"),
		PowerMean: g("power_mean_kw") * 1e3, JobPowerMean: g("job_power_mean_kw") * 1e3,
		Budget: g("budget_kw") * 1e3,
	}
	m.Currency, _ = mm["currency"].(string)
	// Provenance (see provenance).
	m.SavingAgainst, _ = mm["saving_against"].(string)
	if over, ok := mm["accounted_over"].(string); ok {
		m.Windowed, m.Measured = over != "run", over == "measure"
		m.AccountFrom, m.AccountTo = g("accounted_from_s"), g("accounted_to_s")
		m.AccountFromLocal, _ = mm["accounted_from"].(string)
		m.AccountToLocal, _ = mm["accounted_to"].(string)
	}
	if v, ok := f("saving"); ok {
		m.HasSaving, m.Saving, m.SavingPct = true, v, g("saving_pct")
		m.JobSaving, m.JobSavingPct = g("job_saving"), g("job_saving_pct")
	}
	if v, ok := f("inverse_pairs"); ok {
		m.HasInversePairs, m.InversePairs = true, int64(v)
	}
	if v, ok := f("power_peak_hours_kw"); ok {
		m.HasPeak, m.PowerPeak, m.PowerOffPeak = true, v*1e3, g("power_offpeak_hours_kw")*1e3
		m.JobPowerPeak, m.JobPowerOffPeak = g("job_power_peak_hours_kw")*1e3, g("job_power_offpeak_hours_kw")*1e3
	}
	if ss != nil {
		for _, c := range ss.Columns {
			if p, ok := pwrt.PowerColumn(c); ok {
				m.Components = append(m.Components, p)
			}
		}
	}
	if m.Components == nil {
		var others []string
		for k := range mm {
			if p, ok := strings.CutPrefix(k, "energy_"); ok && strings.HasSuffix(p, "_mwh") {
				p = strings.TrimSuffix(p, "_mwh")
				switch {
				case p == "levels" || strings.HasPrefix(p, "pstate_") || strings.HasSuffix(p, "_period"):
				case slices.Contains([]string{"busy", "idle", "off", "boot", "shutdown", "infrastructure"}, p):
				default:
					others = append(others, p)
				}
			}
		}
		sort.Strings(others)
		m.Components = append(append([]string{"busy", "idle", "off", "boot", "shutdown"}, others...), "infrastructure")
	}
	for _, c := range m.Components {
		m.EnergyBy = append(m.EnergyBy, g("energy_"+c+"_mwh")*3.6e9)
		m.CostBy = append(m.CostBy, g("cost_"+c))
	}
	var periods []string
	for k := range mm {
		if p, ok := strings.CutPrefix(k, "cost_"); ok && strings.HasSuffix(p, "_period") {
			periods = append(periods, strings.TrimSuffix(p, "_period"))
		}
	}
	sort.Strings(periods)
	for _, p := range periods {
		m.Periods = append(m.Periods, pwrt.PeriodStat{Name: p, Energy: g("energy_"+p+"_period_mwh") * 3.6e9, Cost: g("cost_" + p + "_period")})
	}
	var levels []string
	for k := range mm {
		if l, ok := strings.CutPrefix(k, "levels_on_mean_"); ok {
			levels = append(levels, l)
		}
	}
	// Levels in the series' order (lowest first), else by name.
	sort.Slice(levels, func(i, j int) bool {
		a, b := -1, -1
		if ss != nil {
			a, b = slices.Index(ss.Columns, levels[i]+"_on"), slices.Index(ss.Columns, levels[j]+"_on")
		}
		if a != b {
			return a < b
		}
		return levels[i] < levels[j]
	})
	for _, l := range levels {
		st := pwrt.LevelStat{Name: l, OnMean: g("levels_on_mean_" + l), Changes: int(g("level_changes_" + l)),
			Switches: int(g("level_switches_" + l)), AllOn: g("level_all_on_"+l+"_mwh") * 3.6e9}
		if ss != nil {
			if c := slices.Index(ss.Columns, l+"_on"); c >= 0 {
				for i := range ss.Times {
					st.Instances = max(st.Instances, int(ss.Values[i*len(ss.Columns)+c]))
				}
			}
		}
		for i, c := range m.Components {
			if c == l || strings.HasPrefix(c, l+"_") {
				st.Energy += m.EnergyBy[i]
			}
		}
		st.Saving = st.AllOn - st.Energy
		m.Levels = append(m.Levels, st)
	}
	moreFromMap(mm, &m)
	return m
}

// workloadFromMap reads back what --format json says of a workload.
func workloadFromMap(w map[string]any) pwrt.WorkloadInfo {
	i := func(k string) int { v, _ := w[k].(float64); return int(v) }
	info := pwrt.WorkloadInfo{Records: i("records"), Nodes: i("nodes"), BadLines: i("bad_lines")}
	info.Name, _ = w["name"].(string)
	info.Clean = workload.CleanStats{Records: i("records"), Jobs: i("jobs"), DroppedRuntime: i("dropped_runtime"), DroppedProcs: i("dropped_procs"),
		DroppedSubmit: i("dropped_submit"), DroppedWide: i("dropped_wide"), RuntimeCapped: i("runtime_capped"),
		WalltimeFromRuntime: i("walltime_from_runtime"), ProcsFromRequested: i("procs_from_requested")}
	info.Cut = pwrt.CutStats{Keep: i("cut_keep"), Submitted: i("cut_submitted")}
	if m, ok := w["names"].(map[string]any); ok { // a Slurm trace's
		var names workload.Names
		for f, key := range workload.NameFieldKeys {
			list, _ := m[key].([]any)
			for _, v := range list {
				s, _ := v.(string)
				names[f] = append(names[f], s)
			}
		}
		info.Names = &names
	}
	return info
}
