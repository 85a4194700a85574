package compiler

import (
	"fmt"
	"testing"

	"github.com/expr-lang/expr"

	"github.com/pwrc/pwrc/runtime"
)

// The clock edges a rule's comparisons give the engine, and whether it
// reads the clock in a way the engine cannot time.
func TestClockOf(t *testing.T) {
	h, sec, day := runtime.ClockHour, runtime.ClockSeconds, runtime.ClockDay
	for _, c := range []struct {
		src   string
		edges []runtime.ClockEdge
		other bool
	}{
		{"now.hour >= 17 && now.hour < 19", []runtime.ClockEdge{{Field: h, Value: 17}, {Field: h, Value: 19}}, false},
		{"now.hour > 17.5 || now.hour <= 6", []runtime.ClockEdge{{Field: h, Value: 17.5, Strict: true}, {Field: h, Value: 6, Strict: true}}, false},
		{"17.5 < now.hour", []runtime.ClockEdge{{Field: h, Value: 17.5, Strict: true}}, false},
		{"17.5 >= now.hour", []runtime.ClockEdge{{Field: h, Value: 17.5, Strict: true}}, false},
		{"now.hour >= 17 + 0.25", []runtime.ClockEdge{{Field: h, Value: 17.25}}, false},
		{"now.seconds == 5000", []runtime.ClockEdge{{Field: sec, Value: 5000}, {Field: sec, Value: 5000, Strict: true}}, false},
		{"now.day >= 3 && peak", []runtime.ClockEdge{{Field: day, Value: 3}}, false},
		{"now.weekday == 0", nil, false},
		{"now.hour * 60 >= 1050", nil, true},
		{"now.hour >= 17 && now.seconds / 3600 > 10", []runtime.ClockEdge{{Field: h, Value: 17}}, true},
		{"now.hour >= job.nodes", nil, true},
		{"price.mean_past(3600) > 0.1", nil, false},
		{"system.free > 2", nil, false},
	} {
		prog, err := expr.Compile(c.src, expr.Env(runtime.Env{}))
		if err != nil {
			t.Fatal(err)
		}
		edges, other := clockOf(prog.Node())
		if fmt.Sprint(edges) != fmt.Sprint(c.edges) || other != c.other {
			t.Errorf("%s: edges %v other %v, want %v %v", c.src, edges, other, c.edges, c.other)
		}
	}
}
