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
    if (s.compared && replaced_) {
      // A carried velocity knows the old cells only: the new solid ones are at rest.
      const CellMoments before = previous_[p], now = parts[p];
      Kokkos::parallel_for("boreas::previous_velocity_solid", Kokkos::RangePolicy<ExecSpace>(0, long(now.extent(0))),
                           KOKKOS_LAMBDA(const long i) {
                             if (now(i, 0) == 0.0)
                               for (int a = 0; a < 3; ++a) before(i, a) = 0.0;
                           });
    }
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
  replaced_ = false;
  return s;
}

std::vector<std::vector<double>> VelocityChange::previous() const {
  std::vector<std::vector<double>> out;
  for (const CellMoments& part : previous_) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part);
    std::vector<double>& values = out.emplace_back(host.extent(0) * 3);
    for (std::size_t i = 0; i < host.extent(0); ++i)
      for (int a = 0; a < 3; ++a) values[3 * i + a] = host(i, a);
  }
  return out;
}

void VelocityChange::replace_previous(const std::vector<std::vector<double>>& parts) {
  previous_.clear();
  for (const std::vector<double>& values : parts) {
    CellMoments part("boreas::previous_velocity", values.size() / 3, 3);
    const auto host = Kokkos::create_mirror_view(part);
    for (std::size_t i = 0; i < host.extent(0); ++i)
      for (int a = 0; a < 3; ++a) host(i, a) = values[3 * i + a];
    Kokkos::deep_copy(part, host);
    previous_.push_back(part);
  }
  replaced_ = true;
}

double relative_change(double change, double size) {
  return size > 0 ? std::sqrt(change / size) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace boreas
