#include "io/AmrSeries.hpp"
#include "io/VtkXml.hpp"

#include <vtkAMRBox.h>
#include <vtkAMRUtilities.h>
#include <vtkCellData.h>
#include <vtkNew.h>
#include <vtkOverlappingAMR.h>
#include <vtkStructuredData.h>
#include <vtkUniformGrid.h>
#include <vtkXMLUniformGridAMRWriter.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace boreas {

std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> merge_blocks(std::vector<std::array<int, 3>> corners) {
  // (z, y, x) order, so that the first remaining block starts each box.
  auto zyx = [](const std::array<int, 3>& a) { return std::array<int, 3>{a[2], a[1], a[0]}; };
  std::set<std::array<int, 3>> left;
  for (const auto& c : corners) left.insert(zyx(c));
  std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>> boxes;
  while (!left.empty()) {
    const std::array<int, 3> s = *left.begin();  // z, y, x
    auto all_in = [&](int z0, int z1, int y0, int y1, int x0, int x1) {
      for (int z = z0; z < z1; ++z)
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x)
            if (!left.count({z, y, x})) return false;
      return true;
    };
    int x1 = s[2] + 1, y1 = s[1] + 1, z1 = s[0] + 1;
    while (all_in(s[0], z1, s[1], y1, x1, x1 + 1)) ++x1;
    while (all_in(s[0], z1, y1, y1 + 1, s[2], x1)) ++y1;
    while (all_in(z1, z1 + 1, s[1], y1, s[2], x1)) ++z1;
    for (int z = s[0]; z < z1; ++z)
      for (int y = s[1]; y < y1; ++y)
        for (int x = s[2]; x < x1; ++x) left.erase({z, y, x});
    boxes.push_back({{s[2], s[1], s[0]}, {x1, y1, z1}});
  }
  return boxes;
}

namespace {

std::string padded_step(long step) {
  std::string s = std::to_string(step);
  return std::string(s.size() < 6 ? 6 - s.size() : 0, '0') + s;
}

// vtkXMLUniformGridAMRWriter writes <name> and its boxes in a folder beside it, named after it
// without the extension: both are written in a staging folder and moved into place once whole (the
// earlier box folder moved aside first, then removed; put back where a move fails), so that a run
// killed while it rewrites an output (a restart repeats the steps after its checkpoint) leaves the
// earlier output readable (a kill between the moves leaves its boxes in the staging folder, which
// the next write of that output puts back first), and no box of an earlier, larger forest stays.
void write_composite_replacing(vtkXMLWriter* writer, const fs::path& directory, const std::string& name) {
  const std::string stem = fs::path(name).stem().string();
  const fs::path path = directory / name, boxes = directory / stem, stage = directory / ("." + stem + ".partial"),
                 earlier = stage / "earlier";
  std::error_code ec;
  if (fs::exists(earlier, ec) && !fs::exists(boxes, ec)) fs::rename(earlier, boxes, ec);  // a killed run's
  fs::remove_all(stage, ec);
  fs::create_directories(stage, ec);
  if (ec)
    throw std::runtime_error(path.string() + ": cannot write the VTK file (cannot create " + stage.string() + ": " +
                             ec.message() + ")");
  writer->SetFileName((stage / name).c_str());
  try {
    write_checked(writer, path.string());
  } catch (...) {
    fs::remove_all(stage, ec);
    throw;
  }
  std::error_code moved;
  const bool had_boxes = fs::exists(boxes, ec);
  bool placed = false;  // the new boxes in place
  if (had_boxes) fs::rename(boxes, earlier, moved);
  if (!moved) {
    fs::rename(stage / stem, boxes, moved);
    placed = !moved;
  }
  if (!moved) fs::rename(stage / name, path, moved);
  if (moved) {  // the earlier output back as it was
    if (placed) fs::remove_all(boxes, ec);
    if (had_boxes) fs::rename(earlier, boxes, ec);
  }
  fs::remove_all(stage, ec);
  if (moved)
    throw std::runtime_error(path.string() + ": cannot write the VTK file (cannot move it into place: " + moved.message() + ")");
}

}  // namespace

AmrSeries::AmrSeries(std::string directory, std::string basename, bool two_dimensional)
    : directory_(std::move(directory)), basename_(std::move(basename)), two_d_(two_dimensional),
      pvd_((fs::path(directory_) / (basename_ + ".pvd")).string()) {
  fs::create_directories(directory_);
}

std::string AmrSeries::pvd_path() const { return pvd_.path(); }
std::string AmrSeries::vthb_name(long step) const { return basename_ + "_" + padded_step(step) + ".vthb"; }

std::vector<int> AmrSeries::write(long step, double time, const std::vector<AmrPatch>& patches) {
  int levels = 0;
  for (const AmrPatch& p : patches) levels = std::max(levels, p.level + 1);
  // Per level: the patches by lower corner in block units, and the merged boxes.
  std::vector<std::map<std::array<int, 3>, const AmrPatch*>> by_corner(levels);
  std::vector<std::array<int, 3>> size(levels);
  for (const AmrPatch& p : patches) {
    for (int d = 0; d < 3; ++d) size[p.level][d] = p.hi[d] - p.lo[d];
    by_corner[p.level][{p.lo[0] / size[p.level][0], p.lo[1] / size[p.level][1], p.lo[2] / size[p.level][2]}] = &p;
  }
  std::vector<std::vector<std::pair<std::array<int, 3>, std::array<int, 3>>>> boxes(levels);
  std::vector<int> counts(levels);
  for (int l = 0; l < levels; ++l) {
    std::vector<std::array<int, 3>> corners;
    for (const auto& [c, p] : by_corner[l]) corners.push_back(c);
    boxes[l] = merge_blocks(corners);
    counts[l] = int(boxes[l].size());
  }

  vtkNew<vtkOverlappingAMR> amr;
  amr->Initialize(levels, counts.data());
  const double origin[3] = {first_cell_corner, first_cell_corner, two_d_ ? 0.0 : first_cell_corner};
  amr->SetOrigin(origin);
  // 2D: VTK's planar AMR (boxes without a z extent, grids one point thick), whose blanking
  // coarsens x and y only; one-cell-thick 3D boxes cannot be coarsened by 2 and blank nothing.
  amr->SetGridDescription(two_d_ ? VTK_XY_PLANE : VTK_XYZ_GRID);
  for (int l = 0; l < levels; ++l) {
    const double h = std::ldexp(1.0, -l);
    const double spacing[3] = {h, h, two_d_ ? 1.0 : h};
    amr->SetSpacing(l, spacing);
    if (l + 1 < levels) amr->SetRefinementRatio(l, 2);
    for (int i = 0; i < counts[l]; ++i) {
      const auto& [blo, bhi] = boxes[l][i];
      int lo[3], hi[3], n[3];
      for (int d = 0; d < 3; ++d) {
        lo[d] = blo[d] * size[l][d];
        hi[d] = bhi[d] * size[l][d] - 1;
        n[d] = hi[d] - lo[d] + 1;
      }
      if (two_d_) hi[2] = lo[2] - 1;
      amr->SetAMRBox(l, i, vtkAMRBox(lo, hi));
      const std::size_t cells = std::size_t(n[0]) * n[1] * n[2];
      std::vector<double> density(cells), velocity(3 * cells), level(cells, l);
      std::vector<std::uint8_t> flags(cells);
      const AmrPatch& first = *by_corner[l].at(blo);
      std::vector<CellFields::Extra> arrays;
      for (const CellFields::Extra& a : first.arrays) arrays.push_back({a.name, a.components, std::vector<double>(a.components * cells)});
      for (int bz = blo[2]; bz < bhi[2]; ++bz)
        for (int by = blo[1]; by < bhi[1]; ++by)
          for (int bx = blo[0]; bx < bhi[0]; ++bx) {
            const AmrPatch& p = *by_corner[l].at({bx, by, bz});
            const auto& s = size[l];
            for (int z = 0; z < s[2]; ++z)
              for (int y = 0; y < s[1]; ++y)
                for (int x = 0; x < s[0]; ++x) {
                  const std::size_t src = (std::size_t(z) * s[1] + y) * s[0] + x;
                  const std::size_t dst =
                      (std::size_t(p.lo[2] + z - lo[2]) * n[1] + (p.lo[1] + y - lo[1])) * n[0] + (p.lo[0] + x - lo[0]);
                  density[dst] = p.density[src];
                  for (int d = 0; d < 3; ++d) velocity[3 * dst + d] = p.velocity[3 * src + d];
                  flags[dst] = p.flags[src];
                  for (std::size_t k = 0; k < arrays.size(); ++k) {
                    const int c = arrays[k].components;
                    for (int d = 0; d < c; ++d) arrays[k].values[c * dst + d] = p.arrays.at(k).values[c * src + d];
                  }
                }
          }
      vtkNew<vtkUniformGrid> grid;
      const double box_origin[3] = {origin[0] + lo[0] * spacing[0], origin[1] + lo[1] * spacing[1],
                                    origin[2] + lo[2] * spacing[2]};
      grid->SetOrigin(box_origin);
      grid->SetSpacing(spacing);
      grid->SetDimensions(n[0] + 1, n[1] + 1, two_d_ ? 1 : n[2] + 1);
      vtkCellData* cd = grid->GetCellData();
      add_cell_array(cd, "density", density, 1);
      add_cell_array(cd, "velocity", velocity, 3);
      add_cell_array(cd, "level", level, 1);
      add_cell_array(cd, "flags", flags, 1);
      for (const CellFields::Extra& a : arrays) add_cell_array(cd, a.name.c_str(), a.values, a.components);
      cd->SetActiveScalars("density");
      cd->SetActiveVectors("velocity");
      amr->SetDataSet(l, i, grid);
    }
  }
  amr->GenerateParentChildInformation();
  vtkAMRUtilities::BlankCells(amr);

  const std::string name = vthb_name(step);
  const std::string path = (fs::path(directory_) / name).string();
  vtkNew<vtkXMLUniformGridAMRWriter> writer;
  writer->SetInputData(amr);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();
  writer->SetCompressorTypeToZLib();
  write_composite_replacing(writer, directory_, name);
  files_.push_back(path);

  pvd_.add(time, name);
  if (!pvd_listed_) files_.push_back(pvd_path());  // once, also when resumed after a restart
  pvd_listed_ = true;
  return counts;
}

}  // namespace boreas
