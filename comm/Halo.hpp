#pragma once
// Ghost exchange of a rank's blocks along a HaloPlan (ghost layers `depth` deep, at most the
// blocks' allocated ghosts): receives posted before sends, device pack/unpack kernels over flat
// population indices of each block's lattice, buffers either handed to MPI in device memory
// (CUDA-aware MPI; on host backends this is plain host memory) or staged through separate host
// buffers. Copies between two blocks of the rank go through the send buffer without MPI (unpacked
// once packed); self copies (periodic axes a block spans; a swap plan's parked values) are made
// before anything is packed. The phases are public so that the overlap strategies
// (comm/Overlap.hpp) can interleave them with compute; each is a Kokkos profiling region
// (boreas::comm::*), as Cabana's halo gather is. `Lattices` holds one lattice per block of
// the rank, in slot order.
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/ExecInstances.hpp"
#include "comm/HaloPlan.hpp"
#include "comm/Mpi.hpp"
#include "core/Timers.hpp"
#include "lbm/Block.hpp"

namespace boreas {

template <class Real>
using Lattices = std::vector<Populations<Real>>;

// The storages of a rank's blocks, for build_halo_plan.
template <class L, class Real>
std::vector<BlockStorage> block_storages(const std::vector<const Block<L, Real>*>& blocks,
                                         const std::vector<int>& ids) {
  std::vector<BlockStorage> out;
  for (std::size_t i = 0; i < blocks.size(); ++i)
    out.push_back({ids[i], blocks[i]->field().geom, blocks[i]->populations().layout});
  return out;
}

template <class L, class Real>
class Halo {
 public:
  // `blocks`: the rank's blocks in slot order, `ids` their ids in `set`.
  Halo(const std::vector<const Block<L, Real>*>& blocks, const std::vector<int>& ids, const DomainGeometry& domain,
       const BlockSet& set, Comm& comm, bool stage_through_host, const std::array<int, 3>& depth,
       HaloTransfer transfer = HaloTransfer::Pull)
      : comm_(comm), plan_(build_halo_plan<L>(set, comm.rank(), domain, block_storages(blocks, ids), depth, transfer)),
        staged_(stage_through_host) {
    send_index_ = to_device("halo_send_index", plan_.send_index);
    recv_index_ = to_device("halo_recv_index", plan_.recv_index);
    local_source_ = to_device("halo_local_source", plan_.local_source);
    local_target_ = to_device("halo_local_target", plan_.local_target);
    send_buf_ = DeviceView<Real*>("halo_send_buffer", plan_.send_values());
    recv_buf_ = DeviceView<Real*>("halo_recv_buffer", plan_.recv_values());
    if (staged_) {
      send_host_ = HostBuffer("halo_send_host", plan_.send_values());
      recv_host_ = HostBuffer("halo_recv_host", plan_.recv_values());
    }
    recv_req_.assign(plan_.recvs.size(), MPI_REQUEST_NULL);
    send_req_.assign(plan_.sends.size(), MPI_REQUEST_NULL);
    unpacked_.assign(plan_.recvs.size(), true);
  }

  const HaloPlan& plan() const { return plan_; }
  bool staged() const { return staged_; }

  // The whole exchange, blocking.
  void exchange(const Lattices<Real>& f) {
    ProfilingRegion region("boreas::comm::halo_exchange");
    post_receives();
    copy_local(f);
    for (std::size_t m = 0; m < plan_.sends.size(); ++m) pack(int(m), f);
    ExecSpace().fence();
    for (std::size_t m = 0; m < plan_.sends.size(); ++m) send(int(m));
    unpack_local(f);
    wait_receives(f);
    wait_sends();
    // The staged copies run on a stream from page-locked memory: done before the buffers are
    // posted for the next exchange.
    ExecSpace().fence();
  }

  void post_receives() {
    ProfilingRegion region("boreas::comm::post_receives");
    for (std::size_t m = 0; m < plan_.recvs.size(); ++m) {
      const HaloMessage& msg = plan_.recvs[m];
      unpacked_[m] = false;
      if (msg.local()) continue;
      recv_req_[m] = comm_.irecv(recv_ptr(msg), msg.count * long(sizeof(Real)), msg.peer, msg.tag);
    }
  }

  // Packs send message m (and stages it to the host) on `exec`; send(m) after exec is fenced.
  void pack(int m, const Lattices<Real>& f, const ExecSpace& exec = ExecSpace()) {
    ProfilingRegion region("boreas::comm::pack");
    const HaloMessage& msg = plan_.sends[m];
    const auto index = send_index_;
    const auto buf = send_buf_;
    const auto data = f[msg.slot].data;
    Kokkos::parallel_for(
        "boreas::comm::pack", Kokkos::RangePolicy<ExecSpace>(exec, msg.offset, msg.offset + msg.count),
        KOKKOS_LAMBDA(const long i) { buf(i) = data(index(i)); });
    if (staged_ && msg.peer != plan_.rank) Kokkos::deep_copy(exec, slice(send_host_, msg), slice(send_buf_, msg));
  }

  // A message to another rank goes to MPI; one to a block of this rank waits in the send buffer.
  void send(int m) {
    const HaloMessage& msg = plan_.sends[m];
    if (msg.peer == plan_.rank) return;
    send_req_[m] = comm_.isend(send_ptr(msg), msg.count * long(sizeof(Real)), msg.peer, msg.tag);
  }

  void copy_local(const Lattices<Real>& f, const ExecSpace& exec = ExecSpace()) {
    ProfilingRegion region("boreas::comm::self_copies");
    const auto src = local_source_, dst = local_target_;
    for (const SelfCopies& c : plan_.self) {
      const auto data = f[c.slot].data;
      Kokkos::parallel_for(
          "boreas::comm::local_copy", Kokkos::RangePolicy<ExecSpace>(exec, c.offset, c.offset + c.count),
          KOKKOS_LAMBDA(const long i) { data(dst(i)) = data(src(i)); });
    }
  }

  // Unpacks the copies between this rank's blocks of `group` (all groups: -1) whose sends are
  // packed and fenced.
  void unpack_local(const Lattices<Real>& f, int group = -1, const ExecSpace& exec = ExecSpace()) {
    ProfilingRegion region("boreas::comm::local_copies");
    for (std::size_t m = 0; m < plan_.recvs.size(); ++m) {
      const HaloMessage& msg = plan_.recvs[m];
      if (!msg.local() || unpacked_[m] || (group >= 0 && msg.group != group)) continue;
      const auto index = recv_index_;
      const auto buf = send_buf_;
      const auto data = f[msg.slot].data;
      const long shift = msg.local_offset - msg.offset;
      Kokkos::parallel_for(
          "boreas::comm::unpack_local", Kokkos::RangePolicy<ExecSpace>(exec, msg.offset, msg.offset + msg.count),
          KOKKOS_LAMBDA(const long i) { data(index(i)) = buf(i + shift); });
      unpacked_[m] = true;
    }
  }

  // Unpacks whatever has arrived; returns true when every receive has been unpacked.
  bool progress(const Lattices<Real>& f, const ExecSpace& exec = ExecSpace()) {
    if (recv_req_.empty()) return true;
    int done = 0;
    done_.resize(recv_req_.size());
    MPI_Testsome(int(recv_req_.size()), recv_req_.data(), &done, done_.data(), MPI_STATUSES_IGNORE);
    if (done != MPI_UNDEFINED)
      for (int k = 0; k < done; ++k) unpack(done_[k], f, exec);
    return all_unpacked();
  }

  void wait_receives(const Lattices<Real>& f, const ExecSpace& exec = ExecSpace()) {
    ProfilingRegion region("boreas::comm::wait_and_unpack");
    for (int m = wait_one(); m != MPI_UNDEFINED; m = wait_one()) unpack(m, f, exec);
  }

  // Blocks until one more receive from another rank completes; its index, or MPI_UNDEFINED when
  // none is pending.
  int wait_one() {
    int m = MPI_UNDEFINED;
    if (!recv_req_.empty()) MPI_Waitany(int(recv_req_.size()), recv_req_.data(), &m, MPI_STATUS_IGNORE);
    return m;
  }

  // Copies receive message m (from another rank) into the ghost cells of its block (staging it
  // from the host first).
  void unpack(int m, const Lattices<Real>& f, const ExecSpace& exec = ExecSpace()) {
    ProfilingRegion region("boreas::comm::unpack");
    const HaloMessage& msg = plan_.recvs[m];
    if (staged_) Kokkos::deep_copy(exec, slice(recv_buf_, msg), slice(recv_host_, msg));
    const auto index = recv_index_;
    const auto buf = recv_buf_;
    const auto data = f[msg.slot].data;
    Kokkos::parallel_for(
        "boreas::comm::unpack", Kokkos::RangePolicy<ExecSpace>(exec, msg.offset, msg.offset + msg.count),
        KOKKOS_LAMBDA(const long i) { data(index(i)) = buf(i); });
    unpacked_[m] = true;
  }

  void wait_sends() {
    MPI_Waitall(int(send_req_.size()), send_req_.data(), MPI_STATUSES_IGNORE);
  }

  bool all_unpacked() const {
    for (bool u : unpacked_)
      if (!u) return false;
    return true;
  }

 private:
  // Page-locked on CUDA: a pageable copy would block the host until done and serialise the
  // streams' packs (comm/ExecInstances.hpp).
  using HostBuffer = Kokkos::View<Real*, StagingSpace>;

  template <class View>
  static auto slice(const View& v, const HaloMessage& msg) {
    return Kokkos::subview(v, Kokkos::make_pair(msg.offset, msg.offset + msg.count));
  }
  Real* send_ptr(const HaloMessage& msg) const {
    return (staged_ ? send_host_.data() : send_buf_.data()) + msg.offset;
  }
  Real* recv_ptr(const HaloMessage& msg) const {
    return (staged_ ? recv_host_.data() : recv_buf_.data()) + msg.offset;
  }

  static DeviceView<long*> to_device(const char* label, const std::vector<long>& v) {
    DeviceView<long*> d(std::string(label), v.size());
    Kokkos::deep_copy(d, Kokkos::View<const long*, Kokkos::HostSpace>(v.data(), v.size()));
    return d;
  }

  Comm& comm_;
  HaloPlan plan_;
  bool staged_;
  DeviceView<long*> send_index_, recv_index_, local_source_, local_target_;
  DeviceView<Real*> send_buf_, recv_buf_;
  HostBuffer send_host_, recv_host_;
  std::vector<MPI_Request> recv_req_, send_req_;
  std::vector<int> done_;
  std::vector<bool> unpacked_;
};

}  // namespace boreas
