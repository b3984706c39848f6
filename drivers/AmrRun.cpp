#include "drivers/AmrRun.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "amr/LeafValues.hpp"
#include "comm/Mpi.hpp"
#include "core/Error.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Convergence.hpp"
#include "drivers/ForceSeries.hpp"
#include "drivers/Integrals.hpp"
#include "drivers/Observables.hpp"
#include "drivers/Report.hpp"
#include "drivers/RunCheck.hpp"
#include "drivers/RunPlots.hpp"
#include "io/AmrSeries.hpp"
#include "io/BoxFile.hpp"
#include "io/Checkpoint.hpp"
#include "lbm/field/RunningStatistics.hpp"

namespace boreas {

namespace {

// Seconds spent stepping: the leaves' updates and the level coupling of every step.
double stepping_seconds(const Timers& t) {
  return t.get("LBM") + t.get("AMR interpolation") + t.get("AMR restriction") + t.get("MPI");
}

// Collective (the samples are gathered); rank 0 writes, and a failure there is every rank's.
// With time averages taken, they are written beside the instantaneous fields.
void write_output(AmrSeries& series, const AmrSolver& solver, MPI_Comm comm) {
  std::vector<AmrBlockSample> samples = solver.sample();
  const std::vector<double> statistics = solver.statistics_samples() > 0 ? solver.statistics_state() : std::vector<double>{};
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) try {
      std::vector<AmrPatch> patches;
      long leaf = 0;
      for (AmrBlockSample& b : samples) {
        AmrPatch p;
        if (!statistics.empty()) {
          // A leaf's averages from its state; zeros on a refined block (its cells are blanked).
          const long values = long(b.density.size()) * RunningStatistics::state_columns;
          std::vector<double> state(values);
          if (b.leaf) std::copy_n(statistics.begin() + leaf++ * values, values, state.begin());
          p.arrays = statistics_arrays(RunningStatistics::fields_of_cells(state));
        }
        p.level = b.level;
        p.lo = b.box.lo;
        p.hi = b.box.hi;
        p.density = std::move(b.density);
        p.velocity = std::move(b.velocity);
        p.flags = std::move(b.flags);
        patches.push_back(std::move(p));
      }
      series.write(solver.step(), double(solver.step()), patches);
    } catch (const std::exception& e) {
      error = e.what();
    }
  agree(comm, error);
}

constexpr const char* amr_kernel_name = "ab_pull (AMR leaves)";

// An AMR run's state at one step on the host: what a checkpoint holds; with [statistics] the
// averages of that step and how they were sampled.
struct AmrState {
  long step = 0;
  std::vector<std::array<int, 4>> refined;  // Forest::refined_blocks()
  int cells_per_block = 0, cell_bytes = 0;
  std::vector<unsigned char> populations;  // AmrSolver::populations()
  std::uint64_t fields_hash = 0;
  std::vector<double> statistics;  // AmrSolver::statistics_state()
  Sampling sampling{0, 1, 0, 0};

  static AmrState of(const AmrSolver& solver, const Sampling* sampling) {
    AmrState s;
    s.step = solver.step();
    s.refined = solver.forest().refined_blocks();
    s.cells_per_block = solver.cells_per_block();
    s.cell_bytes = solver.cell_bytes();
    s.populations = solver.populations();
    s.fields_hash = solver.fields_hash();
    if (sampling) {
      s.statistics = solver.statistics_state();
      s.sampling = *sampling;
    }
    return s;
  }
};

// The averages beside an AMR checkpoint (statistics_path): one row per leaf of the forest (level
// by level in forest order) of its interior cells, RunningStatistics::state_columns doubles each.
constexpr int amr_statistics_cell_bytes = RunningStatistics::state_columns * int(sizeof(double));

void write_amr_statistics(MPI_Comm comm, const std::string& path, const AmrState& state, long leaf_cells) {
  Json meta = state.sampling.json();
  meta["step"] = state.step;
  meta["fields_hash"] = hash_hex(state.fields_hash);  // of the checkpoint they go with (statistics_header)
  BoxBytes rows;
  rows.hi = {int(leaf_cells), int(long(state.statistics.size()) / RunningStatistics::state_columns / leaf_cells), 1};
  const auto* bytes = reinterpret_cast<const unsigned char*>(state.statistics.data());
  rows.values.assign(bytes, bytes + state.statistics.size() * sizeof(double));
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  write_checkpoint(comm, path, std::move(meta), rows.hi, amr_statistics_cell_bytes,
                   rank == 0 ? std::vector<BoxBytes>{rows} : std::vector<BoxBytes>{});
}

// Continues the averages kept beside `checkpoint` and returns "", or returns why they start again
// (statistics_header).
std::string read_amr_statistics(MPI_Comm comm, const std::string& checkpoint, AmrSolver& solver, Sampling& sampling,
                                long leaf_cells) {
  std::string why;
  const Json header = statistics_header(comm, checkpoint, sampling, solver.step(), amr_statistics_cell_bytes, why);
  if (!why.empty()) return why;
  long long leaves = 0;
  for (int l = 0; l < solver.forest().levels(); ++l) leaves += solver.forest().leaves(l);
  BoxBytes rows;
  rows.hi = {int(leaf_cells), int(leaves), 1};
  const std::string path = statistics_path(checkpoint);
  if (header.value("cells", Json()) != Json(rows.hi))
    throw Error(path + ": corrupt statistics: its rows do not fit the forest of the checkpoint");
  const Comm c(comm);
  std::vector<BoxBytes> pieces;
  if (c.rank() == 0) pieces.push_back(rows);
  read_checkpoint_values(comm, path, header, pieces);
  const std::vector<unsigned char> bytes = c.broadcast(c.rank() == 0 ? pieces[0].values : std::vector<unsigned char>{});
  std::vector<double> state(bytes.size() / sizeof(double));
  std::memcpy(state.data(), bytes.data(), state.size() * sizeof(double));
  sampling.samples = header.at("samples").get<long>();
  sampling.first_sample = header.at("first_sample").get<long>();
  solver.load_statistics_state(state, sampling.samples);
  return "";
}

Forest forest_of(const Config& config, const DomainGeometry& domain, const std::vector<std::array<int, 4>>& refined) {
  return Forest::from_refined(config.cells, config.amr.leaf_size,
                              {domain.periodic(0), domain.periodic(1), domain.periodic(2)}, refined);
}

long long block_count(const Forest& forest) {
  long long blocks = 0;
  for (int l = 0; l < forest.levels(); ++l) blocks += static_cast<long long>(forest.level(l).size());
  return blocks;
}

// The checkpoint file (io/Checkpoint.hpp) of an AMR run: the forest in the header ("amr_forest":
// its refined blocks), the populations as an array of one row per block (every level's blocks in
// forest order) of the block's interior cells (AmrSolver::populations).
void write_amr_checkpoint(MPI_Comm comm, const std::string& path, Json meta, const AmrState& state) {
  meta["amr_forest"] = Json::object();
  meta["amr_forest"]["refined"] = state.refined;
  BoxBytes rows;
  const long long per_block = static_cast<long long>(state.cells_per_block) * state.cell_bytes;
  rows.hi = {state.cells_per_block, int(static_cast<long long>(state.populations.size()) / per_block), 1};
  rows.values = state.populations;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Every rank holds the gathered populations: rank 0 writes them.
  write_checkpoint(comm, path, std::move(meta), rows.hi, state.cell_bytes,
                   rank == 0 ? std::vector<BoxBytes>{rows} : std::vector<BoxBytes>{});
}

// `ranks_on_node`: of `comm`, on this node, and `device`: the memory check's.
std::unique_ptr<AmrSolver> read_amr_checkpoint(MPI_Comm comm, const Config& config, const DomainGeometry& domain,
                                               const std::string& path, const Json& header, int ranks_on_node,
                                               const DeviceShare& device) {
  std::vector<std::array<int, 4>> refined;
  try {
    refined = header.at("amr_forest").at("refined").get<std::vector<std::array<int, 4>>>();
  } catch (const Json::exception&) {
    throw Error(path + ": corrupt checkpoint header (no AMR forest)");
  }
  Forest forest = [&] {
    try {
      return forest_of(config, domain, refined);
    } catch (const Error& e) {
      throw Error(path + ": corrupt checkpoint: " + e.what());
    }
  }();
  const long long blocks = block_count(forest);
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  // As a new forest is (check_amr_memory), before anything is allocated: the checkpoint may come
  // from a larger machine or more ranks.
  if (const std::string shortfall = amr_memory_shortfall(config, blocks, ranks, ranks_on_node, device); !shortfall.empty())
    throw Error(path + ": " + shortfall + "; hint: continue it on more nodes");
  std::unique_ptr<AmrSolver> solver = AmrSolver::create(config, domain, std::move(forest), comm);
  BoxBytes rows;
  rows.hi = {solver->cells_per_block(), int(blocks), 1};
  const Json cells = header.value("cells", Json());
  if (cells.is_array() && !cells.empty() && cells[0] != Json(rows.hi[0]))
    throw Error(path + ": its rows hold " + cells[0].dump() + " cells per block, not the " + std::to_string(rows.hi[0]) +
                " of a block's interior (checkpoints written before 2026-11-28 held the ghost layers too and cannot "
                "be continued)");
  if (cells != Json(rows.hi) || header.value("cell_bytes", 0) != solver->cell_bytes())
    throw Error(path + ": corrupt checkpoint: its populations do not fit the forest it holds");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 reads; load_populations shares the blocks out.
  std::vector<BoxBytes> pieces;
  if (rank == 0) pieces.push_back(rows);
  read_checkpoint_values(comm, path, header, pieces);
  solver->load_populations(rank == 0 ? pieces[0].values : std::vector<unsigned char>{}, header.at("step").get<long>());
  check_loaded_state(path, header, hash_hex(solver->fields_hash()));
  return solver;
}

}  // namespace

std::vector<std::pair<double, double>> amr_line_profile(const std::vector<AmrBlockSample>& samples, int along,
                                                        const std::array<double, 3>& through, int component) {
  // (level, index along) -> sum and count of the cells around the line
  std::map<std::pair<int, int>, std::pair<double, int>> cells;
  for (const AmrBlockSample& b : samples) {
    if (!b.leaf) continue;
    const double scale = std::ldexp(1.0, b.level);
    const int nx = b.box.extent(0), ny = b.box.extent(1);
    const bool flat = b.box.lo[2] == 0 && b.box.hi[2] == 1;  // 2D: one layer on every level
    for (std::size_t i = 0; i < b.density.size(); ++i) {
      if (b.flags[i] != 0) continue;
      const int c[3] = {b.box.lo[0] + int(i % nx), b.box.lo[1] + int(i / nx % ny), b.box.lo[2] + int(i / (std::size_t(nx) * ny))};
      bool touches = true;
      for (int a = 0; a < 3 && touches; ++a) {
        if (a == along || (a == 2 && flat)) continue;
        const double face = through[a] * scale;  // the line in this level's cell coordinates
        touches = c[a] + 1 == face || c[a] == face;
      }
      if (!touches) continue;
      auto& e = cells[{b.level, c[along]}];
      e.first += b.velocity[3 * i + component];
      e.second += 1;
    }
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& [key, sum] : cells)
    out.push_back({(key.second + 0.5) / std::ldexp(1.0, key.first), sum.first / sum.second});
  std::sort(out.begin(), out.end());
  return out;
}

Json amr_observables(const Config& config, const AmrSolver& solver) {
  Json out = Json::object();
  for (const std::string& name : config.observables) {
    if (name == "mass") out[name] = solver.mass();
    if (name == "ghia_centerline") {
      const std::vector<AmrBlockSample> samples = solver.sample();
      const double U = config.faces[YMax].velocity[0], nx = config.cells[0], ny = config.cells[1];
      std::vector<double> ys, us, xs, vs;
      for (const auto& [y, u] : amr_line_profile(samples, 1, {nx / 2, 0, 0}, 0)) {
        ys.push_back(y / ny);
        us.push_back(u / U);
      }
      for (const auto& [x, v] : amr_line_profile(samples, 0, {0, ny / 2, 0}, 1)) {
        xs.push_back(x / nx);
        vs.push_back(v / U);
      }
      out[name] = ghia_centerline_profiles(config, ys, us, xs, vs);
    }
    if (out.find(name) == out.end()) out[name] = Json{{"error", name + " is not available for AMR runs"}};
  }
  return out;
}

Json run_amr_deck(const Config& config, const RunOptions& options) {
  const Comm comm(options.comm);  // starts MPI where the caller has not (as the uniform driver)
  const int ranks = comm.size(), rank = comm.rank();
  // Collective, once, for the memory checks (the device's free memory read before any allocation).
  const int ranks_on_node = node_ranks(options.comm);
  const DeviceShare device = device_share(options.comm);
  if (rank == 0 && config.collision == CollisionKind::TRT && config.trt_magic > 0.1 && config.tau < 0.53 &&
      config.amr.max_level > 0)
    std::fprintf(stderr,
                 "boreas: warning: TRT with collision.magic = %g at tau_0 = %.4g relaxes odd moments slowly (tau- = %.3g);\n"
                 "  flows crossing level interfaces can then grow unstable. collision.magic = 0.05 or BGK is stable there\n"
                 "  (README \"AMR\").\n",
                 config.trt_magic, config.tau, config.trt_magic / (config.tau - 0.5) + 0.5);
  install_stop_signals();
  const DomainGeometry domain(config);
  check_file_solids(options.comm, config, domain);
  // A restart is checked and read before anything is written.
  std::unique_ptr<AmrSolver> solver;
  Json restarted;
  double initial_mass = 0;
  if (!options.restart.empty()) {
    std::string path;
    const Json header = restart_header(config, options.restart, options.comm, path);
    solver = read_amr_checkpoint(options.comm, config, domain, path, header, ranks_on_node, device);
    initial_mass = header.value("initial_mass", 0.0);
    restarted = restart_record(path, solver->step(), header);
    if (rank == 0 && options.progress)
      std::fprintf(stderr, "boreas: continuing from %s (step %ld)\n", path.c_str(), solver->step());
  } else {
    Forest forest = build_forest(config, domain);
    check_amr_memory(config, block_count(forest), ranks, ranks_on_node, device);
    solver = AmrSolver::create(config, domain, std::move(forest), options.comm);
    initial_mass = solver->mass();
  }
  if (solver->updates_per_step() == 0) throw Error(no_fluid_cell);
  const long first_step = solver->step();
  // Time averages from statistics.start on; a restart continues those of its checkpoint.
  const long leaf_cells = std::lround(std::pow(config.amr.leaf_size, config.dimensions()));
  std::optional<Sampling> sampling;
  if (config.statistics.enabled) {
    sampling = Sampling{config.statistics.start, config.statistics.every, 0, 0};
    sampling->first_sample = sampling->next_after(first_step);
    if (!restarted.is_null()) {
      const std::string why =
          read_amr_statistics(options.comm, restarted["checkpoint"].get<std::string>(), *solver, *sampling, leaf_cells);
      restarted["statistics_continued"] = why.empty();
      if (!why.empty() && rank == 0)
        std::fprintf(stderr, "boreas: warning: [statistics] averages start again at step %ld: %s\n",
                     sampling->next_after(first_step), why.c_str());
    }
  }
  const Sampling* const sampled = sampling ? &*sampling : nullptr;
  // Refusals (memory, geometry) and a restart's checks come first: they leave nothing on disk.
  prepare_output_directory(options.comm, config.output_dir);
  prepare_checkpoint_directory(options.comm, config);
  if (first_step == 0) warn_about_earlier_report(config, rank == 0);
  set_aside_earlier_checkpoints(options.comm, config, first_step,
                                restarted.is_null() ? std::string() : restarted["checkpoint"].get<std::string>());
  if (rank == 0 && options.progress) {
    RunSetup setup{amr_kernel_name, ranks, first_step, {}};
    for (int l = 0; l < solver->forest().levels(); ++l) setup.fluid_cells.push_back(solver->fluid_leaf_cells(l));
    std::fprintf(stderr, "%s", setup_text(config, setup).c_str());
  }
  AmrSeries series(config.output_dir, config.name, config.dimensions() == 2);
  resume_vtk_series(series, config, first_step, rank == 0);
  Checkpoints checkpoints(config, initial_mass);
  auto checkpoint = [&](const AmrState& state) {
    auto t = solver->timers().scope("output");
    Json meta = Json::object();
    meta["kernel"] = amr_kernel_name;
    meta["ranks"] = ranks;
    meta["fields_hash"] = hash_hex(state.fields_hash);
    // The averages first: a checkpoint that exists has them.
    return checkpoints.write(state.step, rank == 0, meta, [&](const std::string& path, const Json& full) {
      if (sampled) write_amr_statistics(options.comm, statistics_path(path), state, leaf_cells);
      write_amr_checkpoint(options.comm, path, full, state);
    });
  };
  std::optional<ForceSeries> forces;
  if (config.forces.enabled) forces.emplace(config, body_names(config), rank == 0, first_step);
  std::optional<CsvSeries> probes;
  if (!config.probes.empty()) probes.emplace(probe_series(config, rank == 0, first_step));
  std::optional<CsvSeries> integrals;
  if (config.integrals_every > 0) integrals.emplace(integral_series(config, rank == 0, first_step));
  if (forces) warn_about_history(forces->series(), first_step, rank == 0);
  if (probes) warn_about_history(*probes, first_step, rank == 0);
  if (integrals) warn_about_history(*integrals, first_step, rank == 0);
  if (forces) checkpoints.record_rows(forces->series());
  if (probes) checkpoints.record_rows(*probes);
  if (integrals) checkpoints.record_rows(*integrals);
  long long updates = solver->updates_per_step();
  // Level-weighted updates done so far (the grid, and with it the count per step, changes at regrids).
  double updates_done = 0;
  long regrids = 0;
  long regrids_refused = 0;  // regrids whose forest did not fit (amr_memory_shortfall)

  const auto t0 = std::chrono::steady_clock::now();
  const long check_every = config.progress_every > 0 ? config.progress_every : std::max(1L, config.steps / 10);
  const bool progress = options.progress && rank == 0, tty = isatty(2);
  if (first_step == 0 && config.write_vtk && config.output_every > 0) {
    auto t = solver->timers().scope("output");
    write_output(series, *solver, options.comm);
  }
  if (integrals && samples_first_step(*integrals, first_step, options.comm)) {
    auto t = solver->timers().scope("others");
    integrals->append(first_step, amr_flow_integrals(config, solver->forest(), solver->sample()));
  }
  // What an instability falls back to: the solver keeps its state (save_state), the run its step
  // and sampling; taken at every check and after every regrid that changes the forest.
  long last_good_step = 0;
  std::optional<Sampling> last_good_sampling;
  auto keep_as_last_good = [&] {
    auto t = solver->timers().scope("others");
    solver->save_state();
    last_good_step = solver->step();
    last_good_sampling = sampling;
  };
  keep_as_last_good();
  ConvergenceMonitor convergence;
  AmrHealth health;  // of the last check; an unstable run's names where it failed
  std::string status = "completed";
  int stopped_by = 0;
  long poll = 1;  // steps between looks at stop signals and the checkpoint clock, about a second
  int chunks_unchecked = 0;  // chunks since the state was last checked (AmrSolver::health)
  auto next_multiple = [&](long every) { return every > 0 ? (solver->step() / every + 1) * every : config.steps; };
  while (solver->step() < config.steps) {
    const long from = solver->step(), every = config.amr.regrid_every;
    const long next = std::min({config.steps, next_multiple(check_every), next_multiple(config.output_every),
                                next_multiple(every), next_multiple(config.checkpoint.every),
                                forces ? next_multiple(config.forces.every) : config.steps,
                                probes ? next_multiple(config.probes_every) : config.steps,
                                integrals ? next_multiple(config.integrals_every) : config.steps,
                                sampling ? sampling->next_after(from) : config.steps, from + poll});
    const auto chunk_start = std::chrono::steady_clock::now();
    updates_done += double(updates) * double(next - from);
    solver->advance(next - from);
    const AgreedClock clock = agree_on_clock(options.comm, seconds_since(chunk_start) / double(next - from), checkpoints);
    poll = std::max(1L, long(1.0 / std::max(clock.seconds_per_step, 1e-9)));
    // Before a regrid: the forces, probes and integrals of the grid that made this state (recorded
    // once the state passes the check).
    std::optional<std::vector<std::array<double, 3>>> sampled_forces;
    std::optional<std::vector<double>> sampled_probes, sampled_integrals;
    if (forces && solver->step() % config.forces.every == 0) {
      auto t = solver->timers().scope("others");
      sampled_forces = solver->body_forces();
    }
    const bool at_regrid = every > 0 && solver->step() % every == 0;
    if (probes && solver->step() % config.probes_every == 0) {
      auto t = solver->timers().scope("others");
      sampled_probes = solver->probe_values(config.probes);
    }
    const bool at_integrals = integrals && solver->step() % config.integrals_every == 0;
    if (at_integrals && !at_regrid) {  // a regrid's samples serve both
      auto t = solver->timers().scope("others");
      sampled_integrals = amr_flow_integrals(config, solver->forest(), solver->sample());
    }
    // Also at the last step: a run that ends there and one that goes on (from its checkpoint, or
    // uninterrupted) then hold the same state at that step.
    if (at_regrid) {
      const auto start = std::chrono::steady_clock::now();
      // The monitor's last sample moves to the new forest's cells with the state, so that runs
      // that regrid still show their change (including the regrid's own).
      std::vector<double> monitored;  // fluid_weighted_velocity, on the current forest
      Forest forest = [&] {
        const std::vector<AmrBlockSample> samples = solver->sample();
        if (at_integrals) sampled_integrals = amr_flow_integrals(config, solver->forest(), samples);
        Forest next = regrid_forest(config, domain, solver->forest(), samples);
        if (!(next == solver->forest()) && convergence.holds_sample())
          monitored = fluid_weighted_velocity(*solver, samples, convergence.previous_velocity(), comm);
        return next;
      }();
      // A forest the machine cannot hold beside the current one is not taken (decided together:
      // nodes differ in what they have); the run goes on with the forest it has.
      const bool changed = !(forest == solver->forest());
      const std::string shortfall =
          changed ? amr_memory_shortfall(config, block_count(forest), ranks, ranks_on_node,
                                         DeviceShare{device_memory_available(), device.ranks})
                  : std::string();
      if (comm.max(shortfall.empty() ? 0.0 : 1.0) > 0) {
        if (rank == 0 && regrids_refused == 0)
          std::fprintf(stderr, "boreas: warning: step %ld: the regrid's forest does not fit (%s); the run keeps its "
                       "forest (said once; report.json amr.regrids_refused counts them)\n",
                       solver->step(), shortfall.empty() ? "on another node" : shortfall.c_str());
        ++regrids_refused;
      } else if (changed) {
        // The saved state is of the old forest: the new one keeps its first state, made from a
        // good one.
        if (!(health = solver->health(config.density)).ok) {
          status = "unstable";
          break;
        }
        const std::vector<double> carried =
            monitored.empty() ? monitored : velocity_on_forest(solver->forest(), monitored, forest);
        std::vector<double>().swap(monitored);  // its memory back before the regrid's
        solver = solver->regridded(config, domain, std::move(forest));  // carries the timers
        updates = solver->updates_per_step();
        ++regrids;
        if (!carried.empty())
          convergence.carry(owned_leaf_values(solver->forest(), solver->partition(), comm.rank(), carried,
                                              3L * solver->cells_per_block()));
        keep_as_last_good();
      }
      solver->timers().add("AMR regrid", seconds_since(start));
    }
    stopped_by = clock.stopped_by;
    const auto [at_checkpoint, at_check, at_output] = chunk_end(config, solver->step(), check_every, clock);
    const bool at_sample = sampling && sampling->at(solver->step());
    // Whatever is recorded or kept is first checked (health), and a run that records nothing
    // for a while every 10 chunks (about 10 s): a look after every chunk of about a second cost
    // amr_nested 4 % of its run.
    const bool records = sampled_forces || sampled_probes || sampled_integrals || at_sample || at_check || at_output || at_checkpoint;
    if (records || ++chunks_unchecked >= 10) {
      chunks_unchecked = 0;
      {
        auto t = solver->timers().scope("others");
        health = solver->health(config.density);
      }
      if (!health.ok) {
        status = "unstable";
        break;
      }
    }
    if (at_sample) {
      auto t = solver->timers().scope("others");
      solver->add_statistics_sample();
      ++sampling->samples;
    }
    if (sampled_forces) forces->add(solver->step(), *sampled_forces);
    if (sampled_probes) probes->append(solver->step(), *sampled_probes);
    if (sampled_integrals) integrals->append(solver->step(), *sampled_integrals);
    if (at_check || at_output || at_checkpoint) keep_as_last_good();
    if (at_check && solver->step() % check_every == 0) {  // whole check intervals, as run_deck
      auto t = solver->timers().scope("others");
      std::vector<double> volumes;  // of a level's cells, in level-0 cells
      for (int l = 0; l < solver->forest().levels(); ++l) volumes.push_back(std::ldexp(1.0, -config.dimensions() * l));
      convergence.check(solver->step(), solver->leaf_moments(), volumes, options.comm);
    }
    if (at_output) {
      auto t = solver->timers().scope("output");
      write_output(series, *solver, options.comm);
    }
    if (at_checkpoint) checkpoint(AmrState::of(*solver, sampled));
    if (progress && at_check) {
      const double elapsed = seconds_since(t0);
      std::fprintf(stderr, "%sstep %ld/%ld (%.0f%%)  %.1f level-weighted MLUPS  elapsed %.1f s  ETA %.1f s%s%s",
                   tty ? "\r\033[K" : "", solver->step(), config.steps, 100.0 * solver->step() / double(config.steps),
                   updates_done / std::max(stepping_seconds(solver->timers()), 1e-12) * 1e-6, elapsed,
                   elapsed * double(config.steps - solver->step()) / double(solver->step() - first_step),
                   convergence.progress_text().c_str(), tty ? "" : "\n");
    }
    if (stopped_by != 0 && solver->step() < config.steps) {  // a signal in the last chunk: the run is complete
      status = "interrupted";
      break;
    }
  }
  if (progress && tty) std::fprintf(stderr, "\n");
  Json instability;
  const long reached = solver->step();  // the step computed last (an instability falls back from it)
  if (status == "unstable") {
    // The run ends on its last good state: the final output, observables and report are of it.
    solver->restore_state();
    sampling = last_good_sampling;
    const std::string good_checkpoint = checkpoints.of_last_good_state(
        last_good_step, first_step, restarted.is_null() ? std::string() : restarted["checkpoint"].get<std::string>(),
        [&] { checkpoint(AmrState::of(*solver, sampled)); });
    const std::array<long long, 3>& cell = health.cell;
    const double scale = std::ldexp(1.0, -health.level);  // a level-l cell centre in level-0 cells
    if (rank == 0)
      std::fprintf(stderr,
                   "boreas: error: unstable by step %ld: density %g at cell (%lld, %lld, %lld) of level %d (its centre at\n"
                   "  (%g, %g, %g) in level-0 cells)\n"
                   "  hint: tau = %.6g on level 0 (finer levels have larger tau); stability needs tau well above\n"
                   "  0.5 and a small lattice Mach number.\n"
                   "  Writing the last good state, step %ld (checkpoint %s).\n",
                   reached, health.density, cell[0], cell[1], cell[2], health.level, (cell[0] + 0.5) * scale - 0.5,
                   (cell[1] + 0.5) * scale - 0.5, config.dimensions() == 2 ? 0.0 : (cell[2] + 0.5) * scale - 0.5, config.tau,
                   last_good_step, good_checkpoint.empty() ? "not written: the warning above says why" : good_checkpoint.c_str());
    instability = Json::object();
    instability["step"] = reached;
    instability["level"] = health.level;
    instability["cell"] = Json::array({cell[0], cell[1], cell[2]});
    instability["density"] = health.density;
    instability["last_good_step"] = last_good_step;
    instability["checkpoint"] = good_checkpoint.empty() ? Json() : Json(good_checkpoint);  // null: its write failed
  }
  const double mass = solver->mass();  // of the state the run ends on
  const Json stop_checkpoint = status == "interrupted"
                                    ? checkpoints.report_stop(stopped_by, solver->step(), continue_command(config, options), rank == 0)
                                    : Json();
  // A completed run whose deck checkpoints keeps its end state (raise simulation.steps and
  // --restart latest to run it further).
  const bool checkpointing = config.checkpoint.every > 0 || config.checkpoint.every_minutes > 0;
  if (status == "completed" && checkpointing && checkpoints.last_step() != solver->step())
    checkpoint(AmrState::of(*solver, sampled));
  if (status != "interrupted" && config.write_vtk && (config.output_every == 0 || solver->step() % config.output_every != 0)) {
    auto t = solver->timers().scope("output");
    write_output(series, *solver, options.comm);
  }
  const double wall = seconds_since(t0);

  Json r = Json::object();
  r["status"] = status;
  r["config"] = config_to_json(config);
  r["lattice"] = lattice_name(config.lattice);
  r["tau"] = config.tau;
  r["steps"] = solver->step();
  if (first_step > 0) r["steps_run"] = solver->step() - first_step;  // as the uniform report: to the state it ends on
  r["wall_time_s"] = wall;
  if (config.units.enabled) r["units"] = units_json(config, wall, reached - first_step);  // dx, dt of level 0
  const int levels = solver->forest().levels();
  Json lv = Json::array();
  long long fluid = 0;
  for (int l = 0; l < levels; ++l) {
    Json e = Json::object();
    e["level"] = l;
    e["tau"] = solver->level_taus()[l];
    e["blocks"] = solver->forest().level(l).size();
    e["leaves"] = solver->forest().leaves(l);
    e["fluid_leaf_cells"] = solver->fluid_leaf_cells(l);
    fluid += solver->fluid_leaf_cells(l);
    lv.push_back(e);
  }
  r["amr"] = Json::object();
  r["amr"]["leaf_size"] = config.amr.leaf_size;
  r["amr"]["levels"] = lv;
  r["fluid_cells"] = fluid;
  // Level-weighted updates (waLBerla, seed 000): sum over levels of 2^l N_l per level-0 step.
  r["amr"]["updates_per_step"] = updates;
  r["amr"]["regrids"] = regrids;  // this run's, since its restart step (steps_run)
  r["amr"]["regrids_refused"] = regrids_refused;
  // Several ranks: each level's leaves shared along the Morton curve (amr/Partition.hpp).
  Json part = Json::object();
  part["ranks"] = ranks;
  part["level_imbalance"] = solver->partition().level_imbalance(solver->forest());
  part["weighted_imbalance"] = solver->partition().weighted_imbalance(solver->forest());
  part["messages_per_step"] = comm.sum(solver->messages_per_step());  // all ranks
  part["bytes_per_step"] = comm.sum(solver->bytes_per_step());
  part["crmt"] = config.amr.crmt;
  part["exchange_period"] = solver->exchange_period();
  r["amr"]["partition"] = part;
  // The uniform grid at the finest spacing that the same run would need, stepped at its dt.
  const int top = levels - 1, dims = config.dimensions();
  const double finest_cells = double(config.cells[0]) * config.cells[1] * config.cells[2] * std::ldexp(1.0, dims * top);
  r["amr"]["uniform_finest_cells"] = finest_cells;
  r["amr"]["uniform_finest_updates_per_step"] = finest_cells * std::ldexp(1.0, top);
  const Timers& timers = solver->timers();
  const double stepping = comm.max(stepping_seconds(timers));
  r["mlups"] = stepping > 0 ? updates_done / stepping * 1e-6 : 0.0;
  r["amr"]["uniform_finest_equivalent_mlups"] =
      stepping > 0 ? finest_cells * std::ldexp(1.0, top) * double(reached - first_step) / stepping * 1e-6 : 0.0;
  // Seed 000 Table IV's categories. Leaves read their same-level neighbours in place, inside
  // "lbm" as in seed 000's kernels (reports before 2026-11-28 had "halo_copies" beside it).
  // Several ranks: one rank's categories, that rank's with the most measured time (its "others"
  // is what its wall time leaves, so every rank's categories add up to its wall time; each
  // category's slowest rank, as until 2026-12-08, is another's, and together they exceeded it).
  const double measured = stepping_seconds(timers) + timers.get("AMR regrid") + timers.get("output");
  const std::pair<const char*, double> mine[] = {
      {"lbm", timers.get("LBM")},
      {"amr_interpolation", timers.get("AMR interpolation")},
      {"amr_restriction", timers.get("AMR restriction")},
      {"amr_regrid", timers.get("AMR regrid")},
      {"mpi", timers.get("MPI")},  // ghost leaves between ranks (comm/LeafHalo.hpp)
      {"output", timers.get("output")},
      {"others", wall - measured}};
  const std::vector<double> totals = comm.gather(measured);
  const int busiest = int(std::max_element(totals.begin(), totals.end()) - totals.begin());
  Json t = Json::object();
  for (const auto& [name, seconds] : mine) t[name] = comm.gather(seconds)[std::size_t(busiest)];
  t["amr"] = t["amr_interpolation"].get<double>() + t["amr_restriction"].get<double>() + t["amr_regrid"].get<double>();
  r["timing_s"] = t;
  r["amr"]["partition"]["timing_rank"] = busiest;
  r["mass"] = mass_json(initial_mass, mass);
  if (config.restores_mass()) r["mass"]["restored_every"] = Config::mass_restoration_period;
  r["backend"] = backend_json();
  r["kernel"] = amr_kernel_name;
  r["fields_hash"] = hash_hex(solver->fields_hash());
  if (!instability.is_null()) r["instability"] = instability;
  if (const Json c = convergence.report(); !c.is_null()) r["convergence"] = c;
  if (status == "interrupted") {
    r["stopped_by"] = signal_name(stopped_by);
    r["stop_checkpoint"] = stop_checkpoint;
  }
  if (!restarted.is_null()) r["restarted_from"] = restarted;
  if (checkpoints.any_attempt()) r["checkpoints"] = checkpoints.report();
  r["observables"] = amr_observables(config, *solver);
  if (sampling) r["statistics"] = sampling->report(config.write_vtk);
  r["output_files"] = Json::array();
  for (const auto& f : series.files_written()) r["output_files"].push_back(f);
  if (forces) finish_forces(*forces, r, rank == 0, options.progress, config.output_dir);
  if (probes) finish_probes(*probes, config, r, rank == 0);
  if (integrals) finish_integrals(*integrals, config, r, rank == 0);
  if (first_step == 0) warn_about_stale_output(config, r, rank == 0);
  write_report(options.comm, config.output_dir, r);
  return r;
}

}  // namespace boreas
