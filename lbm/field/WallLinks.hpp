#pragma once
// Per-link data of the links into obstacles that need more than halfway bounce-back at rest:
// where each link crosses the obstacle's surface (interpolated bounce-back) and the wall's
// velocity there (rotating obstacles). The pull kernel reads it (PullStep.hpp), as do the
// observables that gather as it does; the forces of BodyForces.hpp weigh the same populations.
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "core/Types.hpp"
#include "lbm/field/DenseField.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

struct WallLinks {
  DeviceView<int*> row;           // per cell of the block, ghosts included: its row, or -1; empty: none
  DeviceView<double**> fraction;  // [row][q]: where the link of incoming direction q (its upwind cell
                                  // at - c_q solid) meets the wall, from the cell; 1/2 on other links
  DeviceView<double**> momentum;  // [row][q]: 6 w_q rho0 (c_q . u_wall); 0 on other links
  DeviceView<std::uint8_t**> quadratic;  // [row][q]: 1 where the obstacle asks for the quadratic rule

  KOKKOS_INLINE_FUNCTION bool any() const { return row.extent(0) > 0; }
};

// The link of incoming direction q at global fluid cell p (of AMR level `level`), whose upwind
// cell p - c_q is a body cell: where it crosses the wall (1/2 for halfway obstacles and voxels),
// the wall's momentum term 6 w_q rho0 (c_q . u_wall) there (lattice velocities are the same on
// every level under acoustic scaling) and whether the quadratic rule closes it.
struct WallLink {
  double fraction, momentum;
  bool quadratic;
};
template <class L>
WallLink wall_link(const DomainGeometry& domain, const std::array<int, 3>& p, int q, double rho0, int level = 0) {
  const std::array<int, 3> c{L::c(q, 0), L::c(q, 1), L::c(q, 2)};
  const WallCrossing w = domain.wall_crossing_at_level(level, p, {-c[0], -c[1], -c[2]});
  return {w.fraction, 6 * L::w(q) * rho0 * (c[0] * w.velocity[0] + c[1] * w.velocity[1] + c[2] * w.velocity[2]),
          w.quadratic};
}

// The host side of a WallLinks: the rows of a lattice's cells, added cell by cell, then uploaded.
template <class L>
class WallLinkRows {
 public:
  explicit WallLinkRows(long cells) : row_(std::size_t(cells), -1) {}

  // Gives fluid cell `cell` (global p, of AMR level `level`) a row if one of its links into a body
  // (upwind_wall(q): its upwind cell along incoming direction q is flagged a wall) needs more than
  // halfway bounce-back at rest; a wall without a body is a domain face or a ghost closed by a
  // solid coarse cell, whose flag's rule applies.
  template <class UpwindWall>
  void add(long cell, const DomainGeometry& domain, const std::array<int, 3>& p, int level, double rho0,
           const UpwindWall& upwind_wall) {
    double fraction[L::Q], momentum[L::Q];
    std::uint8_t quadratic[L::Q];
    bool needed = false;
    for (int q = 0; q < L::Q; ++q) {
      fraction[q] = 0.5;
      momentum[q] = 0;
      quadratic[q] = 0;
      if (q == 0 || !upwind_wall(q) ||
          domain.body_at_level(level, p[0] - L::c(q, 0), p[1] - L::c(q, 1), p[2] - L::c(q, 2)) < 0)
        continue;
      const WallLink l = wall_link<L>(domain, p, q, rho0, level);
      if (l.fraction == 0.5 && l.momentum == 0) continue;
      fraction[q] = l.fraction;
      momentum[q] = l.momentum;
      quadratic[q] = l.quadratic;
      needed = true;
    }
    if (!needed) return;
    row_[std::size_t(cell)] = int(fraction_.size() / L::Q);
    fraction_.insert(fraction_.end(), fraction, fraction + L::Q);
    momentum_.insert(momentum_.end(), momentum, momentum + L::Q);
    quadratic_.insert(quadratic_.end(), quadratic, quadratic + L::Q);
  }

  // The device tables (none when no cell has a row).
  WallLinks upload() const {
    WallLinks links;
    const long rows = long(fraction_.size()) / L::Q;
    if (rows == 0) return links;
    links.row = to_device_view("boreas::wall_link_rows", row_);
    links.fraction = DeviceView<double**>("boreas::wall_link_fractions", rows, L::Q);
    links.momentum = DeviceView<double**>("boreas::wall_link_momentum", rows, L::Q);
    links.quadratic = DeviceView<std::uint8_t**>("boreas::wall_link_quadratic", rows, L::Q);
    auto hf = Kokkos::create_mirror_view(links.fraction);
    auto hm = Kokkos::create_mirror_view(links.momentum);
    auto hq = Kokkos::create_mirror_view(links.quadratic);
    for (long r = 0; r < rows; ++r)
      for (int q = 0; q < L::Q; ++q) {
        const std::size_t i = std::size_t(r) * L::Q + q;
        hf(r, q) = fraction_[i];
        hm(r, q) = momentum_[i];
        hq(r, q) = quadratic_[i];
      }
    Kokkos::deep_copy(links.fraction, hf);
    Kokkos::deep_copy(links.momentum, hm);
    Kokkos::deep_copy(links.quadratic, hq);
    return links;
  }

 private:
  std::vector<int> row_;
  std::vector<double> fraction_, momentum_;
  std::vector<std::uint8_t> quadratic_;
};

// The rows of a block's fluid cells, ghosts included but for the outermost layer, which no step
// computes (its upwind cells lie outside the block).
template <class L>
WallLinks wall_links(const DenseGeometry& g, const DeviceView<std::uint8_t*>& device_flags,
                     const DomainGeometry& domain, double rho0) {
  const auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_flags);
  WallLinkRows<L> rows(g.cells_alloc);
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    const int inner = g.g[d] > 0 ? g.g[d] - 1 : 0;  // 2D blocks have no ghosts along z
    lo[d] = -inner;
    hi[d] = g.n[d] + inner;
  }
  for (int z = lo[2]; z < hi[2]; ++z)
    for (int y = lo[1]; y < hi[1]; ++y)
      for (int x = lo[0]; x < hi[0]; ++x) {
        const long cell = g.index(x, y, z);
        if (flags(cell) != flag::fluid) continue;
        const std::array<int, 3> p{g.origin[0] + x, g.origin[1] + y, g.origin[2] + z};
        const auto upwind_wall = [&](int q) { return flags(cell - g.shift(L::c(q, 0), L::c(q, 1), L::c(q, 2))) == flag::wall; };
        rows.add(cell, domain, p, 0, rho0, upwind_wall);
      }
  return rows.upload();
}

}  // namespace boreas
