#include "drivers/bench/LaunchBounds.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <map>

#include "core/Error.hpp"
#include "core/Timers.hpp"
#include "drivers/bench/StepTiming.hpp"
#include "lbm/Block.hpp"
#include "lbm/scheme/PullStep.hpp"
#include "lbm/scheme/PushStep.hpp"
#include "lbm/scheme/Traversal.hpp"

namespace boreas::bench {

const std::vector<std::string>& launch_bound_names() {
  static const std::vector<std::string> names{"default", "256x3", "256x4", "256x5", "256x6"};
  return names;
}

std::string launch_bounds_unavailable() {
  if (exec_is_host) return "--launch-bounds: device backends only (this boreas-bench runs on a host backend)";
#if defined(KOKKOS_ARCH_KEPLER)
  // The sweep's 120 kernels are for the GPUs issue 16 measures; on Kepler builds (CI's compile
  // check of cuda-k20x) they would only add minutes.
  return "--launch-bounds: not built for Kepler GPUs (build cuda-sm80 or cuda-sm90)";
#endif
  return {};
}

std::string team_size_problem(int team_size, const std::string& bound) {
  if (team_size == 0) return {};
  if (team_size < 32 || team_size > 1024 || team_size % 32 != 0)
    return "team size " + std::to_string(team_size) + ": expected 0 (Kokkos's block) or a multiple of 32 up to 1024";
  if (bound != "default" && team_size > 256)
    return "team size " + std::to_string(team_size) + " exceeds bound " + bound + "'s 256 threads per block";
  return {};
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
  else if (name == "256x5")
    run(Kokkos::LaunchBounds<256, 5>{});
  else if (name == "256x6")
    run(Kokkos::LaunchBounds<256, 6>{});
  else
    throw Error("--launch-bounds: unknown bound '" + name + "'");
}

// Populations in which two lattices differ.
template <class Real>
long differing_populations(const Populations<Real>& x, const Populations<Real>& y) {
  const auto u = x.data, v = y.data;
  long differ = 0;
  Kokkos::parallel_reduce(
      "boreas::bench::compare_forms", Kokkos::RangePolicy<ExecSpace>(0, long(u.extent(0))),
      KOKKOS_LAMBDA(long i, long& n) { n += u(i) != v(i); }, differ);
  return differ;
}

// Teams of fixed size (the block size Kokkos's RangePolicy launch would not choose, see
// LaunchBounds.hpp). TeamMap::cells: a cell per thread in CellSweep's order (its 64-bit divisions
// per cell); TeamMap::rows: a team per x row, its threads along the row, no division per cell.
template <class F>
struct TeamCellSweep {
  CellSweep<F> sweep;
  long cells;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const long i = long(team.league_rank()) * team.team_size() + team.team_rank();
    if (i < cells) sweep(i);
  }
};

template <class F>
struct TeamRowSweep {
  F f;
  DenseGeometry geom;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int row = team.league_rank();
    const long base = geom.index(0, row % geom.n[1], row / geom.n[1]);
    for (int x = team.team_rank(); x < geom.n[0]; x += team.team_size()) step_cell(f, base + x);
  }
};

// Launches `sweep` in teams of team_size threads, refusing a size the kernel's registers do not
// allow (Kokkos would abort the benchmark with its own exception).
template <class Bounds, class Sweep>
void launch_teams(const char* label, long teams, int team_size, const Sweep& sweep) {
  const Kokkos::TeamPolicy<ExecSpace, Bounds> policy(int(teams), team_size);
  if (const int most = policy.team_size_max(sweep, Kokkos::ParallelForTag()); team_size > most)
    throw Error("--team-size " + std::to_string(team_size) + ": this step's registers allow at most " +
                std::to_string(most) + " threads per team here");
  Kokkos::parallel_for(label, policy, sweep);
}

// The whole box of g, in Kokkos's RangePolicy (team_size 0: for_each_cell) or in teams.
template <class Bounds, class F>
void sweep_box(const char* label, const DenseGeometry& g, int team_size, TeamMap map, const F& f) {
  if (team_size == 0) {
    for_each_cell<F, ExecSpace, Bounds>(label, g, {0, 0, 0}, {g.n[0], g.n[1], g.n[2]}, f);
  } else if (map == TeamMap::rows) {
    launch_teams<Bounds>(label, long(g.n[1]) * g.n[2], team_size, TeamRowSweep<F>{f, g});
  } else {
    const long cells = long(g.n[0]) * g.n[1] * g.n[2];
    launch_teams<Bounds>(label, (cells + team_size - 1) / team_size, team_size,
                         TeamCellSweep<F>{CellSweep<F>{f, g, g.n[0], g.n[1], 0, 0, 0}, cells});
  }
}

// A step in one of the forms of StepForm: the general path alone (full, what the steps were
// before their bulk path) or the bulk path alone (plain); the step itself is the split form.
template <class Step>
struct GeneralPath {
  Step step;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const { step(cell); }
};
template <class Step>
struct BulkPath {
  Step step;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(long cell) const { step.bulk(cell); }
};

// labels: the kernel's name per form (full, plain, split), for profilers.
template <class Bounds, class Step>
void sweep_form(const char* const (&labels)[3], const DenseGeometry& g, int team_size, TeamMap map, StepForm form,
                const Step& step) {
  if (form == StepForm::full)
    sweep_box<Bounds>(labels[0], g, team_size, map, GeneralPath<Step>{step});
  else if (form == StepForm::plain)
    sweep_box<Bounds>(labels[1], g, team_size, map, BulkPath<Step>{step});
  else
    sweep_box<Bounds>(labels[2], g, team_size, map, step);
}

}  // namespace

template <class Real>
std::vector<LaunchTiming> launch_bounds_mlups(const Config& config, long steps, int repeats,
                                              const std::vector<std::string>& bounds,
                                              const std::vector<int>& team_sizes, const std::vector<TeamMap>& maps,
                                              const std::vector<StepForm>& forms) {
  if constexpr (exec_is_host) {
    throw Error(launch_bounds_unavailable());
  } else {
#if defined(KOKKOS_ARCH_KEPLER)
    throw Error(launch_bounds_unavailable());
#else
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
    // One step from `src` into `dst` of `form` in the launch shape (Bounds, team_size, map).
    const auto step = [&](auto bound, StepForm form, int team_size, TeamMap map, const Populations<Real>& src,
                          const Populations<Real>& dst) {
      using Bounds = decltype(bound);
      if (push)
        sweep_form<Bounds>({"boreas::bench::push_full", "boreas::bench::push_plain", "boreas::bench::push_split"}, g,
                           team_size, map, form, PushStep<L, Real, BGK>{src, dst, flags, g, bc, params});
      else
        sweep_form<Bounds>({"boreas::bench::pull_full", "boreas::bench::pull_plain", "boreas::bench::pull_split"}, g,
                           team_size, map, form,
                           PullStep<L, Real, BGK>{PullGather<L, Real>{src, flags, g, bc, params}, dst});
    };
    // Per form other than full: populations in which one step of it differs from one full step.
    std::map<StepForm, long> differs;
    if (std::any_of(forms.begin(), forms.end(), [](StepForm form) { return form != StepForm::full; })) {
      const Populations<Real> full("launch_bounds_full", a.layout), other("launch_bounds_other", a.layout);
      Kokkos::deep_copy(full.data, b.data);
      step(Kokkos::LaunchBounds<>{}, StepForm::full, 0, TeamMap::cells, a, full);
      for (const StepForm form : forms) {
        if (form == StepForm::full || differs.count(form)) continue;
        Kokkos::deep_copy(other.data, b.data);
        step(Kokkos::LaunchBounds<>{}, form, 0, TeamMap::cells, a, other);
        differs[form] = differing_populations(full, other);
      }
    }
    std::vector<LaunchTiming> timings;
    for (const StepForm form : forms)
      for (const std::string& name : bounds)
        for (const int team_size : team_sizes)
          for (const TeamMap map : team_size == 0 ? std::vector<TeamMap>{TeamMap::cells} : maps)
            with_bounds(name, [&](auto bound) {
              long parity = 0;
              const auto one_step = [&]() {
                const bool odd = parity++ % 2;
                step(bound, form, team_size, map, odd ? b : a, odd ? a : b);
              };
              const std::vector<double> all = step_mlups(one_step, cells, steps, repeats);
              timings.push_back({name, team_size, map, form, median(all), all,
                                 form == StepForm::full ? 0 : differs.at(form)});
            });
    return timings;
#endif
  }
}

template std::vector<LaunchTiming> launch_bounds_mlups<float>(const Config&, long, int,
                                                             const std::vector<std::string>&,
                                                             const std::vector<int>&, const std::vector<TeamMap>&,
                                                             const std::vector<StepForm>&);
template std::vector<LaunchTiming> launch_bounds_mlups<double>(const Config&, long, int,
                                                              const std::vector<std::string>&,
                                                              const std::vector<int>&, const std::vector<TeamMap>&,
                                                              const std::vector<StepForm>&);

}  // namespace boreas::bench
