#pragma once
// Solids bounded by the surfaces of core/SurfaceFiles.hpp, placed in the domain's cell-centre
// coordinates (cell i's centre at i): which points lie inside. DomainGeometry asks them for every
// cell centre it flags, on every AMR level.
#include <array>
#include <vector>

#include "core/SurfaceFiles.hpp"

namespace boreas {

// The inside of a triangle mesh. A point is inside when rays from it along +x, +y and +z say so by
// majority (two of three). On a closed, consistently oriented surface (core/SurfaceFiles.hpp
// mesh_edges: no unbalanced edge) a ray says so where the surface winds around the point (its
// crossings, signed by the triangles' orientation, do not cancel): several shells that overlap
// make their union, triangles written twice one solid, and the three rays agree. Otherwise where
// the ray crosses the surface an odd number of times: a watertight mesh with some triangles turned
// gives three equal answers, a mesh with holes is still right wherever at most one of the rays
// leaks through a hole.
// A point on the surface is inside (as the analytic shapes count their boundary) where its ray's
// hit is computed exactly: faces normal to an axis, or with exactly representable planes. Ray-triangle
// tests go through a bounding volume hierarchy; a ray through an edge or vertex is counted once by
// a fixed infinitesimal shift of the ray (the "top-left" rule), computed bit-identically for the
// triangles that share the edge.
class SurfaceSolid {
 public:
  SurfaceSolid(const TriangleMesh& mesh, const Placement& placement);

  bool contains(const Vertex& p) const;
  // Crossings of the ray from p along +axis; on_surface is set if p lies on a triangle it meets,
  // `winding` adds each crossing's sign (+1 where the triangle's normal, by its vertex order,
  // points along the ray).
  int crossings(const Vertex& p, int axis, bool& on_surface, int& winding) const;
  // The smallest t in [0, 1] where the segment a + t c meets a triangle (Moeller & Trumbore
  // 1997), or -1.
  double first_hit(const Vertex& a, const Vertex& c) const;
  const Vertex& lo() const { return nodes_.front().lo; }
  const Vertex& hi() const { return nodes_.front().hi; }

 private:
  struct Node {
    Vertex lo, hi;
    int first = 0, count = 0;  // triangles [first, first + count) of a leaf
    int second = -1;           // an inner node's second child (the first follows it); -1: a leaf
  };
  int build(int first, int count);
  // visit(triangle) for the triangles of the leaves whose boxes meets(node) accepts, depth first.
  template <class Meets, class Visit>
  void for_each_candidate(const Meets& meets, const Visit& visit) const;

  std::vector<Triangle> triangles_;
  bool closed_;  // no unbalanced edge: decided by the winding number
  std::vector<Node> nodes_;
};

// The solid under a height map: a point is inside when it lies over a raster cell with data (its
// closed footprint: on the edge between two, the higher counts) and not above that cell's height
// (both placed by the same Placement; heights along +z).
class HeightMapSolid {
 public:
  HeightMapSolid(HeightMap map, const Placement& placement) : map_(std::move(map)), at_(placement) {}
  bool contains(const Vertex& p) const;
  // The box holding the solid (unbounded below).
  Vertex lo() const;
  Vertex hi() const;
  // A raster cell's side as placed: the thinnest wall the map can hold.
  double raster_cell() const { return at_.scale * map_.cell_size; }

 private:
  HeightMap map_;
  Placement at_;
};

}  // namespace boreas
