#pragma once
// Helpers shared by the validation and boundary tests: decks from text, runs to steady state,
// field access and convergence orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/Deck.hpp"
#include "drivers/Observables.hpp"
#include "drivers/Simulation.hpp"

namespace boreas::testing {

inline Config deck(const std::string& text, const std::string& base_dir = "") {
  return parse_deck_string(text, "test.toml", base_dir);
}

// The macroscopic state with (x, y, z) accessors.
struct State {
  HostMacroscopic m;
  std::array<int, 3> n;
  explicit State(const Simulation& sim) : m(sim.macroscopic()), n(sim.config().cells) {}
  long at(int x, int y, int z = 0) const { return (long(z) * n[1] + y) * n[0] + x; }
  double u(int x, int y, int z, int d) const { return m.velocity[3 * at(x, y, z) + d]; }
  double rho(int x, int y, int z = 0) const { return m.density[at(x, y, z)]; }
};

// Advances in chunks of `chunk` steps until the largest velocity change over a chunk, relative to
// the largest speed, drops below `tolerance`. Returns the steps taken; fails the test if
// `max_steps` pass first (a run that never settles is not a steady state).
inline long run_to_steady_state(Simulation& sim, long chunk, double tolerance, long max_steps) {
  std::vector<double> previous = sim.macroscopic().velocity;
  while (sim.step() < max_steps) {
    sim.advance(chunk);
    const std::vector<double> now = sim.macroscopic().velocity;
    double change = 0, speed = 0;
    for (std::size_t i = 0; i < now.size(); ++i) {
      change = std::max(change, std::abs(now[i] - previous[i]));
      speed = std::max(speed, std::abs(now[i]));
    }
    if (change <= tolerance * speed) return sim.step();
    previous = now;
  }
  ADD_FAILURE() << "no steady state (tolerance " << tolerance << ") within " << max_steps << " steps";
  return sim.step();
}

// The forces on the bodies, mean of two consecutive steps (a steady force-driven flow keeps a
// period-2 oscillation of relative size 5e-5 in them); advances the run by one step.
inline std::vector<std::array<double, 3>> two_step_mean_forces(Simulation& sim) {
  auto f = sim.body_forces();
  sim.advance(1);
  const auto g = sim.body_forces();
  for (std::size_t b = 0; b < f.size(); ++b)
    for (int d = 0; d < 3; ++d) f[b][d] = 0.5 * (f[b][d] + g[b][d]);
  return f;
}

// The parabolic inlet's shape 4 s (1 - s), s = (y + 1/2) / ny (walls at -1/2 and ny - 1/2), and
// the mass flux a D2Q9 inlet of ny cells imposes with it: into row y the links (1, 0) from
// (-1, y), weight 1/9, and (1, +-1) from (-1, y -+ 1), 1/36, unless that ghost is a wall corner,
// each carrying 6 w rho0 u(midpoint).
inline double inlet_parabola(double y, int ny) {
  const double t = (y + 0.5) / ny;
  return 4 * t * (1 - t);
}
inline double parabolic_inlet_flux(int ny, double rho0, double u_max) {
  double imposed = 0;
  for (int y = 0; y < ny; ++y) {
    imposed += 6.0 / 9 * inlet_parabola(y, ny);
    if (y > 0) imposed += 6.0 / 36 * inlet_parabola(y - 0.5, ny);
    if (y < ny - 1) imposed += 6.0 / 36 * inlet_parabola(y + 0.5, ny);
  }
  return imposed * rho0 * u_max;
}

// Observed order of convergence between two resolutions a factor `ratio` apart.
inline double order(double coarse_error, double fine_error, double ratio = 2.0) {
  return std::log(coarse_error / fine_error) / std::log(ratio);
}

inline double observable(const Json& obs, const std::string& name, const std::string& key) {
  const Json& o = obs[name];
  if (o.contains("error")) {
    ADD_FAILURE() << name << ": " << o["error"].get<std::string>();
    return NAN;
  }
  return o[key].get<double>();
}

}  // namespace boreas::testing
