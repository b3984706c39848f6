// Checks of a parsed deck against the run it would become (drivers/RunCheck.hpp): the rank count
// and blocks per rank against the process grid, a domain that cannot be split, and one whose
// populations cannot fit in this machine's memory, each refused at the key's location with the
// numbers behind it; decks that fit pass.
#include <gtest/gtest.h>

#include <string>

#include "core/Deck.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/RunCheck.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {
namespace {

const std::string deck =
    "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [16, 12, 10]\n[physics]\ntau = 0.6\n";

// Both checks the driver makes: the host's before Kokkos starts, the device's after (none on host
// backends, where the populations are in the host's memory that check_run counts).
std::string refusal(const std::vector<std::string>& overrides, int ranks) {
  try {
    const Config config = parse_deck_string(deck, "deck.toml", "", overrides);
    check_run(config, ranks, 1);
    check_device_memory(config, ranks);
  } catch (const DeckError& e) {
    return e.what();
  }
  return "";
}

TEST(RunCheck, ProcessGridAgainstRanksAndBlocks) {
  EXPECT_EQ(refusal({"parallel.dims=[2, 2, 1]"}, 4), "");
  EXPECT_EQ(refusal({"parallel.dims=[2, 2, 2]", "parallel.blocks_per_rank=2"}, 4), "");
  EXPECT_NE(refusal({"parallel.dims=[2, 2, 1]"}, 3).find(
                "--set parallel.dims=[2, 2, 1]: error: parallel.dims: [2, 2, 1] makes 4 blocks, the run has 3 ranks"),
            std::string::npos);
  EXPECT_NE(refusal({"parallel.dims=[2, 2, 1]", "parallel.blocks_per_rank=2"}, 4)
                .find("makes 4 blocks, the run has 4 ranks x 2 blocks per rank"),
            std::string::npos);
}

TEST(RunCheck, DomainThatCannotBeSplit) {
  EXPECT_NE(refusal({"domain.cells=[2, 2, 2]"}, 3).find("--set domain.cells=[2, 2, 2]: error: domain.cells: cannot split a 2 x 2 x 2 "
                                                         "domain into 3 blocks"),
            std::string::npos);
  EXPECT_NE(refusal({"domain.cells=[2, 1, 1]", "parallel.decomposition=\"bisection\""}, 4)
                .find("2 cells cannot be bisected into 4 ranks"),
            std::string::npos);
  EXPECT_EQ(refusal({"domain.cells=[2, 2, 2]"}, 8), "");
}

TEST(RunCheck, DomainBeyondTheMachinesMemory) {
  if (host_memory_available() == 0) GTEST_SKIP() << "no /proc/meminfo";
  // 1200^3 D3Q19 double: at least 3 lattices x 152 B per cell, 790 GB on one rank, 198 GB on four.
  for (int ranks : {1, 4}) {
    const std::string e = refusal({"domain.cells=[1200, 1200, 1200]"}, ranks);
    EXPECT_NE(e.find("--set domain.cells=[1200, 1200, 1200]: error: domain.cells: the run needs at least"),
              std::string::npos) << e;
    EXPECT_NE(e.find(exec_is_host ? " of host memory per rank" : " of device memory per rank"), std::string::npos) << e;
    EXPECT_NE(e.find(std::to_string(1200LL * 1200 * 1200 / ranks) + " cells per rank"), std::string::npos) << e;
    EXPECT_NE(e.find("lattice.precision = \"float\""), std::string::npos) << e;
  }
  const Config c = parse_deck_string(deck, "deck.toml", "", {"domain.cells=[1200, 1200, 1200]"});
  EXPECT_EQ(estimate_memory(c, 4, true).cells_per_rank, 1200LL * 1200 * 1200 / 4);
  EXPECT_EQ(estimate_memory(c, 1, false).device_bytes, 1200LL * 1200 * 1200 * (3 * 19 * 8 + 1));
}

TEST(RunCheck, SwapKernelsAreWarnedAgainstOnGpus) {
  const auto with_kernel = [](const std::string& kernel) {
    return parse_deck_string(deck, "deck.toml", "", {"simulation.kernel=\"" + kernel + "\""});
  };
  for (const char* kernel : {"swap", "swap_prism"}) {
    const Config c = with_kernel(kernel);
    const std::vector<std::string> w = backend_warnings(c, true);
    ASSERT_EQ(w.size(), 1u) << kernel;
    EXPECT_NE(w[0].find(std::string("simulation.kernel = \"") + kernel + "\" sweeps the rows in ordered waves"),
              std::string::npos) << w[0];
    EXPECT_TRUE(backend_warnings(c, false).empty()) << kernel;
  }
  for (const char* kernel : {"aa", "ab_pull", "merged_aa2"})
    EXPECT_TRUE(backend_warnings(with_kernel(kernel), true).empty()) << kernel;
}

}  // namespace
}  // namespace boreas
