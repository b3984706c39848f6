#pragma once
// How much the velocity field changed between two samples, relative to its size: the
// convergence monitor of the progress lines and report.json,
//   |u - u_before| / |u|,  |v|^2 = sum over fluid cells of V_cell |v_cell|^2,
// V_cell the cell's volume in level-0 cells (1 on a uniform grid, 2^-D per AMR level). A run
// that reaches a steady state sees it fall to round-off; an unsteady one (vortex shedding,
// turbulence) keeps it at the size of the flow's own change over the interval. Computed on the
// device with Kokkos-Kernels BLAS-1 (axpby for the difference, dot for the squared norms) from
// the moments the samplers already use (Simulation::local_moments, AmrSolver::leaf_moments),
// keeping the previous sample's velocity: 3 doubles per owned cell.
#include <vector>

#include "core/Types.hpp"

namespace boreas {

class VelocityChange {
 public:
  struct SquaredNorms {
    bool compared = false;  // false: no earlier sample of these parts (the first)
    double change = 0;      // sum of V |u - u_before|^2 over this rank's parts
    double size = 0;        // sum of V |u|^2
  };
  // This rank's squared norms for a new sample, one CellMoments (cells, 4: rho, u; solid cells
  // 0) per part with the volume of its cells, against the previous call's; keeps the sample's
  // velocity for the next call. Parts of other sizes than the previous call's are not compared.
  SquaredNorms add(const std::vector<CellMoments>& parts, const std::vector<double>& volumes);
  // The last sample's velocity per part on the host (3 values per cell, cell by cell), and its
  // replacement (AMR: carried to a regridded forest's cells, drivers/AmrRun.cpp), which the next
  // add() compares with where that sample's cells are fluid (solid: density 0), as at rest elsewhere.
  std::vector<std::vector<double>> previous() const;
  void replace_previous(const std::vector<std::vector<double>>& parts);

 private:
  std::vector<CellMoments> previous_;  // (cells, 3) each
  bool replaced_ = false;              // replace_previous() since the last add()
};

// The relative change from the squared norms summed over every rank: NaN where the field is at
// rest.
double relative_change(double change, double size);

}  // namespace boreas
