#include "comm/CellRing.hpp"

#include <mpi.h>

#include <limits>
#include <map>

namespace boreas {

namespace {

Box grow(const Box& b, const std::array<int, 3>& cells) {
  Box g = b;
  for (int d = 0; d < 3; ++d)
    if (cells[d] > 1) --g.lo[d], ++g.hi[d];
  return g;
}

long local_index(const Box& b, int x, int y, int z) {
  return (static_cast<long>(z - b.lo[2]) * b.extent(1) + (y - b.lo[1])) * b.extent(0) + (x - b.lo[0]);
}

// Calls visit(position in `grown`, wrapped position) for every ring cell of `box` inside the
// domain, z slowest, x fastest.
template <class Visit>
void for_each_ring_cell(const Box& box, const Box& grown, const std::array<int, 3>& cells,
                        const std::array<bool, 3>& periodic, const Visit& visit) {
  for (int z = grown.lo[2]; z < grown.hi[2]; ++z)
    for (int y = grown.lo[1]; y < grown.hi[1]; ++y)
      for (int x = grown.lo[0]; x < grown.hi[0]; ++x) {
        if (box.contains(x, y, z)) continue;
        std::array<int, 3> w{x, y, z};
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          if (periodic[d]) w[d] = (w[d] % cells[d] + cells[d]) % cells[d];
          inside = inside && w[d] >= 0 && w[d] < cells[d];
        }
        if (inside) visit(std::array<int, 3>{x, y, z}, w);
      }
}

// Whether `b` meets `a` or one of its periodic images.
bool meets(const Box& a, const Box& b, const std::array<int, 3>& cells, const std::array<bool, 3>& periodic) {
  for (int d = 0; d < 3; ++d) {
    bool any = false;
    for (int k = -1; k <= 1; ++k) {
      if (k != 0 && !periodic[d]) continue;
      if (a.lo[d] + k * cells[d] < b.hi[d] && b.lo[d] < a.hi[d] + k * cells[d]) any = true;
    }
    if (!any) return false;
  }
  return true;
}

}  // namespace

CellRing::CellRing(const std::vector<Box>& boxes, int rank, const std::array<int, 3>& cells,
                   const std::array<bool, 3>& periodic)
    : box_(boxes[rank]), grown_(grow(boxes[rank], cells)) {
  std::map<int, Peer> peers;
  std::vector<int> near;  // ranks whose boxes meet this ring, or whose rings meet this box
  for (std::size_t r = 0; r < boxes.size(); ++r)
    if (meets(grown_, boxes[r], cells, periodic)) near.push_back(int(r));
  auto owner_of = [&](const std::array<int, 3>& w) {
    for (int r : near)
      if (boxes[r].contains(w[0], w[1], w[2])) return r;
    return -1;
  };
  for_each_ring_cell(box_, grown_, cells, periodic, [&](const auto& p, const auto& w) {
    const int owner = owner_of(w);
    const long at = local_index(grown_, p[0], p[1], p[2]);
    if (owner == rank) {
      self_from.push_back(local_index(box_, w[0], w[1], w[2]));
      self_to.push_back(at);
    } else {
      peers[owner].recv.push_back(at);
    }
  });
  for (int r : near) {  // meeting is symmetric for rings of one cell
    if (r == rank) continue;
    for_each_ring_cell(boxes[r], grow(boxes[r], cells), cells, periodic, [&](const auto&, const auto& w) {
      if (box_.contains(w[0], w[1], w[2])) peers[r].send.push_back(local_index(box_, w[0], w[1], w[2]));
    });
  }
  for (auto& [r, p] : peers) {
    p.rank = r;
    peers_.push_back(std::move(p));
  }
}

std::vector<double> CellRing::gather(Comm& comm, const std::vector<double>& owned, int components) const {
  const int k = components;
  std::vector<double> out(static_cast<std::size_t>(grown_.cells()) * k, std::numeric_limits<double>::quiet_NaN());
  for (int z = box_.lo[2]; z < box_.hi[2]; ++z)
    for (int y = box_.lo[1]; y < box_.hi[1]; ++y)
      for (int x = box_.lo[0]; x < box_.hi[0]; ++x)
        for (int c = 0; c < k; ++c)
          out[local_index(grown_, x, y, z) * k + c] = owned[local_index(box_, x, y, z) * k + c];
  for (std::size_t i = 0; i < self_from.size(); ++i)
    for (int c = 0; c < k; ++c) out[self_to[i] * k + c] = owned[self_from[i] * k + c];

  constexpr int tag = 1 << 14;  // apart from the halo tags (groups 0-5)
  std::vector<std::vector<double>> send(peers_.size()), recv(peers_.size());
  std::vector<MPI_Request> requests;
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    recv[i].resize(peers_[i].recv.size() * k);
    if (!recv[i].empty())
      requests.push_back(comm.irecv(recv[i].data(), long(recv[i].size() * sizeof(double)), peers_[i].rank, tag));
  }
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    for (long cell : peers_[i].send)
      for (int c = 0; c < k; ++c) send[i].push_back(owned[cell * k + c]);
    if (!send[i].empty())
      requests.push_back(comm.isend(send[i].data(), long(send[i].size() * sizeof(double)), peers_[i].rank, tag));
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t i = 0; i < peers_.size(); ++i)
    for (std::size_t j = 0; j < peers_[i].recv.size(); ++j)
      for (int c = 0; c < k; ++c) out[peers_[i].recv[j] * k + c] = recv[i][j * k + c];
  return out;
}

}  // namespace boreas
