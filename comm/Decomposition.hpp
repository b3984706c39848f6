#pragma once
// How the global box of cells is cut into one box per rank.
//  - Cartesian (seed 001): a px x py x pz grid of near-equal boxes. Chosen automatically to
//    minimise the halo bytes a rank sends, with x-faces counted twice because x is the unit-stride
//    axis: an x-face is a strided gather of one value per row (seed 001: "do not split the
//    contiguous index"); or given by the deck ([parallel] dims).
//  - Recursive bisection by fluid-cell count (seed 002): boxes balanced for obstacle-heavy decks.
// Every rank computes the same decomposition from the deck alone; nothing is communicated.
#include <array>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/Geometry.hpp"

namespace boreas {

struct Decomposition {
  std::string method;                 // "cartesian" or "bisection"
  std::array<int, 3> dims{1, 1, 1};   // process grid (Cartesian only)
  std::vector<Box> boxes;             // owned box per rank, global cell coordinates
  std::vector<long long> fluid_cells; // fluid cells per rank

  int ranks() const { return static_cast<int>(boxes.size()); }
  // Load imbalance: max / mean fluid cells (1 = perfect).
  double imbalance() const;
};

// Process grid for `ranks` ranks over `cells` (2D decks: pz = 1), minimising the weighted halo
// surface; ties go to the grid that leaves x least split.
std::array<int, 3> cartesian_dims(const std::array<int, 3>& cells, int ranks, int dimensions);

Decomposition cartesian(const DomainGeometry& domain, const std::array<int, 3>& dims);
Decomposition bisection(const DomainGeometry& domain, int ranks, int dimensions);

// The decomposition a deck asks for on `ranks` ranks; throws Error when it cannot be made
// (dims whose product is not the rank count, more ranks than cells along an axis).
Decomposition decompose(const Config& config, const DomainGeometry& domain, int ranks);

}  // namespace boreas
