// Package workload turns job traces into the jobs the engine replays: it
// reads Standard Workload Format (SWF) files and Slurm accounting (sacct
// --parsable2) output, plain or gzipped, applies the
// cleaning rules of DESIGN §4.2 (reporting what each rule did), and generates
// seeded synthetic workloads.
package workload

// Job is one job ready for simulation. Times are seconds on the trace's own
// clock (SWF field 2).
type Job struct {
	ID       int64   // SWF field 1 (job number)
	Submit   float64 // submit time, s
	Runtime  float64 // actual run time after cleaning, s (> 0)
	Walltime float64 // requested time after cleaning, s (>= Runtime)
	Procs    int     // processors (field 5, else field 8)
	Nodes    int     // the trace's node count if it has one (sacct), else ceil(Procs / cores per node)
	Power    float64 // measured power per node, W (sacct); 0 = none: the machine's model applies
	// int32 keeps a job within 88 bytes: the engine walks jobs by index.
	// On Slurm accounting, User, Group, Account, Partition and QOS number
	// the names of Trace.Sacct.Names (see Record).
	User      int32 // field 12, -1 if unknown
	Group     int32 // field 13, -1 if unknown
	Queue     int32 // field 15, -1 if unknown (sacct: -1, Slurm has partitions and QOS)
	Partition int32 // field 16, -1 if unknown
	Account   int32 // sacct's Account; -1 if empty, 0 in other traces
	QOS       int32 // sacct's QOS; -1 if empty, 0 in other traces
	Line      int32 // 1-based line in the trace file; 0 for synthetic jobs
	Capped    bool  // its run time was capped at its requested time (killed there)
}

// Header holds the SWF header keys pwrc uses. Zero values mean absent.
type Header struct {
	MaxNodes       int
	MaxProcs       int
	UnixStartTime  int64
	HasStartTime   bool
	TimeZoneString string // IANA zone name, e.g. "Europe/Stockholm"
	TimeZone       int    // UTC offset in seconds (the older TimeZone key)
	HasTimeZone    bool
}
