package runtime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pwrc/pwrc/runtime/workload"
)

// Slurm accounting gives a job's user, group, account, partition and QOS
// as names. The engine keeps them as numbers (workload.Names numbers them
// in order of first appearance), so that rules, evaluated for every
// waiting job in every pass, compare no strings: a rule's comparison of a
// name field with strings (`job.user == "alice"`, `job.partition in
// ["gpu", "debug"]`, `job.account startsWith "p-"`) is a NameTest, which a
// run answers once for each name of its trace, before it simulates; the
// rule then reads the answer by the job's number.

// NameTest is a condition on one name field of a Slurm trace's jobs that
// a rule reads. The compiler makes it, gives it its slot (unique in the
// plan) and compiles the rule to read Env.Names at that slot.
type NameTest struct {
	Slot   int
	Field  workload.NameField
	Source string // as written in the scenario
	Where  string // file:line:col, for notes and errors
	// Names are the names it compares the field with: a note says which
	// ones a run's trace lacks.
	Names []string
	// Match is its answer for a job whose field holds name ("" for an
	// empty field).
	Match func(name string) (bool, error)
}

// NameSets are a run's answers to the name tests of its rules.
type NameSets struct {
	sets [][]bool // by slot; for a job numbered id, sets[slot][id+1] (an empty field, −1, at 0)
}

// Has is the answer of the name test at slot for a job whose field is
// numbered id. A rule reads it on a hot path: it allocates nothing.
func (n *NameSets) Has(slot, id int) bool {
	s := n.sets[slot]
	i := uint(id + 1)
	return i < uint(len(s)) && s[i]
}

// Rules returns every rule of the run: its workload's, its policy's.
func (r *Run) Rules() []*Expr {
	out := []*Expr{r.Workload.Keep, r.Workload.Power.Rule}
	out = append(out, r.Policy.Rules()...)
	if b := r.Policy.Budget; b != nil {
		out = append(out, b.While)
	}
	for i := range r.Policy.Powercaps {
		out = append(out, r.Policy.Powercaps[i].While)
	}
	var rules []*Expr
	for _, e := range out {
		if e != nil && !containsExpr(rules, e) {
			rules = append(rules, e)
		}
	}
	return rules
}

func containsExpr(es []*Expr, e *Expr) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// nameTestsOf returns the name tests of the run's rules, by slot, once each.
func nameTestsOf(run *Run) []*NameTest {
	var tests []*NameTest
	seen := map[*NameTest]bool{}
	for _, e := range run.Rules() {
		for _, t := range e.NameTests {
			if !seen[t] {
				seen[t] = true
				tests = append(tests, t)
			}
		}
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].Slot < tests[j].Slot })
	return tests
}

// bindNames answers the name tests of run's rules on its trace's names:
// nil when its rules have none. The notes say which names a test compares
// with that the trace lacks (so that comparison never holds), and which
// tests hold for no name of it. Answers are kept per trace in the loader,
// shared by the runs that read it.
func bindNames(run *Run, names *workload.Names, ld *loader) (*NameSets, []string, error) {
	tests := nameTestsOf(run)
	if len(tests) == 0 {
		return nil, nil, nil
	}
	if names == nil {
		// The compiler makes name tests only for Slurm accounting.
		return nil, nil, fmt.Errorf("%s: rule `%s` compares job.%s with names, but workload %s has no names", tests[0].Where, tests[0].Source,
			workload.NameFieldKeys[tests[0].Field], run.Workload.Name)
	}
	ns := &NameSets{sets: make([][]bool, tests[len(tests)-1].Slot+1)}
	var notes []string
	for _, t := range tests {
		set, err := ld.nameSet(keyOf(run), t, names)
		if err != nil {
			return nil, nil, err
		}
		ns.sets[t.Slot] = set
		notes = append(notes, nameNotes(run, t, names, set)...)
	}
	return ns, notes, nil
}

// AnswerNames answers name tests on a trace's names, as a run does before
// it simulates (bindNames, which keeps each answer per trace).
func AnswerNames(tests []*NameTest, names *workload.Names) (*NameSets, error) {
	ns := &NameSets{}
	for _, t := range tests {
		set, err := t.answer(names)
		if err != nil {
			return nil, err
		}
		for len(ns.sets) <= t.Slot {
			ns.sets = append(ns.sets, nil)
		}
		ns.sets[t.Slot] = set
	}
	return ns, nil
}

// answer evaluates t on every name of its field: the set NameSets holds.
func (t *NameTest) answer(names *workload.Names) ([]bool, error) {
	list := names[t.Field]
	set := make([]bool, len(list)+2)
	at := func(name string) (bool, error) {
		ok, err := t.Match(name)
		if err != nil {
			what := fmt.Sprintf("%s %q", workload.NameFieldKeys[t.Field], name)
			if name == "" {
				what = "a job without " + workload.NameFieldKeys[t.Field]
			}
			return false, fmt.Errorf("%s: rule `%s` failed for %s: %v", t.Where, t.Source, what, err)
		}
		return ok, nil
	}
	var err error
	if set[0], err = at(""); err != nil {
		return nil, err
	}
	for i, name := range list {
		if set[i+2], err = at(name); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// nameNotes says which of the names t compares with the trace lacks, or
// that t holds for none of the trace's names.
func nameNotes(run *Run, t *NameTest, names *workload.Names, set []bool) []string {
	field := workload.NameFieldKeys[t.Field]
	var missing []string
	for _, n := range t.Names {
		if n != "" && names.ID(t.Field, n) == 0 && !containsString(missing, n) {
			missing = append(missing, n)
		}
	}
	var notes []string
	if len(missing) > 0 {
		q := make([]string, len(missing))
		for i, n := range missing {
			q[i] = fmt.Sprintf("%q", n)
		}
		notes = append(notes, fmt.Sprintf("Rule `%s` (%s): no job of %s has the %s %s, so comparing job.%s with %s never holds; its %ss: %s.",
			t.Source, t.Where, run.Workload.Name, field, strings.Join(q, " or "), field, strings.Join(q, " or "), field, nameList(names[t.Field])))
	}
	hit := false
	for i, ok := range set {
		hit = hit || ok && i != 1 // (1: number 0, no job's; 0, an empty field, may be some job's)
	}
	if !hit && len(missing) == 0 {
		notes = append(notes, fmt.Sprintf("Rule `%s` (%s) holds for no %s of %s's jobs; its %ss: %s.",
			t.Source, t.Where, field, run.Workload.Name, field, nameList(names[t.Field])))
	}
	return notes
}

// nameList shows a trace's names of a field, the first few.
func nameList(names []string) string {
	const shown = 12
	if len(names) == 0 {
		return "none (no such column, or empty)"
	}
	q := make([]string, 0, min(len(names), shown))
	for _, n := range names[:min(len(names), shown)] {
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, ", ")
	if len(names) > shown {
		s += fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return s
}

func containsString(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
