// The sparse fluid-only storage (lbm/field/SparseField.hpp, comm/SparseLinks.hpp) is the dense
// storage bit for bit: on 1, 2, 3, 4 and 8 ranks, pull and AA (after even and odd step counts),
// bisection by fluid cells and Cartesian decompositions, several blocks per rank, with and without
// overlap, its fields_hash, exact mass and what a user reads (density, velocity and flags of every
// cell) equal the one-rank dense run's; one message per neighbour rank and step carries one value
// per remote link (counted by the MPI wrapper); its device memory is the lattices and tables of
// the fluid cells; checkpoints move between the storages and rank counts.
// Geometries: random voxel files at porosities 0.3 and 0.6 (periodic; walled axes), and the
// multi-rank decks whose faces the sparse storage takes (obstacles, force, TRT, D3Q27, float).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Simulation.hpp"
#include "tests/mpi/Decks.hpp"
#include "tests/mpi/Ranks.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;
using test::first_ranks;

struct Case {
  const char* name;
  double porosity;  // of the voxel file; 0: the deck has none
  const char* deck;
};

const char* porous_d3q19 = R"(
[simulation]
steps = 7
[lattice]
model = "D3Q19"
[domain]
cells = [20, 18, 16]
[collision]
model = "TRT"
[physics]
tau = 0.8
force = [2e-5, 1e-5, 0]
[geometry]
voxel_file = "voxels.raw"
dims = [20, 18, 16]
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
[output]
vtk = false
)";

const char* porous_d3q27_float_walls = R"(
[simulation]
steps = 6
[lattice]
model = "D3Q27"
precision = "float"
[domain]
cells = [20, 18, 16]
[physics]
tau = 0.7
force = [2e-5, 0, 0]
[geometry]
voxel_file = "voxels.raw"
dims = [20, 18, 16]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[output]
vtk = false
)";

const Case cases[] = {
    {"porous_030_d3q19_trt_periodic", 0.3, porous_d3q19},
    {"porous_060_d3q19_trt_periodic", 0.6, porous_d3q19},
    {"porous_030_d3q27_float_walls", 0.3, porous_d3q27_float_walls},
    {"taylor_green_periodic_d3q27", 0, test::decks[1].text},
    {"periodic_channel_cylinder_d2q9_trt_force", 0, test::decks[3].text},
};

const std::vector<std::vector<std::string>> variants = {
    {"simulation.kernel=\"ab_pull\""},
    {"simulation.kernel=\"aa\""},
    {"simulation.kernel=\"aa\"", "parallel.decomposition=\"bisection\""},
    {"simulation.kernel=\"ab_pull\"", "parallel.decomposition=\"bisection\"", "parallel.overlap=\"none\""},
    {"simulation.kernel=\"aa\"", "parallel.blocks_per_rank=3", "parallel.overlap=\"none\""},
};

// Writes the case's voxel file (rank 0) into a directory every rank knows: solid voxels drawn
// independently with probability 1 - porosity.
std::string prepare(const Case& c) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = test::shared_directory("boreas_sparse_storage");
  if (rank == 0 && c.porosity > 0) {
    fs::create_directories(dir);
    test::write_random_voxels(dir + "/voxels.raw", 20L * 18 * 16, 1 - c.porosity, 4242);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

struct Reference {
  std::uint64_t hash = 0;
  double mass = 0;
  HostMacroscopic fields;
};

// The one-rank dense run after `steps` (on every rank).
Reference dense_reference(const Config& config, long steps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Reference r;
  if (rank == 0) {
    auto sim = Simulation::create(config, MPI_COMM_SELF);
    sim->advance(steps);
    r.hash = sim->fields_hash();
    r.mass = sim->total_mass();
    r.fields = sim->macroscopic();
  }
  MPI_Bcast(&r.hash, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  MPI_Bcast(&r.mass, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  long n = static_cast<long>(r.fields.density.size());
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  r.fields.density.resize(n);
  r.fields.velocity.resize(3 * n);
  r.fields.flags.resize(n);
  MPI_Bcast(r.fields.density.data(), int(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(r.fields.velocity.data(), int(3 * n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(r.fields.flags.data(), int(n), MPI_UINT8_T, 0, MPI_COMM_WORLD);
  return r;
}

long differences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return -1;
  long n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
  return n;
}

class SparseStorage : public ::testing::TestWithParam<int> {};

TEST_P(SparseStorage, EqualsTheDenseStorageBitForBitOnEveryRankCount) {
  const Case& c = cases[GetParam()];
  ensure_mpi_initialized();
  int world_size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const std::string dir = prepare(c);
  auto config = [&](std::vector<std::string> overrides) { return parse_deck_string(c.deck, c.name, dir, overrides); };
  const long steps = config({}).steps;
  // An odd and an even step count: AA's two layouts.
  const Reference at_steps = dense_reference(config({}), steps), at_next = dense_reference(config({}), steps + 1);

  for (int n : {1, 2, 3, 4, 8}) {
    if (n > world_size) continue;
    MPI_Comm comm = first_ranks(n);
    if (comm == MPI_COMM_NULL) continue;
    for (const auto& v : variants) {
      std::vector<std::string> overrides = v;
      overrides.push_back("simulation.storage=\"sparse\"");
      const Config cfg = config(overrides);
      const std::string what = std::string(c.name) + " on " + std::to_string(n) + " ranks, variant " +
                               std::to_string(&v - variants.data());
      auto sim = Simulation::create(cfg, comm);
      EXPECT_EQ(sim->fluid_cells(), static_cast<long long>(std::count(at_steps.fields.flags.begin(),
                                                                      at_steps.fields.flags.end(), flag::fluid)))
          << what;
      for (const Reference* r : {&at_steps, &at_next}) {
        sim->advance(r == &at_steps ? steps : 1);
        const std::string when = what + " at step " + std::to_string(sim->step());
        EXPECT_EQ(sim->fields_hash(), r->hash) << when;
        const double mass = sim->total_mass();
        EXPECT_EQ(std::memcmp(&mass, &r->mass, sizeof mass), 0) << when << ": " << mass << " vs " << r->mass;
        EXPECT_TRUE(sim->check().ok) << when;
        const HostMacroscopic m = sim->macroscopic();
        EXPECT_EQ(differences(m.density, r->fields.density), 0) << when;
        EXPECT_EQ(differences(m.velocity, r->fields.velocity), 0) << when;
        EXPECT_EQ(m.flags, r->fields.flags) << when;
      }
      // One message per neighbour rank and step, one value per remote link; nothing else sent.
      const Json p = sim->parallel_report();
      const Json& msgs = p["messages"];
      EXPECT_EQ(msgs["counted"].get<long long>(), msgs["predicted"].get<long long>()) << what;
      EXPECT_EQ(msgs["counted_bytes"].get<long long>(), msgs["predicted_bytes"].get<long long>()) << what;
      const long long links = p["sparse"]["remote_links"].get<long long>();
      EXPECT_EQ(msgs["predicted_bytes"].get<long long>(),
                links * (cfg.precision == Precision::Float ? 4 : 8) * (steps + 1))
          << what;
      if (n == 1) EXPECT_EQ(links, 0) << what;
      if (n > 1 && c.porosity > 0) EXPECT_GT(links, 0) << what;
      // Memory: the lattices and 4 + 8 bytes per link and cell; each rank pads its lattices' direction
      // arrays to a 64-byte line.
      const int Q = lattice_directions(cfg.lattice), real = cfg.precision == Precision::Float ? 4 : 8;
      const int lattices = cfg.kernel.kind == StreamingKernel::AA ? 1 : 2;
      const double ideal = lattices * Q * real + 4.0 * (Q - 1) + 8;
      const double per_cell = p["sparse"]["device_bytes_per_fluid_cell"].get<double>();
      EXPECT_GE(per_cell, ideal) << what;
      EXPECT_LE(per_cell, ideal + double(n) * lattices * Q * 64 / double(sim->fluid_cells())) << what;
    }
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Geometries, SparseStorage, ::testing::Range(0, int(std::size(cases))),
                         [](const auto& info) { return std::string(cases[info.param].name); });

// A checkpoint written by either storage on some ranks passes the restart's deck check on the
// other storage and continues there, on another rank count, to the uninterrupted one-rank hash.
TEST(SparseStorageCheckpoints, MoveBetweenStoragesAndRankCounts) {
  ensure_mpi_initialized();
  int world_size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Case& c = cases[0];
  const std::string dir = prepare(c);
  const auto config = [&](const std::string& storage, const std::string& kernel) {
    return parse_deck_string(c.deck, c.name, dir, {"simulation.storage=\"" + storage + "\"", "simulation.kernel=\"" + kernel + "\""});
  };
  const Reference end = dense_reference(config("dense", "ab_pull"), 12);
  struct Leg {
    const char* storage;
    const char* kernel;
    int ranks;
  };
  const Leg legs[][2] = {{{"sparse", "aa", 3}, {"dense", "aa", 2}},
                         {{"dense", "ab_pull", 4}, {"sparse", "aa", 1}},
                         {{"sparse", "ab_pull", 2}, {"sparse", "aa", 4}}};
  for (const auto& leg : legs) {
    const std::string what = std::string(leg[0].storage) + "/" + leg[0].kernel + " on " + std::to_string(leg[0].ranks) +
                             " ranks, then " + leg[1].storage + "/" + leg[1].kernel + " on " +
                             std::to_string(leg[1].ranks);
    const std::string path = dir + "/state.bchk";
    const int writers = std::min(leg[0].ranks, world_size), readers = std::min(leg[1].ranks, world_size);
    if (MPI_Comm comm = first_ranks(writers); comm != MPI_COMM_NULL) {
      auto sim = Simulation::create(config(leg[0].storage, leg[0].kernel), comm);
      sim->advance(5);
      Json meta = Json::object();
      meta["step"] = sim->step();
      meta["fields_hash"] = hash_hex(sim->fields_hash());
      meta["signature"] = checkpoint_signature(sim->config());
      sim->write_checkpoint(path, meta);
      MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_Comm comm = first_ranks(readers); comm != MPI_COMM_NULL) {
      auto sim = Simulation::create(config(leg[1].storage, leg[1].kernel), comm);
      const Json header = open_checkpoint(comm, sim->config(), path);  // the deck check of --restart
      sim->read_checkpoint(path, header);
      EXPECT_EQ(hash_hex(sim->fields_hash()), header["fields_hash"].get<std::string>()) << what;
      sim->advance(7);
      EXPECT_EQ(sim->fields_hash(), end.hash) << what;
      MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace boreas
