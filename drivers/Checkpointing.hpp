#pragma once
// Checkpoint and restart of a run (io/Checkpoint.hpp holds the file format): where checkpoints go
// and which are kept, what in a deck a checkpoint must match, `--restart latest|PATH`, and the
// stop signals of batch systems (SIGTERM, SIGUSR1) that make the run write one and exit.
#include <mpi.h>

#include <string>
#include <vector>

#include "core/Config.hpp"
#include "io/Json.hpp"

namespace boreas {

// <checkpoint.directory, or <output directory>/checkpoints>.
std::string checkpoint_directory(const Config& config);
// <directory>/<name>_step<8 digits>.bchk
std::string checkpoint_path(const Config& config, long step);
// This deck's checkpoints, oldest first (by step), temporary files of interrupted writes left out.
std::vector<std::string> list_checkpoints(const Config& config);
// Removes all but the newest `checkpoint.keep` of those up to `step` (rank 0 only); newer ones,
// left by a run this one restarted before their step, stay.
void prune_checkpoints(const Config& config, long step);

// What decides the continuation: the deck as parsed without what may change between a run and
// its restart (steps, output, kernel and its tuning, parallel layout, checkpoint policy).
Json checkpoint_signature(const Config& config);

// `latest` (the newest of list_checkpoints) or a path. Throws Error when there is none.
std::string resolve_restart(const Config& config, const std::string& spec);

// The header of `path`, checked against the deck: lattice, precision, cells, then every key of
// the signature; throws Error naming the first difference (collective).
Json open_checkpoint(MPI_Comm comm, const Config& config, const std::string& path);

// SIGTERM and SIGUSR1 set a flag instead of ending the process (installed once).
void install_stop_signals();
// The signal received on this rank (0: none).
int stop_signal();
const char* signal_name(int signal);

}  // namespace boreas
