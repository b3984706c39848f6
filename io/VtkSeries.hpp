// Boreas — ParaView-readable time series of uniform-grid cell data (VTK XML ImageData).
//
// Serial:   <dir>/<base>_<step>.vti per output, <dir>/<base>.pvd listing all outputs so far.
// Pieces:   piece r (a block of the grid, written by the rank that holds it) goes to
//           <dir>/<base>_<step>_<r>.vti; piece 0's writer adds <dir>/<base>_<step>.pvti
//           (hand-written XML referencing every piece) and the .pvd, which then references the
//           .pvti files. One series object per piece.
// <step> is zero-padded to at least 6 digits. The .pvd is rewritten (atomically, via rename)
// after every output, so an interrupted run still leaves a valid series.
//
// Geometry: spacing 1, data on CELLS, the point extent of a piece [origin, origin + dims] per axis
// in global cell indices, and the image's origin at -1/2: cell i spans [i - 1/2, i + 1/2], its
// centre at i, the coordinates of the deck's obstacles and probes (a 2D run with nz = 1 is one
// layer of voxels, z in [-1/2, 1/2]).
//
// This header (and VtkSeries.cpp) is plain host C++17: no Kokkos, no lbm/, and no VTK types in
// the interface, so that it can be included anywhere and compiled by nvcc_wrapper.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/PvdCollection.hpp"

namespace boreas {

// Where the image's first cell corner lies (VtkSeries.hpp, AmrSeries.hpp): cell i's centre at i.
constexpr double first_cell_corner = -0.5;

struct CellFields {                         // host data, interior cells only, x fastest, then y, then z
  std::array<int, 3> dims{};                // cells of this piece (nz = 1 in 2D)
  std::array<int, 3> origin{};              // global index of this piece's first cell
  std::vector<double> density;              // one per cell
  std::vector<double> velocity;             // 3 per cell (vx, vy, vz)
  std::vector<double> vorticity_magnitude;  // one per cell (may be empty -> not written)
  std::vector<std::uint8_t> flags;          // one per cell (0 fluid, other values = boundary/solid codes)
                                            // (may be empty -> not written)
  struct Extra {                            // further double arrays (time averages, ...)
    std::string name;
    int components = 1;
    std::vector<double> values;             // components per cell
  };
  std::vector<Extra> extra;
};

class VtkSeries {
 public:
  using PieceBox = std::pair<std::array<int, 3>, std::array<int, 3>>;  // (origin, dims) in cells

  // Writes piece `rank` of `nranks` into `directory` (created if missing); every piece of a run
  // has one, with the same directory/basename. Throws std::invalid_argument on bad rank/nranks.
  VtkSeries(std::string directory, std::string basename, int rank = 0, int nranks = 1);

  // Writes one output: write_piece, then publish. `piece` is this rank's data; `global_dims` the
  // whole domain's cells; `all_pieces` the (origin, dims) of every rank's piece, indexed by rank —
  // required on rank 0 when nranks > 1 (ignored elsewhere). The .pvti declares the optional arrays
  // (vorticity_magnitude, flags, extra) that rank 0's piece has: all ranks must provide the same set.
  // Throws std::invalid_argument on inconsistent sizes, std::runtime_error on I/O failure.
  void write(long step, double time, const CellFields& piece, const std::array<int, 3>& global_dims,
             const std::vector<PieceBox>& all_pieces = {});
  // The two halves, for writers that first agree that every piece was written, so that the .pvd
  // never lists an output with a piece missing: this piece's .vti; then on rank 0 (nothing
  // elsewhere) the .pvti joining the pieces and the .pvd entry.
  void write_piece(long step, const CellFields& piece, const std::array<int, 3>& global_dims);
  void publish(long step, double time, const CellFields& piece, const std::array<int, 3>& global_dims,
               const std::vector<PieceBox>& all_pieces = {});

  // Continues a series a checkpointed run wrote: the .pvd's entries up to `time` are kept (rank 0;
  // PvdCollection::resume, whose warning it returns). Throws std::runtime_error on a .pvd it cannot
  // read.
  std::string resume(double time, bool written);

  // Paths written by this rank, in order (the .pvd appears once, when first written).
  const std::vector<std::string>& files_written() const { return files_; }

  // File names (relative to the directory) used for `step`.
  std::string piece_name(long step) const;  // .vti: serial file or this rank's piece
  std::string piece_name(long step, int rank) const;
  std::string master_name(long step) const;  // what the .pvd references (.vti or .pvti)

 private:
  void write_pvti(long step, const CellFields& piece, const std::array<int, 3>& global_dims,
                  const std::vector<PieceBox>& all_pieces);

  std::string directory_, basename_;
  int rank_ = 0, nranks_ = 1;
  PvdCollection pvd_;  // rank 0's
  std::vector<std::string> files_;
  bool pvd_listed_ = false;  // the .pvd among files_
};

}  // namespace boreas
