#include "amr/LeafValues.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace boreas {

namespace {

class LeafValues {
 public:
  LeafValues(const Forest& forest, const std::vector<double>& values, int per_cell)
      : forest_(forest), values_(values), per_cell_(per_cell), n_(forest.leaf_size()),
        interior_(long(n_) * n_ * (forest.two_dimensional() ? 1 : n_)) {
    long at = 0;
    start_.resize(forest.levels());
    for (int l = 0; l < forest.levels(); ++l)
      for (const ForestBlock& b : forest.level(l)) {
        start_[l].push_back(b.leaf() ? at : -1);
        at += b.leaf() ? interior_ * per_cell : 0;
      }
    if (at != long(values.size()))
      throw std::logic_error("transfer_leaf_values: " + std::to_string(values.size()) + " values for " +
                             std::to_string(at) + " of the forest's leaf cells");
  }

  // Adds the values of level-l cell c (in that level's cell coordinates) times `weight` to out.
  void add(int l, const std::array<int, 3>& c, double weight, double* out) const {
    for (int lo = std::min(l, forest_.levels() - 1); lo >= 0; --lo) {
      const int shift = l - lo;
      std::array<int, 3> cell = c, index{};
      for (int d = 0; d < 3; ++d) {
        if (d < 2 || !forest_.two_dimensional()) cell[d] = c[d] >> shift;
        index[d] = cell[d] / n_;
      }
      const int b = forest_.find(lo, index);
      if (b < 0) continue;
      if (forest_.level(lo)[b].leaf()) {
        const long i = (cell[0] - index[0] * n_) + n_ * ((cell[1] - index[1] * n_) + long(n_) * (cell[2] - index[2] * n_));
        const double* v = values_.data() + start_[lo][b] + i * per_cell_;
        for (int k = 0; k < per_cell_; ++k) out[k] += weight * v[k];
        return;
      }
      // Refined on this very level: the mean of the sub-cells one level finer.
      const int nz = forest_.two_dimensional() ? 1 : 2;
      const double part = weight / (4 * nz);
      for (int oz = 0; oz < nz; ++oz)
        for (int oy = 0; oy < 2; ++oy)
          for (int ox = 0; ox < 2; ++ox)
            add(l + 1, {2 * c[0] + ox, 2 * c[1] + oy, forest_.two_dimensional() ? c[2] : 2 * c[2] + oz}, part, out);
      return;
    }
    throw std::logic_error("transfer_leaf_values: a cell outside the forest");
  }

 private:
  const Forest& forest_;
  const std::vector<double>& values_;
  int per_cell_, n_;
  long interior_;
  std::vector<std::vector<long>> start_;  // per level and block: its first value; -1 if refined
};

}  // namespace

std::vector<double> transfer_leaf_values(const Forest& from, const std::vector<double>& values, const Forest& to,
                                         int per_cell) {
  const LeafValues old(from, values, per_cell);
  const int n = to.leaf_size(), nz = to.two_dimensional() ? 1 : n;
  std::vector<double> out;
  for (int l = 0; l < to.levels(); ++l)
    for (const ForestBlock& b : to.level(l)) {
      if (!b.leaf()) continue;
      const Box box = to.box(b);
      for (int z = 0; z < nz; ++z)
        for (int y = 0; y < n; ++y)
          for (int x = 0; x < n; ++x) {
            out.resize(out.size() + per_cell, 0.0);
            old.add(l, {box.lo[0] + x, box.lo[1] + y, box.lo[2] + z}, 1.0, out.data() + out.size() - per_cell);
          }
    }
  return out;
}

std::vector<double> gather_leaf_values(const Forest& forest, const ForestPartition& partition, const Comm& comm,
                                       const std::vector<std::vector<double>>& owned, long per_leaf) {
  std::vector<double> mine;  // level by level
  for (const std::vector<double>& level : owned) mine.insert(mine.end(), level.begin(), level.end());
  const std::vector<double> all = comm.allgather(mine);
  // Rank by rank, level by level: each leaf to its place in the forest's order of leaves.
  std::vector<std::vector<long>> place(forest.levels());
  long leaves = 0;
  for (int l = 0; l < forest.levels(); ++l) {
    place[l].assign(forest.level(l).size(), -1);
    for (int b = 0; b < int(forest.level(l).size()); ++b)
      if (forest.level(l)[b].leaf()) place[l][b] = leaves++;
  }
  if (all.size() != std::size_t(leaves * per_leaf))
    throw std::logic_error("gather_leaf_values: " + std::to_string(all.size()) + " values for " +
                           std::to_string(leaves) + " leaves of " + std::to_string(per_leaf));
  std::vector<double> out(all.size());
  auto at = all.begin();
  for (int r = 0; r < comm.size(); ++r)
    for (int l = 0; l < forest.levels(); ++l)
      for (int b = 0; b < int(forest.level(l).size()); ++b)
        if (place[l][b] >= 0 && partition.owner[l][b] == r) {
          std::copy_n(at, per_leaf, out.begin() + place[l][b] * per_leaf);
          at += per_leaf;
        }
  return out;
}

std::vector<std::vector<double>> owned_leaf_values(const Forest& forest, const ForestPartition& partition, int rank,
                                                   const std::vector<double>& all, long per_leaf) {
  std::vector<std::vector<double>> out(forest.levels());
  std::size_t at = 0;
  for (int l = 0; l < forest.levels(); ++l)
    for (int b = 0; b < int(forest.level(l).size()); ++b) {
      if (!forest.level(l)[b].leaf()) continue;
      if (at + per_leaf > all.size())
        throw std::logic_error("owned_leaf_values: " + std::to_string(all.size()) + " values for more leaves");
      if (partition.owner[l][b] == rank) out[l].insert(out[l].end(), all.begin() + at, all.begin() + at + per_leaf);
      at += per_leaf;
    }
  if (at != all.size())
    throw std::logic_error("owned_leaf_values: " + std::to_string(all.size()) + " values for " + std::to_string(at));
  return out;
}

}  // namespace boreas
