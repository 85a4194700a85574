package runtime

// Streamed reports whether a run simulated while its trace was read.
func Streamed(r *Result) bool { return r.streamed }

// TwinOf is the index of the run whose simulation served r (twins.go), or
// −1 if r was simulated on its own.
func TwinOf(r *Result) int {
	if r.lead == nil {
		return -1
	}
	return r.lead.Index
}
