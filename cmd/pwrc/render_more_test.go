package main

import (
	"slices"
	"testing"

	"github.com/pwrc/pwrc/compiler"
)

// TestMoreMetricsReportable: every metric these columns render is a name
// `report` accepts, as a column of its own.
func TestMoreMetricsReportable(t *testing.T) {
	for _, n := range moreReportNames() {
		if !slices.Contains(compiler.ReportNames, n) {
			t.Errorf("metric %q renders but `report` rejects it", n)
		}
		if c := metricColumn(n, nil); c.header == n {
			t.Errorf("`report %s` renders no column", n)
		}
	}
}
