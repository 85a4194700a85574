package runtime

import (
	"math"
	"testing"
)

// A row lasts until the next one (the last for ever), and Value reads a
// row's column by name, refusing a name the series does not have.
func TestStateSeriesRows(t *testing.T) {
	ss := &StateSeries{Columns: []string{"busy", "power_w"}, Times: []float64{0, 60, 90},
		Values: []float64{1, 330, 2, 590, 0, 70}}
	for r, want := range []float64{60, 90, math.Inf(1)} {
		if got := ss.Until(r); got != want {
			t.Errorf("row %d ends at %v, want %v", r, got, want)
		}
	}
	if got := ss.Value(1, "power_w"); got != 590 {
		t.Errorf("row 1's power_w is %v, want 590", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Value of a missing column did not panic")
		}
	}()
	ss.Value(0, "cap_w")
}
