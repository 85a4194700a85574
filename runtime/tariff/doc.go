// Package tariff models electricity tariffs as piecewise-constant price
// functions of simulation time, so that the engine can integrate
// cost = ∫ price(t)·P(t) dt exactly by walking price segments forward
// (DESIGN §4.4).
//
// Simulation time is seconds on a trace's own clock. A [Clock] ties it to
// wall-clock time, because tariffs are defined in wall-clock terms: peak
// windows in the site's local time (DST included), hourly prices by the
// wall-clock hour (DESIGN §4.1).
//
// The package embeds the time zone database (time/tzdata), so results do not
// depend on the zoneinfo files of the machine that runs the simulation.
package tariff

// Embedding the zone database costs ~450 kB of binary but makes local-time
// tariffs reproducible on machines (containers, compute nodes) without
// /usr/share/zoneinfo or with a trimmed one.
import _ "time/tzdata"
