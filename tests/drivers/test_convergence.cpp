// The convergence monitor (lbm/field/VelocityChange.hpp, drivers/Convergence.hpp): the relative
// change of the velocity field between two progress checks, |du|/|u| = (sum V |u - u_before|^2 /
// sum V |u|^2)^(1/2). On synthetic moments against the host's sums; in what run_deck and the AMR
// run report against the same quantity computed from the fields a second run of the same deck
// gives at those steps (uniform: macroscopic(); AMR: sample(), cells weighted by their volume),
// and in the summary line, also across a regrid that changed the cells; a shorter last interval
// is not compared; and it falls towards round-off as a run reaches its steady state. (Its independence of the rank
// count: tests/mpi/test_output_independence.cpp and tests/drivers/run_amr_ranks.py.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "core/Scheme.hpp"
#include "drivers/Convergence.hpp"
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
  // The same sample again: no change. Other parts: no comparison.
  EXPECT_EQ(monitor.add({device_moments(second[0]), device_moments(second[1])}, volumes).change, 0.0);
  EXPECT_FALSE(monitor.add({device_moments(second[0])}, {1.0}).compared);
  EXPECT_TRUE(std::isnan(relative_change(0.0, 0.0)));  // a field at rest
}

TEST(VelocityChange, AReplacedSampleIsComparedWithTheNewCellsSolidOnesAtRest) {
  std::vector<double> sample, velocity, replacement;
  for (long i = 0; i < 6; ++i) {
    const bool solid = i == 2 || i == 4;
    sample.push_back(solid ? 0.0 : 1.0);
    for (int a = 0; a < 3; ++a) {
      sample.push_back(solid ? 0.0 : 0.01 * (i + 1) * (a - 1));
      velocity.push_back(sample.back());
      replacement.push_back(0.02 * (a + 1) - 0.003 * i);  // solid cells too: the old cells did not know
    }
  }
  VelocityChange monitor;
  monitor.add({device_moments(sample)}, {0.25});
  ASSERT_EQ(monitor.previous().size(), 1u);
  EXPECT_EQ(monitor.previous()[0], velocity);
  monitor.replace_previous({replacement});
  EXPECT_EQ(monitor.previous()[0], replacement);
  double change = 0;
  for (long i = 0; i < 6; ++i)
    for (int a = 0; a < 3; ++a) {
      const double before = sample[4 * i] == 0 ? 0.0 : replacement[3 * i + a];
      change += 0.25 * (velocity[3 * i + a] - before) * (velocity[3 * i + a] - before);
    }
  const auto compared = monitor.add({device_moments(sample)}, {0.25});
  ASSERT_TRUE(compared.compared);
  EXPECT_NEAR(compared.change, change, 1e-14 * change);
  // The sample kept is the new one, compared as usual from then on.
  EXPECT_EQ(monitor.previous()[0], velocity);
  EXPECT_EQ(monitor.add({device_moments(sample)}, {0.25}).change, 0.0);
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

// The automatic interval (progress_every = 0) is a whole number of every merged kernel's sweeps:
// every variant checks at the same steps and reports the same change (kernel = "auto" chooses by
// timing; merged3 checked at 918 after 816 where the others checked at 1000 after 900).
TEST(ConvergenceMonitor, AutomaticIntervalIsTheSameForEveryKernel) {
  Config config = parse_deck_string(cavity, "cavity.toml", "", {"simulation.steps=1000", "output.progress_every=0"});
  const Json reference = quiet_report(config, "boreas_convergence_kernels")["convergence"];
  EXPECT_EQ(reference["step"].get<long>(), 1000 / 102 * 102);  // 10 % rounded up to a multiple of 6
  for (const char* kernel : {"merged2", "merged3", "merged_aa2", "merged_aa3"}) {
    config.kernel = *parse_scheme(kernel);
    const Json c = quiet_report(config, "boreas_convergence_kernels")["convergence"];
    EXPECT_EQ(c["step"].get<long>(), reference["step"].get<long>()) << kernel;
    EXPECT_EQ(c["since_step"].get<long>(), reference["since_step"].get<long>()) << kernel;
    EXPECT_NEAR(c["velocity_change"].get<double>(), reference["velocity_change"].get<double>(),
                1e-12 * reference["velocity_change"].get<double>())
        << kernel;
  }
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

// A 2D field on the finest cells of a forest whose level-0 grid is nx x ny cells, painted from the
// leaves of a sample: a coarse cell's velocity on each of its finest cells, and which are fluid.
class FinestCells {
 public:
  FinestCells(int nx, int ny, int top) : nx_(nx << top), top_(top), u_(3L * nx_ * (ny << top)), fluid_(u_.size() / 3) {}
  void paint(const std::vector<AmrBlockSample>& samples, int n) {
    for (const AmrBlockSample& b : samples)
      for (int i = 0; b.leaf && i < n * n; ++i)
        if (b.flags[i] == flag::fluid)
          each(b.level, b.box.lo[0] + i % n, b.box.lo[1] + i / n, [&](long f) {
            fluid_[f] = 1;
            for (int a = 0; a < 3; ++a) u_[3 * f + a] = b.velocity[3 * i + a];
          });
  }
  // The mean velocity of the painted fluid cells under level-l cell (x, y); returns their count
  // over the finest cells it has (0: none; 1: all fluid).
  double mean(int level, int x, int y, double u[3]) const {
    double sum[3] = {0, 0, 0}, fluid = 0, all = 0;
    each(level, x, y, [&](long f) {
      fluid += fluid_[f];
      all += 1;
      for (int a = 0; a < 3; ++a) sum[a] += u_[3 * f + a];
    });
    for (int a = 0; a < 3; ++a) u[a] = fluid > 0 ? sum[a] / fluid : 0.0;
    return fluid / all;
  }

 private:
  template <class F>
  void each(int level, int x, int y, const F& f) const {
    const int s = 1 << (top_ - level);
    for (int dy = 0; dy < s; ++dy)
      for (int dx = 0; dx < s; ++dx) f(long(x * s + dx) + long(nx_) * (y * s + dy));
  }
  int nx_, top_;
  std::vector<double> u_, fluid_;
};

// Regridded cells take the mean velocity of the old fluid cells they cover or lie in: a cylinder
// in a cavity, its surroundings moved from level 2 to level 1 and a box elsewhere refined to level
// 2, against the area-weighted means computed on the finest cells.
TEST(ConvergenceMonitor, ARegridCarriesTheSampleAsMeansOfTheFluidCells) {
  const std::string deck =
      "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [32, 32]\n[physics]\ntau = 0.6\n"
      "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.1, 0.0]\n[[obstacle]]\nshape = \"cylinder\"\n"
      "center = [13.3, 14.6]\nradius = 5.2\n[amr]\nmax_level = 2\n[[amr.region]]\nlo = [4, 4]\nhi = [23, 23]\n"
      "level = 2\n";
  testing::AmrCase run(deck);
  std::string other = deck;
  other.replace(other.find("hi = [23, 23]\nlevel = 2"), 23, "hi = [23, 23]\nlevel = 1\n[[amr.region]]\nlo = [24, 26]\nhi = [31, 31]\nlevel = 2");
  const Config config = parse_deck_string(other, "other.toml", "");
  const Forest to = build_forest(config, DomainGeometry(config));
  ASSERT_FALSE(to == run.solver->forest());
  run.solver->advance(40);
  const std::vector<AmrBlockSample> samples = run.solver->sample();
  std::vector<std::vector<double>> velocity(run.solver->forest().levels());  // one rank: every leaf
  for (const AmrBlockSample& b : samples)
    if (b.leaf) velocity[b.level].insert(velocity[b.level].end(), b.velocity.begin(), b.velocity.end());
  const std::vector<double> carried = velocity_on_forest(
      run.solver->forest(), fluid_weighted_velocity(*run.solver, samples, velocity, Comm(MPI_COMM_SELF)), to);
  FinestCells finest(32, 32, 2);
  finest.paint(samples, run.solver->forest().leaf_size());
  const int n = to.leaf_size();
  std::size_t at = 0;
  int partly_fluid = 0;
  for (int l = 0; l < to.levels(); ++l)
    for (const ForestBlock& b : to.level(l))
      for (int i = 0; b.leaf() && i < n * n; ++i) {
        double u[3];
        const double fluid = finest.mean(l, to.box(b).lo[0] + i % n, to.box(b).lo[1] + i / n, u);
        partly_fluid += fluid > 0 && fluid < 1;
        ASSERT_LT(at + 2, carried.size());
        for (int a = 0; a < 3; ++a, ++at) EXPECT_NEAR(carried[at], u[a], 1e-15 + 1e-13 * std::abs(u[a])) << "cell " << at / 3;
      }
  EXPECT_EQ(at, carried.size());
  EXPECT_GT(partly_fluid, 10);  // coarsened cells over the cylinder's edge: the weights matter
}

// A wake followed by regrids (vorticity, every 100 steps, as cylinder2d_amr.toml) on 3 levels.
const std::string wake =
    "[simulation]\nsteps = 300\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [64, 24]\n[collision]\n"
    "model = \"TRT\"\nmagic = 0.05\n[physics]\nreynolds = 100.0\nlength = 6.0\nvelocity = 0.05\n"
    "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.05, 0.0]\n[boundary.x_max]\n"
    "type = \"pressure_outlet\"\ndensity = 1.0\n[[obstacle]]\nshape = \"cylinder\"\ncenter = [16.0, 11.5]\n"
    "radius = 3.0\n[amr]\nleaf_size = 4\nmax_level = 2\nregrid_every = 100\ncriterion = \"vorticity\"\n"
    "refine_above = 0.02\ncoarsen_below = 0.01\n[[amr.region]]\nlo = [10, 6]\nhi = [21, 17]\nlevel = 2\n"
    "[output]\nvtk = false\nprogress_every = 100\n";

// A regrid at a check step changes the cells the last sample was taken on: the run carries it to
// the new cells (ARegridCarries...; new solid cells at rest) and compares there, as computed here
// from the two samples.
TEST(ConvergenceMonitor, AmrRunComparesAcrossARegridOnTheNewCells) {
  const Json report = quiet_report(parse_deck_string(wake, "wake.toml", ""), "boreas_convergence_regrid");
  ASSERT_TRUE(report.contains("convergence"));
  EXPECT_EQ(report["convergence"]["since_step"].get<long>(), 200);
  testing::AmrCase run(wake);
  const auto regrid = [&] {  // as the run regrids
    Forest forest = regrid_forest(run.config, run.domain, run.solver->forest(), run.solver->sample());
    const bool changed = !(forest == run.solver->forest());
    if (changed) run.solver = run.solver->regridded(run.config, run.domain, std::move(forest));
    return changed;
  };
  run.solver->advance(100);
  regrid();
  run.solver->advance(100);
  regrid();
  const std::vector<AmrBlockSample> before = run.solver->sample();
  run.solver->advance(100);
  ASSERT_TRUE(regrid()) << "the regrid at step 300 keeps the forest: the test compares nothing carried";
  const std::vector<AmrBlockSample> now = run.solver->sample();
  ASSERT_EQ(report["fields_hash"].get<std::string>(), hash_hex(run.solver->fields_hash()));  // the same run
  int top = 0;
  for (const auto* samples : {&before, &now})
    for (const AmrBlockSample& b : *samples) top = std::max(top, b.level);
  const int n = run.solver->forest().leaf_size();
  FinestCells finest(64, 24, top);
  finest.paint(before, n);
  double change = 0, size = 0;
  for (const AmrBlockSample& b : now)
    for (int i = 0; b.leaf && i < n * n; ++i) {
      double carried[3];
      finest.mean(b.level, b.box.lo[0] + i % n, b.box.lo[1] + i / n, carried);
      const double volume = std::ldexp(1.0, -2 * b.level);
      for (int a = 0; a < 3; ++a) {
        const double du = b.velocity[3 * i + a] - (b.flags[i] == flag::fluid ? carried[a] : 0.0);
        change += volume * du * du;
        size += volume * b.velocity[3 * i + a] * b.velocity[3 * i + a];
      }
    }
  const double expected = std::sqrt(change / size);
  EXPECT_NEAR(report["convergence"]["velocity_change"].get<double>(), expected, 1e-12 * expected);
}

}  // namespace
}  // namespace boreas
