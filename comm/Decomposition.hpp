#pragma once
// How the global box of cells is cut into blocks and the blocks dealt to ranks (a block set,
// comm/BlockSet.hpp), `parallel.blocks_per_rank` blocks per rank:
//  - Cartesian (seed 001): a px x py x pz grid of near-equal blocks. Chosen automatically to
//    minimise the halo bytes a block sends, with x-faces counted twice because x is the unit-stride
//    axis: an x-face is a strided gather of one value per row (seed 001: "do not split the
//    contiguous index"); or given by the deck ([parallel] dims).
//  - Recursive bisection by fluid-cell count (seed 002): blocks balanced for obstacle-heavy decks.
// Rank r owns the blocks r b .. r b + b - 1 of the grid's x-fastest order (or of the bisection's
// depth-first order), neighbours in space. Every rank computes the same set from the deck; the
// fluid counts come from a FluidCounter (a whole geometry, or each rank's slab of a voxel file's
// planes summed over the ranks: comm/VoxelInput.hpp).
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "comm/BlockSet.hpp"
#include "core/Config.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

// Fluid cells of boxes and of their slices, counted from a geometry that holds every cell
// (implicit from a DomainGeometry) or from slabs: each rank's geometry knows the planes [lo, hi)
// along `axis`, counts there, and the counts are summed over `comm` (then every call is
// collective, with the same boxes on every rank, as the decompositions make them).
class FluidCounter {
 public:
  FluidCounter(const DomainGeometry& domain) : domain_(domain) {}  // NOLINT: implicit on purpose
  FluidCounter(const DomainGeometry& slab, MPI_Comm comm, int axis, int lo, int hi)
      : domain_(slab), comm_(comm), axis_(axis), lo_(lo), hi_(hi) {}
  const DomainGeometry& domain() const { return domain_; }
  std::vector<long long> slices(const Box& b, int axis) const;   // per slice of b along `axis`
  std::vector<long long> cells(const std::vector<Box>& boxes) const;  // per box

 private:
  std::vector<long long> local_slices(const Box& b, int axis) const;  // this rank's planes only
  std::vector<long long> summed(std::vector<long long> local) const;
  const DomainGeometry& domain_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int axis_ = 2, lo_ = 0, hi_ = 0;
};

// Block grid of `blocks` blocks over `cells` (2D decks: pz = 1), minimising the weighted halo
// surface; ties go to the grid that leaves x least split.
std::array<int, 3> cartesian_dims(const std::array<int, 3>& cells, int blocks, int dimensions);

// `dims` blocks, `blocks_per_rank` consecutive ones per rank, neighbours within `reach` cells per
// axis linked (link_neighbours).
BlockSet cartesian(const FluidCounter& fluid, const std::array<int, 3>& dims, int blocks_per_rank = 1,
                   const std::array<int, 3>& reach = {1, 1, 1});
BlockSet bisection(const FluidCounter& fluid, int ranks, int dimensions, int blocks_per_rank = 1,
                   const std::array<int, 3>& reach = {1, 1, 1});

// The block set a deck asks for on `ranks` ranks, neighbours within `ghost_width` cells (the
// blocks' ghost layers; none along z for 2D lattices) linked; throws Error when it cannot be made (dims whose product is not the block
// count, more blocks than cells along an axis).
BlockSet decompose(const Config& config, const FluidCounter& fluid, int ranks, int ghost_width);

}  // namespace boreas
