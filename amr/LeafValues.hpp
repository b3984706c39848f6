#pragma once
// Per-cell values kept on a forest's leaves (time averages: AmrSolver::statistics_state) carried to
// another forest over the same roots, as a regrid carries the state: host code, no floating-point
// arithmetic but copies and means.
#include <vector>

#include "amr/Forest.hpp"

namespace boreas {

// `values`: per leaf of `from` (level by level in forest order), per interior cell (x fastest),
// `per_cell` values. Returns the same for the leaves of `to`: a cell inside a leaf of its own or a
// coarser level of `from` takes that leaf cell's values, a cell over finer leaves the mean of its
// 2^D sub-cells (recursively). Means of a region are kept: the volume-weighted sum of each value
// over the domain is the same on both forests (to rounding).
std::vector<double> transfer_leaf_values(const Forest& from, const std::vector<double>& values, const Forest& to,
                                         int per_cell);

}  // namespace boreas
