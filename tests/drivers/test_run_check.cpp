// Checks of a parsed deck against the run it would become (drivers/RunCheck.hpp): the rank count
// and blocks per rank against the process grid, a domain that cannot be split, and one whose
// populations cannot fit in this machine's memory, each refused at the key's location with the
// numbers behind it; decks that fit pass. With [amr] the forest is checked once built, and a
// regrid whose forest cannot fit is not taken.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <string>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/RunCheck.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {
namespace {

const std::string deck =
    "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [16, 12, 10]\n[physics]\ntau = 0.6\n";

// The node's memory as the checks see it, fixed (BOREAS_HOST_MEMORY), so that what is refused does
// not depend on the machine running the test: `bytes` (64 GiB) while it lives.
struct StatedHostMemory {
  std::optional<std::string> before;
  explicit StatedHostMemory(const char* bytes = "68719476736") {
    if (const char* v = std::getenv("BOREAS_HOST_MEMORY")) before = v;
    setenv("BOREAS_HOST_MEMORY", bytes, 1);
  }
  ~StatedHostMemory() {
    if (before)
      setenv("BOREAS_HOST_MEMORY", before->c_str(), 1);
    else
      unsetenv("BOREAS_HOST_MEMORY");
  }
};

// Both checks the driver makes: the host's before Kokkos starts, the device's after (none on host
// backends, where the populations are in the host's memory that check_run counts).
std::string refusal(const std::vector<std::string>& overrides, int ranks) {
  try {
    const Config config = parse_deck_string(deck, "deck.toml", "", overrides);
    check_run(config, ranks, 1);
    check_device_memory(config, ranks, device_share(MPI_COMM_SELF));
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
  const StatedHostMemory node;
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
  EXPECT_EQ(estimate_memory(c, 1, false).device_bytes, 1200LL * 1200 * 1200 * (3 * 19 * 8 + 1 + monitor_bytes_per_cell));
}

// [statistics] keeps 10 running means per cell and their copy in the last good state (160 B, a
// third more than 3 D3Q19 double lattices): a node that holds the run without them refuses it with
// them (not counted before 2026-12-07), and an AMR forest's leaves count them too.
TEST(RunCheck, TimeAveragesCountInTheMemoryCheck) {
  const std::vector<std::string> plain = {"domain.cells=[256, 256, 256]"},
                                 averaged = {"domain.cells=[256, 256, 256]", "statistics.every=10"};
  const Config without = parse_deck_string(deck, "deck.toml", "", plain), with = parse_deck_string(deck, "deck.toml", "", averaged);
  ASSERT_TRUE(with.statistics.enabled);
  const long long cells = 256LL * 256 * 256;
  EXPECT_EQ(estimate_memory(with, 1, false).device_bytes - estimate_memory(without, 1, false).device_bytes,
            cells * statistics_bytes_per_cell);
  if (exec_is_host) {
    const std::string between = std::to_string(estimate_memory(without, 1, true).host_bytes + cells * 80);
    const StatedHostMemory node(between.c_str());
    EXPECT_EQ(refusal(plain, 1), "");
    EXPECT_NE(refusal(averaged, 1).find("error: domain.cells: the run needs at least"), std::string::npos);
  }
  const Config amr = parse_deck_string(deck, "deck.toml", "", {"domain.cells=[16, 16, 16]", "amr.leaf_size=8",
                                                                "amr.max_level=1", "statistics.every=10"});
  const Config amr_plain =
      parse_deck_string(deck, "deck.toml", "", {"domain.cells=[16, 16, 16]", "amr.leaf_size=8", "amr.max_level=1"});
  // 9 blocks (8 leaves at the fewest) of 8^3 interior cells, 1 rank: the averages' bytes told apart
  // by the per-rank figure the shortfall states on a machine of 1 byte.
  const StatedHostMemory tiny("1");
  const std::string a = amr_memory_shortfall(amr, 9, 1, 1), b = amr_memory_shortfall(amr_plain, 9, 1, 1);
  const auto per_rank = [](const std::string& text) {
    const std::size_t at = text.find("least ") + 6;
    return text.substr(at, text.find(" of host memory") - at);
  };
  EXPECT_EQ(per_rank(b), format_bytes(9 * (1000 * (3 * 19 * 8 + 1) + 512 * monitor_bytes_per_cell)));
  EXPECT_EQ(per_rank(a), format_bytes(9 * (1000 * (3 * 19 * 8 + 1) + 512 * monitor_bytes_per_cell) +
                                      8 * 512 * statistics_bytes_per_cell));
}

// An AMR forest's blocks (each (leaf_size + 2)^3 cells: 3 lattices and flags; and the
// convergence monitor's 24 B per leaf cell), once built: a billion 8^3 leaves are 10^9 x (1000 x
// 457 + 512 x 24) B, 469 TB, refused at amr.max_level (a regrid keeps its
// forest instead); a thousand fit. On 4 ranks each holds a quarter of the blocks and 3 lattices of
// the whole forest (10^9 x 1000 x 152 B each): 2.5 10^8 x 469288 + 4.56 10^14 B, 521.4 TiB.
TEST(RunCheck, AmrForestBeyondTheMachinesMemory) {
  const StatedHostMemory node;
  const Config c =
      parse_deck_string(deck, "deck.toml", "", {"domain.cells=[16, 16, 16]", "amr.leaf_size=8", "amr.max_level=1"});
  const std::string shortfall = amr_memory_shortfall(c, 1000000000LL, 1, 1);
  EXPECT_NE(shortfall.find("the forest holds 1000000000 blocks of 1000 cells (ghost ring included); the run needs at "
                           "least 426.8 TiB of"),
            std::string::npos) << shortfall;
  EXPECT_EQ(amr_memory_shortfall(c, 1000, 1, 1), "");
  const std::string four = amr_memory_shortfall(c, 1000000000LL, 4, 1);
  EXPECT_NE(four.find("least 521.4 TiB of"), std::string::npos) << four;
  EXPECT_NE(four.find("(414.7 TiB of it 3 lattices of the whole forest, which every rank holds)"), std::string::npos) << four;
  try {
    check_amr_memory(c, 1000000000LL, 1, 1);
    ADD_FAILURE() << "not refused";
  } catch (const DeckError& e) {
    EXPECT_NE(std::string(e.what()).find("--set amr.max_level=1: error: amr.max_level: the forest holds"), std::string::npos)
        << e.what();
  }
}

// Ranks that share a GPU (several per device, by drivers/boreas.cpp's round-robin or a launcher's
// choice) share its memory: a device with 1.5x one rank's need holds one rank, not two, for the
// uniform grid's lattices and for an AMR forest. (A device stated here: host backends have none.)
TEST(RunCheck, RanksSharingAGpuShareItsMemory) {
  const Config c = parse_deck_string(deck, "deck.toml", "", {"domain.cells=[64, 64, 64]"});
  const long long need = estimate_memory(c, 2, false).device_bytes;
  ASSERT_GT(need, 0);
  const DeviceShare alone{need * 3 / 2, 1}, shared{need * 3 / 2, 2};
  EXPECT_NO_THROW(check_device_memory(c, 2, alone));
  try {
    check_device_memory(c, 2, shared);
    ADD_FAILURE() << "two ranks on a device with 1.5x one rank's need were not refused";
  } catch (const DeckError& e) {
    EXPECT_NE(std::string(e.what()).find(format_bytes(2 * need) + " for the 2 ranks sharing the device, the device has " +
                                         format_bytes(need * 3 / 2) + " free"),
              std::string::npos) << e.what();
  }
  const Config amr =
      parse_deck_string(deck, "deck.toml", "", {"domain.cells=[16, 16, 16]", "amr.leaf_size=8", "amr.max_level=1"});
  // The smallest device one rank's share of 1000 blocks fits (doubling, then bisection); two ranks
  // sharing a device need twice that.
  const long long blocks = 1000;
  const auto fits = [&](long long free, int sharing) {
    return amr_memory_shortfall(amr, blocks, 2, 1, DeviceShare{free, sharing}).empty();
  };
  long long hi = 1;
  while (!fits(hi, 1)) hi *= 2;
  long long lo = hi / 2;
  while (hi - lo > 1) (fits((lo + hi) / 2, 1) ? hi : lo) = (lo + hi) / 2;
  EXPECT_TRUE(fits(2 * hi, 2));
  const std::string two = amr_memory_shortfall(amr, blocks, 2, 1, DeviceShare{2 * hi - 1, 2});
  EXPECT_NE(two.find(format_bytes(2 * hi) + " for the 2 ranks sharing the device"), std::string::npos) << two;
}

// A regrid whose forest could not fit is not taken: the run goes on with the forest it has and
// counts the refusal (a 128^3 box of 16^3 leaves whose every block's indicator exceeds
// refine_above, refined 3 levels: 159 k blocks, 395 GiB).
TEST(RunCheck, RegridBeyondTheMachinesMemoryKeepsTheForest) {
  const StatedHostMemory node;
  Config c = parse_deck_string(
      "[simulation]\nsteps = 2\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [128, 128, 128]\n[physics]\ntau = 0.6\n"
      "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [0.05, 0.0, 0.0]\n"
      "[amr]\nleaf_size = 16\nmax_level = 3\nregrid_every = 2\nrefine_above = 1e-30\n[output]\nvtk = false\n",
      "regrid.toml", "", {});
  c.output_dir = ::testing::TempDir() + "/boreas_regrid_beyond_memory";
  std::filesystem::remove_all(c.output_dir);
  RunOptions quiet;
  quiet.progress = false;
  const Json report = run_deck(c, quiet);
  EXPECT_EQ(report["status"].get<std::string>(), "completed");
  EXPECT_EQ(report["steps"].get<long>(), 2);
  EXPECT_EQ(report["amr"]["regrids"].get<long>(), 0);
  EXPECT_EQ(report["amr"]["regrids_refused"].get<long>(), 1);
}

// What the node can give: MemAvailable, less where a cgroup v2 limit on the process's path leaves
// less (a batch job's share), or what BOREAS_HOST_MEMORY states.
TEST(RunCheck, HostMemoryIsTheTightestOfTheNodeAndItsControlGroups) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "boreas_fake_node";
  std::filesystem::remove_all(root);
  const auto write = [&](const std::string& file, const std::string& text) {
    std::filesystem::create_directories((root / file).parent_path());
    std::ofstream(root / file) << text;
  };
  EXPECT_EQ(host_memory_available(root.string()), std::nullopt);  // nothing to read: unknown
  write("proc/meminfo", "MemTotal:       32000000 kB\nMemAvailable:   20000000 kB\n");
  EXPECT_EQ(host_memory_available(root.string()), 20000000LL * 1024);
  write("proc/self/cgroup", "0::/job/step\n");
  write("sys/fs/cgroup/memory.max", "max\n");
  write("sys/fs/cgroup/memory.current", "5000000000\n");
  write("sys/fs/cgroup/job/step/memory.max", "max\n");
  write("sys/fs/cgroup/job/step/memory.current", "1000\n");
  EXPECT_EQ(host_memory_available(root.string()), 20000000LL * 1024);  // no limit on the path
  write("sys/fs/cgroup/job/memory.max", "8000000000\n");
  write("sys/fs/cgroup/job/memory.current", "3000000000\n");
  EXPECT_EQ(host_memory_available(root.string()), 5000000000LL);  // the job's limit leaves less
  write("sys/fs/cgroup/job/memory.stat", "anon 1000000000\nactive_file 500000000\ninactive_file 1500000000\n");
  EXPECT_EQ(host_memory_available(root.string()), 6500000000LL);  // its inactive page cache is reclaimed first
  write("sys/fs/cgroup/job/memory.current", "10000000000\n");
  EXPECT_EQ(host_memory_available(root.string()), 0);  // over its limit: nothing left, known (not unknown)
  {
    const StatedHostMemory node;
    EXPECT_EQ(host_memory_available(), 68719476736LL);
  }
  {
    const StatedHostMemory node("64G");
    EXPECT_THROW(host_memory_available(), Error);
  }
  std::filesystem::remove_all(root);
}

// The sparse storage's lattices count on host backends too (its need was checked against a
// device's memory only: on CPUs nowhere). A 32^3 cavity: the start's estimate (output and
// checkpoint buffers, 193 B per cell) is 6.3 MB, the sparse lattices, saved state, tables and
// monitor about 22 MB: with 10 MB stated the run starts and the storage refuses itself. With
// [statistics] also the averages of its blocks' cells (not counted before 2026-12-07).
TEST(RunCheck, SparseStorageOnTheHostCountsItsLattices) {
  if (!exec_is_host) GTEST_SKIP() << "device backends check the device's memory";
  ensure_mpi_initialized();
  const Config c = parse_deck_string(deck, "deck.toml", "", {"domain.cells=[32, 32, 32]", "simulation.storage=\"sparse\""});
  {
    const StatedHostMemory node("10000000");
    EXPECT_NO_THROW(check_run(c, 1, 1));
    try {
      Simulation::create(c);
      ADD_FAILURE() << "not refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the sparse storage needs"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("of host memory on this node (rank 0:"), std::string::npos) << e.what();
    }
  }
  const StatedHostMemory node("100000000");
  EXPECT_NO_THROW(Simulation::create(c));
  // [statistics] adds its averages of every block cell (32^3 x 160 B, 5 MiB): a node 2 MiB above
  // the need without them refuses the run with them.
  std::string need;
  try {
    const StatedHostMemory small("10000000");
    Simulation::create(c);
  } catch (const Error& e) {
    const std::string text = e.what(), from = "the sparse storage needs ";
    const std::size_t at = text.find(from) + from.size();
    need = text.substr(at, text.find(" MiB", at) - at);
  }
  ASSERT_FALSE(need.empty());
  const std::string between = std::to_string(static_cast<long long>((std::stod(need) + 2) * 1024 * 1024));
  const StatedHostMemory tight(between.c_str());
  EXPECT_NO_THROW(Simulation::create(c));
  const Config averaged = parse_deck_string(deck, "deck.toml", "",
                                            {"domain.cells=[32, 32, 32]", "simulation.storage=\"sparse\"", "statistics.every=10"});
  EXPECT_THROW(Simulation::create(averaged), Error);
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

// A body whose box holds cell centres but whose solid holds none (two slabs thinner than the cell
// spacing) ran with every cell fluid and reported no force: refused at its [[obstacle]], once its
// geometry is read, as a deck error; with [amr] and a level whose centres it holds, accepted.
TEST(RunCheck, FileSolidsBetweenTheCellCentresAreRefused) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "boreas_run_check_slabs";
  std::filesystem::create_directories(dir);
  std::ofstream stl(dir / "slabs.stl");
  stl << "solid slabs\n";
  // Two boxes, x 3.3 to 12.6 and y 3.3 to 8.4, z 2.2 to 2.8 and 6.2 to 6.8, as two triangles a face.
  for (const double z0 : {2.2, 6.2}) {
    const double lo[3] = {3.3, 3.3, z0}, hi[3] = {12.6, 8.4, z0 + 0.6};
    const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (const auto& f : faces)
      for (const std::array<int, 3>& t : {std::array<int, 3>{f[0], f[1], f[2]}, std::array<int, 3>{f[0], f[2], f[3]}}) {
        stl << "facet normal 0 0 0\nouter loop\n";
        for (int k : t) stl << "vertex " << (k & 1 ? hi[0] : lo[0]) << " " << (k & 2 ? hi[1] : lo[1]) << " " << (k & 4 ? hi[2] : lo[2]) << "\n";
        stl << "endloop\nendfacet\n";
      }
  }
  stl << "endsolid slabs\n";
  stl.close();
  const std::string obstacle = "[[obstacle]]\nshape = \"stl\"\nfile = \"slabs.stl\"\n";
  std::string refused;
  try {
    Simulation::create(parse_deck_string(deck + obstacle, "deck.toml", dir.string()));
  } catch (const DeckError& e) {
    refused = e.what();
  }
  EXPECT_NE(refused.find("deck.toml:10:9: error: obstacle[0]: the solid of '" + (dir / "slabs.stl").string() +
                         "' holds no cell centre of level 0 though its bounding box does"),
            std::string::npos)
      << refused;
  const Config amr = parse_deck_string(deck + obstacle + "[amr]\nmax_level = 1\n", "deck.toml", dir.string(),
                                       {"domain.cells=[16, 12, 8]"});
  EXPECT_NO_THROW(check_file_solids(MPI_COMM_SELF, amr, DomainGeometry(amr)));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace boreas
