#pragma once
// Sparse fluid-only storage (seed 002, ../shared/PAPERS.md C): a rank stores the fluid cells of its
// blocks only, one array of cells per direction (slot (q, i) at q * stride + i), and per cell and
// moving direction q a 32-bit index of its upwind fluid cell x_i - c_q on this rank (periodic
// axes wrapped), or `no_cell` where the link is closed on the cell itself: by a wall (halfway
// bounce-back reads the cell's own slot) or by another rank. Such a remote link has no halo
// site: the cell's own slot of that link is both what the exchange sends (the population leaving
// towards the other rank) and where it receives the one arriving (comm/SparseLinks.hpp), so
// only populations of fluid-fluid links crossing a rank boundary travel.
//
// Cells are stored block by block of the rank (slot order), z, y, x order within a block, the
// cells with a remote link last ([inner, cells)): the exchange overlaps the inner cells' step.
// Observables here match the dense storage's (FieldOps.hpp) bit for bit on the same state.
#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>

#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "lbm/field/CellHash.hpp"
#include "lbm/physics/ChapmanEnskog.hpp"

namespace boreas {

struct SparseField {
  static constexpr std::uint32_t no_cell = 0xffffffffu;
  long cells = 0;   // fluid cells stored
  long inner = 0;   // cells [0, inner) have no remote link
  long stride = 0;  // slots per direction: cells padded to 64 bytes
  int Q = 0;
  DeviceView<std::uint32_t*> upwind;  // (q - 1) * cells + i for q = 1..Q-1: index of x_i - c_q, or no_cell
  DeviceView<long long*> global;      // global linear index (x fastest) of each cell

  KOKKOS_INLINE_FUNCTION long slot(int q, long i) const { return q * stride + i; }
  KOKKOS_INLINE_FUNCTION std::uint32_t upwind_of(int q, long i) const { return upwind((q - 1) * cells + i); }
  long lattice_size() const { return Q * stride; }
  // Device bytes of the index tables (a lattice adds Q * stride reals).
  long long table_bytes() const {
    return static_cast<long long>(upwind.extent(0)) * sizeof(std::uint32_t) + cells * long(sizeof(long long));
  }
};

// Incoming populations of cell i from a lattice in natural layout (slot (q, x) holds f*_q(x)):
// f*_q of the upwind cell, or the cell's own slot (opposite(q), i), which is the bounce-back of a
// wall link and, after an exchange, the population a remote link received.
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void sparse_pull_gather(const SparseField& s, const DeviceView<const Real*>& f, long i,
                                                    Real (&v)[L::Q]) {
  v[0] = f(i);
  static_for<L::Q - 1>([&](auto qc) {
    constexpr int q = decltype(qc)::value + 1;
    const std::uint32_t j = s.upwind_of(q, i);
    v[q] = j != SparseField::no_cell ? f(s.slot(q, j)) : f(s.slot(opposite<L>(q), i));
  });
}

// The observables of FieldOps.hpp over a sparse canonical lattice (natural layout).
template <class L, class Real>
std::uint64_t sparse_fields_hash(const SparseField& s, const DeviceView<const Real*>& f) {
  std::uint64_t hash = 0;
  Kokkos::parallel_reduce(
      "boreas::lbm::sparse_fields_hash", Kokkos::RangePolicy<ExecSpace>(0, s.cells),
      KOKKOS_LAMBDA(const long i, std::uint64_t& acc) {
        acc += field_detail::cell_hash<L::Q>(static_cast<std::uint64_t>(s.global(i)),
                                             [&](int q) { return f(s.slot(q, i)); });
      },
      hash);
  return hash;
}

template <class L, class Real>
ExactSum sparse_total_mass(const SparseField& s, const DeviceView<const Real*>& f) {
  ExactSum mass;
  Kokkos::parallel_reduce(
      "boreas::lbm::sparse_mass", Kokkos::RangePolicy<ExecSpace>(0, s.cells),
      KOKKOS_LAMBDA(const long i, ExactSum& acc) {
        double m = 0;
        for (int q = 0; q < L::Q; ++q) m += double(f(s.slot(q, i)));
        acc.add(m);
      },
      mass);
  return mass;
}

// The smallest global index of a cell whose density lies outside (lo, hi) or is NaN; LLONG_MAX
// when none does (check_health's rule).
template <class L, class Real>
long long sparse_first_bad_cell(const SparseField& s, const DeviceView<const Real*>& f, double lo, double hi) {
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "boreas::lbm::sparse_check", Kokkos::RangePolicy<ExecSpace>(0, s.cells),
      KOKKOS_LAMBDA(const long i, long long& acc) {
        Real rho = 0;
        for (int q = 0; q < L::Q; ++q) rho += f(s.slot(q, i));
        if (!(rho > Real(lo) && rho < Real(hi)) && s.global(i) < acc) acc = s.global(i);
      },
      Kokkos::Min<long long>(first));
  return first;
}

// Density and velocity of every cell (rows of `rho_u`: rho, ux, uy, uz) from the moments of its
// own canonical (post-collision) populations, as device_moments on dense storage.
template <class L, class Real>
void sparse_moments(const SparseField& s, const DeviceView<const Real*>& f, const CollisionParams<Real>& params,
                    const DeviceView<double* [4]>& rho_u) {
  Kokkos::parallel_for(
      "boreas::lbm::sparse_moments", Kokkos::RangePolicy<ExecSpace>(0, s.cells), KOKKOS_LAMBDA(const long i) {
        Real v[L::Q], rho, j[3];
        for (int q = 0; q < L::Q; ++q) v[q] = f(s.slot(q, i));
        post_collision_moments<L>(v, params.force, rho, j);
        rho_u(i, 0) = rho;
        for (int d = 0; d < 3; ++d) rho_u(i, 1 + d) = j[d] / rho;
      });
}

}  // namespace boreas
