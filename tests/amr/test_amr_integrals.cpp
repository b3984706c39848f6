// integrals.csv on AMR leaves (drivers/Integrals.hpp amr_flow_integrals): a Gaussian vortex set on
// the leaves against its exact integrals over the plane. Its velocity u_theta = g(r) r with
// g = (s / c) exp((1 - r^2 / c^2) / 2) (peak speed s at r = c) has
//   int |u|^2 dA = pi e s^2 c^2          int |curl u|^2 dA = 2 pi e s^2
// (curl u = (1/r) d(r u_theta)/dr = g (2 - r^2 / c^2)). Each leaf cell weighs its area in level-0 cells and its
// differences are in level-0 units: the energy is a midpoint sum on every level alike, and the
// enstrophy's central-difference error, O(h^2), falls 4x with the level-1 spacing everywhere; a
// level-1 patch over the core lies in between (its interface differences reach a coarse centre
// 1.5 fine cells away).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "drivers/Integrals.hpp"
#include "tests/amr/AmrCase.hpp"

namespace boreas {
namespace {

constexpr double pi = 3.14159265358979323846, e = 2.71828182845904523536;
constexpr double swirl = 0.02, core = 4, centre_x = 30.3, centre_y = 33.7, rho0 = 1.01;

// The integrals (integral_columns) of the vortex on a 64^2 periodic D2Q9 forest refined to level
// 1 over `region` (level-0 cells lo..hi inclusive; empty: level 0 alone).
std::vector<double> vortex_integrals(const std::string& region) {
  std::string text =
      "[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [64, 64]\n[physics]\ntau = 0.8\n"
      "[boundary]\nx_min.type = \"periodic\"\nx_max.type = \"periodic\"\ny_min.type = \"periodic\"\n"
      "y_max.type = \"periodic\"\n[amr]\nleaf_size = 8\n";
  text += region.empty() ? "max_level = 0\n" : "max_level = 1\n[[amr.region]]\n" + region + "level = 1\n";
  testing::AmrCase run(text);
  EXPECT_EQ(run.solver->forest().levels(), region.empty() ? 1 : 2);
  run.solver->set_state([](const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
    const double dx = x[0] - centre_x, dy = x[1] - centre_y;
    const double g = swirl / core * std::exp(0.5 * (1 - (dx * dx + dy * dy) / (core * core)));
    rho = rho0;
    u = {-g * dy, g * dx, 0};
  });
  return amr_flow_integrals(run.config, run.solver->forest(), run.solver->sample());
}

TEST(AmrIntegrals, GaussianVortexAcrossLevelsAgainstItsExactIntegrals) {
  const double area = 64.0 * 64.0;
  const double energy = 0.5 * rho0 * pi * e * swirl * swirl * core * core / area;
  const double enstrophy = 0.5 * rho0 * 2 * pi * e * swirl * swirl / area;
  const std::vector<double> coarse = vortex_integrals("");
  // Over the core out to 1.3 c on one side, 3.3 c on the other: interfaces where the vorticity
  // is large.
  const std::vector<double> patch = vortex_integrals("lo = [24, 16]\nhi = [47, 39]\n");
  const std::vector<double> fine = vortex_integrals("lo = [0, 0]\nhi = [63, 63]\n");
  const char* names[] = {"level 0 alone", "level-1 patch", "level 1 everywhere"};
  const std::vector<double>* runs[] = {&coarse, &patch, &fine};
  double error[3];
  for (int k = 0; k < 3; ++k) {
    const std::vector<double>& v = *runs[k];
    error[k] = v[1] / enstrophy - 1;
    std::printf("%-18s  energy %.10e (exact %.10e, %+.1e)  enstrophy %.6e (exact %.6e, %+.2e)  max speed %.6f\n",
                names[k], v[0], energy, v[0] / energy - 1, v[1], enstrophy, error[k], v[3]);
    // Cells weigh their areas: on one level a midpoint sum of a Gaussian 4 cells wide, exact to
    // 1e-14; a patch's interfaces leave the composite rule's O(h^2) end terms where |u|^2 changes
    // fastest (1.1e-3; weighing cells by count instead: 2.6x).
    EXPECT_NEAR(v[0], energy, (k == 1 ? 2e-3 : 1e-10) * energy) << names[k];
    EXPECT_EQ(v[2], 2 * (0.8 - 0.5) / 3 * v[1]) << names[k];  // the deck's level-0 viscosity
    EXPECT_LE(v[3], swirl * (1 + 1e-12)) << names[k];
    EXPECT_GE(v[3], swirl * 0.98) << names[k];
  }
  // Central differences underestimate the curl by O(h^2): a quarter of the error at half the
  // spacing, in level-0 units (without the factor 2 per level the fine runs give a quarter of Z).
  EXPECT_LT(error[0], -0.01);
  EXPECT_NEAR(error[2] / error[0], 0.25, 0.02);
  EXPECT_LT(std::abs(error[1]), std::abs(error[0]));
  EXPECT_GT(std::abs(error[1]), std::abs(error[2]));
}

}  // namespace
}  // namespace boreas
