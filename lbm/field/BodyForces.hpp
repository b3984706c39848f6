#pragma once
// Forces of the fluid on solid bodies by momentum exchange (Ladd 1994; Krueger et al. 2017,
// §5.4.3). A link from fluid cell x to a body cell x + c_q is closed by halfway bounce-back, which
// sends f*_q(x) back as the incoming population opposite to q: the body takes the momentum
// 2 c_q f*_q(x) per step. Summed over the links, on the canonical state (post-collision, natural
// layout) that every streaming variant and storage converts to, so the force is the same for all
// of them; summed exactly (core/ExactSum.hpp), so it is the same on every decomposition too.
// Bodies: the deck's obstacles in order, then the voxel geometry (DomainGeometry::body_at).
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/Error.hpp"
#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

// The links of one lattice (a dense block's or a rank's sparse cells) into the bodies: the flat
// index of f*_q(x) in the lattice's data, q, and the body.
struct BodyLinks {
  DeviceView<long*> slot;
  DeviceView<std::uint8_t*> direction, body;
};

// Links of `cells` fluid cells: coords(i) gives cell i's global coordinates (or false when it is
// not a fluid cell to count), slot(q, i) the flat index of its population q.
template <class L, class Coords, class Slot>
BodyLinks body_links(const DomainGeometry& domain, long cells, const Coords& coords, const Slot& slot) {
  if (domain.bodies() > 256) throw Error("forces: " + std::to_string(domain.bodies()) + " bodies; at most 256 are told apart");
  std::vector<long> slots;
  std::vector<std::uint8_t> directions, bodies;
  std::array<int, 3> p{};
  for (long i = 0; i < cells; ++i) {
    if (!coords(i, p)) continue;
    for (int q = 1; q < L::Q; ++q) {
      const int body = domain.body_at(p[0] + L::c(q, 0), p[1] + L::c(q, 1), p[2] + L::c(q, 2));
      if (body < 0) continue;
      slots.push_back(slot(q, i));
      directions.push_back(std::uint8_t(q));
      bodies.push_back(std::uint8_t(body));
    }
  }
  return {to_device_view("boreas::body_link_slots", slots), to_device_view("boreas::body_link_directions", directions),
          to_device_view("boreas::body_link_bodies", bodies)};
}

// Adds the momentum the bodies take over one step to sums[3 * body + axis].
template <class L, class Real>
void add_body_forces(const BodyLinks& links, const DeviceView<Real*>& canonical, std::vector<ExactSum>& sums) {
  DeviceView<int[L::Q][3]> c("boreas::lattice_velocities");
  {
    auto host = Kokkos::create_mirror_view(c);
    for (int q = 0; q < L::Q; ++q)
      for (int d = 0; d < 3; ++d) host(q, d) = L::c(q, d);
    Kokkos::deep_copy(c, host);
  }
  const auto slot = links.slot;
  const auto direction = links.direction, body = links.body;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const int b = int(k / 3), axis = int(k % 3);
    ExactSum part;
    Kokkos::parallel_reduce(
        "boreas::lbm::body_forces", Kokkos::RangePolicy<ExecSpace>(0, long(slot.extent(0))),
        KOKKOS_LAMBDA(const long i, ExactSum& acc) {
          const int cq = c(direction(i), axis);
          if (body(i) == b && cq != 0) acc.add(2.0 * cq * double(canonical(slot(i))));
        },
        part);
    sums[k] += part;
  }
}

}  // namespace boreas
