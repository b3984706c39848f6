#pragma once
// The vectorised host path shared by the kernels that take whole rows (Traversal.hpp hands them
// row(first, count) on host backends). A row is split into runs of bulk cells (the cell and all
// its neighbours fluid, so no boundary rule applies) and the rest. Bulk runs go through chunks
// held direction-major in a local array: the loads of each direction's stream, the collision and
// the stores all vectorise along x. The kernel supplies where direction q of a run is read from
// and written to (pointers to its first cell, x-contiguous); the other cells take the kernel's
// per-cell path. Both paths perform the same operations per cell in the same order, so results
// are bitwise identical whichever path a cell takes.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "lbm/physics/Collision.hpp"
#include "lbm/field/DenseField.hpp"

// Host compilers may decline to inline the per-direction lambdas of the collision inside the
// chunk loop, which then cannot vectorise; `flatten` inlines the whole call tree of a function.
// Prefetching each of the 2Q streams 1 KiB ahead keeps the memory system busy (the
// hardware prefetchers lose track of that many streams). Device compilers never run this path.
#if defined(__GNUC__) && !defined(__CUDACC__)
#define BOREAS_FLATTEN __attribute__((flatten))
#define BOREAS_PREFETCH_AHEAD(p, bytes, write)     \
  for (int line = 0; line < int(bytes); line += 64) \
  __builtin_prefetch(reinterpret_cast<const char*>(p) + line, write)
// Every cache line of [p, p + bytes), p not necessarily aligned.
#define BOREAS_PREFETCH_SPAN(p, bytes, write)                                         \
  do {                                                                                 \
    BOREAS_PREFETCH_AHEAD(p, bytes, write);                                            \
    __builtin_prefetch(reinterpret_cast<const char*>(p) + (bytes) - 1, write);         \
  } while (0)
#else
#define BOREAS_FLATTEN
#define BOREAS_PREFETCH_AHEAD(p, bytes, write)
#define BOREAS_PREFETCH_SPAN(p, bytes, write)
#endif

namespace boreas {

// Whether `cell` and all its neighbours are fluid, so that no boundary rule applies: the per-cell
// form of BulkRows::bulk_mask, which devices test once per cell (Traversal.hpp step_cell).
template <class L>
KOKKOS_FORCEINLINE_FUNCTION bool is_bulk_cell(const DeviceView<const std::uint8_t*>& flags, const DenseGeometry& geom,
                                              long cell) {
  std::uint8_t any = 0;  // flag::fluid is 0
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    any |= flags(cell - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
  });
  return any == 0;
}

// ChunkBytes: most bytes per direction held in the chunk buffer. Two-lattice kernels take 1 KiB
// (19 KiB for D3Q19 doubles, within L1): their 2Q distinct streams are then read and written in
// runs of 16 cache lines, which the prefetchers follow (128-byte chunks ran at 0.55x the speed).
// In-place kernels read and write the same lines; a 19 KiB buffer beside them overflows a 32 KiB
// L1 and the lines are fetched twice, so they take one cache line (AA: 1.3-1.5x faster than with
// 1 KiB, perf/README.md). Either way each stream is prefetched 1 KiB ahead.
template <class L, class Real, class Collision, int ChunkBytes = 1024>
struct BulkRows {
  static constexpr int chunk = ChunkBytes / sizeof(Real);
  static constexpr int ahead = 1024 / sizeof(Real);
  // Cells whose bulk mask is computed at once (bounds the local mask array).
  static constexpr int segment = 256;

  // Calls cell(c) for every non-bulk cell of the row and, for bulk runs, collides them through
  // chunks: source(q) / target(q) give the row's stream pointers for direction q (an
  // integral_constant) at cell `first`. Lattices not in SoA layout (no x-contiguous streams) take
  // the per-cell path throughout.
  template <class Cell, class Source, class Target>
  KOKKOS_INLINE_FUNCTION static void row(const DeviceView<const std::uint8_t*>& flags,
                                         const DenseGeometry& geom, const CollisionParams<Real>& params,
                                         const PopulationLayout& layout, long first, int count,
                                         const Cell& cell, const Source& source, const Target& target) {
    if (!layout.soa()) {
      for (int i = 0; i < count; ++i) cell(first + i);
      return;
    }
    for (int s = 0; s < count; s += segment) {
      const int n = count - s < segment ? count - s : segment;
      std::uint8_t not_bulk[segment];
      bulk_mask(flags, geom, first + s, n, not_bulk);
      int x = 0;
      while (x < n) {
        if (not_bulk[x]) {
          cell(first + s + x);
          ++x;
          continue;
        }
        int end = x + 1;
        while (end < n && !not_bulk[end]) ++end;
        for (; x + chunk <= end; x += chunk) collide_chunk<chunk>(params, s + x, chunk, source, target);
        collide_rest<chunk / 2>(params, s + x, end - x, source, target);
        x = end;
      }
    }
  }

  // The last `count` < 2 Fixed cells of a run: halving fixed-size chunks down to 8 cells, so that
  // short rows (small boxes) also run compile-time trip counts; then the remainder.
  template <int Fixed, class Source, class Target>
  KOKKOS_INLINE_FUNCTION static void collide_rest(const CollisionParams<Real>& params, int at, int count,
                                                  const Source& source, const Target& target) {
    if constexpr (Fixed >= 8) {
      if (count >= Fixed) {
        collide_chunk<Fixed>(params, at, Fixed, source, target);
        at += Fixed;
        count -= Fixed;
      }
      collide_rest<Fixed / 2>(params, at, count, source, target);
    } else {
      if (count > 0) collide_chunk<0>(params, at, count, source, target);
    }
  }

  // not_bulk[i] != 0 unless cell first+i and all its neighbours are fluid (q = 0 is the cell
  // itself; the velocity set is symmetric, so upwind and downwind neighbours are the same cells).
  // Byte-wise ORs over contiguous ranges: vectorised.
  KOKKOS_FORCEINLINE_FUNCTION static void bulk_mask(const DeviceView<const std::uint8_t*>& flags,
                                                    const DenseGeometry& geom, long first, int n,
                                                    std::uint8_t* not_bulk) {
    for (int i = 0; i < n; ++i) not_bulk[i] = 0;
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const std::uint8_t* up = flags.data() + (first - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
      for (int i = 0; i < n; ++i) not_bulk[i] |= up[i];
    });
  }

  // `count` <= chunk bulk cells starting `at` cells into the row; Fixed = count gives the
  // compiler the trip count (the copy loops stay inline vector code instead of becoming memmove
  // calls), 0 leaves it to `count`.
  template <int Fixed, class Source, class Target>
  BOREAS_FLATTEN KOKKOS_INLINE_FUNCTION static void collide_chunk(const CollisionParams<Real>& params, int at,
                                                                  int count, const Source& source,
                                                                  const Target& target) {
    const int n = Fixed ? Fixed : count;
    Real f[L::Q][chunk];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const Real* in = source(qc) + at;
      for (int i = 0; i < n; ++i) f[q][i] = in[i];
      BOREAS_PREFETCH_AHEAD(in + ahead, n * sizeof(Real), 0);
    });
    collide_buffer(f, n, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      Real* out = target(qc) + at;
      for (int i = 0; i < n; ++i) out[i] = f[q][i];
      BOREAS_PREFETCH_AHEAD(out + ahead, n * sizeof(Real), 1);
    });
  }

  // Rows x Width bulk cells from `Rows` rows in one chunk (load(q, r, out) puts row r's Width
  // values of direction q into out, q and r integral_constants; target(q, r): row r's first cell
  // in direction q's stream): rows of AMR leaves, whose pulls are not one stream, collide
  // together, each cell with the operations collide_chunk performs. ahead(q) follows direction q's loads (the caller
  // prefetches what it collides next: the hardware prefetchers lose 2Q streams of a few lines).
  template <int Rows, int Width, class Load, class Target, class Ahead>
  BOREAS_FLATTEN KOKKOS_INLINE_FUNCTION static void collide_rows(const CollisionParams<Real>& params, const Load& load,
                                                                 const Target& target, const Ahead& ahead) {
    static_assert(Rows * Width <= chunk, "the rows exceed the chunk buffer");
    Real f[L::Q][chunk];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      static_for<Rows>([&](auto rc) { load(qc, rc, &f[q][decltype(rc)::value * Width]); });
      ahead(qc);
    });
    collide_buffer(f, Rows * Width, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      for (int r = 0; r < Rows; ++r) std::memcpy(target(qc, r), &f[q][r * Width], Width * sizeof(Real));
    });
  }

  // Copies of the loop with has_force and (where there is no subgrid model) has_sgs known
  // constants, so that the compiler drops those branches inside the collision and vectorises.
  KOKKOS_FORCEINLINE_FUNCTION static void collide_buffer(Real (&f)[L::Q][chunk], int n,
                                                         const CollisionParams<Real>& params) {
    CollisionParams<Real> p = params;
    if (p.has_sgs) {
      collide_cells(f, n, p);
    } else if (p.has_force) {
      p.has_sgs = false;
      p.has_force = true;
      collide_cells(f, n, p);
    } else {
      p.has_sgs = false;
      p.has_force = false;
      collide_cells(f, n, p);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void collide_cells(Real (&f)[L::Q][chunk], int n, const CollisionParams<Real>& p) {
    for (int i = 0; i < n; ++i) {
      Real cell[L::Q];
      static_for<L::Q>([&](auto qc) { cell[decltype(qc)::value] = f[decltype(qc)::value][i]; });
      Collision::template collide<L>(cell, p);
      static_for<L::Q>([&](auto qc) { f[decltype(qc)::value][i] = cell[decltype(qc)::value]; });
    }
  }
};

}  // namespace boreas
