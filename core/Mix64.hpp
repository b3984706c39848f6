#pragma once
// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014): its finaliser mixes 64 bits so that every input bit reaches every output bit. Boreas's
// hashes (fields_hash, checkpoint digests) and its counter-based deviates share it, so that they
// agree on every backend. io/ is built without Kokkos: there it is a plain inline function.
#include <cstdint>

#if __has_include(<Kokkos_Macros.hpp>)
#include <Kokkos_Macros.hpp>
#define BOREAS_MIX_FUNCTION KOKKOS_INLINE_FUNCTION
#else
#define BOREAS_MIX_FUNCTION inline
#endif

namespace boreas {

// splitmix64's increment (2^64 / golden ratio, odd).
constexpr std::uint64_t kSplitmixGamma = 0x9e3779b97f4a7c15ull;

BOREAS_MIX_FUNCTION std::uint64_t splitmix_finalise(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace boreas

#undef BOREAS_MIX_FUNCTION
