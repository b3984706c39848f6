#pragma once
// Per-cell physics, written once and used by every streaming variant and traversal:
// moments, the second-order equilibrium, BGK and TRT relaxation with the Guo forcing scheme, and
// the cumulant collision (D3Q27), and the Smagorinsky subgrid model, which each of them applies
// through a per-cell relaxation time.
// Every kernel calls these same functions, so variants differ only in memory order, never in
// arithmetic (the basis of the bitwise-equality contract).
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>

#include "core/Config.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

template <class Real>
struct CollisionParams {
  Real omega = 1;        // 1 / tau
  Real omega_minus = 1;  // TRT antisymmetric rate, from the magic parameter
  Real force[3] = {0, 0, 0};  // set through set_force, which keeps has_force and force_c with it
  bool has_force = false;
  // c . F for each lattice velocity c in {-1, 0, 1}^3 (force_along), summed in dot_c's order, so
  // the same bits: read from the kernel's parameters rather than computed per cell, which nvcc
  // hoisted out of Kokkos's grid-stride loop into registers held through the whole step (AA's
  // local step on sm_90: 132 -> 100 registers in double, 71 -> 56 in float; perf/README.md).
  Real force_c[27] = {};
  // Smagorinsky: 18 sqrt(2) C_s^2 (see smagorinsky_tau); 0 without a subgrid model. tau and magic
  // are kept for the per-cell rates it implies.
  Real smagorinsky = 0;
  bool has_sgs = false;
  Real tau = 1, magic = Real(3.0 / 16.0);
  // Coherent-structure model: its C' (csm_viscosity); the kernel gives the cell's tau (with_tau).
  Real csm = 0;
  bool has_csm = false;
  // The cumulant's parametrised variant (Geier et al. 2017) and its third-order limiter lambda.
  bool parametrised = false;
  Real limiter = Real(1e-3);

  static CollisionParams make(double tau, double magic, const std::array<double, 3>& force,
                              double smagorinsky_constant = 0, double csm_constant = 0) {
    CollisionParams p;
    p.omega = Real(1.0 / tau);
    // Lambda = (tau+ - 1/2)(tau- - 1/2)  (Ginzburg et al. 2008)
    p.omega_minus = Real(1.0 / (magic / (tau - 0.5) + 0.5));
    p.set_force({Real(force[0]), Real(force[1]), Real(force[2])});
    p.smagorinsky = Real(18 * std::sqrt(2.0) * smagorinsky_constant * smagorinsky_constant);
    p.has_sgs = smagorinsky_constant != 0;
    p.csm = Real(csm_constant);
    p.has_csm = csm_constant != 0;
    p.tau = Real(tau);
    p.magic = Real(magic);
    return p;
  }
  KOKKOS_INLINE_FUNCTION void set_force(const Real (&f)[3]) {
    for (int d = 0; d < 3; ++d) force[d] = f[d];
    has_force = f[0] != Real(0) || f[1] != Real(0) || f[2] != Real(0);
    for (int k = 0; k < 27; ++k) {
      const int c[3] = {k % 3 - 1, k / 3 % 3 - 1, k / 9 - 1};
      Real s = 0;
      for (int d = 0; d < 3; ++d)
        if (c[d] != 0) s += c[d] * f[d];
      force_c[k] = s;
    }
  }
  template <class L, int q>
  KOKKOS_FORCEINLINE_FUNCTION Real force_along() const {
    return force_c[(L::c(q, 0) + 1) + 3 * (L::c(q, 1) + 1) + 9 * (L::c(q, 2) + 1)];
  }
  // The same rates for relaxation time t (the magic parameter held), no model left to apply.
  KOKKOS_INLINE_FUNCTION CollisionParams with_tau(Real t) const {
    CollisionParams p = *this;
    p.tau = t;
    p.omega = Real(1) / t;
    p.omega_minus = Real(1) / (magic / (t - Real(0.5)) + Real(0.5));
    p.has_sgs = p.has_csm = false;
    return p;
  }
};

// The coherent-structure model (Kobayashi 2005, with seed 000's constant): the eddy viscosity
// nu_t = C |S| (filter width = the cell), C = C' |Q / E|^{3/2}, from the velocity gradient
// G[a][b] = d u_b / d x_a: Q = -G_ab G_ba / 2 its second invariant, E = G_ab G_ab / 2 its
// magnitude, |S| = sqrt(2 S_ab S_ab). |Q / E| <= 1; in pure rotation S = 0, in laminar shear
// Q = 0, and nu_t vanishes in both.
template <class Real>
KOKKOS_INLINE_FUNCTION Real csm_viscosity(const Real (&G)[3][3], Real c_prime) {
  Real q = 0, e = 0, ss = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      q += G[a][b] * G[b][a];
      e += G[a][b] * G[a][b];
      const Real s = Real(0.5) * (G[a][b] + G[b][a]);
      ss += s * s;
    }
  if (e <= Real(0)) return 0;
  using std::sqrt;
  const Real f = q < Real(0) ? -q / e : q / e;  // |Q / E|: the halves cancel
  return c_prime * f * sqrt(f) * sqrt(Real(2) * ss);
}

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

// The Smagorinsky model's relaxation time of a cell (Hou, Sterling, Chen, Doolen 1996):
// tau = tau_0 + 3 nu_t with nu_t = (C_s dx)^2 |S|, |S| = sqrt(2 S:S), and the strain rate from the
// cell's own non-equilibrium stress, S = -3 Pi / (2 rho tau), so no neighbour is read. Solving
// the quadratic for tau gives
//   tau = (tau_0 + sqrt(tau_0^2 + 18 sqrt(2) C_s^2 |Pi| / rho)) / 2,   |Pi| = sqrt(Pi:Pi).
// Pi = sum c c (f - f_eq) + (u F + F u) / 2: the Guo scheme leaves -(u F + F u) / 2 in the
// non-equilibrium stress of a flow without gradients (a uniformly accelerated fluid), which the
// second term removes. Summed over g = f - w and rho - 1 so that float keeps its digits.
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real smagorinsky_tau(const Real (&f)[L::Q], Real rho, const Real (&u)[3],
                                                 const CollisionParams<Real>& p) {
  Real drho = 0, pi[6] = {0, 0, 0, 0, 0, 0};  // xx, yy, zz, xy, xz, yz
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    constexpr int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
    const Real g = f[q] - Real(L::w(q));
    drho += g;
    if constexpr (cx != 0) pi[0] += g;
    if constexpr (cy != 0) pi[1] += g;
    if constexpr (cz != 0) pi[2] += g;
    if constexpr (cx * cy != 0) pi[3] += Real(cx * cy) * g;
    if constexpr (cx * cz != 0) pi[4] += Real(cx * cz) * g;
    if constexpr (cy * cz != 0) pi[5] += Real(cy * cz) * g;
  });
  constexpr int axes[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  Real norm2 = 0;
  for (int k = 0; k < (L::D == 3 ? 6 : 4); ++k) {
    if (L::D == 2 && k == 2) continue;  // no z row in 2D
    const int a = axes[k][0], b = axes[k][1];
    Real v = pi[k] - rho * u[a] * u[b] + Real(0.5) * (u[a] * p.force[b] + u[b] * p.force[a]);
    if (a == b) v -= drho / Real(3);
    norm2 += (a == b ? Real(1) : Real(2)) * v * v;
  }
  using std::sqrt;
  return Real(0.5) * (p.tau + sqrt(p.tau * p.tau + p.smagorinsky * sqrt(norm2) / rho));
}

struct BGK {
  static constexpr const char* name = "BGK";
  template <class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(Real (&f)[L::Q], const CollisionParams<Real>& p) {
    Real rho, u[3];
    moments<L>(f, p, rho, u);
    const Real omega = p.has_sgs ? Real(1) / smagorinsky_tau<L>(f, rho, u, p) : p.omega;
    const Real usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const Real uF = u[0] * p.force[0] + u[1] * p.force[1] + u[2] * p.force[2];
    const Real force_weight = Real(1) - Real(0.5) * omega;
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr Real w = Real(L::w(q));
      const Real cu = dot_c<L, q>(u);
      const Real feq = w * rho * (Real(1) + Real(3) * cu + Real(4.5) * cu * cu - usq15);
      f[q] += omega * (feq - f[q]);
      if (p.has_force) {
        const Real cF = p.template force_along<L, q>();
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
    Real omega = p.omega, omega_minus = p.omega_minus;
    if (p.has_sgs) {  // the magic parameter stays fixed as tau changes
      const Real tau = smagorinsky_tau<L>(f, rho, u, p);
      omega = Real(1) / tau;
      omega_minus = Real(1) / (p.magic / (tau - Real(0.5)) + Real(0.5));
    }
    const Real usq15 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const Real uF = u[0] * p.force[0] + u[1] * p.force[1] + u[2] * p.force[2];
    const Real wp = Real(1) - Real(0.5) * omega, wm = Real(1) - Real(0.5) * omega_minus;
    {
      const Real feq0 = Real(L::w(0)) * rho * (Real(1) - usq15);
      f[0] += omega * (feq0 - f[0]);
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
      Real ds = omega * (feq_s - f_s), da = omega_minus * (feq_a - f_a);
      if (p.has_force) {
        const Real cF = p.template force_along<L, q>();
        ds += wp * w * (Real(9) * cu * cF - Real(3) * uF);
        da += wm * w * Real(3) * cF;
      }
      f[q] += ds + da;
      f[qb] += ds - da;
    });
  }
};

// The parametrised cumulant's rates and fourth-order coefficients at shear rate w (bulk rate 1);
// `active` is false where the standard rates apply (w <= 7/4).
template <class Real>
struct CumulantRates {
  bool active = false;
  Real omega3 = 1, omega4 = 1, omega5 = 1, A = 0, B = 0;

  KOKKOS_INLINE_FUNCTION static CumulantRates at(Real w) {
    CumulantRates r;
    if (!(w > Real(Config::parametrised_cumulant_min_rate))) return r;
    const Real w2 = w * w;
    r.active = true;
    r.omega3 = Real(8) * (w - Real(2)) * (Real(2) * w + Real(1)) / (Real(7) * w2 - Real(14) * w - Real(8));
    r.omega4 = Real(8) * (w - Real(2)) * (Real(4) * w - Real(7)) / (Real(9) * w2 - Real(50) * w + Real(56));
    r.omega5 = Real(24) * (w - Real(2)) * (Real(3) * w2 - Real(7) * w - Real(2)) /
               (Real(29) * w2 * w - Real(130) * w2 + Real(152) * w + Real(48));
    const Real d = (Real(5) * w - Real(2)) * (w - Real(1));
    r.A = (Real(4) + Real(2) * w - Real(3) * w2) / d;
    r.B = (Real(4) + Real(28) * w - Real(14) * w2) / (Real(3) * d);
    return r;
  }
};

// The cumulant collision for D3Q27 (Geier, Schoenherr, Pasquali, Krafczyk 2015, Comput. Math.
// Appl. 70, 507-547) with the paper's standard rates: the second-order cumulants relax, the shear
// part at omega = 1/tau and the trace (bulk) at 1, with the paper's correction of the D3Q27
// velocity set's Galilean-invariance error; every higher cumulant relaxes with rate 1 to its
// equilibrium, 0, so that the post-collision central moments are those of a Gaussian with the
// relaxed second moments (Isserlis' theorem gives orders 4 and 6; odd orders vanish).
// A force shifts the velocity by F/2 and reverses the first central moments (momentum + F).
//
// The parametrised variant (CollisionParams::parametrised; Geier, Pasquali, Schoenherr 2017,
// J. Comput. Phys. 348, 862-888) keeps the bulk rate 1 and relaxes the third-order cumulant
// combinations C120 + C102 (and permutations) at omega_3, C120 - C102 at omega_4 and C111 at
// omega_5, the paper's Eqs. 111-113 for omega_2 = 1:
//   omega_3 = 8 (w - 2)(2w + 1) / (7w^2 - 14w - 8)
//   omega_4 = 8 (w - 2)(4w - 7) / (9w^2 - 50w + 56)
//   omega_5 = 24 (w - 2)(3w^2 - 7w - 2) / (29w^3 - 130w^2 + 152w + 48),
// each limited by lambda (Eqs. 116-123): omega_lim = omega + (1 - omega) |C| / (|C| + rho lambda).
// Its fourth-order cumulants relax (at rate 1) to the values that make the diffusion fourth-order
// accurate (Eqs. 43-48, 115-116 for omega_2 = 1):
//   C220 = -(1/w - 1/2) (2/3) A (d_x u_x + d_y u_y),   C211 = -(1/w - 1/2) (1/3) B (d_y u_z + d_z u_y)
//   A = (4 + 2w - 3w^2) / ((5w - 2)(w - 1)),           B = (4 + 28w - 14w^2) / (3 (5w - 2)(w - 1))
// with the velocity gradients taken from the pre-collision second-order cumulants. Fifth and sixth
// orders relax at 1 to 0; the moments of orders 3-6 then follow from the cumulants (the Gaussian
// part plus the products of the third- and fourth-order cumulants with lower orders).
// Where it applies: for w > 7/4 (tau < 4/7), the high-Reynolds regime it is made for, the three
// rates lie in (0, 2) and A, B are finite. Below, A and B have poles at w = 1 and 2/5 and omega_4
// one at 14/9 (it leaves (0, 2) for w in (10/7, 7/4)), and a Taylor-Green vortex with the
// parametrisation diverges at tau = 0.8 even where the rates are finite: a cell whose rate is at
// most 7/4 (the deck's tau, or tau raised by an eddy viscosity) collides with the standard rates.
// The switch is not smooth: just above 7/4 omega_4 is near 0 (C120 - C102 barely relaxes but for
// the limiter), just below it is 1, so a cell whose eddy viscosity crosses 4/7 changes treatment.
//
// Well-conditioned: the transform runs on g = f - w and every intermediate is the deviation from
// the rest state's moments, so a float run never subtracts numbers of size w to keep their
// difference. Per line of three populations (c = -1, 0, +1) with rest-state sum K:
//   k0 = g- + g0 + g+,  k1 = (g+ - g-) - u (k0 + K),  k2 = (g+ + g-) - 2u (g+ - g-) + u^2 (k0 + K),
// exact because the rest state's line moments are K, 0 and K/3 (D3Q27 weights are products of the
// 1D weights 1/6, 2/3, 1/6), and K of a later pass is the product of those of the earlier ones.
struct Cumulant {
  static constexpr const char* name = "cumulant";

  // One line of three values (c = -1, 0, +1 along the pass's axis) to its central moments of
  // orders 0, 1, 2 (forward) or back, in place; K is the line's rest-state sum.
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void forward(Real& a, Real& b, Real& c, Real u, Real K) {
    const Real k0 = a + b + c, diff = c - a, total = k0 + K;
    const Real k1 = diff - u * total;
    const Real k2 = (a + c) - Real(2) * u * diff + u * u * total;
    a = k0;
    b = k1;
    c = k2;
  }
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void backward(Real& a, Real& b, Real& c, Real u, Real K) {
    const Real k0 = a, k1 = b, total = k0 + K;
    const Real diff = k1 + u * total;
    const Real sum = c + Real(2) * u * k1 + u * u * total;
    a = Real(0.5) * (sum - diff);
    c = Real(0.5) * (sum + diff);
    b = k0 - sum;
  }
  // 1D rest-state weights by velocity component + 1, and the rest state's 1D central moments by order.
  KOKKOS_INLINE_FUNCTION static constexpr double weight_1d(int i) { return i == 1 ? 2.0 / 3.0 : 1.0 / 6.0; }
  KOKKOS_INLINE_FUNCTION static constexpr double rest_moment(int order) { return order == 0 ? 1.0 : order == 1 ? 0.0 : 1.0 / 3.0; }
  // The nine lines along `Axis` of m (indexed x + 3y + 9z, by velocity component + 1 on axes not
  // yet transformed and by moment order on those done: z first, then y, then x), all indices
  // compile-time constants so that m stays in registers and cell loops vectorise.
  template <int Axis, bool Forward, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void pass(Real (&m)[27], Real u) {
    static_for<9>([&](auto lc) {
      constexpr int i = decltype(lc)::value % 3, j = decltype(lc)::value / 3;
      constexpr int base = Axis == 2 ? i + 3 * j : Axis == 1 ? i + 9 * j : 3 * i + 9 * j;
      constexpr int stride = Axis == 2 ? 9 : Axis == 1 ? 3 : 1;
      constexpr double K = Axis == 2   ? weight_1d(i) * weight_1d(j)
                           : Axis == 1 ? weight_1d(i) * rest_moment(j)
                                       : rest_moment(i) * rest_moment(j);
      if constexpr (Forward)
        forward(m[base], m[base + stride], m[base + 2 * stride], u, Real(K));
      else
        backward(m[base], m[base + stride], m[base + 2 * stride], u, Real(K));
    });
  }

  // A third-order cumulant combination c (times rho) relaxed at `rate` under the limiter:
  // (1 - omega_lim) c = (1 - rate) c rho lambda / (|c| + rho lambda).
  template <class Real>
  KOKKOS_FORCEINLINE_FUNCTION static Real limited(Real c, Real rate, Real rho_lambda) {
    const Real span = (c < Real(0) ? -c : c) + rho_lambda;
    return span > Real(0) ? (Real(1) - rate) * c * rho_lambda / span : Real(0);
  }

  // The variant is chosen per cell from the run-time flag; each is its own instantiation, so that
  // the standard variant's arithmetic is exactly what it was before the parametrised one existed.
  template <class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(Real (&f)[L::Q], const CollisionParams<Real>& p) {
    if (p.parametrised)
      collide_variant<true, L>(f, p);
    else
      collide_variant<false, L>(f, p);
  }
  template <bool Parametrised, class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide_variant(Real (&f)[L::Q], const CollisionParams<Real>& p) {
    static_assert(L::Q == 27, "the cumulant collision is defined on D3Q27");
    Real m[27], drho = 0, j[3] = {0, 0, 0};
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const Real g = f[q] - Real(L::w(q));
      m[L::code(q)] = g;
      drho += g;
      if constexpr (L::c(q, 0) != 0) j[0] += L::c(q, 0) * g;
      if constexpr (L::c(q, 1) != 0) j[1] += L::c(q, 1) * g;
      if constexpr (L::c(q, 2) != 0) j[2] += L::c(q, 2) * g;
    });
    const Real rho = Real(1) + drho, inv_rho = Real(1) / rho;
    const Real u[3] = {(j[0] + Real(0.5) * p.force[0]) * inv_rho, (j[1] + Real(0.5) * p.force[1]) * inv_rho,
                       (j[2] + Real(0.5) * p.force[2]) * inv_rho};
    const Real w1 = p.has_sgs ? Real(1) / smagorinsky_tau<L>(f, rho, u, p) : p.omega, w2 = Real(1);
    pass<2, true>(m, u[2]);
    pass<1, true>(m, u[1]);
    pass<0, true>(m, u[0]);
    // m[x + 3y + 9z]: central moment of orders (x, y, z) minus the rest state's.
    const Real third = Real(1) / Real(3);
    const Real xx_yy = m[2] - m[6], xx_zz = m[2] - m[18], trace = m[2] + m[6] + m[18];  // trace - 1
    const Real dxux = -Real(0.5) * inv_rho * (w1 * (xx_yy + xx_zz) + w2 * (trace - drho));
    const Real dyuy = dxux + Real(1.5) * w1 * inv_rho * xx_yy;
    const Real dzuz = dxux + Real(1.5) * w1 * inv_rho * xx_zz;
    const Real ux2 = u[0] * u[0], uy2 = u[1] * u[1], uz2 = u[2] * u[2];
    const Real trace_post = trace + w2 * (drho - trace) -
                            Real(3) * rho * (Real(1) - Real(0.5) * w2) * (ux2 * dxux + uy2 * dyuy + uz2 * dzuz);
    const Real shear_keep = Real(1) - w1, shear_fix = Real(3) * rho * (Real(1) - Real(0.5) * w1);
    const Real xx_yy_post = shear_keep * xx_yy - shear_fix * (ux2 * dxux - uy2 * dyuy);
    const Real xx_zz_post = shear_keep * xx_zz - shear_fix * (ux2 * dxux - uz2 * dzuz);
    const Real a = third * (trace_post + xx_yy_post + xx_zz_post);  // kappa_200 - 1/3
    const Real b = third * (trace_post - Real(2) * xx_yy_post + xx_zz_post);
    const Real c = third * (trace_post + xx_yy_post - Real(2) * xx_zz_post);
    const Real xy = shear_keep * m[4], xz = shear_keep * m[10], yz = shear_keep * m[12];
    const Real m100 = -m[1], m010 = -m[3], m001 = -m[9];
    // Post-collision cumulants of orders 3 and 4 times rho (parametrised variant; 0 otherwise).
    Real k210 = 0, k012 = 0, k201 = 0, k021 = 0, k120 = 0, k102 = 0, k111 = 0;
    Real k220 = 0, k202 = 0, k022 = 0, k211 = 0, k121 = 0, k112 = 0;
    CumulantRates<Real> r;
    if constexpr (Parametrised) r = CumulantRates<Real>::at(w1);
    if (r.active) {
      const Real rl = rho * p.limiter;
      const Real xyy_p = limited(m[7] + m[19], r.omega3, rl), xyy_m = limited(m[7] - m[19], r.omega4, rl);
      const Real xxy_p = limited(m[5] + m[21], r.omega3, rl), xxy_m = limited(m[5] - m[21], r.omega4, rl);
      const Real xxz_p = limited(m[11] + m[15], r.omega3, rl), xxz_m = limited(m[11] - m[15], r.omega4, rl);
      k120 = Real(0.5) * (xyy_p + xyy_m);
      k102 = Real(0.5) * (xyy_p - xyy_m);
      k210 = Real(0.5) * (xxy_p + xxy_m);
      k012 = Real(0.5) * (xxy_p - xxy_m);
      k201 = Real(0.5) * (xxz_p + xxz_m);
      k021 = Real(0.5) * (xxz_p - xxz_m);
      k111 = limited(m[13], r.omega5, rl);
      // rho d_a u_b + rho d_b u_a = -3 w1 m_ab (off-diagonal, pre-collision)
      const Real diag = -(Real(1) / w1 - Real(0.5)) * Real(2.0 / 3.0) * r.A * rho;
      const Real off = (Real(1) - Real(0.5) * w1) * r.B;
      k220 = diag * (dxux + dyuy);
      k202 = diag * (dxux + dzuz);
      k022 = diag * (dyuy + dzuz);
      k112 = off * m[4];
      k121 = off * m[10];
      k211 = off * m[12];
    }
    static_for<27>([&](auto ic) { m[decltype(ic)::value] = Real(0); });
    m[0] = drho;
    m[1] = m100;
    m[3] = m010;
    m[9] = m001;
    m[2] = a;
    m[6] = b;
    m[18] = c;
    m[4] = xy;
    m[10] = xz;
    m[12] = yz;
    // Order 4 of the Gaussian, kappa_220 = (k200 k020 + 2 k110^2) / rho, minus the rest state's 1/9.
    const Real ninth = Real(1) / Real(9);
    m[8] = inv_rho * (a * b + third * (a + b) - ninth * drho + Real(2) * xy * xy);
    m[20] = inv_rho * (a * c + third * (a + c) - ninth * drho + Real(2) * xz * xz);
    m[24] = inv_rho * (b * c + third * (b + c) - ninth * drho + Real(2) * yz * yz);
    m[14] = inv_rho * ((a + third) * yz + Real(2) * xy * xz);  // kappa_211
    m[16] = inv_rho * ((b + third) * xz + Real(2) * xy * yz);  // kappa_121
    m[22] = inv_rho * ((c + third) * xy + Real(2) * xz * yz);  // kappa_112
    // Order 6: (k200 k020 k002 + 2 (k200 k011^2 + k020 k101^2 + k002 k110^2) + 8 k110 k101 k011) / rho^2 - 1/27.
    m[26] = inv_rho * inv_rho *
            (a * b * c + third * (a * b + b * c + a * c) + ninth * (a + b + c) - Real(1) / Real(27) * drho * (Real(2) + drho) +
             Real(2) * ((a + third) * yz * yz + (b + third) * xz * xz + (c + third) * xy * xy) + Real(8) * xy * xz * yz);
    if (r.active) {
      // The moments of the third- and fourth-order cumulants: m_3 = C_3, m_4 += C_4, and every split
      // of the moment's axes into a pair and a triple (order 5) or a pair and a quadruple or two
      // triples (order 6), e.g. m221 = (k200 C021 + k020 C201 + 4 k110 C111 + 2 k101 C120 + 2 k011 C210) / rho.
      const Real a1 = a + third, b1 = b + third, c1 = c + third;
      m[5] = k210;
      m[21] = k012;
      m[11] = k201;
      m[15] = k021;
      m[7] = k120;
      m[19] = k102;
      m[13] = k111;
      m[8] += k220;
      m[20] += k202;
      m[24] += k022;
      m[14] += k211;
      m[16] += k121;
      m[22] += k112;
      m[17] = inv_rho * (a1 * k021 + b1 * k201 + Real(4) * xy * k111 + Real(2) * (xz * k120 + yz * k210));  // 221
      m[23] = inv_rho * (a1 * k012 + c1 * k210 + Real(4) * xz * k111 + Real(2) * (xy * k102 + yz * k201));  // 212
      m[25] = inv_rho * (b1 * k102 + c1 * k120 + Real(4) * yz * k111 + Real(2) * (xy * k012 + xz * k021));  // 122
      m[26] += inv_rho * (a1 * k022 + b1 * k202 + c1 * k220 + Real(4) * (xy * k112 + xz * k121 + yz * k211) +
                          Real(4) * k111 * k111 + Real(2) * (k210 * k012 + k201 * k021 + k120 * k102));
    }
    pass<0, false>(m, u[0]);
    pass<1, false>(m, u[1]);
    pass<2, false>(m, u[2]);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f[q] = m[L::code(q)] + Real(L::w(q));
    });
  }
};

// Runs f(collision) for the deck's collision model; the cumulant exists on D3Q27 only (the deck
// refuses it elsewhere), so other lattices never instantiate it.
template <class L, class F>
decltype(auto) dispatch_collision(CollisionKind kind, F&& f) {
  if constexpr (L::Q == 27) {
    if (kind == CollisionKind::Cumulant) return f(Cumulant{});
  }
  if (kind == CollisionKind::TRT) return f(TRT{});
  return f(BGK{});
}

}  // namespace boreas
