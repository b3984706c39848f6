#pragma once
// Per-cell values kept on a forest's leaves (time averages: AmrSolver::statistics_state; the
// convergence monitor's last velocity) carried to another forest over the same roots, as a regrid
// carries the state, and gathered from the ranks that own the leaves: host code, no floating-point
// arithmetic but copies and means.
#include <vector>

#include "amr/Forest.hpp"
#include "amr/Partition.hpp"
#include "comm/Mpi.hpp"

namespace boreas {

// `values`: per leaf of `from` (level by level in forest order), per interior cell (x fastest),
// `per_cell` values. Returns the same for the leaves of `to`: a cell inside a leaf of its own or a
// coarser level of `from` takes that leaf cell's values, a cell over finer leaves the mean of its
// 2^D sub-cells (recursively). Means of a region are kept: the volume-weighted sum of each value
// over the domain is the same on both forests (to rounding).
std::vector<double> transfer_leaf_values(const Forest& from, const std::vector<double>& values, const Forest& to,
                                         int per_cell);

// Every leaf's values from the ranks that own them: `owned` holds per level the values of the
// leaves `partition` gives this rank, in forest order, `per_leaf` each. Returns every leaf's, level
// by level in forest order (transfer_leaf_values' layout), on every rank (collective).
std::vector<double> gather_leaf_values(const Forest& forest, const ForestPartition& partition, const Comm& comm,
                                       const std::vector<std::vector<double>>& owned, long per_leaf);
// The inverse: per level the values of rank `rank`'s leaves among every leaf's.
std::vector<std::vector<double>> owned_leaf_values(const Forest& forest, const ForestPartition& partition, int rank,
                                                   const std::vector<double>& all, long per_leaf);

}  // namespace boreas
