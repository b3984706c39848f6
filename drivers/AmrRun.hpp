#pragma once
// A deck with an [amr] table run to the end on one rank (issue 13 A): progress lines, the
// vtkOverlappingAMR series (io/AmrSeries.hpp), stability checks and report.json with the cells
// per level, level-weighted MLUPS and seed 000's timing categories.
#include <utility>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Config.hpp"
#include "drivers/Simulation.hpp"
#include "io/Json.hpp"

namespace boreas {

Json run_amr_deck(const Config& config, const RunOptions& options);

// A velocity profile along the line where coordinate `across` equals `at` (level-0 units, a cell
// face on every level): one point per leaf cell beside the line, (its centre along `along`, level-0
// units; velocity component `component`, averaged with the cell of the same level facing it across
// the line where there is one), sorted by position.
std::vector<std::pair<double, double>> amr_line_profile(const std::vector<AmrBlockSample>& samples, int across, double at,
                                                        int along, int component);

// The [validation] observables that apply to AMR runs: mass, ghia_centerline (2D cavities).
Json amr_observables(const Config& config, const AmrSolver& solver);

}  // namespace boreas
