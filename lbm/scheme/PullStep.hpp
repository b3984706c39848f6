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
  WallLinks walls;  // none in tiles: decks with per-link data, free-slip or outflow faces run ab_pull (core/Deck.cpp)

  template <int q>
  KOKKOS_FORCEINLINE_FUNCTION long upwind_shift() const {
    return geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
  }

  // A link from a free-slip ghost, closed by specular reflection at the halfway point: `axes`
  // (bit d) are those along which the ghost lies beyond a free-slip face (two or three at an edge
  // or corner where such faces meet). The population arrives from `source` = cell - c_q with its
  // components along them taken back, which sent the reflected direction r through the faces:
  // f_q(cell) = f*_r(source). Where that cell is not fluid (a body touching the face), the link is
  // bounced back, f_q = f*_qb(cell). Either way each population that leaves through the faces has
  // one receiver, so mass is conserved; and a domain mirrored across the faces computes the same
  // populations, so a free-slip face is an exact symmetry plane.
  template <int q>
  KOKKOS_FORCEINLINE_FUNCTION Real specular_reflection(long cell, long upwind, int axes) const {
    const long source = upwind + normal_shift<q>(axes);
    if (flags(source) != flag::fluid) return src(opposite<L>(q), cell);
    return src(reflected_direction<L, q>(axes), source);
  }
  // c_q's components along `axes` as a cell offset.
  template <int q>
  KOKKOS_FORCEINLINE_FUNCTION long normal_shift(int axes) const {
    return geom.shift(axes & 1 ? L::c(q, 0) : 0, axes & 2 ? L::c(q, 1) : 0, axes & 4 ? L::c(q, 2) : 0);
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
          // The nodes behind the cell, away from the wall: x + c_q and (quadratic) x + 2 c_q, both
          // within the ghost layers of any cell a step computes (decks with quadratic walls take
          // ghost width >= 2 and CRMT counts a reach of 2, comm/Crmt.hpp).
          const long next = cell + upwind_shift<q>();
          const bool quadratic = walls.quadratic(row, q);
          const int nodes = flags(next) != flag::fluid                                       ? 0
                            : quadratic && flags(next + upwind_shift<q>()) == flag::fluid ? 2
                                                                                           : 1;
          f[q] = interpolated_bounce_back<L, q>(Real(walls.fraction(row, q)), Real(walls.momentum(row, q)), quadratic,
                                                nodes, own_post,
                                                [&](int h, int k) { return src(k, cell + h * upwind_shift<q>()); });
        } else if (flag::kind(fl) == flag::free_slip) {
          f[q] = specular_reflection<q>(cell, upwind, flag::index(fl));
        } else if (flag::kind(fl) == flag::outflow) {
          const int face = flag::index(fl);
          int n[3];
          outward_normal(face, n);
          const long inner = cell - geom.shift(n[0], n[1], n[2]);
          const Real own = own_post(q);
          f[q] = convective_outflow(own, flags(inner) == flag::fluid ? src(q, inner) : own, bc.convective[face]);
        } else {
          f[q] = incoming_from_boundary<L, q>(fl, own_post, bc, params, [&](int(&p)[3]) { geom.position(cell, p); });
        }
      }
    });
  }
};

// The velocity of every cell after the previous step, (axis, cell): what the coherent-structure
// model differentiates (PullScheme.hpp fills it from the post-collision populations).
template <class Real>
using CellVelocity = Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace>;

// G[a][b] = d u_b / d x_a at `cell` of the previous step's velocity: central differences,
// one-sided next to a cell that is not fluid (nothing across it: zero); neighbour(a, side) is the
// cell beside along axis a (side -1, +1). The neighbours are one cell away, as the pull's, so the
// model adds nothing to the reach CRMT counts (also on AMR leaves, amr/AmrLattice.hpp).
template <int D, class Real, class Flags, class Neighbour>
KOKKOS_INLINE_FUNCTION void cell_velocity_gradient(long cell, const Flags& flags, const CellVelocity<Real>& velocity,
                                                   const Neighbour& neighbour, Real (&G)[3][3]) {
  for (int a = 0; a < 3; ++a) {
    const long above = a < D ? neighbour(a, 1) : cell, below = a < D ? neighbour(a, -1) : cell;
    const bool up = a < D && flags(above) == flag::fluid;
    const bool down = a < D && flags(below) == flag::fluid;
    const long hi = up ? above : cell, lo = down ? below : cell;
    const Real span = up && down ? Real(0.5) : Real(1);
    for (int b = 0; b < 3; ++b) G[a][b] = up || down ? span * (velocity(b, hi) - velocity(b, lo)) : Real(0);
  }
}

// The collision rates of `cell` under the coherent-structure model: tau_0 + 3 nu_t.
template <int D, class Real, class Flags, class Neighbour>
KOKKOS_INLINE_FUNCTION CollisionParams<Real> csm_params(const CollisionParams<Real>& params, long cell, const Flags& flags,
                                                        const CellVelocity<Real>& velocity, const Neighbour& neighbour) {
  Real G[3][3];
  cell_velocity_gradient<D>(cell, flags, velocity, neighbour, G);
  return params.with_tau(params.tau + Real(3) * csm_viscosity(G, params.csm));
}

template <class L, class Real, class Collision>
struct PullStep {
  PullGather<L, Real> gather;
  Populations<Real> dst;
  CellVelocity<Real> velocity;  // CSM only

  // Any cell, any backend: the general path with a flag test per link.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const {
    if (gather.flags(cell) != flag::fluid) return;
    Real f[L::Q];
    gather(cell, f);
    if (gather.params.has_csm)
      Collision::template collide<L>(f, csm_params<L::D>(gather.params, cell, gather.flags, velocity, [&](int a, int side) {
                                       return cell + side * gather.geom.shift(a == 0, a == 1, a == 2);
                                     }));
    else
      Collision::template collide<L>(f, gather.params);
    store(cell, f);
  }

  // A cell whose neighbours are all fluid (devices, Traversal.hpp step_cell). With the CSM model
  // every cell keeps the general path, so that the bulk one holds no gradient code (on sm_90 it
  // took the double step from 98 to 128 registers).
  KOKKOS_FORCEINLINE_FUNCTION bool in_bulk(long cell) const {
    return !gather.params.has_csm && is_bulk_cell<L>(gather.flags, gather.geom, cell);
  }
  KOKKOS_FORCEINLINE_FUNCTION void bulk(long cell) const {
    Real f[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f[q] = gather.src(q, cell - gather.template upwind_shift<q>());
    });
    Collision::template collide<L>(f, gather.params);
    store(cell, f);
  }

  KOKKOS_FORCEINLINE_FUNCTION void store(long cell, const Real (&f)[L::Q]) const {
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      dst(q, cell) = f[q];
    });
  }

  // `count` consecutive cells of one row starting at `first` (host backends): bulk runs take
  // the vectorised path of BulkRows.hpp (not with CSM, which reads its neighbours' velocities).
  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    if (gather.params.has_csm) {
      for (long cell = first; cell < first + count; ++cell) (*this)(cell);
      return;
    }
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
