#include "core/MemoryBudget.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/Error.hpp"

namespace boreas {

int lattice_directions(LatticeKind kind) {
  switch (kind) {
    case LatticeKind::D2Q9: return 9;
    case LatticeKind::D3Q19: return 19;
    default: return 27;
  }
}

int lattice_copies(const Scheme& kernel) {
  // Own lattices, then the saved state; in-place variants materialise the canonical one.
  return kernel.in_place() ? 1 + 1 + 1 : 2 + 1;
}

long long device_bytes_per_cell(const Config& config, const Scheme& kernel) {
  const long long real = config.precision == Precision::Float ? 4 : 8;
  return lattice_copies(kernel) * lattice_directions(config.lattice) * real + 1;
}

MemoryNeed estimate_memory(const Config& config, int ranks, bool device_is_host) {
  MemoryNeed need;
  long long cells = 1;
  for (int d = 0; d < 3; ++d) cells *= config.cells[d];  // at most 2^50 (Deck.cpp): no overflow
  need.cells_per_rank = (cells + ranks - 1) / ranks;
  const long long real = config.precision == Precision::Float ? 4 : 8;
  const long long per_cell = device_bytes_per_cell(config, config.kernel);
  // The sparse storage's need follows its fluid cells, known once the geometry is read: it checks
  // itself then (drivers/SparseSimulation.cpp).
  const long long averages = config.statistics.enabled ? statistics_bytes_per_cell : 0;
  need.device_bytes =
      config.storage == StorageKind::Sparse ? 0 : need.cells_per_rank * (per_cell + monitor_bytes_per_cell + averages);
  // Output: density, velocity, vorticity (doubles) and flags per owned cell; observables gather
  // density, velocity and flags of the whole domain on every rank.
  long long host = need.cells_per_rank * (5 * 8 + 1);
  // A checkpoint (on a signal, whatever the deck says) holds the owned populations on the host.
  host += need.cells_per_rank * lattice_directions(config.lattice) * real;
  if (!config.observables.empty()) host += cells * (4 * 8 + 1);
  need.host_bytes = host + (device_is_host ? need.device_bytes : 0);
  return need;
}

namespace {

// The first number in `path` (a /proc or cgroup file), or nullopt (absent, or "max").
std::optional<long long> number_in(const std::string& path) {
  std::ifstream in(path);
  long long v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

}  // namespace

std::optional<long long> host_memory_available(const std::string& root) {
  if (const char* stated = std::getenv("BOREAS_HOST_MEMORY"); stated && root.empty()) {
    char* end = nullptr;
    const long long bytes = std::strtoll(stated, &end, 10);
    if (end != stated && *end == '\0' && bytes > 0) return bytes;
    throw Error(std::string("BOREAS_HOST_MEMORY: expected a number of bytes > 0, got '") + stated + "'");
  }
  std::optional<long long> available;
  std::ifstream in(root + "/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    long long kib = 0;
    if (ss >> key >> kib && key == "MemAvailable:") available = kib * 1024;
  }
  // A job's control group (cgroup v2: SLURM, containers) may allow less than the node has: what
  // the tightest limit on its path still leaves, its inactive page cache counted as free (the
  // kernel reclaims it first; `docker stats` counts usage so too).
  std::ifstream groups(root + "/proc/self/cgroup");
  while (std::getline(groups, line)) {
    if (line.rfind("0::/", 0) != 0) continue;
    std::string path = line.substr(3);
    for (;;) {
      const std::string dir = root + "/sys/fs/cgroup" + (path == "/" ? "" : path);
      const std::optional<long long> limit = number_in(dir + "/memory.max"), used = number_in(dir + "/memory.current");
      if (limit && used) {
        long long cache = 0;
        std::ifstream stat(dir + "/memory.stat");
        std::string key;
        long long v = 0;
        while (stat >> key >> v)
          if (key == "inactive_file") cache = v;
        const long long left = std::max(0LL, *limit - std::max(0LL, *used - cache));
        available = available ? std::min(*available, left) : left;
      }
      if (path == "/") break;
      const std::size_t slash = path.rfind('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
  return available;
}

std::optional<long long> device_memory_available() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>) {
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) return static_cast<long long>(free);
  }
#endif
  return std::nullopt;
}

std::string device_identity() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::Cuda>) {
    int device = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "cuda";
    std::string uuid;
    char hex[3];
    for (unsigned char b : prop.uuid.bytes) {
      std::snprintf(hex, sizeof hex, "%02x", b);
      uuid += hex;
    }
    return uuid;
  }
#endif
  return "";
}

std::string format_bytes(long long bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace boreas
