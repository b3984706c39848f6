#!/usr/bin/env bash
# fields_hash of decks after several step counts, one JSON line per run: run with the host build
# (perf/gpu/prepare.sh packs its lines as gpu-pack/host_hashes.jsonl) and with the GPU build
# (perf/gpu/run.sh hashes), it shows whether and from which step the backends part. On an H200
# (2026-11-28) amr_strong gave the host's hash after 20 steps, amr_nested not after 200.
#   perf/gpu/deck_hashes.sh BUILD_DIR OUT.jsonl [REFERENCE.jsonl]
# Also amr_nested's features apart (below). With REFERENCE, prints per case whether the hash is
# the reference's. Env: HASH_STEPS (amr_nested's step counts, "1 10 99 100 101 200"), REPEAT (runs
# of each case, 1; 2 shows whether a backend repeats itself).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,9p' "$0"; exit 2; }
boreas=$1/bin/boreas out=$2 reference=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: > "$out"
run() {  # label, deck, boreas arguments...
  local label=$1 deck=$2; shift 2
  for k in $(seq 1 "${REPEAT:-1}"); do
    # boreas's own messages go to stderr (run.sh's log): a failure there says why.
    local status=0
    "$boreas" "$deck" -q --output-dir "$tmp/run" "$@" > /dev/null || status=$?
    python3 - "$label" "$tmp/run/report.json" "$k" "$status" >> "$out" <<'PY'
import json, sys
label, path, k, status = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    r = json.load(open(path))
    print(json.dumps({"case": label, "repeat": k, "exit": status, "steps": r["steps"], "fields_hash": r["fields_hash"],
                      "backend": r["backend"]["execution_space"]}))
except (OSError, ValueError, KeyError) as e:
    print(json.dumps({"case": label, "repeat": k, "exit": status, "error": str(e)}))
PY
    rm -rf "$tmp/run"
  done
}
for steps in ${HASH_STEPS:-1 10 99 100 101 200}; do
  run "amr_nested_$steps" "$root/perf/amr_nested.toml" --set simulation.steps="$steps"
done
# amr_nested's features apart, each 101 steps (through one mass restoration): side faces periodic
# (no interface meets a wall; amr_strong, which agreed, has none that does), two levels (no
# level-2 slab), the level-2 slab away from the lid (the lid on level 1).
nested=$root/perf/amr_nested.toml
{ cat "$nested"; printf '[boundary.%s]\ntype = "periodic"\n' x_min x_max z_min z_max; } > "$tmp/nested_periodic_xz.toml"
awk '/^\[\[amr.region\]\]/ {n++} /^\[[^[]/ && n {n = 99} n == 2 {next} {print}' "$nested" | sed 's/^max_level = 2/max_level = 1/' \
    > "$tmp/nested_two_levels.toml"
awk '/^\[\[amr.region\]\]/ {n++} /^\[[^[]/ && n {n = 99} n == 2 && /^lo =/ {$0 = "lo = [0, 18, 0]"} n == 2 && /^hi =/ {$0 = "hi = [31, 25, 31]"} {print}' \
    "$nested" > "$tmp/nested_lid_on_level1.toml"
for variant in periodic_xz two_levels lid_on_level1; do
  run "amr_nested_${variant}_101" "$tmp/nested_$variant.toml" --set simulation.steps=101
done
run amr_strong_20 "$root/perf/scaling/amr_strong.toml"
run cavity3d_64_100 "$root/inputs/cavity3d.toml" --set "domain.cells=[64,64,64]" --set physics.length=64 \
    --set simulation.steps=100 --set output.vtk=false
[[ -n $reference && -f $reference ]] || exit 0
python3 - "$out" "$reference" <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = {}
for l in open(sys.argv[2]):
    d = json.loads(l)
    ref.setdefault(d["case"], d.get("fields_hash"))
for d in ours:
    h, r = d.get("fields_hash"), ref.get(d["case"])
    same = h is not None and h == r  # no hash on either side is no agreement
    print(f"{d['case']:>20} #{d['repeat']}: {h} {'= reference' if same else f'differs from the reference {r}'}")
PY
