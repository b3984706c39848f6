// Template definitions of lbm/Block.hpp; included by one explicit-instantiation unit per lattice and
// precision (lbm/BlockInstance.cpp.in).
#include <algorithm>
#include <cmath>

#include "lbm/Block.hpp"
#include "lbm/FieldOps.inl"
#include "lbm/AAStep.hpp"
#include "lbm/MergedAA.hpp"
#include "lbm/MergedStep.hpp"
#include "lbm/MergedTiles.hpp"
#include "lbm/PullStep.hpp"
#include "lbm/PushStep.hpp"
#include "lbm/SwapPrism.hpp"
#include "lbm/SwapStep.hpp"
#include "lbm/Traversal.hpp"

namespace boreas {

namespace {
template <class T>
DeviceView<T*> to_device(const char* label, const std::vector<T>& v) {
  DeviceView<T*> d(std::string(label), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace>(v.data(), v.size()));
  return d;
}
}  // namespace

template <class L, class Real>
Block<L, Real>::Block(const Config& config, const DomainGeometry& domain, const Box& owned,
                      const std::array<int, 3>& ghosts)
    : field_(config, domain, owned, ghosts, L::Q, sizeof(Real)),
      physics_(CellPhysics<Real>::make(config)),
      kernel_(config.kernel.kind),
      tile_(config.tile),
      merge_steps_(config.kernel.steps),
      merge_tiles_(merges_in_tiles(config.merge_form)) {
  if (tile_ < 2) throw Error("simulation.tile must be at least 2 (prism tiles of adjacent rows)");
  init_periodic(domain);
  if (aa_pattern()) init_outlet_saves();
  if (kernel_ == StreamingKernel::Merged) init_row_ghosts();
  if (kernel_ == StreamingKernel::MergedAA) init_aa_row_copies();
  // Two lattices for the ab_* variants, one for the in-place ones.
  f_[0] = Populations<Real>("populations_a", field_.storage);
  if (two_natural_lattices() || kernel_ == StreamingKernel::ABPush)
    f_[1] = Populations<Real>("populations_b", field_.storage);
  load_canonical(initial_populations<L, Real>(field_, config));
}

template <class L, class Real>
void Block<L, Real>::init_periodic(const DomainGeometry& domain) {
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field_.flags);
  std::vector<long> ghost, image;
  std::vector<std::uint32_t> pulled, pushed;
  const DenseGeometry& g = field_.geom;
  for (int z = -g.g[2]; z < g.n[2] + g.g[2]; ++z)
    for (int y = -g.g[1]; y < g.n[1] + g.g[1]; ++y)
      for (int x = -g.g[0]; x < g.n[0] + g.g[0]; ++x) {
        const long cell = g.index(x, y, z);
        if (field_.map.owned(cell) || flags(cell) != flag::fluid) continue;
        const std::array<int, 3> at{field_.box.lo[0] + x, field_.box.lo[1] + y, field_.box.lo[2] + z};
        std::array<int, 3> p = at;
        if (!domain.wrap(p) || !field_.box.contains(p[0], p[1], p[2])) continue;
        ghost.push_back(cell);
        image.push_back(g.index(p[0] - field_.box.lo[0], p[1] - field_.box.lo[1], p[2] - field_.box.lo[2]));
        pulled.push_back(pulled_populations<L>(field_.box, at, domain));
        pushed.push_back(pushed_populations<L>(field_.box, at, domain));
      }
  periodic_.ghost = to_device("periodic_ghost", ghost);
  periodic_.image = to_device("periodic_image", image);
  periodic_.pulled = to_device("periodic_pulled", pulled);
  periodic_.pushed = to_device("periodic_pushed", pushed);
}

template <class L, class Real>
void Block<L, Real>::init_row_ghosts() {
  auto ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodic_.ghost);
  auto image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodic_.image);
  const long n = periodic_.size(), ny = field_.geom.n[1];
  std::vector<long> start(ny * field_.geom.n[2] + 1, 0), ghosts(n), images(n);
  auto row_of = [&](long cell) {
    int x, y, z;
    field_.map.coords(cell, x, y, z);
    return z * ny + y;
  };
  for (long i = 0; i < n; ++i) ++start[row_of(image(i)) + 1];
  for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  std::vector<long> next(start.begin(), start.end() - 1);
  for (long i = 0; i < n; ++i) {
    const long at = next[row_of(image(i))]++;
    ghosts[at] = ghost(i);
    images[at] = image(i);
  }
  row_ghosts_.start = to_device("row_ghost_start", start);
  row_ghosts_.ghost = to_device("row_ghost", ghosts);
  row_ghosts_.image = to_device("row_ghost_image", images);
}

// merged_aa<k>'s periodic ghost copies (MergedAA.hpp), slot by slot: fills (image -> ghost, the
// reversed slots a neighbour step gathers) by the row of the image, drains (ghost -> image, what
// a neighbour step pushed) by the row of the pushing cell g - c_q.
template <class L, class Real>
void Block<L, Real>::init_aa_row_copies() {
  auto ghost = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodic_.ghost);
  auto image = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodic_.image);
  auto pushed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), periodic_.pushed);
  const long rows = static_cast<long>(field_.geom.n[1]) * field_.geom.n[2];
  struct Copy {
    long row, from, to;
  };
  std::vector<Copy> fills, drains;
  for (long k = 0; k < periodic_.size(); ++k) {
    int x, y, z;
    field_.map.coords(image(k), x, y, z);
    const long image_row = static_cast<long>(z) * field_.geom.n[1] + y;
    field_.map.coords(ghost(k), x, y, z);
    for (int q = 0; q < L::Q; ++q) {
      if (!(pushed(k) >> q & 1)) continue;
      const long slot_ghost = field_.storage.index(q, ghost(k)), slot_image = field_.storage.index(q, image(k));
      const long pusher_row = static_cast<long>(z - L::c(q, 2)) * field_.geom.n[1] + (y - L::c(q, 1));
      fills.push_back({image_row, slot_image, slot_ghost});
      drains.push_back({pusher_row, slot_ghost, slot_image});
    }
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
    return RowCopies{to_device(label, start), to_device(label, from), to_device(label, to)};
  };
  aa_fill_ = by_row(fills, "aa_row_fills");
  aa_drain_ = by_row(drains, "aa_row_drains");
}

// Fluid cells with an outlet upwind: their AA neighbour step needs saved populations.
template <class L, class Real>
void Block<L, Real>::init_outlet_saves() {
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field_.flags);
  std::vector<long> cells, row_start(1, 0);
  std::vector<int> slot(field_.geom.cells_alloc, -1);
  for (int z = 0; z < field_.geom.n[2]; ++z)
    for (int y = 0; y < field_.geom.n[1]; row_start.push_back(static_cast<long>(cells.size())), ++y)
      for (int x = 0; x < field_.geom.n[0]; ++x) {
        const long cell = field_.geom.index(x, y, z);
        if (flags(cell) != flag::fluid) continue;
        bool outlet = false;
        for (int q = 1; q < L::Q; ++q)
          outlet |= flag::kind(flags(cell - field_.geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)))) == flag::outlet;
        if (!outlet) continue;
        slot[cell] = static_cast<int>(cells.size());
        cells.push_back(cell);
      }
  outlet_cells_ = to_device("outlet_cells", cells);
  outlet_row_start_ = to_device("outlet_row_start", row_start);
  outlet_slot_ = DeviceView<int*>("outlet_slot", slot.size());
  Kokkos::deep_copy(outlet_slot_, Kokkos::View<const int*, Kokkos::HostSpace>(slot.data(), slot.size()));
  outlet_post_ = DeviceView<Real**>("outlet_post", L::Q, cells.size());
}

template <class L, class Real>
void Block<L, Real>::load_canonical(const Populations<Real>& natural) {
  cur_ = 0;
  // Copies first so that slots no step writes (solid cells, padding) hold defined values.
  if ((kernel_ == StreamingKernel::Merged || kernel_ == StreamingKernel::MergedAA) && field_.storage.soa()) {
    // First touch of each slab's planes by the thread that sweeps them.
    const auto a = f_[0], b = f_[1];
    const bool two = two_natural_lattices();
    const MergedSchedule s = merged_schedule(field_.geom, L::D, merge_steps_, tile_);
    const int slabs = s.slabs > 0 ? s.slabs : 1;
    const long plane = field_.geom.slab, planes = field_.geom.cells_alloc / field_.geom.slab, qstride = field_.geom.qstride;
    Kokkos::parallel_for(
        "boreas::lbm::merged_first_touch", Kokkos::RangePolicy<ExecSpace>(0, slabs), KOKKOS_LAMBDA(const int i) {
          const long lo = i * planes / slabs * plane, hi = (i + 1) * planes / slabs * plane;
          for (int q = 0; q < L::Q; ++q)
            for (long c = q * qstride + lo; c < q * qstride + hi; ++c) {
              a.data(c) = natural.data(c);
              if (two) b.data(c) = natural.data(c);
            }
        });
  } else {
    Kokkos::deep_copy(f_[0].data, natural.data);
    if (f_[1].data.extent(0) > 0) Kokkos::deep_copy(f_[1].data, natural.data);
  }
  const auto f = f_[0];
  const auto flags = DeviceView<const std::uint8_t*>(field_.flags);
  swap_links_open_ = false;
  if (two_natural_lattices()) {
    layout_ = Layout::Natural;
  } else if (aa_pattern()) {
    layout_ = Layout::Reversed;
    Kokkos::parallel_for(
        "boreas::lbm::to_reversed", Kokkos::RangePolicy<ExecSpace>(0, field_.geom.cells_alloc),
        KOKKOS_LAMBDA(const long cell) {
          static_for<L::Q>([&](auto qc) {
            constexpr int q = decltype(qc)::value;
            f(opposite<L>(q), cell) = natural(q, cell);
          });
        });
  } else {
    layout_ = Layout::Streamed;
    const DenseGeometry g = field_.geom;
    const CellMap map = field_.map;
    const auto bc = physics_.bc;
    const auto params = physics_.params;
    for_each_interior_cell("boreas::lbm::to_streamed", field_.geom, KOKKOS_LAMBDA(const long cell) {
      if (flags(cell) != flag::fluid) return;
      const auto own_post = [&](int k) { return natural(k, cell); };
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        const long down = neighbour<L>(g, cell, q);
        const std::uint8_t fl = flags(down);
        if (fl == flag::fluid) {
          f(q, map.image(down)) = natural(q, cell);
        } else {
          f(q, down) = natural(q, cell);
          f(opposite<L>(q), cell) = incoming_from_boundary<L, opposite<L>(q)>(fl, own_post, bc, params);
        }
      });
    });
  }
}

template <class L, class Real>
Populations<Real> Block<L, Real>::canonical() const {
  if (layout_ == Layout::Natural) return f_[cur_];
  Populations<Real> natural("canonical_populations", field_.storage);
  const auto f = f_[cur_];
  const auto flags = DeviceView<const std::uint8_t*>(field_.flags);
  if (layout_ == Layout::Reversed) {
    for_each_interior_cell("boreas::lbm::from_reversed", field_.geom, KOKKOS_LAMBDA(const long cell) {
      if (flags(cell) != flag::fluid) return;
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        natural(q, cell) = f(opposite<L>(q), cell);
      });
    });
  } else {
    const StreamedReadout<L, Real> readout{f, flags, field_.map};
    for_each_interior_cell("boreas::lbm::from_streamed", field_.geom, KOKKOS_LAMBDA(const long cell) {
      if (flags(cell) != flag::fluid) return;
      for (int q = 0; q < L::Q; ++q) natural(q, cell) = readout(q, cell);
    });
  }
  return natural;
}

template <class L, class Real>
void Block<L, Real>::collide_stream(const std::array<int, 3>& lo, const std::array<int, 3>& hi) {
  if (!two_natural_lattices())
    throw Error("collide_stream on a sub-box needs the ab_pull kernel; use collide_stream_all()");
  const PullGather<L, Real> gather{f_[cur_], field_.flags, field_.geom, physics_.bc, physics_.params};
  const Populations<Real> dst = f_[cur_ ^ 1];
  dispatch_collision(physics_.collision, [&](auto collision) {
    using C = decltype(collision);
    for_each_cell("boreas::lbm::pull", field_.geom, lo, hi, PullStep<L, Real, C>{gather, dst});
  });
}

template <class L, class Real>
void Block<L, Real>::collide_stream_all() {
  if (two_natural_lattices())
    collide_stream({0, 0, 0}, {field_.geom.n[0], field_.geom.n[1], field_.geom.n[2]});
  else
    step_in_place();
}

template <class L, class Real>
void Block<L, Real>::finish_step() {
  if (two_natural_lattices()) cur_ ^= 1;
}

template <class L, class Real>
void Block<L, Real>::advance(long steps) {
  if (kernel_ == StreamingKernel::Merged) {
    const long groups = steps / merge_steps_;
    advance_merged(groups);
    for (long s = groups * merge_steps_; s < steps; ++s) pull_step();
    return;
  }
  if (kernel_ == StreamingKernel::MergedAA) {
    const long groups = steps / merge_steps_;
    advance_merged_aa(groups);
    for (long s = groups * merge_steps_; s < steps; ++s) step_in_place();
    return;
  }
  for (long s = 0; s < steps; ++s) {
    if (kernel_ == StreamingKernel::ABPull) fill_ghosts<L>(periodic_, f_[cur_], periodic_.pulled);
    collide_stream_all();
    finish_step();
  }
}

template <class L, class Real>
void Block<L, Real>::pull_step() {
  fill_ghosts<L>(periodic_, f_[cur_], periodic_.pulled);
  collide_stream({0, 0, 0}, {field_.geom.n[0], field_.geom.n[1], field_.geom.n[2]});
  cur_ ^= 1;
}

// The slab form runs on host backends only (one slab per thread); a block too thin for slabs
// takes single pull steps.
template <class L, class Real>
void Block<L, Real>::advance_merged(long groups) {
  if (merge_tiles_) {
    advance_merged_tiles(groups, false);
    return;
  }
  const MergedSchedule s = merged_schedule(field_.geom, L::D, merge_steps_, tile_);
  if (!exec_is_host || s.slabs == 0) {
    for (long i = 0; i < groups * merge_steps_; ++i) pull_step();
    return;
  }
  fill_ghosts<L>(periodic_, f_[cur_], periodic_.pulled);
  dispatch_collision(physics_.collision, [&](auto collision) {
    using C = decltype(collision);
    const PullStep<L, Real, C> from0{PullGather<L, Real>{f_[0], field_.flags, field_.geom, physics_.bc, physics_.params}, f_[1]};
    const PullStep<L, Real, C> from1{PullGather<L, Real>{f_[1], field_.flags, field_.geom, physics_.bc, physics_.params}, f_[0]};
    const MergedRows<L, Real, C> rows{{from0, from1}, row_ghosts_};
    for (long g = 0; g < groups; ++g) {
      merged_sweep(s, rows, cur_);
      cur_ = (cur_ + s.k) & 1;
    }
  });
}

// Like merged<k>'s slab form; each sweep starts with the step kind the layout calls for. A sweep
// that ends with local steps has filled the ghosts and saved the outlet cells row by row; any
// other reversed state (a start, a restore, a single step) gets both as a single neighbour step
// does.
template <class L, class Real>
void Block<L, Real>::advance_merged_aa(long groups) {
  const MergedSchedule s = merged_schedule(field_.geom, L::D, merge_steps_, tile_);
  if (!exec_is_host || s.slabs == 0) {
    for (long i = 0; i < groups * merge_steps_; ++i) step_in_place();
    return;
  }
  const auto f = f_[0];
  dispatch_collision(physics_.collision, [&](auto collision) {
    using C = decltype(collision);
    const MergedAARows<L, Real, C> rows{AALocalStep<L, Real, C>{f, field_.flags, field_.geom, physics_.params},
                                        AANeighbourStep<L, Real, C>{f, field_.flags, field_.geom, physics_.bc, physics_.params, outlet_slot_, outlet_post_},
                                        aa_fill_,
                                        aa_drain_,
                                        outlet_row_start_,
                                        outlet_cells_,
                                        outlet_post_};
    bool rows_prepared = false;
    for (long g = 0; g < groups; ++g) {
      const int first = layout_ == Layout::Reversed ? 1 : 0, last = (first + s.k - 1) & 1;
      if (first == 1 && !rows_prepared) prepare_aa_neighbour_step();
      merged_sweep(s, rows, first);
      layout_ = last == 1 ? Layout::Streamed : Layout::Reversed;
      rows_prepared = last == 0;
    }
  });
}

template <class L, class Real>
void Block<L, Real>::merged_sweep_from_ghosts() {
  if (kernel_ != StreamingKernel::Merged) throw Error("merged_sweep_from_ghosts needs a merged<k> kernel");
  for (int d = 0; d < L::D; ++d)
    if (field_.geom.g[d] < merge_steps_)
      throw Error("merged" + std::to_string(merge_steps_) + " from ghosts needs " + std::to_string(merge_steps_) +
                  " ghost layers; the block has " + std::to_string(field_.geom.g[d]));
  advance_merged_tiles(1, true);
}

// Every sweep reads lattice cur_ and writes the other one, whatever k.
template <class L, class Real>
void Block<L, Real>::advance_merged_tiles(long groups, bool from_ghosts) {
  const TileSchedule s = tile_schedule(field_.geom, L::D, merge_steps_, tile_);
  int wrap[3];
  for (int d = 0; d < 3; ++d) wrap[d] = from_ghosts ? 0 : field_.map.periodic[d];
  dispatch_collision(physics_.collision, [&](auto collision) {
    using C = decltype(collision);
    using Tiles = MergedTiles<L, Real, C>;
    const std::size_t bytes = Tiles::scratch_bytes(s);
    const int level = bytes <= std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)) ? 0 : 1;
    const auto policy = Kokkos::TeamPolicy<ExecSpace>(s.league(), Kokkos::AUTO)
                            .set_scratch_size(level, Kokkos::PerTeam(bytes));
    for (long g = 0; g < groups; ++g) {
      Kokkos::parallel_for("boreas::lbm::merged_tiles", policy,
                           Tiles{f_[cur_], f_[cur_ ^ 1], field_.flags, field_.geom, {wrap[0], wrap[1], wrap[2]}, physics_.bc, physics_.params, s, level});
      cur_ ^= 1;
    }
  });
}

// Before an AA neighbour step: ghost slots it gathers from (reversed layout), and the outlet
// cells' own post-collision values, which neighbours overwrite during the step (AAStep.hpp).
template <class L, class Real>
void Block<L, Real>::prepare_aa_neighbour_step() {
  const auto f = f_[0];
  fill_ghosts<L>(periodic_, f, periodic_.pushed);
  const auto cells = outlet_cells_;
  const auto post = outlet_post_;
  Kokkos::parallel_for(
      "boreas::lbm::aa_save_outlet", Kokkos::RangePolicy<ExecSpace>(0, cells.extent(0)), KOKKOS_LAMBDA(const long i) {
        for (int q = 0; q < L::Q; ++q) post(q, i) = f(opposite<L>(q), cells(i));
      });
}

// One whole step of the variants other than ab_pull (ab_push counts: its ghosts are drained
// inside the step). Device lambdas stay outside the generic collision lambda (nvcc forbids them
// there); the steps themselves are functors.
template <class L, class Real>
void Block<L, Real>::step_in_place() {
  const DeviceView<const std::uint8_t*> flags = field_.flags;
  const bool aa_neighbour = aa_pattern() && layout_ == Layout::Reversed;
  if (aa_neighbour) prepare_aa_neighbour_step();
  dispatch_collision(physics_.collision, [&](auto collision) {
    using C = decltype(collision);
    switch (kernel_) {
      case StreamingKernel::ABPush:
        for_each_interior_cell("boreas::lbm::push", field_.geom,
                               PushStep<L, Real, C>{f_[cur_], f_[cur_ ^ 1], flags, field_.geom, physics_.bc, physics_.params});
        break;
      case StreamingKernel::AA:
      case StreamingKernel::MergedAA:
        if (aa_neighbour)
          for_each_interior_cell("boreas::lbm::aa_neighbour", field_.geom,
                                 AANeighbourStep<L, Real, C>{f_[0], flags, field_.geom, physics_.bc, physics_.params, outlet_slot_, outlet_post_});
        else
          for_each_interior_cell("boreas::lbm::aa_local", field_.geom, AALocalStep<L, Real, C>{f_[0], flags, field_.geom, physics_.params});
        break;
      case StreamingKernel::SwapPrism:
        swap_prism_sweep(SwapRow<L, Real, C>{f_[0], flags, field_.geom, physics_.bc, physics_.params}, tile_);
        break;
      default:
        swap_sweep(SwapRow<L, Real, C>{f_[0], flags, field_.geom, physics_.bc, physics_.params});
    }
  });
  switch (kernel_) {
    case StreamingKernel::ABPush:
      drain_ghosts<L>(periodic_, f_[cur_ ^ 1]);
      cur_ ^= 1;
      break;
    case StreamingKernel::AA:
    case StreamingKernel::MergedAA:
      if (aa_neighbour) drain_ghosts<L>(periodic_, f_[0]);
      layout_ = aa_neighbour ? Layout::Streamed : Layout::Reversed;
      break;
    default:
      swap_periodic<L>(periodic_, f_[0], field_.geom);
      swap_links_open_ = true;
  }
}

template <class L, class Real>
void Block<L, Real>::fill_periodic_ghosts(const Populations<Real>& natural) const {
  fill_ghosts<L>(periodic_, natural, periodic_.pulled);
}

template <class L, class Real>
void Block<L, Real>::save_state() {
  const auto natural = canonical();
  if (saved_.extent(0) != natural.data.extent(0))
    saved_ = DeviceView<Real*>(Kokkos::view_alloc("saved_populations", Kokkos::WithoutInitializing),
                               natural.data.extent(0));
  Kokkos::deep_copy(saved_, natural.data);
}

template <class L, class Real>
void Block<L, Real>::restore_state() {
  Populations<Real> natural;
  natural.data = saved_;
  natural.layout = field_.storage;
  load_canonical(natural);
}

}  // namespace boreas
