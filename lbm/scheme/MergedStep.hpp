#pragma once
// k-step temporal merging (merged<k>; Fu's thesis ch. 6, seed 004) on ab_pull's two lattices:
// level l = 1..k of a sweep is one pull step from lattice (cur + l - 1) & 1 to the other. A
// pull at level l of cell (x, y, z) reads level l - 1 of cells (y +- 1, z +- 1); that is the
// only dependency. Because the stencil is symmetric, the readers of level l - 2 in a cell are the
// very cells whose level l - 1 its level l needs, so any order that respects the dependency may
// overwrite level l - 2 with level l: two lattices suffice for any k. Rows (all x) are the unit,
// so x needs no care; periodic ghosts are refreshed right after their image row is computed
// (RowGhosts), so that a ghost always mirrors its image within each lattice and the periodic
// block behaves like a torus.
//
// CPU schedule: one slab of planes [Z_i, Z_i+1) per thread along z, two stages per sweep (two
// barriers per k steps):
//   stage 1 (slabs)  each slab computes the trapezoid z in [Z_i + l - 1, Z_i+1 - l + 1) at level l,
//                    which depends on nothing outside the slab. Inside, a serial prism sweep: tiles
//                    of rows along y, each swept along z as a wavefront (level l on plane zw - l + 1),
//                    tiles sheared by one row per level (tile j, level l: y in [Y_j - l + 1,
//                    Y_j+1 - l + 1)), so that a level only needs the previous tile and the tile
//                    itself; the periodic seam at y = 0 is closed afterwards by a small wedge
//                    y in [-l + 1, l - 1) swept the same way.
//   stage 2 (seams)  each slab boundary Z_i (and the periodic seam z = 0) computes its inverted
//                    trapezoid z in [Z_i - l + 1, Z_i + l - 1) level by level, all rows.
// 2D blocks (no z links) have one slab and no stage 2 (they run on one thread).
#include <Kokkos_Core.hpp>

#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

// Periodic ghosts grouped by the interior row (y, z) of their image: ghost(i), image(i) for i in
// [start(r), start(r + 1)), r = z n_y + y.
struct RowGhosts {
  DeviceView<long*> start, ghost, image;
};

// The interior row r = z n_y + y of the cell `cell` - (0, dy, dz): the row whose step a ghost copy
// of the slab form follows (RowGhosts here, merged_aa's RowCopies).
inline long interior_row(const CellMap& map, long cell, int dy = 0, int dz = 0) {
  int x, y, z;
  map.coords(cell, x, y, z);
  return static_cast<long>(z - dz) * map.geom.n[1] + (y - dy);
}

// The geometry of a merged sweep.
struct MergedSchedule {
  int k = 2;       // levels per sweep
  int slabs = 1;   // along z
  int tiles = 1;   // along y, inside every slab
  int ny = 1, nz = 1;
  int z_links = 1;  // 1 when cells link across z (3D), 0 for 2D blocks

  KOKKOS_INLINE_FUNCTION int slab_lo(int i) const { return static_cast<int>(long(i) * nz / slabs); }
  KOKKOS_INLINE_FUNCTION int tile_lo(int j) const { return static_cast<int>(long(j) * ny / tiles); }
  KOKKOS_INLINE_FUNCTION int wrap_y(int y) const { return y < 0 ? y + ny : (y >= ny ? y - ny : y); }
  KOKKOS_INLINE_FUNCTION int wrap_z(int z) const { return z < 0 ? z + nz : (z >= nz ? z - nz : z); }
};

// The schedule of a block with `k` levels per sweep and y tiles of about `tile` rows; slabs == 0
// when the block is too thin for it (then the caller takes single steps).
inline MergedSchedule merged_schedule(const DenseGeometry& g, int dims, int k, int tile) {
  MergedSchedule s;
  s.k = k;
  s.ny = g.n[1];
  s.nz = g.n[2];
  s.z_links = dims == 3 ? 1 : 0;
  // Tile 0 and the wedge at the seam y = 0 need 2 (k - 1) rows.
  const int rows = tile > 2 * (k - 1) ? tile : 2 * (k - 1);
  s.tiles = rows > 0 && s.ny / rows > 1 ? s.ny / rows : 1;
  if (s.ny < 2 * (k - 1)) {
    s.slabs = 0;
  } else if (s.z_links) {
    // Neighbouring seams must not touch: at least 2 k planes per slab.
    const int most = s.nz / (2 * k), threads = ExecSpace().concurrency();
    s.slabs = most < threads ? most : threads;
  }
  return s;
}

// One pull step of one row from lattice `from` into the other, then the row's ghost refresh
// (host backends: the slab form runs there only).
template <class L, class Real, class Collision>
struct MergedRows {
  PullStep<L, Real, Collision> from[2];  // from[p] reads lattice p
  RowGhosts ghosts;

  KOKKOS_INLINE_FUNCTION void operator()(int p, int y, int z) const {
    const PullStep<L, Real, Collision>& step = from[p];
    const DenseGeometry& g = step.gather.geom;
    step.row(g.index(0, y, z), g.n[0]);
    const long r = static_cast<long>(z) * g.n[1] + y;
    for (long i = ghosts.start(r); i < ghosts.start(r + 1); ++i)
      for (int q = 0; q < L::Q; ++q) step.dst(q, ghosts.ghost(i)) = step.dst(q, ghosts.image(i));
  }
};

// Stage 1 (seams == false: slab i) or stage 2 (seams == true: the seam at Z_i) of one sweep.
// Rows: rows(p, y, z) computes level l of row (y, z), p = (first + l - 1) & 1 (MergedRows: the
// lattice it reads; MergedAARows: local or neighbour step).
template <class Rows>
struct MergedStage {
  Rows rows;
  MergedSchedule s;
  int first;  // p of level 1
  bool seams;

  KOKKOS_INLINE_FUNCTION int source(int level) const { return (first + level - 1) & 1; }

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    if (seams)
      seam(s.slab_lo(i));
    else
      slab(s.slab_lo(i), s.slab_lo(i + 1));
  }

  // Rows [y_lo(l), y_hi(l)) (wrapped) of the trapezoid of [za, zb), as a wavefront along z.
  template <class Lo, class Hi>
  KOKKOS_INLINE_FUNCTION void wavefront(int za, int zb, const Lo& y_lo, const Hi& y_hi) const {
    for (int zw = za; zw < zb + s.k - 1; ++zw)
      for (int l = 1; l <= s.k; ++l) {
        const int z = zw - (l - 1), shrink = s.z_links * (l - 1);
        if (z < za + shrink || z >= zb - shrink) continue;
        for (int y = y_lo(l); y < y_hi(l); ++y) rows(source(l), s.wrap_y(y), z);
      }
  }

  KOKKOS_INLINE_FUNCTION void slab(int za, int zb) const {
    for (int j = 0; j < s.tiles; ++j) {
      const auto lo = [&](int l) { return j == 0 ? l - 1 : s.tile_lo(j) - (l - 1); };
      const auto hi = [&](int l) { return s.tile_lo(j + 1) - (l - 1); };
      wavefront(za, zb, lo, hi);
    }
    wavefront(za, zb, [](int l) { return -(l - 1); }, [](int l) { return l - 1; });
  }

  KOKKOS_INLINE_FUNCTION void seam(int z0) const {
    for (int l = 2; l <= s.k; ++l)
      for (int z = z0 - (l - 1); z < z0 + (l - 1); ++z)
        for (int y = 0; y < s.ny; ++y) rows(source(l), y, s.wrap_z(z));
  }
};

// One sweep (k levels) of the slab form: stage 1, then stage 2 where cells link across z.
template <class Rows>
void merged_sweep(const MergedSchedule& s, const Rows& rows, int first) {
  Kokkos::parallel_for("boreas::lbm::merged_slabs", Kokkos::RangePolicy<ExecSpace>(0, s.slabs),
                       MergedStage<Rows>{rows, s, first, false});
  if (s.z_links)
    Kokkos::parallel_for("boreas::lbm::merged_seams", Kokkos::RangePolicy<ExecSpace>(0, s.slabs),
                         MergedStage<Rows>{rows, s, first, true});
}

}  // namespace boreas
