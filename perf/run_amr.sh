#!/usr/bin/env bash
# AMR figures on this machine: each AMR deck ROUNDS times, interleaved with the uniform run at its
# finest spacing where one exists, plus boreas-bench's ab_pull on a box of the finest level's
# size (MLUPS and the STREAM-copy bandwidth measured by that run, the memory reference). Prints a
# table of medians; raw lines go to OUT.jsonl.
#   perf/run_amr.sh BUILD_DIR [OUT.jsonl]      (BUILD_DIR holds bin/boreas and bin/boreas-bench)
# Env: ROUNDS (3).
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,7p' "$0"; exit 2; }
BIN=$(cd "$1" && pwd)/bin OUT=${2:+$(realpath -m "$2")} ROUNDS=${ROUNDS:-3}
cd "$(dirname "$0")/.."  # the decks' paths are the repository's
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/runs.jsonl"
run() {  # a failing run names itself and shows its output (set -e would end the script silently)
  "$@" >"$tmp/log" 2>&1 || { echo "run_amr.sh: failed: $*" >&2; tail -n 20 "$tmp/log" >&2; exit 1; }
}
record() {  # name, report.json
  python3 - "$1" "$2" >> "$tmp/runs.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))
a = r.get("amr", {})
print(json.dumps({"case": sys.argv[1], "mlups": r["mlups"], "steps": r["steps"], "wall_s": r["wall_time_s"],
                  "levels": [l["fluid_leaf_cells"] for l in a.get("levels", [])],
                  "uniform_finest_equivalent_mlups": a.get("uniform_finest_equivalent_mlups"),
                  "timing_s": r["timing_s"], "backend": r["backend"], "load": open("/proc/loadavg").read().split()[:3]}))
PY
}
for round in $(seq 1 "$ROUNDS"); do
  run "$BIN/boreas" inputs/cavity2d_amr.toml -q --output-dir "$tmp/c" --set output.vtk=false
  record cavity2d_amr "$tmp/c/report.json"
  # The uniform grid at cavity2d_amr's finest spacing (128^2), as many steps of that spacing.
  run "$BIN/boreas" inputs/cavity2d_re100.toml -q --output-dir "$tmp/u" --set output.vtk=false \
    --set 'domain.cells=[128,128]' --set physics.length=128 --set simulation.steps=12000
  record cavity2d_uniform128 "$tmp/u/report.json"
  run "$BIN/boreas" inputs/cylinder2d_amr.toml -q --output-dir "$tmp/y" --set output.vtk=false \
    --set simulation.steps=4000
  record cylinder2d_amr "$tmp/y/report.json"
  run "$BIN/boreas-bench" --lattice D2Q9 --size 128x128x1 --kernel ab_pull --steps 200 --repeats 3
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if not l.startswith("{"): continue  # Kokkos may print warnings
    d = json.loads(l)
    if d.get("kind") == "kernel": print(json.dumps({"case": "bench_ab_pull_128x128", "mlups": d["mlups"], "copy_traffic_gbs": d["copy_traffic_gbs"], "copy_fraction": d["copy_fraction"], "bytes_per_update": d["bytes_per_update"]}))' "$tmp/log" >> "$tmp/runs.jsonl"
done
[[ -z $OUT ]] || cp "$tmp/runs.jsonl" "$OUT"
python3 - "$tmp/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
print("| case | MLUPS (median; AMR: level-weighted) | uniform-finest equivalent MLUPS | lbm / amr share | runs |")
print("|---|---|---|---|---|")
for case in dict.fromkeys(r["case"] for r in runs):
    rs = [r for r in runs if r["case"] == case]
    m = statistics.median(r["mlups"] for r in rs)
    eq = [r["uniform_finest_equivalent_mlups"] for r in rs if r.get("uniform_finest_equivalent_mlups")]
    share = ""
    if "timing_s" in rs[0] and "amr" in rs[0]["timing_s"]:
        t = rs[len(rs) // 2]["timing_s"]
        tot = t["lbm"] + t["amr"]
        share = f'{t["lbm"] / tot:.0%} / {t["amr"] / tot:.0%}'
    extra = (f', copy traffic {statistics.median(r["copy_traffic_gbs"] for r in rs):.1f} GB/s'
             if "copy_traffic_gbs" in rs[0] else "")
    print(f"| {case} | {m:.1f}{extra} | {statistics.median(eq):.1f} | {share} | {len(rs)} |" if eq else
          f"| {case} | {m:.1f}{extra} | – | {share} | {len(rs)} |")
PY
