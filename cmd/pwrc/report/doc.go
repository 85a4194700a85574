// Package report draws pwrc's results: one self-contained HTML page per
// scenario (the comparison tables and inline SVG plots) and single SVG
// figures for papers. Every function is pure: the same runs give the same
// bytes (no time stamps, no map order, coordinates rounded to 0.01 px).
//
// # Figures
//
// Per experiment, first a decision summary (DecisionSVG, Decision): the
// runs by cost against their 90th-percentile wait, CO₂ as mark area, the
// Pareto set marked, and the same in words. Then energy and cost by
// component per run (stacked bars), the saving against the baseline, the
// wait-time CDFs of all runs on one chart, the utilization per day, the
// mean power by local hour of day and the nodes switched on per day. Per
// run, over its Window (a measure or account window, or its powercaps,
// with context; the whole run in an overview strip): power over time
// stacked by component with the price in a panel under it, the powercap
// in force and the power budget where it applies (beside the jobs' power
// it limits) overlaid, and the nodes in each state over time with the
// level instances on.
//
// # Downsampling
//
// A three-year trace changes state a million times; a plot has ~800 pixel
// columns. Time series are binned per pixel column (binStep): each column
// draws the time-weighted mean of the step function (so the area under a
// stacked power plot is the run's energy, exactly) and a band from its
// lowest to its highest value in that column (so a one-second peak is
// never dropped). Point series (utilization per day, CDFs) keep the first,
// lowest, highest and last point of each column (m4). Nothing is dropped
// by striding.
//
// # Why a small SVG writer rather than gonum.org/v1/plot
//
// gonum.org/v1/plot (v0.17.0) was evaluated. Its SVG backend (vgsvg) either
// names fonts the reader may not have while laying text out with the
// metrics of the Liberation fonts it bundles, or embeds those fonts as
// base64 TrueType in every SVG (hundreds of kB per figure, a dozen figures
// per page). It would add about fifteen modules (fonts, a LaTeX renderer,
// a PDF writer, an image library) to a CLI that has ten, and it has
// neither stacked step areas nor min/max downsampling, which pwrc would
// write itself anyway. What the report draws is rectangles, step paths,
// lines and text: a few hundred lines over the standard library, with
// system fonts named by CSS family (nothing is loaded), exact control of
// the output bytes for golden tests, and no JavaScript.
package report
