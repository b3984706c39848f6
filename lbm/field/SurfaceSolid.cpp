#include "lbm/field/SurfaceSolid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace boreas {

namespace {

constexpr int leaf_triangles = 4;

double centroid(const Triangle& t, int d) { return (t[0][d] + t[1][d] + t[2][d]) / 3; }

int sign(double v) { return (v > 0) - (v < 0); }

// Which side of the projected edge a -> b the point p lies on, as seen along the ray's axis, in
// the edge's own direction: `exact` (0 on the edge's line) and `shifted`, for p moved by
// (eps, eps^2), which decides a point on the line the same way for every edge and triangle. The
// edge is evaluated from its lexicographically smaller end so that both triangles sharing it
// compute the same number.
struct EdgeSide {
  int exact, shifted;
};
EdgeSide edge_side(const double (&a)[2], const double (&b)[2], const double (&p)[2]) {
  const bool forward = a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
  const double(&s)[2] = forward ? a : b;
  const double(&e)[2] = forward ? b : a;
  const int exact = sign((e[0] - s[0]) * (p[1] - s[1]) - (e[1] - s[1]) * (p[0] - s[0]));
  const int shifted = exact != 0 ? exact : e[1] != s[1] ? -sign(e[1] - s[1]) : sign(e[0] - s[0]);
  return forward ? EdgeSide{exact, shifted} : EdgeSide{-exact, -shifted};
}

}  // namespace

SurfaceSolid::SurfaceSolid(const TriangleMesh& mesh, const Placement& placement)
    : triangles_(mesh.triangles), closed_(mesh_edges(mesh).unbalanced == 0) {
  for (Triangle& t : triangles_)
    for (Vertex& v : t)
      for (int d = 0; d < 3; ++d) v[d] = placement.offset[d] + placement.scale * v[d];
  nodes_.reserve(2 * triangles_.size() / leaf_triangles + 1);
  build(0, int(triangles_.size()));
}

int SurfaceSolid::build(int first, int count) {
  const int index = int(nodes_.size());
  nodes_.emplace_back();
  Node node;
  node.lo.fill(std::numeric_limits<double>::infinity());
  node.hi.fill(-std::numeric_limits<double>::infinity());
  Vertex centre_lo = node.lo, centre_hi = node.hi;
  for (int i = first; i < first + count; ++i)
    for (int d = 0; d < 3; ++d) {
      for (const Vertex& v : triangles_[i]) {
        node.lo[d] = std::min(node.lo[d], v[d]);
        node.hi[d] = std::max(node.hi[d], v[d]);
      }
      centre_lo[d] = std::min(centre_lo[d], centroid(triangles_[i], d));
      centre_hi[d] = std::max(centre_hi[d], centroid(triangles_[i], d));
    }
  if (count <= leaf_triangles) {
    node.first = first;
    node.count = count;
    nodes_[index] = node;
    return index;
  }
  int axis = 0;
  for (int d = 1; d < 3; ++d)
    if (centre_hi[d] - centre_lo[d] > centre_hi[axis] - centre_lo[axis]) axis = d;
  const int half = count / 2;
  std::nth_element(triangles_.begin() + first, triangles_.begin() + first + half, triangles_.begin() + first + count,
                   [axis](const Triangle& a, const Triangle& b) { return centroid(a, axis) < centroid(b, axis); });
  nodes_[index] = node;
  build(first, half);
  const int second = build(first + half, count - half);  // nodes_ may have grown
  nodes_[index].second = second;
  return index;
}

template <class Meets, class Visit>
void SurfaceSolid::for_each_candidate(const Meets& meets, const Visit& visit) const {
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (!meets(node)) continue;
    if (node.second >= 0) {
      stack[top++] = node.second;
      stack[top++] = int(&node - nodes_.data()) + 1;
      continue;
    }
    for (int i = node.first; i < node.first + node.count; ++i) visit(triangles_[i]);
  }
}

int SurfaceSolid::crossings(const Vertex& p, int axis, bool& on_surface, int& winding) const {
  const int b = (axis + 1) % 3, c = (axis + 2) % 3;  // (axis, b, c) right-handed
  const double q[2] = {p[b], p[c]};
  int count = 0;
  const auto ray_meets = [&](const Node& node) {
    return p[b] >= node.lo[b] && p[b] <= node.hi[b] && p[c] >= node.lo[c] && p[c] <= node.hi[c] && p[axis] <= node.hi[axis];
  };
  for_each_candidate(ray_meets, [&](const Triangle& t) {
    const double v[3][2] = {{t[0][b], t[0][c]}, {t[1][b], t[1][c]}, {t[2][b], t[2][c]}};
    const double det = (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0]);
    if (det == 0) return;  // seen edge-on: its neighbours carry the crossing
    const int orientation = sign(det);
    const EdgeSide sides[3] = {edge_side(v[0], v[1], q), edge_side(v[1], v[2], q), edge_side(v[2], v[0], q)};
    bool crossed = true, touched = true;  // the shifted ray crosses; the ray meets the closed triangle
    for (const EdgeSide& e : sides) {
      crossed = crossed && e.shifted == orientation;
      touched = touched && e.exact != -orientation;
    }
    if (!touched) return;
    // The plane through t[0] with normal n = (t1 - t0) x (t2 - t0), whose axis component is det.
    const double e1[3] = {t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
    const double e2[3] = {t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
    const double nb = e1[c] * e2[axis] - e1[axis] * e2[c], nc = e1[axis] * e2[b] - e1[b] * e2[axis];
    const double hit = t[0][axis] - (nb * (p[b] - t[0][b]) + nc * (p[c] - t[0][c])) / det;
    if (hit == p[axis]) on_surface = true;
    if (crossed && hit > p[axis]) {
      ++count;
      winding += orientation;
    }
  });
  return count;
}

double SurfaceSolid::first_hit(const Vertex& a, const Vertex& c) const {
  double best = 2;
  const auto segment_meets = [&](const Node& node) {
    for (int d = 0; d < 3; ++d)
      if (std::max(a[d], a[d] + c[d]) < node.lo[d] || std::min(a[d], a[d] + c[d]) > node.hi[d]) return false;
    return true;
  };
  for_each_candidate(segment_meets, [&](const Triangle& t) {
    double e1[3], e2[3], s[3];
    for (int d = 0; d < 3; ++d) {
      e1[d] = t[1][d] - t[0][d];
      e2[d] = t[2][d] - t[0][d];
      s[d] = a[d] - t[0][d];
    }
    const double p[3] = {c[1] * e2[2] - c[2] * e2[1], c[2] * e2[0] - c[0] * e2[2], c[0] * e2[1] - c[1] * e2[0]};
    const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (det == 0) return;  // the segment runs parallel to the triangle's plane
    const double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    if (u < 0 || u > 1) return;
    const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    const double v = (c[0] * q[0] + c[1] * q[1] + c[2] * q[2]) / det;
    if (v < 0 || u + v > 1) return;
    const double hit = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    if (hit >= 0 && hit <= 1) best = std::min(best, hit);
  });
  return best <= 1 ? best : -1;
}

bool SurfaceSolid::contains(const Vertex& p) const {
  for (int d = 0; d < 3; ++d)
    if (p[d] < lo()[d] || p[d] > hi()[d]) return false;
  int votes = 0;
  for (int axis = 0; axis < 3; ++axis) {
    bool on_surface = false;
    int winding = 0;
    const int n = crossings(p, axis, on_surface, winding);
    if (on_surface) return true;
    votes += closed_ ? winding != 0 : n % 2;
  }
  return votes >= 2;
}

bool HeightMapSolid::contains(const Vertex& p) const {
  // The raster cells whose closed footprint holds p: one, or two or four on their edges and
  // corners (a point on a building's wall is in it, as for the analytic shapes).
  const double fx = ((p[0] - at_.offset[0]) / at_.scale - map_.x0) / map_.cell_size;
  const double fy = ((p[1] - at_.offset[1]) / at_.scale - map_.y0) / map_.cell_size;
  const double i = std::floor(fx), j = std::floor(fy);
  double top = -std::numeric_limits<double>::infinity();  // also no data's height
  for (double ii : {i - 1, i})
    for (double jj : {j - 1, j}) {
      const bool holds = (ii == i || fx == i) && (jj == j || fy == j);
      if (holds && ii >= 0 && jj >= 0 && ii < map_.ncols && jj < map_.nrows)
        top = std::max(top, map_.height(int(ii), int(jj)));
    }
  return p[2] <= at_.offset[2] + at_.scale * top;
}

Vertex HeightMapSolid::lo() const {
  return {at_.offset[0] + at_.scale * map_.x0, at_.offset[1] + at_.scale * map_.y0,
          -std::numeric_limits<double>::infinity()};
}

Vertex HeightMapSolid::hi() const {
  double top = -std::numeric_limits<double>::infinity();  // NODATA cells are -inf
  for (double h : map_.heights) top = std::max(top, h);
  return {at_.offset[0] + at_.scale * (map_.x0 + map_.ncols * map_.cell_size),
          at_.offset[1] + at_.scale * (map_.y0 + map_.nrows * map_.cell_size), at_.offset[2] + at_.scale * top};
}

}  // namespace boreas
