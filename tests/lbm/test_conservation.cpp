// Mass conservation to round-off: a closed box with resting walls and a moving lid (the lid's
// momentum terms cancel between the two lid corners), and a periodic box with and without a
// body force, for BGK and TRT on every lattice; the turbulent channel's start carries the deck's
// bulk velocity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lbm/field/FieldOps.hpp"
#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

struct Case {
  std::string lattice, collision;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.lattice << " " << c.collision; }

std::string cells_for(const std::string& lattice) { return lattice == "D2Q9" ? "[16, 12]" : "[8, 7, 6]"; }
std::string vec(const std::string& lattice, const std::string& xy) {
  return "[" + xy + (lattice == "D2Q9" ? "]" : ", 0]");
}

double relative_drift(const Config& config, long steps) {
  auto sim = Simulation::create(config);
  const double m0 = sim->total_mass();
  sim->advance(steps);
  EXPECT_TRUE(sim->check().ok);
  return std::abs(sim->total_mass() - m0) / m0;
}

class Conservation : public ::testing::TestWithParam<Case> {};

TEST_P(Conservation, ClosedBoxWithMovingLid) {
  const Case& c = GetParam();
  const Config config = deck("[simulation]\nsteps = 1\n[lattice]\nmodel = \"" + c.lattice +
                             "\"\n[domain]\ncells = " + cells_for(c.lattice) + "\n[collision]\nmodel = \"" +
                             c.collision + "\"\n[physics]\ntau = 0.56\n[boundary.y_max]\ntype = \"moving_wall\"\n"
                             "velocity = " + vec(c.lattice, "0.1, 0") + "\n");
  const double drift = relative_drift(config, 200);
  std::printf("%s %s closed box: relative mass drift %.2e\n", c.lattice.c_str(), c.collision.c_str(), drift);
  EXPECT_LE(drift, 1e-13);
}

TEST_P(Conservation, PeriodicBoxWithForce) {
  const Case& c = GetParam();
  std::string periodic;
  for (const char* f : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
    if (c.lattice != "D2Q9" || f[0] != 'z') periodic += "[boundary." + std::string(f) + "]\ntype = \"periodic\"\n";
  const std::string base = "[simulation]\nsteps = 1\n[lattice]\nmodel = \"" + c.lattice +
                           "\"\n[domain]\ncells = " + cells_for(c.lattice) + "\n[collision]\nmodel = \"" +
                           c.collision + "\"\n" + periodic +
                           "[initial]\ntype = \"taylor_green\"\namplitude = 0.05\n";
  for (const std::string& force : {std::string("0, 0"), std::string("1e-4, -3e-5")}) {
    const Config config = deck(base + "[physics]\ntau = 0.7\nforce = " + vec(c.lattice, force) + "\n");
    const double drift = relative_drift(config, 200);
    std::printf("%s %s periodic, force [%s]: relative mass drift %.2e\n", c.lattice.c_str(),
                c.collision.c_str(), force.c_str(), drift);
    EXPECT_LE(drift, 1e-13);
  }
}

INSTANTIATE_TEST_SUITE_P(AllLattices, Conservation,
                         ::testing::Values(Case{"D2Q9", "BGK"}, Case{"D2Q9", "TRT"}, Case{"D3Q19", "BGK"},
                                           Case{"D3Q19", "TRT"}, Case{"D3Q27", "BGK"}, Case{"D3Q27", "TRT"}),
                         [](const auto& info) { return info.param.lattice + "_" + info.param.collision; });

// initial.type = "channel" (lbm/field/Field.cpp): the 1/7 profile integrates to the deck's bulk
// velocity (to 1 % on 16 cells across, where its wall slope is least resolved), the random field
// has no mean over x and z, is of r.m.s. about A per component (0.5 to 1.5 A), is
// divergence-free (central differences of step 1e-3 cell at 50 points: |div| below 1e-6 of its
// largest derivative) and nothing moves on the walls (to sin(pi) ~ 1e-16 of A).
TEST(ChannelStart, CarriesTheBulkVelocityAndRestsOnTheWalls) {
  const Config c = deck(
      "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D3Q27\"\n[domain]\ncells = [16, 16, 12]\n"
      "[physics]\ntau = 0.51\n[initial]\ntype = \"channel\"\nvelocity = [0.05, 0, 0]\namplitude = 0.01\n"
      "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
      "[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\ntype = \"periodic\"\n");
  double bulk = 0, rho = 0, square[3] = {0, 0, 0};
  std::array<double, 3> u{};
  for (int y = 0; y < 16; ++y) {
    double v_mean = 0, w_mean = 0;
    for (int z = 0; z < 12; ++z)
      for (int x = 0; x < 16; ++x) {
        initial_macroscopic(c, {double(x), double(y), double(z)}, rho, u);
        bulk += u[0] / (16.0 * 16 * 12);
        v_mean += u[1] / (16.0 * 12);
        w_mean += u[2] / (16.0 * 12);
        const std::array<double, 3> p = channel_perturbation(c.cells, {double(x), double(y), double(z)});
        for (int d = 0; d < 3; ++d) square[d] += p[d] * p[d] / (16.0 * 16 * 12);
      }
    EXPECT_NEAR(v_mean, 0, 1e-17) << y;
    EXPECT_NEAR(w_mean, 0, 1e-17) << y;
  }
  std::printf("bulk velocity %.6f (deck 0.05); perturbation r.m.s. %.3f %.3f %.3f\n", bulk, std::sqrt(square[0]),
              std::sqrt(square[1]), std::sqrt(square[2]));
  EXPECT_NEAR(bulk, 0.05, 0.01 * 0.05);
  for (double s2 : square) {
    EXPECT_GT(std::sqrt(s2), 0.5);
    EXPECT_LT(std::sqrt(s2), 1.5);
  }
  const double h = 1e-3;
  for (int i = 0; i < 50; ++i) {
    const std::array<double, 3> x{0.31 * i, 0.5 + 0.29 * i, 0.17 * i};  // inside the walls, x and z wrap
    double divergence = 0, largest = 0;
    for (int d = 0; d < 3; ++d) {
      std::array<double, 3> plus = x, minus = x;
      plus[d] += h;
      minus[d] -= h;
      const std::array<double, 3> up = channel_perturbation(c.cells, plus), down = channel_perturbation(c.cells, minus);
      for (int e = 0; e < 3; ++e) {
        const double derivative = (up[e] - down[e]) / (2 * h);
        largest = std::max(largest, std::abs(derivative));
        if (e == d) divergence += derivative;
      }
    }
    EXPECT_LT(std::abs(divergence), 1e-6 * largest) << x[0] << " " << x[1] << " " << x[2];
  }
  for (double wall : {-0.5, 15.5})
    for (int z = 0; z < 12; ++z) {
      initial_macroscopic(c, {3, wall, double(z)}, rho, u);
      EXPECT_LT(std::abs(u[0]) + std::abs(u[1]) + std::abs(u[2]), 1e-17) << wall << " " << z;  // sin(pi) != 0
    }
}

}  // namespace
}  // namespace boreas::testing
