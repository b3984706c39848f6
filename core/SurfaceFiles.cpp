#include "core/SurfaceFiles.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>

#include "core/Error.hpp"
#include "core/ParseNumber.hpp"

namespace boreas {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw Error("'" + path + "': " + why);
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, "cannot open the file");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Text of a file as a message quotes it: bytes that are not printable ASCII as \xNN (a binary file
// given as text printed raw bytes, cut at its first NUL), and at most 40 of them.
std::string quoted(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : std::string(hex);
  }
  return text.size() > 40 ? out + "..." : out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

constexpr std::size_t stl_header_bytes = 80, stl_count_bytes = 4, stl_triangle_bytes = 50;

// The triangle count a binary STL's header declares (little-endian hosts), and the file size it
// implies.
std::uint32_t binary_stl_count(const std::string& bytes) {
  std::uint32_t count = 0;
  std::memcpy(&count, bytes.data() + stl_header_bytes, sizeof count);
  return count;
}
std::size_t binary_stl_size(std::uint32_t count) {
  return stl_header_bytes + stl_count_bytes + std::size_t(count) * stl_triangle_bytes;
}

TriangleMesh read_binary_stl(const std::string& path, const std::string& bytes) {
  if (bytes.size() < stl_header_bytes + stl_count_bytes)
    refuse(path, "truncated binary STL: " + std::to_string(bytes.size()) +
                     " bytes, fewer than the 84 of its header and triangle count");
  const std::uint32_t count = binary_stl_count(bytes);
  const std::size_t expected = binary_stl_size(count);
  if (bytes.size() != expected)
    refuse(path, "binary STL declares " + std::to_string(count) + " triangles (" + std::to_string(expected) +
                     " bytes) but has " + std::to_string(bytes.size()) + " bytes" +
                     (bytes.size() < expected ? ": truncated" : ": wrong triangle count"));
  TriangleMesh mesh;
  mesh.binary = true;
  mesh.triangles.resize(count);
  for (std::size_t t = 0; t < count; ++t) {
    const char* record = bytes.data() + stl_header_bytes + stl_count_bytes + t * stl_triangle_bytes;
    for (int v = 0; v < 3; ++v)
      for (int d = 0; d < 3; ++d) {
        float x;
        std::memcpy(&x, record + 12 + 12 * v + 4 * d, sizeof x);  // after the 12-byte normal
        if (!std::isfinite(x))
          refuse(path, "triangle " + std::to_string(t) + " has a non-finite coordinate");
        mesh.triangles[t][v][d] = x;
      }
  }
  return mesh;
}

TriangleMesh read_ascii_stl(const std::string& path, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  long number = 0;
  // The next non-blank line's words; false at the end of the file.
  auto next = [&](std::vector<std::string>& words) {
    while (std::getline(in, line)) {
      ++number;
      std::istringstream ws(line);
      words.assign(std::istream_iterator<std::string>(ws), std::istream_iterator<std::string>());
      if (!words.empty()) return true;
    }
    return false;
  };
  auto fail = [&](const std::string& expected) {
    refuse(path, "line " + std::to_string(number) + ": expected " + expected + ", got '" + line + "'");
  };
  auto expect = [&](std::vector<std::string>& words, const std::vector<std::string>& keywords,
                    std::size_t numbers, const std::string& what) {
    if (!next(words)) refuse(path, "ends after line " + std::to_string(number) + " where " + what + " was expected");
    if (words.size() != keywords.size() + numbers) fail(what);
    for (std::size_t k = 0; k < keywords.size(); ++k)
      if (lower(words[k]) != keywords[k]) fail(what);
  };
  std::vector<std::string> words;
  if (!next(words) || lower(words[0]) != "solid") refuse(path, "not an STL file: it does not start with 'solid'");
  TriangleMesh mesh;
  for (;;) {
    if (!next(words)) refuse(path, "ends after line " + std::to_string(number) + " without 'endsolid'");
    const std::string keyword = lower(words[0]);
    if (keyword == "endsolid") {
      // Several solids in one file make one surface.
      if (!next(words)) break;
      if (lower(words[0]) != "solid") fail("'solid' or the end of the file after 'endsolid'");
      continue;
    }
    // The normal is not used (and some exporters write "-1.#IND00" for a degenerate facet's).
    if (keyword != "facet" || words.size() != 5 || lower(words[1]) != "normal")
      fail("'facet normal nx ny nz' or 'endsolid'");
    expect(words, {"outer", "loop"}, 0, "'outer loop'");
    Triangle tri;
    for (int v = 0; v < 3; ++v) {
      expect(words, {"vertex"}, 3, "'vertex x y z'");
      for (int d = 0; d < 3; ++d) {
        if (!parse_double(words[1 + d], tri[v][d])) fail("'vertex x y z' with numbers");
        if (!std::isfinite(tri[v][d])) refuse(path, "line " + std::to_string(number) + ": non-finite coordinate");
      }
    }
    expect(words, {"endloop"}, 0, "'endloop'");
    expect(words, {"endfacet"}, 0, "'endfacet'");
    mesh.triangles.push_back(tri);
  }
  return mesh;
}

}  // namespace

TriangleMesh read_stl(const std::string& path) {
  const std::string bytes = read_all(path);
  // ASCII: text (UTF-8 names allowed, after an optional byte-order mark and blank space) that
  // starts with "solid". Binary data (float32 coordinates, counts) has control bytes no text has,
  // even under a header that starts with "solid", as some exporters write (and its 80 header
  // bytes are free: they may start with what looks like a byte-order mark).
  const std::string bom = "\xEF\xBB\xBF";
  const std::string body = bytes.compare(0, bom.size(), bom) == 0 ? bytes.substr(bom.size()) : bytes;
  const std::size_t first = body.find_first_not_of(" \t\r\n");
  const bool starts_solid = first != std::string::npos && lower(body.substr(first, 5)) == "solid";
  const auto control = std::find_if(body.begin(), body.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u < 0x20 && !std::isspace(u);
  });
  const bool ascii = starts_solid && control == body.end();
  // Text that starts with "solid" and holds a control byte only after byte 83 (zeros a crashed
  // writer left, a DOS end-of-file mark) is an ASCII STL damaged there, unless its size fits the
  // count its bytes 80-83 would give: a binary STL's count has a zero byte below 16.7 million
  // triangles. Say where, not what those text bytes would count.
  const std::size_t at = std::size_t(control - body.begin()) + (bytes.size() - body.size());
  if (starts_solid && !ascii && at >= stl_header_bytes + stl_count_bytes &&
      bytes.size() != binary_stl_size(binary_stl_count(bytes))) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02X", unsigned(static_cast<unsigned char>(*control)));
    refuse(path, "starts with 'solid' as an ASCII STL does, but byte " + std::to_string(at) + " is the control character " +
                     code + ", which no ASCII STL holds (nor is it a binary STL: its size does not match a triangle count)");
  }
  TriangleMesh mesh = ascii ? read_ascii_stl(path, body) : read_binary_stl(path, bytes);
  if (mesh.triangles.empty()) refuse(path, "the STL file has no triangles");
  return mesh;
}

MeshEdges mesh_edges(const TriangleMesh& mesh) {
  // Each triangle's edges from their smaller end, +1 where the triangle runs them that way;
  // sorted, equal edges are neighbours (a map of a million-triangle mesh takes seconds).
  struct Use {
    Vertex a, b;
    int direction;
  };
  std::vector<Use> uses;
  uses.reserve(3 * mesh.triangles.size());
  for (const Triangle& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) {
      const Vertex& a = t[e];
      const Vertex& b = t[(e + 1) % 3];
      // A triangle with a repeated vertex (float32 rounding merges near ones) has a zero-length
      // edge: no edge at all, as its triangle has no area the rays could cross.
      if (a != b) uses.push_back(a < b ? Use{a, b, 1} : Use{b, a, -1});
    }
  std::sort(uses.begin(), uses.end(), [](const Use& x, const Use& y) { return x.a < y.a || (x.a == y.a && x.b < y.b); });
  MeshEdges edges;
  for (std::size_t i = 0; i < uses.size();) {
    std::size_t j = i;
    int balance = 0;
    for (; j < uses.size() && uses[j].a == uses[i].a && uses[j].b == uses[i].b; ++j) balance += uses[j].direction;
    edges.open += j - i != 2;
    edges.unbalanced += balance != 0;
    i = j;
  }
  return edges;
}

HeightMap read_height_map(const std::string& path) {
  std::istringstream in(read_all(path));
  std::string line;
  long number = 0;
  std::map<std::string, double> header;
  std::map<std::string, long> header_line;
  const std::vector<std::string> known{"ncols", "nrows", "xllcorner", "xllcenter", "yllcorner", "yllcenter",
                                       "cellsize", "nodata_value"};
  // Header lines: a key and a number; the first line that starts with a number begins the data.
  std::vector<std::string> data_words;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ws(line);
    std::vector<std::string> words{std::istream_iterator<std::string>(ws), std::istream_iterator<std::string>()};
    if (words.empty()) continue;
    double value;
    if (parse_double(words[0], value)) {
      data_words = std::move(words);
      break;
    }
    const std::string key = lower(words[0]);
    if (std::find(known.begin(), known.end(), key) == known.end())
      refuse(path, "line " + std::to_string(number) + ": unknown header key '" + quoted(words[0]) +
                       "' (expected ncols, nrows, xllcorner/xllcenter, yllcorner/yllcenter, cellsize, NODATA_value)");
    if (header.count(key)) refuse(path, "line " + std::to_string(number) + ": header key '" + words[0] + "' repeated");
    if (words.size() != 2 || !parse_double(words[1], value) || !std::isfinite(value))
      refuse(path, "line " + std::to_string(number) + ": header key '" + words[0] + "' needs one finite number, got '" +
                       quoted(line) + "'");
    header[key] = value;
    header_line[key] = number;
  }
  auto require = [&](const std::string& a, const std::string& b) -> double {
    if (header.count(a) && header.count(b)) refuse(path, "header has both " + a + " and " + b);
    if (header.count(a)) return header[a];
    if (!b.empty() && header.count(b)) return header[b];
    refuse(path, "header lacks " + a + (b.empty() ? "" : " (or " + b + ")"));
  };
  HeightMap map;
  const double ncols = require("ncols", ""), nrows = require("nrows", "");
  for (const auto& [key, value] : {std::make_pair("ncols", ncols), std::make_pair("nrows", nrows)})
    if (value < 1 || value != std::floor(value) || value > 1e8) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", value);
      refuse(path, std::string("line ") + std::to_string(header_line[key]) + ": " + key +
                       " must be a whole number from 1 to 10^8, got " + text);
    }
  if (ncols * nrows > 1e9) refuse(path, "ncols x nrows = " + std::to_string(ncols * nrows) + " values: more than 10^9");
  map.ncols = int(ncols);
  map.nrows = int(nrows);
  map.cell_size = require("cellsize", "");
  if (map.cell_size <= 0) refuse(path, "line " + std::to_string(header_line["cellsize"]) + ": cellsize must be > 0");
  const bool x_centre = header.count("xllcenter"), y_centre = header.count("yllcenter");
  map.x0 = require("xllcorner", "xllcenter") - (x_centre ? map.cell_size / 2 : 0);
  map.y0 = require("yllcorner", "yllcenter") - (y_centre ? map.cell_size / 2 : 0);
  const bool has_nodata = header.count("nodata_value");
  const double nodata = has_nodata ? header["nodata_value"] : 0;

  // The values as the file lists them, rows from the north; stored once all are read, so that a
  // header's counts do not size an allocation before the file shows it has the values.
  const std::size_t cells = std::size_t(map.ncols) * map.nrows;
  std::vector<double> values;
  auto take = [&](const std::vector<std::string>& words) {
    for (const std::string& w : words) {
      double h;
      if (!parse_double(w, h)) refuse(path, "line " + std::to_string(number) + ": '" + w + "' is not a number");
      if (values.size() == cells)
        refuse(path, "line " + std::to_string(number) + ": more than ncols x nrows = " + std::to_string(cells) + " values");
      if (has_nodata && h == nodata) {
        h = -std::numeric_limits<double>::infinity();
      } else if (!std::isfinite(h)) {
        refuse(path, "line " + std::to_string(number) + ": height '" + w + "' is not finite");
      }
      values.push_back(h);
    }
  };
  take(data_words);
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ws(line);
    take({std::istream_iterator<std::string>(ws), std::istream_iterator<std::string>()});
  }
  if (values.size() != cells)
    refuse(path, "has " + std::to_string(values.size()) + " values, expected ncols x nrows = " + std::to_string(map.ncols) +
                     " x " + std::to_string(map.nrows) + " = " + std::to_string(cells));
  if (std::all_of(values.begin(), values.end(), [](double h) { return std::isinf(h); }))
    refuse(path, "every one of its " + std::to_string(cells) + " heights is NODATA_value: it holds no ground");
  map.heights.resize(cells);
  for (std::size_t row = 0; row < std::size_t(map.nrows); ++row)  // the file's first row is the northernmost
    std::copy_n(values.begin() + row * map.ncols, map.ncols, map.heights.begin() + (map.nrows - 1 - row) * map.ncols);
  return map;
}

}  // namespace boreas
