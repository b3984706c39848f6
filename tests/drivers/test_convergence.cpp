// The convergence monitor (lbm/field/VelocityChange.hpp, drivers/Convergence.hpp): the relative
// change of the velocity field between two progress checks, |du|/|u| = (sum V |u - u_before|^2 /
// sum V |u|^2)^(1/2). On synthetic moments against the host's sums; in what run_deck and the AMR
// run report against the same quantity computed from the fields a second run of the same deck
// gives at those steps (uniform: macroscopic(); AMR: sample(), cells weighted by their volume),
// and in the summary line; a shorter last interval is not compared; and it falls towards
// round-off as a run reaches its steady state. (Its independence of the rank
// count: tests/mpi/test_output_independence.cpp and tests/drivers/run_amr_ranks.py.)
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Deck.hpp"
#include "drivers/Report.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/field/VelocityChange.hpp"
#include "tests/amr/AmrCase.hpp"
#include "tests/drivers/DeviceMoments.hpp"

namespace boreas {
namespace {

using testing::device_moments;

TEST(VelocityChange, SquaredNormsOfTheSampleAndOfItsChange) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  std::vector<std::vector<double>> first(2), second(2);
  const long cells[2] = {37, 5};
  const std::vector<double> volumes{1.0, 0.125};
  for (int p = 0; p < 2; ++p)
    for (long i = 0; i < 4 * cells[p]; ++i) {
      first[p].push_back(i % 4 == 0 ? 1.0 : u(gen));
      second[p].push_back(i % 4 == 0 ? 1.0 : first[p].back() + 1e-3 * u(gen));
    }
  for (int c = 0; c < 4; ++c) first[0][4 * 3 + c] = second[0][4 * 3 + c] = 0;  // a solid cell: zeros in both
  double change = 0, size0 = 0, size1 = 0;
  for (int p = 0; p < 2; ++p)
    for (long i = 0; i < 4 * cells[p]; ++i)
      if (i % 4 != 0) {
        change += volumes[p] * (second[p][i] - first[p][i]) * (second[p][i] - first[p][i]);
        size0 += volumes[p] * first[p][i] * first[p][i];
        size1 += volumes[p] * second[p][i] * second[p][i];
      }
  VelocityChange monitor;
  const auto a = monitor.add({device_moments(first[0]), device_moments(first[1])}, volumes);
  EXPECT_FALSE(a.compared);
  EXPECT_NEAR(a.size, size0, 1e-14 * size0);
  const auto b = monitor.add({device_moments(second[0]), device_moments(second[1])}, volumes);
  ASSERT_TRUE(b.compared);
  EXPECT_NEAR(b.change, change, 1e-12 * change);
  EXPECT_NEAR(b.size, size1, 1e-14 * size1);
  EXPECT_NEAR(relative_change(b.change, b.size), std::sqrt(change / size1), 1e-12 * std::sqrt(change / size1));
  // The same sample again: no change. Other parts, or after forget(): no comparison.
  EXPECT_EQ(monitor.add({device_moments(second[0]), device_moments(second[1])}, volumes).change, 0.0);
  EXPECT_FALSE(monitor.add({device_moments(second[0])}, {1.0}).compared);
  monitor.forget();
  EXPECT_FALSE(monitor.add({device_moments(second[0])}, {1.0}).compared);
  EXPECT_TRUE(std::isnan(relative_change(0.0, 0.0)));  // a field at rest
}

// The squared-norm ratio's root between two velocity fields given cell by cell (3 per cell).
double relative(const std::vector<double>& before, const std::vector<double>& now, const std::vector<double>& volume) {
  double change = 0, size = 0;
  for (std::size_t i = 0; i < now.size(); ++i) {
    change += volume[i / 3] * (now[i] - before[i]) * (now[i] - before[i]);
    size += volume[i / 3] * now[i] * now[i];
  }
  return std::sqrt(change / size);
}

// run_deck's report of `config` without progress lines, its output in the test's directory `name`.
Json quiet_report(Config config, const std::string& name) {
  config.output_dir = ::testing::TempDir() + name;
  RunOptions quiet;
  quiet.progress = false;
  return run_deck(config, quiet);
}

const std::string cavity =
    "[simulation]\nsteps = 300\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [24, 20]\n[physics]\ntau = 0.8\n"
    "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.05, 0]\n[output]\nvtk = false\nprogress_every = 100\n";

TEST(ConvergenceMonitor, RunDeckReportsTheChangeOfItsLastInterval) {
  Config config = parse_deck_string(cavity, "cavity.toml", "");
  const Json report = quiet_report(config, "boreas_convergence");
  ASSERT_TRUE(report.contains("convergence"));
  const Json& c = report["convergence"];
  EXPECT_EQ(c["step"].get<long>(), 300);
  EXPECT_EQ(c["since_step"].get<long>(), 200);
  auto sim = Simulation::create(config);
  sim->advance(200);
  const std::vector<double> before = sim->macroscopic().velocity;
  sim->advance(100);
  const std::vector<double> now = sim->macroscopic().velocity;
  const double expected = relative(before, now, std::vector<double>(now.size() / 3, 1.0));
  EXPECT_NEAR(c["velocity_change"].get<double>(), expected, 1e-12 * expected);
  EXPECT_GT(expected, 1e-3);  // the cavity still spins up
  char line[96];
  std::snprintf(line, sizeof line, "  velocity change |du|/|u| %.2e from step 200 to 300\n", expected);
  EXPECT_NE(summary_text(report).find(line), std::string::npos) << summary_text(report);
  // A shorter last interval (steps not a multiple of the checks') is not compared: the report
  // keeps the last whole one.
  config.steps = 350;
  const Json longer = quiet_report(config, "boreas_convergence");
  EXPECT_EQ(longer["convergence"]["step"].get<long>(), 300);
  EXPECT_EQ(longer["convergence"]["velocity_change"].get<double>(), c["velocity_change"].get<double>());
  // Steady: the change falls to round-off (7.7e-14 measured from step 19000 to 20000).
  config.steps = 20000;
  config.progress_every = 1000;
  const double steady = quiet_report(config, "boreas_convergence")["convergence"]["velocity_change"].get<double>();
  std::printf("cavity |du|/|u|: %.3e from step 200 to 300, %.3e from 19000 to 20000\n", expected, steady);
  EXPECT_LT(steady, 1e-12);
}

TEST(ConvergenceMonitor, AmrRunWeighsTheLevelsByTheirCellVolume) {
  const std::string deck = cavity + "[amr]\nmax_level = 1\n[[amr.region]]\nlo = [0, 12]\nhi = [23, 19]\nlevel = 1\n";
  const Json report = quiet_report(parse_deck_string(deck, "cavity_amr.toml", ""), "boreas_convergence_amr");
  ASSERT_TRUE(report.contains("convergence"));
  testing::AmrCase run(deck);
  AmrSolver& solver = *run.solver;
  ASSERT_EQ(solver.forest().levels(), 2);
  const auto leaf_velocities = [&](std::vector<double>& volume) {
    std::vector<double> u;
    volume.clear();
    for (const AmrBlockSample& b : solver.sample())
      if (b.leaf)
        for (std::size_t i = 0; i < b.density.size(); ++i) {
          for (int a = 0; a < 3; ++a) u.push_back(b.velocity[3 * i + a]);
          volume.push_back(std::ldexp(1.0, -2 * b.level));
        }
    return u;
  };
  std::vector<double> volume;
  solver.advance(200);
  const std::vector<double> before = leaf_velocities(volume);
  solver.advance(100);
  const std::vector<double> now = leaf_velocities(volume);
  ASSERT_EQ(report["fields_hash"].get<std::string>(), hash_hex(solver.fields_hash()));  // the same run
  const double expected = relative(before, now, volume);
  EXPECT_EQ(report["convergence"]["since_step"].get<long>(), 200);
  EXPECT_NEAR(report["convergence"]["velocity_change"].get<double>(), expected, 1e-12 * expected);
  // Unweighted, the fine level would count four times: a different figure.
  const double unweighted = relative(before, now, std::vector<double>(volume.size(), 1.0));
  EXPECT_GT(std::abs(unweighted / expected - 1), 1e-3);
}

}  // namespace
}  // namespace boreas
