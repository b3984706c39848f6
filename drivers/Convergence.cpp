#include "drivers/Convergence.hpp"

#include <cmath>
#include <cstdio>

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

}  // namespace boreas
