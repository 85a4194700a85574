package runtime

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pwrc/pwrc/runtime/tariff"
	"github.com/pwrc/pwrc/runtime/workload"
)

// The job-field table is JobEnv: one entry per field, in its order, with
// its expr tag, its bit, and a filler of the right kind.
func TestJobFieldTable(t *testing.T) {
	typ := reflect.TypeOf(JobEnv{})
	if typ.NumField() != len(JobFieldTable) {
		t.Fatalf("JobEnv has %d fields, the table %d", typ.NumField(), len(JobFieldTable))
	}
	var all JobFields
	var named [workload.NumNameFields]bool
	for i, f := range JobFieldTable {
		sf := typ.Field(i)
		if tag := sf.Tag.Get("expr"); tag != f.Name {
			t.Errorf("field %d: JobEnv's is %q, the table's %q", i, tag, f.Name)
		}
		if f.Bit != 1<<i {
			t.Errorf("%s: bit %b, want %b", f.Name, f.Bit, 1<<i)
		}
		if (f.fromJob != nil) != f.Fixed || (f.fromRun != nil) == f.Fixed {
			t.Errorf("%s: a fixed field is filled from the trace, the others from the run", f.Name)
		}
		if f.Num == nil || (f.Int != nil) != (sf.Type.Kind() == reflect.Int) {
			t.Errorf("%s: readers do not match its type %s", f.Name, sf.Type)
		}
		if f.Doc == "" {
			t.Errorf("%s: no doc", f.Name)
		}
		if (f.Dep == DepWait) != (f.Name == "wait") || f.Dep&^(DepJob|DepWait) != 0 {
			t.Errorf("%s: dep %b", f.Name, f.Dep)
		}
		// The name fields are workload.Names', each once, under its key.
		if f.Named {
			if f.NameField >= workload.NumNameFields || named[f.NameField] || workload.NameFieldKeys[f.NameField] != f.Name || f.Int == nil {
				t.Errorf("%s: name field %d", f.Name, f.NameField)
			}
			named[f.NameField] = true
		}
		if (f.Scope == SacctOnly) != (f.Name == "account" || f.Name == "qos") || (f.Scope == NotSacct) != (f.Name == "queue") ||
			f.Scope != AllWorkloads && !f.Fixed {
			t.Errorf("%s: scope %d", f.Name, f.Scope)
		}
		all |= f.Bit
	}
	for k, ok := range named {
		if !ok {
			t.Errorf("name field %s is no job field", workload.NameFieldKeys[k])
		}
	}
	if all != AllJobFields {
		t.Errorf("AllJobFields %b, the table's %b", AllJobFields, all)
	}
}

// setJobEnv fills each field alone exactly as a full fill does, and as
// the job and the run say it should, leaving every other field as it was.
func TestSetJobEnvFillsEachField(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	jobs := randomJobs(r, 200, 32, 60)
	for i := range jobs {
		jobs[i].User, jobs[i].Group, jobs[i].Queue, jobs[i].Partition = int32(r.IntN(9)), int32(r.IntN(9)), int32(r.IntN(9)), int32(1+r.IntN(3))
		jobs[i].Account, jobs[i].QOS = int32(r.IntN(9)-1), int32(r.IntN(9)-1)
	}
	m := testMachine(32)
	pol := Policy{Name: "easy", Backfill: EASY, Contiguous: 4}
	pw := make([]float64, len(jobs))
	for i := range pw {
		pw[i] = 100 + r.Float64()*200
	}
	s, err := simulate(jobs, &m, 32, &pol, pw, math.Inf(1), tariff.Clock{}, tariff.Flat(0.1))
	if err != nil {
		t.Fatal(err)
	}
	s.now = 1e6
	for j := range int32(len(jobs)) {
		jb := &jobs[j]
		want := JobEnv{ID: int(jb.ID), User: int(jb.User), Group: int(jb.Group), Queue: int(jb.Queue), Partition: int(jb.Partition),
			Account: int(jb.Account), QOS: int(jb.QOS),
			Submit: jb.Submit, Wait: s.now - jb.Submit, Nodes: jb.Nodes, Procs: jb.Procs, Runtime: jb.Runtime, Walltime: jb.Walltime,
			Estimate: s.est[j], Power: s.jw[j], PowerPerNode: s.pw[j], Alloc: int(s.alloc[j])}
		s.env.Job = JobEnv{}
		s.setJobEnv(j, AllJobFields)
		if s.env.Job != want {
			t.Fatalf("job %d: full fill %+v, want %+v", jb.ID, s.env.Job, want)
		}
		wv := reflect.ValueOf(want)
		for i, f := range JobFieldTable {
			junk := JobEnv{ID: -7, User: -7, Group: -7, Queue: -7, Partition: -7, Account: -7, QOS: -7, Submit: -7, Wait: -7, Nodes: -7, Procs: -7,
				Runtime: -7, Walltime: -7, Estimate: -7, Power: -7, PowerPerNode: -7, Alloc: -7}
			s.env.Job = junk
			s.setJobEnv(j, f.Bit)
			got, jv := reflect.ValueOf(s.env.Job), reflect.ValueOf(junk)
			for k := range got.NumField() {
				exp := jv.Field(k)
				if k == i {
					exp = wv.Field(k)
				}
				if got.Field(k).Interface() != exp.Interface() {
					t.Fatalf("job %d, %s alone: field %s is %v, want %v", jb.ID, f.Name, JobFieldTable[k].Name, got.Field(k), exp)
				}
			}
		}
		// fillJob fills the fixed fields as setJobEnv does.
		var e JobEnv
		fillJob(&e, jb)
		s.env.Job = JobEnv{}
		s.setJobEnv(j, FixedJobFields)
		if e != s.env.Job {
			t.Fatalf("job %d: fillJob %+v, setJobEnv %+v", jb.ID, e, s.env.Job)
		}
	}
}
