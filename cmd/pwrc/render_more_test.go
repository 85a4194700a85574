package main

import (
	"slices"
	"testing"

	"github.com/pwrc/pwrc/compiler"
	pwrt "github.com/pwrc/pwrc/runtime"
)

// TestMoreMetricsReportable: every metric these columns render is a name
// `report` accepts, as a column of its own.
func TestMoreMetricsReportable(t *testing.T) {
	for _, n := range moreReportNames() {
		name := n
		if c, _, ok := pwrt.ReportColumnOf(n); ok {
			name = c.Name // oracle_best is `report oracle(best)`
		}
		if !slices.Contains(compiler.ReportNames, name) {
			t.Errorf("metric %q renders but `report` rejects it", n)
		}
		if c := metricColumn(n, nil); c.header == n {
			t.Errorf("`report %s` renders no column", n)
		}
	}
}
