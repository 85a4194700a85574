#!/usr/bin/env bash
# Counts the instructions the engine executes (valgrind's callgrind) for
# the runtime's benchmark cases: the replays of CEA-Curie, HPC2N and
# SDSC-BLUE under EASY, and the overloaded queues (CEA-Curie on 70,000 and
# 60,000 processors, scaled onto Intrepid, with Zhou's budget; bench.sh's
# synthetic queue). Instruction counts are the same from one run to the
# next whatever else the machine is doing (two runs agree to about 0.2 %),
# where wall times on a shared 2-core VM move by a third: use them to
# compare two versions of the engine.
#
#   scripts/instructions.sh [DATA_DIR]
#
# A case's count is the test binary's with two iterations of the
# benchmark less its count with one: one simulation, without the set-up
# (reading and cleaning the trace). Counting only inside the simulation
# function instead (callgrind's --toggle-collect) undercounts whenever Go
# moves the goroutine to another thread. Needs valgrind (Debian's
# package). GOGC=off: collections vary from run to run;
# GODEBUG=asyncpreemptoff=1: callgrind aborts on the signals of Go's
# asynchronous preemption.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-${PWRC_DATA:-../shared/data}}
[ -d "$data/traces" ] || { echo "no traces in $data (give the shared data directory)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
export PWRC_DATA
PWRC_DATA=$(cd "$data" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/runtime.test" ./runtime

total() { # bench regex, iterations -> instructions of the whole test binary
	(cd runtime && GOGC=off GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
		--callgrind-out-file="$dir/cg.out" "$dir/runtime.test" -test.run '^$' \
		-test.bench "$1" -test.benchtime "$2x" -test.cpu 1 >/dev/null 2>&1)
	awk '/^totals:/ {print $2}' "$dir/cg.out"
}
count() { echo $(($(total "$1" 2) - $(total "$1" 1))); }

printf '%-48s %16s %7s\n' case instructions ratio
row() { # case, instructions, and those of the run it is compared with (if any)
	awk -v c="$1" -v n="$2" -v b="${3:-}" 'BEGIN{r = b == "" ? "" : sprintf("%.2f", n/b); printf "%-48s %16.0f %7s\n", c, n, r}'
}
curie=$(count 'Engine/CEA-Curie.*/easy$')
row "CEA-Curie on its own machine, EASY" "$curie" "$curie"
row "CEA-Curie on 70,000 processors, EASY" "$(count 'Overloaded/curie_70000$')" "$curie"
row "CEA-Curie on 60,000 processors, EASY" "$(count 'Overloaded/curie_60000$')" "$curie"
row "CEA-Curie scaled onto Intrepid, bgp_easy" "$(count 'Overloaded/curie_intrepid$')" "$curie"
row "the same with a budget during peak (knapsack)" "$(count 'Overloaded/curie_intrepid_budget$')" "$curie"
row "synthetic, 230,000 jobs at load 3x on 256 nodes" "$(count 'Overloaded/synthetic_3x$')"
for t in HPC2N SDSC-BLUE; do
	row "$t on its own machine, EASY" "$(count "Engine/$t.*/easy\$")"
done
for p in fcfs greedy; do
	row "HPC2N on its own machine, $p" "$(count "Engine/HPC2N.*/$p\$")"
done
