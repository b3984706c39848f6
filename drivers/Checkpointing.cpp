#include "drivers/Checkpointing.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "comm/Mpi.hpp"
#include "core/Error.hpp"
#include "core/ParseNumber.hpp"
#include "core/Timers.hpp"
#include "drivers/Machine.hpp"
#include "drivers/Report.hpp"
#include "drivers/Simulation.hpp"
#include "io/BoxFile.hpp"
#include "io/Checkpoint.hpp"

namespace boreas {

namespace fs = std::filesystem;

namespace {

volatile std::sig_atomic_t received_signal = 0;

extern "C" void on_stop_signal(int signal) { received_signal = signal; }

const std::string extension = ".bchk";

// The step of "<name>_step<digits>.bchk", or -1 (also for digits no long holds: not a file of ours).
long step_of(const std::string& file, const std::string& name) {
  const std::string prefix = name + "_step";
  if (file.size() <= prefix.size() + extension.size() || file.compare(0, prefix.size(), prefix) != 0 ||
      file.compare(file.size() - extension.size(), extension.size(), extension) != 0)
    return -1;
  const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - extension.size());
  long step = -1;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || !parse_long(digits, step))
    return -1;
  return step;
}

std::string shown(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// This deck's checkpoints as (step, path), oldest first.
std::vector<std::pair<long, std::string>> checkpoints_by_step(const Config& config) {
  std::vector<std::pair<long, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(checkpoint_directory(config), ec)) {
    const long step = step_of(entry.path().filename().string(), config.name);
    if (step >= 0 && entry.is_regular_file(ec)) found.emplace_back(step, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::string checkpoint_directory(const Config& config) {
  if (!config.checkpoint.directory.empty()) return config.checkpoint.directory;
  return (fs::path(config.output_dir) / "checkpoints").string();
}

void prepare_checkpoint_directory(MPI_Comm comm, const Config& config) {
  // Not where the deck only names it: a restart may read from a read-only archive.
  if (config.checkpoint.every > 0 || config.checkpoint.every_minutes > 0)
    prepare_output_directory(comm, checkpoint_directory(config), "checkpoint directory");
}

std::string checkpoint_path(const Config& config, long step) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%08ld", step);
  return (fs::path(checkpoint_directory(config)) / (config.name + "_step" + digits + extension)).string();
}

std::string statistics_path(const std::string& checkpoint) { return checkpoint + ".statistics"; }

Json statistics_header(MPI_Comm comm, const std::string& checkpoint, const Sampling& sampling, long step,
                       int cell_bytes, std::string& why) {
  const std::string path = statistics_path(checkpoint);
  const Comm c(comm);
  int present = c.rank() == 0 && fs::exists(path);
  MPI_Bcast(&present, 1, MPI_INT, 0, comm);
  why.clear();
  if (!present) {
    why = "the checkpoint has no " + path;
    return Json();
  }
  const Json header = read_checkpoint_header(comm, path);
  // Averages of another checkpoint at this step (an earlier run's, whose checkpoint this one's
  // replaced) are not this state's; files before 2026-12-06 carry no hash and are taken.
  const std::string written_with = header.value("fields_hash", ""),
                    state = read_checkpoint_header(comm, checkpoint).value("fields_hash", "");
  if (!written_with.empty() && written_with != state) {
    why = path + " belongs to another checkpoint (fields_hash " + written_with + ", the checkpoint's " + state + ")";
    return Json();
  }
  const long start = header.value("start", -1L), every = header.value("every", -1L);
  if (start != sampling.start || every != sampling.every) {
    why = path + " sampled from step " + std::to_string(start) + " every " + std::to_string(every) +
          ", this deck from step " + std::to_string(sampling.start) + " every " + std::to_string(sampling.every);
    return Json();
  }
  if (header.value("step", -1L) != step || header.value("cell_bytes", 0) != cell_bytes)
    throw Error(path + ": not the averages of step " + std::to_string(step) + " (step " +
                std::to_string(header.value("step", -1L)) + ", " + std::to_string(header.value("cell_bytes", 0)) +
                " bytes per cell)");
  return header;
}

std::vector<std::string> list_checkpoints(const Config& config) {
  std::vector<std::string> paths;
  for (const auto& f : checkpoints_by_step(config)) paths.push_back(f.second);
  return paths;
}

void prune_checkpoints(const Config& config) {
  const std::vector<std::string> all = list_checkpoints(config);
  const std::size_t keep = static_cast<std::size_t>(config.checkpoint.keep);
  std::error_code ec;
  for (std::size_t i = 0; i + keep < all.size(); ++i) {
    fs::remove(all[i], ec);
    fs::remove(statistics_path(all[i]), ec);
  }
}

namespace {
// set_aside_earlier_checkpoints on rank 0: the files moved, and where.
int move_earlier_checkpoints(const Config& config, long after_step, std::string& into) {
  const fs::path dir = checkpoint_directory(config);
  std::vector<fs::path> files;  // <name>_step<digits>.bchk, and .bchk.statistics, .bchk.tmp, ...
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const std::size_t end = name.find(extension);
    if (end != std::string::npos && step_of(name.substr(0, end + extension.size()), config.name) > after_step &&
        entry.is_regular_file(ec))
      files.push_back(entry.path());
  }
  if (files.empty()) return 0;
  std::string stamp = utc_now();
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  fs::path aside = dir / ("earlier_" + stamp);
  for (int k = 2; fs::exists(aside, ec); ++k) aside = dir / ("earlier_" + stamp + "_" + std::to_string(k));
  fs::create_directories(aside, ec);
  if (ec) throw Error(aside.string() + ": cannot set aside the checkpoints of an earlier run: " + ec.message());
  for (const fs::path& f : files) {
    fs::rename(f, aside / f.filename(), ec);
    if (ec)
      throw Error(f.string() + ": cannot set aside an earlier run's checkpoint into " + aside.string() + ": " +
                  ec.message() + " (move or remove it, or choose another --output-dir)");
  }
  into = aside.string();
  return int(files.size());
}
}  // namespace

void set_aside_earlier_checkpoints(MPI_Comm comm, const Config& config, long first_step,
                                   const std::string& restarted_from) {
  std::string error;
  if (Comm(comm).rank() == 0) {
    try {
      std::string into;
      // A checkpoint from another directory starts another history here: all of this one's go.
      std::error_code ec;
      // absolute: a bare file name (--restart <file> run in the checkpoint directory) has no parent.
      const bool restarted = !restarted_from.empty() && fs::equivalent(fs::absolute(restarted_from).parent_path(),
                                                                       checkpoint_directory(config), ec);
      const std::string which = restarted ? "files after step " + std::to_string(first_step) + " (this run's start)"
                                          : "files";
      if (const int moved = move_earlier_checkpoints(config, restarted ? first_step : -1, into); moved > 0)
        std::fprintf(stderr,
                     "boreas: warning: %s held %d checkpoint %s of an earlier run of '%s': moved to %s (continue "
                     "that run with --restart %s/<file> --output-dir <another directory>; --restart latest "
                     "continues this one)\n",
                     checkpoint_directory(config).c_str(), moved, which.c_str(), config.name.c_str(), into.c_str(),
                     into.c_str());
    } catch (const Error& e) {
      error = e.what();
    }
  }
  agree(comm, error);
}

// A deck key that checks the flow but does not decide it: checkpoints written before it left the
// signature still hold it, and a restart may change it.
constexpr const char* checked_only_key = "mach_limit";

Json checkpoint_signature(const Config& config) {
  Json s = config_to_json(config);
  for (const char* key : {"name", "deck", "kernel", "tile", "merge_form", "traversal", "layout", "bundle", "storage",
                          "steps", "output_every", "output_dir", "voxel_file", "obstacles", checked_only_key})
    s.erase(key);
  Json obstacles = Json::array();
  for (const Obstacle& o : config.obstacles) {
    Json j = Json::object();
    j["shape"] = obstacle_shape_names()[int(o.shape)];
    j["lo"] = o.lo;
    j["hi"] = o.hi;
    j["center"] = o.center;
    j["radius"] = o.radius;
    j["axis"] = o.axis;
    // only where they differ from the defaults: checkpoints of decks without them stay readable
    if (o.bounce_back == Obstacle::BounceBack::Interpolated) j["bounce_back"] = "interpolated";
    if (o.quadratic()) j["interpolation"] = "quadratic";
    if (o.invert) j["invert"] = true;
    if (o.angular_velocity != 0) j["angular_velocity"] = o.angular_velocity;
    if (!o.file.empty()) {
      // The file by its content (a few MB at most), not its path, which may change between runs.
      std::ifstream in(o.file, std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      j["file_bytes"] = static_cast<std::int64_t>(bytes.size());
      j["file_hash"] = hash_hex(text_hash(bytes));
      j["scale"] = o.placement.scale;
      j["offset"] = o.placement.offset;
    }
    obstacles.push_back(j);
  }
  s["obstacles"] = obstacles;
  if (config.amr.enabled) {
    // The forest a run holds is in the checkpoint; these decide how it goes on changing.
    Json a = Json::object();
    a["leaf_size"] = config.amr.leaf_size;
    a["max_level"] = config.amr.max_level;
    a["regrid_every"] = config.amr.regrid_every;
    a["criterion"] = config.amr.criterion == RegridCriterion::Vorticity ? "vorticity" : "gradient";
    a["refine_above"] = config.amr.refine_above;
    a["coarsen_below"] = config.amr.coarsen_below;
    Json regions = Json::array();
    for (const AmrRegion& r : config.amr.regions) {
      Json j = Json::object();
      j["kind"] = r.kind == AmrRegion::Kind::Box ? "box" : "near_walls";
      j["lo"] = r.lo;
      j["hi"] = r.hi;
      j["distance"] = r.distance;
      j["level"] = r.level;
      regions.push_back(j);
    }
    a["regions"] = regions;
    s["amr"] = a;
  }
  if (config.voxels) {
    // The voxel file by its shape and size: hashing a 10^9-voxel file on every restart costs more
    // than it protects (its path may change between runs).
    std::error_code ec;
    Json v = Json::object();
    v["dims"] = config.voxels->dims;
    v["offset"] = config.voxels->offset;
    v["bytes"] = static_cast<std::int64_t>(fs::file_size(config.voxels->path, ec));
    s["voxels"] = v;
  }
  return s;
}

void check_loaded_state(const std::string& path, const Json& header, const std::string& loaded) {
  const std::string written = header.value("fields_hash", "?");
  if (loaded == written) return;
  // The signature keeps the voxel file's size, not its content; the flags are in the hash.
  throw Error(path + ": the state loaded does not hash as the one written (fields_hash " + loaded +
              ", the checkpoint says " + written + "): the geometry differs from the run's (a voxel file of the same "
              "size but other content?), or the file is damaged");
}

Json restart_record(const std::string& path, long step, const Json& header) {
  Json record = Json::object();
  record["checkpoint"] = path;
  record["step"] = step;
  record["written_by_kernel"] = header.value("kernel", "");
  record["written_on_ranks"] = header.value("ranks", 0);
  return record;
}

std::string resolve_restart(const Config& config, const std::string& spec) {
  if (spec != "latest") return spec;
  const std::vector<std::string> all = list_checkpoints(config);
  if (all.empty())
    throw Error("--restart latest: no checkpoint of '" + config.name + "' in " + checkpoint_directory(config) +
                " (files " + config.name + "_step*" + extension + ")");
  return all.back();
}

Json open_checkpoint(MPI_Comm comm, const Config& config, const std::string& path) {
  const Json header = read_checkpoint_header(comm, path);
  const Json* signature = member(header, "signature");
  if (!signature || !signature->is_object() || !member(header, "step"))
    throw Error(path + ": corrupt checkpoint header (no deck signature or step)");
  const Json here = checkpoint_signature(config);
  auto refuse = [&](const std::string& what) {
    throw Error(path + ": written by another deck: " + what + "; restart it with the deck that wrote it (" +
                shown(header.value("deck", Json("?"))) + ")");
  };
  for (const char* key : {"lattice", "precision", "cells"}) {
    const Json there = signature->value(key, Json());
    if (there != here[key]) refuse(std::string(key) + " " + shown(there) + " in the checkpoint, " + shown(here[key]) + " in this deck");
  }
  for (const auto& item : here.items())
    if (signature->value(item.key(), Json()) != item.value())
      refuse(item.key() + " = " + shown(signature->value(item.key(), Json("(absent)"))) + " in the checkpoint, " +
             shown(item.value()) + " in this deck");
  for (const auto& item : signature->items())
    if (!here.contains(item.key()) && item.key() != checked_only_key) refuse(item.key() + " = " + shown(item.value()) + " in the checkpoint, absent in this deck");
  return header;
}

namespace {
// What the rows of forces.csv and probes.csv mean beyond their columns' names (the coefficients'
// references, the probes' cells): a restart that appends to those files must not change it.
Json series_signature(const Config& config) {
  Json s = Json::object();
  if (config.forces.enabled) {
    Json f = Json::object();
    f["reference_velocity"] = config.forces.velocity;
    f["reference_length"] = config.forces.length;
    f["reference_area"] = config.forces.area;
    f["drag_axis"] = config.forces.drag_axis;
    f["lift_axis"] = config.forces.lift_axis;
    s["forces.csv"] = f;
  }
  if (!config.probes.empty()) {
    Json p = Json::object();
    for (const Probe& probe : config.probes) p[probe.name] = probe.cell;
    s["probes.csv"] = p;
  }
  if (config.integrals_every > 0) s["integrals.csv"] = Json::object();  // its rows' meaning: the checkpoint's deck
  return s;
}

// Why the rows the restart from `header` would append to a series file of the output directory
// mean something else than its earlier rows; "" if they do not (or the checkpoint predates the
// series' signature, or the file is not there to continue).
std::string series_change(const Config& config, const Json& header, const std::string& path) {
  const Json* before = member(header, "series");
  if (!before || !before->is_object() || header.value("step", 0L) == 0) return "";  // from step 0 the files start anew
  const Json here = series_signature(config);
  for (const auto& item : here.items()) {
    const Json* then = member(*before, item.key());
    std::error_code ec;
    if (!then || *then == item.value() || !fs::exists(fs::path(config.output_dir) / item.key(), ec)) continue;
    return path + ": " + item.key() + " holds rows for " + then->dump() + ", this deck asks " + item.value().dump() +
           ": its rows would mix both; restart with the checkpoint's settings, or into another --output-dir";
  }
  const Json* recorded = member(header, "series_rows");
  if (!recorded || !recorded->is_object()) return "";  // a checkpoint older than the record
  const long step = header.value("step", 0L);
  for (const auto& item : recorded->items()) {
    if (!here.contains(item.key())) continue;  // a series this deck no longer writes
    const fs::path file = fs::path(config.output_dir) / item.key();
    std::error_code ec;
    if (!fs::exists(file, ec) || !item.value().is_object()) continue;  // no history: said when the run starts
    bool cut = false;
    const std::optional<CsvRows> read = csv_file_rows(file.string(), step, cut);
    if (!read) continue;  // refused by the series with its line
    const CsvRows& there = *read;
    const long rows = item.value().value("rows", -1L);
    const std::string hash = item.value().value("text_hash", "");
    if ((there.rows == rows && hash_hex(there.text_hash) == hash) || (cut && there.rows < rows)) continue;  // a cut row: a gap, said
    return path + ": " + file.string() + " does not hold the rows of the run this checkpoint continues (the checkpoint recorded " +
           std::to_string(rows) + " rows up to step " + std::to_string(step) + ", the file holds " + std::to_string(there.rows) +
           (there.rows == rows ? " with other values" : "") +
           ": another run has written it since); move it away to restart without its earlier rows, or restart into another --output-dir";
  }
  return "";
}
}  // namespace

Json restart_header(const Config& config, const std::string& spec, MPI_Comm comm, std::string& path) {
  const Comm c(comm);
  std::string resolved;
  if (c.rank() == 0) {
    try {
      resolved = "+" + resolve_restart(config, spec);
    } catch (const Error& e) {
      resolved = std::string("!") + e.what();
    }
  }
  resolved = c.broadcast(resolved);
  if (resolved[0] == '!') throw Error(resolved.substr(1));
  path = resolved.substr(1);
  Json header = open_checkpoint(comm, config, path);
  if (const std::string changed = c.broadcast(c.rank() == 0 ? series_change(config, header, path) : std::string());
      !changed.empty())
    throw Error(changed);
  const long step = header.at("step").get<long>();
  if (step >= config.steps)
    throw Error(path + ": the checkpoint is at step " + std::to_string(step) + ", not before simulation.steps = " +
                std::to_string(config.steps) + "; hint: --set simulation.steps=N with N > " + std::to_string(step) +
                " runs it further");
  return header;
}

Checkpoints::Checkpoints(const Config& config, double initial_mass)
    : config_(config), initial_mass_(initial_mass), last_(std::chrono::steady_clock::now()),
      signature_(checkpoint_signature(config)) {}

bool Checkpoints::write(long step, bool root, Json meta,
                        const std::function<void(const std::string&, const Json&)>& write) {
  const auto t0 = std::chrono::steady_clock::now();
  meta["deck"] = config_.deck_path;
  meta["name"] = config_.name;
  meta["step"] = step;
  meta["written"] = utc_now();
  meta["initial_mass"] = initial_mass_;
  meta["signature"] = signature_;
  meta["series"] = series_signature(config_);
  meta["series_rows"] = Json::object();
  for (const CsvSeries* series : series_) {
    const CsvRows rows = series->rows_up_to(step);
    meta["series_rows"][fs::path(series->path()).filename().string()] = {{"rows", rows.rows}, {"text_hash", hash_hex(rows.text_hash)}};
  }
  const std::string path = checkpoint_path(config_, step);
  last_ = std::chrono::steady_clock::now();
  last_step_ = step;
  // Averages left beside an earlier checkpoint of this step are not this one's.
  if (root) {
    std::error_code ec;
    fs::remove(statistics_path(path), ec);
  }
  try {
    write(path, meta);
  } catch (const Error& e) {
    failed_.push_back(e.what());
    if (root) {
      // The averages, written first, are no use without their checkpoint (and hold disk space).
      std::error_code ec;
      fs::remove(statistics_path(path), ec);
      std::fprintf(stderr, "boreas: warning: no checkpoint at step %ld: %s\n", step, e.what());
    }
    return false;
  }
  if (root) prune_checkpoints(config_);
  seconds_ += seconds_since(t0);
  written_.push_back(path);
  return true;
}

std::string Checkpoints::of_last_good_state(long step, long first_step, const std::string& restarted_from,
                                            const std::function<void()>& write) {
  if (newest_is(step)) return newest();
  if (!restarted_from.empty() && step == first_step) return restarted_from;
  write();
  return newest_is(step) ? newest() : std::string();
}

double Checkpoints::seconds_since_last() const { return seconds_since(last_); }

Json Checkpoints::report() const {
  Json r = Json::object();
  r["directory"] = checkpoint_directory(config_);
  r["written"] = written_;
  r["kept"] = list_checkpoints(config_);  // what pruning left on disk, earlier runs' included
  if (!failed_.empty()) r["failed"] = failed_;
  r["seconds"] = seconds_;
  if (!written_.empty()) {
    std::error_code ec;
    const auto bytes = fs::file_size(written_.back(), ec);
    if (!ec) {
      r["bytes_each"] = static_cast<std::int64_t>(bytes);
      r["write_GB_per_s"] = double(bytes) * written_.size() / std::max(seconds_, 1e-9) * 1e-9;
    }
  }
  return r;
}

Json Checkpoints::report_stop(int signal, long step, const std::string& continue_command, bool root) const {
  const bool written = newest_is(step);
  if (root && written) {
    std::fprintf(stderr, "boreas: stopped by %s at step %ld; newest checkpoint %s.\n  Continue with: %s\n",
                 signal_name(signal), step, newest().c_str(), continue_command.c_str());
  } else if (root) {
    const std::vector<std::string> kept = list_checkpoints(config_);
    const std::string left = kept.empty() ? "there is no checkpoint to continue from"
                                          : "--restart latest continues from " + kept.back() + " instead: " + continue_command;
    std::fprintf(stderr,
                 "boreas: error: stopped by %s at step %ld, whose checkpoint could not be written (the warning above "
                 "says why): the run cannot continue from this step; %s\n",
                 signal_name(signal), step, left.c_str());
  }
  return written ? Json(newest()) : Json();
}

void install_stop_signals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;  // system calls the signal interrupts go on (file systems, MPI transports)
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

int stop_signal() { return received_signal; }

AgreedClock agree_on_clock(MPI_Comm comm, double seconds_per_step, const Checkpoints& checkpoints) {
  const double local[3] = {double(stop_signal()), seconds_per_step, checkpoints.seconds_since_last()};
  double global[3];
  MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_MAX, comm);
  return {int(global[0]), global[1], global[2]};
}

ChunkEnd chunk_end(const Config& config, long step, long check_every, const AgreedClock& clock) {
  ChunkEnd e;
  e.at_checkpoint = clock.stopped_by != 0 || (config.checkpoint.every > 0 && step % config.checkpoint.every == 0) ||
                    (config.checkpoint.every_minutes > 0 && clock.since_checkpoint >= 60 * config.checkpoint.every_minutes);
  e.at_check = step % check_every == 0 || step == config.steps;
  e.at_output = config.write_vtk && config.output_every > 0 && step % config.output_every == 0;
  return e;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
  }
}

}  // namespace boreas
