#pragma once
// How the benchmark's own step loops are timed (StreamReference.inl, LaunchBounds.cpp): one
// untimed step (first touch, warm-up), then `repeats` timings of `steps` steps, each fenced.
#include <Kokkos_Core.hpp>

#include <vector>

namespace boreas::bench {

// Million updates of `cells` cells per second of each repeat of one_step().
template <class Step>
std::vector<double> step_mlups(const Step& one_step, double cells, long steps, int repeats) {
  one_step();
  Kokkos::fence();
  std::vector<double> mlups;
  for (int r = 0; r < repeats; ++r) {
    Kokkos::Timer timer;
    for (long s = 0; s < steps; ++s) one_step();
    Kokkos::fence();
    mlups.push_back(cells * double(steps) / timer.seconds() / 1e6);
  }
  return mlups;
}

}  // namespace boreas::bench
