#include "drivers/bench/LaunchBounds.hpp"

#include <Kokkos_Core.hpp>

#include <array>

#include "core/Error.hpp"
#include "core/Timers.hpp"
#include "drivers/bench/StepTiming.hpp"
#include "lbm/Block.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/PushStep.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas::bench {

const std::vector<std::string>& launch_bound_names() {
  static const std::vector<std::string> names{"default", "256x3", "256x4"};
  return names;
}

namespace {

// Calls run(Kokkos::LaunchBounds<...>{}) for the bound named `name`.
template <class Run>
void with_bounds(const std::string& name, Run&& run) {
  if (name == "default")
    run(Kokkos::LaunchBounds<>{});
  else if (name == "256x3")
    run(Kokkos::LaunchBounds<256, 3>{});
  else if (name == "256x4")
    run(Kokkos::LaunchBounds<256, 4>{});
  else
    throw Error("--launch-bounds: unknown bound '" + name + "'");
}

}  // namespace

template <class Real>
std::vector<LaunchTiming> launch_bounds_mlups(const Config& config, long steps, int repeats,
                                              const std::vector<std::string>& bounds) {
  if constexpr (exec_is_host) {
    throw Error("--launch-bounds: device backends only (this boreas-bench runs on a host backend)");
  } else {
    using L = D3Q19;
    if (config.lattice != LatticeKind::D3Q19) throw Error("--launch-bounds: D3Q19 only");
    const bool push = config.kernel.kind == StreamingKernel::ABPush;
    if (!push && config.kernel.kind != StreamingKernel::ABPull)
      throw Error("--launch-bounds: ab_pull or ab_push only");
    const DomainGeometry domain(config);
    Block<L, Real> block(config, domain, Box{{0, 0, 0}, config.cells}, {1, 1, 1}, {});
    const DenseGeometry g = block.field().geom;
    const auto flags = block.field().flags;
    const Populations<Real> a = block.populations();
    const Populations<Real> b("launch_bounds_lattice_b", a.layout);
    Kokkos::deep_copy(b.data, a.data);
    const BoundaryValues<Real> bc{};
    const CollisionParams<Real> params =
        CollisionParams<Real>::make(config.tau, config.trt_magic, config.force);
    const double cells = double(g.interior_cells());
    std::vector<LaunchTiming> timings;
    for (const std::string& name : bounds)
      with_bounds(name, [&](auto bound) {
        using Bounds = decltype(bound);
        const std::array<int, 3> lo{0, 0, 0}, hi{g.n[0], g.n[1], g.n[2]};
        long parity = 0;
        const auto one_step = [&]() {
          const bool odd = parity++ % 2;
          const Populations<Real> src = odd ? b : a, dst = odd ? a : b;
          if (push)
            for_each_cell<PushStep<L, Real, BGK>, ExecSpace, Bounds>(
                "boreas::bench::push_bounded", g, lo, hi, PushStep<L, Real, BGK>{src, dst, flags, g, bc, params});
          else
            for_each_cell<PullStep<L, Real, BGK>, ExecSpace, Bounds>(
                "boreas::bench::pull_bounded", g, lo, hi,
                PullStep<L, Real, BGK>{PullGather<L, Real>{src, flags, g, bc, params}, dst});
        };
        const std::vector<double> all = step_mlups(one_step, cells, steps, repeats);
        timings.push_back({name, median(all), all});
      });
    return timings;
  }
}

template std::vector<LaunchTiming> launch_bounds_mlups<float>(const Config&, long, int, const std::vector<std::string>&);
template std::vector<LaunchTiming> launch_bounds_mlups<double>(const Config&, long, int, const std::vector<std::string>&);

}  // namespace boreas::bench
