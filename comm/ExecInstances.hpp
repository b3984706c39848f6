#pragma once
// Execution-space instances for overlapping work: on CUDA each instance owns its own stream, so
// packs, the interior kernel and unpacks can run concurrently; on host backends the instances
// are default-constructed and the same code runs in order. The only backend-specific code of
// the overlap layer lives here.
// The streams are non-blocking: Kokkos 3.4's default instance runs on CUDA's legacy default
// stream, which waits for all work on ordinary streams before it starts, so an interior kernel on
// it would wait for every pack launched before it (no overlap at all). The overlap code orders
// the streams with fences alone (comm/Overlap.hpp step_streams; the AMR levels' streams case,
// amr/AmrLattice.inl, fences each phase for its timers, so there the packs finish first).
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "core/Error.hpp"
#include "core/Types.hpp"

namespace boreas {

// Host memory that messages are staged in: page-locked on CUDA, so that a copy on an instance's
// stream returns at once and overlaps with kernels; plain host memory (the buffers themselves)
// elsewhere.
#if defined(KOKKOS_ENABLE_CUDA)
using StagingSpace = std::conditional_t<std::is_same_v<ExecSpace, Kokkos::Cuda>, Kokkos::CudaHostPinnedSpace, MemSpace>;
#else
using StagingSpace = MemSpace;
#endif

class ExecInstances {
 public:
  explicit ExecInstances(int count) {
    for (int i = 0; i < count; ++i) {
#if defined(KOKKOS_ENABLE_CUDA)
      if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
        cudaStream_t stream;
        if (const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess)
          throw Error(std::string("cannot create a CUDA stream for the overlap: ") + cudaGetErrorString(e));
        streams_.push_back(stream);
        spaces_.push_back(Kokkos::Cuda(stream));
        continue;
      }
#endif
      spaces_.push_back(ExecSpace());
    }
  }
  ~ExecInstances() {
    fence();
    spaces_.clear();
#if defined(KOKKOS_ENABLE_CUDA)
    for (auto s : streams_) cudaStreamDestroy(s);
#endif
  }
  ExecInstances(const ExecInstances&) = delete;
  ExecInstances& operator=(const ExecInstances&) = delete;

  const ExecSpace& operator[](std::size_t i) const { return spaces_[i % spaces_.size()]; }
  void fence() const {
    for (const auto& s : spaces_) s.fence();
  }

 private:
  std::vector<ExecSpace> spaces_;
#if defined(KOKKOS_ENABLE_CUDA)
  std::vector<cudaStream_t> streams_;
#endif
};

}  // namespace boreas
