// AMR on several ranks (issue 13 B): the leaves shared along the Morton curve, ghost leaves (their interiors)
// exchanged after every step of a level, or with CRMT on leaves every k steps (the held leaves of
// others stepped locally in between, k derived per forest). Every rank count gives the one-rank
// run bit for bit (fields_hash over the leaves, keyed by level and cell), through regrids, on D2Q9/D3Q19/D3Q27,
// double and float; the messages counted by the MPI wrapper are the ones the plan predicts; and
// what users read (samples written to .vthb, mass, forces, probes, time averages, checkpointed populations)
// equals one rank's.
// Every overlap strategy, CRMT on and off. The binary runs under mpiexec with N ranks and tests
// the rank counts n in {2, 3, 4, 8} with N / 2 <= n <= N.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "tests/mpi/Ranks.hpp"

namespace boreas {
namespace {

struct AmrDeck {
  const char* name;
  const char* text;
  long steps;
  int crmt_period;  // the exchange period CRMT on leaves reaches at least on this deck, on every rank count
};

// A cylinder wake (parabolic inlet with synthetic turbulence, forces on the body, a pressure
// outlet and an outflow face beside it) refined twice around the body, regridded by vorticity
// every 20 steps; a
// periodic 3D Taylor-Green box with a refined slab and a refined corner (3 levels); the D3Q27
// lid-driven cube in float with walls refined, a free-slip face, cumulant collision and the
// coherent-structure model (its velocity gradient reads the neighbours: CRMT's trial counts it); a closed D2Q9 box with a turning cylinder and a box closed by interpolated bounce-back on
// levels 1 and 2, forces on both, past a mass restoration (every 100 steps); a forced D2Q9
// channel whose walls of interpolated bounce-back lie between fine cell centres and their coarse
// cells' at a level-1 slab's interfaces (those ghosts interpolated toward the wall), forces on
// both walls.
const AmrDeck amr_decks[] = {
    {"cylinder_d2q9_regrid", R"(
[lattice]
model = "D2Q9"
[domain]
cells = [64, 32]
[collision]
model = "TRT"
magic = 0.05
[physics]
tau = 0.56
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.06, 0.0]
profile = "parabolic"
turbulence_intensity = 0.05
turbulence_length = 4
[boundary.x_max]
type = "pressure_outlet"
density = 1.0
[boundary.y_max]
type = "outflow"
[[obstacle]]
shape = "cylinder"
center = [20.0, 15.5]
radius = 4.0
[forces]
reference_velocity = 0.04
reference_length = 8.0
[amr]
leaf_size = 4
max_level = 2
regrid_every = 20
criterion = "vorticity"
refine_above = 0.01
coarsen_below = 0.005
[[amr.region]]
lo = [14, 10]
hi = [27, 21]
level = 2
)",
     50, 1},  // 1 or 2 by rank count and forest (2 on all until the coupling read diagonal neighbours, 2026-12-06)
    {"taylor_green_d3q19_periodic", R"(
[lattice]
model = "D3Q19"
[domain]
cells = [16, 16, 16]
[physics]
tau = 0.6
[initial]
type = "taylor_green"
amplitude = 0.03
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[boundary.y_min]
type = "periodic"
[boundary.y_max]
type = "periodic"
[boundary.z_min]
type = "periodic"
[boundary.z_max]
type = "periodic"
[amr]
leaf_size = 4
max_level = 2
[[amr.region]]
lo = [0, 0, 6]
hi = [15, 15, 9]
level = 1
[[amr.region]]
lo = [0, 0, 7]
hi = [3, 3, 8]
level = 2
)",
     6, 3},
    {"cavity_d3q27_float_cumulant_les", R"(
[lattice]
model = "D3Q27"
precision = "float"
[collision]
model = "cumulant"
sgs = "csm"
[domain]
cells = [16, 16, 16]
[physics]
tau = 0.6
[boundary.y_max]
type = "moving_wall"
velocity = [0.05, 0.0, 0.0]
[boundary.z_max]
type = "free_slip"
[amr]
leaf_size = 4
max_level = 1
[[amr.region]]
near = "walls"
distance = 1.0
level = 1
)",
     4, 2},
    {"turning_cylinder_d2q9_closed", R"(
[lattice]
model = "D2Q9"
[domain]
cells = [24, 16]
[physics]
tau = 0.7
[[obstacle]]
shape = "cylinder"
center = [9.3, 7.6]
radius = 3.2
angular_velocity = 0.02
bounce_back = "interpolated"
[[obstacle]]
shape = "box"
lo = [16.2, 3.3]
hi = [19.6, 9.1]
bounce_back = "interpolated"
[forces]
reference_velocity = 0.064
reference_length = 6.4
[amr]
leaf_size = 4
max_level = 2
[[amr.region]]
lo = [4, 3]
hi = [20, 12]
level = 1
[[amr.region]]
lo = [6, 5]
hi = [12, 10]
level = 2
)",
     110, 2},
    {"cut_walls_d2q9_forced", R"(
[lattice]
model = "D2Q9"
[domain]
cells = [32, 20]
[physics]
tau = 0.8
force = [2e-5, 0.0]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[[obstacle]]
shape = "box"
lo = [4.0, -1.0]
hi = [28.0, 2.2]
bounce_back = "interpolated"
[[obstacle]]
shape = "box"
lo = [-5.0, 16.8]
hi = [40.0, 21.0]
bounce_back = "interpolated"
[forces]
reference_velocity = 0.01
reference_length = 14.6
[amr]
leaf_size = 4
max_level = 1
[[amr.region]]
lo = [8, 0]
hi = [23, 19]
level = 1
)",
     40, 1},  // 2 on 2, 4 and 8 ranks, 1 on 3
};

struct AmrRun {
  std::uint64_t hash = 0;
  double mass = 0;
  std::vector<unsigned char> populations;
  std::vector<AmrBlockSample> samples;
  std::vector<std::array<double, 3>> forces;  // with [forces]
  std::vector<double> statistics;  // time averages of every step, carried through regrids
  std::vector<double> probes;      // two probes in the fluid
  long long messages = 0, planned = 0;
  int regrids = 0, period = 1;
};

// The deck's run to `steps` on `comm`, regridding as the driver does; with CRMT on leaves or not.
AmrRun run(const AmrDeck& d, MPI_Comm comm, const std::string& overlap = "none", bool crmt = false) {
  std::string text = d.text;
  text.replace(text.find("[amr]\n"), 6, std::string("[amr]\ncrmt = ") + (crmt ? "true\n" : "false\n"));
  const Config config = parse_deck_string(std::string("[simulation]\nsteps = ") + std::to_string(d.steps) +
                                              "\n[parallel]\noverlap = \"" + overlap + "\"\n" + text,
                                          d.name, ".");
  const DomainGeometry domain(config);
  std::unique_ptr<AmrSolver> solver = AmrSolver::create(config, domain, build_forest(config, domain), comm);
  AmrRun r;
  r.period = solver->exchange_period();
  long long set_up = solver->messages_sent();  // the initial state's exchange, not a step's
  long stepped = 0;                             // by this solver
  const auto count = [&] {
    r.messages += solver->messages_sent() - set_up;
    r.planned += solver->messages_planned(stepped);
  };
  for (long s = 0; s < d.steps; ++s) {
    solver->advance(1);
    ++stepped;
    solver->add_statistics_sample();
    if (config.amr.regrid_every > 0 && solver->step() % config.amr.regrid_every == 0) {
      Forest forest = regrid_forest(config, domain, solver->forest(), solver->sample());
      if (!(forest == solver->forest())) {
        count();
        solver = solver->regridded(config, domain, std::move(forest));
        set_up = solver->messages_sent();
        stepped = 0;
        ++r.regrids;
        r.period = std::min(r.period, solver->exchange_period());
      }
    }
  }
  count();
  r.hash = solver->fields_hash();
  r.mass = solver->mass();
  r.populations = solver->populations();
  r.samples = solver->sample();
  if (config.forces.enabled) r.forces = solver->body_forces();
  r.statistics = solver->statistics_state();
  const std::array<int, 3>& n = config.cells;
  r.probes = solver->probe_values({{"corner", {1, 1, n[2] > 1 ? 1 : 0}}, {"side", {n[0] - 2, n[1] / 2, n[2] / 2}}});
  return r;
}

class AmrRanks : public ::testing::TestWithParam<int> {};

TEST_P(AmrRanks, EveryRankCountGivesTheOneRankRun) {
  const AmrDeck& deck = amr_decks[GetParam()];
  ensure_mpi_initialized();
  int world = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const AmrRun one = run(deck, MPI_COMM_SELF);
  // CRMT must save messages on some rank count of each deck (k depends on the partition, and
  // after a regrid on the new forest: where it is 1, CRMT on runs as off).
  int saved = 0;
  bool tested = false;
  for (int n : {2, 3, 4, 8}) {
    if (n > world || 2 * n < world) continue;  // np3: 2 and 3 ranks; np8: 4 and 8
    tested = true;
    MPI_Comm comm = test::first_ranks(n);
    if (comm == MPI_COMM_NULL) continue;
    long long without_crmt = 0;
    for (const bool crmt : {false, true})
    for (const char* overlap : {"none", "nonblocking", "interior", "streams", "systolic"}) {
      SCOPED_TRACE(std::string(deck.name) + " on " + std::to_string(n) + " ranks, overlap " + overlap +
                   (crmt ? ", CRMT on leaves" : ""));
      const AmrRun many = run(deck, comm, overlap, crmt);
      EXPECT_EQ(many.hash, one.hash);
      EXPECT_EQ(many.mass, one.mass);  // summed exactly
      EXPECT_EQ(many.populations, one.populations);
      EXPECT_EQ(many.forces, one.forces);
      EXPECT_EQ(many.statistics, one.statistics);
      EXPECT_EQ(many.probes, one.probes);
      // EXPECT, not ASSERT: a rank leaving the test early would leave the others in its collectives.
      EXPECT_EQ(many.samples.size(), one.samples.size());
      for (std::size_t k = 0; k < std::min(one.samples.size(), many.samples.size()); ++k) {
        EXPECT_EQ(many.samples[k].density, one.samples[k].density);
        EXPECT_EQ(many.samples[k].velocity, one.samples[k].velocity);
        EXPECT_EQ(many.samples[k].flags, one.samples[k].flags);
      }
      EXPECT_EQ(many.regrids, one.regrids);
      if (std::string(deck.name).find("regrid") != std::string::npos) EXPECT_GE(many.regrids, 1);
      EXPECT_EQ(many.messages, many.planned);
      const long long messages = Comm(comm).sum(many.messages);
      EXPECT_GT(messages, 0);
      if (!crmt) {
        EXPECT_EQ(many.period, 1);
        without_crmt = messages;
      } else {
        // Every rank derives the same period; k of them save k - 1 of every k exchanges.
        EXPECT_EQ(Comm(comm).sum(static_cast<long long>(many.period)), static_cast<long long>(many.period) * n);
        EXPECT_GE(many.period, deck.crmt_period);
        if (messages < without_crmt) saved = 1;
        if (many.period > 1) EXPECT_LT(messages, without_crmt);
      }
    }
    MPI_Comm_free(&comm);
  }
  // Ranks outside a tested count's communicator did not see its runs: ask every rank.
  int saved_anywhere = saved;
  MPI_Allreduce(&saved, &saved_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (tested) EXPECT_EQ(saved_anywhere, 1) << deck.name << ": CRMT on leaves saved no message on any rank count";
}

// What an unstable run falls back to (save_state, restore_state) includes where CRMT's exchange
// period stood: stepping on from the restored state exchanges at the steps, and gives the state,
// of the run that never left it (the period's count stayed at the later step's: exchanges fell a
// step late, the held leaves of other ranks stepped locally past the period).
TEST(AmrRanksRestore, ARestoredStateStepsOnAsTheStateItWas) {
  ensure_mpi_initialized();
  MPI_Comm comm = test::first_ranks(2);
  if (comm == MPI_COMM_NULL) return;
  std::string text = amr_decks[0].text;
  text.replace(text.find("[amr]\n"), 6, "[amr]\ncrmt = true\n");
  const Config config = parse_deck_string("[simulation]\nsteps = 10\n" + text, amr_decks[0].name, ".");
  const DomainGeometry domain(config);
  std::unique_ptr<AmrSolver> straight = AmrSolver::create(config, domain, build_forest(config, domain), comm);
  const int period = straight->exchange_period();
  ASSERT_GE(period, 2);
  straight->advance(1);
  const long long before = straight->messages_sent();
  straight->advance(5);
  std::unique_ptr<AmrSolver> restored = AmrSolver::create(config, domain, build_forest(config, domain), comm);
  restored->advance(1);  // one step into an exchange period
  restored->save_state();
  restored->advance(period - 1);  // to the period's exchange: its count starts again
  restored->restore_state();
  const long long restored_before = restored->messages_sent();
  restored->advance(5);
  EXPECT_EQ(restored->messages_sent() - restored_before, straight->messages_sent() - before);
  EXPECT_EQ(restored->fields_hash(), straight->fields_hash());
  EXPECT_EQ(restored->populations(), straight->populations());
  MPI_Comm_free(&comm);
}

// The run's stability check (AmrSolver::health) names the same cell and density on every rank
// count: the coarsest level with a density outside (0.1, 10) rho0, its lowest cell index over all
// ranks' leaves (the spikes below lie on leaves of different ranks), NaN as well.
TEST(AmrRanksHealth, TheFirstBadCellIsTheSameOnEveryRankCount) {
  ensure_mpi_initialized();
  const Config config = parse_deck_string(
      "[simulation]\nsteps = 10\n[lattice]\nmodel = \"D2Q9\"\n[domain]\ncells = [32, 32]\n[physics]\ntau = 0.6\n"
      "[amr]\nleaf_size = 4\nmax_level = 1\n[[amr.region]]\nlo = [0, 16]\nhi = [31, 31]\nlevel = 1\n",
      "health", ".");
  const DomainGeometry domain(config);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Points in level-0 cell-centre coordinates: level-1 cells (10, 33), (63, 40) and (2, 62) have
  // their centres at (c + 1/2) / 2 - 1/2; level-0 cell (30, 1).
  const std::array<double, 3> nan_at_33{4.75, 16.25, nan}, high_at_40{31.25, 19.75, 12.0}, low_at_62{0.75, 30.75, 0.05},
      level0{30, 1, 20.0};
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  for (int n : {1, 2, 3, 8}) {
    if (n > world) continue;
    MPI_Comm comm = test::first_ranks(n);
    if (comm == MPI_COMM_NULL) continue;
    std::unique_ptr<AmrSolver> solver = AmrSolver::create(config, domain, build_forest(config, domain), comm);
    auto health_with = [&](const std::vector<std::array<double, 3>>& spikes) {
      solver->set_state([&](const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
        rho = 1;
        u = {0, 0, 0};
        for (const auto& p : spikes)
          if (std::abs(x[0] - p[0]) < 1e-9 && std::abs(x[1] - p[1]) < 1e-9) rho = p[2];
      });
      return solver->health(config.density);
    };
    EXPECT_TRUE(health_with({}).ok) << n << " ranks";
    const AmrHealth fine = health_with({low_at_62, high_at_40});
    EXPECT_EQ(fine.level, 1) << n << " ranks";
    EXPECT_EQ(fine.cell, (std::array<long long, 3>{63, 40, 0})) << n << " ranks";
    EXPECT_NEAR(fine.density, 12.0, 1e-12) << n << " ranks";
    // set_state's differences carry a NaN to the cell's neighbours: (10, 32) is the first.
    const AmrHealth not_a_number = health_with({low_at_62, high_at_40, nan_at_33});
    EXPECT_EQ(not_a_number.cell, (std::array<long long, 3>{10, 32, 0})) << n << " ranks";
    EXPECT_TRUE(std::isnan(not_a_number.density)) << n << " ranks";
    const AmrHealth coarse = health_with({low_at_62, high_at_40, nan_at_33, level0});
    EXPECT_EQ(coarse.level, 0) << n << " ranks";
    EXPECT_EQ(coarse.cell, (std::array<long long, 3>{30, 1, 0})) << n << " ranks";
    EXPECT_NEAR(coarse.density, 20.0, 1e-12) << n << " ranks";
    solver.reset();
    MPI_Comm_free(&comm);
  }
}

INSTANTIATE_TEST_SUITE_P(Decks, AmrRanks, ::testing::Range(0, int(sizeof(amr_decks) / sizeof(amr_decks[0]))),
                         [](const ::testing::TestParamInfo<int>& info) { return std::string(amr_decks[info.param].name); });

}  // namespace
}  // namespace boreas
