#pragma once
// Swap streaming (Mattila et al. 2007; Latt 2007; Fu's thesis ch. 5, seed 004): one lattice in
// the streamed layout, one ordered sweep. A cell collides its own incoming populations in place,
// keeps each population bound for a later neighbour in the reversed slot, and swaps with every
// earlier neighbour N = P + c_a: P takes N's waiting population, N receives P's.
//
// The scheme needs, per opposite pair, one member a whose neighbour P + c_a is visited earlier.
// The lattices pair c_q with c_{q+H}; the sweep below walks rows along x (unit stride) with
// rows ordered by y + 2 z, so a(p) is the member whose last non-zero component (z, else y, else
// x) is negative. Rows with equal y + 2 z share no link and run in parallel (a row wavefront;
// on GPUs one thread per row is correct but uncoalesced).
//
// Links closed by a boundary rule are closed at once from the cell's fresh post-collision
// populations (the shadow-slot convention of StreamedLayout.hpp). Links across a periodic boundary
// cannot be swapped in order; the cell leaves its part in the ghost slot and `swap_periodic`
// completes the exchange after the sweep.
#include <Kokkos_Core.hpp>

#include "lbm/scheme/StreamedLayout.hpp"

namespace boreas {

// The member of pair p (1 <= p <= H) whose neighbour is visited earlier by the swap sweep.
template <class L>
KOKKOS_INLINE_FUNCTION constexpr int swap_backward(int p) {
  const int last = L::c(p, 2) != 0 ? L::c(p, 2) : (L::c(p, 1) != 0 ? L::c(p, 1) : L::c(p, 0));
  return last < 0 ? p : p + L::H;
}

template <class L, class Real, class Collision>
struct SwapRow {
  Populations<Real> f;
  DeviceView<const std::uint8_t*> flags;
  DenseGeometry geom;
  BoundaryValues<Real> bc;
  CollisionParams<Real> params;

  // The row (y, z), x from 0 to n_x - 1.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(int y, int z) const {
    const long row = geom.index(0, y, z);
    for (int x = 0; x < geom.n[0]; ++x) {
      const long cell = row + x;
      if (flags(cell) != flag::fluid) continue;
      Real v[L::Q];
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        v[q] = f(q, cell);
      });
      Collision::template collide<L>(v, params);
      const auto own_post = [&](int k) { return v[k]; };
      const auto where = [&](int(&p)[3]) { geom.position(cell, p); };
      f(0, cell) = v[0];
      static_for<L::H>([&](auto pc) {
        constexpr int a = swap_backward<L>(decltype(pc)::value + 1), b = opposite<L>(a);
        // Slot a waits for the later neighbour M = P + c_b unless a boundary closes the link now.
        const long later = neighbour<L>(geom, cell, b);
        const std::uint8_t fl_later = flags(later);
        if (fl_later == flag::fluid) {
          f(a, cell) = v[b];
        } else {
          f(b, later) = v[b];
          f(a, cell) = incoming_from_boundary<L, a>(fl_later, own_post, bc, params, where);
        }
        // Swap with the earlier neighbour N = P + c_a.
        const long earlier = neighbour<L>(geom, cell, a);
        const std::uint8_t fl_earlier = flags(earlier);
        if (fl_earlier != flag::fluid) {
          f(b, cell) = incoming_from_boundary<L, b>(fl_earlier, own_post, bc, params, where);
        } else if (owned(x + L::c(a, 0), y + L::c(a, 1), z + L::c(a, 2))) {
          f(b, cell) = f(a, earlier);
        }
        f(a, earlier) = v[a];
      });
    }
  }

  KOKKOS_INLINE_FUNCTION bool owned(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x < geom.n[0] && y < geom.n[1] && z < geom.n[2];
  }
};

// One swap sweep of the whole block: waves of rows with y + 2 z = w.
template <class L, class Real, class Collision>
void swap_sweep(const SwapRow<L, Real, Collision>& rows) {
  const int ny = rows.geom.n[1], nz = rows.geom.n[2];
  for (int w = 0; w < ny + 2 * (nz - 1); ++w) {
    const int z_lo = w - ny + 1 > 0 ? (w - ny + 2) / 2 : 0, z_hi = w / 2 < nz - 1 ? w / 2 : nz - 1;
    Kokkos::parallel_for(
        "boreas::lbm::swap_wave", Kokkos::RangePolicy<ExecSpace>(z_lo, z_hi + 1),
        KOKKOS_LAMBDA(const int z) { rows(w - 2 * z, z); });
  }
}

// Completes the links across periodic boundaries after a sweep: for an owned fluid P whose
// earlier neighbour N = P + c_a is a fluid ghost of image I (bit a of N's `pushed` mask), P
// receives I's waiting population and I receives the one P left in N.
template <class L, class Real>
void swap_periodic(const PeriodicGhosts& p, const Populations<Real>& f, const DenseGeometry& geom) {
  const auto ghost = p.ghost, image = p.image;
  const auto pushed = p.pushed;
  const long n = p.size();
  Kokkos::parallel_for(
      "boreas::lbm::swap_periodic", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const long k) {
        const std::uint32_t m = pushed(k);
        static_for<L::H>([&](auto pc) {
          constexpr int a = swap_backward<L>(decltype(pc)::value + 1), b = opposite<L>(a);
          if (!(m >> a & 1)) return;
          const long cell = ghost(k) - geom.shift(L::c(a, 0), L::c(a, 1), L::c(a, 2));
          f(b, cell) = f(a, image(k));
          f(a, image(k)) = f(a, ghost(k));
        });
      });
}

}  // namespace boreas
