#pragma once
// The leaves of a forest shared among ranks along the space-filling curve (seed 000, CityLBM).
// Subcycling steps one level at a time (amr/AmrLattice.hpp), so each level is balanced on its own:
// its leaves, in Morton order (the forest's level arrays), are cut into `ranks` contiguous runs
// whose lengths differ by at most one. A level-l leaf is stepped 2^l times per level-0 step, its
// weight in the total. A refined block belongs to the rank of its first child, down to a leaf.
#include <vector>

#include "amr/Forest.hpp"

namespace boreas {

struct ForestPartition {
  int ranks = 1;
  std::vector<std::vector<int>> owner;  // per level, per block: its rank

  // Per level: the most leaves a rank holds over the mean (1 when balanced; levels without leaves 1).
  std::vector<double> level_imbalance(const Forest& forest) const;
  // The same for the work of a level-0 step: leaves weighted by 2^level.
  double weighted_imbalance(const Forest& forest) const;
};

ForestPartition partition_forest(const Forest& forest, int ranks);

}  // namespace boreas
