package refplace

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

func TestParseNodes(t *testing.T) {
	good := []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"0", []int{0}},
		{"0-15,32", append(seq(0, 15), 32)},
		{"32,0-2", []int{0, 1, 2, 32}},
		{"5-5", []int{5}},
		{"3,4", []int{3, 4}},
		{"0-99", seq(0, 99)},
		{"99", []int{99}},
	}
	for _, c := range good {
		got, err := ParseNodes(c.in, 100)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseNodes(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{",", "empty node id"},
		{"1,", "empty node id"},
		{",1", "empty node id"},
		{"1,,2", "empty node id"},
		{"-", "empty node id"},
		{"1-", "empty node id"},
		{"-1", "empty node id"},
		{"a", "not a decimal number"},
		{"+1", "not a decimal number"},
		{" 1", "not a decimal number"},
		{"1 ", "not a decimal number"},
		{"1-2-3", "not a decimal number"},
		{"01", "leading zero"},
		{"0-07", "leading zero"},
		{"3-1", "decreasing"},
		{"100", "out of range"},
		{"0-100", "out of range"},
		{"99999999999999999999999999", "out of range"},
		{"1,1", "node 1 is listed twice"},
		{"0-5,5", "node 5 is listed twice"},
		{"3-4,0-5", "node 3 is listed twice"},
	}
	for _, c := range bad {
		got, err := ParseNodes(c.in, 100)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseNodes(%q) = %v, %v; want an error containing %q", c.in, got, err, c.want)
		}
	}
}

func TestFormatNodes(t *testing.T) {
	cases := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{5}, "5"},
		{[]int{3, 4}, "3-4"},
		{append(seq(0, 15), 32), "0-15,32"},
		{[]int{0, 2, 4}, "0,2,4"},
		{[]int{7, 1, 2, 2}, "1-2,7"},
	}
	for _, c := range cases {
		if got := FormatNodes(c.in); got != c.want {
			t.Errorf("FormatNodes(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// naiveParse is a second reading of the grammar, for the fuzz target: split,
// check each number by hand, expand into a set, reject duplicates.
func naiveParse(s string, limit int) ([]int, bool) {
	if s == "" {
		return nil, true
	}
	num := func(x string) (int, bool) {
		if x == "" || (len(x) > 1 && x[0] == '0') || strings.Trim(x, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.Atoi(x)
		return n, err == nil && n < limit
	}
	set := map[int]bool{}
	for _, item := range strings.Split(s, ",") {
		parts := strings.Split(item, "-")
		if len(parts) > 2 {
			return nil, false
		}
		lo, ok := num(parts[0])
		if !ok {
			return nil, false
		}
		hi := lo
		if len(parts) == 2 {
			if hi, ok = num(parts[1]); !ok || hi < lo {
				return nil, false
			}
		}
		for i := lo; i <= hi; i++ {
			if set[i] {
				return nil, false
			}
			set[i] = true
		}
	}
	ids := make([]int, 0, len(set))
	for i := range set {
		ids = append(ids, i)
	}
	slices.Sort(ids)
	return ids, true
}

// FuzzParseNodes: ParseNodes agrees with naiveParse on acceptance and result;
// accepted lists are ascending, distinct and in range; FormatNodes writes a
// list that parses back to the same ids and is a fixed point.
func FuzzParseNodes(f *testing.F) {
	for _, s := range []string{"", "0", "0-15,32", "32,0-2", "1,1", "3-1", "01", "0-99", "1-2-3", ",", "99999999999999999999"} {
		f.Add(s)
	}
	const limit = 100
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseNodes(s, limit)
		want, ok := naiveParse(s, limit)
		if (err == nil) != ok {
			t.Fatalf("ParseNodes(%q): err %v, naive accepts: %v", s, err, ok)
		}
		if err != nil {
			return
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ParseNodes(%q) = %v, naive %v", s, got, want)
		}
		for k, id := range got {
			if id < 0 || id >= limit || (k > 0 && id <= got[k-1]) {
				t.Fatalf("ParseNodes(%q) = %v: not ascending distinct ids in range", s, got)
			}
		}
		text := FormatNodes(got)
		back, err := ParseNodes(text, limit)
		if err != nil || !slices.Equal(back, got) {
			t.Fatalf("FormatNodes(%v) = %q parses to %v, %v", got, text, back, err)
		}
		if again := FormatNodes(back); again != text {
			t.Fatalf("FormatNodes not a fixed point: %q then %q", text, again)
		}
	})
}
