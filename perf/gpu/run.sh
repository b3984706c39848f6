#!/usr/bin/env bash
# Run on the GPU machine (device tool), in the repository root, with the carry folder that
# perf/gpu/prepare.sh made:  run(command="bash perf/gpu/run.sh PHASE...", carry=["gpu-pack"])
# Phases (measured on an H100, 2026-11-25: every boreas-bench process takes 25-35 s at 256^3, so
# `all` is about 30 minutes: split it over calls, e.g. "info bench cumulant" (~5 min), "sweeps
# deck overlap amr" (~7 min), "tests" (one call; the suite did 892 of 959 tests in 250 s with 16
# jobs, starting in test order; the pack now carries the host build's test times, so that CTest
# starts the long ones first)):
#   info     nvidia-smi, driver, pack origin, resolved libraries   -> device.txt
#   tests    the CTest suite without `long` on the CUDA backend    -> tests.log, tests.xml (JUnit)
#   bench    boreas-bench: D3Q19 FP64/FP32 kernels at 256^3 against the copy kernel and
#            Kokkos::deep_copy the same binary measures            -> bench.jsonl
#   sweeps   merged3 tiles and AoSoA bundles, D3Q19 FP32 256^3     -> bench.jsonl
#   cumulant D3Q27 BGK against cumulant at 192^3                   -> bench.jsonl
#   deck     the default deck (inputs/cavity3d.toml) at 256^3      -> deck_report.json
#   overlap  2 ranks on the one GPU, every overlap strategy       -> overlap.jsonl
#   amr      the 3-level AMR strong-scaling deck, 1 and 2 ranks, and the urban AMR LES deck
#                                                                  -> amr.jsonl
# Every phase appends its console output to run.log. Outside the device tool OUT defaults to out/gpu.
# Environment: TEST_JOBS (8), TESTS_TIMEOUT (500 s for the whole tests phase), TESTS_ARGS (more
# ctest arguments, e.g. -L mpi or -R 'AmrChannel|Poiseuille'), BENCH_STEPS (20), BENCH_KERNELS (ab_pull ab_push aa merged2 merged3
# merged_aa2), DECK_CELLS (256), OVERLAP_CELLS (256), OVERLAP_LIST, AMR_RANKS (1 2).
set -uo pipefail
root=$(pwd)
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
pack=$root/gpu-pack
top=/tmp/boreas-gpu
log() { echo "==> [gpu-run $(date -u +%T)] $*" | tee -a "$out/run.log"; }
[[ -f $pack/boreas-gpu.tar.xz ]] || { echo "no gpu-pack/: run perf/gpu/prepare.sh here and carry gpu-pack" >&2; exit 2; }
source_dir=$(sed -n 's/^source=//p' "$pack/ORIGIN")
build=$(sed -n 's/^build=//p' "$pack/ORIGIN")

if [[ ! -d $top ]]; then
    log "unpacking $(du -h "$pack/boreas-gpu.tar.xz" | cut -f1)"
    tar -C /tmp -xJf "$pack/boreas-gpu.tar.xz"
    # CTest files and test programs hold the builder's paths: make them lead here.
    if [[ $source_dir != "$root" ]]; then
        [[ -e $source_dir ]] && { echo "$source_dir exists here: the CTest files would read it, not this copy" >&2; exit 2; }
        mkdir -p "$(dirname "$source_dir")"; ln -s "$root" "$source_dir"
    fi
    [[ -e $build && ! -L $build ]] && { echo "$build is a directory here: move it away" >&2; exit 2; }
    mkdir -p "$(dirname "$build")"; ln -sfn "$top/build" "$build"
    python=$(command -v python3)
    find "$top/build" -name CTestTestfile.cmake -print0 | xargs -0 sed -i \
        -e "s#/usr/bin/mpiexec#$top/ompi/bin/mpiexec#g" -e "s#\"/usr/bin/python3[.0-9]*\"#\"$python\"#g"
    find "$top/build" -name '*_include.cmake' -print0 | xargs -0 sed -i \
        -e "s#\"/[^\"]*/GoogleTestAddTests.cmake\"#\"$top/cmake/GoogleTestAddTests.cmake\"#"
    # Only the libraries this machine lacks: its own (newer) zlib, expat, libstdc++ ... stay in use,
    # also for the Python scripts CTest starts.
    mkdir -p "$top/use"
    for lib in "$top"/lib/*.so*; do
        name=$(basename "$lib")
        have=$(ldconfig -p | awk -v n="$name" '$1 == n {print $NF; exit}')
        [[ -n $have && -s $have ]] || ln -sfn "$lib" "$top/use/$name"
    done
fi
export LD_LIBRARY_PATH="$top/use:$top/ompi/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$top/ompi" PMIX_INSTALL_PREFIX="$top/ompi/lib/x86_64-linux-gnu/pmix2" PATH="$top/ompi/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
       OMPI_MCA_pml=ob1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
# A cuda-sm80 pack holds sm_80 code plus PTX, which the driver compiles for this GPU at first use
# (Kokkos's own library always): keep what it compiled for every later process of the call.
export CUDA_CACHE_PATH=/tmp/cuda-cache CUDA_CACHE_MAXSIZE=4294967296 CUDA_MODULE_LOADING=LAZY
boreas=$build/bin/boreas bench=$build/bin/boreas-bench

phase_info() {
    { nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
      echo; cat "$pack/ORIGIN"; echo "date=$(date -u +%FT%TZ)"; uname -a; nproc
      echo; ldd "$boreas"; } > "$out/device.txt" 2>&1
    log "info: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
}
phase_tests() {
    log "tests: ctest -LE long -j ${TEST_JOBS:-8}"
    timeout "${TESTS_TIMEOUT:-500}" ctest --test-dir "$build" -LE long -j "${TEST_JOBS:-8}" --timeout 300 ${TESTS_ARGS:-} \
        --output-on-failure --output-junit "$out/tests.xml" > "$out/tests.log" 2>&1
    log "tests: rc $? $(grep -E 'tests passed|tests failed' "$out/tests.log" | tail -n 1)"
}
bench() { "$bench" --steps "${BENCH_STEPS:-20}" --repeats 5 "$@" >> "$out/bench.jsonl" 2>> "$out/run.log"; }
phase_bench() {
    log "bench: D3Q19 FP64/FP32 256^3"
    # swap walks its rows in order (12 MLUPS on an H100): run it with BENCH_KERNELS=swap alone
    for kernel in ${BENCH_KERNELS:-ab_pull ab_push aa merged2 merged3 merged_aa2}; do
        bench --lattice D3Q19 --precision double float --size 256 --kernel "$kernel"
    done
    log "bench: $(grep -c '"kind":"kernel"' "$out/bench.jsonl") results"
}
phase_sweeps() {
    log "sweeps: merged3 tiles and AoSoA bundles"
    for tile in 4 8 16 32; do bench --lattice D3Q19 --precision float --size 256 --kernel merged3 --merge-form tiles --tile "$tile"; done
    for bundle in 1 2 4 8; do bench --lattice D3Q19 --precision float --size 256 --kernel ab_pull --layout aosoa --bundle "$bundle"; done
}
phase_cumulant() {
    log "cumulant: D3Q27 BGK against cumulant"
    for collision in BGK cumulant; do bench --lattice D3Q27 --precision double float --size 192 --kernel ab_pull --collision "$collision"; done
}
report_line() {  # report_line LABEL REPORT.json -> one JSON line with what the figures need
    python3 - "$1" "$2" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
except (OSError, ValueError) as e:
    print(json.dumps({"label": label, "error": str(e)})); sys.exit()
keep = ("status", "steps", "fluid_cells", "wall_time_s", "mlups", "timing_s", "parallel", "fields_hash",
        "backend", "kernel", "amr")
print(json.dumps({"label": label, **{k: d[k] for k in keep if k in d}}))
PY
}
phase_deck() {
    local n=${DECK_CELLS:-256}
    log "deck: cavity3d $n^3, 1000 steps"
    "$boreas" inputs/cavity3d.toml --set "domain.cells=[$n,$n,$n]" --set physics.length=$n \
        --set simulation.steps=1000 --set output.every=1000 -q --output-dir /tmp/deck >> "$out/run.log" 2>&1
    cp /tmp/deck/report.json "$out/deck_report.json"; log "deck: $(report_line deck /tmp/deck/report.json | cut -c1-300)"
}
phase_overlap() {
    local n=${OVERLAP_CELLS:-256}
    for overlap in ${OVERLAP_LIST:-none nonblocking interior streams systolic}; do
        log "overlap: 2 ranks, $overlap, $n^3"
        mpiexec -n 2 "$boreas" inputs/cavity3d.toml --set "domain.cells=[$n,$n,$n]" --set simulation.steps=300 \
            --set output.every=0 --set simulation.kernel=ab_pull --set parallel.overlap=$overlap -q \
            --output-dir "/tmp/overlap_$overlap" >> "$out/run.log" 2>&1
        report_line "$overlap" "/tmp/overlap_$overlap/report.json" >> "$out/overlap.jsonl"
    done
}
phase_amr() {
    for ranks in ${AMR_RANKS:-1 2}; do
        log "amr: perf/scaling/amr_strong.toml on $ranks rank(s)"
        mpiexec -n "$ranks" "$boreas" perf/scaling/amr_strong.toml -q --output-dir "/tmp/amr_$ranks" >> "$out/run.log" 2>&1
        report_line "amr_np$ranks" "/tmp/amr_$ranks/report.json" >> "$out/amr.jsonl"
    done
    log "amr: inputs/urban_amr.toml (cumulant LES, interpolated walls, averages, probes) on 1 rank"
    "$boreas" inputs/urban_amr.toml -q --output-dir /tmp/urban_amr >> "$out/run.log" 2>&1
    report_line urban_amr /tmp/urban_amr/report.json >> "$out/amr.jsonl"
}

phases=("$@"); [[ ${phases[*]:-all} == all ]] && phases=(info tests bench sweeps cumulant deck overlap amr)
for p in "${phases[@]}"; do
    declare -F "phase_$p" > /dev/null || { echo "unknown phase $p (info tests bench sweeps cumulant deck overlap amr all)" >&2; exit 2; }
    t0=$(date +%s); "phase_$p"; log "$p: $(( $(date +%s) - t0 )) s"
done
