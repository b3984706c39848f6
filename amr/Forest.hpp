#pragma once
// The block forest of block-structured AMR (seed 000, CityLBM; ../shared/PAPERS.md A): a forest of
// octrees (quadtrees for a 2D domain one cell thick) whose roots tile the domain with level-0
// blocks of N^3 cells (N^2 x 1 in 2D). Refining a block makes its 8 (4) children on the next level,
// each again N^3 cells at half the spacing: refinement ratio 2 in space (and in time, seed 000
// Fig. 2). Every level is one array of blocks, leaves and refined ones alike: a refined block stays
// as the coarse cells under its children (fine-to-coarse averages land there, and coarser
// neighbours of a finer region read them). Each block carries its Morton key, parent and child
// links and a 27-entry table of same-level neighbours (self at the centre, periodic axes
// wrapped): integer offsets, no per-block ghost cells, as seed 000 stores its leaves.
//
// 2:1 balance over all 26 neighbours: leaves that share a face, edge or corner differ by at most
// one level, so every level-l block finds each neighbour position either on level l or inside a
// level l-1 leaf (level coupling reads one level across) or outside the domain. refine() restores
// it after every change.
//
// The forest holds topology only (no floating-point data, as the uniform BlockSet does not).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "core/Types.hpp"

namespace boreas {

struct ForestBlock {
  std::array<int, 3> index{};  // position on its level, in blocks
  std::uint64_t key = 0;       // Morton key of its first finest-level block: levels nest in key order
  int parent = -1;             // in the previous level's array; -1 on level 0
  int first_child = -1;        // children are consecutive in the next level's array; -1 for a leaf
  // Same-level blocks by direction (dx + 1) + 3 (dy + 1) + 9 (dz + 1), periodic axes wrapped;
  // -1 where the position lies outside the domain or inside a coarser leaf. Entry 13 is the block.
  // A forest one block thick (cells[2] == 1) lists the same row at dz = +-1 when z is periodic
  // (a 3D lattice on one layer, whose z links are its own cells) and -1 there otherwise.
  std::array<int, 27> neighbours{};
  bool leaf() const { return first_child < 0; }
};

class Forest {
 public:
  // The deepest level a forest can hold (Morton keys of 3 x 20 bits at the finest level).
  static constexpr int max_levels = 12;

  // Level 0 tiles `cells` with blocks of `leaf_size` cells per axis (one cell thick along z when
  // cells[2] == 1, a 2D forest); every extent must be a multiple of the leaf size.
  Forest(const std::array<int, 3>& cells, int leaf_size, const std::array<bool, 3>& periodic);

  int leaf_size() const { return n_; }
  int levels() const { return static_cast<int>(levels_.size()); }
  bool two_dimensional() const { return cells_[2] == 1; }
  const std::vector<ForestBlock>& level(int l) const { return levels_[l]; }
  // Children per refined block: 8, or 4 in 2D.
  int children() const { return two_dimensional() ? 4 : 8; }
  // Blocks per axis on level l.
  std::array<int, 3> blocks_per_axis(int l) const;
  // A block's cells in the cell coordinates of its level (the level-0 domain scaled by 2^l).
  Box box(const ForestBlock& b) const { return box_at(b.index); }
  // Leaves on level l.
  long long leaves(int l) const;

  // Refines every leaf below `max_level` for which `wanted(level, box in that level's cells)`
  // holds, again on the new leaves (those balance made included) until none is wanted or
  // max_level is reached, keeping the 2:1 balance. Returns the number of blocks refined.
  long refine(const std::function<bool(int level, const Box& box)>& wanted, int max_level);

  // The block of level l at `index` (periodic axes wrapped), or -1 when the level has none there.
  int find(int l, std::array<int, 3> index) const;

  // The same blocks on every level, refined alike (a regrid that changes nothing).
  bool operator==(const Forest& other) const { return tree_ == other.tree_; }

  // The refined blocks as (level, x, y, z), level by level in Morton order: with the root
  // geometry, all a forest is (checkpoints store it).
  std::vector<std::array<int, 4>> refined_blocks() const;
  // The forest whose refined blocks are `refined` (refined_blocks() of a forest on the same
  // roots). Throws Error when the list is not one: a block outside the domain or under a leaf, or
  // a refinement the 2:1 balance does not allow as given.
  static Forest from_refined(const std::array<int, 3>& cells, int leaf_size, const std::array<bool, 3>& periodic,
                             const std::vector<std::array<int, 4>>& refined);

 private:
  // Adds the children of leaf (l, index) to the leaf set.
  void split(int l, const std::array<int, 3>& index);
  // Refines coarse leaves until every leaf's 26 neighbour positions lie in blocks of its level or
  // the one above; returns the refinements made.
  long balance();
  // Rebuilds the level arrays (Morton order), links and neighbour tables from the leaf set.
  void rebuild();
  // The leaf holding level-l position `index` (wrapped, inside the domain): its level.
  int leaf_level_at(int l, const std::array<int, 3>& index) const;
  bool wrap(int l, std::array<int, 3>& index) const;
  Box box_at(const std::array<int, 3>& index) const;
  // The position of a block's parent on the level above (z stays 0 in a 2D forest).
  std::array<int, 3> parent_index(const std::array<int, 3>& index) const;

  std::array<int, 3> cells_;
  int n_;
  std::array<bool, 3> periodic_;
  // Every block, leaf or refined, per level: index -> refined.
  std::vector<std::map<std::array<int, 3>, bool>> tree_;
  std::vector<std::vector<ForestBlock>> levels_;
  std::vector<std::map<std::array<int, 3>, int>> position_;  // per level: index -> array position
};

// Morton key of a block position at `level` in a forest of depth max_levels: interleaved bits of
// (x, y, z) scaled to the finest level, so that a block's descendants follow it in key order.
std::uint64_t morton_key(const std::array<int, 3>& index, int level);

}  // namespace boreas
