#pragma once
// Plain traversal of a box of interior cells. On host backends threads take whole rows and walk
// x innermost (unit stride, vectorisable); on devices every cell is one work item, and so on
// hosts with Traversal::Cells ([simulation] traversal = "cells": the devices' code paths, run
// where a debugger and the tests reach them).
#include <Kokkos_Core.hpp>

#include <type_traits>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/field/DenseField.hpp"

namespace boreas {

constexpr bool exec_is_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;

// A cell functor may also offer row(first_cell, count): host traversals then hand it whole rows,
// so that it can hoist per-row work and vectorise along x (PullStep does).
template <class F, class = void>
struct has_row_kernel : std::false_type {};
template <class F>
struct has_row_kernel<F, std::void_t<decltype(std::declval<const F&>().row(0L, 0))>> : std::true_type {};

// A cell functor may offer bulk(cell), the step of a cell whose neighbours are all fluid without
// a flag test per link or boundary branch, and in_bulk(cell), which tells such cells. A cell work
// item tests its neighbourhood once and takes that path: on an sm_90 GPU the D3Q19 steps' general
// path compiles to 16,000-34,000 instructions with local memory (every boundary rule of every
// direction inlined), the bulk one to 1,700-1,800 without (perf/README.md). Both perform the same
// operations on a bulk cell, so results are bitwise equal whichever path a cell takes.
template <class F, class = void>
struct has_bulk_kernel : std::false_type {};
template <class F>
struct has_bulk_kernel<F, std::void_t<decltype(std::declval<const F&>().bulk(0L)),
                                      decltype(std::declval<const F&>().in_bulk(0L))>> : std::true_type {};

template <class F>
KOKKOS_FORCEINLINE_FUNCTION void step_cell(const F& f, long cell) {
  if constexpr (has_bulk_kernel<F>::value) {
    if (f.in_bulk(cell)) {
      f.bulk(cell);
      return;
    }
  }
  f(cell);
}

// Work items of for_each_cell. Named functors rather than lambdas: nvcc rejects extended
// lambdas that first capture inside an `if constexpr` branch.
template <class F>
struct RowSweep {
  F f;
  DenseGeometry geom;
  int nx, ny, x0, y0, z0;
  KOKKOS_INLINE_FUNCTION void operator()(const long row) const {
    const int y = y0 + static_cast<int>(row % ny), z = z0 + static_cast<int>(row / ny);
    const long base = geom.index(x0, y, z);
    if constexpr (has_row_kernel<F>::value) {
      f.row(base, nx);
    } else {
      for (int x = 0; x < nx; ++x) f(base + x);
    }
  }
};

template <class F>
struct CellSweep {
  F f;
  DenseGeometry geom;
  int nx, ny, x0, y0, z0;
  KOKKOS_INLINE_FUNCTION void operator()(const long i) const {
    const int x = static_cast<int>(i % nx);
    const long r = i / nx;
    const int y = static_cast<int>(r % ny), z = static_cast<int>(r / ny);
    step_cell(f, geom.index(x0 + x, y0 + y, z0 + z));
  }
};

// Calls f(cell_index) (or its bulk path, step_cell) for every cell of the local box [lo, hi)
// (interior coordinates), or f.row(first_cell, count) for every row of it on host backends when
// F offers row() and `traversal` is Auto. Bounds: the device launch's Kokkos::LaunchBounds
// (boreas-bench --launch-bounds; by default Kokkos's choice, no register cap).
template <class F, class Exec = ExecSpace, class Bounds = Kokkos::LaunchBounds<>>
void for_each_cell(const char* label, const DenseGeometry& geom, const std::array<int, 3>& lo,
                   const std::array<int, 3>& hi, const F& f, Traversal traversal = Traversal::Auto,
                   const Exec& exec = Exec()) {
  const int nx = hi[0] - lo[0], ny = hi[1] - lo[1], nz = hi[2] - lo[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;
  if constexpr (host) {
    if (traversal == Traversal::Auto) {
      Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec>(exec, 0, static_cast<long>(ny) * nz),
                           RowSweep<F>{f, geom, nx, ny, lo[0], lo[1], lo[2]});
      return;
    }
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<Exec, Bounds>(exec, 0, static_cast<long>(nx) * ny * nz),
                       CellSweep<F>{f, geom, nx, ny, lo[0], lo[1], lo[2]});
}

template <class F>
void for_each_interior_cell(const char* label, const DenseGeometry& geom, const F& f) {
  for_each_cell(label, geom, {0, 0, 0}, {geom.n[0], geom.n[1], geom.n[2]}, f);
}

}  // namespace boreas
