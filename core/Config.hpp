#pragma once
// The validated, unit-converted description of a run. Produced by the deck parser
// (core/Deck.hpp), consumed by the solver, output and drivers. Everything is in
// lattice units (dx = dt = 1) once it reaches this struct.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/Scheme.hpp"
#include "core/SurfaceFiles.hpp"

namespace boreas {

enum class LatticeKind { D2Q9, D3Q19, D3Q27 };
enum class Precision { Double, Float };
inline const char* lattice_name(LatticeKind k) {
  return k == LatticeKind::D2Q9 ? "D2Q9" : k == LatticeKind::D3Q19 ? "D3Q19" : "D3Q27";
}
// Collision models (lbm/physics/Collision.hpp); the cumulant is D3Q27's only.
enum class CollisionKind { BGK, TRT, Cumulant };
inline const char* collision_name(CollisionKind k) {
  return k == CollisionKind::TRT ? "TRT" : k == CollisionKind::Cumulant ? "cumulant" : "BGK";
}
// Subgrid-scale (LES) models: an eddy viscosity added to tau per cell by every collision model.
enum class SgsModel { None, Smagorinsky, Csm };
inline const char* sgs_name(SgsModel m) {
  return m == SgsModel::Smagorinsky ? "smagorinsky" : (m == SgsModel::Csm ? "csm" : "none");
}

// Domain faces in the order x-, x+, y-, y+, z-, z+.
enum Face : int { XMin = 0, XMax, YMin, YMax, ZMin, ZMax };
constexpr int num_faces = 6;

enum class FaceBC { Periodic, Wall, MovingWall, VelocityInlet, PressureOutlet, FreeSlip, Outflow };
// The deck's name of a face type ("symmetry" is read as free_slip).
inline const char* face_bc_name(FaceBC bc) {
  switch (bc) {
    case FaceBC::Periodic: return "periodic";
    case FaceBC::Wall: return "wall";
    case FaceBC::MovingWall: return "moving_wall";
    case FaceBC::VelocityInlet: return "velocity_inlet";
    case FaceBC::FreeSlip: return "free_slip";
    case FaceBC::Outflow: return "outflow";
    default: return "pressure_outlet";
  }
}

// How a velocity inlet's speed varies over its face (lbm/physics/Boundary.hpp InletProfile).
enum class InletProfileKind { Uniform, Parabolic, PowerLaw, LogLaw };
inline const std::vector<std::string>& inlet_profile_names() {
  static const std::vector<std::string> names{"uniform", "parabolic", "power_law", "log_law"};
  return names;
}

struct FaceCondition {
  FaceBC type = FaceBC::Wall;
  std::array<double, 3> velocity{0, 0, 0};  // moving wall / inlet velocity (a profile's reference)
  double density = 1.0;                      // pressure outlet density
  // outflow: U of the convective condition (lattice units). 1 reflected least and kept lateral
  // faces stable, where 0.2 and below diverged (README, "Numerics").
  double convective_velocity = 1;
  InletProfileKind profile = InletProfileKind::Uniform;
  double reference_height = 0;  // power / log law: where the speed is `velocity`, cells above the ground
  double exponent = 1.0 / 7.0;  // power law
  double roughness_length = 0;  // log law z0, cells
  // Synthetic inflow turbulence (lbm/physics/InflowTurbulence.hpp): RMS of each velocity
  // component relative to the local mean speed (0: none), length scale (cells), time scale (steps).
  double turbulence_intensity = 0;
  double turbulence_length = 8;
  double turbulence_time = 0;  // 0: turbulence_length / |velocity|
};

// Whether any of the domain's faces is of type `type`.
inline bool any_face(const std::array<FaceCondition, num_faces>& faces, FaceBC type) {
  for (const FaceCondition& f : faces)
    if (f.type == type) return true;
  return false;
}

struct Obstacle {
  // Surface: the inside of an STL mesh; HeightMap: the solid under an ESRI ASCII grid
  // (core/SurfaceFiles.hpp, lbm/field/SurfaceSolid.hpp).
  enum class Shape { Box, Sphere, Cylinder, Surface, HeightMap } shape = Shape::Box;
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};  // box corners, cell-centre coordinates
  std::array<double, 3> center{0, 0, 0};          // sphere / cylinder centre
  double radius = 0;
  int axis = 2;  // cylinder axis: 0 = x, 1 = y, 2 = z
  std::string file;  // Surface, HeightMap: resolved relative to the deck's directory
  Placement placement;
  // Links into the obstacle: closed halfway (staircase) or where they cross its surface
  // (Bouzidi, Firdaouss & Lallemand 2001, linear or quadratic in the fluid nodes behind the cell;
  // lbm/physics/Boundary.hpp).
  enum class BounceBack { Halfway, Interpolated } bounce_back = BounceBack::Halfway;
  enum class Interpolation { Linear, Quadratic } interpolation = Interpolation::Linear;
  bool invert = false;            // box, sphere, cylinder: the solid is the outside of the shape
  double angular_velocity = 0;    // cylinder: rotation about its axis, radians per step
  // Whether its links need per-link data (crossing fractions or wall velocities).
  bool needs_wall_links() const { return bounce_back == BounceBack::Interpolated || angular_velocity != 0; }
  // Its links read populations two cells from the wall (the quadratic rule).
  bool quadratic() const { return bounce_back == BounceBack::Interpolated && interpolation == Interpolation::Quadratic; }
};
// The deck's names of the shapes, in Obstacle::Shape's order.
inline const std::vector<std::string>& obstacle_shape_names() {
  static const std::vector<std::string> names{"box", "sphere", "cylinder", "stl", "height_map"};
  return names;
}

// A raw uint8 voxel file, x fastest; non-zero voxels are solid.
struct VoxelGeometry {
  std::string path;  // resolved relative to the deck's directory
  std::array<int, 3> dims{0, 0, 0};
  std::array<int, 3> offset{0, 0, 0};  // where voxel (0,0,0) lands in the domain
};

// Channel: a start for a turbulent channel between walls at the y faces (lbm/field/Field.cpp).
enum class InitialCondition { Uniform, TaylorGreen, Channel };

// [parallel]: how a run is spread over MPI ranks (comm/). Results never depend on it.
// How merged<k> sweeps: slabs with prisms per thread (CPUs) or overlapped tiles in team scratch
// memory (GPUs); auto takes the form of the execution space.
enum class MergeForm { Auto, Slabs, Tiles };
// How the ab_pull, ab_push and aa steps and the AMR leaf step visit cells: auto takes rows on host
// backends (vectorised along x) and a work item per cell on devices; cells takes the devices'
// form on hosts too (lbm/scheme/Traversal.hpp).
enum class Traversal { Auto, Cells };
// Population storage (lbm/field/DenseField.hpp PopulationLayout).
enum class StorageLayout { SoA, AoSoA };
// Which cells are stored: every cell of each block with ghost layers (dense), or only the fluid
// cells with a neighbour index per link (sparse, seed 002: lbm/field/SparseField.hpp).
enum class StorageKind { Dense, Sparse };
enum class OverlapKind { None, NonBlocking, Interior, Streams, Systolic };
inline const char* overlap_name(OverlapKind k) {
  switch (k) {
    case OverlapKind::None: return "none";
    case OverlapKind::NonBlocking: return "nonblocking";
    case OverlapKind::Interior: return "interior";
    case OverlapKind::Streams: return "streams";
    default: return "systolic";
  }
}

enum class DecompositionKind { Cartesian, Bisection };
enum class BufferKind { Auto, Device, Host };  // auto: device when MPI is CUDA-aware
struct ParallelConfig {
  std::array<int, 3> dims{0, 0, 0};  // Cartesian process grid; 0 = chosen automatically
  // The default applies to schemes that step in parts; the others exchange after each sweep.
  OverlapKind overlap = OverlapKind::Interior;
  // The deck names a strategy other than "none": kernel = "auto" chooses among schemes that can
  // take it (core/Scheme.hpp steps_in_parts), other kernels must be such a scheme.
  bool overlap_required = false;
  DecompositionKind decomposition = DecompositionKind::Cartesian;
  BufferKind buffers = BufferKind::Auto;
  // CRMT (comm/Crmt.hpp): ghost layers exchanged at once; 1 = exchange every step, 0 = "auto"
  // (chosen at start-up from measured costs among 1..max_ghost_width).
  int ghost_width = 1;
  int max_ghost_width = 6;
  // Blocks per rank (comm/BlockSet.hpp): the domain is cut into ranks x blocks_per_rank blocks.
  int blocks_per_rank = 1;
};

// [amr]: block-structured refinement (amr/). Regions are in level-0 cell-centre coordinates, as
// obstacles are; a region asks for `level` (1..max_level) on every block it touches.
struct AmrRegion {
  enum class Kind { Box, NearWalls } kind = Kind::Box;
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};  // Box
  double distance = 0;  // NearWalls: level-0 cells from any wall face or solid cell
  int level = 1;
};

// Dynamic regridding: every `regrid_every` level-0 steps the forest is rebuilt from the regions
// and a per-block indicator, the largest |curl u| (or |grad u|, Frobenius) over the block's cells
// in its own level's lattice units (the velocity change per cell): refined above `refine_above`,
// kept refined above `coarsen_below` (hysteresis).
enum class RegridCriterion { Vorticity, Gradient };
struct AmrConfig {
  bool enabled = false;  // the deck has an [amr] table
  int leaf_size = 4;     // cells per leaf and axis (4 as CityLBM; 8, 16)
  int max_level = 1;
  std::vector<AmrRegion> regions;
  long regrid_every = 0;  // 0: the forest stays as the regions make it
  RegridCriterion criterion = RegridCriterion::Vorticity;
  double refine_above = 0, coarsen_below = 0;
  // CRMT on leaves (seed 000): ranks also step the leaves they hold of others, so that a level
  // exchanges only every k of its steps, k derived when the forest is shared out.
  bool crmt = false;
};

// [checkpoint]: what a long run keeps so that it can continue (drivers/Checkpointing.hpp). Signals
// (SIGTERM, SIGUSR1) and an instability write one whether or not the deck has this table.
struct CheckpointConfig {
  long every = 0;              // steps between checkpoints; 0: not by step count
  double every_minutes = 0;    // wall time between checkpoints; 0: not by time
  int keep = 2;                // the newest checkpoints kept; older ones are removed
  std::string directory;       // empty: <output directory>/checkpoints
};

// [forces]: forces on the obstacles by momentum exchange, sampled every `every` steps
// (drivers/ForceSeries.hpp); reference values in lattice units.
struct ForcesConfig {
  bool enabled = false;
  long every = 1;
  double velocity = 0, length = 0, area = 0;
  int drag_axis = 0, lift_axis = 1;
};

// [statistics]: time averages of the fields (mean, RMS, Reynolds stresses), sampled every `every`
// steps from step `start` on, accumulated on the device (lbm/field/RunningStatistics.hpp).
// [units]: what one lattice unit is in SI units (m, s, kg). The run stays in lattice units; the
// report converts its results once (drivers/Report.hpp units_json).
struct PhysicalUnits {
  bool enabled = false;
  double dx = 1;                // m per cell
  double velocity = 1;          // m/s of the lattice velocity `lattice_velocity`
  double lattice_velocity = 1;  // cells per step
  double density = 1.225;       // kg/m^3 of lattice density 1 (air)
  double dt() const { return lattice_velocity * dx / velocity; }  // s per step
};

struct StatisticsConfig {
  bool enabled = false;
  long start = 0;
  long every = 1;
};

// [[probe]]: cells whose density and velocity go to probes.csv every output.probes_every steps;
// a line probe is expanded into its cells here (names "<name>_<i>").
struct Probe {
  std::string name;
  std::array<int, 3> cell{0, 0, 0};  // global cell coordinates
};

struct Config {
  std::string deck_path;  // as given on the command line
  std::vector<std::string> warnings;  // about the deck's input, printed once by the driver
  // Where the deck gave the keys that checks after parsing refer to ("deck.toml:7:9", or
  // "--set ..."; the table, or the file, when the key is absent): domain.cells, parallel.dims,
  // parallel.decomposition.
  std::map<std::string, std::string> locations;
  std::string name;       // [simulation] name, default: deck file stem

  LatticeKind lattice = LatticeKind::D3Q19;
  Precision precision = Precision::Double;
  CollisionKind collision = CollisionKind::BGK;
  double trt_magic = 3.0 / 16.0;
  SgsModel sgs = SgsModel::None;    // [collision] sgs
  double smagorinsky_constant = 0.1;  // [collision] smagorinsky_constant, C_s (filter width = dx)
  double csm_constant = 1.0 / 25;     // [collision] csm_constant, C' of the coherent-structure model
  // [collision] cumulant = "parametrised": Geier et al. 2017's rates and fourth-order equilibria
  // (lbm/physics/Collision.hpp), its third-order limiter lambda = cumulant_limiter.
  bool cumulant_parametrised = false;
  double cumulant_limiter = 1e-3;
  // The shear rate 1/tau above which the parametrised variant acts (Collision.hpp CumulantRates).
  static constexpr double parametrised_cumulant_min_rate = 1.75;
  Scheme kernel;  // [simulation] kernel, parsed (core/Scheme.hpp)
  int tile = 16;  // [simulation] tile: prism tile width of swap_prism / merged<k> (rows)
  MergeForm merge_form = MergeForm::Auto;  // [simulation] merge_form
  Traversal traversal = Traversal::Auto;    // [simulation] traversal
  StorageLayout layout = StorageLayout::SoA;  // [simulation] layout
  bool layout_required = false;               // the deck names it: kernel = "auto" tries that layout only
  int bundle = 4;  // [simulation] bundle: directions per AoSoA bundle (more than Q: one bundle)
  StorageKind storage = StorageKind::Dense;  // [simulation] storage

  std::array<int, 3> cells{1, 1, 1};  // nz = 1 for 2D lattices

  // Physics, lattice units. tau is always set after parsing; viscosity = (tau - 1/2) / 3.
  double tau = 1.0;
  double viscosity = 1.0 / 6.0;
  double density = 1.0;
  std::array<double, 3> force{0, 0, 0};  // body force density (Guo scheme)
  // When the deck gave Re + resolution + lattice velocity, they are kept for the report.
  std::optional<double> reynolds, reference_length, reference_velocity;
  double mach_limit = 0.3;  // refuse runs whose largest lattice speed / c_s exceeds this

  InitialCondition initial = InitialCondition::Uniform;
  std::array<double, 3> initial_velocity{0, 0, 0};
  double taylor_green_u0 = 0.0;  // amplitude for InitialCondition::TaylorGreen
  double channel_perturbation = 0.0;  // amplitude of InitialCondition::Channel's streaks and vortices

  std::array<FaceCondition, num_faces> faces{};
  std::vector<Obstacle> obstacles;
  std::optional<VoxelGeometry> voxels;

  long steps = 0;
  long output_every = 0;  // 0: only the final state
  bool write_vtk = true;
  std::string output_dir = "output";
  long progress_every = 0;  // 0: automatic
  std::vector<Probe> probes;
  long probes_every = 1;
  long integrals_every = 0;  // 0: no integrals.csv (drivers/Integrals.hpp)

  std::vector<std::string> observables;  // validation observables the deck asks for

  ParallelConfig parallel;
  AmrConfig amr;
  CheckpointConfig checkpoint;
  ForcesConfig forces;
  StatisticsConfig statistics;
  PhysicalUnits units;

  int dimensions() const { return lattice == LatticeKind::D2Q9 ? 2 : 3; }
  bool wall_links() const {
    for (const Obstacle& o : obstacles)
      if (o.needs_wall_links()) return true;
    return false;
  }
  bool quadratic_walls() const {
    for (const Obstacle& o : obstacles)
      if (o.quadratic()) return true;
    return false;
  }
  bool free_slip_faces() const { return any_face(faces, FaceBC::FreeSlip); }
  // What reads a neighbour's post-collision populations (interpolated walls, specular reflection,
  // outflow) or velocity (CSM): only the two-lattice pull kernel still holds them when it needs them.
  bool needs_pull_kernel() const {
    return wall_links() || free_slip_faces() || any_face(faces, FaceBC::Outflow) || sgs == SgsModel::Csm ||
           turbulent_inflow() >= 0;
  }
  // The velocity inlet with synthetic turbulence (at most one), or -1.
  int turbulent_inflow() const {
    for (int f = 0; f < int(faces.size()); ++f)
      if (faces[f].type == FaceBC::VelocityInlet && faces[f].turbulence_intensity > 0) return f;
    return -1;
  }
  // Interpolated bounce-back and the AMR level coupling (amr/Coupling.hpp: ghosts are point
  // values, not cell averages) do not conserve mass; without an inlet or outlet, whose density
  // would hold it, the run restores the initial mass every mass_restoration_period steps
  // (drivers/Simulation.cpp, AmrLattice::restore_mass).
  bool restores_mass() const {
    for (const FaceCondition& f : faces)
      if (f.type == FaceBC::VelocityInlet || f.type == FaceBC::PressureOutlet || f.type == FaceBC::Outflow) return false;
    if (amr.enabled && amr.max_level > 0) return true;
    for (const Obstacle& o : obstacles)
      if (o.bounce_back == Obstacle::BounceBack::Interpolated) return true;
    return false;
  }
  static constexpr long mass_restoration_period = 100;
};

}  // namespace boreas
