#pragma once
// Time averages of a block's macroscopic fields, accumulated on the device sample by sample so
// that no full field leaves the device between outputs (seed 004's in-situ lesson): per cell the
// running means of rho, u and of the products u_a u_b, updated with Kokkos-Kernels BLAS-1
// (axpby for the means, the element-wise mult for the products):
//   mean <- (1 - w) mean + w sample,  w = 1 / n  for the n-th sample.
// From them: the mean velocity, its RMS fluctuation sqrt(<u_a^2> - <u_a>^2) and the Reynolds
// stresses <u_a' u_b'> = <u_a u_b> - <u_a><u_b>. Each cell's arithmetic is its own, so the result
// is the same on every decomposition.
#include <Kokkos_Core.hpp>

#include <vector>

#include "core/Types.hpp"

namespace boreas {

class RunningStatistics {
 public:
  static constexpr int state_columns = 10;  // the means of rho, u (4) and of u_a u_b (6)
  // The products' columns as stored (and as checkpoints hold them): xx, yy, zz, xy, xz, yz.
  static constexpr int product_axes[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

  explicit RunningStatistics(long cells);

  void add(const CellMoments& sample);
  long samples() const { return samples_; }

  struct HostFields {
    std::vector<double> mean_density;     // one per cell
    std::vector<double> mean_velocity;    // 3 per cell
    std::vector<double> rms_velocity;     // 3 per cell
    std::vector<double> reynolds_stress;  // 6 per cell: xx, yy, zz, xy, yz, xz (VTK's symmetric tensor)
  };
  HostFields host_fields() const;
  // The same fields of cells whose state (state()'s layout) is given: AMR leaves gathered from
  // their owners (amr/AmrSolver.hpp).
  static HostFields fields_of_cells(const std::vector<double>& cell_states);

  // The accumulated state on the host, cell by cell, state_columns values each (the means of rho,
  // u, then of the products), as checkpoints store it; and its replacement.
  std::vector<double> state() const;
  void load(const std::vector<double>& values, long samples);
  // The same averages in storage of their own (copies of the class share it).
  RunningStatistics copy() const;

 private:
  CellMoments mean_, products_;  // (cells, 4) and (cells, 6)
  long samples_ = 0;
};

}  // namespace boreas
