#pragma once
// The device form of merged<k> (Fu's thesis ch. 6, seed 004): overlapped tiles in team scratch
// memory. A team copies its tile of the current lattice plus a halo of k cells on every linked axis
// into scratch, computes levels 1 .. k-1 there on boxes that shrink by one cell per level, and
// writes level k of its own cells to the other lattice. Halo cells are recomputed by every tile
// that needs them; in exchange the lattice is read and written once per k steps, and tiles need no
// ordering because they read one lattice and write the other.
//
// A single block that is its own periodic neighbour wraps its periodic axes inside the copy; a
// block whose ghosts a halo exchange filled k deep (several ranks, comm/) reads them as they are.
// Other ghost cells carry their boundary flags as in every pull step. Gather rules and collision
// are ab_pull's (PullGather, Collision.hpp), so every level is bitwise a pull step.
//
// Scratch per team: two lattices and the flags of the extended tile, in level 0 (shared memory on
// GPUs) when they fit, otherwise level 1 (global memory kept in cache); perf/KERNELS.md.
#include <Kokkos_Core.hpp>

#include <cstddef>

#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/StreamedLayout.hpp"

namespace boreas {

template <class T>
using ScratchView = Kokkos::View<T*, ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// A tile's lattice in scratch: direction planes of `qstride` cells.
template <class Real>
struct TileLattice {
  ScratchView<Real> data;
  long qstride;
  KOKKOS_FORCEINLINE_FUNCTION Real& operator()(int q, long cell) const { return data(q * qstride + cell); }
};

// Tiles of `edge` cells per linked axis (the whole extent on the others), each extended by k.
struct TileSchedule {
  int k = 2;
  int edge[3] = {1, 1, 1}, halo[3] = {0, 0, 0}, tiles[3] = {1, 1, 1};
  DenseGeometry local;  // the extended tile, unpadded

  long league() const { return static_cast<long>(tiles[0]) * tiles[1] * tiles[2]; }
  KOKKOS_INLINE_FUNCTION long cells() const { return local.cells_alloc; }
};

inline TileSchedule tile_schedule(const DenseGeometry& g, int dims, int k, int edge) {
  TileSchedule s;
  s.k = k;
  std::array<int, 3> ext{};
  for (int d = 0; d < 3; ++d) {
    const bool linked = d < dims;
    s.edge[d] = linked && edge < g.n[d] ? edge : g.n[d];
    s.halo[d] = linked ? k : 0;
    s.tiles[d] = (g.n[d] + s.edge[d] - 1) / s.edge[d];
    ext[d] = s.edge[d] + 2 * s.halo[d];
  }
  s.local = DenseGeometry(ext, {0, 0, 0}, 64);  // 64-byte "reals": rows unpadded
  return s;
}

template <class L, class Real, class Collision>
struct MergedTiles {
  using Member = Kokkos::TeamPolicy<ExecSpace>::member_type;
  Populations<Real> src, dst;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;  // the block's
  int wrap[3];         // axes to wrap (periodic axes of a single block), 0 when ghosts are filled
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;
  TileSchedule s;
  int scratch_level;

  static std::size_t scratch_bytes(const TileSchedule& s) {
    return 2 * ScratchView<Real>::shmem_size(L::Q * s.cells()) + ScratchView<std::uint8_t>::shmem_size(s.cells());
  }

  // The block cell at block coordinates p (wrapped axes wrapped), or -1 beyond the ghost layers.
  KOKKOS_INLINE_FUNCTION long block_cell(int (&p)[3]) const {
    const DenseGeometry& g = geom;
    for (int d = 0; d < 3; ++d) {
      if (wrap[d]) {
        p[d] %= g.n[d];
        if (p[d] < 0) p[d] += g.n[d];
      } else if (p[d] < -g.g[d] || p[d] >= g.n[d] + g.g[d]) {
        return -1;
      }
    }
    return g.index(p[0], p[1], p[2]);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const DenseGeometry& local = s.local;
    int origin[3];  // block coordinates of the extended tile's first cell
    long t = team.league_rank();
    for (int d = 0; d < 3; ++d) {
      origin[d] = static_cast<int>(t % s.tiles[d]) * s.edge[d] - s.halo[d];
      t /= s.tiles[d];
    }
    const long cells = s.cells();
    const TileLattice<Real> level[2] = {{ScratchView<Real>(team.team_scratch(scratch_level), L::Q * cells), cells},
                                        {ScratchView<Real>(team.team_scratch(scratch_level), L::Q * cells), cells}};
    const ScratchView<std::uint8_t> tile_flags(team.team_scratch(scratch_level), cells);

    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, cells), [&](const long i) {
      int p[3] = {origin[0] + static_cast<int>(i % local.n[0]),
                  origin[1] + static_cast<int>(i / local.n[0] % local.n[1]),
                  origin[2] + static_cast<int>(i / local.slab)};
      const long cell = block_cell(p);
      // Cells beyond the ghost layers are two or more cells from any fluid cell: never read.
      tile_flags(i) = cell < 0 ? flag::wall : flags(cell);
      if (cell >= 0)
        for (int q = 0; q < L::Q; ++q) level[0](q, i) = src(q, cell);
    });

    for (int l = 1; l <= s.k; ++l) {
      team.team_barrier();
      int lo[3], n[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = s.halo[d] ? l : 0;
        n[d] = local.n[d] - 2 * lo[d];
      }
      DenseGeometry tile = local;  // placed where the tile lies, for the boundary rules
      for (int d = 0; d < 3; ++d) tile.origin[d] = geom.origin[d] + origin[d];
      const PullGather<L, Real, TileLattice<Real>, ScratchView<std::uint8_t>> gather{
          level[(l - 1) & 1], tile_flags, tile, bc, params};
      const TileLattice<Real> out = level[l & 1];
      const bool last = l == s.k;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<long>(n[0]) * n[1] * n[2]), [&](const long i) {
        const int x = lo[0] + static_cast<int>(i % n[0]), y = lo[1] + static_cast<int>(i / n[0] % n[1]),
                  z = lo[2] + static_cast<int>(i / (static_cast<long>(n[0]) * n[1]));
        const long cell = local.index(x, y, z);
        if (tile_flags(cell) != flag::fluid) return;
        const int gx = origin[0] + x, gy = origin[1] + y, gz = origin[2] + z;
        const DenseGeometry& g = geom;
        if (last && (gx >= g.n[0] || gy >= g.n[1] || gz >= g.n[2])) return;  // a partial tile
        Real f[L::Q];
        gather(cell, f);
        Collision::template collide<L>(f, params);
        if (last) {
          const long target = g.index(gx, gy, gz);
          for (int q = 0; q < L::Q; ++q) dst(q, target) = f[q];
        } else {
          for (int q = 0; q < L::Q; ++q) out(q, cell) = f[q];
        }
      });
    }
  }
};

}  // namespace boreas
