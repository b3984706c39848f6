#include "drivers/Simulation.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "comm/Halo.hpp"
#include "core/Error.hpp"
#include "drivers/Observables.hpp"
#include "drivers/Report.hpp"
#include "io/VtkSeries.hpp"
#include "lbm/Geometry.hpp"

namespace boreas {

namespace {

std::array<int, 3> ghost_widths(const Config& c) {
  return {1, 1, c.dimensions() == 3 ? 1 : 0};
}

template <class L, class Real>
class SimulationImpl final : public Simulation {
 public:
  explicit SimulationImpl(const Config& config)
      : config_(config),
        domain_(config),
        block_(config, domain_, Box{{0, 0, 0}, config.cells}, ghost_widths(config)),
        halo_(block_, domain_) {}

  const Config& config() const override { return config_; }

  void advance(long steps) override {
    for (long s = 0; s < steps; ++s) {
      {
        auto t = timers_.scope("boundaries");
        halo_.exchange(block_.populations());
      }
      {
        auto t = timers_.scope("lbm");
        block_.collide_stream_all();
      }
      block_.finish_step();
      ++step_;
    }
  }

  long step() const override { return step_; }
  std::uint64_t fields_hash() const override { return block_.fields_hash(); }
  double total_mass() const override { return block_.total_mass(); }
  Health check() const override { return block_.check(); }
  HostMacroscopic macroscopic() const override {
    halo_.exchange(block_.populations());  // moments gather through the ghosts
    return block_.macroscopic();
  }
  long long fluid_cells() const override { return block_.fluid_cells(); }
  void save_state() override {
    block_.save_state();
    saved_step_ = step_;
  }
  void restore_state() override {
    block_.restore_state();
    step_ = saved_step_;
  }

 private:
  Config config_;
  DomainGeometry domain_;
  Block<L, Real> block_;
  Halo<L, Real> halo_;
  long step_ = 0, saved_step_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> Simulation::create(const Config& config) {
  return dispatch_lattice(config.lattice, [&](auto lattice) -> std::unique_ptr<Simulation> {
    using L = decltype(lattice);
    if (config.precision == Precision::Float) return std::make_unique<SimulationImpl<L, float>>(config);
    return std::make_unique<SimulationImpl<L, double>>(config);
  });
}

std::string hash_hex(std::uint64_t h) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {

// Vorticity magnitude by central differences (one-sided next to the domain edge).
std::vector<double> vorticity_magnitude(const HostMacroscopic& m, const std::array<int, 3>& n) {
  const long nx = n[0], ny = n[1], nz = n[2];
  std::vector<double> out(m.density.size(), 0.0);
  auto u = [&](long x, long y, long z, int d) { return m.velocity[3 * ((z * ny + y) * nx + x) + d]; };
  auto deriv = [&](long x, long y, long z, int axis, int d) {
    long p[3] = {x, y, z}, lo[3] = {x, y, z}, hi[3] = {x, y, z};
    const long len = n[axis];
    if (len == 1) return 0.0;
    lo[axis] = p[axis] > 0 ? p[axis] - 1 : p[axis];
    hi[axis] = p[axis] < len - 1 ? p[axis] + 1 : p[axis];
    return (u(hi[0], hi[1], hi[2], d) - u(lo[0], lo[1], lo[2], d)) / double(hi[axis] - lo[axis]);
  };
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        const double wx = deriv(x, y, z, 1, 2) - deriv(x, y, z, 2, 1);
        const double wy = deriv(x, y, z, 2, 0) - deriv(x, y, z, 0, 2);
        const double wz = deriv(x, y, z, 0, 1) - deriv(x, y, z, 1, 0);
        out[(z * ny + y) * nx + x] = std::sqrt(wx * wx + wy * wy + wz * wz);
      }
  return out;
}

void write_output(VtkSeries& series, const Simulation& sim) {
  const Config& c = sim.config();
  HostMacroscopic m = sim.macroscopic();
  CellFields fields;
  fields.dims = c.cells;
  fields.origin = {0, 0, 0};
  fields.vorticity_magnitude = vorticity_magnitude(m, c.cells);
  fields.density = std::move(m.density);
  fields.velocity = std::move(m.velocity);
  fields.flags = std::move(m.flags);
  series.write(sim.step(), double(sim.step()), fields, c.cells);
}

class Progress {
 public:
  Progress(bool enabled, long total) : enabled_(enabled), tty_(isatty(2)), total_(total) {}
  void update(long step, double mlups, double elapsed) {
    if (!enabled_) return;
    const double eta = step > 0 ? elapsed * double(total_ - step) / double(step) : 0.0;
    std::fprintf(stderr, "%sstep %ld/%ld (%.0f%%)  %.1f MLUPS  elapsed %.1f s  ETA %.1f s%s",
                 tty_ ? "\r\033[K" : "", step, total_, 100.0 * step / double(total_), mlups,
                 elapsed, eta, tty_ ? "" : "\n");
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_, tty_;
  long total_;
};

}  // namespace

json::Value run_deck(const Config& config, const RunOptions& options) {
  auto sim = Simulation::create(config);
  Timers& timers = sim->timers();
  std::filesystem::create_directories(config.output_dir);
  VtkSeries series(config.output_dir, config.name);
  const double initial_mass = sim->total_mass();

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  // Checks (and progress lines) about every 10 % of the run unless the deck says otherwise.
  const long check_every = config.progress_every > 0 ? config.progress_every : std::max(1L, config.steps / 10);
  Progress progress(options.progress, config.steps);

  if (config.write_vtk && config.output_every > 0) {
    auto t = timers.scope("output");
    write_output(series, *sim);
  }
  sim->save_state();
  std::string status = "completed";
  Health bad;
  while (sim->step() < config.steps) {
    long next = std::min(config.steps, (sim->step() / check_every + 1) * check_every);
    if (config.output_every > 0)
      next = std::min(next, (sim->step() / config.output_every + 1) * config.output_every);
    sim->advance(next - sim->step());
    const bool at_check = sim->step() % check_every == 0 || sim->step() == config.steps;
    const bool at_output = config.write_vtk && config.output_every > 0 && sim->step() % config.output_every == 0;
    if (at_check || at_output) {
      Health h;
      {
        auto t = timers.scope("others");
        h = sim->check();
      }
      if (!h.ok) {
        status = "unstable";
        bad = h;
        break;
      }
      auto t = timers.scope("others");
      sim->save_state();
    }
    if (at_output) {
      auto t = timers.scope("output");
      write_output(series, *sim);
    }
    if (at_check) {
      const double lbm = timers.get("lbm") + timers.get("boundaries");
      progress.update(sim->step(), double(sim->fluid_cells()) * sim->step() / std::max(lbm, 1e-12) * 1e-6, elapsed());
    }
  }
  progress.finish();

  if (status == "unstable") {
    const long bad_step = sim->step();
    sim->restore_state();
    const long long nx = config.cells[0], ny = config.cells[1], c = bad.first_bad_cell;
    std::fprintf(stderr,
                 "boreas: error: unstable at step %ld: density %g at cell (%lld, %lld, %lld)\n"
                 "  hint: tau = %.6g; stability needs tau well above 0.5 (raise the resolution or lower\n"
                 "  Re) and a small lattice Mach number (lower the lattice velocity).\n"
                 "  Writing the last good state, step %ld.\n",
                 bad_step, bad.bad_density, c % nx, (c / nx) % ny, c / (nx * ny), config.tau, sim->step());
  }
  const bool final_needed =
      config.write_vtk && (config.output_every == 0 || sim->step() % config.output_every != 0);
  if (final_needed) {
    auto t = timers.scope("output");
    write_output(series, *sim);
  }

  const double wall = elapsed();
  json::Value report = make_report(config, *sim, status, wall, initial_mass);
  report["observables"] = compute_observables(config, *sim);
  report["output_files"] = json::Array{};
  for (const auto& f : series.files_written()) report["output_files"].as_array().push_back(f);
  std::ofstream(std::filesystem::path(config.output_dir) / "report.json") << report.dump(2) << "\n";
  return report;
}

}  // namespace boreas
