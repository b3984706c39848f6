// Checkpoint and restart are bitwise: a run written at step N by any streaming variant, layout and
// rank count, read back by another variant on another rank count (and decomposition, blocks per
// rank, CRMT width) and continued to step N + M has the fields_hash of the uninterrupted one-rank
// run. The state read back hashes as the one written. N is odd: AA stops mid-pair and merged<k>
// mid-sweep. The binary runs under mpiexec with N ranks; rank counts up to N are tested.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/Deck.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Simulation.hpp"
#include "comm/Mpi.hpp"
#include "tests/mpi/Decks.hpp"
#include "tests/mpi/Ranks.hpp"

namespace boreas {
namespace {

using test::Deck;
using test::decks;
using test::first_ranks;

constexpr long written_at = 7, continued_by = 6;

// The variants that write and read: every kernel, both layouts, CRMT, bisection, blocks per rank.
const std::vector<std::vector<std::string>> variants = {
    {"simulation.kernel=\"ab_pull\""},
    {"simulation.kernel=\"ab_push\"", "simulation.layout=\"aosoa\""},
    {"simulation.kernel=\"aa\""},
    {"simulation.kernel=\"swap\"", "parallel.decomposition=\"bisection\""},
    {"simulation.kernel=\"swap_prism\"", "simulation.tile=3"},
    {"simulation.kernel=\"merged3\"", "parallel.ghost_width=3"},
    {"simulation.kernel=\"merged_aa2\"", "parallel.blocks_per_rank=2"},
    {"simulation.kernel=\"aa\"", "simulation.layout=\"aosoa\"", "parallel.overlap=\"streams\""},
    {"simulation.kernel=\"ab_pull\"", "parallel.ghost_width=2", "parallel.overlap=\"systolic\""},
};

Config with(const Deck& d, std::vector<std::string> overrides) {
  return parse_deck_string(d.text, d.name, ".", overrides);
}

class CheckpointRestart : public ::testing::TestWithParam<int> {};

TEST_P(CheckpointRestart, EveryVariantAndRankCountContinuesBitForBit) {
  const Deck& deck = decks[GetParam()];
  ensure_mpi_initialized();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const std::string dir = test::shared_directory("boreas_checkpoint_test");

  std::uint64_t reference = 0, initial = 0;
  if (world_rank == 0) {
    auto sim = Simulation::create(with(deck, {}), MPI_COMM_SELF);
    initial = sim->fields_hash();
    sim->advance(written_at + continued_by);
    reference = sim->fields_hash();
  }
  MPI_Bcast(&reference, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  MPI_Bcast(&initial, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  ASSERT_NE(reference, initial) << "the flow must evolve for the comparison to mean anything";

  const int counts[] = {1, 2, 3, 4};
  for (std::size_t w = 0; w < variants.size(); ++w) {
    const int writers = std::min(world_size, counts[w % 4]);
    const int readers = std::min(world_size, counts[(w + 1) % 4]);
    const std::vector<std::string>& read_variant = variants[(w + 3) % variants.size()];
    const Config config = with(deck, variants[w]);
    const std::string path = dir + "/" + deck.name + "_" + std::to_string(w) + ".bchk";
    std::uint64_t written_hash = 0;
    if (MPI_Comm comm = first_ranks(writers); comm != MPI_COMM_NULL) {
      auto sim = Simulation::create(config, comm);
      sim->advance(written_at);
      written_hash = sim->fields_hash();
      Json meta = Json::object();
      meta["step"] = sim->step();
      meta["signature"] = checkpoint_signature(config);
      sim->write_checkpoint(path, meta);
      MPI_Comm_free(&comm);
    }
    MPI_Bcast(&written_hash, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (MPI_Comm comm = first_ranks(readers); comm != MPI_COMM_NULL) {
      const Config reader = with(deck, read_variant);
      auto sim = Simulation::create(reader, comm);
      const Json header = open_checkpoint(comm, reader, path);
      sim->read_checkpoint(path, header);
      EXPECT_EQ(sim->step(), written_at);
      EXPECT_EQ(sim->fields_hash(), written_hash)
          << "variant " << w << " written on " << writers << " ranks, read on " << readers;
      sim->advance(continued_by);
      EXPECT_EQ(sim->fields_hash(), reference)
          << "variant " << w << " written on " << writers << " ranks, continued on " << readers << " by variant "
          << (w + 3) % variants.size();
      MPI_Comm_free(&comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (world_rank == 0) std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Decks, CheckpointRestart, ::testing::Range(0, int(std::size(decks))),
                         [](const auto& info) { return std::string(decks[info.param].name); });

}  // namespace
}  // namespace boreas
