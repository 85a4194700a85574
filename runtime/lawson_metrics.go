package runtime

// Lawson & Smirni's metrics (lawson.md §1.2, §4.3): their bounded
// slowdown, and what a capacity controller did.

// lawsonMean is the mean over jobs of Lawson's bounded slowdown
// 1 + wait / max(10 s, run), with run the time the job held its nodes.
func (s *sim) lawsonMean() float64 {
	if len(s.jobs) == 0 {
		return 0
	}
	sum := 0.0
	for j := range s.jobs {
		sum += lawsonSlowdown(s.start[j]-s.jobs[j].Submit, s.end[j]-s.start[j])
	}
	return sum / float64(len(s.jobs))
}

// slaViolations is the share of jobs whose Lawson slowdown exceeds sla.
func (s *sim) slaViolations(sla float64) float64 {
	if len(s.jobs) == 0 {
		return 0
	}
	n := 0
	for j := range s.jobs {
		if lawsonSlowdown(s.start[j]-s.jobs[j].Submit, s.end[j]-s.start[j]) > sla {
			n++
		}
	}
	return float64(n) / float64(len(s.jobs))
}

// activeStat is the capacity controller's summary over the run's span,
// first submission to last end; nil without one.
func (s *sim) activeStat() *ActiveStat {
	if s.capa == nil || len(s.jobs) == 0 {
		return nil
	}
	work := 0.0
	for j := range s.jobs {
		work += float64(s.alloc[j]) * (s.end[j] - s.start[j])
	}
	return s.capa.stat(s.firstT, s.lastEnd, work)
}
