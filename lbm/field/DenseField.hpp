#pragma once
// Dense block storage: one box of cells with ghost layers (cells in z, y, x order), populations
// in padded structure-of-arrays order (direction slowest) or in 16-cell vectors grouped in
// direction bundles (AoSoA, PopulationLayout). Rows are padded to 64 bytes and direction planes
// (bundle regions) are padded and staggered so that the streams of a sweep do not alias in cache
// sets.
#include <Kokkos_Core.hpp>

#include "core/Types.hpp"

namespace boreas {

// The index space of a block: interior cells [0, n) per axis plus g ghost layers on each side.
struct DenseGeometry {
  int n[3] = {1, 1, 1};
  int g[3] = {0, 0, 0};
  int origin[3] = {0, 0, 0};  // global coordinates of cell (0, 0, 0)
  int sx = 1, sy = 1;       // padded row length, rows per z slab (with ghosts)
  long slab = 1;            // sx * sy
  long cells_alloc = 1;     // cells per direction plane, ghosts and padding included
  long qstride = 1;         // distance between direction planes

  DenseGeometry() = default;
  DenseGeometry(const std::array<int, 3>& cells, const std::array<int, 3>& ghosts, int real_bytes) {
    for (int d = 0; d < 3; ++d) {
      n[d] = cells[d];
      g[d] = ghosts[d];
    }
    const int per_line = 64 / real_bytes;
    sx = ((n[0] + 2 * g[0] + per_line - 1) / per_line) * per_line;
    sy = n[1] + 2 * g[1];
    slab = static_cast<long>(sx) * sy;
    cells_alloc = slab * (n[2] + 2 * g[2]);
    // Round each plane to 4 KiB pages plus one cache line so that successive planes fall in
    // different cache sets.
    const long page = 4096 / real_bytes;
    qstride = ((cells_alloc + page - 1) / page) * page + per_line;
  }

  KOKKOS_INLINE_FUNCTION long index(int x, int y, int z) const {
    return (static_cast<long>(z + g[2]) * sy + (y + g[1])) * sx + (x + g[0]);
  }
  KOKKOS_INLINE_FUNCTION long shift(int dx, int dy, int dz) const {
    return dz * slab + static_cast<long>(dy) * sx + dx;
  }
  // Global coordinates of `cell` (a ghost's lie outside the block).
  KOKKOS_INLINE_FUNCTION void position(long cell, int (&p)[3]) const {
    const long z = cell / slab, r = cell - z * slab;
    p[0] = static_cast<int>(r % sx) - g[0] + origin[0];
    p[1] = static_cast<int>(r / sx) - g[1] + origin[1];
    p[2] = static_cast<int>(z) - g[2] + origin[2];
  }
  long interior_cells() const { return static_cast<long>(n[0]) * n[1] * n[2]; }
};

// Where population (q, cell) lives: index(q, cell) = offset[q] + (cell >> shift) * block[q] +
// (cell & mask).
//   SoA    direction planes of geom.qstride cells (shift 0, mask 0, block 1, offset q qstride)
//   AoSoA  the "GPU bundle" of seed 002: cells in vectors of 16 consecutive cells, directions in
//          bundles of `bundle` consecutive directions; a bundle's region holds, vector after vector,
//          the 16 values of each of its directions side by side (16 doubles = one 128-byte segment)
struct PopulationLayout {
  static constexpr int max_q = 27;
  static constexpr int vector = 16;
  int bundle = 0;  // directions per bundle; 0: SoA
  int shift = 0;
  long mask = 0;
  long offset[max_q] = {};
  int block[max_q] = {};
  long size = 0;  // elements of one lattice

  KOKKOS_FORCEINLINE_FUNCTION long index(int q, long cell) const {
    return offset[q] + (cell >> shift) * block[q] + (cell & mask);
  }
  // Whether each direction's cells are contiguous (the vectorised host path needs it).
  KOKKOS_INLINE_FUNCTION bool soa() const { return bundle == 0; }

  static PopulationLayout make_soa(const DenseGeometry& g, int Q) {
    PopulationLayout l;
    for (int q = 0; q < Q; ++q) {
      l.offset[q] = q * g.qstride;
      l.block[q] = 1;
    }
    l.size = Q * g.qstride;
    return l;
  }

  // Bundle regions start on 4 KiB pages plus one stagger line each, as SoA planes do.
  static PopulationLayout make_aosoa(const DenseGeometry& g, int Q, int bundle, int real_bytes) {
    PopulationLayout l;
    l.bundle = bundle < Q ? bundle : Q;
    l.shift = 4;
    l.mask = vector - 1;
    const long vectors = (g.cells_alloc + vector - 1) / vector;
    const long page = 4096 / real_bytes, line = 64 / real_bytes;
    long base = 0;
    for (int first = 0; first < Q; first += l.bundle) {
      const int size = first + l.bundle <= Q ? l.bundle : Q - first;
      for (int j = 0; j < size; ++j) {
        l.offset[first + j] = base + j * vector;
        l.block[first + j] = size * vector;
      }
      base += ((vectors * size * vector + page - 1) / page) * page + line;
    }
    l.size = base;
    return l;
  }
};

template <class Real>
struct Populations {
  DeviceView<Real*> data;
  PopulationLayout layout;

  Populations() = default;
  Populations(const std::string& label, const PopulationLayout& l)
      : data(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), l.size), layout(l) {}

  KOKKOS_FORCEINLINE_FUNCTION Real& operator()(int q, long cell) const {
    return data(layout.index(q, cell));
  }
};

// Block-local cell coordinates and periodic images: `periodic` marks the periodic axes the block
// spans whole (all of them on one rank), whose ghosts mirror the block's own cells.
struct CellMap {
  DenseGeometry geom;
  int periodic[3] = {0, 0, 0};

  KOKKOS_INLINE_FUNCTION void coords(long cell, int& x, int& y, int& z) const {
    const long row = cell / geom.sx;
    x = static_cast<int>(cell % geom.sx) - geom.g[0];
    y = static_cast<int>(row % geom.sy) - geom.g[1];
    z = static_cast<int>(row / geom.sy) - geom.g[2];
  }
  KOKKOS_INLINE_FUNCTION bool owned(long cell) const {
    int x, y, z;
    coords(cell, x, y, z);
    return x >= 0 && y >= 0 && z >= 0 && x < geom.n[0] && y < geom.n[1] && z < geom.n[2];
  }
  // The owned cell a fluid ghost mirrors; the cell itself when owned, or when it mirrors another
  // rank's cell (a ghost across a split axis keeps what was written into it).
  KOKKOS_INLINE_FUNCTION long image(long cell) const {
    int p[3];
    coords(cell, p[0], p[1], p[2]);
    for (int d = 0; d < 3; ++d) {
      if (periodic[d]) p[d] = p[d] < 0 ? p[d] + geom.n[d] : (p[d] >= geom.n[d] ? p[d] - geom.n[d] : p[d]);
      if (p[d] < 0 || p[d] >= geom.n[d]) return cell;
    }
    return geom.index(p[0], p[1], p[2]);
  }
};

template <class L>
KOKKOS_FORCEINLINE_FUNCTION long neighbour(const DenseGeometry& g, long cell, int q) {
  return cell + g.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
}

}  // namespace boreas
