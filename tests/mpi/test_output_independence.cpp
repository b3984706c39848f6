// What users read is independent of the rank count, the decomposition, the blocks per rank, the
// streaming variant, the storage layout and the storage (dense, or fluid cells only where the deck's
// faces allow): every VTK array written (density, velocity, vorticity_magnitude, flags, at
// every output step) and every physical value of report.json (mass, observables, fields_hash,
// fluid cells) of a run on 2, 3, 4 and 8 ranks equals bit for bit the one-rank ab_pull run of
// the same deck (the convergence monitor's velocity change, a sum in rank and block order, to
// round-off); probes.csv and integrals.csv hold the same text. The files are read back with
// VTK's own readers, as ParaView reads them.
// The binary runs under mpiexec with N ranks and tests every rank count n <= N.
#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "comm/Mpi.hpp"
#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"
#include "tests/io/VtkReadBack.hpp"
#include "tests/mpi/Decks.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;

using test::Deck;
using test::decks;

// The decks with output every 5 steps (steps 0, 5, 10 and the last), the mass observable, time
// averages sampled every 2 steps from step 3 (arrays from the output at step 5 on), checks every
// 5 steps for every kernel (the convergence monitor compares steps 5 and 10), and, added below,
// probes along the diagonal every 3 steps.
const std::vector<std::string> with_output = {"output.vtk=true", "output.every=5", "validation.observables=[\"mass\"]",
                                              "statistics.start=3", "statistics.every=2", "output.progress_every=5"};


// Every variant, both layouts, CRMT and an overlap strategy.
const std::vector<std::vector<std::string>> variants = {
    {},
    {"parallel.ghost_width=3", "parallel.overlap=\"systolic\""},
    {"simulation.kernel=\"ab_push\""},
    {"simulation.kernel=\"aa\""},
    {"simulation.kernel=\"aa\"", "simulation.layout=\"aosoa\""},
    {"simulation.kernel=\"swap\""},
    {"simulation.kernel=\"swap_prism\"", "simulation.tile=3"},
    {"simulation.kernel=\"merged3\""},
    {"simulation.kernel=\"merged_aa2\""},
    {"simulation.layout=\"aosoa\"", "simulation.bundle=5"},
    {"parallel.blocks_per_rank=3"},
    {"parallel.blocks_per_rank=2", "simulation.kernel=\"swap\""},
};

struct Output {
  std::vector<std::vector<double>> arrays;  // per step and array, every component, flat
  std::vector<std::string> names;
  Json report;
  std::string probes;     // probes.csv
  std::string integrals;  // integrals.csv
};

long steps_of(const Config& c) { return c.steps; }

// Reads every output step of a run on `ranks` ranks back from disk (rank 0 only).
Output read_back(const Config& c, const fs::path& dir, int ranks) {
  Output out;
  std::ifstream in(dir / "report.json");
  std::stringstream text;
  text << in.rdbuf();
  out.report = Json::parse(text.str());
  std::ifstream probes(dir / "probes.csv");
  out.probes.assign(std::istreambuf_iterator<char>(probes), std::istreambuf_iterator<char>());
  std::ifstream integrals(dir / "integrals.csv");
  out.integrals.assign(std::istreambuf_iterator<char>(integrals), std::istreambuf_iterator<char>());
  std::vector<long> steps;
  for (long s = 0; s < steps_of(c); s += c.output_every) steps.push_back(s);
  steps.push_back(steps_of(c));
  for (long s : steps) {
    char stem[64];
    std::snprintf(stem, sizeof stem, "%s_%06ld", c.name.c_str(), s);
    const bool pieces = ranks * c.parallel.blocks_per_rank > 1;
    const std::string file = (dir / (std::string(stem) + (pieces ? ".pvti" : ".vti"))).string();
    const auto arrays = test::read_cell_arrays(file);
    EXPECT_EQ(arrays.size(), s > c.statistics.start ? 8u : 4u) << file;  // + mean, RMS, Reynolds stresses
    for (const auto& [name, values] : arrays) {
      out.arrays.push_back(values);
      out.names.push_back(std::string(stem) + ":" + name);
    }
  }
  // report.json lists every VTK file in the folder, whichever rank wrote it.
  std::vector<std::string> listed, on_disk;
  for (const Json& f : out.report["output_files"]) listed.push_back(fs::path(f.get<std::string>()).filename().string());
  for (const auto& e : fs::directory_iterator(dir))
    if (const std::string x = e.path().extension().string(); x == ".vti" || x == ".pvti" || x == ".pvd")
      on_disk.push_back(e.path().filename().string());
  std::sort(listed.begin(), listed.end());
  std::sort(on_disk.begin(), on_disk.end());
  EXPECT_EQ(listed, on_disk) << dir;
  return out;
}

// Bitwise equality of doubles (NaN included), with the first difference in the message.
void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  if (a.size() != b.size()) {
    ADD_FAILURE() << what << ": " << a.size() << " values, the reference has " << b.size();
    return;
  }
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) {
      ADD_FAILURE() << what << ": value " << i << " differs: " << a[i] << " vs " << b[i] << " (reference)";
      return;
    }
}

// The report values a user reads as physics (not timings).
void expect_same_report(const Json& a, const Json& ref, const std::string& what) {
  for (const char* key : {"status", "fields_hash"}) EXPECT_EQ(a[key].get<std::string>(), ref[key].get<std::string>()) << what << " " << key;
  for (const char* key : {"steps", "fluid_cells"}) EXPECT_EQ(a[key].get<std::int64_t>(), ref[key].get<std::int64_t>()) << what << " " << key;
  std::vector<double> values, expected;
  for (const char* key : {"initial", "final", "relative_change"}) {
    values.push_back(a["mass"][key].get<double>());
    expected.push_back(ref["mass"][key].get<double>());
  }
  values.push_back(a["observables"]["mass"].get<double>());
  expected.push_back(ref["observables"]["mass"].get<double>());
  expect_same_bits(values, expected, what + " report mass (initial, final, relative change, observable)");
  // The convergence monitor's sums run over blocks and ranks in their order: equal to round-off.
  ASSERT_TRUE(a.contains("convergence") && ref.contains("convergence")) << what;
  for (const char* key : {"step", "since_step"})
    EXPECT_EQ(a["convergence"][key].get<std::int64_t>(), ref["convergence"][key].get<std::int64_t>()) << what << " " << key;
  const double change = ref["convergence"]["velocity_change"].get<double>();
  EXPECT_NEAR(a["convergence"]["velocity_change"].get<double>(), change, 1e-12 * change) << what << " velocity change";
}

class OutputIndependence : public ::testing::TestWithParam<int> {};

TEST_P(OutputIndependence, VtkArraysAndReportEqualTheOneRankRun) {
  const Deck& deck = decks[GetParam()];
  ensure_mpi_initialized();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const fs::path root = fs::temp_directory_path() / ("boreas_output_" + std::to_string(pid) + "_" + deck.name);

  auto config = [&](std::vector<std::string> v, const fs::path& dir) {
    v.insert(v.begin(), with_output.begin(), with_output.end());
    Config c = parse_deck_string(deck.text, deck.name, ".", v);
    c.output_dir = dir.string();
    // Probes on the domain's diagonal, cells of every block and rank.
    for (int j = 0; j < 8; ++j)
      c.probes.push_back({"d" + std::to_string(j),
                          {j * (c.cells[0] - 1) / 7, j * (c.cells[1] - 1) / 7, j * (c.cells[2] - 1) / 7}});
    c.probes_every = 3;
    c.integrals_every = 4;
    return c;
  };
  RunOptions quiet;
  quiet.progress = false;
  Output reference;
  if (world_rank == 0) {
    const Config c = config({}, root / "reference");
    quiet.comm = MPI_COMM_SELF;
    run_deck(c, quiet);
    reference = read_back(c, root / "reference", 1);
    EXPECT_GE(std::count(reference.probes.begin(), reference.probes.end(), '\n'), 3) << "probes.csv: header and samples";
    EXPECT_GE(std::count(reference.integrals.begin(), reference.integrals.end(), '\n'), 3) << "integrals.csv: header and samples";
  }
  for (int n : {1, 2, 3, 4, 8}) {
    if (n > world_size) continue;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm == MPI_COMM_NULL) continue;
    std::vector<std::vector<std::string>> runs = variants;
    if (n > 2) runs.push_back({"parallel.decomposition=\"bisection\"", "simulation.kernel=\"aa\""});
    // The sparse fluid-only storage, on the decks whose faces it takes (walls and periodic).
    const Config plain = config({}, root);
    if (std::all_of(plain.faces.begin(), plain.faces.end(), [](const FaceCondition& f) {
          return f.type == FaceBC::Wall || f.type == FaceBC::Periodic;
        })) {
      runs.push_back({"simulation.storage=\"sparse\"", "simulation.kernel=\"aa\"", "parallel.decomposition=\"bisection\""});
      runs.push_back({"simulation.storage=\"sparse\"", "parallel.blocks_per_rank=2"});
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::vector<std::string>& v = runs[i];
      const fs::path dir = root / ("ranks" + std::to_string(n) + "_case" + std::to_string(i));
      const Config c = config(v, dir);
      quiet.comm = comm;
      run_deck(c, quiet);
      MPI_Barrier(comm);
      if (world_rank != 0) continue;
      std::string what = std::string(deck.name) + " on " + std::to_string(n) + " ranks:";
      for (const auto& o : v) what += " " + o;
      const Output out = read_back(c, dir, n);
      EXPECT_EQ(out.arrays.size(), reference.arrays.size()) << what;
      for (std::size_t i = 0; i < std::min(out.arrays.size(), reference.arrays.size()); ++i)
        expect_same_bits(out.arrays[i], reference.arrays[i], what + " " + out.names[i]);
      expect_same_report(out.report, reference.report, what);
      EXPECT_EQ(out.probes, reference.probes) << what << " probes.csv";
      EXPECT_EQ(out.integrals, reference.integrals) << what << " integrals.csv";
      Json integrals = out.report["integrals"], expected = reference.report["integrals"];
      integrals.erase("file");  // in each run's own directory
      expected.erase("file");
      EXPECT_EQ(integrals.dump(), expected.dump()) << what << " report integrals";
    }
    MPI_Comm_free(&comm);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0) fs::remove_all(root);
}

// A piece that cannot be written (a folder in its place on the last rank) fails the run on every
// rank, and the .pvd does not list that output (it listed its .pvti, whose piece was missing, so
// ParaView failed on the series), while the outputs before it stay listed.
TEST(OutputSeries, AnOutputWithAPieceMissingIsNotListed) {
  ensure_mpi_initialized();
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  ASSERT_GE(world_size, 2) << "run under mpiexec with at least 2 ranks";
  long pid = ::getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const fs::path dir = fs::temp_directory_path() / ("boreas_output_missing_piece_" + std::to_string(pid));
  Config c = parse_deck_string(decks[0].text, decks[0].name, ".", {"output.vtk=true", "output.every=5", "simulation.steps=10"});
  c.output_dir = dir.string();
  char stem[64];
  std::snprintf(stem, sizeof stem, "%s_%06d", c.name.c_str(), 5);
  if (world_rank == 0) fs::create_directories(dir / (std::string(stem) + "_" + std::to_string(world_size - 1) + ".vti"));
  MPI_Barrier(MPI_COMM_WORLD);
  RunOptions quiet;
  quiet.progress = false;
  EXPECT_THROW(run_deck(c, quiet), Error);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0) {
    std::ifstream in(dir / (c.name + ".pvd"));
    const std::string pvd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    char first[64];
    std::snprintf(first, sizeof first, "%s_%06d.pvti", c.name.c_str(), 0);
    EXPECT_NE(pvd.find(first), std::string::npos) << pvd;
    EXPECT_EQ(pvd.find(std::string(stem) + ".pvti"), std::string::npos) << pvd;
    fs::remove_all(dir);
  }
}

INSTANTIATE_TEST_SUITE_P(Decks, OutputIndependence, ::testing::Range(0, 4),
                         [](const auto& info) { return std::string(decks[info.param].name); });

}  // namespace
}  // namespace boreas
