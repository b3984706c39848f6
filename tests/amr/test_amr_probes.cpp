// Probes on AMR levels (AmrSolver::probe_values): a probe names a level-0 cell and reads the leaf
// cells covering it, summed on the device by their owners. In a steady Couette flow across a level interface along the
// flow (D2Q9, H = 8 level-0 cells, the lower half on level 1; exact to 1e-8 there, test
// AmrChannel.CouetteIsExactAcrossInterfaces) the linear profile makes the mean of a level-0 cell's
// fine cells its centre's value, so every probe of a column reads u_x = U (y + 1/2) / H on both
// levels; a probe whose cell is a level-0 leaf reads that leaf cell's own values bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "tests/amr/AmrCase.hpp"

namespace boreas {
namespace {

TEST(AmrProbes, ReadTheLevelZeroCellsAcrossLevels) {
  const double U = 0.02;
  testing::AmrCase run(
      "[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [8, 8]\n[physics]\ntau = 0.8\n"
      "[boundary]\nx_min.type = \"periodic\"\nx_max.type = \"periodic\"\ny_max.type = \"moving_wall\"\n"
      "y_max.velocity = [0.02, 0]\n[amr]\nmax_level = 1\n[[amr.region]]\nlo = [0, 0]\nhi = [7, 3]\nlevel = 1\n");
  AmrSolver& solver = *run.solver;
  ASSERT_EQ(solver.forest().levels(), 2);
  std::vector<Probe> column;
  for (int y = 0; y < 8; ++y) column.push_back({"y" + std::to_string(y), {3, y, 0}});
  ASSERT_TRUE(testing::advance_until_steady(solver, 200, 40000, 1e-13, [&] { return solver.probe_values(column); }).reached);
  const std::vector<double> values = solver.probe_values(column);
  double worst = 0;
  for (int y = 0; y < 8; ++y) {
    worst = std::max(worst, std::abs(values[4 * y + 1] - U * (y + 0.5) / 8));
    EXPECT_NEAR(values[4 * y], 1.0, 1e-12) << y;
    EXPECT_EQ(values[4 * y + 3], 0.0) << y;  // 2D: no u_z
  }
  std::printf("probe column against the Couette profile: worst %.3e of U\n", worst / U);
  EXPECT_LE(worst, 1e-10 * U);  // 1.3e-13 measured
  // A probe on a level-0 leaf reads its cell (exactly one leaf holds it).
  int holders = 0;
  for (const AmrBlockSample& b : solver.sample()) {
    if (!b.leaf || b.level != 0 || !b.box.contains(3, 6, 0)) continue;
    ++holders;
    const std::size_t i = std::size_t(6 - b.box.lo[1]) * std::size_t(b.box.extent(0)) + std::size_t(3 - b.box.lo[0]);
    EXPECT_EQ(values[4 * 6], b.density[i]);
    EXPECT_NEAR(values[4 * 6 + 1], b.velocity[3 * i], 1e-17);  // (rho u) / rho
  }
  EXPECT_EQ(holders, 1);
}

}  // namespace
}  // namespace boreas
