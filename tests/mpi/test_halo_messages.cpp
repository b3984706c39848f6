// The halo sends exactly the populations the receiver reads, in one message per peer and
// boundary-slab group: the messages and bytes counted in the MPI wrapper equal the plan's
// prediction times the exchanges, and the prediction equals the closed form below for a fully
// periodic 12^3 box split into equal Cartesian blocks of n_d cells.
//
// Values. With a ghost layer h deep, a ghost at distance j from the box carries q when a cell
// computed before the next exchange (distance <= h - 1) pulls it: j - t_d <= h - 1 on every axis
// d with o_d != 0, t_d = -o_d c_q,d (+1 towards the box); for h = 1 the pulling cell must also lie
// in the box along the other axes. Region o (face, edge or corner) carries
//   sum_q prod_{d: o_d != 0} max(0, h - 1 + t_d) x prod_{d: o_d = 0} (n_d, or n_d - |c_q,d| for h = 1)
// values (h = 1: 5, 1, 0 per face, edge and corner cell for D3Q19 away from the rim of a face;
// 9, 3, 1 for D3Q27), and is remote when o_d != 0 on an axis split into p_d > 1 blocks.
// Messages. The peer of region o sits at grid offset o mod p. The sender's cells of region o lie
// within h of its faces on the axes where o_d != 0 and anywhere on the others; a cell's group is
// the first axis within h of whose faces it lies, so region o spans the groups d <= f (f: the
// first axis with o_d != 0) for which every axis d' < d has interior cells (n_d' > 2h). Each
// rank sends, per peer, one message per group in the union over the peer's regions. CRMT
// exchanges once every k = h steps.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

std::string periodic_box(const std::string& lattice, const std::array<int, 3>& p) {
  std::string text = "[simulation]\nsteps = 6\n[lattice]\nmodel = \"" + lattice +
                     "\"\n[domain]\ncells = [12, 12, 12]\n[physics]\ntau = 0.7\n"
                     "[initial]\ntype = \"taylor_green\"\namplitude = 0.03\n[output]\nvtk = false\n";
  for (const char* f : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
    text += std::string("[boundary.") + f + "]\ntype = \"periodic\"\n";
  text += "[parallel]\noverlap = \"systolic\"\ndims = [" + std::to_string(p[0]) + ", " +
          std::to_string(p[1]) + ", " + std::to_string(p[2]) + "]\n";
  return text;
}

int world_size() {
  ensure_mpi_initialized();  // tests/main.cpp starts Kokkos only
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// The Cartesian grid the tests split the box into for `size` ranks.
std::array<int, 3> process_grid(int size) {
  if (size == 4) return {1, 2, 2};
  if (size == 8) return {2, 2, 2};
  return {size, 1, 1};
}

struct Expected {
  long long messages, values;  // per rank and exchange
};

template <class L>
Expected closed_form(const std::array<int, 3>& p, int h) {
  const int n[3] = {12 / p[0], 12 / p[1], 12 / p[2]};
  std::map<std::array<int, 3>, std::set<int>> groups_of_peer;
  Expected e{0, 0};
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        const int o[3] = {ox, oy, oz};
        std::array<int, 3> peer{};
        bool leaves = false;
        int first = -1;
        for (int d = 0; d < 3; ++d) {
          if (o[d] != 0 && first < 0) first = d;
          if (o[d] != 0 && p[d] > 1) leaves = true;
          peer[d] = ((o[d] % p[d]) + p[d]) % p[d];
        }
        long long values = 0;
        for (int q = 0; q < L::Q; ++q) {
          long long v = 1;
          for (int d = 0; d < 3; ++d)
            v *= o[d] != 0 ? std::max(0, h - 1 - o[d] * L::c(q, d)) : n[d] - (h == 1 ? std::abs(L::c(q, d)) : 0);
          values += v;
        }
        if (first < 0 || !leaves || values == 0) continue;
        e.values += values;
        for (int d = 0; d <= first; ++d) {
          bool interior_below = true;
          for (int b = 0; b < d; ++b) interior_below = interior_below && n[b] > 2 * h;
          if (interior_below) groups_of_peer[peer].insert(d);
        }
      }
  for (const auto& [peer, groups] : groups_of_peer) e.messages += static_cast<long long>(groups.size());
  return e;
}

TEST(HaloMessages, CountedMessagesAndBytesMatchThePlanAndTheClosedForm) {
  const int size = world_size();
  ASSERT_GE(size, 2) << "run under mpiexec with at least 2 ranks";
  const std::array<int, 3> p = process_grid(size);
  const long steps = 7;  // not a multiple of k = 2 or 3
  for (const char* lattice : {"D3Q19", "D3Q27"})
    for (int h : {1, 2, 3}) {
      const Config c = parse_deck_string(periodic_box(lattice, p),
                                         "periodic_box", ".", {"parallel.ghost_width=" + std::to_string(h)});
      auto sim = Simulation::create(c);
      sim->advance(steps);
      const Json rep = sim->parallel_report();
      const Json& m = rep["messages"];
      const std::string what = std::string(lattice) + " h=" + std::to_string(h);
      const long long exchanges = m["exchanges"].get<std::int64_t>();
      EXPECT_EQ(exchanges, steps / h + 1) << what;  // the cycles completed plus the initial fill
      EXPECT_EQ(m["counted"].get<double>(), m["predicted_per_exchange"].get<double>() * exchanges) << what;
      EXPECT_EQ(m["counted_bytes"].get<double>(), m["predicted_bytes_per_exchange"].get<double>() * exchanges) << what;
      const Expected e = std::string(lattice) == "D3Q19" ? closed_form<D3Q19>(p, h) : closed_form<D3Q27>(p, h);
      EXPECT_EQ(m["predicted_per_exchange"].get<double>(), double(e.messages * size)) << what;
      EXPECT_EQ(m["predicted_bytes_per_exchange"].get<double>(), double(e.values * 8 * size)) << what;
    }
}

// Directed links (x, q) of the periodic 12^3 box whose downwind cell x + c_q another rank owns,
// all ranks together: the values a one-layer exchange has to move.
template <class L>
long long cross_rank_links(const std::array<int, 3>& p) {
  const int n[3] = {12 / p[0], 12 / p[1], 12 / p[2]};
  auto owner = [&](int x, int y, int z) { return ((z / n[2]) * p[1] + y / n[1]) * p[0] + x / n[0]; };
  long long links = 0;
  for (int z = 0; z < 12; ++z)
    for (int y = 0; y < 12; ++y)
      for (int x = 0; x < 12; ++x)
        for (int q = 1; q < L::Q; ++q) {
          const int dx = (x + L::c(q, 0) + 12) % 12, dy = (y + L::c(q, 1) + 12) % 12, dz = (z + L::c(q, 2) + 12) % 12;
          if (owner(dx, dy, dz) != owner(x, y, z)) ++links;
        }
  return links;
}

// The variants that exchange one layer per step move one value per link that crosses ranks
// (ab_push and aa: one plan per state, under an overlap strategy; swap: each link pair crosses both
// ways at once, blocking) and send exactly what their plans predict.
TEST(HaloMessages, OneLayerVariantsMoveOneValuePerCrossRankLink) {
  const int size = world_size();
  ASSERT_GE(size, 2) << "run under mpiexec with at least 2 ranks";
  const std::array<int, 3> p = process_grid(size);
  const long steps = 5;
  for (const char* lattice : {"D3Q19", "D3Q27"})
    for (const char* kernel : {"ab_push", "aa", "swap", "swap_prism"}) {
      // ab_push and aa under the deck's systolic overlap, the swap sweeps with blocking exchanges.
      const bool parts = parse_scheme(kernel)->steps_in_parts();
      const Config c = parse_deck_string(periodic_box(lattice, p), "periodic_box", ".",
                                         {std::string("simulation.kernel=\"") + kernel + "\"",
                                          parts ? "parallel.overlap=\"systolic\"" : "parallel.overlap=\"none\""});
      auto sim = Simulation::create(c);
      sim->advance(steps);
      const Json rep = sim->parallel_report();
      const Json& m = rep["messages"];
      const std::string what = std::string(lattice) + " " + kernel;
      const long long exchanges = m["exchanges"].get<std::int64_t>();
      EXPECT_EQ(exchanges, steps + 1) << what;
      EXPECT_EQ(m["counted"].get<std::int64_t>(), m["predicted"].get<std::int64_t>()) << what;
      EXPECT_EQ(m["counted_bytes"].get<std::int64_t>(), m["predicted_bytes"].get<std::int64_t>()) << what;
      const long long links = std::string(lattice) == "D3Q19" ? cross_rank_links<D3Q19>(p) : cross_rank_links<D3Q27>(p);
      EXPECT_EQ(m["predicted_bytes"].get<std::int64_t>(), links * 8 * exchanges) << what;
    }
}

// A run restarted from a checkpoint reports its messages per step over its own steps (they were
// divided by the checkpoint's step as well: a third of the truth after 2000 + 1000 steps).
// merged2 exchanges once per two-step sweep, the same plan each time.
TEST(HaloMessages, PerStepFiguresOfARestartedRunCountItsOwnSteps) {
  const int size = world_size();
  ASSERT_GE(size, 2) << "run under mpiexec with at least 2 ranks";
  const Config c = parse_deck_string(periodic_box("D3Q19", process_grid(size)), "periodic_box", ".",
                                     {"simulation.kernel=\"merged2\"", "parallel.overlap=\"none\""});
  const std::string path = ::testing::TempDir() + "/boreas_halo_messages_restart.bchk";
  auto per_step_is_half_an_exchange = [](const Simulation& sim, const char* what) {
    const Json m = sim.parallel_report()["messages"];
    EXPECT_GT(m["predicted_per_exchange"].get<double>(), 0) << what;
    EXPECT_EQ(m["per_step"].get<double>(), 0.5 * m["predicted_per_exchange"].get<double>()) << what;
    EXPECT_EQ(m["bytes_per_step"].get<double>(), 0.5 * m["predicted_bytes_per_exchange"].get<double>()) << what;
  };
  {
    auto sim = Simulation::create(c);
    sim->advance(4);
    per_step_is_half_an_exchange(*sim, "first run");
    Json meta = Json::object();
    meta["step"] = sim->step();
    meta["signature"] = checkpoint_signature(c);
    sim->write_checkpoint(path, meta);
  }
  auto sim = Simulation::create(c);
  sim->read_checkpoint(path, open_checkpoint(MPI_COMM_WORLD, c, path));
  sim->advance(4);
  ASSERT_EQ(sim->step(), 8);
  per_step_is_half_an_exchange(*sim, "restarted run");
}

}  // namespace
}  // namespace boreas
