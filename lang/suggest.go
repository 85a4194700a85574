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
		d := levenshtein.ComputeDistance(strings.ToLower(name), strings.ToLower(c))
		if strings.EqualFold(c, name) {
			d = 0
		}
		if d <= limit && (best == "" || d < bestDist || (d == bestDist && c < best)) {
			best, bestDist = c, d
		}
	}
	return best
}
