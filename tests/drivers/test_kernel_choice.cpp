// simulation.kernel = "auto" (drivers/KernelChoice.hpp): a trial picks one of the variants and
// caches it under a key of machine and problem; the run is bitwise the run of ab_pull (every
// variant is), the second run reads the cache, a different problem gets its own trial, and an
// unreadable cache or a malformed entry is ignored rather than trusted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/KernelChoice.hpp"
#include "drivers/Simulation.hpp"

namespace boreas {
namespace {

const char* deck = R"(
[simulation]
steps = 7
[lattice]
model = "D3Q19"
[domain]
cells = [16, 12, 10]
[physics]
tau = 0.6
[boundary.y_max]
type = "moving_wall"
velocity = [0.05, 0.0, 0.0]
[[obstacle]]
shape = "sphere"
center = [8, 5, 5]
radius = 2.5
[output]
vtk = false
)";

std::uint64_t run(const Config& c, Json* choice = nullptr) {
  auto sim = Simulation::create(c, MPI_COMM_SELF);
  sim->advance(c.steps);
  if (choice) *choice = sim->kernel_choice();
  return sim->fields_hash();
}

class KernelChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ensure_mpi_initialized();
    dir_ = std::filesystem::temp_directory_path() / ("boreas_kernel_choice_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    setenv("BOREAS_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("BOREAS_CACHE_DIR");
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
};

TEST_F(KernelChoiceTest, TrialThenCacheSameFieldsAsAbPull) {
  const Config reference = parse_deck_string(deck, "auto_deck", ".");
  const std::uint64_t expected = run(reference);
  const Config automatic = parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\""});

  Json first;
  EXPECT_EQ(run(automatic, &first), expected);
  ASSERT_FALSE(first.is_null());
  EXPECT_EQ(first["source"].get<std::string>(), "trial");
  const std::string chosen = first["chosen"].get<std::string>();
  std::set<std::string> tried;
  double best = 0;
  std::string fastest, fastest_layout;
  for (const auto& c : first["candidates"]) {
    tried.insert(c["kernel"].get<std::string>());
    tried.insert(c["kernel"].get<std::string>() + " " + c["layout"].get<std::string>());
    if (c["mlups"].get<double>() > best) {
      best = c["mlups"].get<double>();
      fastest = c["kernel"].get<std::string>();
      fastest_layout = c["layout"].get<std::string>();
    }
  }
  for (const auto& k : known_kernels()) EXPECT_TRUE(tried.count(k)) << k << " was not tried";
  EXPECT_TRUE(tried.count("ab_pull aosoa")) << "AoSoA storage was not tried";
  EXPECT_EQ(chosen, fastest);
  EXPECT_EQ(first["layout"].get<std::string>(), fastest_layout);
  EXPECT_TRUE(std::filesystem::exists(kernel_choice_cache_file()));

  Json second;
  EXPECT_EQ(run(automatic, &second), expected);
  EXPECT_EQ(second["source"].get<std::string>(), "cache");
  EXPECT_EQ(second["chosen"].get<std::string>(), chosen);
  EXPECT_EQ(second["layout"].get<std::string>(), fastest_layout);

  // Another problem (float) is another key: a new trial.
  const Config other = parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\"", "lattice.precision=\"float\""});
  Json third;
  run(other, &third);
  EXPECT_EQ(third["source"].get<std::string>(), "trial");
}

// A named overlap strategy needs a scheme that steps in parts: the trial tries only those, under
// a key of its own (a cached choice without overlap is not taken), and the run is still ab_pull's.
TEST_F(KernelChoiceTest, NamedOverlapTriesSchemesThatStepInParts) {
  const std::uint64_t expected = run(parse_deck_string(deck, "auto_deck", "."));
  const Config plain = parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\""});
  run(plain);  // caches a choice among every variant
  const Config overlapped =
      parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\"", "parallel.overlap=\"streams\""});
  Json choice;
  EXPECT_EQ(run(overlapped, &choice), expected);
  EXPECT_EQ(choice["source"].get<std::string>(), "trial");
  std::set<std::string> tried;
  for (const auto& c : choice["candidates"]) tried.insert(c["kernel"].get<std::string>());
  std::set<std::string> parts;
  for (const auto& k : known_kernels())
    if (parse_scheme(k)->steps_in_parts()) parts.insert(k);
  EXPECT_EQ(tried, parts);
  EXPECT_TRUE(parse_scheme(choice["chosen"].get<std::string>())->steps_in_parts());
}

// A layout the deck names is the only one the trial tries (it tried both and took the fastest,
// overriding the deck), under a key of its own; the run is still ab_pull's.
TEST_F(KernelChoiceTest, NamedLayoutIsTheOnlyOneTried) {
  const std::uint64_t expected = run(parse_deck_string(deck, "auto_deck", "."));
  run(parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\""}));  // caches a choice among both
  for (const char* layout : {"aosoa", "soa"}) {
    const Config named = parse_deck_string(deck, "auto_deck", ".",
                                           {"simulation.kernel=\"auto\"", std::string("simulation.layout=\"") + layout + "\""});
    Json choice;
    EXPECT_EQ(run(named, &choice), expected) << layout;
    EXPECT_EQ(choice["source"].get<std::string>(), "trial") << layout;
    EXPECT_EQ(choice["layout"].get<std::string>(), layout);
    ASSERT_FALSE(choice["candidates"].empty());
    for (const auto& c : choice["candidates"]) EXPECT_EQ(c["layout"].get<std::string>(), layout);
  }
}

TEST_F(KernelChoiceTest, UnreadableCacheIsIgnored) {
  std::filesystem::create_directories(dir_);
  std::ofstream(kernel_choice_cache_file()) << "{ not json";
  const Config automatic = parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\""});
  Json choice;
  run(automatic, &choice);
  EXPECT_EQ(choice["source"].get<std::string>(), "trial");
}

// An entry the run cannot take as it is (an edited cache, another version's names; "auto" made
// the run choose again from the same entry until its stack overflowed) is tried anew, and the
// new trial's entry replaces it.
TEST_F(KernelChoiceTest, MalformedEntriesAreTriedAnew) {
  const Config automatic = parse_deck_string(deck, "auto_deck", ".", {"simulation.kernel=\"auto\""});
  const std::uint64_t expected = run(parse_deck_string(deck, "auto_deck", "."));
  run(automatic);  // writes this problem's entry
  const auto read = [&] { return Json::parse(std::ifstream(kernel_choice_cache_file())); };
  const std::string key = read().begin().key();
  const std::vector<std::pair<std::string, Json>> edits = {
      {"kernel", "auto"}, {"kernel", 3}, {"tile", nullptr}, {"tile", 1}, {"tile", 2.5}, {"layout", 3}, {"layout", "aos"}};
  for (const auto& [field, value] : edits) {
    Json cache = read();
    if (value.is_null()) cache[key].erase(field);
    else cache[key][field] = value;
    std::ofstream(kernel_choice_cache_file()) << cache.dump();
    Json choice;
    EXPECT_EQ(run(automatic, &choice), expected) << field << " " << value.dump();
    EXPECT_EQ(choice["source"].get<std::string>(), "trial") << field << " " << value.dump();
    EXPECT_EQ(read()[key]["kernel"], choice["chosen"]) << field << " " << value.dump();
  }
}

// The key holds the voxel file's path; one that is not UTF-8 is written, not thrown on after the trial.
TEST_F(KernelChoiceTest, PathsThatAreNotUtf8AreWritten) {
  const std::filesystem::path voxels = dir_ / "lat\xe9" / "box.raw";
  std::filesystem::create_directories(voxels.parent_path());
  std::ofstream(voxels, std::ios::binary) << std::string(16 * 12 * 10, '\0');
  const std::string text = std::string(deck) + "[geometry]\nvoxel_file = \"box.raw\"\ndims = [16, 12, 10]\n";
  const std::string base = voxels.parent_path().string();
  const std::uint64_t expected = run(parse_deck_string(text, "auto_deck", base));
  Json choice;
  EXPECT_EQ(run(parse_deck_string(text, "auto_deck", base, {"simulation.kernel=\"auto\""}), &choice), expected);
  EXPECT_EQ(choice["source"].get<std::string>(), "trial");
  EXPECT_TRUE(std::filesystem::exists(kernel_choice_cache_file()));
}

}  // namespace
}  // namespace boreas
