#!/usr/bin/env bash
# Registers, stack frame and SASS size of each dense D3Q19 device step (step_registers.cpp), as
# nvcc compiles them with the project's flags, without a GPU:
#   perf/gpu/step_registers.sh [ARCH]     (default sm_90; needs ./setup.sh --cuda --cuda-archs ampere80)
# Prints one line per kernel: step, precision, collision, registers, frame bytes, instructions.
set -euo pipefail
arch=${1:-sm_90}
root=$(cd "$(dirname "$0")/../.." && pwd)
kokkos=${KOKKOS_CUDA_ROOT:-$HOME/.cache/boreas/kokkos-cuda-ampere80}
[[ -x $kokkos/bin/nvcc_wrapper ]] || { echo "no $kokkos/bin/nvcc_wrapper: run ./setup.sh --cuda --cuda-archs ampere80" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The flags of the cuda-* presets (CMakeLists.txt): --fmad=false, extended lambdas, -O3.
NVCC_WRAPPER_DEFAULT_COMPILER=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++-11} "$kokkos/bin/nvcc_wrapper" \
    -I"$root" -isystem "$kokkos/include" -O3 -DNDEBUG --fmad=false -expt-extended-lambda -arch="$arch" -std=c++17 \
    -c "$root/perf/gpu/step_registers.cpp" -o "$tmp/steps.o"
cuobjdump -res-usage "$tmp/steps.o" > "$tmp/res.txt"
cuobjdump -sass "$tmp/steps.o" > "$tmp/sass.txt"
python3 - "$tmp/res.txt" "$tmp/sass.txt" <<'PY'
import re, subprocess, sys
demangle = lambda s: subprocess.run(["c++filt"], input=s, capture_output=True, text=True).stdout.strip()
res, sizes = {}, {}
lines = open(sys.argv[1]).read().splitlines()
for name, usage in zip(lines, lines[1:]):
    m, u = re.search(r"Function (\S+):", name), re.search(r"REG:(\d+) STACK:(\d+)", usage)
    if m and u:
        res[m.group(1)] = (int(u.group(1)), int(u.group(2)))
for block in re.split(r"\n\s*Function : ", open(sys.argv[2]).read())[1:]:
    name = block.split("\n", 1)[0].strip()
    sizes[name] = len(re.findall(r"/\*[0-9a-f]{4,}\*/", block))
names = {"PullStep": "ab_pull", "PushStep": "ab_push", "AALocalStep": "aa local", "AANeighbourStep": "aa neighbour"}
rows = []
for mangled, (reg, stack) in res.items():
    m = re.search(r"CellSweep<boreas::(\w+)<boreas::D3Q19, (\w+), boreas::(\w+)>", demangle(mangled))
    if m:
        rows.append((names[m.group(1)], m.group(2), m.group(3), reg, stack, sizes.get(mangled, 0)))
print(f"{'step':<14}{'real':<8}{'collision':<10}{'registers':>10}{'frame':>7}{'instructions':>14}")
for r in sorted(rows):
    print(f"{r[0]:<14}{r[1]:<8}{r[2]:<10}{r[3]:>10}{r[4]:>7}{r[5]:>14}")
PY
