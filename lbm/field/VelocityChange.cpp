#include "lbm/field/VelocityChange.hpp"

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>

#include <cmath>
#include <limits>
#include <utility>

namespace boreas {

VelocityChange::SquaredNorms VelocityChange::add(const std::vector<CellMoments>& parts, const std::vector<double>& volumes) {
  SquaredNorms s;
  s.compared = previous_.size() == parts.size();
  for (std::size_t p = 0; p < parts.size() && s.compared; ++p) s.compared = previous_[p].extent(0) == parts[p].extent(0);
  if (!s.compared) {
    previous_.clear();
    for (const CellMoments& m : parts) previous_.emplace_back("boreas::previous_velocity", m.extent(0), 3);
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto u = Kokkos::subview(parts[p], Kokkos::ALL, std::make_pair(1, 4));
    if (s.compared) {
      KokkosBlas::axpby(1.0, u, -1.0, previous_[p]);  // previous <- u - previous
      for (int a = 0; a < 3; ++a) {
        const auto du = Kokkos::subview(previous_[p], Kokkos::ALL, a);
        s.change += volumes[p] * KokkosBlas::dot(du, du);
      }
    }
    for (int a = 0; a < 3; ++a) {
      const auto ua = Kokkos::subview(u, Kokkos::ALL, a);
      s.size += volumes[p] * KokkosBlas::dot(ua, ua);
    }
    Kokkos::deep_copy(previous_[p], u);
  }
  return s;
}

double relative_change(double change, double size) {
  return size > 0 ? std::sqrt(change / size) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace boreas
