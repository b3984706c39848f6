#include "drivers/Integrals.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "comm/Mpi.hpp"
#include "core/ExactSum.hpp"
#include "drivers/RunPlots.hpp"

namespace boreas {

std::vector<double> flow_integrals(const Simulation& sim, MPI_Comm comm) {
  const Config& c = sim.config();
  const std::vector<HostMacroscopic> local = sim.local_macroscopic();
  const std::vector<std::vector<double>> vorticity = sim.local_vorticity_magnitude(local);
  ExactSum energy, enstrophy, fluid;
  double max_speed = 0;
  for (std::size_t b = 0; b < local.size(); ++b) {
    const HostMacroscopic& m = local[b];
    for (std::size_t i = 0; i < m.density.size(); ++i) {
      if (m.flags[i] != 0) continue;  // solid
      const double* u = &m.velocity[3 * i];
      const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
      const double rho = m.density[i] / c.density;
      energy.add(0.5 * rho * u2);
      enstrophy.add(0.5 * rho * vorticity[b][i] * vorticity[b][i]);
      fluid.add(1.0);
      max_speed = std::max(max_speed, std::sqrt(u2));
    }
  }
  const Comm world(comm);
  const std::vector<double> totals = world.sum(std::vector<ExactSum>{energy, enstrophy, fluid});
  const double E = totals[0] / totals[2], Z = totals[1] / totals[2];
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
    plot_csv(integrals, {{"kinetic energy", {{"kinetic_energy", 0}}},
                         {"enstrophy", {{"enstrophy", 1}}},
                         {"largest speed", {{"max_speed", 3}}}},
             path);
  });
}

}  // namespace boreas
