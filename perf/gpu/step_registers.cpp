// The dense device steps of D3Q19 (ab_pull, ab_push, AA local and neighbour; BGK and TRT; double
// and float) launched as the schemes launch them (for_each_cell, CellSweep, Kokkos's RangePolicy),
// alone in one unit: perf/gpu/step_registers.sh compiles it for a CUDA architecture and reads
// each kernel's registers, frame and instructions in about 2 minutes (2 cores, 2026-12-04), where
// the production units (Block_D3Q19_{double,float}.cpp) took 3 min 20 s together and hold every
// other kernel too. Not linked into anything; never run.
#include <Kokkos_Core.hpp>

#include "lbm/physics/Collision.hpp"
#include "lbm/physics/Lattice.hpp"
#include "lbm/scheme/AAStep.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/PushStep.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas {

template <class Real, class Collision>
void launch_steps(const Populations<Real>& a, const Populations<Real>& b, const DeviceView<const std::uint8_t*>& flags,
                  const DenseGeometry& g, const BoundaryValues<Real>& bc, const CollisionParams<Real>& params,
                  const DeviceView<const int*>& saved_slot, const DeviceView<const Real**>& saved_post) {
  using L = D3Q19;
  const std::array<int, 3> lo{0, 0, 0}, hi{g.n[0], g.n[1], g.n[2]};
  for_each_cell("pull", g, lo, hi, PullStep<L, Real, Collision>{PullGather<L, Real>{a, flags, g, bc, params}, b});
  for_each_cell("push", g, lo, hi, PushStep<L, Real, Collision>{a, b, flags, g, bc, params});
  for_each_cell("aa_local", g, lo, hi, AALocalStep<L, Real, Collision>{a, flags, g, params});
  for_each_cell("aa_neighbour", g, lo, hi, AANeighbourStep<L, Real, Collision>{a, flags, g, bc, params, saved_slot, saved_post});
}

#define BOREAS_LAUNCH_STEPS(Real, Collision)                                                                        \
  template void launch_steps<Real, Collision>(const Populations<Real>&, const Populations<Real>&,                   \
                                              const DeviceView<const std::uint8_t*>&, const DenseGeometry&,        \
                                              const BoundaryValues<Real>&, const CollisionParams<Real>&,           \
                                              const DeviceView<const int*>&, const DeviceView<const Real**>&);
BOREAS_LAUNCH_STEPS(double, BGK)
BOREAS_LAUNCH_STEPS(double, TRT)
BOREAS_LAUNCH_STEPS(float, BGK)
BOREAS_LAUNCH_STEPS(float, TRT)

}  // namespace boreas
