#pragma once
// The streaming kernels of the sparse storage (lbm/field/SparseField.hpp), fully indirect: every
// link goes through the cell's upwind index. The per-cell physics is the dense kernels' (the same
// gather order, collision and boundary rule), so the states are bitwise those of the dense
// storage.
//   pull  two lattices in natural layout: gather f*_q(x - c_q), collide, write slot (q, x). A link
//         closed on the cell reads its own slot (opposite(q), x): the wall's bounce-back, or what
//         the exchange put there for a remote link.
//   AA    one lattice (Bailey et al. 2009; seed 002). Local step: own slots in, opposite own slots
//         out (reversed layout). Neighbour step: gather from slot (opposite(q), x - c_q), push f*_q
//         to slot (q, x + c_q); a closed link gathers from and pushes to the cell's own slot
//         (q, x), so a remote link's slot again holds what leaves before the exchange and what
//         arrives after it.
// Between steps a lattice holds only its rank's own populations: each step begins with the
// exchange of its remote links (comm/SparseLinks.hpp), so checks, output and checkpoints read
// the canonical state as it is.
#include <Kokkos_Core.hpp>

#include "lbm/field/SparseField.hpp"
#include "lbm/physics/Collision.hpp"

namespace boreas {

template <class L, class Real, class Collision>
struct SparsePullStep {
  SparseField s;
  DeviceView<const Real*> src;
  DeviceView<Real*> dst;
  CollisionParams<Real> params;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long i) const {
    Real v[L::Q];
    sparse_pull_gather<L>(s, src, i, v);
    Collision::template collide<L>(v, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      dst(s.slot(q, i)) = v[q];
    });
  }
};

// Slots of cell i in AA's neighbour step: where population q arrives from (slot (opposite(q),
// x - c_q), or (q, x) on a closed link); f*_q(x) leaves to at[opposite(q)].
template <class L>
KOKKOS_FORCEINLINE_FUNCTION void sparse_aa_slots(const SparseField& s, long i, long (&at)[L::Q]) {
  at[0] = i;
  static_for<L::Q - 1>([&](auto qc) {
    constexpr int q = decltype(qc)::value + 1;
    const std::uint32_t j = s.upwind_of(q, i);
    at[q] = j != SparseField::no_cell ? s.slot(opposite<L>(q), j) : s.slot(q, i);
  });
}

template <class L, class Real, class Collision>
struct SparseAALocalStep {
  SparseField s;
  DeviceView<Real*> f;
  CollisionParams<Real> params;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long i) const {
    Real v[L::Q];
    static_for<L::Q>([&](auto qc) { v[decltype(qc)::value] = f(s.slot(decltype(qc)::value, i)); });
    Collision::template collide<L>(v, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f(s.slot(opposite<L>(q), i)) = v[q];
    });
  }
};

template <class L, class Real, class Collision>
struct SparseAANeighbourStep {
  SparseField s;
  DeviceView<Real*> f;
  CollisionParams<Real> params;

  KOKKOS_FORCEINLINE_FUNCTION void operator()(long i) const {
    long at[L::Q];
    sparse_aa_slots<L>(s, i, at);
    Real v[L::Q];
    static_for<L::Q>([&](auto qc) { v[decltype(qc)::value] = f(at[decltype(qc)::value]); });
    Collision::template collide<L>(v, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      f(at[opposite<L>(q)]) = v[q];
    });
  }
};

// Canonical (natural layout) <-> AA's layouts. After a local step slot (opposite(q), x) holds
// f*_q(x); after a neighbour step (before the exchange) f*_q(x) sits where it was pushed.
template <class L, class Real>
void sparse_from_aa(const SparseField& s, const DeviceView<const Real*>& f, bool reversed,
                    const DeviceView<Real*>& natural) {
  Kokkos::parallel_for(
      "boreas::lbm::sparse_from_aa", Kokkos::RangePolicy<ExecSpace>(0, s.cells), KOKKOS_LAMBDA(const long i) {
        long at[L::Q];
        sparse_aa_slots<L>(s, i, at);
        for (int q = 0; q < L::Q; ++q)
          natural(s.slot(q, i)) = f(reversed ? s.slot(opposite<L>(q), i) : at[opposite<L>(q)]);
      });
}

template <class L, class Real>
void sparse_to_reversed(const SparseField& s, const DeviceView<const Real*>& natural, const DeviceView<Real*>& f) {
  Kokkos::parallel_for(
      "boreas::lbm::sparse_to_reversed", Kokkos::RangePolicy<ExecSpace>(0, s.cells), KOKKOS_LAMBDA(const long i) {
        for (int q = 0; q < L::Q; ++q) f(s.slot(opposite<L>(q), i)) = natural(s.slot(q, i));
      });
}

}  // namespace boreas
