// The halo sends exactly the populations that cross each face, edge and corner: the messages
// and bytes counted in the MPI wrapper equal the plan's prediction, and the prediction equals
// the closed form for a fully periodic box split into equal Cartesian blocks. Per rank and step
// there is one message for every direction o (26 in 3D) that leaves the rank, i.e. crosses a
// split axis (o_d != 0 with p_d > 1; periodic images included), unless no population crosses it;
// it carries (cells of the face / edge / corner) x P values, P = (5, 1, 0) for D3Q19 and
// (9, 3, 1) for D3Q27 on faces, edges and corners.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"

namespace boreas {
namespace {

Config periodic_box(const std::string& lattice, const std::array<int, 3>& p) {
  std::string text = "[simulation]\nsteps = 6\n[lattice]\nmodel = \"" + lattice +
                     "\"\n[domain]\ncells = [12, 12, 12]\n[physics]\ntau = 0.7\n"
                     "[initial]\ntype = \"taylor_green\"\namplitude = 0.03\n[output]\nvtk = false\n";
  for (const char* f : {"x_min", "x_max", "y_min", "y_max", "z_min", "z_max"})
    text += std::string("[boundary.") + f + "]\ntype = \"periodic\"\n";
  text += "[parallel]\noverlap = \"systolic\"\ndims = [" + std::to_string(p[0]) + ", " +
          std::to_string(p[1]) + ", " + std::to_string(p[2]) + "]\n";
  return parse_deck_string(text, "periodic_box", ".");
}

struct Expected {
  long long messages, values;
};

Expected closed_form(const std::array<int, 3>& p, const std::array<int, 3>& per_kind) {
  const int n[3] = {12 / p[0], 12 / p[1], 12 / p[2]};
  Expected e{0, 0};
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        const int o[3] = {ox, oy, oz};
        int nonzero = 0;
        bool leaves = false;
        long long cells = 1;
        for (int d = 0; d < 3; ++d) {
          if (o[d] == 0) cells *= n[d];
          else ++nonzero;
          if (o[d] != 0 && p[d] > 1) leaves = true;
        }
        if (!leaves || per_kind[nonzero - 1] == 0) continue;
        e.messages += 1;
        e.values += cells * per_kind[nonzero - 1];
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
  struct Case {
    const char* lattice;
    int face, edge, corner;
  };
  for (const Case& k : {Case{"D3Q19", 5, 1, 0}, Case{"D3Q27", 9, 3, 1}}) {
    const Config c = periodic_box(k.lattice, p);
    auto sim = Simulation::create(c);
    sim->advance(c.steps);
    const json::Value rep = sim->parallel_report();
    const json::Value& m = rep["messages"];
    const long long exchanges = m["exchanges"].as_int64();
    EXPECT_EQ(exchanges, c.steps + 1);  // the steps plus the initial ghost fill
    EXPECT_EQ(m["counted"].as_int64(), m["predicted_per_step"].as_int64() * exchanges) << k.lattice;
    EXPECT_EQ(m["counted_bytes"].as_int64(), m["predicted_bytes_per_step"].as_int64() * exchanges)
        << k.lattice;
    const Expected e = closed_form(p, {k.face, k.edge, k.corner});
    EXPECT_EQ(m["predicted_per_step"].as_int64(), e.messages * size) << k.lattice;
    EXPECT_EQ(m["predicted_bytes_per_step"].as_int64(), e.values * 8 * size) << k.lattice;
  }
}

}  // namespace
}  // namespace boreas
