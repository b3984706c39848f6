#pragma once
// The plots a run draws beside its CSV series (io/LinePlot.hpp): probes.png (velocity components
// and density of the first probe cells against the step) here, forces.png by ForceSeries::plot.
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "io/CsvSeries.hpp"
#include "io/Json.hpp"

namespace boreas {

// Panels of columns of `csv` against its steps: per panel a title and its (series name, column).
struct CsvPanel {
  std::string title;
  std::vector<std::pair<std::string, int>> columns;
};
void plot_csv(const CsvSeries& csv, const std::vector<CsvPanel>& panels, const std::string& path);

// The probes at most plotted (their legend must stay readable); all of them are in probes.csv.
constexpr int plotted_probes = 8;

// The columns probes.csv holds per probe, in order: <name>_rho, <name>_ux, ...
constexpr const char* probe_quantities[] = {"rho", "ux", "uy", "uz"};
constexpr int quantities_per_probe = int(std::size(probe_quantities));
void plot_probes(const CsvSeries& probes, const std::vector<Probe>& list, int dimensions, const std::string& path);
// Draws `draw(path)` for report.json: the path listed under report["plots"], or, when the plot
// cannot be drawn, a warning and report["plots_error"] (never the report's failure).
void plot_into_report(Json& report, const std::string& path, const std::function<void(const std::string&)>& draw);
// probes.csv of a run with [[probe]] (rank 0 writes: `writer`; a restart at `first_step` continues it).
CsvSeries probe_series(const Config& config, bool writer, long first_step);
// What a restart found of the earlier run's series (forces.csv, probes.csv, integrals.csv), said by rank 0
// (`root`): no file (another output directory: the file and its statistics begin at the restart
// step), or a last row cut short (dropped).
void warn_about_history(const CsvSeries& series, long first_step, bool root);
// The end of such a run: report["probes"] and, from the writer, probes.png listed under
// report["plots"] (a plot that cannot be drawn costs a warning and report["plots_error"]).
void finish_probes(const CsvSeries& probes, const Config& config, Json& report, bool writer);

}  // namespace boreas
