// The partition of a forest's leaves among ranks (amr/Partition.hpp): on every level the leaves
// go to ranks in Morton key order, in runs whose lengths differ by at most one; refined blocks
// belong to their first leaf descendant's rank; the imbalance figures are the ratios they claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "amr/Partition.hpp"

namespace boreas {
namespace {

Forest refined_forest() {
  Forest f({32, 32, 16}, 4, {true, false, false});
  f.refine(
      [](int l, const Box& b) {
        const double s = std::ldexp(1.0, -l);
        return b.lo[0] * s < 12 && b.lo[1] * s < 12 && b.lo[2] * s < 8;  // a corner, refined to level 3
      },
      3);
  return f;
}

TEST(Partition, EachLevelsLeavesInKeyOrderAndBalanced) {
  const Forest f = refined_forest();
  ASSERT_EQ(f.levels(), 4);
  for (int ranks : {1, 2, 3, 5, 8}) {
    const ForestPartition p = partition_forest(f, ranks);
    for (int l = 0; l < f.levels(); ++l) {
      std::vector<std::pair<std::uint64_t, int>> by_key;
      std::vector<long long> held(ranks, 0);
      for (std::size_t b = 0; b < f.level(l).size(); ++b)
        if (f.level(l)[b].leaf()) {
          by_key.push_back({f.level(l)[b].key, p.owner[l][b]});
          ++held[p.owner[l][b]];
        }
      std::sort(by_key.begin(), by_key.end());
      for (std::size_t k = 1; k < by_key.size(); ++k) EXPECT_LE(by_key[k - 1].second, by_key[k].second);
      const auto [lo, hi] = std::minmax_element(held.begin(), held.end());
      EXPECT_LE(*hi - *lo, 1) << "level " << l << ", " << ranks << " ranks";
      const double mean = double(f.leaves(l)) / ranks;
      EXPECT_DOUBLE_EQ(p.level_imbalance(f)[l], f.leaves(l) > 0 ? double(*hi) / mean : 1.0);
    }
    // Refined blocks: the rank of the first leaf reached through first children.
    for (int l = 0; l < f.levels(); ++l)
      for (std::size_t b = 0; b < f.level(l).size(); ++b) {
        int level = l, block = int(b);
        while (!f.level(level)[block].leaf()) block = f.level(level++)[block].first_child;
        EXPECT_EQ(p.owner[l][b], p.owner[level][block]);
      }
    // Work of a level-0 step: 2^l per level-l leaf.
    std::vector<double> work(ranks, 0);
    double total = 0;
    for (int l = 0; l < f.levels(); ++l)
      for (std::size_t b = 0; b < f.level(l).size(); ++b)
        if (f.level(l)[b].leaf()) {
          work[p.owner[l][b]] += std::ldexp(1.0, l);
          total += std::ldexp(1.0, l);
        }
    EXPECT_DOUBLE_EQ(p.weighted_imbalance(f), *std::max_element(work.begin(), work.end()) * ranks / total);
    if (ranks == 1) EXPECT_EQ(p.weighted_imbalance(f), 1.0);
  }
}

}  // namespace
}  // namespace boreas
