#include "drivers/SparseSimulation.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "comm/SparseLinks.hpp"
#include "core/Error.hpp"
#include "core/MemoryBudget.hpp"
#include "drivers/GridSimulation.hpp"
#include "io/Checkpoint.hpp"
#include "lbm/field/BodyForces.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/scheme/SparseSteps.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

namespace {

constexpr int tag_run = 7301;

template <class L, class Real>
class SparseSimulation final : public GridSimulation {
 public:
  SparseSimulation(const Config& config, MPI_Comm comm)
      : GridSimulation(config, comm, partition(config, comm, 1)),
        field_(build_sparse_field<L>(set_, comm_.rank(), domain_, int(sizeof(Real)), links_, global_)),
        physics_(CellPhysics<Real>::make(config)),
        aa_(config.kernel.kind == StreamingKernel::AA) {
    check_memory();
    const bool host_buffers = config.parallel.buffers == BufferKind::Host ||
                              (config.parallel.buffers == BufferKind::Auto && !exec_is_host && !mpi_is_cuda_aware());
    exchange_ = std::make_unique<SparseExchange<Real>>(links_, sparse_link_slots<L>(field_, links_, aa_), comm_,
                                                       host_buffers, tag_run);
    f_ = lattice("sparse_populations");
    if (!aa_) g_ = lattice("sparse_populations_b");
    load_canonical(initial_state());
    comm_.reset_counters();
  }

  void advance(long steps) override {
    for (long s = 0; s < steps; ++s) step_once();
    step_ += steps;
    steps_run_ += steps;
  }

  std::uint64_t fields_hash() const override { return comm_.sum(sparse_fields_hash<L, Real>(field_, canonical())); }
  double total_mass() const override {
    return comm_.sum(sparse_total_mass<L, Real>(field_, canonical()));
  }
  Health check() const override {
    const DeviceView<Real*> f = canonical();
    const long long first = comm_.min(sparse_first_bad_cell<L, Real>(field_, f, 0.1 * physics_.rho0, 10 * physics_.rho0));
    Health h;
    if (first == LLONG_MAX) return h;
    h.ok = false;
    h.first_bad_cell = first;
    double rho = 0;
    const auto it = std::find(global_.begin(), global_.end(), first);
    if (it != global_.end()) {
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
      for (int q = 0; q < L::Q; ++q) rho += host(field_.slot(q, it - global_.begin()));
    }
    h.bad_density = comm_.sum(rho);
    return h;
  }

  std::vector<HostMacroscopic> local_macroscopic() const override {
    const std::vector<CellMoments> moments = local_moments();
    std::vector<HostMacroscopic> out;
    for (std::size_t k = 0; k < ids_.size(); ++k) {
      const Box& b = set_.blocks[ids_[k]].box;
      std::vector<std::uint8_t> flags;
      flags.reserve(static_cast<std::size_t>(b.cells()));
      for (int z = b.lo[2]; z < b.hi[2]; ++z)
        for (int y = b.lo[1]; y < b.hi[1]; ++y)
          for (int x = b.lo[0]; x < b.hi[0]; ++x) flags.push_back(domain_.flag_at(x, y, z));
      out.push_back(host_macroscopic(moments[k], std::move(flags)));
    }
    return out;
  }

  std::vector<CellMoments> monitored_moments() const override {
    const DeviceView<double* [4]> rho_u = fluid_moments();
    const CellMoments m("boreas::fluid_moments", field_.cells, 4);
    Kokkos::parallel_for(
        "boreas::sparse_monitored_moments", Kokkos::RangePolicy<ExecSpace>(0, field_.cells), KOKKOS_LAMBDA(const long i) {
          for (int c = 0; c < 4; ++c) m(i, c) = rho_u(i, c);
        });
    return {m};
  }
  std::vector<CellMoments> local_moments() const override {
    if (places_.empty()) {  // per block: the sparse cells it holds and their index in its box
      std::vector<std::vector<long>> from(ids_.size()), to(ids_.size());
      for_each_cell_place([&](long i, std::size_t k, long at) {
        from[k].push_back(i);
        to[k].push_back(at);
      });
      for (std::size_t k = 0; k < ids_.size(); ++k)
        places_.push_back({to_device_view("boreas::sparse_cells", from[k]), to_device_view("boreas::box_index", to[k])});
    }
    const DeviceView<double* [4]> rho_u = fluid_moments();
    std::vector<CellMoments> out;
    for (std::size_t k = 0; k < ids_.size(); ++k) {
      out.emplace_back("boreas::moments", set_.blocks[ids_[k]].box.cells(), 4);  // zero: solid cells
      const CellMoments m = out.back();
      const auto from = places_[k].first, to = places_[k].second;
      Kokkos::parallel_for(
          "boreas::sparse_to_box", Kokkos::RangePolicy<ExecSpace>(0, long(from.extent(0))), KOKKOS_LAMBDA(const long j) {
            for (int c = 0; c < 4; ++c) m(to(j), c) = rho_u(from(j), c);
          });
    }
    return out;
  }
  long long fluid_cells() const override { return comm_.sum(static_cast<long long>(field_.cells)); }
  std::vector<std::array<double, 3>> body_forces() const override {
    if (!body_links_) {  // built at the first call: runs without [forces] never pay
      body_links_ = body_links<L>(
          domain_, config_, field_.cells,
          [&](long i, std::array<int, 3>& p) {
            p = cell_at(i);
            return true;
          },
          [&](int q, long i, const std::array<int, 3>&) {  // offsets: per-link data, refused with sparse storage
            return field_.slot(q, i);
          });
    }
    std::vector<ExactSum> sums(3 * std::size_t(domain_.bodies()));
    add_body_forces<L>(*body_links_, canonical(), sums);
    return forces_over_ranks(sums);
  }

  // Checkpoints hold every cell of the blocks, as the dense storage's do (solid cells zero), so
  // that either storage continues the other's run.
  void write_checkpoint(const std::string& path, const Json& meta) const override {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), canonical());
    std::vector<BoxBytes> pieces = owned_pieces(int(L::Q * sizeof(Real)));
    for_each_cell_place([&](long i, std::size_t k, long at) {
      Real* cell = reinterpret_cast<Real*>(pieces[k].values.data()) + at * L::Q;  // new[] memory: aligned for Real
      for (int q = 0; q < L::Q; ++q) cell[q] = host(field_.slot(q, i));
    });
    boreas::write_checkpoint(comm_.get(), path, meta, config_.cells, int(L::Q * sizeof(Real)), pieces);
  }
  void read_checkpoint(const std::string& path, const Json& header) override {
    const std::vector<BoxBytes> pieces = read_owned_pieces(path, header, int(L::Q * sizeof(Real)));
    DeviceView<Real*> natural = lattice("restart_populations");
    auto host = Kokkos::create_mirror_view(natural);
    for_each_cell_place([&](long i, std::size_t k, long at) {
      const Real* cell = reinterpret_cast<const Real*>(pieces[k].values.data()) + at * L::Q;
      for (int q = 0; q < L::Q; ++q) host(field_.slot(q, i)) = cell[q];
    });
    Kokkos::deep_copy(natural, host);
    load_canonical(natural);
    step_ = header.at("step").get<long>();
  }
  void save_state() override {
    saved_ = canonical_copy();
    saved_step_ = step_;
  }
  void restore_state() override {
    load_canonical(saved_);
    step_ = saved_step_;
  }

  Json parallel_report() const override {
    Json p = decomposition_report({"lbm", "boundaries", "output", "others"});
    const long long cells = field_.cells;
    const long long bytes = device_bytes(lattices());
    Json s = Json::object();
    s["kernel"] = aa_ ? "aa" : "ab_pull";
    s["fluid_cells"] = comm_.sum(cells);
    s["remote_links"] = comm_.sum(static_cast<long long>(exchange_->links()));
    s["cells_with_remote_links"] = comm_.sum(static_cast<long long>(field_.cells - field_.inner));
    s["device_bytes"] = comm_.sum(bytes);
    s["device_bytes_per_fluid_cell"] = double(comm_.sum(bytes)) / double(std::max(1LL, comm_.sum(cells)));
    s["overlap"] = overlap_name(config_.parallel.overlap);
    p["sparse"] = s;
    // One message per neighbour rank and step, one value per remote link.
    const double steps = double(std::max(1L, steps_run_));
    Json msgs = Json::object();
    msgs["predicted"] = comm_.sum(static_cast<long long>(exchange_->messages())) * steps_run_;
    msgs["counted"] = comm_.sum(comm_.messages_sent());
    msgs["predicted_bytes"] = comm_.sum(static_cast<long long>(exchange_->links())) * long(sizeof(Real)) * steps_run_;
    msgs["counted_bytes"] = comm_.sum(comm_.bytes_sent());
    msgs["per_step"] = msgs["predicted"].get<double>() / steps;
    msgs["bytes_per_step"] = msgs["predicted_bytes"].get<double>() / steps;
    p["messages"] = msgs;
    return p;
  }

 private:
  int lattices() const { return aa_ ? 1 : 2; }
  // `lattices` population lattices and the index tables.
  long long device_bytes(int lattices) const {
    return lattices * field_.lattice_size() * long(sizeof(Real)) + field_.table_bytes();
  }
  DeviceView<Real*> lattice(const char* label) const {
    return DeviceView<Real*>(Kokkos::view_alloc(std::string(label), Kokkos::WithoutInitializing), field_.lattice_size());
  }

  // Refused before the lattices are allocated: the lattices, the saved state, a canonical copy
  // of AA's, the tables and the convergence monitor's velocity of the fluid cells, and with
  // [statistics] the averages (and their last good copy) of every cell of the blocks; on a device
  // against its free memory, with the ranks that share it (collective, after each has read its
  // free memory), on host backends with the start's estimate (output, checkpoint: it counts no
  // lattices for this storage) against the node's, its ranks together (collective).
  void check_memory() const {
    long long block_cells = 0;
    const std::vector<Box> boxes = set_.boxes();
    for (int id : local_blocks()) block_cells += boxes[id].cells();
    const long long averages = config_.statistics.enabled ? block_cells * statistics_bytes_per_cell : 0;
    const long long need = device_bytes(lattices() + 2) + field_.cells * monitor_bytes_per_cell + averages;
    if (!exec_is_host) {
      const std::optional<long long> free = device_memory_available();
      const long long shared = node_sum(comm_.get(), need, device_identity());
      if (free && shared > *free)
        throw Error("the sparse storage of rank " + std::to_string(comm_.rank()) + " needs " + format_bytes(need) +
                    " of device memory for " + std::to_string(field_.cells) + " fluid cells" +
                    (shared != need ? ", " + format_bytes(shared) + " with the ranks sharing the device" : std::string()) +
                    ", the device has " + format_bytes(*free) + " free; run on more ranks or GPUs");
      return;
    }
    const long long node = node_sum(comm_.get(), need + estimate_memory(config_, comm_.size(), true).host_bytes);
    const std::optional<long long> available = host_memory_available();
    if (available && node > *available)
      throw Error("the sparse storage needs " + format_bytes(node) + " of host memory on this node (rank " +
                  std::to_string(comm_.rank()) + ": " + format_bytes(need) + " for " + std::to_string(field_.cells) +
                  " fluid cells, besides output and checkpoint buffers), which has " + format_bytes(*available) +
                  " available; run on more nodes");
  }

  // The deck's initial condition, as the dense storage sets it.
  DeviceView<Real*> initial_state() const {
    DeviceView<Real*> natural = lattice("initial_populations");
    auto host = Kokkos::create_mirror_view(natural);
    const CouplingRates<Real> rates = CouplingRates<Real>::of_deck(config_, config_.tau, config_.force);
    Kokkos::parallel_for("boreas::sparse::initial_state", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, field_.cells),
                         [&](const long i) {
                           Real f[L::Q];
                           initial_post_collision<L>(config_, rates, cell_at(i), f);
                           for (int q = 0; q < L::Q; ++q) host(field_.slot(q, i)) = f[q];
                         });
    Kokkos::fence();
    Kokkos::deep_copy(natural, host);
    return natural;
  }

  void load_canonical(const DeviceView<Real*>& natural) {
    if (aa_) {
      sparse_to_reversed<L, Real>(field_, natural, f_);
      reversed_ = true;
    } else {
      Kokkos::deep_copy(f_, natural);
    }
  }
  // Density and velocity of the fluid cells (sparse order).
  DeviceView<double* [4]> fluid_moments() const {
    const DeviceView<double* [4]> rho_u("sparse_moments", field_.cells);
    sparse_moments<L, Real>(field_, canonical(), physics_.params, rho_u);
    return rho_u;
  }
  // The canonical state: pull's lattice itself, AA's converted.
  DeviceView<Real*> canonical() const { return aa_ ? canonical_copy() : f_; }
  DeviceView<Real*> canonical_copy() const {
    DeviceView<Real*> natural = lattice("canonical_populations");
    if (aa_) sparse_from_aa<L, Real>(field_, f_, reversed_, natural);
    else Kokkos::deep_copy(natural, f_);
    return natural;
  }

  mutable std::optional<BodyLinks> body_links_;
  mutable std::vector<std::pair<DeviceView<long*>, DeviceView<long*>>> places_;  // local_moments

  // Global coordinates of cell i.
  std::array<int, 3> cell_at(long i) const {
    const long long g = global_[i], nx = config_.cells[0], ny = config_.cells[1];
    return {int(g % nx), int((g / nx) % ny), int(g / (nx * ny))};
  }

  // visit(i, slot of the cell's block on this rank, index of the cell in the block's box, x fastest).
  template <class Visit>
  void for_each_cell_place(const Visit& visit) const {
    for (long i = 0; i < field_.cells; ++i) {
      const auto [x, y, z] = cell_at(i);
      for (std::size_t k = 0; k < ids_.size(); ++k) {
        const Box& b = set_.blocks[ids_[k]].box;
        if (!b.contains(x, y, z)) continue;
        visit(i, k, (static_cast<long>(z - b.lo[2]) * b.extent(1) + (y - b.lo[1])) * b.extent(0) + (x - b.lo[0]));
        break;
      }
    }
  }

  // One step: the remote links' exchange, overlapped with the inner cells ("interior") or before
  // all of them ("none"), then the cells with remote links. A rank whose fluid cells link to no
  // other rank's (one rank, or solid all along its boundary) has nothing to exchange; links are
  // symmetric, so no neighbour waits for it.
  void step_once() {
    const bool exchange = exchange_->messages() > 0;
    const bool overlap = exchange && config_.parallel.overlap != OverlapKind::None;
    if (exchange) {
      auto t = timers_.scope("boundaries");
      exchange_->start(f_);
    }
    if (overlap) {
      auto t = timers_.scope("lbm");
      step_cells(0, field_.inner);
    }
    if (exchange) {
      auto t = timers_.scope("boundaries");
      exchange_->finish(f_);
    }
    {
      auto t = timers_.scope("lbm");
      step_cells(overlap ? field_.inner : 0, field_.cells);
    }
    if (aa_) reversed_ = !reversed_;
    else std::swap(f_, g_);
  }

  void step_cells(long first, long last) {
    if (first >= last) return;
    const Kokkos::RangePolicy<ExecSpace> cells(first, last);
    dispatch_collision<L>(physics_.collision, [&](auto collision) {
      using C = decltype(collision);
      if (!aa_)
        Kokkos::parallel_for("boreas::lbm::sparse_pull", cells, SparsePullStep<L, Real, C>{field_, f_, g_, physics_.params});
      else if (reversed_)
        Kokkos::parallel_for("boreas::lbm::sparse_aa_neighbour", cells, SparseAANeighbourStep<L, Real, C>{field_, f_, physics_.params});
      else
        Kokkos::parallel_for("boreas::lbm::sparse_aa_local", cells, SparseAALocalStep<L, Real, C>{field_, f_, physics_.params});
    });
  }

  SparseLinks links_;
  std::vector<long long> global_;  // each cell's global linear index, on the host
  SparseField field_;
  CellPhysics<Real> physics_;
  bool aa_;
  bool reversed_ = true;  // AA: the next step is a neighbour step
  DeviceView<Real*> f_, g_, saved_;
  std::unique_ptr<SparseExchange<Real>> exchange_;
  long steps_run_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> make_sparse_simulation(const Config& config, MPI_Comm comm) {
  return dispatch_lattice(config.lattice, [&](auto lattice) -> std::unique_ptr<Simulation> {
    using L = decltype(lattice);
    if (config.precision == Precision::Float) return std::make_unique<SparseSimulation<L, float>>(config, comm);
    return std::make_unique<SparseSimulation<L, double>>(config, comm);
  });
}

}  // namespace boreas
