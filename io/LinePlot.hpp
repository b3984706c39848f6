#pragma once
// Line plots of a run's time series (forces.png, probes.png) as PNG files, drawn without a
// plotting library: stacked panels that share the x axis, ticks at 1-2-5 steps with their
// values, one colour per series and a legend, text in a built-in 5x7 bitmap font.
#include <cstdint>
#include <string>
#include <vector>

namespace boreas {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;  // points that are not finite are left out
};

struct PlotPanel {
  std::string title;
  std::vector<PlotSeries> series;
};

// Panels stacked from top to bottom over `x_label`. Throws Error if the file cannot be written.
void write_line_plot(const std::string& path, const std::vector<PlotPanel>& panels, const std::string& x_label);

// An RGB image, row by row from the top, as a PNG file (8-bit truecolour, zlib-compressed).
void write_png(const std::string& path, int width, int height, const std::vector<std::uint8_t>& rgb);

// The tick values of an axis over [lo, hi]: multiples of 1, 2 or 5 times a power of ten, about
// `count` of them, within the range.
std::vector<double> nice_ticks(double lo, double hi, int count);

}  // namespace boreas
