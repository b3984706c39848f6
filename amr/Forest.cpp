#include "amr/Forest.hpp"

#include <algorithm>
#include <string>

#include "core/Error.hpp"

namespace boreas {

namespace {

constexpr int key_bits = 20;  // per axis

std::uint64_t spread_bits(std::uint64_t v) {
  std::uint64_t out = 0;
  for (int b = 0; b < key_bits; ++b) out |= ((v >> b) & 1u) << (3 * b);
  return out;
}

}  // namespace

std::uint64_t morton_key(const std::array<int, 3>& index, int level) {
  if (level < 0 || level >= Forest::max_levels) throw Error("AMR: level " + std::to_string(level) + " outside the forest");
  const int shift = Forest::max_levels - 1 - level;
  return spread_bits(std::uint64_t(index[0]) << shift) | spread_bits(std::uint64_t(index[1]) << shift) << 1 |
         spread_bits(std::uint64_t(index[2]) << shift) << 2;
}

Forest::Forest(const std::array<int, 3>& cells, int leaf_size, const std::array<bool, 3>& periodic)
    : cells_(cells), n_(leaf_size), periodic_(periodic) {
  if (n_ < 2) throw Error("AMR leaf size must be at least 2 cells, got " + std::to_string(n_));
  for (int d = 0; d < 3; ++d) {
    const int n = d == 2 && cells_[2] == 1 ? 1 : n_;
    if (cells_[d] < 1 || cells_[d] % n != 0)
      throw Error("AMR: domain.cells[" + std::to_string(d) + "] = " + std::to_string(cells_[d]) +
                  " is not a multiple of the leaf size " + std::to_string(n_));
    if ((std::int64_t(cells_[d] / n) << (max_levels - 1)) > (std::int64_t(1) << key_bits))
      throw Error("AMR: " + std::to_string(cells_[d] / n) + " root blocks along axis " + std::to_string(d) +
                  " exceed the forest's key range (" + std::to_string((1 << key_bits) >> (max_levels - 1)) + ")");
  }
  tree_.resize(1);
  const std::array<int, 3> roots = blocks_per_axis(0);
  for (int z = 0; z < roots[2]; ++z)
    for (int y = 0; y < roots[1]; ++y)
      for (int x = 0; x < roots[0]; ++x) tree_[0][{x, y, z}] = false;
  rebuild();
}

std::array<int, 3> Forest::blocks_per_axis(int l) const {
  return {(cells_[0] / n_) << l, (cells_[1] / n_) << l, two_dimensional() ? 1 : (cells_[2] / n_) << l};
}

Box Forest::box_at(const std::array<int, 3>& index) const {
  const int nz = two_dimensional() ? 1 : n_;
  return Box{{index[0] * n_, index[1] * n_, index[2] * nz},
             {(index[0] + 1) * n_, (index[1] + 1) * n_, (index[2] + 1) * nz}};
}

std::array<int, 3> Forest::parent_index(const std::array<int, 3>& index) const {
  return {index[0] >> 1, index[1] >> 1, two_dimensional() ? 0 : index[2] >> 1};
}

long long Forest::leaves(int l) const {
  long long n = 0;
  for (const ForestBlock& b : levels_[l]) n += b.leaf();
  return n;
}

bool Forest::wrap(int l, std::array<int, 3>& index) const {
  const std::array<int, 3> extent = blocks_per_axis(l);
  for (int d = 0; d < 3; ++d) {
    if (periodic_[d]) index[d] = ((index[d] % extent[d]) + extent[d]) % extent[d];
    if (index[d] < 0 || index[d] >= extent[d]) return false;
  }
  return true;
}

int Forest::find(int l, std::array<int, 3> index) const {
  if (l < 0 || l >= levels() || !wrap(l, index)) return -1;
  const auto it = position_[l].find(index);
  return it == position_[l].end() ? -1 : it->second;
}

int Forest::leaf_level_at(int l, const std::array<int, 3>& index) const {
  std::array<int, 3> at = index;
  for (int m = l; m >= 0; --m) {
    const auto it = tree_[m].find(at);
    if (it != tree_[m].end()) return m;  // the deepest block holding it on levels <= l
    at = parent_index(at);
  }
  return -1;
}

void Forest::split(int l, const std::array<int, 3>& index) {
  if (int(tree_.size()) <= l + 1) tree_.resize(l + 2);
  tree_[l][index] = true;
  const int nz = two_dimensional() ? 1 : 2;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        tree_[l + 1][{2 * index[0] + x, 2 * index[1] + y, two_dimensional() ? 0 : 2 * index[2] + z}] = false;
}

long Forest::refine(const std::function<bool(int, const Box&)>& wanted, int max_level) {
  if (max_level >= max_levels)
    throw Error("AMR: level " + std::to_string(max_level) + " exceeds the deepest level, " +
                std::to_string(max_levels - 1));
  // Leaves that balance makes are offered to `wanted` again, until neither adds any.
  long made = 0;
  for (long round = 1; round > 0; made += round) {
    round = 0;
    for (int l = 0; l < max_level && l < int(tree_.size()); ++l) {
      std::vector<std::array<int, 3>> chosen;
      for (const auto& [index, refined] : tree_[l])
        if (!refined && wanted(l, box_at(index))) chosen.push_back(index);
      for (const auto& index : chosen) split(l, index);
      round += long(chosen.size());
    }
    round += balance();
  }
  rebuild();
  return made;
}

long Forest::balance() {
  long made = 0;
  for (bool changed = true; changed;) {
    changed = false;
    // Finest first: refining a coarse leaf can only create imbalance one level further down.
    for (int l = int(tree_.size()) - 1; l >= 2; --l) {
      std::vector<std::pair<int, std::array<int, 3>>> to_split;
      for (const auto& [index, refined] : tree_[l]) {
        if (refined) continue;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              if (two_dimensional() && dz != 0) continue;
              std::array<int, 3> p{index[0] + dx, index[1] + dy, index[2] + dz};
              if (!wrap(l, p)) continue;
              const int m = leaf_level_at(l, p);
              if (m >= l - 1) continue;
              // The leaf on level m holding p is more than one level coarser: split it.
              std::array<int, 3> at = p;
              for (int k = l; k > m; --k) at = parent_index(at);
              to_split.push_back({m, at});
            }
      }
      for (const auto& [m, at] : to_split)
        if (!tree_[m].at(at)) {
          split(m, at);
          ++made;
          changed = true;
        }
    }
  }
  return made;
}

std::vector<std::array<int, 4>> Forest::refined_blocks() const {
  std::vector<std::array<int, 4>> out;
  for (int l = 0; l < levels(); ++l)
    for (const ForestBlock& b : levels_[l])
      if (!b.leaf()) out.push_back({l, b.index[0], b.index[1], b.index[2]});
  return out;
}

Forest Forest::from_refined(const std::array<int, 3>& cells, int leaf_size, const std::array<bool, 3>& periodic,
                            const std::vector<std::array<int, 4>>& refined) {
  Forest forest(cells, leaf_size, periodic);
  for (const auto& [l, x, y, z] : refined) {
    const std::array<int, 3> index{x, y, z};
    std::array<int, 3> wrapped = index;
    const bool inside = l >= 0 && l + 1 < max_levels && forest.wrap(l, wrapped) && wrapped == index;
    const bool present = inside && l < int(forest.tree_.size()) && forest.tree_[l].count(index) > 0;
    if (!present || forest.tree_[l].at(index))
      throw Error("AMR forest: refined block (level " + std::to_string(l) + ", " + std::to_string(x) + ", " +
                  std::to_string(y) + ", " + std::to_string(z) + ") " +
                  (present ? "listed twice" : "lies outside the domain or under a leaf"));
    forest.split(l, index);
  }
  if (forest.balance() > 0) throw Error("AMR forest: the refined blocks given break the 2:1 balance");
  forest.rebuild();
  return forest;
}

void Forest::rebuild() {
  while (!tree_.empty() && tree_.back().empty()) tree_.pop_back();
  levels_.assign(tree_.size(), {});
  position_.assign(tree_.size(), {});
  for (int l = 0; l < int(tree_.size()); ++l) {
    for (const auto& [index, refined] : tree_[l]) {
      ForestBlock b;
      b.index = index;
      b.key = morton_key(index, l);
      levels_[l].push_back(b);
    }
    // Morton order, so that children of one parent are consecutive and follow the parents' order.
    std::sort(levels_[l].begin(), levels_[l].end(), [](const ForestBlock& a, const ForestBlock& b) { return a.key < b.key; });
    for (int i = 0; i < int(levels_[l].size()); ++i) position_[l][levels_[l][i].index] = i;
  }
  for (int l = 0; l < int(levels_.size()); ++l)
    for (ForestBlock& b : levels_[l]) {
      if (l > 0) {
        b.parent = position_[l - 1].at(parent_index(b.index));
      }
      if (tree_[l].at(b.index)) b.first_child = position_[l + 1].at({2 * b.index[0], 2 * b.index[1], 2 * b.index[2]});
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            b.neighbours[(dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)] =
                find(l, {b.index[0] + dx, b.index[1] + dy, b.index[2] + dz});
    }
}

}  // namespace boreas
