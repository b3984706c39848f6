#pragma once
// The cells one layer around a rank's box, as a centred difference at the box's edge reads them
// (vorticity in the output): the box grown by one cell along every axis the domain extends along,
// filled with the owned values and, in the ring, the values of the cells there (periodic axes
// wrapped) gathered from their owners. Host data, exchanged at output time only; plans are built
// once. Sender and receiver enumerate the receiver's ring in the same order, so no index lists
// travel.
#include <array>
#include <vector>

#include "comm/Mpi.hpp"
#include "core/Types.hpp"

namespace boreas {

class CellRing {
 public:
  CellRing(const std::vector<Box>& boxes, int rank, const std::array<int, 3>& cells,
           const std::array<bool, 3>& periodic);

  // The box grown by the ring (global coordinates, not wrapped).
  const Box& grown() const { return grown_; }

  // `owned` holds `components` values per owned cell, x fastest. Returns the grown box's values,
  // x fastest; ring cells outside the domain are NaN. Collective over `comm`'s ranks.
  std::vector<double> gather(Comm& comm, const std::vector<double>& owned, int components) const;

 private:
  struct Peer {
    int rank = 0;
    std::vector<long> send;  // owned-cell indices of this box, in the peer's ring order
    std::vector<long> recv;  // grown-box indices of this ring owned by the peer, in ring order
  };
  Box box_, grown_;
  std::vector<Peer> peers_;
  std::vector<long> self_from, self_to;  // ring cells this box owns itself (periodic images)
};

}  // namespace boreas
