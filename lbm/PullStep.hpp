#pragma once
// The fused two-lattice pull kernel: every fluid cell gathers the post-collision populations of
// its upwind neighbours from `src` (closing boundary links by the rules of Boundary.hpp),
// collides, and writes its own post-collision populations to `dst`. This is the reference
// against which every other streaming variant is checked bit for bit.
//
// Host backends hand the kernel whole rows (see Traversal.hpp). A row is split into runs of
// bulk cells (the cell and all its upwind neighbours fluid) and the rest. Bulk runs skip every
// flag test and go through chunks of cells held direction-major in a local array, so that the
// compiler vectorises the loads, the collision and the stores along x. Both paths perform the
// same operations per cell in the same order, so the results are bitwise identical.
#include <Kokkos_Core.hpp>

#include "lbm/Boundary.hpp"
#include "lbm/Collision.hpp"
#include "lbm/DenseField.hpp"

// Host compilers may decline to inline the per-direction lambdas of the collision inside the
// chunk loop, which then cannot vectorise; `flatten` inlines the whole call tree of a function.
// Device compilers inline on their own (and never run the row path).
#if defined(__GNUC__) && !defined(__CUDACC__)
#define BOREAS_FLATTEN __attribute__((flatten))
#define BOREAS_PREFETCH_AHEAD(p, bytes, write)                                             \
  for (int line = 0; line < int(bytes); line += 64)                                         \
  __builtin_prefetch(reinterpret_cast<const char*>(p) + line, write)
#else
#define BOREAS_FLATTEN
#define BOREAS_PREFETCH_AHEAD(p, bytes, write)
#endif

namespace boreas {

template <class L, class Real>
struct PullGather {
  Populations<Real> src;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;

  template <int q>
  KOKKOS_FORCEINLINE_FUNCTION long upwind_shift() const {
    return geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
  }

  // Incoming (post-streaming, pre-collision) populations of `cell`.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell, Real (&f)[L::Q]) const {
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const long upwind = cell - upwind_shift<q>();
      const std::uint8_t fl = flags(upwind);
      if (fl == flag::fluid) {
        f[q] = src(q, upwind);
      } else {
        const auto own_post = [&](int k) { return src(k, cell); };
        f[q] = incoming_from_boundary<L, q>(fl, own_post, bc, params);
      }
    });
  }
};

template <class L, class Real, class Collision>
struct PullStep {
  PullGather<L, Real> gather;
  Populations<Real> dst;

  // Most cells per vectorised chunk: 1 KiB per direction (19 KiB for D3Q19 doubles, within L1).
  // Long chunks matter on CPUs: each of the 2Q streams is then read and written in runs of 16
  // cache lines, which the hardware prefetchers follow (64-byte chunks ran at 0.55x the speed).
  static constexpr int chunk = 1024 / sizeof(Real);
  // Cells whose bulk mask is computed at once (bounds the local mask array).
  static constexpr int segment = 256;

  // Any cell, any backend: the general path with a flag test per link.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const {
    if (gather.flags(cell) != flag::fluid) return;
    Real f[L::Q];
    gather(cell, f);
    Collision::template collide<L>(f, gather.params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      dst(q, cell) = f[q];
    });
  }

  // `count` consecutive cells of one row starting at `first` (host backends).
  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    for (int s = 0; s < count; s += segment) {
      const int n = count - s < segment ? count - s : segment;
      std::uint8_t not_bulk[segment];
      bulk_mask(first + s, n, not_bulk);
      int x = 0;
      while (x < n) {
        if (not_bulk[x]) {
          (*this)(first + s + x);
          ++x;
          continue;
        }
        int end = x + 1;
        while (end < n && !not_bulk[end]) ++end;
        for (; x + chunk <= end; x += chunk) bulk_chunk<chunk>(first + s + x, chunk);
        if (x + chunk / 2 <= end) {
          bulk_chunk<chunk / 2>(first + s + x, chunk / 2);
          x += chunk / 2;
        }
        if (x < end) bulk_chunk<0>(first + s + x, end - x);
        x = end;
      }
    }
  }

 private:
  // not_bulk[i] != 0 unless cell first+i and all its upwind neighbours are fluid (q = 0 is the
  // cell itself). Byte-wise ORs over contiguous ranges: vectorised.
  KOKKOS_FORCEINLINE_FUNCTION void bulk_mask(long first, int n, std::uint8_t* not_bulk) const {
    for (int i = 0; i < n; ++i) not_bulk[i] = 0;
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const std::uint8_t* up = gather.flags.data() + (first - gather.template upwind_shift<q>());
      for (int i = 0; i < n; ++i) not_bulk[i] |= up[i];
    });
  }

  // `count` <= chunk consecutive bulk cells starting at `first`; Fixed = chunk gives the compiler
  // the trip count (whole-chunk loops stay inline vector code), 0 leaves it to `count`.
  template <int Fixed>
  BOREAS_FLATTEN KOKKOS_INLINE_FUNCTION void bulk_chunk(long first, int count) const {
    const int n = Fixed ? Fixed : count;
    Real f[L::Q][chunk];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const Real* in = &gather.src(q, first - gather.template upwind_shift<q>());
      for (int i = 0; i < n; ++i) f[q][i] = in[i];
      BOREAS_PREFETCH_AHEAD(in + n, chunk * sizeof(Real), 0);
    });
    // Two copies of the loop, each with has_force a known constant, so that the compiler drops
    // the force branch inside the collision and vectorises the loop.
    CollisionParams<Real> p = gather.params;
    if (p.has_force) {
      p.has_force = true;
      collide_chunk(f, n, p);
    } else {
      p.has_force = false;
      collide_chunk(f, n, p);
    }
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      Real* out = &dst(q, first);
      for (int i = 0; i < n; ++i) out[i] = f[q][i];
      BOREAS_PREFETCH_AHEAD(out + n, chunk * sizeof(Real), 1);
    });
  }

  KOKKOS_FORCEINLINE_FUNCTION static void collide_chunk(Real (&f)[L::Q][chunk], int n, const CollisionParams<Real>& p) {
    for (int i = 0; i < n; ++i) {
      Real cell[L::Q];
      static_for<L::Q>([&](auto qc) { cell[decltype(qc)::value] = f[decltype(qc)::value][i]; });
      Collision::template collide<L>(cell, p);
      static_for<L::Q>([&](auto qc) { f[decltype(qc)::value][i] = cell[decltype(qc)::value]; });
    }
  }
};

}  // namespace boreas
