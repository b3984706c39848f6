#pragma once
// What both drivers do with a deck's [statistics] (time averages, lbm/field/RunningStatistics.hpp):
// when they sample, what report.json says of them and the cell arrays they add to VTK outputs.
#include <limits>
#include <vector>

#include "io/Json.hpp"
#include "io/VtkSeries.hpp"
#include "lbm/field/RunningStatistics.hpp"

namespace boreas {

// Sampling of a run's averages: the deck's start and every, the samples so far and the step of
// the first (a restart that continues them keeps the original run's).
struct Sampling {
  long start, every, samples, first_sample;
  // The first sampled step after `step` (or statistics.start); the largest long where that lies
  // beyond it (an `every` near 2^63 overflowed to a negative step, and a run of 2^63 steps).
  long next_after(long step) const {
    if (step < start) return start;
    const long k = (step - start) / every + 1;
    return k > (std::numeric_limits<long>::max() - start) / every ? std::numeric_limits<long>::max() : start + k * every;
  }
  bool at(long step) const { return step >= start && (step - start) % every == 0; }
  // A statistics file's header keys (drivers/Checkpointing.hpp statistics_header).
  Json json() const;
  // report.json's "statistics": the same and the arrays written (none before the first sample,
  // and none without VTK outputs, the only files that hold them besides checkpoints).
  Json report(bool vtk) const;
};

// The averages as VTK cell arrays: mean_density, mean_velocity, rms_velocity, reynolds_stress.
std::vector<CellFields::Extra> statistics_arrays(RunningStatistics::HostFields fields);

}  // namespace boreas
