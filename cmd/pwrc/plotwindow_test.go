package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pwrc plot draws a capped run's power over its cap's hour with context,
// as the report does, the whole run in an overview strip; --from and --to
// choose the time (offsets or local dates), and bad values are usage
// errors that name the flag.
func TestPlotWindow(t *testing.T) {
	dir, _, _ := limitsReport(t)
	plot := func(run string, args ...string) (string, string, int) {
		out := filepath.Join(t.TempDir(), "p.svg")
		o, e, code := pwrc(t, append([]string{"plot", filepath.Join(dir, run+".states.csv"), "-o", out}, args...)...)
		svg, _ := os.ReadFile(out)
		return string(svg), o + e, code
	}
	capped, msg, code := plot("capped", "--what", "power")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if !strings.Contains(capped, `class="focus"`) || !strings.Contains(capped, `data-name="cap"`) {
		t.Error("the capped run's plot is not focused on its cap with an overview strip")
	}
	whole, _, _ := plot("always", "--what", "power")
	if strings.Contains(whole, `class="focus"`) {
		t.Error("a run without a window or caps is drawn focused")
	}
	// The whole run, asked for: no strip; a day of it: one.
	all, msg, code := plot("capped", "--what", "states", "--from", "0 h", "--to", "1000 d")
	if code != 0 || strings.Contains(all, `class="focus"`) {
		t.Errorf("--from 0 h --to 1000 d: exit %d, focused %v: %s", code, strings.Contains(all, `class="focus"`), msg)
	}
	day, msg, code := plot("capped", "--what", "power", "--from", "1 d", "--to", "36 h")
	if code != 0 || !strings.Contains(day, `class="focus"`) || day == capped {
		t.Errorf("--from 1 d --to 36 h: exit %d: %s", code, msg)
	}
	// The cap's hour by local dates (a synthetic trace's clock starts at
	// 1970-01-01 00:00 UTC): the same plot as the automatic focus.
	dated, msg, code := plot("capped", "--what", "power", "--from", "1970-01-01 09:45", "--to", "1970-01-01T11:15")
	if code != 0 || dated != capped {
		t.Errorf("the cap's hour ±15 min by dates: exit %d, same as the automatic focus: %v: %s", code, dated == capped, msg)
	}
	for _, bad := range [][]string{
		{"--what", "power", "--from", "2 d", "--to", "1 d"},
		{"--what", "power", "--from", "soon"},
		{"--what", "power", "--from", "2 parsecs"},
		{"--what", "power", "--from", "5000 d"},
		{"--what", "waits", "--from", "1 d"},
	} {
		_, msg, code := plot("capped", bad...)
		if code != 2 || !strings.Contains(msg, "--") {
			t.Errorf("%q: exit %d, want a usage error: %s", bad, code, msg)
		}
	}
}
