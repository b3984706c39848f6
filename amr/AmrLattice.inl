// Definitions of amr/AmrLattice.hpp, compiled once per lattice and precision (AmrInstance.cpp.in).
#include "amr/AmrLattice.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "core/Error.hpp"
#include "core/ExactSum.hpp"
#include "amr/LeafValues.hpp"
#include "lbm/field/CellHash.hpp"
#include "lbm/field/FieldOps.hpp"

namespace boreas {

namespace {

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

template <class L, class Real>
AmrLattice<L, Real>::AmrLattice(const Config& config, const DomainGeometry& domain, Forest forest, MPI_Comm comm)
    : forest_(std::move(forest)),
      shape_(forest_.leaf_size(), forest_.two_dimensional()),
      cells0_(config.cells),
      periodic_{domain.periodic(0), domain.periodic(1), domain.periodic(2)},
      inflow_(config),
      collision_(config.collision),
      traversal_(config.traversal),
      comm_(comm),
      ghosts_pulled_only_(!config.needs_pull_kernel()),
      overlap_(config.parallel.overlap),
      crmt_(config.amr.crmt && comm_.size() > 1) {
  if ((L::D == 2) != forest_.two_dimensional())
    throw Error(std::string("AMR: lattice ") + L::name + " needs a " + (L::D == 2 ? "2D domain (nz = 1)" : "3D domain"));
  bc_ = CellPhysics<Real>::make(config).bc;
  bc_.turbulence = inflow_.turbulence();
  levels_.resize(forest_.levels());
  host_flags_.resize(forest_.levels());
  const long S = shape_.cells;
  const int n = shape_.n, zlo = -shape_.gz, zhi = shape_.nz + shape_.gz;
  for (int l = 0; l < forest_.levels(); ++l) {
    set_level_parameters(l, config);
    // Flags from the geometry at this level, ghosts included.
    const auto& blocks = forest_.level(l);
    std::vector<std::uint8_t>& fl = host_flags_[l];
    fl.assign(blocks.size() * S, flag::wall);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const Box box = forest_.box(blocks[b]);
      for (int z = zlo; z < zhi; ++z)
        for (int y = -1; y <= n; ++y)
          for (int x = -1; x <= n; ++x)
            fl[b * S + shape_.cell(x, y, z)] = level_flag(domain, l, {box.lo[0] + x, box.lo[1] + y, box.lo[2] + z});
    }
  }
  if (config.wall_links()) wall_domain_ = std::make_shared<const DomainGeometry>(domain);  // build's ghosts read it
  build();
  if (config.wall_links()) {
    wall_density_ = config.density;
    build_wall_links(domain, config.density);
  }
  if (config.forces.enabled) build_body_links(domain, config.density);
  if (crmt_) period_ = derive_exchange_period();
  restores_mass_ = config.restores_mass();
  if (restores_mass_)
    for (int l = 0; l < forest_.levels(); ++l) fluid_volume_ += std::ldexp(double(levels_[l].fluid_leaf_cells), -L::D * l);
  // The target of a regridded or restarted forest is the initial state's on that forest, as the
  // uninterrupted run's (set_state sets it).
  set_state([&](const std::array<double, 3>& x, double& rho, std::array<double, 3>& u) {
    initial_macroscopic(config, x, rho, u);
  });
  initial_mass_ = mass_target_;
}

// A refined cell is fluid only where one of its children is: a gap that the finer level closes (a
// slit narrower than its cells, bodies close together) is closed here too, else the cell, never
// restricted, would hold its first state for ever in the ghosts of the coarser leaves around it.
namespace {

// The 2^D cells on the next finer level under cell p (z kept in 2D), x fastest.
template <int D>
std::array<std::array<int, 3>, (1 << D)> children_of(const std::array<int, 3>& p) {
  std::array<std::array<int, 3>, (1 << D)> out;
  for (int o = 0; o < (1 << D); ++o)
    out[o] = {2 * p[0] + (o & 1), 2 * p[1] + (o >> 1 & 1), D == 3 ? 2 * p[2] + (o >> 2 & 1) : p[2]};
  return out;
}

// Cell p's coarse cell P on the next coarser level and the side of P's centre p lies on per axis
// (-1 / +1, 0 along z in 2D).
template <int D>
void parent_of(const std::array<int, 3>& p, std::array<int, 3>& P, std::array<int, 3>& side) {
  for (int d = 0; d < 3; ++d) {
    P[d] = d < D ? floor_div(p[d], 2) : p[d];
    side[d] = d < D ? (p[d] - 2 * P[d] == 0 ? -1 : 1) : 0;
  }
}

}  // namespace

template <class L, class Real>
std::uint8_t AmrLattice<L, Real>::level_flag(const DomainGeometry& domain, int l, const std::array<int, 3>& p) const {
  const std::uint8_t f = domain.flag_at_level(l, p[0], p[1], p[2]);
  std::array<int, 3> w = p;
  long cell = 0;
  if (f != flag::fluid || l + 1 >= forest_.levels() || !wrap_cell(l, w)) return f;
  const int b = locate(l, w, cell);
  if (b < 0 || forest_.level(l)[b].leaf()) return f;
  for (const std::array<int, 3>& c : children_of<L::D>(w))
    if (level_flag(domain, l + 1, c) == flag::fluid) return f;
  return flag::wall;
}

template <class L, class Real>
int AmrLattice<L, Real>::body_below(const DomainGeometry& domain, int l, const std::array<int, 3>& p) const {
  if (l + 1 >= forest_.levels()) return -1;
  const auto children = children_of<L::D>(p);
  for (const std::array<int, 3>& c : children)
    if (const int body = domain.body_at_level(l + 1, c[0], c[1], c[2]); body >= 0) return body;
  for (const std::array<int, 3>& c : children)
    if (const int body = body_below(domain, l + 1, c); body >= 0) return body;
  return -1;
}

template <class L, class Real>
AmrLattice<L, Real>::AmrLattice(const AmrLattice& of, Replica)
    : forest_(of.forest_),
      shape_(of.shape_),
      cells0_(of.cells0_),
      periodic_(of.periodic_),
      host_flags_(of.host_flags_),
      bc_(of.bc_),
      collision_(of.collision_),
      traversal_(of.traversal_),
      comm_(MPI_COMM_SELF),
      ghosts_pulled_only_(of.ghosts_pulled_only_),
      wall_domain_(of.wall_domain_),
      wall_density_(of.wall_density_),
      step_(of.step_) {
  levels_.resize(forest_.levels());
  for (int l = 0; l < forest_.levels(); ++l) {
    levels_[l].tau = of.levels_[l].tau;
    levels_[l].params = of.levels_[l].params;
    levels_[l].rates = of.levels_[l].rates;
  }
  build(1);  // restricting, sampling and regridding read one lattice
  if (wall_domain_) build_wall_links(*wall_domain_, wall_density_);  // the cut-cell restriction's walls
}

template <class L, class Real>
void AmrLattice<L, Real>::set_level_parameters(int l, const Config& config) {
  AmrLevel<L, Real>& lv = levels_[l];
  lv.tau = level_tau(config.tau, l);
  const std::array<double, 3> force = level_force(config.force, l);
  // Smagorinsky's filter width is each level's dx: the same constant in every level's units.
  // So is the coherent-structure model's (its constant C' is dimensionless).
  const double c_s = config.sgs == SgsModel::Smagorinsky ? config.smagorinsky_constant : 0.0;
  const double csm = config.sgs == SgsModel::Csm ? config.csm_constant : 0.0;
  lv.params = CollisionParams<Real>::make(lv.tau, config.trt_magic, force, c_s, csm);
  lv.params.parametrised = config.cumulant_parametrised;
  lv.params.limiter = Real(config.cumulant_limiter);
  lv.rates = CouplingRates<Real>::of_deck(config, lv.tau, force);
}

template <class L, class Real>
void AmrLattice<L, Real>::build(int lattices) {
  const int levels = forest_.levels(), n = shape_.n, me = comm_.rank();
  const long S = shape_.cells, QS = long(L::Q) * S;
  const int zlo = -shape_.gz, zhi = shape_.nz + shape_.gz;
  partition_ = partition_forest(forest_, comm_.size());
  const auto owned = [&](int l, int b) { return partition_.owner[l][b] == me; };

  // Tables in forest offsets (block * Q * S + cell) first: which blocks a rank holds follows from them.
  struct Tables {
    std::vector<long> copy_dst, copy_src;
    std::vector<std::uint32_t> copy_pulled;
    std::vector<InterpPoint> points;
    std::vector<int> leaves;
  };
  std::vector<Tables> tables(levels);
  std::vector<std::vector<char>> needed(levels);
  for (int l = 0; l < levels; ++l) needed[l].assign(forest_.level(l).size(), 0);
  const auto need = [&](int l, long offset) { needed[l][offset / QS] = 1; };
  // Every fluid ghost of leaf b on level l that the step reads: copy(dst, src, pulled) from a
  // same-level block, or interp(ip) from the coarser level, with the populations it needs
  // (pulled_from_ghost, or all). A ghost whose coarse cell is solid (a surface between the two
  // centres) extends the nearest fluid coarse cell's profile; one with none fluid beside it
  // becomes a wall (every rank closes every leaf's, so that the flags of a block agree on every
  // rank that holds it).
  const auto for_each_ghost = [&](int l, int b, auto&& copy, auto&& interp) {
    const ForestBlock& blk = forest_.level(l)[b];
    std::vector<std::uint8_t>& fl = host_flags_[l];
    const Box box = forest_.box(blk);
    for (int z = zlo; z < zhi; ++z)
      for (int y = -1; y <= n; ++y)
        for (int x = -1; x <= n; ++x) {
          const bool ghost = x < 0 || x >= n || y < 0 || y >= n || z < 0 || z >= shape_.nz;
          const long cell = shape_.cell(x, y, z);
          if (!ghost || fl[b * S + cell] != flag::fluid) continue;
          const int dx = x < 0 ? -1 : x >= n, dy = y < 0 ? -1 : y >= n, dz = z < 0 ? -1 : z >= shape_.nz;
          const int nb = blk.neighbours[(dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)];
          const std::uint32_t pulled = ghosts_pulled_only_ ? pulled_from_ghost<L>(shape_, x, y, z) : ~0u;
          if (nb >= 0) {
            if (pulled != 0)
              copy(long(b) * QS + cell, long(nb) * QS + shape_.cell(x - dx * n, y - dy * n, z - dz * shape_.nz), pulled);
            continue;
          }
          // Inside a coarser leaf (2:1 balance: level l - 1).
          std::array<int, 3> p{box.lo[0] + x, box.lo[1] + y, box.lo[2] + z};
          if (!wrap_cell(l, p) || l == 0) throw std::logic_error("AMR: ghost without a source");
          InterpPoint ip;
          ip.dst = long(b) * QS + cell;
          if (!coarse_stencil(l, p, true, ip) && !nearest_fluid_stencil(l, p, true, ip)) {
            fl[b * S + cell] = flag::wall;
            continue;
          }
          ip.curved = true;
          ip.pulled = pulled;
          if (pulled != 0) interp(ip);
        }
  };
  // The blocks (level, forest offset) an interpolation point reads.
  const auto interp_sources = [&](int l, const InterpPoint& ip, auto&& visit) {
    for_each_source(ip, [&](int kind, long offset) { visit(kind == 1 ? l - 1 : l, offset); });
  };
  for (int l = 0; l < levels; ++l) {
    const auto& blocks = forest_.level(l);
    Tables& t = tables[l];
    levels_[l].fluid_leaf_cells = 0;
    for (int b = 0; b < int(blocks.size()); ++b) {
      if (owned(l, b)) needed[l][b] = 1;  // refined ones too: outputs gather them from their owner
      if (!blocks[b].leaf()) continue;  // refined blocks are not stepped: their ghosts are never read
      for (long i = 0; i < shape_.interior(); ++i)
        levels_[l].fluid_leaf_cells += host_flags_[l][b * S + i] == flag::fluid;
      if (owned(l, b)) t.leaves.push_back(b);
      for_each_ghost(
          l, b,
          [&](long dst, long src, std::uint32_t pulled) {
            if (!owned(l, b)) return;
            t.copy_dst.push_back(dst);
            t.copy_src.push_back(src);
            t.copy_pulled.push_back(pulled);
            need(l, src);
          },
          [&](const InterpPoint& ip) {
            if (!owned(l, b)) return;
            interp_sources(l, ip, need);
            t.points.push_back(ip);
          });
    }
  }
  // Refined cells that this rank's leaves copy (the only ones each step restricts, with the
  // populations their copies read) and the children they are averaged from.
  std::vector<std::map<std::pair<int, long>, std::uint32_t>> restrict_cells(levels);  // (block, interior number)
  // The refined cell a copy from `src` reads (block, interior number) and the child holding it;
  // child -1 when src lies in a leaf.
  const auto refined_source = [&](int l, long src, std::pair<int, long>& at) {
    const int nb = int(src / QS);
    const ForestBlock& blk = forest_.level(l)[nb];
    if (blk.leaf()) return -1;
    const long cell = src % QS;  // an interior cell: its number
    int p[3];
    shape_.coordinates(cell, p);
    const int x = p[0], y = p[1], z = p[2];
    at = {nb, cell};
    const int h = n / 2;
    return forest_.find(l + 1, {2 * blk.index[0] + (x >= h), 2 * blk.index[1] + (y >= h),
                                L::D == 3 ? 2 * blk.index[2] + (z >= h) : 0});
  };
  for (int l = 0; l < levels; ++l)
    for (std::size_t c = 0; c < tables[l].copy_src.size(); ++c) {
      std::pair<int, long> at;
      const int child = refined_source(l, tables[l].copy_src[c], at);
      if (child < 0) continue;
      restrict_cells[l][at] |= tables[l].copy_pulled[c];
      needed[l + 1][child] = 1;
    }

  if (crmt_) {
    // CRMT: a second ring, what the held leaves of others read, so that those are stepped from
    // whole ghost layers and stale values start one ring further out.
    const std::vector<std::vector<char>> first_ring = needed;
    for (int l = 0; l < levels; ++l)
      for (int b = 0; b < int(first_ring[l].size()); ++b)
        if (first_ring[l][b] && !owned(l, b) && forest_.level(l)[b].leaf())
          for_each_ghost(
              l, b,
              [&](long, long src, std::uint32_t) {
                need(l, src);
                std::pair<int, long> at;
                if (const int child = refined_source(l, src, at); child >= 0) needed[l + 1][child] = 1;
              },
              [&](const InterpPoint& ip) { interp_sources(l, ip, need); });
  }
  held_.assign(levels, {});
  slot_.assign(levels, {});
  for (int l = 0; l < levels; ++l) {
    slot_[l].assign(forest_.level(l).size(), -1);
    for (int b = 0; b < int(needed[l].size()); ++b)
      if (needed[l][b]) {
        slot_[l][b] = int(held_[l].size());
        held_[l].push_back(b);
      }
    levels_[l].blocks = int(held_[l].size());
    levels_[l].places = LevelPlaces(shape_, levels_[l].blocks, sizeof(Real));
  }

  // CRMT: the held leaves of others are stepped too, their ghosts filled from what this rank holds;
  // the rest of their ghosts (and refined cells whose children it lacks) go stale until the next
  // exchange, which derive_exchange_period() accounts for.
  std::vector<std::vector<int>> halo_leaves(levels);
  std::vector<std::vector<long>> unfilled(levels);
  std::vector<std::vector<std::pair<int, long>>> unrestricted(levels);
  if (crmt_) {
    const auto held = [&](int l, long offset) { return slot_[l][offset / QS] >= 0; };
    for (int l = 0; l < levels; ++l) {
      Tables& t = tables[l];
      for (int b : held_[l]) {
        if (!forest_.level(l)[b].leaf() || owned(l, b)) continue;
        halo_leaves[l].push_back(b);
        for_each_ghost(
            l, b,
            [&](long dst, long src, std::uint32_t pulled) {
              if (!held(l, src)) {
                unfilled[l].push_back(dst);
                return;
              }
              t.copy_dst.push_back(dst);
              t.copy_src.push_back(src);
              t.copy_pulled.push_back(pulled);
              std::pair<int, long> at;
              const int child = refined_source(l, src, at);
              if (child < 0) return;
              if (slot_[l + 1][child] >= 0)
                restrict_cells[l][at] |= pulled;
              else
                unrestricted[l].push_back(at);
            },
            [&](const InterpPoint& ip) {
              bool all = true;
              interp_sources(l, ip, [&](int k, long offset) { all = all && held(k, offset); });
              if (all)
                t.points.push_back(ip);
              else
                unfilled[l].push_back(ip.dst);
            });
      }
    }
  }
  for (auto& cells : unrestricted) {
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  }
  halos_.assign(levels, {});
  std::size_t max_messages = 0;
  for (int l = 0; l < levels; ++l) {
    AmrLevel<L, Real>& lv = levels_[l];
    const auto& blocks = forest_.level(l);
    Tables& t = tables[l];
    for (int k = 0; k < lattices; ++k)
      lv.f[k] = DeviceView<Real*>("amr level " + std::to_string(l), std::size_t(lv.places.total) * L::Q);
    if (lv.params.has_csm) lv.velocity = CellVelocity<Real>("amr cell velocity", 3, std::size_t(lv.places.total));
    std::vector<std::uint8_t> flags(std::size_t(lv.blocks) * S), placed(lv.places.total, flag::wall);  // by slot, by place
    for (int s = 0; s < lv.blocks; ++s) {
      std::copy_n(host_flags_[l].begin() + long(held_[l][s]) * S, S, flags.begin() + long(s) * S);
      for (long c = 0; c < S; ++c) placed[lv.places.of(s, c)] = flags[s * S + c];
    }
    for (long& o : t.copy_dst) o = place_of(l, o);
    for (long& o : t.copy_src) o = place_of(l, o);
    // Coarse cells by their place in stencil_cells, whose moments each fill reads, and refined
    // coarse cells by their place in children_groups, whose means each fill computes, both in the
    // order of their places, so that those sweeps read each direction's plane in order (the
    // restriction's moments took 16 % less time sorted so on amr_nested).
    std::map<long, long> stencil_index, group_index;
    for (InterpPoint& ip : t.points) {
      ip.dst = place_of(l, ip.dst);
      for_each_source(ip, [&](int kind, long& offset) {
        offset = place_of(kind == 1 ? l - 1 : l, offset);
        (kind == 1 ? stencil_index : group_index)[offset] = 0;
      });
    }
    const auto numbered = [](std::map<long, long>& index) {
      std::vector<long> places;
      for (auto& [place, number] : index) {
        number = long(places.size());
        places.push_back(place);
      }
      return places;
    };
    const std::vector<long> stencil_cells = numbered(stencil_index), children_groups = numbered(group_index);
    for (InterpPoint& ip : t.points)
      for_each_source(ip, [&](int kind, long& offset) { offset = (kind == 1 ? stencil_index : group_index).at(offset); });
    // Ghosts in one coarse cell share its stencil, hence its fit; fits numbered in the order of
    // their coarse cells' places, as the moments they read.
    const auto stencil_key = [](const InterpPoint& ip) {
      std::vector<long> key{ip.centre};
      for (int a = 0; a < 3; ++a)
        for (int s = 0; s < 2; ++s)
          for (int d = 0; d < 2; ++d) key.insert(key.end(), {ip.kind[a][s][d], ip.side[a][s][d]});
      for (int pair = 0; pair < 3; ++pair)
        for (int quadrant = 0; quadrant < 4; ++quadrant)
          key.insert(key.end(), {ip.diagonal_kind[pair][quadrant], ip.diagonal[pair][quadrant]});
      return key;
    };
    std::map<std::vector<long>, long> fit_index;  // key -> a point with it, then -> fit number
    std::vector<decltype(fit_index)::iterator> fit_of;  // per point, its key's entry
    for (std::size_t k = 0; k < t.points.size(); ++k)
      fit_of.push_back(fit_index.emplace(stencil_key(t.points[k]), long(k)).first);
    std::vector<InterpPoint> fit_stencils;
    for (auto& [key, number] : fit_index) {
      fit_stencils.push_back(t.points[number]);
      number = long(fit_stencils.size()) - 1;
    }
    for (std::size_t k = 0; k < t.points.size(); ++k) t.points[k].fit = fit_of[k]->second;
    // Ghosts of neighbouring leaves at one place (a face ghost of one, an edge ghost of the next)
    // share fit and offset, hence their values: one is rebuilt with the populations all of them
    // pull, the others copy it afterwards (a rebuilt population does not depend on the others).
    std::map<std::array<long, 5>, std::size_t> rebuilt_at;
    std::vector<InterpPoint> rebuilt;
    std::vector<long> twin_dst, twin_src;
    std::vector<std::uint32_t> twin_pulled;
    for (const InterpPoint& ip : t.points) {
      const std::array<long, 5> key{ip.fit, ip.delta[0], ip.delta[1], ip.delta[2], ip.curved};
      const auto [it, fresh] = rebuilt_at.emplace(key, rebuilt.size());
      if (fresh) {
        rebuilt.push_back(ip);
        continue;
      }
      rebuilt[it->second].pulled |= ip.pulled;
      twin_dst.push_back(ip.dst);
      twin_src.push_back(rebuilt[it->second].dst);
      twin_pulled.push_back(ip.pulled);
    }
    t.points = std::move(rebuilt);
    lv.twin_dst = to_device_view("amr twin ghost dst", twin_dst);
    lv.twin_src = to_device_view("amr twin ghost src", twin_src);
    lv.twin_pulled = to_device_view("amr twin ghost pulled", twin_pulled);
    lv.fit_stencils = to_device_view("amr fit stencils", fit_stencils);
    lv.fits = DeviceView<CoarseFit<Real>*>("amr coarse fits", fit_stencils.size());
    lv.stencil_cells = to_device_view("amr stencil cells", stencil_cells);
    lv.stencil_moments = DeviceView<Real* [8]>("amr stencil moments", stencil_cells.size());
    lv.children_groups = to_device_view("amr children groups", children_groups);
    lv.children_means = DeviceView<Real* [4]>("amr children means", children_groups.size());
    for (int& b : t.leaves) b = slot_[l][b];
    for (int& b : halo_leaves[l]) b = slot_[l][b];
    for (long& o : unfilled[l]) o = place_of(l, o);

    std::vector<int> refined, children;
    std::vector<int> refined_position(blocks.size(), -1);
    for (int b : held_[l]) {
      const ForestBlock& blk = blocks[b];
      if (blk.leaf()) continue;
      refined_position[b] = int(refined.size());
      refined.push_back(slot_[l][b]);
      for (int o = 0; o < 8; ++o) {
        const bool exists = L::D == 3 || o < 4;
        const int child = exists ? forest_.find(l + 1, {2 * blk.index[0] + (o & 1), 2 * blk.index[1] + ((o >> 1) & 1),
                                                        L::D == 3 ? 2 * blk.index[2] + (o >> 2) : 0})
                                 : -1;
        children.push_back(child >= 0 ? slot_[l + 1][child] : -1);  // -1 also where not held
      }
    }
    std::vector<long> restrict_read;
    std::vector<std::uint32_t> restrict_pulled;
    for (const auto& [at, pulled] : restrict_cells[l]) {
      restrict_read.push_back(refined_position[at.first] * shape_.interior() + at.second);
      restrict_pulled.push_back(pulled);
    }
    lv.restrict_read = to_device_view("amr restrict read", restrict_read);
    lv.restrict_pulled = to_device_view("amr restrict pulled", restrict_pulled);
    // The fine cells those read (AmrFineToCoarse::sources), each once.
    std::map<long, long> fine_index;
    std::vector<std::array<long, 20>> sources;  // places (-1: not fluid), then places in fine_cells
    for (const long k : restrict_read) {
      int p[3];
      shape_.coordinates(k % shape_.interior(), p);
      const int h = n / 2;
      const int child = children[(k / shape_.interior()) * 8 + (p[0] >= h) + 2 * (p[1] >= h) + 4 * (p[2] >= h)];
      if (child < 0) throw std::logic_error("AMR: a restricted cell's children are not held");
      const int first[3] = {2 * (p[0] % h), 2 * (p[1] % h), L::D == 3 ? 2 * (p[2] % h) : 0};
      const auto place = [&](int ox, int oy, int oz) {
        const long at = shape_.cell(first[0] + ox, first[1] + oy, first[2] + oz);
        if (host_flags_[l + 1][long(held_[l + 1][child]) * S + at] != flag::fluid) return -1L;
        const long fine_place = levels_[l + 1].places.of(child, at);
        fine_index[fine_place] = 0;
        return fine_place;
      };
      std::array<long, 20> entry;
      entry.fill(-1);
      for (int o = 0; o < (L::D == 3 ? 8 : 4); ++o) entry[o] = place(o & 1, (o >> 1) & 1, o >> 2);
      for (int a = 0; a < L::D; ++a)
        for (int v = 0; v < 2; ++v)
          for (int w = 0; w < (L::D == 3 ? 2 : 1); ++w) {
            int o[3] = {0, 0, 0};
            o[a] = 2 * (p[a] % h) + 2 < n ? 2 : -1;
            o[(a + 1) % L::D] = v;
            if (L::D == 3) o[(a + 2) % 3] = w;
            entry[8 + 4 * a + 2 * w + v] = place(o[0], o[1], o[2]);
          }
      sources.push_back(entry);
    }
    const std::vector<long> fine_cells = numbered(fine_index);  // in the order of their places, as the stencil cells
    for (auto& entry : sources)
      for (long& e : entry)
        if (e >= 0) e = fine_index.at(e);
    lv.restrict_fine_cells = to_device_view("amr restrict fine cells", fine_cells);
    lv.restrict_fine_moments = DeviceView<Real* [4]>("amr restrict fine moments", fine_cells.size());
    if (!fine_cells.empty()) {  // which of them level l + 1's step keeps (in leaves this rank owns)
      AmrLevel<L, Real>& fine = levels_[l + 1];
      std::vector<int> slots(std::size_t(fine.places.total), -1);
      std::vector<std::uint8_t> rows(std::size_t(fine.blocks) * (shape_.interior() / n), 0);
      std::vector<long> fallback;
      std::vector<int> fallback_rows;
      for (std::size_t k = 0; k < fine_cells.size(); ++k) {
        const long place = fine_cells[k], slot = place / shape_.interior();
        const int b = place < fine.places.rings_at ? held_[l + 1][slot] : -1;
        if (b >= 0 && owned(l + 1, b) && forest_.level(l + 1)[b].leaf()) {
          slots[place] = int(k);
          rows[shape_.row_of(slot, place % shape_.interior())] = 1;
        } else {
          fallback.push_back(place);
          fallback_rows.push_back(int(k));
        }
      }
      fine.moment_slots = to_device_view("amr moment slots", slots);
      fine.moment_rows = to_device_view("amr moment rows", rows);
      fine.step_moments = lv.restrict_fine_moments;
      lv.restrict_fallback_cells = to_device_view("amr restrict fallback cells", fallback);
      lv.restrict_fallback_rows = to_device_view("amr restrict fallback rows", fallback_rows);
    }
    lv.restrict_sources = DeviceView<int* [20]>("amr restrict sources", sources.size());
    {
      auto hs = Kokkos::create_mirror_view(lv.restrict_sources);
      for (std::size_t k = 0; k < sources.size(); ++k)
        for (int e = 0; e < 20; ++e) hs(k, e) = int(sources[k][e]);
      Kokkos::deep_copy(lv.restrict_sources, hs);
    }
    std::vector<long> stale_refined;
    for (const auto& [b, i] : unrestricted[l]) stale_refined.push_back(lv.places.of(slot_[l][b], i));
    lv.unrestricted = to_device_view("amr unrestricted", stale_refined);
    lv.unfilled = to_device_view("amr unfilled", unfilled[l]);
    lv.halo_leaves = to_device_view("amr halo leaves", halo_leaves[l]);
    lv.since_exchange = 0;
    lv.flags = to_device_view("amr flags", placed);
    std::vector<int> origin;
    for (int b : held_[l])
      for (int d = 0; d < 3; ++d) origin.push_back(forest_.box(blocks[b]).lo[d]);
    lv.origin = to_device_view("amr block origins", origin);
    const long rows = shape_.interior() / n;
    std::vector<std::uint8_t> plain_rows(std::size_t(lv.blocks) * rows, 1);
    for (int k = 0; k < lv.blocks; ++k)
      for (long i = 0; i < shape_.interior(); ++i) {
        int p[3];
        shape_.coordinates(i, p);
        std::uint8_t& plain = plain_rows[shape_.row_of(k, i)];
        for (int q = 0; q < L::Q; ++q)
          plain = plain && flags[k * S + shape_.cell(p[0] - L::c(q, 0), p[1] - L::c(q, 1), p[2] - L::c(q, 2))] == flag::fluid;
      }
    lv.plain_rows = to_device_view("amr plain rows", plain_rows);
    {
      std::vector<int> neighbour_slots(std::size_t(lv.blocks) * 27);
      for (int k = 0; k < lv.blocks; ++k)
        for (int r = 0; r < 27; ++r) {
          const int nb = blocks[held_[l][k]].neighbours[r];
          neighbour_slots[27 * k + r] = nb >= 0 ? slot_[l][nb] : -1;  // -1 also where not held (CRMT)
        }
      lv.regions = region_view(leaf_regions(shape_, lv.places, neighbour_slots));
      std::vector<long> velocity_ring;
      for (int k = 0; k < lv.blocks && lv.params.has_csm; ++k)
        for (int z = -shape_.gz; z < shape_.nz + shape_.gz; ++z)
          for (int y = -1; y <= n; ++y)
            for (int x = -1; x <= n; ++x) {
              const int r = shape_.region(x, y, z);
              const long cell = shape_.cell(x, y, z);
              if (r != 13 && neighbour_slots[27 * k + r] < 0 && flags[k * S + cell] == flag::fluid)
                velocity_ring.push_back(lv.places.of(k, cell));
            }
      lv.velocity_ring = to_device_view("amr velocity ring", velocity_ring);
    }
    lv.leaves = to_device_view("amr leaves", t.leaves);
    lv.refined = to_device_view("amr refined", refined);
    lv.copy_dst = to_device_view("amr copy dst", t.copy_dst);
    lv.copy_src = to_device_view("amr copy src", t.copy_src);
    lv.copy_pulled = to_device_view("amr copy pulled", t.copy_pulled);
    lv.interp = to_device_view("amr interpolation", t.points);
    lv.children = DeviceView<int* [8]>("amr children", refined.size());
    auto h = Kokkos::create_mirror_view(lv.children);
    for (std::size_t r = 0; r < refined.size(); ++r)
      for (int o = 0; o < 8; ++o) h(r, o) = children[r * 8 + o];
    Kokkos::deep_copy(lv.children, h);

    // Leaves held but owned elsewhere come from their owners after every step of this level (with
    // CRMT every period_-th), as their interior cells.
    std::vector<std::vector<int>> wanted(comm_.size());
    for (int b : held_[l])
      if (blocks[b].leaf() && !owned(l, b)) wanted[partition_.owner[l][b]].push_back(b);
    const std::vector<std::vector<int>> requested = comm_.exchange(wanted);
    std::vector<typename LeafHalo<Real>::Peer> sends, receives;
    for (int r = 0; r < comm_.size(); ++r) {
      if (!requested[r].empty()) sends.push_back({r, {}});
      for (int b : requested[r]) {
        if (!owned(l, b) || !blocks[b].leaf()) throw std::logic_error("AMR: a rank asks for a block this rank does not own");
        sends.back().blocks.push_back(slot_[l][b]);
      }
      if (!wanted[r].empty()) receives.push_back({r, {}});
      for (int b : wanted[r]) receives.back().blocks.push_back(slot_[l][b]);
    }
    std::vector<long> interior_values;  // what a leaf sent as its interior carries
    for (int q = 0; q < L::Q; ++q)
      for (long i = 0; i < shape_.interior(); ++i) interior_values.push_back(q * lv.places.total + i);
    halos_[l] = LeafHalo<Real>(sends, receives, shape_.interior(), interior_values);

    std::vector<char> boundary(lv.blocks, 0);
    for (std::size_t k = 0; k < sends.size(); ++k) {
      std::vector<int> fresh;
      for (int slot : sends[k].blocks)
        if (!boundary[slot]) {
          boundary[slot] = 1;
          fresh.push_back(slot);
        }
      lv.message_leaves.push_back(to_device_view("amr message leaves", fresh));
    }
    std::vector<int> edge, inner;
    for (int slot : t.leaves) (boundary[slot] ? edge : inner).push_back(slot);
    lv.boundary_leaves = to_device_view("amr boundary leaves", edge);
    lv.interior_leaves = to_device_view("amr interior leaves", inner);
    constexpr std::size_t chunks = 4;
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::vector<int> part(inner.begin() + inner.size() * c / chunks, inner.begin() + inner.size() * (c + 1) / chunks);
      lv.interior_chunks.push_back(to_device_view("amr interior chunk", part));
    }
    max_messages = std::max(max_messages, sends.size());
  }
  instances_ = std::make_unique<ExecInstances>(int(std::max<std::size_t>(max_messages, 1)));
}

template <class L, class Real>
bool AmrLattice<L, Real>::wrap_cell(int l, std::array<int, 3>& p) const {
  for (int d = 0; d < 3; ++d) {
    const int extent = d == 2 && forest_.two_dimensional() ? 1 : cells0_[d] << l;
    if (periodic_[d]) p[d] = ((p[d] % extent) + extent) % extent;
    if (p[d] < 0 || p[d] >= extent) return false;
  }
  return true;
}

template <class L, class Real>
int AmrLattice<L, Real>::locate(int l, const std::array<int, 3>& p, long& cell) const {
  const int n = shape_.n, nz = shape_.nz;
  const int b = forest_.find(l, {floor_div(p[0], n), floor_div(p[1], n), floor_div(p[2], nz)});
  if (b < 0) return -1;
  const Box box = forest_.box(forest_.level(l)[b]);
  cell = shape_.cell(p[0] - box.lo[0], p[1] - box.lo[1], p[2] - box.lo[2]);
  return b;
}

template <class L, class Real>
long AmrLattice<L, Real>::place_of(int l, long offset) const {
  const long QS = long(L::Q) * shape_.cells;
  const int s = slot_[l][offset / QS];
  if (s < 0) throw std::logic_error("AMR: a table reads a block this rank does not hold");
  return levels_[l].places.of(s, offset % QS);
}

template <class L, class Real>
bool AmrLattice<L, Real>::coarse_stencil(int l, const std::array<int, 3>& p, bool children_groups, InterpPoint& ip) const {
  std::array<int, 3> P{}, side{};
  parent_of<L::D>(p, P, side);
  for (int d = 0; d < 3; ++d) ip.delta[d] = std::int8_t(side[d]);
  long ccell = 0;
  const int cb = locate(l - 1, P, ccell);
  if (cb < 0) throw std::logic_error("AMR: 2:1 balance violated at a level interface");
  return stencil_around(l, P, cb, ccell, children_groups, ip);
}

template <class L, class Real>
bool AmrLattice<L, Real>::nearest_fluid_stencil(int l, const std::array<int, 3>& p, bool children_groups,
                                                InterpPoint& ip) const {
  std::array<int, 3> P{}, toward{};
  parent_of<L::D>(p, P, toward);
  // The coarse cells on p's side of its own, across a face first, then an edge, then the corner.
  for (int across = 1; across <= L::D; ++across)
    for (int mask = 1; mask < 1 << L::D; ++mask) {
      if (__builtin_popcount(unsigned(mask)) != across) continue;
      std::array<int, 3> Q = P;
      for (int d = 0; d < L::D; ++d) Q[d] += (mask >> d & 1) * toward[d];
      long qcell = 0;
      const int qb = wrap_cell(l - 1, Q) ? locate(l - 1, Q, qcell) : -1;
      // A stepping ghost reads coarse leaves only: refined cells are restricted where copies read them.
      if (qb < 0 || (children_groups && !forest_.level(l - 1)[qb].leaf())) continue;
      if (!stencil_around(l, Q, qb, qcell, children_groups, ip)) continue;
      // p's centre from that cell's, in quarters of a coarse cell: 3 back toward p's own.
      for (int d = 0; d < L::D; ++d) ip.delta[d] = std::int8_t(mask >> d & 1 ? -3 * toward[d] : toward[d]);
      if (across == 1 && children_groups && wall_domain_) {
        const int a = __builtin_ctz(unsigned(mask));
        std::array<int, 3> link{0, 0, 0};
        link[a] = -toward[a];
        const WallCrossing w = wall_domain_->wall_crossing_at_level(l - 1, Q, link);
        if (w.interpolated && w.velocity == std::array<double, 3>{0, 0, 0} && w.fraction > 0.75) {
          ip.wall = -toward[a] * w.fraction;
          ip.wall_axis = std::int8_t(a);
        }
      }
      return true;
    }
  return false;
}

template <class L, class Real>
bool AmrLattice<L, Real>::stencil_around(int l, const std::array<int, 3>& P, int cb, long ccell, bool children_groups,
                                         InterpPoint& ip) const {
  const long S = shape_.cells;
  if (host_flags_[l - 1][cb * S + ccell] != flag::fluid) return false;
  ip.centre = long(cb) * L::Q * S + ccell;
  // Level-(l - 1) cell Q as a stencil cell: kind 1 (its offset) or 2 (its first child's); 0 where
  // it is outside, solid, inside a leaf two levels coarser or over a closed child.
  const auto classify = [&](std::array<int, 3> Q, long& offset) -> std::int8_t {
    long qcell = 0;
    const int qb = wrap_cell(l - 1, Q) ? locate(l - 1, Q, qcell) : -1;
    if (qb < 0) return 0;
    if (!children_groups || forest_.level(l - 1)[qb].leaf()) {
      if (host_flags_[l - 1][qb * S + qcell] != flag::fluid) return 0;
      offset = long(qb) * L::Q * S + qcell;
      return 1;
    }
    // A refined coarse cell: its children on level l are at the fine level's time.
    const std::array<int, 3> first{2 * Q[0], 2 * Q[1], L::D == 3 ? 2 * Q[2] : 0};
    long fcell = 0;
    const int fb = locate(l, first, fcell);
    bool fluid = fb >= 0;
    for (int oz = 0; fluid && oz < (L::D == 3 ? 2 : 1); ++oz)
      for (int oy = 0; oy < 2; ++oy)
        for (int ox = 0; ox < 2; ++ox)
          fluid = fluid && host_flags_[l][fb * S + shape_.neighbour(fcell, ox, oy, oz)] == flag::fluid;
    if (!fluid) return 0;
    offset = long(fb) * L::Q * S + fcell;
    return 2;
  };
  for (int a = 0; a < L::D; ++a)
    for (int s = 0; s < 2; ++s)
      for (int dist = 0; dist < 2; ++dist) {
        std::array<int, 3> Q = P;
        Q[a] += (s == 0 ? -1 : 1) * (dist + 1);
        ip.kind[a][s][dist] = classify(Q, ip.side[a][s][dist]);
        if (ip.kind[a][s][dist] == 0) break;  // nothing further on that side
      }
  for (int pair = 0; pair < mixed_pairs(L::D); ++pair)
    for (int quadrant = 0; quadrant < 4; ++quadrant) {
      const int a = mixed_axes(pair, 0), b = mixed_axes(pair, 1);
      std::array<int, 3> Q = P;
      Q[a] += quadrant & 1 ? 1 : -1;
      Q[b] += quadrant & 2 ? 1 : -1;
      ip.diagonal_kind[pair][quadrant] = classify(Q, ip.diagonal[pair][quadrant]);
    }
  // With both neighbours at distance 1, the slope and curvature are central and read nothing
  // further (slope_and_curvature): the cells at distance 2 would only cost their moments.
  for (int a = 0; a < L::D; ++a)
    if (ip.kind[a][0][0] != 0 && ip.kind[a][1][0] != 0)
      for (int s = 0; s < 2; ++s) {
        ip.kind[a][s][1] = 0;
        ip.side[a][s][1] = 0;
      }
  return true;
}

template <class L, class Real>
void AmrLattice<L, Real>::set_state(const StateFunction& state) {
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    AmrLevel<L, Real>& lv = levels_[l];
    auto host = Kokkos::create_mirror_view(lv.f[lv.cur]);
    Kokkos::deep_copy(host, lv.f[lv.cur]);
    const double h = std::ldexp(1.0, -l);
    for (int slot = 0; slot < lv.blocks; ++slot) {
      const int b = held_[l][slot];
      const Box box = forest_.box(forest_.level(l)[b]);
      for (long i = 0; i < shape_.interior(); ++i) {
        const long cell = i;
        if (host_flags_[l][long(b) * S + cell] != flag::fluid) continue;
        const int c[3] = {box.lo[0] + int(i % shape_.n), box.lo[1] + int(i / shape_.n % shape_.n),
                          box.lo[2] + int(i / (long(shape_.n) * shape_.n))};
        auto at = [&](int a, double shift, double& rho, std::array<double, 3>& u) {
          std::array<double, 3> x{};
          for (int d = 0; d < 3; ++d) x[d] = d < L::D ? (c[d] + 0.5 + (d == a ? shift : 0.0)) * h - 0.5 : 0.0;
          state(x, rho, u);
        };
        double rho;
        std::array<double, 3> u, up, um;
        at(-1, 0, rho, u);
        Real G[3][3] = {}, ur[3];
        FlowCurvature<Real> k;
        for (int a = 0; a < L::D; ++a) {
          double rho_up, rho_um;
          at(a, 1, rho_up, up);
          at(a, -1, rho_um, um);
          for (int d = 0; d < 3; ++d) G[a][d] = Real(0.5 * (up[d] - um[d]));  // per level-l cell
          k.rho_gradient[a] = Real(0.5 * (rho_up - rho_um));
        }
        for (int d = 0; d < 3; ++d) ur[d] = Real(u[d]);
        Real f[L::Q];
        rebuild_post_collision<L>(Real(rho), ur, G, k, lv.rates, f);
        for (int q = 0; q < L::Q; ++q) host(lv.places.of(slot, cell) + q * lv.places.total) = f[q];
      }
    }
    Kokkos::deep_copy(lv.f[lv.cur], host);
  }
  // The refined cells coarser leaves read hold their children's average from the first step on,
  // as after every step and regrid (else the first step would depend on whether an output
  // restricted them): the finer levels' ghosts filled at t and their leaves exchanged (ranks
  // average children they do not own), then restricted.
  for (int l = 1; l < int(levels_.size()); ++l) {
    fill_ghosts(l, Real(0));
    halos_[l].exchange(comm_, levels_[l].f[levels_[l].cur], l);
  }
  for (int l = int(levels_.size()) - 2; l >= 0; --l) restrict_level(l, levels_[l].f[levels_[l].cur], false);
  for (AmrLevel<L, Real>& lv : levels_) lv.since_exchange = 0;
  Kokkos::fence();
  if (restores_mass_) mass_target_ = mass();  // a closed deck keeps the mass it was given
}

template <class L, class Real>
std::unique_ptr<AmrSolver> AmrLattice<L, Real>::regridded(const Config& config, const DomainGeometry& domain,
                                                           Forest forest) const {
  if (distributed()) {
    // On a replica of the whole forest (every rank alike), then shared out again; the replica
    // only carries the state over, so it needs no body links.
    Config transfer = config;
    transfer.forces.enabled = false;
    std::unique_ptr<AmrSolver> whole = gathered().regridded(transfer, domain, forest);
    auto next = std::make_unique<AmrLattice>(config, domain, std::move(forest), comm_.get());
    next->take_blocks(static_cast<const AmrLattice&>(*whole));
    carry_run(*next);
    return next;
  }
  auto next = std::make_unique<AmrLattice>(config, domain, std::move(forest), MPI_COMM_SELF);
  restrict_all();  // coarsened blocks take their refined values
  next->transfer_from(*this);
  // New refined blocks hold interpolated values until restricted: coarser leaves read them in the
  // next step, so the restriction cannot wait for the next output (which would make the run
  // depend on the output interval). It reads the finer levels' ghosts: filled first, at the
  // step's time (alpha 0), as the next step fills them.
  for (int l = 1; l < int(next->levels_.size()); ++l) next->fill_ghosts(l, Real(0));
  next->restrict_all();
  carry_run(*next);
  return next;
}

// What a regridded solver continues besides the state: the step, the timers, the mass target (a
// state set_state gave keeps its mass) and the averages.
template <class L, class Real>
void AmrLattice<L, Real>::carry_run(AmrLattice& next) const {
  next.mass_target_ += mass_target_ - initial_mass_;
  next.step_ = step_;
  next.timers_ = timers_;
  carry_statistics(next);
}

// The averages move with the leaves (amr/LeafValues.hpp): kept where a leaf stays, copied into
// refined cells, averaged where cells merge, over fluid cells only (a solid cell's means are zero:
// until 2026-12-07 they entered a merged cell's means, and a fluid cell split from one whose
// centre lay in a body took them whole). A fluid cell none of whose old cells was fluid starts
// from its current state, as if every sample so far had been it.
template <class L, class Real>
void AmrLattice<L, Real>::carry_statistics(AmrLattice& next) const {
  if (statistics_samples_ == 0) return;
  constexpr int C = RunningStatistics::state_columns;
  const long S = shape_.cells, interior = shape_.interior();
  // Each old leaf cell's means times its fluid flag, then the flag: the transfer's ratio of the
  // two is the mean over the fluid cells.
  const std::vector<double> old_state = statistics_state();
  std::vector<double> weighted;
  weighted.reserve(old_state.size() / C * (C + 1));
  long cell = 0;
  for (int l = 0; l < forest_.levels(); ++l)
    for (std::size_t b = 0; b < forest_.level(l).size(); ++b) {
      if (!forest_.level(l)[b].leaf()) continue;
      for (long i = 0; i < interior; ++i, ++cell) {
        const double fluid = host_flags_[l][b * S + i] == flag::fluid ? 1.0 : 0.0;
        for (int c = 0; c < C; ++c) weighted.push_back(fluid * old_state[cell * C + c]);
        weighted.push_back(fluid);
      }
    }
  const std::vector<double> moved = transfer_leaf_values(forest_, weighted, next.forest_, C + 1);
  std::vector<double> state(moved.size() / (C + 1) * C, 0.0);
  std::vector<long> unreached;  // new fluid cells without an old fluid cell; alike on every rank
  cell = 0;
  for (int l = 0; l < next.forest_.levels(); ++l)
    for (std::size_t b = 0; b < next.forest_.level(l).size(); ++b) {
      if (!next.forest_.level(l)[b].leaf()) continue;
      for (long i = 0; i < interior; ++i, ++cell) {
        if (next.host_flags_[l][b * S + i] != flag::fluid) continue;  // its means stay zero
        const double* m = moved.data() + cell * (C + 1);
        if (m[C] > 0)
          for (int c = 0; c < C; ++c) state[cell * C + c] = m[c] / m[C];
        else
          unreached.push_back(cell);
      }
    }
  if (!unreached.empty()) {
    const std::vector<double> now = next.leaf_values_now();
    for (long k : unreached) {
      const double* m = now.data() + k * 4;  // rho, u
      double* out = state.data() + k * C;
      for (int c = 0; c < 4; ++c) out[c] = m[c];
      for (int p = 0; p < 6; ++p) out[4 + p] = m[1 + RunningStatistics::product_axes[p][0]] * m[1 + RunningStatistics::product_axes[p][1]];
    }
  }
  next.load_statistics_state(state, statistics_samples_);
}

// Density and velocity of every leaf cell (leaf_moments), gathered in forest order. Collective.
template <class L, class Real>
std::vector<double> AmrLattice<L, Real>::leaf_values_now() const {
  const std::vector<CellMoments> moments = leaf_moments();
  std::vector<std::vector<double>> owned;
  for (const CellMoments& m : moments) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
    std::vector<double> values(host.extent(0) * 4);
    for (std::size_t i = 0; i < host.extent(0); ++i)
      for (int c = 0; c < 4; ++c) values[4 * i + c] = host(i, c);
    owned.push_back(std::move(values));
  }
  return gather_leaf_values(forest_, partition_, comm_, owned, shape_.interior() * 4);
}

template <class L, class Real>
void AmrLattice<L, Real>::transfer_from(const AmrLattice& old) {
  if (distributed() || old.distributed()) throw std::logic_error("AMR: transfer between whole forests only");
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    AmrLevel<L, Real>& lv = levels_[l];
    std::vector<int> to, from;
    std::vector<InterpPoint> points;
    std::vector<long> kept;  // places of cells that keep this solver's start state
    // Fluid cell i of block b takes the flow interpolated from the coarser level (a new block's
    // cells); false where there is none (level 0, or no fluid coarse cell near).
    auto interpolated = [&](int b, long i) {
      const Box box = forest_.box(forest_.level(l)[b]);
      const std::array<int, 3> p{box.lo[0] + int(i % shape_.n), box.lo[1] + int(i / shape_.n % shape_.n),
                                 box.lo[2] + int(i / (long(shape_.n) * shape_.n))};
      InterpPoint ip;
      ip.dst = place_of(l, long(b) * L::Q * S + i);
      // A fluid cell whose coarse cell is solid (at a body's surface) extends the nearest fluid
      // coarse cell's linear profile.
      if (l == 0 || (!coarse_stencil(l, p, false, ip) && !nearest_fluid_stencil(l, p, false, ip))) return false;
      for_each_source(ip, [&](int, long& offset) { offset = place_of(l - 1, offset); });  // kind 1 only
      points.push_back(ip);  // not curved: linear, conservative
      return true;
    };
    for (int b = 0; b < lv.blocks; ++b) {
      const ForestBlock& blk = forest_.level(l)[b];
      const int ob = l < old.forest_.levels() ? old.forest_.find(l, blk.index) : -1;
      for (long i = 0; i < shape_.interior(); ++i) {
        if (host_flags_[l][b * S + i] != flag::fluid) continue;
        // A block the old forest had refined held closed cells (every finer cell in a body: never
        // stepped, no state); fluid as leaf cells now, they take the flow or keep the start state.
        // Until 2026-12-07 they were copied with zero populations (NaN within two steps).
        if (ob >= 0 && old.host_flags_[l][ob * S + i] == flag::fluid) continue;
        if (!interpolated(b, i) && ob >= 0) kept.push_back(place_of(l, long(b) * L::Q * S + i));
      }
      if (ob >= 0) {
        to.push_back(b);
        from.push_back(ob);
      }
    }
    if (!to.empty()) {
      const DeviceView<int* [2]> d = block_pairs("amr regrid pairs", to, from);
      const AmrLevel<L, Real>& old_level = old.levels_[l];
      AmrKeptCells<Real> start{lv.f[lv.cur], DeviceView<Real**>("amr regrid start states", kept.size(), L::Q),
                               to_device_view("amr regrid kept cells", kept), lv.places.total, true};
      const Kokkos::RangePolicy<ExecSpace> kept_cells(0, long(kept.size()));
      Kokkos::parallel_for("amr regrid keep", kept_cells, start);
      Kokkos::parallel_for("amr regrid copy", Kokkos::RangePolicy<ExecSpace>(0, long(d.extent(0)) * L::Q * S),
                           AmrBlockCopy<Real>{lv.f[lv.cur], old_level.f[old_level.cur], d, lv.places, old_level.places, S, L::Q});
      start.save = false;
      Kokkos::parallel_for("amr regrid restore", kept_cells, start);
    }
    if (!points.empty()) {
      const AmrLevel<L, Real>& coarse = levels_[l - 1];
      AmrCoarseToFine<L, Real> c2f{lv.f[lv.cur], coarse.f[coarse.cur], coarse.f[coarse.cur],
                                   to_device_view("amr regrid points", points), shape_, coarse.places.total,
                                   lv.places.total, Real(0), {}, {}, lv.rates};
      for (int d = 0; d < 3; ++d) {
        c2f.coarse_force[d] = coarse.params.force[d];
        c2f.fine_force[d] = lv.params.force[d];
      }
      Kokkos::parallel_for("amr regrid interpolation", Kokkos::RangePolicy<ExecSpace>(0, long(points.size())), c2f);
    }
  }
  Kokkos::fence();
}

template <class L, class Real>
void AmrLattice<L, Real>::advance(long coarse_steps) {
  for (long s = 0; s < coarse_steps; ++s) {
    {
      auto t = timers_.scope("LBM");
      inflow_.update(step_);  // the field of the level-0 step about to be computed
    }
    advance_level(0, Real(0));
    ++step_;
    if (restores_mass_ && step_ % Config::mass_restoration_period == 0) restore_mass();
  }
}

// Every held block's fluid cells, ghosts and refined blocks included, so that the copies a rank
// holds of others' leaves (CRMT steps them) shift as their owners' do.
template <class L, class Real>
void AmrLattice<L, Real>::restore_mass() {
  auto t = timers_.scope("mass restoration");
  const double delta = (mass_target_ - mass()) / fluid_volume_;
  Kokkos::Array<Real, L::Q> shift;
  for (int q = 0; q < L::Q; ++q) shift[q] = Real(L::w(q) * delta);
  for (const AmrLevel<L, Real>& lv : levels_)
    Kokkos::parallel_for("amr mass restoration", Kokkos::RangePolicy<ExecSpace>(0, lv.places.total),
                         AmrShiftDensity<L, Real>{lv.f[lv.cur], lv.flags, lv.places.total, shift});
  // The refined cells the next step pulls from were restricted before the shift, and restriction
  // does not commute with it (the equilibrium is not linear in j / rho): restricted again from the
  // shifted fine cells, finest first, they hold what restrict_all gives (outputs, regrids,
  // checkpoints), so that an output at this step changes nothing after it.
  for (int l = int(levels_.size()) - 2; l >= 0; --l) restrict_level(l, levels_[l].f[levels_[l].cur], false, false);
  Kokkos::fence();
}

template <class L, class Real>
void AmrLattice<L, Real>::fill_ghosts(int l, Real alpha) {
  if (l > 0) {
    auto t = timers_.scope("AMR interpolation");
    interpolate_ghosts(l, alpha);
  }
  const AmrLevel<L, Real>& lv = levels_[l];
  if (trial_) mark_stale(l, lv.f[lv.cur], lv.unfilled);
}

template <class L, class Real>
void AmrLattice<L, Real>::copy_ghosts(int l) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  if (lv.copy_dst.extent(0) > 0)
    Kokkos::parallel_for("amr ghost copy", Kokkos::RangePolicy<ExecSpace>(0, lv.copy_dst.extent(0)),
                         AmrGhostCopy<L, Real>{lv.f[lv.cur], lv.copy_dst, lv.copy_src, lv.copy_pulled, lv.places.total});
}

template <class L, class Real>
void AmrLattice<L, Real>::interpolate_ghosts(int l, Real alpha) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  if (lv.interp.extent(0) == 0) return;
  const AmrLevel<L, Real>& coarse = levels_[l - 1];
  if (alpha == Real(0))  // both coarse lattices are final for both fills of this coarse step
    Kokkos::parallel_for("amr stencil moments", Kokkos::RangePolicy<ExecSpace>(0, lv.stencil_cells.extent(0)),
                         AmrStencilMoments<L, Real>{lv.stencil_moments, coarse.f[coarse.cur], coarse.f[1 - coarse.cur],
                                                    lv.stencil_cells, coarse.places.total,
                                                    {coarse.params.force[0], coarse.params.force[1], coarse.params.force[2]}});
  AmrCoarseToFine<L, Real> c2f{lv.f[lv.cur], coarse.f[coarse.cur], coarse.f[1 - coarse.cur], lv.interp, shape_,
                               coarse.places.total, lv.places.total, alpha, {}, {}, lv.rates, lv.stencil_moments,
                               lv.fits};
  for (int d = 0; d < 3; ++d) {
    c2f.coarse_force[d] = coarse.params.force[d];
    c2f.fine_force[d] = lv.params.force[d];
  }
  if (lv.children_groups.extent(0) > 0)
    Kokkos::parallel_for("amr children means", Kokkos::RangePolicy<ExecSpace>(0, lv.children_groups.extent(0)),
                         AmrChildrenMeans<L, Real>{c2f, lv.children_groups, lv.children_means});
  c2f.children_means = lv.children_means;
  Kokkos::parallel_for("amr coarse fits", Kokkos::RangePolicy<ExecSpace>(0, lv.fit_stencils.extent(0)),
                       AmrCoarseFits<L, Real>{c2f, lv.fit_stencils});
  Kokkos::parallel_for("amr coarse to fine", Kokkos::RangePolicy<ExecSpace>(0, lv.interp.extent(0)), c2f);
  if (lv.twin_dst.extent(0) > 0)
    Kokkos::parallel_for("amr twin ghosts", Kokkos::RangePolicy<ExecSpace>(0, lv.twin_dst.extent(0)),
                         AmrGhostCopy<L, Real>{lv.f[lv.cur], lv.twin_dst, lv.twin_src, lv.twin_pulled, lv.places.total});
}

template <class L, class Real>
void AmrLattice<L, Real>::advance_level(int l, Real alpha) {
  AmrLevel<L, Real>& lv = levels_[l];
  fill_ghosts(l, alpha);
  if (lv.params.has_csm) {
    auto t = timers_.scope("LBM");
    Kokkos::parallel_for("amr cell velocity",
                         Kokkos::RangePolicy<ExecSpace>(0, lv.places.rings_at + long(lv.velocity_ring.extent(0))),
                         AmrCellVelocity<L, Real>{lv.f[lv.cur], lv.flags, lv.velocity, lv.params, lv.places.total,
                                                  lv.places.rings_at, lv.velocity_ring});
  }
  step_and_exchange(l, alpha != Real(0));
  if (l + 1 < int(levels_.size())) {
    advance_level(l + 1, Real(0));
    advance_level(l + 1, Real(0.5));
    auto t = timers_.scope("AMR restriction");
    restrict_level(l, lv.f[1 - lv.cur], false, true);
  }
  lv.cur = 1 - lv.cur;
}

template <class L, class Real>
void AmrLattice<L, Real>::step_leaves(int l, bool keep_moments, const DeviceView<int*>& which) {
  const AmrLevel<L, Real>& lv = levels_[l];
  if (which.extent(0) == 0) return;
  auto t = timers_.scope("LBM");
  dispatch_collision<L>(collision_, [&](auto coll) {
    using Collision = decltype(coll);
    AmrLeafStep<L, Real, Collision> step{lv.f[lv.cur], lv.f[1 - lv.cur], lv.flags, lv.plain_rows,
                                               which, shape_, lv.places, lv.params, bc_, lv.origin, lv.walls, lv.velocity,
                                               lv.regions};
    if (keep_moments) {  // what the restriction after it reads
      step.moment_rows = lv.moment_rows;
      step.moment_slots = lv.moment_slots;
      step.moments = lv.step_moments;
    }
    const long cells = long(which.extent(0)) * shape_.interior();
    if constexpr (exec_is_host) {
      if (traversal_ == Traversal::Auto) {
        Kokkos::parallel_for("amr leaf rows",
                             Kokkos::RangePolicy<ExecSpace>(0, cells >> (shape_.log_n + shape_.log_group)),
                             AmrLeafRows<L, Real, Collision>{step});
        return;
      }
    }
    Kokkos::parallel_for("amr leaf step", Kokkos::RangePolicy<ExecSpace>(0, cells), step);
  });
}

template <class L, class Real>
void AmrLattice<L, Real>::step_and_exchange(int l, bool keep_moments) {
  AmrLevel<L, Real>& lv = levels_[l];
  const auto step = [&](const DeviceView<int*>& which) { step_leaves(l, keep_moments, which); };
  LeafHalo<Real>& halo = halos_[l];
  const DeviceView<Real*> next = lv.f[1 - lv.cur];
  if (crmt_) {
    // Between exchanges the held leaves of others are stepped here; an exchange brings them.
    if (++lv.since_exchange < period_) {
      step(lv.halo_leaves);
      step(lv.leaves);
      return;
    }
    lv.since_exchange = 0;
    if (trial_) {
      step(lv.leaves);
      mark_received(l, next, lv.halo_leaves);
      return;
    }
  }
  const auto mpi = [&](auto&& phase) {
    auto t = timers_.scope("MPI");
    phase();
  };
  if (!distributed() || overlap_ == OverlapKind::None) {
    step(lv.leaves);
    mpi([&] { halo.exchange(comm_, next, l); });
    return;
  }
  mpi([&] { halo.post_receives(comm_, l); });
  switch (overlap_) {
    case OverlapKind::NonBlocking:
      step(lv.leaves);
      mpi([&] {
        for (std::size_t k = 0; k < halo.sends(); ++k) halo.send(comm_, next, k, l);
      });
      break;
    case OverlapKind::Interior:
      step(lv.boundary_leaves);
      mpi([&] {
        for (std::size_t k = 0; k < halo.sends(); ++k) halo.send(comm_, next, k, l);
      });
      for (const DeviceView<int*>& chunk : lv.interior_chunks) {
        step(chunk);
        mpi([&] { halo.progress(next); });
      }
      break;
    case OverlapKind::Streams:
      step(lv.boundary_leaves);
      Kokkos::fence();
      mpi([&] {
        for (std::size_t k = 0; k < halo.sends(); ++k) halo.pack(k, next, (*instances_)[k]);
      });
      step(lv.interior_leaves);
      mpi([&] {
        for (std::size_t k = 0; k < halo.sends(); ++k) halo.send_packed(comm_, k, l, (*instances_)[k]);
      });
      break;
    case OverlapKind::Systolic:
      for (std::size_t k = 0; k < halo.sends(); ++k) {
        step(lv.message_leaves[k]);
        mpi([&] {
          halo.send(comm_, next, k, l);
          halo.progress(next);
        });
      }
      step(lv.interior_leaves);
      break;
    case OverlapKind::None:
      break;
  }
  mpi([&] { halo.finish(next); });
}

template <class L, class Real>
void AmrLattice<L, Real>::restrict_level(int l, const DeviceView<Real*>& into, bool all, bool stepped) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  const AmrLevel<L, Real>& fine = levels_[l + 1];
  AmrFineToCoarse<L, Real> f2c{into,      fine.f[fine.cur], lv.flags, fine.flags, lv.refined, lv.children, shape_,
                               lv.places, fine.places,      {},       lv.rates,   {}};
  for (int d = 0; d < 3; ++d) f2c.fine_force[d] = fine.params.force[d];
  f2c.fine_walls = fine.walls;
  if (!all) {
    f2c.subset = lv.restrict_read;
    f2c.subset_pulled = lv.restrict_pulled;
    f2c.sources = lv.restrict_sources;
    f2c.fine_moments = lv.restrict_fine_moments;
    f2c.fine_cells = lv.restrict_fine_cells;
    const DeviceView<long*>& cells = stepped ? lv.restrict_fallback_cells : lv.restrict_fine_cells;
    if (cells.extent(0) > 0)
      Kokkos::parallel_for("amr restriction moments", Kokkos::RangePolicy<ExecSpace>(0, cells.extent(0)),
                           AmrCellMoments<L, Real>{fine.f[fine.cur], cells, lv.restrict_fine_moments, fine.places.total,
                                                   {fine.params.force[0], fine.params.force[1], fine.params.force[2]},
                                                   stepped ? lv.restrict_fallback_rows : DeviceView<int*>()});
  }
  const long n = all ? long(lv.refined.extent(0)) * shape_.interior() : long(lv.restrict_read.extent(0));
  if (n > 0) Kokkos::parallel_for("amr fine to coarse", Kokkos::RangePolicy<ExecSpace>(0, n), f2c);
  if (trial_) mark_stale(l, into, lv.unrestricted);
}

template <class L, class Real>
void AmrLattice<L, Real>::mark_stale(int l, const DeviceView<Real*>& lattice, const DeviceView<long*>& offsets) const {
  const long T = levels_[l].places.total;
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  Kokkos::parallel_for(
      "amr mark stale", Kokkos::RangePolicy<ExecSpace>(0, long(offsets.extent(0)) * L::Q),
      KOKKOS_LAMBDA(long i) { lattice(offsets(i / L::Q) + (i % L::Q) * T) = nan; });
}

template <class L, class Real>
void AmrLattice<L, Real>::mark_received(int l, const DeviceView<Real*>& lattice, const DeviceView<int*>& which) const {
  const LevelPlaces places = levels_[l].places;
  Kokkos::parallel_for(
      "amr mark received", Kokkos::RangePolicy<ExecSpace>(0, long(which.extent(0)) * places.interior),
      KOKKOS_LAMBDA(long i) {
        const long at = places.of(which(i / places.interior), i % places.interior);
        for (int q = 0; q < L::Q; ++q) lattice(at + q * places.total) = Real(1);
      });
}

template <class L, class Real>
long long AmrLattice<L, Real>::non_finite_leaf_cells(int l) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  const DeviceView<const Real*> f = lv.f[lv.cur];
  const DeviceView<const std::uint8_t*> flags = lv.flags;
  const DeviceView<const int*> leaves = lv.leaves;
  const LevelPlaces places = lv.places;
  long long stale = 0;
  Kokkos::parallel_reduce(
      "amr non-finite cells", Kokkos::RangePolicy<ExecSpace>(0, long(leaves.extent(0)) * places.interior),
      KOKKOS_LAMBDA(long i, long long& count) {
        const long at = places.of(leaves(i / places.interior), i % places.interior);
        if (flags(at) != flag::fluid) return;
        bool finite = true;
        for (int q = 0; q < L::Q; ++q) {
          const Real v = f(at + q * places.total);
          finite = finite && v - v == Real(0);  // false for NaN and infinities
        }
        count += !finite;
      },
      stale);
  return stale;
}

template <class L, class Real>
int AmrLattice<L, Real>::derive_exchange_period() {
  const Timers kept = timers_;
  const CollisionKind deck_collision = collision_;
  collision_ = CollisionKind::BGK;  // every output reads every input: NaN reaches all it should
  trial_ = true;
  const Real nan = std::numeric_limits<Real>::quiet_NaN();
  const auto start_over = [&](Real current, Real other) {
    for (AmrLevel<L, Real>& lv : levels_) {
      lv.cur = 0;
      lv.since_exchange = 0;
      Kokkos::deep_copy(lv.f[0], current);
      Kokkos::deep_copy(lv.f[1], other);
    }
  };
  // Right after an exchange every held block is valid; its other lattice is not yet written.
  const auto keeps_owned_valid = [&](int k) {
    period_ = k;
    start_over(Real(1), nan);
    for (int s = 0; s < 2 * k + 1; ++s) {
      advance_level(0, Real(0));
      if (!finite()) return false;  // collective: every rank leaves the trial at the same step
    }
    return true;
  };
  // Seed 000's k for leaves of N cells is N - 1; the second ring of held leaves makes up for the
  // coupling's reach where it can. Longer periods read further: the first valid one down from there.
  int period = std::max(1, shape_.n - 1);
  while (period > 1 && !keeps_owned_valid(period)) --period;
  start_over(Real(0), Real(0));
  trial_ = false;
  collision_ = deck_collision;
  timers_ = kept;  // the trial is set-up, not stepping
  return period;
}

template <class L, class Real>
void AmrLattice<L, Real>::restrict_all() const {
  if (distributed()) throw std::logic_error("AMR: restricting every block needs the whole forest (gathered())");
  for (int l = int(levels_.size()) - 2; l >= 0; --l) restrict_level(l, levels_[l].f[levels_[l].cur], true);
  Kokkos::fence();
}

// Summed exactly (core/ExactSum.hpp), each population scaled by its level's cell volume (exact):
// the same on every rank count and decomposition.
template <class L, class Real>
double AmrLattice<L, Real>::mass() const {
  ExactSum total;
  for (int l = 0; l < int(levels_.size()); ++l) {
    const AmrLevel<L, Real>& lv = levels_[l];
    const DeviceView<const Real*> f = lv.f[lv.cur];
    const DeviceView<const std::uint8_t*> flags = lv.flags;
    const DeviceView<const int*> leaves = lv.leaves;
    const LevelPlaces places = lv.places;
    const double volume = std::ldexp(1.0, -L::D * l);  // a power of 2: the products are exact
    ExactSum level_mass;
    Kokkos::parallel_reduce(
        "amr mass", Kokkos::RangePolicy<ExecSpace>(0, long(leaves.extent(0)) * places.interior),
        KOKKOS_LAMBDA(long i, ExactSum& sum) {
          const long at = places.of(leaves(i / places.interior), i % places.interior);
          if (flags(at) != flag::fluid) return;
          for (int q = 0; q < L::Q; ++q) sum.add(volume * double(f(at + q * places.total)));
        },
        level_mass);
    total += level_mass;
  }
  return comm_.sum(total);
}

template <class L, class Real>
bool AmrLattice<L, Real>::finite() const {
  long long bad = 0;
  for (int l = 0; l < int(levels_.size()); ++l) bad += non_finite_leaf_cells(l);
  return comm_.sum(bad) == 0;
}

// A level's cells numbered x fastest over the domain in that level's cells, as the uniform grid's
// global index.
struct LevelCellIndex {
  DeviceView<const int*> origin;
  LeafShape shape;
  long long nx = 0, ny = 0;
  KOKKOS_INLINE_FUNCTION long long operator()(long slot, long cell) const {
    int p[3];
    shape.coordinates(cell, p);
    const long long x = origin(3 * slot) + p[0], y = origin(3 * slot + 1) + p[1], z = origin(3 * slot + 2) + p[2];
    return (z * ny + y) * nx + x;
  }
  std::array<long long, 3> cell(long long index) const { return {index % nx, index / nx % ny, index / (nx * ny)}; }
};

template <class L, class Real>
LevelCellIndex level_cell_index(const AmrLevel<L, Real>& lv, const Forest& forest, const LeafShape& shape, int l) {
  const std::array<int, 3> blocks = forest.blocks_per_axis(l);
  return {lv.origin, shape, (long long)blocks[0] * shape.n, (long long)blocks[1] * shape.n};
}

template <class L, class Real>
long long AmrLattice<L, Real>::first_unhealthy_leaf_cell(int l, Real lo, Real hi) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  const DeviceView<const Real*> f = lv.f[lv.cur];
  const DeviceView<const std::uint8_t*> flags = lv.flags;
  const DeviceView<const int*> leaves = lv.leaves;
  const LevelPlaces places = lv.places;
  const LevelCellIndex index = level_cell_index(lv, forest_, shape_, l);
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "amr health", Kokkos::RangePolicy<ExecSpace>(0, long(leaves.extent(0)) * places.interior),
      KOKKOS_LAMBDA(long i, long long& acc) {
        const long slot = leaves(i / places.interior), cell = i % places.interior, at = places.of(slot, cell);
        if (flags(at) != flag::fluid) return;
        Real rho = 0;
        for (int q = 0; q < L::Q; ++q) rho += f(at + q * places.total);
        if (rho > lo && rho < hi) return;  // NaN fails both
        const long long k = index(slot, cell);
        if (k < acc) acc = k;
      },
      Kokkos::Min<long long>(first));
  return first;
}

template <class L, class Real>
double AmrLattice<L, Real>::leaf_cell_density(int l, long long wanted) const {
  const AmrLevel<L, Real>& lv = levels_[l];
  const DeviceView<const Real*> f = lv.f[lv.cur];
  const DeviceView<const int*> leaves = lv.leaves;
  const LevelPlaces places = lv.places;
  const LevelCellIndex index = level_cell_index(lv, forest_, shape_, l);
  double density = 0;
  Kokkos::parallel_reduce(
      "amr cell density", Kokkos::RangePolicy<ExecSpace>(0, long(leaves.extent(0)) * places.interior),
      KOKKOS_LAMBDA(long i, double& sum) {
        const long slot = leaves(i / places.interior), cell = i % places.interior;
        if (index(slot, cell) != wanted) return;
        const long at = places.of(slot, cell);
        Real rho = 0;
        for (int q = 0; q < L::Q; ++q) rho += f(at + q * places.total);
        sum += double(rho);
      },
      density);
  return density;
}

template <class L, class Real>
AmrHealth AmrLattice<L, Real>::health(double rho0) const {
  const Real lo = Real(0.1 * rho0), hi = Real(10 * rho0);
  // This rank's first bad cell per level, from level 0 up to the first level that has one: the
  // coarsest level any rank names is one every rank has looked at.
  std::vector<long long> first;
  while (first.size() < levels_.size() && (first.empty() || first.back() == LLONG_MAX))
    first.push_back(first_unhealthy_leaf_cell(int(first.size()), lo, hi));
  AmrHealth h;
  const long long level = comm_.min(first.back() == LLONG_MAX ? LLONG_MAX : (long long)first.size() - 1);
  if (level == LLONG_MAX) return h;
  const int l = int(level);
  const long long k = comm_.min(first[l]);
  h.ok = false;
  h.level = l;
  h.cell = level_cell_index(levels_[l], forest_, shape_, l).cell(k);
  h.density = comm_.sum(leaf_cell_density(l, k));
  return h;
}

template <class L, class Real>
void AmrLattice<L, Real>::build_wall_links(const DomainGeometry& domain, double rho0) {
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    AmrLevel<L, Real>& lv = levels_[l];
    WallLinkRows<L> rows(lv.places.total);
    for (int s = 0; s < lv.blocks; ++s) {
      const int b = held_[l][s];
      if (!forest_.level(l)[b].leaf()) continue;
      const Box box = forest_.box(forest_.level(l)[b]);
      const std::uint8_t* fl = host_flags_[l].data() + long(b) * S;
      for (long i = 0; i < shape_.interior(); ++i) {
        const long cell = i;
        if (fl[cell] != flag::fluid) continue;
        int x[3];
        shape_.coordinates(i, x);
        const std::array<int, 3> p{box.lo[0] + x[0], box.lo[1] + x[1], box.lo[2] + x[2]};
        const auto upwind_wall = [&](int q) {
          return fl[shape_.cell(x[0] - L::c(q, 0), x[1] - L::c(q, 1), x[2] - L::c(q, 2))] == flag::wall;
        };
        rows.add(lv.places.of(s, cell), domain, p, l, rho0, upwind_wall);
      }
    }
    lv.walls = rows.upload();
  }
}

// A link from fluid cell x along q into a body carries f*_q(x) into the wall and brings back what
// the wall's rule returns as the opposite population (lbm/field/BodyForces.hpp), less what it
// carries at rest at rho0: halfway at rest 2 c_q (f*_q(x) - w_q rho0) per step of its level;
// interpolated bounce-back and moving walls weigh two
// populations and add the wall's momentum as the leaf step does (AmrLevel::walls). Along the
// reflected direction where a free-slip face turned the link into the body. A ghost closed because
// its coarse cell and those beside it are solid belongs to the body holding that coarse cell.
template <class L, class Real>
void AmrLattice<L, Real>::build_body_links(const DomainGeometry& domain, double rho0) {
  bodies_ = domain.bodies();
  if (bodies_ > 256) throw Error("forces: " + std::to_string(bodies_) + " bodies; at most 256 are told apart");
  const long S = shape_.cells;
  body_links_.assign(levels_.size(), BodyLinks{});
  body_links_read_ghosts_.assign(levels_.size(), 0);
  for (int l = 0; l < int(levels_.size()); ++l) {
    const AmrLevel<L, Real>& lv = levels_[l];
    const auto leaves = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.leaves);
    const auto wall_row = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.walls.row);
    const auto wall_fraction = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.walls.fraction);
    const auto wall_momentum = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.walls.momentum);
    BodyLinkRows rows;
    for (std::size_t k = 0; k < leaves.extent(0); ++k) {
      const int s = leaves(k), b = held_[l][s];
      const Box box = forest_.box(forest_.level(l)[b]);
      const std::uint8_t* fl = host_flags_[l].data() + long(b) * S;
      for (long i = 0; i < shape_.interior(); ++i) {
        const long cell = i;
        if (fl[cell] != flag::fluid) continue;
        int local[3], p[3];
        shape_.coordinates(i, local);
        for (int d = 0; d < 3; ++d) p[d] = local[d] + box.lo[d];
        // The cell of this leaf (or its ring) at `hops` links along q.
        const auto along = [&](int q, int hops) {
          return shape_.cell(local[0] + hops * L::c(q, 0), local[1] + hops * L::c(q, 1), local[2] + hops * L::c(q, 2));
        };
        const int row = wall_row.extent(0) > 0 ? wall_row(lv.places.of(s, cell)) : -1;
        for (int q = 1; q < L::Q; ++q) {
          // The cell the link ends in: x + c_q, or where a free-slip face reflects it (the cell
          // beside x + c_q, along which the link then pushes the body in the reflected direction).
          int target[3] = {p[0] + L::c(q, 0), p[1] + L::c(q, 1), p[2] + L::c(q, 2)};
          int direction = q;
          long target_cell = along(q, 1);
          const std::uint8_t end = fl[target_cell];
          const bool mirrored = flag::kind(end) == flag::free_slip;
          if (mirrored) {
            const int axes = flag::index(end);
            for (int d = 0; d < 3; ++d)
              if (axes >> d & 1) target[d] = p[d];
            target_cell = shape_.cell(local[0] + (axes & 1 ? 0 : L::c(q, 0)), local[1] + (axes & 2 ? 0 : L::c(q, 1)),
                                      local[2] + (axes & 4 ? 0 : L::c(q, 2)));
            direction = reflected<L>(q, axes);
          }
          if (fl[target_cell] != flag::wall) continue;
          int body = -1;
          for (int level = l; level >= 0 && body < 0; --level) {
            const int r = 1 << (l - level);
            body = domain.body_at_level(level, floor_div(target[0], r), floor_div(target[1], r), floor_div(target[2], r));
          }
          if (body < 0) body = body_below(domain, l, {target[0], target[1], target[2]});  // a closed refined cell
          if (body < 0) continue;  // a domain face
          // The leaves close links by the linear rule (quadratic walls are refused with AMR).
          const ReturnedMomentum r =
              row >= 0 && !mirrored ? returned_momentum(wall_fraction(row, opposite<L>(q)), wall_momentum(row, opposite<L>(q)),
                                                        false, fl[along(q, -1)] == flag::fluid ? 1 : 0)
                                    : returned_momentum(0.5, 0, false, 0);
          for (const ReturnedMomentum::Term& term : r.terms)
            if (term.weight != 0 && along(q, -term.hops) >= shape_.interior()) body_links_read_ghosts_[l] = 1;  // a ghost
          rows.add(
              r,
              [&](int t) {
                const ReturnedMomentum::Term& term = r.terms[t];
                return lv.places.of(s, along(q, -term.hops)) + (term.opposite ? opposite<L>(q) : q) * lv.places.total;
              },
              direction, body, rest_momentum<L>(q, rho0));
        }
      }
    }
    body_links_[l] = rows.upload();
  }
}

// Level l's momentum per step of its own, in its units, is 2^(l(1-D)) of level 0's per level-0
// step (cells 2^-lD of the volume, 2^l steps per level-0 step): per level an exact sum over ranks,
// scaled exactly, added over levels in order.
template <class L, class Real>
std::vector<std::array<double, 3>> AmrLattice<L, Real>::body_forces() const {
  if (body_links_.empty()) throw std::logic_error("AMR: body_forces without [forces] in the deck");
  std::vector<std::array<double, 3>> forces(std::size_t(bodies_), std::array<double, 3>{0, 0, 0});
  for (int l = 0; l < int(levels_.size()); ++l) {
    // A link of interpolated bounce-back reads the cell behind, on a leaf's edge a ghost of the
    // lattice just written, whose ring holds no same-level copies (steps read those in place) and
    // interpolated ghosts of two steps before: filled here from the current state (at the level's
    // time, so alpha 0), as the next step's reads would give them.
    if (body_links_read_ghosts_[l]) {
      copy_ghosts(l);
      if (l > 0) interpolate_ghosts(l, Real(0));
    }
    std::vector<ExactSum> sums(3 * std::size_t(bodies_));
    add_body_forces<L>(body_links_[l], levels_[l].f[levels_[l].cur], sums);
    const std::vector<double> totals = comm_.sum(sums);
    for (std::size_t k = 0; k < sums.size(); ++k) forces[k / 3][k % 3] += std::ldexp(totals[k], l * (1 - L::D));
  }
  return forces;
}

template <class L, class Real>
std::vector<AmrBlockSample> AmrLattice<L, Real>::sample() const {
  if (distributed()) return gathered().sample();
  restrict_all();
  std::vector<AmrBlockSample> out;
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    const AmrLevel<L, Real>& lv = levels_[l];
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.f[lv.cur]);
    const std::vector<std::uint8_t>& fl = host_flags_[l];
    Real force[3];
    for (int d = 0; d < 3; ++d) force[d] = lv.params.force[d];
    for (int b = 0; b < lv.blocks; ++b) {
      AmrBlockSample s;
      s.level = l;
      s.box = forest_.box(forest_.level(l)[b]);
      s.leaf = forest_.level(l)[b].leaf();
      for (long i = 0; i < shape_.interior(); ++i) {
        const long cell = i;
        const std::uint8_t flag = fl[b * S + cell];
        s.flags.push_back(flag);
        Real rho = 0, j[3] = {0, 0, 0};
        if (flag == flag::fluid) {
          Real pops[L::Q];  // plain host code: no lambda through the device-callable moments_at
          for (int q = 0; q < L::Q; ++q) pops[q] = f(lv.places.of(b, cell) + q * lv.places.total);
          post_collision_moments<L>(pops, force, rho, j);
        }
        s.density.push_back(flag == flag::fluid ? double(rho) : 0.0);
        for (int d = 0; d < 3; ++d) s.velocity.push_back(flag == flag::fluid ? double(j[d] / rho) : 0.0);
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

template <class L, class Real>
std::uint64_t AmrLattice<L, Real>::fields_hash() const {
  std::uint64_t hash = 0;
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    const AmrLevel<L, Real>& lv = levels_[l];
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.f[lv.cur]);
    const std::uint64_t nx = std::uint64_t(cells0_[0]) << l, ny = std::uint64_t(cells0_[1]) << l;
    auto leaves = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.leaves);
    for (std::size_t k = 0; k < leaves.extent(0); ++k) {
      const int slot = leaves(k), b = held_[l][slot];
      const Box box = forest_.box(forest_.level(l)[b]);
      for (long i = 0; i < shape_.interior(); ++i) {
        const long cell = i;
        if (host_flags_[l][long(b) * S + cell] != flag::fluid) continue;
        const std::uint64_t x = box.lo[0] + i % shape_.n, y = box.lo[1] + i / shape_.n % shape_.n,
                            z = box.lo[2] + i / (long(shape_.n) * shape_.n);
        // Levels apart in the top byte: a level's grid has fewer than 2^56 cells.
        const std::uint64_t key = (std::uint64_t(l) << 56) + (z * ny + y) * nx + x;
        const long at = lv.places.of(slot, cell);
        hash += field_detail::cell_hash<L::Q>(key, field_detail::StridedPopulations<Real>{f.data() + at, lv.places.total});
      }
    }
  }
  return comm_.sum(hash);
}

template <class L, class Real>
std::vector<unsigned char> AmrLattice<L, Real>::populations() const {
  if (distributed()) return gathered().populations();
  // Refined cells that no coarser leaf reads keep stale values between outputs; restricted, every
  // refined cell holds its children's average and runs at one step have equal populations.
  restrict_all();
  const long N = shape_.interior();
  std::vector<unsigned char> out;
  for (const AmrLevel<L, Real>& lv : levels_) {
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.f[lv.cur]);
    std::vector<Real> values(std::size_t(lv.blocks) * N * L::Q);
    for (int b = 0; b < lv.blocks; ++b)
      for (long i = 0; i < N; ++i)
        for (int q = 0; q < L::Q; ++q)
          values[(std::size_t(b) * N + i) * L::Q + q] = f(lv.places.of(b, i) + q * lv.places.total);
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    out.insert(out.end(), bytes, bytes + values.size() * sizeof(Real));
  }
  return out;
}

template <class L, class Real>
void AmrLattice<L, Real>::load_populations(const std::vector<unsigned char>& bytes, long step) {
  if (distributed()) {
    AmrLattice whole(*this, Replica{});
    whole.load_populations(comm_.broadcast(bytes), step);
    take_blocks(whole);
    step_ = step;
    return;
  }
  const long N = shape_.interior();
  std::size_t expected = 0;
  for (const AmrLevel<L, Real>& lv : levels_) expected += std::size_t(lv.blocks) * N * cell_bytes();
  if (bytes.size() != expected)
    throw Error("AMR: " + std::to_string(bytes.size()) + " bytes of populations for a forest that holds " +
                std::to_string(expected));
  std::size_t at = 0;
  for (AmrLevel<L, Real>& lv : levels_) {
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.f[lv.cur]);
    for (int b = 0; b < lv.blocks; ++b)
      for (long i = 0; i < N; ++i)
        for (int q = 0; q < L::Q; ++q, at += sizeof(Real)) {
          Real v;
          std::memcpy(&v, bytes.data() + at, sizeof(Real));
          f(lv.places.of(b, i) + q * lv.places.total) = v;
        }
    Kokkos::deep_copy(lv.f[lv.cur], f);
  }
  step_ = step;
}

template <class L, class Real>
void AmrLattice<L, Real>::save_state() {
  saved_.f.resize(levels_.size());
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    const DeviceView<Real*>& now = levels_[l].f[levels_[l].cur];
    if (saved_.f[l].extent(0) != now.extent(0))
      saved_.f[l] = DeviceView<Real*>(Kokkos::view_alloc("amr saved populations", Kokkos::WithoutInitializing),
                                      now.extent(0));
    Kokkos::deep_copy(saved_.f[l], now);
  }
  saved_.statistics.clear();
  for (const RunningStatistics& s : statistics_) saved_.statistics.push_back(s.copy());
  saved_.statistics_samples = statistics_samples_;
  saved_.since_exchange.clear();
  for (const AmrLevel<L, Real>& lv : levels_) saved_.since_exchange.push_back(lv.since_exchange);
  saved_.step = step_;
}

template <class L, class Real>
void AmrLattice<L, Real>::restore_state() {
  if (saved_.step < 0) throw std::logic_error("AMR: restore_state() without a saved state");
  for (std::size_t l = 0; l < levels_.size(); ++l) Kokkos::deep_copy(levels_[l].f[levels_[l].cur], saved_.f[l]);
  statistics_.clear();
  for (const RunningStatistics& s : saved_.statistics) statistics_.push_back(s.copy());
  statistics_samples_ = saved_.statistics_samples;
  for (std::size_t l = 0; l < levels_.size(); ++l) levels_[l].since_exchange = saved_.since_exchange[l];
  step_ = saved_.step;
}

template <class L, class Real>
AmrLattice<L, Real>& AmrLattice<L, Real>::gathered() const {
  if (!replica_) replica_.reset(new AmrLattice(*this, Replica{}));
  AmrLattice* whole = replica_.get();
  whole->step_ = step_;
  const long S = shape_.cells, QS = long(L::Q) * S;
  const int me = comm_.rank();
  std::vector<Real> mine;  // blocks whole, population by population
  for (int l = 0; l < int(levels_.size()); ++l) {
    const AmrLevel<L, Real>& lv = levels_[l];
    auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lv.f[lv.cur]);
    for (int b : held_[l])
      if (partition_.owner[l][b] == me)
        for (int q = 0; q < L::Q; ++q)
          for (long c = 0; c < S; ++c) mine.push_back(f(lv.places.of(slot_[l][b], c) + q * lv.places.total));
  }
  const std::vector<Real> all = comm_.allgather(mine);
  // Rank by rank, each rank's owned blocks level by level in forest order.
  std::vector<decltype(Kokkos::create_mirror_view(whole->levels_[0].f[0]))> hosts;
  for (int l = 0; l < int(levels_.size()); ++l) hosts.push_back(Kokkos::create_mirror_view(whole->levels_[l].f[0]));
  std::size_t at = 0;
  for (int r = 0; r < comm_.size(); ++r)
    for (int l = 0; l < int(levels_.size()); ++l) {
      const LevelPlaces& places = whole->levels_[l].places;
      for (int b = 0; b < int(forest_.level(l).size()); ++b)
        if (partition_.owner[l][b] == r) {
          for (long k = 0; k < QS; ++k, ++at) hosts[l](places.of(b, k % S) + k / S * places.total) = all[at];
        }
    }
  for (int l = 0; l < int(levels_.size()); ++l) Kokkos::deep_copy(whole->levels_[l].f[0], hosts[l]);
  return *whole;
}

template <class L, class Real>
void AmrLattice<L, Real>::take_blocks(const AmrLattice& replica) {
  const long S = shape_.cells;
  for (int l = 0; l < int(levels_.size()); ++l) {
    AmrLevel<L, Real>& lv = levels_[l];
    const AmrLevel<L, Real>& from = replica.levels_[l];
    std::vector<int> to(lv.blocks);
    for (int s = 0; s < lv.blocks; ++s) to[s] = s;
    const DeviceView<int* [2]> pairs = block_pairs("amr held blocks", to, held_[l]);
    for (int k = 0; k < 2; ++k)
      if (lv.blocks > 0 && from.f[k].extent(0) > 0)  // a replica holds one lattice
        Kokkos::parallel_for("amr take blocks", Kokkos::RangePolicy<ExecSpace>(0, long(lv.blocks) * L::Q * S),
                             AmrBlockCopy<Real>{lv.f[k], from.f[k], pairs, lv.places, from.places, S, L::Q});
    lv.cur = from.cur;
    lv.since_exchange = 0;  // every held block as its owner has it
  }
  Kokkos::fence();
}

template <class L, class Real>
std::vector<double> AmrLattice<L, Real>::probe_values(const std::vector<Probe>& probes) const {
  const long S = shape_.cells;
  std::vector<std::array<int, 3>> points;
  for (const Probe& p : probes) points.push_back(p.cell);
  if (points != probe_points_ || probe_cells_.size() != levels_.size()) {
    probe_points_ = points;
    probe_cells_.assign(levels_.size(), ProbeCells{});
    for (int l = 0; l < int(levels_.size()); ++l) {
      const int r = 1 << l;
      std::vector<long> cells;
      const auto leaves = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), levels_[l].leaves);
      for (std::size_t k = 0; k < leaves.extent(0); ++k) {
        const int s = leaves(k), b = held_[l][s];
        const Box box = forest_.box(forest_.level(l)[b]);
        for (std::size_t p = 0; p < points.size(); ++p) {
          int lo[3], hi[3];  // the probe's level-0 cell in this level's cells, within the block
          bool overlaps = true;
          for (int d = 0; d < 3; ++d) {
            const int scale = d < L::D ? r : 1;
            lo[d] = std::max(points[p][d] * scale, box.lo[d]);
            hi[d] = std::min((points[p][d] + 1) * scale, box.hi[d]);
            overlaps = overlaps && lo[d] < hi[d];
          }
          if (!overlaps) continue;
          for (int z = lo[2]; z < hi[2]; ++z)
            for (int y = lo[1]; y < hi[1]; ++y)
              for (int x = lo[0]; x < hi[0]; ++x) {
                const long cell = shape_.cell(x - box.lo[0], y - box.lo[1], z - box.lo[2]);
                if (host_flags_[l][long(b) * S + cell] != flag::fluid) continue;
                cells.push_back(levels_[l].places.of(s, cell));
                probe_cells_[l].probe.push_back(int(p));
              }
        }
      }
      probe_cells_[l].cells = to_device_view("amr probe cells", cells);
    }
  }
  // Per probe: volume, mass and momentum (3), summed exactly over levels and ranks.
  std::vector<ExactSum> sums(5 * points.size());
  for (int l = 0; l < int(levels_.size()); ++l) {
    const ProbeCells& pc = probe_cells_[l];
    const long n = long(pc.cells.extent(0));
    if (n == 0) continue;
    const AmrLevel<L, Real>& lv = levels_[l];
    const DeviceView<Real* [4]> moments("amr probe moments", n);
    Kokkos::parallel_for("amr probe moments", Kokkos::RangePolicy<ExecSpace>(0, n),
                         AmrCellMoments<L, Real>{lv.f[lv.cur], pc.cells, moments, lv.places.total,
                                                 {lv.params.force[0], lv.params.force[1], lv.params.force[2]}});
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), moments);
    const double weight = std::ldexp(1.0, -L::D * l);
    for (long i = 0; i < n; ++i) {
      const int p = pc.probe[i];
      // As sample() gives them: rho, then u = j / rho in the run's precision.
      const double rho = double(host(i, 0));
      sums[5 * p].add(weight);
      sums[5 * p + 1].add(weight * rho);
      for (int d = 0; d < 3; ++d) sums[5 * p + 2 + d].add(weight * rho * double(host(i, 1 + d) / host(i, 0)));
    }
  }
  const std::vector<double> totals = comm_.sum(sums);
  std::vector<double> values;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t p = 0; p < points.size(); ++p) {
    const double volume = totals[5 * p], mass = totals[5 * p + 1];
    values.push_back(volume > 0 ? mass / volume : nan);
    for (int d = 0; d < 3; ++d) values.push_back(volume > 0 ? totals[5 * p + 2 + d] / mass : nan);
  }
  return values;
}

template <class L, class Real>
void AmrLattice<L, Real>::make_statistics() {
  if (!statistics_.empty()) return;
  for (const AmrLevel<L, Real>& lv : levels_) statistics_.emplace_back(long(lv.leaves.extent(0)) * shape_.interior());
}

template <class L, class Real>
std::vector<CellMoments> AmrLattice<L, Real>::leaf_moments() const {
  std::vector<CellMoments> out;
  for (const AmrLevel<L, Real>& lv : levels_) {
    const long cells = long(lv.leaves.extent(0)) * shape_.interior();
    AmrLeafMoments<L, Real> m{lv.f[lv.cur], lv.flags, lv.leaves, lv.places, {}, CellMoments("amr leaf moments", cells, 4)};
    for (int d = 0; d < 3; ++d) m.force[d] = lv.params.force[d];
    if (cells > 0) Kokkos::parallel_for("amr leaf moments", Kokkos::RangePolicy<ExecSpace>(0, cells), m);
    out.push_back(m.moments);
  }
  return out;
}

template <class L, class Real>
void AmrLattice<L, Real>::add_statistics_sample() {
  make_statistics();
  const std::vector<CellMoments> moments = leaf_moments();
  for (std::size_t l = 0; l < moments.size(); ++l)
    if (moments[l].extent(0) > 0) statistics_[l].add(moments[l]);
  ++statistics_samples_;
}

template <class L, class Real>
std::vector<double> AmrLattice<L, Real>::statistics_state() const {
  const long per_leaf = shape_.interior() * RunningStatistics::state_columns;
  std::vector<std::vector<double>> owned;
  for (int l = 0; l < int(levels_.size()); ++l)
    owned.push_back(statistics_.empty() ? std::vector<double>(levels_[l].leaves.extent(0) * std::size_t(per_leaf))
                                        : statistics_[l].state());
  return gather_leaf_values(forest_, partition_, comm_, owned, per_leaf);
}

template <class L, class Real>
void AmrLattice<L, Real>::load_statistics_state(const std::vector<double>& state, long samples) {
  const long per_leaf = shape_.interior() * RunningStatistics::state_columns;
  long leaves = 0;
  for (int l = 0; l < int(levels_.size()); ++l)
    for (const ForestBlock& b : forest_.level(l)) leaves += b.leaf();
  if (long(state.size()) != leaves * per_leaf)
    throw Error("statistics: " + std::to_string(state.size()) + " values for " + std::to_string(leaves) +
                " leaves of " + std::to_string(per_leaf) + " each");
  make_statistics();
  const std::vector<std::vector<double>> owned = owned_leaf_values(forest_, partition_, comm_.rank(), state, per_leaf);
  for (int l = 0; l < int(levels_.size()); ++l) statistics_[l].load(owned[l], samples);
  statistics_samples_ = samples;
}

template <class L, class Real>
double AmrLattice<L, Real>::messages_per_step() const {
  double n = 0;
  for (int l = 0; l < int(halos_.size()); ++l) n += std::ldexp(double(halos_[l].messages()), l) / period_;
  return n;
}

template <class L, class Real>
double AmrLattice<L, Real>::bytes_per_step() const {
  double n = 0;
  for (int l = 0; l < int(halos_.size()); ++l) n += std::ldexp(double(halos_[l].bytes()), l) / period_;
  return n;
}

template <class L, class Real>
long long AmrLattice<L, Real>::messages_planned(long coarse_steps) const {
  long long n = 0;  // level l steps 2^l times per level-0 step and exchanges after every period_-th
  for (int l = 0; l < int(halos_.size()); ++l) n += halos_[l].messages() * ((coarse_steps << l) / period_);
  return n;
}

template <class L, class Real>
std::vector<double> AmrLattice<L, Real>::level_taus() const {
  std::vector<double> t;
  for (const auto& lv : levels_) t.push_back(lv.tau);
  return t;
}

}  // namespace boreas
