// The parallel voxel reader (comm/VoxelInput.hpp) gives every rank the flags of the serial reader:
// on 1, 2, 3, 4 and 8 ranks, Cartesian and bisection decompositions, several blocks per rank and
// deeper ghosts, the block set (boxes and fluid counts, which bisection balances) equals the one
// made from the whole file, every cell a rank's blocks and halo plans reach has the serial flag,
// the slabs read every voxel once and one block per rank reads less than the file, and the run's fields_hash is the one-rank hash.
// Files: a random 30 % solid voxel array smaller than the domain at an offset (parts of the domain
// outside it), periodic and walled axes; a 2D one covering its domain.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

#include "comm/Decomposition.hpp"
#include "comm/Mpi.hpp"
#include "comm/VoxelInput.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "drivers/Simulation.hpp"
#include "tests/mpi/Ranks.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;
using test::first_ranks;

struct Case {
  const char* name;
  std::array<int, 3> voxel_dims;
  const char* deck;
};

const Case cases[] = {
    {"offset_3d", {20, 17, 14}, R"(
[simulation]
steps = 6
[lattice]
model = "D3Q19"
[domain]
cells = [24, 20, 16]
[physics]
tau = 0.7
force = [1e-5, 0, 0]
[geometry]
voxel_file = "voxels.raw"
dims = [20, 17, 14]
offset = [3, 2, 1]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[boundary.y_min]
type = "periodic"
[boundary.y_max]
type = "periodic"
[output]
vtk = false
)"},
    {"whole_2d", {30, 20, 1}, R"(
[simulation]
steps = 6
[lattice]
model = "D2Q9"
[domain]
cells = [30, 20]
[physics]
tau = 0.8
force = [1e-5, 0]
[geometry]
voxel_file = "voxels.raw"
dims = [30, 20, 1]
[boundary.x_min]
type = "periodic"
[boundary.x_max]
type = "periodic"
[output]
vtk = false
)"},
};

const std::vector<std::vector<std::string>> variants = {
    {},
    {"parallel.decomposition=\"bisection\""},
    {"parallel.blocks_per_rank=2"},
    {"parallel.decomposition=\"bisection\"", "parallel.blocks_per_rank=3", "parallel.ghost_width=3"},
    {"parallel.ghost_width=2", "parallel.overlap=\"systolic\""},
    {"simulation.kernel=\"aa\""},
};

// Writes the case's voxel file (rank 0) into a directory every rank knows.
std::string prepare(const Case& c) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string dir = test::shared_directory("boreas_voxel_input");
  if (rank == 0) {
    fs::create_directories(dir);
    test::write_random_voxels(dir + "/voxels.raw", long(c.voxel_dims[0]) * c.voxel_dims[1] * c.voxel_dims[2], 0.3, 12345);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

class VoxelInput : public ::testing::TestWithParam<int> {};

TEST_P(VoxelInput, EveryRankHasTheSerialFlagsAndTheRunTheOneRankHash) {
  const Case& c = cases[GetParam()];
  ensure_mpi_initialized();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const std::string dir = prepare(c);
  auto config = [&](const std::vector<std::string>& overrides) { return parse_deck_string(c.deck, c.name, dir, overrides); };

  std::uint64_t reference = 0;
  if (world_rank == 0) {
    auto sim = Simulation::create(config({}), MPI_COMM_SELF);
    sim->advance(6);
    reference = sim->fields_hash();
  }
  MPI_Bcast(&reference, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);

  for (int n : {1, 2, 3, 4, 8}) {
    if (n > world_size) continue;
    MPI_Comm comm = first_ranks(n);
    if (comm == MPI_COMM_NULL) continue;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (const auto& v : variants) {
      const Config cfg = config(v);
      const int ghosts = std::max(1, cfg.parallel.ghost_width);
      const DomainGeometry serial(cfg);
      const BlockSet expected = decompose(cfg, serial, n, ghosts);
      const Partition p = partition(cfg, comm, ghosts);
      const std::string what = std::string(c.name) + " on " + std::to_string(n) + " ranks, variant " +
                               std::to_string(&v - variants.data());
      ASSERT_EQ(p.set.size(), expected.size()) << what;
      for (int b = 0; b < expected.size(); ++b) {
        EXPECT_EQ(p.set.blocks[b].box.lo, expected.blocks[b].box.lo) << what;
        EXPECT_EQ(p.set.blocks[b].box.hi, expected.blocks[b].box.hi) << what;
      }
      EXPECT_EQ(p.set.fluid_cells, expected.fluid_cells) << what;
      long mismatches = 0;
      for (int id : p.set.owned_by(rank)) {
        const Box& b = p.set.blocks[id].box;
        std::array<int, 3> g;
        for (int a = 0; a < 3; ++a) g[a] = cfg.cells[a] > 1 ? p.set.reach[a] + 1 : 0;
        for (int z = b.lo[2] - g[2]; z < b.hi[2] + g[2]; ++z)
          for (int y = b.lo[1] - g[1]; y < b.hi[1] + g[1]; ++y)
            for (int x = b.lo[0] - g[0]; x < b.hi[0] + g[0]; ++x)
              mismatches += p.domain.flag_at(x, y, z) != serial.flag_at(x, y, z);
      }
      EXPECT_EQ(mismatches, 0) << what;
      // The slabs read every voxel once; one block per rank reads less than the file.
      const long long file = static_cast<long long>(c.voxel_dims[0]) * c.voxel_dims[1] * c.voxel_dims[2];
      EXPECT_EQ(p.voxel_input["slabs"]["bytes"].get<long long>(), file) << what;
      if (n > 1 && v.empty()) EXPECT_LT(p.voxel_input["blocks"]["max_bytes_per_rank"].get<long long>(), file) << what;
      auto sim = Simulation::create(cfg, comm);
      sim->advance(6);
      EXPECT_EQ(sim->fields_hash(), reference) << what;
    }
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Files, VoxelInput, ::testing::Range(0, int(std::size(cases))),
                         [](const auto& info) { return std::string(cases[info.param].name); });

TEST(VoxelInputErrors, AFileOfTheWrongSizeIsRefusedOnEveryRank) {
  ensure_mpi_initialized();
  const std::string dir = prepare(cases[0]);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Config cfg = parse_deck_string(cases[0].deck, "wrong_size", dir, {});  // the deck checks the size too
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) fs::resize_file(dir + "/voxels.raw", 100);
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    partition(cfg, MPI_COMM_WORLD, 1);
    ADD_FAILURE() << "a 100-byte voxel file was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 100 bytes, expected 4760"), std::string::npos) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace boreas
