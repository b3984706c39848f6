#!/usr/bin/env bash
# The kernel table of issue 5: every streaming variant x storage layout x size x precision on a
# periodic D3Q19 box, one boreas-bench run each (it measures its own copy bandwidth), 2 OpenMP
# threads. Appends JSON lines to perf/results/<date>-<host>-kernels.jsonl, then prints the table
# and draws perf/results/kernels.png (perf/kernel_plot.py).
#   perf/kernel_sweep.sh [BUILD_DIR]
# Environment: THREADS (2), STEPS (6), REPEATS (3), SIZES ("64 128"), BIG (256: the size only the
# variants that finish in reasonable time also run, double, SoA; empty to skip).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/openmp}"
threads="${THREADS:-2}" steps="${STEPS:-6}" repeats="${REPEATS:-3}"
sizes="${SIZES:-64 128}" big="${BIG-256}"
# Reconfigure so that the binary records the current commit.
[ -f "$build/CMakeCache.txt" ] || { echo "kernel_sweep.sh: $build is not configured (cmake --preset ...)" >&2; exit 1; }
cmake "$build" > /dev/null
cmake --build "$build" --target boreas-bench -j2 > /dev/null
bench="$build/bin/boreas-bench"

mkdir -p "$root/perf/results"
out="$root/perf/results/$(date -u +%Y-%m-%dT%H%M%S)-$(hostname)-kernels.jsonl"
export OMP_NUM_THREADS="$threads" OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"
load() { cut -d' ' -f1-3 /proc/loadavg; }
run() {
  local before
  before="$(load)"
  # Only the kernel lines: the reference line repeats for every configuration.
  "$bench" --lattice D3Q19 --steps "$steps" --repeats "$repeats" "$@" | grep '"kind":"kernel"' |
    while IFS= read -r line; do
      printf '%s\n' "${line%\}},\"load_before\":\"$before\",\"load_after\":\"$(load)\"}"
    done >> "$out"
}
for kernel in ab_pull ab_push aa swap swap_prism merged2 merged3 merged_aa2 merged_aa3; do
  for layout in soa aosoa; do
    # shellcheck disable=SC2086
    run --kernel "$kernel" --layout "$layout" --precision double float --size $sizes
  done
done
if [ -n "$big" ]; then
  for kernel in ab_pull aa merged2 merged3 merged_aa2 merged_aa3; do run --kernel "$kernel" --precision double --size "$big"; done
fi
echo "wrote $out"
python3 "$root/perf/kernel_plot.py" "$out"
