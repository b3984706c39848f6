#pragma once
// Post-collision populations rebuilt from density, velocity and velocity gradient (and, where
// known, curvature) under a set of relaxation rates: what BGK or TRT would produce from the
// Chapman-Enskog state
//   f = f_eq(rho, u) - 3 tau rho w_q Q_q:G - (9/4) w_q Q_q:(u F + F u) - (3/2) w_q c_q.F,
// Q_q = c_q c_q - I/3: its first moment is rho u - F/2, the Guo scheme's pre-collision momentum,
// and its second-moment non-equilibrium -2 tau rho c_s^2 S - (u F + F u) / 2 (Guo, Zheng, Shi
// 2002). Collision multiplies the even non-equilibrium by (1 - 1/tau), so the stored
// post-collision state carries -3 (tau - 1) rho w_q Q_q:G and nothing divides by tau - 1. The
// rebuilt state keeps density and momentum exactly and drops the non-hydrodynamic (ghost)
// moments. For the cumulant collision (D3Q27), whose post-collision higher orders are its
// cumulant equilibria rather than a polynomial, the rebuilt state is that collision applied to
// the Chapman-Enskog pre-collision state with the trace at tau_bulk = 1 (the rate it relaxes the
// trace with); with an eddy-viscosity model the cell takes tau + 3 nu_t from the gradient it is
// given, as the collision does.
// Used where a state is made from a velocity field: the AMR levels' coupling (amr/Coupling.hpp)
// and the initial state of every run (lbm/field/FieldOps.inl, amr/AmrLattice.inl), which without
// its non-equilibrium part streams its first step as if tau were 1.
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <cstdint>

#include "core/Config.hpp"
#include "lbm/physics/Collision.hpp"

namespace boreas {

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
  // The deck's collision (model, magic, subgrid model, cumulant variant) at tau with `force`:
  // an AMR level's rates, or the uniform grid's.
  static CouplingRates of_deck(const Config& c, double tau, const std::array<double, 3>& force) {
    const double c_s = c.sgs == SgsModel::Smagorinsky ? c.smagorinsky_constant : 0.0;
    const double csm = c.sgs == SgsModel::Csm ? c.csm_constant : 0.0;
    CouplingRates r = of(c.collision, tau, c.trt_magic, force, c_s, csm);
    r.parametrised = c.cumulant_parametrised;
    r.limiter = Real(c.cumulant_limiter);
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

// The pairs of axes a mixed derivative is taken along (xy; in 3D also xz, yz), and each pair's axes.
KOKKOS_INLINE_FUNCTION constexpr int mixed_pairs(int dimensions) { return dimensions == 3 ? 3 : 1; }
KOKKOS_INLINE_FUNCTION constexpr int mixed_axes(int pair, int which) {
  return which == 0 ? (pair == 2 ? 1 : 0) : (pair == 0 ? 1 : 2);
}

// What a rebuild takes beyond density, velocity and velocity gradient: the second derivatives of
// the velocity, pure u2[a][b] = d^2 u_b / d x_a^2 and mixed[pair][b] = d^2 u_b / d x_a d x_c
// (mixed_axes), and the density gradient, in the target level's units. Zero where unknown.
template <class Real>
struct FlowCurvature {
  Real u2[3][3] = {};
  Real mixed[3][3] = {};
  Real rho_gradient[3] = {};
};

// The cell's terms of the steady expansion below (BGK / TRT), computed once per cell; each
// population then folds its velocity's few nonzero products (population<L, q>).
template <class Real>
struct SteadyExpansion {
  Real rho, u[3], G[3][3], K[3][3], M[3][3], force[3];
  Real usq15, uF, u_accel, trace_third;
  Real lambda_plus, tau_minus_one, lambda_odd, even_k, odd_k;
  Real accel[3], V[3], W[3];

  KOKKOS_INLINE_FUNCTION SteadyExpansion(Real rho_, const Real (&u_)[3], const Real (&G_)[3][3],
                                         const FlowCurvature<Real>& k, const Real (&force_)[3], Real tau_minus_one_,
                                         Real omega_odd)
      : rho(rho_), tau_minus_one(tau_minus_one_) {
    for (int a = 0; a < 3; ++a) {
      u[a] = u_[a];
      force[a] = force_[a];
      for (int b = 0; b < 3; ++b) {
        G[a][b] = G_[a][b];
        K[a][b] = k.u2[a][b];
        M[a][b] = k.mixed[a][b];
      }
    }
    usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    uF = u[0] * force[0] + u[1] * force[1] + u[2] * force[2];
    trace_third = (G[0][0] + G[1][1] + G[2][2]) / Real(3);
    lambda_plus = tau_minus_one + Real(0.5);
    const Real tau_odd = Real(1) / omega_odd;
    lambda_odd = tau_odd - Real(0.5);
    even_k = rho * tau_minus_one;
    odd_k = rho * (tau_odd - Real(1));
    // du/dt from the momentum equation (zero in a steady flow).
    for (int d = 0; d < 3; ++d) {
      accel[d] = (force[d] - k.rho_gradient[d] / Real(3)) / rho + lambda_plus / Real(3) * (K[0][d] + K[1][d] + K[2][d]);
      for (int a = 0; a < 3; ++a) accel[d] -= u[a] * G[a][d];
    }
    u_accel = u[0] * accel[0] + u[1] * accel[1] + u[2] * accel[2];
    // The odd terms' momenta, taken off: rho V / 3 of 3 rho (c.grad)^2 (c.u), V_e = 2 K_ee +
    // sum_a K_ae + 2 sum_{b != e} M_eb,b (M: the mixed derivatives); and div(rho u u) = rho (u tr G + G^T u) of rho [9 (c.u) (c c : G) -
    // 3 c.(G u)], whose sum with c.(G u) is W.
    for (int e = 0; e < 3; ++e) {
      V[e] = (Real(2) * K[e][e] + K[0][e] + K[1][e] + K[2][e]) / Real(3);
      for (int pair = 0; pair < 3; ++pair) {
        const int a = mixed_axes(pair, 0), b = mixed_axes(pair, 1);
        if (e == a) V[e] += Real(2) * M[pair][b] / Real(3);
        if (e == b) V[e] += Real(2) * M[pair][a] / Real(3);
      }
      W[e] = G[e][0] * u[0] + G[e][1] * u[1] + G[e][2] * u[2] + u[e] * Real(3) * trace_third + G[0][e] * u[0] +
             G[1][e] * u[1] + G[2][e] * u[2];
    }
  }

  // Population q without the mass of the even second-order term, which is returned in `even`
  // (per unit w_q (tau - 1) rho) for the caller to project.
  template <class L, int q>
  KOKKOS_FORCEINLINE_FUNCTION Real population(Real& even) const {
    constexpr Real w = Real(L::w(q));
    constexpr Real cx = Real(L::c(q, 0)), cy = Real(L::c(q, 1)), cz = Real(L::c(q, 2));
    const auto dot = [&](const Real (&v)[3]) { return cx * v[0] + cy * v[1] + cz * v[2]; };
    const Real cu = dot(u), cF = dot(force);
    Real grad[3], curv[3];  // (c.grad) u_d and (c.grad)^2 u_d: sum_a c_a^2 K_ad + 2 sum_{a<b} c_a c_b M_ab,d
    for (int d = 0; d < 3; ++d) {
      grad[d] = cx * G[0][d] + cy * G[1][d] + cz * G[2][d];
      curv[d] = cx * cx * K[0][d] + cy * cy * K[1][d] + cz * cz * K[2][d] +
                Real(2) * (cx * cy * M[0][d] + cx * cz * M[1][d] + cy * cz * M[2][d]);
    }
    const Real cGc = dot(grad), along = dot(curv);
    const Real slope_square = grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2];
    const Real u_curvature = u[0] * curv[0] + u[1] * curv[1] + u[2] * curv[2];
    // Even: (tau - 1) Lambda- (c.grad)^2 f_eq+ at O(u^2).
    even = lambda_odd * (Real(9) * (cGc * cGc + cu * along) - Real(3) * (slope_square + u_curvature));
    const Real third = Real(3) * (along - dot(V)), advect = Real(9) * cu * cGc - Real(3) * dot(W);
    const Real source_even = Real(9) * cu * cF - Real(3) * uF, source_odd = Real(3) * cF;
    const Real accel_even = rho * (Real(9) * cu * dot(accel) - Real(3) * u_accel);
    return w * (rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - usq15) - Real(3) * even_k * (cGc - trace_third) +
                lambda_plus * source_even - tau_minus_one * accel_even + Real(0.5) * source_odd +
                odd_k * (lambda_plus * third - advect));
  }
};

// Post-collision populations of a cell with density rho, velocity u (the Guo velocity, forces
// half-applied), velocity gradient G[a][b] = d u_b / d x_a and curvature k, in the target level's
// units; only the populations whose bit is set in `wanted` (BGK / TRT: a ghost the pull reads 5
// of 19 populations from computes those; the cumulant collision needs them all and writes all).
//
// BGK and TRT: the populations of the steady expansion of the lattice equation (the recurrence
// of Ginzburg 2008: exp(c.grad) f = post-collision f, split in even and odd parts) to second
// order in the gradients, with Lambda+ = tau - 1/2, tau- = 1 / omega_odd, Lambda- = tau- - 1/2:
//   even: f_eq+ + (tau - 1) [-(c.grad) f_eq- + Lambda- (c.grad)^2 f_eq+] + Lambda+ S+
//   odd:  f_eq- + (tau- - 1) [-(c.grad) f_eq+ + Lambda+ (c.grad)^2 f_eq-] + Lambda- S-
// (S: Guo's source). Each correction is projected so that rho and rho u stay exact (the
// momentum of the odd ones is what the time derivative of rho u balances; with it the odd
// source is S- / 2, the momentum F / 2 a post-collision state carries), and the steady form
// is made exact for unsteady flows too by taking (tau - 1) d f_eq+ / dt off the even part, with
// du/dt estimated from the momentum equation, F / rho - grad rho / (3 rho) - (u.grad) u +
// nu lap u: a uniformly accelerated flow then gets Guo's Chapman-Enskog state (Lambda+ S+ -
// (tau - 1) S+ = S+ / 2). Tested against the steady lattice solution of a channel: without the
// second-order terms the populations a parabolic profile carries across an interface are wrong
// at O(u'') and O(u F), a momentum defect that shows as a kink of the profile there.
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void rebuild_post_collision(Real rho, const Real (&u)[3], const Real (&G)[3][3],
                                                   const FlowCurvature<Real>& k, const CouplingRates<Real>& r,
                                                   Real (&f)[L::Q], std::uint32_t wanted = ~0u) {
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
      p.set_force(r.force);
      p.parametrised = r.parametrised;
      p.limiter = r.limiter;
      Cumulant::collide<L>(f, p);
      return;
    }
  }
  const SteadyExpansion<Real> e(rho, u, G, k, r.force, tau_minus_one, omega_odd);
  // The mass of the even second-order term, sum_q w_q even_q, in closed form from the lattice's
  // isotropic moments (sum_q w_q c_a c_b = d_ab / 3, sum_q w_q c_a c_b c_c c_d = (d_ab d_cd +
  // d_ac d_bd + d_ad d_bc) / 9 over its D axes: D2Q9, D3Q19 and D3Q27 alike; a 2D flow has no z
  // components), so that a population needs no other (AmrCoupling.RebuildKeepsDensityAndMomentum).
  Real trace = 0, transposed = 0, curvature = 0;
  for (int a = 0; a < L::D; ++a) {
    trace += G[a][a];
    curvature += u[a] * k.u2[a][a];
    for (int b = 0; b < L::D; ++b) transposed += G[a][b] * G[b][a];
  }
  for (int pair = 0; pair < mixed_pairs(L::D); ++pair) {
    const int a = mixed_axes(pair, 0), b = mixed_axes(pair, 1);
    curvature += u[a] * k.mixed[pair][b] + u[b] * k.mixed[pair][a];
  }
  const Real even_mass = e.lambda_odd * (trace * trace + transposed + Real(2) * curvature);
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    if (!(wanted >> q & 1u)) return;
    Real even;
    const Real value = e.template population<L, q>(even);
    f[q] = value + Real(L::w(q)) * e.even_k * (even - even_mass);
  });
}

template <class L, class Real>
KOKKOS_INLINE_FUNCTION void rebuild_post_collision(Real rho, const Real (&u)[3], const Real (&G)[3][3],
                                                   const CouplingRates<Real>& r, Real (&f)[L::Q]) {
  rebuild_post_collision<L>(rho, u, G, FlowCurvature<Real>{}, r, f);
}

// Density and momentum of stored post-collision populations, with the half force that belongs
// to the next step removed: rho u = sum c f - F/2 (Boundary.hpp post_collision_velocity).
// Summed in locals: the outputs might alias f for all the compiler knows, and summing into them
// stored and reloaded each sum after every population (3 % of amr_nested's run).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void post_collision_moments(const Real (&f)[L::Q], const Real (&force)[3], Real& rho,
                                                   Real (&j)[3]) {
  Real density = 0, momentum[3] = {0, 0, 0};
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    density += f[q];
    for (int d = 0; d < 3; ++d)
      if (L::c(q, d) != 0) momentum[d] += Real(L::c(q, d)) * f[q];
  });
  rho = density;
  for (int d = 0; d < 3; ++d) j[d] = momentum[d] - Real(0.5) * force[d];
}

}  // namespace boreas
