#pragma once
// The per-cell hash of fields_hash (FieldOps.hpp): a cell's global index and its populations' bits
// mixed by the splitmix64 finaliser, summed over cells so that any storage and cell order give the
// same value (the dense and the sparse storage share it).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

#include "core/Mix64.hpp"

namespace boreas::field_detail {

KOKKOS_INLINE_FUNCTION std::uint64_t mix64(std::uint64_t z) { return splitmix_finalise(z + kSplitmixGamma); }
template <class Real>
KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(Real v) {
  if constexpr (sizeof(Real) == 8) {
    std::uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  } else {
    std::uint32_t b;
    memcpy(&b, &v, 4);
    return b;
  }
}

// One cell's term of the hash: `load(q)` returns its canonical population q.
template <int Q, class Load>
KOKKOS_INLINE_FUNCTION std::uint64_t cell_hash(std::uint64_t global_index, const Load& load) {
  std::uint64_t h = mix64(global_index);
  for (int q = 0; q < Q; ++q) h = mix64(h ^ bits_of(load(q)));
  return h;
}

// Population q of a cell at first[q * stride]: the load of cell_hash for host loops (a host
// lambda there draws nvcc's warning that a host-device function calls a host function).
template <class Real>
struct StridedPopulations {
  const Real* first;
  long stride;
  KOKKOS_INLINE_FUNCTION Real operator()(int q) const { return first[q * stride]; }
};

}  // namespace boreas::field_detail
