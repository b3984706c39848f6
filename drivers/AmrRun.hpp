#pragma once
// A deck with an [amr] table run to the end on one rank (issue 13 A): progress lines, the
// vtkOverlappingAMR series (io/AmrSeries.hpp), stability checks and report.json with the cells
// per level, level-weighted MLUPS and seed 000's timing categories.
#include "core/Config.hpp"
#include "drivers/Simulation.hpp"
#include "io/Json.hpp"

namespace boreas {

Json run_amr_deck(const Config& config, const RunOptions& options);

}  // namespace boreas
