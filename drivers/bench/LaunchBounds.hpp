#pragma once
// The D3Q19 BGK pull and push steps under several device launch shapes (issue 16): on an H200 the
// FP32 pull step used 76 registers per thread, which held it to 24 of 64 warps per SM, and was
// latency-bound (perf/README.md, "the second GPU run"). Capping the registers trades spills for
// warps, and Kokkos 3.4 launches a RangePolicy in the smallest block of the best occupancy it
// computes (32 threads for these steps), so that no cap can give more than 32 warps per SM (32
// blocks per SM); explicit team sizes lift that limit. Which way it pays only a GPU can tell, so
// the benchmark measures each shape in one process.
#include <string>
#include <vector>

#include "core/Config.hpp"

namespace boreas::bench {

// "default" (Kokkos's launch, no cap), "256x3" (Kokkos::LaunchBounds<256, 3>: at most 85
// registers), "256x4" (64), "256x5" (51) and "256x6" (42).
const std::vector<std::string>& launch_bound_names();

// Why this build cannot time launch bounds (a host backend, a Kepler build), or "": checked before
// any measurement.
std::string launch_bounds_unavailable();

// A team size must be 0 (a RangePolicy: Kokkos picks the block) or a whole number of warps up to
// 1024; with a bound, no larger than the bound's threads per block. Empty when it is valid, else why.
std::string team_size_problem(int team_size, const std::string& bound);

// What a work item computes: the full step (the general path: every link tested against the
// flags, the boundary branches of all 19 directions compiled in), the plain step (the bulk path,
// the same arithmetic for a cell whose neighbours are all fluid, no flag test at all), or the
// split step the schemes run (the cell's neighbourhood tested once, then the bulk path where it is
// all fluid: Traversal.hpp step_cell): what the general code and the test cost a GPU kernel. The
// bench's periodic box is all fluid, where the three should agree: one step of plain and of split
// from the same state is compared with one full step (LaunchTiming::differs_from_full).
enum class StepForm { full, plain, split };
inline const char* step_form_name(StepForm form) {
  return form == StepForm::full ? "full" : form == StepForm::plain ? "plain" : "split";
}

// How a team's threads map to cells: in CellSweep's linear order (only the block size differs from
// Kokkos's launch) or along one x row per team (no index division per cell either).
enum class TeamMap { cells, rows };

struct LaunchTiming {
  std::string bounds;
  int team_size = 0;         // 0: RangePolicy, Kokkos's block size
  TeamMap map = TeamMap::cells;
  StepForm form = StepForm::full;
  double mlups = 0;          // median of the repeats
  std::vector<double> all;
  long differs_from_full = 0;  // plain, split: populations in which its step and the full step's differ
};

// `steps` steps of config.kernel (ab_pull or ab_push) with BGK on config's box (D3Q19), per form
// in `forms`, bound in `bounds`, team size in `team_sizes` (0: Kokkos's RangePolicy launch; n: a
// TeamPolicy of n threads per team) and, for teams, map in `maps`, each timed `repeats` times:
// kernel launches only, no periodic exchange. Device backends only (launch shapes mean nothing to
// a host backend): throws Error elsewhere. Callers check each bound / team size pair with
// team_size_problem first.
template <class Real>
std::vector<LaunchTiming> launch_bounds_mlups(const Config& config, long steps, int repeats,
                                              const std::vector<std::string>& bounds,
                                              const std::vector<int>& team_sizes, const std::vector<TeamMap>& maps,
                                              const std::vector<StepForm>& forms);

}  // namespace boreas::bench
