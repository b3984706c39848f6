#pragma once
// The convergence monitor of a run (lbm/field/VelocityChange.hpp): at every progress check the
// velocity field's relative change since the previous check, over every rank, for the progress
// line, the end-of-run summary and report.json's "convergence".
#include <mpi.h>

#include <string>
#include <vector>

#include "io/Json.hpp"
#include "lbm/field/VelocityChange.hpp"

namespace boreas {

class ConvergenceMonitor {
 public:
  // A check at `step` with this rank's parts (blocks, or AMR levels with their cell volumes);
  // collective. The drivers call it at whole check intervals.
  void check(long step, const std::vector<CellMoments>& parts, const std::vector<double>& volumes, MPI_Comm comm);
  // The next check starts over (a regrid changed the cells).
  void forget() { change_.forget(); }
  // "  |du|/|u| 1.2e-05" for the progress line; "" before there is a change to show.
  std::string progress_text() const;
  // {"velocity_change": relative change, "step": s, "since_step": p} of the last check that
  // compared two samples; null if none did.
  Json report() const;

 private:
  VelocityChange change_;
  long last_step_ = -1;                   // the last check's step
  long step_ = -1, since_step_ = -1;      // the steps of the last comparison
  double value_ = 0;                      // its relative change (NaN: the field is at rest)
  bool shown_ = false;                    // whether the last check compared
};

}  // namespace boreas
