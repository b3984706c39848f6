#!/usr/bin/env bash
# The AMR leaf step against the dense kernel on the same cells (issue 13: leaf kernels on 4^3 and
# 8^3 leaves >= 0.7x the dense kernel's MLUPS). A periodic SIZE^3 D3Q19 TRT box at rest, once
# tiled into leaves of 4^3, 8^3 and 16^3 cells on one AMR level (no interfaces: what is timed is
# the leaf step and the same-level ghost copies), once as the uniform grid through the same driver
# (ab_pull), and boreas-bench's ab_pull on the same box with the STREAM-copy bandwidth that run
# measures. ROUNDS interleaved rounds; prints a table of medians, raw lines go to OUT.jsonl
# (perf/amr_leaf_plot.py OUT.jsonl OUT.png plots them).
#   perf/amr_leaf_kernels.sh BUILD_DIR [OUT.jsonl]   (BUILD_DIR holds bin/boreas and bin/boreas-bench)
# Env: ROUNDS (3), SIZE (64), STEPS (50), OMP_NUM_THREADS (as set).
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,10p' "$0"; exit 2; }
BIN=$1/bin OUT=${2:-/dev/null} ROUNDS=${ROUNDS:-3} SIZE=${SIZE:-64} STEPS=${STEPS:-50}
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
periodic=""
for face in x_min x_max y_min y_max z_min z_max; do periodic+=$'\n'"[boundary.$face]"$'\ntype = "periodic"'; done
cat > "$tmp/box.toml" <<EOF
[simulation]
name = "leaf_box"
steps = $STEPS
kernel = "ab_pull"
[lattice]
model = "D3Q19"
[domain]
cells = [$SIZE, $SIZE, $SIZE]
[collision]
model = "TRT"
[physics]
tau = 0.6
$periodic
[output]
vtk = false
EOF
# Each record goes to OUT as it is made, so that a run cut short (a device call's limit) keeps the
# rounds it finished.
record() {  # case, report.json
  python3 - "$1" "$2" "$SIZE" <<'PY' | tee -a "$OUT" >> "$tmp/runs.jsonl"
import json, sys
r = json.load(open(sys.argv[2]))
t = r["timing_s"]
print(json.dumps({"case": sys.argv[1], "size": int(sys.argv[3]), "steps": r["steps"], "wall_s": r["wall_time_s"], "mlups": r["mlups"],
                  "lbm_s": t["lbm"], "halo_copies_s": t.get("halo_copies", 0.0), "timing_s": t,
                  "load": open("/proc/loadavg").read().split()[:3]}))
PY
}
: > "$tmp/runs.jsonl"
[[ $OUT == /dev/null ]] || : > "$OUT"
for round in $(seq 1 "$ROUNDS"); do
  for n in 4 8 16; do
    cp "$tmp/box.toml" "$tmp/leaf$n.toml"
    printf '[amr]\nleaf_size = %d\nmax_level = 0\n' "$n" >> "$tmp/leaf$n.toml"
    "$BIN/boreas" "$tmp/leaf$n.toml" -q --output-dir "$tmp/o$n" >/dev/null
    record "leaves_$n" "$tmp/o$n/report.json"
  done
  "$BIN/boreas" "$tmp/box.toml" -q --output-dir "$tmp/u" >/dev/null
  record uniform "$tmp/u/report.json"
  "$BIN/boreas-bench" --lattice D3Q19 --collision TRT --kernel ab_pull --size "$SIZE" --steps "$STEPS" --repeats 3 |
    python3 -c 'import json,sys
for l in sys.stdin:
    if not l.startswith("{"): continue
    d = json.loads(l)
    if d.get("kind") == "kernel": print(json.dumps({"case": "bench_ab_pull", "size": d["cells"][0], "mlups": d["mlups"], "copy_traffic_gbs": d["copy_traffic_gbs"], "copy_fraction": d["copy_fraction"]}))' \
    | tee -a "$OUT" >> "$tmp/runs.jsonl"
done
python3 - "$tmp/runs.jsonl" "$SIZE" <<'PY'
import json, sys
from statistics import median as med
runs = [json.loads(l) for l in open(sys.argv[1])]
updates = int(sys.argv[2]) ** 3
bench = [r for r in runs if r["case"] == "bench_ab_pull"]
dense = med(r["mlups"] for r in bench)
print(f"boreas-bench ab_pull: {dense:.1f} MLUPS, {med(r['copy_fraction'] for r in bench):.0%} of the "
      f"{med(r['copy_traffic_gbs'] for r in bench):.1f} GB/s of traffic of the STREAM copy it measured")
print("| case | step MLUPS (lbm timer) | x dense | step + ghost copies MLUPS | x dense | runs |")
print("|---|---|---|---|---|---|")
for case in ["uniform", "leaves_4", "leaves_8", "leaves_16"]:
    rs = [r for r in runs if r["case"] == case]
    step = med(updates * r["steps"] / r["lbm_s"] / 1e6 for r in rs)
    both = med(updates * r["steps"] / (r["lbm_s"] + r["halo_copies_s"]) / 1e6 for r in rs)
    print(f"| {case} | {step:.1f} | {step / dense:.2f} | {both:.1f} | {both / dense:.2f} | {len(rs)} |")
PY
