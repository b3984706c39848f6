#!/usr/bin/env bash
# A host stand-in for a GPU's separate memory (issue 16). On a host backend Kokkos's
# create_mirror_view and create_mirror_view_and_copy hand back the device view itself, so a host
# copy filled without a deep_copy to the device, or read without one from it, still works here and
# goes wrong only on a GPU. This builds Boreas (openmp preset, BUILD_DIR) against a copy of the
# installed Kokkos_CopyViews.hpp in which those calls always allocate a separate view (as on a GPU;
# the copy lives in BUILD_DIR, nothing of Kokkos is kept in the repository), then runs the tests
# without `long` and perf/gpu/deck_hashes.sh against the ordinary openmp build's hashes.
#   perf/distinct_mirrors.sh [ctest arguments...]
# Outputs in BUILD_DIR: tests.log, hashes.txt. Exit 0 when every test passed and every hash agreed.
# Env: BUILD_DIR (build/mirror), JOBS (2, compiling), TEST_JOBS (1), TARGETS (all), HASH_STEPS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/mirror}
jobs=${JOBS:-2}
log() { echo "==> [distinct-mirrors $(date -u +%T)] $*"; }

cmake --preset openmp -B "$build" > /dev/null  # only to find the Kokkos the preset uses
kokkos_dir=$(sed -n 's/^Kokkos_DIR:PATH=//p' "$build/CMakeCache.txt")
header=$(cd "$kokkos_dir/../../../include" && pwd)/Kokkos_CopyViews.hpp
[[ -f $header ]] || { echo "no Kokkos_CopyViews.hpp beside $kokkos_dir" >&2; exit 2; }
overlay=$build/kokkos-overlay
mkdir -p "$overlay"
python3 - "$header" "$overlay/Kokkos_CopyViews.hpp" <<'PY'
import sys
text = open(sys.argv[1]).read()
copy = "typename Kokkos::View<T, P...>::non_const_type m("
fresh = copy + "Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(src.label())), src.layout());"
same_space = "        Impl::MirrorViewType<Space, T, P...>::is_same_memspace>::type* =\n        nullptr) {\n"
swaps = [  # (what Kokkos 3.4 says for a mirror in the same memory space, what a device would do)
    ("             value)>::type* = nullptr) {\n  return src;\n}",
     "             value)>::type* = nullptr) {\n  return Kokkos::create_mirror(src);\n}"),
    ("    Kokkos::Impl::WithoutInitializing_t,\n    typename std::enable_if<\n" + same_space + "  return src;\n}",
     "    Kokkos::Impl::WithoutInitializing_t,\n    typename std::enable_if<\n" + same_space + "  " + fresh + "\n  return m;\n}"),
    (same_space + "  return src;\n}",
     same_space + "  " + copy + "std::string(src.label()), src.layout());\n  return m;\n}"),
    ("  (void)name;\n  fence();  // same behavior as deep_copy(src, src)\n  return src;",
     "  (void)name;\n  " + fresh + "\n  deep_copy(m, src);\n  fence();\n  return m;"),
]
for old, new in swaps:
    if text.count(old) != 1:
        sys.exit(f"Kokkos_CopyViews.hpp: expected one '{old.splitlines()[-2].strip()}' form (is this Kokkos 3.4?)")
    text = text.replace(old, new)
open(sys.argv[2], "w").write(text)
PY
# -I precedes the -isystem Kokkos include directory the targets carry.
cmake --preset openmp -B "$build" -DCMAKE_CXX_FLAGS="-I$overlay" > /dev/null
log "building ${TARGETS:-all} in $build"
cmake --build "$build" -j "$jobs" ${TARGETS:+--target $TARGETS}
log "tests without long"
status=0
OMP_PROC_BIND=false ctest --test-dir "$build" -LE long -j "${TEST_JOBS:-1}" --timeout 600 --output-on-failure "$@" \
    > "$build/tests.log" 2>&1 || status=1
tail -30 "$build/tests.log"
log "deck hashes against the openmp build's"
reference=$build/openmp_hashes.jsonl
cmake --build "$root/build/openmp" --target boreas > /dev/null
"$root/perf/gpu/deck_hashes.sh" "$root/build/openmp" "$reference"
"$root/perf/gpu/deck_hashes.sh" "$build" "$build/mirror_hashes.jsonl" "$reference" | tee "$build/hashes.txt"
grep -q "differs" "$build/hashes.txt" && status=1
exit $status
