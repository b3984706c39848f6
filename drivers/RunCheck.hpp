#pragma once
// Checks of a parsed deck against the run it is about to become: the rank count and the memory
// of the machine. Both run before anything is allocated and refuse the deck with a diagnostic at
// the key concerned (core/Deck.hpp throw_deck_error), exit status 2 in the driver.
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "core/Config.hpp"
#include "lbm/field/Geometry.hpp"

namespace boreas {

// Before Kokkos starts: the validation observables apply to the deck, the decomposition over
// `ranks` can be made, and the host memory the `ranks_on_node` ranks of this node need
// (core/MemoryBudget.hpp) is there.
void check_run(const Config& config, int ranks, int ranks_on_node);

// Every rank was given the same deck: its text (wherever it lies), the --set `overrides`, the
// --restart spec and the content of the obstacle files it names (checkpoint_signature's hashes),
// compared over the ranks of `comm`. A rank given another deck, option or file (an MPMD launch,
// node-local copies that differ) would leave the others waiting in a collective or mix two
// geometries; an Error on every rank instead, naming the first rank that differs from rank 0.
// Collective.
void check_same_deck_on_every_rank(MPI_Comm comm, const Config& config, const std::vector<std::string>& overrides,
                                   const std::string& restart);

// Every STL and height-map solid is solid at some cell centre of the grid (of a level up to
// amr.max_level, wherever that level's leaves may lie, as the deck checks the analytic shapes):
// the deck checks the box around it (core/Deck.cpp), which a body thinner than the cell spacing,
// or an open surface that encloses nothing, spans without holding a centre; such a body would be
// solid nowhere and report no force. The ranks share the scan of its box (a body refused at
// level l costs 8^l times its box's cells over the ranks). Collective.
void check_file_solids(MPI_Comm comm, const Config& config, const DomainGeometry& domain);

// The memory of the GPU a rank runs on: its free bytes, and how many of the run's ranks share it
// (several ranks per GPU: each needs its share). Empty on host backends.
struct DeviceShare {
  std::optional<long long> free;
  int ranks = 1;
};
// Collective over `comm`, before any allocation: each rank reads its device's free memory before
// the collective, so before any rank allocates on it.
DeviceShare device_share(MPI_Comm comm);

// After Kokkos starts, on device backends: the device has the memory its ranks need.
void check_device_memory(const Config& config, int ranks, const DeviceShare& device);

// With [amr], once the forest is built: its `blocks` (every level's, refined ones too), each
// (leaf_size + 2)^D cells with its ghost ring in two lattices, the saved last good state and
// flags, shared by `ranks`, and on several ranks 3 lattices of the whole forest on every rank
// (the replica outputs, checks and checkpoints gather into, and what a regrid or a restart builds
// beside it: AmrLattice::gathered), against this node's host memory shared by `ranks_on_node`
// on host backends and the device's free memory on device backends (a refinement that cannot fit
// is refused instead of failing inside an allocation minutes later), shared by `device.ranks`
// there. The shortfall in words, empty where the forest fits (a regrid asks it while the current
// forest still holds its memory).
std::string amr_memory_shortfall(const Config& config, long long blocks, int ranks, int ranks_on_node,
                                 const DeviceShare& device = {});
void check_amr_memory(const Config& config, long long blocks, int ranks, int ranks_on_node, const DeviceShare& device = {});

// What the deck asks that runs but runs badly on this kind of backend (device: a GPU), as
// warnings for the user: the swap kernels' ordered row waves on GPUs.
std::vector<std::string> backend_warnings(const Config& config, bool device_backend);

}  // namespace boreas
