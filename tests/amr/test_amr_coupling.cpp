// Level coupling and subcycling of the AMR solver (amr/Coupling.hpp, amr/AmrLattice.hpp):
// - the rebuilt post-collision state is exactly what BGK / TRT make of the Chapman-Enskog state it
//   stands for, at tau = 1 (where rescaling post-collision non-equilibrium is singular) and near it;
// - a uniform flow on 3 and 4 levels stays uniform to round-off, in double and float, 2D and 3D;
// - the forest a deck asks for holds what its regions want.
#include <gtest/gtest.h>

#include <cmath>

#include "amr/AmrSolver.hpp"
#include "amr/Coupling.hpp"
#include "core/Deck.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

template <class L, class Collision>
void check_rebuild_matches_collision(double tau) {
  const std::array<double, 3> force{2e-5, -1e-5, L::D == 3 ? 3e-5 : 0.0};
  const CollisionParams<double> p = CollisionParams<double>::make(tau, 3.0 / 16.0, force);
  const double omega_odd = std::is_same_v<Collision, TRT> ? p.omega_minus : p.omega;
  const CouplingRates<double> r = CouplingRates<double>::make(tau, omega_odd, force);
  const double rho = 1.013, u[3] = {0.04, -0.02, L::D == 3 ? 0.03 : 0.0};
  double G[3][3] = {{1e-3, -2e-4, 5e-4}, {3e-4, -6e-4, 1e-4}, {-2e-4, 4e-4, 2e-4}};
  if (L::D == 2)
    for (int a = 0; a < 3; ++a) G[a][2] = G[2][a] = 0;
  // The Chapman-Enskog pre-collision state: f_eq(rho, u) - 3 tau rho w Q:G - 3/2 w c.F.
  double f[L::Q], expected[L::Q];
  for (int q = 0; q < L::Q; ++q) {
    double QG = -(G[0][0] + G[1][1] + G[2][2]) / 3, cF = 0;
    for (int a = 0; a < 3; ++a) {
      cF += L::c(q, a) * force[a];
      for (int b = 0; b < 3; ++b) QG += L::c(q, a) * L::c(q, b) * G[a][b];
    }
    f[q] = equilibrium<L>(q, rho, u) - 3 * tau * rho * L::w(q) * QG - 1.5 * L::w(q) * cF;
  }
  Collision::template collide<L>(f, p);
  rebuild_post_collision<L>(rho, u, G, r, expected);
  for (int q = 0; q < L::Q; ++q) EXPECT_NEAR(expected[q], f[q], 1e-15) << L::name << " tau " << tau << " q " << q;
}

TEST(AmrCoupling, RebuildIsTheCollisionOfTheChapmanEnskogState) {
  for (double tau : {0.6, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.7}) {
    check_rebuild_matches_collision<D2Q9, BGK>(tau);
    check_rebuild_matches_collision<D3Q19, BGK>(tau);
    check_rebuild_matches_collision<D3Q27, TRT>(tau);
    check_rebuild_matches_collision<D3Q19, TRT>(tau);
  }
}

TEST(AmrCoupling, AcousticScaling) {
  EXPECT_DOUBLE_EQ(level_tau(0.8, 0), 0.8);
  EXPECT_DOUBLE_EQ(level_tau(0.8, 1) - 0.5, 2 * (0.8 - 0.5));
  EXPECT_DOUBLE_EQ(level_tau(0.8, 3) - 0.5, 8 * (0.8 - 0.5));
  EXPECT_DOUBLE_EQ(level_force({8e-4, 0, 0}, 2)[0], 2e-4);
}

std::string uniform_deck(const std::string& lattice, const std::string& cells, const std::string& precision,
                         int max_level, const std::string& region) {
  return "[lattice]\nmodel = \"" + lattice + "\"\nprecision = \"" + precision +
         "\"\n[simulation]\nsteps = 1\n[domain]\ncells = " + cells +
         "\n[physics]\ntau = 0.7\n[initial]\nvelocity = [0.05, -0.03" + (lattice == "D2Q9" ? "" : ", 0.02") +
         "]\n[boundary]\nx_min.type = \"periodic\"\nx_max.type = \"periodic\"\ny_min.type = \"periodic\"\n"
         "y_max.type = \"periodic\"\n" +
         (lattice == "D2Q9" ? "" : "z_min.type = \"periodic\"\nz_max.type = \"periodic\"\n") +
         "[amr]\nleaf_size = 4\nmax_level = " + std::to_string(max_level) + "\n[[amr.region]]\nlevel = " +
         std::to_string(max_level) + "\n" + region + "\n";
}

void expect_uniform(const std::string& text, double tolerance, int levels) {
  const Config config = parse_deck_string(text, "uniform.toml", "");
  const DomainGeometry domain(config);
  auto solver = AmrSolver::create(config, domain, build_forest(config, domain));
  ASSERT_EQ(solver->forest().levels(), levels);
  solver->advance(6);
  double worst = 0;
  for (const AmrBlockSample& b : solver->sample())
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      worst = std::max(worst, std::abs(b.density[i] - 1.0));
      for (int d = 0; d < 3; ++d)
        worst = std::max(worst, std::abs(b.velocity[3 * i + d] - config.initial_velocity[d]) / 0.05);
    }
  EXPECT_LE(worst, tolerance) << text;
}

TEST(AmrSubcycling, UniformFlowStaysUniform) {
  const std::string box3 = "lo = [6, 6, 6]\nhi = [9, 9, 9]";
  expect_uniform(uniform_deck("D3Q19", "[16, 16, 16]", "double", 2, box3), 1e-12, 3);
  expect_uniform(uniform_deck("D3Q27", "[16, 16, 16]", "double", 2, box3), 1e-12, 3);
  expect_uniform(uniform_deck("D3Q19", "[16, 16, 16]", "float", 2, box3), 2e-5, 3);
  expect_uniform(uniform_deck("D2Q9", "[32, 32]", "double", 3, "lo = [14, 14]\nhi = [17, 17]"), 1e-12, 4);
}

}  // namespace
}  // namespace boreas
