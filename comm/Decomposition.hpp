#pragma once
// How the global box of cells is cut into blocks and the blocks dealt to ranks (a block set,
// comm/BlockSet.hpp), `parallel.blocks_per_rank` blocks per rank:
//  - Cartesian (seed 001): a px x py x pz grid of near-equal blocks. Chosen automatically to
//    minimise the halo bytes a block sends, with x-faces counted twice because x is the unit-stride
//    axis: an x-face is a strided gather of one value per row (seed 001: "do not split the
//    contiguous index"); or given by the deck ([parallel] dims).
//  - Recursive bisection by fluid-cell count (seed 002): blocks balanced for obstacle-heavy decks.
// Rank r owns the blocks r b .. r b + b - 1 of the grid's x-fastest order (or of the bisection's
// depth-first order), neighbours in space. Every rank computes the same set from the deck alone;
// nothing is communicated.
#include <array>
#include <string>
#include <vector>

#include "comm/BlockSet.hpp"
#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

// Block grid of `blocks` blocks over `cells` (2D decks: pz = 1), minimising the weighted halo
// surface; ties go to the grid that leaves x least split.
std::array<int, 3> cartesian_dims(const std::array<int, 3>& cells, int blocks, int dimensions);

// `dims` blocks, `blocks_per_rank` consecutive ones per rank, neighbours within `reach` cells per
// axis linked (link_neighbours).
BlockSet cartesian(const DomainGeometry& domain, const std::array<int, 3>& dims, int blocks_per_rank = 1,
                   const std::array<int, 3>& reach = {1, 1, 1});
BlockSet bisection(const DomainGeometry& domain, int ranks, int dimensions, int blocks_per_rank = 1,
                   const std::array<int, 3>& reach = {1, 1, 1});

// The block set a deck asks for on `ranks` ranks, neighbours within `ghost_width` cells (the
// blocks' ghost layers; none along z for 2D lattices) linked; throws Error when it cannot be made (dims whose product is not the block
// count, more blocks than cells along an axis).
BlockSet decompose(const Config& config, const DomainGeometry& domain, int ranks, int ghost_width);

}  // namespace boreas
