// Template definitions of lbm/field/FieldOps.hpp; included by the instantiation units
// (lbm/BlockInstance.cpp.in).
#include <climits>
#include <cmath>
#include <cstring>

#include "lbm/field/CellHash.hpp"
#include "lbm/field/FieldOps.hpp"
#include "lbm/scheme/PullStep.hpp"

namespace boreas {


template <class L, class Real>
Populations<Real> initial_populations(const Field& field, const Config& config) {
  const DenseGeometry& g = field.geom;
  const Box& box = field.box;
  Populations<Real> natural("initial_populations", field.storage);
  auto host = Kokkos::create_mirror_view(natural.data);
  Kokkos::deep_copy(host, Real(0));
  const CouplingRates<Real> rates = CouplingRates<Real>::of_deck(config, config.tau, config.force);
  const int ex = g.n[0] + 2 * g.g[0], ey = g.n[1] + 2 * g.g[1], ez = g.n[2] + 2 * g.g[2];
  // On the host's threads: the rebuild costs about a microsecond per cell.
  Kokkos::parallel_for(
      "boreas::lbm::initial_populations", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, long(ex) * ey * ez),
      [&](const long i) {
        const int x = int(i % ex) - g.g[0], y = int(i / ex % ey) - g.g[1], z = int(i / (long(ex) * ey)) - g.g[2];
        Real f[L::Q];
        initial_post_collision<L>(config, rates, {box.lo[0] + x, box.lo[1] + y, box.lo[2] + z}, f);
        const long cell = g.index(x, y, z);
        for (int q = 0; q < L::Q; ++q) host(field.storage.index(q, cell)) = f[q];
      });
  Kokkos::fence();
  Kokkos::deep_copy(natural.data, host);
  return natural;
}

template <class L, class Real>
std::uint64_t fields_hash(const Field& field, const Populations<Real>& f) {
  const auto flags = field.flags;
  const Field::GlobalIndex global = field.global_index();
  const DenseGeometry g = field.geom;
  const long nx = g.n[0], ny = g.n[1];
  std::uint64_t hash = 0;
  Kokkos::parallel_reduce(
      "boreas::lbm::fields_hash", Kokkos::RangePolicy<ExecSpace>(0, g.interior_cells()),
      KOKKOS_LAMBDA(const long i, std::uint64_t& acc) {
        const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (nx * ny));
        const long cell = g.index(x, y, z);
        if (flags(cell) != flag::fluid) return;
        acc += field_detail::cell_hash<L::Q>(static_cast<std::uint64_t>(global(x, y, z)),
                                             [&](int q) { return f(q, cell); });
      },
      hash);
  return hash;
}

template <class L, class Real>
Health check_health(const Field& field, const Populations<Real>& f, double rho0) {
  const auto flags = field.flags;
  const Field::GlobalIndex global = field.global_index();
  const DenseGeometry g = field.geom;
  const long nx = g.n[0], ny = g.n[1];
  const double lo = 0.1 * rho0, hi = 10 * rho0;
  long long first = LLONG_MAX;
  Kokkos::parallel_reduce(
      "boreas::lbm::check", Kokkos::RangePolicy<ExecSpace>(0, g.interior_cells()),
      KOKKOS_LAMBDA(const long i, long long& acc) {
        const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (nx * ny));
        const long cell = g.index(x, y, z);
        if (flags(cell) != flag::fluid) return;
        Real rho = 0;
        for (int q = 0; q < L::Q; ++q) rho += f(q, cell);
        if (!(rho > Real(lo) && rho < Real(hi))) {
          const long long gid = global(x, y, z);
          if (gid < acc) acc = gid;
        }
      },
      Kokkos::Min<long long>(first));
  Health h;
  if (first == LLONG_MAX) return h;
  h.ok = false;
  h.first_bad_cell = first;
  const auto& N = field.global_cells;
  const long long gx = first % N[0], gy = (first / N[0]) % N[1], gz = first / (static_cast<long long>(N[0]) * N[1]);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.data);
  const long cell = g.index(int(gx - field.box.lo[0]), int(gy - field.box.lo[1]), int(gz - field.box.lo[2]));
  double rho = 0;
  for (int q = 0; q < L::Q; ++q) rho += host(field.storage.index(q, cell));
  h.bad_density = rho;
  return h;
}

template <class L, class Real>
void device_moments(const Field& field, const Populations<Real>& natural, const CellPhysics<Real>& physics,
                    const CellMoments& out) {
  const PullGather<L, Real> gather{natural, field.flags, field.geom, physics.bc, physics.params, field.walls};
  const DenseGeometry g = field.geom;
  const long n = g.interior_cells(), nx = g.n[0], ny = g.n[1];
  Kokkos::parallel_for(
      "boreas::lbm::macroscopic", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const long i) {
        const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (nx * ny));
        const long cell = g.index(x, y, z);
        if (gather.flags(cell) != flag::fluid) {
          for (int c = 0; c < 4; ++c) out(i, c) = 0;
          return;
        }
        Real f[L::Q], r, u[3];
        gather(cell, f);
        moments<L>(f, gather.params, r, u);
        out(i, 0) = r;
        for (int d = 0; d < 3; ++d) out(i, 1 + d) = u[d];
      });
}

template <class L, class Real>
HostMacroscopic macroscopic(const Field& field, const Populations<Real>& natural, const CellPhysics<Real>& physics) {
  const DenseGeometry g = field.geom;
  const long n = g.interior_cells(), nx = g.n[0], ny = g.n[1];
  CellMoments m("boreas::moments", n, 4);
  device_moments<L>(field, natural, physics, m);
  auto flags_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.flags);
  std::vector<std::uint8_t> flags(n);
  for (long i = 0; i < n; ++i) flags[i] = flags_host(g.index(int(i % nx), int((i / nx) % ny), int(i / (nx * ny))));
  return host_macroscopic(m, std::move(flags));
}

template <class L, class Real>
ExactSum total_mass(const Field& field, const Populations<Real>& f) {
  const auto flags = field.flags;
  const DenseGeometry g = field.geom;
  const long nx = g.n[0], ny = g.n[1];
  ExactSum mass;
  Kokkos::parallel_reduce(
      "boreas::lbm::mass", Kokkos::RangePolicy<ExecSpace>(0, g.interior_cells()),
      KOKKOS_LAMBDA(const long i, ExactSum& acc) {
        const long cell = g.index(int(i % nx), int((i / nx) % ny), int(i / (nx * ny)));
        if (flags(cell) != flag::fluid) return;
        double m = 0;
        for (int q = 0; q < L::Q; ++q) m += double(f(q, cell));
        acc.add(m);
      },
      mass);
  return mass;
}

template <class L, class Real>
void shift_density(const Field& field, const Populations<Real>& f, double delta) {
  const auto flags = field.flags;
  const auto storage = f;
  Kokkos::Array<Real, L::Q> a;
  for (int q = 0; q < L::Q; ++q) a[q] = Real(L::w(q) * delta);
  Kokkos::parallel_for(
      "boreas::lbm::shift_density", Kokkos::RangePolicy<ExecSpace>(0, field.geom.cells_alloc),
      KOKKOS_LAMBDA(const long cell) {
        if (flags(cell) != flag::fluid) return;
        for (int q = 0; q < L::Q; ++q) storage(q, cell) += a[q];
      });
}

}  // namespace boreas
