#pragma once
// Two-lattice push (ab_push): each fluid cell collides its own incoming populations (streamed
// layout of `src`) and scatters the results into `dst` (streamed layout). Reads are local, writes
// go to the neighbours. On host backends rows go through the vectorised bulk path of BulkRows.hpp
// (a bulk cell has no boundary link, so its push is the plain scatter).
#include <Kokkos_Core.hpp>

#include "lbm/scheme/BulkRows.hpp"
#include "lbm/scheme/StreamedLayout.hpp"

namespace boreas {

template <class L, class Real, class Collision>
struct PushStep {
  Populations<Real> src, dst;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const {
    if (flags(cell) != flag::fluid) return;
    Real f[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f[q] = src(q, cell);
    });
    Collision::template collide<L>(f, params);
    push_streamed<L>(dst, flags, geom, cell, f, bc, params);
  }

  // A cell whose neighbours are all fluid (devices, Traversal.hpp step_cell): the plain scatter.
  KOKKOS_FORCEINLINE_FUNCTION bool in_bulk(long cell) const { return is_bulk_cell<L>(flags, geom, cell); }
  KOKKOS_FORCEINLINE_FUNCTION void bulk(long cell) const {
    Real f[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f[q] = src(q, cell);
    });
    Collision::template collide<L>(f, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      dst(q, neighbour<L>(geom, cell, q)) = f[q];
    });
  }

  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    BulkRows<L, Real, Collision>::row(
        flags, geom, params, src.layout, first, count, [&](long cell) { (*this)(cell); },
        [&](auto qc) -> const Real* { return &src(decltype(qc)::value, first); },
        [&](auto qc) -> Real* {
          constexpr int q = decltype(qc)::value;
          return &dst(q, first + geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
        });
  }
};

}  // namespace boreas
