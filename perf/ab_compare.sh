#!/usr/bin/env bash
# A/B of two boreas-bench binaries (e.g. before and after a change), interleaved so that both see
# the same machine state: ROUNDS rounds, each running every (kernel, size) case on A and B, A first
# in odd rounds and B first in even ones.
#   perf/ab_compare.sh OLD_BENCH NEW_BENCH [OUT.jsonl]
# Env: KERNELS (default "aa ab_pull"), SIZES ("128 256"), ROUNDS (3), STEPS (10), REPEATS (3).
# Prints per case the median MLUPS of A and B over the rounds and B / A; the raw lines (one per
# run, with "build": "A" or "B" and the round) go to OUT.jsonl.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,7p' "$0"; exit 2; }
A=$1 B=$2 OUT=${3:-}
KERNELS=${KERNELS:-"aa ab_pull"} SIZES=${SIZES:-"128 256"} ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-10} REPEATS=${REPEATS:-3}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/runs.jsonl"
for round in $(seq 1 "$ROUNDS"); do
  for size in $SIZES; do
    for kernel in $KERNELS; do
      order="A B"; (( round % 2 == 0 )) && order="B A"  # alternate who runs first
      for build in $order; do
        exe=$A; [[ $build == B ]] && exe=$B
        # A failing bench names itself and shows its error (set -e would end the script silently).
        "$exe" --size "$size" --kernel "$kernel" --steps "$STEPS" --repeats "$REPEATS" >"$tmp/out" 2>"$tmp/err" || {
          echo "ab_compare.sh: $build ($exe --size $size --kernel $kernel) failed:" >&2; cat "$tmp/err" >&2; exit 1; }
        line=$(grep '^{' "$tmp/out" | tail -1 || true)
        [[ -n $line ]] || { echo "ab_compare.sh: $build printed no result line:" >&2; cat "$tmp/out" "$tmp/err" >&2; exit 1; }
        python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["build"]=sys.argv[2]; d["round"]=int(sys.argv[3]); d["load"]=open("/proc/loadavg").read().split()[:3]; print(json.dumps(d))' \
          "$line" "$build" "$round" >> "$tmp/runs.jsonl"
      done
    done
  done
done
[[ -z $OUT ]] || cp "$tmp/runs.jsonl" "$OUT"
python3 - "$tmp/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
cases = sorted({(r["kernel"], r["n_cells"]) for r in runs}, key=lambda c: (c[1], c[0]))
print("| kernel | cells | A MLUPS (median) | B MLUPS (median) | B / A | per round B / A |")
print("|---|---|---|---|---|---|")
for k, n in cases:
    a = [r["mlups"] for r in runs if r["kernel"] == k and r["n_cells"] == n and r["build"] == "A"]
    b = [r["mlups"] for r in runs if r["kernel"] == k and r["n_cells"] == n and r["build"] == "B"]
    per = [f"{y / x:.2f}" for x, y in zip(a, b)]
    side = round(n ** (1 / 3))
    print(f"| {k} | {side}^3 | {statistics.median(a):.1f} | {statistics.median(b):.1f} | "
          f"{statistics.median(b) / statistics.median(a):.3f} | {' '.join(per)} |")
PY
