#include "comm/Mpi.hpp"

#include "core/ExactSum.hpp"

#include <algorithm>
#include <utility>

#include <cstdlib>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace boreas {

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  ensure_mpi_initialized();
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

namespace {

// MPI counts are ints: a message of more bytes goes as one element of a type made of `max_message`
// byte pieces and the rest (the same bytes, so the receiver may post either form). The type is
// freed at once: MPI keeps it until the operation completes.
struct MessageType {
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  MessageType(long long bytes, long long max_message) {
    if (bytes <= max_message) {
      count = static_cast<int>(bytes);
      return;
    }
    MPI_Datatype piece;
    MPI_Type_contiguous(static_cast<int>(max_message), MPI_BYTE, &piece);
    const int lengths[2] = {static_cast<int>(bytes / max_message), static_cast<int>(bytes % max_message)};
    const MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(bytes - bytes % max_message)};
    const MPI_Datatype types[2] = {piece, MPI_BYTE};
    MPI_Type_create_struct(2, lengths, displacements, types, &type);
    MPI_Type_commit(&type);
    MPI_Type_free(&piece);
    count = 1;
  }
  ~MessageType() {
    if (type != MPI_BYTE) MPI_Type_free(&type);
  }
  MessageType(const MessageType&) = delete;
  MessageType& operator=(const MessageType&) = delete;
};

}  // namespace

MPI_Request Comm::irecv(void* buf, long long bytes, int source, int tag, long long max_message) const {
  const MessageType m(bytes, max_message);
  MPI_Request r;
  MPI_Irecv(buf, m.count, m.type, source, tag, comm_, &r);
  return r;
}

MPI_Request Comm::isend(const void* buf, long long bytes, int dest, int tag, long long max_message) {
  const MessageType m(bytes, max_message);
  MPI_Request r;
  MPI_Isend(buf, m.count, m.type, dest, tag, comm_, &r);
  ++messages_;
  bytes_ += bytes;
  return r;
}

std::uint64_t Comm::sum(std::uint64_t v) const {
  std::uint64_t out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return out;
}
long long Comm::sum(long long v) const {
  long long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_SUM, comm_);
  return out;
}
double Comm::sum(double v) const {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return out;
}
double Comm::sum(const ExactSum& v) const { return sum(std::vector<ExactSum>{v})[0]; }
std::vector<double> Comm::sum(const std::vector<ExactSum>& v) const {
  std::vector<long long> words;
  for (const ExactSum& s : v) words.insert(words.end(), {s.whole, s.high, s.low, s.not_finite});
  std::vector<long long> all(words.size());
  MPI_Allreduce(words.data(), all.data(), int(words.size()), MPI_LONG_LONG, MPI_SUM, comm_);
  std::vector<double> totals;
  for (std::size_t k = 0; k < v.size(); ++k) {
    ExactSum s;
    s.whole = all[4 * k];
    s.high = all[4 * k + 1];
    s.low = all[4 * k + 2];
    s.not_finite = all[4 * k + 3];
    ExactSum::carry(s.whole, s.high, s.low);  // each rank's words are below 2^32: their sum carries
    totals.push_back(s.value());
  }
  return totals;
}
long long Comm::min(long long v) const {
  long long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG_LONG, MPI_MIN, comm_);
  return out;
}
double Comm::max(double v) const {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return out;
}
std::vector<double> Comm::gather(double v) const {
  std::vector<double> out(size_);
  MPI_Allgather(&v, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, comm_);
  return out;
}
namespace {
// Rank 0's `bytes` bytes at `data`, on every rank, in messages of at most `max_message` bytes.
void broadcast_bytes(MPI_Comm comm, char* data, long long bytes, long long max_message) {
  for (long long at = 0; at < bytes; at += max_message)
    MPI_Bcast(data + at, static_cast<int>(std::min(max_message, bytes - at)), MPI_BYTE, 0, comm);
}
}  // namespace

std::string Comm::broadcast(std::string text, long long max_message) const {
  long long size = static_cast<long long>(text.size());
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, comm_);
  text.resize(static_cast<std::size_t>(size));
  broadcast_bytes(comm_, text.data(), size, max_message);
  return text;
}
std::vector<unsigned char> Comm::broadcast(std::vector<unsigned char> bytes, long long max_message) const {
  long long size = static_cast<long long>(bytes.size());
  MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, comm_);
  bytes.resize(static_cast<std::size_t>(size));
  broadcast_bytes(comm_, reinterpret_cast<char*>(bytes.data()), size, max_message);
  return bytes;
}
std::vector<long long> Comm::gather_sizes(long long bytes) const {
  std::vector<long long> sizes(size_);
  MPI_Allgather(&bytes, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm_);
  return sizes;
}

void Comm::allgather_bytes(const void* mine_values, const std::vector<long long>& sizes, void* out_values,
                           long long max_message) const {
  const auto* mine = static_cast<const unsigned char*>(mine_values);
  auto* out = static_cast<unsigned char*>(out_values);
  const long long n = sizes[rank_];
  std::vector<long long> starts(size_ + 1, 0);
  long long largest = 0;
  for (int r = 0; r < size_; ++r) {
    starts[r + 1] = starts[r] + sizes[r];
    largest = std::max(largest, sizes[r]);
  }
  // Round k gathers bytes [k chunk, (k + 1) chunk) of each rank's: at most max_message in all.
  const long long chunk = std::max(1LL, max_message / size_);
  std::vector<int> counts(size_), offsets(size_ + 1, 0);
  std::vector<unsigned char> round;
  for (long long at = 0; at < largest; at += chunk) {
    for (int r = 0; r < size_; ++r) {
      counts[r] = static_cast<int>(std::clamp(sizes[r] - at, 0LL, chunk));
      offsets[r + 1] = offsets[r] + counts[r];
    }
    round.resize(static_cast<std::size_t>(offsets[size_]));
    MPI_Allgatherv(mine + std::min(at, n), counts[rank_], MPI_BYTE, round.data(), counts.data(), offsets.data(),
                   MPI_BYTE, comm_);
    for (int r = 0; r < size_; ++r) std::copy_n(round.data() + offsets[r], counts[r], out + starts[r] + at);
  }
}
std::vector<std::vector<int>> Comm::exchange(const std::vector<std::vector<int>>& to_each) const {
  std::vector<int> send_counts(size_), recv_counts(size_), send_offsets(size_ + 1, 0), recv_offsets(size_ + 1, 0);
  for (int r = 0; r < size_; ++r) send_counts[r] = static_cast<int>(to_each[r].size());
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_);
  std::vector<int> flat;
  for (int r = 0; r < size_; ++r) {
    send_offsets[r + 1] = send_offsets[r] + send_counts[r];
    recv_offsets[r + 1] = recv_offsets[r] + recv_counts[r];
    flat.insert(flat.end(), to_each[r].begin(), to_each[r].end());
  }
  std::vector<int> received(recv_offsets[size_]);
  MPI_Alltoallv(flat.data(), send_counts.data(), send_offsets.data(), MPI_INT, received.data(), recv_counts.data(),
                recv_offsets.data(), MPI_INT, comm_);
  std::vector<std::vector<int>> out(size_);
  for (int r = 0; r < size_; ++r) out[r].assign(received.begin() + recv_offsets[r], received.begin() + recv_offsets[r + 1]);
  return out;
}
void Comm::barrier() const { MPI_Barrier(comm_); }

void ensure_mpi_initialized() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
  }
}

namespace {
// The ranks of `comm` sharing this node (MPI_COMM_TYPE_SHARED), for the scope's life (collective).
struct NodeComm {
  MPI_Comm node;
  explicit NodeComm(MPI_Comm comm) {
    ensure_mpi_initialized();
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  }
  ~NodeComm() { MPI_Comm_free(&node); }
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
};

// (rank, size) of this rank among those sharing its node.
std::pair<int, int> node_rank_and_size(MPI_Comm comm) {
  const NodeComm n(comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(n.node, &rank);
  MPI_Comm_size(n.node, &size);
  return {rank, size};
}
}  // namespace

int node_local_rank() { return node_rank_and_size(MPI_COMM_WORLD).first; }
int node_ranks(MPI_Comm comm) { return node_rank_and_size(comm).second; }

long long node_sum(MPI_Comm comm, long long v) {
  const NodeComm n(comm);
  long long sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG_LONG, MPI_SUM, n.node);
  return sum;
}

long long node_sum(MPI_Comm comm, long long v, const std::string& group) {
  const NodeComm n(comm);
  int size = 1;
  MPI_Comm_size(n.node, &size);
  constexpr int width = 64;
  std::vector<char> mine(width, '\0'), groups(std::size_t(width) * size);
  std::copy_n(group.begin(), std::min<std::size_t>(group.size(), width - 1), mine.begin());
  std::vector<long long> values(size);
  MPI_Allgather(mine.data(), width, MPI_CHAR, groups.data(), width, MPI_CHAR, n.node);
  MPI_Allgather(&v, 1, MPI_LONG_LONG, values.data(), 1, MPI_LONG_LONG, n.node);
  long long sum = 0;
  for (int r = 0; r < size; ++r)
    if (std::equal(mine.begin(), mine.end(), groups.begin() + std::ptrdiff_t(r) * width)) sum += values[r];
  return sum;
}

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace boreas
