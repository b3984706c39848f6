#pragma once
// Synthetic inflow turbulence: the random flow generation of Smirnov, Shi & Celik (2001, J. Fluids
// Eng. 123, 359), isotropic form, a divergence-free sum of N Fourier modes
//   v(x, t) = sqrt(1/N) sum_n [p_n cos(k_n . x / l + w_n t / tau) + q_n sin(k_n . x / l + w_n t / tau)]
//   p_n = zeta_n x k_n,  q_n = xi_n x k_n,  zeta, xi ~ N(0, 1),  k ~ N(0, 1/2),  w ~ N(0, 1)
// (p and q are normal to k: div v = 0; the modes are normalised to unit variance per component,
// InflowGenerator.hpp random_flow_modes). A velocity inlet adds u' = I U(x) v(x, t) to its
// velocity, with I the intensity and U(x) the local mean speed (the profile's), so that u' fades
// where the mean does (walls, the ground of a log law). l is the length scale (cells), tau the
// time scale (steps, default l / U). The field is evaluated once per step at the centre of each
// inlet cell's face (every link of the cell takes that value), in double from modes drawn with a
// fixed seed, on every rank alike: every decomposition gets the same bits.
#include <Kokkos_Core.hpp>

#include "core/Types.hpp"

namespace boreas {

// The unit field v at point x (already divided by l) and time t (divided by tau); `modes` is a
// (N, 10) view of k[3], p[3], q[3], w per mode.
template <class Modes>
KOKKOS_INLINE_FUNCTION void random_flow(const Modes& modes, const double (&x)[3], double t, double (&v)[3]) {
  v[0] = v[1] = v[2] = 0;
  const long n = long(modes.extent(0));
  for (long m = 0; m < n; ++m) {
    const double phase = modes(m, 0) * x[0] + modes(m, 1) * x[1] + modes(m, 2) * x[2] + modes(m, 9) * t;
    const double c = Kokkos::Experimental::cos(phase), s = Kokkos::Experimental::sin(phase);
    for (int d = 0; d < 3; ++d) v[d] += modes(m, 3 + d) * c + modes(m, 6 + d) * s;
  }
  const double scale = 1 / Kokkos::Experimental::sqrt(double(n));
  for (int d = 0; d < 3; ++d) v[d] *= scale;
}

template <class Real>
struct InflowTurbulence {
  int face = -1;          // the turbulent inlet; -1: none
  int axes[2] = {1, 2};   // the face's tangential axes
  int extent[2] = {1, 1};
  DeviceView<Real* * [3]> field;  // u' per face cell (along axes[0], axes[1]) at the current step

  // u' of the inlet cell at global position `cell` (periodic ghosts wrap onto the face).
  KOKKOS_INLINE_FUNCTION void at(const int (&cell)[3], Real (&u)[3]) const {
    const int a = ((cell[axes[0]] % extent[0]) + extent[0]) % extent[0];
    const int b = ((cell[axes[1]] % extent[1]) + extent[1]) % extent[1];
    for (int d = 0; d < 3; ++d) u[d] = field(a, b, d);
  }
};

}  // namespace boreas
