// Plain host C++17 + VTK. Must not include Kokkos or lbm/ headers (compiled by nvcc_wrapper in
// CUDA builds).
#include "io/VtkSeries.hpp"
#include "io/VtkXml.hpp"
#include "io/PvdCollection.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <vtkCellData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataWriter.h>


namespace fs = std::filesystem;

namespace boreas {

namespace {

std::string padded_step(long step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06ld", step);
  return buf;
}

std::string extent_string(const std::array<int, 3>& origin, const std::array<int, 3>& dims) {
  std::ostringstream s;
  for (int d = 0; d < 3; ++d) s << (d ? " " : "") << origin[d] << ' ' << origin[d] + dims[d];
  return s.str();
}

std::size_t cell_count(const std::array<int, 3>& dims) {
  return static_cast<std::size_t>(dims[0]) * static_cast<std::size_t>(dims[1]) *
         static_cast<std::size_t>(dims[2]);
}

void check_piece(const CellFields& p) {
  for (int d = 0; d < 3; ++d)
    if (p.dims[d] < 1) throw std::invalid_argument("VtkSeries: piece dims must be >= 1 in every direction");
  const std::size_t n = cell_count(p.dims);
  auto fail = [&](const char* what, std::size_t have, std::size_t want) {
    throw std::invalid_argument(std::string("VtkSeries: ") + what + " has " + std::to_string(have) +
                                " values, expected " + std::to_string(want));
  };
  if (p.density.size() != n) fail("density", p.density.size(), n);
  if (p.velocity.size() != 3 * n) fail("velocity", p.velocity.size(), 3 * n);
  if (!p.vorticity_magnitude.empty() && p.vorticity_magnitude.size() != n)
    fail("vorticity_magnitude", p.vorticity_magnitude.size(), n);
  if (!p.flags.empty() && p.flags.size() != n) fail("flags", p.flags.size(), n);
  for (const auto& e : p.extra)
    if (e.values.size() != std::size_t(e.components) * n) fail(e.name.c_str(), e.values.size(), std::size_t(e.components) * n);
}

void write_vti(const std::string& path, const CellFields& p) {
  vtkNew<vtkImageData> image;
  image->SetOrigin(first_cell_corner, first_cell_corner, first_cell_corner);
  image->SetSpacing(1.0, 1.0, 1.0);
  image->SetExtent(p.origin[0], p.origin[0] + p.dims[0], p.origin[1], p.origin[1] + p.dims[1],
                   p.origin[2], p.origin[2] + p.dims[2]);

  vtkCellData* cd = image->GetCellData();
  add_cell_array(cd, "density", p.density, 1);
  add_cell_array(cd, "velocity", p.velocity, 3);
  if (!p.vorticity_magnitude.empty()) add_cell_array(cd, "vorticity_magnitude", p.vorticity_magnitude, 1);
  if (!p.flags.empty()) add_cell_array(cd, "flags", p.flags, 1);
  for (const auto& e : p.extra) add_cell_array(cd, e.name.c_str(), e.values, e.components);
  cd->SetActiveScalars("density");
  cd->SetActiveVectors("velocity");

  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetInputData(image);
  writer->SetDataModeToAppended();
  writer->EncodeAppendedDataOff();  // raw binary
  writer->SetCompressorTypeToZLib();
  writer->SetHeaderTypeToUInt64();
  write_replacing(writer, path);
}

}  // namespace

VtkSeries::VtkSeries(std::string directory, std::string basename, int rank, int nranks)
    : directory_(std::move(directory)), basename_(std::move(basename)), rank_(rank), nranks_(nranks),
      pvd_((fs::path(directory_) / (basename_ + ".pvd")).string()) {
  if (nranks_ < 1 || rank_ < 0 || rank_ >= nranks_)
    throw std::invalid_argument("VtkSeries: invalid rank " + std::to_string(rank_) + " of " +
                                std::to_string(nranks_));
  if (basename_.empty()) throw std::invalid_argument("VtkSeries: empty basename");
  if (directory_.empty()) directory_ = ".";
  std::error_code ec;
  fs::create_directories(directory_, ec);  // several ranks may race here: only the outcome matters
  if (!fs::is_directory(directory_))
    throw std::runtime_error("VtkSeries: cannot create directory " + directory_ +
                             (ec ? ": " + ec.message() : std::string()));
}


std::string VtkSeries::piece_name(long step) const { return piece_name(step, rank_); }

std::string VtkSeries::piece_name(long step, int rank) const {
  if (nranks_ == 1) return basename_ + "_" + padded_step(step) + ".vti";
  return basename_ + "_" + padded_step(step) + "_" + std::to_string(rank) + ".vti";
}

std::string VtkSeries::master_name(long step) const {
  if (nranks_ == 1) return piece_name(step);
  return basename_ + "_" + padded_step(step) + ".pvti";
}

void VtkSeries::write(long step, double time, const CellFields& piece, const std::array<int, 3>& global_dims,
                      const std::vector<PieceBox>& all_pieces) {
  write_piece(step, piece, global_dims);
  publish(step, time, piece, global_dims, all_pieces);
}

void VtkSeries::write_piece(long step, const CellFields& piece, const std::array<int, 3>& global_dims) {
  check_piece(piece);
  for (int d = 0; d < 3; ++d) {
    if (piece.origin[d] < 0 || piece.origin[d] + piece.dims[d] > global_dims[d])
      throw std::invalid_argument("VtkSeries: piece [" + extent_string(piece.origin, piece.dims) +
                                  "] lies outside the global cells " + std::to_string(global_dims[0]) + "x" +
                                  std::to_string(global_dims[1]) + "x" + std::to_string(global_dims[2]));
  }

  const std::string vti = (fs::path(directory_) / piece_name(step)).string();
  write_vti(vti, piece);
  files_.push_back(vti);
}

void VtkSeries::publish(long step, double time, const CellFields& piece, const std::array<int, 3>& global_dims,
                        const std::vector<PieceBox>& all_pieces) {
  if (rank_ != 0) return;

  if (nranks_ > 1) write_pvti(step, piece, global_dims, all_pieces);

  pvd_.add(time, master_name(step));
  if (!pvd_listed_) files_.push_back(pvd_.path());  // once, also when resumed after a restart
  pvd_listed_ = true;
}

void VtkSeries::write_pvti(long step, const CellFields& piece, const std::array<int, 3>& global_dims,
                           const std::vector<PieceBox>& all_pieces) {
  if (static_cast<int>(all_pieces.size()) != nranks_)
    throw std::invalid_argument("VtkSeries: rank 0 needs all_pieces for all " + std::to_string(nranks_) +
                                " ranks, got " + std::to_string(all_pieces.size()));
  for (const auto& [o, dm] : all_pieces)
    for (int d = 0; d < 3; ++d)
      if (dm[d] < 1 || o[d] < 0 || o[d] + dm[d] > global_dims[d])
        throw std::invalid_argument("VtkSeries: piece [" + extent_string(o, dm) + "] invalid for global cells");

  std::ostringstream x;
  x << "<?xml version=\"1.0\"?>\n"
    << "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"" << byte_order()
    << "\" header_type=\"UInt64\">\n"
    << "  <PImageData WholeExtent=\"" << extent_string({0, 0, 0}, global_dims)
    << "\" GhostLevel=\"0\" Origin=\"" << first_cell_corner << " " << first_cell_corner << " " << first_cell_corner
    << "\" Spacing=\"1 1 1\">\n"
    << "    <PCellData Scalars=\"density\" Vectors=\"velocity\">\n"
    << "      <PDataArray type=\"Float64\" Name=\"density\"/>\n"
    << "      <PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n";
  if (!piece.vorticity_magnitude.empty()) x << "      <PDataArray type=\"Float64\" Name=\"vorticity_magnitude\"/>\n";
  if (!piece.flags.empty()) x << "      <PDataArray type=\"UInt8\" Name=\"flags\"/>\n";
  for (const auto& e : piece.extra)
    x << "      <PDataArray type=\"Float64\" Name=\"" << e.name << "\" NumberOfComponents=\"" << e.components << "\"/>\n";
  x << "    </PCellData>\n";
  for (int r = 0; r < nranks_; ++r)
    x << "    <Piece Extent=\"" << extent_string(all_pieces[r].first, all_pieces[r].second) << "\" Source=\""
      << xml_escape(piece_name(step, r)) << "\"/>\n";
  x << "  </PImageData>\n"
    << "</VTKFile>\n";

  const std::string path = (fs::path(directory_) / master_name(step)).string();
  write_text_atomically(path, x.str());
  files_.push_back(path);
}

std::string VtkSeries::resume(double time, bool written) { return rank_ == 0 ? pvd_.resume(time, written) : ""; }

}  // namespace boreas
