// Channel flows across AMR level interfaces (issue 13), D2Q9: walls at y = 0 and H (halfway
// bounce-back), periodic along x, a level-1 region whose interfaces lie parallel to the flow (the
// lower half of the channel) or normal to it (a slab across the channel). Errors are relative L2
// norms over every leaf cell, weighted by its area, against the analytic profiles.
// - Couette (moving upper wall): a linear profile crosses interfaces along the flow exactly (1e-8:
//   the steady-state tolerance), which checks the coupling's density, velocity and stress scaling;
//   across interfaces normal to the flow to 2e-4 (measured 7.8e-5 at Mach 0.035: the rebuilt
//   populations drop O(Ma^2) terms of the non-equilibrium part).
// - Force-driven Poiseuille, TRT, at H = 8, 16, 32 coarse cells. With magic 3/16 the walls are
//   exact and so is the coupling (the rebuild holds the steady expansion's second-order terms,
//   the fits take point values, amr/Coupling.hpp): the profile is the parabola to the steady-state
//   tolerance along the flow and to 1e-5 normal to it. At tau 0.6 normal to the flow the
//   coupling's error shows: the bound at 16 finest cells across (the 1e-3) and the
//   observed order over the three (the 1.8).
// - The same with the Smagorinsky model (BGK: exact) and the D3Q27 cumulant collision (bounds
//   below, measured 2.9e-5 along the flow); the forced cumulant channel at second order.
// - tau = 1 on the fine level (tau_0 = 0.75) gives the result of tau_0 = 0.75 +- 1e-7 to 1e-5:
//   the coupling has no singularity there.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Types.hpp"
#include "tests/amr/AmrCase.hpp"
#include "tests/validation/Harness.hpp"

namespace boreas {
namespace {

std::string exact_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

enum class Flow { Couette, Poiseuille };

// `collision` is a model name, optionally followed by " smagorinsky" or " smagorinsky=C_s"; the
// cumulant runs on D3Q27 (4 cells along a periodic z), the others on D2Q9.
double channel_error(Flow flow, int H, bool parallel, const std::string& collision, double tau) {
  const bool cumulant = collision.rfind("cumulant", 0) == 0, les = collision.find("smagorinsky") != std::string::npos;
  const std::string model = collision.substr(0, collision.find(' '));
  const double nu = (tau - 0.5) / 3, umax = 0.02;
  const double force = flow == Flow::Poiseuille ? 8 * nu * umax / (H * H) : 0.0;
  const int Lx = parallel ? 8 : 2 * H;
  const std::string z_lo = cumulant ? ", 0" : "", z_hi = cumulant ? ", 3" : "", z0 = cumulant ? ", 0" : "";
  const std::string region =
      parallel ? "lo = [0, 0" + z_lo + "]\nhi = [" + std::to_string(Lx) + ", " + std::to_string(H / 2 - 1) + z_hi + "]"
               : "lo = [" + std::to_string(H / 2) + ", 0" + z_lo + "]\nhi = [" + std::to_string(3 * H / 2 - 1) + ", " +
                     std::to_string(H) + z_hi + "]";
  const std::string text =
      "[lattice]\nmodel = \"" + std::string(cumulant ? "D3Q27" : "D2Q9") + "\"\n[simulation]\nsteps = 1\n[domain]\ncells = [" +
      std::to_string(Lx) + ", " + std::to_string(H) + (cumulant ? ", 4" : "") + "]\n[collision]\nmodel = \"" + model +
      "\"\n" + (les ? "sgs = \"smagorinsky\"\n" : "") +
      (collision.find('=') != std::string::npos ? "smagorinsky_constant = " + collision.substr(collision.find('=') + 1) + "\n"
                                                 : "") + "[physics]\ntau = " + exact_text(tau) + "\nforce = [" +
      exact_text(force) + ", 0" + z0 + "]\n[boundary]\nx_min.type = \"periodic\"\nx_max.type = \"periodic\"\n" +
      (cumulant ? "z_min.type = \"periodic\"\nz_max.type = \"periodic\"\n" : "") +
      (flow == Flow::Couette ? "y_max.type = \"moving_wall\"\ny_max.velocity = [0.02, 0" + z0 + "]\n" : "") +
      "[amr]\nleaf_size = 4\nmax_level = 1\n[[amr.region]]\nlevel = 1\n" + region + "\n";
  testing::AmrCase run(text);
  std::unique_ptr<AmrSolver>& solver = run.solver;
  EXPECT_EQ(solver->forest().levels(), 2);
  // Diffusion time H^2 / nu on level 0; run until the profile stops changing, compared in whole
  // mass-restoration periods: the uniform density shift every period (closed and periodic AMR
  // decks, Config::restores_mass) stirs the state by ~1e-6 of umax, which samples in another
  // phase would take for a flow still changing.
  const long period = Config::mass_restoration_period;
  const long chunk = period * std::max(1L, std::lround(0.05 * H * H / nu / double(period)));
  testing::advance_until_steady(*solver, chunk, 120 * chunk, 1e-11 * umax,
                                [&] { return testing::leaf_velocities_x(*solver); });
  double err2 = 0, ref2 = 0;
  for (const AmrBlockSample& b : solver->sample()) {
    if (!b.leaf) continue;
    const double h = std::ldexp(1.0, -b.level), n = b.box.extent(0);
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      const double y = (b.box.lo[1] + double(i / std::size_t(n) % std::size_t(n)) + 0.5) * h;  // level-0 units, walls at 0 and H
      const double exact = flow == Flow::Couette ? umax * y / H : force / (2 * nu) * y * (H - y);
      const double e = b.velocity[3 * i] - exact;
      err2 += e * e * h * h;
      ref2 += exact * exact * h * h;
    }
  }
  return std::sqrt(err2 / ref2);
}

// Measured (steady): BGK along the flow 2.8e-12, across it 3.9e-5; TRT 1.6e-11; BGK with
// Smagorinsky 9.6e-10; cumulant 9.3e-7 along (with Smagorinsky too), 2.4e-5 across.
TEST(AmrChannel, CouetteIsExactAcrossInterfaces) {
  EXPECT_LE(channel_error(Flow::Couette, 8, true, "BGK", 0.8), 1e-8);
  EXPECT_LE(channel_error(Flow::Couette, 8, false, "BGK", 0.8), 2e-4);
  EXPECT_LE(channel_error(Flow::Couette, 8, true, "TRT", 0.6), 1e-8);
  // The urban issue's per-cell physics. The coupling carries the strain rate across the interface
  // (populations rebuilt from the interpolated gradient at each level's tau, Smagorinsky's per
  // rebuilt cell), so a uniform shear stays linear across it with the model on, although the eddy
  // viscosity, whose filter width is each level's dx, is 4x smaller on level 1 in level-0 units:
  // the stress jump that implies is not balanced (the coupling does not conserve fluxes, README
  // "AMR"). The cumulant relaxes the third order at rate 1, which shifts its steady pre-collision
  // stress from the BGK Chapman-Enskog one the rebuild starts from: 9.3e-7 across one interface
  // along the flow (5.5e-11 with the whole channel on one level, the same grid).
  EXPECT_LE(channel_error(Flow::Couette, 8, true, "BGK smagorinsky", 0.6), 1e-8);
  EXPECT_LE(channel_error(Flow::Couette, 8, true, "cumulant", 0.6), 5e-6);
  EXPECT_LE(channel_error(Flow::Couette, 8, true, "cumulant smagorinsky", 0.6), 5e-6);
  EXPECT_LE(channel_error(Flow::Couette, 8, false, "cumulant", 0.8), 2e-4);
}

// Errors at H = 8, 16, 32.
std::vector<double> poiseuille_errors(bool parallel, const std::string& collision, double tau) {
  std::vector<double> e;
  for (int H : {8, 16, 32}) e.push_back(channel_error(Flow::Poiseuille, H, parallel, collision, tau));
  std::printf("%s interfaces, %s tau %.2f: L2 %.3e %.3e %.3e, order %.2f\n", parallel ? "parallel" : "normal",
              collision.c_str(), tau, e[0], e[1], e[2], std::log2(e[0] / e[2]) / 2);
  return e;
}

// The model acts on the leaves: with C_s = 1 a force-driven channel (8 coarse cells across) slows
// down, its profile 0.119 off the laminar one (0.013 without the model, the interface's error; at
// steady state: 0.139 and 0.036 were recorded before the runs reached it).
TEST(AmrChannel, SmagorinskySlowsAChannelOnTheLevels) {
  const double laminar = channel_error(Flow::Poiseuille, 8, true, "BGK", 0.6);
  const double modelled = channel_error(Flow::Poiseuille, 8, true, "BGK smagorinsky=1.0", 0.6);
  std::printf("off the laminar profile: %.3e with the model, %.3e without\n", modelled, laminar);
  EXPECT_GT(modelled, 2 * laminar);
}

// The force-driven channel with the cumulant (D3Q27, tau 0.8) across an interface along the flow:
// the coupling's force terms (Guo's in the Chapman-Enskog state the cumulant then collides) keep
// second order. Measured 6.2e-3 at 16 fine cells across and 1.6e-3 at 32 (order 2.0); the
// bound includes the halfway walls, which the cumulant does not make exact as TRT's magic 3/16
// does.
TEST(AmrChannel, CumulantPoiseuilleInterfacesParallelToTheFlow) {
  const double e8 = channel_error(Flow::Poiseuille, 8, true, "cumulant", 0.8);
  const double e16 = channel_error(Flow::Poiseuille, 16, true, "cumulant", 0.8);
  std::printf("cumulant: L2 %.3e %.3e, order %.2f\n", e8, e16, std::log2(e8 / e16));
  EXPECT_LE(e8, 6.5e-3);
  EXPECT_GE(std::log2(e8 / e16), 1.8);
}

// Measured 8.4e-13, 1.9e-11, 1.3e-11 (round-off and the steady-state tolerance); before the
// second-order rebuild and the point-value fits 1.3e-3, 3.7e-4, 1.3e-4.
TEST(AmrChannel, PoiseuilleInterfacesParallelToTheFlowIsExact) {
  for (double e : poiseuille_errors(true, "TRT", 0.8)) EXPECT_LE(e, 1e-9);
}
// Measured 4.3e-6, 8.7e-7, 2.1e-7; before 2.8e-3, 7.1e-4, 1.8e-4.
TEST(AmrChannel, PoiseuilleInterfacesNormalToTheFlowIsExact) {
  for (double e : poiseuille_errors(false, "TRT", 0.8)) EXPECT_LE(e, 1e-5);
}
// Measured 1.06e-4, 2.06e-5, 4.2e-6 (order 2.32).
TEST(AmrChannel, PoiseuilleNormalToTheFlowConvergesAtSecondOrder) {
  const std::vector<double> e = poiseuille_errors(false, "TRT", 0.6);
  EXPECT_LE(e[0], 1e-3);
  EXPECT_GE(std::log2(e[0] / e[2]) / 2, 1.8);
  EXPECT_LT(e[2], e[1]);
  EXPECT_LT(e[1], e[0]);
}

// A body's surface crossing interfaces between coarse cell centres: Poiseuille flow between walls
// of interpolated bounce-back at y = w and 19 - w (deck coordinates: cell centres at integers),
// D2Q9 BGK tau 0.8, periodic along x, a level-1 slab across the channel (x 8 to 23). The flow is
// the same in every column of a level: its largest variation along a row of level-0 cells, and
// of level-1 cells, over u_max, is the interfaces' error; the largest deviation from the parabola
// between the walls includes each level's own wall error.
struct CutChannel {
  double coarse_rows = 0, fine_rows = 0, parabola = 0;
};
CutChannel cut_channel(double w) {
  const double tau = 0.8, nu = (tau - 0.5) / 3, force = 1e-6;
  testing::AmrCase run("[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [32, 20]\n"
                       "[physics]\ntau = " + exact_text(tau) + "\nforce = [" + exact_text(force) + ", 0]\n"
                       "[boundary]\nx_min.type = \"periodic\"\nx_max.type = \"periodic\"\n"
                       "[[obstacle]]\nshape = \"box\"\nlo = [-5, -1]\nhi = [40, " + exact_text(w) + "]\n"
                       "bounce_back = \"interpolated\"\n[[obstacle]]\nshape = \"box\"\nlo = [-5, " +
                       exact_text(19 - w) + "]\nhi = [40, 21]\nbounce_back = \"interpolated\"\n"
                       "[amr]\nleaf_size = 4\nmax_level = 1\n[[amr.region]]\nlevel = 1\nlo = [8, 0]\nhi = [23, 19]\n");
  AmrSolver& solver = *run.solver;
  EXPECT_EQ(solver.forest().levels(), 2);
  const double half = (19 - 2 * w) / 2, u_max = force / (2 * nu) * half * half;
  testing::advance_until_steady(solver, 2000, 60000, 1e-9 * u_max, [&] { return testing::leaf_velocities_x(solver); });
  std::map<std::pair<int, int>, std::pair<double, double>> rows;  // (level, row): least and largest u_x
  CutChannel e;
  for (const AmrBlockSample& b : solver.sample()) {
    if (!b.leaf) continue;
    const int n = b.box.extent(0);
    const double h = std::ldexp(1.0, -b.level);
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      if (b.flags[i] != flag::fluid) continue;
      const int row = b.box.lo[1] + int(i) / n % n;
      const double u = b.velocity[3 * i], y = (row + 0.5) * h - 0.5;
      e.parabola = std::max(e.parabola, std::abs(u - force / (2 * nu) * (y - w) * (19 - w - y)) / u_max);
      auto [it, first] = rows.try_emplace({b.level, row}, u, u);
      it->second = {std::min(it->second.first, u), std::max(it->second.second, u)};
    }
  }
  for (const auto& [at, range] : rows)
    (at.first == 0 ? e.coarse_rows : e.fine_rows) =
        std::max(at.first == 0 ? e.coarse_rows : e.fine_rows, (range.second - range.first) / u_max);
  std::printf("w = %.2f: rows vary by %.2e (level 0), %.2e (level 1) of u_max; parabola %.2e\n", w, e.coarse_rows,
              e.fine_rows, e.parabola);
  return e;
}

// Restricted as the mean of their fluid children, the cut coarse cells took the velocity at 2.25
// for theirs at 2, about twice it: the coarse cells beside the slab ran 35 % fast, their rows
// varying by 2.3e-2 of u_max (level 1: 8.6e-3; parabola 2.7e-2 at w = 1.76). The cut-cell fit
// (amr/Coupling.hpp CutCellFit) puts them between the children and the wall: measured 1.25e-3 and
// 1.64e-3 (level 0), 6.5e-4 and 9.6e-4 (level 1) at w = 1.76 and 1.85, against 2.7e-4 and 4.3e-4
// at w = 1.74, where no child is solid.
// At w = 2.2 the fine cells at 2.25 are fluid in coarse cells that are solid (centre 2). Their
// interface ghosts, closed as walls across the flow, varied the level-1 rows by 2.0e-2 of u_max
// (parabola 1.8e-2); extrapolated from the coarse cell at 3, 4.9e-3; interpolated between it and
// the wall at 2.2 (InterpPoint::wall), 4.1e-3 (level 0: 1.9e-3; parabola 4.9e-3). What is left is
// the levels' own wall errors: the slab's middle takes the fine grid's profile (1.81e-2 of u_max
// at 2.25 with the whole channel fine, 1.37e-2 exact: interpolated bounce-back at q = 0.1), its
// ends the coarse level's.
TEST(AmrChannel, WallsCuttingCoarseCellsAtInterfaces) {
  const CutChannel uncut = cut_channel(1.74);
  EXPECT_LE(uncut.coarse_rows, 1e-3);
  EXPECT_LE(uncut.fine_rows, 1e-3);
  for (double w : {1.76, 1.85, 2.2}) {
    const CutChannel cut = cut_channel(w);
    EXPECT_LE(cut.coarse_rows, 3e-3) << w;
    EXPECT_LE(cut.fine_rows, w < 2 ? 2e-3 : 4.5e-3) << w;
    EXPECT_LE(cut.parabola, 2 * uncut.parabola) << w;
  }
}

TEST(AmrChannel, FineLevelAtTauOneIsContinuous) {
  const double at_one = channel_error(Flow::Poiseuille, 8, true, "BGK", 0.75);
  for (double eps : {1e-7, 1e-5}) {
    EXPECT_NEAR(channel_error(Flow::Poiseuille, 8, true, "BGK", 0.75 + eps), at_one, 1e-3 * at_one) << eps;
    EXPECT_NEAR(channel_error(Flow::Poiseuille, 8, true, "BGK", 0.75 - eps), at_one, 1e-3 * at_one) << eps;
  }
}

// A parabolic inlet (level 0: open faces stay there) feeding a channel through a level-1 slab
// across it (D2Q9, 64 x 16 level-0 cells, TRT tau 0.8, pressure outlet): at steady state the mass
// flux through every level-0 column is the one the inlet's links impose (each link carries
// 6 w rho0 u at its midpoint, as in the one-level test ParabolicInletEntersDeveloped), and the
// fine columns carry the coarse columns' profile point by point (the coupling interpolates point
// values, amr/AmrLattice.hpp): their momentum is the coarse one's parabola, and so their flux
// is the finer sum of the same profile, (h_0^2 - h_1^2) / (2 H^2) = 1.46e-3 below the coarse one
// (the midpoint rule overestimates a concave profile by h^2 / (2 H^2) of its flux; mass is not
// conserved across interfaces, README "AMR"). The inlet's coordinates come from each leaf's origin: a uniform inlet, or a profile
// read at the wrong place, imposes another flux.
TEST(AmrChannel, ParabolicInletCrossesLevels) {
  const int ny = 16;
  const double u_max = 0.03, rho0 = 1;
  testing::AmrCase run(
      "[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [64, 16]\n[collision]\nmodel = \"TRT\"\n"
      "[physics]\ntau = 0.8\n[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.03, 0]\nprofile = \"parabolic\"\n"
      "[boundary.x_max]\ntype = \"pressure_outlet\"\n[amr]\nleaf_size = 4\nmax_level = 1\n"
      "[[amr.region]]\nlevel = 1\nlo = [24, 0]\nhi = [39, 15]\n");
  AmrSolver& solver = *run.solver;
  ASSERT_EQ(solver.forest().levels(), 2);
  const auto parabola = [&](double y) { return testing::inlet_parabola(y, ny); };  // y in level-0 cells
  const double imposed = testing::parabolic_inlet_flux(ny, rho0, u_max);
  // Mass flux per column (level, x) of the leaves, in level-0 units (cell height 2^-level).
  const auto column_fluxes = [&] {
    std::map<std::pair<int, int>, double> flux;
    for (const AmrBlockSample& b : solver.sample()) {
      if (!b.leaf) continue;
      const int n = b.box.extent(0);
      const double h = std::ldexp(1.0, -b.level);
      for (std::size_t i = 0; i < b.density.size(); ++i)
        flux[{b.level, b.box.lo[0] + int(i % n)}] += b.density[i] * b.velocity[3 * i] * h;
    }
    return flux;
  };
  const testing::SteadyState steady = testing::advance_until_steady(solver, 500, 60000, 1e-12, [&] {
    std::vector<double> fluxes;
    for (const auto& [column, flux] : column_fluxes()) fluxes.push_back(flux);
    return fluxes;
  });
  ASSERT_TRUE(steady.reached);
  const std::map<std::pair<int, int>, double> now = column_fluxes();
  const double quadrature = -(1.0 - 0.25) / (2.0 * ny * ny);
  double worst_coarse = 0, worst_fine = 0;
  for (const auto& [column, flux] : now)
    (column.first == 0 ? worst_coarse : worst_fine) = std::max(
        column.first == 0 ? worst_coarse : worst_fine, std::abs(flux / imposed - 1 - (column.first == 0 ? 0 : quadrature)));
  // rho u of a level-0 column upstream of the slab (x = 20), fitted as a multiple of the
  // parabola, against the fine columns at the slab's middle (level-1 x = 63, 64).
  double fitted = 0, norm = 0, profile_error = 0;
  for (const AmrBlockSample& b : solver.sample())
    for (std::size_t i = 0; b.leaf && b.level == 0 && i < b.density.size(); ++i) {
      const int n = b.box.extent(0), x = b.box.lo[0] + int(i % n), y = b.box.lo[1] + int(i / n);
      if (x != 20) continue;
      fitted += b.density[i] * b.velocity[3 * i] * parabola(y);
      norm += parabola(y) * parabola(y);
    }
  fitted /= norm;
  for (const AmrBlockSample& b : solver.sample()) {
    if (!b.leaf || b.level != 1) continue;
    const int n = b.box.extent(0);
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      const int x = b.box.lo[0] + int(i % n), y = b.box.lo[1] + int(i / n);
      if (x != 63 && x != 64) continue;
      profile_error = std::max(profile_error, std::abs(b.density[i] * b.velocity[3 * i] - fitted * parabola((y + 0.5) / 2 - 0.5)) /
                                                  (rho0 * u_max));
    }
  }
  std::printf("steady after %ld steps: flux vs imposed %.3e (level 0), vs imposed %+.3e: %.3e (level 1); rho u against the "
              "coarse profile at the slab's middle %.3e\n", steady.steps, worst_coarse, quadrature, worst_fine, profile_error);
  EXPECT_LE(worst_coarse, 5e-5);  // 2.6e-5 measured: the coupling's mass defect (README "AMR")
  EXPECT_LE(worst_fine, 5e-5);    // 1.5e-5
  EXPECT_LE(profile_error, 5e-4);  // 1.2e-4
}

// A free-slip face on the levels is a mirror plane: a force-driven channel (D2Q9, periodic along
// x, 8 x 16 level-0 cells, the wall's quarter on level 1) with a free-slip upper face and a box
// through it computes, at every leaf cell, what the lower half of the channel mirrored across that
// face computes (8 x 32, walls at both ends, both quarters on level 1, the whole box), and its
// half of the box takes half the whole box's drag (links reflected by the face into the box push
// it, as their mirror images do).
TEST(AmrChannel, FreeSlipFaceIsTheMirrorPlane) {
  const auto deck = [](bool half) {
    return std::string("[lattice]\nmodel = \"D2Q9\"\n[simulation]\nsteps = 1\n[domain]\ncells = [8, ") + (half ? "16" : "32") +
           "]\n[collision]\nmodel = \"TRT\"\n[physics]\ntau = 0.8\nforce = [1e-5, 0]\n[boundary]\n"
           "x_min.type = \"periodic\"\nx_max.type = \"periodic\"\n" + (half ? "y_max.type = \"free_slip\"\n" : "") +
           "[[obstacle]]\nshape = \"box\"\nlo = [2, 12]\nhi = [5, " + (half ? "15.5" : "19") + "]\n[forces]\n"
           "reference_velocity = 0.01\nreference_length = 4\n[amr]\nmax_level = 1\n[[amr.region]]\nlo = [0, 0]\nhi = [7, 3]\n"
           "level = 1\n" + (half ? "" : "[[amr.region]]\nlo = [0, 28]\nhi = [7, 31]\nlevel = 1\n");
  };
  testing::AmrCase half(deck(true)), full(deck(false));
  half.solver->advance(3000);
  full.solver->advance(3000);
  std::map<std::pair<int, std::array<int, 3>>, const AmrBlockSample*> mirror;
  const std::vector<AmrBlockSample> whole = full.solver->sample();
  for (const AmrBlockSample& b : whole) mirror[{b.level, b.box.lo}] = &b;
  double worst = 0;
  long compared = 0;
  for (const AmrBlockSample& b : half.solver->sample()) {
    if (!b.leaf) continue;
    const AmrBlockSample* m = mirror.at({b.level, b.box.lo});
    ASSERT_TRUE(m->leaf);
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      if (b.flags[i] != 0) continue;
      worst = std::max({worst, std::abs(b.density[i] - m->density[i]), std::abs(b.velocity[3 * i] - m->velocity[3 * i]),
                        std::abs(b.velocity[3 * i + 1] - m->velocity[3 * i + 1])});
      ++compared;
    }
  }
  const std::array<double, 3> f_half = half.solver->body_forces().at(0), f_full = full.solver->body_forces().at(0);
  std::printf("free-slip half vs mirrored whole: %ld cells, worst difference %.3e; drag %.9e vs half the whole %.9e\n",
              compared, worst, f_half[0], f_full[0] / 2);
  EXPECT_GT(compared, 8 * 16 - 16);
  EXPECT_LE(worst, 4e-15);  // 8.9e-16 measured (the interpolation sums in another order)
  EXPECT_NEAR(f_half[0], f_full[0] / 2, 1e-12 * std::abs(f_full[0]));
  EXPECT_GT(f_half[0], 0);
}

}  // namespace
}  // namespace boreas
