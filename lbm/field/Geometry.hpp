#pragma once
// The global geometry of a deck: which cell is fluid, solid, or a boundary of which kind, at any
// global coordinate, ghost positions outside the domain included (periodic axes wrap). Every
// rank evaluates it for its own block and ghosts, so no flags are ever communicated.
// Obstacles repeat across periodic faces (a shape over one is whole on both sides, as in the
// periodic array the deck describes; inverted shapes do not repeat), and continue through open
// faces (inlet, outlet, outflow, moving wall) as the extrusion of the domain's boundary cells: a
// ghost beyond such faces is a wall where the cell inside the domain at the end of its column is
// solid, as a resting wall face wins over those faces along their edges.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "lbm/field/SurfaceSolid.hpp"

namespace boreas {

// A box of a voxel file's voxels, [lo, hi) in the file's voxel coordinates, x fastest.
struct VoxelRegion {
  std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};
  std::vector<std::uint8_t> voxels;
};

// Where the link from a fluid cell's centre a to its solid neighbour's centre a + c meets the
// solid: at a + fraction c (fraction in [0, 1]), moving there at `velocity` (lattice units).
struct WallCrossing {
  double fraction = 0.5;
  std::array<double, 3> velocity{0, 0, 0};
  bool interpolated = false;  // the obstacle asks for interpolated bounce-back
  bool quadratic = false;     // ... by the quadratic rule
};

// Names of the bodies DomainGeometry::body_at numbers: "obstacle0", ..., then "voxels".
std::vector<std::string> body_names(const Config& config);

class DomainGeometry {
 public:
  // Reads the obstacles' STL and height-map files and the whole voxel file, if any.
  explicit DomainGeometry(const Config& config);
  // The deck's geometry with only `regions` of its voxel file, read by the caller (each rank
  // what its blocks reach: comm/VoxelInput.hpp); flag_at of a cell in a voxel outside them
  // throws Error.
  DomainGeometry(const Config& config, std::vector<VoxelRegion> regions);

  std::uint8_t flag_at(int x, int y, int z) const;
  // The flag of cell (x, y, z) of refinement level `level` (2^level cells per level-0 cell and
  // axis; AMR, amr/): outside the domain the face flags (or a wall where an obstacle continues
  // through an open face), inside obstacles tested at the cell's centre in level-0 cell-centre
  // coordinates and voxels by the level-0 cell holding it.
  std::uint8_t flag_at_level(int level, int x, int y, int z) const;
  // The body holding level-0 cell (x, y, z) (periodic axes wrapped): the index of the first deck
  // obstacle that contains it, then obstacles().size() for a solid voxel; -1 for a fluid cell or
  // one outside the domain, unless an obstacle continues through the open faces it lies beyond.
  // Bodies are what the forces of lbm/field/BodyForces.hpp act on.
  int body_at(int x, int y, int z) const;
  // The same for a cell of AMR level `level` (2^level cells per level-0 cell and axis), tested at
  // its centre as flag_at_level does.
  int body_at_level(int level, int x, int y, int z) const;
  int bodies() const { return int(obstacles_.size()) + (voxel_dims_[0] > 0 ? 1 : 0); }
  // The crossing of the link from fluid cell `fluid` of AMR level `level` (2^level cells per
  // level-0 cell and axis; 0 on a uniform grid) along c into a body cell (periodic axes wrapped),
  // whose solid end flag_at_level found: the first obstacle surface the segment meets, exact for
  // the analytic shapes, the nearest triangle for STL surfaces, bisection of the inside test for
  // height maps (and for a segment that slips through a hole of an STL surface); the fraction is
  // of that link. A voxel, or an obstacle closed halfway, is met at the middle of the link.
  WallCrossing wall_crossing_at_level(int level, const std::array<int, 3>& fluid, const std::array<int, 3>& c) const;
  bool periodic(int axis) const { return periodic_[axis]; }
  bool free_slip() const { return any_face(faces_, FaceBC::FreeSlip); }
  bool outflow() const { return any_face(faces_, FaceBC::Outflow); }
  // The SGS model differentiates the previous step's velocity, which every cell, ghosts included,
  // takes from all its populations (CSM; lbm/scheme/PullScheme.hpp): halos carry them all.
  bool velocity_gradients() const { return velocity_gradients_; }
  // Where the link from cell p along c enters a free-slip ghost: the cell its population reaches
  // after the reflection (p + c with its components along the reflecting axes taken back;
  // lbm/scheme/PullStep.hpp specular_reflection), fluid or not.
  std::optional<std::array<int, 3>> reflected_cell(const std::array<int, 3>& p, const std::array<int, 3>& c) const;
  // Whether an obstacle has per-link data (interpolated bounce-back, rotation: WallLinks.hpp).
  bool wall_links() const {
    for (const Obstacle& o : obstacles_)
      if (o.needs_wall_links()) return true;
    return false;
  }
  // Whether an obstacle's links read two cells from the wall (quadratic interpolated bounce-back).
  bool quadratic_walls() const {
    for (const Obstacle& o : obstacles_)
      if (o.quadratic()) return true;
    return false;
  }
  const std::array<int, 3>& cells() const { return cells_; }
  // Whether obstacle k (its periodic copies included) is solid at the centre of a cell of AMR
  // level `level` (0 on a uniform grid) inside the domain, testing the cells of its box numbered
  // part, part + parts, ...: a rank's share of a scan that stops at the first solid centre.
  bool solid_at_some_centre(std::size_t k, int level, int part, int parts) const;

  // Wraps periodic axes into the domain; returns false if the point still lies outside.
  bool wrap(std::array<int, 3>& p) const;

 private:
  // `centre` in level-0 cell-centre coordinates, `voxel` the level-0 cell holding it.
  bool solid_inside(const std::array<double, 3>& centre, const std::array<int, 3>& voxel) const {
    return solid_body(centre, voxel) >= 0;
  }
  int solid_body(const std::array<double, 3>& centre, const std::array<int, 3>& voxel) const;
  // Level-`level` cell `fine`: its level-0 cell p (periodic axes wrapped) and its centre in level-0
  // coordinates; false (centre unset) when p lies outside the domain.
  bool level_cell(int level, const std::array<int, 3>& fine, std::array<int, 3>& p, std::array<double, 3>& centre) const;
  // The face whose condition rules level-0 cell p outside the domain (the strongest of those it
  // lies beyond) and, in `beyond`, a bit per axis along which it lies outside.
  int ruling_face(const std::array<int, 3>& p, int& beyond) const;
  // The body an obstacle continuing through the open faces of level-`level` cell `fine` (outside
  // the domain; `ruling` and `beyond` as ruling_face gives them) puts there; -1: none, or a face
  // that is not open rules.
  int extruded_body(int level, const std::array<int, 3>& fine, int ruling, int beyond) const;
  // The box around obstacle k's shape (unbounded where it is: a cylinder's axis, below a height map).
  void shape_box(std::size_t k, Vertex& lo, Vertex& hi) const;
  // The shifts of obstacle k's periodic copies (copies_).
  std::vector<std::array<double, 3>> periodic_copies(std::size_t k) const;
  // Whether obstacle k (its periodic copies included) holds point p.
  bool obstacle_contains(std::size_t k, const std::array<double, 3>& p) const;
  // The same for the deck's shape alone, and the solid it bounds (the outside when inverted).
  bool shape_contains(std::size_t k, const std::array<double, 3>& p) const;
  bool shape_solid(std::size_t k, const std::array<double, 3>& p) const {
    return shape_contains(k, p) != obstacles_[k].invert;
  }
  // Where the segment a + t c, t in [0, 1], from outside obstacle k (or its periodic copies) first
  // enters it; < 0: never. `copy`: the shift of the copy it enters. shape_entry: the deck's shape
  // alone.
  double obstacle_entry(std::size_t k, const std::array<double, 3>& a, const std::array<double, 3>& c,
                        std::array<double, 3>& copy) const;
  double shape_entry(std::size_t k, const std::array<double, 3>& a, const std::array<double, 3>& c) const;
  // The same by bisection of the inside test between the segment's outside and inside ends.
  double bisected_entry(std::size_t k, const std::array<double, 3>& a, const std::array<double, 3>& c) const;

  std::array<int, 3> cells_{};
  std::array<bool, 3> periodic_{};
  bool velocity_gradients_ = false;
  std::array<FaceCondition, num_faces> faces_{};
  std::vector<Obstacle> obstacles_;
  // Per obstacle: its solid when it comes from a file (shared by copies), else null.
  std::vector<std::shared_ptr<const SurfaceSolid>> surfaces_;
  std::vector<std::shared_ptr<const HeightMapSolid>> height_maps_;
  // Per obstacle: the shifts (multiples of the domain along periodic axes, {0, 0, 0} first) of
  // its copies that reach the domain or within two cells of it.
  std::vector<std::vector<std::array<double, 3>>> copies_;
  std::vector<VoxelRegion> voxels_;
  std::array<int, 3> voxel_dims_{}, voxel_offset_{};
};

}  // namespace boreas
