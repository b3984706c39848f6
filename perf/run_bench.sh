#!/usr/bin/env bash
# The standard kernel suite: D3Q19/D3Q27 x double/float at 64^3 and 128^3, D2Q9 at 1024^2,
# ab_pull, 2 OpenMP threads. Writes perf/results/<date>-<host>.jsonl (one JSON object per line,
# the first a "reference" line with the copy and 19-stream in-place bandwidths) and prints a table.
#   perf/run_bench.sh [BUILD_DIR] [extra boreas-bench options, e.g. --kernel ab_pull]
# Environment: THREADS (2), STEPS (20), REPEATS (5).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/bench}"
shift || true
[ -f "$build/CMakeCache.txt" ] || { echo "run_bench.sh: $build is not configured (cmake --preset openmp -B $build)" >&2; exit 1; }
threads="${THREADS:-2}" steps="${STEPS:-20}" repeats="${REPEATS:-5}"

# Reconfigure so that the binary records the current commit.
cmake "$build" > /dev/null
cmake --build "$build" --target boreas-bench -j2 > /dev/null
bench="$build/bin/boreas-bench"

mkdir -p "$root/perf/results"
out="$root/perf/results/$(date -u +%Y-%m-%dT%H%M%S)-$(hostname).jsonl"
export OMP_NUM_THREADS="$threads" OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
# The load average goes into every record: the machine may be shared. Configurations run one
# after another, so one's load_after is the next one's load_before.
load() { cut -d' ' -f1-3 /proc/loadavg; }
run() {
  local before after
  before="$(load)"
  "$bench" --steps "$steps" --repeats "$repeats" "$@" | while IFS= read -r line; do
    after="$(load)"
    printf '%s\n' "${line%\}},\"load_before\":\"$before\",\"load_after\":\"$after\"}"
    before="$after"
  done >> "$out"
}
run --lattice D3Q19 D3Q27 --precision double float --size 64 128 "$@"
run --lattice D2Q9 --precision double float --size 1024 "$@"

echo "wrote $out"
python3 "$root/perf/table.py" "$out"
