package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"
)

// Table is a comparison table as the terminal shows it: the caller formats
// the cells (pwrc's own columns), the report lays them out.
type Table struct {
	Title  string
	Header []string // a "\n" in a header starts its second line (the unit)
	Rows   [][]string
	Left   []bool // left-aligned columns (the others are right-aligned)
	Notes  []string
}

// Experiment is one experiment of the page: its table and its runs.
type Experiment struct {
	Name  string
	Table Table
	Runs  []Run
}

// Page is one scenario's report.
type Page struct {
	Title       string // the scenario, as given
	Generator   string // "pwrc 0.1.0"
	Experiments []Experiment
	Notes       []string // said once, above the experiments
}

const css = `body{font-family:DejaVu Sans,Liberation Sans,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1000px;padding:0 16px 48px;color:#222;background:#fff}
h1{font-size:22px;margin:24px 0 4px}h2{font-size:19px;margin:36px 0 6px;border-bottom:1px solid #ccc;padding-bottom:4px}h3{font-size:16px;margin:26px 0 6px}
p.meta{color:#666;margin:0 0 12px}nav a{margin-right:12px}
table{border-collapse:collapse;font-size:13px;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d4d4d4;padding:3px 7px;text-align:right;white-space:nowrap}th{background:#f2f2f2;vertical-align:bottom}
td.l,th.l{text-align:left}th span{display:block;font-weight:normal;color:#666}
.scroll{overflow-x:auto}ul.notes{font-size:13px;color:#444;padding-left:18px}
figure{margin:14px 0}figure svg{max-width:100%;height:auto;display:block}figcaption{font-size:13px;color:#555;margin-top:2px}
.decision{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:flex-start}.decision figure{flex:1 1 560px;margin:0}.decision ul{flex:1 1 280px;font-size:14px;line-height:1.4;padding-left:18px;margin:6px 0}
details.run{border-top:1px solid #e2e2e2;margin:6px 0}details.run>summary{cursor:pointer;padding:6px 0}details.run>summary h3{display:inline;margin:0}details.run>summary span{color:#666;font-size:13px;margin-left:8px}
@media print{@page{size:A4 landscape;margin:10mm}
body{max-width:none;padding:0}nav{display:none}.scroll{overflow:visible}
table{font-size:8.5px;width:100%}th,td{padding:1px 3px;white-space:normal}th span{font-size:8px}
section+section>h2{break-before:page}h2,h3,summary{break-after:avoid}
figure{break-inside:avoid}figure svg{max-height:175mm;width:auto;margin:0 auto}
details.run>summary{list-style:none}details.run>summary::-webkit-details-marker{display:none}details.run>summary span{display:none}}`

// HTML writes the page: one self-contained file (styles inline, plots as
// inline SVG, no script, no font or image to load), the same bytes for
// the same runs.
func HTML(p Page) []byte {
	var b bytes.Buffer
	title := "pwrc report · " + p.Title
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<meta name=\"generator\" content=\"%s\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", esc(p.Generator), esc(title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(p.Title))
	runs := 0
	for _, e := range p.Experiments {
		runs += len(e.Runs)
	}
	fmt.Fprintf(&b, "<p class=\"meta\">%s · %s · %s</p>\n", esc(p.Generator), plural(len(p.Experiments), "experiment"), plural(runs, "run"))
	if len(p.Experiments) > 1 {
		b.WriteString("<nav>")
		for _, e := range p.Experiments {
			fmt.Fprintf(&b, `<a href="#%s">%s</a>`, anchor(e.Name), esc(e.Name))
		}
		b.WriteString("</nav>\n")
	}
	notes(&b, p.Notes)
	for _, e := range p.Experiments {
		experiment(&b, e)
	}
	b.WriteString("</body>\n</html>\n")
	return b.Bytes()
}

func plural(k int, what string) string {
	if k == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", k, what)
}

// anchor makes an id from an experiment name.
func anchor(name string) string {
	return "experiment-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
}

func notes(b *bytes.Buffer, ns []string) {
	if len(ns) == 0 {
		return
	}
	b.WriteString("<ul class=\"notes\">\n")
	for _, n := range ns {
		fmt.Fprintf(b, "<li>%s</li>\n", esc(n))
	}
	b.WriteString("</ul>\n")
}

func figure(b *bytes.Buffer, svg []byte, caption string) {
	b.WriteString("<figure>\n")
	b.Write(svg)
	fmt.Fprintf(b, "<figcaption>%s</figcaption>\n</figure>\n", esc(caption))
}

// openRuns is the most runs an experiment shows open: with more, each
// run's section starts closed (a click on its name opens it).
const openRuns = 3

func experiment(b *bytes.Buffer, e Experiment) {
	fmt.Fprintf(b, "<section id=\"%s\">\n<h2>experiment %s</h2>\n", anchor(e.Name), esc(e.Name))
	if rs := okRuns(e.Runs); len(rs) > 0 {
		b.WriteString("<div class=\"decision\">\n")
		figure(b, DecisionSVG(e.Runs), "Each run by its cost and the 90th percentile of its jobs' waits (lower left is better"+
			map[bool]string{true: "; the area of a mark is the run's CO₂", false: ""}[carbonAll(rs)]+"): the runs no other run matches or beats on every axis at once are filled and named.")
		b.WriteString("<ul>\n")
		for _, line := range Decision(e.Runs) {
			fmt.Fprintf(b, "<li>%s</li>\n", esc(line))
		}
		b.WriteString("</ul>\n</div>\n")
	}
	t := e.Table
	fmt.Fprintf(b, "<p>%s</p>\n<div class=\"scroll\"><table>\n<thead><tr>", esc(t.Title))
	for i, h := range t.Header {
		name, unit, _ := strings.Cut(h, "\n")
		cls := ""
		if i < len(t.Left) && t.Left[i] {
			cls = ` class="l"`
		}
		fmt.Fprintf(b, "<th%s>%s", cls, esc(name))
		if unit != "" {
			fmt.Fprintf(b, "<span>%s</span>", esc(unit))
		}
		b.WriteString("</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for i, cell := range row {
			cls := ""
			if i < len(t.Left) && t.Left[i] {
				cls = ` class="l"`
			}
			fmt.Fprintf(b, "<td%s>%s</td>", cls, html.EscapeString(cell))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
	notes(b, t.Notes)

	b.WriteString("<h3>All runs</h3>\n")
	figure(b, EnergySVG(e.Runs), "Energy by component of each run; the number after a bar is the run's energy, as in the table.")
	figure(b, CostSVG(e.Runs), "Cost by component of each run; the number after a bar is the run's cost.")
	hasSaving := false
	for _, r := range okRuns(e.Runs) {
		hasSaving = hasSaving || r.Result.Metrics.HasSaving
	}
	if hasSaving {
		figure(b, SavingsSVG(e.Runs), "Saving of each run against its baseline (the baseline's cost minus the run's), and as a share of the baseline's cost.")
	}
	figure(b, WaitsSVG(e.Runs), "Distribution of the jobs' waits of every run: the share of jobs that waited at most x (logarithmic axis; waits under a minute at its left).")
	figure(b, UtilizationSVG(e.Runs), "Utilization per day: the share of node time allocated to jobs, one point per day (with more days than pixels, each pixel column keeps its lowest and highest day).")
	figure(b, HoursSVG(e.Runs), "Mean power by local hour of day over the whole run (everything: nodes, levels, infrastructure).")
	if svg := BootsSVG(e.Runs); svg != nil {
		figure(b, svg, "Node power cycles: the nodes switched on each day by the runs that switch nodes off (from their machine-state series; the boots metrics count the same over the accounted span).")
	}
	for _, r := range e.Runs {
		open := ""
		if len(e.Runs) <= openRuns {
			open = " open"
		}
		what := "power and machine states"
		if r.Result.Err == nil {
			if x0, x1, focused := Window(r); focused {
				what += ", " + windowWords(r, x0, x1)
			}
		}
		fmt.Fprintf(b, "<details class=\"run\"%s>\n<summary><h3 id=\"%s-%s\">run %s</h3><span>%s</span></summary>\n", open,
			anchor(e.Name), anchor(r.Result.Run.Name)[len("experiment-"):], esc(r.Label), esc(what))
		if r.Result.Err != nil {
			fmt.Fprintf(b, "<p>failed: %s</p>\n</details>\n", esc(r.Result.Err.Error()))
			continue
		}
		figure(b, PowerSVG(r), powerCaption(r))
		figure(b, StatesSVG(r), "Nodes in each state over time (means per pixel column), with the range of busy nodes in each column; level instances on use the right axis.")
		b.WriteString("</details>\n")
	}
	b.WriteString("</section>\n")
}

// carbonAll reports whether every run has a carbon figure.
func carbonAll(rs []Run) bool {
	for _, r := range rs {
		if !r.Result.Metrics.HasCarbon {
			return false
		}
	}
	return len(rs) > 0
}

// windowWords says what part of a run its time plots show.
func windowWords(r Run, x0, x1 float64) string {
	hours := (x1 - x0) / 3600
	d := "over " + fmtNum(math.Round(hours*10)/10) + " h"
	if hours > 72 {
		d = "over " + fmtNum(math.Round(hours/24*10)/10) + " days"
	}
	switch m := &r.Result.Metrics; {
	case r.To > r.From:
		return d + " as asked"
	case m.Measured:
		return d + " around the measure window"
	case m.Windowed:
		return d + " around the account window"
	}
	return d + " around its powercaps"
}

// powerCaption is the caption of a run's power plot.
func powerCaption(r Run) string {
	s := "Power over time, stacked by component: each pixel column shows the mean over its time (so the area is the energy); the grey band spans the total's lowest and highest value in that column. A powercap is drawn where one is in force; a power budget where it applies, beside the jobs' power it limits."
	if r.Price != nil {
		s += " The price is in the panel under the power, on the same time axis (its range in each column, and its mean)."
	}
	if x0, x1, focused := Window(r); focused {
		s += " The plot shows " + windowWords(r, x0, x1) + " (a quarter of it before and after for context); the strip at the bottom is the whole run, the part shown shaded."
	}
	return s
}
