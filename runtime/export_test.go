package runtime

// Streamed reports whether a run simulated while its trace was read.
func Streamed(r *Result) bool { return r.streamed }
