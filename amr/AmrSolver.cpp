#include "amr/AmrSolver.hpp"

#include <cmath>

#include "core/Error.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

std::unique_ptr<AmrSolver> AmrSolver::create(const Config& config, const DomainGeometry& domain, Forest forest) {
  return dispatch_lattice(config.lattice, [&](auto lattice) {
    using L = decltype(lattice);
    if (config.precision == Precision::Float) return make_amr_solver<L, float>(config, domain, std::move(forest));
    return make_amr_solver<L, double>(config, domain, std::move(forest));
  });
}

long long AmrSolver::updates_per_step() const {
  long long n = 0;
  for (int l = 0; l < forest().levels(); ++l) n += fluid_leaf_cells(l) << l;
  return n;
}

namespace {

bool open_face(FaceBC bc) { return bc == FaceBC::VelocityInlet || bc == FaceBC::PressureOutlet; }

// Whether a level-l block touches a face whose condition is an inlet or outlet.
bool touches_open_face(const Config& config, int l, const Box& box) {
  for (int f = 0; f < num_faces; ++f) {
    const int d = f / 2;
    if (d >= config.dimensions() || !open_face(config.faces[f].type)) continue;
    if (f % 2 == 0 ? box.lo[d] == 0 : box.hi[d] == config.cells[d] << l) return true;
  }
  return false;
}

// Whether a region wants level-l block `box` refined. Level-0 cell-centre coordinates: a level-l
// block spans [lo / 2^l - 1/2, hi / 2^l - 1/2] and a region's cells [lo - 1/2, hi + 1/2].
bool region_wants(const AmrRegion& r, const Config& config, const DomainGeometry& domain, int l, const Box& box) {
  if (r.level <= l) return false;
  const double s = std::ldexp(1.0, -l);
  const int dims = config.dimensions();
  if (r.kind == AmrRegion::Kind::Box) {
    for (int d = 0; d < dims; ++d)
      if (box.lo[d] * s - 0.5 >= r.hi[d] + 0.5 || box.hi[d] * s - 0.5 <= r.lo[d] - 0.5) return false;
    return true;
  }
  // Near walls: any level-0 cell within `distance` of the block that is a wall or solid (inlet
  // and outlet faces do not count).
  std::array<int, 3> lo{0, 0, 0}, hi{1, 1, 1};
  for (int d = 0; d < dims; ++d) {
    lo[d] = int(std::floor(box.lo[d] * s - r.distance));
    hi[d] = int(std::ceil(box.hi[d] * s + r.distance));
  }
  for (int z = lo[2]; z < hi[2]; ++z)
    for (int y = lo[1]; y < hi[1]; ++y)
      for (int x = lo[0]; x < hi[0]; ++x) {
        const std::uint8_t fl = domain.flag_at(x, y, z);
        const std::uint8_t kind = flag::kind(fl);
        if (kind == flag::wall || kind == flag::moving_wall) return true;
      }
  return false;
}

}  // namespace

Forest build_forest(const Config& config, const DomainGeometry& domain) {
  Forest forest(config.cells, config.amr.leaf_size, {domain.periodic(0), domain.periodic(1), domain.periodic(2)});
  forest.refine(
      [&](int l, const Box& box) {
        if (touches_open_face(config, l, box)) return false;
        for (const AmrRegion& r : config.amr.regions)
          if (region_wants(r, config, domain, l, box)) return true;
        return false;
      },
      config.amr.max_level);
  for (int l = 1; l < forest.levels(); ++l)
    for (const ForestBlock& b : forest.level(l))
      if (touches_open_face(config, l, forest.box(b)))
        throw Error("AMR: the 2:1 balance refines a block on an inlet or outlet face to level " + std::to_string(l) +
                    "; inlet and outlet faces stay on level 0: keep refined regions further from them");
  return forest;
}

}  // namespace boreas
