// Results are bitwise independent of the rank count, the decomposition, the blocks per rank, the
// overlap strategy, the buffer placement and CRMT's ghost width: every run's fields_hash must equal the one-rank hash of
// the same deck (one ghost layer, exchanged every step). Step counts are chosen so that some
// ghost widths do not divide them.
// The binary runs under mpiexec with N ranks and tests every rank count n in {1, 2, 3, 4, 8}
// with n <= N on the first n ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"
#include "tests/mpi/Decks.hpp"

namespace boreas {
namespace {

using test::Deck;
using test::decks;


const char* overlaps[] = {"none", "nonblocking", "interior", "streams", "systolic"};

std::uint64_t run(const Config& c, MPI_Comm comm) {
  auto sim = Simulation::create(c, comm);
  sim->advance(c.steps);
  return sim->fields_hash();
}

Config with(const Deck& d, const std::vector<std::string>& overrides) {
  return parse_deck_string(d.text, d.name, ".", overrides);
}

std::string dims(int a, int b, int c) {
  return "parallel.dims=[" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "]";
}

// Every Cartesian grid for n ranks with a single split axis, and the mixed ones the tests use.
std::vector<std::string> grids(int n, bool three_d) {
  std::vector<std::string> out{dims(n, 1, 1), dims(1, n, 1)};
  if (three_d) out.push_back(dims(1, 1, n));
  if (n == 4) out.push_back(dims(2, 2, 1));
  if (n == 8 && three_d) out.push_back(dims(2, 2, 2));
  return out;
}

class RankIndependence : public ::testing::TestWithParam<int> {};

TEST_P(RankIndependence, EveryRankCountDecompositionAndOverlapGivesTheOneRankHash) {
  const Deck& deck = decks[GetParam()];
  ensure_mpi_initialized();  // tests/main.cpp starts Kokkos only
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  std::uint64_t reference = 0;
  if (world_rank == 0) reference = run(with(deck, {}), MPI_COMM_SELF);
  MPI_Bcast(&reference, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);

  for (int n : {1, 2, 3, 4, 8}) {
    if (n > world_size) continue;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm == MPI_COMM_NULL) continue;
    const bool three_d = with(deck, {}).dimensions() == 3;
    std::vector<std::vector<std::string>> variants;
    // Every overlap strategy on the automatic decomposition, alternating buffer placement.
    for (int k = 0; k < 5; ++k)
      variants.push_back({std::string("parallel.overlap=\"") + overlaps[k] + "\"",
                          k % 2 ? "parallel.buffers=\"host\"" : "parallel.buffers=\"device\""});
    // Every decomposition with a strategy that splits boundary and interior.
    int k = 0;
    for (const auto& g : grids(n, three_d))
      variants.push_back({g, std::string("parallel.overlap=\"") + overlaps[2 + (k++) % 3] + "\""});
    variants.push_back({"parallel.decomposition=\"bisection\"", "parallel.overlap=\"systolic\""});
    variants.push_back({"parallel.decomposition=\"bisection\"", "parallel.overlap=\"streams\""});
    // CRMT: ghost widths 2 to 4 under every strategy, on a split of every axis, with bisection,
    // and the automatic choice.
    for (int k = 0; k < 5; ++k)
      variants.push_back({std::string("parallel.overlap=\"") + overlaps[k] + "\"",
                          "parallel.ghost_width=" + std::to_string(2 + k % 3),
                          k % 2 ? "parallel.buffers=\"host\"" : "parallel.buffers=\"device\""});
    k = 0;
    for (const auto& g : grids(n, three_d))
      variants.push_back({g, "parallel.ghost_width=" + std::to_string(4 - (k++) % 3),
                          std::string("parallel.overlap=\"") + overlaps[k % 5] + "\""});
    variants.push_back({"parallel.decomposition=\"bisection\"", "parallel.ghost_width=3"});
    variants.push_back({"parallel.ghost_width=\"auto\"", "parallel.max_ghost_width=3"});
    // merged<k>: a tile sweep from k exchanged ghost layers per k steps (remainders: pull steps).
    variants.push_back({"simulation.kernel=\"merged2\""});
    k = 0;
    for (const auto& g : grids(n, three_d))
      variants.push_back({g, "simulation.kernel=\"merged3\"", "simulation.tile=" + std::to_string(3 + (k++) % 3)});
    variants.push_back({"simulation.kernel=\"merged2\"", "parallel.ghost_width=2", "simulation.layout=\"aosoa\""});
    // ab_push: a push step, then what it pushed into ghost cells goes back to their owners.
    for (const auto& g : grids(n, three_d)) variants.push_back({g, "simulation.kernel=\"ab_push\""});
    variants.push_back({"simulation.kernel=\"ab_push\"", "parallel.decomposition=\"bisection\"",
                        "simulation.layout=\"aosoa\"", "parallel.buffers=\"host\""});
    // aa: ghosts filled after the local step, pushes returned after the neighbour step.
    for (const auto& g : grids(n, three_d)) variants.push_back({g, "simulation.kernel=\"aa\""});
    // ab_push and aa step in parts: every overlap strategy, with host and device buffers, with
    // bisection and several blocks per rank (systolic sends each push message once the last
    // cell writing it is computed).
    for (int k = 0; k < 5; ++k)
      for (const char* kernel : {"ab_push", "aa"})
        variants.push_back({std::string("simulation.kernel=\"") + kernel + "\"",
                            std::string("parallel.overlap=\"") + overlaps[k] + "\"",
                            k % 2 ? "parallel.buffers=\"host\"" : "parallel.decomposition=\"bisection\"",
                            k > 2 ? "parallel.blocks_per_rank=2" : "parallel.blocks_per_rank=1"});
    // merged_aa<k>: single aa steps on several ranks.
    for (const auto& g : grids(n, three_d)) variants.push_back({g, "simulation.kernel=\"merged_aa3\""});
    variants.push_back({"simulation.kernel=\"aa\"", "parallel.decomposition=\"bisection\"",
                        "simulation.layout=\"aosoa\"", "parallel.buffers=\"host\""});
    // swap, swap_prism: the sweep's links across ranks are swapped by the exchange after it.
    k = 0;
    for (const auto& g : grids(n, three_d)) {
      variants.push_back({g, "simulation.kernel=\"swap\""});
      variants.push_back({g, "simulation.kernel=\"swap_prism\"", "simulation.tile=" + std::to_string(2 + (k++) % 3)});
    }
    variants.push_back({"simulation.kernel=\"swap\"", "parallel.decomposition=\"bisection\"",
                        "simulation.layout=\"aosoa\"", "parallel.buffers=\"host\""});
    // Several blocks per rank: copies between a rank's blocks without MPI, every kernel, overlap
    // strategies and CRMT over the blocks of a rank.
    k = 0;
    for (const char* kernel : {"ab_pull", "ab_push", "aa", "swap", "swap_prism", "merged3", "merged_aa2"})
      variants.push_back({std::string("simulation.kernel=\"") + kernel + "\"",
                          "parallel.blocks_per_rank=" + std::to_string(2 + (k++) % 3)});
    variants.push_back({"parallel.blocks_per_rank=3", "parallel.overlap=\"streams\"", "parallel.ghost_width=2"});
    variants.push_back({"parallel.blocks_per_rank=2", "parallel.overlap=\"systolic\"", "parallel.decomposition=\"bisection\""});
    variants.push_back({"parallel.blocks_per_rank=2", "parallel.ghost_width=\"auto\"", "parallel.max_ghost_width=3"});
    // AoSoA storage: halo plans index populations through the layout.
    variants.push_back({"simulation.layout=\"aosoa\"", "simulation.bundle=5", "parallel.overlap=\"interior\""});
    variants.push_back({"simulation.layout=\"aosoa\"", "parallel.ghost_width=3", "parallel.overlap=\"streams\""});
    for (const auto& v : variants) {
      Config c = with(deck, v);
      const std::uint64_t h = run(c, comm);
      std::string what = deck.name + std::string(" on ") + std::to_string(n) + " ranks:";
      for (const auto& o : v) what += " " + o;
      EXPECT_EQ(hash_hex(h), hash_hex(reference)) << what;
    }
    MPI_Comm_free(&comm);
  }
}

// The forces on the obstacles (momentum exchange, summed exactly) are the one-rank values to the
// bit on every rank count, with several blocks per rank, in place kernels and sparse storage.
TEST(RankIndependenceSetup, BodyForcesOnEveryRankCount) {
  ensure_mpi_initialized();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (const Deck& deck : decks) {
    if (with(deck, {}).obstacles.empty()) continue;
    auto forces = [&](const std::vector<std::string>& v, MPI_Comm comm) {
      auto sim = Simulation::create(with(deck, v), comm);
      sim->advance(sim->config().steps);
      std::vector<double> out;
      for (const auto& f : sim->body_forces()) out.insert(out.end(), f.begin(), f.end());
      return out;
    };
    std::vector<double> reference;
    if (world_rank == 0) reference = forces({}, MPI_COMM_SELF);
    reference.resize(3 * with(deck, {}).obstacles.size());
    MPI_Bcast(reference.data(), int(reference.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double magnitude = 0;
    for (double f : reference) magnitude = std::max(magnitude, std::abs(f));
    EXPECT_GT(magnitude, 0.0) << deck.name;  // a flow that pushes on its obstacles
    for (int n : {2, 3, 4}) {
      if (n > world_size) continue;
      MPI_Comm comm;
      MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &comm);
      if (comm == MPI_COMM_NULL) continue;
      std::vector<std::vector<std::string>> variants{
          {}, {"parallel.blocks_per_rank=2", "simulation.kernel=\"aa\""},
          {"simulation.kernel=\"merged2\"", "simulation.layout=\"aosoa\""}};
      const auto& faces = with(deck, {}).faces;
      if (std::none_of(faces.begin(), faces.end(), [](const FaceCondition& f) { return f.type == FaceBC::PressureOutlet; }))
        variants.push_back({"simulation.storage=\"sparse\""});  // the sparse storage takes no outlet
      for (const auto& v : variants) {
        std::string what = deck.name + std::string(" on ") + std::to_string(n) + " ranks:";
        for (const auto& o : v) what += " " + o;
        EXPECT_EQ(forces(v, comm), reference) << what;
      }
      MPI_Comm_free(&comm);
    }
  }
}

// kernel = "auto" on all ranks of the world: the ranks run the trial together and agree on one
// variant (decisions use the slowest rank's times; rank 0's cache entry is broadcast), the run
// gives the one-rank hash, and a second run takes the choice from the cache.
TEST(RankIndependenceSetup, AutoKernelOnSeveralRanksAgreesAndCaches) {
  ensure_mpi_initialized();
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const auto dir = std::filesystem::temp_directory_path() / ("boreas_rank_auto_" + std::to_string(pid));
  if (world_rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("BOREAS_CACHE_DIR", dir.c_str(), 1);
  const Deck& deck = decks[0];
  std::uint64_t reference = 0;
  if (world_rank == 0) reference = run(with(deck, {}), MPI_COMM_SELF);
  MPI_Bcast(&reference, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  for (const char* source : {"trial", "cache"}) {
    auto sim = Simulation::create(with(deck, {"simulation.kernel=\"auto\""}), MPI_COMM_WORLD);
    sim->advance(with(deck, {}).steps);
    EXPECT_EQ(hash_hex(sim->fields_hash()), hash_hex(reference)) << source;
    const Json choice = sim->kernel_choice();
    EXPECT_EQ(choice["source"].get<std::string>(), source);
    // Every rank chose rank 0's variant.
    const std::string chosen = choice["chosen"].get<std::string>() + "/" + choice["layout"].get<std::string>() + "/" +
                         std::to_string(choice["tile"].get<std::int64_t>());
    EXPECT_EQ(chosen, Comm(MPI_COMM_WORLD).broadcast(chosen)) << source;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  unsetenv("BOREAS_CACHE_DIR");
  if (world_rank == 0) std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Decks, RankIndependence, ::testing::Range(0, 4),
                         [](const auto& info) { return std::string(decks[info.param].name); });

}  // namespace
}  // namespace boreas
