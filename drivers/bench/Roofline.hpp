#pragma once
// Memory-bandwidth references measured by the benchmark binary itself (DESIGN.md, performance
// contract): a STREAM-like copy, the roofline of two-lattice kernels, and a Q-stream in-place
// update, the roofline of in-place kernels (AA, swap).
#include <vector>

namespace boreas::bench {

struct Bandwidth {
  double median_gbs = 0;
  std::vector<double> all_gbs;
};

// b(i) = a(i) over `elements` reals, counting 2 * sizeof(Real) bytes per element (read + write;
// the write-allocate read that a CPU cache adds is not counted, as for the LBM kernels).
template <class Real>
Bandwidth copy_bandwidth(long elements, int repeats);

// copy_bandwidth's kernel and Kokkos::deep_copy(b, a) on the same two arrays, counted alike:
// the vendor's copy (cudaMemcpy on CUDA), a check that the plain kernel reaches what the memory
// gives.
struct CopyBandwidths {
  Bandwidth kernel, deep_copy;
};
template <class Real>
CopyBandwidths copy_bandwidths(long elements, int repeats);

// a_q(i) = s * a_q(i) for q < streams, i < elements_per_stream, all streams in one kernel,
// counting 2 * sizeof(Real) bytes per element and stream.
template <class Real>
Bandwidth inplace_bandwidth(long elements_per_stream, int streams, int repeats);

}  // namespace boreas::bench
