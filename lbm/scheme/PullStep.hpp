#pragma once
// The fused two-lattice pull kernel: every fluid cell gathers the post-collision populations of
// its upwind neighbours from `src` (closing boundary links by the rules of Boundary.hpp),
// collides, and writes its own post-collision populations to `dst`. This is the reference
// against which every other streaming variant is checked bit for bit.
//
// Host backends hand the kernel whole rows (see Traversal.hpp); their bulk runs take the
// vectorised path of BulkRows.hpp, bitwise identical to the per-cell path.
#include <Kokkos_Core.hpp>

#include "lbm/physics/Boundary.hpp"
#include "lbm/scheme/BulkRows.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/field/DenseField.hpp"
#include "lbm/field/WallLinks.hpp"

namespace boreas {

// Lattice and Flags are the block's device views, or a tile's copies in team scratch memory
// (MergedTiles.hpp): anything indexed as src(q, cell) and flags(cell) with the strides of `geom`.
template <class L, class Real, class Lattice = Populations<Real>,
          class Flags = DeviceView<const std::uint8_t*>>
struct PullGather {
  Lattice src;
  Flags flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;
  WallLinks walls;  // none in tiles: decks with obstacles' per-link data run ab_pull (core/Deck.cpp)

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
        const int row = fl == flag::wall && walls.any() ? walls.row(cell) : -1;
        if (row >= 0) {
          const long downstream = cell + upwind_shift<q>();
          f[q] = interpolated_bounce_back<L, q>(Real(walls.fraction(row, q)), Real(walls.momentum(row, q)), own_post,
                                                flags(downstream) == flag::fluid, [&] {
                                                  return src(opposite<L>(q), downstream);
                                                });
        } else {
          f[q] = incoming_from_boundary<L, q>(fl, own_post, bc, params, [&](int(&p)[3]) { geom.position(cell, p); });
        }
      }
    });
  }
};

template <class L, class Real, class Collision>
struct PullStep {
  PullGather<L, Real> gather;
  Populations<Real> dst;

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

  // `count` consecutive cells of one row starting at `first` (host backends): bulk runs take
  // the vectorised path of BulkRows.hpp.
  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    BulkRows<L, Real, Collision>::row(
        gather.flags, gather.geom, gather.params, dst.layout, first, count, [&](long cell) { (*this)(cell); },
        [&](auto qc) -> const Real* {
          constexpr int q = decltype(qc)::value;
          return &gather.src(q, first - gather.template upwind_shift<q>());
        },
        [&](auto qc) -> Real* { return &dst(decltype(qc)::value, first); });
  }
};

}  // namespace boreas
