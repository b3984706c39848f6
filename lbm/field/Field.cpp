#include "lbm/field/Field.hpp"

#include <algorithm>
#include <cmath>

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

void initial_macroscopic(const Config& config, const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
  rho = config.density;
  u = config.initial_velocity;
  const double pi = 3.14159265358979323846;
  const auto& N = config.cells;
  if (config.initial == InitialCondition::Channel) {
    // A turbulent channel's start (walls at the y faces, halfway: y = -1/2 and n_y - 1/2): the
    // 1/7 power-law profile of bulk velocity U, u_x = (8/7) U (1 - |1 - 2 eta|)^(1/7) with
    // eta = (y + 1/2) / n_y, and streaks and streamwise vortices of amplitude A spaced about a
    // quarter of the channel height apart (near-wall streaks are ~100 wall units apart), which
    // vanish at the walls: u' = A s cos Z, v' = A s^2 sin X sin Z, w' = A s cos X cos Z with
    // s = sin(pi eta), X = 2 pi x / n_x, Z = 2 pi k z / n_z. A laminar channel is linearly stable
    // at the Reynolds numbers of interest; streaks lifted by vortices break down into turbulence
    // within a few eddy turnovers. Not divergence-free: the lattice sheds that as sound.
    const double U = u[0], A = config.channel_perturbation;
    const double eta = (x[1] + 0.5) / N[1], s = std::sin(pi * eta);
    const double k = std::max(1.0, std::round(4.0 * N[2] / N[1]));
    const double X = 2 * pi * x[0] / N[0], Z = 2 * pi * k * x[2] / N[2];
    u = {8.0 / 7.0 * U * std::pow(1 - std::abs(1 - 2 * eta), 1.0 / 7.0) + A * s * std::cos(Z),
         A * s * s * std::sin(X) * std::sin(Z), A * s * std::cos(X) * std::cos(Z)};
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
