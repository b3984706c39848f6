#!/usr/bin/env bash
# Boreas dependency setup for Debian 12 (bookworm).
#
#   ./setup.sh            distribution packages + Kokkos/Kokkos-Kernels 3.4.01 (openmp, serial)
#   ./setup.sh --cuda     additionally: nvidia-cuda-toolkit (CUDA 11.8, non-free), g++-11 and the
#                         CUDA Kokkos installs cuda-kepler35, cuda-pascal60, cuda-ampere80
#
# Kokkos and Kokkos-Kernels come from Debian's Trilinos source package (13.2.0, which carries
# Kokkos 3.4.01). Installs go to $BOREAS_DEPS/kokkos-<flavor> (default ~/.cache/boreas); the
# CMake presets find them through BOREAS_KOKKOS_FLAVOR. Re-running is cheap: every step is
# skipped when its result is already there.
set -Eeuo pipefail  # -E: the ERR trap below names the failed step inside functions too

KOKKOS_VERSION=3.4.01
SCRIPT_NAME=$(basename "$0")
PHASE="startup"

usage() {
    cat <<EOF
Usage: $SCRIPT_NAME [--cuda] [--cuda-archs LIST] [--prefix DIR] [--jobs N] [--help]

Installs the Debian packages Boreas needs and builds Kokkos + Kokkos-Kernels $KOKKOS_VERSION
(from Debian's trilinos source package) into DIR/kokkos-<flavor>.

  --cuda         also install nvidia-cuda-toolkit + g++-11 (enables the non-free component)
                 and build kokkos-cuda-kepler35, kokkos-cuda-pascal60, kokkos-cuda-ampere80
  --cuda-archs L with --cuda: build only these of kepler35,pascal60,ampere80 (comma list)
  --prefix DIR   dependency cache (default: \$BOREAS_DEPS, else \$HOME/.cache/boreas)
  --jobs N       parallel build jobs (default: nproc)
  -h, --help     this text

Flavors: openmp (OpenMP+Serial), serial (Serial only),
         cuda-kepler35 / cuda-pascal60 / cuda-ampere80 (CUDA+Serial, with --cuda).
Use an install with:  cmake -DKokkos_ROOT=DIR/kokkos-<flavor> ...
EOF
}

die() { echo "!!! $SCRIPT_NAME: FAILED during: $PHASE${1:+ — $1}" >&2; exit 1; }
trap 'rc=$?; echo "!!! $SCRIPT_NAME: FAILED during: $PHASE (command: $BASH_COMMAND, line $LINENO, exit $rc)" >&2; exit $rc' ERR
say() { echo "==> $*"; }

PHASE="argument parsing"
WITH_CUDA=0
CUDA_ARCHS="kepler35,pascal60,ampere80"
DEPS=${BOREAS_DEPS:-$HOME/.cache/boreas}
JOBS=$(nproc)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cuda) WITH_CUDA=1 ;;
        --cuda-archs) [[ $# -ge 2 ]] || { usage >&2; die "--cuda-archs needs a list"; }; CUDA_ARCHS=$2; shift ;;
        --cuda-archs=*) CUDA_ARCHS=${1#--cuda-archs=} ;;
        --prefix) [[ $# -ge 2 ]] || { usage >&2; die "--prefix needs a directory"; }; DEPS=$2; shift ;;
        --prefix=*) DEPS=${1#--prefix=} ;;
        --jobs|-j) [[ $# -ge 2 ]] || { usage >&2; die "--jobs needs a number"; }; JOBS=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
    shift
done
mkdir -p "$DEPS"
DEPS=$(cd "$DEPS" && pwd)
SRC="$DEPS/src"
# Two set-ups sharing the cache (CI jobs of two clones on one machine) would unpack and install
# into the same folders at once: the second waits for the first, then finds its results there.
PHASE="waiting for another setup.sh using $DEPS"
exec 9>"$DEPS/.setup.lock"
if ! flock -n 9; then
    say "waiting for another setup.sh using $DEPS"
    flock -w 3600 9 || die "another setup.sh held $DEPS/.setup.lock for an hour"
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { PHASE="privilege check"; die "not root and sudo is not installed"; }
    SUDO=(sudo)
fi
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900)

T_START=$(date +%s)
TIMINGS=()
timed() {  # timed LABEL START
    local dt=$(( $(date +%s) - $2 ))
    TIMINGS+=("$(printf '%-34s %5ds' "$1" "$dt")")
    say "$1 took ${dt}s"
}

# ---------------------------------------------------------------------------------------------
# apt helpers
# ---------------------------------------------------------------------------------------------
missing_pkgs() {  # prints the packages from "$@" that are not fully installed
    local p st
    for p in "$@"; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [[ $st == "install ok installed" ]] || echo "$p"
    done
}

APT_UPDATED=0
apt_update() {
    "${APT[@]}" update -q || die "apt-get update failed (check /etc/apt/sources.list.d/)"
    APT_UPDATED=1
}

apt_install() {  # apt_install PKG...; no-op when all are installed
    local miss
    miss=$(missing_pkgs "$@" | tr '\n' ' ')
    if [[ -z ${miss// /} ]]; then
        say "all ${#} packages already installed"
        return 0
    fi
    say "installing: $miss"
    # A half-configured dpkg state (e.g. an interrupted install) blocks apt; repair it first.
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive dpkg --configure -a || true
    [[ $APT_UPDATED == 1 ]] || apt_update
    # shellcheck disable=SC2086
    "${APT[@]}" install -y --no-install-recommends $miss || die "apt-get install of: $miss"
    miss=$(missing_pkgs "$@" | tr '\n' ' ')
    [[ -z ${miss// /} ]] || die "packages still not installed after apt-get: $miss"
}

# Write a deb822 sources file derived from debian.sources (same URIs/Suites/Signed-By) with the
# given Types and (optionally) Components. Only touches the file when its content changes.
# Sets SOURCES_CHANGED=1 when it did.
write_sources() {  # write_sources FILE TYPES [COMPONENTS]
    local file=$1 types=$2 comps=${3:-} base=/etc/apt/sources.list.d/debian.sources tmp
    SOURCES_CHANGED=0
    tmp=$(mktemp)
    if [[ -f $base ]]; then
        if [[ -n $comps ]]; then
            sed -e "s/^Types: .*/Types: $types/" -e "s/^Components: .*/Components: $comps/" "$base" >"$tmp"
        else
            sed -e "s/^Types: .*/Types: $types/" "$base" >"$tmp"
        fi
    elif [[ -f /etc/apt/sources.list ]] && grep -q '^deb ' /etc/apt/sources.list; then
        # one-line format fallback: turn each "deb URI SUITE COMPONENTS" into a deb822 stanza
        grep '^deb ' /etc/apt/sources.list | sed -e 's/\[[^]]*\]//' | while read -r _ uri suite _; do
            printf 'Types: %s\nURIs: %s\nSuites: %s\nComponents: %s\n\n' \
                "$types" "$uri" "$suite" "${comps:-main}"
        done >"$tmp"
    else
        rm -f "$tmp"; die "found neither /etc/apt/sources.list.d/debian.sources nor deb lines in /etc/apt/sources.list"
    fi
    if [[ -f $file ]] && cmp -s "$tmp" "$file"; then
        rm -f "$tmp"
    else
        "${SUDO[@]}" install -m 0644 "$tmp" "$file"; rm -f "$tmp"
        SOURCES_CHANGED=1
    fi
}

# ---------------------------------------------------------------------------------------------
# 1. distribution packages
# ---------------------------------------------------------------------------------------------
PHASE="installing Debian packages"
say "Boreas setup: dependency cache $DEPS, $JOBS build jobs"
PKGS=(build-essential cmake ninja-build git pkg-config libopenmpi-dev openmpi-bin libvtk9-dev
      libgtest-dev libtomlplusplus-dev libcli11-dev nlohmann-json3-dev zlib1g-dev ccache python3 python3-numpy python3-matplotlib dpkg-dev
      xz-utils)
t0=$(date +%s)
apt_install "${PKGS[@]}"
timed "apt: base packages" "$t0"

# The scripts in inputs/ and perf/ run with the first python3 on PATH; when that is not the
# system one (pyenv, conda), it gets numpy and matplotlib from PyPI.
PHASE="checking python3 (numpy, matplotlib)"
if ! python3 -c "import numpy, matplotlib" 2>/dev/null; then
    say "python3 on PATH ($(command -v python3)) lacks numpy/matplotlib: installing them with pip"
    python3 -m pip install --quiet numpy matplotlib || die "pip install numpy matplotlib"
fi

if [[ $WITH_CUDA == 1 ]]; then
    PHASE="installing the CUDA toolkit (non-free) and g++-11"
    t0=$(date +%s)
    if [[ -n $(missing_pkgs nvidia-cuda-toolkit g++-11) ]]; then
        write_sources /etc/apt/sources.list.d/boreas-nonfree.sources deb "contrib non-free"
        if [[ $SOURCES_CHANGED == 1 ]]; then
            say "enabled contrib/non-free in /etc/apt/sources.list.d/boreas-nonfree.sources"
            APT_UPDATED=0
        fi
        apt_install nvidia-cuda-toolkit g++-11
    else
        say "nvidia-cuda-toolkit and g++-11 already installed"
    fi
    command -v nvcc >/dev/null || die "nvcc not on PATH after installing nvidia-cuda-toolkit"
    command -v g++-11 >/dev/null || die "g++-11 not on PATH"
    say "$(nvcc --version | tail -n 2 | head -n 1)"
    timed "apt: nvidia-cuda-toolkit + g++-11" "$t0"
fi

# ---------------------------------------------------------------------------------------------
# 2. Kokkos + Kokkos-Kernels sources from Debian's trilinos source package
# ---------------------------------------------------------------------------------------------
PHASE="fetching Kokkos sources (trilinos source package)"
KOKKOS_SRC="$SRC/kokkos-$KOKKOS_VERSION"
KK_SRC="$SRC/kokkos-kernels-$KOKKOS_VERSION"
SRC_STAMP="$SRC/.kokkos-$KOKKOS_VERSION.stamp"
t0=$(date +%s)
if [[ -f $SRC_STAMP && -f $KOKKOS_SRC/CMakeLists.txt && -f $KK_SRC/CMakeLists.txt ]]; then
    say "Kokkos sources already in $SRC ($(cat "$SRC_STAMP"))"
else
    mkdir -p "$SRC/download"
    tarball=$(ls "$SRC"/download/trilinos_*.orig.tar.* 2>/dev/null | head -n 1 || true)
    if [[ -z $tarball ]]; then
        write_sources /etc/apt/sources.list.d/boreas-src.sources deb-src
        if [[ $SOURCES_CHANGED == 1 || -z $(apt-cache showsrc trilinos 2>/dev/null || true) ]]; then
            say "deb-src enabled in /etc/apt/sources.list.d/boreas-src.sources; apt-get update"
            apt_update
        fi
        say "downloading the trilinos source package (large, once) into $SRC/download"
        (cd "$SRC/download" && apt-get source --download-only trilinos) \
            || die "apt-get source --download-only trilinos"
        tarball=$(ls "$SRC"/download/trilinos_*.orig.tar.* 2>/dev/null | head -n 1 || true)
        [[ -n $tarball ]] || die "no trilinos_*.orig.tar.* after apt-get source"
    fi
    say "extracting packages/kokkos and packages/kokkos-kernels from $(basename "$tarball")"
    rm -rf "$SRC/extract" "$KOKKOS_SRC" "$KK_SRC"
    mkdir -p "$SRC/extract"
    # A tarball that does not extract (a download cut short) is removed, so that the next run
    # downloads it again instead of failing on it for good.
    tar -xf "$tarball" -C "$SRC/extract" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*' \
        || { rm -f "$tarball"; die "extracting kokkos from $tarball (removed; run setup.sh again to download it anew)"; }
    top=$(ls -d "$SRC"/extract/*/ | head -n 1)
    mv "$top/packages/kokkos" "$KOKKOS_SRC"
    mv "$top/packages/kokkos-kernels" "$KK_SRC"
    rm -rf "$SRC/extract"
    # Sanity: the version really is 3.4.01
    v=$(sed -n 's/^set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' "$KOKKOS_SRC/CMakeLists.txt" | paste -sd.)
    [[ $v == "3.4.01" || $v == "3.4.1" ]] || die "expected Kokkos $KOKKOS_VERSION in $KOKKOS_SRC, found '$v'"
    basename "$tarball" >"$SRC_STAMP"
fi
timed "Kokkos sources" "$t0"

# Kokkos 3.4 aborts when the GPU's compute capability has a newer major version than the code it
# was compiled for (sm_80 code + PTX on an H100, 9.0), although the driver compiles the PTX for
# that GPU; later Kokkos releases accept it. Refuse only code newer than the device, as CUDA does.
CUDA_ARCH_PATCH="ptx on newer majors"
cuda_instance="$KOKKOS_SRC/core/src/Cuda/Kokkos_Cuda_Instance.cpp"
grep -q 'compiled_major > cudaProp.major' "$cuda_instance" || sed -i 's/if (compiled_major != cudaProp.major || compiled_minor > cudaProp.minor) {/if (compiled_major > cudaProp.major ||\n        (compiled_major == cudaProp.major \&\& compiled_minor > cudaProp.minor)) {/' \
    "$cuda_instance"
grep -q 'compiled_major > cudaProp.major' "$cuda_instance" || die "could not patch the architecture check in $cuda_instance"

# ---------------------------------------------------------------------------------------------
# 3. Kokkos builds
# ---------------------------------------------------------------------------------------------
# Kokkos-Kernels: explicit template instantiation off (header-only use); Boreas only uses
# batched small dense algebra and BLAS-1, which instantiate in the user's translation units. No
# vendor libraries: on CUDA they are on by default and every program linked cuBLAS and cuSPARSE
# (unused; cuBLAS with its Lt part is some 600 MB, far over what a GPU run can carry).
KK_FLAGS=(-DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
          -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF
          -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
          -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
          -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_OFFSET_INT=OFF
          -DKokkosKernels_INST_OFFSET_SIZE_T=OFF -DKokkosKernels_INST_LAYOUTLEFT=OFF
          -DKokkosKernels_INST_LAYOUTRIGHT=OFF -DKokkosKernels_ADD_DEFAULT_ETI=OFF)
COMMON_FLAGS=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
              -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF)

kokkos_config_file() { ls "$1"/lib*/cmake/Kokkos/KokkosConfig.cmake 2>/dev/null | head -n 1 || true; }

# build_kokkos FLAVOR CMAKE_ARGS...: Kokkos, then Kokkos-Kernels against it (Boreas needs both)
build_kokkos() {
    local flavor=$1; shift
    local prefix="$DEPS/kokkos-$flavor" bld="$DEPS/build/kokkos-$flavor"
    local stamp="$prefix/.boreas-stamp" want t0 t1
    # The compilers' versions too: an upgraded g++ or CUDA toolkit rebuilds the cached libraries.
    want="kokkos $KOKKOS_VERSION | kernels required | $* | ${KK_FLAGS[*]} | $(${CXX:-c++} --version | head -n 1)"
    [[ $flavor == cuda-* ]] && want+=" | $CUDA_ARCH_PATCH | $(g++-11 --version | head -n 1) | $(nvcc --version | tail -n 2 | head -n 1)"
    PHASE="building Kokkos ($flavor)"
    if [[ -n $(kokkos_config_file "$prefix") && -f $stamp && $(head -n 1 "$stamp") == "$want" ]]; then
        say "kokkos-$flavor up to date ($prefix)"
        return 0
    fi
    say "building Kokkos $KOKKOS_VERSION [$flavor] -> $prefix"
    rm -rf "$prefix" "$bld"; mkdir -p "$DEPS/build"
    t0=$(date +%s)
    cmake -S "$KOKKOS_SRC" -B "$bld/kokkos" "${COMMON_FLAGS[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" "$@" \
        >"$bld.kokkos.configure.log" 2>&1 || { tail -n 40 "$bld.kokkos.configure.log" >&2; die "configure, log: $bld.kokkos.configure.log"; }
    cmake --build "$bld/kokkos" -j "$JOBS" >"$bld.kokkos.build.log" 2>&1 \
        || { tail -n 40 "$bld.kokkos.build.log" >&2; die "build, log: $bld.kokkos.build.log"; }
    cmake --install "$bld/kokkos" >/dev/null || die "install into $prefix"
    timed "Kokkos [$flavor]" "$t0"

    PHASE="building Kokkos-Kernels ($flavor)"
    t1=$(date +%s)
    # the compiler must match the one Kokkos was built with (nvcc_wrapper for CUDA)
    local cxx
    cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$bld/kokkos/CMakeCache.txt")
    cmake -S "$KK_SRC" -B "$bld/kernels" "${COMMON_FLAGS[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" "${KK_FLAGS[@]}" \
        >"$bld.kernels.configure.log" 2>&1 \
        && cmake --build "$bld/kernels" -j "$JOBS" >"$bld.kernels.build.log" 2>&1 \
        && cmake --install "$bld/kernels" >/dev/null \
        || { tail -n 40 "$bld.kernels."*.log >&2 || true; die "Kokkos-Kernels [$flavor], logs: $bld.kernels.*.log"; }
    timed "Kokkos-Kernels [$flavor]" "$t1"
    [[ -n $(kokkos_config_file "$prefix") ]] || die "no KokkosConfig.cmake under $prefix after install"
    printf '%s\nkernels: installed\nbuilt: %s\n' "$want" "$(date -u +%FT%TZ)" >"$stamp"
    rm -rf "$bld"   # keep logs, drop objects
}

build_kokkos openmp -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON
build_kokkos serial -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=OFF

FLAVORS=(openmp serial)
if [[ $WITH_CUDA == 1 ]]; then
    # nvcc_wrapper picks its host compiler from NVCC_WRAPPER_DEFAULT_COMPILER *each time it runs*
    # (i.e. when Boreas compiles, not only here). CUDA 11.8 supports GCC <= 11, Debian's default
    # is 12, so the CUDA presets set NVCC_WRAPPER_DEFAULT_COMPILER=g++-11 in their configure and
    # build environments; in addition the installed copy ($prefix/bin/nvcc_wrapper) is patched
    # below to default to g++-11 so it also works without the variable.
    export NVCC_WRAPPER_DEFAULT_COMPILER=g++-11
    for spec in kepler35:KEPLER35 pascal60:PASCAL60 ampere80:AMPERE80; do
        [[ ",$CUDA_ARCHS," == *",${spec%%:*},"* ]] || continue
        flavor="cuda-${spec%%:*}"
        # ampere80 is the flavour carried to a GPU machine (perf/gpu/prepare.sh): shared, so that
        # every test program of that pack links one libkokkoscore.so and stays small
        shared=(); [[ ${spec%%:*} == ampere80 ]] && shared=(-DBUILD_SHARED_LIBS=ON)
        build_kokkos "$flavor" -DCMAKE_CXX_COMPILER="$KOKKOS_SRC/bin/nvcc_wrapper" \
            -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_SERIAL=ON \
            -DKokkos_ENABLE_OPENMP=OFF "-DKokkos_ARCH_${spec##*:}=ON" "${shared[@]}"
        wrapper="$DEPS/kokkos-$flavor/bin/nvcc_wrapper"
        [[ -x $wrapper ]] || die "Kokkos did not install $wrapper"
        # Only once: ccache knows a compiler by its modification time, and a rewrite on every run
        # (sed -i writes a new file) made every CUDA compile of the next build miss the cache.
        if grep -q 'NVCC_WRAPPER_DEFAULT_COMPILER:-"g++"}' "$wrapper"; then
            sed -i 's/NVCC_WRAPPER_DEFAULT_COMPILER:-"g++"}/NVCC_WRAPPER_DEFAULT_COMPILER:-"g++-11"}/' "$wrapper"
        fi
        FLAVORS+=("$flavor")
    done
fi

# ---------------------------------------------------------------------------------------------
PHASE="summary"
echo
say "timings:"
for t in "${TIMINGS[@]}"; do echo "    $t"; done
echo "    total                              $(( $(date +%s) - T_START ))s"
say "Kokkos installs (Kokkos $KOKKOS_VERSION):"
for f in "${FLAVORS[@]}"; do
    p="$DEPS/kokkos-$f"
    printf '    %-14s Kokkos_ROOT=%s   (kernels: %s)\n' "$f" "$p" "$(sed -n 's/^kernels: //p' "$p/.boreas-stamp")"
done
if [[ $WITH_CUDA == 1 ]]; then
    say "CUDA builds: export NVCC_WRAPPER_DEFAULT_COMPILER=g++-11 (the cuda-* presets do this)"
fi
if [[ $DEPS != "${BOREAS_DEPS:-$HOME/.cache/boreas}" ]]; then
    say "the CMake presets look in \${BOREAS_DEPS:-~/.cache/boreas}: export BOREAS_DEPS=$DEPS before cmake"
fi
say "done"
