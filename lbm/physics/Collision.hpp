#pragma once
// Per-cell physics, written once and used by every streaming variant and traversal:
// moments, the second-order equilibrium, BGK and TRT relaxation with the Guo forcing scheme.
// Every kernel calls these same functions, so variants differ only in memory order, never in
// arithmetic (the basis of the bitwise-equality contract).
#include <Kokkos_Core.hpp>

#include "lbm/physics/Lattice.hpp"

namespace boreas {

template <class Real>
struct CollisionParams {
  Real omega = 1;        // 1 / tau
  Real omega_minus = 1;  // TRT antisymmetric rate, from the magic parameter
  Real force[3] = {0, 0, 0};
  bool has_force = false;

  static CollisionParams make(double tau, double magic, const std::array<double, 3>& force) {
    CollisionParams p;
    p.omega = Real(1.0 / tau);
    // Lambda = (tau+ - 1/2)(tau- - 1/2)  (Ginzburg et al. 2008)
    p.omega_minus = Real(1.0 / (magic / (tau - 0.5) + 0.5));
    for (int d = 0; d < 3; ++d) p.force[d] = Real(force[d]);
    p.has_force = force[0] != 0 || force[1] != 0 || force[2] != 0;
    return p;
  }
};

// Density and velocity of a set of incoming populations; u includes the Guo half-force shift.
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void moments(const Real (&f)[L::Q], const CollisionParams<Real>& p,
                                         Real& rho, Real (&u)[3]) {
  rho = 0;
  Real j[3] = {0, 0, 0};
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    rho += f[q];
    if constexpr (L::c(q, 0) != 0) j[0] += L::c(q, 0) * f[q];
    if constexpr (L::c(q, 1) != 0) j[1] += L::c(q, 1) * f[q];
    if constexpr (L::c(q, 2) != 0) j[2] += L::c(q, 2) * f[q];
  });
  const Real inv_rho = Real(1) / rho;
  for (int d = 0; d < 3; ++d) u[d] = (j[d] + Real(0.5) * p.force[d]) * inv_rho;
}

template <class L, int q, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real dot_c(const Real (&v)[3]) {
  Real s = 0;
  if constexpr (L::c(q, 0) != 0) s += L::c(q, 0) * v[0];
  if constexpr (L::c(q, 1) != 0) s += L::c(q, 1) * v[1];
  if constexpr (L::c(q, 2) != 0) s += L::c(q, 2) * v[2];
  return s;
}

template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real equilibrium(int q, Real rho, const Real (&u)[3]) {
  Real cu = 0;
  for (int d = 0; d < 3; ++d) cu += L::c(q, d) * u[d];
  const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return Real(L::w(q)) * rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - Real(1.5) * usq);
}

struct BGK {
  static constexpr const char* name = "BGK";
  template <class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(Real (&f)[L::Q], const CollisionParams<Real>& p) {
    Real rho, u[3];
    moments<L>(f, p, rho, u);
    const Real usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const Real uF = u[0] * p.force[0] + u[1] * p.force[1] + u[2] * p.force[2];
    const Real force_weight = Real(1) - Real(0.5) * p.omega;
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr Real w = Real(L::w(q));
      const Real cu = dot_c<L, q>(u);
      const Real feq = w * rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - usq15);
      f[q] += p.omega * (feq - f[q]);
      if (p.has_force) {
        const Real cF = dot_c<L, q>(p.force);
        f[q] += force_weight * w * (Real(3) * (cF - uF) + Real(9) * cu * cF);
      }
    });
  }
};

struct TRT {
  static constexpr const char* name = "TRT";
  template <class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(Real (&f)[L::Q], const CollisionParams<Real>& p) {
    Real rho, u[3];
    moments<L>(f, p, rho, u);
    const Real usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const Real uF = u[0] * p.force[0] + u[1] * p.force[1] + u[2] * p.force[2];
    const Real wp = Real(1) - Real(0.5) * p.omega, wm = Real(1) - Real(0.5) * p.omega_minus;
    {
      const Real feq0 = Real(L::w(0)) * rho * (Real(1) - usq15);
      f[0] += p.omega * (feq0 - f[0]);
      if (p.has_force) f[0] += wp * Real(L::w(0)) * Real(-3) * uF;
    }
    // Pairs (q, q + H) share the symmetric and antisymmetric parts.
    static_for<L::H>([&](auto qc) {
      constexpr int q = decltype(qc)::value + 1, qb = q + L::H;
      constexpr Real w = Real(L::w(q));
      const Real cu = dot_c<L, q>(u);
      const Real feq_s = w * rho * (Real(1) + Real(4.5) * cu * cu - usq15);
      const Real feq_a = w * rho * Real(3) * cu;
      const Real f_s = Real(0.5) * (f[q] + f[qb]), f_a = Real(0.5) * (f[q] - f[qb]);
      Real ds = p.omega * (feq_s - f_s), da = p.omega_minus * (feq_a - f_a);
      if (p.has_force) {
        const Real cF = dot_c<L, q>(p.force);
        ds += wp * w * (Real(9) * cu * cF - Real(3) * uF);
        da += wm * w * Real(3) * cF;
      }
      f[q] += ds + da;
      f[qb] += ds - da;
    });
  }
};

template <class F>
decltype(auto) dispatch_collision(CollisionKind kind, F&& f) {
  if (kind == CollisionKind::TRT) return f(TRT{});
  return f(BGK{});
}

}  // namespace boreas
