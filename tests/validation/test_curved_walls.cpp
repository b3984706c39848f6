// Curved walls closed by interpolated bounce-back (Bouzidi, Firdaouss & Lallemand 2001;
// lbm/physics/Boundary.hpp): circular Couette flow between two coaxial cylinders, one rotating
// (angular_velocity) and the outer one an inverted cylinder (invert = true). Its exact solution
// u_theta(r) = A r + B / r is a steady solution of the Navier-Stokes equations at any Reynolds
// number. The annulus is closed, so these runs also exercise the mass restoration of
// drivers/Simulation.cpp (without it the fluid drifts and the error stalls at a few per cent).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

// Outer radius n cells, inner n / 2, a common centre off the lattice so that the wall fractions
// take all values; diffusive scaling (the wall speed falls as 1 / n at a fixed tau). `rotating`:
// which cylinder turns. Returns the relative L2 error of the velocity over the fluid cells.
// `closure`: "halfway", "linear" or "quadratic" (interpolated bounce-back).
double circular_couette(int n, const std::string& closure, const char* collision, const char* rotating) {
  const double r1 = 0.5 * n, r2 = n, cx = n + 2.73, cy = n + 2.41;
  const bool inner = std::string(rotating) == "inner";
  const double speed = 0.04 * 12 / n, omega = speed / (inner ? r1 : r2);
  const int cells = 2 * n + 6;
  const std::string walls = closure == "halfway" ? "bounce_back = \"halfway\"\n"
                                                 : "bounce_back = \"interpolated\"\ninterpolation = \"" + closure + "\"\n";
  char text[2048];
  std::snprintf(text, sizeof text,
                "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [%d, %d]\n"
                "[collision]\nmodel = \"%s\"\n[physics]\ntau = 0.8\n"
                "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
                "[boundary.y_min]\ntype = \"periodic\"\n[boundary.y_max]\ntype = \"periodic\"\n"
                "[[obstacle]]\nshape = \"cylinder\"\ncenter = [%.17g, %.17g]\nradius = %.17g\n"
                "angular_velocity = %.17g\n%s"
                "[[obstacle]]\nshape = \"cylinder\"\ncenter = [%.17g, %.17g]\nradius = %.17g\ninvert = true\n"
                "angular_velocity = %.17g\n%s",
                cells, cells, collision, cx, cy, r1, inner ? omega : 0.0, walls.c_str(), cx, cy, r2,
                inner ? 0.0 : omega, walls.c_str());
  auto sim = Simulation::create(deck(text));
  run_to_steady_state(*sim, 500, 1e-10, 100000);
  // u_theta = A r + B / r with u_theta(r1) = w1 r1, u_theta(r2) = w2 r2.
  const double w1 = inner ? omega : 0, w2 = inner ? 0 : omega, k = r2 * r2 - r1 * r1;
  const double a = (w2 * r2 * r2 - w1 * r1 * r1) / k, b = (w1 - w2) * r1 * r1 * r2 * r2 / k;
  const State s(*sim);
  double num = 0, den = 0;
  for (int y = 0; y < cells; ++y)
    for (int x = 0; x < cells; ++x) {
      const double dx = x - cx, dy = y - cy, r = std::hypot(dx, dy);
      if (r <= r1 || r >= r2) continue;  // solid: a centre on a surface is solid
      const double ut = a * r + b / r, ux = -ut * dy / r, uy = ut * dx / r;
      num += std::pow(s.u(x, y, 0, 0) - ux, 2) + std::pow(s.u(x, y, 0, 1) - uy, 2);
      den += ux * ux + uy * uy;
    }
  return std::sqrt(num / den);
}

// Outer radii 12, 24, 48 cells: interpolated bounce-back converges at second order with either
// cylinder turning, BGK and TRT: linear >= 1.8 over each doubling, quadratic >= 1.8 over the two
// (its error changes with how the lattice cuts the circles: BGK inner 2.22 then 1.71, and 1.96
// from 48 to 96); halfway bounce-back (staircase) does not (<= 1.5), and at 48 cells its error is
// at least 10 times larger than either.
TEST(CircularCouette, InterpolatedBounceBackConvergesAtSecondOrder) {
  const struct {
    const char *collision, *rotating;
  } cases[] = {{"BGK", "inner"}, {"TRT", "inner"}, {"BGK", "outer"}};
  for (const auto& c : cases) {
    double linear[3], quadratic[3], halfway[3];
    const int sizes[3] = {12, 24, 48};
    for (int i = 0; i < 3; ++i) {
      linear[i] = circular_couette(sizes[i], "linear", c.collision, c.rotating);
      quadratic[i] = circular_couette(sizes[i], "quadratic", c.collision, c.rotating);
      halfway[i] = circular_couette(sizes[i], "halfway", c.collision, c.rotating);
      std::printf("%s, %s cylinder turning, outer radius %d: L2 error linear %.4e, quadratic %.4e, halfway %.4e\n",
                  c.collision, c.rotating, sizes[i], linear[i], quadratic[i], halfway[i]);
    }
    for (int i = 0; i < 2; ++i) {
      SCOPED_TRACE(std::string(c.collision) + ", " + c.rotating + " cylinder, radii " + std::to_string(sizes[i]) +
                   " -> " + std::to_string(sizes[i + 1]));
      EXPECT_GE(order(linear[i], linear[i + 1]), 1.8);
      EXPECT_LE(order(halfway[i], halfway[i + 1]), 1.5);
    }
    EXPECT_GE(order(quadratic[0], quadratic[2], 4.0), 1.8) << c.collision << ", " << c.rotating << " cylinder";
    EXPECT_GE(halfway[2], 10 * linear[2]);
    EXPECT_GE(halfway[2], 10 * quadratic[2]);
  }
}

// A wall halfway between cell centres is met at fraction 1/2 on every link (the faces of a box at
// half-integer coordinates, edges included), where the interpolated rules, linear and quadratic,
// are halfway bounce-back: the same bits, D3Q19 and D3Q27, double and float, with a force.
TEST(InterpolatedBounceBack, IsHalfwayBounceBackForWallsHalfwayBetweenCentres) {
  for (const char* lattice : {"D3Q19", "D3Q27"})
    for (const char* precision : {"double", "float"}) {
      const std::string text = std::string("[simulation]\nsteps = 1\n[lattice]\nmodel = \"") + lattice +
                               "\"\nprecision = \"" + precision +
                               "\"\n[domain]\ncells = [16, 12, 10]\n[physics]\ntau = 0.62\nforce = [1e-5, 2e-6, 0]\n"
                               "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
                               "[[obstacle]]\nshape = \"box\"\nlo = [4.5, 2.5, 3.5]\nhi = [9.5, 7.5, 6.5]\n";
      auto halfway = Simulation::create(deck(text));
      halfway->advance(40);
      for (const char* interpolation : {"linear", "quadratic"}) {
        auto interpolated = Simulation::create(
            deck(text + "bounce_back = \"interpolated\"\ninterpolation = \"" + interpolation + "\"\n"));
        interpolated->advance(40);
        EXPECT_EQ(hash_hex(interpolated->fields_hash()), hash_hex(halfway->fields_hash()))
            << lattice << " " << precision << " " << interpolation;
        EXPECT_EQ(interpolated->body_forces(), halfway->body_forces()) << lattice << " " << precision << " " << interpolation;
      }
    }
}

// Momentum balance of a steady force-driven flow through a periodic array of interpolated
// cylinders, one of them turning: the bodies take what the force gives the fluid (the forces of
// BodyForces.hpp weigh the populations the rule uses; a rule and a force that disagree would not
// balance). The turning cylinder's torque does not enter the sum of forces.
TEST(InterpolatedBounceBack, ForcesBalanceTheDrivingForce) {
  for (const std::string interpolation : {"linear", "quadratic"}) {
    const std::string walls = "bounce_back = \"interpolated\"\ninterpolation = \"" + interpolation + "\"\n";
    const Config config = deck(
        "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [40, 24]\n"
        "[collision]\nmodel = \"TRT\"\n[physics]\ntau = 0.8\nforce = [2e-6, 0]\n"
        "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
        "[boundary.y_min]\ntype = \"periodic\"\n[boundary.y_max]\ntype = \"periodic\"\n"
        "[[obstacle]]\nshape = \"cylinder\"\ncenter = [10.3, 11.6]\nradius = 4.7\n" + walls +
        "[[obstacle]]\nshape = \"cylinder\"\ncenter = [29.8, 12.2]\nradius = 3.9\n" + walls +
        "angular_velocity = 0.002\n");
    auto sim = Simulation::create(config);
    run_to_steady_state(*sim, 1000, 1e-12, 300000);
    const auto f = two_step_mean_forces(*sim);
    const double driving = config.force[0] * double(sim->fluid_cells());
    const double fx = f[0][0] + f[1][0], fy = f[0][1] + f[1][1];
    std::printf("%s: drag %.12e, body force x fluid cells %.12e, lift %.3e\n", interpolation.c_str(), fx, driving, fy);
    EXPECT_NEAR(fx, driving, 1e-6 * driving) << interpolation;
    EXPECT_NEAR(fy, 0.0, 1e-6 * driving) << interpolation;
  }
}

}  // namespace
}  // namespace boreas::testing
