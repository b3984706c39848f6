#include "io/LinePlot.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "core/Error.hpp"

namespace boreas {

namespace {

// A 5x7 bitmap font for ASCII 32..126 drawn for these plots: seven rows per glyph, bit 4 the
// leftmost column.
constexpr std::uint8_t glyphs[95][7] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, {0x04, 0x04, 0x04, 0x04, 0x00, 0x00, 0x04},  // space !
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00}, {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A},  // " #
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04}, {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},  // $ %
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D}, {0x0C, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00},  // & '
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08},  // ( )
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00}, {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00},  // * +
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},  // , -
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00},  // . /
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 0 1
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // 2 3
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // 4 5
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // 6 7
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // 8 9
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}, {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08},  // : ;
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}, {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00},  // < =
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}, {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04},  // > ?
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E}, {0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11},  // @ A
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},  // B C
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},  // D E
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}, {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},  // F G
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},  // H I
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}, {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},  // J K
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},  // L M
    {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}, {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // N O
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}, {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},  // P Q
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},  // R S
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},  // T U
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}, {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},  // V W
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},  // X Y
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}, {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E},  // Z [
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00}, {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E},  // \ ]
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F},  // ^ _
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F},  // ` a
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}, {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E},  // b c
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}, {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E},  // d e
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}, {0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // f g
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}, {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E},  // h i
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C}, {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12},  // j k
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11},  // l m
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}, {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E},  // n o
    {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10}, {0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01},  // p q
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}, {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E},  // r s
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}, {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D},  // t u
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04}, {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A},  // v w
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}, {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E},  // x y
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F}, {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02},  // z {
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08},  // | }
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00}};                                            // ~

using Colour = std::array<std::uint8_t, 3>;
const Colour white{255, 255, 255}, black{0, 0, 0}, grid{225, 225, 225};
const Colour palette[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                          {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};

class Canvas {
 public:
  Canvas(int width, int height) : w_(width), h_(height), rgb_(std::size_t(width) * height * 3, 255) {}

  void pixel(int x, int y, const Colour& c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    std::copy(c.begin(), c.end(), rgb_.begin() + (std::size_t(y) * w_ + x) * 3);
  }
  void rect(int x0, int y0, int x1, int y1, const Colour& c) {
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) pixel(x, y, c);
  }
  // Two pixels wide (Bresenham, doubled below), clipped to [clip_x0, clip_x1] x [clip_y0, clip_y1].
  void line(int x0, int y0, int x1, int y1, const Colour& c, const std::array<int, 4>& clip) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    while (true) {
      for (int k = 0; k < 2; ++k)
        if (x0 >= clip[0] && x0 <= clip[2] && y0 + k >= clip[1] && y0 + k <= clip[3]) pixel(x0, y0 + k, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  // Text with its top-left corner at (x, y), each font pixel `scale` pixels square.
  void text(int x, int y, const std::string& s, int scale, const Colour& c) {
    for (char ch : s) {
      const int g = ch < 32 || ch > 126 ? '?' - 32 : ch - 32;
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if (glyphs[g][row] >> (4 - col) & 1) rect(x + col * scale, y + row * scale, x + col * scale + scale - 1, y + row * scale + scale - 1, c);
      x += 6 * scale;
    }
  }
  static int text_width(const std::string& s, int scale) { return int(s.size()) * 6 * scale; }
  const std::vector<std::uint8_t>& rgb() const { return rgb_; }

 private:
  int w_, h_;
  std::vector<std::uint8_t> rgb_;
};

std::string tick_label(double v, double step) {
  if (std::abs(v) < 1e-9 * step) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // An empty range becomes [0, 1], a single value v (or values a few ulp apart, which no tick
  // step could resolve) [v - d, v + d] with d = |v| / 10 (or 1).
  void settle(double pad) {
    if (!(lo <= hi)) {
      lo = 0;
      hi = 1;
    } else if (hi - lo <= 1e-12 * std::max(std::abs(lo), std::abs(hi))) {
      lo = hi = 0.5 * (lo + hi);
      const double d = lo != 0 ? std::abs(lo) / 10 : 1;
      lo -= d;
      hi += d;
    } else {
      const double d = pad * (hi - lo);
      lo -= d;
      hi += d;
    }
  }
};

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 1) return ticks;
  const double raw = (hi - lo) / count, power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  const double first = std::ceil(lo / step) * step;
  // by index, not by adding steps: a step below the values' resolution must not stall the loop
  for (long i = 0; i <= 4L * count; ++i) {
    const double t = first + double(i) * step;
    if (t > hi + 1e-9 * step) break;
    if (i > 0 && t == ticks.back()) return {};  // a range a few ulp wide: no ticks
    ticks.push_back(t);
  }
  return ticks;
}

void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb) {
  std::vector<std::uint8_t> raw;
  raw.reserve(std::size_t(height) * (1 + std::size_t(width) * 3));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    raw.insert(raw.end(), rgb.begin() + std::size_t(y) * width * 3, rgb.begin() + std::size_t(y + 1) * width * 3);
  }
  uLongf packed_size = compressBound(uLong(raw.size()));
  std::vector<std::uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, raw.data(), uLong(raw.size()), 6) != Z_OK)
    throw Error("cannot compress the image for " + path);
  packed.resize(packed_size);

  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write " + path);
  auto be32 = [](std::uint32_t v) {
    return std::array<std::uint8_t, 4>{std::uint8_t(v >> 24), std::uint8_t(v >> 16), std::uint8_t(v >> 8), std::uint8_t(v)};
  };
  auto chunk = [&](const char* type, const std::vector<std::uint8_t>& data) {
    const auto length = be32(std::uint32_t(data.size()));
    out.write(reinterpret_cast<const char*>(length.data()), 4);
    out.write(type, 4);
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(type), 4);
    if (!data.empty()) crc = crc32(crc, data.data(), uInt(data.size()));  // a null buffer would reset it
    const auto c = be32(std::uint32_t(crc));
    out.write(reinterpret_cast<const char*>(c.data()), 4);
  };
  const std::uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  out.write(reinterpret_cast<const char*>(signature), 8);
  std::vector<std::uint8_t> header;
  for (std::uint32_t v : {std::uint32_t(width), std::uint32_t(height)}) {
    const auto b = be32(v);
    header.insert(header.end(), b.begin(), b.end());
  }
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8 bits, truecolour, deflate, no filter choice, no interlace
  chunk("IHDR", header);
  chunk("IDAT", packed);
  chunk("IEND", {});
  if (!out) throw Error("cannot write " + path);
}

void write_line_plot(const std::string& path, const std::vector<PlotPanel>& panels, const std::string& x_label) {
  constexpr int width = 960, panel_height = 300, left = 110, right = 24, top_pad = 34, bottom = 64, scale = 2;
  const int n = std::max<int>(1, int(panels.size()));
  const int height = n * panel_height + bottom;
  Canvas canvas(width, height);
  Range xr;
  for (const PlotPanel& p : panels)
    for (const PlotSeries& s : p.series)
      for (double x : s.x) xr.add(x);
  xr.settle(0);
  const int x0 = left, x1 = width - right;
  auto px = [&](double x) { return x0 + int(std::lround((x - xr.lo) / (xr.hi - xr.lo) * (x1 - x0))); };
  const std::vector<double> xticks = nice_ticks(xr.lo, xr.hi, 8);
  const double xstep = xticks.size() > 1 ? xticks[1] - xticks[0] : 1;

  for (int k = 0; k < int(panels.size()); ++k) {
    const PlotPanel& p = panels[k];
    const int y0 = k * panel_height + top_pad, y1 = (k + 1) * panel_height - 8;
    Range yr;
    for (const PlotSeries& s : p.series)
      for (double y : s.y) yr.add(y);
    yr.settle(0.05);
    auto py = [&](double y) { return y1 - int(std::lround((y - yr.lo) / (yr.hi - yr.lo) * (y1 - y0))); };
    const std::vector<double> yticks = nice_ticks(yr.lo, yr.hi, 5);
    const double ystep = yticks.size() > 1 ? yticks[1] - yticks[0] : 1;
    for (double t : yticks) {
      canvas.rect(x0, py(t), x1, py(t), grid);
      const std::string label = tick_label(t, ystep);
      canvas.text(x0 - 8 - Canvas::text_width(label, scale), py(t) - 7, label, scale, black);
    }
    for (double t : xticks) canvas.rect(px(t), y0, px(t), y1, grid);
    canvas.text(x0, y0 - 24, p.title, scale, black);
    const std::array<int, 4> clip{x0, y0, x1, y1};
    for (std::size_t s = 0; s < p.series.size(); ++s) {
      const PlotSeries& series = p.series[s];
      const Colour& c = palette[s % std::size(palette)];
      bool have = false;
      int lx = 0, ly = 0;
      for (std::size_t i = 0; i < series.x.size() && i < series.y.size(); ++i) {
        if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) {
          have = false;
          continue;
        }
        const int x = px(series.x[i]), y = py(series.y[i]);
        if (have) canvas.line(lx, ly, x, y, c, clip);
        else canvas.pixel(x, y, c);
        lx = x;
        ly = y;
        have = true;
      }
      // legend, top right, one row per series
      const int ty = y0 + 8 + int(s) * 18, tx = x1 - 8 - Canvas::text_width(series.name, scale);
      canvas.rect(tx - 30, ty + 6, tx - 8, ty + 8, c);
      canvas.text(tx, ty, series.name, scale, black);
    }
    canvas.rect(x0, y0, x1, y0, black);
    canvas.rect(x0, y1, x1, y1, black);
    canvas.rect(x0, y0, x0, y1, black);
    canvas.rect(x1, y0, x1, y1, black);
  }
  const int axis_y = n * panel_height - 8;
  for (double t : xticks) {
    canvas.rect(px(t), axis_y, px(t), axis_y + 5, black);
    const std::string label = tick_label(t, xstep);
    canvas.text(px(t) - Canvas::text_width(label, scale) / 2, axis_y + 10, label, scale, black);
  }
  canvas.text((x0 + x1 - Canvas::text_width(x_label, scale)) / 2, axis_y + 36, x_label, scale, black);
  write_png(path, width, height, canvas.rgb());
}

}  // namespace boreas
