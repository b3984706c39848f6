#!/usr/bin/env bash
# Prepare a run on a GPU machine (issue 16): build the cuda-sm90 preset here (Boreas's kernels as
# Hopper machine code, CUDA 11.8; PRESET=cuda-sm80 builds sm_80 code + PTX instead, which the
# driver compiles at each process's first use: minutes per program) with shared libraries, and
# pack what a bare GPU machine lacks into one carry folder, gpu-pack/ (git-ignored, < 64 MiB):
#   gpu-pack/boreas-gpu.tar.xz    build tree (executables, lib*.so, CTest files), the shared
#                                 libraries they need except glibc, Kokkos 3.4 (shared), CUDA 11.8's
#                                 runtime, and an Open MPI runtime relocatable through OPAL_PREFIX
#   gpu-pack/ORIGIN               the source and build paths the CTest files were written with
#   gpu-pack/host_hashes.jsonl    perf/gpu/deck_hashes.sh with the openmp build (built if needed)
# Then, with the device tool, the calls perf/README.md "GPU runs" gives (phases within a call's
# 10 minutes), e.g. run(command="TEST_JOBS=16 bash perf/gpu/run.sh info bench hashes bounds amr tests",
# carry=["gpu-pack"], timeout_s=590): `tests` takes what is left of CALL_LIMIT (570 s).
#   perf/gpu/prepare.sh [--pack-only]
# Environment: PRESET (cuda-sm90), BOREAS_DEPS (setup.sh's dependency cache), JOBS (2).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"  # the presets are read from here
preset="${PRESET:-cuda-sm90}"
build="$root/build/$preset"
pack="$root/gpu-pack"
deps="${BOREAS_DEPS:-$HOME/.cache/boreas}"
kokkos_lib="$deps/kokkos-cuda-ampere80/lib"
say() { echo "==> [gpu-prepare] $*"; }
die() { echo "!!! [gpu-prepare] $*" >&2; exit 1; }

if [[ ${1:-} != --pack-only ]]; then
    t0=$(date +%s)
    "$root/setup.sh" --cuda --cuda-archs ampere80
    cmake --preset "$preset" -S "$root" -DBUILD_SHARED_LIBS=ON
    cmake --build --preset "$preset" -j "${JOBS:-2}"
    say "build: $(( $(date +%s) - t0 )) s"
else
    cmake --build --preset "$preset" -j "${JOBS:-2}"  # nothing when current: never a stale binary packed
fi
[[ -x $build/bin/boreas && -x $build/bin/boreas-bench ]] || die "no $preset build in $build"
grep -q '^BUILD_SHARED_LIBS:[A-Z]*=ON' "$build/CMakeCache.txt" \
    || die "$build is not a shared build: rerun without --pack-only"
[[ -f $kokkos_lib/libkokkoscore.so ]] || die "no shared Kokkos in $kokkos_lib (setup.sh --cuda --cuda-archs ampere80)"

stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
top="$stage/boreas-gpu"
mkdir -p "$top/lib" "$top/build"

# 1. The build tree, without objects: what ctest and the drivers read.
(cd "$build" && find . \( -name CMakeFiles -o -name _deps \) -prune -o -type f \
     \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*.so*' -o -perm -u+x \) -print0 \
     | xargs -0 cp --parents -t "$top/build")
cp -P "$kokkos_lib"/libkokkos*.so* "$top/lib/"
# No test times: with the host build's, CTest starts the longest first, and on the GPU those (AMR
# validations, launch-bound) ran 40x longer than here: 3 tests finished in 200 s (2026-11-28).
rm -rf "$top/build/Testing"
# gtest_discover_tests lists each test program's tests when CTest starts, through this CMake's
# module, which the GPU machine's CMake (another version, elsewhere) does not have at that path.
gtest_module=$(grep -h -o '"/[^"]*/GoogleTestAddTests.cmake"' "$build"/tests/*_include.cmake | head -n 1 | tr -d '"' || true)
[[ -n $gtest_module ]] || die "no GoogleTestAddTests.cmake named in $build/tests/*_include.cmake"
mkdir -p "$top/cmake"; cp "$gtest_module" "$top/cmake/"

# 2. Open MPI (Debian's, relocatable: OPAL_PREFIX=<dir> puts every component under <dir>/lib/...).
ompi_lib=/usr/lib/x86_64-linux-gnu/openmpi/lib
pmix_dir=/usr/lib/x86_64-linux-gnu/pmix2
mkdir -p "$top/ompi/bin" "$top/ompi/lib/x86_64-linux-gnu/openmpi" "$top/ompi/share"
cp /usr/bin/orterun /usr/bin/orted "$top/ompi/bin/"
ln -s orterun "$top/ompi/bin/mpiexec"
cp -a "$ompi_lib" "$top/ompi/lib/x86_64-linux-gnu/openmpi/"
cp -a /usr/share/openmpi "$top/ompi/share/"
[[ -d $pmix_dir ]] && cp -a "$pmix_dir" "$top/ompi/lib/x86_64-linux-gnu/"

# 3. Every shared library those need, except the C library's own (the GPU machine's are newer) and
#    the driver's libcuda, which only the GPU machine has.
objects=$(find "$top/build" "$top/ompi" "$top/lib" -type f \( -perm -u+x -o -name '*.so*' \))
libs=$(LD_LIBRARY_PATH="$kokkos_lib:$build/lib:$ompi_lib" ldd $objects 2>/dev/null \
       | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u \
       | grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libcuda)\.so' \
       | grep -v -F -e "$top" -e "$build" || true)
for lib in $libs; do
    [[ -e $top/lib/$(basename "$lib") ]] || cp -L "$lib" "$top/lib/"
done
missing=$(LD_LIBRARY_PATH="$top/lib:$top/ompi/lib/x86_64-linux-gnu/openmpi/lib" ldd "$top/build/bin/boreas" \
          | grep 'not found' | grep -v libcuda || true)
[[ -z $missing ]] || die "unresolved libraries: $missing"

# 4. Where the CTest files point (run.sh links these paths to the copy on the GPU machine), and
#    the host build's hashes of the decks run.sh's `hashes` phase runs there.
mkdir -p "$pack"
[[ -f build/openmp/CMakeCache.txt ]] || cmake --preset openmp > /dev/null
cmake --build --preset openmp --target boreas > /dev/null
OMP_PROC_BIND=false bash "$root/perf/gpu/deck_hashes.sh" "$root/build/openmp" "$pack/host_hashes.jsonl"
! grep -q '"error"' "$pack/host_hashes.jsonl" || die "host hashes with errors: $(grep '"error"' "$pack/host_hashes.jsonl" | head -n 3)"
printf 'source=%s\nbuild=%s\ncommit=%s\nbuilt=%s\n' "$root" "$build" \
    "$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo -dirty)" \
    "$(date -u +%FT%TZ)" > "$pack/ORIGIN"
rm -f "$pack"/*.tar.xz
tar -C "$stage" -cf - boreas-gpu | xz -T "${JOBS:-2}" -6 > "$pack/boreas-gpu.tar.xz"
size=$(du -bc "$pack" | tail -n 1 | cut -f1)
tree=$( (git -C "$root" ls-files -z | xargs -0 du -bc 2>/dev/null || true) | tail -n 1 | cut -f1)  # a deleted file: the rest
say "$(du -sh "$top" | cut -f1) staged, packed $(( size / 1048576 )) MiB + working tree $(( tree / 1048576 )) MiB (limit 64)"
(( size + tree < 63 * 1048576 )) || die "the pack is over the carry limit"
say "carry folder ready: $pack ($(cat "$pack/ORIGIN" | tr '\n' ' '))"
