#include "lbm/field/RunningStatistics.hpp"

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_mult.hpp>

#include <algorithm>
#include <cmath>

#include "core/Error.hpp"
#include "core/MemoryBudget.hpp"

namespace boreas {

// The memory checks count the means and their copy in the last good state.
static_assert(statistics_bytes_per_cell == 2 * RunningStatistics::state_columns * sizeof(double));

namespace {
// The stress components in VTK's order of a symmetric tensor (xx, yy, zz, xy, yz, xz: the
// component names ParaView gives a 6-component array, and the order its tensor filters read),
// as product columns.
constexpr int vtk_symmetric_order[6] = {0, 1, 2, 3, 5, 4};
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

namespace {
// Cell i's fields from its means of rho, u (mean[0..3]) and of the products u_a u_b (products[k]).
template <class Mean, class Products>
void derive_cell(long i, const Mean& mean, const Products& products, RunningStatistics::HostFields& out) {
  out.mean_density[i] = mean(0);
  for (int a = 0; a < 3; ++a) out.mean_velocity[3 * i + a] = mean(1 + a);
  for (int j = 0; j < 6; ++j) {
    const int k = vtk_symmetric_order[j], a = RunningStatistics::product_axes[k][0], b = RunningStatistics::product_axes[k][1];
    out.reynolds_stress[6 * i + j] = products(k) - mean(1 + a) * mean(1 + b);
  }
  // Rounding can leave a variance of a steady cell a few ulps below zero.
  for (int a = 0; a < 3; ++a) out.rms_velocity[3 * i + a] = std::sqrt(std::max(0.0, out.reynolds_stress[6 * i + a]));
}

RunningStatistics::HostFields sized_fields(long n) {
  RunningStatistics::HostFields out;
  out.mean_density.resize(n);
  out.mean_velocity.resize(3 * n);
  out.rms_velocity.resize(3 * n);
  out.reynolds_stress.resize(6 * n);
  return out;
}
}  // namespace

RunningStatistics RunningStatistics::copy() const {
  RunningStatistics out(long(mean_.extent(0)));
  Kokkos::deep_copy(out.mean_, mean_);
  Kokkos::deep_copy(out.products_, products_);
  out.samples_ = samples_;
  return out;
}

RunningStatistics::HostFields RunningStatistics::host_fields() const {
  const auto mean = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mean_);
  const auto products = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products_);
  const long n = long(mean.extent(0));
  HostFields out = sized_fields(n);
  for (long i = 0; i < n; ++i)
    derive_cell(i, [&](int c) { return mean(i, c); }, [&](int k) { return products(i, k); }, out);
  return out;
}

RunningStatistics::HostFields RunningStatistics::fields_of_cells(const std::vector<double>& cell_states) {
  const long n = long(cell_states.size()) / state_columns;
  HostFields out = sized_fields(n);
  for (long i = 0; i < n; ++i) {
    const double* cell = cell_states.data() + i * state_columns;
    derive_cell(i, [&](int c) { return cell[c]; }, [&](int k) { return cell[4 + k]; }, out);
  }
  return out;
}

std::vector<double> RunningStatistics::state() const {
  const auto mean = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mean_);
  const auto products = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), products_);
  const long n = long(mean.extent(0));
  std::vector<double> values(std::size_t(n) * state_columns);
  for (long i = 0; i < n; ++i) {
    double* cell = values.data() + i * state_columns;
    for (int c = 0; c < 4; ++c) cell[c] = mean(i, c);
    for (int k = 0; k < 6; ++k) cell[4 + k] = products(i, k);
  }
  return values;
}

void RunningStatistics::load(const std::vector<double>& values, long samples) {
  const long n = long(mean_.extent(0));
  if (long(values.size()) != n * state_columns)
    throw Error("statistics: " + std::to_string(values.size()) + " values to load, expected " +
                std::to_string(n * state_columns));
  const auto mean = Kokkos::create_mirror_view(mean_);
  const auto products = Kokkos::create_mirror_view(products_);
  for (long i = 0; i < n; ++i) {
    const double* cell = values.data() + i * state_columns;
    for (int c = 0; c < 4; ++c) mean(i, c) = cell[c];
    for (int k = 0; k < 6; ++k) products(i, k) = cell[4 + k];
  }
  Kokkos::deep_copy(mean_, mean);
  Kokkos::deep_copy(products_, products);
  samples_ = samples;
}

}  // namespace boreas
