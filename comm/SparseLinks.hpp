#pragma once
// A rank's sparse storage (lbm/field/SparseField.hpp) built from the block set, and the exchange
// of its remote links (seed 002). A link of fluid cell x along q whose upwind cell y = x - c_q
// is another rank's is closed on x itself: the link's own slot holds, before the exchange, the
// population x sends towards y, and after it the one y sent towards x (pull: slot
// (opposite(q), x); AA: slot (q, x)). Both ranks list their shared links in one order, by the
// lower rank's cell and the direction pointing away from it, so no index lists travel; one
// message per neighbour rank and exchange, 5 values per face cell of D3Q19 instead of a halo's 19.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/BlockSet.hpp"
#include "comm/Mpi.hpp"
#include "core/Error.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/field/SparseField.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {

// The remote links of a rank: per neighbour rank (ascending) a run of links [start[k],
// start[k + 1]) in the order both ranks agree on.
struct SparseLinks {
  std::vector<int> ranks;
  std::vector<long> start{0};
  std::vector<std::uint32_t> cell;
  std::vector<std::uint8_t> q;
  long size() const { return static_cast<long>(cell.size()); }
};

// A rank's storage: its blocks' fluid cells, the upwind table and the remote links. `cells_global`
// receives each cell's global linear index on the host (output and checkpoints place cells by it).
template <class L>
SparseField build_sparse_field(const BlockSet& set, int rank, const DomainGeometry& domain, int real_bytes,
                               SparseLinks& links, std::vector<long long>& cells_global) {
  const auto& N = domain.cells();
  const auto linear = [&](const std::array<int, 3>& p) { return (static_cast<long long>(p[2]) * N[1] + p[1]) * N[0] + p[0]; };
  const std::vector<int> ids = set.owned_by(rank);
  // Per block: its cells' storage index (-1: not fluid), and the cells in z, y, x order.
  std::vector<std::vector<std::int64_t>> index_in(set.size());
  std::vector<std::array<int, 3>> at;
  std::vector<int> block_of;
  for (int id : ids) {
    const Box& b = set.blocks[id].box;
    index_in[id].assign(static_cast<std::size_t>(b.cells()), -1);
    long k = 0;
    for (int z = b.lo[2]; z < b.hi[2]; ++z)
      for (int y = b.lo[1]; y < b.hi[1]; ++y)
        for (int x = b.lo[0]; x < b.hi[0]; ++x, ++k) {
          if (domain.flag_at(x, y, z) != flag::fluid) continue;
          index_in[id][k] = static_cast<std::int64_t>(at.size());
          at.push_back({x, y, z});
          block_of.push_back(id);
        }
  }
  const long n = static_cast<long>(at.size());
  if (n > static_cast<long>(SparseField::no_cell))  // indices 0 .. n - 1 stay below no_cell
    throw Error("the sparse storage indexes at most 2^32 - 1 fluid cells per rank; this rank has " +
                std::to_string(n) + ": run on more ranks");
  struct Remote {
    long cell;
    int q, rank;
    long long key;
  };
  std::vector<std::uint32_t> upwind(static_cast<std::size_t>(L::Q - 1) * n, SparseField::no_cell);
  std::vector<Remote> remote;
  std::vector<char> edge(n, 0);
  for (long i = 0; i < n; ++i) {
    const GridBlock& b = set.blocks[block_of[i]];
    for (int q = 1; q < L::Q; ++q) {
      const std::array<int, 3> p{at[i][0] - L::c(q, 0), at[i][1] - L::c(q, 1), at[i][2] - L::c(q, 2)};
      const BlockNeighbour self{b.id, {0, 0, 0}, {0, 0, 0}};
      const BlockNeighbour* h = b.box.contains(p[0], p[1], p[2]) ? &self : set.holder(b, p);
      if (!h) continue;  // outside the domain: a wall face (storage = "sparse" allows no other)
      const std::array<int, 3> y{p[0] - h->offset[0], p[1] - h->offset[1], p[2] - h->offset[2]};
      const std::uint8_t fl = domain.flag_at(y[0], y[1], y[2]);
      if (fl == flag::wall) continue;
      if (fl != flag::fluid) throw std::logic_error("the sparse storage closes wall links only");
      const GridBlock& nb = set.blocks[h->block];
      if (nb.owner == rank) {
        const Box& nbox = nb.box;
        const long k = (static_cast<long>(y[2] - nbox.lo[2]) * nbox.extent(1) + (y[1] - nbox.lo[1])) * nbox.extent(0) +
                       (y[0] - nbox.lo[0]);
        upwind[static_cast<std::size_t>(q - 1) * n + i] = static_cast<std::uint32_t>(index_in[h->block][k]);
        continue;
      }
      // Shared order: the lower rank's cell, then the direction from it towards the other cell.
      const long long key = rank < nb.owner ? linear(at[i]) * 32 + opposite<L>(q) : linear(y) * 32 + q;
      remote.push_back({i, q, nb.owner, key});
      edge[i] = 1;
    }
  }
  // Cells with remote links last; `order[new] = old`.
  std::vector<long> order(n), renamed(n);
  for (long i = 0; i < n; ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](long i) { return !edge[i]; });
  for (long k = 0; k < n; ++k) renamed[order[k]] = k;
  SparseField s;
  s.Q = L::Q;
  s.cells = n;
  s.inner = static_cast<long>(std::count(edge.begin(), edge.end(), 0));
  const long per_line = 64 / real_bytes;
  s.stride = std::max(per_line, (n + per_line - 1) / per_line * per_line);
  std::vector<std::uint32_t> table(upwind.size());
  cells_global.resize(n);
  for (long k = 0; k < n; ++k) {
    const long i = order[k];
    cells_global[k] = linear(at[i]);
    for (int q = 1; q < L::Q; ++q) {
      const std::uint32_t j = upwind[static_cast<std::size_t>(q - 1) * n + i];
      table[static_cast<std::size_t>(q - 1) * n + k] =
          j == SparseField::no_cell ? j : static_cast<std::uint32_t>(renamed[j]);
    }
  }
  s.upwind = to_device_view("sparse_upwind", table);
  s.global = to_device_view("sparse_global", cells_global);
  std::sort(remote.begin(), remote.end(),
            [](const Remote& a, const Remote& b) { return a.rank != b.rank ? a.rank < b.rank : a.key < b.key; });
  links = SparseLinks{};
  for (const Remote& r : remote) {
    if (links.ranks.empty() || links.ranks.back() != r.rank) {
      if (!links.ranks.empty()) links.start.push_back(links.size());
      links.ranks.push_back(r.rank);
    }
    links.cell.push_back(static_cast<std::uint32_t>(renamed[r.cell]));
    links.q.push_back(static_cast<std::uint8_t>(r.q));
  }
  links.start.push_back(links.size());
  return s;
}

// The slot of each remote link in a lattice: (opposite(q), x) for pull (natural layout), (q, x)
// for AA.
template <class L>
std::vector<long> sparse_link_slots(const SparseField& s, const SparseLinks& links, bool aa) {
  std::vector<long> slots(links.size());
  for (long k = 0; k < links.size(); ++k)
    slots[k] = s.slot(aa ? links.q[k] : opposite<L>(links.q[k]), links.cell[k]);
  return slots;
}

// One exchange of the remote links' slots: start() packs them and posts one message per neighbour
// rank, finish() waits and writes what arrived into the same slots. Buffers live on the host when
// MPI cannot read device memory.
template <class Real>
class SparseExchange {
 public:
  SparseExchange(const SparseLinks& links, const std::vector<long>& slots, Comm& comm, bool host_buffers, int tag)
      : comm_(comm), ranks_(links.ranks), start_(links.start), tag_(tag), host_buffers_(host_buffers),
        slots_(to_device_view("sparse_link_slots", slots)),
        send_("sparse_send", slots.size()), recv_("sparse_recv", slots.size()),
        send_host_(Kokkos::create_mirror_view(send_)), recv_host_(Kokkos::create_mirror_view(recv_)) {}

  long links() const { return static_cast<long>(slots_.extent(0)); }
  int messages() const { return static_cast<int>(ranks_.size()); }

  void start(const DeviceView<Real*>& f) {
    const auto slots = slots_;
    const auto send = send_;
    Kokkos::parallel_for(
        "boreas::comm::sparse_pack", Kokkos::RangePolicy<ExecSpace>(0, links()),
        KOKKOS_LAMBDA(const long k) { send(k) = f(slots(k)); });
    Kokkos::fence();
    if (host_buffers_) Kokkos::deep_copy(send_host_, send_);
    Real* out = host_buffers_ ? send_host_.data() : send_.data();
    Real* in = host_buffers_ ? recv_host_.data() : recv_.data();
    requests_.clear();
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      const long bytes = (start_[r + 1] - start_[r]) * long(sizeof(Real));
      requests_.push_back(comm_.irecv(in + start_[r], bytes, ranks_[r], tag_));
      requests_.push_back(comm_.isend(out + start_[r], bytes, ranks_[r], tag_));
    }
  }

  void finish(const DeviceView<Real*>& f) {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    if (host_buffers_) Kokkos::deep_copy(recv_, recv_host_);
    const auto slots = slots_;
    const auto recv = recv_;
    Kokkos::parallel_for(
        "boreas::comm::sparse_unpack", Kokkos::RangePolicy<ExecSpace>(0, links()),
        KOKKOS_LAMBDA(const long k) { f(slots(k)) = recv(k); });
  }

 private:
  Comm& comm_;
  std::vector<int> ranks_;
  std::vector<long> start_;
  int tag_;
  bool host_buffers_;
  DeviceView<long*> slots_;
  DeviceView<Real*> send_, recv_;
  typename DeviceView<Real*>::HostMirror send_host_, recv_host_;
  std::vector<MPI_Request> requests_;
};

}  // namespace boreas
