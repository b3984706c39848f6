#pragma once
// Forces of the fluid on solid bodies by momentum exchange (Ladd 1994; Krueger et al. 2017,
// §5.4.3). A link from fluid cell x to a body cell x + c_q carries f*_q(x) into the wall and
// brings back the incoming population opposite to q, f_qb(x), which the link's rule makes: the
// body takes the momentum c_q (f*_q(x) + f_qb(x)) per step. Halfway bounce-back at rest returns
// f*_q(x): 2 c_q f*_q(x); interpolated bounce-back and moving walls (Boundary.hpp) return a
// weighted sum of two post-collision populations plus the wall's momentum, the same the kernel
// uses (Mei, Yu, Shyy & Luo 2002 for curved walls). Summed over the links, on the canonical state
// (post-collision, natural layout) that every streaming variant and storage converts to, so the
// force is the same for all of them; summed exactly (core/ExactSum.hpp), so it is the same on
// every decomposition too.
// Bodies: the deck's obstacles in order, then the voxel geometry (DomainGeometry::body_at).
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/Error.hpp"
#include "core/Config.hpp"
#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/field/WallLinks.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

// The links of one lattice (a dense block's or a rank's sparse cells) into the bodies: per link
// the momentum c_q (own_weight f*(slot) + second_weight f*(second) + wall) in units of c_q.
struct BodyLinks {
  DeviceView<long*> slot, second;
  DeviceView<double*> own_weight, second_weight, wall;
  DeviceView<std::uint8_t*> direction, body;
};

// The momentum a link from fluid cell x along q carries per step, in units of c_q, when the wall
// returns the opposite population by interpolated bounce-back with fraction d and wall momentum
// term m (Boundary.hpp interpolated_bounce_back, its q the opposite of this q): own f*_q(x) +
// second (f*_q one cell away from the wall if `second_node` is fluid and d < 1/2; else f*_qb(x)
// for d >= 1/2) + wall.
struct ReturnedMomentum {
  enum Second { None, Away, Opposite };
  double own = 2, second = 0, wall = 0;
  Second source = None;
};
inline ReturnedMomentum returned_momentum(double d, double m, bool second_node) {
  ReturnedMomentum r;
  r.wall = m;
  if (d < 0.5 && second_node) {
    r.own = 1 + 2 * d;
    r.second = 1 - 2 * d;
    r.source = ReturnedMomentum::Away;
  } else if (d >= 0.5) {
    r.own = 1 + 1 / (2 * d);
    r.second = (2 * d - 1) / (2 * d);
    r.wall = m / (2 * d);
    r.source = ReturnedMomentum::Opposite;
  }
  return r;
}

// The body that the link from fluid cell p along direction q meets after a free-slip face reflects
// it, and the direction it then travels (lbm/scheme/PullStep.hpp: the link is bounced back halfway
// and pushes that body along the reflected direction, as its mirror image across the face does);
// body -1 if none.
template <class L>
std::pair<int, int> reflected_body(const DomainGeometry& domain, const std::array<int, 3>& p, int q) {
  if (!domain.free_slip()) return {-1, q};
  const std::array<int, 3> c{L::c(q, 0), L::c(q, 1), L::c(q, 2)};
  const auto x = domain.reflected_cell(p, c);
  if (!x) return {-1, q};
  int axes = 0;
  for (int d = 0; d < 3; ++d) axes |= ((*x)[d] != p[d] + c[d]) << d;
  return {domain.body_at((*x)[0], (*x)[1], (*x)[2]), reflected<L>(q, axes)};
}

// Links of `cells` fluid cells: coords(i, p) gives cell i's global coordinates (or false when it
// is not a fluid cell to count), slot(q, i, offset) the flat index of population q of the cell at
// offset from cell i (asked for offsets other than 0 by obstacles with per-link data only).
template <class L, class Coords, class Slot>
BodyLinks body_links(const DomainGeometry& domain, const Config& config, long cells, const Coords& coords,
                     const Slot& slot) {
  if (domain.bodies() > 256) throw Error("forces: " + std::to_string(domain.bodies()) + " bodies; at most 256 are told apart");
  std::vector<long> slots, seconds;
  std::vector<double> own_weights, second_weights, walls;
  std::vector<std::uint8_t> directions, bodies;
  std::array<int, 3> p{};
  const std::array<int, 3> here{0, 0, 0};
  const bool per_link = config.wall_links();
  for (long i = 0; i < cells; ++i) {
    if (!coords(i, p)) continue;
    for (int q = 1; q < L::Q; ++q) {
      const std::array<int, 3> c{L::c(q, 0), L::c(q, 1), L::c(q, 2)};
      int body = domain.body_at(p[0] + c[0], p[1] + c[1], p[2] + c[2]), direction = q;
      bool reflected = false;
      if (body < 0) {
        std::tie(body, direction) = reflected_body<L>(domain, p, q);
        reflected = body >= 0;
      }
      if (body < 0) continue;
      const long own = slot(q, i, here);
      double own_weight = 2, second_weight = 0, wall = 0;
      long second = own;
      if (per_link && !reflected) {
        const WallLink l = wall_link<L>(domain, p, opposite<L>(q), config.density);
        const ReturnedMomentum r =
            returned_momentum(l.fraction, l.momentum, domain.flag_at(p[0] - c[0], p[1] - c[1], p[2] - c[2]) == flag::fluid);
        own_weight = r.own;
        second_weight = r.second;
        wall = r.wall;
        if (r.source == ReturnedMomentum::Away) second = slot(q, i, {-c[0], -c[1], -c[2]});
        if (r.source == ReturnedMomentum::Opposite) second = slot(opposite<L>(q), i, here);
      }
      slots.push_back(own);
      seconds.push_back(second);
      own_weights.push_back(own_weight);
      second_weights.push_back(second_weight);
      walls.push_back(wall);
      directions.push_back(std::uint8_t(direction));
      bodies.push_back(std::uint8_t(body));
    }
  }
  return {to_device_view("boreas::body_link_slots", slots),
          to_device_view("boreas::body_link_seconds", seconds),
          to_device_view("boreas::body_link_own_weights", own_weights),
          to_device_view("boreas::body_link_second_weights", second_weights),
          to_device_view("boreas::body_link_walls", walls),
          to_device_view("boreas::body_link_directions", directions),
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
  const BodyLinks l = links;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    const int b = int(k / 3), axis = int(k % 3);
    ExactSum part;
    Kokkos::parallel_reduce(
        "boreas::lbm::body_forces", Kokkos::RangePolicy<ExecSpace>(0, long(l.slot.extent(0))),
        KOKKOS_LAMBDA(const long i, ExactSum& acc) {
          const int cq = c(l.direction(i), axis);
          if (l.body(i) == b && cq != 0)
            acc.add(cq * (l.own_weight(i) * double(canonical(l.slot(i))) +
                          l.second_weight(i) * double(canonical(l.second(i))) + l.wall(i)));
        },
        part);
    sums[k] += part;
  }
}

}  // namespace boreas
