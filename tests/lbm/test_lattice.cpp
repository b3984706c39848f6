// Lattice identities (weights, isotropy up to 4th order, velocity ordering), equilibrium
// moments and the conservation properties of one BGK/TRT collision with Guo forcing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <random>
#include <set>
#include <tuple>
#include <utility>

#include "core/Deck.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

template <class L>
class LatticeTest : public ::testing::Test {};
using Lattices = ::testing::Types<D2Q9, D3Q19, D3Q27>;
TYPED_TEST_SUITE(LatticeTest, Lattices);

constexpr double cs2 = 1.0 / 3.0;
double delta(int a, int b) { return a == b ? 1.0 : 0.0; }

TYPED_TEST(LatticeTest, WeightMoments) {
  using L = TypeParam;
  const int D = L::D;
  double w0 = 0, w1[3] = {}, w2[3][3] = {}, w3[3][3][3] = {};
  for (int q = 0; q < L::Q; ++q) {
    w0 += L::w(q);
    for (int a = 0; a < 3; ++a) {
      w1[a] += L::w(q) * L::c(q, a);
      for (int b = 0; b < 3; ++b) {
        w2[a][b] += L::w(q) * L::c(q, a) * L::c(q, b);
        for (int c = 0; c < 3; ++c) w3[a][b][c] += L::w(q) * L::c(q, a) * L::c(q, b) * L::c(q, c);
      }
    }
  }
  EXPECT_NEAR(w0, 1.0, 1e-15);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(w1[a], 0.0, 1e-15);
    for (int b = 0; b < 3; ++b) {
      const double expect = a < D && b < D ? cs2 * delta(a, b) : 0.0;
      EXPECT_NEAR(w2[a][b], expect, 1e-15) << a << b;
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(w3[a][b][c], 0.0, 1e-15);
    }
  }
}

// sum_q w c_a c_b c_c c_d = c_s^4 (d_ab d_cd + d_ac d_bd + d_ad d_bc): what makes the viscous
// stress isotropic.
TYPED_TEST(LatticeTest, FourthOrderIsotropy) {
  using L = TypeParam;
  const int D = L::D;
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b)
      for (int c = 0; c < D; ++c)
        for (int d = 0; d < D; ++d) {
          double sum = 0;
          for (int q = 0; q < L::Q; ++q)
            sum += L::w(q) * L::c(q, a) * L::c(q, b) * L::c(q, c) * L::c(q, d);
          const double expect =
              cs2 * cs2 * (delta(a, b) * delta(c, d) + delta(a, c) * delta(b, d) + delta(a, d) * delta(b, c));
          EXPECT_NEAR(sum, expect, 1e-15) << a << b << c << d;
        }
}

TYPED_TEST(LatticeTest, VelocitiesDistinctAndInPlane) {
  using L = TypeParam;
  std::set<std::tuple<int, int, int>> seen;
  for (int q = 0; q < L::Q; ++q) {
    seen.insert({L::c(q, 0), L::c(q, 1), L::c(q, 2)});
    if (L::D == 2) EXPECT_EQ(L::c(q, 2), 0);
    for (int d = 0; d < 3; ++d) EXPECT_LE(std::abs(L::c(q, d)), 1);
  }
  EXPECT_EQ(int(seen.size()), L::Q);
  EXPECT_EQ(L::Q, 2 * L::H + 1);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(L::c(0, d), 0);
}

// Palabos ordering: c_1..c_H have their first non-zero component negative, c_{q+H} = -c_q.
TYPED_TEST(LatticeTest, PalabosOrderingAndOpposite) {
  using L = TypeParam;
  EXPECT_EQ(opposite<L>(0), 0);
  for (int q = 1; q <= L::H; ++q) {
    int first = 0;
    for (int d = 0; d < 3 && first == 0; ++d) first = L::c(q, d);
    EXPECT_LT(first, 0) << "q = " << q;
    EXPECT_EQ(opposite<L>(q), q + L::H);
    EXPECT_EQ(opposite<L>(q + L::H), q);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(L::c(q + L::H, d), -L::c(q, d));
    EXPECT_EQ(L::w(q), L::w(q + L::H));
  }
}

// The second-order equilibrium carries rho, rho u and Pi^eq = rho c_s^2 I + rho u u exactly.
TYPED_TEST(LatticeTest, EquilibriumMoments) {
  using L = TypeParam;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> vel(-0.1, 0.1), dens(0.8, 1.2);
  for (int trial = 0; trial < 10; ++trial) {
    const double rho = dens(gen);
    double u[3] = {vel(gen), vel(gen), L::D == 3 ? vel(gen) : 0.0};
    double m0 = 0, m1[3] = {}, m2[3][3] = {};
    for (int q = 0; q < L::Q; ++q) {
      const double f = equilibrium<L, double>(q, rho, u);
      m0 += f;
      for (int a = 0; a < 3; ++a) {
        m1[a] += f * L::c(q, a);
        for (int b = 0; b < 3; ++b) m2[a][b] += f * L::c(q, a) * L::c(q, b);
      }
    }
    EXPECT_NEAR(m0, rho, 1e-14);
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(m1[a], rho * u[a], 1e-15);
      for (int b = 0; b < 3; ++b) {
        const double expect = a < L::D && b < L::D ? rho * cs2 * delta(a, b) + rho * u[a] * u[b] : 0.0;
        EXPECT_NEAR(m2[a][b], expect, 1e-15);
      }
    }
  }
}

// One collision of random populations conserves mass and changes the momentum by the force
// (Guo et al. 2002), for BGK and TRT.
template <class L, class C>
void check_collision(double tau) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  const CollisionParams<double> p = CollisionParams<double>::make(tau, 3.0 / 16.0, {1e-3, -2e-3, L::D == 3 ? 5e-4 : 0.0});
  double f[L::Q];
  const double u0[3] = {0.05, -0.02, 0.0};
  for (int q = 0; q < L::Q; ++q) f[q] = equilibrium<L, double>(q, 1.0, u0) * (1 + noise(gen));
  double m_before = 0, j_before[3] = {};
  for (int q = 0; q < L::Q; ++q) {
    m_before += f[q];
    for (int d = 0; d < 3; ++d) j_before[d] += f[q] * L::c(q, d);
  }
  C::template collide<L>(f, p);
  double m_after = 0, j_after[3] = {};
  for (int q = 0; q < L::Q; ++q) {
    m_after += f[q];
    for (int d = 0; d < 3; ++d) j_after[d] += f[q] * L::c(q, d);
  }
  EXPECT_NEAR(m_after, m_before, 1e-15);
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(j_after[d] - j_before[d], p.force[d], 1e-16) << d;
}

TYPED_TEST(LatticeTest, CollisionConservesMassAndAddsForce) {
  for (double tau : {0.55, 1.0, 1.7}) {
    check_collision<TypeParam, BGK>(tau);
    check_collision<TypeParam, TRT>(tau);
  }
}

// The collisions read c_q . F from CollisionParams' table (force_along) instead of summing it per
// cell (dot_c): the table must hold dot_c's value bit for bit, for every direction, in float and
// double, after make() and after set_force().
// (A fold over the directions, not static_for: a host lambda in that host-device function draws
// nvcc's warning #20014 in CUDA builds.)
template <class L, int q, class Real>
void expect_force_along_is_dot_c(const CollisionParams<Real>& p) {
  const Real table = p.template force_along<L, q>(), sum = dot_c<L, q>(p.force);
  EXPECT_EQ(std::memcmp(&table, &sum, sizeof(Real)), 0) << "q = " << q << ": " << table << " against " << sum;
}
template <class L, class Real, int... q>
void expect_force_table(const CollisionParams<Real>& p, std::integer_sequence<int, q...>) {
  (expect_force_along_is_dot_c<L, q>(p), ...);
}

template <class L, class Real>
void check_force_table() {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> value(-1e-3, 1e-3);
  for (int trial = 0; trial < 20; ++trial) {
    CollisionParams<Real> p = CollisionParams<Real>::make(0.8, 3.0 / 16.0, {value(gen), value(gen), value(gen)});
    if (trial % 2) p.set_force({Real(value(gen)), Real(value(gen)), Real(0)});
    expect_force_table<L>(p, std::make_integer_sequence<int, L::Q>{});
  }
}

TYPED_TEST(LatticeTest, ForceTableHoldsEachDirectionsSum) {
  check_force_table<TypeParam, double>();
  check_force_table<TypeParam, float>();
}

// Populations of the Chapman-Enskog state with density rho, Guo velocity u, velocity gradient
// G[a][b] = d u_b / d x_a and relaxation time tau, before collision (lbm/physics/ChapmanEnskog.hpp states its
// moments): f = f_eq - 3 tau rho w Q:G - (9/4) w Q:(uF + Fu) - (3/2) w c.F.
template <class L, class Real>
void chapman_enskog_state(double rho, const double (&u)[3], const double (&G)[3][3], double tau,
                          const double (&F)[3], Real (&f)[L::Q]) {
  for (int q = 0; q < L::Q; ++q) {
    double cu = 0, cF = 0, QG = -(G[0][0] + G[1][1] + G[2][2]) / 3, QuF = 0, uF = 0;
    for (int a = 0; a < 3; ++a) {
      cu += L::c(q, a) * u[a];
      cF += L::c(q, a) * F[a];
      uF += u[a] * F[a];
      for (int b = 0; b < 3; ++b) QG += L::c(q, a) * L::c(q, b) * G[a][b];
    }
    QuF = 2 * cu * cF - 2 * uF / 3;
    const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    f[q] = Real(L::w(q) * (rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq) - 3 * tau * rho * QG - 2.25 * QuF - 1.5 * cF));
  }
}

// The Smagorinsky relaxation time read from a cell's own populations is the model's
// tau_0 + 3 C^2 |S| (|S| = sqrt(2 S:S)) for shear, extension and mixed gradients, with and without
// a force (the Guo term must not count as strain), and tau_0 in pure rotation, where S = 0.
template <class L, class Real>
void check_smagorinsky_tau(double tolerance) {
  const double tau0 = 0.52, C = 0.3, rho = 1.03, u[3] = {0.04, -0.03, L::D == 3 ? 0.02 : 0.0};
  const double no_force[3] = {0, 0, 0}, force[3] = {2e-4, -1e-4, L::D == 3 ? 3e-4 : 0.0};
  const double z = L::D == 3 ? 1 : 0;
  const double gradients[4][3][3] = {
      {{0, 2e-3, 0}, {0, 0, 0}, {0, 0, 0}},                               // simple shear
      {{1e-3, 0, 0}, {0, -1e-3, 0}, {0, 0, 0}},                          // extension
      {{3e-4, 1e-3, -4e-4 * z}, {-2e-4, -5e-4, 7e-4 * z}, {6e-4 * z, -1e-4 * z, 2e-4 * z}},  // mixed
      {{0, 1e-3, 5e-4 * z}, {-1e-3, 0, -2e-4 * z}, {-5e-4 * z, 2e-4 * z, 0}},  // pure rotation
  };
  for (int g = 0; g < 4; ++g) {
    const auto& G = gradients[g];
    double SS = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) SS += 0.25 * (G[a][b] + G[b][a]) * (G[a][b] + G[b][a]);
    const double tau_model = tau0 + 3 * C * C * std::sqrt(2 * SS);
    if (g == 3) EXPECT_EQ(SS, 0.0);
    for (const auto* F : {&no_force, &force}) {
      const CollisionParams<Real> p =
          CollisionParams<Real>::make(tau0, 3.0 / 16.0, {(*F)[0], (*F)[1], (*F)[2]}, C);
      Real f[L::Q], r, v[3];
      chapman_enskog_state<L>(rho, u, G, tau_model, *F, f);
      moments<L>(f, p, r, v);
      const double tau = double(smagorinsky_tau<L>(f, r, v, p));
      EXPECT_NEAR(tau, tau_model, tolerance * tau_model) << "gradient " << g << (F == &force ? " with force" : "");
    }
  }
}

TYPED_TEST(LatticeTest, SmagorinskyTauFromTheCellsOwnStress) {
  check_smagorinsky_tau<TypeParam, double>(1e-12);
  check_smagorinsky_tau<TypeParam, float>(2e-6);  // g = f - w keeps float's digits
}

// Mass and force balance hold with the per-cell relaxation time as well.
TYPED_TEST(LatticeTest, SmagorinskyCollisionConservesMassAndAddsForce) {
  using L = TypeParam;
  const CollisionParams<double> p =
      CollisionParams<double>::make(0.51, 3.0 / 16.0, {1e-3, -2e-3, L::D == 3 ? 5e-4 : 0.0}, 0.5);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  const double u0[3] = {0.05, -0.02, 0.0};
  auto run = [&](auto collision) {
    double f[L::Q], m0 = 0, m1 = 0, j0[3] = {}, j1[3] = {};
    for (int q = 0; q < L::Q; ++q) f[q] = equilibrium<L, double>(q, 1.0, u0) * (1 + noise(gen));
    for (int q = 0; q < L::Q; ++q) {
      m0 += f[q];
      for (int d = 0; d < 3; ++d) j0[d] += f[q] * L::c(q, d);
    }
    decltype(collision)::template collide<L>(f, p);
    for (int q = 0; q < L::Q; ++q) {
      m1 += f[q];
      for (int d = 0; d < 3; ++d) j1[d] += f[q] * L::c(q, d);
    }
    EXPECT_NEAR(m1, m0, 1e-15);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(j1[d] - j0[d], p.force[d], 1e-16) << d;
  };
  run(BGK{});
  run(TRT{});
  if constexpr (L::Q == 27) run(Cumulant{});
}

// The cumulants of a set of D3Q27 populations, normalised by the density, computed from their raw
// central moments independently of the collision's chimera transform: C[a][b][c] for orders 3-6
// (the first central moments vanish without a force; orders 4-6 by the moment-cumulant relations
// of the splits of their axes into pairs, triples and quadruples).
struct Cumulants {
  double rho = 0, u[3] = {0, 0, 0}, m[3][3][3] = {}, C[3][3][3] = {};
  explicit Cumulants(const double (&f)[27]) {
    double j[3] = {0, 0, 0};
    for (int q = 0; q < 27; ++q) {
      rho += f[q];
      for (int d = 0; d < 3; ++d) j[d] += D3Q27::c(q, d) * f[q];
    }
    for (int d = 0; d < 3; ++d) u[d] = j[d] / rho;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) {
          double s = 0;
          for (int q = 0; q < 27; ++q)
            s += f[q] * std::pow(D3Q27::c(q, 0) - u[0], a) * std::pow(D3Q27::c(q, 1) - u[1], b) *
                 std::pow(D3Q27::c(q, 2) - u[2], c);
          m[a][b][c] = s / rho;
          C[a][b][c] = m[a][b][c];
        }
    // order 4: m_xxyy = C + m_xx m_yy + 2 m_xy^2, m_xxyz = C + m_xx m_yz + 2 m_xy m_xz
    for (int x = 0; x < 3; ++x) {
      const int y = (x + 1) % 3, z = (x + 2) % 3;
      C4(x, y) = M4(x, y) - M2(x, x) * M2(y, y) - 2 * M2(x, y) * M2(x, y);
      C211(x) = M211(x) - M2(x, x) * M2(y, z) - 2 * M2(x, y) * M2(x, z);
    }
    // order 5: m_xxyyz = C + m_xx m_yyz + m_yy m_xxz + 4 m_xy m_xyz + 2 m_xz m_xyy + 2 m_yz m_xxy
    for (int z = 0; z < 3; ++z) {
      const int x = (z + 1) % 3, y = (z + 2) % 3;
      C5(z) = M5(z) - (M2(x, x) * M3(y, y, z) + M2(y, y) * M3(x, x, z) + 4 * M2(x, y) * m[1][1][1] +
                       2 * M2(x, z) * M3(x, y, y) + 2 * M2(y, z) * M3(x, x, y));
    }
    const double a = m[2][0][0], b = m[0][2][0], c = m[0][0][2], xy = m[1][1][0], xz = m[1][0][1], yz = m[0][1][1];
    C[2][2][2] = m[2][2][2] - (a * C[0][2][2] + b * C[2][0][2] + c * C[2][2][0]) -
                 4 * (xy * C[1][1][2] + xz * C[1][2][1] + yz * C[2][1][1]) -
                 (4 * m[1][1][1] * m[1][1][1] + 2 * (m[2][1][0] * m[0][1][2] + m[2][0][1] * m[0][2][1] + m[1][2][0] * m[1][0][2])) -
                 (a * b * c + 2 * (a * yz * yz + b * xz * xz + c * xy * xy) + 8 * xy * xz * yz);
  }
  // Moments and cumulants by the axes they carry, e.g. M3(x, y, y) = m_xyy.
  static double& entry(double (&t)[3][3][3], std::initializer_list<int> axes) {
    int o[3] = {0, 0, 0};
    for (int axis : axes) ++o[axis];
    return t[o[0]][o[1]][o[2]];
  }
  double M2(int x, int y) { return entry(m, {x, y}); }
  double M3(int x, int y, int z) { return entry(m, {x, y, z}); }
  double M4(int x, int y) { return entry(m, {x, x, y, y}); }
  double& C4(int x, int y) { return entry(C, {x, x, y, y}); }
  double M211(int x) { return entry(m, {x, x, (x + 1) % 3, (x + 2) % 3}); }
  double& C211(int x) { return entry(C, {x, x, (x + 1) % 3, (x + 2) % 3}); }
  double M5(int z) { return entry(m, {(z + 1) % 3, (z + 1) % 3, (z + 2) % 3, (z + 2) % 3, z}); }
  double& C5(int z) { return entry(C, {(z + 1) % 3, (z + 1) % 3, (z + 2) % 3, (z + 2) % 3, z}); }
};

// The parametrised cumulant (Geier et al. 2017) on a Chapman-Enskog state with a known traceless
// velocity gradient G, measured on the post-collision populations by the independent cumulants
// above: mass and momentum kept; the third-order combinations relaxed at the paper's omega_3,
// omega_4, omega_5 through the limiter; the fourth-order cumulants at the paper's targets
// C_xxyy = -(1/w - 1/2)(2/3) A (G_xx + G_yy) and C_xxyz = -(1/w - 1/2)(1/3) B (G_yz + G_zy);
// orders 5 and 6 zero. Limiter lambda: 1e30 (off), 1e-3 (the default) and 0 (third order at 1).
TEST(CumulantParametrised, PostCollisionCumulantsFollowThePapersRates) {
  using L = D3Q27;
  const double tau = 0.53, w = 1 / tau, rho = 1.02, u[3] = {0.03, -0.02, 0.01}, F[3] = {0, 0, 0};
  const double G[3][3] = {{2e-3, 1e-3, -5e-4}, {-7e-4, -3e-3, 8e-4}, {6e-4, 1.5e-3, 1e-3}};
  const CumulantRates<double> r = CumulantRates<double>::at(w);
  ASSERT_TRUE(r.active);
  // The paper's general forms (Eqs. 111-116, omega_1 = 1/0.53, omega_2 = 1), evaluated apart.
  EXPECT_NEAR(r.omega3, 0.45530893821235824, 1e-14);
  EXPECT_NEAR(r.omega4, 0.0786618444846293, 1e-14);
  EXPECT_NEAR(r.omega5, 0.1841910043110179, 1e-14);
  EXPECT_NEAR(r.A, -0.4408683443136404, 1e-14);
  EXPECT_NEAR(r.B, 0.3534578968211118, 1e-14);
  for (double lambda : {1e30, 1e-3, 0.0}) {
    double f[27];
    chapman_enskog_state<L>(rho, u, G, tau, F, f);
    Cumulants pre(f);
    CollisionParams<double> p = CollisionParams<double>::make(tau, 3.0 / 16.0, {0, 0, 0});
    p.parametrised = true;
    p.limiter = lambda;
    Cumulant::collide<L>(f, p);
    Cumulants post(f);
    EXPECT_NEAR(post.rho, pre.rho, 1e-15);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(post.u[d], pre.u[d], 1e-15);
    auto limited = [&](double c, double rate) {  // (1 - omega_lim) c, c normalised by rho
      const double span = std::abs(c) + lambda;
      return span > 0 ? (1 - rate) * c * lambda / span : 0.0;
    };
    const double tol = 1e-13;
    for (int x = 0; x < 3; ++x) {  // C_xyy + C_xzz at omega_3, C_xyy - C_xzz at omega_4
      const int y = (x + 1) % 3, z = (x + 2) % 3;
      const double sum = pre.M3(x, y, y) + pre.M3(x, z, z), diff = pre.M3(x, y, y) - pre.M3(x, z, z);
      EXPECT_NEAR(post.M3(x, y, y) + post.M3(x, z, z), limited(sum, r.omega3), tol) << x << " lambda " << lambda;
      EXPECT_NEAR(post.M3(x, y, y) - post.M3(x, z, z), limited(diff, r.omega4), tol) << x << " lambda " << lambda;
    }
    EXPECT_NEAR(post.m[1][1][1], limited(pre.m[1][1][1], r.omega5), tol);
    const double pre4 = -(1 / w - 0.5);
    for (int x = 0; x < 3; ++x)
      for (int y = x + 1; y < 3; ++y) {
        const int z = 3 - x - y;
        EXPECT_NEAR(post.C4(x, y), pre4 * 2.0 / 3.0 * r.A * (G[x][x] + G[y][y]), 1e-12) << x << y;
        EXPECT_NEAR(post.C211(z), pre4 / 3.0 * r.B * (G[x][y] + G[y][x]), 1e-12) << z;
      }
    for (int z = 0; z < 3; ++z) EXPECT_NEAR(post.C5(z), 0, 1e-15) << z;
    EXPECT_NEAR(post.C[2][2][2], 0, 1e-15);
  }
}

// Where the parametrisation does not apply (shear rate <= 7/4, tau >= 4/7; 0.572 is just above), the
// variant is the standard collision bit for bit: there lie the poles of A and B (tau = 1, 2.5) and of omega_4
// (tau = 9/14), and tau = 0.8, where the parametrised Taylor-Green vortex diverges. Above 7/4
// the three rates lie in (0, 2) and A, B are finite.
TEST(CumulantParametrised, StandardRatesWhereTheParametrisationDoesNotApply) {
  using L = D3Q27;
  const double G[3][3] = {{2e-3, 1e-3, -5e-4}, {-7e-4, -3e-3, 8e-4}, {6e-4, 1.5e-3, 1e-3}};
  for (double tau : {0.572, 9.0 / 14.0, 0.8, 1.0, 2.5}) {
    double f[27], g[27];
    chapman_enskog_state<L>(1.02, {0.03, -0.02, 0.01}, G, tau, {1e-5, 0, 0}, f);
    std::copy(f, f + 27, g);
    CollisionParams<double> p = CollisionParams<double>::make(tau, 3.0 / 16.0, {1e-5, 0, 0});
    Cumulant::collide<L>(f, p);
    p.parametrised = true;
    Cumulant::collide<L>(g, p);
    EXPECT_FALSE(CumulantRates<double>::at(1 / tau).active) << tau;
    for (int q = 0; q < 27; ++q) EXPECT_EQ(f[q], g[q]) << "tau " << tau << " q " << q;
  }
  for (int i = 1; i < 1000; ++i) {
    const double w = 1.75 + 0.25 * i / 1000.0;
    const CumulantRates<double> r = CumulantRates<double>::at(w);
    ASSERT_TRUE(r.active) << w;
    for (double rate : {r.omega3, r.omega4, r.omega5}) {
      EXPECT_GT(rate, 0) << w;
      EXPECT_LT(rate, 2) << w;
    }
    EXPECT_TRUE(std::isfinite(r.A) && std::isfinite(r.B)) << w;
  }
}

// Each inlet profile's factor against its formula, evaluated at link midpoints of a 3D domain of
// 10 x 12 x 16 cells whose y and z faces are walls (z is the height).
TEST(InletProfile, FactorsOfEachLaw) {
  const Config c = parse_deck_string(
      "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [10, 12, 16]\n[physics]\ntau = 0.6\n"
      "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\nprofile = \"parabolic\"\n"
      "[boundary.x_max]\ntype = \"velocity_inlet\"\nvelocity = [-0.02, 0, 0]\nprofile = \"log_law\"\n"
      "reference_height = 8\nroughness_length = 0.1\n"
      "[boundary.y_min]\ntype = \"velocity_inlet\"\nvelocity = [0, 0.01, 0]\nprofile = \"power_law\"\n"
      "reference_height = 4\nexponent = 0.25\n",
      "profiles", "");
  const InletProfile<double> parabolic = InletProfile<double>::make(c, XMin);
  const InletProfile<double> log_law = InletProfile<double>::make(c, XMax);
  const InletProfile<double> power_law = InletProfile<double>::make(c, YMin);
  for (double y : {-0.5, 0.0, 2.5, 5.5, 11.0, 11.5})
    for (double z : {-0.5, 0.5, 7.5, 15.0}) {
      const double p[3] = {-0.5, y, z};
      const double sy = (y + 0.5) / 12, sz = (z + 0.5) / 16;
      EXPECT_DOUBLE_EQ(parabolic.factor(p), 16 * sy * (1 - sy) * sz * (1 - sz)) << y << " " << z;
      const double h = z + 0.5;
      EXPECT_DOUBLE_EQ(log_law.factor(p), std::log(h / 0.1 + 1) / std::log(8 / 0.1 + 1)) << z;
      EXPECT_DOUBLE_EQ(power_law.factor(p), std::pow(h / 4, 0.25)) << z;
    }
  const double centre[3] = {-0.5, 5.5, 7.5}, reference[3] = {9.5, 3.0, 7.5};
  EXPECT_DOUBLE_EQ(parabolic.factor(centre), 1.0);
  EXPECT_DOUBLE_EQ(log_law.factor(reference), 1.0);
  EXPECT_EQ(InletProfile<double>::make(c, YMax).factor(centre), 1.0);  // a wall: uniform
}

}  // namespace
}  // namespace boreas
