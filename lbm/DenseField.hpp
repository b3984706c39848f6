#pragma once
// Dense block storage: one box of cells with ghost layers, populations in padded
// structure-of-arrays order (direction slowest, then z, y, x). Rows are padded to 64 bytes and
// direction planes are padded and staggered so that the Q streams of a sweep do not alias in
// cache sets.
#include <Kokkos_Core.hpp>

#include "core/Types.hpp"

namespace boreas {

// The index space of a block: interior cells [0, n) per axis plus g ghost layers on each side.
struct DenseGeometry {
  int n[3] = {1, 1, 1};
  int g[3] = {0, 0, 0};
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
  long interior_cells() const { return static_cast<long>(n[0]) * n[1] * n[2]; }
};

template <class Real>
struct Populations {
  DeviceView<Real*> data;
  long qstride = 0;

  Populations() = default;
  Populations(const std::string& label, const DenseGeometry& geom, int Q)
      : data(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), geom.qstride * Q),
        qstride(geom.qstride) {}

  KOKKOS_FORCEINLINE_FUNCTION Real& operator()(int q, long cell) const {
    return data(q * qstride + cell);
  }
};

}  // namespace boreas
