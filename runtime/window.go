package runtime

import (
	"fmt"
	"time"

	"github.com/pwrc/pwrc/runtime/tariff"
)

// resolve places the window on the trace's clock: dates in the trace's
// zone, offsets after the first submission.
func (w *Window) resolve(clock tariff.Clock, first float64) (from, to float64, err error) {
	at := func(i Instant) (float64, error) {
		if i.Date == "" {
			return first + i.Offset, nil
		}
		loc := clock.Loc
		if loc == nil {
			loc = time.UTC
		}
		t, err := time.ParseInLocation("2006-01-02T15:04:05", i.Date, loc)
		if err != nil {
			return 0, err
		}
		return clock.Sim(t), nil
	}
	if from, err = at(w.From); err != nil {
		return 0, 0, err
	}
	if to, err = at(w.To); err != nil {
		return 0, 0, err
	}
	if !(to > from) {
		return 0, 0, fmt.Errorf("the accounting window %s .. %s is empty on this trace's clock", w.From, w.To)
	}
	return from, to, nil
}
