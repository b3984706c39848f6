#pragma once
// Boundary rules applied while a cell gathers its incoming populations. A link whose upwind
// cell is not fluid is closed at the halfway point (Ladd 1994; Krueger et al. 2017, ch. 5):
//   wall            f_q = f*_qb                                       (halfway bounce-back)
//   moving wall     f_q = f*_qb + 6 w_q rho0 (c_q . u_w)             (bounce-back with momentum)
//   velocity inlet  same rule as the moving wall, with u_w = inlet velocity
//   pressure outlet f_q = -f*_qb + 2 w_q rho_out (1 + 4.5 (c_q.u)^2 - 1.5 u^2)
//                   (anti-bounce-back, u = the boundary cell's own velocity)
// where qb is the opposite of q and f* are the cell's own post-collision populations.
#include <Kokkos_Core.hpp>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/physics/Collision.hpp"

namespace boreas {

template <class Real>
struct BoundaryValues {
  Real rho0 = 1;
  Real velocity[flag::max_table_entries][3] = {};
  Real density[flag::max_table_entries] = {};
};

// The per-cell physics of a run: collision operator and parameters, boundary values, reference
// density. Every streaming scheme and every observable applies the same.
template <class Real>
struct CellPhysics {
  CollisionKind collision = CollisionKind::BGK;
  CollisionParams<Real> params;
  BoundaryValues<Real> bc;
  double rho0 = 1;

  static CellPhysics make(const Config& config) {
    CellPhysics p;
    p.collision = config.collision;
    p.params = CollisionParams<Real>::make(
        config.tau, config.trt_magic, config.force,
        config.sgs == SgsModel::Smagorinsky ? config.smagorinsky_constant : 0.0);
    p.rho0 = config.density;
    p.bc.rho0 = Real(config.density);
    for (int face = 0; face < num_faces; ++face) {
      for (int d = 0; d < 3; ++d) p.bc.velocity[face][d] = Real(config.faces[face].velocity[d]);
      p.bc.density[face] = Real(config.faces[face].density);
    }
    return p;
  }
};

// Velocity of a cell from its post-collision populations (the Guo scheme adds the whole force
// in collision, half of which belongs to the next step).
template <class L, class Real, class Load>
KOKKOS_INLINE_FUNCTION void post_collision_velocity(const Load& load, const CollisionParams<Real>& p,
                                                    Real (&u)[3]) {
  Real rho = 0, j[3] = {0, 0, 0};
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const Real v = load(q);
    rho += v;
    for (int d = 0; d < 3; ++d) j[d] += L::c(q, d) * v;
  });
  for (int d = 0; d < 3; ++d) u[d] = (j[d] - Real(0.5) * p.force[d]) / rho;
}

// The incoming population in direction q of a cell whose upwind neighbour carries `fl`.
// own_post(k) returns the cell's own post-collision population k.
template <class L, int q, class Real, class OwnPost>
KOKKOS_INLINE_FUNCTION Real incoming_from_boundary(std::uint8_t fl, const OwnPost& own_post,
                                                   const BoundaryValues<Real>& bc,
                                                   const CollisionParams<Real>& p) {
  constexpr int qb = opposite<L>(q);
  constexpr Real w = Real(L::w(q));
  const int k = flag::index(fl);
  switch (flag::kind(fl)) {
    case flag::moving_wall:
    case flag::inlet:
      return own_post(qb) + Real(6) * w * bc.rho0 * dot_c<L, q>(bc.velocity[k]);
    case flag::outlet: {
      Real u[3];
      post_collision_velocity<L>(own_post, p, u);
      const Real cu = dot_c<L, q>(u);
      const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      return -own_post(qb) +
             Real(2) * w * bc.density[k] * (Real(1) + Real(4.5) * cu * cu - Real(1.5) * usq);
    }
    default:
      return own_post(qb);
  }
}

}  // namespace boreas
