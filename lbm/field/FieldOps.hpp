#pragma once
// What a run reads from a field: initial state, hash, health, mass and macroscopic moments, as
// free functions of a Field and a lattice in the canonical state (the post-collision populations
// f*_q(x) in natural layout, what every streaming scheme converts to: Block::canonical()).
// Instantiated per lattice and precision with Block (lbm/BlockInstance.cpp.in).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/Config.hpp"
#include "core/ExactSum.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/physics/ChapmanEnskog.hpp"
#include "lbm/field/Field.hpp"

namespace boreas {

// Result of a stability check over the fluid cells.
struct Health {
  bool ok = true;
  long long first_bad_cell = -1;  // global linear index (x fastest), -1 when ok
  double bad_density = 0;
};

// Macroscopic fields of a block's interior on the host, x fastest.
struct HostMacroscopic {
  std::vector<double> density;   // 0 in solid cells
  std::vector<double> velocity;  // 3 per cell
  std::vector<std::uint8_t> flags;
};

// The host copy of device moments (CellMoments: rho, ux, uy, uz per cell) with the cells' flags.
inline HostMacroscopic host_macroscopic(const CellMoments& moments, std::vector<std::uint8_t> flags) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), moments);
  const long n = long(host.extent(0));
  HostMacroscopic out;
  out.density.resize(n);
  out.velocity.resize(3 * n);
  for (long i = 0; i < n; ++i) {
    out.density[i] = host(i, 0);
    for (int d = 0; d < 3; ++d) out.velocity[3 * i + d] = host(i, 1 + d);
  }
  out.flags = std::move(flags);
  return out;
}

// The deck's initial density and velocity at point x (cell-centre coordinates of the domain's
// cells: cell i has its centre at i), for the uniform grid and AMR levels alike.
void initial_macroscopic(const Config& config, const std::array<double, 3>& x, double& rho, std::array<double, 3>& u);
// initial.type = "channel"'s perturbation at x for a domain of N cells (Field.cpp).
std::array<double, 3> channel_perturbation(const std::array<int, 3>& N, const std::array<double, 3>& x);

// The deck's initial post-collision populations in the uniform-grid cell at `cell` (global
// coordinates): the Chapman-Enskog state of the initial density and velocity under the deck's
// rates (lbm/physics/ChapmanEnskog.hpp), the velocity and density gradients by central
// differences between the neighbouring centres (one-sided at a non-periodic face, none outside the
// domain). `state(p, rho, u)` gives the deck's initial density and velocity at global cell p
// (initial_macroscopic there). An equilibrium alone holds no stress, and its first step streams
// as if tau were 1: a Taylor-Green vortex of 64 cells per period lost 1 % of its kinetic energy
// at once. A uniform start has no gradient, and without a force it is its own equilibrium.
template <class L, class Real, class State>
void initial_post_collision(const Config& config, const CouplingRates<Real>& rates, const std::array<int, 3>& cell,
                            const State& state, Real (&f)[L::Q]) {
  double rho;
  std::array<double, 3> u;
  state(cell, rho, u);
  const bool forced = config.force[0] != 0 || config.force[1] != 0 || config.force[2] != 0;
  const Real ur[3] = {Real(u[0]), Real(u[1]), Real(u[2])};
  if (config.initial == InitialCondition::Uniform && !forced) {
    for (int q = 0; q < L::Q; ++q) f[q] = equilibrium<L, Real>(q, Real(rho), ur);
    return;
  }
  Real G[3][3] = {};
  FlowCurvature<Real> k;
  for (int a = 0; a < L::D && config.initial != InitialCondition::Uniform; ++a) {
    const int n = config.cells[a];
    const bool periodic = config.faces[2 * a].type == FaceBC::Periodic;
    std::array<int, 3> lo = cell, hi = cell;
    lo[a] = periodic ? cell[a] - 1 : std::max(cell[a] - 1, 0);
    hi[a] = periodic ? cell[a] + 1 : std::min(cell[a] + 1, n - 1);
    if (hi[a] <= lo[a]) continue;
    double rho_hi, rho_lo;
    std::array<double, 3> up, um;
    state(hi, rho_hi, up);
    state(lo, rho_lo, um);
    const double span = double(hi[a] - lo[a]);
    for (int d = 0; d < 3; ++d) G[a][d] = Real((up[d] - um[d]) / span);
    k.rho_gradient[a] = Real((rho_hi - rho_lo) / span);
  }
  rebuild_post_collision<L>(Real(rho), ur, G, k, rates, f);
}

// The same with initial_macroscopic evaluated at every point the differences read.
template <class L, class Real>
void initial_post_collision(const Config& config, const CouplingRates<Real>& rates, const std::array<int, 3>& cell,
                            Real (&f)[L::Q]) {
  initial_post_collision<L>(
      config, rates, cell,
      [&](const std::array<int, 3>& p, double& rho, std::array<double, 3>& u) {
        initial_macroscopic(config, {double(p[0]), double(p[1]), double(p[2])}, rho, u);
      },
      f);
}

// The deck's initial condition (initial_post_collision in every cell), ghost cells included.
template <class L, class Real>
Populations<Real> initial_populations(const Field& field, const Config& config);

// Order-independent hash of the populations of the owned fluid cells, keyed by global cell index:
// equal across schemes, ranks and decompositions iff every bit is equal.
template <class L, class Real>
std::uint64_t fields_hash(const Field& field, const Populations<Real>& canonical);

// Densities outside [0.1, 10] rho0 (or NaN) mean the run has blown up; reports the first such
// cell by global index.
template <class L, class Real>
Health check_health(const Field& field, const Populations<Real>& canonical, double rho0);

// Each cell's mass summed in direction order, the cells in an order-independent exact sum.
template <class L, class Real>
ExactSum total_mass(const Field& field, const Populations<Real>& canonical);

// Adds w_q delta to every population of every fluid cell, ghosts included: a uniform density
// change that moves no momentum and makes no gradient (the mass restoration of decks with
// interpolated bounce-back and no open face, drivers/Simulation.cpp).
template <class L, class Real>
void shift_density(const Field& field, const Populations<Real>& lattice, double delta);

// Density and velocity of the owned cells at the step the canonical state belongs to: the moments
// of each cell's own post-collision populations (post_collision_moments), as the AMR levels give
// them. Until 2026-12-07 they were gathered through the ghosts and the boundary rules, which is
// the next step's pre-collision state: every uniform-grid output was read one step late.
template <class L, class Real>
HostMacroscopic macroscopic(const Field& field, const Populations<Real>& canonical, const CellPhysics<Real>& physics);
// The same fields into `out` (owned cells x 4), left on the device.
template <class L, class Real>
void device_moments(const Field& field, const Populations<Real>& canonical, const CellPhysics<Real>& physics,
                    const CellMoments& out);

}  // namespace boreas
