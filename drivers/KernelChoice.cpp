#include "drivers/KernelChoice.hpp"

#include <Kokkos_Core.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "comm/Mpi.hpp"
#include "core/Timers.hpp"
#include "core/Types.hpp"
#include "drivers/Machine.hpp"
#include "drivers/Report.hpp"
#include "drivers/Simulation.hpp"

namespace boreas {

namespace {

struct Candidate {
  const char* kernel;
  int tile;  // 0: the deck's
  StorageLayout layout;
};

// Every variant in SoA storage, swap_prism at two tile sizes (merged<k> and merged_aa<k> keep the deck's tile);
// the two fastest single-step variants also in AoSoA storage (with the deck's bundle).
constexpr StorageLayout soa = StorageLayout::SoA, aosoa = StorageLayout::AoSoA;
const Candidate candidates[] = {{"ab_pull", 0, soa},     {"ab_push", 0, soa},     {"aa", 0, soa},
                                {"swap", 0, soa},        {"swap_prism", 4, soa},  {"swap_prism", 16, soa},
                                {"merged2", 0, soa},     {"merged3", 0, soa},     {"merged_aa2", 0, soa},
                                {"merged_aa3", 0, soa},  {"ab_pull", 0, aosoa},   {"aa", 0, aosoa}};

// Timed steps per candidate: a multiple of every merged k, after one warm-up step.
constexpr long trial_steps = 6;

std::string problem_key(const Config& c) {
  std::ostringstream k;
  k << hostname() << " | " << device_description() << " | " << ExecSpace::name() << " x"
    << ExecSpace().concurrency() << " | " << lattice_name(c.lattice) << " "
    << (c.precision == Precision::Float ? "float" : "double") << " "
    << (collision_name(c.collision)) << (c.cumulant_parametrised ? " parametrised" : "")
    << (c.sgs != SgsModel::None ? std::string(" ") + sgs_name(c.sgs) : "")
    << " | " << c.cells[0] << "x" << c.cells[1] << "x"
    << c.cells[2] << " | faces";
  for (const auto& f : c.faces) k << " " << face_bc_name(f.type);
  k << " | obstacles " << c.obstacles.size() << (c.voxels ? " voxels " + c.voxels->path : "")
    << " | force " << (c.force[0] != 0 || c.force[1] != 0 || c.force[2] != 0);
  return k.str();
}

Json read_cache(const std::string& file) {
  std::ifstream in(file);
  if (!in) return Json::object();
  std::stringstream text;
  text << in.rdbuf();
  try {
    Json v = Json::parse(text.str());
    if (v.is_object()) return v;
  } catch (const Json::exception&) {
  }
  std::fprintf(stderr, "boreas: warning: ignoring unreadable kernel cache %s\n", file.c_str());
  return Json::object();
}

// Adds `entry` under `key` to the cache file as it is now: runs on one node share the file, and
// another may have added its entry since this run read it (a trial takes seconds). The re-read,
// the temporary (one per process) and its rename happen under an exclusive lock on a file beside
// the cache, so no run's entry is lost; where no lock can be taken the last rename wins (an entry
// lost so is tried again). A path in the key that is not UTF-8 is written with replacement
// characters (that problem is then tried on every run, not refused after its trial).
void store_entry(const std::string& file, const std::string& key, const Json& entry) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
  const int lock = ::open((file + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  int locked = -1;
  if (lock >= 0)
    do locked = ::flock(lock, LOCK_EX);
    while (locked != 0 && errno == EINTR);
  if (locked != 0)
    std::fprintf(stderr, "boreas: warning: kernel cache %s: no lock beside it (%s); an entry another run writes now may be lost\n",
                 file.c_str(), std::strerror(errno));
  Json cache = read_cache(file);
  cache[key] = entry;
  const std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << cache.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
    out.close();
    if (out) std::filesystem::rename(tmp, file, ec);
    if (!out || ec) {
      std::filesystem::remove(tmp, ec);
      std::fprintf(stderr, "boreas: warning: could not write kernel cache %s\n", file.c_str());
    }
  }
  if (lock >= 0) ::close(lock);  // and with it the lock
}

// Why a cache entry cannot be taken as it is (an edited file, another version's names), or "".
std::string malformed_entry(const Json& entry) {
  const Json* kernel = member(entry, "kernel");
  const auto& names = known_kernels();
  if (!kernel || !kernel->is_string() || std::find(names.begin(), names.end(), kernel->get<std::string>()) == names.end())
    return "\"kernel\" names no variant";
  const Json* tile = member(entry, "tile");
  if (!tile || !tile->is_number_integer() || tile->get<std::int64_t>() < 2 ||
      tile->get<std::int64_t>() > std::numeric_limits<int>::max())
    return "\"tile\" is not an integer of at least 2";
  const Json* layout = member(entry, "layout");
  if (layout && !(layout->is_string() && (layout->get<std::string>() == storage_layout_name(StorageLayout::SoA) ||
                                          layout->get<std::string>() == storage_layout_name(StorageLayout::AoSoA))))
    return std::string("\"layout\" is neither \"") + storage_layout_name(StorageLayout::SoA) + "\" nor \"" +
           storage_layout_name(StorageLayout::AoSoA) + "\"";
  return "";
}

}  // namespace

std::string kernel_choice_cache_file() {
  const char* dir = std::getenv("BOREAS_CACHE_DIR");
  if (dir && *dir) return (std::filesystem::path(dir) / "kernel_choice.json").string();
  const char* home = std::getenv("HOME");
  return (std::filesystem::path(home ? home : ".") / ".cache" / "boreas" / "kernel_choice.json").string();
}

// Several ranks run the trial together (each candidate on the run's decomposition, timed by the
// slowest rank); rank 0 reads and writes the cache and its entry is broadcast, so ranks on nodes
// with different home directories still agree.
KernelChoice choose_kernel(const Config& config, MPI_Comm comm) {
  KernelChoice choice{"ab_pull", config.tile, config.layout, Json::object()};
  const Comm world(comm);
  const int ranks = world.size(), rank = world.rank();
  if (config.parallel.ghost_width != 1) {
    choice.report["chosen"] = choice.kernel;
    choice.report["source"] = "CRMT runs (parallel.ghost_width other than 1) use ab_pull";
    return choice;
  }
  const auto& par = config.parallel;
  const std::string split = par.decomposition == DecompositionKind::Bisection
                                ? " bisection"
                                : " dims " + std::to_string(par.dims[0]) + "x" + std::to_string(par.dims[1]) + "x" +
                                      std::to_string(par.dims[2]);
  const std::string key = problem_key(config) + " | ranks " + std::to_string(ranks) + split +
                          " | overlap " + overlap_name(par.overlap) + (par.overlap_required ? " (named)" : "") +
                          (config.layout_required ? std::string(" | layout ") + storage_layout_name(config.layout) : ""),
                    file = kernel_choice_cache_file();
  const Json cache = rank == 0 ? read_cache(file) : Json(Json::object());
  choice.report["key"] = key;
  choice.report["cache_file"] = file;
  const Json* own_hit = member(cache, key);
  const std::string hit_text = world.broadcast(own_hit ? own_hit->dump() : std::string());
  const Json hit = hit_text.empty() ? Json() : Json::parse(hit_text);
  // An entry that is malformed, or that cannot take the overlap strategy the deck names, is tried anew.
  const std::string malformed = hit.is_null() ? "" : malformed_entry(hit);
  if (!malformed.empty() && rank == 0)
    std::fprintf(stderr, "boreas: warning: kernel cache %s: the entry for this problem is not used (%s); trying the variants\n",
                 file.c_str(), malformed.c_str());
  const std::optional<Scheme> cached_scheme =
      hit.is_null() || !malformed.empty() ? std::nullopt : parse_scheme(hit["kernel"].get<std::string>());
  if (cached_scheme && (!par.overlap_required || cached_scheme->steps_in_parts())) {
    choice.kernel = hit["kernel"].get<std::string>();
    choice.tile = int(hit["tile"].get<std::int64_t>());
    const Json* layout = member(hit, "layout");
    choice.layout = layout && layout->get<std::string>() == storage_layout_name(StorageLayout::AoSoA) ? StorageLayout::AoSoA
                                                                                              : StorageLayout::SoA;
    choice.report["chosen"] = choice.kernel;
    choice.report["tile"] = choice.tile;
    choice.report["layout"] = storage_layout_name(choice.layout);
    choice.report["source"] = "cache";
    return choice;
  }
  Json tried = Json::array();
  double best = -1;
  for (const Candidate& cand : candidates) {
    Config c = config;
    c.kernel = *parse_scheme(cand.kernel);
    // An overlap strategy the deck names asks for a scheme that steps in parts.
    if (config.parallel.overlap_required && !c.kernel.steps_in_parts()) continue;
    // A layout the deck names is the only one tried (it was overridden by the trial's choice).
    if (config.layout_required && cand.layout != config.layout) continue;
    if (cand.tile) c.tile = cand.tile;
    c.layout = cand.layout;
    auto sim = Simulation::create(c, comm);
    const double cells = double(sim->fluid_cells());
    // Times are the slowest rank's, so that every rank takes the same decisions.
    world.barrier();
    auto t0 = std::chrono::steady_clock::now();
    sim->advance(1);
    Kokkos::fence();
    const double warm_up = world.max(seconds_since(t0));
    Json t = Json::object();
    t["kernel"] = scheme_name(c.kernel);
    t["tile"] = c.tile;
    t["layout"] = storage_layout_name(c.layout);
    // A warm-up step three times slower than the best candidate's steps cannot win: skip its
    // timed steps, so that slow variants (swap on a GPU, say) do not make the trial long.
    if (best > 0 && cells / warm_up * 1e-6 < best / 3) {
      t["mlups"] = cells / warm_up * 1e-6;
      t["skipped_after_warm_up"] = true;
      tried.push_back(t);
      continue;
    }
    world.barrier();
    t0 = std::chrono::steady_clock::now();
    sim->advance(trial_steps);
    Kokkos::fence();
    const double mlups = cells * trial_steps / world.max(seconds_since(t0)) * 1e-6;
    t["mlups"] = mlups;
    tried.push_back(t);
    if (mlups > best) {
      best = mlups;
      choice.kernel = scheme_name(c.kernel);
      choice.tile = c.tile;
      choice.layout = c.layout;
    }
  }
  choice.report["chosen"] = choice.kernel;
  choice.report["tile"] = choice.tile;
  choice.report["layout"] = storage_layout_name(choice.layout);
  choice.report["source"] = "trial";
  choice.report["trial_steps"] = trial_steps;
  choice.report["candidates"] = tried;
  if (rank == 0) {
    Json entry = Json::object();
    entry["kernel"] = choice.kernel;
    entry["tile"] = choice.tile;
    entry["layout"] = storage_layout_name(choice.layout);
    entry["mlups"] = best;
    entry["date"] = utc_now();
    store_entry(file, key, entry);
  }
  return choice;
}

}  // namespace boreas
