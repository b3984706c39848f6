#include "comm/Mpi.hpp"

#include <utility>

#include <cstdlib>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace boreas {

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  ensure_mpi_initialized();
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MPI_Request Comm::irecv(void* buf, long bytes, int source, int tag) const {
  MPI_Request r;
  MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, source, tag, comm_, &r);
  return r;
}

MPI_Request Comm::isend(const void* buf, long bytes, int dest, int tag) {
  MPI_Request r;
  MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, dest, tag, comm_, &r);
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
std::string Comm::broadcast(std::string text) const {
  long size = static_cast<long>(text.size());
  MPI_Bcast(&size, 1, MPI_LONG, 0, comm_);
  text.resize(size);
  MPI_Bcast(text.data(), int(size), MPI_CHAR, 0, comm_);
  return text;
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
// (rank, size) of this rank among those sharing its node (MPI_COMM_TYPE_SHARED).
std::pair<int, int> node_rank_and_size() {
  ensure_mpi_initialized();
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0, size = 1;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return {rank, size};
}
}  // namespace

int node_local_rank() { return node_rank_and_size().first; }
int node_ranks() { return node_rank_and_size().second; }

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace boreas
