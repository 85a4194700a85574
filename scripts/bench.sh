#!/usr/bin/env bash
# Benchmarks the whole `pwrc run` (parse, simulate, render the table) on the
# large traces of the shared data set, per policy, and prints: jobs, wall
# seconds (best of N), jobs/s, peak RSS, and the ratio to merely reading the
# gzipped trace (zcat | wc -l). Then a time-dependent priority rule against
# plain EASY, and a 12-run sweep with -j 1 and -j 2.
#
#   scripts/bench.sh [DATA_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-${PWRC_DATA:-../shared/data}}
reps=${2:-5}
[ -d "$data/traces" ] || { echo "no traces in $data (give the shared data directory)" >&2; exit 1; }
data=$(cd "$data" && pwd)

bin=$(mktemp -d)/pwrc
tfile=$(mktemp)
trap 'rm -rf "$(dirname "$bin")" "$tfile"' EXIT
go build -o "$bin" ./cmd/pwrc

# best wall time and peak RSS (KB) of REPS runs of a command
measure() {
  local best="" rss=0
  for _ in $(seq "$reps"); do
    /usr/bin/time -o "$tfile" -f "%e %M" "$@" >/dev/null 2>&1
    read -r t m < "$tfile"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $rss"
}

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
