#pragma once
// The [forces] time series of a run: the force on every body (Simulation::body_forces) every
// forces.every steps, as <output>/forces.csv and, in report.json, drag and lift coefficients
// over the second half of the samples and the Strouhal number of the lift.
//   c_D = 2 F_drag / (rho0 U^2 A),  c_L = 2 F_lift / (rho0 U^2 A),  St = f L / U
// with U, A, L the deck's reference velocity, area (2D: length x one cell) and length, f the
// frequency of the lift's upward crossings of its mean. Lattice units throughout.
#include <array>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "io/CsvSeries.hpp"
#include "io/Json.hpp"

namespace boreas {

// Statistics of a coefficient series over its second half (the first is taken as transient).
struct CoefficientStats {
  long samples = 0;
  double mean = 0, rms = 0, min = 0, max = 0;
};
CoefficientStats second_half_stats(const std::vector<double>& values);

// Strouhal number f L / U of `lift` (a coefficient) sampled at `steps`, from the upward crossings
// of its mean in the second half (linearly interpolated), each counted once the lift has been
// below the mean by half its RMS since the last (hysteresis: ripples on the crossings, such as
// pressure waves on a shedding wake's lift, do not count as periods); NaN with fewer than three
// crossings or an RMS below min_oscillation there, or an oscillation that decays: its RMS over the
// last quarter of the samples below max_decay times that over the third.
constexpr double min_oscillation = 1e-4;
constexpr double max_decay = 0.5;
double strouhal_number(const std::vector<long>& steps, const std::vector<double>& lift, double length,
                       double velocity);

// Lines for stderr at the end of a run: per body the mean drag and lift coefficients, the lift's
// RMS and the Strouhal number, from a report's "forces".
std::string forces_summary(const Json& forces);

class ForceSeries;
// The end of a run with [forces]: report["forces"], the summary lines on stderr (`progress`), and
// from the `writer` forces.png in `output_dir`, listed under report["plots"] (a plot that cannot be
// drawn costs a warning and report["plots_error"], never the report).
void finish_forces(const ForceSeries& forces, Json& report, bool writer, bool progress, const std::string& output_dir);

class ForceSeries {
 public:
  // Rank 0 writes (`writer`); every rank keeps the series; a restart at `first_step` continues
  // forces.csv as io/CsvSeries.hpp says.
  ForceSeries(const Config& config, std::vector<std::string> body_names, bool writer, long first_step);

  void add(long step, const std::vector<std::array<double, 3>>& forces);
  Json report() const;
  // forces.png: c_D and c_L of every body against the step (drivers/RunPlots.hpp).
  void plot(const std::string& path) const;
  const CsvSeries& series() const { return csv_; }

 private:
  ForcesConfig settings_;
  double rho0_ = 1;
  std::vector<std::string> names_;
  CsvSeries csv_;  // per sample: per body fx, fy, fz, cd, cl
};

}  // namespace boreas
