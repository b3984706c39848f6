#include "lbm/field/RunningStatistics.hpp"

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_mult.hpp>

#include <algorithm>
#include <cmath>

#include "core/Error.hpp"

namespace boreas {

namespace {
constexpr int product_axes[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
}

RunningStatistics::RunningStatistics(long cells)
    : mean_("boreas::statistics_mean", cells, 4), products_("boreas::statistics_products", cells, 6) {}

void RunningStatistics::add(const CellMoments& sample) {
  ++samples_;
  const double w = 1.0 / double(samples_);
  KokkosBlas::axpby(w, sample, 1.0 - w, mean_);
  for (int k = 0; k < 6; ++k) {
    const auto ua = Kokkos::subview(sample, Kokkos::ALL, 1 + product_axes[k][0]);
    const auto ub = Kokkos::subview(sample, Kokkos::ALL, 1 + product_axes[k][1]);
    KokkosBlas::mult(1.0 - w, Kokkos::subview(products_, Kokkos::ALL, k), w, ua, ub);
  }
}

RunningStatistics::HostFields RunningStatistics::host_fields() const {
  const auto mean = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mean_);
  const auto products = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products_);
  const long n = long(mean.extent(0));
  HostFields out;
  out.mean_density.resize(n);
  out.mean_velocity.resize(3 * n);
  out.rms_velocity.resize(3 * n);
  out.reynolds_stress.resize(6 * n);
  for (long i = 0; i < n; ++i) {
    out.mean_density[i] = mean(i, 0);
    for (int a = 0; a < 3; ++a) out.mean_velocity[3 * i + a] = mean(i, 1 + a);
    for (int k = 0; k < 6; ++k) {
      const int a = product_axes[k][0], b = product_axes[k][1];
      out.reynolds_stress[6 * i + k] = products(i, k) - mean(i, 1 + a) * mean(i, 1 + b);
    }
    // Rounding can leave a variance of a steady cell a few ulps below zero.
    for (int a = 0; a < 3; ++a) out.rms_velocity[3 * i + a] = std::sqrt(std::max(0.0, out.reynolds_stress[6 * i + a]));
  }
  return out;
}

std::vector<double> RunningStatistics::state() const {
  const long n = long(mean_.extent(0));
  std::vector<double> values(std::size_t(n) * state_columns);
  Kokkos::deep_copy(Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>(values.data(), n, 4), mean_);
  Kokkos::deep_copy(Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>(values.data() + 4 * n, n, 6), products_);
  return values;
}

void RunningStatistics::load(const std::vector<double>& values, long samples) {
  const long n = long(mean_.extent(0));
  if (long(values.size()) != n * state_columns)
    throw Error("statistics: " + std::to_string(values.size()) + " values to load, expected " +
                std::to_string(n * state_columns));
  Kokkos::deep_copy(mean_, Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>(values.data(), n, 4));
  Kokkos::deep_copy(products_,
                    Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>(values.data() + 4 * n, n, 6));
  samples_ = samples;
}

}  // namespace boreas
