#!/usr/bin/env bash
# Run on the GPU machine (device tool), in the repository root, with the carry folder that
# perf/gpu/prepare.sh made:  run(command="bash perf/gpu/run.sh PHASE...", carry=["gpu-pack"])
# Phases (measured on an H200, 2026-11-28: each boreas-bench case takes 15-20 s at 256^3, most of
# it setting up; `all` is about 25 minutes, more than a session's device time: split it over calls
# of one machine, e.g. "info bench amr leaves cumulant" (~5 min), "sweeps overlap profile" (~4
# min), "tests" (the suite on an H100, 2026-11-25: 892 of 959 tests in 250 s with 16 jobs in test
# order; started longest first by the host's test times, 3 in 200 s: the AMR validations run 40x
# slower there, launch-bound on one shared GPU, so the pack carries no test times)):
#   info     nvidia-smi, driver, pack origin, resolved libraries   -> device.txt
#   tests    the CTest suite without `long` on the CUDA backend    -> tests.log, tests.xml (JUnit)
#   bench    boreas-bench: D3Q19 FP64/FP32 kernels at 256^3 against the copy kernel and
#            Kokkos::deep_copy the same binary measures            -> bench.jsonl
#   merged   the same for merged2, merged3, merged_aa2            -> bench.jsonl
#   sweeps   merged3 tiles and AoSoA bundles, D3Q19 FP32 256^3     -> bench.jsonl
#   bounds   the D3Q19 BGK pull and push steps, FP64/FP32 256^3, under each launch bound
#            (boreas-bench --launch-bounds: Kokkos's, <= 85, 64, 51, 42 registers) in Kokkos's
#            blocks and in teams of 128 and 256 threads (--team-size, --team-map), in three forms
#            (--launch-step): full (the general path alone), plain (no flag tests, no boundary
#            branches) and split (the schemes' step: plain where a cell's neighbours are all fluid)
#                                                                  -> bench.jsonl
#   cumulant D3Q27 BGK against cumulant at 192^3                   -> bench.jsonl
#   deck     the default deck (inputs/cavity3d.toml) at 256^3      -> deck_report.json
#   overlap  2 ranks on the one GPU, every overlap strategy       -> overlap.jsonl
#   amr      the 3-level AMR strong-scaling deck, 1 and 2 ranks, amr_nested and the urban AMR
#            LES deck                                              -> amr.jsonl
#   leaves   perf/amr_leaf_kernels.sh: the AMR leaf step on 4^3/8^3/16^3 leaves against the dense
#            kernel on a periodic LEAVES_CELLS^3 box               -> leaves.jsonl
#   hashes   perf/gpu/deck_hashes.sh twice, against the host build's (prepare.sh) -> hashes.jsonl
#   profile  Nsight Compute on the FP32 pull and push steps        -> profile.txt
#   all      every phase, tests last: about 25 minutes, for a machine outside the device tool
# Every phase appends its console output to run.log. Outside the device tool OUT defaults to out/gpu.
# Environment: CALL_LIMIT (570: the seconds this call may take, the run tool's timeout_s less a
# margin; `tests` stops in time to end within it), TEST_JOBS (8), TESTS_TIMEOUT (500, or less to
# end within CALL_LIMIT: CTest stops its tests after so many seconds; the phase ends within 70 s
# more), RUN_TIMEOUT (150: each boreas or mpiexec run, killed past it so that a hang does not
# take the later phases), BENCH_TIMEOUT (300: each boreas-bench process), TESTS_ARGS (more
# ctest arguments, split on spaces, no quotes: e.g. -L mpi or -R AmrChannel|Poiseuille), BENCH_STEPS (20), BENCH_KERNELS
# (ab_pull ab_push aa), DECK_CELLS (256), OVERLAP_CELLS (128, the size of the 2026-11-28 table), OVERLAP_LIST, AMR_RANKS (1 2),
# AMR_NESTED_STEPS (200), LEAVES_CELLS (128), LEAVES_STEPS (200), LEAVES_ROUNDS (2), PROFILE_TIMEOUT (120).
set -uo pipefail
started=$(date +%s)
root=$(pwd)
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
pack=$root/gpu-pack
top=/tmp/boreas-gpu
exec 3>&1  # the call's console: log lines reach it (and run.log) also from inside a redirected run
log() { echo "==> [gpu-run $(date -u +%T)] $*" | tee -a "$out/run.log" >&3; }
# limited SECONDS LABEL COMMAND...: the command killed past SECONDS; a failure is logged with its
# status (a crash after some output looked like a finished run). Its children do not hold the
# console (fd 3): a straggler would keep the call's output open.
limited() {
    local seconds=$1 label=$2 t0; shift 2
    t0=$(date +%s)
    timeout -k 5 "$seconds" "$@" 3>&-; local rc=$?
    if (( (rc == 124 || rc == 137) && $(date +%s) - t0 >= seconds )); then log "$label: killed after $seconds s"
    elif (( rc != 0 )); then log "$label: rc $rc"; fi
    return $rc
}
[[ -f $pack/boreas-gpu.tar.xz ]] || { echo "no gpu-pack/: run perf/gpu/prepare.sh here and carry gpu-pack" >&2; exit 2; }
source_dir=$(sed -n 's/^source=//p' "$pack/ORIGIN")
build=$(sed -n 's/^build=//p' "$pack/ORIGIN")

# Unpacked once per pack: a warm machine keeps it; another pack (its ORIGIN differs) or a half
# unpacked one (no ORIGIN copy yet) is unpacked again, into a fresh folder moved in place.
if ! cmp -s "$pack/ORIGIN" "$top/ORIGIN" 2>/dev/null; then
    log "unpacking $(du -h "$pack/boreas-gpu.tar.xz" | cut -f1)"
    rm -rf "$top" /tmp/boreas-gpu-unpack && mkdir -p /tmp/boreas-gpu-unpack
    tar -C /tmp/boreas-gpu-unpack -xJf "$pack/boreas-gpu.tar.xz" && mv /tmp/boreas-gpu-unpack/boreas-gpu "$top" \
        || { echo "cannot unpack $pack/boreas-gpu.tar.xz" >&2; exit 2; }
    # CTest files and test programs hold the builder's paths: make them lead here.
    if [[ $source_dir != "$root" ]]; then
        if [[ -L $source_dir ]]; then  # an earlier unpack's link
            ln -sfn "$root" "$source_dir"
        elif [[ -e $source_dir ]]; then
            echo "$source_dir exists here: the CTest files would read it, not this copy" >&2; exit 2
        else
            mkdir -p "$(dirname "$source_dir")"; ln -s "$root" "$source_dir"
        fi
    fi
    [[ -e $build && ! -L $build ]] && { echo "$build is a directory here: move it away" >&2; exit 2; }
    mkdir -p "$(dirname "$build")"; ln -sfn "$top/build" "$build"
    python=$(command -v python3)
    find "$top/build" -name CTestTestfile.cmake -print0 | xargs -0 sed -i \
        -e "s#/usr/bin/mpiexec#$top/ompi/bin/mpiexec#g" -e "s#\"/[^\"]*/python3[.0-9]*\"#\"$python\"#g"
    find "$top/build" -name '*_include.cmake' -print0 | xargs -0 sed -i \
        -e "s#\"/[^\"]*/GoogleTestAddTests.cmake\"#\"$top/cmake/GoogleTestAddTests.cmake\"#"
    # Only the libraries this machine lacks: its own (newer) zlib, expat, libstdc++ ... stay in use,
    # also for the Python scripts CTest starts. Open MPI's always come from the pack: they must
    # match its mpiexec, components and PMIx (an image's Open MPI 5 is also libmpi.so.40).
    mkdir -p "$top/use"
    for lib in "$top"/lib/*.so*; do
        name=$(basename "$lib")
        case $name in
            libmpi*|libopen-*|libmca_common*|libpmix*|libhwloc*|libevent*) ln -sfn "$lib" "$top/use/$name"; continue ;;
        esac
        have=$(ldconfig -p | awk -v n="$name" '$1 == n {print $NF; exit}')
        [[ -n $have && -s $have ]] || ln -sfn "$lib" "$top/use/$name"
    done
    cp "$pack/ORIGIN" "$top/ORIGIN"
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
    # Ends within the call: killed by the run tool, CTest writes neither summary nor JUnit file.
    local limit=${TESTS_TIMEOUT:-500} left=$(( ${CALL_LIMIT:-570} - ($(date +%s) - started) - 75 ))
    (( left < limit )) && limit=$left
    (( limit >= 30 )) || { log "tests: skipped, $left s left in the call"; return; }
    log "tests: ctest -LE long -j ${TEST_JOBS:-8}, stopping after $limit s"
    # CTest stops its tests at --stop-time and still writes its summary and the JUnit file (killed
    # by `timeout` it wrote neither); `timeout` stays behind it for a test that ignores the stop.
    # shellcheck disable=SC2086  # TESTS_ARGS: words, on purpose
    timeout -k 10 $((limit + 60)) ctest --test-dir "$build" -LE long -j "${TEST_JOBS:-8}" --timeout 300 ${TESTS_ARGS:-} \
        --stop-time "$(date -d "+$limit sec" +%T)" --output-on-failure --output-junit "$out/tests.xml" > "$out/tests.log" 2>&1 3>&-
    log "tests: rc $? $(grep -E 'tests passed|tests failed' "$out/tests.log" | tail -n 1)"
}
bench() {
    limited "${BENCH_TIMEOUT:-300}" "boreas-bench $*" "$bench" --steps "${BENCH_STEPS:-20}" --repeats 5 "$@" \
        >> "$out/bench.jsonl" 2>> "$out/run.log"
}
phase_bench() {
    log "bench: D3Q19 FP64/FP32 256^3, ${BENCH_KERNELS:-ab_pull ab_push aa}"
    # swap walks its rows in order (12 MLUPS on an H100): run it with BENCH_KERNELS=swap alone
    bench --lattice D3Q19 --precision double float --size 256 --kernel ${BENCH_KERNELS:-ab_pull ab_push aa}
    log "bench: $(grep -c '"kind":"kernel"' "$out/bench.jsonl") results"
}
phase_merged() {
    log "merged: D3Q19 FP64/FP32 256^3, merged2 merged3 merged_aa2"
    bench --lattice D3Q19 --precision double float --size 256 --kernel merged2 merged3 merged_aa2
}
phase_sweeps() {
    log "sweeps: merged3 tiles and AoSoA bundles"
    bench --lattice D3Q19 --precision float --size 256 --kernel merged3 --merge-form tiles --tile 4 8 16 32
    bench --lattice D3Q19 --precision float --size 256 --kernel ab_pull --layout aosoa --bundle 1 2 4 8
}
phase_bounds() {
    log "bounds: D3Q19 BGK pull/push full/plain/split, FP64/FP32 256^3, bounds default 256x3..256x6, teams 0 128 256"
    # One process per case: a case's lines are written when its 75 shapes are done, and one
    # process for all four could pass BENCH_TIMEOUT and lose the last case whole.
    local kernel precision
    for kernel in ab_pull ab_push; do
        for precision in double float; do
            bench --lattice D3Q19 --precision "$precision" --size 256 --kernel "$kernel" --launch-step full plain split \
                --launch-bounds default 256x3 256x4 256x5 256x6 --team-size 0 128 256 --team-map cells rows
        done
    done
    log "bounds: $(grep -c '"kind":"launch_bounds"' "$out/bench.jsonl") results"
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
    rm -rf /tmp/deck
    limited "${RUN_TIMEOUT:-150}" deck "$boreas" inputs/cavity3d.toml --set "domain.cells=[$n,$n,$n]" --set physics.length=$n \
        --set simulation.steps=1000 --set output.every=1000 -q --output-dir /tmp/deck >> "$out/run.log" 2>&1
    cp /tmp/deck/report.json "$out/deck_report.json"; log "deck: $(report_line deck /tmp/deck/report.json | cut -c1-300)"
}
phase_overlap() {
    local n=${OVERLAP_CELLS:-128}
    for overlap in ${OVERLAP_LIST:-none nonblocking interior streams systolic}; do
        log "overlap: 2 ranks, $overlap, $n^3"
        rm -rf "/tmp/overlap_$overlap"
        limited "${RUN_TIMEOUT:-150}" "overlap $overlap" mpiexec -n 2 "$boreas" inputs/cavity3d.toml --set "domain.cells=[$n,$n,$n]" --set simulation.steps=300 \
            --set output.every=0 --set simulation.kernel=ab_pull --set parallel.overlap=$overlap -q \
            --output-dir "/tmp/overlap_$overlap" >> "$out/run.log" 2>&1
        report_line "$overlap" "/tmp/overlap_$overlap/report.json" >> "$out/overlap.jsonl"
    done
}
phase_amr() {
    for ranks in ${AMR_RANKS:-1 2}; do
        log "amr: perf/scaling/amr_strong.toml on $ranks rank(s)"
        rm -rf "/tmp/amr_$ranks"
        limited "${RUN_TIMEOUT:-150}" "amr np$ranks" mpiexec -n "$ranks" "$boreas" perf/scaling/amr_strong.toml -q --output-dir "/tmp/amr_$ranks" >> "$out/run.log" 2>&1
        report_line "amr_np$ranks" "/tmp/amr_$ranks/report.json" >> "$out/amr.jsonl"
    done
    log "amr: perf/amr_nested.toml (3 nested levels, thick slabs) on 1 rank, ${AMR_NESTED_STEPS:-200} steps"
    rm -rf /tmp/amr_nested /tmp/urban_amr
    limited "${RUN_TIMEOUT:-150}" amr_nested "$boreas" perf/amr_nested.toml --set simulation.steps="${AMR_NESTED_STEPS:-200}" -q --output-dir /tmp/amr_nested \
        >> "$out/run.log" 2>&1
    report_line amr_nested /tmp/amr_nested/report.json >> "$out/amr.jsonl"
    log "amr: inputs/urban_amr.toml (cumulant LES, interpolated walls, averages, probes) on 1 rank"
    limited "${RUN_TIMEOUT:-150}" urban_amr "$boreas" inputs/urban_amr.toml -q --output-dir /tmp/urban_amr >> "$out/run.log" 2>&1
    report_line urban_amr /tmp/urban_amr/report.json >> "$out/amr.jsonl"
}

phase_leaves() {
    log "leaves: AMR leaf step on 4^3/8^3/16^3 leaves against the dense kernel, ${LEAVES_CELLS:-128}^3"
    SIZE=${LEAVES_CELLS:-128} STEPS=${LEAVES_STEPS:-200} ROUNDS=${LEAVES_ROUNDS:-2} \
        limited "$(( 2 * ${RUN_TIMEOUT:-150} ))" leaves bash perf/amr_leaf_kernels.sh "$(dirname "$(dirname "$boreas")")" "$out/leaves.jsonl" >> "$out/run.log" 2>&1
}

phase_hashes() {
    log "hashes: AMR and uniform decks' fields_hash after several step counts, twice, against the host's"
    REPEAT=2 limited "$(( 2 * ${RUN_TIMEOUT:-150} ))" hashes bash perf/gpu/deck_hashes.sh "$build" "$out/hashes.jsonl" "$pack/host_hashes.jsonl" >> "$out/run.log" 2>&1
}
phase_profile() {
    # Nsight Compute on the D3Q19 FP32 pull and push steps with BGK (not the bench's roofline
    # references, whose collision does nothing): registers, occupancy, DRAM and L2 throughput; 3
    # launches each (warm-up + 2 steps): pull's last, push's three.
    local ncu; ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
    [[ -n $ncu ]] || { log "profile: no ncu"; return; }
    log "profile: $ncu on ab_pull and ab_push, D3Q19 float 256^3"
    timeout "${PROFILE_TIMEOUT:-120}" "$ncu" --clock-control none --kernel-name-base demangled \
        --kernel-name "regex:(PullStep|PushStep)<boreas::D3Q19, float, boreas::BGK>" --launch-skip 2 --launch-count 4 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
        "$bench" --lattice D3Q19 --precision float --size 256 --steps 2 --repeats 1 --kernel ab_pull ab_push \
        > "$out/profile.txt" 2>&1 3>&-
    log "profile: rc $?"
}

known="info tests bench bounds merged sweeps cumulant deck overlap amr leaves hashes profile all"
phases=("$@")
[[ ${#phases[@]} -gt 0 ]] || { echo "name the phases to run ($known)" >&2; exit 2; }
if [[ " ${phases[*]} " == *" all "* ]]; then
    [[ ${#phases[@]} -eq 1 ]] || { echo "all runs alone: it is every phase" >&2; exit 2; }
    phases=(info bench bounds merged sweeps cumulant deck overlap amr leaves hashes profile tests)
fi
# Every name checked before any runs: a typo found minutes into a call costs device time.
for p in "${phases[@]}"; do
    declare -F "phase_$p" > /dev/null || { echo "unknown phase $p ($known)" >&2; exit 2; }
done
# The run tool returns at most 8 files from $OUT: more phases' files than that are refused there.
if [[ -n ${OUT:-} ]]; then
    declare -A files=([run.log]=1)
    for p in "${phases[@]}"; do
        case $p in
            info) files[device.txt]=1 ;; tests) files[tests.log]=1; files[tests.xml]=1 ;;
            bench|merged|sweeps|bounds|cumulant) files[bench.jsonl]=1 ;; deck) files[deck_report.json]=1 ;;
            overlap) files[overlap.jsonl]=1 ;; amr) files[amr.jsonl]=1 ;; leaves) files[leaves.jsonl]=1 ;;
            hashes) files[hashes.jsonl]=1 ;; profile) files[profile.txt]=1 ;;
        esac
    done
    (( ${#files[@]} <= 8 )) || { echo "these phases write ${#files[@]} files; the run tool returns 8: split them" >&2; exit 2; }
fi
for p in "${phases[@]}"; do
    t0=$(date +%s); "phase_$p"; log "$p: $(( $(date +%s) - t0 )) s"
done
