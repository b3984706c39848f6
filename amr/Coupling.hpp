#pragma once
// Level coupling of the AMR grid (seed 000 §III, ../shared/PAPERS.md A), per cell.
//
// Acoustic scaling: dx and dt halve per level, so lattice velocities are equal on every level,
// (tau_l - 1/2) = 2^l (tau_0 - 1/2) (seed 000 Eq. 7), a body force (an acceleration, dx/dt^2)
// halves per level and velocity gradients (1/dt) halve too.
//
// Populations crossing a level are rebuilt from density, velocity and velocity gradient under the
// target level's relaxation rates (lbm/physics/ChapmanEnskog.hpp). Dropping the force part of the
// Chapman-Enskog state loses momentum flux u F at every interface crossing, a first-order error in
// forced flows. Rescaling stored post-collision non-equilibrium parts by (tau_f - 1) / (2 (tau_c -
// 1)) (seed 000 Eq. 8 applied after collision) is singular at tau_c = 1, where the post-collision
// state holds no strain rate at all; here the gradient comes from the velocity field itself
// (finite differences of the source level), which every tau can use: a regularised coupling.
// With the Smagorinsky model each rebuilt cell takes tau = tau_l + 3 C_s^2 |S| from the gradient
// it is given (the filter width is the level's dx, as on the leaves), so the eddy viscosity
// crosses levels with the strain rate.
#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Serial_Impl.hpp>
#include <KokkosBatched_SolveLU_Decl.hpp>
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>

#include "lbm/physics/ChapmanEnskog.hpp"

namespace boreas {

inline double level_tau(double tau0, int level) { return 0.5 + std::ldexp(tau0 - 0.5, level); }

inline std::array<double, 3> level_force(const std::array<double, 3>& force0, int level) {
  return {std::ldexp(force0[0], -level), std::ldexp(force0[1], -level), std::ldexp(force0[2], -level)};
}

// The velocity at the centre of a coarse cell a body partly covers, from its fluid children
// (AmrFineToCoarse): their mean lies off the centre, toward the fluid (a wall at 1.76 made the
// coarse cell at 2 read its child at 2.25: +27 % next to the wall). A least-squares plane through
// the fluid children and points on the wall at rest between each and its solid neighbours (where
// the fine level's link meets the wall), evaluated at the centre; its slopes are the strain.
// Positions are in coarse cells from the centre. Every fluid child has, along each axis, a fluid
// neighbour 1/2 away or a wall point at least 1/4 away (AmrFineToCoarse keeps the wall on the
// centre's far side), so the normal equations (D + 1 unknowns) are positive definite and well
// conditioned: KokkosBatched's LU without pivoting solves them. The centre's value is held between
// the points' values (a plane through the inner corner of an edge overshoots: with halfway walls
// it gave -u there, where the velocity is 0).
template <class Real>
struct CutCellFit {
  Real A[4][4] = {}, B[4][3] = {};               // sums of phi phi^T and phi v^T, phi = (1, x, y, z)
  Real v_lo[3] = {0, 0, 0}, v_hi[3] = {0, 0, 0};  // the points' values, the walls' 0 among them

  KOKKOS_INLINE_FUNCTION void add(const Real (&s)[3], const Real (&v)[3]) {
    const Real phi[4] = {1, s[0], s[1], s[2]};
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 4; ++k) A[i][k] += phi[i] * phi[k];
      for (int d = 0; d < 3; ++d) B[i][d] += phi[i] * v[d];
    }
    for (int d = 0; d < 3; ++d) {
      v_lo[d] = v[d] < v_lo[d] ? v[d] : v_lo[d];
      v_hi[d] = v[d] > v_hi[d] ? v[d] : v_hi[d];
    }
  }

  // u at the centre and G[a][d] = d u_d / d x_a over the first `dims` axes.
  KOKKOS_INLINE_FUNCTION void solve(int dims, Real (&u)[3], Real (&G)[3][3]) const {
    const int n = 1 + dims;
    Real m[16], r[12];
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < n; ++k) m[i * n + k] = A[i][k];
      for (int d = 0; d < 3; ++d) r[i * 3 + d] = B[i][d];
    }
    using Unmanaged = Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::AnonymousSpace,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Unmanaged M(m, n, n), R(r, n, 3);
    KokkosBatched::SerialLU<KokkosBatched::Algo::LU::Unblocked>::invoke(M);
    KokkosBatched::SerialSolveLU<KokkosBatched::Trans::NoTranspose, KokkosBatched::Algo::SolveLU::Unblocked>::invoke(M, R);
    for (int d = 0; d < 3; ++d) {
      const Real c = r[d];
      u[d] = c < v_lo[d] ? v_lo[d] : c > v_hi[d] ? v_hi[d] : c;
      for (int a = 0; a < 3; ++a) G[a][d] = 0;
    }
    for (int a = 0; a < dims; ++a)
      for (int d = 0; d < 3; ++d) G[a][d] = r[(1 + a) * 3 + d];
  }
};

}  // namespace boreas
