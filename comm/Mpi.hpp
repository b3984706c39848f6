#pragma once
// The one place that talks to MPI directly: a communicator handle that counts every message
// and byte it sends (so tests can hold the halo plan to its prediction), reductions used by
// the drivers, node-local ranks for the rank-to-device mapping, and CUDA-aware detection.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace boreas {

struct ExactSum;

class Comm {
 public:
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD);

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm get() const { return comm_; }

  // Point-to-point messages of any size: past `max_message` bytes (MPI's int counts; tests set
  // less) one message of a derived type carries them.
  MPI_Request irecv(void* buf, long long bytes, int source, int tag, long long max_message = max_mpi_count) const;
  MPI_Request isend(const void* buf, long long bytes, int dest, int tag, long long max_message = max_mpi_count);

  // Messages and bytes handed to isend since construction (or reset).
  long long messages_sent() const { return messages_; }
  long long bytes_sent() const { return bytes_; }
  void reset_counters() { messages_ = bytes_ = 0; }

  std::uint64_t sum(std::uint64_t v) const;
  long long sum(long long v) const;
  double sum(double v) const;
  double sum(const ExactSum& v) const;  // the total, the same bits on every rank count
  std::vector<double> sum(const std::vector<ExactSum>& v) const;  // the same, in one reduction
  long long min(long long v) const;
  double max(double v) const;
  std::vector<double> gather(double v) const;  // one value per rank, on every rank
  // Rank 0's text or bytes, on every rank. Past `max_message` bytes (MPI's int counts; tests
  // set less) the data go in several collective calls, so that any size passes.
  std::string broadcast(std::string text, long long max_message = max_mpi_count) const;
  std::vector<unsigned char> broadcast(std::vector<unsigned char> bytes, long long max_message = max_mpi_count) const;
  // Every rank's values (bytes, doubles, ...), concatenated in rank order, on every rank (in
  // rounds of at most `max_message` bytes in all: any size passes).
  template <class T>
  std::vector<T> allgather(const std::vector<T>& mine, long long max_message = max_mpi_count) const {
    static_assert(std::is_trivially_copyable_v<T>, "allgather copies values as bytes");
    const std::vector<long long> sizes = gather_sizes(static_cast<long long>(mine.size() * sizeof(T)));
    long long total = 0;
    for (long long s : sizes) total += s;
    std::vector<T> out(static_cast<std::size_t>(total) / sizeof(T));
    allgather_bytes(mine.data(), sizes, out.data(), max_message);
    return out;
  }
  static constexpr long long max_mpi_count = 2147483647;
  // Lists swapped between all ranks: to_each[r] goes to rank r; returns what each rank sent here.
  std::vector<std::vector<int>> exchange(const std::vector<std::vector<int>>& to_each) const;
  void barrier() const;

 private:
  std::vector<long long> gather_sizes(long long bytes) const;  // each rank's, on every rank
  // allgather()'s rounds: this rank's `sizes[rank]` bytes at `mine`, every rank's into `out`.
  void allgather_bytes(const void* mine, const std::vector<long long>& sizes, void* out, long long max_message) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  long long messages_ = 0, bytes_ = 0;
};

// Initialises MPI if nobody has (tests and the benchmark may construct simulations without
// going through the driver's MPI_Init).
void ensure_mpi_initialized();

// Rank among the ranks sharing this node (MPI_COMM_TYPE_SHARED), and how many of `comm`'s share
// it (collective over `comm`).
int node_local_rank();
int node_ranks(MPI_Comm comm = MPI_COMM_WORLD);
// The sum of `v` over the ranks of `comm` sharing this node (collective over `comm`).
long long node_sum(MPI_Comm comm, long long v);
// The same over those of them whose `group` is this rank's (their GPU: MemoryBudget.hpp
// device_identity; the first 63 bytes compared).
long long node_sum(MPI_Comm comm, long long v, const std::string& group);

// True when MPI says it can read device memory (Open MPI's MPIX_Query_cuda_support); false
// when it says no or cannot tell.
bool mpi_is_cuda_aware();

}  // namespace boreas
