#include "drivers/RunPlots.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/Error.hpp"
#include "io/LinePlot.hpp"

namespace boreas {

void plot_csv(const CsvSeries& csv, const std::vector<CsvPanel>& panels, const std::string& path) {
  std::vector<double> steps(csv.steps().begin(), csv.steps().end());
  std::vector<PlotPanel> plot;
  for (const CsvPanel& p : panels) {
    PlotPanel panel{p.title, {}};
    for (const auto& [name, column] : p.columns) {
      PlotSeries s{name, steps, {}};
      for (const auto& row : csv.rows()) s.y.push_back(row[std::size_t(column)]);
      panel.series.push_back(std::move(s));
    }
    plot.push_back(std::move(panel));
  }
  write_line_plot(path, plot, "time step");
}

void plot_probes(const CsvSeries& probes, const std::vector<Probe>& list, int dimensions, const std::string& path) {
  const int shown = std::min<int>(plotted_probes, int(list.size()));
  std::vector<CsvPanel> panels;
  const char* titles[] = {"density", "velocity u_x", "velocity u_y", "velocity u_z"};
  for (int q : {1, 2, 3, 0}) {
    if (q == 3 && dimensions == 2) continue;
    CsvPanel panel{titles[q], {}};
    for (int p = 0; p < shown; ++p) panel.columns.push_back({list[p].name, quantities_per_probe * p + q});
    panels.push_back(panel);
  }
  if (int(list.size()) > shown)
    panels.front().title += " (first " + std::to_string(shown) + " of " + std::to_string(list.size()) + " probes)";
  plot_csv(probes, panels, path);
}

void warn_about_history(const CsvSeries& series, long first_step, bool root) {
  if (root && !series.cut_row().empty())
    std::fprintf(stderr, "boreas: warning: %s: its last row was cut short (a full disk or a killed run?) and is dropped: \"%.60s%s\"\n",
                 series.path().c_str(), series.cut_row().c_str(), series.cut_row().size() > 60 ? "..." : "");
  if (root && series.history_missing())
    std::fprintf(stderr,
                 "boreas: warning: %s did not exist when the run restarted at step %ld: it and the statistics in "
                 "report.json cover only the steps from there (restart into the earlier run's output directory "
                 "to continue its series)\n",
                 series.path().c_str(), first_step);
}

CsvSeries probe_series(const Config& config, bool writer, long first_step) {
  std::vector<std::string> columns;
  for (const Probe& p : config.probes)
    for (const char* q : probe_quantities) columns.push_back(p.name + "_" + q);
  return CsvSeries((std::filesystem::path(config.output_dir) / "probes.csv").string(), columns, writer, first_step);
}

void finish_probes(const CsvSeries& probes, const Config& config, Json& report, bool writer) {
  Json p = Json::object();
  p["file"] = probes.path();
  p["every"] = config.probes_every;
  p["probes"] = long(config.probes.size());
  p["samples"] = long(probes.steps().size());
  report["probes"] = p;
  if (!writer) return;
  plot_into_report(report, (std::filesystem::path(config.output_dir) / "probes.png").string(),
                   [&](const std::string& path) { plot_probes(probes, config.probes, config.dimensions(), path); });
}

void plot_into_report(Json& report, const std::string& path, const std::function<void(const std::string&)>& draw) {
  try {
    draw(path);
    if (!report.contains("plots")) report["plots"] = Json::array();
    report["plots"].push_back(path);
  } catch (const Error& e) {
    std::fprintf(stderr, "boreas: warning: %s\n", e.what());
    report["plots_error"] = e.what();
  }
}

}  // namespace boreas
