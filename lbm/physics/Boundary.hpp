#pragma once
// Boundary rules applied while a cell gathers its incoming populations. A link whose upwind
// cell is not fluid is closed at the halfway point (Ladd 1994; Krueger et al. 2017, ch. 5):
//   wall            f_q = f*_qb                                       (halfway bounce-back)
//   moving wall     f_q = f*_qb + 6 w_q rho0 (c_q . u_w)             (bounce-back with momentum)
//   velocity inlet  same rule as the moving wall, with u_w = inlet velocity
//   pressure outlet f_q = -f*_qb + 2 w_q rho_out (1 + 4.5 (c_q.u)^2 - 1.5 u^2)
//                   (anti-bounce-back, u = the boundary cell's own velocity)
//   free slip       f_q = f*_r(x - c_q + c_qn)                        (specular reflection, r = q
//                   reflected by the faces, c_qn: c_q along their normals)
//   outflow         f_q = f*_q(x) + U (f*_q(x - n) - f*_q(x))        (convective, see below)
// where qb is the opposite of q and f* are the cell's own post-collision populations; the free-slip
// and outflow rules (lbm/scheme/PullStep.hpp, amr/AmrLattice.hpp) read a neighbour; the other rules
// are incoming_from_boundary's.
#include <Kokkos_Core.hpp>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/physics/InflowTurbulence.hpp"

namespace boreas {

// The speed factor of a velocity inlet at a point of its face, in cell-centre coordinates:
//   uniform     1
//   parabolic   the product over the wall-bounded axes across the face of 4 s (1 - s),
//               s = (p + 1/2) / n (walls at -1/2 and n - 1/2): 1 at the centre; an axis between
//               a wall and a free-slip (symmetry) face holds the half parabola of the mirrored
//               channel, s = (p + 1/2 + o) / 2n (o = n with the symmetry face below), 1 on the face
//   power law   (h / h_ref)^alpha                  h = p_v + 1/2, the height above the ground
//   log law     ln(h / z0 + 1) / ln(h_ref / z0 + 1)   (the face of the vertical axis v: z, in 2D y)
template <class Real>
struct InletProfile {
  InletProfileKind kind = InletProfileKind::Uniform;
  Real span[3] = {0, 0, 0};  // parabolic: cells across each wall-bounded axis (mirrored: twice), 0 elsewhere
  Real offset[3] = {0, 0, 0};  // parabolic: n along an axis whose lower face is the symmetry face
  int vertical = 2;
  Real reference_height = 1, exponent = 0, roughness = 1;

  KOKKOS_INLINE_FUNCTION Real factor(const Real (&p)[3]) const {
    switch (kind) {
      case InletProfileKind::Parabolic: {
        Real f = 1;
        for (int d = 0; d < 3; ++d)
          if (span[d] > 0) {
            const Real s = (p[d] + Real(0.5) + offset[d]) / span[d];
            f *= Real(4) * s * (Real(1) - s);
          }
        return f;
      }
      case InletProfileKind::PowerLaw:
        return Kokkos::Experimental::pow((p[vertical] + Real(0.5)) / reference_height, exponent);
      case InletProfileKind::LogLaw:
        return Kokkos::Experimental::log((p[vertical] + Real(0.5)) / roughness + Real(1)) /
               Kokkos::Experimental::log(reference_height / roughness + Real(1));
      default:
        return 1;
    }
  }

  // Face `face` of the deck's domain.
  static InletProfile make(const Config& config, int face) {
    const FaceCondition& fc = config.faces[face];
    InletProfile p;
    p.kind = fc.profile;
    for (int d = 0; d < config.dimensions(); ++d) {
      const FaceBC lower = config.faces[2 * d].type, upper = config.faces[2 * d + 1].type;
      if (d == face / 2 || lower == FaceBC::Periodic || (lower == FaceBC::FreeSlip && upper == FaceBC::FreeSlip))
        continue;
      const bool mirrored = lower == FaceBC::FreeSlip || upper == FaceBC::FreeSlip;
      p.span[d] = Real((mirrored ? 2 : 1) * config.cells[d]);
      if (lower == FaceBC::FreeSlip) p.offset[d] = Real(config.cells[d]);
    }
    p.vertical = config.dimensions() - 1;
    p.reference_height = Real(fc.reference_height);
    p.exponent = Real(fc.exponent);
    p.roughness = Real(fc.roughness_length);
    return p;
  }
};

template <class Real>
struct BoundaryValues {
  Real rho0 = 1;
  Real velocity[flag::max_table_entries][3] = {};
  Real density[flag::max_table_entries] = {};
  Real convective[flag::max_table_entries] = {};  // outflow faces' U
  InletProfile<Real> profile[num_faces];  // of the inlet faces
  InflowTurbulence<Real> turbulence;       // of at most one inlet (Block fills it every step)
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
        config.sgs == SgsModel::Smagorinsky ? config.smagorinsky_constant : 0.0,
        config.sgs == SgsModel::Csm ? config.csm_constant : 0.0);
    p.params.parametrised = config.cumulant_parametrised;
    p.params.limiter = Real(config.cumulant_limiter);
    p.rho0 = config.density;
    p.bc.rho0 = Real(config.density);
    for (int face = 0; face < num_faces; ++face) {
      for (int d = 0; d < 3; ++d) p.bc.velocity[face][d] = Real(config.faces[face].velocity[d]);
      p.bc.density[face] = Real(config.faces[face].density);
      p.bc.convective[face] = Real(config.faces[face].convective_velocity);
      p.bc.profile[face] = InletProfile<Real>::make(config, face);
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
// own_post(k) returns the cell's own post-collision population k; where(p) its global cell
// coordinates, asked for by profiled inlets only (the link's boundary point is p - c_q / 2).
template <class L, int q, class Real, class OwnPost, class Where>
KOKKOS_INLINE_FUNCTION Real incoming_from_boundary(std::uint8_t fl, const OwnPost& own_post,
                                                   const BoundaryValues<Real>& bc,
                                                   const CollisionParams<Real>& p, const Where& where) {
  constexpr int qb = opposite<L>(q);
  constexpr Real w = Real(L::w(q));
  const int k = flag::index(fl);
  switch (flag::kind(fl)) {
    case flag::moving_wall:
      return own_post(qb) + Real(6) * w * bc.rho0 * dot_c<L, q>(bc.velocity[k]);
    case flag::inlet: {
      Real speed = 1;
      const bool profiled = bc.profile[k].kind != InletProfileKind::Uniform, turbulent = k == bc.turbulence.face;
      int cell[3] = {0, 0, 0};
      if (profiled || turbulent) where(cell);
      if (profiled) {
        const Real at[3] = {cell[0] - Real(0.5) * L::c(q, 0), cell[1] - Real(0.5) * L::c(q, 1),
                            cell[2] - Real(0.5) * L::c(q, 2)};
        speed = bc.profile[k].factor(at);
      }
      const Real mean = own_post(qb) + Real(6) * w * bc.rho0 * speed * dot_c<L, q>(bc.velocity[k]);
      if (!turbulent) return mean;
      Real u[3];
      bc.turbulence.at(cell, u);
      return mean + Real(6) * w * bc.rho0 * dot_c<L, q>(u);
    }
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

// The convective outflow: each population obeys d f_q / dt + U d f_q / dn = 0 at the face of
// outward normal n (the radiation condition of Orlanski 1976, with the phase speed U prescribed
// rather than measured from the flow), discretised explicitly upwind on the post-collision populations,
//   f_q(x, t + 1) = f*_q(x, t) + U (f*_q(x - n, t) - f*_q(x, t)),   0 < U <= 1 (lattice units),
// for the populations that enter from beyond the face: what leaves is carried out at speed U
// instead of being reflected. No state is kept: both values are in the pull kernel's source
// lattice. `inner` is f*_q(x - n), or f*_q(x) where x - n is not fluid (a body at the face).
template <class Real>
KOKKOS_INLINE_FUNCTION Real convective_outflow(Real own, Real inner, Real U) {
  return own + U * (inner - own);
}
// The outward unit normal of face `face` (x_min, x_max, y_min, ...: a flag's index).
KOKKOS_INLINE_FUNCTION void outward_normal(int face, int (&n)[3]) {
  for (int d = 0; d < 3; ++d) n[d] = d == face / 2 ? (face % 2 ? 1 : -1) : 0;
}

// The incoming population q of a link into an obstacle that crosses the wall at `fraction` d of
// the link from the cell x (Bouzidi, Firdaouss & Lallemand 2001, their Eqs. 4 and 5, with the
// moving wall's m = 6 w_q rho0 (c_q . u_w) of their Eq. 11, divided as the d >= 1/2 branches
// divide f*_qb(x)). Linear, in x and the fluid node x + c_q behind it:
//   d <  1/2   f_q = 2d f*_qb(x) + (1 - 2d) f*_qb(x + c_q) + m
//   d >= 1/2   f_q = [f*_qb(x) + (2d - 1) f*_q(x) + m] / (2d)
// quadratic, in x, x + c_q and x + 2 c_q:
//   d <  1/2   f_q = d (1 + 2d) f*_qb(x) + (1 - 4d^2) f*_qb(x + c_q) - d (1 - 2d) f*_qb(x + 2 c_q) + m
//   d >= 1/2   f_q = [f*_qb(x) + m] / (d (2d + 1)) + (2d - 1) / d f*_q(x) - (2d - 1) / (2d + 1) f*_q(x + c_q)
// d = 1/2 is halfway bounce-back, bit for bit, in both. `nodes`: how many of x + c_q, x + 2 c_q
// are fluid in a row (the second counted for a quadratic link only): a rule short of nodes falls
// back to the linear one, and that to halfway (a gap one cell wide). away(h, k) returns
// f*_k(x + h c_q), read only when needed.
template <class L, int q, class Real, class OwnPost, class Away>
KOKKOS_INLINE_FUNCTION Real interpolated_bounce_back(Real d, Real m, bool quadratic, int nodes, const OwnPost& own_post,
                                                     const Away& away) {
  constexpr int qb = opposite<L>(q);
  const Real two_d = Real(2) * d;
  if (d < Real(0.5)) {
    if (nodes == 0) return own_post(qb) + m;
    if (quadratic && nodes == 2)
      return d * (Real(1) + two_d) * own_post(qb) + (Real(1) - two_d * two_d) * away(1, qb) -
             d * (Real(1) - two_d) * away(2, qb) + m;
    return two_d * own_post(qb) + (Real(1) - two_d) * away(1, qb) + m;
  }
  if (quadratic && nodes > 0)
    return (own_post(qb) + m) / (d * (two_d + Real(1))) + (two_d - Real(1)) / d * own_post(q) -
           (two_d - Real(1)) / (two_d + Real(1)) * away(1, q);
  return (own_post(qb) + (two_d - Real(1)) * own_post(q) + m) / two_d;
}

}  // namespace boreas
