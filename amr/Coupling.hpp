#pragma once
// Level coupling of the AMR grid (seed 000 §III, ../shared/PAPERS.md A), per cell.
//
// Acoustic scaling: dx and dt halve per level, so lattice velocities are equal on every level,
// (tau_l - 1/2) = 2^l (tau_0 - 1/2) (seed 000 Eq. 7), a body force (an acceleration, dx/dt^2)
// halves per level and velocity gradients (1/dt) halve too.
//
// Populations crossing a level are rebuilt from density, velocity and velocity gradient under the
// target level's relaxation rates: what BGK or TRT would produce from the Chapman-Enskog state
//   f = f_eq(rho, u) - 3 tau rho w_q Q_q:G - (9/4) w_q Q_q:(u F + F u) - (3/2) w_q c_q.F,
// Q_q = c_q c_q - I/3: its first moment is rho u - F/2, the Guo scheme's pre-collision momentum,
// and its second-moment non-equilibrium -2 tau rho c_s^2 S - (u F + F u) / 2 (Guo, Zheng, Shi
// 2002). Dropping the force part loses momentum flux u F at every interface crossing, a first-order
// error in forced flows. Collision multiplies the even non-equilibrium by (1 - 1/tau), so the
// stored post-collision state carries -3 (tau - 1) rho w_q Q_q:G and nothing divides by tau - 1. Rescaling stored post-collision
// non-equilibrium parts by (tau_f - 1) / (2 (tau_c - 1)) (seed 000 Eq. 8 applied after collision)
// is singular at tau_c = 1, where the post-collision state holds no strain rate at all; here the
// gradient comes from the velocity field itself (finite differences of the source level), which
// every tau can use. The rebuilt state keeps density and momentum exactly and drops the
// non-hydrodynamic (ghost) moments, a regularised coupling.
//
// The same per-cell physics as the leaves: for the cumulant collision (D3Q27), whose post-collision
// higher orders are its cumulant equilibria rather than a polynomial, the rebuilt state is that
// collision applied to the Chapman-Enskog pre-collision state with the trace at tau_bulk = 1 (the
// rate it relaxes the trace with); with the Smagorinsky model each rebuilt cell takes tau = tau_l + 3 C_s^2 |S| from the
// gradient it is given (the filter width is the level's dx, as on the leaves), so the eddy
// viscosity crosses levels with the strain rate.
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <cstdint>

#include "core/Config.hpp"
#include "lbm/physics/Collision.hpp"

namespace boreas {

inline double level_tau(double tau0, int level) { return 0.5 + std::ldexp(tau0 - 0.5, level); }

inline std::array<double, 3> level_force(const std::array<double, 3>& force0, int level) {
  return {std::ldexp(force0[0], -level), std::ldexp(force0[1], -level), std::ldexp(force0[2], -level)};
}

// The relaxation rates a rebuilt state is relaxed with: the even rate is 1/tau, the odd one
// TRT's antisymmetric rate or, for BGK, 1/tau as well.
template <class Real>
struct CouplingRates {
  Real tau_minus_one = 0;  // tau - 1, exact at tau = 1
  Real omega = 1, omega_odd = 1;
  Real force[3] = {0, 0, 0};
  bool bulk_at_one = false;  // the trace relaxes at rate 1 (cumulant)
  bool parametrised = false;  // the cumulant's parametrised variant, with limiter lambda
  Real limiter = 0;
  // Smagorinsky: C_s^2 (0: none); the coherent-structure model: C' (0: none); and how the odd
  // rate follows the cell's tau (BGK: 1/tau, TRT: the magic parameter held, cumulant: 1).
  Real smagorinsky = 0, csm = 0, tau = 1, magic = 0;
  enum class Odd : std::uint8_t { Fixed, InverseTau, Magic } odd = Odd::Fixed;

  static CouplingRates make(double tau, double omega_odd, const std::array<double, 3>& force) {
    CouplingRates r;
    r.tau_minus_one = Real(tau - 1);
    r.omega = Real(1 / tau);
    r.omega_odd = Real(omega_odd);
    r.tau = Real(tau);
    for (int d = 0; d < 3; ++d) r.force[d] = Real(force[d]);
    return r;
  }
  // The rates of `kind` at tau (TRT with `magic`), with Smagorinsky constant c_s or the
  // coherent-structure model's C' (0: no model).
  static CouplingRates of(CollisionKind kind, double tau, double magic, const std::array<double, 3>& force,
                          double c_s, double csm = 0) {
    const double omega_odd = kind == CollisionKind::TRT ? 1 / (magic / (tau - 0.5) + 0.5)
                             : kind == CollisionKind::Cumulant ? 1.0
                                                               : 1 / tau;
    CouplingRates r = make(tau, omega_odd, force);
    r.bulk_at_one = kind == CollisionKind::Cumulant;
    r.smagorinsky = Real(c_s * c_s);
    r.csm = Real(csm);
    r.magic = Real(magic);
    r.odd = kind == CollisionKind::TRT ? Odd::Magic : kind == CollisionKind::Cumulant ? Odd::Fixed : Odd::InverseTau;
    return r;
  }
};

// Q_q:G = c_q c_q : G - tr G / 3 (Q_q = c_q c_q - I/3), from trace_third = tr G / 3.
template <class L, int q, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real strain_projection(const Real (&G)[3][3], Real trace_third) {
  Real QG = -trace_third;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) QG += Real(L::c(q, a) * L::c(q, b)) * G[a][b];
  return QG;
}

// Post-collision populations of a cell with density rho, velocity u (the Guo velocity, forces
// half-applied) and velocity gradient G[a][b] = d u_b / d x_a, in the target level's units.
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void rebuild_post_collision(Real rho, const Real (&u)[3], const Real (&G)[3][3],
                                                   const CouplingRates<Real>& r, Real (&f)[L::Q]) {
  const Real usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  const Real uF = u[0] * r.force[0] + u[1] * r.force[1] + u[2] * r.force[2];
  const Real trace_third = (G[0][0] + G[1][1] + G[2][2]) / Real(3);
  Real tau_minus_one = r.tau_minus_one, omega_odd = r.omega_odd;
  if (r.smagorinsky > Real(0) || r.csm > Real(0)) {
    // The eddy viscosity of the cell's gradient: tau + 3 nu_t, as the leaves' collision takes it.
    using std::sqrt;
    Real ss = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const Real s = Real(0.5) * (G[a][b] + G[b][a]);
        ss += s * s;
      }
    const Real nu_t = r.csm > Real(0) ? csm_viscosity(G, r.csm) : r.smagorinsky * sqrt(Real(2) * ss);
    const Real extra = Real(3) * nu_t, tau = r.tau + extra;
    tau_minus_one += extra;
    if (r.odd == CouplingRates<Real>::Odd::InverseTau) omega_odd = Real(1) / tau;
    if (r.odd == CouplingRates<Real>::Odd::Magic) omega_odd = Real(1) / (r.magic / (tau - Real(0.5)) + Real(0.5));
  }
  if constexpr (L::Q == 27) {
    if (r.bulk_at_one) {
      // The cumulant's post-collision state is not a polynomial in u (its higher orders take the
      // cumulant equilibria): collide the pre-collision Chapman-Enskog state (shear at tau, the
      // trace at 1) as the leaves would.
      const Real tau = tau_minus_one + Real(1);
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        constexpr Real w = Real(L::w(q));
        constexpr int c2 = L::c(q, 0) * L::c(q, 0) + L::c(q, 1) * L::c(q, 1) + L::c(q, 2) * L::c(q, 2);
        const Real cu = dot_c<L, q>(u), cF = dot_c<L, q>(r.force);
        const Real QG = strain_projection<L, q>(G, trace_third);
        const Real trace_part = trace_third * Real(c2 - 1);
        f[q] = w * (rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - usq15) -
                    Real(3) * rho * (tau * (QG - trace_part) + trace_part) - Real(4.5) * cu * cF + Real(1.5) * uF -
                    Real(1.5) * cF);
      });
      CollisionParams<Real> p;
      p.omega = Real(1) / tau;
      for (int d = 0; d < 3; ++d) p.force[d] = r.force[d];
      p.has_force = r.force[0] != Real(0) || r.force[1] != Real(0) || r.force[2] != Real(0);
      p.parametrised = r.parametrised;
      p.limiter = r.limiter;
      Cumulant::collide<L>(f, p);
      return;
    }
  }
  const Real even_scale = Real(-3) * tau_minus_one * rho;
  const Real odd_scale = Real(-1.5) * (Real(1) - omega_odd);
  const Real w_odd = Real(1) - Real(0.5) * omega_odd;
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    constexpr Real w = Real(L::w(q));
    const Real cu = dot_c<L, q>(u);
    const Real cF = dot_c<L, q>(r.force);
    const Real QG = strain_projection<L, q>(G, trace_third);
    f[q] = w * (rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - usq15) + even_scale * QG + odd_scale * cF +
                // (1 - omega) (-(9/4) Q:(uF + Fu)) + (1 - omega/2) (9/2) Q:(uF + Fu): every tau
                Real(4.5) * cu * cF - Real(1.5) * uF + w_odd * Real(3) * cF);
  });
}

// Density and momentum of stored post-collision populations, with the half force that belongs
// to the next step removed: rho u = sum c f - F/2 (Boundary.hpp post_collision_velocity).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void post_collision_moments(const Real (&f)[L::Q], const Real (&force)[3], Real& rho,
                                                   Real (&j)[3]) {
  rho = 0;
  j[0] = j[1] = j[2] = 0;
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    rho += f[q];
    for (int d = 0; d < 3; ++d)
      if (L::c(q, d) != 0) j[d] += Real(L::c(q, d)) * f[q];
  });
  for (int d = 0; d < 3; ++d) j[d] -= Real(0.5) * force[d];
}

}  // namespace boreas
