#pragma once
// merged_aa<k>: k AA steps (AAStep.hpp) per sweep of the one lattice, in the slab and prism
// schedule of merged<k> (MergedStep.hpp), level l being a local step or a neighbour step by the
// parity of the step count. The schedule's contract carries over: a row's step at level l runs
// after levels l - 1 of the rows around it (y +- 1, z +- 1, wrapping). That is all AA needs in
// place: a local step reads and writes its own cells' slots, which the neighbour steps of the rows
// around it wrote at the level before; a neighbour step reads and writes the one set of slots
// (q, x + c_q) around each cell x, which no other cell's neighbour step touches, after the local
// steps of the rows around it. In stage 1 two threads' rows come within reach of each other's
// slots only at levels 1 and 2 beside a slab boundary, where either both steps are of one kind
// (disjoint slot sets) or the local step's cells lie outside the neighbour step's slots.
// The work a single aa step does for a whole lattice is done per row right after the row's step,
// when the values it copies are final and before any row that reads them runs:
//   after a local step     save the outlet cells' own post-collision values (AAStep.hpp) and fill
//                          the periodic ghosts whose image is in the row (reversed slots);
//   after a neighbour step drain what the row pushed into periodic ghosts to their images.
// A ghost's image is a neighbour of the pushing row on the torus, so the schedule orders both.
#include <Kokkos_Core.hpp>

#include "lbm/scheme/AAStep.hpp"
#include "lbm/scheme/MergedStep.hpp"

namespace boreas {

// Copies data(to(i)) <- data(from(i)) of the flat population storage for i in [start(r),
// start(r + 1)), grouped by the interior row r = z n_y + y after whose step they are due.
struct RowCopies {
  DeviceView<long*> start, from, to;
};

template <class L, class Real, class Collision>
struct MergedAARows {
  AALocalStep<L, Real, Collision> local;
  AANeighbourStep<L, Real, Collision> neighbour;
  RowCopies fill, drain;
  DeviceView<const long*> outlet_row_start, outlet_cells;
  DeviceView<Real**> outlet_post;

  // kind 0: local step, 1: neighbour step (host backends: the slab form runs there only).
  KOKKOS_INLINE_FUNCTION void operator()(int kind, int y, int z) const {
    const DenseGeometry& g = local.geom;
    const long first = g.index(0, y, z), r = static_cast<long>(z) * g.n[1] + y;
    if (kind == 0) {
      local.row(first, g.n[0]);
      for (long i = outlet_row_start(r); i < outlet_row_start(r + 1); ++i)
        for (int q = 0; q < L::Q; ++q) outlet_post(q, i) = local.f(opposite<L>(q), outlet_cells(i));
      copy(fill, r);
    } else {
      neighbour.row(first, g.n[0]);
      copy(drain, r);
    }
  }

  KOKKOS_INLINE_FUNCTION void copy(const RowCopies& c, long r) const {
    const auto& data = local.f.data;
    for (long i = c.start(r); i < c.start(r + 1); ++i) data(c.to(i)) = data(c.from(i));
  }
};

}  // namespace boreas
