#pragma once
// Checkpoint files: one file per checkpoint, written and read by all ranks together with MPI-IO.
//
// Layout: bytes 0-7 "BOREASCK", bytes 8-15 the length of a JSON header, bytes 16-23 its FNV-1a
// hash (little-endian uint64 both), the header, zeros up to `data_offset` (a multiple of 4096), then the whole domain's cells in
// global order (x fastest, then y, then z), `cell_bytes` per cell. The header holds what the
// caller puts there (step, deck signature, ...) and what reading needs: cells, cell_bytes,
// data_offset, data_bytes and data_hash, an order-independent hash of every cell's bytes keyed by
// its global index, which a reader recomputes over what it read; and byte_order ("little" or
// "big"): the cells' bytes are the writer's, so a machine of the other order refuses the file
// saying so (one without the key, older than it, is read as this machine's order, as before).
//
// MPI-IO rather than HDF5: the file is one array and a header, every rank writes and reads its own
// boxes through a file view (collective calls, seed 002's reads), on any decomposition, with no
// library beyond MPI to install on the build and compute nodes.
//
// Writing is atomic: PATH.tmp is written, synced and closed, then renamed to PATH, so a writer
// killed at any point leaves the previous checkpoints as they were.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/BoxFile.hpp"
#include "io/Json.hpp"

namespace boreas {

// FNV-1a (64 bit) of `text`: the header's hash, and what checkpoint signatures know input files by;
// continued from `state`, the hash of the text before it (a series' rows, one after another).
constexpr std::uint64_t text_hash_start = 1469598103934665603ull;
std::uint64_t text_hash(const std::string& text, std::uint64_t state = text_hash_start);

// Writes `pieces` (this rank's; together the ranks' pieces cover the domain once) and `meta`
// (rank 0's) to `path`. Collective; throws Error on every rank when any rank fails.
void write_checkpoint(MPI_Comm comm, const std::string& path, Json meta, const std::array<int, 3>& cells,
                      int cell_bytes, const std::vector<BoxBytes>& pieces);

// The header of `path`, checked for the magic and for the file's size; the same on every rank.
// Collective; throws Error ("<path>: <reason>") on every rank when the file is unreadable,
// truncated or not a checkpoint.
Json read_checkpoint_header(MPI_Comm comm, const std::string& path);

// Fills the values of `pieces` (boxes set by the caller) from `path` whose header is `header`,
// and checks the data hash over all ranks. Collective; throws Error on every rank on failure.
void read_checkpoint_values(MPI_Comm comm, const std::string& path, const Json& header,
                            std::vector<BoxBytes>& pieces);

}  // namespace boreas
