// Boreas — ParaView-readable time series of AMR results (vtkOverlappingAMR).
//
// Per output: <dir>/<base>_<step>.vthb with one .vti per merged box under <dir>/<base>_<step>/
// (VTK's vtkXMLUniformGridAMRWriter layout): the blocks of each level are merged into as few
// boxes as a greedy sweep finds (x runs, then y, then z), not one file per leaf. Cells covered by
// a finer level are blanked (vtkGhostType), so ParaView shows each point once. Arrays on cells:
// density, velocity, flags, level and the patches' further arrays (time averages). <dir>/<base>.pvd lists the outputs (rewritten atomically).
//
// Geometry: level-0 cells have size 1 and the domain starts at -1/2 (level-0 cell i's centre at i,
// the deck's coordinates, as in VtkSeries.hpp); a level-l cell has size 2^-l (along z too, except
// in 2D, where every level is one plane at z = 0).
//
// Plain host C++17 (no Kokkos, no VTK types in the interface), like VtkSeries.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/PvdCollection.hpp"
#include "io/VtkSeries.hpp"

namespace boreas {

// One block of one level: a box of cells in that level's coordinates, x fastest; `arrays` more
// cell arrays (every patch of an output has the same ones).
struct AmrPatch {
  int level = 0;
  std::array<int, 3> lo{}, hi{};  // [lo, hi)
  std::vector<double> density, velocity;
  std::vector<std::uint8_t> flags;
  std::vector<CellFields::Extra> arrays;
};

class AmrSeries {
 public:
  AmrSeries(std::string directory, std::string basename, bool two_dimensional);

  // Writes one output; patches of one level must have equal sizes and not overlap. Returns the
  // number of boxes written per level. Throws std::runtime_error on I/O failure.
  std::vector<int> write(long step, double time, const std::vector<AmrPatch>& patches);

  // Continues a series a checkpointed run wrote: the .pvd's entries up to `time` are kept
  // (PvdCollection::resume, whose warning it returns).
  std::string resume(double time, bool written) { return pvd_.resume(time, written); }

  const std::vector<std::string>& files_written() const { return files_; }
  std::string pvd_path() const;
  std::string vthb_name(long step) const;  // relative to the directory

 private:
  std::string directory_, basename_;
  bool two_d_;
  PvdCollection pvd_;
  std::vector<std::string> files_;
  bool pvd_listed_ = false;  // the .pvd among files_
};

// Greedy merge of equal-sized blocks (given by their lower corners, in units of the block size)
// into boxes [lo, hi) in the same units; every block lands in exactly one box.
std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> merge_blocks(std::vector<std::array<int, 3>> corners);

}  // namespace boreas
