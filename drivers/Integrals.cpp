#include "drivers/Integrals.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "comm/Mpi.hpp"
#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "drivers/RunPlots.hpp"

namespace boreas {

std::vector<double> flow_integrals(const Simulation& sim, long long fluid_cells, MPI_Comm comm) {
  const Config& c = sim.config();
  const std::vector<HostMacroscopic> local = sim.local_macroscopic();
  const std::vector<std::vector<double>> vorticity = sim.local_vorticity_magnitude(local);
  ExactSum energy, enstrophy;
  double max_speed = 0;
  for (std::size_t b = 0; b < local.size(); ++b) {
    const HostMacroscopic& m = local[b];
    for (std::size_t i = 0; i < m.density.size(); ++i) {
      if (m.flags[i] != flag::fluid) continue;
      const double* u = &m.velocity[3 * i];
      const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      const double rho = m.density[i] / c.density;
      energy.add(0.5 * rho * u2);
      enstrophy.add(0.5 * rho * vorticity[b][i] * vorticity[b][i]);
      max_speed = std::max(max_speed, std::sqrt(u2));
    }
  }
  const Comm world(comm);
  const std::vector<double> totals = world.sum(std::vector<ExactSum>{energy, enstrophy});
  const double E = totals[0] / double(fluid_cells), Z = totals[1] / double(fluid_cells);
  return {E, Z, 2 * c.viscosity * Z, world.max(max_speed)};
}

CsvSeries integral_series(const Config& config, bool writer, long first_step) {
  return CsvSeries((std::filesystem::path(config.output_dir) / "integrals.csv").string(),
                   std::vector<std::string>(std::begin(integral_columns), std::end(integral_columns)), writer, first_step);
}

void finish_integrals(const CsvSeries& integrals, const Config& config, Json& report, bool writer) {
  Json j = Json::object();
  j["file"] = integrals.path();
  j["every"] = config.integrals_every;
  j["samples"] = long(integrals.steps().size());
  if (!integrals.rows().empty()) {
    j["last_step"] = integrals.steps().back();
    for (int k = 0; k < integral_count; ++k) j[integral_columns[k]] = integrals.rows().back()[std::size_t(k)];
  }
  report["integrals"] = j;
  if (!writer) return;
  plot_into_report(report, (std::filesystem::path(config.output_dir) / "integrals.png").string(), [&](const std::string& path) {
    std::vector<CsvPanel> panels;
    for (int k : {0, 1, 3}) panels.push_back({integral_columns[k], {{integral_columns[k], k}}});  // 2 is 1 scaled
    plot_csv(integrals, panels, path);
  });
}

}  // namespace boreas
