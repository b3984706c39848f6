#pragma once
// The D3Q19 BGK pull and push steps under several device launch bounds (issue 16): on an H200 the
// FP32 pull step used 76 registers per thread, which held it to 24 of 64 warps per SM, and was
// latency-bound (perf/README.md, "the second GPU run"). Capping the registers trades spills for
// warps; which way it pays only a GPU can tell, so the benchmark measures each cap in one process.
#include <string>
#include <vector>

#include "core/Config.hpp"

namespace boreas::bench {

// "default" (Kokkos's launch, no cap), "256x3" (Kokkos::LaunchBounds<256, 3>: at most 85
// registers, 24 warps per SM) and "256x4" (64 registers, 32 warps: Kokkos's 32-thread blocks
// reach no more, at 32 blocks per SM).
const std::vector<std::string>& launch_bound_names();

struct LaunchTiming {
  std::string bounds;
  double mlups = 0;          // median of the repeats
  std::vector<double> all;
};

// `steps` steps of config.kernel (ab_pull or ab_push) with BGK on config's box (D3Q19), per bound
// in `bounds`, each timed `repeats` times: kernel launches only, no periodic exchange. Device
// backends only (launch bounds mean nothing to a host backend): throws Error elsewhere.
template <class Real>
std::vector<LaunchTiming> launch_bounds_mlups(const Config& config, long steps, int repeats,
                                              const std::vector<std::string>& bounds);

}  // namespace boreas::bench
