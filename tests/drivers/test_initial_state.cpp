// The initial state (README "Initial state"): every cell starts in the Chapman-Enskog state of the
// deck's velocity field and force (lbm/field/FieldOps.hpp initial_post_collision): the fields at
// step 0 are the deck's, and its first step is a viscous step. An equilibrium start streamed its
// first step as if tau were 1 and ignored the force's half step: these fail on it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/Deck.hpp"
#include "drivers/Integrals.hpp"
#include "drivers/Simulation.hpp"

namespace boreas {
namespace {

constexpr double pi = 3.14159265358979323846;

const std::string periodic2d =
    "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
    "[boundary.y_min]\ntype = \"periodic\"\n[boundary.y_max]\ntype = \"periodic\"\n";
const std::string periodic_z = "[boundary.z_min]\ntype = \"periodic\"\n[boundary.z_max]\ntype = \"periodic\"\n";

// A 2D vortex of wave number k = 2 pi / n along x and y holds the deck's energy U^2 / 4 at step 0
// and decays in its first step as in one step of viscosity nu: U^2 / 4 (1 - nu |k|^2)^2,
// |k|^2 = 2 k^2 (the equilibrium start gave (1 - |k|^2 / 6)^2: 6.4e-3 under the analytic energy at
// n = 64 and nu = 0.1, this 3.9e-3).
TEST(InitialState, AVortexDecaysByOneViscousStepInItsFirstStep) {
  for (const char* collision : {"BGK", "TRT"}) {
    const int n = 64;
    const double U = 1e-3, nu = 0.1, k2 = 2 * std::pow(2 * pi / n, 2);
    const Config c = parse_deck_string("[simulation]\nsteps = 1\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [64, 64]\n"
                                       "[collision]\nmodel = \"" + std::string(collision) + "\"\n[physics]\nviscosity = 0.1\n"
                                       "[initial]\ntype = \"taylor_green\"\namplitude = 1e-3\n" + periodic2d,
                                       "vortex.toml", "");
    const auto sim = Simulation::create(c, MPI_COMM_SELF);
    const double start = flow_integrals(*sim, sim->fluid_cells(), MPI_COMM_SELF)[0];
    EXPECT_NEAR(start / (U * U / 4), 1.0, 1e-6) << collision << ": step 0";  // rho / rho0 weighs it by 1 + O(U^2)
    sim->advance(1);
    const double energy = flow_integrals(*sim, sim->fluid_cells(), MPI_COMM_SELF)[0];
    const double expected = U * U / 4 * std::pow(1 - nu * k2, 2);
    EXPECT_NEAR(energy / expected, 1.0, 2e-4) << collision << ": " << energy / (U * U / 4);
  }
}

// A fluid at rest under a body force F: the start holds the post-collision momentum F / 2 of
// Guo's scheme, so the fields rest at step 0 and move at F / rho after one step, to rounding (the
// equilibrium start read -F / (2 rho) and F / (2 rho)). BGK, TRT and the cumulant, D3Q19 and D3Q27.
TEST(InitialState, ABodyForceAcceleratesTheFirstStep) {
  for (const char* lattice_collision : {"D3Q19 BGK", "D3Q19 TRT", "D3Q27 cumulant"}) {
    const std::string lc(lattice_collision);
    const std::string lattice = lc.substr(0, 5), collision = lc.substr(6);
    const Config c = parse_deck_string("[simulation]\nsteps = 1\n[lattice]\nmodel = \"" + lattice +
                                           "\"\n[domain]\ncells = [6, 5, 4]\n[collision]\nmodel = \"" + collision +
                                           "\"\n[physics]\ntau = 0.7\nforce = [2e-6, -1e-6, 5e-7]\n" + periodic2d + periodic_z,
                                       "forced.toml", "");
    const auto sim = Simulation::create(c, MPI_COMM_SELF);
    for (int step = 0; step <= 1; ++step) {
      const HostMacroscopic m = sim->macroscopic();
      for (std::size_t i = 0; i < m.density.size(); ++i)
        for (int d = 0; d < 3; ++d)
          ASSERT_NEAR(m.velocity[3 * i + d], step * c.force[d] / c.density, 1e-15)
              << lattice_collision << " step " << step << " cell " << i << " axis " << d;
      sim->advance(1);
    }
  }
}

// The channel start next to its walls, on the uniform grid and on an AMR level: finite everywhere
// (the power-law profile beyond the wall was the power of a negative number, NaN, and the AMR
// level's centred differences read it at the cells beside the walls).
TEST(InitialState, TheChannelStartIsFiniteBesideTheWalls) {
  const std::string deck =
      "[simulation]\nsteps = 2\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [16, 16, 16]\n[physics]\ntau = 0.6\n"
      "force = [1e-6, 0, 0]\n[initial]\ntype = \"channel\"\nvelocity = [0.05, 0, 0]\namplitude = 0.01\n"
      "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n"
      "[boundary.y_min]\ntype = \"wall\"\n[boundary.y_max]\ntype = \"wall\"\n" + periodic_z +
      "[output]\nvtk = false\n";
  for (const std::string extra : {"", "[amr]\nleaf_size = 8\n"}) {
    Config c = parse_deck_string(deck + extra, "channel.toml", "");
    c.output_dir = ::testing::TempDir() + "boreas_initial_channel";
    RunOptions quiet;
    quiet.progress = false;
    quiet.comm = MPI_COMM_SELF;
    const Json report = run_deck(c, quiet);
    EXPECT_EQ(report["status"].get<std::string>(), "completed") << (extra.empty() ? "uniform grid" : "AMR");
  }
}

}  // namespace
}  // namespace boreas
