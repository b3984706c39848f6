// 2D Taylor-Green vortex in a periodic box: the decay rate gives the viscosity, and the velocity
// field converges to the analytic solution at second order in diffusive scaling (fixed tau,
// u0 ~ 1/N, time ~ N^2). The 3D lattices run the same z-invariant vortex with nz = 1; D3Q27 also
// with the cumulant collision, at rest and carried by a stream (Galilean invariance).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "tests/validation/Harness.hpp"

namespace boreas::testing {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double tau = 0.8;  // nu = 0.1

// `stream`: a uniform velocity (x, y) that carries the vortex; `collision_keys`: more lines of
// [collision]; amplitude 0: 0.02 * 32 / n (diffusive scaling).
Config vortex(const std::string& lattice, int n, const std::string& collision = "BGK",
              const std::string& precision = "double", const std::array<double, 2>& stream = {0, 0},
              double tau_value = tau, double amplitude = 0, const std::string& collision_keys = "") {
  const bool is3d = lattice != "D2Q9";
  const double u0 = amplitude > 0 ? amplitude : 0.02 * 32.0 / n;
  char text[1024];
  std::snprintf(text, sizeof text,
                "[simulation]\nsteps = 1\n[lattice]\nmodel = \"%s\"\nprecision = \"%s\"\n[domain]\ncells = [%d, %d%s]\n"
                "[collision]\nmodel = \"%s\"\n%s\n[physics]\ntau = %.17g\n"
                "[initial]\ntype = \"taylor_green\"\namplitude = %.17g\nvelocity = [%.17g, %.17g%s]\n"
                "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
                "[boundary.y_min]\ntype = \"periodic\"\n[boundary.y_max]\ntype = \"periodic\"\n%s"
                "[validation]\nobservables = [\"taylor_green_decay\"]\n",
                lattice.c_str(), precision.c_str(), n, n, is3d ? ", 1" : "", collision.c_str(), collision_keys.c_str(),
                tau_value, u0, stream[0],
                stream[1], is3d ? ", 0" : "",
                is3d ? "[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\ntype = \"periodic\"\n" : "");
  return deck(text);
}

// One e-folding time of the amplitude, 1 / (nu (kx^2 + ky^2)), in steps.
long decay_steps(const Config& c) { return std::lround(c.cells[0] * c.cells[0] / (8 * pi * pi * c.viscosity)); }

struct Outcome {
  double l2_error;       // relative L2 error of the velocity field against the analytic one
  double viscosity_err;  // relative error of the viscosity measured from the decay
};

Outcome run(const Config& config) {
  auto sim = Simulation::create(config);
  sim->advance(decay_steps(config));
  const State s(*sim);
  const int n = config.cells[0];
  const double k = 2 * pi / n, amp = config.taylor_green_u0 * std::exp(-2 * config.viscosity * k * k * sim->step());
  double err2 = 0, ref2 = 0;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double ux = -amp * std::cos(k * x) * std::sin(k * y), uy = amp * std::sin(k * x) * std::cos(k * y);
      err2 += std::pow(s.u(x, y, 0, 0) - ux, 2) + std::pow(s.u(x, y, 0, 1) - uy, 2);
      ref2 += ux * ux + uy * uy;
    }
  const Json obs = compute_observables(config, *sim);
  return {std::sqrt(err2 / ref2), observable(obs, "taylor_green_decay", "relative_error")};
}

void check_lattice(const std::string& lattice, const std::string& collision = "BGK",
                   const std::string& precision = "double") {
  const int n[3] = {16, 32, 64};
  Outcome out[3];
  for (int i = 0; i < 3; ++i) {
    out[i] = run(vortex(lattice, n[i], collision, precision));
    std::printf("%s %s %s N %d: L2 error %.4e, viscosity error %.4e\n", lattice.c_str(), collision.c_str(),
                precision.c_str(), n[i], out[i].l2_error, out[i].viscosity_err);
  }
  // Decay rate: the viscosity from the amplitude matches (tau - 1/2)/3 up to the O(h^2) error
  // (BGK 2.6e-4 at N = 64 on all three lattices, 1.07e-3 at N = 32; 2.2e-3 and 8.8e-3 while the
  // fields were read one step late, before 2026-12-07; 3.2e-3 and 1.3e-2 from the equilibrium
  // start before that, whose first step streamed as if tau were 1; the cumulant 9.9e-5, float
  // 7.1e-5, read a step late 2.0e-3). The bounds are 1.4-2.8x the measured errors: the order alone
  // held for both old defects (1.98-2.00).
  const bool cumulant = collision == "cumulant";
  EXPECT_LE(out[2].viscosity_err, cumulant ? 2e-4 : 4e-4);
  // The field's L2 error at N = 64: BGK 2.88e-4, cumulant 1.46e-4 (float 1.19e-4).
  EXPECT_LE(out[2].l2_error, cumulant ? 2e-4 : 4e-4);
  for (int i = 0; i < 2; ++i) {
    const double p = order(out[i].l2_error, out[i + 1].l2_error);
    std::printf("%s order %d->%d: %.4f\n", lattice.c_str(), n[i], n[i + 1], p);
    EXPECT_GE(p, 1.8);
    EXPECT_LE(p, 2.3);  // float's rounding at N = 64 (L2 1.19e-4 against double's 1.46e-4): 2.28
  }
}

TEST(TaylorGreen, D2Q9) { check_lattice("D2Q9"); }
TEST(TaylorGreen, D3Q19) { check_lattice("D3Q19"); }
TEST(TaylorGreen, D3Q27) { check_lattice("D3Q27"); }
// The cumulant collision (lbm/physics/Collision.hpp): the same decay and order; in float too,
// where its f - w transform keeps the digits (the same bounds as double).
TEST(TaylorGreen, D3Q27Cumulant) { check_lattice("D3Q27", "cumulant"); }
TEST(TaylorGreen, D3Q27CumulantFloat) { check_lattice("D3Q27", "cumulant", "float"); }

// The viscosity from the decay of the velocity's energy relative to the mean flow between steps
// t0 and t0 + one e-folding time: exp(-4 nu k^2 t) for the 2D vortex array.
double viscosity_from_energy(const Config& config) {
  auto sim = Simulation::create(config);
  const int n = config.cells[0];
  auto energy = [&] {
    const State s(*sim);
    double mean[2] = {0, 0}, e = 0;
    for (int d = 0; d < 2; ++d)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) mean[d] += s.u(x, y, 0, d) / (n * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        e += std::pow(s.u(x, y, 0, 0) - mean[0], 2) + std::pow(s.u(x, y, 0, 1) - mean[1], 2);
    return e;
  };
  const long t0 = decay_steps(config) / 4, t = decay_steps(config);
  sim->advance(t0);
  const double e0 = energy();
  sim->advance(t);
  const double k = 2 * pi / n;
  return -std::log(energy() / e0) / (4 * k * k * t);
}

// Galilean invariance: the vortex carried by a stream of 0.05 (Mach 0.09) along a diagonal decays
// at the rate of the vortex at rest within 1 % with the cumulant collision (seed 000's collision,
// whose second-order correction removes the D3Q27 velocity set's u^2 error in the viscosity).
TEST(TaylorGreen, D3Q27CumulantGalileanInvariance) {
  const double at_rest = viscosity_from_energy(vortex("D3Q27", 32, "cumulant"));
  const double carried = viscosity_from_energy(vortex("D3Q27", 32, "cumulant", "double", {0.04, 0.03}));
  const double bgk_rest = viscosity_from_energy(vortex("D3Q27", 32, "BGK"));
  const double bgk_carried = viscosity_from_energy(vortex("D3Q27", 32, "BGK", "double", {0.04, 0.03}));
  std::printf("viscosity at rest / carried: cumulant %.6f / %.6f (%.3f %%), BGK %.6f / %.6f (%.3f %%)\n", at_rest,
              carried, 100 * (carried / at_rest - 1), bgk_rest, bgk_carried, 100 * (bgk_carried / bgk_rest - 1));
  EXPECT_NEAR(carried, at_rest, 0.01 * at_rest);
  // Tighter than the 1 %, so that the test sees the correction: BGK deviates 0.37 % here,
  // the cumulant 0.002 %.
  EXPECT_NEAR(carried, at_rest, 1e-3 * at_rest);
  // The control: BGK, without the correction, is outside that bound (else it tells nothing).
  EXPECT_GT(std::abs(bgk_carried / bgk_rest - 1), 2e-3);
  EXPECT_NEAR(at_rest, (tau - 0.5) / 3, 0.02 * (tau - 0.5) / 3);
}

// What report.json's taylor_green_decay says of a carried vortex (D2Q9, BGK, N = 32, the stream
// above, 1297 steps: 52 and 39 cells travelled): the viscosity within 1 % (the vortex at rest's
// 1.07e-3 plus BGK's Galilean error), where the mode at its start gave NaN before 2026-12-07.
TEST(TaylorGreen, DecayObservableOfACarriedVortex) {
  const Config config = vortex("D2Q9", 32, "BGK", "double", {0.04, 0.03});
  auto sim = Simulation::create(config);
  sim->advance(decay_steps(config));
  const double error = observable(compute_observables(config, *sim), "taylor_green_decay", "relative_error");
  std::printf("carried vortex: viscosity error %.4e\n", error);
  EXPECT_LE(error, 1e-2);
}


// The parametrised cumulant (Geier, Pasquali, Schoenherr 2017) makes the diffusion fourth-order
// accurate: the viscosity of a small vortex (amplitude 1e-6, so that no Mach-number error enters)
// decays with an error that falls 16-fold per doubling, where the standard cumulant's falls 4-fold.
// tau = 0.53 (w = 1.89, within the variant's w > 7/4). Measured: standard 7.6e-4, 1.7e-4
// (order 2.1); parametrised 1.05e-3, 6.3e-5 (order 4.05) at N = 16, 32.
TEST(TaylorGreen, D3Q27CumulantParametrisedFourthOrderDiffusion) {
  const double t = 0.53, nu = (t - 0.5) / 3;
  double standard[2], parametrised[2];
  for (int i = 0; i < 2; ++i) {
    const int n = 16 << i;
    standard[i] = std::abs(viscosity_from_energy(vortex("D3Q27", n, "cumulant", "double", {0, 0}, t, 1e-6)) / nu - 1);
    parametrised[i] = std::abs(viscosity_from_energy(vortex("D3Q27", n, "cumulant", "double", {0, 0}, t, 1e-6,
                                                            "cumulant = \"parametrised\"")) / nu - 1);
    std::printf("N %d: viscosity error standard %.4e, parametrised %.4e\n", n, standard[i], parametrised[i]);
  }
  const double p_standard = order(standard[0], standard[1]), p_parametrised = order(parametrised[0], parametrised[1]);
  std::printf("order: standard %.3f, parametrised %.3f\n", p_standard, p_parametrised);
  EXPECT_GE(p_standard, 1.8);
  EXPECT_LE(p_standard, 2.3);
  EXPECT_GE(p_parametrised, 3.5);
  EXPECT_LE(parametrised[1], 0.5 * standard[1]);
}

// Galilean invariance of the parametrised variant: the vortex carried by a stream of 0.05 decays
// at the rate of the vortex at rest within 1 % (tau = 0.53; default limiter 1e-3); in float at
// the rate of double within 0.1 %.
TEST(TaylorGreen, D3Q27CumulantParametrisedGalileanInvariance) {
  const double t = 0.53;
  const std::string keys = "cumulant = \"parametrised\"";
  const double at_rest = viscosity_from_energy(vortex("D3Q27", 32, "cumulant", "double", {0, 0}, t, 0, keys));
  const double carried = viscosity_from_energy(vortex("D3Q27", 32, "cumulant", "double", {0.04, 0.03}, t, 0, keys));
  std::printf("parametrised cumulant viscosity at rest / carried: %.6f / %.6f (%.3f %%)\n", at_rest, carried,
              100 * (carried / at_rest - 1));
  EXPECT_NEAR(carried, at_rest, 0.01 * at_rest);
  EXPECT_NEAR(at_rest, (t - 0.5) / 3, 0.02 * (t - 0.5) / 3);
  // In float the f - w transform keeps the digits the third- and fourth-order terms need.
  const double in_float = viscosity_from_energy(vortex("D3Q27", 32, "cumulant", "float", {0, 0}, t, 0, keys));
  std::printf("float: %.6f (%.4f %% off double)\n", in_float, 100 * (in_float / at_rest - 1));
  EXPECT_NEAR(in_float, at_rest, 1e-3 * at_rest);
}

}  // namespace
}  // namespace boreas::testing
