#pragma once
// Boxes of a global array of cells in a file, read and written by all ranks together with MPI-IO
// (checkpoints, io/Checkpoint.hpp; voxel geometry, comm/VoxelInput.hpp): each rank's boxes become
// one file view of their x-rows (for one box, what a subarray view selects) and one collective
// call moves them, as seed 002 reads its geometry.
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

namespace boreas {

// One box of cells of a rank, [lo, hi) in global cells: its values, cells x fastest, `cell_bytes`
// each (checkpoints: populations; voxel files: one byte).
struct BoxBytes {
  std::array<int, 3> lo{0, 0, 0}, hi{0, 0, 0};
  std::vector<unsigned char> values;
  long long cells() const { return static_cast<long long>(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]); }
};

// Reads the values of `pieces` (boxes set by the caller, inside `cells`, disjoint on this rank;
// other ranks' may overlap them) from the array of `cells` x `cell_bytes` that starts at
// `data_offset` in `path`. Collective; throws Error on every rank when any rank fails.
void read_boxes(MPI_Comm comm, const std::string& path, long long data_offset, const std::array<int, 3>& cells,
                int cell_bytes, std::vector<BoxBytes>& pieces);

// Writes `pieces` (disjoint over all ranks) into the array at `data_offset` of the open `file`
// (collective); returns an error message or "" (every rank must then call agree()).
std::string write_boxes(MPI_File file, long long data_offset, const std::array<int, 3>& cells, int cell_bytes,
                        const std::vector<BoxBytes>& pieces);

// Every rank learns whether any failed (a non-empty `local_error`) and throws Error with the
// lowest failing rank's message.
void agree(MPI_Comm comm, const std::string& local_error);
// MPI_File_open on every rank of `comm`; where it fails on any, every rank throws Error
// "<path>: <failure>: <MPI's message>" (agree).
MPI_File open_file(MPI_Comm comm, const std::string& path, int mode, const std::string& failure);
std::string mpi_error(int code);

}  // namespace boreas
