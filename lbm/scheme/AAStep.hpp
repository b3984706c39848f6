#pragma once
// AA pattern (Bailey et al. 2009; seed 002): one lattice, two alternating step kinds.
//   local step     (streamed -> reversed): read the cell's own slots, collide, write each
//                  population into the opposite slot of the same cell.
//   neighbour step (reversed -> streamed): gather f*_q(x - c_q) from slot (opposite(q), x - c_q),
//                  collide, push f*_q(x) to slot (q, x + c_q) (StreamedLayout.hpp).
// Each cell of the neighbour step reads and writes the same set of slots, so both steps are
// race-free in place. One exception: an outlet rule needs all of the cell's own previous
// post-collision populations, and neighbours overwrite some of them during the step; those
// cells' values are saved beforehand (`saved_post`, indexed through `saved_slot`).
// On host backends both steps take whole rows, whose bulk runs go through the vectorised path of
// BulkRows.hpp (no boundary link there, so neither the outlet saves nor the boundary rules apply).
#include <Kokkos_Core.hpp>

#include "lbm/scheme/BulkRows.hpp"
#include "lbm/scheme/StreamedLayout.hpp"

namespace boreas {

// Chunk size of the in-place steps' bulk path: one cache line per direction (BulkRows.hpp).
constexpr int in_place_chunk_bytes = 64;

template <class L, class Real, class Collision>
struct AALocalStep {
  Populations<Real> f;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  CollisionParams<Real> params;
  // The same lattice again, for the per-cell form's stores: nvcc cannot tell that it is `f`, so it
  // computes each store's address after the collision instead of keeping the 19 load addresses
  // (the same slots) live through it. sm_90, D3Q19 BGK: 174 -> 132 registers in double, 128 -> 71
  // in float (perf/README.md).
  Populations<Real> out;

  AALocalStep(const Populations<Real>& lattice, const DeviceView<const std::uint8_t*>& flags_,
              const DenseGeometry& geom_, const CollisionParams<Real>& params_)
      : f(lattice), flags(flags_), geom(geom_), params(params_), out(lattice) {}

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const {
    if (flags(cell) != flag::fluid) return;
    Real v[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      v[q] = f(q, cell);
    });
    Collision::template collide<L>(v, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      out(opposite<L>(q), cell) = v[q];
    });
  }

  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    BulkRows<L, Real, Collision, in_place_chunk_bytes>::row(
        flags, geom, params, f.layout, first, count, [&](long cell) { (*this)(cell); },
        [&](auto qc) -> const Real* { return &f(decltype(qc)::value, first); },
        [&](auto qc) -> Real* { return &f(opposite<L>(decltype(qc)::value), first); });
  }
};

template <class L, class Real, class Collision>
struct AANeighbourStep {
  Populations<Real> f;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;
  DeviceView<const int*> saved_slot;  // per cell: column in saved_post, or -1
  DeviceView<const Real**> saved_post;  // (q, column): post-collision populations before the step
  // The bulk path's stores go through a second handle on the lattice, as AALocalStep's: a bulk
  // cell reads and writes the same 19 slots (sm_90, TRT D3Q19 float: 98 -> 87 registers).
  Populations<Real> out;

  AANeighbourStep(const Populations<Real>& lattice, const DeviceView<const std::uint8_t*>& flags_,
                  const DenseGeometry& geom_, const BoundaryValues<Real>& bc_, const CollisionParams<Real>& params_,
                  const DeviceView<const int*>& saved_slot_, const DeviceView<const Real**>& saved_post_)
      : f(lattice), flags(flags_), geom(geom_), bc(bc_), params(params_), saved_slot(saved_slot_),
        saved_post(saved_post_), out(lattice) {}

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const {
    if (flags(cell) != flag::fluid) return;
    Real v[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const long upwind = cell - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
      const std::uint8_t fl = flags(upwind);
      if (fl == flag::fluid) {
        v[q] = f(opposite<L>(q), upwind);
      } else {
        const int slot = saved_slot(cell);
        const auto own_post = [&](int k) { return slot >= 0 ? saved_post(k, slot) : f(opposite<L>(k), cell); };
        v[q] = incoming_from_boundary<L, q>(fl, own_post, bc, params, [&](int(&p)[3]) { geom.position(cell, p); });
      }
    });
    Collision::template collide<L>(v, params);
    push_streamed<L>(f, flags, geom, cell, v, bc, params);
  }

  // A cell whose neighbours are all fluid (devices, Traversal.hpp step_cell).
  KOKKOS_FORCEINLINE_FUNCTION bool in_bulk(long cell) const { return is_bulk_cell<L>(flags, geom, cell); }
  KOKKOS_FORCEINLINE_FUNCTION void bulk(long cell) const {
    Real v[L::Q];
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      v[q] = f(opposite<L>(q), cell - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
    });
    Collision::template collide<L>(v, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      out(q, neighbour<L>(geom, cell, q)) = v[q];
    });
  }

  KOKKOS_INLINE_FUNCTION void row(long first, int count) const {
    BulkRows<L, Real, Collision, in_place_chunk_bytes>::row(
        flags, geom, params, f.layout, first, count, [&](long cell) { (*this)(cell); },
        [&](auto qc) -> const Real* {
          constexpr int q = decltype(qc)::value;
          return &f(opposite<L>(q), first - geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
        },
        [&](auto qc) -> Real* {
          constexpr int q = decltype(qc)::value;
          return &f(q, first + geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2)));
        });
  }
};

}  // namespace boreas
