#pragma once
// The fused two-lattice pull kernel: every fluid cell gathers the post-collision populations of
// its upwind neighbours from `src` (closing boundary links by the rules of Boundary.hpp),
// collides, and writes its own post-collision populations to `dst`. This is the reference
// against which every other streaming variant is checked bit for bit.
#include <Kokkos_Core.hpp>

#include "lbm/Boundary.hpp"
#include "lbm/Collision.hpp"
#include "lbm/DenseField.hpp"

namespace boreas {

template <class L, class Real>
struct PullGather {
  Populations<Real> src;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;

  // Incoming (post-streaming, pre-collision) populations of `cell`.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell, Real (&f)[L::Q]) const {
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const long upwind = cell - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
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
};

}  // namespace boreas
