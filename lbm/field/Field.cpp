#include "lbm/field/Field.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/Mix64.hpp"
#include "lbm/field/FieldOps.hpp"

namespace boreas {

Field::Field(const Config& config, const DomainGeometry& domain, const Box& owned, const std::array<int, 3>& ghosts,
             int Q, int real_bytes)
    : box(owned),
      geom({owned.extent(0), owned.extent(1), owned.extent(2)}, ghosts, real_bytes),
      storage(config.layout == StorageLayout::AoSoA ? PopulationLayout::make_aosoa(geom, Q, config.bundle, real_bytes)
                                                    : PopulationLayout::make_soa(geom, Q)),
      flags("flags", geom.cells_alloc),
      global_cells(config.cells) {
  for (int d = 0; d < 3; ++d) geom.origin[d] = box.lo[d];
  map.geom = geom;
  for (int d = 0; d < 3; ++d) map.periodic[d] = domain.periodic(d) && box.extent(d) == domain.cells()[d];
  auto host = Kokkos::create_mirror_view(flags);
  for (long i = 0; i < geom.cells_alloc; ++i) host(i) = flag::wall;  // padding: nothing streams from it
  for (int z = -geom.g[2]; z < geom.n[2] + geom.g[2]; ++z)
    for (int y = -geom.g[1]; y < geom.n[1] + geom.g[1]; ++y)
      for (int x = -geom.g[0]; x < geom.n[0] + geom.g[0]; ++x) {
        const std::uint8_t fl = domain.flag_at(box.lo[0] + x, box.lo[1] + y, box.lo[2] + z);
        host(geom.index(x, y, z)) = fl;
        if (fl == flag::fluid && map.owned(geom.index(x, y, z))) ++fluid_cells;
      }
  Kokkos::deep_copy(flags, host);
}

}  // namespace boreas

namespace boreas {

namespace {

// Deviates from a counter (splitmix64): the same numbers on every block, rank and platform.
double unit_deviate(std::uint64_t n) {
  const std::uint64_t z = splitmix_finalise(n * kSplitmixGamma + 0x2545F4914F6CDD1Dull);
  return (double(z >> 11) + 0.5) * 0x1.0p-53;  // in (0, 1)
}
double normal_deviate(std::uint64_t n) {  // Box-Muller
  return std::sqrt(-2 * std::log(unit_deviate(2 * n))) * std::cos(2 * 3.14159265358979323846 * unit_deviate(2 * n + 1));
}

}  // namespace

// The curl of the vector potential phi(eta) a(x), phi = sin^2(pi eta) (zero with its slope at
// both walls, so the field vanishes there), a = a sum of 48 modes A_m sin(k_m . x + theta_m)
// per component, wave numbers whole in the periodic x and z (+-1..3 wavelengths over n_x,
// +-1..6 over n_z) and 0..3 half waves over the height, A_m ~ N(0, 1) / |k_m|, theta_m uniform:
// divergence-free, periodic, fixed (counter-based deviates), scaled to r.m.s. about 1.
std::array<double, 3> channel_perturbation(const std::array<int, 3>& N, const std::array<double, 3>& x) {
  constexpr int modes = 48;
  const double pi = 3.14159265358979323846;
  const double eta = (x[1] + 0.5) / N[1], s = std::sin(pi * eta), phi = s * s;
  const double dphi = pi / N[1] * std::sin(2 * pi * eta);
  double a[3] = {0, 0, 0}, da[3][3] = {};  // a_i and d a_i / d x_j
  for (int m = 0; m < modes; ++m) {
    const std::uint64_t c = 16 * std::uint64_t(m);
    const double sx = unit_deviate(c) < 0.5 ? -1 : 1, sz = unit_deviate(c + 1) < 0.5 ? -1 : 1;
    const double k[3] = {sx * 2 * pi * (1 + std::floor(3 * unit_deviate(c + 2))) / N[0],
                         pi * std::floor(4 * unit_deviate(c + 3)) / N[1],
                         sz * 2 * pi * (1 + std::floor(6 * unit_deviate(c + 4))) / N[2]};
    const double k_norm = std::sqrt(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
    for (int i = 0; i < 3; ++i) {
      const double amplitude = normal_deviate(c + 5 + i) / k_norm, theta = 2 * pi * unit_deviate(c + 8 + i);
      const double phase = k[0] * x[0] + k[1] * x[1] + k[2] * x[2] + theta;
      a[i] += amplitude * std::sin(phase);
      for (int j = 0; j < 3; ++j) da[i][j] += amplitude * k[j] * std::cos(phase);
    }
  }
  // curl(phi a) = grad phi x a + phi curl a, grad phi = (0, dphi, 0).
  const double scale = 3.0 / std::sqrt(double(modes));
  return {scale * (dphi * a[2] + phi * (da[2][1] - da[1][2])), scale * phi * (da[0][2] - da[2][0]),
          scale * (-dphi * a[0] + phi * (da[1][0] - da[0][1]))};
}

void initial_macroscopic(const Config& config, const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
  rho = config.density;
  u = config.initial_velocity;
  const double pi = 3.14159265358979323846;
  const auto& N = config.cells;
  if (config.initial == InitialCondition::Channel) {
    // A turbulent channel's start (walls at the y faces, halfway: y = -1/2 and n_y - 1/2): the
    // 1/7 power-law profile of bulk velocity U, u_x = (8/7) U (1 - |1 - 2 eta|)^(1/7) with
    // eta = (y + 1/2) / n_y, plus A times a random divergence-free field that vanishes at the
    // walls (channel_perturbation).
    const double U = u[0], eta = (x[1] + 0.5) / N[1];
    const std::array<double, 3> v = channel_perturbation(N, x);
    const double A = config.channel_perturbation;
    // 0 beyond the walls (ghost cells; the gradient's stencil): the power of a negative is NaN.
    u = {8.0 / 7.0 * U * std::pow(std::max(0.0, 1 - std::abs(1 - 2 * eta)), 1.0 / 7.0) + A * v[0], A * v[1], A * v[2]};
    return;
  }
  if (config.initial != InitialCondition::TaylorGreen) return;
  // The vortex, carried by the initial velocity (zero unless the deck sets one).
  const double U = config.taylor_green_u0, r0 = config.density;
  const double X = 2 * pi * x[0] / N[0], Y = 2 * pi * x[1] / N[1], Z = 2 * pi * x[2] / N[2];
  if (config.dimensions() == 3 && N[2] > 1) {  // classical 3D Taylor-Green vortex (Brachet et al. 1983)
    u = {u[0] + U * std::sin(X) * std::cos(Y) * std::cos(Z), u[1] - U * std::cos(X) * std::sin(Y) * std::cos(Z), u[2]};
    rho = r0 + 3 * r0 * U * U / 16 * (std::cos(2 * X) + std::cos(2 * Y)) * (std::cos(2 * Z) + 2);
  } else {  // 2D vortex array, exact solution of the Navier-Stokes equations
    u = {u[0] - U * std::cos(X) * std::sin(Y), u[1] + U * std::sin(X) * std::cos(Y), u[2]};
    rho = r0 - 3 * r0 * U * U / 4 * (std::cos(2 * X) + std::cos(2 * Y));
  }
}

}  // namespace boreas
