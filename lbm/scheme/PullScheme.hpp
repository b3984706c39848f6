#pragma once
// ab_pull and merged<k>: two natural-layout lattices; a step reads one and writes the other.
#include "lbm/scheme/MergedStep.hpp"
#include "lbm/scheme/MergedTiles.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/Conversions.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

namespace boreas {

template <class L, class Real>
class PullScheme : public StreamingScheme<L, Real> {
 public:
  explicit PullScheme(const SchemeContext<Real>& context) : StreamingScheme<L, Real>(context) {
    f_[0] = Populations<Real>("populations_a", context.field.storage);
    f_[1] = Populations<Real>("populations_b", context.field.storage);
    if (context.physics.params.has_csm) velocity_ = CellVelocity<Real>("cell_velocity", 3, context.field.geom.cells_alloc);
  }

  void load_canonical(const Populations<Real>& natural) override {
    cur_ = 0;
    copy_canonical<L>(this->c_.field, natural, f_[0], f_[1], 0, this->c_.tile);
  }
  Populations<Real> canonical() const override { return f_[cur_]; }
  const Populations<Real>& current() const override { return f_[cur_]; }

  void advance(long steps) override {
    for (long s = 0; s < steps; ++s) periodic_step();
  }
  void step_from_ghosts() override {
    const DenseGeometry& g = this->c_.field.geom;
    begin_parts();
    step_part({0, 0, 0}, {g.n[0], g.n[1], g.n[2]});
    finish_parts();
  }
  void begin_parts() override { update_velocity(); }
  HaloTransfer exchange_needed() const override { return HaloTransfer::Pull; }
  std::vector<HaloTransfer> exchanges() const override { return {HaloTransfer::Pull}; }
  std::string exchange_description() const override { return "pull: the populations the next step reads"; }

  bool steps_in_parts() const override { return true; }
  void step_part(const std::array<int, 3>& lo, const std::array<int, 3>& hi) override {
    const SchemeContext<Real>& c = this->c_;
    const PullGather<L, Real> gather{f_[cur_], c.field.flags, c.field.geom, c.physics.bc, c.physics.params,
                                     c.field.walls};
    const Populations<Real> dst = f_[cur_ ^ 1];
    dispatch_collision<L>(c.physics.collision, [&](auto collision) {
      using C = decltype(collision);
      for_each_cell("boreas::lbm::pull", c.field.geom, lo, hi, PullStep<L, Real, C>{gather, dst, velocity_},
                    c.traversal);
    });
  }
  const Populations<Real>& parts_target() const override { return f_[cur_ ^ 1]; }
  void finish_parts() override { cur_ ^= 1; }

  // The coherent-structure model's velocity field: every fluid cell's, ghosts included, from its
  // post-collision populations, u = (sum c f* - F / 2) / rho, the velocity of the previous step
  // (the collision conserves the moments). A ghost thus gives its owner's value bit for bit, and
  // the model reads nothing beyond the pull's reach; nu_t lags one step behind (O(dt)). Public
  // only because nvcc requires the function enclosing an extended device lambda to be.
  void update_velocity() {
    if (!this->c_.physics.params.has_csm) return;
    const Populations<Real> f = f_[cur_];
    const DeviceView<const std::uint8_t*> flags = this->c_.field.flags;
    const CollisionParams<Real> params = this->c_.physics.params;
    const CellVelocity<Real> velocity = velocity_;
    Kokkos::parallel_for(
        "boreas::lbm::cell_velocity", Kokkos::RangePolicy<ExecSpace>(0, this->c_.field.geom.cells_alloc),
        KOKKOS_LAMBDA(const long cell) {
          if (flags(cell) != flag::fluid) return;
          Real u[3];
          post_collision_velocity<L>([&](int k) { return f(k, cell); }, params, u);
          for (int d = 0; d < 3; ++d) velocity(d, cell) = u[d];
        });
  }

 protected:
  // One step of a block that is its own periodic neighbour: its ghosts mirror its cells first.
  void periodic_step() {
    fill_ghosts<L>(this->c_.periodic, f_[cur_], this->c_.periodic.pulled);
    step_from_ghosts();
  }

  Populations<Real> f_[2];
  int cur_ = 0;
  CellVelocity<Real> velocity_;
};

// k steps per sweep; step counts not divisible by k end with single pull steps. On several blocks
// a sweep reads k exchanged ghost layers (tile form); a block too thin for slabs, or a device
// without the tile form, takes single pull steps.
template <class L, class Real>
class MergedScheme : public PullScheme<L, Real> {
 public:
  MergedScheme(const SchemeContext<Real>& context, int k, MergeForm form);

  void load_canonical(const Populations<Real>& natural) override {
    this->cur_ = 0;
    copy_canonical<L>(this->c_.field, natural, this->f_[0], this->f_[1], k_, this->c_.tile);
  }
  void advance(long steps) override {
    const long groups = steps / k_;
    if (tiles_)
      sweep_tiles(groups, false);
    else
      sweep_slabs(groups);
    for (long s = groups * k_; s < steps; ++s) this->periodic_step();
  }
  std::string exchange_description() const override { return "k ghost layers once per sweep of k steps"; }
  int steps_per_sweep() const override { return k_; }
  void sweep_from_ghosts() override;
  // Its sweeps take whole blocks; the overlap strategies step ab_pull.
  bool steps_in_parts() const override { return false; }

  // Implementation, public only because nvcc requires the function enclosing an extended device
  // lambda to be publicly accessible.
  void sweep_slabs(long groups);
  void sweep_tiles(long groups, bool from_ghosts);

 private:
  int k_;
  bool tiles_;
  RowGhosts row_ghosts_;
};

template <class L, class Real>
MergedScheme<L, Real>::MergedScheme(const SchemeContext<Real>& context, int k, MergeForm form)
    : PullScheme<L, Real>(context), k_(k), tiles_(merges_in_tiles(form)) {
  const PeriodicGhosts& p = context.periodic;
  auto ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ghost);
  auto image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.image);
  const DenseGeometry& g = context.field.geom;
  const long n = p.size(), ny = g.n[1];
  std::vector<long> start(ny * g.n[2] + 1, 0), ghosts(n), images(n);
  const CellMap& map = context.field.map;
  for (long i = 0; i < n; ++i) ++start[interior_row(map, image(i)) + 1];
  for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  std::vector<long> next(start.begin(), start.end() - 1);
  for (long i = 0; i < n; ++i) {
    const long at = next[interior_row(map, image(i))]++;
    ghosts[at] = ghost(i);
    images[at] = image(i);
  }
  row_ghosts_.start = to_device_view("row_ghost_start", start);
  row_ghosts_.ghost = to_device_view("row_ghost", ghosts);
  row_ghosts_.image = to_device_view("row_ghost_image", images);
}

// The slab form runs on host backends only (one slab per thread): devices, and blocks too thin
// for slabs, take single steps, and device builds compile no slab kernels.
template <class L, class Real>
void MergedScheme<L, Real>::sweep_slabs(long groups) {
  if constexpr (exec_is_host) {
    const SchemeContext<Real>& c = this->c_;
    const MergedSchedule s = merged_schedule(c.field.geom, L::D, k_, c.tile);
    if (s.slabs > 0) {
      fill_ghosts<L>(c.periodic, this->f_[this->cur_], c.periodic.pulled);
      dispatch_collision<L>(c.physics.collision, [&](auto collision) {
        using C = decltype(collision);
        const PullStep<L, Real, C> from0{
            PullGather<L, Real>{this->f_[0], c.field.flags, c.field.geom, c.physics.bc, c.physics.params}, this->f_[1]};
        const PullStep<L, Real, C> from1{
            PullGather<L, Real>{this->f_[1], c.field.flags, c.field.geom, c.physics.bc, c.physics.params}, this->f_[0]};
        const MergedRows<L, Real, C> rows{{from0, from1}, row_ghosts_};
        for (long g = 0; g < groups; ++g) {
          merged_sweep(s, rows, this->cur_);
          this->cur_ = (this->cur_ + s.k) & 1;
        }
      });
      return;
    }
  }
  for (long i = 0; i < groups * k_; ++i) this->periodic_step();
}

template <class L, class Real>
void MergedScheme<L, Real>::sweep_from_ghosts() {
  const DenseGeometry& g = this->c_.field.geom;
  for (int d = 0; d < L::D; ++d)
    if (g.g[d] < k_)
      throw Error("merged" + std::to_string(k_) + " from ghosts needs " + std::to_string(k_) +
                  " ghost layers; the block has " + std::to_string(g.g[d]));
  sweep_tiles(1, true);
}

// Every sweep reads lattice cur_ and writes the other one, whatever k. A single block wraps its
// periodic axes inside the tiles; from_ghosts: a halo exchange filled the ghosts.
template <class L, class Real>
void MergedScheme<L, Real>::sweep_tiles(long groups, bool from_ghosts) {
  const SchemeContext<Real>& c = this->c_;
  const TileSchedule s = tile_schedule(c.field.geom, L::D, k_, c.tile);
  int wrap[3];
  for (int d = 0; d < 3; ++d) wrap[d] = from_ghosts ? 0 : c.field.map.periodic[d];
  dispatch_collision<L>(c.physics.collision, [&](auto collision) {
    using C = decltype(collision);
    using Tiles = MergedTiles<L, Real, C>;
    const std::size_t bytes = Tiles::scratch_bytes(s);
    const int level = bytes <= std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)) ? 0 : 1;
    const auto policy = Kokkos::TeamPolicy<ExecSpace>(s.league(), Kokkos::AUTO)
                            .set_scratch_size(level, Kokkos::PerTeam(bytes));
    for (long g = 0; g < groups; ++g) {
      Kokkos::parallel_for("boreas::lbm::merged_tiles", policy,
                           Tiles{this->f_[this->cur_], this->f_[this->cur_ ^ 1], c.field.flags, c.field.geom,
                                 {wrap[0], wrap[1], wrap[2]}, c.physics.bc, c.physics.params, s, level});
      this->cur_ ^= 1;
    }
  });
}

}  // namespace boreas
