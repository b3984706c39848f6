#pragma once
// A run of a deck: the blocks, their halo and the time loop, behind a type-erased interface so
// that drivers and tests choose lattice and precision at run time. The domain is a block set
// (comm/BlockSet.hpp, comm/Decomposition.hpp); every rank owns `parallel.blocks_per_rank` blocks.
// The queries below are collective and return global values, bitwise independent of the rank
// and block count where the result is exact (fields_hash, fluid_cells, macroscopic, mass).
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "core/Timers.hpp"
#include "io/Json.hpp"
#include "lbm/field/FieldOps.hpp"

namespace boreas {

class Simulation {
 public:
  static std::unique_ptr<Simulation> create(const Config& config, MPI_Comm comm = MPI_COMM_WORLD);
  virtual ~Simulation() = default;

  virtual const Config& config() const = 0;
  virtual void advance(long steps) = 0;  // no output, no checks
  virtual long step() const = 0;
  virtual std::uint64_t fields_hash() const = 0;
  virtual double total_mass() const = 0;  // exact sum: the same bits on every decomposition
  virtual Health check() const = 0;
  virtual HostMacroscopic macroscopic() const = 0;  // the whole domain, on every rank
  // This rank's blocks (ids in the block set, in slot order) and their macroscopic fields.
  virtual std::vector<int> local_blocks() const = 0;
  virtual std::vector<HostMacroscopic> local_macroscopic() const = 0;
  // The same fields left on the device, one (owned cells x 4: rho, ux, uy, uz) per local block
  // (what [statistics] accumulates). Collective.
  virtual std::vector<CellMoments> local_moments() const = 0;
  // The moments the convergence monitor compares (drivers/Convergence.hpp): local_moments(), or
  // on the sparse storage one part of its fluid cells, which keeps the monitor's memory to them.
  // Collective.
  virtual std::vector<CellMoments> monitored_moments() const { return local_moments(); }
  // |curl u| of this rank's blocks from their local_macroscopic(), the same on every
  // decomposition (differences reach into the neighbours' cells). Collective.
  virtual std::vector<std::vector<double>> local_vorticity_magnitude(const std::vector<HostMacroscopic>& local) const = 0;
  virtual std::vector<Box> all_boxes() const = 0;  // every block's, by id
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Decomposition, overlap timing (seed 001 model terms), message counts: this rank's values
  // and, collectively, the slowest rank and the mean.
  virtual Json parallel_report() const = 0;
  virtual long long fluid_cells() const = 0;
  // Force of the fluid on each body (DomainGeometry::body_at: the deck's obstacles, then the voxel
  // geometry) over the last step, by momentum exchange (lbm/field/BodyForces.hpp): the same bits on
  // every decomposition, streaming variant and storage. Collective.
  virtual std::vector<std::array<double, 3>> body_forces() const = 0;
  // Checkpoints (io/Checkpoint.hpp): the canonical populations of every owned cell, which any
  // decomposition reads back; read_checkpoint continues the run at header["step"]. Collective.
  virtual void write_checkpoint(const std::string& path, const Json& meta) const = 0;
  virtual void read_checkpoint(const std::string& path, const Json& header) = 0;
  // Keeps / restores a copy of the current state (the last good state of a run that blows up).
  virtual void save_state() = 0;
  virtual void restore_state() = 0;
  Timers& timers() { return timers_; }
  // simulation.kernel = "auto": how the variant was chosen (drivers/KernelChoice.hpp); null
  // otherwise. config().kernel is the variant that runs.
  const Json& kernel_choice() const { return kernel_choice_; }

 protected:
  Timers timers_;
  Json kernel_choice_;
};

struct RunOptions {
  bool progress = true;  // progress lines on stderr
  std::string restart;   // "latest" or a checkpoint's path: continue from it (empty: from step 0)
  MPI_Comm comm = MPI_COMM_WORLD;
  // How the run was started, without --restart (quoted for a shell): a stopped run prints it
  // with --restart latest to continue. Empty: "boreas <deck>".
  std::string command;
};

// Why a run stops before its first step when no cell is fluid.
extern const char* const no_fluid_cell;

// The command that continues a run of `config` started by `options` from its newest checkpoint.
std::string continue_command(const Config& config, const RunOptions& options);

// Runs the deck to the end: progress, VTK output, stability checks and report.json in the
// output directory, checkpoints as the deck asks and on a stop signal. Returns the report;
// report["status"] is "completed", "unstable" or "interrupted" (by a signal, after a checkpoint).
Json run_deck(const Config& config, const RunOptions& options = {});

std::string hash_hex(std::uint64_t h);

}  // namespace boreas
