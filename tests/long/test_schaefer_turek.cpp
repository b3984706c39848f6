// Schaefer & Turek (1996), flow past a cylinder in a channel, run from the shipped decks
// (inputs/cylinder2d_st_re20.toml, cylinder2d_st_re100.toml) with the tolerances.
// Label "long" (minutes): `ctest --preset long`, not part of the default suite.
//   2D-1, Re 20 (D = 20 cells): c_D within 2 % of 5.5795, Delta p within 3 % of 0.11752 Pa.
//   2D-2, Re 100 (D = 40 cells): St within 3 % of 0.300, c_D,max within 3 % of 3.23.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "TestPaths.hpp"
#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;

// The report of a shipped deck run without VTK output into a fresh directory.
Json run_shipped(const std::string& name, const fs::path& out) {
  const fs::path deck = fs::path(BOREAS_TEST_DECKS).parent_path().parent_path() / "inputs" / name;
  Config config = parse_deck(deck.string(), {"output.vtk=false", "output.every=0"});
  fs::remove_all(out);
  config.output_dir = out.string();
  RunOptions options;
  options.progress = false;
  return run_deck(config, options);
}

// The last row of a CSV file, by column name.
std::vector<std::pair<std::string, double>> last_row(const fs::path& csv) {
  std::ifstream in(csv);
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::vector<std::pair<std::string, double>> row;
  std::istringstream names(header), values(last);
  std::string name, value;
  while (std::getline(names, name, ',') && std::getline(values, value, ',')) row.emplace_back(name, std::stod(value));
  return row;
}

double column(const std::vector<std::pair<std::string, double>>& row, const std::string& name) {
  for (const auto& [n, v] : row)
    if (n == name) return v;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(SchaeferTurek, Re20DragAndPressureDrop) {
  const fs::path out = fs::temp_directory_path() / "boreas_st_re20";
  const Json report = run_shipped("cylinder2d_st_re20.toml", out);
  ASSERT_EQ(report["status"], "completed");
  // The steady drag: the last sample (the series still drifts by 1e-3 relative per 10^4 steps).
  const std::vector<std::pair<std::string, double>> forces = last_row(out / "forces.csv");
  const std::vector<std::pair<std::string, double>> probes = last_row(out / "probes.csv");
  const double c_d = column(forces, "obstacle0_cd");
  const double dp = (column(probes, "front_rho") - column(probes, "back_rho")) / 3 *
                    report["units"]["pressure_scale_pa"].get<double>();
  std::printf("2D-1: c_D %.4f (5.5795: %+.2f %%), Delta p %.5f Pa (0.11752: %+.2f %%)\n", c_d,
              100 * (c_d / 5.5795 - 1), dp, 100 * (dp / 0.11752 - 1));
  EXPECT_NEAR(c_d, 5.5795, 0.02 * 5.5795);
  EXPECT_NEAR(dp, 0.11752, 0.03 * 0.11752);
  // Steady: no Strouhal number (its lift's dying pressure waves gave 2.48 before 2026-12-07).
  EXPECT_TRUE(report["forces"]["bodies"][0]["strouhal"].is_null()) << report["forces"]["bodies"][0]["strouhal"];
  fs::remove_all(out);
}

TEST(SchaeferTurek, Re100StrouhalAndMaximumDrag) {
  const fs::path out = fs::temp_directory_path() / "boreas_st_re100";
  const Json report = run_shipped("cylinder2d_st_re100.toml", out);
  ASSERT_EQ(report["status"], "completed");
  const Json& body = report["forces"]["bodies"][0];
  const double st = body["strouhal"].get<double>(), c_d_max = body["drag_coefficient"]["max"].get<double>();
  std::printf("2D-2: St %.4f (0.300: %+.2f %%), c_D,max %.4f (3.23: %+.2f %%)\n", st, 100 * (st / 0.3 - 1), c_d_max,
              100 * (c_d_max / 3.23 - 1));
  EXPECT_NEAR(st, 0.300, 0.03 * 0.300);
  EXPECT_NEAR(c_d_max, 3.23, 0.03 * 3.23);
  fs::remove_all(out);
}

}  // namespace
}  // namespace boreas
