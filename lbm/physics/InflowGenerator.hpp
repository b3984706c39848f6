#pragma once
// The modes and parameters of a deck's synthetic inflow turbulence (InflowTurbulence.hpp) and the
// per-step evaluation of its field on the inlet face. Every block holds one, drawn from the same
// seed, so that every block and rank evaluates the same field.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/Config.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/physics/InflowTurbulence.hpp"

namespace boreas {

// `count` modes (k[3], p[3], q[3], w; count a multiple of 3) from `seed`: normal deviates by
// Box-Muller over a 64-bit Mersenne twister (its sequence is fixed by the standard), so every
// platform draws the same. Each drawn mode comes with its two cyclic permutations of the axes (a
// rotation: still divergence-free), so that the three components of this one realisation have the
// same variance, and p, q are scaled to make it 1: 100 independent modes would leave each
// component's variance 20 % off by chance.
inline std::vector<double> random_flow_modes(int count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  auto uniform = [&] { return (double(engine() >> 11) + 0.5) / 9007199254740992.0; };  // (0, 1)
  auto normal = [&](double variance) {
    const double r = std::sqrt(-2 * std::log(uniform())), a = 2 * M_PI * uniform();
    return std::sqrt(variance) * r * std::cos(a);
  };
  std::vector<double> modes;
  double variance = 0;  // of each component: (1/N) sum (p_d^2 + q_d^2) / 2, the same for all d
  for (int n = 0; n < count / 3; ++n) {
    double k[3], zeta[3], xi[3];
    for (double& v : k) v = normal(0.5);
    for (double& v : zeta) v = normal(1);
    for (double& v : xi) v = normal(1);
    const double p[3] = {zeta[1] * k[2] - zeta[2] * k[1], zeta[2] * k[0] - zeta[0] * k[2], zeta[0] * k[1] - zeta[1] * k[0]};
    const double q[3] = {xi[1] * k[2] - xi[2] * k[1], xi[2] * k[0] - xi[0] * k[2], xi[0] * k[1] - xi[1] * k[0]};
    const double w = normal(1);
    for (int r = 0; r < 3; ++r) {
      auto at = [r](int d) { return (d + r) % 3; };
      modes.insert(modes.end(), {k[at(0)], k[at(1)], k[at(2)], p[at(0)], p[at(1)], p[at(2)], q[at(0)], q[at(1)],
                                 q[at(2)], w});
    }
    for (int d = 0; d < 3; ++d) variance += (p[d] * p[d] + q[d] * q[d]) / 2 / count;
  }
  const double scale = 1 / std::sqrt(variance);
  for (std::size_t m = 0; m < modes.size(); m += 10)
    for (int j = 3; j < 9; ++j) modes[m + j] *= scale;
  return modes;
}

template <class Real>
class InflowGenerator {
 public:
  static constexpr int modes_count = 102;  // 34 drawn, each with its two cyclic permutations
  static constexpr std::uint64_t seed = 20011;  // any fixed value: the same modes on every run

  InflowGenerator() = default;  // no turbulent inlet
  explicit InflowGenerator(const Config& config) {
    const int face = config.turbulent_inflow();
    if (face < 0) return;
    const FaceCondition& fc = config.faces[face];
    t_.face = face;
    normal_ = face / 2;
    int k = 0;
    for (int d = 0; d < 3; ++d)
      if (d != normal_) {
        t_.axes[k] = d;
        t_.extent[k] = config.cells[d];
        ++k;
      }
    // the inlet links' boundary points lie half a cell outside the first layer
    normal_position_ = face % 2 == 0 ? -0.5 : config.cells[normal_] - 0.5;
    const double speed = std::sqrt(fc.velocity[0] * fc.velocity[0] + fc.velocity[1] * fc.velocity[1] +
                                   fc.velocity[2] * fc.velocity[2]);
    scale_ = fc.turbulence_intensity * speed;
    length_ = fc.turbulence_length;
    time_ = fc.turbulence_time > 0 ? fc.turbulence_time : fc.turbulence_length / speed;
    profile_ = InletProfile<double>::make(config, face);
    const std::vector<double> modes = random_flow_modes(modes_count, seed);
    modes_ = DeviceView<double* [10]>("inflow_modes", modes_count);
    auto host = Kokkos::create_mirror_view(modes_);
    for (int m = 0; m < modes_count; ++m)
      for (int j = 0; j < 10; ++j) host(m, j) = modes[std::size_t(m) * 10 + j];
    Kokkos::deep_copy(modes_, host);
    t_.field = DeviceView<Real* * [3]>("inflow_field", t_.extent[0], t_.extent[1]);
  }

  const InflowTurbulence<Real>& turbulence() const { return t_; }

  // Fills the field for time step `step` (a no-op without turbulence).
  void update(long step) const {
    if (t_.face < 0) return;
    const DeviceView<const double* [10]> modes = modes_;
    const DeviceView<Real* * [3]> field = t_.field;
    const InletProfile<double> profile = profile_;
    const int a = t_.axes[0], b = t_.axes[1], n = normal_, na = t_.extent[0];
    const double scale = scale_, inv_length = 1 / length_, t = double(step) / time_, at_normal = normal_position_;
    Kokkos::parallel_for(
        "boreas::lbm::inflow_turbulence", Kokkos::RangePolicy<ExecSpace>(0, long(t_.extent[0]) * t_.extent[1]),
        KOKKOS_LAMBDA(const long i) {
          const int ia = int(i % na), ib = int(i / na);
          double p[3] = {0, 0, 0};
          p[a] = ia;
          p[b] = ib;
          p[n] = at_normal;
          const double x[3] = {p[0] * inv_length, p[1] * inv_length, p[2] * inv_length};
          double v[3];
          random_flow(modes, x, t, v);
          const double local = scale * profile.factor(p);
          for (int d = 0; d < 3; ++d) field(ia, ib, d) = Real(local * v[d]);
        });
  }

 private:
  InflowTurbulence<Real> t_;
  DeviceView<double* [10]> modes_;
  InletProfile<double> profile_;
  double scale_ = 0, length_ = 1, time_ = 1, normal_position_ = 0;
  int normal_ = 0;
};

}  // namespace boreas
