#!/usr/bin/env bash
# Benchmarks the whole `pwrc run` (parse, simulate, render the table) on the
# large traces of the shared data set, per policy, and prints: jobs, wall
# seconds (best of N), jobs/s, peak RSS, and the ratio to merely reading the
# gzipped trace (zcat | wc -l). Then a time-dependent priority rule against
# plain EASY, a 12-run sweep with -j 1 and -j 2, the machine model, a
# powercap window, overloaded queues beside the unloaded runs they are
# compared with, and what --report adds to a run.
#
#   scripts/bench.sh [--report] [DATA_DIR] [REPEATS]
#
# --report runs only the last case: the HTML report of a 3-year trace
# (SDSC-BLUE, 3 runs), timed and measured with and without --report.
set -euo pipefail
cd "$(dirname "$0")/.."
report_only=
if [ "${1:-}" = "--report" ]; then report_only=1; shift; fi
data=${1:-${PWRC_DATA:-../shared/data}}
reps=${2:-5}
[ -d "$data/traces" ] || { echo "no traces in $data (give the shared data directory)" >&2; exit 1; }
data=$(cd "$data" && pwd)

bin=$(mktemp -d)/pwrc
tfile=$(mktemp)
trap 'rm -rf "$(dirname "$bin")" "$tfile"' EXIT
go build -o "$bin" ./cmd/pwrc

# best wall time and peak RSS (KB) of each of several commands (each one
# string, quoted for eval), run in turns REPS times, one line each: a
# ratio between them is not skewed by the machine's speed drifting from
# one command to the next (on a shared 2-core VM the same run's time moved
# by a third within minutes, more than the ratios measured)
measure_turns() {
  local i t0 t1 t m c
  local best=() rss=()
  for _ in $(seq "$reps"); do
    i=0
    for c in "$@"; do
      t0=$(date +%s%N)
      eval "/usr/bin/time -o \"\$tfile\" -f %M $c" >/dev/null 2>&1
      t1=$(date +%s%N)
      t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')
      read -r m < "$tfile"
      if [ -z "${best[i]:-}" ] || awk "BEGIN{exit !($t < ${best[i]})}"; then best[i]=$t; fi
      [ "$m" -gt "${rss[i]:-0}" ] && rss[i]=$m
      i=$((i + 1))
    done
  done
  for i in "${!best[@]}"; do echo "${best[i]} ${rss[i]}"; done
}

# best wall time and peak RSS (KB) of REPS runs of a command (the clock
# in ns: time's %e has 10 ms steps, coarse beside runs of 0.2 s)
measure() { measure_turns "$(q "$@")"; }

# a command's words quoted for eval
q() { printf '%q ' "$@"; }

# What --report adds to a run of a 3-year trace, SDSC-BLUE (232,536 jobs),
# under three policies: the issue's bound is 1 s and 50 MB. The page is
# written to the build's temporary directory (removed on exit).
report_case() {
  local f="$data/traces/SDSC-BLUE-2000-4.2-cln.swf.gz" page
  page="$(dirname "$bin")/report.html"
  local args=(run examples/replay.pwr --set "trace=$f" --set 'policy=[fcfs, easy, easy_exact]')
  read -r w0 r0 < <(measure "$bin" "${args[@]}")
  read -r w1 r1 < <(measure "$bin" "${args[@]}" --report "$page")
  awk -v a="$w0" -v b="$w1" -v ra="$r0" -v rb="$r1" -v s="$(wc -c < "$page")" 'BEGIN{
    printf "SDSC-BLUE, 3 runs (fcfs, easy, easy_exact): %.3f s, %.0f MB; with --report %.3f s, %.0f MB (page %.0f kB): +%.3f s, +%.0f MB (bound: 1 s, 50 MB)\n",
      a, ra/1024, b, rb/1024, s/1024, b-a, (rb-ra)/1024}'
}
if [ -n "$report_only" ]; then
  report_case
  exit 0
fi

printf '%-32s %-11s %9s %8s %10s %8s %8s\n' trace policy jobs wall_s jobs/s rss_MB x_read
for t in HPC2N-2002-2.1-cln SDSC-BLUE-2000-4.2-cln CEA-Curie-2011-2.1-cln; do
  f="$data/traces/$t.swf.gz"
  read -r zt _ < <(measure sh -c "zcat '$f' | wc -l")
  for p in fcfs easy easy_exact; do
    jobs=$("$bin" run examples/replay.pwr --set "trace=$f" --set "policy=$p" --format json | grep -o '"jobs": [0-9]*' | head -1 | grep -o '[0-9]*')
    read -r wall rss < <(measure "$bin" run examples/replay.pwr --set "trace=$f" --set "policy=$p")
    awk -v t="$t" -v p="$p" -v j="$jobs" -v w="$wall" -v r="$rss" -v z="$zt" \
      'BEGIN{printf "%-32s %-11s %9d %8.3f %10.0f %8.1f %8.1f\n", t, p, j, w, j/w, r/1024, w/z}'
  done
done

echo
f="$data/traces/HPC2N-2002-2.1-cln.swf.gz"
read -r easy _ < <(measure "$bin" run scripts/bench/priority.pwr --set "trace=$f" --set policy=easy -j 1)
read -r prio _ < <(measure "$bin" run scripts/bench/priority.pwr --set "trace=$f" --set policy=wait_ratio -j 1)
awk -v a="$easy" -v b="$prio" 'BEGIN{printf "HPC2N: EASY %.3f s; EASY with priority job.wait / job.walltime %.3f s (%.2fx)\n", a, b, b/a}'

sets=(--set "trace=$f" --set "kunkel_prices=$data/prices/T1.csv")
read -r j1 _ < <(measure "$bin" run scripts/bench/sweep.pwr "${sets[@]}" -j 1)
read -r j2 _ < <(measure "$bin" run scripts/bench/sweep.pwr "${sets[@]}" -j 2)
if cmp -s <("$bin" run scripts/bench/sweep.pwr "${sets[@]}" -j 1) <("$bin" run scripts/bench/sweep.pwr "${sets[@]}" -j 2); then same=identical; else same=DIFFERENT; fi
awk -v a="$j1" -v b="$j2" -v s="$same" 'BEGIN{printf "12-run sweep on HPC2N: -j 1 %.3f s, -j 2 %.3f s (%.2fx), output %s\n", a, b, a/b, s}'

# The machine model (node identities, levels, pstates) against the counted
# fast path on the same jobs.
m=(--set "hpc2n=$f" --set "curie_trace=$data/traces/CEA-Curie-2011-2.1-cln.swf.gz")
read -r hp _ < <(measure "$bin" run scripts/bench/machine.pwr "${m[@]}" --experiment hpc2n_plain)
read -r hr rr < <(measure "$bin" run scripts/bench/machine.pwr "${m[@]}" --experiment hpc2n_racks)
awk -v a="$hp" -v b="$hr" -v r="$rr" 'BEGIN{printf "HPC2N on 240 nodes: EASY %.3f s; rack_aware in 15 racks with idle nodes off %.3f s (%.2fx), %.0f MB\n", a, b, b/a, r/1024}'
read -r cp _ < <(measure "$bin" run scripts/bench/machine.pwr "${m[@]}" --experiment curie_plain)
read -r cl rl < <(measure "$bin" run scripts/bench/machine.pwr "${m[@]}" --experiment curie_levels)
awk -v a="$cp" -v b="$cl" -v r="$rl" 'BEGIN{printf "CEA-Curie partition 10 on 5,040 nodes: EASY %.3f s; with chassis, racks and pstates %.3f s (%.2fx), %.0f MB\n", a, b, b/a, r/1024}'

# Georgiou et al.'s powercap on CEA-Curie's partition 10 (Curie's levels
# and pstates, EASY): a 60 % MIX window noticed at the first submission
# (every pass until the window ends is a capped pass) and noticed 2 h
# before it, against the same run without one (within 2x); and a 60 % DVFS
# cap set for now every morning (every morning pass a capped pass).
g=(--set "trace=$data/traces/CEA-Curie-2011-2.1-cln.swf.gz")
read -r gp _ < <(measure "$bin" run scripts/bench/georgiou.pwr "${g[@]}" --experiment plain)
read -r gc _ < <(measure "$bin" run scripts/bench/georgiou.pwr "${g[@]}" --experiment capped)
read -r g2 _ < <(measure "$bin" run scripts/bench/georgiou.pwr "${g[@]}" --experiment notice2h)
read -r gm _ < <(measure "$bin" run scripts/bench/georgiou.pwr "${g[@]}" --experiment mornings)
awk -v a="$gp" -v b="$gc" -v c="$g2" -v d="$gm" 'BEGIN{printf "CEA-Curie partition 10 on Curie: EASY %.3f s; a 60 %% MIX window noticed at the first submission %.3f s (%.2fx), noticed 2 h before %.3f s (%.2fx); a 60 %% DVFS cap every morning %.3f s (%.2fx)\n", a, b, b/a, c, c/a, d, d/a}'

# Lawson & Smirni's online simulation on SDSC-BLUE (1,152 processors)
# against plain EASY: weekly (within 3x) and hourly (within 20x), and the
# look-ahead's decisions and simulations per second of the extra time.
f="$data/traces/SDSC-BLUE-2000-4.2-cln.swf.gz"
read -r le _ < <(measure "$bin" run scripts/bench/lawson.pwr --set "trace=$f" --experiment blue_easy)
for k in weekly hourly; do
  counts=$("$bin" run scripts/bench/lawson.pwr --set "trace=$f" --experiment "blue_ols_$k" --format json | grep -o '"ols_[a-z]*": [0-9]*' | grep -o '[0-9]*' | tr '\n' ' ')
  read -r lo _ < <(measure "$bin" run scripts/bench/lawson.pwr --set "trace=$f" --experiment "blue_ols_$k")
  read -r dec sims <<< "$counts"
  awk -v k="$k" -v a="$le" -v b="$lo" -v d="$dec" -v s="$sims" 'BEGIN{x=b-a; if (x < 0.001) x=0.001;
    printf "SDSC-BLUE: EASY %.3f s; OLS %s %.3f s (%.2fx); %d decisions, %d simulations: %.0f decisions/s, %.0f simulations/s of the extra time\n", a, k, b, b/a, d, s, d/x, s/x}'
done

# Overloaded queues: machines too small for their trace, and budgets that
# hold jobs back. Each is set beside the unloaded run it is compared with.
echo
echo "Overloaded queues (wall s, peak RSS, ratio to the run in brackets):"
curie="$data/traces/CEA-Curie-2011-2.1-cln.swf.gz"
hpc2n="$data/traces/HPC2N-2002-2.1-cln.swf.gz"
blue="$data/traces/SDSC-BLUE-2000-4.2-cln.swf.gz"
row() { awk -v c="$1" -v w="$2" -v r="$3" -v b="$4" -v a="$5" 'BEGIN{printf "%-62s %8.3f %7.1f MB %6.2fx  [%s]\n", c, w, r/1024, w/b, a}'; }
# (Each overloaded run in turns with the run it is compared with.)
replay=$(q "$bin" run examples/replay.pwr --set "trace=$curie" --set policy=easy)
mapfile -t t < <(measure_turns "$replay" "$replay --set nodes=70000" "$replay --set nodes=60000" \
  "$(q "$bin" run scripts/bench/zhou.pwr --experiment base --set "trace=$curie" -j 1)")
read -r cown rown <<< "${t[0]}"
row "CEA-Curie on its own 93,312 processors, EASY" "$cown" "$rown" "$cown" "itself"
for k in 1 2; do
  read -r w r <<< "${t[k]}"
  row "CEA-Curie on $((k == 1 ? 70000 : 60000)) processors, EASY" "$w" "$r" "$cown" "CEA-Curie on its own"
done
read -r w r <<< "${t[3]}"
row "CEA-Curie scaled onto Intrepid, bgp_easy" "$w" "$r" "$cown" "CEA-Curie on its own"
replay=$(q "$bin" run examples/replay.pwr --set "trace=$hpc2n" --set policy=easy)
mapfile -t t < <(measure_turns "$replay" "$replay --set nodes=160")
read -r hown hr <<< "${t[0]}"
row "HPC2N on its own 240 processors, EASY" "$hown" "$hr" "$hown" "itself"
read -r w r <<< "${t[1]}"
row "HPC2N on 160 of its 240 processors, EASY" "$w" "$r" "$hown" "HPC2N on its own"
# examples/zhou_trace.pwr (SDSC-BLUE on Intrepid): a budget run needs its
# baseline, so it is timed as (baseline + it) − baseline alone.
zhou=$(q "$bin" run scripts/bench/zhou.pwr --set "trace=$blue" -j 1)
mapfile -t t < <(measure_turns "$zhou --experiment base" "$zhou --experiment pair --set policy=zhou_pb50" \
  "$zhou --experiment pair --set policy=zhou_pb60" "$zhou --experiment pair --set policy=zhou_pb70" \
  "$zhou --experiment pair --set policy=zhou_pb80" "$zhou --experiment pair --set policy=zhou_pb90")
read -r base br <<< "${t[0]}"
row "SDSC-BLUE on Intrepid, bgp_easy (zhou_trace's baseline)" "$base" "$br" "$base" "itself"
for k in 1 2 3 4 5; do
  pb=$((40 + 10 * k))
  read -r w r <<< "${t[k]}"
  d=$(awk -v a="$w" -v b="$base" 'BEGIN{print a-b}')
  row "SDSC-BLUE on Intrepid, zhou_pb$pb alone (baseline+it − baseline)" "$d" "$r" "$base" "its baseline"
done
for j in 1 2; do
  read -r w r < <(measure "$bin" run examples/zhou_trace.pwr --set "trace=$blue" -j $j)
  row "examples/zhou_trace.pwr, all 18 runs, -j $j" "$w" "$r" "$base" "one baseline"
done
# A synthetic queue that reaches about 107,000 waiting jobs (230,000 jobs
# at load 3x on 256 nodes), and halves of it: memory per job.
pn=0 pr=0
for n in 57500 115000 230000; do
  read -r w r < <(measure "$bin" run scripts/bench/overload.pwr --set "jobs=$n")
  awk -v n="$n" -v w="$w" -v r="$r" -v pn="$pn" -v pr="$pr" 'BEGIN{
    printf "%-62s %8.3f %7.1f MB", "synthetic, load 3x on 256 nodes, " n " jobs, EASY", w, r/1024
    if (pn > 0) printf "  +%.0f bytes per job over %d jobs", (r-pr)*1024/(n-pn), pn
    printf "\n"}'
  pn=$n pr=$r
done

# Kunkel et al.'s price-aware start with the longest look-ahead (a
# decision at every pass) against FIFO with idle nodes off (within 2x).
d=(--set "trace=$data/traces/CEA-Curie-2011-2.1-cln.swf.gz" --set "prices=$data/prices/T1.csv")
read -r fs _ < <(measure "$bin" run scripts/bench/defer.pwr "${d[@]}" --set policy=fifo_shutdown)
read -r pd _ < <(measure "$bin" run scripts/bench/defer.pwr "${d[@]}" --set policy=price_aware_deadline_96)
awk -v a="$fs" -v b="$pd" 'BEGIN{printf "CEA-Curie: FIFO with shutdown %.3f s; PriceAwareDeadline, 96 h look-ahead %.3f s (%.2fx)\n", a, b, b/a}'

echo
report_case
