#pragma once
// Conversions between the canonical state (natural layout) and the layouts the schemes keep
// (lbm/scheme/StreamedLayout.hpp), over the fluid cells of a field.
#include "lbm/field/Field.hpp"
#include "lbm/scheme/MergedStep.hpp"
#include "lbm/scheme/StreamedLayout.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

// lattices <- natural (`second` may be empty). The merged schemes' slab sweeps give each thread
// its slabs' planes; copying slab by slab makes that thread touch them first (NUMA placement).
template <class L, class Real>
void copy_canonical(const Field& field, const Populations<Real>& natural, const Populations<Real>& first,
                    const Populations<Real>& second, int slab_steps, int tile) {
  const bool two = second.data.extent(0) > 0;
  if (slab_steps < 2 || !field.storage.soa()) {
    Kokkos::deep_copy(first.data, natural.data);
    if (two) Kokkos::deep_copy(second.data, natural.data);
    return;
  }
  const DenseGeometry& g = field.geom;
  const MergedSchedule s = merged_schedule(g, L::D, slab_steps, tile);
  const int slabs = s.slabs > 0 ? s.slabs : 1;
  const long plane = g.slab, planes = g.cells_alloc / g.slab, qstride = g.qstride;
  Kokkos::parallel_for(
      "boreas::lbm::merged_first_touch", Kokkos::RangePolicy<ExecSpace>(0, slabs), KOKKOS_LAMBDA(const int i) {
        const long lo = i * planes / slabs * plane, hi = (i + 1) * planes / slabs * plane;
        for (int q = 0; q < L::Q; ++q)
          for (long c = q * qstride + lo; c < q * qstride + hi; ++c) {
            first.data(c) = natural.data(c);
            if (two) second.data(c) = natural.data(c);
          }
      });
}

// f (holding a copy of natural) -> reversed layout: slot (opposite(q), x) <- f*_q(x).
template <class L, class Real>
void to_reversed(const Field& field, const Populations<Real>& natural, const Populations<Real>& f) {
  Kokkos::parallel_for(
      "boreas::lbm::to_reversed", Kokkos::RangePolicy<ExecSpace>(0, field.geom.cells_alloc),
      KOKKOS_LAMBDA(const long cell) {
        static_for<L::Q>([&](auto qc) {
          constexpr int q = decltype(qc)::value;
          f(opposite<L>(q), cell) = natural(q, cell);
        });
      });
}

// f (holding a copy of natural) -> streamed layout, boundary links closed by the rules.
template <class L, class Real>
void to_streamed(const Field& field, const CellPhysics<Real>& physics, const Populations<Real>& natural,
                 const Populations<Real>& f) {
  const DeviceView<const std::uint8_t*> flags = field.flags;
  const DenseGeometry g = field.geom;
  const CellMap map = field.map;
  const auto bc = physics.bc;
  const auto params = physics.params;
  for_each_interior_cell("boreas::lbm::to_streamed", g, KOKKOS_LAMBDA(const long cell) {
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
        f(opposite<L>(q), cell) = incoming_from_boundary<L, opposite<L>(q)>(fl, own_post, bc, params,
                                                                           [&](int(&p)[3]) { g.position(cell, p); });
      }
    });
  });
}

// The canonical state of a reversed-layout lattice, in a fresh lattice (fluid cells).
template <class L, class Real>
Populations<Real> from_reversed(const Field& field, const Populations<Real>& f) {
  Populations<Real> natural("canonical_populations", field.storage);
  const DeviceView<const std::uint8_t*> flags = field.flags;
  for_each_interior_cell("boreas::lbm::from_reversed", field.geom, KOKKOS_LAMBDA(const long cell) {
    if (flags(cell) != flag::fluid) return;
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      natural(q, cell) = f(opposite<L>(q), cell);
    });
  });
  return natural;
}

// The canonical state of a streamed-layout lattice, in a fresh lattice (fluid cells).
template <class L, class Real>
Populations<Real> from_streamed(const Field& field, const Populations<Real>& f) {
  Populations<Real> natural("canonical_populations", field.storage);
  const DeviceView<const std::uint8_t*> flags = field.flags;
  const StreamedReadout<L, Real> readout{f, flags, field.map};
  for_each_interior_cell("boreas::lbm::from_streamed", field.geom, KOKKOS_LAMBDA(const long cell) {
    if (flags(cell) != flag::fluid) return;
    for (int q = 0; q < L::Q; ++q) natural(q, cell) = readout(q, cell);
  });
  return natural;
}

}  // namespace boreas
