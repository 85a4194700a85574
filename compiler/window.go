package compiler

import (
	"github.com/pwrc/pwrc/lang"
	"github.com/pwrc/pwrc/runtime"
)

// window reads `FIELD A .. B`: a span of the trace's time whose ends are
// durations after the first submission (`0 d .. 547.5 d`) or local dates
// in the trace's zone (`"2012-09-05 11:00" .. "2012-09-07 16:00"`). noun
// names the window in messages ("the submission window").
func (c *compiler) window(s *lang.Stmt, b binding, noun string) *runtime.Window {
	field := s.Key.Name
	usage := "Write `" + field + " 0 d .. 365 d` (after the first submission) or `" + field + " \"2017-01-01\" .. \"2018-01-01\"` (local dates)."
	a := s.Args
	if len(a) != 3 || a[1].Text() != ".." {
		c.diags.Errorf(argsRange(s), "expected `%s FROM .. TO`", field).With("%s", usage)
		return nil
	}
	instant := func(v lang.Value) (runtime.Instant, bool) {
		if _, ok := c.val(v, b).(*lang.String); ok {
			d, ok := c.localTime(v, b, field)
			return runtime.Instant{Date: d}, ok
		}
		t, _, ok := c.quantity(v, b, lang.Time, field)
		return runtime.Instant{Offset: t}, ok
	}
	from, ok1 := instant(a[0])
	to, ok2 := instant(a[2])
	if !ok1 || !ok2 {
		return nil
	}
	if from.Date == "" && to.Date == "" && !(to.Offset > from.Offset) || from.Date != "" && to.Date != "" && !(to.Date > from.Date) {
		c.diags.Errorf(a[0].Range().Cover(a[2].Range()), "%s ends before it starts", noun).With("%s", usage)
		return nil
	}
	return &runtime.Window{From: from, To: to}
}
