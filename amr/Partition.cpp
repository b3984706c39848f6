#include "amr/Partition.hpp"

#include <algorithm>
#include <cmath>

namespace boreas {

ForestPartition partition_forest(const Forest& forest, int ranks) {
  ForestPartition p;
  p.ranks = ranks;
  p.owner.resize(forest.levels());
  for (int l = 0; l < forest.levels(); ++l) {
    const auto& blocks = forest.level(l);
    p.owner[l].assign(blocks.size(), -1);
    const long long n = forest.leaves(l);
    long long k = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].leaf()) p.owner[l][b] = int(k++ * ranks / n);
  }
  // Finest first: a refined block's first child is settled before it.
  for (int l = forest.levels() - 2; l >= 0; --l)
    for (std::size_t b = 0; b < forest.level(l).size(); ++b)
      if (!forest.level(l)[b].leaf()) p.owner[l][b] = p.owner[l + 1][forest.level(l)[b].first_child];
  return p;
}

std::vector<double> ForestPartition::level_imbalance(const Forest& forest) const {
  std::vector<double> out;
  for (int l = 0; l < forest.levels(); ++l) {
    std::vector<long long> held(ranks, 0);
    for (std::size_t b = 0; b < forest.level(l).size(); ++b)
      if (forest.level(l)[b].leaf()) ++held[owner[l][b]];
    const double mean = double(forest.leaves(l)) / ranks;
    out.push_back(mean > 0 ? double(*std::max_element(held.begin(), held.end())) / mean : 1.0);
  }
  return out;
}

double ForestPartition::weighted_imbalance(const Forest& forest) const {
  std::vector<double> work(ranks, 0);
  double total = 0;
  for (int l = 0; l < forest.levels(); ++l)
    for (std::size_t b = 0; b < forest.level(l).size(); ++b)
      if (forest.level(l)[b].leaf()) {
        work[owner[l][b]] += std::ldexp(1.0, l);
        total += std::ldexp(1.0, l);
      }
  return total > 0 ? *std::max_element(work.begin(), work.end()) / (total / ranks) : 1.0;
}

}  // namespace boreas
