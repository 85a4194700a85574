package alloc

import (
	"errors"
	"testing"
)

func TestGeometryValidate(t *testing.T) {
	curie := []Level{{"chassis", 18}, {"rack", 90}}
	tests := []struct {
		g    Geometry
		want *GeometryError // nil: valid
		msg  string
	}{
		{g: Geometry{Nodes: 5040, Levels: curie}},
		{g: Geometry{Nodes: 1}},
		{g: Geometry{Nodes: 320, Levels: []Level{{"rack", 16}}}},
		{g: Geometry{Nodes: 0}, want: &GeometryError{Kind: BadNodes, Level: -1},
			msg: "a machine needs 1 to 2147483647 nodes, not 0"},
		{g: Geometry{Nodes: 1 << 31}, want: &GeometryError{Kind: BadNodes, Level: -1, Size: 1 << 31},
			msg: "a machine needs 1 to 2147483647 nodes, not 2147483648"},
		{g: Geometry{Nodes: 90, Levels: []Level{{"chassis", 18}, {"rack", 0}}},
			want: &GeometryError{Kind: BadSize, Level: 1, Name: "rack"},
			msg:  `level "rack" has size 0; it needs at least 1 node`},
		{g: Geometry{Nodes: 5040, Levels: []Level{{"chassis", 18}, {"rack", 100}}},
			want: &GeometryError{Kind: NotMultiple, Level: 1, Name: "rack", Size: 100, Of: 18, OfName: "chassis", Remainder: 10},
			msg:  `level "rack" (100 nodes) is not a multiple of level "chassis" (18 nodes): remainder 10`},
		{g: Geometry{Nodes: 100, Levels: curie},
			want: &GeometryError{Kind: NotDividing, Level: 0, Name: "chassis", Size: 18, Of: 100, Remainder: 10},
			msg:  `level "chassis" (18 nodes) does not divide the 100 nodes: remainder 10`},
		{g: Geometry{Nodes: 5040 + 18, Levels: curie},
			want: &GeometryError{Kind: NotDividing, Level: 1, Name: "rack", Size: 90, Of: 5058, Remainder: 18},
			msg:  `level "rack" (90 nodes) does not divide the 5058 nodes: remainder 18`},
	}
	for _, tc := range tests {
		err := tc.g.Validate()
		if tc.want == nil {
			if err != nil {
				t.Errorf("%+v: %v, want valid", tc.g, err)
			}
			continue
		}
		var ge *GeometryError
		if !errors.As(err, &ge) {
			t.Errorf("%+v: %v, want a *GeometryError", tc.g, err)
			continue
		}
		if *ge != *tc.want {
			t.Errorf("%+v: %+v, want %+v", tc.g, *ge, *tc.want)
		}
		if err.Error() != tc.msg {
			t.Errorf("%+v: message %q, want %q", tc.g, err.Error(), tc.msg)
		}
		if _, err := NewState(tc.g, -1); err == nil {
			t.Errorf("%+v: NewState accepted an invalid geometry", tc.g)
		}
	}
}

func TestGeometryInstance(t *testing.T) {
	g := Geometry{Nodes: 5040, Levels: []Level{{"chassis", 18}, {"rack", 90}}}
	for _, c := range [][3]int{{0, 0, 0}, {0, 17, 0}, {0, 18, 1}, {1, 89, 0}, {1, 90, 1}, {0, 5039, 279}, {1, 5039, 55}} {
		if got := g.Instance(c[0], c[1]); got != c[2] {
			t.Errorf("Instance(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
	if g.Instances(0) != 280 || g.Instances(1) != 56 {
		t.Errorf("Instances = %d, %d, want 280, 56", g.Instances(0), g.Instances(1))
	}
	if g.Level("rack") != 1 || g.Level("chassis") != 0 || g.Level("row") != -1 {
		t.Errorf("Level lookup wrong")
	}
}
