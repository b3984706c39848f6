// The halo sends exactly the populations that cross each face, edge and corner: the messages
// and bytes counted in the MPI wrapper equal the plan's prediction, and the prediction equals
// the closed form for a fully periodic box split into equal Cartesian blocks:
//   per rank and step, for every split axis 2 face messages of (face cells x P_face) values,
//   for every pair of split axes 4 edge messages of (edge cells x P_edge) values, and with all
//   three axes split 8 corner messages of P_corner values when P_corner > 0,
// with (P_face, P_edge, P_corner) = (5, 1, 0) for D3Q19 and (9, 3, 1) for D3Q27.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <string>

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

Expected closed_form(const std::array<int, 3>& p, int face, int edge, int corner) {
  const int n[3] = {12 / p[0], 12 / p[1], 12 / p[2]};
  Expected e{0, 0};
  for (int d = 0; d < 3; ++d)
    if (p[d] > 1) {
      e.messages += 2;
      e.values += 2LL * n[(d + 1) % 3] * n[(d + 2) % 3] * face;
    }
  for (int d = 0; d < 3; ++d) {  // the edge along axis d joins the two other axes
    const int a = (d + 1) % 3, b = (d + 2) % 3;
    if (p[a] > 1 && p[b] > 1 && edge > 0) {
      e.messages += 4;
      e.values += 4LL * n[d] * edge;
    }
  }
  if (p[0] > 1 && p[1] > 1 && p[2] > 1 && corner > 0) {
    e.messages += 8;
    e.values += 8LL * corner;
  }
  return e;
}

TEST(HaloMessages, CountedMessagesAndBytesMatchThePlanAndTheClosedForm) {
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
    const Expected e = closed_form(p, k.face, k.edge, k.corner);
    EXPECT_EQ(m["predicted_per_step"].as_int64(), e.messages * size) << k.lattice;
    EXPECT_EQ(m["predicted_bytes_per_step"].as_int64(), e.values * 8 * size) << k.lattice;
  }
}

}  // namespace
}  // namespace boreas
