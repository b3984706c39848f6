#pragma once
// A deck with an [amr] table run to the end (issue 13): progress lines, the vtkOverlappingAMR
// series (io/AmrSeries.hpp), forces and probes, stability checks and report.json with the cells
// per level, level-weighted MLUPS and seed 000's timing categories.
#include <array>
#include <utility>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Config.hpp"
#include "drivers/Simulation.hpp"
#include "io/Json.hpp"

namespace boreas {

Json run_amr_deck(const Config& config, const RunOptions& options);

// A velocity profile along axis `along` on the line through `through` (level-0 units; its other
// coordinates lie on cell faces of every level, e.g. the middle of an even extent; z is ignored in
// 2D): one point per (level, position along) of the leaf cells touching the line, (the cell
// centre's coordinate along the line, the mean of velocity component `component` over those
// cells: 2 in 2D, 4 in 3D, where one level lies on every side), sorted by position.
std::vector<std::pair<double, double>> amr_line_profile(const std::vector<AmrBlockSample>& samples, int along,
                                                        const std::array<double, 3>& through, int component);

// The [validation] observables that apply to AMR runs: mass, ghia_centerline (2D cavities).
Json amr_observables(const Config& config, const AmrSolver& solver);

}  // namespace boreas
