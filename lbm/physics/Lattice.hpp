#pragma once
// Compile-time lattice descriptors. Velocity ordering (Palabos convention, Fu's thesis ch. 5):
// index 0 is the rest velocity, c_1..c_{H} all have their first non-zero component negative and
// c_{i+H} = -c_i, H = (Q-1)/2. The swap scheme needs this property; every scheme may rely on
// opposite(i) = i +- H.
#include <Kokkos_Core.hpp>

#include "core/Config.hpp"

namespace boreas {

struct D2Q9 {
  static constexpr int D = 2, Q = 9, H = 4;
  static constexpr LatticeKind kind = LatticeKind::D2Q9;
  static constexpr const char* name = "D2Q9";
  // Direction q packed as (cx+1) + 3 (cy+1) + 9 (cz+1); a switch (not an array) keeps it
  // usable in device code and lets compile-time q fold to constants.
  KOKKOS_INLINE_FUNCTION static constexpr int code(int q) {
    switch (q) {
      case 1: return 12;
      case 2: return 10;
      case 3: return 9;
      case 4: return 15;
      case 5: return 14;
      case 6: return 16;
      case 7: return 17;
      case 8: return 11;
      default: return 13;
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int q, int d) {
    return (d == 0 ? code(q) : d == 1 ? code(q) / 3 : code(q) / 9) % 3 - 1;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int q) {
    return q == 0 ? 4.0 / 9.0 : ((q - 1) % H < 2 ? 1.0 / 9.0 : 1.0 / 36.0);
  }
};

struct D3Q19 {
  static constexpr int D = 3, Q = 19, H = 9;
  static constexpr LatticeKind kind = LatticeKind::D3Q19;
  static constexpr const char* name = "D3Q19";
  // Direction q packed as (cx+1) + 3 (cy+1) + 9 (cz+1); a switch (not an array) keeps it
  // usable in device code and lets compile-time q fold to constants.
  KOKKOS_INLINE_FUNCTION static constexpr int code(int q) {
    switch (q) {
      case 1: return 12;
      case 2: return 10;
      case 3: return 4;
      case 4: return 9;
      case 5: return 15;
      case 6: return 3;
      case 7: return 21;
      case 8: return 1;
      case 9: return 19;
      case 10: return 14;
      case 11: return 16;
      case 12: return 22;
      case 13: return 17;
      case 14: return 11;
      case 15: return 23;
      case 16: return 5;
      case 17: return 25;
      case 18: return 7;
      default: return 13;
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int q, int d) {
    return (d == 0 ? code(q) : d == 1 ? code(q) / 3 : code(q) / 9) % 3 - 1;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int q) {
    return q == 0 ? 1.0 / 3.0 : ((q - 1) % H < 3 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
};

struct D3Q27 {
  static constexpr int D = 3, Q = 27, H = 13;
  static constexpr LatticeKind kind = LatticeKind::D3Q27;
  static constexpr const char* name = "D3Q27";
  // Direction q packed as (cx+1) + 3 (cy+1) + 9 (cz+1); a switch (not an array) keeps it
  // usable in device code and lets compile-time q fold to constants.
  KOKKOS_INLINE_FUNCTION static constexpr int code(int q) {
    switch (q) {
      case 1: return 12;
      case 2: return 10;
      case 3: return 4;
      case 4: return 9;
      case 5: return 15;
      case 6: return 3;
      case 7: return 21;
      case 8: return 1;
      case 9: return 19;
      case 10: return 0;
      case 11: return 18;
      case 12: return 6;
      case 13: return 24;
      case 14: return 14;
      case 15: return 16;
      case 16: return 22;
      case 17: return 17;
      case 18: return 11;
      case 19: return 23;
      case 20: return 5;
      case 21: return 25;
      case 22: return 7;
      case 23: return 26;
      case 24: return 8;
      case 25: return 20;
      case 26: return 2;
      default: return 13;
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int q, int d) {
    return (d == 0 ? code(q) : d == 1 ? code(q) / 3 : code(q) / 9) % 3 - 1;
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int q) {
    return q == 0 ? 8.0 / 27.0
                  : ((q - 1) % H < 3 ? 2.0 / 27.0 : ((q - 1) % H < 9 ? 1.0 / 54.0 : 1.0 / 216.0));
  }
};

template <class L>
KOKKOS_INLINE_FUNCTION constexpr int opposite(int q) {
  return q == 0 ? 0 : (q <= L::H ? q + L::H : q - L::H);
}

// Direction q reflected by planes normal to `axes` (bit d: axis d): its components along them negated.
template <class L>
KOKKOS_INLINE_FUNCTION constexpr int reflected(int q, int axes) {
  for (int k = 0; k < L::Q; ++k) {
    bool same = true;
    for (int d = 0; d < 3; ++d) same = same && L::c(k, d) == (axes >> d & 1 ? -L::c(q, d) : L::c(q, d));
    if (same) return k;
  }
  return q;
}

// reflected<L>(q, axes) for a compile-time q and a run-time `axes` (1-7): constants, no search.
template <class L, int q>
KOKKOS_FORCEINLINE_FUNCTION int reflected_direction(int axes) {
  constexpr int r1 = reflected<L>(q, 1), r2 = reflected<L>(q, 2), r3 = reflected<L>(q, 3), r4 = reflected<L>(q, 4),
                r5 = reflected<L>(q, 5), r6 = reflected<L>(q, 6), r7 = reflected<L>(q, 7);
  switch (axes) {
    case 1: return r1;
    case 2: return r2;
    case 3: return r3;
    case 4: return r4;
    case 5: return r5;
    case 6: return r6;
    default: return r7;
  }
}

// Calls f(std::integral_constant<int, 0>) ... f(std::integral_constant<int, N-1>): loops over
// lattice directions unroll at compile time, so velocities and weights become constants.
template <int N, class F, int... I>
KOKKOS_FORCEINLINE_FUNCTION void static_for_impl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, class F>
KOKKOS_FORCEINLINE_FUNCTION void static_for(F&& f) {
  static_for_impl<N>(static_cast<F&&>(f), std::make_integer_sequence<int, N>{});
}

// Runs f.template operator()<Lattice>() for the lattice a deck chose.
template <class F>
decltype(auto) dispatch_lattice(LatticeKind kind, F&& f) {
  switch (kind) {
    case LatticeKind::D2Q9: return f(D2Q9{});
    case LatticeKind::D3Q19: return f(D3Q19{});
    default: return f(D3Q27{});
  }
}

}  // namespace boreas
