#pragma once
// Swap streaming in prism order (Fu's thesis ch. 5, seed 004): the rows of the block are cut into
// tiles of `tile` rows along the sheared axis u = y + z, and the sweep visits tile by tile, each
// tile plane by plane (z), each plane row by row (y), each row along x. A tile stays in cache
// while the sweep passes through it, unlike a whole-plane sweep.
//
// The swap rule of SwapStep.hpp needs, per opposite pair, a member a whose neighbour P + c_a is
// always visited earlier. In this order the key of P + c is (tile(u + c_y + c_z), z + c_z, y + c_y,
// x + c_x): for c_y + c_z < 0 the tile is not later and, within a tile, z or y is smaller; for
// c_y + c_z = 0 the tile is the same and the sign of c_z (else c_x) decides. That is exactly the
// member SwapRow already picks (swap_backward: last non-zero component negative), so SwapRow is
// reused unchanged and only the order of its rows differs.
//
// Parallel form: one work unit is the rows of tile j in plane z; unit (j, z) runs in wave
// z + 2 j. Linked rows of one tile sit in the same unit or in planes visited in increasing waves;
// a row of tile j + 1 links only to rows of tile j at most one plane away, which ran at least one
// wave earlier. Units of one wave lie two or more planes apart and share no link.
#include <Kokkos_Core.hpp>

#include "lbm/scheme/SwapStep.hpp"

namespace boreas {

template <class L, class Real, class Collision>
struct SwapPrismWave {
  SwapRow<L, Real, Collision> rows;
  int tile, wave;

  KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
    const int z = wave - 2 * j, ny = rows.geom.n[1];
    const int y_lo = j * tile - z > 0 ? j * tile - z : 0;
    const int y_hi = (j + 1) * tile - z < ny ? (j + 1) * tile - z : ny;
    for (int y = y_lo; y < y_hi; ++y) rows(y, z);
  }
};

// One swap sweep of the whole block in prism order with tiles of `tile` >= 2 rows.
template <class L, class Real, class Collision>
void swap_prism_sweep(const SwapRow<L, Real, Collision>& rows, int tile) {
  const int ny = rows.geom.n[1], nz = rows.geom.n[2];
  const int tiles = (ny + nz - 2) / tile + 1;
  for (int w = 0; w < nz + 2 * (tiles - 1); ++w) {
    // Tiles j with plane z = w - 2 j inside [0, nz).
    const int j_lo = w - nz + 1 > 0 ? (w - nz + 2) / 2 : 0;
    const int j_hi = w / 2 < tiles - 1 ? w / 2 : tiles - 1;
    Kokkos::parallel_for("boreas::lbm::swap_prism_wave", Kokkos::RangePolicy<ExecSpace>(j_lo, j_hi + 1),
                         SwapPrismWave<L, Real, Collision>{rows, tile, w});
  }
}

}  // namespace boreas
