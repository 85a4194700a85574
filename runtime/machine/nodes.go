package machine

// Counts are the aggregates of a machine's node states that the power
// model, the scheduler and rules read.
type Counts struct {
	Idle     int     // idle nodes a job may take
	Reserved int     // idle nodes held by a job waiting for others to boot
	Off      int     // switched off
	Booting  int     // booting for a job
	Shutting int     // shutting down
	Busy     int     // allocated to running jobs
	Work     int     // of those, the nodes jobs asked for (the rest: contiguous leftovers)
	JobW     float64 // W drawn by running jobs
	// Per pstate: busy nodes and their jobs' W (length: the model's
	// PStates; kept only where there are several).
	BusyAt []int
	JobWAt []float64
	// LevelsOn is, per level, the instances with a node not off; OffDark
	// the off nodes whose lowest-level instance is off, which draw
	// nothing. Both stay 0 without levels.
	LevelsOn []int
	OffDark  int
	// Boots counts the nodes switched on since the machine was made: every
	// node that left Off (to boot, or straight to a job without a boot
	// time), whoever asked for it.
	Boots int
}

// Free is the number of nodes a job may take now: idle and off.
func (c *Counts) Free() int { return c.Idle + c.Off }

// Use describes what a job holds: n nodes, of which work run it, drawing w
// W in all, at pstate p.
type Use struct {
	N, Work int
	W       float64
	PState  int
	// Avoid keeps the job off the nodes of the reservations whose bits it
	// has (powercap windows it would still run in; Table only).
	Avoid uint64
}

// Nodes is one run's node state. Counted (no identities) and Table
// (identities, levels) implement it; for a machine without levels and
// the most-recently-idle allocation both give identical Counts after
// identical calls (a differential test holds them to it).
type Nodes interface {
	Counts() *Counts
	// Take gives job j the nodes of u, idle ones before off ones when boot
	// (booting takes time); estEnd is the job's estimated end (rack_aware's
	// key). With boot, the off nodes it takes boot first: it returns how
	// many, and the job runs once Booted; else it runs at once.
	Take(j int32, u Use, estEnd float64, boot bool) (booting int)
	// Booted: job j's booting nodes are up and all its nodes run it.
	Booted(j int32, u Use, booting int)
	// Release: job j ended at now; its nodes are idle since then.
	Release(j int32, u Use, now float64)
	// ShutdownDue is when the next idle node will have been idle for
	// after seconds, switching off no more than leaves keep idle (+Inf if
	// none will).
	ShutdownDue(after float64, keep int) float64
	// SwitchOff switches off the nodes idle for after seconds by now, but
	// leaves keep idle; with transit they shut down until ShutDone, else
	// they are off at once. It returns how many.
	SwitchOff(now, after float64, keep int, transit bool) int
	// ShutDone: the n nodes that started shutting down first are off.
	ShutDone(n int)
	// Held appends job j's node ids to dst (nothing when nodes are
	// counted, not identified).
	Held(dst []int32, j int32) []int32
	// PowerDelta is how much the machine's power would rise if a job of u
	// started now on the nodes Take would give it (running, after any
	// boot): its power, less what those nodes draw now, plus the level
	// instances it would switch on with the off power of their other
	// nodes.
	PowerDelta(u Use, boot bool) float64
}
