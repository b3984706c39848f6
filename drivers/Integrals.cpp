#include "drivers/Integrals.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "comm/Mpi.hpp"
#include "core/Error.hpp"
#include "core/ExactSum.hpp"
#include "core/Types.hpp"
#include "drivers/RunPlots.hpp"

namespace boreas {

namespace {

// The sums over a run's fluid cells, each weighted by its volume in level-0 cells (1 on a uniform
// grid, whose terms it leaves as they were; a power of 2).
struct IntegralSums {
  ExactSum energy, enstrophy;
  double max_speed = 0;

  void add(const Config& c, double density, const double* u, double vorticity, double volume) {
    const double u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    const double rho = density / c.density;
    energy.add(0.5 * rho * u2 * volume);
    enstrophy.add(0.5 * rho * vorticity * vorticity * volume);
    max_speed = std::max(max_speed, std::sqrt(u2));
  }
};

// integral_columns' values from the totals over `fluid_volume` level-0 cells of fluid.
std::vector<double> integrals_of(const Config& c, double energy, double enstrophy, double max_speed, double fluid_volume) {
  const double E = energy / fluid_volume, Z = enstrophy / fluid_volume;
  return {E, Z, 2 * c.viscosity * Z, max_speed};
}

}  // namespace

std::vector<double> flow_integrals(const Simulation& sim, long long fluid_cells, MPI_Comm comm) {
  const Config& c = sim.config();
  const std::vector<HostMacroscopic> local = sim.local_macroscopic();
  const std::vector<std::vector<double>> vorticity = sim.local_vorticity_magnitude(local);
  IntegralSums sums;
  for (std::size_t b = 0; b < local.size(); ++b) {
    const HostMacroscopic& m = local[b];
    for (std::size_t i = 0; i < m.density.size(); ++i)
      if (m.flags[i] == flag::fluid) sums.add(c, m.density[i], &m.velocity[3 * i], vorticity[b][i], 1.0);
  }
  const Comm world(comm);
  const std::vector<double> totals = world.sum(std::vector<ExactSum>{sums.energy, sums.enstrophy});
  return integrals_of(c, totals[0], totals[1], world.max(sums.max_speed), double(fluid_cells));
}

std::vector<double> amr_flow_integrals(const Config& c, const Forest& forest, const std::vector<AmrBlockSample>& samples) {
  const int n = forest.leaf_size(), dims = forest.two_dimensional() ? 2 : 3;
  std::vector<std::size_t> first(std::size_t(forest.levels()) + 1, 0);  // each level's first sample
  for (int l = 0; l < forest.levels(); ++l) first[l + 1] = first[l] + forest.level(l).size();
  auto cell_of = [](const Box& box, const std::array<int, 3>& p) {
    return (std::size_t(p[2] - box.lo[2]) * box.extent(1) + std::size_t(p[1] - box.lo[1])) * box.extent(0) +
           std::size_t(p[0] - box.lo[0]);
  };
  // The velocity of level m's cell p (inside the domain), or null where level m has no block.
  auto velocity_at = [&](int m, const std::array<int, 3>& p) -> const double* {
    const int b = forest.find(m, {p[0] / n, p[1] / n, p[2] / n});
    if (b < 0) return nullptr;
    const AmrBlockSample& s = samples[first[m] + std::size_t(b)];
    return &s.velocity[3 * cell_of(s.box, p)];
  };
  IntegralSums sums;
  ExactSum fluid_volume;
  for (int l = 0; l < forest.levels(); ++l) {
    const double volume = std::ldexp(1.0, -dims * l), per_level0_cell = std::ldexp(1.0, l);
    std::array<int, 3> extent{};  // the domain in level-l cells, along the forest's axes
    for (int a = 0; a < dims; ++a) extent[a] = c.cells[a] << l;
    for (std::size_t b = first[l]; b < first[l + 1]; ++b) {
      const AmrBlockSample& s = samples[b];
      if (!s.leaf) continue;
      // The neighbour of cell p (velocity u) `step` cells along axis a: its centre's coordinate
      // along a in level-l cells and its velocity; p itself at a non-periodic face.
      auto neighbour = [&](const std::array<int, 3>& p, const double* u, int a, int step) -> std::pair<double, const double*> {
        std::array<int, 3> q = p;
        q[a] += step;
        if (q[a] >= s.box.lo[a] && q[a] < s.box.hi[a]) return {double(q[a]), &s.velocity[3 * cell_of(s.box, q)]};
        const int shift = q[a] < 0 ? extent[a] : q[a] >= extent[a] ? -extent[a] : 0;
        if (shift != 0 && c.faces[2 * a].type != FaceBC::Periodic) return {double(p[a]), u};
        q[a] += shift;
        for (int k = 0; k <= l; ++k) {  // level l, or the coarser leaf holding q (2:1 balance: one up)
          const std::array<int, 3> r{q[0] >> k, q[1] >> k, q[2] >> k};
          if (const double* v = velocity_at(l - k, r)) return {std::ldexp(r[a] + 0.5, k) - 0.5 - shift, v};
        }
        throw Error("amr_flow_integrals: no block of the forest holds a neighbour of a level-" + std::to_string(l) + " leaf");
      };
      for (int z = s.box.lo[2]; z < s.box.hi[2]; ++z)
        for (int y = s.box.lo[1]; y < s.box.hi[1]; ++y)
          for (int x = s.box.lo[0]; x < s.box.hi[0]; ++x) {
            const std::array<int, 3> p{x, y, z};
            const std::size_t i = cell_of(s.box, p);
            if (s.flags[i] != flag::fluid) continue;
            const double* u = &s.velocity[3 * i];
            double G[3][3] = {};  // G[a][d] = d u_d / d x_a in level-0 units
            for (int a = 0; a < dims; ++a) {  // every axis of a forest spans leaves of 4 cells or more
              const auto [x_lo, u_lo] = neighbour(p, u, a, -1);
              const auto [x_hi, u_hi] = neighbour(p, u, a, +1);
              for (int d = 0; d < 3; ++d) G[a][d] = (u_hi[d] - u_lo[d]) / (x_hi - x_lo) * per_level0_cell;
            }
            const double wx = G[1][2] - G[2][1], wy = G[2][0] - G[0][2], wz = G[0][1] - G[1][0];
            sums.add(c, s.density[i], u, std::sqrt(wx * wx + wy * wy + wz * wz), volume);
            fluid_volume.add(volume);
          }
    }
  }
  return integrals_of(c, sums.energy.value(), sums.enstrophy.value(), sums.max_speed, fluid_volume.value());
}

bool samples_first_step(const CsvSeries& integrals, long first_step, MPI_Comm comm) {
  return first_step == 0 || Comm(comm).max(integrals.history_missing() ? 1.0 : 0.0) > 0;
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
