#include "comm/CellRing.hpp"

#include <mpi.h>

#include <limits>
#include <map>
#include <set>

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

}  // namespace

// Every ring cell inside the domain counts, solid ones too (the ring carries what the blocks hold).
CellRing::CellRing(const BlockSet& set, int rank, const std::array<int, 3>& cells) {
  const std::vector<int> mine = set.owned_by(rank);
  std::vector<int> slot_of(set.size(), -1);
  for (std::size_t s = 0; s < mine.size(); ++s) {
    slot_of[mine[s]] = int(s);
    boxes_.push_back(set.blocks[mine[s]].box);
    grown_.push_back(grow(boxes_.back(), cells));
  }
  std::map<int, Peer> peers;
  for (std::size_t s = 0; s < mine.size(); ++s) {
    for_each_cell_around(set, set.blocks[mine[s]], grown_[s], [&](const auto& p, const BlockNeighbour& n, const auto& w) {
      const int b = n.block;
      const Cell to{int(s), local_index(grown_[s], p[0], p[1], p[2])};
      const GridBlock& from = set.blocks[b];
      if (from.owner == rank) {
        self_from_.push_back({slot_of[b], local_index(from.box, w[0], w[1], w[2])});
        self_to_.push_back(to);
      } else {
        peers[from.owner].recv.push_back(to);
      }
    });
  }
  // What this rank's blocks hold of other ranks' rings, block by block in id order: only blocks in
  // this rank's blocks' neighbour tables can need any (the tables are symmetric).
  std::set<int> near;
  for (int id : mine)
    for (const BlockNeighbour& n : set.blocks[id].neighbours) near.insert(n.block);
  for (int id : near) {
    const GridBlock& other = set.blocks[id];
    if (other.owner == rank) continue;
    for_each_cell_around(set, other, grow(other.box, cells), [&](const auto&, const BlockNeighbour& n, const auto& w) {
      const int b = n.block;
      if (set.blocks[b].owner == rank)
        peers[other.owner].send.push_back({slot_of[b], local_index(set.blocks[b].box, w[0], w[1], w[2])});
    });
  }
  for (auto& [r, p] : peers) {
    p.rank = r;
    peers_.push_back(std::move(p));
  }
}

std::vector<std::vector<double>> CellRing::gather(Comm& comm, const std::vector<std::vector<double>>& owned,
                                                  int components) const {
  const int k = components;
  std::vector<std::vector<double>> out;
  for (std::size_t s = 0; s < boxes_.size(); ++s) {
    const Box& box = boxes_[s];
    out.emplace_back(static_cast<std::size_t>(grown_[s].cells()) * k, std::numeric_limits<double>::quiet_NaN());
    for (int z = box.lo[2]; z < box.hi[2]; ++z)
      for (int y = box.lo[1]; y < box.hi[1]; ++y)
        for (int x = box.lo[0]; x < box.hi[0]; ++x)
          for (int c = 0; c < k; ++c)
            out[s][local_index(grown_[s], x, y, z) * k + c] = owned[s][local_index(box, x, y, z) * k + c];
  }
  for (std::size_t i = 0; i < self_from_.size(); ++i)
    for (int c = 0; c < k; ++c)
      out[self_to_[i].slot][self_to_[i].index * k + c] = owned[self_from_[i].slot][self_from_[i].index * k + c];

  constexpr int tag = 1 << 14;  // apart from the halo tags
  std::vector<std::vector<double>> send(peers_.size()), recv(peers_.size());
  std::vector<MPI_Request> requests;
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    recv[i].resize(peers_[i].recv.size() * k);
    if (!recv[i].empty())
      requests.push_back(comm.irecv(recv[i].data(), long(recv[i].size() * sizeof(double)), peers_[i].rank, tag));
  }
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    for (const Cell& cell : peers_[i].send)
      for (int c = 0; c < k; ++c) send[i].push_back(owned[cell.slot][cell.index * k + c]);
    if (!send[i].empty())
      requests.push_back(comm.isend(send[i].data(), long(send[i].size() * sizeof(double)), peers_[i].rank, tag));
  }
  MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t i = 0; i < peers_.size(); ++i)
    for (std::size_t j = 0; j < peers_[i].recv.size(); ++j)
      for (int c = 0; c < k; ++c) out[peers_[i].recv[j].slot][peers_[i].recv[j].index * k + c] = recv[i][j * k + c];
  return out;
}

}  // namespace boreas
