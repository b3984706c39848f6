// Template definitions of lbm/Block.hpp; included by one explicit-instantiation unit per lattice and
// precision (lbm/BlockInstance.cpp.in).
#include "lbm/Block.hpp"
#include "lbm/field/FieldOps.inl"
#include "lbm/scheme/AAScheme.hpp"
#include "lbm/scheme/PullScheme.hpp"
#include "lbm/scheme/PushScheme.hpp"
#include "lbm/scheme/SwapScheme.hpp"

namespace boreas {

namespace {

// The fluid ghosts of `field` that mirror its own cells: those inside the block's box moved by one
// of its self offsets (the block set's neighbour table).
template <class L>
PeriodicGhosts periodic_ghosts(const Field& field, const DomainGeometry& domain,
                               const std::vector<std::array<int, 3>>& self_offsets) {
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.flags);
  std::vector<long> ghost, image;
  std::vector<std::uint32_t> pulled, pushed;
  const DenseGeometry& g = field.geom;
  const Box& box = field.box;
  for (int z = -g.g[2]; z < g.n[2] + g.g[2]; ++z)
    for (int y = -g.g[1]; y < g.n[1] + g.g[1]; ++y)
      for (int x = -g.g[0]; x < g.n[0] + g.g[0]; ++x) {
        const long cell = g.index(x, y, z);
        if (field.map.owned(cell) || flags(cell) != flag::fluid) continue;
        const std::array<int, 3> at{box.lo[0] + x, box.lo[1] + y, box.lo[2] + z};
        for (const std::array<int, 3>& o : self_offsets) {
          const std::array<int, 3> p{at[0] - o[0], at[1] - o[1], at[2] - o[2]};
          if (!box.contains(p[0], p[1], p[2])) continue;
          ghost.push_back(cell);
          image.push_back(g.index(p[0] - box.lo[0], p[1] - box.lo[1], p[2] - box.lo[2]));
          pulled.push_back(pulled_populations<L>(box, at, domain));
          pushed.push_back(pushed_populations<L>(box, at, domain));
          break;
        }
      }
  PeriodicGhosts p;
  p.ghost = to_device_view("periodic_ghost", ghost);
  p.image = to_device_view("periodic_image", image);
  p.pulled = to_device_view("periodic_pulled", pulled);
  p.pushed = to_device_view("periodic_pushed", pushed);
  return p;
}

template <class L, class Real>
std::unique_ptr<StreamingScheme<L, Real>> make_scheme(const Config& config, const SchemeContext<Real>& context) {
  const int k = config.kernel.steps;
  switch (config.kernel.kind) {
    case StreamingKernel::ABPull: return std::make_unique<PullScheme<L, Real>>(context);
    case StreamingKernel::Merged: return std::make_unique<MergedScheme<L, Real>>(context, k, config.merge_form);
    case StreamingKernel::ABPush: return std::make_unique<PushScheme<L, Real>>(context);
    case StreamingKernel::AA: return std::make_unique<AAScheme<L, Real>>(context);
    case StreamingKernel::MergedAA: return std::make_unique<MergedAAScheme<L, Real>>(context, k);
    case StreamingKernel::Swap: return std::make_unique<SwapScheme<L, Real>>(context, false);
    case StreamingKernel::SwapPrism: return std::make_unique<SwapScheme<L, Real>>(context, true);
    case StreamingKernel::Auto: break;
  }
  throw Error("the kernel choice \"auto\" is resolved before blocks are built");
}

}  // namespace

template <class L, class Real>
Block<L, Real>::Block(const Config& config, const DomainGeometry& domain, const Box& owned,
                      const std::array<int, 3>& ghosts, const std::vector<std::array<int, 3>>& self_offsets)
    : inflow_(config) {
  if (config.tile < 2) throw Error("simulation.tile must be at least 2 (prism tiles of adjacent rows)");
  SchemeContext<Real> context;
  context.field = Field(config, domain, owned, ghosts, L::Q, sizeof(Real));
  if (config.wall_links())
    context.field.walls = wall_links<L>(context.field.geom, context.field.flags, domain, config.density);
  context.physics = CellPhysics<Real>::make(config);
  context.physics.bc.turbulence = inflow_.turbulence();
  context.periodic = periodic_ghosts<L>(context.field, domain, self_offsets);
  context.tile = config.tile;
  context.traversal = config.traversal;
  scheme_ = make_scheme<L, Real>(config, context);
  scheme_->load_canonical(initial_populations<L, Real>(context.field, config));
}

template <class L, class Real>
void Block<L, Real>::fill_periodic_ghosts(const Populations<Real>& natural) const {
  const PeriodicGhosts& periodic = scheme_->context().periodic;
  fill_ghosts<L>(periodic, natural, periodic.pulled);
}

template <class L, class Real>
HostMacroscopic Block<L, Real>::macroscopic(const Populations<Real>& natural) const {
  return boreas::macroscopic<L>(field(), natural, physics());
}

template <class L, class Real>
void Block<L, Real>::moments(const Populations<Real>& natural, const CellMoments& out) const {
  device_moments<L>(field(), natural, physics(), out);
}

namespace {
// Owned cells per pass of a checkpoint's packing: whole z-planes, about a sixteenth of the block,
// so that the device buffer stays small beside the lattices.
long pack_chunk(const DenseGeometry& g) {
  const long plane = long(g.n[0]) * g.n[1], planes = std::max(1L, long(g.n[2]) / 16);
  return plane * planes;
}
}  // namespace

template <class L, class Real>
void Block<L, Real>::owned_populations(Real* out) const {
  const Populations<Real> f = canonical();
  const DenseGeometry g = field().geom;
  const long n = g.interior_cells(), nx = g.n[0], ny = g.n[1], chunk = pack_chunk(g);
  DeviceView<Real*> packed(Kokkos::view_alloc("owned_populations", Kokkos::WithoutInitializing), chunk * L::Q);
  for (long first = 0; first < n; first += chunk) {
    const long count = std::min(chunk, n - first);
    Kokkos::parallel_for(
        "boreas::lbm::pack_owned", Kokkos::RangePolicy<ExecSpace>(0, count), KOKKOS_LAMBDA(const long k) {
          const long i = first + k;
          const long cell = g.index(int(i % nx), int((i / nx) % ny), int(i / (nx * ny)));
          for (int q = 0; q < L::Q; ++q) packed(k * L::Q + q) = f(q, cell);
        });
    Kokkos::deep_copy(Kokkos::View<Real*, Kokkos::HostSpace>(out + first * L::Q, count * L::Q),
                      Kokkos::subview(packed, std::make_pair(0L, count * L::Q)));
  }
}

template <class L, class Real>
void Block<L, Real>::load_owned_populations(const Real* values, std::size_t count) {
  const DenseGeometry g = field().geom;
  const long n = g.interior_cells(), nx = g.n[0], ny = g.n[1], chunk = pack_chunk(g);
  if (count != static_cast<std::size_t>(n) * L::Q)
    throw Error("a block of " + std::to_string(n) + " cells cannot load " + std::to_string(count) +
                " population values");
  Populations<Real> natural("restart_populations", field().storage);
  Kokkos::deep_copy(natural.data, canonical().data);
  DeviceView<Real*> packed(Kokkos::view_alloc("restart_values", Kokkos::WithoutInitializing), chunk * L::Q);
  for (long first = 0; first < n; first += chunk) {
    const long count = std::min(chunk, n - first);
    Kokkos::deep_copy(Kokkos::subview(packed, std::make_pair(0L, count * L::Q)),
                      Kokkos::View<const Real*, Kokkos::HostSpace>(values + first * L::Q, count * L::Q));
    Kokkos::parallel_for(
        "boreas::lbm::unpack_owned", Kokkos::RangePolicy<ExecSpace>(0, count), KOKKOS_LAMBDA(const long k) {
          const long i = first + k;
          const long cell = g.index(int(i % nx), int((i / nx) % ny), int(i / (nx * ny)));
          for (int q = 0; q < L::Q; ++q) natural(q, cell) = packed(k * L::Q + q);
        });
  }
  scheme_->load_canonical(natural);
}

template <class L, class Real>
void Block<L, Real>::save_state() {
  const Populations<Real> natural = canonical();
  if (saved_.extent(0) != natural.data.extent(0))
    saved_ = DeviceView<Real*>(Kokkos::view_alloc("saved_populations", Kokkos::WithoutInitializing),
                               natural.data.extent(0));
  Kokkos::deep_copy(saved_, natural.data);
}

template <class L, class Real>
void Block<L, Real>::restore_state() {
  Populations<Real> natural;
  natural.data = saved_;
  natural.layout = field().storage;
  scheme_->load_canonical(natural);
}

}  // namespace boreas
