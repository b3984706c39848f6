#include "drivers/Simulation.hpp"
#include "drivers/GridSimulation.hpp"
#include "drivers/SparseSimulation.hpp"
#include "drivers/AmrRun.hpp"
#include "drivers/Checkpointing.hpp"
#include "drivers/Convergence.hpp"
#include "drivers/ForceSeries.hpp"
#include "drivers/Integrals.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <algorithm>
#include <chrono>
#include <climits>
#include <limits>
#include <map>
#include <optional>
#include <numeric>

#include "comm/CellRing.hpp"
#include "comm/BlockSet.hpp"
#include "comm/Decomposition.hpp"
#include "comm/Halo.hpp"
#include "comm/Mpi.hpp"
#include "comm/VoxelInput.hpp"
#include "core/Error.hpp"
#include "drivers/KernelChoice.hpp"
#include "drivers/Machine.hpp"
#include "drivers/Observables.hpp"
#include "drivers/Report.hpp"
#include "drivers/RunCheck.hpp"
#include "drivers/RunPlots.hpp"
#include "drivers/Stepper.hpp"
#include "io/BoxFile.hpp"
#include "io/Checkpoint.hpp"
#include "io/CsvSeries.hpp"
#include "io/VtkSeries.hpp"
#include "lbm/field/BodyForces.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/field/RunningStatistics.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

namespace {

// Ghost layers on the axes that have neighbours (z only in 3D).
std::array<int, 3> ghost_widths(const Config& c, int h) {
  return {h, h, c.dimensions() == 3 ? h : 0};
}

// The ghost layers a block allocates (and the reach of the block set's neighbour tables): the
// deck's width, or the largest candidate of "auto";
// merged<k> with a halo (several blocks, or a ghost width set) exchanges k layers per sweep
// (merged_aa<k> takes single aa steps there).
int allocated_ghost_width(const Config& c, int blocks) {
  if (c.kernel.kind == StreamingKernel::Merged && (blocks > 1 || c.parallel.ghost_width != 1)) return c.kernel.steps;
  return c.parallel.ghost_width == 0 ? c.parallel.max_ghost_width : c.parallel.ghost_width;
}


template <class L, class Real>
class SimulationImpl final : public GridSimulation {
 public:
  SimulationImpl(const Config& config, MPI_Comm comm)
      : GridSimulation(config, comm,
                       partition(config, comm, allocated_ghost_width(config, Comm(comm).size() * config.parallel.blocks_per_rank))) {
    // Blocks allocate the ghost layers the set's neighbour tables reach.
    for (int id : ids_) {
      blocks_.push_back(std::make_unique<Block<L, Real>>(config, domain_, set_.blocks[id].box, set_.reach,
                                                         set_.blocks[id].self_offsets()));
      block_ptrs_.push_back(blocks_.back().get());
      const_blocks_.push_back(blocks_.back().get());
    }
    const bool host_buffers =
        config.parallel.buffers == BufferKind::Host ||
        (config.parallel.buffers == BufferKind::Auto && !exec_is_host && !mpi_is_cuda_aware());
    StepperSetup<L, Real> setup;
    setup.config = &config_;
    setup.blocks = block_ptrs_;
    setup.comm = &comm_;
    setup.make_halo = [this, host_buffers](int depth, HaloTransfer t) { return make_halo(host_buffers, depth, t); };
    stepper_ = std::make_unique<Stepper<L, Real>>(setup, set_.size());
    if (config.restores_mass()) {  // the initial state's, also on a restart (loaded later)
      mass_target_ = total_mass();
      fluid_ = double(fluid_cells());
    }
    refresh_inflow();
  }

  // The synthetic inflow turbulence of time step_, the next step's.
  void refresh_inflow() {
    if (config_.turbulent_inflow() < 0) return;
    auto t = timers_.scope("boundaries");
    for (const auto& b : blocks_) b->update_inflow(step_);
  }

  // Interpolated bounce-back (Bouzidi et al. 2001) does not conserve mass: a deck without an open
  // face drifts (a turning cylinder in a closed annulus gained 7 % in 4e4 steps). Every period
  // its fluid gets the initial mass back by a uniform density shift (FieldOps.hpp
  // shift_density). Each cell's defect put back into its own populations conserves mass too, but
  // makes sources and sinks along the wall that cost the rule its order (1.2 on circular Couette
  // flow against 2.0).
  void advance(long steps) override {
    const long period = Config::mass_restoration_period;
    const bool turbulent_inflow = config_.turbulent_inflow() >= 0;
    while (steps > 0) {
      // the inflow's field is the next step's: one step at a time
      const long n = turbulent_inflow ? 1 : fluid_ > 0 ? std::min(steps, period - step_ % period) : steps;
      stepper_->advance(n, timers_);
      step_ += n;
      steps -= n;
      refresh_inflow();
      if (fluid_ > 0 && step_ % period == 0) {
        const double delta = (mass_target_ - total_mass()) / fluid_;
        for (const auto& b : blocks_) shift_density<L>(b->field(), b->canonical(), delta);
      }
    }
  }

  std::uint64_t fields_hash() const override {
    std::uint64_t h = 0;
    for (const auto& b : blocks_) h += boreas::fields_hash<L>(b->field(), b->canonical());
    return comm_.sum(h);
  }
  double total_mass() const override {
    ExactSum local;
    for (const auto& b : blocks_) local += boreas::total_mass<L>(b->field(), b->canonical());
    return comm_.sum(local);
  }
  Health check() const override {
    Health local;
    for (const auto& b : blocks_) {
      const Health h = check_health<L>(b->field(), b->canonical(), b->physics().rho0);
      if (!h.ok && (local.ok || h.first_bad_cell < local.first_bad_cell)) local = h;
    }
    const long long first = comm_.min(local.ok ? LLONG_MAX : local.first_bad_cell);
    Health h;
    if (first == LLONG_MAX) return h;
    h.ok = false;
    h.first_bad_cell = first;
    h.bad_density = comm_.sum(!local.ok && local.first_bad_cell == first ? local.bad_density : 0.0);
    return h;
  }
  // One block's canonical state at a time (an in-place variant's is a copy).
  std::vector<HostMacroscopic> local_macroscopic() const override {
    std::vector<HostMacroscopic> out;
    for (const auto& b : blocks_) out.push_back(b->macroscopic(b->canonical()));
    return out;
  }
  std::vector<CellMoments> local_moments() const override {
    std::vector<CellMoments> out;
    for (const auto& b : blocks_) {
      out.emplace_back("boreas::moments", b->field().box.cells(), 4);
      b->moments(b->canonical(), out.back());
    }
    return out;
  }
  long long fluid_cells() const override {
    long long n = 0;
    for (const auto& b : blocks_) n += b->field().fluid_cells;
    return comm_.sum(n);
  }
  std::vector<std::array<double, 3>> body_forces() const override {
    std::vector<ExactSum> sums(3 * std::size_t(domain_.bodies()));
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const Populations<Real> f = blocks_[i]->canonical();
      blocks_[i]->fill_periodic_ghosts(f);  // links beside a periodic face weigh populations behind it
      if (body_links_.size() == i) {  // built at the first call: runs without [forces] never pay
        const Field& field = blocks_[i]->field();
        const std::array<int, 3> lo = field.box.lo;
        const int nx = field.box.extent(0), ny = field.box.extent(1);
        std::array<int, 3> local{};
        body_links_.push_back(body_links<L>(
            domain_, config_, long(field.box.cells()),
            [&](long c, std::array<int, 3>& p) {
              local = {int(c % nx), int((c / nx) % ny), int(c / (long(nx) * ny))};
              for (int d = 0; d < 3; ++d) p[d] = lo[d] + local[d];
              return domain_.flag_at(p[0], p[1], p[2]) == flag::fluid;
            },
            [&](int q, long, const std::array<int, 3>& o) {
              return f.layout.index(q, field.geom.index(local[0] + o[0], local[1] + o[1], local[2] + o[2]));
            }));
      }
      add_body_forces<L>(body_links_[i], f.data, sums);
    }
    return forces_over_ranks(sums);
  }
  void write_checkpoint(const std::string& path, const Json& meta) const override {
    std::vector<BoxBytes> pieces = owned_pieces(int(L::Q * sizeof(Real)));
    for (std::size_t i = 0; i < blocks_.size(); ++i)  // new[] memory: aligned for Real
      blocks_[i]->owned_populations(reinterpret_cast<Real*>(pieces[i].values.data()));
    boreas::write_checkpoint(comm_.get(), path, meta, config_.cells, int(L::Q * sizeof(Real)), pieces);
  }
  void read_checkpoint(const std::string& path, const Json& header) override {
    const std::vector<BoxBytes> pieces = read_owned_pieces(path, header, int(L::Q * sizeof(Real)));
    for (std::size_t i = 0; i < blocks_.size(); ++i)  // new[] memory: aligned for Real
      blocks_[i]->load_owned_populations(reinterpret_cast<const Real*>(pieces[i].values.data()),
                                         pieces[i].values.size() / sizeof(Real));
    stepper_->reloaded();
    step_ = header.at("step").get<long>();
    refresh_inflow();
  }
  void save_state() override {
    for (const auto& b : blocks_) b->save_state();
    saved_step_ = step_;
  }
  void restore_state() override {
    for (const auto& b : blocks_) b->restore_state();
    stepper_->reloaded();
    step_ = saved_step_;
    refresh_inflow();
  }

  Json parallel_report() const override {
    Json p = decomposition_report({"lbm", "boundaries", "output", "others"});
    stepper_->report(p);
    return p;
  }

 private:
  Block<L, Real>& front() const { return *blocks_.front(); }
  std::unique_ptr<Halo<L, Real>> make_halo(bool host_buffers, int depth, HaloTransfer t) const {
    return std::make_unique<Halo<L, Real>>(const_blocks_, ids_, domain_, set_, comm_, host_buffers,
                                           ghost_widths(config_, depth), t);
  }

  std::vector<std::unique_ptr<Block<L, Real>>> blocks_;
  std::vector<Block<L, Real>*> block_ptrs_;
  std::vector<const Block<L, Real>*> const_blocks_;
  std::unique_ptr<Stepper<L, Real>> stepper_;
  mutable std::vector<BodyLinks> body_links_;  // per block
  double mass_target_ = 0, fluid_ = 0;           // restores_mass decks: initial mass, fluid cells
};

}  // namespace

std::unique_ptr<Simulation> Simulation::create(const Config& config, MPI_Comm comm) {
  if (config.storage == StorageKind::Sparse) {
    if (config.kernel.kind != StreamingKernel::Auto) return make_sparse_simulation(config, comm);
    Config chosen = config;
    chosen.kernel = *parse_scheme("aa");
    auto sim = make_sparse_simulation(chosen, comm);
    sim->kernel_choice_ = Json{{"chosen", "aa"}, {"source", "the sparse storage's kernel (seed 002: one lattice)"}};
    return sim;
  }
  if (config.kernel.kind == StreamingKernel::Auto && config.needs_pull_kernel()) {
    Config chosen = config;
    chosen.kernel = *parse_scheme("ab_pull");
    auto sim = create(chosen, comm);
    sim->kernel_choice_ = Json{{"chosen", "ab_pull"},
                               {"source", "interpolated bounce-back, rotating obstacles, free-slip and outflow "
                                          "faces, the CSM model and synthetic inflow turbulence are applied by ab_pull"}};
    return sim;
  }
  if (config.kernel.kind == StreamingKernel::Auto) {
    const KernelChoice choice = choose_kernel(config, comm);
    Config chosen = config;
    chosen.kernel = *parse_scheme(choice.kernel);
    chosen.tile = choice.tile;
    chosen.layout = choice.layout;
    auto sim = create(chosen, comm);
    sim->kernel_choice_ = choice.report;
    return sim;
  }
  check_device_memory(config, Comm(comm).size(), device_share(comm));
  return dispatch_lattice(config.lattice, [&](auto lattice) -> std::unique_ptr<Simulation> {
    using L = decltype(lattice);
    if (config.precision == Precision::Float) return std::make_unique<SimulationImpl<L, float>>(config, comm);
    return std::make_unique<SimulationImpl<L, double>>(config, comm);
  });
}

std::string hash_hex(std::uint64_t h) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

// Density and velocity at the probes' cells (rho, ux, uy, uz per probe) on every rank, from the
// local blocks' `moments` (Simulation::local_moments): each probe's values come from the block
// holding its cell, the other ranks add zeros (exact).
std::vector<double> probe_values(const Simulation& sim, const std::vector<CellMoments>& moments,
                                 const std::vector<Probe>& probes, MPI_Comm comm) {
  const std::vector<Box> boxes = sim.all_boxes();
  const std::vector<int> ids = sim.local_blocks();
  std::vector<double> local(4 * probes.size(), 0.0), global(local.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Box& b = boxes[ids[k]];
    std::vector<long> at, which;
    for (std::size_t p = 0; p < probes.size(); ++p) {
      const auto& c = probes[p].cell;
      if (!b.contains(c[0], c[1], c[2])) continue;
      at.push_back((long(c[2] - b.lo[2]) * b.extent(1) + (c[1] - b.lo[1])) * b.extent(0) + (c[0] - b.lo[0]));
      which.push_back(long(p));
    }
    if (at.empty()) continue;
    const DeviceView<long*> cells = to_device_view("boreas::probe_cells", at);
    const DeviceView<double* [4]> picked("boreas::probe_values", at.size());
    const CellMoments m = moments[k];
    Kokkos::parallel_for(
        "boreas::probes", Kokkos::RangePolicy<ExecSpace>(0, long(at.size())), KOKKOS_LAMBDA(const long i) {
          for (int c = 0; c < 4; ++c) picked(i, c) = m(cells(i), c);
        });
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), picked);
    for (std::size_t i = 0; i < at.size(); ++i)
      for (int c = 0; c < 4; ++c) local[4 * which[i] + c] = host(i, c);
  }
  MPI_Allreduce(local.data(), global.data(), int(local.size()), MPI_DOUBLE, MPI_SUM, comm);
  // A solid cell's moments are zeros (device_moments), a fluid cell's density never is: a probe in
  // a solid reads NaN, as on AMR grids, not values that look measured.
  for (std::size_t p = 0; p < probes.size(); ++p)
    if (global[4 * p] == 0.0) std::fill_n(global.begin() + 4 * p, 4, std::numeric_limits<double>::quiet_NaN());
  return global;
}

// Time averages as VTK arrays (drivers write them beside the instantaneous fields).
void add_statistics_arrays(CellFields& fields, const RunningStatistics& statistics) {
  if (statistics.samples() == 0) return;
  for (CellFields::Extra& a : statistics_arrays(statistics.host_fields())) fields.extra.push_back(std::move(a));
}

// One piece per block, written by its rank; once every rank has written its pieces, the rank of
// block 0 adds the .pvti that joins them and the .pvd entry. Collective: a rank that cannot
// write its pieces makes every rank throw Error, and the .pvd does not list that output.
void write_output(std::vector<VtkSeries>& series, const Simulation& sim,
                  const std::vector<RunningStatistics>& statistics, MPI_Comm comm) {
  const Config& c = sim.config();
  std::vector<HostMacroscopic> m = sim.local_macroscopic();
  std::vector<std::vector<double>> vorticity = sim.local_vorticity_magnitude(m);
  const std::vector<Box> boxes = sim.all_boxes();
  std::vector<VtkSeries::PieceBox> pieces;
  for (const Box& b : boxes) pieces.push_back({b.lo, {b.extent(0), b.extent(1), b.extent(2)}});
  const std::vector<int> ids = sim.local_blocks();
  std::string error;
  std::optional<std::pair<std::size_t, CellFields>> first_piece;  // block 0's: the .pvti declares its arrays
  for (std::size_t i = 0; i < ids.size() && error.empty(); ++i) try {
    const Box& box = boxes[ids[i]];
    CellFields fields;
    fields.dims = {box.extent(0), box.extent(1), box.extent(2)};
    fields.origin = box.lo;
    fields.vorticity_magnitude = std::move(vorticity[i]);
    fields.density = std::move(m[i].density);
    fields.velocity = std::move(m[i].velocity);
    fields.flags = std::move(m[i].flags);
    if (!statistics.empty()) add_statistics_arrays(fields, statistics[i]);
    series[i].write_piece(sim.step(), fields, c.cells);
    if (ids[i] == 0) first_piece.emplace(i, std::move(fields));
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(comm, error);
  if (first_piece) try {
    series[first_piece->first].publish(sim.step(), double(sim.step()), first_piece->second, c.cells, pieces);
  } catch (const std::exception& e) {
    error = e.what();
  }
  agree(comm, error);
}

// The files every rank's series wrote (each rank writes its own pieces), sorted: by step, the
// .pvd first. Collective.
std::vector<std::string> every_rank_files(const Comm& comm, const std::vector<VtkSeries>& series) {
  std::vector<char> mine;
  for (const VtkSeries& piece : series)
    for (const std::string& f : piece.files_written()) {
      mine.insert(mine.end(), f.begin(), f.end());
      mine.push_back('\0');
    }
  const std::vector<char> all = comm.allgather(mine);
  std::vector<std::string> files;
  for (auto at = all.begin(); at != all.end();) {
    const auto end = std::find(at, all.end(), '\0');
    files.emplace_back(at, end);
    at = end == all.end() ? end : end + 1;
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Progress {
 public:
  // `first`: the step the run began at (a restart's), from which the rate is measured.
  Progress(bool enabled, long first, long total) : enabled_(enabled), tty_(isatty(2)), first_(first), total_(total) {}
  // `extra`: what follows the timing (the convergence monitor's change).
  void update(long step, double mlups, double elapsed, const std::string& extra) {
    if (!enabled_) return;
    const double eta = step > first_ ? elapsed * double(total_ - step) / double(step - first_) : 0.0;
    std::fprintf(stderr, "%sstep %ld/%ld (%.0f%%)  %.1f MLUPS  elapsed %.1f s  ETA %.1f s%s%s",
                 tty_ ? "\r\033[K" : "", step, total_, 100.0 * step / double(total_), mlups,
                 elapsed, eta, extra.c_str(), tty_ ? "" : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_, tty_;
  long first_, total_;
};

// Time averages in checkpoints: statistics_path(checkpoint) in the checkpoint file format,
// RunningStatistics::state_columns doubles per cell and, in its header, how they were sampled.
constexpr int statistics_cell_bytes = RunningStatistics::state_columns * int(sizeof(double));

std::vector<BoxBytes> statistics_pieces(const Simulation& sim) {
  std::vector<BoxBytes> pieces;
  const std::vector<Box> boxes = sim.all_boxes();
  for (int id : sim.local_blocks())
    pieces.push_back({boxes[id].lo, boxes[id].hi,
                      std::vector<unsigned char>(static_cast<std::size_t>(boxes[id].cells()) * statistics_cell_bytes)});
  return pieces;
}

// `checkpoint_hash`: the fields_hash of the checkpoint they go with (statistics_header checks it).
void write_statistics(MPI_Comm comm, const std::string& path, const Simulation& sim,
                      const std::vector<RunningStatistics>& statistics, const Sampling& sampling,
                      const std::string& checkpoint_hash) {
  std::vector<BoxBytes> pieces = statistics_pieces(sim);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::vector<double> cells = statistics[i].state();
    std::memcpy(pieces[i].values.data(), cells.data(), cells.size() * sizeof(double));
  }
  Json meta = sampling.json();
  meta["step"] = sim.step();
  meta["fields_hash"] = checkpoint_hash;
  boreas::write_checkpoint(comm, path, meta, sim.config().cells, statistics_cell_bytes, pieces);
}

// Loads the averages kept beside `checkpoint` and returns "", or returns why the averages start
// again: no such file (a checkpoint of a run without [statistics]) or other sampling. A file
// that is there but damaged is an error (Error, every rank): averages are not dropped silently.
std::string read_statistics(MPI_Comm comm, const std::string& checkpoint, const Simulation& sim,
                            std::vector<RunningStatistics>& statistics, Sampling& sampling) {
  std::string why;
  const Json header = statistics_header(comm, checkpoint, sampling, sim.step(), statistics_cell_bytes, why);
  if (!why.empty()) return why;
  const std::string path = statistics_path(checkpoint);
  std::vector<BoxBytes> pieces = statistics_pieces(sim);
  read_checkpoint_values(comm, path, header, pieces);
  sampling.samples = header.at("samples").get<long>();
  sampling.first_sample = header.at("first_sample").get<long>();
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    std::vector<double> cells(pieces[i].values.size() / sizeof(double));
    std::memcpy(cells.data(), pieces[i].values.data(), pieces[i].values.size());
    statistics[i].load(cells, sampling.samples);
  }
  return "";
}

// A checkpoint of the run's current state (drivers/Checkpointing.hpp), with its time averages
// where the deck has them.
bool write_checkpoint(Checkpoints& checkpoints, const Simulation& sim, MPI_Comm comm,
                      const std::vector<RunningStatistics>& statistics, const Sampling& sampling) {
  Json meta = Json::object();
  meta["kernel"] = scheme_name(sim.config().kernel);
  meta["ranks"] = sim.ranks();
  meta["fields_hash"] = hash_hex(sim.fields_hash());
  // The averages first: a checkpoint that exists has them.
  return checkpoints.write(sim.step(), sim.rank() == 0, meta, [&](const std::string& path, const Json& full) {
    if (sim.config().statistics.enabled)
      write_statistics(comm, statistics_path(path), sim, statistics, sampling, full.at("fields_hash").get<std::string>());
    sim.write_checkpoint(path, full);
  });
}

}  // namespace

const char* const no_fluid_cell =
    "the domain holds no fluid cell: the obstacles, the voxel file and the walls cover it whole";

std::string continue_command(const Config& config, const RunOptions& options) {
  return (options.command.empty() ? "boreas " + config.deck_path : options.command) + " --restart latest";
}

Json run_deck(const Config& config, const RunOptions& options) {
  if (config.amr.enabled) return run_amr_deck(config, options);
  install_stop_signals();
  auto sim = Simulation::create(config, options.comm);
  const long long fluid_cells = sim->fluid_cells();  // collective
  if (fluid_cells == 0) throw Error(no_fluid_cell);
  const Comm comm(options.comm);
  const bool root = sim->rank() == 0;
  Timers& timers = sim->timers();

  // A restart is checked and read before anything is written.
  Json restarted;
  double initial_mass = 0;
  if (!options.restart.empty()) {
    std::string path;
    const Json header = restart_header(config, options.restart, comm.get(), path);
    sim->read_checkpoint(path, header);
    check_loaded_state(path, header, hash_hex(sim->fields_hash()));
    initial_mass = header.value("initial_mass", 0.0);
    restarted = restart_record(path, sim->step(), header);
    if (root && options.progress)
      std::fprintf(stderr, "boreas: continuing from %s (step %ld)\n", path.c_str(), sim->step());
  } else {
    initial_mass = sim->total_mass();
  }
  const long first_step = sim->step();
  // Time averages per local block, from statistics.start on; a restart continues those of its
  // checkpoint (read, and refused where damaged, before anything is written).
  std::vector<RunningStatistics> statistics;
  Sampling sampling{config.statistics.start, config.statistics.every, 0, 0};
  sampling.first_sample = sampling.next_after(first_step);
  if (config.statistics.enabled) {
    for (int id : sim->local_blocks()) statistics.emplace_back(sim->all_boxes()[id].cells());
    if (!restarted.is_null()) {
      const std::string why = read_statistics(comm.get(), restarted["checkpoint"].get<std::string>(), *sim, statistics, sampling);
      restarted["statistics_continued"] = why.empty();
      if (!why.empty() && root)
        std::fprintf(stderr, "boreas: warning: [statistics] averages start again at step %ld: %s\n",
                     sampling.next_after(first_step), why.c_str());
    }
  }

  // Refusals (memory, geometry) and a restart's checks come first: they leave nothing on disk.
  prepare_output_directory(comm.get(), config.output_dir);
  prepare_checkpoint_directory(comm.get(), config);
  if (first_step == 0) warn_about_earlier_report(config, root);
  set_aside_earlier_checkpoints(comm.get(), config, first_step,
                                restarted.is_null() ? std::string() : restarted["checkpoint"].get<std::string>());
  if (root && options.progress)
    std::fprintf(stderr, "%s",
                 setup_text(config, {scheme_name(sim->config().kernel), comm.size(), first_step, {fluid_cells}}).c_str());
  std::vector<VtkSeries> series;
  for (int id : sim->local_blocks()) {
    series.emplace_back(config.output_dir, config.name, id, int(sim->all_boxes().size()));
    resume_vtk_series(series.back(), config, first_step, true);  // only block 0's holds the .pvd
  }
  Checkpoints checkpoints(config, initial_mass);
  std::optional<ForceSeries> forces;
  if (config.forces.enabled) forces.emplace(config, body_names(config), root, first_step);
  std::optional<CsvSeries> probes;
  if (!config.probes.empty()) probes.emplace(probe_series(config, root, first_step));
  std::optional<CsvSeries> integrals;
  if (config.integrals_every > 0) integrals.emplace(integral_series(config, root, first_step));
  if (forces) warn_about_history(forces->series(), first_step, root);
  if (probes) warn_about_history(*probes, first_step, root);
  if (integrals) warn_about_history(*integrals, first_step, root);
  if (forces) checkpoints.record_rows(forces->series());
  if (probes) checkpoints.record_rows(*probes);
  if (integrals) checkpoints.record_rows(*integrals);

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return seconds_since(t0); };
  // Checks (and progress lines) about every 10 % of the run unless the deck says otherwise, in
  // whole sweeps of every merged<k> kernel (the least common multiple of their k, 6; a chunk's
  // remainder runs as single steps), so that the checks, and the convergence monitor's values,
  // fall at the same steps whichever variant runs (kernel = "auto" chooses by timing).
  const long sweep = sim->config().kernel.steps;
  long every_sweep = 1;
  for (const std::string& k : known_kernels()) every_sweep = std::lcm(every_sweep, long(parse_scheme(k)->steps));
  const long check_every = config.progress_every > 0
                               ? config.progress_every
                               : std::max(1L, (config.steps / 10 + every_sweep - 1) / every_sweep) * every_sweep;
  Progress progress(options.progress && root, first_step, config.steps);
  ConvergenceMonitor convergence;
  // Between chunks of about a second every rank looks at stop signals and the checkpoint clock
  // (one reduction), so that all take the same decision at the same step.
  long poll = sweep;

  if (first_step == 0 && config.write_vtk && config.output_every > 0) {
    auto t = timers.scope("output");
    write_output(series, *sim, statistics, comm.get());
  }
  if (integrals && samples_first_step(*integrals, first_step, comm.get())) {
    auto t = timers.scope("others");
    integrals->append(first_step, flow_integrals(*sim, fluid_cells, comm.get()));
  }
  // What an instability falls back to: the populations (save_state), the averages and their
  // sampling, taken together so that the final output's averages hold no sample past its state.
  std::vector<RunningStatistics> good_statistics;
  Sampling good_sampling = sampling;
  auto keep_as_last_good = [&] {
    sim->save_state();
    good_statistics.clear();
    for (const RunningStatistics& s : statistics) good_statistics.push_back(s.copy());
    good_sampling = sampling;
  };
  keep_as_last_good();
  std::string status = "completed";
  Health bad;
  int stopped_by = 0;
  auto next_multiple = [&](long every) { return every > 0 ? (sim->step() / every + 1) * every : config.steps; };
  while (sim->step() < config.steps) {
    const long from = sim->step();
    const long next = std::min({config.steps, next_multiple(check_every), next_multiple(config.output_every),
                                next_multiple(config.checkpoint.every), from + poll,
                                forces ? next_multiple(config.forces.every) : config.steps,
                                !config.statistics.enabled ? config.steps : sampling.next_after(from),
                                probes ? next_multiple(config.probes_every) : config.steps,
                                integrals ? next_multiple(config.integrals_every) : config.steps});
    const auto chunk_start = std::chrono::steady_clock::now();
    sim->advance(next - from);
    const AgreedClock clock = agree_on_clock(comm.get(), seconds_since(chunk_start) / double(next - from), checkpoints);
    poll = std::max(sweep, long(1.0 / std::max(clock.seconds_per_step, 1e-9)) / sweep * sweep);
    stopped_by = clock.stopped_by;
    const auto [at_checkpoint, at_check, at_output] = chunk_end(config, sim->step(), check_every, clock);
    const bool at_sample = config.statistics.enabled && sampling.at(sim->step());
    const bool at_probe = probes && sim->step() % config.probes_every == 0;
    const bool at_forces = forces && sim->step() % config.forces.every == 0;
    const bool at_integrals = integrals && sim->step() % config.integrals_every == 0;
    // Whatever is recorded or kept is first checked (as the AMR driver does): averages, probes,
    // forces and integrals never take a state past the instability.
    if (at_check || at_output || at_checkpoint || at_sample || at_probe || at_forces || at_integrals) {
      Health h;
      {
        auto t = timers.scope("others");
        h = sim->check();
      }
      if (!h.ok) {
        status = "unstable";
        bad = h;
        break;
      }
    }
    if (at_sample || at_probe) {
      auto t = timers.scope("others");
      const std::vector<CellMoments> moments = sim->local_moments();  // once for both
      if (at_sample) {
        for (std::size_t i = 0; i < statistics.size(); ++i) statistics[i].add(moments[i]);
        ++sampling.samples;
      }
      if (at_probe) probes->append(sim->step(), probe_values(*sim, moments, config.probes, comm.get()));
    }
    if (at_check || at_output || at_checkpoint) {
      auto t = timers.scope("others");
      keep_as_last_good();
    }
    // The monitor compares whole check intervals (not a shorter last one at the end of the run).
    if (at_check && sim->step() % check_every == 0) {
      auto t = timers.scope("others");
      const std::vector<CellMoments> moments = sim->monitored_moments();
      convergence.check(sim->step(), moments, std::vector<double>(moments.size(), 1.0), comm.get());
    }
    if (at_forces) {
      auto t = timers.scope("others");
      forces->add(sim->step(), sim->body_forces());
    }
    if (at_integrals) {
      auto t = timers.scope("others");
      integrals->append(sim->step(), flow_integrals(*sim, fluid_cells, comm.get()));
    }
    if (at_output) {
      auto t = timers.scope("output");
      write_output(series, *sim, statistics, comm.get());
    }
    if (at_checkpoint) {
      auto t = timers.scope("output");
      write_checkpoint(checkpoints, *sim, comm.get(), statistics, sampling);
    }
    if (at_check) {
      const double lbm = timers.get("lbm") + timers.get("boundaries");
      progress.update(sim->step(), double(fluid_cells) * (sim->step() - first_step) / std::max(lbm, 1e-12) * 1e-6,
                      elapsed(), convergence.progress_text());
    }
    if (stopped_by != 0 && sim->step() < config.steps) {  // a signal in the last chunk: the run is complete
      status = "interrupted";
      break;
    }
  }
  progress.finish();
  const long reached = sim->step();  // the step computed last (an instability falls back from it)

  Json instability;
  if (status == "unstable") {
    sim->restore_state();
    statistics = std::move(good_statistics);
    sampling = good_sampling;
    const std::string good_checkpoint = checkpoints.of_last_good_state(
        sim->step(), first_step, restarted.is_null() ? std::string() : restarted["checkpoint"].get<std::string>(), [&] {
          auto t = timers.scope("output");
          write_checkpoint(checkpoints, *sim, comm.get(), statistics, sampling);
        });
    const long long nx = config.cells[0], ny = config.cells[1], c = bad.first_bad_cell;
    const long long cell[3] = {c % nx, (c / nx) % ny, c / (nx * ny)};
    if (root)
      std::fprintf(stderr,
                   "boreas: error: unstable at step %ld: density %g at cell (%lld, %lld, %lld)\n"
                   "  hint: tau = %.6g; stability needs tau well above 0.5 (raise the resolution or lower\n"
                   "  Re) and a small lattice Mach number (lower the lattice velocity).\n"
                   "  Writing the last good state, step %ld (checkpoint %s).\n",
                   reached, bad.bad_density, cell[0], cell[1], cell[2], config.tau, sim->step(),
                   good_checkpoint.empty() ? "not written: the warning above says why" : good_checkpoint.c_str());
    instability = Json::object();
    instability["step"] = reached;
    instability["cell"] = Json::array({cell[0], cell[1], cell[2]});
    instability["density"] = bad.bad_density;
    instability["last_good_step"] = sim->step();
    instability["checkpoint"] = good_checkpoint.empty() ? Json() : Json(good_checkpoint);  // null: its write failed
  }
  const Json stop_checkpoint = status == "interrupted"
                                    ? checkpoints.report_stop(stopped_by, sim->step(), continue_command(config, options), root)
                                    : Json();
  // A completed run whose deck checkpoints keeps its end state, so that raising simulation.steps
  // and --restart latest runs it further.
  const bool checkpointing = config.checkpoint.every > 0 || config.checkpoint.every_minutes > 0;
  if (status == "completed" && checkpointing && checkpoints.last_step() != sim->step()) {
    auto t = timers.scope("output");
    write_checkpoint(checkpoints, *sim, comm.get(), statistics, sampling);
  }
  const bool final_needed = status != "interrupted" && config.write_vtk &&
                            (config.output_every == 0 || sim->step() % config.output_every != 0);
  if (final_needed) {
    auto t = timers.scope("output");
    write_output(series, *sim, statistics, comm.get());
  }

  const double wall = elapsed();
  Json report = make_report(config, *sim, status, wall, initial_mass, first_step, reached);
  report["observables"] = compute_observables(config, *sim);
  if (!instability.is_null()) report["instability"] = instability;
  if (const Json c = convergence.report(); !c.is_null()) report["convergence"] = c;
  if (status == "interrupted") {
    report["stopped_by"] = signal_name(stopped_by);
    report["stop_checkpoint"] = stop_checkpoint;
  }
  if (!restarted.is_null()) report["restarted_from"] = restarted;
  if (checkpoints.any_attempt()) report["checkpoints"] = checkpoints.report();
  if (config.statistics.enabled) report["statistics"] = sampling.report(config.write_vtk);
  report["output_files"] = Json::array();
  for (const std::string& f : every_rank_files(comm, series)) report["output_files"].push_back(f);
  if (forces) finish_forces(*forces, report, root, options.progress, config.output_dir);
  if (probes) finish_probes(*probes, config, report, root);
  if (integrals) finish_integrals(*integrals, config, report, root);
  if (first_step == 0) warn_about_stale_output(config, report, root);
  write_report(comm.get(), config.output_dir, report);
  return report;
}

}  // namespace boreas
