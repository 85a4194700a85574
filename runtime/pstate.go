package runtime

import "fmt"

// pstateChoice is the policy's frequency stage: the pstate a job starts at
// and keeps (pstates are indexed highest frequency first).
type pstateChoice struct {
	kind  FrequencyKind
	fixed int   // FreqPState
	rule  *Expr // FreqRule: Hz
	freqs []float64
}

func newPStateChoice(f Frequency, m *Machine) pstateChoice {
	c := pstateChoice{kind: f.Kind, rule: f.Rule}
	for _, p := range m.PStates {
		c.freqs = append(c.freqs, p.Freq)
	}
	if f.Kind == FreqPState && f.PState < len(m.PStates) {
		c.fixed = f.PState
	}
	if len(c.freqs) < 2 { // one pstate: nothing to choose
		c.kind, c.fixed = FreqMax, 0
	}
	return c
}

// fixedPState is the pstate every job runs at, or 0 when a rule decides.
func (c *pstateChoice) fixedPState() int {
	if c.kind == FreqPState {
		return c.fixed
	}
	return 0
}

// at is the pstate job j gets if it starts now. A rule's frequency picks
// the highest pstate at or below it, or the lowest if it is below them all.
func (c *pstateChoice) at(s *sim, j int32) int {
	switch c.kind {
	case FreqPState:
		return c.fixed
	case FreqRule:
		s.setJobEnv(j, c.rule.Fields)
		hz := c.rule.Num(&s.env)
		if hz != hz {
			panic(&EvalError{Expr: c.rule, Err: fmt.Errorf("job %d: the frequency is not a number", s.jobs[j].ID)})
		}
		for p, f := range c.freqs {
			if f <= hz*(1+1e-12) {
				return p
			}
		}
		return len(c.freqs) - 1
	}
	return 0
}
