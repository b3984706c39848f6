#pragma once
// Ghost leaves between ranks (seed 000, CityLBM; issue 13 B): after a level's step every rank sends
// the leaves it owns that other ranks hold, one message per peer and step, staged through
// page-locked host memory on CUDA (the buffer itself on host backends). A block goes as its
// interior cells: all that the receiver's leaves pull and its fine-to-coarse averages read (its
// ghosts it fills itself).
#include <mpi.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/ExecInstances.hpp"
#include "comm/Mpi.hpp"
#include "core/Types.hpp"

namespace boreas {

// A device list of block pairs (to, from).
inline DeviceView<int* [2]> block_pairs(const char* label, const std::vector<int>& to, const std::vector<int>& from) {
  DeviceView<int* [2]> d(std::string(label), to.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t k = 0; k < to.size(); ++k) {
    h(k, 0) = to[k];
    h(k, 1) = from[k];
  }
  Kokkos::deep_copy(d, h);
  return d;
}

// The values `part` (offsets inside a block of `per_block`) of blocks to or from a packed buffer,
// part after part: pairs (block, position in the buffer).
template <class Real>
struct BlockPartCopy {
  DeviceView<Real*> to;
  DeviceView<const Real*> from;
  DeviceView<const int* [2]> pairs;
  DeviceView<const long*> part;
  long per_block;
  bool pack;
  KOKKOS_INLINE_FUNCTION void operator()(long i) const {
    const long m = long(part.extent(0)), k = i % m, p = i / m;
    const long in_block = pairs(p, 0) * per_block + part(k), in_buffer = pairs(p, 1) * m + k;
    if (pack)
      to(in_buffer) = from(in_block);
    else
      to(in_block) = from(in_buffer);
  }
};

template <class Real>
class LeafHalo {
 public:
  // Blocks of one peer: positions in the local block array, in the order both sides agree on;
  // each carries the values `inner_part` of the block.
  struct Peer {
    int rank = 0;
    std::vector<int> blocks;
  };

  LeafHalo() = default;
  LeafHalo(const std::vector<Peer>& sends, const std::vector<Peer>& receives, long per_block,
           const std::vector<long>& inner_part)
      : per_block_(per_block), inner_part_(to_device_view("leaf halo inner part", inner_part)) {
    for (const Peer& p : sends) sends_.push_back(link(p));
    for (const Peer& p : receives) receives_.push_back(link(p));
  }

  // Messages and bytes this rank sends per exchange.
  int messages() const { return int(sends_.size()); }
  long long bytes() const {
    long long n = 0;
    for (const Link& l : sends_) n += static_cast<long long>(l.buffer.extent(0) * sizeof(Real));
    return n;
  }

  std::size_t sends() const { return sends_.size(); }

  // One exchange in phases, which the overlap strategies of the AMR solver interleave with the
  // step: receives posted; each message packed (on an execution-space instance of its own where
  // the backend has them) and sent once its blocks are computed; arrivals unpacked as they come.
  void post_receives(Comm& comm, int tag) {
    receive_requests_.clear();
    unpacked_.assign(receives_.size(), false);
    for (Link& r : receives_)
      receive_requests_.push_back(comm.irecv(r.host.data(), long(r.host.extent(0) * sizeof(Real)), r.rank, tag));
  }
  void pack(std::size_t k, const DeviceView<Real*>& lattice, const ExecSpace& space = ExecSpace()) {
    Link& s = sends_[k];
    copy(s, s.buffer, lattice, true, space);
    Kokkos::deep_copy(space, s.host, s.buffer);
  }
  void send_packed(Comm& comm, std::size_t k, int tag, const ExecSpace& space = ExecSpace()) {
    space.fence();
    Link& s = sends_[k];
    send_requests_.push_back(comm.isend(s.host.data(), long(s.host.extent(0) * sizeof(Real)), s.rank, tag));
  }
  void send(Comm& comm, const DeviceView<Real*>& lattice, std::size_t k, int tag) {
    pack(k, lattice);
    send_packed(comm, k, tag);
  }
  // Unpacks the messages that have arrived; true when every one has.
  bool progress(const DeviceView<Real*>& lattice) {
    if (receive_requests_.empty()) return true;
    int done = 0;
    indices_.resize(receive_requests_.size());
    MPI_Testsome(int(receive_requests_.size()), receive_requests_.data(), &done, indices_.data(), MPI_STATUSES_IGNORE);
    if (done != MPI_UNDEFINED)
      for (int k = 0; k < done; ++k) unpack(indices_[k], lattice);
    return std::all_of(unpacked_.begin(), unpacked_.end(), [](bool u) { return u; });
  }
  // Waits for the remaining receives (unpacking each) and every send; fences.
  void finish(const DeviceView<Real*>& lattice) {
    for (;;) {
      int m = MPI_UNDEFINED;
      if (!receive_requests_.empty())
        MPI_Waitany(int(receive_requests_.size()), receive_requests_.data(), &m, MPI_STATUS_IGNORE);
      if (m == MPI_UNDEFINED) break;
      unpack(m, lattice);
    }
    MPI_Waitall(int(send_requests_.size()), send_requests_.data(), MPI_STATUSES_IGNORE);
    send_requests_.clear();
    Kokkos::fence();
  }
  // The whole exchange at once (no overlap).
  void exchange(Comm& comm, const DeviceView<Real*>& lattice, int tag) {
    if (sends_.empty() && receives_.empty()) return;
    post_receives(comm, tag);
    for (std::size_t k = 0; k < sends_.size(); ++k) send(comm, lattice, k, tag);
    finish(lattice);
  }

 private:
  struct Link {
    int rank = 0;
    DeviceView<int* [2]> pairs;  // (block in the lattice, position in the message)
    DeviceView<Real*> buffer;  // the blocks' parts, block after block
    Kokkos::View<Real*, StagingSpace> host;  // the buffer itself on host backends
  };

  // Between a link's buffer and the lattice, either way.
  void copy(const Link& l, const DeviceView<Real*>& to, const DeviceView<Real*>& from, bool pack,
            const ExecSpace& space) const {
    const long values = long(l.pairs.extent(0)) * long(inner_part_.extent(0));
    if (values > 0)
      Kokkos::parallel_for("leaf halo cells", Kokkos::RangePolicy<ExecSpace>(space, 0, values),
                           BlockPartCopy<Real>{to, from, l.pairs, inner_part_, per_block_, pack});
  }

  void unpack(int m, const DeviceView<Real*>& lattice) {
    Link& r = receives_[m];
    const ExecSpace space;  // ordered with the step's kernels; finish() fences
    Kokkos::deep_copy(space, r.buffer, r.host);
    copy(r, lattice, r.buffer, false, space);
    unpacked_[m] = true;
  }

  Link link(const Peer& p) const {
    Link l;
    l.rank = p.rank;
    std::vector<int> positions(p.blocks.size());
    for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = int(i);
    l.pairs = block_pairs("leaf halo pairs", p.blocks, positions);
    l.buffer = DeviceView<Real*>("leaf halo buffer", p.blocks.size() * inner_part_.extent(0));
    if constexpr (std::is_same_v<StagingSpace, MemSpace>)
      l.host = l.buffer;
    else
      l.host = Kokkos::View<Real*, StagingSpace>("leaf halo staging", l.buffer.extent(0));
    return l;
  }

  long per_block_ = 0;
  DeviceView<long*> inner_part_;
  std::vector<Link> sends_, receives_;
  std::vector<MPI_Request> receive_requests_, send_requests_;
  std::vector<int> indices_;
  std::vector<bool> unpacked_;
};

}  // namespace boreas
