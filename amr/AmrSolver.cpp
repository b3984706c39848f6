#include "amr/AmrSolver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/Error.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

std::unique_ptr<AmrSolver> AmrSolver::create(const Config& config, const DomainGeometry& domain, Forest forest,
                                             MPI_Comm comm) {
  return dispatch_lattice(config.lattice, [&](auto lattice) {
    using L = decltype(lattice);
    if (config.precision == Precision::Float) return make_amr_solver<L, float>(config, domain, std::move(forest), comm);
    return make_amr_solver<L, double>(config, domain, std::move(forest), comm);
  });
}

long long AmrSolver::updates_per_step() const {
  long long n = 0;
  for (int l = 0; l < forest().levels(); ++l) n += fluid_leaf_cells(l) << l;
  return n;
}

namespace {

bool open_face(FaceBC bc) {
  return bc == FaceBC::VelocityInlet || bc == FaceBC::PressureOutlet || bc == FaceBC::Outflow;
}

// The distance (level-0 cells) from a level-l block to the nearest inlet or outlet face;
// infinite without such faces. Exact: block bounds scaled by 2^-l are representable.
double open_face_distance(const Config& config, int l, const Box& box) {
  const double s = std::ldexp(1.0, -l);
  double nearest = std::numeric_limits<double>::infinity();
  for (int f = 0; f < num_faces; ++f) {
    const int d = f / 2;
    if (d >= config.dimensions() || !open_face(config.faces[f].type)) continue;
    nearest = std::min(nearest, f % 2 == 0 ? box.lo[d] * s : config.cells[d] - box.hi[d] * s);
  }
  return nearest;
}

bool touches_open_face(const Config& config, int l, const Box& box) { return open_face_distance(config, l, box) == 0; }

// Whether refining a level-l block could make the 2:1 balance refine a block on an inlet or
// outlet face: level-0 blocks there stay, so level 1 may start one block away and every finer
// level half a block further, which 2 blocks cover (N (2 - 2^-l) < 2 N).
bool near_open_face(const Config& config, int l, const Box& box) {
  const double n = config.amr.leaf_size;
  return open_face_distance(config, l, box) < (l == 0 ? n : 2 * n);
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

// The regrid indicator of one block: the largest |curl u| or |grad u| over its fluid cells, by
// differences inside the block (central, one-sided at its edges and next to solid cells), in the
// block's own lattice units.
double block_indicator(const AmrBlockSample& b, int dims, RegridCriterion criterion) {
  const int n[3] = {b.box.extent(0), b.box.extent(1), b.box.extent(2)};
  auto index = [&](int x, int y, int z) { return (std::size_t(z) * n[1] + y) * n[0] + x; };
  double worst = 0;
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) {
        if (b.flags[index(x, y, z)] != flag::fluid) continue;
        double G[3][3] = {};  // G[a][d] = d u_d / d x_a
        for (int a = 0; a < dims; ++a) {
          int lo[3] = {x, y, z}, hi[3] = {x, y, z};
          if (lo[a] > 0 && b.flags[index(lo[0] - (a == 0), lo[1] - (a == 1), lo[2] - (a == 2))] == flag::fluid) --lo[a];
          if (hi[a] < n[a] - 1 && b.flags[index(hi[0] + (a == 0), hi[1] + (a == 1), hi[2] + (a == 2))] == flag::fluid) ++hi[a];
          if (hi[a] == lo[a]) continue;
          for (int d = 0; d < 3; ++d)
            G[a][d] = (b.velocity[3 * index(hi[0], hi[1], hi[2]) + d] - b.velocity[3 * index(lo[0], lo[1], lo[2]) + d]) /
                      (hi[a] - lo[a]);
        }
        double v = 0;
        if (criterion == RegridCriterion::Vorticity) {
          const double w[3] = {G[1][2] - G[2][1], G[2][0] - G[0][2], G[0][1] - G[1][0]};
          v = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        } else {
          for (int a = 0; a < 3; ++a)
            for (int d = 0; d < 3; ++d) v += G[a][d] * G[a][d];
          v = std::sqrt(v);
        }
        worst = std::max(worst, v);
      }
  return worst;
}

// The deck's regions want the block refined (open faces stay on level 0).
bool regions_want(const Config& config, const DomainGeometry& domain, int l, const Box& box) {
  if (near_open_face(config, l, box)) return false;
  for (const AmrRegion& r : config.amr.regions)
    if (region_wants(r, config, domain, l, box)) return true;
  return false;
}

// Refuses forests whose balance reached an inlet or outlet face.
void check_open_faces(const Config& config, const Forest& forest) {
  for (int l = 1; l < forest.levels(); ++l)
    for (const ForestBlock& b : forest.level(l))
      if (touches_open_face(config, l, forest.box(b)))
        throw Error("AMR: the 2:1 balance refines a block on an inlet or outlet face to level " + std::to_string(l) +
                    "; inlet and outlet faces stay on level 0: keep refined regions further from them");
}

}  // namespace

Forest build_forest(const Config& config, const DomainGeometry& domain) {
  Forest forest(config.cells, config.amr.leaf_size, {domain.periodic(0), domain.periodic(1), domain.periodic(2)});
  forest.refine([&](int l, const Box& box) { return regions_want(config, domain, l, box); }, config.amr.max_level);
  check_open_faces(config, forest);
  return forest;
}

Forest regrid_forest(const Config& config, const DomainGeometry& domain, const Forest& current,
                     const std::vector<AmrBlockSample>& samples) {
  // Indicators per level and block of the current forest; refined blocks take their descendants'
  // maximum, in their own level's units (a gradient per cell doubles per level coarser).
  std::vector<std::vector<double>> indicator(current.levels());
  std::size_t next = 0;
  for (int l = 0; l < current.levels(); ++l) {
    indicator[l].resize(current.level(l).size());
    for (double& v : indicator[l]) v = block_indicator(samples.at(next++), config.dimensions(), config.amr.criterion);
  }
  for (int l = current.levels() - 1; l > 0; --l)
    for (std::size_t b = 0; b < current.level(l).size(); ++b) {
      double& parent = indicator[l - 1][current.level(l)[b].parent];
      parent = std::max(parent, 2 * indicator[l][b]);
    }
  const int n = config.amr.leaf_size, nz = config.dimensions() == 2 ? 1 : n;
  Forest forest(config.cells, n, {domain.periodic(0), domain.periodic(1), domain.periodic(2)});
  forest.refine(
      [&](int l, const Box& box) {
        if (regions_want(config, domain, l, box)) return true;
        if (near_open_face(config, l, box)) return false;
        // The block itself in the current forest, or the leaf holding it there (whose indicator,
        // measured on coarser cells, halves per level of difference).
        std::array<int, 3> index{box.lo[0] / n, box.lo[1] / n, box.lo[2] / nz};
        for (int m = l; m >= 0; --m) {
          const int b = current.find(m, index);
          if (b >= 0) {
            const double v = std::ldexp(indicator[m][b], m - l);
            const bool refined = m == l && !current.level(m)[b].leaf();
            return v > config.amr.refine_above || (refined && v > config.amr.coarsen_below);
          }
          index = {index[0] >> 1, index[1] >> 1, nz == 1 ? 0 : index[2] >> 1};
        }
        return false;
      },
      config.amr.max_level);
  check_open_faces(config, forest);
  return forest;
}

}  // namespace boreas
