// What a run measures in situ: time averages accumulated on the device
// (lbm/field/RunningStatistics.hpp) against two-pass means and covariances of the same samples on
// the host, on synthetic samples and on a run's own fields, and what run_deck reports; probes. (Their independence of ranks, variants and storage: the VTK
// arrays of tests/mpi/test_output_independence.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "core/Deck.hpp"
#include "drivers/Averages.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/field/RunningStatistics.hpp"
#include "tests/drivers/DeviceMoments.hpp"

namespace boreas {
namespace {

constexpr int axes[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};  // VTK's order: xx, yy, zz, xy, yz, xz

// Two-pass reference of a series of host samples (cells x 4, rho, ux, uy, uz per cell).
struct Reference {
  std::vector<double> mean, stress;  // 4 and 6 per cell
  explicit Reference(const std::vector<std::vector<double>>& samples) {
    const std::size_t cells = samples.front().size() / 4;
    mean.assign(4 * cells, 0.0);
    stress.assign(6 * cells, 0.0);
    for (const auto& s : samples)
      for (std::size_t v = 0; v < s.size(); ++v) mean[v] += s[v] / double(samples.size());
    for (const auto& s : samples)
      for (std::size_t i = 0; i < cells; ++i)
        for (int k = 0; k < 6; ++k) {
          const int a = axes[k][0], b = axes[k][1];
          stress[6 * i + k] +=
              (s[4 * i + 1 + a] - mean[4 * i + 1 + a]) * (s[4 * i + 1 + b] - mean[4 * i + 1 + b]) / double(samples.size());
        }
  }
};

void expect_matches(const RunningStatistics& stats, const Reference& ref, double scale) {
  const RunningStatistics::HostFields f = stats.host_fields();
  const std::size_t cells = f.mean_density.size();
  ASSERT_EQ(ref.mean.size(), 4 * cells);
  for (std::size_t i = 0; i < cells; ++i) {
    EXPECT_NEAR(f.mean_density[i], ref.mean[4 * i], 1e-14) << i;
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(f.mean_velocity[3 * i + a], ref.mean[4 * i + 1 + a], 1e-14 * scale) << i;  // running-mean rounding
      // The RMS is the root of the variance below, whose 1e-13 scale^2 becomes sqrt(1e-13) scale
      // where the variance is near 0.
      EXPECT_NEAR(f.rms_velocity[3 * i + a], std::sqrt(ref.stress[6 * i + a]), 1e-6 * scale) << i;
    }
    // One-pass products lose digits against the two-pass covariance: |<u>|^2 eps relative to scale^2.
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(f.reynolds_stress[6 * i + k], ref.stress[6 * i + k], 1e-13 * scale * scale) << i;
  }
}

void add_host_sample(RunningStatistics& stats, const std::vector<double>& s) { stats.add(testing::device_moments(s)); }

TEST(RunningStatistics, MatchTwoPassMeansAndCovariances) {
  std::mt19937 gen(3);
  std::normal_distribution<double> noise(0.0, 1.0);
  const long cells = 50;
  RunningStatistics stats(cells);
  std::vector<std::vector<double>> samples;
  for (int n = 0; n < 200; ++n) {
    std::vector<double> s(4 * cells);
    for (long i = 0; i < cells; ++i) {
      // correlated fluctuations around a mean flow that differs per cell
      const double a = noise(gen), b = noise(gen);
      s[4 * i] = 1 + 1e-3 * noise(gen);
      s[4 * i + 1] = 0.05 + 1e-3 * i + 0.01 * a;
      s[4 * i + 2] = -0.02 + 0.006 * a + 0.008 * b;
      s[4 * i + 3] = 0.003 * b;
    }
    add_host_sample(stats, s);
    samples.push_back(s);
  }
  EXPECT_EQ(stats.samples(), 200);
  expect_matches(stats, Reference(samples), 0.1);
  // A steady field has no fluctuations: RMS and stresses vanish to rounding.
  RunningStatistics steady(cells);
  for (int n = 0; n < 7; ++n) add_host_sample(steady, samples.front());
  const auto f = steady.host_fields();
  for (double v : f.rms_velocity) EXPECT_LE(v, 1e-8);
  // The state survives a round trip through the host (what a checkpoint would carry).
  RunningStatistics copy(cells);
  copy.load(stats.state(), stats.samples());
  EXPECT_EQ(copy.host_fields().reynolds_stress, stats.host_fields().reynolds_stress);
}

// A decaying vortex in a channel with an obstacle, sampled every 3 steps from step 4 on: the device
// averages of the run's own fields against the host's two-pass statistics of macroscopic().
TEST(RunningStatistics, RunFieldsAgainstHostSamples) {
  const Config config = parse_deck_string(
      "[simulation]\nsteps = 30\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [24, 16]\n"
      "[physics]\ntau = 0.6\n[initial]\ntype = \"taylor_green\"\namplitude = 0.05\n"
      "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
      "[[obstacle]]\nshape = \"cylinder\"\ncenter = [8, 8]\nradius = 2.5\n"
      "[statistics]\nstart = 4\nevery = 3\n",
      "test.toml", "");
  auto sim = Simulation::create(config);
  RunningStatistics stats(24 * 16);
  std::vector<std::vector<double>> samples;
  for (int n = 0; n < 9; ++n) {  // the states after steps 4, 7, ..., 28
    sim->advance(n == 0 ? 4 : 3);
    stats.add(sim->local_moments()[0]);
    const HostMacroscopic m = sim->macroscopic();
    std::vector<double> s(4 * m.density.size());
    for (std::size_t i = 0; i < m.density.size(); ++i) {
      s[4 * i] = m.density[i];
      for (int a = 0; a < 3; ++a) s[4 * i + 1 + a] = m.velocity[3 * i + a];
    }
    samples.push_back(s);
  }
  expect_matches(stats, Reference(samples), 0.05);

  // run_deck samples the same steps and says so.
  Config c = config;
  c.write_vtk = false;
  c.output_dir = ::testing::TempDir() + "boreas_statistics";
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  EXPECT_EQ(report["statistics"]["samples"].get<long>(), 9);
  EXPECT_EQ(report["statistics"]["first_sample"].get<long>(), 4);
  EXPECT_TRUE(report["statistics"]["arrays"].empty()) << "no VTK output holds them";
  c.write_vtk = true;
  const Json written = run_deck(c, quiet);
  EXPECT_EQ(written["statistics"]["arrays"],
            Json::array({"mean_density", "mean_velocity", "rms_velocity", "reynolds_stress"}));
  std::filesystem::remove_all(c.output_dir);
}

// The next sampled step never overflows: an `every` near 2^63 gave a negative step, and the
// driver asked for 2^63 steps in one chunk (deaf to stop signals).
TEST(Sampling, NextStepSaturatesInsteadOfOverflowing) {
  const long most = std::numeric_limits<long>::max();
  const Sampling s{10, most, 0, 0};
  EXPECT_EQ(s.next_after(0), 10);
  EXPECT_EQ(s.next_after(10), most);
  EXPECT_EQ(s.next_after(29), most);
  const Sampling t{4, 3, 0, 0};
  EXPECT_EQ(t.next_after(3), 4);
  EXPECT_EQ(t.next_after(4), 7);
  EXPECT_EQ(t.next_after(8), 10);
}

// [[probe]] points and lines: probes.csv holds, every output.probes_every steps, the bits that
// macroscopic() gives at those cells, whatever block holds them; a restart from step 15 rewrites
// the rows after it as the uninterrupted run's.
TEST(Probes, RunWritesTheCellsValuesAndRestartsIdentically) {
  const std::string dir = ::testing::TempDir() + "boreas_probes";
  std::filesystem::remove_all(dir);
  const Config config = parse_deck_string(
      "[simulation]\nsteps = 30\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [24, 16]\n"
      "[physics]\ntau = 0.6\nforce = [1e-5, 0]\n[initial]\ntype = \"taylor_green\"\namplitude = 0.05\n"
      "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
      "[[obstacle]]\nshape = \"cylinder\"\ncenter = [8, 8]\nradius = 2.5\n"
      "[[probe]]\nname = \"wake\"\npoint = [14.2, 7.6]\n"
      "[[probe]]\nfrom = [20, 0]\nto = [20, 15]\npoints = 4\n"
      "[[probe]]\nname = \"solid\"\npoint = [8, 8]\n"  // inside the cylinder
      "[output]\nvtk = false\nprobes_every = 5\ndirectory = \"" + dir + "\"\n"
      "[parallel]\nblocks_per_rank = 3\n[checkpoint]\nevery = 15\n",
      "test.toml", "");
  ASSERT_EQ(config.probes.size(), 6u);
  EXPECT_EQ(config.probes[0].cell, (std::array<int, 3>{14, 8, 0}));  // the nearest cell
  EXPECT_EQ(config.probes[4].name, "probe1_3");
  EXPECT_EQ(config.probes[4].cell, (std::array<int, 3>{20, 15, 0}));
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(config, quiet);
  EXPECT_EQ(report["probes"]["samples"].get<long>(), 6);

  auto read = [&] {
    std::ifstream in(dir + "/probes.csv");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string uninterrupted = read();
  std::istringstream csv(uninterrupted);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.substr(0, 30), "step,wake_rho,wake_ux,wake_uy,");
  auto sim = Simulation::create(config);
  for (int row = 0; row < 6; ++row) {
    sim->advance(5);
    ASSERT_TRUE(std::getline(csv, line));
    std::vector<double> values;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) values.push_back(std::stod(cell));
    ASSERT_EQ(values.size(), 1 + 4 * config.probes.size());
    EXPECT_EQ(values[0], double(sim->step()));
    const HostMacroscopic m = sim->macroscopic();
    for (std::size_t p = 0; p < config.probes.size(); ++p) {
      const auto& c = config.probes[p].cell;
      const long i = long(c[1]) * 24 + c[0];
      if (config.probes[p].name == "solid") {  // a solid cell has no flow to read: NaN, not zeros
        ASSERT_NE(m.flags[i], flag::fluid);
        for (int q = 0; q < 4; ++q) EXPECT_TRUE(std::isnan(values[1 + 4 * p + q])) << "row " << row;
        continue;
      }
      EXPECT_EQ(values[1 + 4 * p], m.density[i]) << "row " << row << " probe " << p;
      for (int a = 0; a < 3; ++a) EXPECT_EQ(values[2 + 4 * p + a], m.velocity[3 * i + a]) << "row " << row << " probe " << p;
    }
  }
  RunOptions restart = quiet;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/checkpoints"))
    if (e.path().string().find("00000015") != std::string::npos) restart.restart = e.path().string();
  ASSERT_FALSE(restart.restart.empty());
  // The rows after step 15 replaced by one of other values first: the restart must write them
  // again (a run from step 0 would too, hence restarted_from).
  {
    std::istringstream rows(uninterrupted);
    std::string kept, row;
    for (int i = 0; i < 4 && std::getline(rows, row); ++i) kept += row + "\n";  // header, steps 5-15
    std::ofstream(dir + "/probes.csv") << kept << "20" << std::string(4 * config.probes.size(), ',') << "\n";
  }
  const Json restarted = run_deck(config, restart);
  EXPECT_EQ(restarted["restarted_from"]["step"].get<long>(), 15);
  EXPECT_EQ(read(), uninterrupted);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace boreas
