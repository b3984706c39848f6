#pragma once
// Readers of the surface geometry a deck's obstacles name: STL triangle meshes (ASCII and binary)
// and height maps as ESRI ASCII grids. Plain host data; the solid they bound is classified by
// lbm/field/SurfaceSolid.hpp. Every reader throws Error("'<path>': <reason>") on malformed input
// and never returns a partial result. They live in core because the deck validates the files
// before any work is done, and the deck parser is core's (DESIGN.md places geometry input in io,
// which lbm's DomainGeometry cannot depend on).
#include <array>
#include <string>
#include <vector>

namespace boreas {

using Vertex = std::array<double, 3>;

// Where a file's coordinates land in the domain's cell-centre coordinates:
// p_cell = offset + scale * p_file (scale: cells per file length unit).
struct Placement {
  double scale = 1;
  std::array<double, 3> offset{0, 0, 0};
};

using Triangle = std::array<Vertex, 3>;

struct TriangleMesh {
  std::vector<Triangle> triangles;
  bool binary = false;  // how the file stored them
};

// Reads an STL file. Binary: an 80-byte header, a uint32 triangle count, 50 bytes per triangle
// (normal, three vertices as float32, a uint16 attribute), and a file size that matches the count
// exactly. ASCII: "solid" ... "facet normal n n n / outer loop / vertex x y z (three times) /
// endloop / endfacet" ... "endsolid", nothing but text. A file that starts with "solid" but holds
// other bytes is binary (some exporters write "solid" into the binary header).
// Refused: a truncated file, a count that disagrees with the size, a non-finite coordinate, a
// malformed ASCII line (with its line number), no triangles.
TriangleMesh read_stl(const std::string& path);

// The mesh's edges, vertices matched by exact coordinates: `open`, those not shared by exactly two
// triangles (zero for a watertight surface); `unbalanced`, those run through more often one way
// than the other by the triangles' vertex order (zero for closed, consistently oriented surfaces,
// however many: shells that overlap or touch, triangles written twice).
struct MeshEdges {
  long open = 0, unbalanced = 0;
};
MeshEdges mesh_edges(const TriangleMesh& mesh);

// A raster of heights (ESRI ASCII grid): ncols x nrows cells of size cell_size, the lower-left
// corner at (x0, y0). heights[j * ncols + i] is column i (east) of row j counted from the SOUTH
// (the file lists rows from the north). NODATA cells hold -infinity: no solid there.
struct HeightMap {
  int ncols = 0, nrows = 0;
  double x0 = 0, y0 = 0, cell_size = 1;
  std::vector<double> heights;
  double height(int i, int j) const { return heights[static_cast<std::size_t>(j) * ncols + i]; }
};

// Reads an ESRI ASCII grid: the header keys ncols, nrows, xllcorner or xllcenter, yllcorner or
// yllcenter, cellsize, optional NODATA_value (any order, case-insensitive), then nrows x ncols
// numbers. Refused: a missing, repeated or non-numeric header key, ncols/nrows < 1, cellsize <= 0,
// a missing, extra or non-numeric value (with its line), a NaN or infinite height.
HeightMap read_height_map(const std::string& path);

}  // namespace boreas
