#pragma once
// What a run shares whatever its storage (dense blocks: drivers/Simulation.cpp; fluid cells only:
// drivers/SparseSimulation.cpp): the deck, the ranks, the block set with this rank's geometry
// (comm/VoxelInput.hpp), and what follows from them and the blocks' output fields alone: boxes,
// the whole domain gathered on every rank, the vorticity from the velocity around each block, and
// the decomposition part of the parallel report.
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/BlockSet.hpp"
#include "comm/CellRing.hpp"
#include "comm/Mpi.hpp"
#include "comm/VoxelInput.hpp"
#include "core/ExactSum.hpp"
#include "io/BoxFile.hpp"
#include "drivers/Simulation.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

class GridSimulation : public Simulation {
 public:
  GridSimulation(const Config& config, MPI_Comm comm, Partition p);

  const Config& config() const override { return config_; }
  long step() const override { return step_; }
  HostMacroscopic macroscopic() const override;
  std::vector<std::vector<double>> local_vorticity_magnitude(const std::vector<HostMacroscopic>& local) const override;
  std::vector<int> local_blocks() const override { return ids_; }
  std::vector<Box> all_boxes() const override { return set_.boxes(); }
  int rank() const override { return comm_.rank(); }
  int ranks() const override { return comm_.size(); }

 protected:
  // Ranks, blocks, decomposition, load balance, voxel input, and the slowest rank's and the mean
  // time of each of `timers` (categories of timers_). Collective.
  Json decomposition_report(const std::vector<const char*>& timers) const;
  // Per body the three force components from this rank's exact sums (3 per body), added over
  // the ranks the same way. Collective.
  std::vector<std::array<double, 3>> forces_over_ranks(const std::vector<ExactSum>& local) const;
  // Checkpoint pieces of this rank's blocks in slot order, `cell_bytes` zero bytes per cell (to
  // fill and write), and the same pieces read from `path` after checking its cell size (to load).
  std::vector<BoxBytes> owned_pieces(int cell_bytes) const;
  std::vector<BoxBytes> read_owned_pieces(const std::string& path, const Json& header, int cell_bytes) const;

  Config config_;
  mutable Comm comm_;
  DomainGeometry domain_;
  BlockSet set_;
  Json voxel_input_;
  std::vector<int> ids_;      // this rank's blocks, in slot order
  mutable Comm output_comm_;  // output's exchanges, counted apart from the run's traffic
  CellRing ring_;             // velocity around this rank's blocks, for the vorticity
  long step_ = 0, saved_step_ = 0;
};

}  // namespace boreas
