#!/usr/bin/env bash
# A host stand-in for two ways a GPU differs from a host backend (issue 16), so that code which
# works here only by the host's grace fails here too:
#  - separate memory: a host backend's create_mirror_view / create_mirror_view_and_copy hand back
#    the device view itself, so a host copy filled without a deep_copy to the device, or read
#    without one from it, works here and goes wrong only on a GPU. Here they always allocate.
#  - order: a GPU runs a kernel's work items in any order at once; OpenMP runs each thread's chunk
#    in ascending order. Here a RangePolicy parallel_for runs the items of each chunk in
#    descending order (with one thread, as the deck hashes below: the whole launch), so a work item
#    that reads what another writes in the same launch (a race on a GPU) changes the result. On a
#    host a dense step's work item is a row of cells (for_each_cell), so a race inside a row stays
#    hidden; MDRange, team and reduction loops keep their order.
# It builds Boreas (openmp preset, BUILD_DIR, without ccache: a first build through it was served
# objects made without one of the changed headers) against copies of the installed Kokkos 3.4's
# Kokkos_CopyViews.hpp and OpenMP/Kokkos_OpenMP_Parallel.hpp so changed (made in BUILD_DIR; nothing
# of Kokkos is kept in the repository), runs the tests without `long` and perf/gpu/deck_hashes.sh
# on one thread against the ordinary openmp build's hashes.
#   perf/host_as_device.sh [ctest arguments...]
# Outputs in BUILD_DIR: tests.log, hashes.txt. Exit 0 when every test passed and every hash agreed.
# Env: BUILD_DIR (build/host-as-device), JOBS (2, compiling), TEST_JOBS (1), TARGETS (all), HASH_STEPS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build/host-as-device}
jobs=${JOBS:-2}
log() { echo "==> [host-as-device $(date -u +%T)] $*"; }

cmake --preset openmp -B "$build" > /dev/null  # only to find the Kokkos the preset uses
kokkos_dir=$(sed -n 's/^Kokkos_DIR:PATH=//p' "$build/CMakeCache.txt")
include=$(cd "$kokkos_dir/../../../include" && pwd)
overlay=$build/kokkos-overlay
mkdir -p "$overlay/OpenMP"
python3 - "$include" "$overlay" <<'PY'
import sys
include, overlay = sys.argv[1], sys.argv[2]

def patch(name, swaps):
    text = open(f"{include}/{name}").read()
    for old, new in swaps:
        if text.count(old) != 1:
            sys.exit(f"{name}: expected one '{old.splitlines()[-2].strip()}' (is this Kokkos 3.4?)")
        text = text.replace(old, new)
    target = f"{overlay}/{name}"
    try:
        if open(target).read() == text:
            return  # unchanged: no rebuild of everything that includes Kokkos
    except OSError:
        pass
    open(target, "w").write(text)

# Mirrors in the same memory space: Kokkos returns the view itself; a device would allocate.
copy = "typename Kokkos::View<T, P...>::non_const_type m("
fresh = copy + "Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(src.label())), src.layout());"
same_space = "        Impl::MirrorViewType<Space, T, P...>::is_same_memspace>::type* =\n        nullptr) {\n"
uninitialised = "    Kokkos::Impl::WithoutInitializing_t,\n    typename std::enable_if<\n" + same_space
patch("Kokkos_CopyViews.hpp", [
    ("             value)>::type* = nullptr) {\n  return src;\n}",
     "             value)>::type* = nullptr) {\n  return Kokkos::create_mirror(src);\n}"),
    (uninitialised + "  return src;\n}", uninitialised + "  " + fresh + "\n  return m;\n}"),
    (same_space + "  return src;\n}",
     same_space + "  " + copy + "std::string(src.label()), src.layout());\n  return m;\n}"),
    ("  (void)name;\n  fence();  // same behavior as deep_copy(src, src)\n  return src;",
     "  (void)name;\n  " + fresh + "\n  deep_copy(m, src);\n  fence();\n  return m;"),
])
# The RangePolicy parallel_for's chunk loops (untagged and tagged); other loops differ in text.
ascending = "    for (Member iwork = ibeg; iwork < iend; ++iwork) {\n      {call}\n    }"
descending = "    for (Member iwork = iend; iwork > ibeg;) {\n      --iwork;\n      {call}\n    }"
patch("OpenMP/Kokkos_OpenMP_Parallel.hpp", [
    (ascending.replace("{call}", call), descending.replace("{call}", call))
    for call in ("functor(iwork);", "functor(t, iwork);")])
PY
# -I precedes the -isystem Kokkos include directory the targets carry.
cmake --preset openmp -B "$build" -DCMAKE_CXX_FLAGS="-I$overlay" -DBOREAS_CCACHE=OFF > /dev/null
log "building ${TARGETS:-all} in $build"
cmake --build "$build" -j "$jobs" ${TARGETS:+--target $TARGETS}
log "tests without long"
status=0
OMP_PROC_BIND=false ctest --test-dir "$build" -LE long -j "${TEST_JOBS:-1}" --timeout 600 --output-on-failure \
    "$@" > "$build/tests.log" 2>&1 || status=1
tail -30 "$build/tests.log"
log "deck hashes on one thread against the openmp build's"
reference=$build/openmp_hashes.jsonl
cmake --build "$root/build/openmp" --target boreas > /dev/null
"$root/perf/gpu/deck_hashes.sh" "$root/build/openmp" "$reference"
OMP_NUM_THREADS=1 OMP_PROC_BIND=false "$root/perf/gpu/deck_hashes.sh" "$build" "$build/hashes.jsonl" \
    "$reference" | tee "$build/hashes.txt"
grep -q "differs" "$build/hashes.txt" && status=1
exit $status
