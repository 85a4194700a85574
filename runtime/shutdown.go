package runtime

// The shutdown stage: nodes idle for a given time are switched off after
// the pass (the most recently idle are kept on, `keep` of them at least);
// off nodes count as free, and a job that takes them waits for their boot.
type shutdownStage struct {
	sh *Shutdown
}

var shutdownKind = stageKind{
	name:   "shutdown",
	has:    func(p *Policy) bool { return p.Shutdown != nil },
	allows: everything,
	build:  func(s *sim) (stage, error) { return &shutdownStage{sh: s.pol.Shutdown}, nil },
	clear:  func(p *Policy) { p.Shutdown = nil },
}

// wake is when the next idle node has been idle long enough.
func (st *shutdownStage) wake(s *sim) float64 {
	return s.mach.ShutdownDue(st.sh.After, st.sh.Keep)
}

// after switches off the nodes that have been idle long enough; with the
// machine's shutdown time they hold their place in the running list (EASY
// sees them come back free) until they are off.
func (st *shutdownStage) after(s *sim) {
	d := s.machine.ShutdownTime
	n := s.mach.SwitchOff(s.now, st.sh.After, st.sh.Keep, d > 0)
	if n == 0 {
		return
	}
	s.changed, s.stale = true, true
	if d > 0 {
		s.shutSeq++
		id := -s.shutSeq
		s.run.insert(running{est: s.now + d, nodes: int32(n), id: id})
		s.push(event{t: s.now + d, kind: evShutDone, job: id, n: int32(n)})
	}
}
