#pragma once
// The roofline of a streaming variant, measured by the benchmark: the variant's own step functors
// (PullStep, PushStep, AALocalStep / AANeighbourStep, SwapRow) with a collision that does nothing,
// on a block of the same size, storage layout and traversal (vectorised rows and chunk sizes on
// CPUs, cells on GPUs). It moves exactly the bytes the variant moves, the way it moves them
// (write-allocate for two-lattice steps, in place for AA and swap), and does no arithmetic, so a
// kernel cannot run faster: kernel / reference <= 1 by construction, up to timing noise. merged<k>
// and merged_aa<k> are held to k times the reference of their single step (at best a sweep of k
// steps moves one step's bytes).
#include <vector>

#include "core/Config.hpp"

namespace boreas::bench {

struct StreamReference {
  const char* pattern;       // the single-step pattern measured
  double mlups = 0;          // the variant's roofline: median, times k for merged sweeps
  std::vector<double> all;   // single-step MLUPS of every repeat
};

// `config`: the benchmark's periodic box and the variant; `steps` steps per timed repeat. Defined in
// StreamReference.inl, instantiated once per lattice and precision (drivers/bench/CMakeLists.txt).
template <class L, class Real>
StreamReference stream_reference(Config config, long steps, int repeats);

}  // namespace boreas::bench
