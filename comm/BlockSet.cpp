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

void link_neighbours(BlockSet& set, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic) {
  for (GridBlock& a : set.blocks) {
    a.neighbours.clear();
    for (const GridBlock& b : set.blocks)
      for (int kz = -1; kz <= 1; ++kz)
        for (int ky = -1; ky <= 1; ++ky)
          for (int kx = -1; kx <= 1; ++kx) {
            const int k[3] = {kx, ky, kz};
            BlockNeighbour n;
            n.block = b.id;
            bool touches = true, moved = false;
            for (int d = 0; d < 3 && touches; ++d) {
              // Axes one cell long carry no links between blocks; only periodic axes wrap.
              if (k[d] != 0 && (!periodic[d] || cells[d] == 1)) touches = false;
              n.offset[d] = k[d] * cells[d];
              moved = moved || k[d] != 0;
              const int lo = b.box.lo[d] + n.offset[d], hi = b.box.hi[d] + n.offset[d];
              if (lo > a.box.hi[d] || hi < a.box.lo[d]) touches = false;
              n.direction[d] = hi <= a.box.lo[d] ? -1 : (lo >= a.box.hi[d] ? 1 : 0);
              if (cells[d] == 1) n.direction[d] = 0;
            }
            const bool contact = n.direction != std::array<int, 3>{0, 0, 0};
            if (touches && contact && (b.id != a.id || moved)) a.neighbours.push_back(n);
          }
  }
}

}  // namespace boreas
