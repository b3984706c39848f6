#pragma once
// A sum of doubles whose result does not depend on the order of its terms: every term is cut into
// an integer part and a 64-bit binary fraction (bits below 2^-64 are dropped, the same way for
// every term) kept in three integer accumulators, so that thread count, rank count and
// decomposition cannot change a bit of the total (report.json's mass). Terms must lie in
// (-2^62, 2^62); others, and NaN, make the total NaN. The fraction words are carried after every
// addition, so that they stay below 2^32 and any number of terms and ranks sums without overflow
// (uncarried, the upper fraction word overflowed past about 2^31 terms whose fraction is near 1,
// such as cells of density just under 1: a mass over some 2e9 cells).
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace boreas {

struct ExactSum {
  long long whole = 0;      // sum of the integer parts (floor)
  long long high = 0;       // sum of the upper 32 bits of the fractions, in units of 2^-32
  long long low = 0;        // sum of the lower 32 bits, in units of 2^-64
  long long not_finite = 0; // terms out of range

  KOKKOS_INLINE_FUNCTION void add(double v) {
    if (!(v > -4.6e18 && v < 4.6e18)) {  // about 2^62; false for NaN
      ++not_finite;
      return;
    }
    long long integer = static_cast<long long>(v);  // truncated toward zero: exact below 2^62
    if (double(integer) > v) --integer;              // floor
    const double w = double(integer);                // exact: v's own integer part
    const double fraction = (v - w) * 18446744073709551616.0;  // exact: v - w is exact, the scale a power of 2
    const std::uint64_t bits = fraction >= 18446744073709551615.0 ? ~std::uint64_t(0) : std::uint64_t(fraction);
    whole += integer;
    high += static_cast<long long>(bits >> 32);
    low += static_cast<long long>(bits & 0xffffffffu);
    carry(whole, high, low);
  }

  KOKKOS_INLINE_FUNCTION ExactSum& operator+=(const ExactSum& o) {
    whole += o.whole;
    high += o.high;
    low += o.low;
    not_finite += o.not_finite;
    carry(whole, high, low);
    return *this;
  }
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile ExactSum& o) volatile {
    long long w = whole + o.whole, h = high + o.high, l = low + o.low;
    carry(w, h, l);
    whole = w;
    high = h;
    low = l;
    not_finite += o.not_finite;
  }

  // The total, rounded once from its exact fixed-point value (the words are carried).
  double value() const {
    if (not_finite) return std::numeric_limits<double>::quiet_NaN();
    const std::uint64_t fraction = (std::uint64_t(high) << 32) | std::uint64_t(low);
    return double(whole) + std::ldexp(double(fraction), -64);
  }

  // The fraction words' parts of 2^32 and more into the next word up (both are non-negative):
  // the same total, each word below 2^32 again.
  KOKKOS_INLINE_FUNCTION static void carry(long long& whole, long long& high, long long& low) {
    high += low >> 32;
    low &= 0xffffffffLL;
    whole += high >> 32;
    high &= 0xffffffffLL;
  }
};

}  // namespace boreas
