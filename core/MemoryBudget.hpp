#pragma once
// What a run needs in memory, per rank, before anything is allocated, against what the machine
// has: a deck that cannot fit is refused at validation (core/Deck.cpp) and, for device memory,
// before the first allocation (drivers/Simulation.cpp), instead of running out of memory or
// hanging in set-up loops over an impossible grid.
#include <optional>
#include <string>

#include "core/Config.hpp"

namespace boreas {

// Lower bounds per rank (ghost layers and padding not counted), so that a refusal is never wrong.
struct MemoryNeed {
  long long cells_per_rank = 0;  // owned cells of the largest rank, at least
  long long device_bytes = 0;    // population lattices, the saved last good state, flags, monitor, averages
  long long host_bytes = 0;      // device_bytes on host backends plus the output fields
};

// Q of a lattice kind.
int lattice_directions(LatticeKind kind);

// Population lattices a variant keeps (auto: the most any candidate keeps) plus the copies a run
// makes of the canonical state: the last good state, and for in-place variants the canonical
// view that checks and output materialise.
int lattice_copies(const Scheme& kernel);

// Device bytes of one cell: the lattices `kernel` keeps (lattice_copies) and its flag.
long long device_bytes_per_cell(const Config& config, const Scheme& kernel);
// Device bytes the convergence monitor keeps per owned cell (a leaf's interior cell on AMR
// levels): the last check's velocity (lbm/field/VelocityChange.hpp).
constexpr long long monitor_bytes_per_cell = 3 * 8;
// Device bytes [statistics] keeps per owned cell (a leaf's interior cell on AMR levels): the
// running means (lbm/field/RunningStatistics.hpp, 10 doubles) and their copy in the last good state.
constexpr long long statistics_bytes_per_cell = 2 * 10 * 8;

MemoryNeed estimate_memory(const Config& config, int ranks, bool device_is_host);

// Bytes this node can still give the run, nullopt when unknown: BOREAS_HOST_MEMORY if set (bytes:
// a job's share where the node's files say otherwise; a fixed amount, so a regrid's check compares
// the new forest with all of it), else MemAvailable, less where the process's cgroup v2 limits
// leave less. `root` prefixes the files read (tests; the variable then does not apply).
std::optional<long long> host_memory_available(const std::string& root = "");

// Free bytes of the device Kokkos runs on; nullopt on host backends. Kokkos must be initialised.
std::optional<long long> device_memory_available();

// Which GPU of its node this process runs on (its UUID: a MIG slice's own), so that the memory
// checks count every rank that shares it, whichever way ranks were given devices
// (drivers/boreas.cpp's round-robin, --kokkos-device-id, a launcher's CUDA_VISIBLE_DEVICES); ""
// on host backends.
std::string device_identity();

// "12.3 GiB" style text for messages.
std::string format_bytes(long long bytes);

}  // namespace boreas
