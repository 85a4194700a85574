package lang

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible misspelling, or when several are equally close
// (`q95` is as near `q90` as `q99`: a guess would mislead). Case
// differences count as close.
func Suggest(name string, candidates []string) string {
	best, bestDist, ties, sameLen := "", 0, 0, 0
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
		same := btoi(len(c) == len(name))
		switch {
		case d > limit:
		case best == "" || d < bestDist:
			best, bestDist, ties, sameLen = c, d, 0, same
		case d == bestDist && c != best:
			// Between equally close candidates, a slip of one letter
			// (`nodez`) beats a letter too many or too few (`node`).
			switch {
			case same > sameLen:
				best, ties, sameLen = c, 0, same
			case same == sameLen:
				ties++
			}
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
