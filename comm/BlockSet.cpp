#include "comm/BlockSet.hpp"

#include <algorithm>
#include <tuple>

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
  // Blocks binned by their lower corner on a grid as coarse as the largest block: a block within
  // reach of box a (under image shift o) has its lower corner in [a.lo - reach - largest + 1 - o,
  // a.hi + reach - 1 - o] along each axis, so only the bins there are visited (every pair was, on
  // every rank at start-up: 16,384 walled blocks took 0.78 s, now 0.01 s; it grew quadratically).
  std::array<int, 3> bin{1, 1, 1}, bins{};
  for (const GridBlock& b : set.blocks)
    for (int d = 0; d < 3; ++d) bin[d] = std::max(bin[d], b.box.hi[d] - b.box.lo[d]);
  for (int d = 0; d < 3; ++d) bins[d] = (cells[d] + bin[d] - 1) / bin[d];
  std::vector<std::vector<int>> members(std::size_t(bins[0]) * bins[1] * bins[2]);
  const auto bin_of = [&](const std::array<int, 3>& c) { return (std::size_t(c[2]) * bins[1] + c[1]) * bins[0] + c[0]; };
  for (const GridBlock& b : set.blocks)
    members[bin_of({b.box.lo[0] / bin[0], b.box.lo[1] / bin[1], b.box.lo[2] / bin[2]})].push_back(b.id);
  for (GridBlock& a : set.blocks) {
    a.neighbours.clear();
    for (int kz = -wraps[2]; kz <= wraps[2]; ++kz)
      for (int ky = -wraps[1]; ky <= wraps[1]; ++ky)
        for (int kx = -wraps[0]; kx <= wraps[0]; ++kx) {
          const int k[3] = {kx, ky, kz};
          std::array<int, 3> first{}, last{};
          bool any = true;
          for (int d = 0; d < 3; ++d) {
            const int o = k[d] * cells[d];
            const int lo = std::max(0, a.box.lo[d] - reach[d] - bin[d] + 1 - o);
            const int hi = std::min(cells[d] - 1, a.box.hi[d] + reach[d] - 1 - o);
            any = any && lo <= hi;
            first[d] = lo / bin[d];
            last[d] = hi / bin[d];
          }
          if (!any) continue;
          for (int z = first[2]; z <= last[2]; ++z)
            for (int y = first[1]; y <= last[1]; ++y)
              for (int x = first[0]; x <= last[0]; ++x)
                for (int id : members[bin_of({x, y, z})]) {
                  const GridBlock& b = set.blocks[id];
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
    // The order the tables promise (BlockSet.hpp): by block, then by offset z, y, x.
    std::sort(a.neighbours.begin(), a.neighbours.end(), [](const BlockNeighbour& l, const BlockNeighbour& r) {
      return std::tie(l.block, l.offset[2], l.offset[1], l.offset[0]) < std::tie(r.block, r.offset[2], r.offset[1], r.offset[0]);
    });
  }
}

}  // namespace boreas
