#pragma once
// Floating-point operations of one cell's collision, counted rather than estimated: the per-cell
// physics (lbm/physics/Collision.hpp) runs once on a number type that counts its additions,
// subtractions, multiplications, divisions and square roots, one each (negations, comparisons,
// casts and copies are not counted).
// The bench reports it per update with the arithmetic intensity against the kernel's traffic.
#include <Kokkos_Core.hpp>

#include "core/Config.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas::bench {

// Its operations are host-device functions because the collisions that run on it are
// (KOKKOS_INLINE_FUNCTION templates): nvcc warns at every call of a host-only function from them
// (about 7,000 warnings in boreas_bench.cpp). It only ever runs on the host, where it counts.
struct CountedReal {
  double v = 0;
  static inline long long operations = 0;
  KOKKOS_INLINE_FUNCTION static void count() {
#ifdef KOKKOS_ACTIVE_EXECUTION_MEMORY_SPACE_HOST
    ++operations;
#endif
  }
  KOKKOS_INLINE_FUNCTION constexpr CountedReal(double x = 0) : v(x) {}
  KOKKOS_INLINE_FUNCTION friend CountedReal operator+(CountedReal a, CountedReal b) { return count(), CountedReal(a.v + b.v); }
  KOKKOS_INLINE_FUNCTION friend CountedReal operator-(CountedReal a, CountedReal b) { return count(), CountedReal(a.v - b.v); }
  KOKKOS_INLINE_FUNCTION friend CountedReal operator*(CountedReal a, CountedReal b) { return count(), CountedReal(a.v * b.v); }
  KOKKOS_INLINE_FUNCTION friend CountedReal operator/(CountedReal a, CountedReal b) { return count(), CountedReal(a.v / b.v); }
  KOKKOS_INLINE_FUNCTION friend CountedReal sqrt(CountedReal a) { return count(), CountedReal(Kokkos::Experimental::sqrt(a.v)); }
  KOKKOS_INLINE_FUNCTION CountedReal operator-() const { return CountedReal(-v); }
  KOKKOS_INLINE_FUNCTION friend bool operator<(CountedReal a, CountedReal b) { return a.v < b.v; }
  KOKKOS_INLINE_FUNCTION friend bool operator>(CountedReal a, CountedReal b) { return a.v > b.v; }
  KOKKOS_INLINE_FUNCTION friend bool operator!=(CountedReal a, CountedReal b) { return a.v != b.v; }
  KOKKOS_INLINE_FUNCTION CountedReal& operator+=(CountedReal b) { return *this = *this + b; }
  KOKKOS_INLINE_FUNCTION CountedReal& operator-=(CountedReal b) { return *this = *this - b; }
  KOKKOS_INLINE_FUNCTION CountedReal& operator*=(CountedReal b) { return *this = *this * b; }
};

// Operations of one collision of `config`'s lattice and model (with its body force and subgrid
// model, if any) on a cell near rest.
inline long long collision_flops(const Config& config) {
  return dispatch_lattice(config.lattice, [&](auto lattice) {
    using L = decltype(lattice);
    CollisionParams<CountedReal> params = CollisionParams<CountedReal>::make(
        config.tau, config.trt_magic, config.force,
        config.sgs == SgsModel::Smagorinsky ? config.smagorinsky_constant : 0.0);
    params.parametrised = config.cumulant_parametrised;
    params.limiter = CountedReal(config.cumulant_limiter);
    CountedReal f[L::Q];
    for (int q = 0; q < L::Q; ++q) f[q] = CountedReal(L::w(q) * (1 + 0.01 * L::c(q, 0)));
    CountedReal::operations = 0;
    dispatch_collision<L>(config.collision, [&](auto collision) { decltype(collision)::template collide<L>(f, params); });
    return CountedReal::operations;
  });
}

}  // namespace boreas::bench
