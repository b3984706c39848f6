#pragma once
// Validation observables a deck can ask for ([validation] observables): each compares the
// state at the end of the run with an analytic solution or published reference data.
#include <array>

#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

class Simulation;
struct HostMacroscopic;

Json compute_observables(const Config& config, const Simulation& sim);

// One of the observables read from the macroscopic fields (poiseuille_profile, taylor_green_decay,
// ghia_centerline, permeability) of a uniform-grid run of `config` at `step`; an "error" entry where the run
// cannot give it.
Json field_observable(const Config& config, const std::string& name, const HostMacroscopic& fields, long step);

// Ghia, Ghia & Shin (1982) Tables I and II at one Reynolds number: u on the vertical centre line at
// heights y, v on the horizontal one at x, in cavity units with lid speed 1 (wall end points left
// out).
struct GhiaTable {
  double reynolds;
  std::array<double, 15> y, u, x, v;
};

// The table for Reynolds number `re` (to 1e-6 relative): Re 100 and 1000; null for others.
const GhiaTable* ghia_table(double re);

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
