// report.json's [units] block (drivers/Report.hpp units_json): SI scales from dx and dt, the
// physical time simulated and seed 000's real-time criterion, computed by hand here.
#include <gtest/gtest.h>

#include "core/Deck.hpp"
#include "drivers/Report.hpp"

namespace boreas {
namespace {

TEST(UnitsReport, ScalesAndRealTimeCriterion) {
  const Config c = parse_deck_string(
      "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [8, 8, 8]\n"
      "[physics]\ntau = 0.56\n[units]\ndx = 4\nvelocity = 10\nlattice_velocity = 0.05\n",
      "units", "");
  const double dt = 0.05 * 4 / 10;  // 0.02 s per step
  const Json u = units_json(c, 2.0, 500);
  EXPECT_DOUBLE_EQ(u["dt_s"].get<double>(), dt);
  EXPECT_DOUBLE_EQ(u["viscosity_m2_s"].get<double>(), 0.02 * 16 / dt);  // nu = (tau - 1/2) / 3 = 0.02
  EXPECT_DOUBLE_EQ(u["force_scale_n"].get<double>(), 1.225 * 256 / (dt * dt));
  EXPECT_DOUBLE_EQ(u["pressure_scale_pa"].get<double>(), 1.225 * 16 / (dt * dt));
  EXPECT_DOUBLE_EQ(u["time_simulated_s"].get<double>(), 500 * dt);
  EXPECT_DOUBLE_EQ(u["real_time_speed"].get<double>(), 500 * dt / 2.0);  // 10 s in 2 s: 5x real time
  const Json& r = u["real_time_criterion"];
  EXPECT_DOUBLE_EQ(r["dt_real_s"].get<double>(), 0.25 * 4 / 10);  // 0.1 s
  EXPECT_DOUBLE_EQ(r["dt_sim_s"].get<double>(), 2.0 / 500);
  EXPECT_DOUBLE_EQ(r["ratio"].get<double>(), (2.0 / 500) / 0.1);
  EXPECT_TRUE(units_json(parse_deck_string("[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\n"
                                           "cells = [4, 4, 4]\n[physics]\ntau = 0.6\n",
                                           "plain", ""),
                         1.0, 1)
                  .is_null());
}

}  // namespace
}  // namespace boreas
