package refplace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseNodes reads a node list in the range syntax of the --jobs CSV:
// comma-separated items, each a node id or an inclusive range "a-b" with
// a ≤ b, e.g. "0-15,32". The empty string is no nodes. Ids are plain ASCII
// decimal numbers without sign or leading zeros ("0" itself is fine), and
// must be below machineNodes. Items may come in any order but must not
// overlap: a node listed twice is an error. No spaces are allowed. The result
// is ascending; nil for the empty string.
func ParseNodes(s string, machineNodes int) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	type span struct{ lo, hi int }
	var spans []span
	for item := range strings.SplitSeq(s, ",") {
		a, b, isRange := strings.Cut(item, "-")
		lo, err := parseID(a, machineNodes)
		if err != nil {
			return nil, fmt.Errorf("refplace: node list %q: %w", s, err)
		}
		hi := lo
		if isRange {
			if hi, err = parseID(b, machineNodes); err != nil {
				return nil, fmt.Errorf("refplace: node list %q: %w", s, err)
			}
			if hi < lo {
				return nil, fmt.Errorf("refplace: node list %q: range %q is decreasing", s, item)
			}
		}
		spans = append(spans, span{lo, hi})
	}
	// Check overlaps on the spans before expanding them, so the result
	// never holds more than machineNodes ids.
	slices.SortFunc(spans, func(x, y span) int { return x.lo - y.lo })
	var ids []int
	for k, sp := range spans {
		if k > 0 && sp.lo <= spans[k-1].hi {
			return nil, fmt.Errorf("refplace: node list %q: node %d is listed twice", s, sp.lo)
		}
		for id := sp.lo; id <= sp.hi; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseID reads one node id below limit.
func parseID(s string, limit int) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty node id")
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("node id %q has a leading zero", s)
	}
	id := 0
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("node id %q is not a decimal number", s)
		}
		id = 10*id + int(c-'0')
		if id >= limit { // checked per digit: no overflow
			return 0, fmt.Errorf("node id %s is out of range: machine has %d nodes", s, limit)
		}
	}
	return id, nil
}

// FormatNodes writes node ids in the canonical range syntax: ascending,
// maximal runs of consecutive ids as "a-b" (two or more ids), single ids
// alone, e.g. []int{0, 1, 2, 32} → "0-2,32". The input is sorted and
// deduplicated first (on a copy); no ids gives "". Ids must be ≥ 0 for the
// result to parse.
func FormatNodes(ids []int) string {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var b strings.Builder
	for k := 0; k < len(ids); {
		end := k
		for end+1 < len(ids) && ids[end+1] == ids[end]+1 {
			end++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[k]))
		if end > k {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[end]))
		}
		k = end + 1
	}
	return b.String()
}
