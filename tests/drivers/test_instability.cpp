// A run that blows up stops with status "unstable", keeps the last good state on disk, and
// records where it failed; a stable run of the same deck completes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "amr/AmrSolver.hpp"
#include "drivers/Checkpointing.hpp"
#include "lbm/field/Geometry.hpp"
#include "tests/io/VtkReadBack.hpp"
#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

// Lid-driven cavity at Re 1e5 on 32^2: tau = 0.5 + 3 * 0.2 * 32 / 1e5 = 0.50019, far below what
// such a grid resolves; BGK diverges within a few hundred steps. `tables`: more of the deck,
// `output`: more [output] keys.
Config blow_up_deck(const std::string& dir, const std::string& tables = "", const std::string& output = "") {
  Config c = deck(
      "[simulation]\nsteps = 20000\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [32, 32]\n"
      "[physics]\nreynolds = 1e5\nlength = 32\nvelocity = 0.2\nmach_limit = 0.5\n"
      "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.2, 0]\n" +
      tables + "[output]\nevery = 0\nprogress_every = 50\n" + output);
  c.output_dir = dir;
  return c;
}

TEST(Instability, StopsAndKeepsLastGoodState) {
  const std::string dir = ::testing::TempDir() + "/boreas_unstable";
  std::filesystem::remove_all(dir);
  const Config c = blow_up_deck(dir);
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  EXPECT_EQ(report["status"].get<std::string>(), "unstable");
  const long step = report["steps"].get<std::int64_t>();
  EXPECT_LT(step, c.steps);            // stopped early,
  EXPECT_EQ(step % c.progress_every, 0);  // at the last check that passed,
  EXPECT_TRUE(report.contains("instability"));
  EXPECT_GT(report["instability"]["step"].get<std::int64_t>(), step);
  // and the state written is that good one: finite everywhere.
  EXPECT_TRUE(std::filesystem::exists(dir + "/report.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/test.pvd"));
  auto sim = Simulation::create(c);
  sim->advance(step);
  EXPECT_TRUE(sim->check().ok);
  EXPECT_EQ(report["fields_hash"].get<std::string>(), hash_hex(sim->fields_hash()));
}

// Speed counts the steps computed, up to the failing one: with no check before it the run falls
// back to step 0, and its MLUPS were 0 (the steps to the state it ends on).
TEST(Instability, SpeedCountsTheStepsComputed) {
  const std::string dir = ::testing::TempDir() + "/boreas_unstable_speed";
  std::filesystem::remove_all(dir);
  Config c = blow_up_deck(dir);
  c.progress_every = c.steps;  // one check, at the end
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  ASSERT_EQ(report["status"].get<std::string>(), "unstable");
  EXPECT_EQ(report["steps"].get<std::int64_t>(), 0);
  const double computed = double(report["instability"]["step"].get<std::int64_t>());
  EXPECT_EQ(computed, double(c.steps));
  const double update_s = report["parallel"]["timers"]["slowest_update"].get<double>();
  ASSERT_GT(update_s, 0);
  EXPECT_DOUBLE_EQ(report["mlups"].get<double>(), 32.0 * 32.0 * computed / update_s * 1e-6);
}

// What the run records (time averages, probes) takes only states that pass the check, so the
// final output and probes.csv hold nothing past the instability (before, samples between the
// last check and the failing one went in: averages of 1e185, NaN rows).
TEST(Instability, RecordsNothingPastTheInstability) {
  const std::string dir = ::testing::TempDir() + "/boreas_unstable_records";
  std::filesystem::remove_all(dir);
  const Config c = blow_up_deck(dir, "[statistics]\nstart = 0\nevery = 1\n[[probe]]\nname = \"lid\"\npoint = [16, 30]\n",
                                "probes_every = 1\n");
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  ASSERT_EQ(report["status"].get<std::string>(), "unstable");
  const long good = report["steps"].get<std::int64_t>(), failed = report["instability"]["step"].get<std::int64_t>();
  // The averages are of the state the run ends on: a sample per step up to it, none after.
  EXPECT_EQ(report["statistics"]["samples"].get<std::int64_t>(), good);
  std::ifstream csv(dir + "/probes.csv");
  std::string line;
  std::getline(csv, line);  // header
  long rows = 0, last = -1;
  while (std::getline(csv, line)) {
    std::istringstream fields(line);
    std::string value;
    std::getline(fields, value, ',');
    last = std::stol(value);
    std::getline(fields, value, ',');
    const double rho = std::stod(value);
    EXPECT_TRUE(rho >= 0.1 && rho <= 10) << "step " << last << ": density " << rho;
    ++rows;
  }
  EXPECT_EQ(last + 1, failed) << "rows up to the step before the failing one";
  EXPECT_EQ(rows, last);
  const std::string vti = dir + "/test_" + std::string(6 - std::to_string(good).size(), '0') + std::to_string(good) + ".vti";
  const auto arrays = boreas::test::read_cell_arrays(vti);
  bool averaged = false;
  for (const auto& [name, values] : arrays)
    if (name == "mean_density") {
      averaged = true;
      for (double v : values) ASSERT_TRUE(v >= 0.1 && v <= 10) << vti << ": mean density " << v;
    }
  EXPECT_TRUE(averaged) << vti;
  // The same averages as a run stopped there (before, they held the samples up to the failing
  // step), in the final output and in the last good state's checkpoint.
  const std::string until = ::testing::TempDir() + "/boreas_unstable_records_until";
  std::filesystem::remove_all(until);
  Config stopped = c;
  stopped.output_dir = until;
  stopped.steps = good;
  ASSERT_EQ(run_deck(stopped, quiet)["status"].get<std::string>(), "completed");
  EXPECT_EQ(boreas::test::read_cell_arrays(vti), boreas::test::read_cell_arrays(until + vti.substr(dir.size())));
  const std::string good_checkpoint = report["instability"]["checkpoint"].get<std::string>();
  EXPECT_TRUE(std::filesystem::exists(statistics_path(good_checkpoint))) << good_checkpoint;
}

// The same on AMR levels (the lid's band refined): the run looks at every chunk of steps whether
// the leaves' densities are within the window (AmrSolver::health), stops at the first that is
// not, reporting its step and cell, and ends on the last good state: reported, hashed and
// written as the final output.
TEST(Instability, AmrRunStopsEarly) {
  const std::string dir = ::testing::TempDir() + "/boreas_unstable_amr";
  std::filesystem::remove_all(dir);
  const Config c =
      blow_up_deck(dir, "[amr]\nleaf_size = 4\nmax_level = 1\n[[amr.region]]\nlo = [0, 24]\nhi = [31, 31]\nlevel = 1\n");
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  EXPECT_EQ(report["status"].get<std::string>(), "unstable");
  ASSERT_TRUE(report.contains("instability"));
  const long step = report["instability"]["step"].get<std::int64_t>();
  const long good = report["instability"]["last_good_step"].get<std::int64_t>();
  EXPECT_LT(step, c.steps);  // stopped early,
  EXPECT_LT(good, step);     // after a good state,
  EXPECT_EQ(good % c.progress_every, 0);  // kept at a check
  EXPECT_EQ(report["steps"].get<std::int64_t>(), good);
  EXPECT_TRUE(std::isfinite(report["mass"]["final"].get<double>()));
  // Where it failed: a cell of a level the forest has, its density outside the window (null: NaN).
  const Json& where = report["instability"];
  ASSERT_TRUE(where.contains("level") && where.contains("cell") && where.contains("density")) << where.dump();
  EXPECT_GE(where["level"].get<int>(), 0);
  EXPECT_LE(where["level"].get<int>(), 1);
  EXPECT_TRUE(where["density"].is_null() || !(where["density"].get<double>() > 0.1 && where["density"].get<double>() < 10))
      << where.dump();
  const DomainGeometry domain(c);
  auto solver = AmrSolver::create(c, domain, build_forest(c, domain));
  solver->advance(good);
  EXPECT_TRUE(solver->health(c.density).ok);
  EXPECT_EQ(report["fields_hash"].get<std::string>(), hash_hex(solver->fields_hash()));
  char written[32];
  std::snprintf(written, sizeof written, "_%06ld.vthb", good);
  bool final_output = false;
  for (const Json& file : report["output_files"]) {
    const std::string name = file.get<std::string>();
    final_output = final_output || name.size() > 12 && name.compare(name.size() - 12, 12, written) == 0;
  }
  EXPECT_TRUE(final_output) << "no output of step " << good << " in " << report["output_files"].dump();
}

// The check names the first cell outside (0.1, 10) rho0 on the coarsest level that has one, x
// fastest in that level's cells; a finite density outside the window fails as NaN does (until
// 2026-12-07 AMR runs looked at finiteness only and went on through such states).
TEST(Instability, AmrHealthNamesTheFirstBadCellOnTheCoarsestLevel) {
  const Config c = deck(
      "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [32, 32]\n[physics]\ntau = 0.6\n"
      "[amr]\nleaf_size = 4\nmax_level = 1\n[[amr.region]]\nlo = [0, 24]\nhi = [31, 31]\nlevel = 1\n");
  const DomainGeometry domain(c);
  auto solver = AmrSolver::create(c, domain, build_forest(c, domain));
  ASSERT_EQ(solver->forest().levels(), 2);
  EXPECT_TRUE(solver->health(c.density).ok);
  // Densities at points in level-0 cell-centre coordinates: level-1 cells (30, 50) and (21, 57)
  // (centres at (c + 1/2) / 2 - 1/2), then also level-0 cells (3, 3) and (9, 2).
  auto spikes = [&](std::vector<std::array<double, 3>> points) {
    solver->set_state([points](const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
      rho = 1;
      u = {0, 0, 0};
      for (const auto& p : points)
        if (std::abs(x[0] - p[0]) < 1e-9 && std::abs(x[1] - p[1]) < 1e-9) rho = p[2];
    });
    return solver->health(c.density);
  };
  const AmrHealth fine = spikes({{10.25, 28.25, 20.0}, {14.75, 24.75, 12.0}});
  EXPECT_FALSE(fine.ok);
  EXPECT_EQ(fine.level, 1);
  EXPECT_EQ(fine.cell, (std::array<long long, 3>{30, 50, 0}));  // row 50 before row 57
  EXPECT_NEAR(fine.density, 12.0, 1e-12);
  const AmrHealth coarse = spikes({{10.25, 28.25, 20.0}, {9, 2, 0.05}, {3, 3, 0.09}});
  EXPECT_FALSE(coarse.ok);
  EXPECT_EQ(coarse.level, 0);
  EXPECT_EQ(coarse.cell, (std::array<long long, 3>{9, 2, 0}));
  EXPECT_NEAR(coarse.density, 0.05, 1e-14);
  // Inside the window: healthy, however far from rho0.
  EXPECT_TRUE(spikes({{10.25, 28.25, 9.9}, {3, 3, 0.11}}).ok);
}

}  // namespace
}  // namespace boreas::testing
