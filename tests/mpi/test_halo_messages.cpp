// The halo sends exactly the populations the receiver reads: the messages and bytes counted in
// the MPI wrapper equal the plan's prediction times the exchanges, and the prediction equals the
// closed form for a fully periodic box split into equal Cartesian blocks. Per rank and exchange
// there is one message for every direction o (26 in 3D) that leaves the rank (o_d != 0 on an
// axis split into p_d > 1 blocks, periodic images included), unless it carries nothing. With a
// ghost layer h deep, a ghost at distance j from the box carries q when it is pulled by a cell
// computed before the next exchange (distance <= h - 1): j - t_d <= h - 1 on every axis d with
// o_d != 0, t_d = -o_d c_q,d (+1 towards the box). So the region o carries
//   (cells of the face / edge / corner) x sum_q prod_{d: o_d != 0} max(0, h - 1 + t_d)
// values: h = 1 gives 5, 1, 0 (D3Q19) and 9, 3, 1 (D3Q27) per face, edge and corner cell.
// CRMT exchanges once every k = h steps.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <string>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/Lattice.hpp"

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

struct Expected {
  long long messages, values;
};

template <class L>
Expected closed_form(const std::array<int, 3>& p, int h) {
  const int n[3] = {12 / p[0], 12 / p[1], 12 / p[2]};
  Expected e{0, 0};
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        const int o[3] = {ox, oy, oz};
        bool leaves = false;
        long long cells = 1;
        for (int d = 0; d < 3; ++d) {
          if (o[d] == 0) cells *= n[d];
          if (o[d] != 0 && p[d] > 1) leaves = true;
        }
        long long per_cell = 0;
        for (int q = 0; q < L::Q; ++q) {
          long long layers = 1;
          for (int d = 0; d < 3; ++d)
            if (o[d] != 0) layers *= std::max(0, h - 1 - o[d] * L::c(q, d));
          per_cell += layers;
        }
        if (!leaves || (ox == 0 && oy == 0 && oz == 0) || per_cell == 0) continue;
        e.messages += 1;
        e.values += cells * per_cell;
      }
  return e;
}

TEST(HaloMessages, CountedMessagesAndBytesMatchThePlanAndTheClosedForm) {
  ensure_mpi_initialized();  // tests/main.cpp starts Kokkos only
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GE(size, 2) << "run under mpiexec with at least 2 ranks";
  std::array<int, 3> p{size, 1, 1};
  if (size == 4) p = {1, 2, 2};
  if (size == 8) p = {2, 2, 2};
  const long steps = 7;  // not a multiple of k = 2 or 3
  for (const char* lattice : {"D3Q19", "D3Q27"})
    for (int h : {1, 2, 3}) {
      const Config c = parse_deck_string(periodic_box(lattice, p),
                                         "periodic_box", ".", {"parallel.ghost_width=" + std::to_string(h)});
      auto sim = Simulation::create(c);
      sim->advance(steps);
      const json::Value rep = sim->parallel_report();
      const json::Value& m = rep["messages"];
      const std::string what = std::string(lattice) + " h=" + std::to_string(h);
      const long long exchanges = m["exchanges"].as_int64();
      EXPECT_EQ(exchanges, steps / h + 1) << what;  // the cycles completed plus the initial fill
      EXPECT_EQ(m["counted"].as_int64(), m["predicted_per_exchange"].as_int64() * exchanges) << what;
      EXPECT_EQ(m["counted_bytes"].as_int64(), m["predicted_bytes_per_exchange"].as_int64() * exchanges)
          << what;
      const Expected e = std::string(lattice) == "D3Q19" ? closed_form<D3Q19>(p, h) : closed_form<D3Q27>(p, h);
      EXPECT_EQ(m["predicted_per_exchange"].as_int64(), e.messages * size) << what;
      EXPECT_EQ(m["predicted_bytes_per_exchange"].as_int64(), e.values * 8 * size) << what;
    }
}

}  // namespace
}  // namespace boreas
