#include "lbm/field/Geometry.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "core/Error.hpp"
#include "core/Types.hpp"

namespace boreas {

DomainGeometry::DomainGeometry(const Config& config, std::vector<VoxelRegion> regions)
    : cells_(config.cells), faces_(config.faces), obstacles_(config.obstacles), voxels_(std::move(regions)) {
  for (int d = 0; d < 3; ++d) periodic_[d] = faces_[2 * d].type == FaceBC::Periodic;
  if (config.dimensions() == 2) periodic_[2] = true;  // no z faces in 2D
  velocity_gradients_ = config.sgs == SgsModel::Csm;
  for (const Obstacle& o : obstacles_) {
    surfaces_.push_back(o.shape == Obstacle::Shape::Surface
                            ? std::make_shared<const SurfaceSolid>(read_stl(o.file), o.placement)
                            : nullptr);
    height_maps_.push_back(o.shape == Obstacle::Shape::HeightMap
                               ? std::make_shared<const HeightMapSolid>(read_height_map(o.file), o.placement)
                               : nullptr);
  }
  for (std::size_t k = 0; k < obstacles_.size(); ++k) copies_.push_back(periodic_copies(k));
  if (config.voxels) {
    voxel_dims_ = config.voxels->dims;
    voxel_offset_ = config.voxels->offset;
  }
}

void DomainGeometry::shape_box(std::size_t k, Vertex& lo, Vertex& hi) const {
  const Obstacle& o = obstacles_[k];
  constexpr double unbounded = std::numeric_limits<double>::infinity();
  lo = {-unbounded, -unbounded, -unbounded};
  hi = {unbounded, unbounded, unbounded};
  switch (o.shape) {
    case Obstacle::Shape::Box:
      lo = o.lo;
      hi = o.hi;
      break;
    case Obstacle::Shape::Sphere:
    case Obstacle::Shape::Cylinder:
      for (int d = 0; d < 3; ++d)
        if (o.shape == Obstacle::Shape::Sphere || d != o.axis) {
          lo[d] = o.center[d] - o.radius;
          hi[d] = o.center[d] + o.radius;
        }
      break;
    case Obstacle::Shape::Surface:
      lo = surfaces_[k]->lo();
      hi = surfaces_[k]->hi();
      break;
    case Obstacle::Shape::HeightMap:
      lo = height_maps_[k]->lo();
      hi = height_maps_[k]->hi();
      break;
  }
}

std::vector<std::array<double, 3>> DomainGeometry::periodic_copies(std::size_t k) const {
  const Obstacle& o = obstacles_[k];
  Vertex lo, hi;
  shape_box(k, lo, hi);
  // Per axis the shifts whose copy comes within two cells of the domain [-1/2, n - 1/2] (a link's
  // segment starts up to a cell outside it); none along an unbounded extent (the copy is the
  // shape), none for an inverted shape (its solid is the outside: it has no copies).
  std::vector<std::array<double, 3>> copies{{0, 0, 0}};
  const double reach = 2.0;
  for (int d = 0; d < 3; ++d) {
    if (o.invert || !periodic_[d] || cells_[d] == 1 || !std::isfinite(lo[d]) || !std::isfinite(hi[d])) continue;
    const double n = cells_[d];
    std::vector<double> shifts;
    if (lo[d] + n <= n - 0.5 + reach) shifts.push_back(n);
    if (hi[d] - n >= -0.5 - reach) shifts.push_back(-n);
    const std::size_t before = copies.size();
    for (double s : shifts)
      for (std::size_t i = 0; i < before; ++i) {
        std::array<double, 3> shifted = copies[i];
        shifted[d] = s;
        copies.push_back(shifted);
      }
  }
  return copies;
}

DomainGeometry::DomainGeometry(const Config& config) : DomainGeometry(config, {}) {
  if (!config.voxels) return;
  std::ifstream in(config.voxels->path, std::ios::binary | std::ios::ate);
  if (!in) throw Error("cannot open voxel file '" + config.voxels->path + "'");
  // The size first, then one read: a wrong file is refused before anything is allocated.
  const std::streamoff size = in.tellg();
  const std::size_t expected = static_cast<std::size_t>(voxel_dims_[0]) * voxel_dims_[1] * voxel_dims_[2];
  if (size < 0 || static_cast<std::size_t>(size) != expected)
    throw Error("voxel file '" + config.voxels->path + "' has " + std::to_string(size) + " bytes, expected " +
                std::to_string(expected));
  VoxelRegion all;
  all.hi = voxel_dims_;
  all.voxels.resize(expected);
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(all.voxels.data()), static_cast<std::streamsize>(expected)))
    throw Error("cannot read the " + std::to_string(expected) + " bytes of voxel file '" + config.voxels->path + "'");
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

bool DomainGeometry::obstacle_contains(std::size_t k, const std::array<double, 3>& p) const {
  for (const std::array<double, 3>& s : copies_[k])
    if (shape_solid(k, {p[0] - s[0], p[1] - s[1], p[2] - s[2]})) return true;
  return false;
}

bool DomainGeometry::solid_at_some_centre(std::size_t k, int level, int part, int parts) const {
  Vertex box_lo, box_hi;
  shape_box(k, box_lo, box_hi);
  const int r = 1 << level;
  const int dims = cells_[2] == 1 ? 2 : 3;
  for (const std::array<double, 3>& s : copies_[k]) {
    // Per axis the cells of this level whose centres, (i + 1/2) / r - 1/2 in level-0 coordinates,
    // lie in the copy's box: [first, last], clipped to the domain.
    std::array<long long, 3> first{0, 0, 0}, count{1, 1, 1};
    bool empty = false;
    for (int d = 0; d < dims; ++d) {
      const long long n = static_cast<long long>(cells_[d]) * r;
      const double lo = std::max(((box_lo[d] + s[d] + 0.5) * r - 0.5), 0.0);
      const double hi = std::min(((box_hi[d] + s[d] + 0.5) * r - 0.5), double(n - 1));
      if (!(lo <= hi) || std::ceil(lo) > std::floor(hi)) {
        empty = true;
        break;
      }
      first[d] = static_cast<long long>(std::ceil(lo));
      count[d] = static_cast<long long>(std::floor(hi)) - first[d] + 1;
    }
    if (empty) continue;
    const long long total = count[0] * count[1] * count[2];
    for (long long i = part; i < total; i += parts) {
      const std::array<int, 3> at{int(first[0] + i % count[0]), int(first[1] + i / count[0] % count[1]),
                                  int(first[2] + i / count[0] / count[1])};
      std::array<int, 3> level0{};
      std::array<double, 3> centre{};
      level_cell(level, at, level0, centre);  // inside the domain
      if (shape_solid(k, {centre[0] - s[0], centre[1] - s[1], centre[2] - s[2]})) return true;
    }
  }
  return false;
}

bool DomainGeometry::shape_contains(std::size_t k, const std::array<double, 3>& p) const {
  const Obstacle& o = obstacles_[k];
  bool inside = false;
  switch (o.shape) {
    case Obstacle::Shape::Box:
      inside = p[0] >= o.lo[0] && p[0] <= o.hi[0] && p[1] >= o.lo[1] && p[1] <= o.hi[1] && p[2] >= o.lo[2] &&
               p[2] <= o.hi[2];
      break;
    case Obstacle::Shape::Sphere:
    case Obstacle::Shape::Cylinder: {
      double r2 = 0;
      for (int d = 0; d < 3; ++d)
        if (o.shape == Obstacle::Shape::Sphere || d != o.axis) r2 += (p[d] - o.center[d]) * (p[d] - o.center[d]);
      inside = r2 <= o.radius * o.radius;
      break;
    }
    case Obstacle::Shape::Surface:
      inside = surfaces_[k]->contains(p);
      break;
    case Obstacle::Shape::HeightMap:
      inside = height_maps_[k]->contains(p);
      break;
  }
  return inside;
}

int DomainGeometry::solid_body(const std::array<double, 3>& p, const std::array<int, 3>& voxel) const {
  for (std::size_t k = 0; k < obstacles_.size(); ++k)
    if (obstacle_contains(k, p)) return int(k);
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

int DomainGeometry::body_at(int x, int y, int z) const { return body_at_level(0, x, y, z); }

int DomainGeometry::body_at_level(int level, int x, int y, int z) const {
  std::array<int, 3> p{};
  std::array<double, 3> centre{};
  if (level_cell(level, {x, y, z}, p, centre)) return solid_body(centre, p);
  int beyond = 0;
  const int ruling = ruling_face(p, beyond);
  return extruded_body(level, {x, y, z}, ruling, beyond);
}

bool DomainGeometry::level_cell(int level, const std::array<int, 3>& fine, std::array<int, 3>& p,
                                std::array<double, 3>& centre) const {
  const int r = 1 << level;
  // floor division: a cell outside the domain lies outside its level-0 cell's face too
  for (int d = 0; d < 3; ++d) p[d] = fine[d] >= 0 ? fine[d] / r : -((-fine[d] + r - 1) / r);
  const std::array<int, 3> level0 = p;
  if (!wrap(p)) return false;
  for (int d = 0; d < 3; ++d)  // the wrapped level-0 cell plus the fine cell's place inside it
    centre[d] = p[d] + (fine[d] - level0[d] * r + 0.5) / r - 0.5;
  if (cells_[2] == 1) centre[2] = p[2];  // 2D: one layer, never refined along z
  return true;
}

namespace {

// The parameters t of the segment a + t c where it meets the closed box [lo, hi] (enter <= leave),
// or false when it misses the box's lines.
bool box_span(const Obstacle& o, const std::array<double, 3>& a, const std::array<double, 3>& c, double& enter,
              double& leave) {
  enter = -std::numeric_limits<double>::infinity();
  leave = std::numeric_limits<double>::infinity();
  for (int d = 0; d < 3; ++d) {
    if (c[d] == 0) {
      if (a[d] < o.lo[d] || a[d] > o.hi[d]) return false;
      continue;
    }
    double t0 = (o.lo[d] - a[d]) / c[d], t1 = (o.hi[d] - a[d]) / c[d];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  return enter <= leave;
}

// The same for the ball or the infinite cylinder of radius r (components along `axis` ignored;
// axis -1: a ball).
bool round_span(const Obstacle& o, int axis, const std::array<double, 3>& a, const std::array<double, 3>& c,
                double& enter, double& leave) {
  double A = 0, B = 0, C = -o.radius * o.radius;
  for (int d = 0; d < 3; ++d) {
    if (d == axis) continue;
    const double r = a[d] - o.center[d];
    A += c[d] * c[d];
    B += 2 * r * c[d];
    C += r * r;
  }
  const double disc = B * B - 4 * A * C;
  if (A == 0 || disc < 0) return false;
  // The root without cancellation first, the other from the product of the roots C / A.
  const double h = -0.5 * (B + std::copysign(std::sqrt(disc), B));
  const double t0 = h / A, t1 = h != 0 ? C / h : t0;
  enter = std::min(t0, t1);
  leave = std::max(t0, t1);
  return true;
}

}  // namespace

double DomainGeometry::obstacle_entry(std::size_t k, const std::array<double, 3>& a, const std::array<double, 3>& c,
                                      std::array<double, 3>& copy) const {
  double first = -1;
  for (const std::array<double, 3>& s : copies_[k])
    if (const double t = shape_entry(k, {a[0] - s[0], a[1] - s[1], a[2] - s[2]}, c); t >= 0 && (first < 0 || t < first)) {
      first = t;
      copy = s;
    }
  return first;
}

double DomainGeometry::shape_entry(std::size_t k, const std::array<double, 3>& a, const std::array<double, 3>& c) const {
  const Obstacle& o = obstacles_[k];
  double enter = 0, leave = 0;
  bool met = false;
  switch (o.shape) {
    case Obstacle::Shape::Box:
      met = box_span(o, a, c, enter, leave);
      break;
    case Obstacle::Shape::Sphere:
      met = round_span(o, -1, a, c, enter, leave);
      break;
    case Obstacle::Shape::Cylinder:
      met = round_span(o, o.axis, a, c, enter, leave);
      break;
    case Obstacle::Shape::Surface: {
      const double t = surfaces_[k]->first_hit({a[0], a[1], a[2]}, {c[0], c[1], c[2]});
      return t >= 0 ? t : bisected_entry(k, a, c);  // a segment through a hole of the mesh
    }
    case Obstacle::Shape::HeightMap:
      return bisected_entry(k, a, c);
  }
  if (!met) return -1;
  // Outside a plain shape the segment enters at `enter`; inside an inverted one (its solid is
  // the outside) it leaves the shape at `leave`.
  // Rounding may put a crossing on a cell centre a hair outside [0, 1].
  const double t = o.invert ? leave : enter, slack = 1e-12;
  return t >= -slack && t <= 1 + slack ? std::min(1.0, std::max(0.0, t)) : -1;
}

double DomainGeometry::bisected_entry(std::size_t k, const std::array<double, 3>& a,
                                      const std::array<double, 3>& c) const {
  const auto at = [&](double t) { return std::array<double, 3>{a[0] + t * c[0], a[1] + t * c[1], a[2] + t * c[2]}; };
  if (!shape_solid(k, at(1.0))) return -1;
  // The first solid sample along the segment, in steps of half the thinnest wall the solid can
  // hold (a height map's raster cell; 1/16 of the segment through a mesh's hole; 16 to 4096
  // samples: a raster far finer than the lattice is sampled more coarsely), then bisection behind
  // it: a bisection of the whole segment finds some crossing, not always the first (a thin wall in
  // front of a building).
  const double length = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  const double thinnest = height_maps_[k] ? height_maps_[k]->raster_cell() : length / 8;
  const int steps = int(std::clamp(std::ceil(2 * length / thinnest), 16.0, 4096.0));
  int first = 1;  // steps where only the end is solid
  while (first < steps && !shape_solid(k, at(double(first) / steps))) ++first;
  double out = double(first - 1) / steps, in = double(first) / steps;
  for (int i = 0; i < 60 && in - out > 1e-14; ++i) {
    const double mid = 0.5 * (out + in);
    (shape_solid(k, at(mid)) ? in : out) = mid;
  }
  return in;
}

WallCrossing DomainGeometry::wall_crossing_at_level(int level, const std::array<int, 3>& fluid,
                                                    const std::array<int, 3>& link) const {
  WallCrossing w;
  // The link's solid end wrapped as its flag was found, its centre in level-0 coordinates; the
  // link itself 2^-level level-0 cells per unit (never along z in 2D, which is not refined).
  std::array<int, 3> p{};
  std::array<double, 3> end{};
  if (!level_cell(level, {fluid[0] + link[0], fluid[1] + link[1], fluid[2] + link[2]}, p, end)) return w;
  const double h = std::ldexp(1.0, -level);
  const std::array<double, 3> c{link[0] * h, link[1] * h, cells_[2] == 1 ? double(link[2]) : link[2] * h};
  const std::array<double, 3> a{end[0] - c[0], end[1] - c[1], end[2] - c[2]};
  double best = 2;
  std::size_t closer = obstacles_.size();
  std::array<double, 3> copy{}, shift{};  // of the periodic copy met
  for (std::size_t k = 0; k < obstacles_.size(); ++k) {
    const double t = obstacle_entry(k, a, c, copy);
    if (t >= 0 && t < best) {
      best = t;
      closer = k;
      shift = copy;
    }
  }
  if (closer == obstacles_.size()) return w;  // a voxel (or a segment no surface was found on)
  const Obstacle& o = obstacles_[closer];
  w.interpolated = o.bounce_back == Obstacle::BounceBack::Interpolated;
  if (w.interpolated) w.fraction = best;
  w.quadratic = o.quadratic();
  if (o.angular_velocity != 0) {
    const int ax = o.axis, b = (ax + 1) % 3, e = (ax + 2) % 3;
    // About the axis of the copy the link meets.
    const double pb = a[b] + w.fraction * c[b] - (o.center[b] + shift[b]);
    const double pe = a[e] + w.fraction * c[e] - (o.center[e] + shift[e]);
    w.velocity[b] = -o.angular_velocity * pe;
    w.velocity[e] = o.angular_velocity * pb;
  }
  return w;
}

std::vector<std::string> body_names(const Config& config) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < config.obstacles.size(); ++k) names.push_back("obstacle" + std::to_string(k));
  if (config.voxels) names.push_back("voxels");
  return names;
}

namespace {
// Where faces meet (edges and corners of the ghost layer) the stronger condition wins:
// a resting wall over a moving wall over an inlet over an outlet over a free-slip face. A
// free-slip face yields everywhere: its edge with another face is then the other face's mirror
// image, as in the domain mirrored across it (the symmetry plane stays exact).
int priority(FaceBC bc) {
  switch (bc) {
    case FaceBC::Wall: return 5;
    case FaceBC::MovingWall: return 4;
    case FaceBC::VelocityInlet: return 3;
    case FaceBC::PressureOutlet: return 2;
    case FaceBC::Outflow: return 2;
    case FaceBC::FreeSlip: return 1;
    default: return 0;
  }
}

std::uint8_t face_flag(FaceBC bc, int face) {
  switch (bc) {
    case FaceBC::MovingWall: return flag::make(flag::moving_wall, face);
    case FaceBC::VelocityInlet: return flag::make(flag::inlet, face);
    case FaceBC::PressureOutlet: return flag::make(flag::outlet, face);
    case FaceBC::Outflow: return flag::make(flag::outflow, face);
    default: return flag::wall;
  }
}
}  // namespace

std::uint8_t DomainGeometry::flag_at(int x, int y, int z) const { return flag_at_level(0, x, y, z); }

std::optional<std::array<int, 3>> DomainGeometry::reflected_cell(const std::array<int, 3>& p,
                                                                 const std::array<int, 3>& c) const {
  const std::uint8_t link = flag_at(p[0] + c[0], p[1] + c[1], p[2] + c[2]);
  if (flag::kind(link) != flag::free_slip) return std::nullopt;
  std::array<int, 3> x{p[0] + c[0], p[1] + c[1], p[2] + c[2]};
  for (int d = 0; d < 3; ++d)
    if (flag::index(link) >> d & 1) x[d] = p[d];
  return x;
}

int DomainGeometry::ruling_face(const std::array<int, 3>& p, int& beyond) const {
  int best = -1;
  beyond = 0;
  for (int d = 0; d < 3; ++d) {
    int face = -1;
    if (p[d] < 0) face = 2 * d;
    if (p[d] >= cells_[d]) face = 2 * d + 1;
    if (face >= 0) beyond |= 1 << d;
    if (face >= 0 && (best < 0 || priority(faces_[face].type) > priority(faces_[best].type)))
      best = face;
  }
  return best;
}

int DomainGeometry::extruded_body(int level, const std::array<int, 3>& fine, int ruling, int beyond) const {
  const FaceBC type = faces_[ruling].type;
  if (type == FaceBC::Wall || type == FaceBC::FreeSlip) return -1;  // a wall already; a mirror
  // The domain's cell at the end of the ghost's column through the open faces, and its mirror
  // image across free-slip faces (2D: z is one layer).
  std::array<int, 3> inside = fine;
  for (int d = 0; d < 3; ++d) {
    if (!(beyond >> d & 1)) continue;
    const int n = d == 2 && cells_[2] == 1 ? 1 : cells_[d] << level, low = inside[d] < 0;
    if (faces_[2 * d + (low ? 0 : 1)].type == FaceBC::FreeSlip)
      inside[d] = low ? -inside[d] - 1 : 2 * n - 1 - inside[d];
    inside[d] = std::min(std::max(inside[d], 0), n - 1);  // deeper than the domain: its last cell
  }
  std::array<int, 3> q{};
  std::array<double, 3> centre{};
  return level_cell(level, inside, q, centre) ? solid_body(centre, q) : -1;
}

std::uint8_t DomainGeometry::flag_at_level(int level, int x, int y, int z) const {
  std::array<int, 3> p{};
  std::array<double, 3> centre{};
  if (level_cell(level, {x, y, z}, p, centre)) return solid_inside(centre, p) ? flag::wall : flag::fluid;
  int beyond = 0;
  const int best = ruling_face(p, beyond);
  if (extruded_body(level, {x, y, z}, best, beyond) >= 0) return flag::wall;
  // A free-slip face yields to all others: here every face the cell lies beyond is free-slip, and
  // a link through it is reflected along each of their axes.
  if (faces_[best].type == FaceBC::FreeSlip) return flag::make(flag::free_slip, beyond);
  return face_flag(faces_[best].type, best);
}

}  // namespace boreas
