#!/usr/bin/env bash
# Regenerates cmd/pwrc/default.pgo, the CPU profile `go build` uses for
# profile-guided optimization of pwrc (Go's -pgo=auto): representative
# runs — replays of CEA-Curie and HPC2N, CEA-Curie on a machine too small
# for it, a synthetic queue at load 3x, a Zhou budget run — each profiled
# 5 times and merged. Rerun it after large changes to the engine; a stale
# profile still builds, it only optimizes less.
#
#   scripts/pgo.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-${PWRC_DATA:-../shared/data}}
[ -d "$data/traces" ] || { echo "no traces in $data (give the shared data directory)" >&2; exit 1; }
t="$(cd "$data" && pwd)/traces"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -pgo=off -o "$dir/pwrc" ./cmd/pwrc
runs=(
  "examples/replay.pwr --set trace=$t/CEA-Curie-2011-2.1-cln.swf.gz --set policy=easy"
  "examples/replay.pwr --set trace=$t/CEA-Curie-2011-2.1-cln.swf.gz --set policy=easy --set nodes=60000"
  "examples/replay.pwr --set trace=$t/HPC2N-2002-2.1-cln.swf.gz --set policy=easy"
  "scripts/bench/overload.pwr --set jobs=115000"
  "scripts/bench/zhou.pwr --experiment pair --set trace=$t/SDSC-BLUE-2000-4.2-cln.swf.gz --set policy=zhou_pb50"
)
i=0
for _ in 1 2 3 4 5; do
  for r in "${runs[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # (each entry is a command line)
    "$dir/pwrc" run $r --cpuprofile "$dir/p$i.prof" >/dev/null
  done
done
go tool pprof -proto "$dir"/p*.prof > "$dir/merged.pgo"
mv "$dir/merged.pgo" cmd/pwrc/default.pgo
echo "wrote cmd/pwrc/default.pgo ($(wc -c < cmd/pwrc/default.pgo) bytes from $i runs)"
