#pragma once
// Forces of the fluid on solid bodies by momentum exchange (Ladd 1994; Krueger et al. 2017,
// §5.4.3). A link from fluid cell x to a body cell x + c_q carries f*_q(x) into the wall and
// brings back the incoming population opposite to q, f_qb(x), which the link's rule makes: the
// body takes the momentum c_q (f*_q(x) + f_qb(x)) per step. Halfway bounce-back at rest returns
// f*_q(x): 2 c_q f*_q(x); interpolated bounce-back and moving walls (Boundary.hpp) return a
// weighted sum of up to three post-collision populations plus the wall's momentum, the same the kernel
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
// the momentum c_q (sum_t weight[t] f*(slot[t]) + wall) in units of c_q, `wall` holding the wall's
// own term less the link's rest momentum (rest_momentum).
struct BodyLinks {
  static constexpr int terms = 3;  // f*_q(x) with the quadratic rule's two nodes behind it
  DeviceView<long* [terms]> slot;
  DeviceView<double* [terms]> weight;
  DeviceView<double*> wall;
  DeviceView<std::uint8_t*> direction, body;
};

// The momentum a link from fluid cell x along q carries per step, in units of c_q, when the wall
// returns the opposite population by interpolated bounce-back with fraction d, wall momentum term
// m, the quadratic rule or the linear one, and `nodes` fluid cells x - c_q, x - 2 c_q in a row
// behind x (Boundary.hpp interpolated_bounce_back, its q the opposite of this q): f*_q(x) + what
// the rule returns, as weights of post-collision populations, each f*_q or f*_qb (`opposite`) of
// the cell `hops` cells behind x, plus the wall's term.
struct ReturnedMomentum {
  struct Term {
    int hops = 0;
    bool opposite = false;
    double weight = 0;
  };
  Term terms[BodyLinks::terms];
  double wall = 0;
};
inline ReturnedMomentum returned_momentum(double d, double m, bool quadratic, int nodes) {
  ReturnedMomentum r;
  auto& [own, second, third] = r.terms;
  own.weight = 2;
  r.wall = m;
  if (d < 0.5 && quadratic && nodes == 2) {
    own.weight = 1 + d * (1 + 2 * d);
    second = {1, false, 1 - 4 * d * d};
    third = {2, false, -d * (1 - 2 * d)};
  } else if (d < 0.5 && nodes > 0) {
    own.weight = 1 + 2 * d;
    second = {1, false, 1 - 2 * d};
  } else if (d >= 0.5 && quadratic && nodes > 0) {
    own.weight = 1 + 1 / (d * (2 * d + 1));
    second = {0, true, (2 * d - 1) / d};
    third = {1, true, -(2 * d - 1) / (2 * d + 1)};
    r.wall = m / (d * (2 * d + 1));
  } else if (d >= 0.5) {
    own.weight = 1 + 1 / (2 * d);
    second = {0, true, (2 * d - 1) / (2 * d)};
    r.wall = m / (2 * d);
  }
  return r;
}

// What a link of direction q carries at rest at the reference density rho0 (every population
// w_q rho0; every rule's weights add up to 2), in units of c_q. Each link's is taken off its
// momentum, so that forces are those of the pressure above rho0 c_s^2: on a body in the fluid's
// midst the links' rest momenta cancel exactly, and its force is unchanged; on one resting on a
// wall, against an inlet or against another body they did not, and its force carried the ambient
// pressure on the faces the fluid reaches (a wall-mounted cube's c_L -270).
template <class L>
double rest_momentum(int q, double rho0) {
  return 2 * L::w(q) * rho0;
}

// Device tables of links added one by one.
class BodyLinkRows {
 public:
  // The link of direction q (`direction` after a free-slip reflection) into `body`; slot(t) is
  // the flat index of term t's population; `rest` its rest_momentum, taken off its wall term.
  template <class Slot>
  void add(const ReturnedMomentum& r, const Slot& slot, int direction, int body, double rest) {
    for (int t = 0; t < BodyLinks::terms; ++t) {
      slots_.push_back(slot(t));
      weights_.push_back(r.terms[t].weight);
    }
    walls_.push_back(r.wall - rest);
    directions_.push_back(std::uint8_t(direction));
    bodies_.push_back(std::uint8_t(body));
  }
  BodyLinks upload() const {
    BodyLinks l;
    const long n = long(walls_.size());
    l.slot = DeviceView<long* [BodyLinks::terms]>("boreas::body_link_slots", n);
    l.weight = DeviceView<double* [BodyLinks::terms]>("boreas::body_link_weights", n);
    auto hs = Kokkos::create_mirror_view(l.slot);
    auto hw = Kokkos::create_mirror_view(l.weight);
    for (long i = 0; i < n; ++i)
      for (int t = 0; t < BodyLinks::terms; ++t) {
        hs(i, t) = slots_[std::size_t(i) * BodyLinks::terms + t];
        hw(i, t) = weights_[std::size_t(i) * BodyLinks::terms + t];
      }
    Kokkos::deep_copy(l.slot, hs);
    Kokkos::deep_copy(l.weight, hw);
    l.wall = to_device_view("boreas::body_link_walls", walls_);
    l.direction = to_device_view("boreas::body_link_directions", directions_);
    l.body = to_device_view("boreas::body_link_bodies", bodies_);
    return l;
  }

 private:
  std::vector<long> slots_;
  std::vector<double> weights_, walls_;
  std::vector<std::uint8_t> directions_, bodies_;
};

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
  BodyLinkRows rows;
  std::array<int, 3> p{};
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
      ReturnedMomentum r = returned_momentum(0.5, 0, false, 0);
      if (per_link && !reflected) {
        const WallLink l = wall_link<L>(domain, p, opposite<L>(q), config.density);
        const auto fluid_behind = [&](int h) {
          return domain.flag_at(p[0] - h * c[0], p[1] - h * c[1], p[2] - h * c[2]) == flag::fluid;
        };
        const int nodes = !fluid_behind(1) ? 0 : l.quadratic && fluid_behind(2) ? 2 : 1;
        r = returned_momentum(l.fraction, l.momentum, l.quadratic, nodes);
      }
      rows.add(
          r,
          [&](int t) {
            const ReturnedMomentum::Term& term = r.terms[t];
            return slot(term.opposite ? opposite<L>(q) : q, i, {-term.hops * c[0], -term.hops * c[1], -term.hops * c[2]});
          },
          direction, body, rest_momentum<L>(q, config.density));
    }
  }
  return rows.upload();
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
          if (l.body(i) != b || cq == 0) return;
          double momentum = 0;
          for (int t = 0; t < BodyLinks::terms; ++t) momentum += l.weight(i, t) * double(canonical(l.slot(i, t)));
          acc.add(cq * (momentum + l.wall(i)));
        },
        part);
    sums[k] += part;
  }
}

}  // namespace boreas
