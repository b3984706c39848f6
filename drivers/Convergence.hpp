#pragma once
// The convergence monitor of a run (lbm/field/VelocityChange.hpp): at every progress check the
// velocity field's relative change since the previous check, over every rank, for the progress
// line, the end-of-run summary and report.json's "convergence".
#include <mpi.h>

#include <string>
#include <vector>

#include "amr/AmrSolver.hpp"
#include "comm/Mpi.hpp"
#include "io/Json.hpp"
#include "lbm/field/VelocityChange.hpp"

namespace boreas {

class ConvergenceMonitor {
 public:
  // A check at `step` with this rank's parts (blocks, or AMR levels with their cell volumes);
  // collective. The drivers call it at whole check intervals.
  void check(long step, const std::vector<CellMoments>& parts, const std::vector<double>& volumes, MPI_Comm comm);
  // Whether a check kept a sample for the next to compare with (every rank alike); that sample's
  // velocity per part on the host (3 values per cell), and its replacement on other cells (an AMR
  // regrid's: drivers/AmrRun.cpp).
  bool holds_sample() const { return last_step_ >= 0; }
  std::vector<std::vector<double>> previous_velocity() const { return change_.previous(); }
  void carry(const std::vector<std::vector<double>>& velocity) { change_.replace_previous(velocity); }
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

// Carrying the monitor's last velocity through a regrid, in two parts so that the new forest's
// values are made only once it is known to fit: every leaf cell's velocity where fluid (0
// elsewhere) and whether it is fluid, 4 values per cell (`velocity`: per level, this rank's leaves
// of `solver`; `samples`: its blocks, for their solid cells; collective); then those values on the
// leaves of `to`, a regrid of `from`, 3 per cell: a cell takes the volume-weighted mean velocity of
// the old fluid cells it covers or lies in (amr/LeafValues.hpp), 0 where there are none.
std::vector<double> fluid_weighted_velocity(const AmrSolver& solver, const std::vector<AmrBlockSample>& samples,
                                            const std::vector<std::vector<double>>& velocity, const Comm& comm);
std::vector<double> velocity_on_forest(const Forest& from, const std::vector<double>& fluid_weighted, const Forest& to);

}  // namespace boreas
