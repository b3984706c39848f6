#include "comm/BlockSet.hpp"

#include <algorithm>

namespace boreas {

std::vector<int> BlockSet::owned_by(int rank) const {
  std::vector<int> out;
  for (const GridBlock& b : blocks)
    if (b.owner == rank) out.push_back(b.id);
  return out;
}

std::vector<Box> BlockSet::boxes() const {
  std::vector<Box> out;
  for (const GridBlock& b : blocks) out.push_back(b.box);
  return out;
}

double BlockSet::imbalance() const {
  std::vector<long long> per_rank(ranks, 0);
  long long total = 0;
  for (const GridBlock& b : blocks) {
    per_rank[b.owner] += fluid_cells[b.id];
    total += fluid_cells[b.id];
  }
  const long long max = *std::max_element(per_rank.begin(), per_rank.end());
  return total > 0 ? double(max) * double(ranks) / double(total) : 1.0;
}

int BlockSet::slot(int block) const {
  int s = 0;
  for (int i = 0; i < block; ++i) s += blocks[i].owner == blocks[block].owner;
  return s;
}

int BlockSet::max_blocks_per_rank() const {
  std::vector<int> count(ranks, 0);
  for (const GridBlock& b : blocks) ++count[b.owner];
  return *std::max_element(count.begin(), count.end());
}

std::vector<std::array<int, 3>> GridBlock::self_offsets() const {
  std::vector<std::array<int, 3>> out;
  for (const BlockNeighbour& n : neighbours)
    if (n.block == id) out.push_back(n.offset);
  return out;
}

const BlockNeighbour* BlockSet::holder(const GridBlock& b, const std::array<int, 3>& p) const {
  for (const BlockNeighbour& n : b.neighbours) {
    const Box& box = blocks[n.block].box;
    if (box.contains(p[0] - n.offset[0], p[1] - n.offset[1], p[2] - n.offset[2])) return &n;
  }
  return nullptr;
}

void link_neighbours(BlockSet& set, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic,
                     const std::array<int, 3>& reach) {
  set.reach = reach;
  // Periodic images up to `wraps` domain lengths away can come within reach.
  std::array<int, 3> wraps{};
  for (int d = 0; d < 3; ++d) wraps[d] = periodic[d] ? (reach[d] + cells[d] - 1) / cells[d] : 0;
  for (GridBlock& a : set.blocks) {
    a.neighbours.clear();
    for (const GridBlock& b : set.blocks)
      for (int kz = -wraps[2]; kz <= wraps[2]; ++kz)
        for (int ky = -wraps[1]; ky <= wraps[1]; ++ky)
          for (int kx = -wraps[0]; kx <= wraps[0]; ++kx) {
            const int k[3] = {kx, ky, kz};
            BlockNeighbour n;
            n.block = b.id;
            bool near = true, moved = false;
            for (int d = 0; d < 3 && near; ++d) {
              n.offset[d] = k[d] * cells[d];
              moved = moved || k[d] != 0;
              const int lo = b.box.lo[d] + n.offset[d], hi = b.box.hi[d] + n.offset[d];
              if (lo >= a.box.hi[d] + reach[d] || hi <= a.box.lo[d] - reach[d]) near = false;
              n.direction[d] = hi <= a.box.lo[d] ? -1 : (lo >= a.box.hi[d] ? 1 : 0);
            }
            const bool apart = n.direction != std::array<int, 3>{0, 0, 0};
            if (near && apart && (b.id != a.id || moved)) a.neighbours.push_back(n);
          }
  }
}

}  // namespace boreas
