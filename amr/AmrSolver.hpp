#pragma once
// A run on a block forest (amr/Forest.hpp) with multi-time-step subcycling (seed 000 Fig. 2),
// behind a type-erased interface so that drivers and tests choose lattice and precision at run
// time. On one rank or several (issue 13 B: amr/AmrLattice.hpp says what each rank holds).
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

#include "amr/Forest.hpp"
#include "amr/Partition.hpp"
#include "core/Config.hpp"
#include "core/Timers.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

// One block's macroscopic fields on the host: interior cells, x fastest.
struct AmrBlockSample {
  int level = 0;
  Box box;  // in the cell coordinates of its level
  bool leaf = true;
  std::vector<double> density, velocity;  // velocity: 3 per cell
  std::vector<std::uint8_t> flags;
};

// AmrSolver::health: ok, or the first fluid leaf cell outside the density window on the coarsest
// level that has one (x fastest in that level's cells), the same on every rank count.
struct AmrHealth {
  bool ok = true;
  int level = -1;
  std::array<long long, 3> cell{};  // in the cell coordinates of `level`
  double density = 0;
};

class AmrSolver {
 public:
  // Collective over `comm`: every rank passes the same forest and steps the leaves it owns.
  static std::unique_ptr<AmrSolver> create(const Config& config, const DomainGeometry& domain, Forest forest,
                                           MPI_Comm comm = MPI_COMM_SELF);
  virtual ~AmrSolver() = default;

  virtual const Forest& forest() const = 0;
  virtual const ForestPartition& partition() const = 0;
  // Advances every level by `coarse_steps` level-0 steps (2^l steps of level l each).
  virtual void advance(long coarse_steps) = 0;
  virtual long step() const = 0;  // level-0 steps done
  // Mass of the leaves' fluid cells in level-0 cell volumes (a level-l cell weighs 2^(-D l)).
  virtual double mass() const = 0;
  // Collective: whether every fluid leaf cell's density lies within (0.1, 10) rho0, NaN and
  // infinities outside (the run's check before what it records, the uniform grid's rule; a plain
  // pass, where mass() sums exactly at about 10x the cost); else where it first does not.
  virtual AmrHealth health(double rho0) const = 0;
  // Collective: per body (DomainGeometry::body_at) the force of the fluid on it at the current
  // step, in level-0 lattice units, the same bits on every rank count (needs [forces] in the deck).
  virtual std::vector<std::array<double, 3>> body_forces() const = 0;
  // Every block of every level (refined blocks hold the average of their children), on every
  // rank (collective).
  virtual std::vector<AmrBlockSample> sample() const = 0;
  virtual long long fluid_leaf_cells(int level) const = 0;
  // Cell updates per level-0 step: sum over levels of 2^l x (fluid leaf cells of level l), the
  // level-weighted count of waLBerla and seed 000.
  long long updates_per_step() const;
  // The relaxation time of each level (acoustic scaling, amr/Coupling.hpp).
  virtual std::vector<double> level_taus() const = 0;

  // Density and velocity at a point given in level-0 cell-centre coordinates.
  using StateFunction = std::function<void(const std::array<double, 3>& x, double& rho, std::array<double, 3>& u)>;
  // Sets every block's cells to the state `state` gives (velocity gradients from its differences);
  // a closed deck's mass restoration keeps the mass of this state from then on.
  virtual void set_state(const StateFunction& state) = 0;
  // The same run on `forest`: blocks the old forest has are copied (refined ones hold their
  // children's average), new finer blocks are interpolated from the level above as ghosts are
  // but linearly only, so that density and momentum are conserved. Step and timers carry over.
  virtual std::unique_ptr<AmrSolver> regridded(const Config& config, const DomainGeometry& domain, Forest forest) const = 0;
  // The run's state hashed as the uniform fields_hash is (lbm/field/CellHash.hpp): every leaf fluid
  // cell's populations keyed by its level and its cell index on that level's grid.
  virtual std::uint64_t fields_hash() const = 0;
  // Checkpoints: the populations of the interior cells of every block of every level (refined
  // blocks too: coarser leaves read them; ghosts are filled before they are read, so they are not
  // state), cells x fastest, `cell_bytes()` (Q values) each; loading them into a solver on the
  // same forest continues the run bit for bit at `step`.
  virtual int cell_bytes() const = 0;
  virtual int cells_per_block() const = 0;  // N^D, ghosts excluded
  virtual std::vector<unsigned char> populations() const = 0;
  // Collective; the bytes of rank 0 count (other ranks may pass none).
  virtual void load_populations(const std::vector<unsigned char>& bytes, long step) = 0;
  // The state an instability falls back to, kept beside the running one where it lives (each
  // level's populations, the averages, the step; a device copy, not a trip through the host as
  // populations() is): restore_state() makes the saved state current again, for what the run then
  // writes and reports. The forest must not change in between (a regridded solver saves anew).
  virtual void save_state() = 0;
  virtual void restore_state() = 0;
  // Density and velocity (rho, ux, uy, uz per probe) of the level-0 cells the probes name, from
  // the fluid leaf cells covering each (finer levels' cells weighted by their volume): rho their
  // mean, u = sum rho u / sum rho, as the restriction's moments; NaN where no fluid cell covers it.
  // Each owner sums its leaves' cells on the device, exactly (core/ExactSum.hpp): the same bits on
  // every rank (collective).
  virtual std::vector<double> probe_values(const std::vector<Probe>& probes) const = 0;
  // Density and velocity of this rank's leaves on the device, one CellMoments per level (its
  // leaves in order, interior cells x fastest; solid cells 0), as sample() gives them.
  virtual std::vector<CellMoments> leaf_moments() const = 0;
  // Time averages ([statistics]; lbm/field/RunningStatistics.hpp) of the leaves' fluid cells,
  // accumulated on the device by each leaf's owner: one more sample of the current state (density
  // and velocity as sample() gives them). The state of every leaf of the forest, level by level in
  // forest order, cell by cell (interior cells x fastest, RunningStatistics::state_columns values
  // each), on every rank (collective); and its replacement (every rank passes the same), which
  // continues the averages bit for bit. The forest must not change while they are taken.
  virtual void add_statistics_sample() = 0;
  virtual long statistics_samples() const = 0;
  virtual std::vector<double> statistics_state() const = 0;
  virtual void load_statistics_state(const std::vector<double>& state, long samples) = 0;
  // Ghost leaves this rank sends per level-0 step on average (sum over levels of 2^l / k x
  // its peers on level l, k the CRMT exchange period, 1 without) and their bytes, as planned; the
  // messages the plan sends in the first `coarse_steps` level-0 steps of this solver; the messages
  // sent so far (counted by comm/).
  virtual double messages_per_step() const = 0;
  virtual double bytes_per_step() const = 0;
  virtual long long messages_planned(long coarse_steps) const = 0;
  virtual long long messages_sent() const = 0;
  // Steps of a level between two exchanges of its leaves (CRMT on leaves; 1: every step).
  virtual int exchange_period() const = 0;
  Timers& timers() { return timers_; }

 protected:
  Timers timers_;
};

// One lattice and precision (amr/AmrLattice.hpp; specialised in the generated instance units).
template <class L, class Real>
std::unique_ptr<AmrSolver> make_amr_solver(const Config& config, const DomainGeometry& domain, Forest forest,
                                           MPI_Comm comm);

// The forest a deck asks for: level-0 blocks of amr.leaf_size cells refined where its
// [[amr.region]] entries want, with 2:1 balance. Blocks touching an inlet or outlet face stay on
// level 0 (their boundary rule assumes one level): blocks closer to such a face than 1 level-0 block
// (level 0) or 2 (finer levels) are not refined, which keeps the balance from reaching the face.
Forest build_forest(const Config& config, const DomainGeometry& domain);

// The forest after a regrid (amr.regrid_every): the deck's regions plus the blocks whose indicator
// (amr.criterion over `samples` of the current forest `current`) calls for refinement.
Forest regrid_forest(const Config& config, const DomainGeometry& domain, const Forest& current,
                     const std::vector<AmrBlockSample>& samples);

}  // namespace boreas
