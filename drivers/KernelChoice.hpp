#pragma once
// simulation.kernel = "auto": the streaming variant (and its tile and storage) that is fastest for this
// machine and problem, found by a short timed trial of every candidate on the run's own deck and
// cached in a file keyed by machine and problem, so later runs start at once. Every variant gives
// bitwise the same fields, so the choice changes speed only.
#include <mpi.h>

#include <string>

#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

struct KernelChoice {
  std::string kernel;
  int tile = 0;
  StorageLayout layout = StorageLayout::SoA;
  // What report.json records: chosen, source ("trial", "cache", or the reason there was no
  // choice), key, cache file, and the candidates' MLUPS when a trial ran.
  Json report;
};

// The cache file: $BOREAS_CACHE_DIR/kernel_choice.json, default ~/.cache/boreas/.
std::string kernel_choice_cache_file();

KernelChoice choose_kernel(const Config& config, MPI_Comm comm);

}  // namespace boreas
