#include "drivers/ForceSeries.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "drivers/RunPlots.hpp"

namespace boreas {

namespace {
constexpr int columns_per_body = 5;  // fx, fy, fz, cd, cl
const char* const column_names[columns_per_body] = {"fx", "fy", "fz", "cd", "cl"};
}  // namespace

CoefficientStats second_half_stats(const std::vector<double>& values) {
  CoefficientStats s;
  const std::size_t first = values.size() / 2;
  s.samples = long(values.size() - first);
  if (s.samples == 0) return s;
  s.min = s.max = values[first];
  double sum = 0, sum2 = 0;
  for (std::size_t i = first; i < values.size(); ++i) {
    sum += values[i];
    sum2 += values[i] * values[i];
    s.min = std::min(s.min, values[i]);
    s.max = std::max(s.max, values[i]);
  }
  s.mean = sum / double(s.samples);
  s.rms = std::sqrt(std::max(0.0, sum2 / double(s.samples) - s.mean * s.mean));
  return s;
}

double strouhal_number(const std::vector<long>& steps, const std::vector<double>& lift, double length,
                       double velocity) {
  const std::size_t first = lift.size() / 2;
  const CoefficientStats stats = second_half_stats(lift);
  // A steady symmetric wake's lift is rounding noise (1e-13 in double, 1e-6 in float), which
  // crosses its mean at random: no frequency to report.
  if (stats.rms < min_oscillation) return std::numeric_limits<double>::quiet_NaN();
  // A steady wake's lift still carries the start-up's pressure waves, dying out (Schaefer & Turek
  // 2D-1: an RMS of 6e-4 over the second half, a quarter of it in the last quarter of the run),
  // with the period of sound crossing the channel: no shedding.
  // (second_half_stats of lift[n/4, 3n/4) is the third quarter's, of lift[n/2, n) the last's.)
  const std::size_t quarter = lift.size() / 4, third_end = first + (lift.size() - first) / 2;
  if (second_half_stats({lift.begin() + long(first), lift.end()}).rms <
      max_decay * second_half_stats({lift.begin() + long(quarter), lift.begin() + long(third_end)}).rms)
    return std::numeric_limits<double>::quiet_NaN();
  const double mean = stats.mean, band = 0.5 * stats.rms;
  std::vector<double> crossings;
  bool below = false;  // since the last crossing counted, the lift was below mean - band
  for (std::size_t i = first + 1; i < lift.size(); ++i) {
    const double a = lift[i - 1] - mean, b = lift[i] - mean;
    below = below || a < -band;
    if (below && a < 0 && b >= 0) {
      crossings.push_back(double(steps[i - 1]) + (double(steps[i]) - double(steps[i - 1])) * a / (a - b));
      below = false;
    }
  }
  if (crossings.size() < 3) return std::numeric_limits<double>::quiet_NaN();
  const double period = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  return length / (period * velocity);
}

namespace {
std::vector<std::string> force_columns(const std::vector<std::string>& names) {
  std::vector<std::string> columns;
  for (const std::string& n : names)
    for (const char* c : column_names) columns.push_back(n + "_" + c);
  return columns;
}
}  // namespace

ForceSeries::ForceSeries(const Config& config, std::vector<std::string> body_names, bool writer, long first_step)
    : settings_(config.forces),
      rho0_(config.density),
      names_(std::move(body_names)),
      csv_((std::filesystem::path(config.output_dir) / "forces.csv").string(), force_columns(names_), writer,
           first_step) {}

void ForceSeries::add(long step, const std::vector<std::array<double, 3>>& forces) {
  const double scale = 2.0 / (rho0_ * settings_.velocity * settings_.velocity * settings_.area);
  std::vector<double> row;
  for (const auto& f : forces) {
    row.insert(row.end(), {f[0], f[1], f[2], scale * f[settings_.drag_axis], scale * f[settings_.lift_axis]});
  }
  csv_.append(step, row);
}

void ForceSeries::plot(const std::string& path) const {
  CsvPanel drag{"drag coefficient c_D", {}}, lift{"lift coefficient c_L", {}};
  for (int b = 0; b < int(names_.size()); ++b) {
    drag.columns.push_back({names_[b], b * columns_per_body + 3});
    lift.columns.push_back({names_[b], b * columns_per_body + 4});
  }
  plot_csv(csv_, {drag, lift}, path);
}

std::string forces_summary(const Json& forces) {
  std::string out;
  char line[256];
  for (const Json& b : forces["bodies"]) {
    const Json& cd = b["drag_coefficient"];
    const Json& cl = b["lift_coefficient"];
    if (cd["samples"].get<long>() == 0) {
      out += "boreas: forces on " + b["name"].get<std::string>() + ": no sample taken (forces.every exceeds the steps run)\n";
      continue;
    }
    std::snprintf(line, sizeof line, "boreas: forces on %s (last %ld samples): c_D %.5g, c_L %.4g (rms %.4g)",
                  b["name"].get<std::string>().c_str(), cd["samples"].get<long>(), cd["mean"].get<double>(),
                  cl["mean"].get<double>(), cl["rms"].get<double>());
    out += line;
    if (b["strouhal"].is_number()) {
      std::snprintf(line, sizeof line, ", St %.4g", b["strouhal"].get<double>());
      out += line;
    }
    out += "\n";
  }
  return out;
}

void finish_forces(const ForceSeries& forces, Json& report, bool writer, bool progress, const std::string& output_dir) {
  report["forces"] = forces.report();
  if (!writer) return;
  if (progress) std::fputs(forces_summary(report["forces"]).c_str(), stderr);
  plot_into_report(report, (std::filesystem::path(output_dir) / "forces.png").string(),
                   [&](const std::string& path) { forces.plot(path); });
}

Json ForceSeries::report() const {
  Json j = Json::object();
  j["file"] = csv_.path();
  j["every"] = settings_.every;
  j["reference_velocity"] = settings_.velocity;
  j["reference_length"] = settings_.length;
  j["reference_area"] = settings_.area;
  j["drag_axis"] = std::string(1, "xyz"[settings_.drag_axis]);
  j["lift_axis"] = std::string(1, "xyz"[settings_.lift_axis]);
  j["samples"] = long(csv_.steps().size());
  Json bodies = Json::array();
  for (std::size_t b = 0; b < names_.size(); ++b) {
    std::vector<double> cd, cl;
    for (const auto& row : csv_.rows()) {
      cd.push_back(row[b * columns_per_body + 3]);
      cl.push_back(row[b * columns_per_body + 4]);
    }
    Json body = Json::object();
    body["name"] = names_[b];
    if (!csv_.rows().empty()) {
      const auto& last = csv_.rows().back();
      body["last_force"] = Json::array({last[b * columns_per_body], last[b * columns_per_body + 1], last[b * columns_per_body + 2]});
    }
    auto stats_json = [](const CoefficientStats& s) {
      Json o = Json::object();
      o["samples"] = s.samples;
      const auto value = [&](double v) { return s.samples > 0 ? Json(v) : Json(nullptr); };  // no sample: not a zero
      o["mean"] = value(s.mean);
      o["rms"] = value(s.rms);
      o["min"] = value(s.min);
      o["max"] = value(s.max);
      return o;
    };
    body["drag_coefficient"] = stats_json(second_half_stats(cd));
    body["lift_coefficient"] = stats_json(second_half_stats(cl));
    const double st = strouhal_number(csv_.steps(), cl, settings_.length, settings_.velocity);
    if (std::isfinite(st))
      body["strouhal"] = st;
    else
      body["strouhal"] = nullptr;  // no oscillation, or fewer than three periods, in the second half
    bodies.push_back(body);
  }
  j["bodies"] = bodies;
  return j;
}

}  // namespace boreas
