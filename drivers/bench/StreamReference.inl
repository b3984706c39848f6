#pragma once
// The definition of stream_reference (StreamReference.hpp); the generated units
// StreamReference_<lattice>_<real>.cpp instantiate it, one per lattice and precision, so that
// the compilers of the benchmark's heaviest code run in parallel.
#include <Kokkos_Core.hpp>

#include "core/Timers.hpp"
#include "lbm/scheme/AAStep.hpp"
#include "lbm/Block.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/PushStep.hpp"
#include "lbm/scheme/SwapPrism.hpp"
#include "lbm/scheme/SwapStep.hpp"
#include "lbm/scheme/Traversal.hpp"

#include "drivers/bench/StepTiming.hpp"
#include "drivers/bench/StreamReference.hpp"

namespace boreas::bench {

struct NoCollision {
  template <class L, class Real>
  KOKKOS_FORCEINLINE_FUNCTION static void collide(Real (&)[L::Q], const CollisionParams<Real>&) {}
};

template <class L, class Real>
StreamReference stream_reference(Config config, long steps, int repeats) {
  const StreamingKernel kind = config.kernel.kind;
  const int k = config.kernel.steps;
  // The single step whose bytes a sweep moves: pull for merged<k>, AA for merged_aa<k>.
  if (kind == StreamingKernel::Merged) config.kernel = Scheme{StreamingKernel::ABPull, 1};
  if (kind == StreamingKernel::MergedAA) config.kernel = Scheme{StreamingKernel::AA, 1};
  const DomainGeometry domain(config);
  // Storage and flags only: the reference moves bytes and completes no periodic links.
  Block<L, Real> block(config, domain, Box{{0, 0, 0}, config.cells}, {1, 1, config.dimensions() == 3 ? 1 : 0}, {});
  const DenseGeometry g = block.field().geom;
  const auto flags = block.field().flags;
  const Populations<Real> a = block.populations();
  const Populations<Real> b("reference_lattice_b", a.layout);
  Kokkos::deep_copy(b.data, a.data);
  const BoundaryValues<Real> bc{};
  const CollisionParams<Real> params = CollisionParams<Real>::make(config.tau, config.trt_magic, config.force);
  const DeviceView<int*> no_saves("reference_saved_slot", g.cells_alloc);
  Kokkos::deep_copy(no_saves, -1);
  const DeviceView<Real**> no_post("reference_saved_post", L::Q, 0);
  using C = NoCollision;

  StreamReference ref{"", 0, {}};
  long parity = 0;
  auto one_step = [&]() {
    const Populations<Real> src = parity % 2 ? b : a, dst = parity % 2 ? a : b;
    switch (config.kernel.kind) {
      case StreamingKernel::ABPush:
        ref.pattern = "push";
        for_each_interior_cell("boreas::bench::push_reference", g, PushStep<L, Real, C>{src, dst, flags, g, bc, params});
        break;
      case StreamingKernel::AA:
        ref.pattern = "aa";
        if (parity % 2)
          for_each_interior_cell("boreas::bench::aa_neighbour_reference", g,
                                 AANeighbourStep<L, Real, C>{a, flags, g, bc, params, no_saves, no_post});
        else
          for_each_interior_cell("boreas::bench::aa_local_reference", g, AALocalStep<L, Real, C>{a, flags, g, params});
        break;
      case StreamingKernel::Swap:
        ref.pattern = "swap";
        swap_sweep(SwapRow<L, Real, C>{a, flags, g, bc, params});
        break;
      case StreamingKernel::SwapPrism:
        ref.pattern = "swap_prism";
        swap_prism_sweep(SwapRow<L, Real, C>{a, flags, g, bc, params}, config.tile);
        break;
      default:
        ref.pattern = "pull";
        for_each_interior_cell("boreas::bench::pull_reference", g,
                               PullStep<L, Real, C>{PullGather<L, Real>{src, flags, g, bc, params}, dst});
    }
    ++parity;
  };
  ref.all = step_mlups(one_step, double(g.interior_cells()), steps, repeats);
  ref.mlups = median(ref.all) * (kind == StreamingKernel::Merged || kind == StreamingKernel::MergedAA ? k : 1);
  return ref;
}

}  // namespace boreas::bench
