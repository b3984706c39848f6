// Obstacles from STL meshes and height maps (core/SurfaceFiles.hpp, lbm/field/SurfaceSolid.hpp):
// the same flags and bodies as the analytic shapes they describe, on every cell of the domain
// (cell centres on the surfaces and rays through edges and vertices included), the majority of
// three rays through holes, and malformed files refused with the file and the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/Deck.hpp"
#include "core/Error.hpp"
#include "core/SurfaceFiles.hpp"
#include "core/Types.hpp"
#include "lbm/field/Geometry.hpp"
#include "lbm/physics/Lattice.hpp"

namespace boreas {
namespace {

namespace fs = std::filesystem;

class SurfaceGeometry : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("boreas_surface_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }

  // A 3D deck on `cells` with every face a wall and `obstacles` ([[obstacle]] tables).
  Config deck(const std::string& obstacles, const std::array<int, 3>& cells = {24, 20, 18}) const {
    const std::string text = "[simulation]\nsteps = 1\n[lattice]\nmodel = \"D3Q19\"\n[domain]\ncells = [" +
                             std::to_string(cells[0]) + ", " + std::to_string(cells[1]) + ", " +
                             std::to_string(cells[2]) + "]\n[physics]\ntau = 0.6\n" + obstacles;
    return parse_deck_string(text, "surface", dir_.string());
  }

  void height_map_case(const Vertex& offset);

  fs::path dir_;
};

std::vector<Triangle> box_triangles(const Vertex& lo, const Vertex& hi) {
  // Corner k has x from bit 0, y from bit 1, z from bit 2; two outward-facing triangles per face.
  auto corner = [&](int k) { return Vertex{k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]}; };
  const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  std::vector<Triangle> t;
  for (const auto& f : faces) {
    t.push_back({corner(f[0]), corner(f[1]), corner(f[2])});
    t.push_back({corner(f[0]), corner(f[2]), corner(f[3])});
  }
  return t;
}

std::string ascii_stl(const std::vector<Triangle>& triangles) {
  std::string s = "solid test\n";
  char line[256];
  for (const Triangle& t : triangles) {
    s += "  facet normal 0 0 0\n    outer loop\n";
    for (const Vertex& v : t) {
      std::snprintf(line, sizeof line, "      vertex %.17g %.17g %.17g\n", v[0], v[1], v[2]);
      s += line;
    }
    s += "    endloop\n  endfacet\n";
  }
  return s + "endsolid test\n";
}

std::string binary_stl(const std::vector<Triangle>& triangles, long declared = -1) {
  std::string s(80, ' ');
  s.replace(0, 5, "solid");  // as some exporters write: still binary by its size
  const std::uint32_t n = declared < 0 ? std::uint32_t(triangles.size()) : std::uint32_t(declared);
  s.append(reinterpret_cast<const char*>(&n), 4);
  for (const Triangle& t : triangles) {
    float record[12] = {};
    for (int v = 0; v < 3; ++v)
      for (int d = 0; d < 3; ++d) record[3 + 3 * v + d] = float(t[v][d]);
    s.append(reinterpret_cast<const char*>(record), sizeof record);
    s.append(2, '\0');
  }
  return s;
}

// What read_stl / read_height_map say about a file: the message of the Error, or "" if it reads.
std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Every cell's flag and body agree between two decks' geometries.
void expect_same_solid(const Config& a, const Config& b) {
  const DomainGeometry ga(a), gb(b);
  long solid = 0;
  for (int z = 0; z < a.cells[2]; ++z)
    for (int y = 0; y < a.cells[1]; ++y)
      for (int x = 0; x < a.cells[0]; ++x) {
        ASSERT_EQ(ga.flag_at(x, y, z), gb.flag_at(x, y, z)) << "cell " << x << " " << y << " " << z;
        ASSERT_EQ(ga.body_at(x, y, z), gb.body_at(x, y, z)) << "cell " << x << " " << y << " " << z;
        solid += ga.body_at(x, y, z) >= 0;
      }
  EXPECT_GT(solid, 0);
}

std::string box_obstacle(const Vertex& lo, const Vertex& hi) {
  char s[256];
  std::snprintf(s, sizeof s, "[[obstacle]]\nshape = \"box\"\nlo = [%.17g, %.17g, %.17g]\nhi = [%.17g, %.17g, %.17g]\n",
                lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
  return s;
}

std::string file_obstacle(const std::string& shape, const std::string& file, double scale, const Vertex& offset) {
  char s[512];
  std::snprintf(s, sizeof s, "[[obstacle]]\nshape = \"%s\"\nfile = \"%s\"\nscale = %.17g\noffset = [%.17g, %.17g, %.17g]\n",
                shape.c_str(), file.c_str(), scale, offset[0], offset[1], offset[2]);
  return s;
}

TEST_F(SurfaceGeometry, StlBoxesGiveTheAnalyticBoxsCells) {
  const double scale = 2;
  const Vertex offset{1.5, -0.25, 3};
  // Corners between cell centres, and corners on cell centres (faces through centres count them in).
  for (const auto& [lo, hi] : {std::pair<Vertex, Vertex>{{1.3, 2.1, 0.35}, {7.6, 6.05, 5.2}},
                               std::pair<Vertex, Vertex>{{1.25, 2.125, 0.5}, {7.75, 6.125, 5}}}) {
    const std::vector<Triangle> box = box_triangles(lo, hi);
    Vertex placed_lo, placed_hi;
    for (int d = 0; d < 3; ++d) {
      placed_lo[d] = offset[d] + scale * lo[d];
      placed_hi[d] = offset[d] + scale * hi[d];
    }
    const Config analytic = deck(box_obstacle(placed_lo, placed_hi));
    write("box.stl", ascii_stl(box));
    write("box_binary.stl", binary_stl(box));  // float32 holds these corners exactly
    for (const char* file : {"box.stl", "box_binary.stl"}) {
      SCOPED_TRACE(file);
      const Config c = deck(file_obstacle("stl", file, scale, offset));
      EXPECT_EQ(c.obstacles.at(0).shape, Obstacle::Shape::Surface);
      EXPECT_TRUE(c.warnings.empty());
      expect_same_solid(c, analytic);
    }
  }
}

// visit(cell, q, c_q, body) for every link of lattice L from a fluid cell of `g` (on `cells`)
// into a body.
template <class L, class Visit>
void for_each_body_link(const DomainGeometry& g, const std::array<int, 3>& cells, Visit&& visit) {
  for (int z = 0; z < cells[2]; ++z)
    for (int y = 0; y < cells[1]; ++y)
      for (int x = 0; x < cells[0]; ++x) {
        if (g.flag_at(x, y, z) != flag::fluid) continue;
        for (int q = 1; q < L::Q; ++q) {
          const std::array<int, 3> e{L::c(q, 0), L::c(q, 1), L::c(q, 2)};
          const int body = g.body_at(x + e[0], y + e[1], z + e[2]);
          if (body >= 0) visit(std::array<int, 3>{x, y, z}, q, e, body);
        }
      }
}

// Where every link from a fluid cell into a body crosses its surface (D3Q27's 26 directions),
// compared between two decks' geometries; returns the links compared.
long expect_same_crossings(const Config& a, const Config& b, double tolerance) {
  const DomainGeometry ga(a), gb(b);
  long links = 0;
  for_each_body_link<D3Q27>(ga, a.cells, [&](const std::array<int, 3>& x, int q, const std::array<int, 3>& c, int) {
    const WallCrossing wa = ga.wall_crossing_at_level(0, x, c), wb = gb.wall_crossing_at_level(0, x, c);
    EXPECT_TRUE(wa.interpolated && wb.interpolated);
    EXPECT_NEAR(wa.fraction, wb.fraction, tolerance) << "cell " << x[0] << " " << x[1] << " " << x[2] << " q " << q;
    ++links;
  });
  return links;
}

const std::string interpolated = "bounce_back = \"interpolated\"\n";

// The wall fractions of interpolated bounce-back (Geometry.cpp wall_crossing_at_level): an STL box and a
// height-map building give the analytic box's, to round-off (the STL by the nearest triangle hit,
// the height map by bisection of its inside test).
TEST_F(SurfaceGeometry, StlAndHeightMapBoxesGiveTheAnalyticWallFractions) {
  const Vertex lo{3.3, 2.7, 0.35}, hi{15.6, 12.05, 9.2};
  const Config analytic = deck(box_obstacle(lo, hi) + interpolated);
  const std::string file = write("box.stl", binary_stl(box_triangles(lo, hi)));
  const Config stl = deck(file_obstacle("stl", "box.stl", 1, {0, 0, 0}) + interpolated);
  // float32 corners: the STL box is the analytic box of its float-rounded corners, as read from
  // the file (on an H100 the cuda-sm90 build gave this test's former double(float(2.7)) as 2.7)
  Vertex flo{HUGE_VAL, HUGE_VAL, HUGE_VAL}, fhi{-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (const Triangle& t : read_stl(file).triangles)
    for (const Vertex& v : t)
      for (int d = 0; d < 3; ++d) {
        flo[d] = std::min(flo[d], v[d]);
        fhi[d] = std::max(fhi[d], v[d]);
      }
  EXPECT_NE(flo[1], lo[1]);  // 2.7 has no float32 twin: the two boxes differ there
  const Config rounded = deck(box_obstacle(flo, fhi) + interpolated);
  EXPECT_GT(expect_same_crossings(stl, rounded, 1e-12), 1000);
  expect_same_solid(stl, analytic);
  // One raster cell of height 8.85 placed at (3, 2, -0.15): the box [3, 4] x [2, 3] x [.., 8.7].
  write("one.asc", "ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n8.85\n");
  const Config map = deck("[[obstacle]]\nshape = \"height_map\"\nfile = \"one.asc\"\nscale = 1\noffset = [3, 2, -0.15]\n" +
                          interpolated);
  const Config building = deck(box_obstacle({3, 2, -100}, {4, 3, 8.7}) + interpolated);
  EXPECT_GT(expect_same_crossings(map, building, 1e-12), 20);
}

// Analytic shapes: every link's crossing point lies on the surface, for a sphere, a cylinder, an
// inverted cylinder (the solid outside) and a box.
TEST_F(SurfaceGeometry, AnalyticWallCrossingsLieOnTheSurface) {
  const Config c = deck("[[obstacle]]\nshape = \"sphere\"\ncenter = [6.3, 9.7, 8.1]\nradius = 3.6\n" + interpolated +
                        "[[obstacle]]\nshape = \"cylinder\"\ncenter = [16.2, 9.4, 0]\nradius = 2.7\naxis = \"z\"\n" +
                        interpolated +
                        "[[obstacle]]\nshape = \"cylinder\"\ncenter = [12, 9.6, 8.4]\nradius = 8.9\naxis = \"x\"\n"
                        "invert = true\n" + interpolated);
  const DomainGeometry g(c);
  long links = 0;
  for_each_body_link<D3Q27>(g, c.cells, [&](const std::array<int, 3>& x, int q, const std::array<int, 3>& e, int body) {
    const WallCrossing w = g.wall_crossing_at_level(0, x, e);
    ASSERT_GE(w.fraction, 0.0);
    ASSERT_LE(w.fraction, 1.0);
    const double p[3] = {x[0] + w.fraction * e[0], x[1] + w.fraction * e[1], x[2] + w.fraction * e[2]};
    const double sphere = std::hypot(p[0] - 6.3, p[1] - 9.7, p[2] - 8.1) - 3.6;
    const double cylinder = std::hypot(p[0] - 16.2, p[1] - 9.4) - 2.7;
    const double outer = std::hypot(p[1] - 9.6, p[2] - 8.4) - 8.9;
    // where solids overlap, the link may meet another body's surface first
    const double on = std::min({std::abs(sphere), std::abs(cylinder), std::abs(outer)});
    EXPECT_NEAR(on, 0.0, 1e-12) << "body " << body << " cell " << x[0] << " " << x[1] << " " << x[2] << " q " << q;
    ++links;
  });
  EXPECT_GT(links, 2000);
}

// Two solids in one ASCII file, behind a byte-order mark and a blank line, with a UTF-8 name.
TEST_F(SurfaceGeometry, AsciiStlWithTwoSolidsIsTheirUnion) {
  const Vertex a_lo{2.2, 3.1, 1.4}, a_hi{7.7, 9.3, 6.6}, b_lo{12.3, 2.6, 5.2}, b_hi{19.1, 14.4, 12.8};
  std::string two = "\xEF\xBB\xBF\n" + ascii_stl(box_triangles(a_lo, a_hi)) + ascii_stl(box_triangles(b_lo, b_hi));
  two.replace(two.find("solid test"), 10, "solid h\xC3\xA4user");
  write("two.stl", two);
  const Config c = deck(file_obstacle("stl", "two.stl", 1, {0, 0, 0}));
  EXPECT_TRUE(c.warnings.empty());
  const DomainGeometry g(c), boxes(deck(box_obstacle(a_lo, a_hi) + box_obstacle(b_lo, b_hi)));
  for (int z = 0; z < c.cells[2]; ++z)
    for (int y = 0; y < c.cells[1]; ++y)
      for (int x = 0; x < c.cells[0]; ++x)
        ASSERT_EQ(g.body_at(x, y, z) >= 0, boxes.body_at(x, y, z) >= 0) << x << " " << y << " " << z;
  write("junk.stl", ascii_stl(box_triangles(a_lo, a_hi)) + "trailing words\n");
  EXPECT_NE(refusal([&] { read_stl((dir_ / "junk.stl").string()); })
                .find("line 87: expected 'solid' or the end of the file after 'endsolid', got 'trailing words'"),
            std::string::npos);
}

// Assemblies export overlapping closed parts, and some exporters write every triangle twice: by
// ray parity the overlap (or the whole) was fluid. Closed, consistently oriented surfaces are
// decided by their winding number; a shell turned inside out is solid too.
TEST_F(SurfaceGeometry, OverlappingShellsAndRepeatedTrianglesMakeTheirUnion) {
  const Vertex a_lo{2.2, 3.1, 1.4}, a_hi{11.7, 9.3, 8.6}, b_lo{7.3, 5.6, 4.2}, b_hi{16.1, 14.4, 12.8};
  std::vector<Triangle> both = box_triangles(a_lo, a_hi);
  for (const Triangle& t : box_triangles(b_lo, b_hi)) both.push_back(t);
  both.push_back({a_lo, a_lo, b_hi});  // no area (a float32 file merges near vertices): no edge either
  write("overlap.stl", ascii_stl(both));
  const Config overlap = deck(file_obstacle("stl", "overlap.stl", 1, {0, 0, 0}));
  EXPECT_TRUE(overlap.warnings.empty());
  const DomainGeometry g(overlap), boxes(deck(box_obstacle(a_lo, a_hi) + box_obstacle(b_lo, b_hi)));
  ASSERT_EQ(g.flag_at(9, 7, 6), flag::wall);  // in both shells
  for (int z = 0; z < overlap.cells[2]; ++z)
    for (int y = 0; y < overlap.cells[1]; ++y)
      for (int x = 0; x < overlap.cells[0]; ++x)
        ASSERT_EQ(g.body_at(x, y, z) >= 0, boxes.body_at(x, y, z) >= 0) << x << " " << y << " " << z;

  std::vector<Triangle> twice = box_triangles(a_lo, a_hi), turned;
  for (const Triangle& t : box_triangles(a_lo, a_hi)) {
    twice.push_back(t);
    turned.push_back({t[0], t[2], t[1]});
  }
  const MeshEdges edges = mesh_edges(TriangleMesh{twice});
  EXPECT_EQ(edges.open, 18);  // every edge of the 12 triangles used four times
  EXPECT_EQ(edges.unbalanced, 0);
  write("twice.stl", binary_stl(twice));
  write("turned.stl", ascii_stl(turned));
  const Config repeated = deck(file_obstacle("stl", "twice.stl", 1, {0, 0, 0}));
  EXPECT_TRUE(repeated.warnings.empty());
  expect_same_solid(repeated, deck(box_obstacle(a_lo, a_hi)));
  expect_same_solid(deck(file_obstacle("stl", "turned.stl", 1, {0, 0, 0})), deck(box_obstacle(a_lo, a_hi)));
}

// Two slabs thinner than the cell spacing, 6 cells apart: the box around them holds level-0 centres
// (the deck accepts it), the solid none; level 1's centres 2.25 and 2.75 lie in the lower slab.
TEST_F(SurfaceGeometry, SolidAtSomeCentreScansTheBoxInShares) {
  std::vector<Triangle> slabs = box_triangles({3.3, 3.3, 2.2}, {12.6, 11.4, 2.8});
  for (const Triangle& t : box_triangles({5.1, 4.4, 8.2}, {9.9, 7.7, 8.8})) slabs.push_back(t);
  write("slabs.stl", ascii_stl(slabs));
  write("box.stl", ascii_stl(box_triangles({5.5, 4.5, 3.5}, {6.5, 5.5, 4.5})));
  const Config c = deck(file_obstacle("stl", "slabs.stl", 1, {0, 0, 0}) + file_obstacle("stl", "box.stl", 1, {0, 0, 0}));
  const DomainGeometry g(c);
  EXPECT_FALSE(g.solid_at_some_centre(0, 0, 0, 1));
  EXPECT_TRUE(g.solid_at_some_centre(0, 1, 0, 1));
  // The box holds one level-0 centre, (6, 5, 4): exactly one of three shares finds it.
  EXPECT_TRUE(g.solid_at_some_centre(1, 0, 0, 1));
  int finders = 0;
  for (int part = 0; part < 3; ++part) finders += g.solid_at_some_centre(1, 0, part, 3);
  EXPECT_EQ(finders, 1);
  for (int part = 0; part < 3; ++part) EXPECT_FALSE(g.solid_at_some_centre(0, 0, part, 3));
}

// AMR levels ask for the flags of fine cells, whose centres lie between the level-0 centres.
TEST_F(SurfaceGeometry, FineLevelCellsToo) {
  const Vertex lo{3.3, 2.6, 1.1}, hi{9.45, 8.2, 6.7};
  write("box.stl", binary_stl(box_triangles(lo, hi)));
  write("blocks.asc", "ncols 2\nnrows 1\nxllcorner 12.1\nyllcorner 3.3\ncellsize 4\n5.2 2.4\n");
  const Config files = deck(file_obstacle("stl", "box.stl", 1, {0, 0, 0}) + file_obstacle("height_map", "blocks.asc", 1, {0, 0, -0.5}));
  const Config boxes = deck(box_obstacle(lo, hi) + box_obstacle({12.1, 3.3, -10}, {16.1, 7.3, 4.7}) +
                            box_obstacle({16.1, 3.3, -10}, {20.1, 7.3, 1.9}));
  const DomainGeometry a(files), b(boxes);
  for (int level : {1, 2}) {
    const int r = 1 << level;
    long solid = 0;
    for (int z = 0; z < files.cells[2] * r; ++z)
      for (int y = 0; y < files.cells[1] * r; ++y)
        for (int x = 0; x < files.cells[0] * r; ++x) {
          ASSERT_EQ(a.flag_at_level(level, x, y, z), b.flag_at_level(level, x, y, z))
              << "level " << level << " cell " << x << " " << y << " " << z;
          solid += a.flag_at_level(level, x, y, z) == flag::wall;
        }
    EXPECT_GT(solid, 0);
  }
}

TEST_F(SurfaceGeometry, StlWithAHoleIsDecidedByTheMajorityOfThreeRays) {
  std::vector<Triangle> box = box_triangles({4.2, 3.7, 2.9}, {15.4, 12.2, 11.6});
  box.erase(box.begin() + 2, box.begin() + 4);  // the x_max face: rays along x leak through it
  write("open.stl", ascii_stl(box));
  const MeshEdges edges = mesh_edges(read_stl((dir_ / "open.stl").string()));
  EXPECT_EQ(edges.open, 4);
  EXPECT_EQ(edges.unbalanced, 4);
  const Config c = deck(file_obstacle("stl", "open.stl", 1, {0, 0, 0}));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("not watertight (4 edges"), std::string::npos) << c.warnings[0];
  expect_same_solid(c, deck(box_obstacle({4.2, 3.7, 2.9}, {15.4, 12.2, 11.6})));
}

// The octahedron |x - 10| + |y - 9| + |z - 8| <= 5 with its vertices on cell centres: rays along
// the axes run through its vertices and edges and along its faces' lines, and cell centres lie on
// its faces (hit exactly: integer arithmetic).
TEST_F(SurfaceGeometry, RaysThroughEdgesAndVerticesCountOnce) {
  const Vertex c0{10, 9, 8};
  const double r = 5;
  std::vector<Triangle> octahedron;
  for (int sx : {-1, 1})
    for (int sy : {-1, 1})
      for (int sz : {-1, 1}) {
        Triangle t{Vertex{c0[0] + sx * r, c0[1], c0[2]}, Vertex{c0[0], c0[1] + sy * r, c0[2]},
                   Vertex{c0[0], c0[1], c0[2] + sz * r}};
        if (sx * sy * sz < 0) std::swap(t[1], t[2]);  // outward
        octahedron.push_back(t);
      }
  write("octahedron.stl", ascii_stl(octahedron));
  const Config c = deck(file_obstacle("stl", "octahedron.stl", 1, {0, 0, 0}));
  const DomainGeometry g(c);
  const SurfaceSolid solid(read_stl((dir_ / "octahedron.stl").string()), {});
  long inside = 0, on_surface = 0;
  for (int z = 0; z < c.cells[2]; ++z)
    for (int y = 0; y < c.cells[1]; ++y)
      for (int x = 0; x < c.cells[0]; ++x) {
        const double l1 = std::abs(x - c0[0]) + std::abs(y - c0[1]) + std::abs(z - c0[2]);
        ASSERT_EQ(g.body_at(x, y, z), l1 <= r ? 0 : -1) << "cell " << x << " " << y << " " << z;
        // Each ray on its own, not only their majority: once out of a convex solid, 0 or 2 times
        // from outside it.
        for (int axis = 0; axis < 3 && l1 != r; ++axis) {
          bool touches = false;
          int winding = 0;
          const int n = solid.crossings({double(x), double(y), double(z)}, axis, touches, winding);
          ASSERT_FALSE(touches);
          ASSERT_TRUE(l1 < r ? n == 1 : n == 0 || n == 2) << n << " crossings along " << axis << " from cell " << x
                                                           << " " << y << " " << z;
          ASSERT_EQ(std::abs(winding), l1 < r ? 1 : 0) << "along " << axis << " from cell " << x << " " << y << " " << z;
        }
        inside += l1 <= r;
        on_surface += l1 == r;
      }
  EXPECT_EQ(inside, 231);  // the octahedral numbers: (2r+1)(2r^2+2r+3)/3 cells for r = 5
  EXPECT_EQ(on_surface, 102);
}

// A faceted sphere (an icosahedron refined three times, 1280 triangles) agrees with the analytic
// sphere wherever a cell centre lies farther from the sphere than the facets do.
TEST_F(SurfaceGeometry, FacetedSphereAgreesAwayFromItsFacets) {
  std::vector<Vertex> v;
  const double g = (1 + std::sqrt(5.0)) / 2;
  for (double a : {-1.0, 1.0})
    for (double b : {-g, g}) {
      v.push_back({0, a, b});
      v.push_back({a, b, 0});
      v.push_back({b, 0, a});
    }
  std::vector<std::array<int, 3>> faces;
  for (int i = 0; i < 12; ++i)
    for (int j = i + 1; j < 12; ++j)
      for (int k = j + 1; k < 12; ++k) {
        auto d2 = [&](int p, int q) {
          double s = 0;
          for (int d = 0; d < 3; ++d) s += (v[p][d] - v[q][d]) * (v[p][d] - v[q][d]);
          return s;
        };
        if (std::abs(d2(i, j) - 4) < 1e-9 && std::abs(d2(j, k) - 4) < 1e-9 && std::abs(d2(i, k) - 4) < 1e-9)
          faces.push_back({i, j, k});
      }
  ASSERT_EQ(faces.size(), 20u);
  auto unit = [](Vertex p) {
    const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return Vertex{p[0] / n, p[1] / n, p[2] / n};
  };
  std::vector<Triangle> tris;
  for (const auto& f : faces) tris.push_back({unit(v[f[0]]), unit(v[f[1]]), unit(v[f[2]])});
  for (int level = 0; level < 3; ++level) {
    std::vector<Triangle> finer;
    for (const Triangle& t : tris) {
      auto mid = [&](int a, int b) {
        return unit({(t[a][0] + t[b][0]) / 2, (t[a][1] + t[b][1]) / 2, (t[a][2] + t[b][2]) / 2});
      };
      const Vertex ab = mid(0, 1), bc = mid(1, 2), ca = mid(2, 0);
      finer.insert(finer.end(), {{t[0], ab, ca}, {ab, t[1], bc}, {ca, bc, t[2]}, {ab, bc, ca}});
    }
    tris = std::move(finer);
  }
  ASSERT_EQ(tris.size(), 1280u);
  // Facets lie between the sphere and the nearest of their planes.
  double inner = 1;
  for (const Triangle& t : tris) {
    Vertex e1, e2;
    for (int d = 0; d < 3; ++d) e1[d] = t[1][d] - t[0][d], e2[d] = t[2][d] - t[0][d];
    const Vertex n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    inner = std::min(inner, std::abs(n[0] * t[0][0] + n[1] * t[0][1] + n[2] * t[0][2]) / length);
  }
  const double radius = 7.3;
  const Vertex centre{11.6, 9.2, 8.45};
  write("sphere.stl", binary_stl(tris));
  const Config c = deck(file_obstacle("stl", "sphere.stl", radius, centre));
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.at(0);
  const DomainGeometry geometry(c);
  long inside = 0;
  for (int z = 0; z < c.cells[2]; ++z)
    for (int y = 0; y < c.cells[1]; ++y)
      for (int x = 0; x < c.cells[0]; ++x) {
        const double r = std::sqrt((x - centre[0]) * (x - centre[0]) + (y - centre[1]) * (y - centre[1]) +
                                   (z - centre[2]) * (z - centre[2]));
        const double margin = 1e-6;  // float32 vertices
        if (r < radius * inner - margin) ASSERT_EQ(geometry.body_at(x, y, z), 0) << x << " " << y << " " << z;
        if (r > radius + margin) ASSERT_EQ(geometry.body_at(x, y, z), -1) << x << " " << y << " " << z;
        inside += geometry.body_at(x, y, z) == 0;
      }
  EXPECT_GT(inside, 1500);  // 4/3 pi 7.3^3 = 1629
}

// A height map of three buildings, a gap of NODATA and a zero-height cell, given by its lower-left
// corner and by its lower-left cell's centre, flags the cells of the boxes it describes.
TEST_F(SurfaceGeometry, HeightMapGivesItsBuildingsBoxes) {
  // Raster edges between cell centres, then on them (x at 2 + 3 i, y at 4 + 3 j: closed footprints).
  for (const Vertex offset : {Vertex{2.25, 3.4, -0.5}, Vertex{2, 4, -0.5}}) height_map_case(offset);
}

void SurfaceGeometry::height_map_case(const Vertex& offset) {
  const double scale = 1.5;
  const int ncols = 5, nrows = 4;
  const double cell = 2;
  // Rows from the north, as the file lists them.
  const double heights[4][5] = {{0, 4, 4, -9999, 0}, {0, 4, 4, 0, 2.5}, {0, 0, 0, 0, 2.5}, {7, 0, -9999, 0, 0}};
  std::string rows;
  for (const auto& row : heights) {
    for (double h : row) rows += " " + std::to_string(h);
    rows += "\n";
  }
  write("corner.asc", "ncols 5\nnrows 4\nxllcorner 0\nyllcorner 0\ncellsize 2\nNODATA_value -9999\n" + rows);
  write("centre.asc", "NCOLS 5\nNROWS 4\nXLLCENTER 1\nYLLCENTER 1\nCELLSIZE 2\nnodata_value -9999\n" + rows);
  std::string boxes;
  for (int r = 0; r < nrows; ++r)
    for (int i = 0; i < ncols; ++i) {
      const double h = heights[r][i];
      if (h == -9999 || h == 0) continue;  // no building: a box of no cell (refused by the deck check)
      const int j = nrows - 1 - r;  // from the south
      boxes += box_obstacle({offset[0] + scale * i * cell, offset[1] + scale * j * cell, -100},
                            {offset[0] + scale * (i + 1) * cell, offset[1] + scale * (j + 1) * cell, offset[2] + scale * h});
    }
  const Config analytic = deck(boxes);
  for (const char* file : {"corner.asc", "centre.asc"}) {
    SCOPED_TRACE(std::string(file) + " offset " + std::to_string(offset[0]));
    const Config c = deck(file_obstacle("height_map", file, scale, offset));
    const DomainGeometry a(analytic), h(c);
    long solid = 0;
    for (int z = 0; z < c.cells[2]; ++z)
      for (int y = 0; y < c.cells[1]; ++y)
        for (int x = 0; x < c.cells[0]; ++x) {
          ASSERT_EQ(h.body_at(x, y, z) >= 0, a.body_at(x, y, z) >= 0) << x << " " << y << " " << z;
          solid += h.body_at(x, y, z) >= 0;
        }
    // The tallest building, h = 7 in the south-west raster cell: its cells up to z = -0.5 + 10.5.
    EXPECT_EQ(h.body_at(3, 4, 10), 0);
    EXPECT_EQ(h.body_at(3, 4, 11), -1);
    EXPECT_GT(solid, 100);
  }
}

// Interpolated bounce-back wants where a link first meets the wall. A height map's crossing is
// found by its inside test: a wall one raster cell thin (0.1 cells, x in [5.6, 5.7]) in front of a
// building (x >= 5.9, holding the cells at x = 6) is crossed from x = 5 at 0.6 of the link, before
// the building's 0.9: a bisection of the link alone found the building (its midpoints 0.5, 0.75
// fall beside the thin wall). Every link's crossing here is the first solid point along it, and
// the thin wall's is met.
TEST_F(SurfaceGeometry, HeightMapLinksMeetTheFirstWallAlongThem) {
  // Raster of 0.1 cells over x in [4, 16), y in [2, 14); columns of height 30 (above the domain).
  const int ncols = 120, nrows = 120;
  const auto building = [](double x, double y) {
    const bool rows = y > 3 - 1e-9 && y < 12 + 1e-9;
    return rows && ((x > 5.6 - 1e-9 && x < 5.7 + 1e-9) || (x > 5.9 - 1e-9 && x < 14 + 1e-9));
  };
  std::string text = "ncols " + std::to_string(ncols) + "\nnrows " + std::to_string(nrows) +
                     "\nxllcorner 0\nyllcorner 0\ncellsize 0.1\n";
  for (int r = nrows - 1; r >= 0; --r) {  // rows from the north
    for (int i = 0; i < ncols; ++i) text += building(4 + 0.1 * (i + 0.5), 2 + 0.1 * (r + 0.5)) ? " 30" : " 0";
    text += "\n";
  }
  write("thin.asc", text);
  const Config c = deck(file_obstacle("height_map", "thin.asc", 1, {4, 2, -0.5}) + interpolated);
  const DomainGeometry g(c);
  long links = 0, thin = 0;
  // The map is the deck's only body (0).
  for_each_body_link<D3Q19>(g, c.cells, [&](const std::array<int, 3>& x, int q, const std::array<int, 3>& e, int) {
    const double t = g.wall_crossing_at_level(0, x, e).fraction;
    const auto solid = [&](double s) { return building(x[0] + s * e[0], x[1] + s * e[1]); };
    ASSERT_TRUE(solid(std::min(1.0, t + 1e-9))) << x[0] << " " << x[1] << " " << x[2] << " q " << q << ": " << t;
    for (int k = 0; k < 1000; ++k)
      ASSERT_FALSE(solid(t * k / 1000 - 1e-9)) << x[0] << " " << x[1] << " " << x[2] << " q " << q << ": " << t;
    ++links;
    thin += std::abs(x[0] + t * e[0] - 5.6) < 1e-9;
  });
  EXPECT_GT(links, 1000);
  EXPECT_GT(thin, 100);
}

TEST_F(SurfaceGeometry, MalformedStlFilesAreRefusedWithTheReason) {
  const std::vector<Triangle> box = box_triangles({1, 1, 1}, {3, 3, 3});
  const std::string good = binary_stl(box);
  struct Case {
    std::string name, bytes, reason;
  };
  std::string nan_box = good;
  const float nan = std::nanf("");
  std::memcpy(&nan_box[84 + 50 * 5 + 12 + 4], &nan, 4);
  std::string bad_vertex = ascii_stl(box);
  bad_vertex.replace(bad_vertex.find("vertex") + 7, 1, "x");
  std::string no_end = ascii_stl(box);
  no_end.resize(no_end.find("endsolid"));
  std::string odd_normal = ascii_stl(box);  // read: the normal is not used
  odd_normal.replace(odd_normal.find("normal 0 0 0"), 12, "normal -1.#IND00 1.#QNAN0 0");
  std::string stray_zero = ascii_stl(box);  // a zero byte in a text file: no binary STL's size either
  const std::size_t zero_at = stray_zero.find("endloop");
  stray_zero.insert(zero_at, 1, '\0');
  const std::vector<Case> cases{
      {"truncated.stl", good.substr(0, good.size() - 10), "declares 12 triangles (684 bytes) but has 674 bytes: truncated"},
      {"count.stl", binary_stl(box, 11), "declares 11 triangles (634 bytes) but has 684 bytes: wrong triangle count"},
      {"header.stl", std::string(60, '\0'), "truncated binary STL: 60 bytes"},
      {"nan.stl", nan_box, "triangle 5 has a non-finite coordinate"},
      {"empty.stl", binary_stl({}), "no triangles"},
      {"vertex.stl", bad_vertex, "line 4: expected 'vertex x y z' with numbers, got '      vertex x"},
      {"endsolid.stl", no_end, "without 'endsolid'"},
      {"facet.stl", "solid a\nfacet normal 0 0 1\n  outer loop\n  vertex 0 0 0\n  vertex 1 0 0\nendloop\n",
       "line 6: expected 'vertex x y z', got 'endloop'"},
      {"zero.stl", stray_zero,
       "starts with 'solid' as an ASCII STL does, but byte " + std::to_string(zero_at) + " is the control character 0x00"},
  };
  for (const Case& c : cases) {
    const std::string path = write(c.name, c.bytes);
    const std::string why = refusal([&] { read_stl(path); });
    EXPECT_NE(why.find("'" + path + "': "), std::string::npos) << why;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.name << ": " << why;
  }
  EXPECT_EQ(refusal([&] { read_stl(write("good.stl", good)); }), "");
  EXPECT_EQ(read_stl(write("odd_normal.stl", odd_normal)).triangles.size(), box.size());
  // A binary STL's 80 header bytes are free: one that starts with a UTF-8 byte-order mark is
  // still read whole (an ASCII file's mark is skipped).
  std::string marked = good;
  marked.replace(0, 3, "\xEF\xBB\xBF");
  EXPECT_EQ(read_stl(write("marked.stl", marked)).triangles.size(), box.size());
  EXPECT_EQ(read_stl(write("marked_ascii.stl", "\xEF\xBB\xBF" + ascii_stl(box))).triangles.size(), box.size());
}

TEST_F(SurfaceGeometry, MalformedHeightMapsAreRefusedWithTheReason) {
  const std::string header = "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";
  struct Case {
    std::string name, text, reason;
  };
  const std::vector<Case> cases{
      {"no_ncols.asc", "nrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n", "header lacks ncols"},
      {"cellsize.asc", "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize big\n1 2\n3 4\n",
       "line 5: header key 'cellsize' needs one finite number"},
      {"zero_size.asc", "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 0\n1 2\n3 4\n", "cellsize must be > 0"},
      {"key.asc", "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncelsize 1\n1 2\n3 4\n", "line 5: unknown header key 'celsize'"},
      {"both.asc", header + "xllcenter 0.5\n1 2\n3 4\n", "both xllcorner and xllcenter"},
      {"short.asc", header + "1 2\n3\n", "has 3 values, expected ncols x nrows = 2 x 2 = 4"},
      {"long.asc", header + "1 2\n3 4 5\n", "line 7: more than ncols x nrows = 4 values"},
      {"nan.asc", header + "1 nan\n3 4\n", "line 6: height 'nan' is not finite"},
      {"word.asc", header + "1 2\n3 four\n", "line 7: 'four' is not a number"},
      {"no_data.asc", header + "NODATA_value -9999\n-9999 -9999\n-9999 -9999\n",
       "every one of its 4 heights is NODATA_value: it holds no ground"},
      {"rows.asc", "ncols 2\nnrows 1.5\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n", "line 2: nrows must be a whole number"},
      {"zero.asc", "ncols 0\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n", "line 1: ncols must be a whole number from 1 to 10^8, got 0"},
      {"binary.asc", std::string("\x7f" "ELF\x02\x01\x01\0\0\0 x\n", 13), "line 1: unknown header key '\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00' (expected"},
      // A damaged header's counts (10^9 values, 8 GB) size nothing before the values are read.
      {"huge.asc", "ncols 100000\nnrows 10000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n",
       "has 4 values, expected ncols x nrows = 100000 x 10000 = 1000000000"},
  };
  for (const Case& c : cases) {
    const std::string path = write(c.name, c.text);
    const std::string why = refusal([&] { read_height_map(path); });
    EXPECT_NE(why.find("'" + path + "': "), std::string::npos) << why;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.name << ": " << why;
  }
  const HeightMap map = read_height_map(write("good.asc", header + "1 2\n3 4\n"));
  EXPECT_EQ(map.height(0, 0), 3);  // the south-west cell: the first value of the last row
  EXPECT_EQ(map.height(1, 1), 2);
}

// The deck refuses what it cannot use, each with its key and reason.
TEST_F(SurfaceGeometry, DeckRefusesUnusableSurfaceObstacles) {
  write("box.stl", ascii_stl(box_triangles({1, 1, 1}, {3, 3, 3})));
  write("broken.stl", "solid x\nfacet normal 0 0 1\n");
  auto errors = [&](const std::string& text) -> std::string {
    try {
      deck(text);
    } catch (const DeckError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(errors(file_obstacle("stl", "broken.stl", 1, {0, 0, 0})).find("obstacle[0].file: '" + (dir_ / "broken.stl").string() + "': ends after line 2"),
            std::string::npos);
  EXPECT_NE(errors(file_obstacle("stl", "missing.stl", 1, {0, 0, 0})).find("obstacle[0].file: cannot read"), std::string::npos);
  EXPECT_NE(errors(file_obstacle("stl", "box.stl", 1, {40, 0, 0})).find("lies outside the domain along x"), std::string::npos);
  EXPECT_NE(errors(file_obstacle("stl", "box.stl", -1, {0, 0, 0})).find("obstacle[0].scale: expected a number > 0"),
            std::string::npos);
  EXPECT_NE(errors("[[obstacle]]\nshape = \"stl\"\n").find("obstacle[0].file: missing required key (expected a path to an STL file"),
            std::string::npos);
  EXPECT_NE(errors("[[obstacle]]\nshape = \"box\"\nlo = [1, 1, 1]\nhi = [2, 2, 2]\nscale = 2\n").find("obstacle[0].scale"),
            std::string::npos);
  // Solids that hold no cell centre ran with every cell fluid: a mesh between centres (in other
  // units), a single triangle, a height map under the lowest centres.
  write("between.stl", ascii_stl(box_triangles({2.2, 2.2, 2.2}, {2.8, 2.8, 2.8})));
  write("triangle.stl", ascii_stl({{Vertex{2.5, 2.5, 2.5}, Vertex{2.5, 2.5, 2.5}, Vertex{2.5, 2.5, 2.5}}}));
  write("low.asc", "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 4\n-0.2 -0.2\n-0.2 -0.2\n");
  EXPECT_NE(errors(file_obstacle("stl", "between.stl", 1, {0, 0, 0}))
                .find("obstacle[0]: the solid of '" + (dir_ / "between.stl").string() + "' holds no cell centre: along x it spans 2.2 to 2.8"),
            std::string::npos);
  EXPECT_NE(errors(file_obstacle("stl", "triangle.stl", 1, {0, 0, 0})).find("holds no cell centre: along x it spans 2.5 to 2.5"),
            std::string::npos);
  EXPECT_NE(errors(file_obstacle("height_map", "low.asc", 1, {0, 0, 0})).find("holds no cell centre: along z it spans -inf to -0.2"),
            std::string::npos);
  // On level 1 the mesh holds centres (2.25, 2.75): accepted with [amr]; so is the cube at 1 to 3.
  EXPECT_NO_THROW(deck(file_obstacle("stl", "between.stl", 1, {0, 0, 0}) + "[amr]\nmax_level = 1\n", {24, 20, 16}));
  const Config solid = deck(file_obstacle("stl", "box.stl", 1, {0, 0, 0}));
  EXPECT_EQ(DomainGeometry(solid).flag_at(2, 2, 2), flag::wall);
  // One period beyond a periodic face (x: 24 cells) the box's copy lies at 1 to 3: accepted, solid.
  const std::string x_periodic = "[boundary.x_min]\ntype = \"periodic\"\n[boundary.x_max]\ntype = \"periodic\"\n";
  const Config beyond = deck(x_periodic + file_obstacle("stl", "box.stl", 1, {24, 0, 0}));
  EXPECT_EQ(DomainGeometry(beyond).flag_at(2, 2, 2), flag::wall);
  EXPECT_NE(errors(x_periodic + file_obstacle("stl", "box.stl", 1, {48, 0, 0})).find("lies outside the domain along x"),
            std::string::npos);
}

}  // namespace
}  // namespace boreas
