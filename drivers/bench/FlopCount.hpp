#pragma once
// Floating-point operations of one cell's collision, counted rather than estimated: the per-cell
// physics (lbm/physics/Collision.hpp) runs once on a number type that counts its additions,
// subtractions, multiplications, divisions and square roots, one each (negations, comparisons,
// casts and copies are not counted).
// The bench reports it per update with the arithmetic intensity against the kernel's traffic.
#include <cmath>

#include "core/Config.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas::bench {

struct CountedReal {
  double v = 0;
  static inline long long operations = 0;
  constexpr CountedReal(double x = 0) : v(x) {}
  friend CountedReal operator+(CountedReal a, CountedReal b) { return ++operations, CountedReal(a.v + b.v); }
  friend CountedReal operator-(CountedReal a, CountedReal b) { return ++operations, CountedReal(a.v - b.v); }
  friend CountedReal operator*(CountedReal a, CountedReal b) { return ++operations, CountedReal(a.v * b.v); }
  friend CountedReal operator/(CountedReal a, CountedReal b) { return ++operations, CountedReal(a.v / b.v); }
  friend CountedReal sqrt(CountedReal a) { return ++operations, CountedReal(std::sqrt(a.v)); }
  CountedReal operator-() const { return CountedReal(-v); }
  friend bool operator<(CountedReal a, CountedReal b) { return a.v < b.v; }
  friend bool operator>(CountedReal a, CountedReal b) { return a.v > b.v; }
  friend bool operator!=(CountedReal a, CountedReal b) { return a.v != b.v; }
  CountedReal& operator+=(CountedReal b) { return *this = *this + b; }
  CountedReal& operator-=(CountedReal b) { return *this = *this - b; }
  CountedReal& operator*=(CountedReal b) { return *this = *this * b; }
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
