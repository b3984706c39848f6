#pragma once
// aa and merged_aa<k>: one lattice, the AA pattern (Bailey et al. 2009). Its parity is the layout:
// reversed after a local step (the next is a neighbour step), streamed after a neighbour step.
#include <algorithm>

#include "lbm/scheme/AAStep.hpp"
#include "lbm/scheme/MergedAA.hpp"
#include "lbm/scheme/Conversions.hpp"
#include "lbm/scheme/StreamingScheme.hpp"

namespace boreas {

template <class L, class Real>
class AAScheme : public StreamingScheme<L, Real> {
 public:
  explicit AAScheme(const SchemeContext<Real>& context);

  void load_canonical(const Populations<Real>& natural) override {
    copy_canonical<L>(this->c_.field, natural, f_, Populations<Real>{}, 0, this->c_.tile);
    to_reversed<L>(this->c_.field, natural, f_);
    reversed_ = true;
  }
  Populations<Real> canonical() const override {
    return reversed_ ? from_reversed<L>(this->c_.field, f_) : from_streamed<L>(this->c_.field, f_);
  }
  const Populations<Real>& current() const override { return f_; }

  void step_from_ghosts() override {
    const DenseGeometry& g = this->c_.field.geom;
    begin_parts();
    step_part({0, 0, 0}, {g.n[0], g.n[1], g.n[2]});
    finish_parts();
  }
  HaloTransfer exchange_needed() const override { return reversed_ ? HaloTransfer::PullReversed : HaloTransfer::Push; }
  HaloTransfer exchange_after_step() const override {
    return reversed_ ? HaloTransfer::Push : HaloTransfer::PullReversed;
  }
  // Every cell's step reads and writes only its own set of slots (the AA property), so a step
  // can be split into any parts; the periodic and outlet preparations bracket them.
  bool steps_in_parts() const override { return true; }
  void begin_parts() override {
    if (reversed_) prepare_neighbour_step();
  }
  void step_part(const std::array<int, 3>& lo, const std::array<int, 3>& hi) override;
  void finish_parts() override {
    if (reversed_) drain_ghosts<L>(this->c_.periodic, f_);
    reversed_ = !reversed_;
  }
  std::vector<HaloTransfer> exchanges() const override { return {HaloTransfer::PullReversed, HaloTransfer::Push}; }
  std::string exchange_description() const override {
    return "alternating: ghosts filled after the local step, pushes returned after the neighbour step";
  }

  // Implementation, public only because nvcc requires the function enclosing an extended device
  // lambda to be publicly accessible.
  // Before a neighbour step: the ghost slots it gathers from (reversed layout) and the outlet
  // cells' own post-collision values, which neighbours overwrite during the step (AAStep.hpp).
  void prepare_neighbour_step();

 protected:
  Populations<Real> f_;
  bool reversed_ = true;
  DeviceView<int*> outlet_slot_;          // column of a cell in outlet_post_, or -1
  DeviceView<long*> outlet_cells_;
  DeviceView<long*> outlet_row_start_;    // outlet cells of interior row r: [start(r), start(r + 1))
  DeviceView<Real**> outlet_post_;
};

// k AA steps per sweep in the slab schedule of merged<k> (host backends); on devices, on several
// blocks and for a remainder of fewer than k steps it takes single aa steps.
template <class L, class Real>
class MergedAAScheme : public AAScheme<L, Real> {
 public:
  MergedAAScheme(const SchemeContext<Real>& context, int k);

  void load_canonical(const Populations<Real>& natural) override {
    copy_canonical<L>(this->c_.field, natural, this->f_, Populations<Real>{}, k_, this->c_.tile);
    to_reversed<L>(this->c_.field, natural, this->f_);
    this->reversed_ = true;
  }
  void advance(long steps) override {
    const long groups = steps / k_;
    sweep(groups);
    for (long s = groups * k_; s < steps; ++s) this->step_from_ghosts();
  }
  void sweep(long groups);
  // Its sweeps take whole blocks (on several blocks it takes single aa steps, but keeps to one
  // statement per variant: Scheme::steps_in_parts).
  bool steps_in_parts() const override { return false; }

 private:
  int k_;
  RowCopies fill_, drain_;  // periodic ghost copies by row (MergedAA.hpp)
};

// Fluid cells with an outlet upwind: their neighbour step needs saved populations.
template <class L, class Real>
AAScheme<L, Real>::AAScheme(const SchemeContext<Real>& context)
    : StreamingScheme<L, Real>(context), f_("populations_a", context.field.storage) {
  const DenseGeometry& g = context.field.geom;
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), context.field.flags);
  std::vector<long> cells, row_start(1, 0);
  std::vector<int> slot(g.cells_alloc, -1);
  for (int z = 0; z < g.n[2]; ++z)
    for (int y = 0; y < g.n[1]; row_start.push_back(static_cast<long>(cells.size())), ++y)
      for (int x = 0; x < g.n[0]; ++x) {
        const long cell = g.index(x, y, z);
        if (flags(cell) != flag::fluid) continue;
        bool outlet = false;
        for (int q = 1; q < L::Q; ++q)
          outlet |= flag::kind(flags(cell - g.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)))) == flag::outlet;
        if (!outlet) continue;
        slot[cell] = static_cast<int>(cells.size());
        cells.push_back(cell);
      }
  outlet_cells_ = to_device_view("outlet_cells", cells);
  outlet_row_start_ = to_device_view("outlet_row_start", row_start);
  outlet_slot_ = to_device_view("outlet_slot", slot);
  outlet_post_ = DeviceView<Real**>("outlet_post", L::Q, cells.size());
}

template <class L, class Real>
void AAScheme<L, Real>::prepare_neighbour_step() {
  const auto f = f_;
  fill_ghosts<L>(this->c_.periodic, f, this->c_.periodic.pushed);
  const auto cells = outlet_cells_;
  const auto post = outlet_post_;
  Kokkos::parallel_for(
      "boreas::lbm::aa_save_outlet", Kokkos::RangePolicy<ExecSpace>(0, cells.extent(0)), KOKKOS_LAMBDA(const long i) {
        for (int q = 0; q < L::Q; ++q) post(q, i) = f(opposite<L>(q), cells(i));
      });
}

// Periodic links of the block's own cells are completed by the step (ghost fills before a
// neighbour step, drains after it); links to other blocks wait for the exchange.
template <class L, class Real>
void AAScheme<L, Real>::step_part(const std::array<int, 3>& lo, const std::array<int, 3>& hi) {
  const SchemeContext<Real>& c = this->c_;
  const DeviceView<const std::uint8_t*> flags = c.field.flags;
  const bool neighbour_step = reversed_;
  dispatch_collision<L>(c.physics.collision, [&](auto collision) {
    using C = decltype(collision);
    if (neighbour_step)
      for_each_cell("boreas::lbm::aa_neighbour", c.field.geom, lo, hi,
                    AANeighbourStep<L, Real, C>{f_, flags, c.field.geom, c.physics.bc, c.physics.params, outlet_slot_,
                                                outlet_post_},
                    c.traversal);
    else
      for_each_cell("boreas::lbm::aa_local", c.field.geom, lo, hi, AALocalStep<L, Real, C>{f_, flags, c.field.geom, c.physics.params},
                    c.traversal);
  });
}

// Periodic ghost copies slot by slot: fills (image -> ghost, the reversed slots a neighbour step
// gathers) by the row of the image, drains (ghost -> image, what a neighbour step pushed) by the
// row of the pushing cell g - c_q.
template <class L, class Real>
MergedAAScheme<L, Real>::MergedAAScheme(const SchemeContext<Real>& context, int k) : AAScheme<L, Real>(context), k_(k) {
  const PeriodicGhosts& p = context.periodic;
  const DenseGeometry& g = context.field.geom;
  const PopulationLayout& storage = context.field.storage;
  auto ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.ghost);
  auto image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.image);
  auto pushed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.pushed);
  const long rows = static_cast<long>(g.n[1]) * g.n[2];
  struct Copy {
    long row, from, to;
  };
  std::vector<Copy> fills, drains;
  const CellMap& map = context.field.map;
  for (long i = 0; i < p.size(); ++i)
    for (int q = 0; q < L::Q; ++q) {
      if (!(pushed(i) >> q & 1)) continue;
      const long slot_ghost = storage.index(q, ghost(i)), slot_image = storage.index(q, image(i));
      fills.push_back({interior_row(map, image(i)), slot_image, slot_ghost});
      drains.push_back({interior_row(map, ghost(i), L::c(q, 1), L::c(q, 2)), slot_ghost, slot_image});
    }
  const auto by_row = [&](std::vector<Copy>& copies, const char* label) {
    std::stable_sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) { return a.row < b.row; });
    std::vector<long> start(rows + 1, 0), from, to;
    for (const Copy& c : copies) {
      ++start[c.row + 1];
      from.push_back(c.from);
      to.push_back(c.to);
    }
    for (long r = 0; r < rows; ++r) start[r + 1] += start[r];
    return RowCopies{to_device_view(label, start), to_device_view(label, from), to_device_view(label, to)};
  };
  fill_ = by_row(fills, "aa_row_fills");
  drain_ = by_row(drains, "aa_row_drains");
}

// Like merged<k>'s slab form, on host backends only (devices and blocks too thin for slabs take
// single steps); each sweep starts with the step kind the layout calls for. A sweep that ends
// with local steps has filled the ghosts and saved the outlet cells row by row; any other
// reversed state (a start, a restore, a single step) gets both as a single neighbour step does.
template <class L, class Real>
void MergedAAScheme<L, Real>::sweep(long groups) {
  if constexpr (exec_is_host) {
    const SchemeContext<Real>& c = this->c_;
    const MergedSchedule s = merged_schedule(c.field.geom, L::D, k_, c.tile);
    if (s.slabs > 0) {
      const auto f = this->f_;
      const DeviceView<const std::uint8_t*> flags = c.field.flags;
      dispatch_collision<L>(c.physics.collision, [&](auto collision) {
        using C = decltype(collision);
        const MergedAARows<L, Real, C> rows{AALocalStep<L, Real, C>{f, flags, c.field.geom, c.physics.params},
                                            AANeighbourStep<L, Real, C>{f, flags, c.field.geom, c.physics.bc,
                                                                        c.physics.params, this->outlet_slot_,
                                                                        this->outlet_post_},
                                            fill_,
                                            drain_,
                                            this->outlet_row_start_,
                                            this->outlet_cells_,
                                            this->outlet_post_};
        bool rows_prepared = false;
        for (long g = 0; g < groups; ++g) {
          const int first = this->reversed_ ? 1 : 0, last = (first + s.k - 1) & 1;
          if (first == 1 && !rows_prepared) this->prepare_neighbour_step();
          merged_sweep(s, rows, first);
          this->reversed_ = last != 1;
          rows_prepared = last == 0;
        }
      });
      return;
    }
  }
  for (long i = 0; i < groups * k_; ++i) this->step_from_ghosts();
}

}  // namespace boreas
