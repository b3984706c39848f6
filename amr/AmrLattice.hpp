#pragma once
// The AMR solver for one lattice and precision (amr/AmrSolver.hpp): every block of every level is
// N^3 cells (N^2 in 2D) with one ghost layer (numbered after the interior: LeafShape), populations
// in level-wide structure-of-arrays order with the rings apart from the interiors (LevelPlaces),
// two lattices per level (the pull scheme of lbm/scheme/PullStep.hpp on each leaf).
//
// Ghost cells are filled before every step of a level from the coarser level where a coarser
// leaf lies (coarse-to-fine, amr/Coupling.hpp), or they are boundary cells whose flags the
// geometry gives at that level; where a same-level block lies, the step reads that block's cells
// in place (AmrLeafStep::source_cell), and the ring takes copies only for what reads it directly
// (body forces). Refined blocks are not stepped: after their children's two steps they receive the children's average (fine-to-coarse), which coarser
// leaves then pull from.
//
// Subcycling (seed 000 Fig. 2) as a recursion, advance(l, alpha):
//   fill ghosts of level l (coarse-to-fine at time t_c + alpha of level l-1);
//   step the leaves of level l (t -> t + 1; the source lattice keeps t);
//   if l is not the finest: advance(l + 1, 0); advance(l + 1, 1/2);
//                           fine-to-coarse into level l's t + 1 lattice;
//   swap level l's lattices.
// Coarse values at the fine mid-step are the average of the coarse lattices at t and t + 1
// (seed 000's L2FA: the coarse state at t is kept, here as the pull scheme's source lattice).
// Where a coarse-to-fine stencil reaches a refined coarse cell, it reads the average of that
// cell's children on the level being filled, which are exactly at the fine time.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "amr/AmrSolver.hpp"
#include "amr/Coupling.hpp"
#include "amr/Partition.hpp"
#include "comm/ExecInstances.hpp"
#include "comm/LeafHalo.hpp"
#include "lbm/field/BodyForces.hpp"
#include "lbm/field/RunningStatistics.hpp"
#include "lbm/field/WallLinks.hpp"
#include "lbm/physics/Boundary.hpp"
#include "lbm/physics/Collision.hpp"
#include "lbm/physics/InflowGenerator.hpp"
#include "lbm/physics/Lattice.hpp"
#include "lbm/scheme/BulkRows.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

// The cell numbering shared by every block of every level. N is a power of two (4, 8, 16): interior
// numbers decode with shifts, not divisions (which cost the leaf step a third of its time).
// A block's cells are numbered interior first (x fastest, cell number i), then its ghost ring in
// ring order (z, y, x); a level stores the interiors of its blocks apart from their rings
// (LevelPlaces). Were the ring stored around the interior (rows of N + 2 cells), a 4^3 leaf's
// cells would spread over about 3x the cache lines of the same cells in a dense box; this way a
// leaf's interior is 8 whole cache lines per direction.
// Cell indices are not linear in the coordinates: neighbours are found through cell(x, y, z).
struct LeafShape {
  int n = 4;           // cells per axis (1 along z in 2D)
  int nz = 4;
  int sx = 6, sy = 6;  // with ghosts
  int gz = 1;          // ghost layers along z (0 in 2D)
  long cells = 216;    // per block, ghosts included
  int log_n = 2, log_interior = 6;
  int log_group = 4;  // rows of one leaf stepped together on host backends (AmrLeafStep::group)

  LeafShape() = default;
  LeafShape(int leaf_size, bool two_d)
      : n(leaf_size), nz(two_d ? 1 : leaf_size), sx(leaf_size + 2), sy(leaf_size + 2), gz(two_d ? 0 : 1),
        cells(long(leaf_size + 2) * (leaf_size + 2) * (two_d ? 1 : leaf_size + 2)) {
    log_n = 0;
    while ((1 << (log_n + 1)) <= n) ++log_n;
    if ((1 << log_n) != n) throw std::logic_error("AMR: leaf size " + std::to_string(n) + " is not a power of two");
    log_interior = log_n * (two_d ? 2 : 3);
    // Rows of 4 and 8 cells step in groups of 64 cells; a row of 16 alone vectorises best.
    log_group = n == 16 ? 0 : std::min(6 - log_n, log_interior - log_n);
  }
  KOKKOS_INLINE_FUNCTION long interior() const { return long(n) * n * nz; }
  // Ghosts of one interior plane (z in [0, nz)): the row below, two per interior row, the row above.
  KOKKOS_INLINE_FUNCTION long plane_ghosts() const { return 2L * sx + 2L * n; }
  // The cell at (x, y, z) of a block, each in [-1, n] (z in [0, nz) in 2D).
  KOKKOS_INLINE_FUNCTION long cell(int x, int y, int z) const {
    const bool in_x = unsigned(x) < unsigned(n), in_y = unsigned(y) < unsigned(n);
    if (in_x && in_y && unsigned(z) < unsigned(nz)) return x + (long(y) << log_n) + (long(z) << (2 * log_n));
    long g;
    if (z < 0) {
      g = long(y + 1) * sx + (x + 1);
    } else if (z >= nz) {
      g = long(gz) * sx * sy + nz * plane_ghosts() + long(y + 1) * sx + (x + 1);
    } else {
      const long plane = long(gz) * sx * sy + z * plane_ghosts();
      g = y < 0 ? plane + x + 1 : y >= n ? plane + sx + 2 * n + x + 1 : plane + sx + 2 * y + (x >= 0);
    }
    return interior() + g;
  }
  // The coordinates of cell `c` (the inverse of cell()).
  KOKKOS_INLINE_FUNCTION void place(long c, int (&p)[3]) const {
    if (c < interior()) {
      coordinates(c, p);
      return;
    }
    long g = c - interior();
    const long below = long(gz) * sx * sy;
    if (g < below || g >= below + nz * plane_ghosts()) {  // the planes below and above the interior
      p[2] = g < below ? -1 : nz;
      if (g >= below) g -= below + nz * plane_ghosts();
      p[1] = int(g / sx) - 1;
      p[0] = int(g % sx) - 1;
      return;
    }
    g -= below;
    p[2] = int(g / plane_ghosts());
    const long k = g % plane_ghosts();
    if (k < sx) {
      p[1] = -1;
      p[0] = int(k) - 1;
    } else if (k < sx + 2 * n) {
      p[1] = int(k - sx) / 2;
      p[0] = (k - sx) % 2 ? n : -1;
    } else {
      p[1] = n;
      p[0] = int(k - sx - 2 * n) - 1;
    }
  }
  // The region of a block's cell (x, y, z), each in [-1, n] (z in [-gz, nz + gz)): (dx + 1) +
  // 3 (dy + 1) + 9 (dz + 1) with d -1 below the interior, 0 in it, 1 above; 13 is the interior
  // (leaf_regions).
  KOKKOS_INLINE_FUNCTION int region(int x, int y, int z) const {
    return (x >= 0) + (x >= n) + 3 * ((y >= 0) + (y >= n)) + 9 * ((z >= 0) + (z >= nz));
  }
  // The cell at offset (dx, dy, dz) from cell c.
  KOKKOS_INLINE_FUNCTION long neighbour(long c, int dx, int dy, int dz) const {
    int p[3];
    place(c, p);
    return cell(p[0] + dx, p[1] + dy, p[2] + dz);
  }
  // Interior cell number i's coordinates (x, y, z) in its block.
  KOKKOS_INLINE_FUNCTION void coordinates(long i, int (&p)[3]) const {
    p[0] = int(i & (n - 1));
    p[1] = int((i >> log_n) & (n - 1));
    p[2] = int(i >> (2 * log_n));
  }
  // Item i of a sweep over blocks' interiors: its block's place in the sweep and cell number.
  KOKKOS_INLINE_FUNCTION long block_of(long i) const { return i >> log_interior; }
  KOKKOS_INLINE_FUNCTION long number_in_block(long i) const { return i & ((1L << log_interior) - 1); }
  // The x row (y + n z) of interior cell number i of block b, numbered over all blocks.
  KOKKOS_INLINE_FUNCTION long row_of(long b, long i) const { return (b << (log_interior - log_n)) + (i >> log_n); }
};

// Where a level keeps the cells of its blocks (slots): the interiors of all blocks first (block b's
// interior cell i at b I + i), then their rings (block b's ghost g at B I + b R + g), B blocks of
// I interior and R ring cells; population q of the cell at place p at p + q T, and the per-cell
// arrays (flags, CSM velocities, wall links) at p, T places per level. A sweep over leaves then
// streams each population's interiors as a dense box does: with each block's ring stored after
// its interior, per population, a 4^3 leaf step read 64 cells and skipped 152 (the ring) and ran
// at 0.37x the dense kernel (perf/README, perf/ring_gap_stream.cpp). T is B (I + R) rounded up to
// 4 KiB plus one cache line, as the dense field's direction planes (lbm/field/DenseField.hpp):
// populations a multiple of 4 KiB apart would share cache sets (16^3 leaves ran at 0.8x dense
// so, 1.0x with the ring inside each block); the places past B (I + R) hold walls.
struct LevelPlaces {
  long interior = 0, ring = 0;
  long rings_at = 0;  // B I
  long total = 0;     // T
  LevelPlaces() = default;
  LevelPlaces(const LeafShape& shape, long blocks, int real_bytes)
      : interior(shape.interior()), ring(shape.cells - shape.interior()), rings_at(blocks * shape.interior()) {
    const long page = 4096 / real_bytes;
    total = (blocks * shape.cells + page - 1) / page * page + 64 / real_bytes;
  }
  // Cell `cell` (LeafShape::cell numbering) of block b.
  KOKKOS_INLINE_FUNCTION long of(long b, long cell) const {
    return cell < interior ? b * interior + cell : rings_at + b * ring + (cell - interior);
  }
};

// Where a leaf's step reads the cells of one region (dx + 1) + 3 (dy + 1) + 9 (dz + 1) of its
// ghost ring, or (13) its interior: cell (x, y, z) of the region (in the leaf's coordinates) at
// place base + x + y sy + z sz (LevelPlaces: add q T for population q). Every region's cells are
// affine in their coordinates, in a same-level block's interior as in the ring.
struct LeafRegion {
  long base = 0;
  int sy = 0, sz = 0;
  KOKKOS_INLINE_FUNCTION long along(int x, int y, int z) const { return x + long(y) * sy + long(z) * sz; }
};

// The regions of a level's blocks (slots), each block's 27 at 27 k + r, from the slots of their
// same-level neighbours (neighbour_slots, 27 per block; -1 where none is held): a leaf reads a
// same-level neighbour's values in place, the rest (ghosts interpolated from the coarser level,
// boundaries, CRMT's unfilled ghosts) from its ring.
inline std::vector<LeafRegion> leaf_regions(const LeafShape& shape, const LevelPlaces& places,
                                            const std::vector<int>& neighbour_slots) {
  const long n = shape.n;
  const long ring_plane = long(shape.gz) * shape.sx * shape.sy;  // ghosts below the interior
  std::vector<LeafRegion> regions(neighbour_slots.size());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const long k = long(i / 27);
    const int r = int(i % 27), rx = r % 3 - 1, ry = r / 3 % 3 - 1, rz = r / 9 - 1;
    LeafRegion& region = regions[i];
    const int s = r == 13 ? int(k) : neighbour_slots[i];
    if (s >= 0) {  // an interior: coordinates wrapped by n along the region's axes
      const long wrap = rx * n + ry * n * n + rz * n * n * n;
      region = {places.of(s, 0) - wrap, int(n), int(n * n)};
      continue;
    }
    // The ring (LeafShape::cell), x fastest in its rows.
    long base;
    if (rz != 0) {
      base = (rz < 0 ? 0 : ring_plane + shape.nz * shape.plane_ghosts()) + shape.sx + 1;
      region = {0, shape.sx, 0};
    } else if (ry != 0) {
      base = ring_plane + (ry < 0 ? 0 : shape.sx + 2 * n) + 1;
      region = {0, 0, int(shape.plane_ghosts())};
    } else {  // an x face: x = -1 or n, two cells per interior row
      base = ring_plane + shape.sx + (rx < 0 ? 1 : 1 - n);
      region = {0, 2, int(shape.plane_ghosts())};
    }
    region.base = places.of(k, shape.interior()) + base;
  }
  return regions;
}

// leaf_regions' table on the device.
inline DeviceView<LeafRegion* [27]> region_view(const std::vector<LeafRegion>& regions) {
  DeviceView<LeafRegion* [27]> view("amr regions", regions.size() / 27);
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t i = 0; i < regions.size(); ++i) host(i / 27, i % 27) = regions[i];
  Kokkos::deep_copy(view, host);
  return view;
}

// A ghost cell filled from the coarser level: the coarse cell holding it and, per axis, side and
// distance (1, 2 coarse cells), where the interpolation stencil reads (kind 0: nowhere; 1: a
// coarse cell; 2: the first of a refined coarse cell's children on the fine level itself).
// Forest offsets (block * Q * S + cell) when made, then places (LevelPlaces); stepping tables then
// hold the coarse cells as places in AmrLevel::stencil_cells and the refined ones as places in
// AmrLevel::children_groups.
struct InterpPoint {
  long dst = 0;     // the ghost on the fine level
  long centre = 0;  // the coarse cell on the coarse level
  long side[3][2][2] = {};  // [axis][side -, +][distance 1, 2]
  std::int8_t kind[3][2][2] = {};
  // The diagonal neighbours, whose differences give the mixed derivatives: [pair of axes xy, xz,
  // yz (mixed_axes)][quadrant: bit 0 the first axis's side +, bit 1 the second's], kinds as above.
  long diagonal[3][4] = {};
  std::int8_t diagonal_kind[3][4] = {};
  // The ghost's centre from its coarse cell's, in quarters of a coarse cell: +-1, or +-3 from the
  // nearest fluid one where its own is solid (AmrLattice::nearest_fluid_stencil).
  std::int8_t delta[3] = {};
  // Stepping ghosts take the curvature (LBM values are point values); regrid transfers stay
  // linear, so that the 2^D children of a coarse cell average to it exactly.
  bool curved = false;
  // A stepping ghost extended across a face from the nearest fluid coarse cell toward a wall at
  // rest of interpolated bounce-back: where that wall is along axis wall_axis, from the coarse
  // centre in coarse cells (signed as delta); the momentum's parabola along it meets zero there.
  double wall = 0;
  std::int8_t wall_axis = -1;
  long fit = -1;  // stepping: its coarse cell's CoarseFit (shared by the ghosts in that cell)
  std::uint32_t pulled = ~0u;  // the populations written (pulled_from_ghost; all for regrids)
};

// The cells interpolation point `ip` (const or not) reads: visit(kind, offset) for its coarse cell
// (kind 1) and each stencil cell (kind 1: a coarse cell; 2: children on the fine level), offset
// being ip's own member.
template <class Point, class Visit>
void for_each_source(Point& ip, Visit&& visit) {
  visit(1, ip.centre);
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s)
      for (int d = 0; d < 2; ++d)
        if (ip.kind[a][s][d] != 0) visit(int(ip.kind[a][s][d]), ip.side[a][s][d]);
  for (int pair = 0; pair < 3; ++pair)
    for (int quadrant = 0; quadrant < 4; ++quadrant)
      if (ip.diagonal_kind[pair][quadrant] != 0) visit(int(ip.diagonal_kind[pair][quadrant]), ip.diagonal[pair][quadrant]);
}

// The populations a leaf's pull reads from its ghost (x, y, z) (in the leaf's cells, -1 or n on
// the ghost's axes): bit q where (x, y, z) + c_q lies in the leaf. A face ghost of D3Q19 gives at
// most 5 of 19, an edge ghost 1, a corner none. Where no rule reads neighbours
// (Config::needs_pull_kernel: CSM velocities, free-slip reflections, interpolated walls and
// outflow read whole ghost cells), ghosts are filled with these only, and refined cells restricted
// with those their copies carry; the interpolation stencils and the restriction read interior
// cells.
template <class L>
KOKKOS_INLINE_FUNCTION std::uint32_t pulled_from_ghost(const LeafShape& shape, int x, int y, int z) {
  std::uint32_t mask = 0;
  static_for<L::Q>([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const int px = x + L::c(q, 0), py = y + L::c(q, 1), pz = z + L::c(q, 2);
    if (px >= 0 && px < shape.n && py >= 0 && py < shape.n && pz >= 0 && pz < shape.nz) mask |= 1u << q;
  });
  return mask;
}

// What the ghosts inside one coarse cell share: the cell's density and momentum and, per axis,
// the slopes and curvatures of density, momentum and velocity from its stencil, and per pair of
// axes (mixed_axes) the mixed derivatives of momentum and velocity.
template <class Real>
struct CoarseFit {
  Real rho0 = 0, j0[3] = {}, rho_slope[3] = {};
  Real j_slope[3][3] = {}, j_curvature[3][3] = {}, u_slope[3][3] = {}, u_curvature[3][3] = {};
  Real j_mixed[3][3] = {}, u_mixed[3][3] = {};  // [pair][component]
};

// Slope and curvature at a coarse cell along one axis from the cell (c) and its neighbours at
// -2, -1, +1, +2 (have[k] says which exist): central where both neighbours exist, one-sided of
// second order where the far cell on the existing side does (walls, coarser leaves), first order
// otherwise, flat without neighbours.
template <class Real>
KOKKOS_INLINE_FUNCTION void slope_and_curvature(Real c, const Real (&v)[4], const bool (&have)[4], Real& slope,
                                                Real& curvature) {
  slope = curvature = 0;
  if (have[1] && have[2]) {
    slope = Real(0.5) * (v[2] - v[1]);
    curvature = v[2] - Real(2) * c + v[1];
  } else if (have[2]) {
    slope = have[3] ? Real(0.5) * (Real(4) * v[2] - Real(3) * c - v[3]) : v[2] - c;
    curvature = have[3] ? c - Real(2) * v[2] + v[3] : Real(0);
  } else if (have[1]) {
    slope = have[0] ? Real(0.5) * (Real(3) * c - Real(4) * v[1] + v[0]) : c - v[1];
    curvature = have[0] ? c - Real(2) * v[1] + v[0] : Real(0);
  }
}

template <class L, class Real>
struct AmrLevel {
  int blocks = 0;  // held on this rank (AmrLattice::held_)
  LevelPlaces places;
  DeviceView<Real*> f[2];
  DeviceView<std::uint8_t*> flags;
  DeviceView<int*> origin;  // per held block: its first interior cell in this level's cells (x, y, z)
  // Per block and x row of its interior (y + n z): 1 where every cell of the row and every cell it
  // pulls from is fluid, so that no boundary rule applies.
  DeviceView<std::uint8_t*> plain_rows;
  DeviceView<int*> leaves, refined;  // the leaves this rank owns; the refined blocks it holds
  // CRMT on leaves: the leaves held of other ranks (stepped between exchanges; the blocks each
  // exchange receives), the ghosts of those whose source this rank does not hold and the refined
  // cells they read whose children it does not hold (both stale between exchanges; NaN in the
  // validity trial), as places.
  DeviceView<int*> halo_leaves;
  DeviceView<long*> unfilled, unrestricted;
  int since_exchange = 0;  // steps of this level since its last exchange
  // The leaves split for the overlap strategies: those other ranks hold (boundary) and the rest
  // (interior, also in chunks for polling); per message, its leaves not in an earlier message.
  DeviceView<int*> boundary_leaves, interior_leaves;
  std::vector<DeviceView<int*>> interior_chunks, message_leaves;
  DeviceView<int* [8]> children;  // per refined block (by position in `refined`), child by octant
  // The refined cells coarser leaves pull from (r * interior + cell number): each step restricts
  // only these; outputs and regrids restrict every refined cell first (restrict_all).
  DeviceView<long*> restrict_read;
  DeviceView<std::uint32_t*> restrict_pulled;  // per restrict_read cell: the populations copies read
  // The fine cells restrict_read reads (places on level l + 1), their moments per
  // restriction, and per restrict_read cell where its children and next layers are among them.
  DeviceView<long*> restrict_fine_cells;
  DeviceView<Real* [4]> restrict_fine_moments;
  DeviceView<int* [20]> restrict_sources;
  // Of those, the ones this rank's leaves do not step (received, or refined): their moments are
  // taken from the lattice (AmrCellMoments into their rows of restrict_fine_moments); the step of
  // level l + 1 takes the others' as it writes them (its step_moments).
  DeviceView<long*> restrict_fallback_cells;
  DeviceView<int*> restrict_fallback_rows;
  // As a fine level: per block row (as plain_rows) whether it holds cells whose moments the
  // coarser level's restriction reads, their rows there per place (-1 elsewhere), and that table
  // (the coarser level's restrict_fine_moments). Empty on the finest level.
  DeviceView<std::uint8_t*> moment_rows;
  DeviceView<int*> moment_slots;
  DeviceView<Real* [4]> step_moments;
  // Per held block and region of its ghost ring, where the step reads (leaf_regions).
  DeviceView<LeafRegion* [27]> regions;
  // Same-level ghosts as copies into the ring, for the body forces' links, which read the ring
  // itself: steps read those blocks in place (regions).
  DeviceView<long*> copy_dst, copy_src;
  DeviceView<std::uint32_t*> copy_pulled;  // per copy: the populations copied (pulled_from_ghost)
  DeviceView<InterpPoint*> interp;  // coarse cells (kind 1, centre) as places in stencil_cells
  // Ghosts at the place of an interpolated one (same fit and offset), copied from it after each fill.
  DeviceView<long*> twin_dst, twin_src;
  DeviceView<std::uint32_t*> twin_pulled;
  // The coarse cells the interpolation reads (level l - 1 places) and their density
  // and momentum at t and t + 1 of the coarse step (4 + 4), computed once before both fills: each
  // cell serves several ghosts, which would otherwise each sum its Q populations in both lattices.
  DeviceView<long*> stencil_cells;
  DeviceView<Real* [8]> stencil_moments;
  // Refined coarse cells in stencils (kind 2) by their first child on this level, whose means
  // each fill computes once (AmrChildrenMeans) for the fits.
  DeviceView<long*> children_groups;
  DeviceView<Real* [4]> children_means;
  // One ghost's stencil per coarse cell holding ghosts (InterpPoint::fit), and their fits.
  DeviceView<InterpPoint*> fit_stencils;
  DeviceView<CoarseFit<Real>*> fits;
  // Per place of the held blocks: the per-link data of obstacles with interpolated
  // bounce-back or rotation (lbm/field/WallLinks.hpp), for the interior cells of held leaves.
  WallLinks walls;
  // The coherent-structure model: the velocity of the fluid cells of the held blocks that steps
  // read, from the current lattice after its ghosts are filled (AmrCellVelocity): interiors, and
  // the ring places of regions read from the ring (no same-level block in place), velocity_ring.
  CellVelocity<Real> velocity;
  DeviceView<long*> velocity_ring;
  CollisionParams<Real> params;
  CouplingRates<Real> rates;
  double tau = 1;
  long long fluid_leaf_cells = 0;
  int cur = 0;
};

// Density and momentum (lbm/physics/ChapmanEnskog.hpp post_collision_moments) of the populations at `offset`.
template <class L, class Real, class Load>
KOKKOS_INLINE_FUNCTION void moments_at(const Load& load, const Real (&force)[3], Real& rho, Real (&j)[3]) {
  Real f[L::Q];
  static_for<L::Q>([&](auto qc) { f[decltype(qc)::value] = load(decltype(qc)::value); });
  post_collision_moments<L>(f, force, rho, j);
}

// Rows whose cells pull from fluid cells only take a plain pull (no flag per link, no boundary
// code); the others test each upwind flag.
//
// A leaf reads the populations (and CSM velocities) of its same-level neighbours where they lie,
// in those blocks' interiors (`regions`), rather than from copies in its ghost ring: on
// amr_nested the copies took 42 % as long as the step itself (perf/README). The ring holds what
// has no same-level block: ghosts interpolated from the coarser level, boundaries, and (CRMT)
// ghosts whose source this rank does not hold. The flags tested are the ring's, which are the
// neighbours' own.
template <class L, class Real, class Collision>
struct AmrLeafStep {
  DeviceView<const Real*> src;
  DeviceView<Real*> dst;
  DeviceView<const std::uint8_t*> flags, plain_rows;
  DeviceView<const int*> leaves;
  LeafShape shape;
  LevelPlaces places;
  CollisionParams<Real> params;
  BoundaryValues<Real> bc;
  DeviceView<const int*> origin;  // AmrLevel::origin, read by profiled inlets
  WallLinks walls;                 // AmrLevel::walls
  CellVelocity<Real> velocity;     // AmrLevel::velocity (CSM)
  DeviceView<const LeafRegion* [27]> regions;  // AmrLevel::regions (leaf_regions)
  // AmrLevel::moment_rows, moment_slots, step_moments: the moments of the cells the coarser
  // level's restriction reads, from the populations the step writes (the same values
  // AmrCellMoments would read back, summed alike), so that the restriction need not gather them.
  DeviceView<const std::uint8_t*> moment_rows;
  DeviceView<const int*> moment_slots;
  DeviceView<Real* [4]> moments;

  // Cell `place` of row `row` (plain_rows numbering), just written: its moments where the
  // restriction reads them, from `load(q)`.
  template <class Load>
  KOKKOS_INLINE_FUNCTION void keep_moments(long row, long place, const Load& load) const {
    if (moment_rows.extent(0) == 0 || !moment_rows(row)) return;
    const int slot = moment_slots(place);
    if (slot < 0) return;
    Real rho, j[3];
    moments_at<L>(load, params.force, rho, j);
    moments(slot, 0) = rho;
    for (int d = 0; d < 3; ++d) moments(slot, 1 + d) = j[d];
  }

  // The place (add q T for population q) the leaf in slot b reads for its cell (x, y, z), each in
  // [-1, n] (z in [-gz, nz + gz)): no branch, a table entry.
  KOKKOS_INLINE_FUNCTION long source_cell(int b, int x, int y, int z) const {
    const LeafRegion& region = region_of(b, x, y, z);
    return region.base + region.along(x, y, z);
  }
  KOKKOS_INLINE_FUNCTION const LeafRegion& region_of(int b, int x, int y, int z) const {
    return regions(b, shape.region(x, y, z));
  }

  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const int b = leaves(shape.block_of(i));
    const long number = shape.number_in_block(i), cell = number;
    int p[3];
    shape.coordinates(number, p);
    // The flags of the leaf's own ring (which are its same-level neighbours' own).
    const auto at = [&](int dx, int dy, int dz) { return places.of(b, shape.cell(p[0] + dx, p[1] + dy, p[2] + dz)); };
    const auto from = [&](int dx, int dy, int dz) { return source_cell(b, p[0] + dx, p[1] + dy, p[2] + dz); };
    const long own = places.of(b, cell), T = places.total;
    Real f[L::Q];
    if (plain_rows(shape.row_of(b, number))) {
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        f[q] = src(from(-L::c(q, 0), -L::c(q, 1), -L::c(q, 2)) + q * T);
      });
    } else {
      if (flags(own) != flag::fluid) return;
      const auto own_post = [&](int k) { return src(own + k * T); };
      // Inlet and outlet faces stay on level 0 (amr/AmrSolver.cpp), so a profiled inlet cell's
      // coordinates are level-0 cells, which the profile takes.
      const auto where = [&](int (&o)[3]) {
        for (int d = 0; d < 3; ++d) o[d] = p[d] + origin(3 * b + d);
      };
      static_for<L::Q>([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        constexpr int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
        const std::uint8_t fl = flags(at(-cx, -cy, -cz));
        const int row = fl == flag::wall && walls.any() ? walls.row(own) : -1;
        if (fl == flag::fluid) {
          f[q] = src(from(-cx, -cy, -cz) + q * T);
        } else if (row >= 0) {
          // Interpolated bounce-back as the uniform grid's (lbm/scheme/PullStep.hpp), linear: the
          // node behind lies in the leaf, a same-level neighbour or the ring, at this step's time;
          // the ring is one cell deep, too shallow for the quadratic rule (refused with AMR, core/Deck.cpp).
          f[q] = interpolated_bounce_back<L, q>(Real(walls.fraction(row, q)), Real(walls.momentum(row, q)), false,
                                                flags(at(cx, cy, cz)) == flag::fluid ? 1 : 0, own_post,
                                                [&](int h, int k) { return src(from(h * cx, h * cy, h * cz) + k * T); });
        } else if (flag::kind(fl) == flag::free_slip) {
          // Specular reflection as the uniform grid's (lbm/scheme/PullStep.hpp): from the cell
          // beside, in the leaf, a neighbour or the ring; bounced back where that cell is not fluid.
          const int axes = flag::index(fl);
          const int sx = axes & 1 ? 0 : -cx, sy = axes & 2 ? 0 : -cy, sz = axes & 4 ? 0 : -cz;
          f[q] = flags(at(sx, sy, sz)) == flag::fluid
                     ? src(from(sx, sy, sz) + reflected_direction<L, q>(axes) * T)
                     : own_post(opposite<L>(q));
        } else if (flag::kind(fl) == flag::outflow) {
          // The convective outflow as the uniform grid's (lbm/physics/Boundary.hpp): from the cell
          // inside, in the leaf, a neighbour or the ring (open faces stay on level 0).
          const int face = flag::index(fl);
          int n[3];
          outward_normal(face, n);
          const Real own_value = own_post(q);
          f[q] = convective_outflow(
              own_value, flags(at(-n[0], -n[1], -n[2])) == flag::fluid ? src(from(-n[0], -n[1], -n[2]) + q * T) : own_value,
              bc.convective[face]);
        } else {
          f[q] = incoming_from_boundary<L, q>(fl, own_post, bc, params, where);
        }
      });
    }
    if (params.has_csm)  // the neighbours' velocities where they lie, as their populations
      Collision::template collide<L>(f, csm_params<L::D>(params, own, flags, velocity, [&](int a, int side) {
                                       return source_cell(b, p[0] + side * (a == 0), p[1] + side * (a == 1),
                                                          p[2] + side * (a == 2));
                                     }));
    else
      Collision::template collide<L>(f, params);
    static_for<L::Q>([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      dst(own + q * T) = f[q];
    });
    keep_moments(shape.row_of(b, number), own, [&](int q) { return f[q]; });
  }

  // Direction q (an integral_constant) of row Row (a compile-time number) of `Rows` rows of the
  // leaf whose regions are `region` (regions(b, 0)), from interior cell number `first` (x = 0) on:
  // its Width = n pulled values into out. The row it pulls from lies in the leaf or a same-level
  // neighbour (source_cell: n - 1 cells of one block, one x-face cell of another where c_x != 0)
  // or in the ring, which stores its rows' cells in a row too. Groups of rows start at y = 0 (and
  // at z = 0 where they are whole leaves), so that a grouped row's y and z, and with them the
  // regions it reads, are known at compile time: the row's address is then a region's base plus
  // a constant times its strides, the same few regions serving every row (computing each row's
  // regions at run time cost about 45 instructions per row and direction, more than the collision
  // of its cells). Sizes known at compile time keep the copies inline.
  template <int Rows, int Width, int Row, class Q>
  KOKKOS_INLINE_FUNCTION void pull_row(Q qc, const LeafRegion* region, long first, Real* out) const {
    constexpr int q = decltype(qc)::value;
    constexpr int cx = L::c(q, 0), cy = L::c(q, 1), cz = L::c(q, 2);
    const int y = (Rows == 1 ? int((first >> shape.log_n) & (Width - 1)) : Row % Width) - cy;
    const int z = (L::D == 2 ? 0 : Rows == Width * Width ? Row / Width : int(first >> (2 * shape.log_n)) + Row / Width) - cz;
    const Real* in = src.data() + q * places.total;
    const int middle = 13 + 3 * ((y >= Width) - (y < 0)) + 9 * ((z >= shape.nz) - (z < 0));
    const auto at = [&](int r, int x) { return in + region[r].base + region[r].along(x, y, z); };
    if constexpr (cx == 0) {
      std::memcpy(out, at(middle, 0), Width * sizeof(Real));
    } else if constexpr (cx > 0) {
      out[0] = *at(middle - 1, -1);
      std::memcpy(out + 1, at(middle, 0), (Width - 1) * sizeof(Real));
    } else {
      std::memcpy(out, at(middle, 1), (Width - 1) * sizeof(Real));
      out[Width - 1] = *at(middle + 1, Width);
    }
  }

  // `Rows` rows of Width cells of one leaf from interior cell number `first` on, all plain,
  // through one chunk of BulkRows (loads, collision and stores vectorised), which performs the
  // per-cell path's operations in its order (bitwise equal).
  // `sweep` is the rows' first item in the sweep; the cells 1 KiB of a stream further on in the
  // sweep (as BulkRows' own prefetch) are fetched meanwhile.
  template <int Rows, int Width>
  KOKKOS_INLINE_FUNCTION void plain_rows_of(int b, long first, long sweep) const {
    const long next = sweep + BulkRows<L, Real, Collision>::ahead;
    const long at = places.of(b, first), T = places.total;
    const LeafRegion* region = &regions(b, 0);
    const auto load = [&](auto qc, auto row, Real* out) { pull_row<Rows, Width, decltype(row)::value>(qc, region, first, out); };
    const auto target = [&](auto qc, int k) -> Real* { return dst.data() + at + decltype(qc)::value * T + long(k) * Width; };
    const bool has_next = shape.block_of(next) < long(leaves.extent(0));
    const long next_at = has_next ? places.of(leaves(shape.block_of(next)), shape.number_in_block(next)) : 0;
    const auto ahead = [&](auto qc) {
      if (!has_next) return;
      const long cells = next_at + decltype(qc)::value * T;
      BOREAS_PREFETCH_SPAN(src.data() + cells, Rows * Width * sizeof(Real), 0);
      BOREAS_PREFETCH_SPAN(dst.data() + cells, Rows * Width * sizeof(Real), 1);
    };
    BulkRows<L, Real, Collision>::template collide_rows<Rows, Width>(params, load, target, ahead);
    if (moment_rows.extent(0) == 0) return;
    for (long k = 0; k < Rows * Width; ++k)
      keep_moments(shape.row_of(b, first + k), at + k, [&](int q) { return dst(at + k + q * T); });
  }

  // Row r of the sweep (its n cells along x), on host backends: a plain row in one chunk, other
  // rows cell by cell.
  KOKKOS_INLINE_FUNCTION void row(long r) const {
    const long first = r << shape.log_n;
    const int b = leaves(shape.block_of(first));
    const long number = shape.number_in_block(first);
    if (!plain_rows(shape.row_of(b, number)) || params.has_csm) {  // CSM reads its neighbours' velocities
      for (long i = first; i < first + shape.n; ++i) (*this)(i);
      return;
    }
    if (shape.n == 4)
      plain_rows_of<1, 4>(b, number, first);
    else if (shape.n == 8)
      plain_rows_of<1, 8>(b, number, first);
    else
      plain_rows_of<1, 16>(b, number, first);
  }

  // Group g of rows (1 << shape.log_group consecutive rows of one leaf: 64 cells at N = 4 and 8,
  // one row at 16), on host backends: several rows, all plain, through one chunk (a chunk of 4 or
  // 8 cells is too short for its loops: the 4^3 leaf step ran 6.4 MLUPS by rows, 8.0 by groups;
  // 16-cell rows run faster alone, perf/README); otherwise row by row.
  KOKKOS_INLINE_FUNCTION void group(long g) const {
    const int count = 1 << shape.log_group;
    const long first_row = g << shape.log_group, first = first_row << shape.log_n;
    const int b = leaves(shape.block_of(first));
    const long number = shape.number_in_block(first), plain_first = shape.row_of(b, number);
    bool plain = !params.has_csm && count > 1;
    for (int k = 0; k < count && plain; ++k) plain = plain_rows(plain_first + k) != 0;
    if (!plain)
      for (int k = 0; k < count; ++k) row(first_row + k);
    else if (shape.n == 4 && count == 16)
      plain_rows_of<16, 4>(b, number, first);
    else if (shape.n == 4)
      plain_rows_of<4, 4>(b, number, first);  // 2D
    else
      plain_rows_of<8, 8>(b, number, first);
  }
};

// Groups of rows of leaves for host backends (AmrLeafStep::group).
template <class L, class Real, class Collision>
struct AmrLeafRows {
  AmrLeafStep<L, Real, Collision> step;
  KOKKOS_INLINE_FUNCTION void operator()(long g) const { step.group(g); }
};

// Same-level ghosts, the populations of each that `pulled` names (every one, or those the leaf's
// pull reads: pulled_from_ghost).
template <class L, class Real>
struct AmrGhostCopy {
  DeviceView<Real*> f;
  DeviceView<const long*> dst, src;
  DeviceView<const std::uint32_t*> pulled;
  long total = 0;  // LevelPlaces::total
  // Over the set bits only (5 of 19 on a face ghost, 1 on an edge): the lowest set bit's number
  // through a de Bruijn sequence, the same on every backend.
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    constexpr int bit_of[32] = {0, 1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
                                31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9};
    const long to = dst(i), from = src(i);
    for (std::uint32_t mask = pulled(i) & ((1u << L::Q) - 1); mask != 0; mask &= mask - 1) {  // all: ~0u
      const long q = bit_of[((mask & (0u - mask)) * 0x077CB531u) >> 27];
      f(to + q * total) = f(from + q * total);
    }
  }
};

// The post-collision velocity (u = (sum c f* - F / 2) / rho, the previous step's) of the fluid
// cells of a level's held blocks that the coherent-structure model differentiates
// (lbm/scheme/PullScheme.hpp update_velocity on the uniform grid): every interior, and the ring
// cells the step reads from the ring (AmrLevel::velocity_ring); same-level neighbours'
// velocities it reads in their interiors (AmrLeafStep::source_cell). Item k < interiors is
// place k.
template <class L, class Real>
struct AmrCellVelocity {
  DeviceView<const Real*> f;
  DeviceView<const std::uint8_t*> flags;
  CellVelocity<Real> velocity;
  CollisionParams<Real> params;
  long total;      // LevelPlaces::total
  long interiors;  // LevelPlaces::rings_at
  DeviceView<const long*> ring;
  KOKKOS_INLINE_FUNCTION void operator()(long k) const {
    const long i = k < interiors ? k : ring(k - interiors);
    if (flags(i) != flag::fluid) return;
    Real u[3];
    post_collision_velocity<L>([&](int q) { return f(i + q * total); }, params, u);
    for (int d = 0; d < 3; ++d) velocity(d, i) = u[d];
  }
};

// Density and momentum (post_collision_moments) of the cells at places `cells`.
template <class L, class Real>
struct AmrCellMoments {
  DeviceView<const Real*> f;
  DeviceView<const long*> cells;
  DeviceView<Real* [4]> moments;
  long total;  // LevelPlaces::total
  Real force[3];
  DeviceView<const int*> rows;  // the row of moments per cell; empty: cell i's is row i
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const long at = cells(i), row = rows.extent(0) > 0 ? rows(i) : i;
    Real rho, j[3];
    moments_at<L>([&](int q) { return f(at + q * total); }, force, rho, j);
    moments(row, 0) = rho;
    for (int d = 0; d < 3; ++d) moments(row, 1 + d) = j[d];
  }
};

// Density and velocity (as AmrLattice::sample gives them; 0 outside the fluid) of the interior
// cells of a level's leaves `leaves`, one row per cell (leaf by leaf).
template <class L, class Real>
struct AmrLeafMoments {
  DeviceView<const Real*> f;
  DeviceView<const std::uint8_t*> flags;
  DeviceView<const int*> leaves;
  LevelPlaces places;
  Real force[3];
  CellMoments moments;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const long at = places.of(leaves(i / places.interior), i % places.interior);
    Real rho = 0, j[3] = {0, 0, 0};
    if (flags(at) == flag::fluid) moments_at<L>([&](int q) { return f(at + q * places.total); }, force, rho, j);
    moments(i, 0) = double(rho);
    for (int d = 0; d < 3; ++d) moments(i, 1 + d) = rho != Real(0) ? double(j[d] / rho) : 0.0;
  }
};

// Adds shift[q] to population q of every fluid cell of a level's held blocks (AmrLattice::restore_mass),
// over the level's places.
template <class L, class Real>
struct AmrShiftDensity {
  DeviceView<Real*> f;
  DeviceView<const std::uint8_t*> flags;
  long total;  // LevelPlaces::total
  Kokkos::Array<Real, L::Q> shift;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    if (flags(i) != flag::fluid) return;
    for (int q = 0; q < L::Q; ++q) f(i + q * total) += shift[q];
  }
};

// Density and momentum of the coarse cells `cells` in both coarse lattices.
template <class L, class Real>
struct AmrStencilMoments {
  DeviceView<Real* [8]> moments;
  DeviceView<const Real*> coarse_t, coarse_next;
  DeviceView<const long*> cells;  // places
  long total;                      // the coarse level's LevelPlaces::total
  Real force[3];
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const long at = cells(i);
    Real rho, j[3];
    moments_at<L>([&](int q) { return coarse_t(at + q * total); }, force, rho, j);
    moments(i, 0) = rho;
    for (int d = 0; d < 3; ++d) moments(i, 1 + d) = j[d];
    moments_at<L>([&](int q) { return coarse_next(at + q * total); }, force, rho, j);
    moments(i, 4) = rho;
    for (int d = 0; d < 3; ++d) moments(i, 5 + d) = j[d];
  }
};

// Coarse-to-fine: linear interpolation of density and momentum (the 2^D ghosts of one coarse
// cell average to it exactly), slopes of the velocity for the strain rate, coarse moments
// blended in time by alpha. Coarse cells come as places in `moments` (stepping), or, where it is
// empty (regrid), as places in coarse_t.
template <class L, class Real>
struct AmrCoarseToFine {
  DeviceView<Real*> fine;  // fine level, current lattice: ghosts written, children read
  DeviceView<const Real*> coarse_t, coarse_next;
  DeviceView<const InterpPoint*> points;
  LeafShape shape;
  long coarse_total, fine_total;  // the levels' LevelPlaces::total
  Real alpha;
  Real coarse_force[3], fine_force[3];
  CouplingRates<Real> fine_rates;
  DeviceView<const Real* [8]> moments;
  DeviceView<CoarseFit<Real>*> fits;  // stepping: one per coarse cell, computed per fill (AmrCoarseFits)
  DeviceView<const Real* [4]> children_means;  // stepping: per refined stencil cell, per fill (AmrChildrenMeans)

  KOKKOS_INLINE_FUNCTION void sample(int kind, long offset, Real& rho, Real (&j)[3]) const {
    if (kind == 1 && moments.extent(0) > 0) {
      rho = (Real(1) - alpha) * moments(offset, 0) + alpha * moments(offset, 4);
      for (int d = 0; d < 3; ++d) j[d] = (Real(1) - alpha) * moments(offset, 1 + d) + alpha * moments(offset, 5 + d);
      return;
    }
    if (kind == 1) {
      moments_at<L>([&](int q) { return (Real(1) - alpha) * coarse_t(offset + q * coarse_total) + alpha * coarse_next(offset + q * coarse_total); },
                    coarse_force, rho, j);
      return;
    }
    // kind 2: a refined coarse cell, by its place in children_means (stepping only: regrids
    // interpolate from coarse cells alone).
    rho = children_means(offset, 0);
    for (int d = 0; d < 3; ++d) j[d] = children_means(offset, 1 + d);
  }

  // The mean of the 2^D children whose first is at place `offset` of the fine level: their
  // populations summed first (a moment is linear), then one moment. The children are interior
  // cells of one block (cell numbers x fastest, places too). Children outer, populations inner:
  // Q independent sums, where one population's children after another chained 2^D dependent
  // additions Q times (the same sums in the same order either way).
  KOKKOS_INLINE_FUNCTION void children_mean(long offset, Real& rho, Real (&j)[3]) const {
    const int nz = L::D == 3 ? 2 : 1;
    Real sum[L::Q] = {};
    for (int oz = 0; oz < nz; ++oz)
      for (int oy = 0; oy < 2; ++oy)
        for (int ox = 0; ox < 2; ++ox) {
          const long child = offset + ox + (oy << shape.log_n) + (oz << (2 * shape.log_n));
          static_for<L::Q>([&](auto qc) { sum[decltype(qc)::value] += fine(child + decltype(qc)::value * fine_total); });
        }
    const Real none[3] = {0, 0, 0};
    post_collision_moments<L>(sum, none, rho, j);
    const Real inv = Real(1) / Real(2 * 2 * nz);
    rho *= inv;
    for (int d = 0; d < 3; ++d) j[d] = j[d] * inv - Real(0.5) * fine_force[d];
  }

  // The fit of p's coarse cell (its centre and stencil). Stencil cells under the fine level
  // (kind 2) are their children's mean, which lies X = (1/32) sum_a u''_a above the point value at
  // their centre. The fit is linear in its samples: with C0 and S0 the curvatures and slopes of
  // the samples as they are and beta, gamma those of a unit sample at the kind-2 cells, the
  // point values' curvatures are C = C0 - beta X with X = sum C / 32, so X = sum C0 / (32 +
  // sum beta) (|sum beta| <= 6) and S = S0 - gamma X: a parabola is fitted exactly.
  KOKKOS_INLINE_FUNCTION void fit(const InterpPoint& p, CoarseFit<Real>& c) const {
    sample(1, p.centre, c.rho0, c.j0);
    Real beta[3] = {}, gamma[3] = {}, beta_sum = 0;
    Real near_rho[3][2] = {}, near_j[3][2][3] = {};  // the neighbours at 1 (fit_mixed reads them too)
    bool under_fine = false;
    for (int a = 0; a < L::D; ++a) {
      Real rs[4] = {}, js[4][3] = {}, unit[4] = {};
      bool have[4];
      for (int k = 0; k < 4; ++k) {  // neighbours at -2, -1, +1, +2 coarse cells
        const int s = k / 2, dist = k == 0 || k == 3 ? 1 : 0;
        have[k] = p.kind[a][s][dist] != 0;
        if (!have[k]) continue;
        sample(p.kind[a][s][dist], p.side[a][s][dist], rs[k], js[k]);
        if (dist == 0) {
          near_rho[a][s] = rs[k];
          for (int d = 0; d < 3; ++d) near_j[a][s][d] = js[k][d];
        }
        unit[k] = p.kind[a][s][dist] == 2 ? Real(1) : Real(0);
        under_fine = under_fine || p.kind[a][s][dist] == 2;
      }
      Real curvature;
      slope_and_curvature(c.rho0, rs, have, c.rho_slope[a], curvature);
      slope_and_curvature(Real(0), unit, have, gamma[a], beta[a]);
      beta_sum += beta[a];
      for (int d = 0; d < 3; ++d) {
        Real jv[4], uv[4];
        for (int k = 0; k < 4; ++k) {
          jv[k] = js[k][d];
          uv[k] = have[k] ? js[k][d] / rs[k] : Real(0);
        }
        slope_and_curvature(c.j0[d], jv, have, c.j_slope[a][d], c.j_curvature[a][d]);
        slope_and_curvature(c.j0[d] / c.rho0, uv, have, c.u_slope[a][d], c.u_curvature[a][d]);
      }
    }
    if (under_fine)
      for (int d = 0; d < 3; ++d) {
        Real j_shift = 0, u_shift = 0;
        for (int a = 0; a < L::D; ++a) {
          j_shift += c.j_curvature[a][d];
          u_shift += c.u_curvature[a][d];
        }
        j_shift /= Real(32) + beta_sum;
        u_shift /= Real(32) + beta_sum;
        for (int a = 0; a < L::D; ++a) {
          c.j_curvature[a][d] -= beta[a] * j_shift;
          c.j_slope[a][d] -= gamma[a] * j_shift;
          c.u_curvature[a][d] -= beta[a] * u_shift;
          c.u_slope[a][d] -= gamma[a] * u_shift;
        }
      }
    fit_mixed(p, near_rho, near_j, c);
  }

  // The mixed derivatives (without them a ghost's velocity gradient is first-order wrong along a
  // flow that varies in two directions, e.g. a Taylor-Green vortex crossing an interface): per
  // quadrant whose diagonal cell and the two neighbours beside it exist, the corner difference
  // s_a s_b (v(s_a, s_b) - v(s_a, 0) - v(0, s_b) + v(0, 0)), averaged over those quadrants (the
  // central difference when all four exist). Refined cells give their children's mean, which
  // lies X = (1/32) sum_a v''_a above the point value: taken off with the fitted curvatures.
  KOKKOS_INLINE_FUNCTION void fit_mixed(const InterpPoint& p, const Real (&near_rho)[3][2], const Real (&near_j)[3][2][3],
                                        CoarseFit<Real>& c) const {
    Real j_above[3] = {}, u_above[3] = {};
    for (int d = 0; d < 3; ++d)
      for (int a = 0; a < L::D; ++a) {
        j_above[d] += c.j_curvature[a][d] / Real(32);
        u_above[d] += c.u_curvature[a][d] / Real(32);
      }
    // A sample's momentum and velocity as point values.
    const auto point = [&](int kind, Real rho, Real (&j)[3], Real (&u)[3]) {
      for (int d = 0; d < 3; ++d) {
        u[d] = j[d] / rho;
        if (kind == 2) {
          j[d] -= j_above[d];
          u[d] -= u_above[d];
        }
      }
    };
    for (int pair = 0; pair < mixed_pairs(L::D); ++pair) {
      const int a = mixed_axes(pair, 0), b = mixed_axes(pair, 1);
      Real j_sum[3] = {}, u_sum[3] = {};
      int quadrants = 0;
      for (int quadrant = 0; quadrant < 4; ++quadrant) {
        const int sa = quadrant & 1, sb = quadrant >> 1;
        if (p.diagonal_kind[pair][quadrant] == 0 || p.kind[a][sa][0] == 0 || p.kind[b][sb][0] == 0) continue;
        Real rd, jd[3], ud[3], ua[3], ub[3];
        Real ja[3] = {near_j[a][sa][0], near_j[a][sa][1], near_j[a][sa][2]};
        Real jb[3] = {near_j[b][sb][0], near_j[b][sb][1], near_j[b][sb][2]};
        sample(p.diagonal_kind[pair][quadrant], p.diagonal[pair][quadrant], rd, jd);
        point(p.diagonal_kind[pair][quadrant], rd, jd, ud);
        point(p.kind[a][sa][0], near_rho[a][sa], ja, ua);
        point(p.kind[b][sb][0], near_rho[b][sb], jb, ub);
        const Real sign = sa == sb ? Real(1) : Real(-1);
        for (int d = 0; d < 3; ++d) {
          j_sum[d] += sign * (jd[d] - ja[d] - jb[d] + c.j0[d]);
          u_sum[d] += sign * (ud[d] - ua[d] - ub[d] + c.j0[d] / c.rho0);
        }
        ++quadrants;
      }
      if (quadrants == 0) continue;
      for (int d = 0; d < 3; ++d) {
        c.j_mixed[pair][d] = j_sum[d] / Real(quadrants);
        c.u_mixed[pair][d] = u_sum[d] / Real(quadrants);
      }
    }
  }

  // Ghost p from its coarse cell's fit.
  KOKKOS_INLINE_FUNCTION void apply(const InterpPoint& p, const CoarseFit<Real>& c) const {
    Real rho = c.rho0, j[3] = {c.j0[0], c.j0[1], c.j0[2]}, G[3][3] = {};
    FlowCurvature<Real> flow;
    for (int a = 0; a < L::D; ++a) {
      const Real delta = Real(0.25) * p.delta[a];
      // Density linear: the 2^D ghosts of one coarse cell average to it exactly.
      rho += delta * c.rho_slope[a];
      flow.rho_gradient[a] = Real(0.5) * c.rho_slope[a];
      for (int d = 0; d < 3; ++d) {
        Real j_curvature = c.j_curvature[a][d], u_curvature = c.u_curvature[a][d];
        if (a == p.wall_axis) {
          // The parabola through the coarse centre with its slope and through zero at the wall:
          // the ghost, nearer the wall than the centre, is interpolated, not extrapolated.
          const Real w = Real(p.wall), scale = Real(-2) / (w * w);
          j_curvature = scale * (c.j0[d] + w * c.j_slope[a][d]);
          u_curvature = scale * (c.j0[d] / c.rho0 + w * c.u_slope[a][d]);
        }
        // Momentum: the curvature enters at delta^2 / 2 from the coarse centre (1/32 in the cell).
        j[d] += delta * c.j_slope[a][d] + (p.curved ? j_curvature * (Real(0.5) * delta * delta) : Real(0));
        // The velocity gradient at the ghost's centre, in fine lattice units (dt halves).
        G[a][d] = Real(0.5) * (c.u_slope[a][d] + delta * u_curvature);
        flow.u2[a][d] = Real(0.25) * u_curvature;
      }
    }
    for (int pair = 0; pair < mixed_pairs(L::D); ++pair) {
      const int a = mixed_axes(pair, 0), b = mixed_axes(pair, 1);
      const Real delta_a = Real(0.25) * p.delta[a], delta_b = Real(0.25) * p.delta[b];
      for (int d = 0; d < 3; ++d) {
        if (p.curved) j[d] += c.j_mixed[pair][d] * (delta_a * delta_b);
        G[a][d] += Real(0.5) * delta_b * c.u_mixed[pair][d];
        G[b][d] += Real(0.5) * delta_a * c.u_mixed[pair][d];
        flow.mixed[pair][d] = Real(0.25) * c.u_mixed[pair][d];
      }
    }
    const Real u[3] = {j[0] / rho, j[1] / rho, j[2] / rho};
    Real f[L::Q];
    rebuild_post_collision<L>(rho, u, G, flow, fine_rates, f, p.pulled);
    for (int q = 0; q < L::Q; ++q)
      if (p.pulled >> q & 1u) fine(p.dst + q * fine_total) = f[q];
  }

  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const InterpPoint& p = points(i);
    if (fits.extent(0) > 0) {
      apply(p, fits(p.fit));
      return;
    }
    CoarseFit<Real> c;
    fit(p, c);
    apply(p, c);
  }
};

// The children's means of the refined coarse cells the fits read (several fits read each), once
// per fill, before the fits.
template <class L, class Real>
struct AmrChildrenMeans {
  AmrCoarseToFine<L, Real> c2f;
  DeviceView<const long*> groups;  // the first child of each (population offset on the fine level)
  DeviceView<Real* [4]> means;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    Real rho, j[3];
    c2f.children_mean(groups(i), rho, j);
    means(i, 0) = rho;
    for (int d = 0; d < 3; ++d) means(i, 1 + d) = j[d];
  }
};

// The fits of a level's coarse cells (each from one of its ghosts' stencils), before the ghosts.
template <class L, class Real>
struct AmrCoarseFits {
  AmrCoarseToFine<L, Real> c2f;
  DeviceView<const InterpPoint*> stencils;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const { c2f.fit(stencils(i), c2f.fits(i)); }
};

// Fine-to-coarse: a refined block's cells receive the mass-weighted average of their 2^D
// children; the children's velocity differences give the coarse strain rate.
template <class L, class Real>
struct AmrFineToCoarse {
  DeviceView<Real*> coarse;  // the coarse level's t + 1 lattice
  DeviceView<const Real*> fine;
  DeviceView<const std::uint8_t*> coarse_flags, fine_flags;
  DeviceView<const int*> refined;
  DeviceView<const int* [8]> children;
  LeafShape shape;
  LevelPlaces coarse_places, fine_places;
  Real fine_force[3];
  CouplingRates<Real> coarse_rates;

  DeviceView<const long*> subset;  // refined cells (r * interior + cell number) to restrict; empty: all
  DeviceView<const std::uint32_t*> subset_pulled;  // per subset cell: the populations written
  // With a subset: the density and momentum of the fine cells it reads, each computed once before
  // (a refined cell's next layer is its neighbour's children), and per subset cell the places
  // there of its children (octant) and next layers (8 + 4 a + 2 w + v, as the loop below), -1
  // where not fluid.
  DeviceView<const int* [20]> sources;
  DeviceView<const Real* [4]> fine_moments;
  DeviceView<const long*> fine_cells;  // with a subset: the place of each fine_moments entry
  WallLinks fine_walls;                // where the fine level's links meet walls (CutCellFit)

  // The density and momentum of fine cell `at` of block `child`, table entry `entry` of subset
  // cell k; false where not fluid.
  KOKKOS_INLINE_FUNCTION bool fine_cell(long k, int entry, int child, long at, Real& rho, Real (&j)[3]) const {
    if (sources.extent(0) > 0) {
      const int place = sources(k, entry);
      if (place < 0) return false;
      rho = fine_moments(place, 0);
      for (int d = 0; d < 3; ++d) j[d] = fine_moments(place, 1 + d);
      return true;
    }
    const long place = fine_places.of(child, at);
    if (fine_flags(place) != flag::fluid) return false;
    moments_at<L>([&](int q) { return fine(place + q * fine_places.total); }, fine_force, rho, j);
    return true;
  }

  // The fine place of a fluid child (table entry `entry` of subset cell k).
  KOKKOS_INLINE_FUNCTION long fine_place(long k, int entry, int child, long at) const {
    return sources.extent(0) > 0 ? fine_cells(sources(k, entry)) : fine_places.of(child, at);
  }

  // The velocity at the centre of a coarse cell whose children a body partly covers, and its
  // gradient (CutCellFit); false where a wall beside a fluid child moves (a turning obstacle: the
  // fine level keeps its velocity along each link only), which keeps the fluid children's mean.
  template <class ChildCell>
  KOKKOS_INLINE_FUNCTION bool cut_cell_velocity(long k, int child, const ChildCell& child_cell, Real (&u)[3],
                                                Real (&G)[3][3]) const {
    const int children = L::D == 3 ? 8 : 4;
    bool fluid[8];
    Real v[8][3];
    long at[8];
    for (int o = 0; o < children; ++o) {
      Real rc, m[3];
      at[o] = child_cell(o & 1, (o >> 1) & 1, o >> 2);
      fluid[o] = fine_cell(k, o, child, at[o], rc, m);
      for (int d = 0; d < 3 && fluid[o]; ++d) v[o][d] = m[d] / rc;
    }
    CutCellFit<Real> fit;
    for (int o = 0; o < children; ++o) {
      if (!fluid[o]) continue;
      const int off[3] = {o & 1, (o >> 1) & 1, o >> 2};
      Real s[3] = {0, 0, 0};
      for (int a = 0; a < L::D; ++a) s[a] = Real(0.5) * Real(off[a]) - Real(0.25);  // children at +-1/4
      fit.add(s, v[o]);
      const int row = fine_walls.any() ? fine_walls.row(fine_place(k, o, child, at[o])) : -1;
      // Any link of the cell: a wall moving across the axis's link leaves that link's term 0.
      for (int c = 0; c < L::Q && row >= 0; ++c)
        if (fine_walls.momentum(row, c) != 0) return false;
      for (int a = 0; a < L::D; ++a) {
        if (fluid[o ^ (1 << a)]) continue;
        // The link from the solid child: incoming direction +-e_a. Halfway walls where no row.
        const int sign = off[a] == 1 ? 1 : -1;
        int q = 0;
        for (int c = 0; c < L::Q; ++c)
          if (L::c(c, a) == sign && L::c(c, 0) * L::c(c, 0) + L::c(c, 1) * L::c(c, 1) + L::c(c, 2) * L::c(c, 2) == 1) q = c;
        const Real fraction = row >= 0 ? Real(fine_walls.fraction(row, q)) : Real(0.5);
        Real w[3] = {s[0], s[1], s[2]};
        // A fine link is half a coarse cell; the wall is taken no nearer the fluid than the centre.
        const Real wall = s[a] - Real(sign) * Real(0.5) * fraction;
        w[a] = sign * wall > 0 ? Real(0) : wall;
        const Real rest[3] = {0, 0, 0};
        fit.add(w, rest);
      }
    }
    fit.solve(L::D, u, G);
    return true;
  }

  KOKKOS_INLINE_FUNCTION void operator()(long k) const {
    const long i = subset.extent(0) > 0 ? subset(k) : k;
    const long cell = shape.number_in_block(i);
    const int r = int(shape.block_of(i)), b = refined(r);
    const long place = coarse_places.of(b, cell);
    int p[3];
    shape.coordinates(cell, p);
    const int x = p[0], y = p[1], z = p[2];
    if (coarse_flags(place) != flag::fluid) return;
    const int h = shape.n / 2;
    const int child = children(r, (x >= h) + 2 * (y >= h) + 4 * (z >= h));
    const int fx = 2 * (x % h), fy = 2 * (y % h), fz = L::D == 3 ? 2 * (z % h) : 0;
    const auto child_cell = [&](int ox, int oy, int oz) { return shape.cell(fx + ox, fy + oy, fz + oz); };
    const int nz = L::D == 3 ? 2 : 1;
    // Momentum sums per axis over the children's two layers, and velocity and density sums.
    Real rho = 0, j[3] = {0, 0, 0}, layer_j[3][2][3] = {}, u_side[3][2][3] = {}, rho_side[3][2] = {};
    Real child_u[8][3] = {};
    int count = 0;
    for (int oz = 0; oz < nz; ++oz)
      for (int oy = 0; oy < 2; ++oy)
        for (int ox = 0; ox < 2; ++ox) {
          Real rc, m[3];
          if (!fine_cell(k, ox + 2 * oy + 4 * oz, child, child_cell(ox, oy, oz), rc, m)) continue;
          rho += rc;
          const int o[3] = {ox, oy, oz};
          for (int a = 0; a < 3; ++a) rho_side[a][o[a]] += rc;
          for (int d = 0; d < 3; ++d) {
            child_u[ox + 2 * oy + 4 * oz][d] = m[d] / rc;
            j[d] += m[d];
            for (int a = 0; a < 3; ++a) {
              u_side[a][o[a]][d] += m[d] / rc;
              layer_j[a][o[a]][d] += m[d];
            }
          }
          ++count;
        }
    if (count == 0) return;
    const int all = 4 * nz;
    Real G[3][3] = {};
    FlowCurvature<Real> flow;
    if (count == all) {
      // Children centres lie 1/2 coarse cell apart: slope = 2 (mean of the upper half - lower half).
      for (int a = 0; a < L::D; ++a) {
        flow.rho_gradient[a] = Real(4) * (rho_side[a][1] - rho_side[a][0]) / Real(all);
        for (int d = 0; d < 3; ++d) G[a][d] = Real(4) * (u_side[a][1][d] - u_side[a][0][d]) / Real(all);
      }
      // Populations are point values: the children's mean lies (1/2)(1/4)^2 u'' per axis above
      // the value at the coarse centre, which coarser leaves read. u'' along each axis from the
      // children's two layers and the next layer of the child leaf's own cells (its ghosts hold
      // an earlier fill), where that layer is fluid; it also enters the rebuild (FlowCurvature).
      // Mixed derivatives d2u/dx_a dx_b from the same layers: d/dx_b across the two rows of the
      // next layer along a and of the children two cells from it, differenced along a (centred
      // 1/4 off the coarse centre: first order, enough for a term that is itself a correction).
      // Never from the children's corners alone: that 2x2 difference is exactly the lattice's
      // checkerboard mode, which at low viscosity it fed back into the coarse level until runs
      // blew up.
      Real mixed_sum[3][3] = {};
      int mixed_count[3] = {};
      const int at[3] = {x, y, z};
      for (int a = 0; a < L::D; ++a) {
        const bool above = 2 * (at[a] % h) + 2 < shape.n;  // else the layer below the children
        bool fluid = true;
        Real next[3] = {0, 0, 0}, layer_u[2][2][3] = {};
        for (int v = 0; v < 2 && fluid; ++v)
          for (int w = 0; w < nz && fluid; ++w) {
            int o[3] = {0, 0, 0};
            o[a] = above ? 2 : -1;
            o[(a + 1) % L::D] = v;
            if (L::D == 3) o[(a + 2) % 3] = w;
            Real rc, m[3];
            fluid = fine_cell(k, 8 + 4 * a + 2 * w + v, child, child_cell(o[0], o[1], o[2]), rc, m);
            if (!fluid) break;
            for (int d = 0; d < 3; ++d) {
              next[d] += m[d];
              layer_u[v][w][d] = m[d] / rc;
            }
          }
        if (!fluid) continue;
        for (int pair = 0; pair < mixed_pairs(L::D); ++pair) {
          const int pa = mixed_axes(pair, 0), pb = mixed_axes(pair, 1);
          if (pa != a && pb != a) continue;
          const int b = pa == a ? pb : pa, c = 3 - a - b, across = above ? 0 : 1;  // the children's layer 2 cells away
          const bool b_is_v = b == (a + 1) % L::D;
          for (int w = 0; w < nz; ++w)
            for (int d = 0; d < 3; ++d) {
              const Real next_step = b_is_v ? layer_u[1][w][d] - layer_u[0][w][d] : layer_u[w][1][d] - layer_u[w][0][d];
              const int lo = (across << a) | (w << c), hi = lo | (1 << b);
              const Real child_step = child_u[hi][d] - child_u[lo][d];
              mixed_sum[pair][d] += Real(2) * (above ? next_step - child_step : child_step - next_step) / Real(nz);
            }
          ++mixed_count[pair];
        }
        // Second differences summed over the all/2 lines of fine cells along a; the coarse
        // value is the mean minus (1/32) (4 u''_fine) per line: -(sum of u''_fine) / 4 on the sum.
        for (int d = 0; d < 3; ++d) {
          const Real second = above ? layer_j[a][0][d] - Real(2) * layer_j[a][1][d] + next[d]
                                    : next[d] - Real(2) * layer_j[a][0][d] + layer_j[a][1][d];
          j[d] -= second / Real(4);
          // u'' in coarse units: 4 x the mean fine second difference over the all/2 lines.
          flow.u2[a][d] = Real(8) * second / Real(all) / (rho / Real(count));
        }
      }
      for (int pair = 0; pair < mixed_pairs(L::D); ++pair)
        for (int d = 0; d < 3 && mixed_count[pair] > 0; ++d) flow.mixed[pair][d] = mixed_sum[pair][d] / Real(mixed_count[pair]);
    }
    Real u[3] = {j[0] / rho, j[1] / rho, j[2] / rho};
    if (count < all) cut_cell_velocity(k, child, child_cell, u, G);
    Real f[L::Q];
    const std::uint32_t wanted = subset.extent(0) > 0 ? subset_pulled(k) : ~0u;
    rebuild_post_collision<L>(rho / Real(count), u, G, flow, coarse_rates, f, wanted);
    for (int q = 0; q < L::Q; ++q)
      if (wanted >> q & 1u) coarse(place + q * coarse_places.total) = f[q];
  }
};

// Whole blocks (interiors and rings, every population) from one lattice to another of other
// places (LevelPlaces): pairs (to, from) of slots (regrids, replicas).
template <class Real>
struct AmrBlockCopy {
  DeviceView<Real*> to;
  DeviceView<const Real*> from;
  DeviceView<const int* [2]> pairs;
  LevelPlaces to_places, from_places;
  long cells;  // LeafShape::cells
  int Q;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const long cell = i % cells, q = i / cells % Q, p = i / cells / Q;
    to(to_places.of(pairs(p, 0), cell) + q * to_places.total) = from(from_places.of(pairs(p, 1), cell) + q * from_places.total);
  }
};

// Copies the populations of the cells at `places` (population q at place + q * total) between a
// level's storage and `kept`, one row per cell: into kept (`save`) or back.
template <class Real>
struct AmrKeptCells {
  DeviceView<Real*> f;
  DeviceView<Real**> kept;
  DeviceView<const long*> places;
  long total;
  bool save;
  KOKKOS_INLINE_FUNCTION void operator()(long k) const {
    for (int q = 0; q < int(kept.extent(1)); ++q) {
      Real& cell = f(places(k) + q * total);
      if (save) kept(k, q) = cell;
      else cell = kept(k, q);
    }
  }
};

// Several ranks (issue 13 B): the forest is known everywhere, the leaves are shared out by
// partition_forest (amr/Partition.hpp), and a rank holds the blocks it owns and those its own
// leaves read: same-level neighbours and coarse-to-fine stencils (ghost leaves, refreshed by their
// owners after every step through comm/LeafHalo.hpp as their interior cells), and the refined
// blocks its leaves copy from with the children it averages them from (each rank restricts what
// it reads itself, so restrictions send nothing). Blocks are
// numbered per rank (slots) in the forest's order; on one rank slot and block coincide. Outputs,
// checkpoints and regrids gather the owned blocks into a replica of the whole forest on every rank
// and restrict there (one lattice of the whole run per rank, kept from the first output, check or
// regrid on so that its tables are built once). The step of a level and its exchange interleave
// as parallel.overlap says (step_and_exchange): none, nonblocking, interior (the leaves others
// hold first, their messages sent, the rest while arrivals are unpacked), streams (packs on
// instances of their own beside the rest), systolic (each message sent as soon as its leaves are
// computed).
//
// CRMT on leaves (amr.crmt, seed 000): a rank also holds what its held leaves of others read (a
// second ring) and steps those leaves itself, filling their ghosts from what it holds, so that a
// level exchanges only every k of its steps; the values it cannot recompute go stale from the
// outer ring inwards, and k is the longest period that keeps every owned leaf exact, found by a
// trial with those values marked NaN (derive_exchange_period). An exchange step skips the held
// leaves of others: the exchange brings them.
template <class L, class Real>
class AmrLattice final : public AmrSolver {
 public:
  AmrLattice(const Config& config, const DomainGeometry& domain, Forest forest, MPI_Comm comm);

  const Forest& forest() const override { return forest_; }
  const ForestPartition& partition() const override { return partition_; }
  void advance(long coarse_steps) override;
  long step() const override { return step_; }
  double mass() const override;
  AmrHealth health(double rho0) const override;
  std::vector<std::array<double, 3>> body_forces() const override;
  std::vector<AmrBlockSample> sample() const override;
  long long fluid_leaf_cells(int level) const override { return levels_.at(level).fluid_leaf_cells; }
  std::vector<double> level_taus() const override;
  void set_state(const StateFunction& state) override;
  std::unique_ptr<AmrSolver> regridded(const Config& config, const DomainGeometry& domain, Forest forest) const override;
  std::uint64_t fields_hash() const override;
  int cell_bytes() const override { return int(L::Q * sizeof(Real)); }
  int cells_per_block() const override { return int(shape_.interior()); }
  std::vector<unsigned char> populations() const override;
  void load_populations(const std::vector<unsigned char>& bytes, long step) override;
  void save_state() override;
  void restore_state() override;
  std::vector<double> probe_values(const std::vector<Probe>& probes) const override;
  std::vector<CellMoments> leaf_moments() const override;
  void add_statistics_sample() override;
  long statistics_samples() const override { return statistics_samples_; }
  std::vector<double> statistics_state() const override;
  void load_statistics_state(const std::vector<double>& state, long samples) override;
  double messages_per_step() const override;
  double bytes_per_step() const override;
  long long messages_planned(long coarse_steps) const override;
  int exchange_period() const override { return period_; }
  long long messages_sent() const override { return comm_.messages_sent(); }

  // One step of level l and, recursively, two of every finer level (public for CUDA lambdas).
  void advance_level(int l, Real alpha);
  // Level l's ghosts: coarse-to-fine at level l-1's time t + alpha (same-level neighbours are
  // read in place: AmrLeafStep::source_cell).
  void fill_ghosts(int l, Real alpha);
  // The same-level copies into the ring (for body_forces) and the coarse-to-fine part, untimed;
  // const: ghosts are filled before they are read, they are not state.
  void copy_ghosts(int l) const;
  void interpolate_ghosts(int l, Real alpha) const;
  // Collides and streams the leaves `which` of level l into its next lattice; keep_moments: the
  // step is level l's second of the coarser one's, which the restriction follows
  // (AmrLeafStep::keep_moments).
  void step_leaves(int l, bool keep_moments, const DeviceView<int*>& which);
  // CRMT's validity trial, on a lattice of level l: the populations at places `offsets` (every q)
  // set to NaN, as what this rank cannot recompute between exchanges; the interior cells of blocks
  // `which` set to 1, as an exchange brings them.
  void mark_stale(int l, const DeviceView<Real*>& lattice, const DeviceView<long*>& offsets) const;
  void mark_received(int l, const DeviceView<Real*>& lattice, const DeviceView<int*>& which) const;
  // The fluid cells of level l's owned leaves with a population that is not finite (finite()).
  long long non_finite_leaf_cells(int l) const;
  // Collective: whether every population of the leaves' fluid cells is finite (CRMT's trial,
  // whose lattice of ones has densities of Q).
  bool finite() const;
  // The first of level l's owned fluid leaf cells (its index, x fastest, in the level's cells)
  // whose density is not within (lo, hi); LLONG_MAX where none is.
  long long first_unhealthy_leaf_cell(int l, Real lo, Real hi) const;
  // The density of level l's cell `index` (first_unhealthy_leaf_cell's numbering) where this rank
  // owns it, else 0.
  double leaf_cell_density(int l, long long index) const;

 private:
  struct Replica {};
  // The whole forest on this rank alone, with the parameters, flags and wall links of `of`, zero
  // populations and one lattice.
  AmrLattice(const AmrLattice& of, Replica);
  // The collision parameters and coupling rates of level l.
  void set_level_parameters(int l, const Config& config);
  // Per level, the per-link data of the held leaves' fluid cells next to obstacles with
  // interpolated bounce-back or rotation (AmrLevel::walls).
  void build_wall_links(const DomainGeometry& domain, double rho0);
  // Per level, the links from the fluid cells of the leaves this rank owns into bodies, weighted
  // as the walls' rules return populations, less their rest momenta at rho0 (BodyForces.hpp).
  void build_body_links(const DomainGeometry& domain, double rho0);
  // Interpolated bounce-back does not conserve mass: a deck without open faces (Config::
  // restores_mass) gets its initial state's mass back every Config::mass_restoration_period
  // level-0 steps by a uniform density shift, as the uniform grid does (drivers/Simulation.cpp).
  void restore_mass();
  // Partition, held blocks, index tables, device arrays (`lattices` of them per level) and leaf
  // halos from forest_ and host_flags_.
  void build(int lattices = 2);
  // A replica holding every block as its owner has it (current lattice; the replica's only one),
  // on every rank; built once per forest and refilled at each call.
  AmrLattice& gathered() const;
  // Both lattices of every held block from `replica`, a replica of this forest.
  void take_blocks(const AmrLattice& replica);
  bool distributed() const { return comm_.size() > 1; }
  // Level l's step (step_leaves) and the exchange of its leaves under parallel.overlap (all write
  // the same values); with CRMT, between exchanges the held leaves of others are stepped here instead.
  void step_and_exchange(int l, bool keep_moments);
  // CRMT's exchange period: the longest k <= N - 1 (N cells per leaf) for which a trial run, with
  // the populations this rank cannot have recomputed marked NaN, keeps every owned leaf finite on
  // every rank over two periods (so every stencil reach counts, whatever the coupling reads); 1 if
  // none. The trial steps with BGK, whose every output reads every input.
  int derive_exchange_period();

  // Fine-to-coarse of level l + 1 into level l's lattice `into`: the cells coarser leaves read,
  // or every refined cell (all). `stepped`: right after level l + 1's second step, whose leaves
  // kept the moments of the fine cells they wrote (AmrLeafStep::keep_moments).
  void restrict_level(int l, const DeviceView<Real*>& into, bool all, bool stepped = false) const;
  // Every refined cell of every level from its children, finest first (before output and regrid).
  void restrict_all() const;
  // Fills this solver's current lattices from `old` (regridded(); one rank, or replicas).
  void transfer_from(const AmrLattice& old);
  // Wraps level-l cell p on periodic axes; false when it lies outside the domain.
  bool wrap_cell(int l, std::array<int, 3>& p) const;
  // The level-l block holding level-l cell p (wrapped) and p's cell index there; -1 if none.
  int locate(int l, const std::array<int, 3>& p, long& cell) const;
  // The place on level l (LevelPlaces) of forest offset block * Q * S + cell, in a held block.
  long place_of(int l, long offset) const;
  // The coarse-to-fine stencil of level-l cell p (wrapped) on level l - 1: its coarse cell and the
  // neighbours at 1 and 2 coarse cells per axis and side, refined ones as children groups when
  // `children_groups` (stepping) or as their own cells (regrid), as offsets block * Q * S + cell
  // of the forest's blocks. False when the coarse cell is solid.
  bool coarse_stencil(int l, const std::array<int, 3>& p, bool children_groups, InterpPoint& ip) const;
  // The stencil around level-(l - 1) cell P (block cb, cell ccell) as coarse_stencil's, its
  // deltas unset; false when P is solid.
  bool stencil_around(int l, const std::array<int, 3>& P, int cb, long ccell, bool children_groups,
                      InterpPoint& ip) const;
  // For level-l cell p whose coarse cell is solid (a surface between the coarse centre and p's):
  // the stencil of the nearest fluid coarse cell on p's side, deltas from that cell, refined
  // cells as coarse_stencil's, and for a stepping ghost across a face the wall between them
  // (InterpPoint::wall); false when none of them is fluid.
  bool nearest_fluid_stencil(int l, const std::array<int, 3>& p, bool children_groups, InterpPoint& ip) const;
  // The flag of level-l cell p: the geometry's at that level, closed where every child is closed.
  std::uint8_t level_flag(const DomainGeometry& domain, int l, const std::array<int, 3>& p) const;
  // The body a child of level-l cell p (or a child's child) lies in, -1 if none: where level_flag
  // closed p, whose own centre is fluid, the links into it push that body.
  int body_below(const DomainGeometry& domain, int l, const std::array<int, 3>& p) const;

  Forest forest_;
  LeafShape shape_;
  std::array<int, 3> cells0_;
  std::array<bool, 3> periodic_;
  std::vector<AmrLevel<L, Real>> levels_;
  std::vector<std::vector<std::uint8_t>> host_flags_;  // per level, every block of the forest
  BoundaryValues<Real> bc_;
  InflowGenerator<Real> inflow_;  // a turbulent inlet's field (bc_.turbulence), on level 0 as every inlet
  CollisionKind collision_;
  Traversal traversal_;  // the leaf step's (rows of leaves on host backends, or a work item per cell)
  mutable Comm comm_;
  ForestPartition partition_;
  std::vector<std::vector<int>> held_;  // per level: slot -> block, in forest order
  std::vector<std::vector<int>> slot_;  // per level: block -> slot, -1 where not held
  std::vector<LeafHalo<Real>> halos_;   // per level
  std::vector<BodyLinks> body_links_;   // per level, with [forces] (build_body_links)
  std::vector<char> body_links_read_ghosts_;  // per level: a link term reads a ghost (body_forces fills them)
  // Per level, the averages of the owned leaves' interior cells (leaves in forest order), made
  // at the first sample or load.
  std::vector<RunningStatistics> statistics_;
  // probe_values(): per level, the owned leaves' fluid cells inside the probes' level-0 cells (cell
  // places, and the probe of each), for the probes they were made for.
  struct ProbeCells {
    DeviceView<long*> cells;
    std::vector<int> probe;
  };
  mutable std::vector<ProbeCells> probe_cells_;
  mutable std::vector<std::array<int, 3>> probe_points_;
  long statistics_samples_ = 0;
  struct SavedState {  // save_state()
    long step = -1;
    std::vector<DeviceView<Real*>> f;  // per level, as levels_[l].f[cur]
    std::vector<RunningStatistics> statistics;
    long statistics_samples = 0;
    // Per level: steps since its exchange, as the held leaves of other ranks were then (CRMT).
    std::vector<int> since_exchange;
  } saved_;
  void make_statistics();
  // A regridded solver's averages from this one's (regridded()).
  void carry_statistics(AmrLattice& next) const;
  std::vector<double> leaf_values_now() const;
  // regridded(): the step, timers, mass target and averages into `next`.
  void carry_run(AmrLattice& next) const;
  bool restores_mass_ = false;
  bool ghosts_pulled_only_ = false;  // ghosts and restricted cells take the pulled populations only
  double mass_target_ = 0, fluid_volume_ = 0;  // restore_mass(): the initial state's, in level-0 cells
  double initial_mass_ = 0;  // the deck's initial state's on this forest (set_state may set another target)
  int bodies_ = 0;
  // With wall links: the geometry and density they come from, which a replica's own (every leaf's,
  // at its places) are built from, so that its restrictions see the walls a rank's do.
  std::shared_ptr<const DomainGeometry> wall_domain_;
  double wall_density_ = 1;
  OverlapKind overlap_ = OverlapKind::None;
  bool crmt_ = false;    // amr.crmt and several ranks
  int period_ = 1;       // CRMT: steps of a level between its exchanges
  bool trial_ = false;   // derive_exchange_period() is running
  std::unique_ptr<ExecInstances> instances_;  // one per message of the busiest level (streams)
  mutable std::unique_ptr<AmrLattice> replica_;  // gathered()
  long step_ = 0;
};

}  // namespace boreas
