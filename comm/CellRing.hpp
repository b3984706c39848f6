#pragma once
// The cells one layer around each block of a rank, as a centred difference at a block's edge reads
// them (vorticity in the output): every block's box grown by one cell along every axis the domain
// extends along, filled with the block's values and, in the ring, the values of the cells there
// (periodic axes wrapped through the block set's neighbour table) from the blocks holding them, on this rank (copies) or others (one
// message per peer rank). Host data, exchanged at output time only; plans are built once. Sender
// and receiver enumerate the receiving blocks' rings in the same order, so no index lists travel.
#include <array>
#include <vector>

#include "comm/BlockSet.hpp"
#include "comm/Mpi.hpp"
#include "core/Types.hpp"

namespace boreas {

class CellRing {
 public:
  // `cells`: the domain's extent (the ring grows along every axis longer than one cell).
  CellRing(const BlockSet& set, int rank, const std::array<int, 3>& cells);

  // The rank's blocks' boxes grown by the ring (global coordinates, not wrapped), in slot order.
  const std::vector<Box>& grown() const { return grown_; }

  // `owned[s]` holds `components` values per cell of the rank's block s, x fastest. Returns each
  // block's grown box's values, x fastest; ring cells outside the domain are NaN. Collective over
  // `comm`'s ranks.
  std::vector<std::vector<double>> gather(Comm& comm, const std::vector<std::vector<double>>& owned,
                                          int components) const;

 private:
  struct Cell {
    int slot;
    long index;
  };
  struct Peer {
    int rank = 0;
    std::vector<Cell> send;  // owned cells of this rank's blocks, in the peer's ring order
    std::vector<Cell> recv;  // grown-box cells of this rank's rings the peer holds, in ring order
  };
  std::vector<Box> boxes_, grown_;  // per slot
  std::vector<Peer> peers_;
  std::vector<Cell> self_from_, self_to_;  // ring cells held by blocks of this rank
};

}  // namespace boreas
