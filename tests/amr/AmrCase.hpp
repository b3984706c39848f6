#pragma once
// An AMR run made from deck text, as the driver makes it: the deck, its geometry and the solver on
// the forest the deck's regions ask for; and the loop that runs such a case to its steady state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "core/Deck.hpp"

namespace boreas::testing {

struct AmrCase {
  Config config;
  DomainGeometry domain;
  std::unique_ptr<AmrSolver> solver;
  explicit AmrCase(const std::string& deck_text)
      : config(parse_deck_string(deck_text, "amr.toml", "")),
        domain(config),
        solver(AmrSolver::create(config, domain, build_forest(config, domain))) {}
};

struct SteadyState {
  bool reached = false;
  long steps = 0;      // level-0 steps advanced
  double change = 0;   // the largest change of a sampled value over the last chunk
};

// Advances `solver` `chunk` level-0 steps at a time until no value `sample()` returns (leaf
// velocities, fluxes, probes: any fixed-length list) changes by more than `tolerance` over a
// chunk; a test failure when `max_steps` pass first. A closed or periodic deck's mass restoration
// (Config::mass_restoration_period) stirs a steady state slightly at every period: chunks that
// are whole periods compare samples in one phase.
template <class Sample>
SteadyState advance_until_steady(AmrSolver& solver, long chunk, long max_steps, double tolerance, const Sample& sample) {
  SteadyState s;
  std::vector<double> previous = sample();
  while (!s.reached && s.steps < max_steps) {
    solver.advance(chunk);
    s.steps += chunk;
    const std::vector<double> now = sample();
    if (now.size() != previous.size()) {
      ADD_FAILURE() << "the sample's length changed from " << previous.size() << " to " << now.size();
      return s;
    }
    s.change = 0;
    for (std::size_t i = 0; i < now.size(); ++i) s.change = std::max(s.change, std::abs(now[i] - previous[i]));
    s.reached = s.change < tolerance;
    previous = now;
  }
  if (!s.reached) ADD_FAILURE() << "no steady state within " << s.steps << " steps; last change " << s.change;
  return s;
}

// u_x of every leaf cell, in the order sample() gives them.
inline std::vector<double> leaf_velocities_x(const AmrSolver& solver) {
  std::vector<double> u;
  for (const AmrBlockSample& b : solver.sample())
    if (b.leaf)
      for (std::size_t i = 0; i < b.density.size(); ++i) u.push_back(b.velocity[3 * i]);
  return u;
}

}  // namespace boreas::testing
