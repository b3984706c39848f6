#pragma once
// Validation observables a deck can ask for ([validation] observables): each compares the
// state at the end of the run with an analytic solution or published reference data.
#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

class Simulation;

Json compute_observables(const Config& config, const Simulation& sim);

// Why observable `name` cannot be measured on a run of `config` (its walls, forcing, initial state,
// lattice or grid), or "": checked before the run (drivers/RunCheck.hpp), so that a long run does
// not end without the comparison it was for.
std::string observable_unsuited(const Config& config, const std::string& name);

// Ghia, Ghia & Shin (1982) comparison of a 2D lid-driven cavity from its centre-line profiles in
// cavity units (positions 0..1 increasing, wall end points excluded; velocities in lid units):
// u(y) on the vertical centre line, v(x) on the horizontal one. The uniform grid's
// ghia_centerline observable and AMR runs (drivers/AmrRun.cpp) share it.
Json ghia_centerline_profiles(const Config& config, std::vector<double> ys, std::vector<double> us,
                              std::vector<double> xs, std::vector<double> vs);

}  // namespace boreas
