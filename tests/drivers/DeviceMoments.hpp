#pragma once
// Moments given on the host (rho, ux, uy, uz per cell, cell by cell) as the device CellMoments
// that run_deck's samplers take.
#include <vector>

#include "core/Types.hpp"

namespace boreas::testing {

inline CellMoments device_moments(const std::vector<double>& host) {
  const long cells = long(host.size() / 4);
  CellMoments m("moments", cells, 4);
  auto h = Kokkos::create_mirror_view(m);
  for (long i = 0; i < cells; ++i)
    for (int c = 0; c < 4; ++c) h(i, c) = host[4 * i + c];
  Kokkos::deep_copy(m, h);
  return m;
}

}  // namespace boreas::testing
