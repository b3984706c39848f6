// Unit tests of io/Json (the properties reports rely on), io/VtkSeries and io/Checkpoint's writes
// that fail (host only, no Kokkos).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <csignal>

#include <sys/resource.h>
#include <unistd.h>

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>

#include "comm/Mpi.hpp"
#include "core/Error.hpp"
#include "io/AmrSeries.hpp"
#include "io/Checkpoint.hpp"
#include "io/Json.hpp"
#include "io/VtkSeries.hpp"

namespace fs = std::filesystem;
using namespace boreas;

// ---------------------------------------------------------------------------------------------
// JSON: the report relies on doubles reading back bit for bit (tests/mpi/test_output_independence)
// and on non-finite values staying valid JSON.

TEST(Json, DoublesRoundTripExactly) {
  const double values[] = {0.1, 1e-300, 2.0, -0.0, 1.0 / 3.0, 6.02214076e23, 5e-324,
                           std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                           123456789012345680.0, -1.5e-7, 1e21, 0.0};
  for (double d : values) {
    const std::string s = Json(d).dump();
    const Json back = Json::parse(s);
    ASSERT_TRUE(back.is_number_float()) << s;
    EXPECT_EQ(std::signbit(back.get<double>()), std::signbit(d)) << s;
    EXPECT_EQ(back.get<double>(), d) << s;
  }
  EXPECT_EQ(Json(2.0).dump(), "2.0");
  EXPECT_EQ(Json(0.1).dump(), "0.1");
  EXPECT_EQ(Json(-3.0).dump(), "-3.0");
  EXPECT_EQ(Json(1e-300).dump(), "1e-300");
  EXPECT_EQ(Json(2).dump(), "2");  // integers stay integers
}

TEST(Json, NonFiniteDumpsAsNull) {
  Json v = Json::array({std::nan(""), std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()});
  EXPECT_EQ(v.dump(-1), "[null,null,null]");
  EXPECT_TRUE(Json::parse(v.dump())[0].is_null());
}

// ---------------------------------------------------------------------------------------------
// VTK

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("boreas_test_io_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// Deterministic values depending on the *global* cell index, so pieces can be checked after merging.
double rho_at(int i, int j, int k) { return 1.0 + 0.001 * i + 0.01 * j + 0.1 * k + 1e-13; }
double vel_at(int i, int j, int k, int c) { return (c + 1) * 0.1 * i - 0.03 * j + 0.007 * k * (c - 1) + 1.0 / 3.0; }
double vort_at(int i, int j, int k) { return std::sqrt(1.0 + i + 2 * j + 3 * k); }
std::uint8_t flag_at(int i, int j, int k) { return static_cast<std::uint8_t>((i + 3 * j + 7 * k) % 5 == 0 ? 0 : 1 + (i + j + k) % 250); }

CellFields make_piece(std::array<int, 3> origin, std::array<int, 3> dims, double shift = 0.0,
                      bool with_vorticity = true) {
  CellFields p;
  p.origin = origin;
  p.dims = dims;
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {
        const int gi = origin[0] + i, gj = origin[1] + j, gk = origin[2] + k;
        p.density.push_back(rho_at(gi, gj, gk) + shift);
        for (int c = 0; c < 3; ++c) p.velocity.push_back(vel_at(gi, gj, gk, c));
        if (with_vorticity) p.vorticity_magnitude.push_back(vort_at(gi, gj, gk));
        p.flags.push_back(flag_at(gi, gj, gk));
      }
  return p;
}

// Checks every value of `img` (whose extent covers `dims` cells from `origin`) against the formulas.
void check_image(vtkImageData* img, std::array<int, 3> origin, std::array<int, 3> dims, double shift = 0.0,
                 bool with_vorticity = true) {
  int ext[6];
  img->GetExtent(ext);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(ext[2 * d], origin[d]) << "axis " << d;
    EXPECT_EQ(ext[2 * d + 1], origin[d] + dims[d]) << "axis " << d;
  }
  double spacing[3], org[3];
  img->GetSpacing(spacing);
  img->GetOrigin(org);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(spacing[d], 1.0);
    EXPECT_EQ(org[d], -0.5);  // cell i's centre at i, the deck's coordinates
  }
  const vtkIdType n = static_cast<vtkIdType>(dims[0]) * dims[1] * dims[2];
  ASSERT_EQ(img->GetNumberOfCells(), n);
  vtkCellData* cd = img->GetCellData();
  vtkDataArray* rho = cd->GetArray("density");
  vtkDataArray* vel = cd->GetArray("velocity");
  vtkDataArray* vort = cd->GetArray("vorticity_magnitude");
  vtkDataArray* flags = cd->GetArray("flags");
  ASSERT_NE(rho, nullptr);
  ASSERT_NE(vel, nullptr);
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ(rho->GetDataType(), VTK_DOUBLE);
  EXPECT_EQ(vel->GetDataType(), VTK_DOUBLE);
  EXPECT_EQ(flags->GetDataType(), VTK_UNSIGNED_CHAR);
  EXPECT_EQ(vel->GetNumberOfComponents(), 3);
  EXPECT_EQ(rho->GetNumberOfTuples(), n);
  EXPECT_EQ(vel->GetNumberOfTuples(), n);
  EXPECT_EQ(flags->GetNumberOfTuples(), n);
  if (with_vorticity) {
    ASSERT_NE(vort, nullptr);
    EXPECT_EQ(vort->GetDataType(), VTK_DOUBLE);
    EXPECT_EQ(vort->GetNumberOfTuples(), n);
  } else {
    EXPECT_EQ(vort, nullptr);
  }
  int mismatches = 0;
  for (int k = 0; k < dims[2]; ++k)
    for (int j = 0; j < dims[1]; ++j)
      for (int i = 0; i < dims[0]; ++i) {
        const int gi = origin[0] + i, gj = origin[1] + j, gk = origin[2] + k;
        int ijk[3] = {gi, gj, gk};
        const vtkIdType id = img->ComputeCellId(ijk);
        ASSERT_EQ(id, i + dims[0] * (j + dims[1] * static_cast<vtkIdType>(k)));
        if (rho->GetComponent(id, 0) != rho_at(gi, gj, gk) + shift) ++mismatches;
        for (int c = 0; c < 3; ++c)
          if (vel->GetComponent(id, c) != vel_at(gi, gj, gk, c)) ++mismatches;
        if (with_vorticity && vort->GetComponent(id, 0) != vort_at(gi, gj, gk)) ++mismatches;
        if (flags->GetComponent(id, 0) != flag_at(gi, gj, gk)) ++mismatches;
      }
  EXPECT_EQ(mismatches, 0);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(VtkSeries, SerialPieceRoundTrip) {
  const fs::path dir = fresh_dir("serial") / "nested" / "out";  // created on demand
  VtkSeries series(dir.string(), "flow");
  const std::array<int, 3> dims{5, 4, 3};
  series.write(7, 0.25, make_piece({0, 0, 0}, dims), dims);

  const fs::path vti = dir / "flow_000007.vti";
  ASSERT_TRUE(fs::exists(vti));
  ASSERT_EQ(series.files_written().size(), 2u);
  EXPECT_EQ(fs::path(series.files_written()[0]), vti);
  EXPECT_EQ(fs::path(series.files_written()[1]), dir / "flow.pvd");

  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(vti.string().c_str());
  reader->Update();
  check_image(reader->GetOutput(), {0, 0, 0}, dims);
  fs::remove_all(dir.parent_path().parent_path());
}

TEST(VtkSeries, OffsetPieceAndOptionalArrays2D) {
  const fs::path dir = fresh_dir("offset");
  VtkSeries series(dir.string(), "p");
  const std::array<int, 3> origin{3, 2, 0}, dims{4, 6, 1};
  series.write(1234567, 1.0, make_piece(origin, dims, 0.5, /*with_vorticity=*/false), {10, 10, 1});
  const fs::path vti = dir / "p_1234567.vti";
  ASSERT_TRUE(fs::exists(vti));
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(vti.string().c_str());
  reader->Update();
  check_image(reader->GetOutput(), origin, dims, 0.5, false);
  fs::remove_all(dir);
}

TEST(VtkSeries, RejectsInconsistentInput) {
  const fs::path dir = fresh_dir("bad");
  VtkSeries series(dir.string(), "bad");
  CellFields p = make_piece({0, 0, 0}, {2, 2, 2});
  p.density.pop_back();
  EXPECT_THROW(series.write(0, 0.0, p, {2, 2, 2}), std::invalid_argument);
  EXPECT_THROW(series.write(0, 0.0, make_piece({1, 0, 0}, {2, 2, 2}), {2, 2, 2}), std::invalid_argument);
  EXPECT_THROW(VtkSeries(dir.string(), "x", 2, 2), std::invalid_argument);
  VtkSeries r0(dir.string(), "par", 0, 2);
  EXPECT_THROW(r0.write(0, 0.0, make_piece({0, 0, 0}, {1, 2, 2}), {2, 2, 2}), std::invalid_argument);  // no all_pieces
  fs::remove_all(dir);
}

TEST(VtkSeries, PvdListsEveryStep) {
  const fs::path dir = fresh_dir("pvd");
  VtkSeries series(dir.string(), "run");
  const std::array<int, 3> dims{3, 3, 2};
  series.write(0, 0.0, make_piece({0, 0, 0}, dims), dims);
  const std::string after_first = read_text(dir / "run.pvd");
  EXPECT_NE(after_first.find("file=\"run_000000.vti\""), std::string::npos);
  series.write(100, 2.5, make_piece({0, 0, 0}, dims, 1.0), dims);

  const std::string pvd = read_text(dir / "run.pvd");
  EXPECT_NE(pvd.find("type=\"Collection\""), std::string::npos);
  EXPECT_NE(pvd.find("<DataSet timestep=\"0\""), std::string::npos) << pvd;
  EXPECT_NE(pvd.find("<DataSet timestep=\"2.5\""), std::string::npos) << pvd;
  EXPECT_LT(pvd.find("run_000000.vti"), pvd.find("run_000100.vti"));
  EXPECT_FALSE(fs::exists(dir / "run.pvd.tmp"));

  // every referenced file exists (relative to the .pvd)
  int referenced = 0;
  for (std::size_t pos = pvd.find("file=\""); pos != std::string::npos; pos = pvd.find("file=\"", pos + 1)) {
    const std::size_t start = pos + 6, end = pvd.find('"', start);
    const std::string name = pvd.substr(start, end - start);
    EXPECT_TRUE(fs::exists(dir / name)) << name;
    ++referenced;
  }
  EXPECT_EQ(referenced, 2);
  EXPECT_EQ(series.files_written().size(), 3u);  // two .vti + the .pvd once

  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName((dir / "run_000100.vti").string().c_str());
  reader->Update();
  check_image(reader->GetOutput(), {0, 0, 0}, dims, 1.0);
  fs::remove_all(dir);
}

TEST(VtkSeries, TwoRankParallelStep) {
  const fs::path dir = fresh_dir("parallel");
  const std::array<int, 3> global{6, 4, 3};
  // split along y: rank 0 has y in [0,1], rank 1 has y in [2,3]
  const std::vector<VtkSeries::PieceBox> pieces = {{{0, 0, 0}, {6, 2, 3}}, {{0, 2, 0}, {6, 2, 3}}};
  VtkSeries r0(dir.string(), "par", 0, 2);
  VtkSeries r1(dir.string(), "par", 1, 2);
  for (long step : {10L, 20L}) {
    const double shift = step == 10 ? 0.0 : 1.0;
    r1.write(step, 0.1 * step, make_piece(pieces[1].first, pieces[1].second, shift), global);
    r0.write(step, 0.1 * step, make_piece(pieces[0].first, pieces[0].second, shift), global, pieces);
  }
  EXPECT_TRUE(fs::exists(dir / "par_000010_0.vti"));
  EXPECT_TRUE(fs::exists(dir / "par_000010_1.vti"));
  EXPECT_TRUE(fs::exists(dir / "par_000020.pvti"));
  EXPECT_EQ(r1.files_written().size(), 2u);      // only its pieces
  EXPECT_EQ(r0.files_written().size(), 5u);      // 2 pieces + 2 pvti + pvd

  const std::string pvd = read_text(dir / "par.pvd");
  EXPECT_NE(pvd.find("file=\"par_000010.pvti\""), std::string::npos) << pvd;
  EXPECT_NE(pvd.find("file=\"par_000020.pvti\""), std::string::npos) << pvd;
  EXPECT_EQ(pvd.find(".vti\""), std::string::npos) << pvd;

  for (long step : {10L, 20L}) {
    const double shift = step == 10 ? 0.0 : 1.0;
    vtkNew<vtkXMLPImageDataReader> reader;
    const std::string name = (dir / (step == 10 ? "par_000010.pvti" : "par_000020.pvti")).string();
    reader->SetFileName(name.c_str());
    reader->UpdateInformation();
    EXPECT_EQ(reader->GetNumberOfPieces(), 2);
    reader->Update();
    vtkImageData* img = reader->GetOutput();
    ASSERT_NE(img, nullptr);
    // the whole extent, with values from both pieces
    check_image(img, {0, 0, 0}, global, shift);
  }
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// Writes that fail: a full disk (here a file-size limit, which makes writes past it fail as a full
// disk does) or a directory where the file goes. Nothing that looks written may be left.

namespace {

// RLIMIT_FSIZE lowered for the scope; SIGXFSZ ignored, so that the write fails instead of the process.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, old_.rlim_max};
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

std::vector<unsigned char> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(Checkpoint, AWriteThatDoesNotFitNeverReplacesTheEarlierOne) {
  ensure_mpi_initialized();
  const fs::path dir = fresh_dir("checkpoint_full");
  const std::string path = (dir / "run.bchk").string();
  const std::array<int, 3> cells{32, 32, 8};
  const int cell_bytes = 64;  // 512 KiB of data
  BoxBytes piece;
  piece.hi = cells;
  piece.values.resize(static_cast<std::size_t>(piece.cells()) * cell_bytes);
  for (std::size_t i = 0; i < piece.values.size(); ++i) piece.values[i] = static_cast<unsigned char>(i * 7);
  write_checkpoint(MPI_COMM_SELF, path, Json::object(), cells, cell_bytes, {piece});
  const std::vector<unsigned char> good = bytes_of(path);
  ASSERT_GT(good.size(), piece.values.size());
  for (unsigned char& v : piece.values) v ^= 0x5a;
  try {
    FileSizeLimit limit(200 * 1024);
    write_checkpoint(MPI_COMM_SELF, path, Json::object(), cells, cell_bytes, {piece});
    ADD_FAILURE() << "a checkpoint larger than the space left was reported written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run.bchk.tmp"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes_of(path), good) << "the earlier checkpoint changed";
  EXPECT_FALSE(fs::exists(path + ".tmp")) << "a partial checkpoint was left behind";
  EXPECT_EQ(read_checkpoint_header(MPI_COMM_SELF, path)["cells"], Json(cells));
  fs::remove_all(dir);
}

// A checkpoint's cells are its writer's bytes: the header says in which order, and a machine of
// the other order refuses it by name (it would read "corrupt": the data hash mixes native words).
// A header without the key (checkpoints written before it) is read as before, in this machine's
// order. Headers rewritten here with their hash made to match.
TEST(Checkpoint, TheWritersByteOrderIsRecordedAndChecked) {
  ensure_mpi_initialized();
  const fs::path dir = fresh_dir("checkpoint_order");
  const std::string path = (dir / "run.bchk").string();
  const std::array<int, 3> cells{4, 4, 4};
  BoxBytes piece;
  piece.hi = cells;
  piece.values.assign(static_cast<std::size_t>(piece.cells()) * 8, 7);
  write_checkpoint(MPI_COMM_SELF, path, Json::object(), cells, 8, {piece});
  const std::uint16_t one = 1;
  const std::string native = *reinterpret_cast<const unsigned char*>(&one) == 1 ? "little" : "big",
                    other = native == "little" ? "big" : "little";
  EXPECT_EQ(read_checkpoint_header(MPI_COMM_SELF, path)["byte_order"], native);
  const std::vector<unsigned char> written = bytes_of(path);
  const auto rewrite = [&](const std::function<void(Json&)>& change) {
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= std::uint64_t(written[8 + i]) << (8 * i);
    Json header = Json::parse(std::string(written.begin() + 24, written.begin() + 24 + long(length)));
    change(header);
    const std::string text = header.dump();
    std::vector<unsigned char> bytes = written;
    std::fill(bytes.begin() + 24, bytes.begin() + 24 + long(length), 0);
    std::copy(text.begin(), text.end(), bytes.begin() + 24);
    for (int i = 0; i < 8; ++i) {
      bytes[8 + i] = static_cast<unsigned char>(text.size() >> (8 * i));
      bytes[16 + i] = static_cast<unsigned char>(text_hash(text) >> (8 * i));
    }
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  };
  rewrite([&](Json& h) { h["byte_order"] = other; });
  try {
    read_checkpoint_header(MPI_COMM_SELF, path);
    ADD_FAILURE() << "a checkpoint of the other byte order was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run.bchk: written on a " + other + "-endian machine; this one is " + native),
              std::string::npos) << e.what();
  }
  rewrite([](Json& h) { h["byte_order"] = 1; });
  EXPECT_THROW(read_checkpoint_header(MPI_COMM_SELF, path), Error);
  rewrite([](Json& h) { h.erase("byte_order"); });
  std::vector<BoxBytes> read(1);
  read[0].hi = cells;
  read_checkpoint_values(MPI_COMM_SELF, path, read_checkpoint_header(MPI_COMM_SELF, path), read);
  EXPECT_EQ(read[0].values, piece.values);
  fs::remove_all(dir);
}

TEST(VtkSeries, AFileThatCannotBeWrittenThrowsAndIsNotListed) {
  const fs::path dir = fresh_dir("unwritable");
  VtkSeries series(dir.string(), "flow");
  const std::array<int, 3> dims{40, 40, 40};
  fs::create_directories(dir / "flow_000001.vti");  // a directory where the file goes
  try {
    series.write(1, 1.0, make_piece({0, 0, 0}, dims), dims);
    ADD_FAILURE() << "no error for a .vti path that is a directory";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("flow_000001.vti: cannot write the VTK file"), std::string::npos) << e.what();
  }
  try {
    FileSizeLimit limit(64 * 1024);  // the piece's arrays, compressed, are larger
    series.write(2, 2.0, make_piece({0, 0, 0}, dims), dims);
    ADD_FAILURE() << "no error for a .vti file cut short";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("flow_000002.vti: cannot write the VTK file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(series.files_written().empty());
  fs::remove_all(dir);
}

// A restart repeats the steps after its checkpoint and rewrites their outputs: a rewrite that
// fails (here cut short by the file size limit, as a full disk or a kill would) leaves the earlier
// output as it was, readable, and no temporary beside it. Both series: the uniform grid's .vti and
// the AMR's .vthb with its folder of boxes.
TEST(VtkSeries, ARewriteCutShortLeavesTheEarlierOutput) {
  const fs::path dir = fresh_dir("rewrite");
  const std::array<int, 3> dims{40, 40, 40};
  VtkSeries series(dir.string(), "flow");
  series.write(3, 3.0, make_piece({0, 0, 0}, dims), dims);
  const std::vector<unsigned char> vti = bytes_of(dir / "flow_000003.vti");
  {
    FileSizeLimit limit(64 * 1024);
    EXPECT_THROW(series.write(3, 3.0, make_piece({0, 0, 0}, dims, 1.0), dims), std::runtime_error);
  }
  EXPECT_EQ(bytes_of(dir / "flow_000003.vti"), vti);
  EXPECT_FALSE(fs::exists(dir / "flow_000003.vti.tmp"));

  // Two levels, level 1 in two 16^3 blocks, then in one: the rewrite that holds fewer boxes
  // leaves none of the earlier ones behind.
  AmrSeries amr(dir.string(), "amr", false);
  auto patch = [](int level, std::array<int, 3> lo, int n, double value) {
    AmrPatch p;
    p.level = level;
    p.lo = lo;
    p.hi = {lo[0] + n, lo[1] + n, lo[2] + n};
    const std::size_t cells = std::size_t(n) * n * n;
    p.flags.assign(cells, 0);
    for (std::size_t i = 0; i < 3 * cells; ++i) {  // values that do not compress away
      if (i < cells) p.density.push_back(value + 1e-3 * std::sin(12.9898 * double(i)));
      p.velocity.push_back(1e-2 * std::sin(78.233 * double(i)));
    }
    return p;
  };
  const std::vector<AmrPatch> two = {patch(0, {0, 0, 0}, 16, 1.0), patch(1, {0, 0, 0}, 16, 1.5), patch(1, {16, 16, 16}, 16, 1.5)};
  amr.write(5, 5.0, two);
  const fs::path boxes = dir / "amr_000005";
  const auto listing = [&] {
    std::vector<std::pair<std::string, std::vector<unsigned char>>> files;
    for (const auto& f : fs::directory_iterator(boxes)) files.push_back({f.path().filename().string(), bytes_of(f.path())});
    std::sort(files.begin(), files.end());
    return files;
  };
  const auto earlier = listing();
  const std::vector<unsigned char> vthb = bytes_of(dir / "amr_000005.vthb");
  ASSERT_EQ(earlier.size(), 3u);
  {
    FileSizeLimit limit(16 * 1024);
    EXPECT_THROW(amr.write(5, 5.0, {patch(0, {0, 0, 0}, 16, 2.0), patch(1, {0, 0, 0}, 16, 2.5), patch(1, {16, 16, 16}, 16, 2.5)}),
                 std::runtime_error);
  }
  EXPECT_EQ(listing(), earlier);
  EXPECT_EQ(bytes_of(dir / "amr_000005.vthb"), vthb);
  amr.write(5, 5.0, {patch(0, {0, 0, 0}, 16, 1.0), patch(1, {0, 0, 0}, 16, 1.5)});
  EXPECT_EQ(listing().size(), 2u);
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(dir)) names.push_back(f.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"amr.pvd", "amr_000005", "amr_000005.vthb", "flow.pvd", "flow_000003.vti"}));
  fs::remove_all(dir);
}
