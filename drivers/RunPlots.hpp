#pragma once
// The plots a run draws beside its CSV series (io/LinePlot.hpp): forces.png (drag and lift
// coefficients of every body against the step) and probes.png (velocity components and density
// of the first probe cells against the step).
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "io/CsvSeries.hpp"

namespace boreas {

// Panels of columns of `csv` against its steps: per panel a title and its (series name, column).
struct CsvPanel {
  std::string title;
  std::vector<std::pair<std::string, int>> columns;
};
void plot_csv(const CsvSeries& csv, const std::vector<CsvPanel>& panels, const std::string& path);

// The probes at most plotted (their legend must stay readable); all of them are in probes.csv.
constexpr int plotted_probes = 8;

// forces.csv holds per body fx, fy, fz, c_D, c_L; probes.csv per probe rho, ux, uy, uz.
void plot_forces(const CsvSeries& forces, const std::vector<std::string>& bodies, const std::string& path);
void plot_probes(const CsvSeries& probes, const std::vector<Probe>& list, int dimensions, const std::string& path);

}  // namespace boreas
