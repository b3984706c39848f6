#pragma once
// Storage layouts of the streaming variants and the conversions between them.
//
//   natural   slot (q, x) holds f*_q(x), the post-collision population of x (ab_pull, and the
//             canonical state every variant is hashed, checked and saved in)
//   reversed  slot (opposite(q), x) holds f*_q(x) (AA after its local step)
//   streamed  slot (q, x) holds the incoming population f_q(x) of the next step
//             (ab_push, swap, AA after its neighbour step)
//
// In the streamed layout f*_q(x) sits in slot (q, x + c_q). When x + c_q is not fluid, its
// population slot (q, x + c_q) is touched by no other cell, so every variant parks f*_q(x) there
// ("shadow slot") next to the boundary rule's result in (opposite(q), x): the canonical state stays
// recoverable bit for bit even when the rule (moving wall, outlet) cannot be inverted.
// Periodic links go through the ghost layer: a variant that pushes into a fluid ghost copies the
// value to the ghost's image afterwards; readouts look through the image.
#include <Kokkos_Core.hpp>

#include "lbm/physics/Boundary.hpp"
#include "lbm/field/DenseField.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

// Writes the post-collision populations `f` of fluid cell x into a streamed-layout lattice:
// f*_q goes to slot (q, x + c_q) (a fluid ghost's slot is copied to its image later), and a
// non-fluid x + c_q also closes the link: slot (opposite(q), x) gets the boundary rule's value.
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void push_streamed(const Populations<Real>& dst,
                                               const DeviceView<const std::uint8_t*>& flags,
                                               const DenseGeometry& g, long cell,
                                               const Real (&f)[L::Q], const BoundaryValues<Real>& bc,
                                               const CollisionParams<Real>& params) {
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const long down = neighbour<L>(g, cell, q);
    dst(q, down) = f[q];
    const std::uint8_t fl = flags(down);
    if (fl != flag::fluid) {
      const auto own_post = [&](int k) { return f[k]; };
      dst(opposite<L>(q), cell) = incoming_from_boundary<L, opposite<L>(q)>(fl, own_post, bc, params,
                                                                             [&](int(&p)[3]) { g.position(cell, p); });
    }
  });
}

// f*_q(x) of a streamed-layout lattice (see the file comment).
template <class L, class Real>
struct StreamedReadout {
  Populations<Real> f;
  DeviceView<const std::uint8_t*> flags;
  CellMap map;

  KOKKOS_INLINE_FUNCTION Real operator()(int q, long cell) const {
    const long down = cell + map.geom.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2));
    return f(q, flags(down) == flag::fluid ? map.image(down) : down);
  }
};

// Links of a ghost cell p (global coordinates) into the fluid cells of `box`, as masks with bit q
// set: pushed when the cell p - c_q pushes population q into p (a push step writes slot (q, p));
// pulled when the cell p + c_q pulls population q from p (a pull step reads slot (q, p)).
template <class L>
std::uint32_t links_into_box(const Box& box, const std::array<int, 3>& p, const DomainGeometry& domain, int side) {
  std::uint32_t links = 0;
  for (int q = 0; q < L::Q; ++q) {
    const int x = p[0] + side * L::c(q, 0), y = p[1] + side * L::c(q, 1), z = p[2] + side * L::c(q, 2);
    if (box.contains(x, y, z) && domain.flag_at(x, y, z) == flag::fluid) links |= std::uint32_t(1) << q;
  }
  return links;
}
// Populations q of cell p that a free-slip face reflects into a cell of `box`.
template <class L>
std::uint32_t reflected_into_box(const Box& box, const std::array<int, 3>& p, const DomainGeometry& domain) {
  std::uint32_t links = 0;
  if (!domain.free_slip()) return links;
  for (int q = 0; q < L::Q; ++q)
    if (auto x = domain.reflected_cell(p, {L::c(q, 0), L::c(q, 1), L::c(q, 2)}))
      if (box.contains((*x)[0], (*x)[1], (*x)[2]) && domain.flag_at((*x)[0], (*x)[1], (*x)[2]) == flag::fluid)
        links |= std::uint32_t(1) << q;
  return links;
}
template <class L>
std::uint32_t pushed_populations(const Box& box, const std::array<int, 3>& p, const DomainGeometry& domain) {
  return links_into_box<L>(box, p, domain, -1);
}
// Pulled also: the populations a free-slip face reflects into the box (PullStep.hpp), and all of
// them when the SGS model takes the cells' velocities (CSM) or the quadratic wall rule reads cells
// two links away (lbm/physics/Boundary.hpp).
template <class L>
std::uint32_t pulled_populations(const Box& box, const std::array<int, 3>& p, const DomainGeometry& domain) {
  if (domain.velocity_gradients() || domain.quadratic_walls()) return (std::uint32_t(1) << L::Q) - 1;
  return links_into_box<L>(box, p, domain, 1) | reflected_into_box<L>(box, p, domain);
}

// Periodic ghost list of a block: fluid ghosts, the owned cells they mirror, and per ghost g the
// populations its links use, as masks with bit q set: `pulled` when g + c_q is an owned fluid cell
// (it gathers slot (q, g) in a pull step), `pushed` when g - c_q is one (it writes slot (q, g) in
// a push step). Precomputed, so that the copies below test a bit instead of finding coordinates.
struct PeriodicGhosts {
  DeviceView<long*> ghost, image;
  DeviceView<std::uint32_t*> pulled, pushed;
  long size() const { return static_cast<long>(ghost.extent(0)); }
};

// f(q, to(k)) <- f(q, from(k)) for the directions q in mask(k).
template <class L, class Real>
void copy_masked_slots(const char* label, const DeviceView<long*>& to, const DeviceView<long*>& from,
                       const DeviceView<std::uint32_t*>& mask, const Populations<Real>& f) {
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace>(0, long(to.extent(0))), KOKKOS_LAMBDA(const long k) {
        const long t = to(k), s = from(k);
        const std::uint32_t m = mask(k);
        static_for<L::Q>([&](auto qc) {
          constexpr int q = decltype(qc)::value;
          if (m >> q & 1) f(q, t) = f(q, s);
        });
      });
}

// Ghost slots <- image slots for the directions in `mask` (before a step that gathers through the
// ghosts: p.pulled in the natural layout; p.pushed in AA's reversed layout, where slot q of a
// ghost holds the population its neighbour g - c_q gathers).
template <class L, class Real>
void fill_ghosts(const PeriodicGhosts& p, const Populations<Real>& f, const DeviceView<std::uint32_t*>& mask) {
  copy_masked_slots<L>("boreas::lbm::fill_ghosts", p.ghost, p.image, mask, f);
}

// Image slots <- ghost slots for the directions an owned fluid cell pushed into the ghost
// (after a step that scatters into the ghosts).
template <class L, class Real>
void drain_ghosts(const PeriodicGhosts& p, const Populations<Real>& f) {
  copy_masked_slots<L>("boreas::lbm::drain_ghosts", p.image, p.ghost, p.pushed, f);
}

}  // namespace boreas
