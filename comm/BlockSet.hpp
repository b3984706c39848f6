#pragma once
// The grid as a set of blocks (../shared/DESIGN.md): boxes of cells with a refinement level and an
// owner rank, and each block's neighbours. A uniform run is one level; decompositions produce a
// block set (comm/Decomposition.hpp), several blocks per rank are normal, and the AMR forest will
// produce one too. Halo plans (comm/HaloPlan.hpp) are built per (block, neighbour): a neighbour on
// the same rank is a local copy, one on another rank a message.
//
// A periodic wrap is a neighbour with an offset: the neighbour's box moved by `offset` cells
// touches the block, so one block spanning a periodic axis is its own neighbour on both sides.
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
  // Blocks whose (shifted) box shares a face, edge or corner with this box, ordered by
  // (block, offset); the block itself appears with a non-zero offset across periodic axes.
  std::vector<BlockNeighbour> neighbours;
};

struct BlockSet {
  std::string method;                  // "cartesian" or "bisection"
  std::array<int, 3> dims{1, 1, 1};    // the block grid (Cartesian only)
  int ranks = 1;
  std::vector<GridBlock> blocks;
  std::vector<long long> fluid_cells;  // per block

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
};

// Fills every block's neighbour list for a domain of `cells` with the given periodic axes (2D
// lattices: z periodic and one cell thick, so z neighbours are the block itself).
void link_neighbours(BlockSet& set, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic);

}  // namespace boreas
