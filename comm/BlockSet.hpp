#pragma once
// The grid as a set of blocks (../shared/DESIGN.md): boxes of cells with a refinement level and an
// owner rank, and each block's neighbours. A uniform run is one level; decompositions produce a
// block set (comm/Decomposition.hpp), several blocks per rank are normal, and the AMR forest will
// produce one too. Halo plans (comm/HaloPlan.hpp) are built per (block, neighbour): a neighbour on
// the same rank is a local copy, one on another rank a message.
//
// A periodic wrap is a neighbour with an offset: the neighbour's box moved by `offset` cells lies
// next to the block, so one block spanning a periodic axis is its own neighbour on both sides.
// This is the one periodicity mechanism: halo plans, the rings of the output and a block's copies
// of its own cells (Block's self offsets) all find the cell a ghost mirrors through this table.
#include <array>
#include <string>
#include <vector>

#include "core/Types.hpp"

namespace boreas {

struct BlockNeighbour {
  int block = 0;                   // index in BlockSet::blocks
  std::array<int, 3> offset{};     // periodic shift of the neighbour's box, in cells
  std::array<int, 3> direction{};  // -1, 0, +1 per axis: where the shifted box lies (face, edge, corner)
};

struct GridBlock {
  int id = 0;      // index in BlockSet::blocks
  Box box;         // global cell coordinates at its level
  int level = 0;   // refinement level (0: the uniform grid)
  int owner = 0;   // rank
  // Blocks whose (shifted) box lies within the set's reach of this box (reach 1: shares a face,
  // edge or corner), ordered by (block, offset); the block itself appears with a non-zero offset
  // across periodic axes.
  std::vector<BlockNeighbour> neighbours;

  // The periodic shifts under which the block is its own neighbour.
  std::vector<std::array<int, 3>> self_offsets() const;
};

struct BlockSet {
  std::string method;                  // "cartesian" or "bisection"
  std::array<int, 3> dims{1, 1, 1};    // the block grid (Cartesian only)
  int ranks = 1;
  std::vector<GridBlock> blocks;
  std::vector<long long> fluid_cells;  // per block
  // Cells per axis within which the neighbour tables list every block (link_neighbours): the
  // deepest ghost layers a halo plan over this set may fill.
  std::array<int, 3> reach{1, 1, 1};

  int size() const { return static_cast<int>(blocks.size()); }
  // The blocks `rank` owns, in id order.
  std::vector<int> owned_by(int rank) const;
  std::vector<Box> boxes() const;
  // Fluid cells per rank: max / mean (1 = perfect balance).
  double imbalance() const;
  // The position of `block` among its owner's blocks (its slot on that rank).
  int slot(int block) const;
  // Most blocks any rank owns.
  int max_blocks_per_rank() const;
  // The entry of `b`'s neighbour table whose shifted box holds cell p (global coordinates, not
  // wrapped; within the reach of b), or nullptr when p lies outside the domain.
  const BlockNeighbour* holder(const GridBlock& b, const std::array<int, 3>& p) const;
};

// Calls visit(p, the entry of b's neighbour table holding p, the position p mirrors in that block)
// for every cell p of `around` outside b's own box that lies in the domain, z slowest, x fastest:
// how halo plans and the output's rings find a ghost's owner.
template <class Visit>
void for_each_cell_around(const BlockSet& set, const GridBlock& b, const Box& around, const Visit& visit) {
  for (int z = around.lo[2]; z < around.hi[2]; ++z)
    for (int y = around.lo[1]; y < around.hi[1]; ++y)
      for (int x = around.lo[0]; x < around.hi[0]; ++x) {
        const std::array<int, 3> p{x, y, z};
        if (b.box.contains(x, y, z)) continue;
        const BlockNeighbour* n = set.holder(b, p);
        if (n) visit(p, *n, std::array<int, 3>{x - n->offset[0], y - n->offset[1], z - n->offset[2]});
      }
}

// Fills every block's neighbour list for a domain of `cells` with the given periodic axes: the
// blocks within `reach[d]` cells along each axis (the deepest ghost layers any plan will fill;
// 0 along an axis without ghosts, z of a 2D lattice). A periodic axis one cell long with ghosts
// (a 3D lattice on a single layer) makes each block its own neighbour along it.
void link_neighbours(BlockSet& set, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic,
                     const std::array<int, 3>& reach);

}  // namespace boreas
