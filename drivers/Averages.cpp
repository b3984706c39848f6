#include "drivers/Averages.hpp"

#include <utility>

namespace boreas {

Json Sampling::json() const {
  Json j = Json::object();
  j["start"] = start;
  j["every"] = every;
  j["samples"] = samples;
  j["first_sample"] = first_sample;
  return j;
}

Json Sampling::report(bool vtk) const {
  Json j = json();
  j["arrays"] = samples > 0 && vtk ? Json::array({"mean_density", "mean_velocity", "rms_velocity", "reynolds_stress"})
                            : Json::array();
  return j;
}

std::vector<CellFields::Extra> statistics_arrays(RunningStatistics::HostFields fields) {
  return {{"mean_density", 1, std::move(fields.mean_density)},
          {"mean_velocity", 3, std::move(fields.mean_velocity)},
          {"rms_velocity", 3, std::move(fields.rms_velocity)},
          {"reynolds_stress", 6, std::move(fields.reynolds_stress)}};
}

}  // namespace boreas
