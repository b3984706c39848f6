#!/usr/bin/env bash
# The CPU targets of issue 5 at 256^3, D3Q19 double: the best single-step variants against the
# merged ones, ROUNDS rounds interleaved (the machine is shared: compare medians of rounds and
# ratios within a round). Appends JSON lines to perf/results/<date>-<host>-targets.jsonl and
# prints, per round, MLUPS, the fraction of the variant's own roofline (its traffic without
# arithmetic, drivers/bench/StreamReference.hpp), the fraction of the copy's actual traffic, and
# merged / best single step. (The reference line's 19-stream in-place bandwidth is kept in the
# file but not used: at 256^3 it runs at 6-8 GB/s, below what aa itself moves.)
#   perf/targets.sh [BUILD_DIR]
# Environment: THREADS (2), ROUNDS (3), SIZE (256), STEPS (12: a multiple of 2 and 3), REPEATS (5),
# KERNELS ("ab_pull aa merged3 merged_aa2 merged_aa3").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build/openmp}"
[ -f "$build/CMakeCache.txt" ] || { echo "targets.sh: $build is not configured (cmake --preset ...)" >&2; exit 1; }
cmake "$build" > /dev/null
cmake --build "$build" --target boreas-bench -j2 > /dev/null
bench="$build/bin/boreas-bench"
rounds="${ROUNDS:-3}" size="${SIZE:-256}" steps="${STEPS:-12}" repeats="${REPEATS:-5}"
kernels="${KERNELS:-ab_pull aa merged3 merged_aa2 merged_aa3}"
mkdir -p "$root/perf/results"
out="$root/perf/results/$(date -u +%Y-%m-%dT%H%M%S)-$(hostname)-targets.jsonl"
export OMP_NUM_THREADS="${THREADS:-2}" OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"
for round in $(seq "$rounds"); do
  for kernel in $kernels; do
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    "$bench" --lattice D3Q19 --precision double --size "$size" --steps "$steps" --repeats "$repeats" \
      --kernel "$kernel" |
      while IFS= read -r line; do printf '%s\n' "${line%\}},\"round\":$round,\"load_before\":\"$load\"}"; done >> "$out"
  done
done
echo "wrote $out"
python3 - "$out" <<'PY'
import json, sys, statistics
rows = [d for d in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")) if d["kind"] == "kernel"]
merged = lambda k: k.startswith("merged")
for r in sorted({d["round"] for d in rows}):
    print(f"round {r}")
    best_single = max((d["mlups"] for d in rows if d["round"] == r and not merged(d["kernel"])), default=None)
    for d in (d for d in rows if d["round"] == r):
        ratio = f"  {d['mlups'] / best_single:.2f}x best single step" if merged(d["kernel"]) and best_single else ""
        print(f"  {d['kernel']:<11} {d['mlups']:7.1f} MLUPS  {d['roofline_fraction']:.2f} of its roofline"
              f"  {d['copy_fraction']:.2f} of the copy's traffic ({d['copy_traffic_gbs']:.1f} GB/s){ratio}")
for k in dict.fromkeys(d["kernel"] for d in rows):
    m = [d["mlups"] for d in rows if d["kernel"] == k]
    print(f"median {k:<11} {statistics.median(m):7.1f} MLUPS over {len(m)} rounds")
PY
