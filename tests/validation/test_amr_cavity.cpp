// 2D lid-driven cavity at Re 100 on three AMR levels against Ghia, Ghia & Shin (1982), the
// tables of drivers/Observables.cpp: level 0 64^2, walls and the centre lines refined once, the
// band under the lid twice, so that both centre lines cross level interfaces. The profiles are
// read from the leaves (drivers/AmrRun.hpp amr_line_profile) as the deck's report does. The
// issue asks for 0.01: measured u 0.0052, v 0.0086 (0.0058 and 0.0113 before the coupling carried
// point values and second-order terms; the uniform 64^2 grid: 0.0074).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "amr/AmrSolver.hpp"
#include "tests/amr/AmrCase.hpp"
#include "drivers/AmrRun.hpp"

namespace boreas {
namespace {

TEST(AmrCavity, GhiaRe100) {
  const std::string text =
      "[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [64, 64]\n[collision]\nmodel = \"TRT\"\n"
      "[physics]\nreynolds = 100.0\nlength = 64\nvelocity = 0.1\n[boundary.y_max]\ntype = \"moving_wall\"\n"
      "velocity = [0.1, 0.0]\n[amr]\nmax_level = 2\n"
      "[[amr.region]]\nnear = \"walls\"\ndistance = 4\nlevel = 1\n"
      "[[amr.region]]\nlo = [0, 56]\nhi = [63, 63]\nlevel = 2\n"
      "[[amr.region]]\nlo = [24, 0]\nhi = [39, 63]\nlevel = 1\n"
      "[[amr.region]]\nlo = [0, 24]\nhi = [63, 39]\nlevel = 1\n"
      "[validation]\nobservables = [\"ghia_centerline\"]\n";
  testing::AmrCase run(text);
  const Config& config = run.config;
  std::unique_ptr<AmrSolver>& solver = run.solver;
  ASSERT_EQ(solver->forest().levels(), 3);
  // 16000 level-0 steps, 25 lid-travel times: the centre-line profiles then change by about 1e-4
  // of the lid speed per 2000 steps (measured 1.04e-4). The mass drifts slowly (README "AMR"), so
  // no tighter steady state exists.
  solver->advance(14000);
  const auto before = amr_line_profile(solver->sample(), 1, {32, 0, 0}, 0);
  solver->advance(2000);
  const auto after = amr_line_profile(solver->sample(), 1, {32, 0, 0}, 0);
  double change = 0;
  for (std::size_t i = 0; i < after.size(); ++i) change = std::max(change, std::abs(after[i].second - before[i].second));
  EXPECT_LT(change, 2e-4 * 0.1);
  const Json obs = amr_observables(config, *solver)["ghia_centerline"];
  const double du = obs["max_u_deviation"].get<double>(), dv = obs["max_v_deviation"].get<double>();
  std::printf("after %ld steps (change %.2e): max |u - Ghia| %.4f, max |v - Ghia| %.4f (lid units)\n", solver->step(),
              change / 0.1, du, dv);
  EXPECT_LE(du, 0.01);
  EXPECT_LE(dv, 0.01);
}

}  // namespace
}  // namespace boreas
