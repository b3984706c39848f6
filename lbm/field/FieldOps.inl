// Template definitions of lbm/field/FieldOps.hpp; included by the instantiation units
// (lbm/BlockInstance.cpp.in).
#include <climits>
#include <cmath>
#include <cstring>

#include "lbm/field/CellHash.hpp"
#include "lbm/field/FieldOps.hpp"

namespace boreas {


template <class L, class Real>
Populations<Real> initial_populations(const Field& field, const Config& config) {
  const DenseGeometry& g = field.geom;
  const Box& box = field.box;
  Populations<Real> natural("initial_populations", field.storage);
  auto host = Kokkos::create_mirror_view(natural.data);
  Kokkos::deep_copy(host, Real(0));
  const CouplingRates<Real> rates = CouplingRates<Real>::of_deck(config, config.tau, config.force);
  // The block with its ghosts, and around it the layer the gradients' differences read (along the
  // lattice's axes): the deck's initial state is evaluated once per point there (a channel's sums
  // 48 Fourier modes), on the host's threads, as are the cells' rebuilds.
  std::array<int, 3> first{}, extent{};
  for (int a = 0; a < 3; ++a) {
    const int pad = a < L::D ? 1 : 0;
    first[a] = box.lo[a] - g.g[a] - pad;
    extent[a] = g.n[a] + 2 * (g.g[a] + pad);
  }
  const long points = long(extent[0]) * extent[1] * extent[2];
  auto point = [&](const std::array<int, 3>& p) {
    return (long(p[2] - first[2]) * extent[1] + (p[1] - first[1])) * extent[0] + (p[0] - first[0]);
  };
  std::vector<double> values;  // rho, ux, uy, uz per point
  const bool uniform = config.initial == InitialCondition::Uniform;
  if (!uniform) {
    values.resize(4 * std::size_t(points));
    Kokkos::parallel_for("boreas::lbm::initial_state", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, points),
                         [&](const long i) {
                           const double p[3] = {double(first[0] + i % extent[0]), double(first[1] + i / extent[0] % extent[1]),
                                                double(first[2] + i / (long(extent[0]) * extent[1]))};
                           std::array<double, 3> u;
                           initial_macroscopic(config, {p[0], p[1], p[2]}, values[4 * i], u);
                           for (int d = 0; d < 3; ++d) values[4 * i + 1 + d] = u[d];
                         });
    Kokkos::fence();
  }
  auto state = [&](const std::array<int, 3>& p, double& rho, std::array<double, 3>& u) {
    if (uniform) return initial_macroscopic(config, {double(p[0]), double(p[1]), double(p[2])}, rho, u);
    const double* v = &values[4 * std::size_t(point(p))];
    rho = v[0];
    u = {v[1], v[2], v[3]};
  };
  const int ex = g.n[0] + 2 * g.g[0], ey = g.n[1] + 2 * g.g[1], ez = g.n[2] + 2 * g.g[2];
  Kokkos::parallel_for(
      "boreas::lbm::initial_populations", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, long(ex) * ey * ez),
      [&](const long i) {
        const int x = int(i % ex) - g.g[0], y = int(i / ex % ey) - g.g[1], z = int(i / (long(ex) * ey)) - g.g[2];
        Real f[L::Q];
        initial_post_collision<L>(config, rates, {box.lo[0] + x, box.lo[1] + y, box.lo[2] + z}, state, f);
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
  const auto flags = field.flags;
  const CollisionParams<Real> params = physics.params;
  const DenseGeometry g = field.geom;
  const long n = g.interior_cells(), nx = g.n[0], ny = g.n[1];
  Kokkos::parallel_for(
      "boreas::lbm::macroscopic", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const long i) {
        const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (nx * ny));
        const long cell = g.index(x, y, z);
        if (flags(cell) != flag::fluid) {
          for (int c = 0; c < 4; ++c) out(i, c) = 0;
          return;
        }
        Real f[L::Q], rho, j[3];
        for (int q = 0; q < L::Q; ++q) f[q] = natural(q, cell);
        post_collision_moments<L>(f, params.force, rho, j);
        out(i, 0) = rho;
        for (int d = 0; d < 3; ++d) out(i, 1 + d) = j[d] / rho;
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
