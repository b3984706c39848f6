#include "drivers/Observables.hpp"

#include "drivers/Simulation.hpp"

namespace boreas {

json::Value compute_observables(const Config& config, const Simulation& sim) {
  json::Value out = json::Object{};
  for (const std::string& name : config.observables) {
    if (name == "mass") out[name] = sim.total_mass();
  }
  return out;
}

}  // namespace boreas
