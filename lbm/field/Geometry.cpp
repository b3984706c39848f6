#include "lbm/field/Geometry.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/Error.hpp"
#include "core/Types.hpp"

namespace boreas {

DomainGeometry::DomainGeometry(const Config& config, std::vector<VoxelRegion> regions)
    : cells_(config.cells), faces_(config.faces), obstacles_(config.obstacles), voxels_(std::move(regions)) {
  for (int d = 0; d < 3; ++d) periodic_[d] = faces_[2 * d].type == FaceBC::Periodic;
  if (config.dimensions() == 2) periodic_[2] = true;  // no z faces in 2D
  for (const Obstacle& o : obstacles_) {
    surfaces_.push_back(o.shape == Obstacle::Shape::Surface
                            ? std::make_shared<const SurfaceSolid>(read_stl(o.file), o.placement)
                            : nullptr);
    height_maps_.push_back(o.shape == Obstacle::Shape::HeightMap
                               ? std::make_shared<const HeightMapSolid>(read_height_map(o.file), o.placement)
                               : nullptr);
  }
  if (config.voxels) {
    voxel_dims_ = config.voxels->dims;
    voxel_offset_ = config.voxels->offset;
  }
}

DomainGeometry::DomainGeometry(const Config& config) : DomainGeometry(config, {}) {
  if (!config.voxels) return;
  std::ifstream in(config.voxels->path, std::ios::binary);
  if (!in) throw Error("cannot open voxel file '" + config.voxels->path + "'");
  VoxelRegion all;
  all.hi = voxel_dims_;
  all.voxels.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const std::size_t expected = static_cast<std::size_t>(voxel_dims_[0]) * voxel_dims_[1] * voxel_dims_[2];
  if (all.voxels.size() != expected)
    throw Error("voxel file '" + config.voxels->path + "' has " + std::to_string(all.voxels.size()) +
                " bytes, expected " + std::to_string(expected));
  voxels_.push_back(std::move(all));
}

bool DomainGeometry::wrap(std::array<int, 3>& p) const {
  bool inside = true;
  for (int d = 0; d < 3; ++d) {
    if (periodic_[d]) p[d] = ((p[d] % cells_[d]) + cells_[d]) % cells_[d];
    inside = inside && p[d] >= 0 && p[d] < cells_[d];
  }
  return inside;
}

int DomainGeometry::solid_body(const std::array<double, 3>& p, const std::array<int, 3>& voxel) const {
  for (std::size_t k = 0; k < obstacles_.size(); ++k) {
    const Obstacle& o = obstacles_[k];
    switch (o.shape) {
      case Obstacle::Shape::Box:
        if (p[0] >= o.lo[0] && p[0] <= o.hi[0] && p[1] >= o.lo[1] && p[1] <= o.hi[1] &&
            p[2] >= o.lo[2] && p[2] <= o.hi[2])
          return int(k);
        break;
      case Obstacle::Shape::Sphere: {
        double r2 = 0;
        for (int d = 0; d < 3; ++d) r2 += (p[d] - o.center[d]) * (p[d] - o.center[d]);
        if (r2 <= o.radius * o.radius) return int(k);
        break;
      }
      case Obstacle::Shape::Cylinder: {
        double r2 = 0;
        for (int d = 0; d < 3; ++d)
          if (d != o.axis) r2 += (p[d] - o.center[d]) * (p[d] - o.center[d]);
        if (r2 <= o.radius * o.radius) return int(k);
        break;
      }
      case Obstacle::Shape::Surface:
        if (surfaces_[k]->contains(p)) return int(k);
        break;
      case Obstacle::Shape::HeightMap:
        if (height_maps_[k]->contains(p)) return int(k);
        break;
    }
  }
  if (voxel_dims_[0] > 0) {
    const std::array<int, 3> v{voxel[0] - voxel_offset_[0], voxel[1] - voxel_offset_[1], voxel[2] - voxel_offset_[2]};
    if (v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[0] < voxel_dims_[0] && v[1] < voxel_dims_[1] && v[2] < voxel_dims_[2]) {
      for (const VoxelRegion& r : voxels_)
        if (v[0] >= r.lo[0] && v[1] >= r.lo[1] && v[2] >= r.lo[2] && v[0] < r.hi[0] && v[1] < r.hi[1] && v[2] < r.hi[2]) {
          const std::size_t i = (static_cast<std::size_t>(v[2] - r.lo[2]) * (r.hi[1] - r.lo[1]) + (v[1] - r.lo[1])) *
                                    (r.hi[0] - r.lo[0]) + (v[0] - r.lo[0]);
          return r.voxels[i] != 0 ? int(obstacles_.size()) : -1;
        }
      // A bug, not bad input, and on one rank only: std::logic_error makes boreas abort every rank.
      throw std::logic_error("voxel (" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
                             std::to_string(v[2]) + ") was not read on this rank");
    }
  }
  return -1;
}

int DomainGeometry::body_at(int x, int y, int z) const {
  std::array<int, 3> p{x, y, z};
  if (!wrap(p)) return -1;
  const std::array<double, 3> centre{double(p[0]), double(p[1]), double(p[2])};
  return solid_body(centre, p);
}

std::vector<std::string> body_names(const Config& config) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < config.obstacles.size(); ++k) names.push_back("obstacle" + std::to_string(k));
  if (config.voxels) names.push_back("voxels");
  return names;
}

namespace {
// Where faces meet (edges and corners of the ghost layer) the stronger condition wins:
// a resting wall over a moving wall over an inlet over an outlet.
int priority(FaceBC bc) {
  switch (bc) {
    case FaceBC::Wall: return 4;
    case FaceBC::MovingWall: return 3;
    case FaceBC::VelocityInlet: return 2;
    case FaceBC::PressureOutlet: return 1;
    default: return 0;
  }
}

std::uint8_t face_flag(FaceBC bc, int face) {
  switch (bc) {
    case FaceBC::MovingWall: return flag::make(flag::moving_wall, face);
    case FaceBC::VelocityInlet: return flag::make(flag::inlet, face);
    case FaceBC::PressureOutlet: return flag::make(flag::outlet, face);
    default: return flag::wall;
  }
}
}  // namespace

std::uint8_t DomainGeometry::flag_at(int x, int y, int z) const { return flag_at_level(0, x, y, z); }

std::uint8_t DomainGeometry::flag_at_level(int level, int x, int y, int z) const {
  const int r = 1 << level;
  // floor division: a cell outside the domain lies outside its level-0 cell's face too
  std::array<int, 3> p{x >= 0 ? x / r : -((-x + r - 1) / r), y >= 0 ? y / r : -((-y + r - 1) / r),
                       z >= 0 ? z / r : -((-z + r - 1) / r)};
  const std::array<int, 3> fine{x, y, z};
  if (wrap(p)) {
    std::array<double, 3> centre{};
    for (int d = 0; d < 3; ++d) {
      // the wrapped level-0 cell plus the fine cell's place inside it
      const int inside = fine[d] - (fine[d] >= 0 ? fine[d] / r : -((-fine[d] + r - 1) / r)) * r;
      centre[d] = p[d] + (inside + 0.5) / r - 0.5;
    }
    if (cells_[2] == 1) centre[2] = p[2];  // 2D: one layer, never refined along z
    return solid_inside(centre, p) ? flag::wall : flag::fluid;
  }
  int best = -1;
  for (int d = 0; d < 3; ++d) {
    int face = -1;
    if (p[d] < 0) face = 2 * d;
    if (p[d] >= cells_[d]) face = 2 * d + 1;
    if (face >= 0 && (best < 0 || priority(faces_[face].type) > priority(faces_[best].type)))
      best = face;
  }
  return face_flag(faces_[best].type, best);
}

}  // namespace boreas
