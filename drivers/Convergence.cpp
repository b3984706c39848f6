#include "drivers/Convergence.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "amr/LeafValues.hpp"

namespace boreas {

void ConvergenceMonitor::check(long step, const std::vector<CellMoments>& parts, const std::vector<double>& volumes,
                               MPI_Comm comm) {
  const VelocityChange::SquaredNorms local = change_.add(parts, volumes);
  // Summed over the ranks, and shown where every rank compared: at the first check a rank
  // without parts "compares" its nothing, the others do not.
  double sums[3] = {local.change, local.size, local.compared ? 0.0 : 1.0}, total[3];
  MPI_Allreduce(sums, total, 3, MPI_DOUBLE, MPI_SUM, comm);
  shown_ = total[2] == 0 && last_step_ >= 0;
  if (shown_) {
    value_ = relative_change(total[0], total[1]);
    since_step_ = last_step_;
    step_ = step;
  }
  last_step_ = step;
}

std::string ConvergenceMonitor::progress_text() const {
  if (!shown_) return "";
  char text[48];
  std::snprintf(text, sizeof text, "  |du|/|u| %.2e", value_);
  return text;
}

Json ConvergenceMonitor::report() const {
  if (step_ < 0) return Json();
  Json j = Json::object();
  j["velocity_change"] = std::isfinite(value_) ? Json(value_) : Json();  // null: the field at rest
  j["step"] = step_;
  j["since_step"] = since_step_;
  return j;
}

std::vector<double> fluid_weighted_velocity(const AmrSolver& solver, const std::vector<AmrBlockSample>& samples,
                                            const std::vector<std::vector<double>>& velocity, const Comm& comm) {
  const std::vector<double> u = gather_leaf_values(solver.forest(), solver.partition(), comm, velocity,
                                                   3L * solver.cells_per_block());
  std::vector<double> out(u.size() / 3 * 4);
  std::size_t cell = 0;
  for (const AmrBlockSample& b : samples)
    for (std::size_t i = 0; b.leaf && i < b.flags.size(); ++i, ++cell) {
      const bool fluid = b.flags[i] == flag::fluid;
      for (int a = 0; a < 3; ++a) out.at(4 * cell + a) = fluid ? u.at(3 * cell + a) : 0.0;
      out.at(4 * cell + 3) = fluid ? 1.0 : 0.0;
    }
  if (4 * cell != out.size())
    throw std::logic_error("fluid_weighted_velocity: samples of " + std::to_string(cell) + " leaf cells for " +
                           std::to_string(u.size() / 3));
  return out;
}

std::vector<double> velocity_on_forest(const Forest& from, const std::vector<double>& fluid_weighted, const Forest& to) {
  // The ratio of the two means is the fluid cells' mean.
  const std::vector<double> moved = transfer_leaf_values(from, fluid_weighted, to, 4);
  std::vector<double> out(moved.size() / 4 * 3);
  for (std::size_t i = 0; i < moved.size() / 4; ++i)
    for (int a = 0; a < 3; ++a) out[3 * i + a] = moved[4 * i + 3] > 0 ? moved[4 * i + a] / moved[4 * i + 3] : 0.0;
  return out;
}

}  // namespace boreas
