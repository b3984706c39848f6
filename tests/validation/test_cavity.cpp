// 2D lid-driven cavity against the centre-line velocities of Ghia, Ghia & Shin (1982),
// J. Comput. Phys. 48:387, Tables I and II (the tables live in drivers/Observables.cpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

constexpr int cells = 128;
constexpr double lid = 0.1;

Config cavity(double reynolds) {
  char text[1024];
  std::snprintf(text, sizeof text,
                "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [%d, %d]\n"
                "[collision]\nmodel = \"TRT\"\n"
                "[physics]\nreynolds = %g\nlength = %d\nvelocity = %g\n"
                "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [%g, 0]\n"
                "[validation]\nobservables = [\"ghia_centerline\"]\n",
                cells, cells, reynolds, cells, lid, lid);
  return deck(text);
}

void check(double reynolds, double tolerance) {
  const Config config = cavity(reynolds);
  auto sim = Simulation::create(config);
  // Steady: the velocity changes by less than 1e-7 of the lid speed per 1000 steps.
  const long steps = run_to_steady_state(*sim, 1000, 1e-7, 400000);
  const json::Value obs = compute_observables(config, *sim);
  const double du = observable(obs, "ghia_centerline", "max_u_deviation");
  const double dv = observable(obs, "ghia_centerline", "max_v_deviation");
  std::printf("Re %g, %d^2, lid %g, tau %.4f: steady after %ld steps; max |u - Ghia| %.4f, "
              "max |v - Ghia| %.4f (lid units)\n",
              reynolds, cells, lid, config.tau, steps, du, dv);
  EXPECT_LE(du, tolerance);
  EXPECT_LE(dv, tolerance);
}

TEST(LidDrivenCavity, GhiaRe100) { check(100, 0.01); }
TEST(LidDrivenCavity, GhiaRe1000) { check(1000, 0.01); }

}  // namespace
}  // namespace boreas::testing
