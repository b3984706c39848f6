#pragma once
// Validation observables a deck can ask for ([validation] observables): each compares the
// state at the end of the run with an analytic solution or published reference data.
#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

class Simulation;

Json compute_observables(const Config& config, const Simulation& sim);

}  // namespace boreas
