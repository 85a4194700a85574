package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	pwrt "github.com/pwrc/pwrc/runtime"
)

func metricsCmd(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "metrics",
		Short: "List the metrics a report can show, with their units and definitions",
		Long: `metrics lists every column a scenario's report statement can ask for: the
metric as report writes it (with its statistic, part or level in
parentheses), the table's header, the unit, the key of the same figure in
--format json and csv, and its definition. It is generated from the
catalogue the compiler checks report statements against and the tables take
their headers from; --format markdown writes the README's table.`,
		Args: cobra.NoArgs,
		RunE: command(func(*cobra.Command, []string) error {
			switch format {
			case "text":
				return writeMetricsText(stdout)
			case "markdown":
				_, err := io.WriteString(stdout, metricsMarkdown())
				return err
			case "json":
				return writeMetricsJSON(stdout)
			}
			return usageErrorf("--format must be text, markdown or json, not %q", format)
		}),
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, markdown or json")
	return cmd
}

// metricCall is a catalogue column as a report statement writes it:
// wait(q50), levels_on(LEVEL), energy.
func metricCall(c pwrt.ReportColumn) string {
	if c.Arg == "" {
		return c.Name
	}
	return c.Name + "(" + c.Arg + ")"
}

// metricNotes are what a column's definition adds: other spellings, and
// that the bare name gives it.
func metricNotes(c pwrt.ReportColumn) string {
	var extra []string
	if c.Default {
		extra = append(extra, "`"+c.Name+"` alone gives it")
	}
	for _, a := range c.Aliases {
		extra = append(extra, "also `"+c.Name+"("+a+")`")
	}
	if len(extra) == 0 {
		return ""
	}
	return " (" + strings.Join(extra, "; ") + ")"
}

func oneLine(header string) string { return strings.ReplaceAll(header, "\n", " ") }

func writeMetricsText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tHEADER\tUNIT\tJSON KEY\tDEFINITION")
	for _, c := range pwrt.ReportCatalog {
		unit, key := c.Unit, c.JSON
		if unit == "" {
			unit = "-"
		}
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", metricCall(c), oneLine(c.HeaderFor("€", "")), unit, key, c.Doc,
			strings.ReplaceAll(metricNotes(c), "`", ""))
	}
	return tw.Flush()
}

// metricsMarkdown is the README's table of report metrics.
func metricsMarkdown() string {
	var b strings.Builder
	b.WriteString("| `report` | header | unit | JSON key | definition |\n|---|---|---|---|---|\n")
	for _, c := range pwrt.ReportCatalog {
		key := ""
		if c.JSON != "" {
			key = "`" + c.JSON + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s%s |\n", metricCall(c), oneLine(c.HeaderFor("€", "")), c.Unit, key,
			strings.ReplaceAll(c.Doc, "|", `\|`), metricNotes(c))
	}
	return b.String()
}

func writeMetricsJSON(w io.Writer) error {
	type metric struct {
		Metric  string   `json:"metric"`
		Name    string   `json:"name"`
		Arg     string   `json:"arg,omitempty"`
		Aliases []string `json:"aliases,omitempty"`
		Default bool     `json:"default,omitempty"`
		Header  string   `json:"header"`
		Unit    string   `json:"unit"`
		JSON    string   `json:"json_key,omitempty"`
		Doc     string   `json:"definition"`
	}
	out := []metric{}
	for _, c := range pwrt.ReportCatalog {
		out = append(out, metric{metricCall(c), c.Name, c.Arg, c.Aliases, c.Default, oneLine(c.HeaderFor("€", "")), c.Unit, c.JSON, c.Doc})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
