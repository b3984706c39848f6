// The PNG plots of a run (io/LinePlot.hpp, drivers/RunPlots.hpp), read back as a viewer would:
// the file is a valid PNG (signature, chunk CRCs, the image data inflates to the rows), pixels
// come back as written, a plotted series lies where its values say, and a run with [forces] and
// probes writes forces.png and probes.png and lists them in report.json.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/Deck.hpp"
#include "drivers/Simulation.hpp"
#include "io/LinePlot.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  std::array<std::uint8_t, 3> at(int x, int y) const {
    const std::size_t i = (std::size_t(y) * width + x) * 3;
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// Reads an 8-bit truecolour PNG with unfiltered rows (what write_png writes), checking every
// chunk's CRC; fails the test on anything else.
Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Image image;
  const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  EXPECT_GE(bytes.size(), 8u);
  if (bytes.size() < 8 || !std::equal(signature, signature + 8, bytes.begin())) {
    ADD_FAILURE() << path << ": no PNG signature";
    return image;
  }
  std::vector<std::uint8_t> idat;
  bool ended = false;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    const std::uint32_t length = be32(&bytes[at]);
    const std::string type(bytes.begin() + long(at) + 4, bytes.begin() + long(at) + 8);
    const std::uint8_t* data = &bytes[at + 8];
    const uLong crc = length ? crc32(crc32(0, &bytes[at + 4], 4), data, length) : crc32(0, &bytes[at + 4], 4);
    EXPECT_EQ(be32(data + length), std::uint32_t(crc)) << path << ": CRC of chunk " << type;
    if (type == "IHDR") {
      image.width = int(be32(data));
      image.height = int(be32(data + 4));
      EXPECT_EQ(data[8], 8);  // bit depth
      EXPECT_EQ(data[9], 2);  // truecolour
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + length);
    } else if (type == "IEND") {
      ended = true;
    }
    at += 12 + length;
  }
  EXPECT_TRUE(ended) << path << ": no IEND chunk";
  const std::size_t row = 1 + std::size_t(image.width) * 3;
  std::vector<std::uint8_t> raw(row * image.height);
  uLongf size = uLongf(raw.size());
  EXPECT_EQ(uncompress(raw.data(), &size, idat.data(), uLong(idat.size())), Z_OK);
  EXPECT_EQ(size, raw.size());
  for (int y = 0; y < image.height; ++y) {
    EXPECT_EQ(raw[y * row], 0) << "row " << y << " filter";
    image.rgb.insert(image.rgb.end(), raw.begin() + long(y * row + 1), raw.begin() + long((y + 1) * row));
  }
  return image;
}

TEST(LinePlot, TicksAreOneTwoFiveStepsInsideTheRange) {
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(nice_ticks(-3.7, 12.2, 5), (std::vector<double>{-0.0, 5, 10}));
  const std::vector<double> small = nice_ticks(1e-6, 3.2e-6, 4);  // 5.5e-7 per tick wanted: 1e-6
  ASSERT_EQ(small.size(), 3u);
  EXPECT_NEAR(small[1] - small[0], 1e-6, 1e-20);
  EXPECT_EQ(nice_ticks(1e-6, 3.2e-6, 5).size(), 5u);  // 4.4e-7 wanted: 5e-7 from 1e-6 to 3e-6
  EXPECT_TRUE(nice_ticks(1, 1, 5).empty());
  EXPECT_TRUE(nice_ticks(1.0, 1.0 + 4.5e-16, 5).empty());  // narrower than the values' resolution
}

// The topmost pixel of the series' colour per column that holds the line (1-3 such pixels; the
// legend's swatch is taller).
std::vector<int> line_rows(const Image& image) {
  const std::array<std::uint8_t, 3> blue{31, 119, 180};
  std::vector<int> rows;
  for (int x = 0; x < image.width; ++x) {
    int top = -1, count = 0;
    for (int y = 0; y < image.height; ++y)
      if (image.at(x, y) == blue) {
        if (top < 0) top = y;
        ++count;
      }
    if (top >= 0 && count <= 3) rows.push_back(top);
  }
  return rows;
}

// A series flat to a few ulp (a probe's density at rest) draws as a constant, not a hang: one
// horizontal line across the panel.
TEST(LinePlot, SeriesFlatToRoundOffIsDrawn) {
  PlotSeries s{"rho", {0, 1, 2, 3}, {1.0, 1.0000000000000002, 1.0, 1.0000000000000004}};
  const std::string path = (fs::temp_directory_path() / "boreas_flat_plot.png").string();
  write_line_plot(path, {PlotPanel{"density", {s}}}, "step");
  const Image image = read_png(path);
  EXPECT_EQ(image.width, 960);
  const std::vector<int> rows = line_rows(image);
  ASSERT_GT(rows.size(), 600u);  // the line spans most of the 826-pixel-wide panel
  EXPECT_LE(*std::max_element(rows.begin(), rows.end()) - *std::min_element(rows.begin(), rows.end()), 1);
  fs::remove(path);
}

TEST(LinePlot, PngRoundTripsItsPixels) {
  const int w = 37, h = 11;
  std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = std::uint8_t(i * 7 % 251);
  const std::string path = (fs::temp_directory_path() / "boreas_png_roundtrip.png").string();
  write_png(path, w, h, rgb);
  const Image image = read_png(path);
  EXPECT_EQ(image.width, w);
  EXPECT_EQ(image.height, h);
  EXPECT_EQ(image.rgb, rgb);
  fs::remove(path);
}

// y = x over [0, 100]: the series' colour appears in every column the line crosses, one or two
// pixels thick, and climbs from the bottom left to the top right of the panel.
TEST(LinePlot, SeriesIsDrawnWhereItsValuesAre) {
  PlotSeries s{"rising", {}, {}};
  for (int i = 0; i <= 100; ++i) {
    s.x.push_back(i);
    s.y.push_back(i);
  }
  const std::string path = (fs::temp_directory_path() / "boreas_plot.png").string();
  write_line_plot(path, {PlotPanel{"y = x", {s}}}, "x");
  const Image image = read_png(path);
  ASSERT_GT(image.width, 0);
  const std::vector<int> column_row = line_rows(image);
  ASSERT_GT(column_row.size(), 600u);  // the line spans most of the 826-pixel-wide panel
  for (std::size_t i = 1; i < column_row.size(); ++i) EXPECT_LE(column_row[i], column_row[i - 1] + 1) << i;  // 2 px thick
  EXPECT_GT(column_row.front() - column_row.back(), 200);  // ~90 % of the 258-pixel panel height
  fs::remove(path);
}

// A run with forces and a line probe draws both plots, valid PNGs with one panel per quantity
// (forces: c_D, c_L; probes in 2D: u_x, u_y, density), and report.json lists them.
TEST(RunPlots, ForcesAndProbesAreDrawnAndReported) {
  const fs::path dir = fs::temp_directory_path() / "boreas_run_plots";
  fs::remove_all(dir);
  Config c = parse_deck_string(R"(
[simulation]
steps = 200
[lattice]
model = "D2Q9"
[domain]
cells = [40, 20]
[physics]
tau = 0.6
[boundary.x_min]
type = "velocity_inlet"
velocity = [0.05, 0]
[boundary.x_max]
type = "pressure_outlet"
[[obstacle]]
shape = "cylinder"
center = [12, 9.6]
radius = 3
[forces]
every = 10
reference_velocity = 0.05
reference_length = 6
[[probe]]
name = "wake"
from = [20, 4]
to = [20, 15]
points = 12
[output]
vtk = false
probes_every = 10
)", "plots.toml", ".");
  c.output_dir = dir.string();
  RunOptions options;
  options.progress = false;
  const Json report = run_deck(c, options);
  ASSERT_TRUE(report.contains("plots")) << report.dump(2);
  EXPECT_EQ(report["plots"].size(), 2u);
  const Image forces = read_png((dir / "forces.png").string());
  const Image probes = read_png((dir / "probes.png").string());
  EXPECT_EQ(forces.width, 960);
  EXPECT_EQ(forces.height, 2 * 300 + 64);
  EXPECT_EQ(probes.height, 3 * 300 + 64);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace boreas
