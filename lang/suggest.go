package lang

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible misspelling. Case differences count as close.
func Suggest(name string, candidates []string) string {
	best, bestDist := "", 0
	limit := max(1, min(3, len(name)/3))
	for _, c := range candidates {
		if c == name {
			continue
		}
		a, b := strings.ToLower(name), strings.ToLower(c)
		d := levenshtein.ComputeDistance(a, b)
		switch {
		case a == b:
			d = 0
		case d == 2 && isTransposition(a, b):
			d = 1 // "wiat" for "wait": one slip, though Levenshtein counts two
		}
		if d <= limit && (best == "" || d < bestDist || (d == bestDist && c < best)) {
			best, bestDist = c, d
		}
	}
	return best
}

// isTransposition reports whether b is a with two adjacent letters swapped.
func isTransposition(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i+1 < len(a); i++ {
		if a[i] != b[i] {
			return a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
		}
	}
	return false
}
